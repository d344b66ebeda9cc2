/*
 * mem/bufpool: a pool of large host buffers that the GPU reads at line
 * rate (pinned with cudaHostAlloc in CUDA builds), reused across jobs.
 *
 * DESIGN: pinning is slow (~1.8 GB/s on the H200 host, docs/DESIGN.md), so
 * buffers are never allocated per proof: a job gets a buffer from the free
 * list (best fit: the smallest free buffer that is large enough, if it is
 * not more than twice the request), gives it back when done, and the next
 * job reuses it. Every byte the pool holds, in use or idle, is reserved in
 * the memory budget (mem/budget.h, consumer CZ_MEM_POOL); the pool
 * registers itself as the budget's first reclaimer, giving back idle
 * buffers (largest first) when another consumer needs room.
 *
 * Memory comes from an allocator (util/alloc.h): the CUDA backend's pinned
 * allocator, or ordinary 64-byte-aligned memory in CPU builds. When the
 * allocator fails (pinning refused) the pool falls back to ordinary memory
 * for that buffer, says so once on the log callback, and counts it.
 *
 * Thread-safe. Counters: hits (served from the free list), misses (new
 * allocations), fallbacks, shrinks (buffers given back to make room).
 */
#ifndef CZ_MEM_BUFPOOL_H
#define CZ_MEM_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "mem/budget.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/log.h"

typedef struct cz_bufpool cz_bufpool;

typedef struct cz_bufpool_stats {
    size_t held;      /* bytes held (in use + idle), all reserved in the budget */
    size_t in_use;    /* bytes handed out */
    size_t idle;      /* bytes on the free list */
    uint64_t buffers; /* buffers held */
    uint64_t hits, misses, fallbacks, shrinks;
    size_t shrunk;    /* bytes given back to the budget by shrinking */
} cz_bufpool_stats;

/* alloc: where the memory comes from (NULL: ordinary aligned memory).
 * log (may be NULL: silent; copied): the fallback notice (warn) and misuse
 * (error). The pool adds itself as a CZ_RECLAIM_POOL reclaimer of b. */
cz_status cz_bufpool_create(cz_bufpool **out, cz_budget *b, const cz_allocator *alloc, const cz_logger *log,
                            cz_error *err);
/* All buffers must have been put back. Removes the pool's reclaimer from
 * the budget, frees every buffer and releases its bytes from the budget. (A
 * buffer still in use is leaked rather than freed under its user, its bytes
 * stay reserved, and the log callback says so.) */
void cz_bufpool_free(cz_bufpool *p);

/* A buffer of at least bytes (its actual size in *got, may be NULL): from the
 * free list, else newly allocated after reserving its bytes in the budget
 * (cz_budget_reserve with timeout_s and cancel: it may wait or fail like
 * that call). Sizes are rounded up to a multiple of 64 bytes; the rounded
 * size is what is reserved and what *got says. bytes == 0: CZ_ERR_INVALID_ARG.
 * CZ_ERR_NO_MEMORY (reservation given back) when even ordinary memory fails.
 * Limitation: while a get waits for the budget, a buffer put back meanwhile
 * may be shrunk to make room rather than handed to it. */
cz_status cz_bufpool_get(cz_bufpool *p, size_t bytes, void **buf, size_t *got, double timeout_s,
                         const volatile int *cancel, cz_error *err);
/* Back to the free list (kept for reuse; bytes stay reserved). */
void cz_bufpool_put(cz_bufpool *p, void *buf);
/* Frees idle buffers (largest first) until at least `need` bytes are given
 * back or none is idle; returns the bytes released from the budget. This is
 * the function the budget calls. need = SIZE_MAX: all idle buffers. */
size_t cz_bufpool_shrink(cz_bufpool *p, size_t need);

void cz_bufpool_stats_get(cz_bufpool *p, cz_bufpool_stats *out);

/* The pool as a cz_allocator (alloc: cz_bufpool_get without a deadline,
 * NULL when it fails; free: cz_bufpool_put), for code that takes an
 * allocator, such as the prover's a, b, c. Valid as long as the pool. */
const cz_allocator *cz_bufpool_allocator(cz_bufpool *p);

#endif
