/*
 * A small fork-join thread pool for the data-parallel loops of the arithmetic
 * layers (NTT butterflies, MSM windows, SpMV rows, setup).
 *
 * DESIGN: a pool owns nthreads-1 worker threads; the calling thread works too.
 * cz_pool_run() hands out task indices 0..ntasks-1 through an atomic counter
 * and returns when all have finished. One run executes at a time per pool; a
 * run started from inside a task (nesting) executes inline on the calling
 * thread, so layered code may call parallel loops freely. The process-wide
 * default pool is sized by cz_set_threads() (0 = all online CPUs).
 */
#ifndef CZ_UTIL_THREAD_H
#define CZ_UTIL_THREAD_H

#include <stddef.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_pool cz_pool;

/* task(ctx, index, thread): thread is in [0, cz_pool_threads(pool)) and unique
 * among concurrently running tasks, so it may index per-thread scratch. */
typedef void (*cz_task_fn)(void *ctx, size_t index, int thread);
/* range(ctx, begin, end, thread) */
typedef void (*cz_range_fn)(void *ctx, size_t begin, size_t end, int thread);

/* Creates a pool with nthreads threads in all (nthreads-1 workers plus the
 * caller). nthreads <= 0 means all online CPUs. NULL on failure. */
cz_pool *cz_pool_create(int nthreads);
void cz_pool_free(cz_pool *pool);
int cz_pool_threads(const cz_pool *pool);

/* Runs task(ctx, i, thread) for i in [0, ntasks) and waits. */
void cz_pool_run(cz_pool *pool, size_t ntasks, cz_task_fn task, void *ctx);
/* Splits [0, n) into chunks of at least grain items (grain 0: automatic) and
 * runs range() on each. */
void cz_parallel_for(cz_pool *pool, size_t n, size_t grain, cz_range_fn range, void *ctx);

/* memcpy(dst, src, bytes) (non-overlapping) split over the pool's threads in
 * pieces of at least 1 MiB: one thread copies from pageable memory at ~10 GB/s,
 * a PCIe upload out of pinned memory runs at ~55, so a staging copy needs
 * several. Small copies (or no pool) run on the caller. */
void cz_memcpy_parallel(cz_pool *pool, void *dst, const void *src, size_t bytes);

/* The process-wide pool (created on first use). Never NULL: if threads cannot
 * be created it runs everything on the caller. */
cz_pool *cz_pool_default(void);
/* A pool of one thread, the caller's: its runs execute inline and never wait
 * for another run (the default pool runs one at a time, so a small loop
 * there waits behind whatever long run holds it, e.g. a partition's
 * synthesis). For small work off the main path (a verifier's public-input
 * MSM). Never freed. */
cz_pool *cz_pool_serial(void);
/* Sets the size of the default pool; call before first use or between runs.
 * n <= 0 selects all online CPUs. */
void cz_set_threads(int n);
int cz_get_threads(void);
/* Number of online CPUs (>= 1). */
int cz_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif
