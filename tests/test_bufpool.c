/*
 * bufpool tests, with a counting mock allocator as the oracle of what the
 * pool really allocates and frees: after warm-up, get/put cycles of the same
 * sizes are all hits (the mock's allocation count stays put); best fit takes
 * the smallest adequate idle buffer and never one over twice the request;
 * the pool's held bytes equal the budget's CZ_MEM_POOL bytes (and the mock's
 * live bytes) after every step; shrink frees idle buffers largest first and
 * releases their bytes; another consumer's reservation that does not fit
 * makes the budget shrink idle buffers, never ones in use; an allocator that
 * fails gives ordinary memory, logged once, counted, writable; a failure of
 * ordinary memory too returns the reservation; 8 threads hammer get/put
 * with a per-thread pattern checked after a yield (no buffer handed out
 * twice at once).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem/bufpool.h"
#include "test_util.h"

/* huge allocations must fail with NULL under the sanitizers too */
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__tsan_default_options(void) { return "allocator_may_return_null=1"; }

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* ---- the mock allocator ------------------------------------------------- */

typedef struct mock {
    pthread_mutex_t lock;
    long allocs, frees, refused;
    size_t live;    /* bytes allocated and not freed */
    size_t outside; /* bytes the pool holds in ordinary memory (fallbacks), set by the test */
    int fail;    /* 1: refuse every request */
    size_t freed_sizes[64];
    int nfreed;
} mock;

static void *mock_alloc(void *ctx, size_t bytes)
{
    mock *m = ctx;
    pthread_mutex_lock(&m->lock);
    if (m->fail) {
        m->refused++;
        pthread_mutex_unlock(&m->lock);
        return NULL;
    }
    m->allocs++;
    m->live += bytes;
    pthread_mutex_unlock(&m->lock);
    size_t r = (bytes + 63) & ~(size_t)63;
    return aligned_alloc(64, r);
}

static void mock_free(void *ctx, void *p, size_t bytes)
{
    mock *m = ctx;
    pthread_mutex_lock(&m->lock);
    m->frees++;
    m->live -= bytes;
    if (m->nfreed < 64) m->freed_sizes[m->nfreed++] = bytes;
    pthread_mutex_unlock(&m->lock);
    free(p);
}

static long mock_get(mock *m, long *field)
{
    pthread_mutex_lock(&m->lock);
    long v = *field;
    pthread_mutex_unlock(&m->lock);
    return v;
}

static int log_lines;
static char last_line[512];
static void log_cb(void *ctx, cz_log_level level, const char *component, const char *line)
{
    (void)ctx;
    (void)level;
    (void)component;
    log_lines++;
    snprintf(last_line, sizeof last_line, "%s", line);
}
static const cz_logger test_log = {log_cb, NULL, CZ_LOG_DEBUG};

/* pool held == budget pool bytes == mock live bytes (single-threaded steps) */
static int consistent(cz_bufpool *p, cz_budget *b, mock *m)
{
    cz_bufpool_stats ps;
    cz_budget_stats bs;
    cz_bufpool_stats_get(p, &ps);
    cz_budget_stats_get(b, &bs);
    size_t live = m ? m->live + m->outside : ps.held;
    return ps.held == bs.by[CZ_MEM_POOL] && ps.held == ps.in_use + ps.idle && live == ps.held &&
           bs.used <= bs.limit;
}

typedef struct fixture {
    mock m;
    cz_allocator a;
    cz_budget *b;
    cz_bufpool *p;
} fixture;

static void fx_init(fixture *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->m.lock, NULL);
    f->a = (cz_allocator){mock_alloc, mock_free, &f->m};
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_create(&f->b, limit, 0, &err) == CZ_OK);
    CHECK(cz_bufpool_create(&f->p, f->b, &f->a, &test_log, &err) == CZ_OK);
    log_lines = 0;
}

static void fx_done(fixture *f)
{
    cz_bufpool_free(f->p);
    cz_budget_stats bs;
    cz_budget_stats_get(f->b, &bs);
    CHECK(bs.used == 0 && bs.by[CZ_MEM_POOL] == 0);
    CHECK(f->m.live == 0 && f->m.allocs == f->m.frees);
    cz_budget_free(f->b);
    pthread_mutex_destroy(&f->m.lock);
}

