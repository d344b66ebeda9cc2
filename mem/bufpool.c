/*
 * mem/bufpool: reusable large host buffers (contract in bufpool.h).
 *
 * DESIGN: the pool is an array of buffer records (pointer, size, in use,
 * which allocator it came from) under one mutex; pools hold tens of buffers,
 * so linear scans are cheap next to what a buffer costs to pin. Sizes are
 * rounded up to 64 bytes, and that rounded size is what the budget holds.
 * The lock is never held while calling the allocator or a budget call that
 * may reclaim (cz_budget_try_reserve, which never reclaims, is called under
 * it: lock order pool -> budget, as in shrink):
 *   get:    lock, best fit from the idle records; if none fits but a buffer
 *           in use would, and the budget has no room now, wait (10 ms
 *           steps) for a put rather than have the budget free other idle
 *           buffers for a new one; unlock; on a miss reserve
 *           the bytes (which may call back into cz_bufpool_shrink), allocate
 *           (allocator, else ordinary memory: the fallback), then lock and
 *           add the record; if both allocations fail, release the bytes.
 *   shrink: lock, unlink the largest idle record, unlock, free the memory,
 *           then release its bytes (memory first, so the process never holds
 *           more than the budget says), repeat until enough.
 * A buffer in use is never on the idle list, so shrink can never free it.
 */
#include "mem/bufpool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/timer.h"

typedef struct buf_rec {
    void *p;
    size_t size;  /* rounded; reserved in the budget */
    int in_use;
    int fallback; /* 1: from cz_alloc(NULL, ...) after the allocator failed */
} buf_rec;

struct cz_bufpool {
    pthread_mutex_t lock;
    pthread_cond_t put_cv; /* a buffer went back to the free list */
    cz_budget *budget;
    cz_allocator alloc; /* alloc.alloc NULL: ordinary aligned memory */
    int has_alloc;
    cz_logger log;
    int logged_fallback;
    buf_rec *recs;
    size_t nrecs, cap;
    size_t held, in_use, idle;
    uint64_t hits, misses, fallbacks, shrinks;
    size_t shrunk;
    cz_allocator as_alloc; /* cz_bufpool_allocator */
};

static size_t pool_shrink_cb(void *ctx, size_t need) { return cz_bufpool_shrink((cz_bufpool *)ctx, need); }

static void *as_alloc_get(void *ctx, size_t bytes)
{
    void *b = NULL;
    if (cz_bufpool_get((cz_bufpool *)ctx, bytes, &b, NULL, -1, NULL, NULL) != CZ_OK) return NULL;
    return b;
}

static void as_alloc_put(void *ctx, void *p, size_t bytes)
{
    (void)bytes;
    cz_bufpool_put((cz_bufpool *)ctx, p);
}

const cz_allocator *cz_bufpool_allocator(cz_bufpool *p) { return p ? &p->as_alloc : NULL; }

static const char *mib(char buf[32], size_t n)
{
    if (n % (1u << 20) == 0)
        snprintf(buf, 32, "%zu", n >> 20);
    else
        snprintf(buf, 32, "%.1f", (double)n / (1024.0 * 1024.0));
    return buf;
}

cz_status cz_bufpool_create(cz_bufpool **out, cz_budget *b, const cz_allocator *alloc,
                            const cz_logger *log, cz_error *err)
{
    if (!out || !b) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_bufpool_create: out or budget is NULL");
    *out = NULL;
    cz_bufpool *p = calloc(1, sizeof *p);
    if (!p) return cz_error_set(err, CZ_ERR_NO_MEMORY, "buffer pool: out of memory creating it");
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return cz_error_set(err, CZ_ERR_INTERNAL, "buffer pool: pthread_mutex_init failed");
    }
    if (pthread_cond_init(&p->put_cv, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return cz_error_set(err, CZ_ERR_INTERNAL, "buffer pool: pthread_cond_init failed");
    }
    p->budget = b;
    if (alloc && alloc->alloc) {
        p->alloc = *alloc;
        p->has_alloc = 1;
    }
    if (log) p->log = *log;
    p->as_alloc.alloc = as_alloc_get;
    p->as_alloc.free = as_alloc_put;
    p->as_alloc.ctx = p;
    cz_status st = cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, pool_shrink_cb, p);
    if (st != CZ_OK) {
        pthread_cond_destroy(&p->put_cv);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return cz_error_set(err, st, "buffer pool: cannot register as a reclaimer of the memory budget (%s)",
                            cz_status_str(st));
    }
    *out = p;
    return CZ_OK;
}

