/*
 * mem/budget: the process's byte budget (contract in budget.h).
 *
 * DESIGN: one mutex guards the counters; one condition variable on
 * CLOCK_MONOTONIC wakes waiters when bytes are released (and tells
 * cz_budget_remove_reclaimer that a reclaimer call finished). A reserve runs
 * in attempts: under the lock, take the bytes if they fit; otherwise call the
 * reclaimers stage by stage with the lock dropped (they release through
 * cz_budget_release, which takes it), re-checking after each one; if still
 * short, wait on the condition variable for at most 10 ms (so the cancel
 * flag is polled and reclaimers are asked again: a pool buffer put back is
 * reclaimable but releases nothing by itself), then try again. Bytes are
 * only ever taken under the lock after a fit check, so used <= limit always.
 * Reclaimer slots never move (removal clears a slot after waiting for the
 * calls in progress), so a slot pointer held across an unlocked call stays
 * valid.
 */
#include "mem/budget.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CZ_RECLAIMERS_MAX 8
#define CZ_BUDGET_POLL_NS 10000000L /* 10 ms */

typedef struct reclaimer {
    cz_reclaim_fn fn; /* NULL: free slot */
    void *ctx;
    int busy; /* calls in progress (lock dropped) */
} reclaimer;

struct cz_budget {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t limit;
    size_t used, peak;
    size_t by[CZ_MEM_CONSUMERS_];
    uint64_t reservations, waits, refused, overreleased;
    uint64_t reclaims[CZ_RECLAIM_STAGES_];
    size_t reclaimed[CZ_RECLAIM_STAGES_];
    reclaimer rec[CZ_RECLAIM_STAGES_][CZ_RECLAIMERS_MAX];
};

static const char *const consumer_names[CZ_MEM_CONSUMERS_] = {"key",     "matrix",  "witness",
                                                               "workset", "scratch", "pool"};
/* what the bytes are for, in messages */
static const char *const consumer_what[CZ_MEM_CONSUMERS_] = {
    "a proving key",       "constraint matrices", "a witness",
    "a job's working set", "backend scratch",     "a pinned pool buffer"};

const char *cz_mem_consumer_name(cz_mem_consumer c)
{
    return (unsigned)c < CZ_MEM_CONSUMERS_ ? consumer_names[c] : "unknown";
}

static const char *consumer_for(cz_mem_consumer c)
{
    return (unsigned)c < CZ_MEM_CONSUMERS_ ? consumer_what[c] : "an unknown consumer";
}

/* n bytes as MiB text: "3072" when whole, else one decimal ("0.5") */
static const char *mib(char buf[32], size_t n)
{
    if (n % (1u << 20) == 0)
        snprintf(buf, 32, "%zu", n >> 20);
    else
        snprintf(buf, 32, "%.1f", (double)n / (1024.0 * 1024.0));
    return buf;
}

/* ---- detection --------------------------------------------------------- */

/* root + path; 0 if it does not fit */
static int root_path(char *out, size_t cap, const char *root, const char *path)
{
    if (!root) root = "";
    int n = snprintf(out, cap, "%s%s", root, path);
    return n > 0 && (size_t)n < cap;
}

/* Reads a small file (at most cap-1 bytes) into buf, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 1;
}

/* memory.max of one cgroup directory (relative path, "" = root): 1 and *v
 * when numeric, 0 when "max", unreadable or malformed */
static int cgroup_max(const char *root, const char *dir, size_t *v)
{
    char rel[4200], path[4400], buf[64];
    snprintf(rel, sizeof rel, "/sys/fs/cgroup%s/memory.max", dir);
    if (!root_path(path, sizeof path, root, rel) || !read_small(path, buf, sizeof buf)) return 0;
    if (strncmp(buf, "max", 3) == 0) return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf || (*end != '\0' && *end != '\n')) return 0;
    *v = (size_t)x;
    return 1;
}