static void *get(fixture *f, size_t bytes, size_t *got)
{
    void *buf = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_bufpool_get(f->p, bytes, &buf, got, 0, NULL, &err);
    CHECK_MSG(st == CZ_OK && buf != NULL, "get %zu: %s", bytes, cz_error_msg(&err));
    CHECK(((uintptr_t)buf & 63) == 0);
    CHECK(consistent(f->p, f->b, &f->m));
    return buf;
}

static void put(fixture *f, void *buf)
{
    cz_bufpool_put(f->p, buf);
    CHECK(consistent(f->p, f->b, &f->m));
}

/* ---- reuse -------------------------------------------------------------- */

static void test_reuse(void)
{
    fixture f;
    fx_init(&f, 64 * MIB);
    const size_t sizes[4] = {MIB, 3 * MIB + 5, 100 * KIB, 64};
    void *bufs[4];
    size_t got;
    for (int i = 0; i < 4; i++) {
        bufs[i] = get(&f, sizes[i], &got);
        CHECK(got >= sizes[i] && got % 64 == 0 && got - sizes[i] < 64);
        memset(bufs[i], 0xA5, got);
    }
    for (int i = 0; i < 4; i++) put(&f, bufs[i]);
    CHECK(f.m.allocs == 4);
    long cycles = cz_test_iters(200);
    int moved = 0;
    for (long c = 0; c < cycles; c++) {
        void *again[4];
        for (int i = 0; i < 4; i++) {
            int k = (int)((c + i) % 4); /* varying order */
            again[k] = get(&f, sizes[k], &got);
            moved |= again[k] != bufs[k];
        }
        for (int i = 0; i < 4; i++) put(&f, again[i]);
    }
    CHECK_MSG(f.m.allocs == 4 && f.m.frees == 0, "allocs %ld frees %ld after warm-up", f.m.allocs, f.m.frees);
    CHECK(!moved); /* each size got its own buffer back */
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.hits == (uint64_t)(4 * cycles) && ps.misses == 4 && ps.buffers == 4 && ps.in_use == 0);
    CHECK(ps.held == MIB + (3 * MIB + 64) + 100 * KIB + 64);
    /* bad arguments */
    void *x = (void *)1;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_bufpool_get(f.p, 0, &x, NULL, 0, NULL, &err) == CZ_ERR_INVALID_ARG && x == NULL);
    int l0 = log_lines;
    cz_bufpool_put(f.p, &x); /* not a pool buffer: ignored, logged */
    CHECK(log_lines == l0 + 1 && consistent(f.p, f.b, &f.m));
    fx_done(&f);
}

/* ---- best fit ----------------------------------------------------------- */

static void test_best_fit(void)
{
    fixture f;
    fx_init(&f, 64 * MIB);
    size_t got;
    /* idle: 1000, 3000, 1500 blocks of 64 bytes (not in size order) */
    void *a = get(&f, 1000 * 64, NULL), *c = get(&f, 3000 * 64, NULL), *b = get(&f, 1500 * 64, NULL);
    put(&f, a);
    put(&f, c);
    put(&f, b);
    /* 900: 1000 and 1500 fit; the smaller wins */
    void *x = get(&f, 900 * 64, &got);
    CHECK(x == a && got == 1000 * 64);
    /* 1400: 1000 in use; 1500 fits */
    void *y = get(&f, 1400 * 64, &got);
    CHECK(y == b && got == 1500 * 64);
    /* 1400 again: only 3000 idle, more than twice: a new buffer */
    long n0 = f.m.allocs;
    void *z = get(&f, 1400 * 64, &got);
    CHECK(z != c && got == 1400 * 64 && f.m.allocs == n0 + 1);
    /* exactly twice is allowed: 1500 -> the 3000 buffer */
    void *w = get(&f, 1500 * 64, &got);
    CHECK(w == c && got == 3000 * 64 && f.m.allocs == n0 + 1);
    put(&f, w);
    /* one byte over half: 1500*64+1 rounds to 1501 blocks: still fits 3000 */
    w = get(&f, 1500 * 64 + 1, &got);
    CHECK(w == c && got == 3000 * 64);
    put(&f, w);
    /* 1499 blocks: 3000 > 2 x 1499 -> new */
    w = get(&f, 1499 * 64, &got);
    CHECK(w != c && got == 1499 * 64 && f.m.allocs == n0 + 2);
    /* a buffer larger than any idle one: new */
    void *v = get(&f, 4000 * 64, &got);
    CHECK(got == 4000 * 64 && f.m.allocs == n0 + 3);
    put(&f, x);
    put(&f, y);
    put(&f, z);
    put(&f, w);
    put(&f, v);
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.buffers == 6 && ps.in_use == 0 && ps.hits == 4 && ps.misses == 6);
    fx_done(&f);
}