static void free_rec_memory(cz_bufpool *p, const buf_rec *r)
{
    cz_free(r->fallback || !p->has_alloc ? NULL : &p->alloc, r->p, r->size);
}

void cz_bufpool_free(cz_bufpool *p)
{
    if (!p) return;
    /* after this no shrink runs or will run on another thread */
    cz_budget_remove_reclaimer(p->budget, CZ_RECLAIM_POOL, pool_shrink_cb, p);
    size_t released = 0, leaked = 0, nleaked = 0;
    for (size_t i = 0; i < p->nrecs; i++) {
        if (p->recs[i].in_use) {
            /* contract broken by the caller: leaking is safer than freeing
             * memory someone still writes; its bytes stay reserved */
            leaked += p->recs[i].size;
            nleaked++;
            continue;
        }
        free_rec_memory(p, &p->recs[i]);
        released += p->recs[i].size;
    }
    cz_budget_release(p->budget, CZ_MEM_POOL, released);
    if (nleaked) {
        char m[32];
        CZ_LOG(&p->log, CZ_LOG_ERROR, "pool",
               "buffer pool: freed with %zu buffer(s) still in use, %zu bytes (%s MiB): leaked, still counted "
               "in the memory budget",
               nleaked, leaked, mib(m, leaked));
    }
    free(p->recs);
    pthread_cond_destroy(&p->put_cv);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* Is a buffer in use that best fit would give for bytes once it is back? */
static int in_use_fit_locked(const cz_bufpool *p, size_t bytes)
{
    for (size_t i = 0; i < p->nrecs; i++) {
        const buf_rec *r = &p->recs[i];
        if (r->in_use && r->size >= bytes && r->size - bytes <= bytes) return 1;
    }
    return 0;
}

/* Smallest idle record of at least bytes and at most 2*bytes; -1 if none. */
static long best_fit_locked(const cz_bufpool *p, size_t bytes)
{
    long best = -1;
    for (size_t i = 0; i < p->nrecs; i++) {
        const buf_rec *r = &p->recs[i];
        if (r->in_use || r->size < bytes || r->size - bytes > bytes) continue;
        if (best < 0 || r->size < p->recs[best].size) best = (long)i;
    }
    return best;
}

cz_status cz_bufpool_get(cz_bufpool *p, size_t bytes, void **buf, size_t *got, double timeout_s,
                         const volatile int *cancel, cz_error *err)
{
    if (buf) *buf = NULL;
    if (got) *got = 0;
    if (!p || !buf || bytes == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_bufpool_get: pool or buf is NULL, or bytes is 0");
    size_t size = (bytes + 63) & ~(size_t)63;
    if (size < bytes) {
        char m[32];
        return cz_error_set(err, CZ_ERR_RANGE, "buffer pool: %zu bytes (%s MiB) is not a possible buffer size",
                            bytes, mib(m, bytes));
    }

    /* From the free list; when nothing idle fits but a buffer in use would,
     * and the budget has no room for a new one right now, wait for that
     * buffer to come back rather than make the budget free idle buffers of
     * other sizes for a new one (pinning costs ~0.5 s per GiB). */
    int reserved = 0;
    double deadline = timeout_s < 0 ? -1 : cz_now() + timeout_s;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        long i = best_fit_locked(p, size);
        if (i >= 0) {
            buf_rec *r = &p->recs[i];
            r->in_use = 1;
            p->in_use += r->size;
            p->idle -= r->size;
            p->hits++;
            *buf = r->p;
            if (got) *got = r->size;
            pthread_mutex_unlock(&p->lock);
            return CZ_OK;
        }
        if (!in_use_fit_locked(p, size) || (cancel && *cancel) || (deadline >= 0 && cz_now() >= deadline)) break;
        /* lock order pool -> budget, as in shrink; try_reserve never reclaims */
        if (cz_budget_try_reserve(p->budget, CZ_MEM_POOL, size)) {
            reserved = 1;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        (void)pthread_cond_timedwait(&p->put_cv, &p->lock, &ts);
    }
    /* make room for the record now, so nothing can fail after allocating */
    if (p->nrecs == p->cap) {
        size_t ncap = p->cap ? 2 * p->cap : 16;
        buf_rec *n = realloc(p->recs, ncap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&p->lock);
            if (reserved) cz_budget_release(p->budget, CZ_MEM_POOL, size);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "buffer pool: out of memory growing its buffer list");
        }
        p->recs = n;
        p->cap = ncap;
    }
    pthread_mutex_unlock(&p->lock);

    /* a miss: reserve first (without the lock: the budget may call shrink) */
    if (!reserved) {
        double left = deadline < 0 ? -1 : deadline - cz_now();
        cz_status st = cz_budget_reserve(p->budget, CZ_MEM_POOL, size, deadline < 0 ? -1 : (left > 0 ? left : 0),
                                         cancel, err);
        if (st != CZ_OK) return st;
    }
    int fallback = 0;
    void *mem = p->has_alloc ? cz_alloc(&p->alloc, size) : NULL;
    if (!mem) {
        fallback = p->has_alloc;
        mem = cz_alloc(NULL, size);
    }
    if (!mem) {
        cz_budget_release(p->budget, CZ_MEM_POOL, size);
        char m[32];
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "buffer pool: allocating %zu bytes (%s MiB) failed%s", size,
                            mib(m, size), p->has_alloc ? " (pinned and ordinary memory)" : "");
    }

    int log_now = 0;
    pthread_mutex_lock(&p->lock);
    if (p->nrecs == p->cap) { /* other misses filled the room made above */
        size_t ncap = 2 * p->cap;
        buf_rec *n = realloc(p->recs, ncap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&p->lock);
            cz_free(fallback ? NULL : (p->has_alloc ? &p->alloc : NULL), mem, size);
            cz_budget_release(p->budget, CZ_MEM_POOL, size);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "buffer pool: out of memory growing its buffer list");
        }
        p->recs = n;
        p->cap = ncap;
    }
    buf_rec *r = &p->recs[p->nrecs++];
    r->p = mem;
    r->size = size;
    r->in_use = 1;
    r->fallback = fallback;
    p->held += size;
    p->in_use += size;
    p->misses++;
    if (fallback) {
        p->fallbacks++;
        if (!p->logged_fallback) p->logged_fallback = log_now = 1;
    }
    pthread_mutex_unlock(&p->lock);
    if (log_now) {
        char m[32];
        CZ_LOG(&p->log, CZ_LOG_WARN, "pool",
               "buffer pool: the allocator (pinned memory) refused %zu bytes (%s MiB); using ordinary pageable "
               "memory instead, host-to-device copies from it are slower (said once; the pool counts fallbacks)",
               size, mib(m, size));
    }
    *buf = mem;
    if (got) *got = size;
    return CZ_OK;
}