static size_t detect_cgroup(const char *root)
{
    char path[4400], buf[8192];
    if (!root_path(path, sizeof path, root, "/proc/self/cgroup") || !read_small(path, buf, sizeof buf)) return 0;
    /* the cgroup v2 line: "0::/some/path" */
    char *line = buf, *cg = NULL;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        if (strncmp(line, "0::", 3) == 0) {
            cg = line + 3;
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!cg || cg[0] != '/' || strlen(cg) > 4000) return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", cg);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
    if (strcmp(dir, "/") == 0) dir[0] = '\0';
    /* this cgroup and each parent up to the root: the smallest limit wins */
    size_t best = 0, v;
    for (;;) {
        if (cgroup_max(root, dir, &v) && v > 0 && (best == 0 || v < best)) best = v;
        if (dir[0] == '\0') break;
        char *slash = strrchr(dir, '/');
        if (!slash) break;
        *slash = '\0'; /* "/a/b" -> "/a" -> "" (root) */
    }
    return best;
}

static size_t detect_meminfo(const char *root)
{
    char path[4400], buf[16384];
    if (!root_path(path, sizeof path, root, "/proc/meminfo") || !read_small(path, buf, sizeof buf)) return 0;
    const char *p = strstr(buf, "MemAvailable:");
    if (!p) return 0;
    p += strlen("MemAvailable:");
    char *end;
    unsigned long long kb = strtoull(p, &end, 10);
    if (end == p) return 0;
    if (kb > SIZE_MAX / 1024) return SIZE_MAX;
    return (size_t)kb * 1024;
}

size_t cz_budget_detect(const char *root, const char **source)
{
    size_t v = detect_cgroup(root);
    if (v) {
        if (source) *source = "cgroup memory.max";
        return v;
    }
    v = detect_meminfo(root);
    if (source) *source = v ? "MemAvailable" : NULL;
    return v;
}

/* 5% of detected, at least 256 MiB, at most 4 GiB */
static size_t default_margin(size_t detected)
{
    size_t m = detected / 20;
    const size_t lo = (size_t)256 << 20, hi = (size_t)4 << 30;
    return m < lo ? lo : m > hi ? hi : m;
}

/* ---- create / free ----------------------------------------------------- */

cz_status cz_budget_create(cz_budget **out, size_t limit, size_t margin, cz_error *err)
{
    return cz_budget_create_at(out, limit, margin, NULL, err);
}

cz_status cz_budget_create_at(cz_budget **out, size_t limit, size_t margin, const char *root, cz_error *err)
{
    if (!out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_budget_create: out is NULL");
    *out = NULL;
    if (limit == 0) {
        const char *source = NULL;
        size_t detected = cz_budget_detect(root, &source);
        if (!detected)
            return cz_error_set(err, CZ_ERR_UNSUPPORTED,
                                "memory budget: no limit given and none detected (no cgroup v2 memory.max, "
                                "no MemAvailable in /proc/meminfo); set the budget in the configuration");
        if (margin == 0) margin = default_margin(detected);
        if (detected <= margin) {
            char a[32], m[32];
            return cz_error_set(err, CZ_ERR_UNSUPPORTED,
                                "memory budget: %s gives %zu bytes (%s MiB), not more than the safety margin of "
                                "%zu bytes (%s MiB); set the budget in the configuration",
                                source, detected, mib(a, detected), margin, mib(m, margin));
        }
        limit = detected - margin;
    }
    cz_budget *b = calloc(1, sizeof *b);
    if (!b) return cz_error_set(err, CZ_ERR_NO_MEMORY, "memory budget: out of memory creating it");
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) {
        free(b);
        return cz_error_set(err, CZ_ERR_INTERNAL, "memory budget: pthread_condattr_init failed");
    }
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(&b->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0) {
        free(b);
        return cz_error_set(err, CZ_ERR_INTERNAL, "memory budget: condition variable on CLOCK_MONOTONIC failed (%d)", rc);
    }
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        pthread_cond_destroy(&b->cond);
        free(b);
        return cz_error_set(err, CZ_ERR_INTERNAL, "memory budget: pthread_mutex_init failed");
    }
    b->limit = limit;
    *out = b;
    return CZ_OK;
}