/* ---- shrink ------------------------------------------------------------- */

static void test_shrink(void)
{
    fixture f;
    fx_init(&f, 64 * MIB);
    void *bufs[4];
    for (int i = 0; i < 4; i++) bufs[i] = get(&f, (size_t)(i + 1) * MIB, NULL);
    void *busy = get(&f, 5 * MIB, NULL);
    for (int i = 0; i < 4; i++) put(&f, bufs[i]);
    cz_budget_stats bs;
    cz_budget_stats_get(f.b, &bs);
    CHECK(bs.by[CZ_MEM_POOL] == 15 * MIB);
    /* 2.5 MiB needed: the largest idle (4 MiB) alone is enough */
    size_t r = cz_bufpool_shrink(f.p, 5 * MIB / 2);
    CHECK(r == 4 * MIB && f.m.nfreed == 1 && f.m.freed_sizes[0] == 4 * MIB);
    CHECK(consistent(f.p, f.b, &f.m));
    cz_budget_stats_get(f.b, &bs);
    CHECK(bs.by[CZ_MEM_POOL] == 11 * MIB);
    /* need 0: nothing */
    CHECK(cz_bufpool_shrink(f.p, 0) == 0);
    /* everything idle: 3, 2, 1 in that order; the busy 5 MiB stays */
    r = cz_bufpool_shrink(f.p, SIZE_MAX);
    CHECK(r == 6 * MIB && f.m.nfreed == 4 && f.m.freed_sizes[1] == 3 * MIB && f.m.freed_sizes[2] == 2 * MIB &&
          f.m.freed_sizes[3] == MIB);
    CHECK(consistent(f.p, f.b, &f.m));
    CHECK(cz_bufpool_shrink(f.p, SIZE_MAX) == 0);
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.buffers == 1 && ps.in_use == 5 * MIB && ps.idle == 0 && ps.shrinks == 4 && ps.shrunk == 10 * MIB);
    memset(busy, 0x5A, 5 * MIB); /* still ours */
    put(&f, busy);
    fx_done(&f);
}

/* ---- the budget shrinks the pool ---------------------------------------- */

