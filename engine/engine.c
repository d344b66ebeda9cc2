/* The proving engine: see engine/engine.h for the design. */
#include "engine/engine.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "util/timer.h"

#define MAX_SYNTH_WORKERS 64

/* a partition between stages */
typedef struct item {
    cz_job *job;
    size_t idx;
    void *abc;
    size_t abc_got;
    cz_groth16_partial part;
    double t_ready; /* entered its current queue */
    struct item *next;
} item;

struct cz_engine_key {
    cz_engine *e;
    char *path;
    char *canon; /* realpath: registrations of one file share the key */
    int regs;    /* registrations (cz_engine_key_add calls not yet removed) */
    int info_set;
    cz_zkey zk;   /* the loaded key (when loaded) */
    cz_zkey info; /* header fields, valid while registered (no tables) */
    int loaded, loading;
    int refs; /* jobs holding it */
    uint32_t resident; /* bit d: placed in device d's VRAM (a hint: the
                        * backend may drop it under VRAM pressure and upload
                        * it again) */
    uint64_t last_use;
    size_t bytes;
    cz_engine_key *next;
};

struct cz_job {
    cz_engine *e;
    cz_engine_key *key;
    int priority;
    uint64_t seq;
    size_t n, remaining, next_synth; /* partitions next_synth.. not yet taken */
    const cz_wtns **w;
    cz_partition_result *res;
    int cancel; /* read by budget waits (as const volatile int *) */
    int done;
    double t_submit;
    cz_job *next_waiting; /* in the engine's list of jobs with partitions to synthesize */
};

/* a device and its worker */
typedef struct device {
    cz_engine *e;
    int idx;
    cz_backend *be;
    pthread_t th;
    int started;
    int in_service;
    int idle; /* waiting for work */
    double busy;
    uint64_t steps, parts, key_uploads;
    uint64_t fail_at; /* CZ_ENGINE_FAIL_DEVICE: the step that fails (0: none) */
    char error[256];
} device;

struct cz_engine {
    cz_engine_config cfg;
    cz_budget *budget;
    cz_bufpool *pool;
    device dev[CZ_ENGINE_MAX_DEVICES];
    int ndev, in_service;
    char dev_names[256];
    cz_allocator key_alloc;
    const cz_allocator *key_host; /* where key memory comes from (pinned with pin_keys), NULL: ordinary */
    pthread_mutex_t mu;
    pthread_cond_t cv_synth, cv_gpu, cv_fin, cv_done, cv_key;
    cz_job *waiting; /* jobs with partitions not yet in synthesis */
    item *gpu_q, *fin_q;
    int gpu_ready; /* items in gpu_q */
    int pool_pinned;
    cz_engine_key *keys;
    int stop;
    pthread_t synth_th[MAX_SYNTH_WORKERS], fin_th;
    int nsynth, started_fin;
    uint64_t seq, tick;
    double t0;
    uint64_t jobs_done, parts_done, parts_failed, key_loads, key_evictions, retries;
    char last_device_error[384]; /* of the last device taken out of service */
    int timeline;
};

/* ---- small helpers ---- */

static void timeline(cz_engine *e, const cz_job *j, size_t idx, const char *what)
{
    if (!e->timeline) return;
    fprintf(stderr, "cuzk-engine %9.3f ms job %llu part %zu: %s\n", (cz_now() - e->t0) * 1e3,
            (unsigned long long)j->seq, idx, what);
}

static void set_result(cz_partition_result *r, cz_status st, const char *fmt, ...)
{
    r->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
}

/* Under e->mu: partition idx of j has its result. */
static void part_done_locked(cz_engine *e, cz_job *j, size_t idx)
{
    cz_partition_result *r = &j->res[idx];
    r->t.total_s = cz_now() - j->t_submit;
    if (r->status == CZ_OK)
        e->parts_done++;
    else
        e->parts_failed++;
    if (--j->remaining == 0) {
        j->done = 1;
        j->key->refs--;
        j->key->last_use = ++e->tick;
        e->jobs_done++;
        pthread_cond_broadcast(&e->cv_done);
    }
}

static int job_cancelled(const cz_job *j) { return __atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE); }

/* ---- keys: loaded with an allocator that reserves in the budget ---- */

/* why the budget refused a key allocation on this thread (the loader only
 * sees NULL and reports "out of memory") */
static _Thread_local cz_error t_key_refusal;
/* while this thread loads a key: the bytes that load holds so far */
static _Thread_local int t_key_loading;
static _Thread_local size_t t_key_held;

/*
 * A key is loaded in pieces, each reserved as it is allocated. A piece that
 * does not fit after reclaiming waits for other consumers to release (a
 * working set in flight, say), unless the pieces this load already holds
 * plus this one exceed the whole budget: then nothing anyone else frees
 * can make room, and waiting would hang; the load fails at once instead.
 */