void cz_budget_free(cz_budget *b)
{
    if (!b) return;
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

size_t cz_budget_limit(const cz_budget *b) { return b ? b->limit : 0; }

/* ---- reclaimers -------------------------------------------------------- */

cz_status cz_budget_add_reclaimer(cz_budget *b, cz_reclaim_stage stage, cz_reclaim_fn fn, void *ctx)
{
    if (!b || !fn || (unsigned)stage >= CZ_RECLAIM_STAGES_) return CZ_ERR_INVALID_ARG;
    cz_status st = CZ_ERR_RANGE;
    pthread_mutex_lock(&b->lock);
    /* the first free slot after the last used one keeps registration order;
     * when the tail is full, an earlier freed slot is reused */
    int last = -1;
    for (int i = 0; i < CZ_RECLAIMERS_MAX; i++)
        if (b->rec[stage][i].fn || b->rec[stage][i].busy) last = i;
    int slot = -1;
    if (last + 1 < CZ_RECLAIMERS_MAX)
        slot = last + 1;
    else
        for (int i = 0; i < CZ_RECLAIMERS_MAX && slot < 0; i++)
            if (!b->rec[stage][i].fn && !b->rec[stage][i].busy) slot = i;
    if (slot >= 0) {
        b->rec[stage][slot].fn = fn;
        b->rec[stage][slot].ctx = ctx;
        st = CZ_OK;
    }
    pthread_mutex_unlock(&b->lock);
    return st;
}

void cz_budget_remove_reclaimer(cz_budget *b, cz_reclaim_stage stage, cz_reclaim_fn fn, void *ctx)
{
    if (!b || (unsigned)stage >= CZ_RECLAIM_STAGES_) return;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < CZ_RECLAIMERS_MAX; i++) {
        reclaimer *r = &b->rec[stage][i];
        if (r->fn == fn && r->ctx == ctx) {
            r->fn = NULL; /* no new calls */
            while (r->busy > 0) pthread_cond_wait(&b->cond, &b->lock);
            r->ctx = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&b->lock);
}

/* ---- reserve / release ------------------------------------------------- */

static int fits_locked(const cz_budget *b, size_t bytes) { return b->used <= b->limit && b->limit - b->used >= bytes; }

static void take_locked(cz_budget *b, cz_mem_consumer who, size_t bytes)
{
    b->used += bytes;
    b->by[who] += bytes;
    if (b->used > b->peak) b->peak = b->used;
    b->reservations++;
}

/* One round of reclaim: stage by stage, reclaimer by reclaimer, until bytes
 * fit. Called and returns with the lock held; drops it around each call. */
static void reclaim_locked(cz_budget *b, size_t bytes)
{
    for (int s = 0; s < CZ_RECLAIM_STAGES_; s++) {
        for (int i = 0; i < CZ_RECLAIMERS_MAX; i++) {
            if (fits_locked(b, bytes)) return;
            reclaimer *r = &b->rec[s][i];
            if (!r->fn) continue;
            size_t free_now = b->used <= b->limit ? b->limit - b->used : 0;
            size_t need = bytes - free_now;
            cz_reclaim_fn fn = r->fn;
            void *ctx = r->ctx;
            r->busy++;
            pthread_mutex_unlock(&b->lock);
            size_t freed = fn(ctx, need);
            pthread_mutex_lock(&b->lock);
            if (--r->busy == 0 && !r->fn) pthread_cond_broadcast(&b->cond); /* a remover waits */
            if (freed) {
                b->reclaims[s]++;
                b->reclaimed[s] += freed;
            }
        }
    }
}

static void ts_add_ns(struct timespec *t, long long ns)
{
    long long sec = ns / 1000000000LL;
    t->tv_sec += (time_t)sec;
    t->tv_nsec += (long)(ns - sec * 1000000000LL);
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

cz_status cz_budget_reserve(cz_budget *b, cz_mem_consumer who, size_t bytes, double timeout_s,
                            const volatile int *cancel, cz_error *err)
{
    if (!b || (unsigned)who >= CZ_MEM_CONSUMERS_)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_budget_reserve: no budget or unknown consumer %d", (int)who);
    if (bytes == 0) return CZ_OK;
    char m1[32], m2[32], m3[32];
    if (bytes > b->limit) {
        pthread_mutex_lock(&b->lock);
        b->refused++;
        pthread_mutex_unlock(&b->lock);
        return cz_error_set(err, CZ_ERR_BUDGET,
                            "memory budget: needs %zu bytes (%s MiB) for %s; the memory budget is %zu bytes "
                            "(%s MiB)",
                            bytes, mib(m1, bytes), consumer_for(who), b->limit, mib(m2, b->limit));
    }
    struct timespec deadline;
    int has_deadline = timeout_s >= 0;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (has_deadline) ts_add_ns(&deadline, timeout_s > 1e9 ? (long long)1e18 : (long long)(timeout_s * 1e9));
    int waited = 0;
    cz_status st = CZ_OK;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if (!fits_locked(b, bytes)) reclaim_locked(b, bytes);
        if (fits_locked(b, bytes)) {
            take_locked(b, who, bytes);
            break;
        }
        if (cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE)) { /* atomic: set from another thread */
            st = CZ_ERR_CANCELLED;
            break;
        }
        struct timespec now, until;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (has_deadline && !ts_before(&now, &deadline)) {
            st = CZ_ERR_TIMEOUT;
            break;
        }
        if (!waited) {
            waited = 1;
            b->waits++;
        }
        until = now;
        ts_add_ns(&until, CZ_BUDGET_POLL_NS);
        if (has_deadline && ts_before(&deadline, &until)) until = deadline;
        /* one slice; a wake-up (release, spurious or not) or the end of the
         * slice starts the next attempt */
        pthread_cond_timedwait(&b->cond, &b->lock, &until);
    }
    size_t used = b->used, limit = b->limit;
    pthread_mutex_unlock(&b->lock);
    if (st == CZ_ERR_CANCELLED)
        return cz_error_set(err, st,
                            "memory budget: cancelled while waiting for %zu bytes (%s MiB) for %s; %zu of the "
                            "budget's %zu bytes (%s MiB) were in use",
                            bytes, mib(m1, bytes), consumer_for(who), used, limit, mib(m3, limit));
    if (st == CZ_ERR_TIMEOUT)
        return cz_error_set(err, st,
                            "memory budget: timed out after %.3g s waiting for %zu bytes (%s MiB) for %s; %zu "
                            "bytes (%s MiB) of the budget's %zu bytes (%s MiB) were in use",
                            timeout_s, bytes, mib(m1, bytes), consumer_for(who), used, mib(m2, used), limit,
                            mib(m3, limit));
    return CZ_OK;
}