static void test_budget_pressure(void)
{
    fixture f;
    fx_init(&f, 16 * MIB);
    void *idle8 = get(&f, 8 * MIB, NULL);
    void *busy4 = get(&f, 4 * MIB, NULL);
    put(&f, idle8);
    /* 12 MiB held, 4 free: a working set of 8 needs the idle buffer's room */
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_reserve(f.b, CZ_MEM_WORKSET, 8 * MIB, 0, NULL, &err) == CZ_OK);
    CHECK(consistent(f.p, f.b, &f.m));
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.buffers == 1 && ps.held == 4 * MIB && ps.in_use == 4 * MIB && ps.shrinks == 1);
    cz_budget_stats bs;
    cz_budget_stats_get(f.b, &bs);
    CHECK(bs.used == 12 * MIB && bs.reclaims[CZ_RECLAIM_POOL] == 1 && bs.reclaimed[CZ_RECLAIM_POOL] == 8 * MIB);
    /* more: only the busy buffer is left, it is never freed -> timeout */
    cz_error_clear(&err);
    CHECK(cz_budget_reserve(f.b, CZ_MEM_WORKSET, 8 * MIB, 0.03, NULL, &err) == CZ_ERR_TIMEOUT);
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.buffers == 1 && ps.in_use == 4 * MIB && f.m.frees == 1);
    memset(busy4, 1, 4 * MIB);
    /* the pool itself hitting the budget: a get that cannot fit waits, times out */
    cz_error_clear(&err);
    void *x = NULL;
    CHECK(cz_bufpool_get(f.p, 5 * MIB, &x, NULL, 0.03, NULL, &err) == CZ_ERR_TIMEOUT && x == NULL);
    CHECK_MSG(strstr(err.msg, "5242880") && strstr(err.msg, "pool"), "message: %s", err.msg);
    CHECK(consistent(f.p, f.b, &f.m));
    /* larger than the whole budget: refused at once */
    cz_error_clear(&err);
    CHECK(cz_bufpool_get(f.p, 17 * MIB, &x, NULL, -1, NULL, &err) == CZ_ERR_BUDGET);
    CHECK_MSG(strstr(err.msg, "17825792") && strstr(err.msg, "17 MiB"), "message: %s", err.msg);
    /* after the working set goes, a get fits; a busy buffer put back becomes
     * reclaimable by a later reservation */
    cz_budget_release(f.b, CZ_MEM_WORKSET, 8 * MIB);
    x = get(&f, 5 * MIB, NULL);
    put(&f, x);
    put(&f, busy4);
    CHECK(cz_budget_reserve(f.b, CZ_MEM_WORKSET, 16 * MIB, 0, NULL, &err) == CZ_OK);
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.buffers == 0 && ps.held == 0);
    CHECK(consistent(f.p, f.b, &f.m));
    cz_budget_release(f.b, CZ_MEM_WORKSET, 16 * MIB);
    fx_done(&f);
}

/* ---- allocator failure -------------------------------------------------- */

static void test_fallback(void)
{
    fixture f;
    fx_init(&f, 64 * MIB);
    f.m.fail = 1;
    size_t got;
    void *a = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_bufpool_get(f.p, 3 * MIB, &a, &got, 0, NULL, &err) == CZ_OK && a && got == 3 * MIB);
    CHECK(log_lines == 1 && strstr(last_line, "3145728") && strstr(last_line, "pageable"));
    memset(a, 0xC3, got); /* usable to the last byte (ASan checks) */
    void *b = NULL;
    CHECK(cz_bufpool_get(f.p, 2 * MIB, &b, &got, 0, NULL, &err) == CZ_OK && b);
    memset(b, 0x3C, got);
    CHECK(log_lines == 1); /* said once */
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.fallbacks == 2 && ps.misses == 2 && ps.held == 5 * MIB);
    f.m.outside = 5 * MIB;
    CHECK(consistent(f.p, f.b, &f.m));
    cz_budget_stats bs;
    cz_budget_stats_get(f.b, &bs);
    CHECK(bs.by[CZ_MEM_POOL] == 5 * MIB); /* counted in the budget like any buffer */
    CHECK(f.m.refused == 2 && f.m.allocs == 0);
    /* pinning works again: a new buffer comes from the allocator, and the
     * fallback buffers are never handed to its free */
    f.m.fail = 0;
    void *c = get(&f, 7 * MIB, NULL);
    CHECK(f.m.allocs == 1);
    put(&f, a);
    put(&f, b);
    put(&f, c);
    /* reuse of a fallback buffer is a hit */
    void *a2 = NULL;
    CHECK(cz_bufpool_get(f.p, 3 * MIB, &a2, NULL, 0, NULL, NULL) == CZ_OK && a2 == a);
    put(&f, a2);
    CHECK(cz_bufpool_shrink(f.p, SIZE_MAX) == 12 * MIB);
    f.m.outside = 0;
    CHECK(consistent(f.p, f.b, &f.m));
    CHECK(f.m.frees == 1 && f.m.freed_sizes[0] == 7 * MIB && f.m.live == 0);

    /* ordinary memory fails too: the reservation is given back */
    fixture g;
    fx_init(&g, (size_t)1 << 62);
    g.m.fail = 1;
    void *h = (void *)1;
    cz_error_clear(&err);
    CHECK(cz_bufpool_get(g.p, (size_t)1 << 61, &h, NULL, 0, NULL, &err) == CZ_ERR_NO_MEMORY && h == NULL);
    CHECK_MSG(strstr(err.msg, "2305843009213693952") != NULL, "message: %s", err.msg);
    cz_budget_stats_get(g.b, &bs);
    CHECK(bs.used == 0 && bs.by[CZ_MEM_POOL] == 0);
    CHECK(consistent(g.p, g.b, &g.m));
    fx_done(&g);

    /* no allocator: ordinary memory, never a fallback */
    cz_budget *bud;
    cz_bufpool *p;
    CHECK(cz_budget_create(&bud, 8 * MIB, 0, NULL) == CZ_OK);
    CHECK(cz_bufpool_create(&p, bud, NULL, NULL, NULL) == CZ_OK);
    void *o = NULL;
    CHECK(cz_bufpool_get(p, MIB, &o, &got, 0, NULL, NULL) == CZ_OK && o && got == MIB);
    memset(o, 7, got);
    cz_bufpool_put(p, o);
    cz_bufpool_stats_get(p, &ps);
    CHECK(ps.fallbacks == 0 && ps.held == MIB);
    cz_bufpool_free(p);
    cz_budget_stats_get(bud, &bs);
    CHECK(bs.used == 0);
    cz_budget_free(bud);
    fx_done(&f);
}

/* ---- 8 threads ---------------------------------------------------------- */

typedef struct hammer_arg {
    fixture *f;
    int id;
    uint64_t seed;
    long iters, clobbered, failed;
} hammer_arg;

static const size_t hammer_sizes[5] = {4 * KIB, 6 * KIB, 16 * KIB, 40 * KIB, 64 * KIB};

static void *hammer_main(void *arg)
{
    hammer_arg *h = arg;
    cz_rng rng;
    cz_rng_seed(&rng, h->seed);
    uint64_t pat = 0x0101010101010101ull * (uint64_t)(h->id + 1);
    for (long i = 0; i < h->iters; i++) {
        size_t n = hammer_sizes[cz_rng_u64(&rng) % 5];
        void *buf = NULL;
        size_t got = 0;
        if (cz_bufpool_get(h->f->p, n, &buf, &got, -1, NULL, NULL) != CZ_OK || !buf || got < n) {
            h->failed++;
            continue;
        }
        uint64_t *w = buf;
        size_t nw = n / 8;
        uint64_t tag = pat ^ (uint64_t)i << 40;
        for (size_t k = 0; k < nw; k++) w[k] = tag;
        sched_yield();
        for (size_t k = 0; k < nw; k++)
            if (w[k] != tag) {
                h->clobbered++;
                break;
            }
        cz_bufpool_put(h->f->p, buf);
    }
    return NULL;
}

static void test_hammer(cz_rng *rng)
{
    fixture f;
    /* 8 threads x 64 KiB = 512 KiB: with idle buffers shrinkable, a waiter
     * always gets room eventually; a budget of just that forces shrinking
     * (and waiting) as the sizes mix */
    fx_init(&f, 512 * KIB);
    enum { T = 8 };
    pthread_t th[T];
    hammer_arg h[T];
    long iters = cz_test_iters(20000);
    for (int i = 0; i < T; i++) {
        h[i] = (hammer_arg){&f, i, cz_rng_u64(rng), iters, 0, 0};
        pthread_create(&th[i], NULL, hammer_main, &h[i]);
    }
    long clobbered = 0, failed = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        clobbered += h[i].clobbered;
        failed += h[i].failed;
    }
    CHECK_MSG(clobbered == 0, "%ld buffers were written by another thread while held", clobbered);
    CHECK(failed == 0);
    CHECK(consistent(f.p, f.b, &f.m));
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    cz_budget_stats bs;
    cz_budget_stats_get(f.b, &bs);
    CHECK(ps.in_use == 0 && ps.hits + ps.misses == (uint64_t)(T * iters));
    CHECK(bs.peak <= bs.limit && bs.overreleased == 0);
    CHECK((long)ps.misses == mock_get(&f.m, &f.m.allocs));
    printf("  hammer: %d threads x %ld: %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " shrinks, %" PRIu64
           " budget waits, held %zu bytes in %" PRIu64 " buffers\n",
           T, iters, ps.hits, ps.misses, ps.shrinks, bs.waits, ps.held, ps.buffers);
    fx_done(&f);
}

/* ---- freeing the pool while the budget may be shrinking it -------------- */

typedef struct squeezer {
    cz_budget *b;
    long n;
    long failed;
} squeezer;