static void *key_alloc(void *ctx, size_t bytes)
{
    cz_engine *e = ctx;
    const size_t limit = cz_budget_limit(e->budget), held = t_key_loading ? t_key_held : 0;
    cz_status st;
    if (held + bytes > limit || held + bytes < held)
        st = cz_error_set(&t_key_refusal, CZ_ERR_BUDGET,
                          "memory budget: the key needs more than %zu bytes (%zu MiB) and the budget is %zu bytes "
                          "(%zu MiB)",
                          held + bytes, (held + bytes) >> 20, limit, limit >> 20);
    else
        st = cz_budget_reserve(e->budget, CZ_MEM_KEY, bytes, -1, NULL, &t_key_refusal);
    if (st != CZ_OK) return NULL;
    void *p = e->key_host ? e->key_host->alloc(e->key_host->ctx, bytes) : cz_alloc(NULL, bytes);
    if (!p)
        cz_budget_release(e->budget, CZ_MEM_KEY, bytes);
    else if (t_key_loading)
        t_key_held += bytes;
    return p;
}

static void key_free(void *ctx, void *p, size_t bytes)
{
    cz_engine *e = ctx;
    if (!p) return;
    if (e->key_host)
        e->key_host->free(e->key_host->ctx, p, bytes);
    else
        cz_free(NULL, p, bytes);
    cz_budget_release(e->budget, CZ_MEM_KEY, bytes);
    if (t_key_loading) t_key_held = t_key_held > bytes ? t_key_held - bytes : 0;
}