int cz_budget_try_reserve(cz_budget *b, cz_mem_consumer who, size_t bytes)
{
    if (!b || (unsigned)who >= CZ_MEM_CONSUMERS_) return 0;
    if (bytes == 0) return 1;
    pthread_mutex_lock(&b->lock);
    int ok = fits_locked(b, bytes);
    if (ok) take_locked(b, who, bytes);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

void cz_budget_release(cz_budget *b, cz_mem_consumer who, size_t bytes)
{
    if (!b || (unsigned)who >= CZ_MEM_CONSUMERS_ || bytes == 0) return;
    pthread_mutex_lock(&b->lock);
    if (bytes > b->by[who]) {
        b->overreleased++;
        bytes = b->by[who];
    }
    b->by[who] -= bytes;
    b->used -= bytes;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

void cz_budget_transfer(cz_budget *b, cz_mem_consumer from, cz_mem_consumer to, size_t bytes)
{
    if (!b || (unsigned)from >= CZ_MEM_CONSUMERS_ || (unsigned)to >= CZ_MEM_CONSUMERS_ || bytes == 0) return;
    pthread_mutex_lock(&b->lock);
    if (bytes > b->by[from]) {
        b->overreleased++;
        bytes = b->by[from];
    }
    b->by[from] -= bytes;
    b->by[to] += bytes;
    pthread_mutex_unlock(&b->lock);
}

void cz_budget_stats_get(cz_budget *b, cz_budget_stats *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!b) return;
    pthread_mutex_lock(&b->lock);
    out->limit = b->limit;
    out->used = b->used;
    out->peak = b->peak;
    memcpy(out->by, b->by, sizeof out->by);
    out->reservations = b->reservations;
    out->waits = b->waits;
    memcpy(out->reclaims, b->reclaims, sizeof out->reclaims);
    memcpy(out->reclaimed, b->reclaimed, sizeof out->reclaimed);
    out->refused = b->refused;
    out->overreleased = b->overreleased;
    pthread_mutex_unlock(&b->lock);
}

size_t cz_budget_used(cz_budget *b)
{
    if (!b) return 0;
    pthread_mutex_lock(&b->lock);
    size_t u = b->used;
    pthread_mutex_unlock(&b->lock);
    return u;
}

/* ---- budgeted allocator ------------------------------------------------ */

static void *ba_alloc(void *ctx, size_t bytes)
{
    cz_budget_alloc *ba = ctx;
    const size_t limit = cz_budget_limit(ba->budget);
    const size_t held = __atomic_load_n(ba->held, __ATOMIC_RELAXED);
    cz_error e;
    cz_error_clear(&e);
    cz_status st;
    if (held + bytes > limit || held + bytes < held) {
        char m1[32], m2[32];
        st = cz_error_set(&e, CZ_ERR_BUDGET,
                          "memory budget: %s needs more than %zu bytes (%s MiB) and the budget is %zu bytes (%s MiB)",
                          consumer_for(ba->who), held + bytes, mib(m1, held + bytes), limit, mib(m2, limit));
    } else {
        size_t pre = __atomic_load_n(&ba->prepaid, __ATOMIC_RELAXED), take;
        do {
            take = pre < bytes ? pre : bytes;
        } while (!__atomic_compare_exchange_n(&ba->prepaid, &pre, pre - take, 1, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED));
        st = cz_budget_reserve(ba->budget, ba->who, bytes - take, ba->timeout_s, ba->cancel, &e);
        if (st != CZ_OK) __atomic_add_fetch(&ba->prepaid, take, __ATOMIC_RELAXED);
    }
    if (st != CZ_OK) {
        if (ba->refusal.status == CZ_OK) ba->refusal = e;
        return NULL;
    }
    void *p = ba->base ? ba->base->alloc(ba->base->ctx, bytes) : cz_alloc(NULL, bytes);
    if (!p) {
        cz_budget_release(ba->budget, ba->who, bytes);
        return NULL;
    }
    size_t now = __atomic_add_fetch(ba->held, bytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ba->held_own, ba->held == &ba->held_own ? 0 : bytes, __ATOMIC_RELAXED);
    size_t pk = __atomic_load_n(&ba->peak, __ATOMIC_RELAXED);
    while (now > pk && !__atomic_compare_exchange_n(&ba->peak, &pk, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return p;
}

static void ba_free(void *ctx, void *p, size_t bytes)
{
    cz_budget_alloc *ba = ctx;
    if (!p) return;
    if (ba->base)
        ba->base->free(ba->base->ctx, p, bytes);
    else
        cz_free(NULL, p, bytes);
    cz_budget_release(ba->budget, ba->who, bytes);
    __atomic_sub_fetch(ba->held, bytes, __ATOMIC_RELAXED);
    if (ba->held != &ba->held_own) __atomic_sub_fetch(&ba->held_own, bytes, __ATOMIC_RELAXED);
}

void cz_budget_alloc_init(cz_budget_alloc *ba, cz_budget *b, cz_mem_consumer who, const cz_allocator *base)
{
    memset(ba, 0, sizeof *ba);
    ba->a.alloc = ba_alloc;
    ba->a.free = ba_free;
    ba->a.ctx = ba;
    ba->budget = b;
    ba->who = who;
    ba->base = base;
    ba->timeout_s = -1;
    ba->held = &ba->held_own;
    cz_error_clear(&ba->refusal);
}

void cz_budget_alloc_join(cz_budget_alloc *ba, cz_budget_alloc *group) { ba->held = group->held; }

size_t cz_budget_alloc_held(const cz_budget_alloc *ba) { return __atomic_load_n(ba->held, __ATOMIC_RELAXED); }

cz_status cz_budget_alloc_prepay(cz_budget_alloc *ba, size_t bytes, cz_error *err)
{
    cz_status st = cz_budget_reserve(ba->budget, ba->who, bytes, ba->timeout_s, ba->cancel, err);
    if (st == CZ_OK) __atomic_add_fetch(&ba->prepaid, bytes, __ATOMIC_RELAXED);
    return st;
}

void cz_budget_alloc_drop_prepaid(cz_budget_alloc *ba)
{
    size_t left = __atomic_exchange_n(&ba->prepaid, 0, __ATOMIC_RELAXED);
    if (left) cz_budget_release(ba->budget, ba->who, left);
}
