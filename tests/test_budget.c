/*
 * budget tests: per-consumer accounting and peak against a running tally;
 * try_reserve; a request larger than the budget refused at once with a
 * message naming its size; the reclaim order (pool stage before key stage,
 * key stage only when the pool stage was not enough, registration order
 * within a stage) with mock reclaimers that log their calls; waiting that
 * blocks until a release, times out, or is cancelled from another thread;
 * 8 threads reserving/releasing/parking bytes in a reclaimable cache under a
 * small limit with used <= limit and sum(by) == used checked after every
 * reserve; detection against fake /proc and /sys trees (cgroup limit, "max"
 * falling back to MemAvailable, nested cgroups, v1 lines) and the margin.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mem/budget.h"
#include "test_util.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int stats_consistent(cz_budget *b, cz_budget_stats *st)
{
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    size_t sum = 0;
    for (int i = 0; i < CZ_MEM_CONSUMERS_; i++) sum += s.by[i];
    if (st) *st = s;
    return sum == s.used && s.used <= s.limit && s.peak >= s.used && s.peak <= s.limit;
}

/* ---- accounting -------------------------------------------------------- */

static void test_accounting(cz_rng *rng)
{
    cz_budget *b;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_create(&b, 1000, 0, &err) == CZ_OK);
    CHECK(cz_budget_limit(b) == 1000);
    CHECK(strcmp(cz_mem_consumer_name(CZ_MEM_KEY), "key") == 0);
    CHECK(strcmp(cz_mem_consumer_name(CZ_MEM_POOL), "pool") == 0);
    CHECK(strcmp(cz_mem_consumer_name((cz_mem_consumer)99), "unknown") == 0);

    /* random reserve/release/transfer against a tally */
    size_t tally[CZ_MEM_CONSUMERS_] = {0}, used = 0, peak = 0;
    uint64_t nres = 0;
    long iters = cz_test_iters(20000);
    int bad = 0;
    for (long it = 0; it < iters; it++) {
        int who = (int)(cz_rng_u64(rng) % CZ_MEM_CONSUMERS_);
        size_t n = cz_rng_u64(rng) % 300;
        int op = (int)(cz_rng_u64(rng) % 4);
        if (op == 0) {
            cz_status st = cz_budget_reserve(b, (cz_mem_consumer)who, n, 0, NULL, NULL);
            int fits = used + n <= 1000;
            if ((st == CZ_OK) != fits || (!fits && st != CZ_ERR_TIMEOUT)) bad++;
            if (st == CZ_OK) {
                tally[who] += n;
                used += n;
                if (n) nres++;
            }
        } else if (op == 1) {
            int ok = cz_budget_try_reserve(b, (cz_mem_consumer)who, n);
            if (ok != (used + n <= 1000)) bad++;
            if (ok) {
                tally[who] += n;
                used += n;
                if (n) nres++;
            }
        } else if (op == 2) {
            size_t r = n <= tally[who] ? n : tally[who];
            cz_budget_release(b, (cz_mem_consumer)who, r);
            tally[who] -= r;
            used -= r;
        } else {
            int to = (int)(cz_rng_u64(rng) % CZ_MEM_CONSUMERS_);
            size_t r = n <= tally[who] ? n : tally[who];
            cz_budget_transfer(b, (cz_mem_consumer)who, (cz_mem_consumer)to, r);
            tally[who] -= r;
            tally[to] += r;
        }
        if (used > peak) peak = used;
        cz_budget_stats s;
        cz_budget_stats_get(b, &s);
        int same = s.used == used && s.peak == peak && s.reservations == nres;
        for (int i = 0; i < CZ_MEM_CONSUMERS_; i++) same &= s.by[i] == tally[i];
        if (!same) bad++;
    }
    CHECK_MSG(bad == 0, "%d of %ld random steps disagreed with the tally", bad, iters);

    /* releasing more than held: clamped, counted, no underflow */
    for (int i = 0; i < CZ_MEM_CONSUMERS_; i++) cz_budget_release(b, (cz_mem_consumer)i, tally[i]);
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 0 && s.overreleased == 0);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 100, 0, NULL, NULL) == CZ_OK);
    cz_budget_release(b, CZ_MEM_KEY, 150);
    cz_budget_release(b, CZ_MEM_MATRIX, 1);
    cz_budget_transfer(b, CZ_MEM_SCRATCH, CZ_MEM_KEY, 7);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 0 && s.by[CZ_MEM_KEY] == 0 && s.overreleased == 3);
    /* zero bytes succeed at once; the whole limit fits exactly */
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 0, 0, NULL, NULL) == CZ_OK);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 1000, 0, NULL, NULL) == CZ_OK);
    CHECK(cz_budget_try_reserve(b, CZ_MEM_KEY, 1) == 0);
    CHECK(cz_budget_try_reserve(b, CZ_MEM_KEY, 0) == 1);
    cz_budget_release(b, CZ_MEM_KEY, 1000);
    cz_budget_free(b);
}

/* ---- refusal of what can never fit -------------------------------------- */

static int refuse_calls;
static size_t refuse_reclaimer(void *ctx, size_t need)
{
    refuse_calls++;
    return 0;
}

static void test_too_large(void)
{
    cz_budget *b;
    CHECK(cz_budget_create(&b, 2 * GIB, 0, NULL) == CZ_OK);
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, refuse_reclaimer, NULL) == CZ_OK);
    cz_error err;
    cz_error_clear(&err);
    double t0 = now_s();
    cz_status st = cz_budget_reserve(b, CZ_MEM_WORKSET, 3 * GIB, -1, NULL, &err); /* no deadline: must not wait */
    double dt = now_s() - t0;
    CHECK(st == CZ_ERR_BUDGET && err.status == CZ_ERR_BUDGET);
    CHECK_MSG(strstr(err.msg, "3221225472") && strstr(err.msg, "3072 MiB") && strstr(err.msg, "2147483648") &&
                  strstr(err.msg, "2048 MiB") && strstr(err.msg, "working set"),
              "message: %s", err.msg);
    CHECK(refuse_calls == 0);
    CHECK_MSG(dt < 5.0, "refusal took %.3f s", dt);
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK(s.refused == 1 && s.used == 0 && s.waits == 0 && s.reservations == 0);
    /* one byte over; a non-whole MiB size is printed with a decimal */
    cz_error_clear(&err);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 2 * GIB + MIB / 2, 0, NULL, &err) == CZ_ERR_BUDGET);
    CHECK_MSG(strstr(err.msg, "2048.5 MiB") && strstr(err.msg, "proving key"), "message: %s", err.msg);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 2 * GIB, 0, NULL, NULL) == CZ_OK);
    cz_budget_release(b, CZ_MEM_KEY, 2 * GIB);
    cz_budget_remove_reclaimer(b, CZ_RECLAIM_POOL, refuse_reclaimer, NULL);
    cz_budget_free(b);
}

/* ---- reclaim order ------------------------------------------------------ */

typedef struct mock_rec {
    cz_budget *b;
    cz_mem_consumer who;
    size_t held, chunk; /* frees whole chunks until >= need or empty */
    int id;
} mock_rec;

static int call_log[64], call_n;
static size_t need_log[64];

static size_t mock_reclaim(void *ctx, size_t need)
{
    mock_rec *m = ctx;
    if (call_n < 64) {
        call_log[call_n] = m->id;
        need_log[call_n] = need;
    }
    call_n++;
    size_t freed = 0;
    while (freed < need && m->held >= m->chunk && m->chunk) {
        m->held -= m->chunk;
        freed += m->chunk;
    }
    cz_budget_release(m->b, m->who, freed);
    return freed;
}

static void test_reclaim_order(void)
{
    cz_budget *b;
    CHECK(cz_budget_create(&b, 1000, 0, NULL) == CZ_OK);
    /* registered keys first, pool last: the stage decides the order */
    mock_rec k1 = {b, CZ_MEM_KEY, 200, 100, 11}, k2 = {b, CZ_MEM_MATRIX, 200, 200, 12};
    mock_rec p1 = {b, CZ_MEM_POOL, 100, 50, 1}, p2 = {b, CZ_MEM_POOL, 150, 150, 2};
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_KEYS, mock_reclaim, &k1) == CZ_OK);
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_KEYS, mock_reclaim, &k2) == CZ_OK);
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, mock_reclaim, &p1) == CZ_OK);
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, mock_reclaim, &p2) == CZ_OK);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 200, 0, NULL, NULL) == CZ_OK);
    CHECK(cz_budget_reserve(b, CZ_MEM_MATRIX, 200, 0, NULL, NULL) == CZ_OK);
    CHECK(cz_budget_reserve(b, CZ_MEM_POOL, 250, 0, NULL, NULL) == CZ_OK);
    CHECK(call_n == 0); /* everything fitted: nobody asked */
    /* used 650, free 350 */

    /* 1. needs 50 more than free: p1 alone (one 50-byte chunk) is enough */
    CHECK(cz_budget_reserve(b, CZ_MEM_WORKSET, 400, 0, NULL, NULL) == CZ_OK);
    CHECK_MSG(call_n == 1 && call_log[0] == 1 && need_log[0] == 50, "calls %d first %d need %zu", call_n,
              call_log[0], need_log[0]);
    /* used 1000 (pool 200 = p1 50 + p2 150) */

    /* 2. needs 150: p1 frees its last 50, p2 its 150; keys not asked */
    call_n = 0;
    CHECK(cz_budget_reserve(b, CZ_MEM_WORKSET, 150, 0, NULL, NULL) == CZ_OK);
    CHECK_MSG(call_n == 2 && call_log[0] == 1 && call_log[1] == 2 && need_log[0] == 150 && need_log[1] == 100,
              "calls %d: %d %d", call_n, call_log[0], call_log[1]);
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK(s.by[CZ_MEM_POOL] == 0 && s.used == 950 && s.reclaims[CZ_RECLAIM_POOL] == 3 &&
          s.reclaimed[CZ_RECLAIM_POOL] == 250 && s.reclaims[CZ_RECLAIM_KEYS] == 0);
    /* used 950: key 200, matrix 200, workset 550 */

    /* 3. needs 300: the pool stage frees nothing, k1 frees its 200 (two
     * chunks), then k2 is asked for the remaining 100 and frees 200 */
    call_n = 0;
    CHECK(cz_budget_reserve(b, CZ_MEM_SCRATCH, 350, 0, NULL, NULL) == CZ_OK);
    CHECK_MSG(call_n == 4 && call_log[0] == 1 && call_log[1] == 2 && call_log[2] == 11 && call_log[3] == 12 &&
                  need_log[2] == 300 && need_log[3] == 100,
              "calls %d: %d %d %d %d", call_n, call_log[0], call_log[1], call_log[2], call_log[3]);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 900 && s.by[CZ_MEM_KEY] == 0 && s.by[CZ_MEM_MATRIX] == 0 && s.reclaims[CZ_RECLAIM_KEYS] == 2 &&
          s.reclaimed[CZ_RECLAIM_KEYS] == 400);

    /* 4. nothing left to reclaim: every stage asked once, then timeout */
    call_n = 0;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_reserve(b, CZ_MEM_SCRATCH, 151, 0, NULL, &err) == CZ_ERR_TIMEOUT);
    CHECK(call_n == 4);
    CHECK_MSG(strstr(err.msg, "151 bytes") != NULL, "message: %s", err.msg);

    /* removed reclaimers are not asked any more; slots are reused */
    cz_budget_remove_reclaimer(b, CZ_RECLAIM_POOL, mock_reclaim, &p1);
    cz_budget_remove_reclaimer(b, CZ_RECLAIM_KEYS, mock_reclaim, &k1);
    cz_budget_remove_reclaimer(b, CZ_RECLAIM_KEYS, mock_reclaim, &k1); /* twice: no-op */
    call_n = 0;
    CHECK(cz_budget_reserve(b, CZ_MEM_SCRATCH, 151, 0, NULL, NULL) == CZ_ERR_TIMEOUT);
    CHECK(call_n == 2 && call_log[0] == 2 && call_log[1] == 12);
    for (int i = 0; i < 6; i++) CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, refuse_reclaimer, NULL) == CZ_OK);
    /* 2 used + 6 = 8: one freed slot (p1's) remains */
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, refuse_reclaimer, NULL) == CZ_OK);
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, refuse_reclaimer, NULL) == CZ_ERR_RANGE);
    CHECK(cz_budget_add_reclaimer(b, (cz_reclaim_stage)5, refuse_reclaimer, NULL) == CZ_ERR_INVALID_ARG);
    cz_budget_free(b);
}

/* ---- waiting ------------------------------------------------------------ */

typedef struct waiter {
    cz_budget *b;
    size_t bytes;
    double timeout;
    const volatile int *cancel;
    cz_status st;
    double t0, t1;
    int done;
    cz_error err;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    cz_error_clear(&w->err);
    w->t0 = now_s();
    w->st = cz_budget_reserve(w->b, CZ_MEM_WORKSET, w->bytes, w->timeout, w->cancel, &w->err);
    w->t1 = now_s();
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_waiting(void)
{
    cz_budget *b;
    CHECK(cz_budget_create(&b, 1000, 0, NULL) == CZ_OK);
    CHECK(cz_budget_reserve(b, CZ_MEM_KEY, 800, 0, NULL, NULL) == CZ_OK);

    /* blocks until another thread releases */
    waiter w = {b, 500, -1, NULL, CZ_OK, 0, 0, 0, {0}};
    pthread_t t;
    pthread_create(&t, NULL, waiter_main, &w);
    sleep_ms(150);
    CHECK_MSG(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) == 0, "the reserve returned without room");
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK(s.waits == 1 && s.used == 800);
    double t_release = now_s();
    cz_budget_release(b, CZ_MEM_KEY, 400);
    pthread_join(t, NULL);
    CHECK_MSG(w.st == CZ_OK, "%s", cz_error_msg(&w.err));
    CHECK(w.t1 >= t_release);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 900 && s.by[CZ_MEM_WORKSET] == 500 && s.by[CZ_MEM_KEY] == 400);

    /* times out */
    cz_error err;
    cz_error_clear(&err);
    double t0 = now_s();
    CHECK(cz_budget_reserve(b, CZ_MEM_MATRIX, 200, 0.08, NULL, &err) == CZ_ERR_TIMEOUT);
    double dt = now_s() - t0;
    CHECK_MSG(dt >= 0.075 && dt < 10, "waited %.3f s for a 0.08 s timeout", dt);
    CHECK_MSG(strstr(err.msg, "timed out") && strstr(err.msg, "200 bytes") && strstr(err.msg, "constraint matrices"),
              "message: %s", err.msg);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 900 && s.waits == 2);

    /* cancelled from another thread while waiting without a deadline */
    int flag = 0;
    waiter c = {b, 300, -1, &flag, CZ_OK, 0, 0, 0, {0}};
    pthread_create(&t, NULL, waiter_main, &c);
    sleep_ms(100);
    CHECK(__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) == 0);
    double t_cancel = now_s();
    __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    CHECK(c.st == CZ_ERR_CANCELLED);
    CHECK_MSG(strstr(c.err.msg, "cancelled") && strstr(c.err.msg, "300 bytes"), "message: %s", c.err.msg);
    CHECK_MSG(c.t1 - t_cancel < 5.0, "cancel noticed after %.3f s", c.t1 - t_cancel);
    /* a flag already set with room available: the reserve still succeeds */
    CHECK(cz_budget_reserve(b, CZ_MEM_SCRATCH, 100, -1, &flag, NULL) == CZ_OK);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 1000);
    cz_budget_release(b, CZ_MEM_SCRATCH, 100);
    cz_budget_release(b, CZ_MEM_KEY, 400);
    cz_budget_release(b, CZ_MEM_WORKSET, 500);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 0);
    cz_budget_free(b);
}

/* ---- stress ------------------------------------------------------------- */

typedef struct cache {
    pthread_mutex_t lock;
    cz_budget *b;
    size_t bytes; /* parked, held as CZ_MEM_POOL */
    long calls;
} cache;

static size_t cache_reclaim(void *ctx, size_t need)
{
    cache *c = ctx;
    pthread_mutex_lock(&c->lock);
    c->calls++;
    size_t n = c->bytes < need ? c->bytes : need;
    c->bytes -= n;
    cz_budget_release(c->b, CZ_MEM_POOL, n); /* under our lock: by[POOL] >= bytes holds */
    pthread_mutex_unlock(&c->lock);
    return n;
}

typedef struct stress_arg {
    cz_budget *b;
    cache *c;
    uint64_t seed;
    long iters;
    long bad;
    long failed;
} stress_arg;

#define STRESS_LIMIT ((size_t)1 << 20)

static void *stress_main(void *arg)
{
    stress_arg *a = arg;
    cz_rng rng;
    cz_rng_seed(&rng, a->seed);
    for (long i = 0; i < a->iters; i++) {
        size_t n = 1 + cz_rng_u64(&rng) % (STRESS_LIMIT / 4);
        int r = (int)(cz_rng_u64(&rng) % 8);
        int got;
        if (r == 0) {
            got = cz_budget_try_reserve(a->b, CZ_MEM_WORKSET, n);
        } else {
            cz_status st = cz_budget_reserve(a->b, CZ_MEM_WORKSET, n, -1, NULL, NULL);
            if (st != CZ_OK) a->failed++;
            got = st == CZ_OK;
        }
        if (!stats_consistent(a->b, NULL)) a->bad++;
        if (!got) continue;
        if (r & 1) sched_yield();
        if (r < 3) { /* park it in the cache: the reclaimer may take it back */
            pthread_mutex_lock(&a->c->lock);
            cz_budget_transfer(a->b, CZ_MEM_WORKSET, CZ_MEM_POOL, n);
            a->c->bytes += n;
            pthread_mutex_unlock(&a->c->lock);
        } else {
            /* release in two phases */
            cz_budget_release(a->b, CZ_MEM_WORKSET, n / 2);
            cz_budget_release(a->b, CZ_MEM_WORKSET, n - n / 2);
        }
    }
    return NULL;
}

static void test_stress(cz_rng *rng)
{
    cz_budget *b;
    CHECK(cz_budget_create(&b, STRESS_LIMIT, 0, NULL) == CZ_OK);
    cache c = {PTHREAD_MUTEX_INITIALIZER, b, 0, 0};
    CHECK(cz_budget_add_reclaimer(b, CZ_RECLAIM_POOL, cache_reclaim, &c) == CZ_OK);
    enum { T = 8 };
    pthread_t th[T];
    stress_arg a[T];
    long iters = cz_test_iters(20000);
    for (int i = 0; i < T; i++) {
        a[i] = (stress_arg){b, &c, cz_rng_u64(rng), iters, 0, 0};
        pthread_create(&th[i], NULL, stress_main, &a[i]);
    }
    long bad = 0, failed = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        bad += a[i].bad;
        failed += a[i].failed;
    }
    CHECK_MSG(bad == 0, "%ld stats snapshots broke used <= limit or sum(by) == used", bad);
    CHECK(failed == 0);
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK(s.by[CZ_MEM_WORKSET] == 0 && s.by[CZ_MEM_POOL] == c.bytes && s.used == c.bytes);
    CHECK(s.peak <= STRESS_LIMIT && s.overreleased == 0);
    printf("  stress: %ld iterations x %d threads, %" PRIu64 " reservations, %" PRIu64 " waits, %" PRIu64
           " reclaims (%zu bytes), peak %zu of %zu\n",
           iters, T, s.reservations, s.waits, s.reclaims[0], s.reclaimed[0], s.peak, s.limit);
    cz_budget_remove_reclaimer(b, CZ_RECLAIM_POOL, cache_reclaim, &c);
    cz_budget_release(b, CZ_MEM_POOL, c.bytes);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 0 && s.overreleased == 0);
    cz_budget_free(b);
}

/* ---- detection ---------------------------------------------------------- */

static char tmpdir[256];

static void put_file(const char *rel, const char *text)
{
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s%s", tmpdir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    if (system(cmd) != 0) printf("mkdir failed: %s\n", path);
    *slash = '/';
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void clear_tree(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/proc' '%s/sys'", tmpdir, tmpdir);
    if (system(cmd) != 0) printf("rm failed\n");
}

static void test_detect(void)
{
    const char *src = NULL;
    /* the real machine: something must be detected on Linux */
    const char *root = NULL;
    size_t real = cz_budget_detect(root, &src);
    printf("  this machine: %zu bytes (%zu MiB) from %s\n", real, real >> 20, src ? src : "(nothing)");
    CHECK(real > 0 && src != NULL);

    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_budget_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        CHECK(0);
        return;
    }
    root = tmpdir;
    const char *meminfo = "MemTotal:       263842304 kB\nMemFree:         1000 kB\n"
                          "MemAvailable:   16777216 kB\nBuffers:          1234 kB\n";

    /* nothing at all */
    src = "x";
    CHECK(cz_budget_detect(root, &src) == 0 && src == NULL);
    cz_budget *b = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_create_at(&b, 0, 0, root, &err) == CZ_ERR_UNSUPPORTED && b == NULL);
    CHECK(cz_budget_create(&b, 12345, 0, NULL) == CZ_OK && cz_budget_limit(b) == 12345); /* explicit: no detection */
    cz_budget_free(b);

    /* a cgroup with a limit wins over MemAvailable */
    put_file("/proc/self/cgroup", "0::/job.slice/worker\n");
    put_file("/sys/fs/cgroup/job.slice/worker/memory.max", "8589934592\n");
    put_file("/proc/meminfo", meminfo);
    CHECK(cz_budget_detect(root, &src) == 8 * GIB && src && strcmp(src, "cgroup memory.max") == 0);
    /* margin: 5% of 8 GiB */
    CHECK(cz_budget_create_at(&b, 0, 0, root, NULL) == CZ_OK);
    CHECK(b && cz_budget_limit(b) == 8 * GIB - 8 * GIB / 20);
    cz_budget_free(b);
    /* explicit margin */
    CHECK(cz_budget_create_at(&b, 0, MIB, root, NULL) == CZ_OK);
    CHECK(b && cz_budget_limit(b) == 8 * GIB - MIB);
    cz_budget_free(b);

    /* "max": no limit there, nor in the parents -> MemAvailable */
    put_file("/sys/fs/cgroup/job.slice/worker/memory.max", "max\n");
    put_file("/sys/fs/cgroup/job.slice/memory.max", "max\n");
    CHECK(cz_budget_detect(root, &src) == 16 * GIB && src && strcmp(src, "MemAvailable") == 0);
    CHECK(cz_budget_create_at(&b, 0, 0, root, NULL) == CZ_OK);
    CHECK(b && cz_budget_limit(b) == 16 * GIB - 16 * GIB / 20);
    cz_budget_free(b);

    /* nested: the parent's smaller limit wins; then the child's smaller one */
    put_file("/sys/fs/cgroup/job.slice/memory.max", "4294967296\n");
    put_file("/sys/fs/cgroup/memory.max", "6442450944\n"); /* the root, as inside a cgroup namespace */
    CHECK(cz_budget_detect(root, &src) == 4 * GIB && strcmp(src, "cgroup memory.max") == 0);
    put_file("/sys/fs/cgroup/job.slice/worker/memory.max", "2147483648\n");
    CHECK(cz_budget_detect(root, NULL) == 2 * GIB);
    put_file("/sys/fs/cgroup/job.slice/worker/memory.max", "max\n");
    put_file("/sys/fs/cgroup/job.slice/memory.max", "max\n");
    CHECK(cz_budget_detect(root, NULL) == 6 * GIB); /* only the root limit remains */

    /* a hybrid host: v1 lines before the v2 one; trailing slash */
    put_file("/proc/self/cgroup", "12:memory:/v1/stuff\n3:cpu:/x\n0::/job.slice/\n");
    put_file("/sys/fs/cgroup/memory.max", "max\n");
    put_file("/sys/fs/cgroup/job.slice/memory.max", "3221225472\n");
    CHECK(cz_budget_detect(root, NULL) == 3 * GIB);
    /* root cgroup "0::/" with no memory.max at the root: MemAvailable */
    put_file("/proc/self/cgroup", "0::/\n");
    char rootmax[400];
    snprintf(rootmax, sizeof rootmax, "%s/sys/fs/cgroup/memory.max", tmpdir);
    unlink(rootmax);
    CHECK(cz_budget_detect(root, &src) == 16 * GIB && strcmp(src, "MemAvailable") == 0);
    /* only v1: MemAvailable; garbage in memory.max is ignored */
    put_file("/proc/self/cgroup", "4:memory:/job\n");
    CHECK(cz_budget_detect(root, NULL) == 16 * GIB);
    put_file("/proc/self/cgroup", "0::/job.slice\n");
    put_file("/sys/fs/cgroup/job.slice/memory.max", "lots\n");
    CHECK(cz_budget_detect(root, NULL) == 16 * GIB);

    /* the margin's floor (256 MiB) and ceiling (4 GiB) */
    put_file("/sys/fs/cgroup/job.slice/memory.max", "1073741824\n");
    CHECK(cz_budget_create_at(&b, 0, 0, root, NULL) == CZ_OK);
    CHECK(b && cz_budget_limit(b) == GIB - 256 * MIB);
    cz_budget_free(b);
    put_file("/sys/fs/cgroup/job.slice/memory.max", "214748364800\n"); /* 200 GiB: 5% = 10 GiB > 4 GiB */
    CHECK(cz_budget_create_at(&b, 0, 0, root, NULL) == CZ_OK);
    CHECK(b && cz_budget_limit(b) == 200 * GIB - 4 * GIB);
    cz_budget_free(b);
    /* detected memory not above the margin: refused with a message */
    put_file("/sys/fs/cgroup/job.slice/memory.max", "209715200\n"); /* 200 MiB */
    cz_error_clear(&err);
    b = NULL;
    CHECK(cz_budget_create_at(&b, 0, 0, root, &err) == CZ_ERR_UNSUPPORTED && b == NULL);
    CHECK_MSG(strstr(err.msg, "209715200") && strstr(err.msg, "200 MiB") && strstr(err.msg, "256 MiB"), "message: %s",
              err.msg);
    CHECK(cz_budget_create_at(&b, 0, 100 * MIB, root, NULL) == CZ_OK && b && cz_budget_limit(b) == 100 * MIB);
    cz_budget_free(b);

    clear_tree();
    if (rmdir(tmpdir) != 0) printf("could not remove %s\n", tmpdir);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_budget");
    test_accounting(&rng);
    test_too_large();
    test_reclaim_order();
    test_waiting();
    test_stress(&rng);
    test_detect();
    return cz_test_finish("test_budget");
}