/* Loads k unless loaded (waits for a load in progress). CZ_OK when loaded. */
static cz_status key_ensure(cz_engine *e, cz_engine_key *k, double *load_s, cz_error *err)
{
    pthread_mutex_lock(&e->mu);
    while (k->loading) pthread_cond_wait(&e->cv_key, &e->mu);
    if (k->loaded) {
        pthread_mutex_unlock(&e->mu);
        return CZ_OK;
    }
    k->loading = 1;
    pthread_mutex_unlock(&e->mu);
    double t = cz_now();
    cz_zkey_opts o;
    memset(&o, 0, sizeof o);
    o.alloc = &e->key_alloc;
    cz_zkey zk;
    cz_error_clear(&t_key_refusal);
    cz_error lerr;
    cz_error_clear(&lerr);
    t_key_loading = 1;
    t_key_held = 0;
    cz_status st = cz_zkey_load(&zk, k->path, &o, &lerr);
    t_key_loading = 0;
    if (st != CZ_OK && t_key_refusal.status != CZ_OK)
        st = cz_error_set(err, t_key_refusal.status, "%s: the key does not fit: %s", k->path,
                          cz_error_msg(&t_key_refusal));
    else if (st != CZ_OK)
        cz_error_set(err, st, "%s", cz_error_msg(&lerr));
    *load_s += cz_now() - t;
    pthread_mutex_lock(&e->mu);
    k->loading = 0;
    if (st == CZ_OK) {
        k->zk = zk;
        k->loaded = 1;
        if (!k->info_set) { /* the header facts, kept across unloads */
            k->info = zk;
            k->info.ic = k->info.a = k->info.b1 = k->info.b2 = k->info.c = k->info.h = NULL;
            memset(&k->info.A, 0, sizeof k->info.A);
            memset(&k->info.B, 0, sizeof k->info.B);
            k->info_set = 1;
        }
        k->bytes = zk.bytes;
        e->key_loads++;
    }
    pthread_cond_broadcast(&e->cv_key);
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* Frees the VRAM copies of a key on the devices of mask `resident`. */
static void drop_resident(cz_engine *e, const cz_zkey *zk, uint32_t resident)
{
    for (int d = 0; d < e->ndev; d++)
        if (resident & ((uint32_t)1 << d)) cz_groth16_drop_resident(e->dev[d].be, zk);
}

/* Budget reclaimer, stage CZ_RECLAIM_KEYS: unload idle keys, least recently
 * used first. */
static size_t evict_keys(void *ctx, size_t need)
{
    cz_engine *e = ctx;
    size_t freed = 0;
    while (freed < need) {
        pthread_mutex_lock(&e->mu);
        cz_engine_key *victim = NULL;
        for (cz_engine_key *k = e->keys; k; k = k->next)
            if (k->loaded && !k->loading && k->refs == 0 && (!victim || k->last_use < victim->last_use)) victim = k;
        if (!victim) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        cz_zkey zk = victim->zk;
        uint32_t resident = victim->resident;
        victim->loaded = 0;
        victim->loading = 1; /* nobody reloads it while it is being freed */
        victim->resident = 0;
        memset(&victim->zk, 0, sizeof victim->zk);
        e->key_evictions++;
        pthread_mutex_unlock(&e->mu);
        drop_resident(e, &zk, resident);
        size_t b = zk.bytes;
        cz_zkey_free(&zk);
        freed += b;
        pthread_mutex_lock(&e->mu);
        victim->loading = 0;
        pthread_cond_broadcast(&e->cv_key);
        pthread_mutex_unlock(&e->mu);
    }
    return freed;
}

cz_status cz_engine_key_add(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err)
{
    *out = NULL;
    if (!e || !path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_key_add: NULL argument");
    char *canon = realpath(path, NULL); /* NULL when missing: the load says why */
    if (!canon) canon = strdup(path);
    if (!canon) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&e->mu);
    cz_engine_key *k = e->keys;
    while (k && strcmp(k->canon, canon) != 0) k = k->next;
    if (k) { /* registered already: one copy in memory for both */
        k->regs++;
        free(canon);
    } else {
        k = calloc(1, sizeof *k);
        char *p = strdup(path);
        if (!k || !p) {
            pthread_mutex_unlock(&e->mu);
            free(k);
            free(p);
            free(canon);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        }
        k->e = e;
        k->path = p;
        k->canon = canon;
        k->regs = 1;
        k->next = e->keys;
        e->keys = k;
    }
    pthread_mutex_unlock(&e->mu);
    /* loads it, or waits for a load in progress by the first registration */
    double t = 0;
    cz_status st = key_ensure(e, k, &t, err);
    if (st != CZ_OK) {
        cz_engine_key_remove(e, k);
        return st;
    }
    pthread_mutex_lock(&e->mu);
    k->last_use = ++e->tick;
    pthread_mutex_unlock(&e->mu);
    *out = k;
    return CZ_OK;
}

size_t cz_engine_key_bytes(const cz_engine_key *k) { return k->bytes; }
const cz_zkey *cz_engine_key_info(const cz_engine_key *k) { return &k->info; }

void cz_engine_key_remove(cz_engine *e, cz_engine_key *k)
{
    if (!k) return;
    pthread_mutex_lock(&e->mu);
    if (--k->regs > 0) { /* another registration holds it */
        pthread_mutex_unlock(&e->mu);
        return;
    }
    while (k->loading) pthread_cond_wait(&e->cv_key, &e->mu);
    for (cz_engine_key **pp = &e->keys; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    int loaded = k->loaded;
    uint32_t resident = k->resident;
    k->loaded = 0;
    k->resident = 0;
    pthread_mutex_unlock(&e->mu);
    if (loaded) {
        drop_resident(e, &k->zk, resident);
        cz_zkey_free(&k->zk);
    }
    free(k->path);
    free(k->canon);
    free(k);
}

/* ---- the stages ---- */

/* Under e->mu: the next partition to synthesize (priority, then age). */
static cz_job *pick_job_locked(cz_engine *e)
{
    cz_job *best = NULL;
    for (cz_job *j = e->waiting; j; j = j->next_waiting)
        if (!best || j->priority > best->priority || (j->priority == best->priority && j->seq < best->seq)) best = j;
    return best;
}

static void unlink_waiting_locked(cz_engine *e, cz_job *j)
{
    for (cz_job **pp = &e->waiting; *pp; pp = &(*pp)->next_waiting)
        if (*pp == j) {
            *pp = j->next_waiting;
            j->next_waiting = NULL;
            return;
        }
}

/* Under e->mu: the best item of a queue (priority, then age), unlinked. */
static item *pop_best_locked(item **q)
{
    item **best = NULL;
    for (item **pp = q; *pp; pp = &(*pp)->next) {
        const cz_job *j = (*pp)->job;
        if (!best || j->priority > (*best)->job->priority ||
            (j->priority == (*best)->job->priority && j->seq < (*best)->job->seq))
            best = pp;
    }
    if (!best) return NULL;
    item *it = *best;
    *best = it->next;
    it->next = NULL;
    return it;
}

/* Waits for the best item of q; NULL once the engine stops with q empty. */
static item *next_item(cz_engine *e, item **q, pthread_cond_t *cv)
{
    pthread_mutex_lock(&e->mu);
    item *it;
    while (!(it = pop_best_locked(q)) && !e->stop) pthread_cond_wait(cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
    return it;
}

static void push_locked(item **q, item *it)
{
    it->next = *q;
    *q = it;
}

/* Ends an item with a failure (or cancellation), its buffer back to the pool. */
static void fail_item(cz_engine *e, item *it, cz_status st, const char *msg)
{
    if (it->abc) cz_bufpool_put(e->pool, it->abc);
    it->abc = NULL;
    pthread_mutex_lock(&e->mu);
    set_result(&it->job->res[it->idx], st, "%s", msg);
    part_done_locked(e, it->job, it->idx);
    pthread_mutex_unlock(&e->mu);
    free(it);
}

/* Under e->mu: the partition device d takes next (engine/sched.h), unlinked
 * from the GPU queue, or NULL. */
static item *pick_for_device_locked(cz_engine *e, const device *d)
{
    enum { SNAP = 256 }; /* the queue holds about max_ready items; past SNAP
                          * the oldest SNAP are considered */
    cz_sched_item snap[SNAP];
    item **link[SNAP];
    size_t n = 0;
    uint32_t idle = 0;
    for (int i = 0; i < e->ndev; i++)
        if (e->dev[i].idle && e->dev[i].in_service) idle |= (uint32_t)1 << i;
    for (item **pp = &e->gpu_q; *pp && n < SNAP; pp = &(*pp)->next) {
        const cz_job *j = (*pp)->job;
        snap[n].priority = j->priority;
        snap[n].seq = j->seq;
        snap[n].resident = j->key->resident;
        link[n++] = pp;
    }
    int k = cz_sched_pick(snap, n, d->idx, idle);
    if (k < 0) return NULL;
    item *it = *link[k];
    *link[k] = it->next;
    it->next = NULL;
    return it;
}

/* the message for partitions that no device can take */
typedef struct {
    char s[sizeof ((cz_engine *)0)->last_device_error + 64];
} no_device_msg;

/* Under e->mu: 1 (with the message) when no device is in service. */
static int no_device_locked(const cz_engine *e, no_device_msg *m)
{
    if (e->in_service > 0) return 0;
    snprintf(m->s, sizeof m->s, "every device is out of service (the last: %s)", e->last_device_error);
    return 1;
}

/* Fails it when no device is in service (nothing could prove it); 1 then. */
static int fail_if_no_device(cz_engine *e, item *it)
{
    no_device_msg m;
    pthread_mutex_lock(&e->mu);
    int none = no_device_locked(e, &m);
    pthread_mutex_unlock(&e->mu);
    if (none) fail_item(e, it, CZ_ERR_NO_DEVICE, m.s);
    return none;
}

/* A synthesized partition into the GPU queue (at its tail: partitions of one
 * job go in order), unless no device is left to take it. */
static void to_gpu_queue(cz_engine *e, item *it)
{
    no_device_msg m;
    pthread_mutex_lock(&e->mu);
    if (no_device_locked(e, &m)) { /* checked under the lock the last device's exit takes */
        pthread_mutex_unlock(&e->mu);
        fail_item(e, it, CZ_ERR_NO_DEVICE, m.s);
        return;
    }
    it->t_ready = cz_now();
    item **pp = &e->gpu_q;
    while (*pp) pp = &(*pp)->next;
    it->next = NULL;
    *pp = it;
    e->gpu_ready++;
    pthread_cond_broadcast(&e->cv_gpu); /* every idle device may want it (engine/sched.h) */
    pthread_mutex_unlock(&e->mu);
}

static void *synth_main(void *arg)
{
    cz_engine *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        cz_job *j;
        /* a partition to synthesize, unless enough wait for the device */
        while ((!(j = pick_job_locked(e)) || e->gpu_ready >= e->cfg.max_ready) && !e->stop)
            pthread_cond_wait(&e->cv_synth, &e->mu);
        if (!j) {
            pthread_mutex_unlock(&e->mu);
            return NULL;
        }
        size_t idx = j->next_synth++;
        if (j->next_synth == j->n) unlink_waiting_locked(e, j);
        pthread_mutex_unlock(&e->mu);

        item *it = calloc(1, sizeof *it);
        cz_partition_result *r = &j->res[idx];
        r->t.queue_s = cz_now() - j->t_submit;
        if (!it) {
            pthread_mutex_lock(&e->mu);
            set_result(r, CZ_ERR_NO_MEMORY, "out of memory");
            part_done_locked(e, j, idx);
            pthread_mutex_unlock(&e->mu);
            continue;
        }
        it->job = j;
        it->idx = idx;
        if (job_cancelled(j)) {
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        if (fail_if_no_device(e, it)) continue;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = key_ensure(e, j->key, &r->t.key_load_s, &err);
        if (st != CZ_OK) {
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        const cz_zkey *zk = &j->key->zk;
        size_t each = (size_t)zk->domain_size * 32;
        /* the working set: waits here while the budget is full (this is
         * what bounds how far synthesis runs ahead of the device) */
        st = cz_bufpool_get(e->pool, 3 * each, &it->abc, &it->abc_got, -1, &j->cancel, &err);
        if (st != CZ_OK) {
            it->abc = NULL;
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        timeline(e, j, idx, "synthesis start");
        double t = cz_now();
        uint8_t *abc = it->abc;
        cz_groth16_abc(zk, j->w[idx], abc, abc + each, abc + 2 * each, NULL);
        r->t.synth_s = cz_now() - t;
        r->t.abc_bytes = 3 * each;
        timeline(e, j, idx, "synthesis done");
        to_gpu_queue(e, it);
    }
}

/* Device d failed proving it: out of service, its partition synthesized
 * again for another device; without one left, it and the queue fail. */
static void device_failed(cz_engine *e, device *d, item *it, const cz_error *err)
{
    pthread_mutex_lock(&e->mu);
    d->in_service = 0;
    e->in_service--;
    snprintf(d->error, sizeof d->error, "%s", cz_error_msg(err));
    snprintf(e->last_device_error, sizeof e->last_device_error, "%s: %s", d->be->name, d->error);
    int left = e->in_service;
    item *orphans = NULL;
    no_device_msg m;
    if (no_device_locked(e, &m)) { /* nothing will take the queue */
        orphans = e->gpu_q;
        e->gpu_q = NULL;
        e->gpu_ready = 0;
        pthread_cond_broadcast(&e->cv_synth);
    }
    pthread_mutex_unlock(&e->mu);
    fprintf(stderr, "cuzk-engine: %s taken out of service after a device error (%s); %d device%s left%s\n",
            d->be->name, d->error, left, left == 1 ? "" : "s", left ? ", its partition goes to another" : "");
    it->job->res[it->idx].t.retries++;
    if (left == 0) {
        if (it->abc) cz_bufpool_put(e->pool, it->abc);
        it->abc = NULL;
        it->next = orphans;
        orphans = it;
        while (orphans) {
            item *next = orphans->next;
            fail_item(e, orphans, CZ_ERR_NO_DEVICE, m.s);
            orphans = next;
        }
        return;
    }
    /* the failed step may have clobbered a, b, c (the H step works in place) */
    const cz_zkey *zk = &it->job->key->zk; /* held: the job's reference keeps it loaded */
    size_t each = (size_t)zk->domain_size * 32;
    uint8_t *abc = it->abc;
    double t = cz_now();
    cz_groth16_abc(zk, it->job->w[it->idx], abc, abc + each, abc + 2 * each, NULL);
    it->job->res[it->idx].t.synth_s += cz_now() - t;
    pthread_mutex_lock(&e->mu);
    e->retries++;
    pthread_mutex_unlock(&e->mu);
    timeline(e, it->job, it->idx, "synthesized again for another device");
    to_gpu_queue(e, it);
}

static void *gpu_main(void *arg)
{
    device *d = arg;
    cz_engine *e = d->e;
    const uint32_t bit = (uint32_t)1 << d->idx;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        item *it;
        d->idle = 1;
        while (!(it = pick_for_device_locked(e, d)) && !e->stop) pthread_cond_wait(&e->cv_gpu, &e->mu);
        d->idle = 0;
        if (!it) {
            pthread_mutex_unlock(&e->mu);
            return NULL;
        }
        e->gpu_ready--;
        pthread_cond_broadcast(&e->cv_synth); /* room for the next synthesis */
        pthread_cond_broadcast(&e->cv_gpu);   /* the idle set changed: what this device
                                               * was deferred may be another's now */
        cz_engine_key *key = it->job->key;
        const int placed = (key->resident & bit) != 0;
        const uint64_t step = ++d->steps;
        pthread_mutex_unlock(&e->mu);
        cz_job *j = it->job;
        cz_partition_result *r = &j->res[it->idx];
        r->t.gpu_wait_s = cz_now() - it->t_ready;
        if (job_cancelled(j)) {
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        cz_prove_opts o;
        memset(&o, 0, sizeof o);
        o.backend = d->be;
        o.keep_resident = 1; /* dropped when the key is evicted or removed */
        cz_error err;
        cz_error_clear(&err);
        const cz_zkey *zk = &key->zk; /* held: the job's reference keeps it loaded */
        size_t each = (size_t)zk->domain_size * 32;
        uint8_t *abc = it->abc;
        timeline(e, j, it->idx, "device start");
        double t = cz_now();
        cz_status st;
        if (d->fail_at && step == d->fail_at)
            st = cz_error_set(&err, CZ_ERR_CUDA, "injected failure at device step %llu (CZ_ENGINE_FAIL_DEVICE)",
                              (unsigned long long)step);
        else
            st = cz_groth16_device(&it->part, zk, j->w[it->idx], abc, abc + each, abc + 2 * each, &o,
                                   &r->t.stages, &err);
        double dt = cz_now() - t;
        timeline(e, j, it->idx, st == CZ_OK ? "device done" : "device failed");
        pthread_mutex_lock(&e->mu);
        d->busy += dt;
        pthread_mutex_unlock(&e->mu);
        if (st != CZ_OK && e->ndev > 1 && cz_backend_device_error(st)) {
            device_failed(e, d, it, &err);
            return NULL; /* this device is done */
        }
        cz_bufpool_put(e->pool, it->abc);
        it->abc = NULL;
        if (st != CZ_OK) {
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        r->t.device_s = dt;
        r->t.device = d->idx;
        pthread_mutex_lock(&e->mu);
        d->parts++;
        if (!placed && !(key->resident & bit)) {
            key->resident |= bit;
            d->key_uploads++;
        }
        it->t_ready = cz_now();
        push_locked(&e->fin_q, it);
        pthread_cond_signal(&e->cv_fin);
        pthread_mutex_unlock(&e->mu);
    }
}

static void *fin_main(void *arg)
{
    cz_engine *e = arg;
    for (;;) {
        item *it = next_item(e, &e->fin_q, &e->cv_fin);
        if (!it) return NULL;
        cz_job *j = it->job;
        cz_partition_result *r = &j->res[it->idx];
        if (job_cancelled(j)) {
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        cz_prove_opts o;
        memset(&o, 0, sizeof o);
        o.skip_verify = !e->cfg.verify;
        cz_error err;
        cz_error_clear(&err);
        double t = cz_now();
        cz_prove_timings ft;
        memset(&ft, 0, sizeof ft);
        /* the key is loaded: the job's reference keeps it from eviction */
        cz_status st = cz_groth16_finalize(&r->proof, &j->key->zk, j->w[it->idx], &it->part, &o, &ft, &err);
        r->t.finalize_s = cz_now() - t;
        r->t.stages.finalize = ft.finalize;
        r->t.stages.verify = ft.verify;
        timeline(e, j, it->idx, st == CZ_OK ? "finalized" : "failed verification");
        pthread_mutex_lock(&e->mu);
        if (st == CZ_OK)
            r->status = CZ_OK;
        else
            set_result(r, st, "%s", cz_error_msg(&err));
        part_done_locked(e, j, it->idx);
        pthread_mutex_unlock(&e->mu);
        free(it);
    }
}

/* ---- jobs ---- */

cz_status cz_engine_submit(cz_engine *e, cz_engine_key *key, const cz_wtns *const *witnesses, size_t n, int priority,
                           cz_job **out, cz_error *err)
{
    *out = NULL;
    if (!e || !key || !witnesses || n == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_submit: no key or no partitions");
    for (size_t i = 0; i < n; i++) {
        char name[48];
        snprintf(name, sizeof name, "the witness of partition %zu", i);
        cz_status st = cz_groth16_check_inputs(&key->info, witnesses[i], key->path, name, err);
        if (st != CZ_OK) return st;
    }
    size_t abc = 3 * (size_t)key->info.domain_size * 32, need = key->bytes + abc, limit = cz_budget_limit(e->budget);
    no_device_msg m;
    pthread_mutex_lock(&e->mu);
    int none = no_device_locked(e, &m);
    pthread_mutex_unlock(&e->mu);
    if (none) return cz_error_set(err, CZ_ERR_NO_DEVICE, "%s", m.s);
    if (need > limit)
        return cz_error_set(err, CZ_ERR_BUDGET,
                            "the job needs %zu bytes (%zu MiB: key %zu MiB + working set %zu MiB) at least; the memory "
                            "budget is %zu bytes (%zu MiB)",
                            need, need >> 20, key->bytes >> 20, abc >> 20, limit, limit >> 20);
    cz_job *j = calloc(1, sizeof *j);
    const cz_wtns **w = calloc(n, sizeof *w);
    cz_partition_result *res = calloc(n, sizeof *res);
    if (!j || !w || !res) {
        free(j);
        free(w);
        free(res);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    memcpy(w, witnesses, n * sizeof *w);
    j->e = e;
    j->key = key;
    j->priority = priority;
    j->n = j->remaining = n;
    j->w = w;
    j->res = res;
    j->t_submit = cz_now();
    pthread_mutex_lock(&e->mu);
    j->seq = ++e->seq;
    key->refs++;
    key->last_use = ++e->tick;
    j->next_waiting = e->waiting;
    e->waiting = j;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->mu);
    *out = j;
    return CZ_OK;
}

cz_status cz_job_wait(cz_job *j, double timeout_s)
{
    cz_engine *e = j->e;
    struct timespec dl;
    if (timeout_s >= 0) {
        clock_gettime(CLOCK_REALTIME, &dl);
        double s = (double)dl.tv_sec + dl.tv_nsec * 1e-9 + timeout_s;
        dl.tv_sec = (time_t)s;
        dl.tv_nsec = (long)((s - (double)dl.tv_sec) * 1e9);
    }
    pthread_mutex_lock(&e->mu);
    while (!j->done) {
        if (timeout_s < 0) {
            pthread_cond_wait(&e->cv_done, &e->mu);
        } else if (pthread_cond_timedwait(&e->cv_done, &e->mu, &dl) != 0 && !j->done) {
            pthread_mutex_unlock(&e->mu);
            return CZ_ERR_TIMEOUT;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return CZ_OK;
}

void cz_job_cancel(cz_job *j)
{
    cz_engine *e = j->e;
    __atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&e->mu);
    /* partitions not yet taken by synthesis end now */
    if (j->next_synth < j->n) {
        unlink_waiting_locked(e, j);
        while (j->next_synth < j->n) {
            size_t idx = j->next_synth++;
            set_result(&j->res[idx], CZ_ERR_CANCELLED, "cancelled");
            part_done_locked(e, j, idx);
        }
    }
    pthread_mutex_unlock(&e->mu);
}

const cz_partition_result *cz_job_results(const cz_job *j, size_t *n)
{
    if (n) *n = j->n;
    return j->res;
}

cz_status cz_job_status(const cz_job *j)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->res[i].status != CZ_OK) return j->res[i].status;
    return CZ_OK;
}

void cz_job_free(cz_job *j)
{
    if (!j) return;
    cz_job_cancel(j);
    (void)cz_job_wait(j, -1);
    free(j->w);
    free(j->res);
    free(j);
}

/* ---- the engine ---- */

void cz_engine_config_default(cz_engine_config *c)
{
    memset(c, 0, sizeof *c);
    c->device = "auto";
    c->verify = 1;
    c->pin = 1;
}

static void pool_log(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "cuzk-engine: %s\n", line);
}

/* The backend specs of config device/gpus into specs[]; their count. */
static cz_status device_specs(const cz_engine_config *c, char specs[][16], int *n, cz_error *err)
{
    const char *spec = c->device && *c->device ? c->device : "auto";
    const int want = c->gpus, max = CZ_ENGINE_MAX_DEVICES;
    *n = 0;
    if (want < 0 || want > max)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "gpus %d: expected 0 (every device) to %d", want, max);
    if (strcmp(spec, "auto") == 0 || strcmp(spec, "cuda") == 0) {
        int present = cz_backend_device_count("cuda");
        if (present == 0) { /* "auto": the CPU; "cuda": let the backend say why not */
            int k = strcmp(spec, "cuda") == 0 ? 1 : want > 0 ? want : 1;
            for (int i = 0; i < k; i++) snprintf(specs[i], 16, "%s", strcmp(spec, "cuda") == 0 ? "cuda" : "cpu");
            *n = k;
            return CZ_OK;
        }
        if (present > max) present = max;
        if (want > present)
            return cz_error_set(err, CZ_ERR_NO_DEVICE, "%d GPUs asked for, %d present", want, present);
        *n = want > 0 ? want : present;
        for (int i = 0; i < *n; i++) snprintf(specs[i], 16, "cuda:%d", i);
        return CZ_OK;
    }
    if (strcmp(spec, "cpu") == 0) {
        *n = want > 0 ? want : 1;
        for (int i = 0; i < *n; i++) snprintf(specs[i], 16, "cpu");
        return CZ_OK;
    }
    if (strncmp(spec, "cuda:", 5) != 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "device '%s': expected auto, cpu, cuda, cuda:N or a list cuda:N,M,...", spec);
    const char *p = spec + 5;
    int k = 0;
    for (;;) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 0 || d > 1023 || (*end && *end != ','))
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': expected GPU indices after cuda:, as in cuda:0,1",
                                spec);
        for (int i = 0; i < k; i++)
            if (atoi(specs[i] + 5) == (int)d)
                return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': GPU %ld is listed twice", spec, d);
        if (k == max) return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': more than %d GPUs", spec, max);
        snprintf(specs[k++], 16, "cuda:%ld", d);
        if (!*end) break;
        p = end + 1;
    }
    if (want > k) return cz_error_set(err, CZ_ERR_INVALID_ARG, "gpus %d: device '%s' lists %d", want, spec, k);
    *n = want > 0 ? want : k;
    return CZ_OK;
}

/* Opens the devices, with CZ_ENGINE_FAIL_DEVICE applied. */
static cz_status open_devices(cz_engine *e, cz_error *err)
{
    const cz_engine_config *c = &e->cfg;
    int n = 0;
    cz_status st = CZ_OK;
    if (c->make_backend) {
        if (c->gpus <= 0 || c->gpus > CZ_ENGINE_MAX_DEVICES)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "make_backend: gpus must be 1 to %d", CZ_ENGINE_MAX_DEVICES);
        n = c->gpus;
        for (int i = 0; i < n && st == CZ_OK; i++)
            if ((st = c->make_backend(c->make_backend_ctx, i, &e->dev[i].be, err)) == CZ_OK) e->ndev++;
    } else {
        char specs[CZ_ENGINE_MAX_DEVICES][16];
        if ((st = device_specs(c, specs, &n, err)) != CZ_OK) return st;
        for (int i = 0; i < n && st == CZ_OK; i++) {
            if ((st = cz_backend_create(&e->dev[i].be, specs[i], err)) != CZ_OK) break;
            e->ndev++;
            cz_backend *b = e->dev[i].be;
            if (n > 1 && strncmp(b->name, "cpu", 3) == 0) { /* "cpu:1 (16 threads)": which one */
                char tmp[sizeof b->name];
                snprintf(tmp, sizeof tmp, "cpu:%d%s", i, b->name + 3);
                memcpy(b->name, tmp, sizeof tmp);
            }
        }
    }
    if (st != CZ_OK) return st;
    const char *fail = getenv("CZ_ENGINE_FAIL_DEVICE");
    int fd = -1;
    unsigned long long fk = 0;
    if (fail && *fail && (sscanf(fail, "%d:%llu", &fd, &fk) != 2 || fd < 0 || fk == 0))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "CZ_ENGINE_FAIL_DEVICE='%s': expected DEVICE:STEP, as in 1:5",
                            fail);
    size_t off = 0;
    if (n > 1) off = (size_t)snprintf(e->dev_names, sizeof e->dev_names, "%d devices: ", n);
    for (int i = 0; i < n; i++) {
        device *d = &e->dev[i];
        d->e = e;
        d->idx = i;
        d->in_service = 1;
        d->be->strict = n > 1; /* a failing GPU's work goes to the others, not to the CPU */
        if (i == fd) d->fail_at = fk;
        if (off < sizeof e->dev_names)
            off += (size_t)snprintf(e->dev_names + off, sizeof e->dev_names - off, "%s%s", i ? ", " : "", d->be->name);
    }
    e->in_service = n;
    return CZ_OK;
}

cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, cz_error *err)
{
    *out = NULL;
    cz_engine *e = calloc(1, sizeof *e);
    if (!e) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    if (cfg)
        e->cfg = *cfg;
    else
        cz_engine_config_default(&e->cfg);
    const char *tl = getenv("CZ_ENGINE_TIMELINE");
    e->timeline = e->cfg.timeline || (tl && *tl == '1');
    e->t0 = cz_now();
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv_synth, NULL);
    pthread_cond_init(&e->cv_gpu, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_done, NULL);
    pthread_cond_init(&e->cv_key, NULL);
    e->key_alloc.alloc = key_alloc;
    e->key_alloc.free = key_free;
    e->key_alloc.ctx = e;
    cz_status st = cz_budget_create(&e->budget, e->cfg.budget_bytes, e->cfg.budget_margin, err);
    if (st == CZ_OK) st = open_devices(e, err);
    if (st == CZ_OK) {
        /* enough synthesis to feed every device, one partition ready for each */
        if (e->cfg.synth_workers <= 0) e->cfg.synth_workers = e->ndev + 1 > 2 ? e->ndev + 1 : 2;
        if (e->cfg.synth_workers > MAX_SYNTH_WORKERS) e->cfg.synth_workers = MAX_SYNTH_WORKERS;
        if (e->cfg.max_ready <= 0) e->cfg.max_ready = e->cfg.synth_workers;
        /* one pool for every device (its pinned memory is portable) */
        cz_backend *b0 = e->dev[0].be;
        const cz_allocator *pa = e->cfg.pin && b0->ops->host_allocator ? b0->ops->host_allocator(b0) : NULL;
        e->pool_pinned = pa != NULL;
        if (e->cfg.pin_keys && b0->ops->host_allocator) e->key_host = b0->ops->host_allocator(b0);
        st = cz_bufpool_create(&e->pool, e->budget, pa, pool_log, NULL, err);
    }
    if (st == CZ_OK) st = cz_budget_add_reclaimer(e->budget, CZ_RECLAIM_KEYS, evict_keys, e);
    if (st == CZ_OK) {
        for (int i = 0; i < e->cfg.synth_workers && st == CZ_OK; i++) {
            if (pthread_create(&e->synth_th[i], NULL, synth_main, e) != 0)
                st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start a synthesis thread");
            else
                e->nsynth++;
        }
        for (int i = 0; i < e->ndev && st == CZ_OK; i++) {
            if (pthread_create(&e->dev[i].th, NULL, gpu_main, &e->dev[i]) != 0)
                st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the worker of device %d", i);
            else
                e->dev[i].started = 1;
        }
        if (st == CZ_OK) {
            if (pthread_create(&e->fin_th, NULL, fin_main, e) != 0)
                st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the finalizer thread");
            else
                e->started_fin = 1;
        }
    }
    if (st != CZ_OK) {
        cz_engine_free(e);
        return st;
    }
    *out = e;
    return CZ_OK;
}