static void *squeeze_main(void *arg)
{
    squeezer *s = arg;
    for (long i = 0; i < s->n; i++) {
        /* the whole budget: every idle pool buffer must go */
        cz_status st = cz_budget_reserve(s->b, CZ_MEM_WORKSET, 4 * MIB, 2.0, NULL, NULL);
        if (st != CZ_OK) {
            s->failed++;
            continue;
        }
        cz_budget_release(s->b, CZ_MEM_WORKSET, 4 * MIB);
    }
    return NULL;
}

static void test_free_while_reclaiming(void)
{
    cz_budget *b;
    CHECK(cz_budget_create(&b, 4 * MIB, 0, NULL) == CZ_OK);
    long rounds = cz_test_iters(200), failed = 0;
    for (long r = 0; r < rounds; r++) {
        cz_bufpool *p;
        CHECK(cz_bufpool_create(&p, b, NULL, NULL, NULL) == CZ_OK);
        void *x[4] = {0};
        for (int i = 0; i < 4; i++)
            if (cz_bufpool_get(p, 256 * KIB * (size_t)(i + 1), &x[i], NULL, 2.0, NULL, NULL) != CZ_OK) failed++;
        for (int i = 0; i < 4; i++) cz_bufpool_put(p, x[i]);
        squeezer s = {b, 3, 0};
        pthread_t t;
        pthread_create(&t, NULL, squeeze_main, &s);
        sched_yield();
        cz_bufpool_free(p); /* waits for a shrink in progress; ASan sees any use after free */
        pthread_join(t, NULL);
        failed += s.failed;
        cz_budget_stats bs;
        cz_budget_stats_get(b, &bs);
        CHECK(bs.used == 0);
    }
    CHECK_MSG(failed == 0, "%ld reservations or gets failed", failed);
    cz_budget_free(b);
}

/* ---- the allocator adapter, and waiting for a buffer in use --------------- */

static void test_adapter(void)
{
    fixture f;
    fx_init(&f, 8 * MIB);
    const cz_allocator *a = cz_bufpool_allocator(f.p);
    CHECK(a != NULL && a->alloc && a->free);
    void *x = cz_alloc(a, 2 * MIB);
    CHECK(x != NULL);
    memset(x, 1, 2 * MIB);
    cz_free(a, x, 2 * MIB);
    void *y = cz_alloc(a, 2 * MIB); /* the same buffer again, no new allocation */
    CHECK(y == x && mock_get(&f.m, &f.m.allocs) == 1);
    cz_free(a, y, 2 * MIB);
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.hits == 1 && ps.misses == 1 && ps.in_use == 0);
    fx_done(&f);
}

typedef struct {
    fixture *f;
    void *buf;
} putter_arg;

static void *putter(void *p)
{
    putter_arg *a = p;
    usleep(50 * 1000);
    cz_bufpool_put(a->f->p, a->buf);
    return NULL;
}

/* budget with room for one 3 MiB buffer beside an idle 1 MiB one: a second
 * 3 MiB get waits for the first to come back instead of freeing the idle
 * buffer and pinning a new 3 MiB one */
static void test_wait_for_fit(void)
{
    fixture f;
    fx_init(&f, 5 * MIB);
    void *small = get(&f, MIB, NULL);
    put(&f, small);
    void *big = get(&f, 3 * MIB, NULL);
    putter_arg pa = {&f, big};
    pthread_t th;
    pthread_create(&th, NULL, putter, &pa);
    void *again = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_bufpool_get(f.p, 3 * MIB, &again, NULL, 5, NULL, &err) == CZ_OK);
    pthread_join(th, NULL);
    CHECK_MSG(again == big, "a new buffer was allocated instead of waiting for the one in use");
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(f.p, &ps);
    CHECK(ps.shrinks == 0 && mock_get(&f.m, &f.m.allocs) == 2);
    put(&f, again);
    fx_done(&f);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_bufpool");
    test_reuse();
    test_best_fit();
    test_shrink();
    test_budget_pressure();
    test_fallback();
    test_hammer(&rng);
    test_free_while_reclaiming();
    test_adapter();
    test_wait_for_fit();
    return cz_test_finish("test_bufpool");
}
