#include "util/alloc.h"

#include <stdlib.h>

void *cz_alloc(const cz_allocator *a, size_t bytes)
{
    if (bytes == 0) return NULL;
    if (a && a->alloc) return a->alloc(a->ctx, bytes);
    size_t rounded = (bytes + 63) & ~(size_t)63;
    if (rounded < bytes) return NULL;
    return aligned_alloc(64, rounded);
}

void cz_free(const cz_allocator *a, void *p, size_t bytes)
{
    if (!p) return;
    if (a && a->free) {
        a->free(a->ctx, p, bytes);
        return;
    }
    free(p);
}