const char *cz_engine_device_name(const cz_engine *e)
{
    if (!e || e->ndev == 0) return "none";
    return e->ndev == 1 ? e->dev[0].be->name : e->dev_names;
}

int cz_engine_device_count(const cz_engine *e) { return e ? e->ndev : 0; }

void cz_engine_stats_get(cz_engine *e, cz_engine_stats *out)
{
    memset(out, 0, sizeof *out);
    cz_budget_stats_get(e->budget, &out->budget);
    cz_bufpool_stats_get(e->pool, &out->pool);
    pthread_mutex_lock(&e->mu);
    out->ndevices = e->ndev;
    out->devices_in_service = e->in_service;
    out->retries = e->retries;
    for (int i = 0; i < e->ndev; i++) {
        const device *d = &e->dev[i];
        cz_engine_device_stats *o = &out->dev[i];
        snprintf(o->name, sizeof o->name, "%s", d->be->name);
        snprintf(o->error, sizeof o->error, "%s", d->error);
        o->in_service = d->in_service;
        o->busy_s = d->busy;
        o->partitions = d->parts;
        o->key_uploads = d->key_uploads;
        out->device_busy_s += d->busy;
    }
    out->uptime_s = cz_now() - e->t0;
    out->pool_pinned = e->pool_pinned;
    out->jobs_done = e->jobs_done;
    out->partitions_done = e->parts_done;
    out->partitions_failed = e->parts_failed;
    out->key_loads = e->key_loads;
    out->key_evictions = e->key_evictions;
    pthread_mutex_unlock(&e->mu);
}

void cz_engine_free(cz_engine *e)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_cond_broadcast(&e->cv_gpu);
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < e->nsynth; i++) pthread_join(e->synth_th[i], NULL);
    for (int i = 0; i < e->ndev; i++)
        if (e->dev[i].started) pthread_join(e->dev[i].th, NULL);
    if (e->started_fin) pthread_join(e->fin_th, NULL);
    while (e->keys) cz_engine_key_remove(e, e->keys);
    cz_bufpool_free(e->pool); /* before the backend whose allocator it used */
    for (int i = 0; i < CZ_ENGINE_MAX_DEVICES; i++)
        if (e->dev[i].be) cz_backend_free(e->dev[i].be);
    cz_budget_free(e->budget);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv_synth);
    pthread_cond_destroy(&e->cv_gpu);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_done);
    pthread_cond_destroy(&e->cv_key);
    free(e);
}