void cz_bufpool_put(cz_bufpool *p, void *buf)
{
    if (!p || !buf) return;
    int found = 0;
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->nrecs; i++) {
        buf_rec *r = &p->recs[i];
        if (r->p == buf && r->in_use) {
            r->in_use = 0;
            p->in_use -= r->size;
            p->idle += r->size;
            found = 1;
            break;
        }
    }
    if (found) pthread_cond_broadcast(&p->put_cv);
    pthread_mutex_unlock(&p->lock);
    if (!found) CZ_LOG(&p->log, CZ_LOG_ERROR, "pool", "buffer pool: put of a pointer that is not a buffer in use: ignored");
}

size_t cz_bufpool_shrink(cz_bufpool *p, size_t need)
{
    if (!p) return 0;
    size_t released = 0;
    while (released < need) {
        pthread_mutex_lock(&p->lock);
        long big = -1;
        for (size_t i = 0; i < p->nrecs; i++)
            if (!p->recs[i].in_use && (big < 0 || p->recs[i].size > p->recs[big].size)) big = (long)i;
        if (big < 0) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        buf_rec r = p->recs[big];
        p->recs[big] = p->recs[--p->nrecs];
        p->held -= r.size;
        p->idle -= r.size;
        p->shrinks++;
        p->shrunk += r.size;
        pthread_mutex_unlock(&p->lock);
        free_rec_memory(p, &r);
        cz_budget_release(p->budget, CZ_MEM_POOL, r.size);
        released += r.size;
    }
    return released;
}

void cz_bufpool_stats_get(cz_bufpool *p, cz_bufpool_stats *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    out->held = p->held;
    out->in_use = p->in_use;
    out->idle = p->idle;
    out->buffers = p->nrecs;
    out->hits = p->hits;
    out->misses = p->misses;
    out->fallbacks = p->fallbacks;
    out->shrinks = p->shrinks;
    out->shrunk = p->shrunk;
    pthread_mutex_unlock(&p->lock);
}
