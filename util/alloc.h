/*
 * Allocation hook for large buffers (point tables, witness and matrix
 * arrays). Loaders take an optional allocator so the engine can route them
 * through its memory budget or its pinned pool; NULL means the default:
 * 64-byte aligned heap memory. free gets the same size that was allocated.
 */
#ifndef CZ_UTIL_ALLOC_H
#define CZ_UTIL_ALLOC_H

#include <stddef.h>

typedef struct cz_allocator {
    void *(*alloc)(void *ctx, size_t bytes); /* 64-byte aligned, NULL on failure */
    void (*free)(void *ctx, void *p, size_t bytes);
    void *ctx;
} cz_allocator;

/* NULL for bytes == 0 as well as on failure */
void *cz_alloc(const cz_allocator *a, size_t bytes);
void cz_free(const cz_allocator *a, void *p, size_t bytes);

#endif
