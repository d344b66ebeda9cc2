/* The proving engine: see engine/engine.h for the design. */
#include "engine/engine.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/devspec.h"
#include "util/timer.h"

#define MAX_SYNTH_WORKERS 64

/* a partition between stages */
typedef struct item {
    cz_job *job;
    size_t idx;
    void *ab; /* a, b (cz_ab_bytes), from the pool */
    size_t ab_got;
    size_t scratch;         /* CZ_MEM_SCRATCH bytes reserved for its device step */
    cz_budget_alloc walloc; /* its witness memory (CZ_MEM_WITNESS) */
    int walloc_init;
    cz_groth16_partial part;
    double t_ready; /* entered its current queue */
    struct item *next;
} item;

struct cz_engine_key {
    cz_engine *e;
    char *path;
    char *canon; /* realpath: registrations of one file share the key */
    int regs;    /* registrations (cz_engine_key_add calls not yet removed) */
    cz_zkey zk;   /* the loaded key (when loaded) */
    cz_zkey info; /* header fields, valid while registered (no tables) */
    int loaded, loading, freeing;
    int refs; /* jobs holding it */
    uint32_t resident; /* bit d: placed in device d's VRAM (a hint: the
                        * backend may drop it under VRAM pressure and upload
                        * it again) */
    size_t vram_ws;    /* lanes: the largest working set a step of this key
                        * asked for in VRAM (the backend's mem_info asked;
                        * without it, what the device kept after the step;
                        * 0: none seen yet) */
    uint64_t last_use;
    size_t bytes;
    cz_budget_alloc ka, ma; /* the loaded key's point tables and matrices */
    char error[256];        /* the last load error */
    cz_engine_key *next;
};

struct cz_job {
    cz_engine *e;
    cz_engine_key *key;
    int priority;
    uint64_t seq, id;
    void *tag;
    cz_engine_event_fn on_event;
    void *event_ctx;
    size_t n, remaining, next_synth; /* partitions next_synth.. not yet taken */
    cz_synth **parts;
    cz_partition_result *res;
    int cancel; /* read by budget waits (as const volatile int *) */
    int done;   /* the job event was delivered */
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
    int busy; /* in a device step */
    int gpu;   /* lanes: the GPU it runs on when another entry shares it, else -1 */
    size_t vram_ws; /* lanes: the working set it held in VRAM after its last step */
    size_t vram_pending; /* lanes: the growth it was admitted with by free VRAM, until its step ends */
    double busy_s;
    uint64_t steps, parts, key_uploads;
    uint64_t lane_waits; /* steps it left to another lane of its GPU: no room in VRAM */
    uint64_t fail_at; /* config fail_step for this device (0: none) */
    char error[256];
} device;

/* a preload request */
typedef struct preload {
    cz_engine_key *k;
    cz_engine_key_fn done;
    void *ctx;
    struct preload *next;
} preload;

struct cz_engine {
    cz_engine_config cfg;
    cz_budget *budget;
    cz_bufpool *pool;
    device dev[CZ_ENGINE_MAX_DEVICES];
    int ndev, in_service;
    char dev_names[256];
    const cz_allocator *key_host; /* where key point tables come from (pinned with pin_keys), NULL: ordinary */
    pthread_mutex_t mu;
    /* Held by whoever reserves memory that it may wait for (synthesis of a
     * partition, a key load): one at a time, so two half-reserved holders
     * never wait for each other. Taken before mu, never while waiting on a
     * condition of mu except cv_key (see key_ensure_locked). */
    pthread_mutex_t reserve_mu;
    /* Lanes: one admission by free VRAM (lane_fits) at a time, so that two
     * lanes are not admitted on the same free memory before either grows.
     * Taken before mu, never with mu held. */
    pthread_mutex_t admit_mu;
    pthread_cond_t cv_synth, cv_gpu, cv_fin, cv_done, cv_key, cv_load;
    cz_job *waiting; /* jobs with partitions not yet in synthesis */
    item *gpu_q, *fin_q;
    int gpu_ready; /* items in gpu_q */
    int pool_pinned;
    cz_engine_key *keys;
    preload *loads, **loads_tail;
    int stop;
    int drain;          /* cz_engine_drain */
    uint64_t in_flight; /* partitions taken by synthesis, not yet ended */
    pthread_t synth_th[MAX_SYNTH_WORKERS], fin_th, load_th;
    int nsynth, started_fin, started_load;
    uint64_t seq, tick;
    double t0;
    uint64_t jobs_done, jobs_active, parts_done, parts_failed, key_loads, key_evictions, retries;
    uint64_t step_ends; /* device steps ended, devices out of service (lanes wait for the next) */
    char last_device_error[384]; /* of the last device taken out of service */
};

const char *cz_partition_stage_name(cz_partition_stage s)
{
    switch (s) {
    case CZ_STAGE_SYNTH: return "synthesis";
    case CZ_STAGE_DEVICE: return "device";
    case CZ_STAGE_FINALIZE: return "finalize";
    }
    return "unknown";
}

/* ---- small helpers ---- */

static void timeline(cz_engine *e, const cz_job *j, size_t idx, const char *what)
{
    if (!e->cfg.timeline) return;
    CZ_LOG(&e->cfg.log, CZ_LOG_DEBUG, "engine", "%9.3f ms job %llu part %zu: %s", (cz_now() - e->t0) * 1e3,
           (unsigned long long)j->seq, idx, what);
}

static void set_result(cz_partition_result *r, cz_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_result(cz_partition_result *r, cz_status st, const char *fmt, ...)
{
    r->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
}

static void emit(cz_job *j, cz_engine_event_kind kind, size_t idx, cz_partition_stage stage, int dev)
{
    if (!j->on_event) return;
    cz_engine_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.job = j;
    ev.job_id = j->id;
    ev.tag = j->tag;
    ev.partition = idx;
    ev.partitions = j->n;
    ev.stage = stage;
    ev.device = dev;
    if (kind == CZ_EVENT_PARTITION) {
        ev.result = &j->res[idx];
        ev.status = j->res[idx].status;
    } else if (kind == CZ_EVENT_JOB) {
        ev.status = cz_job_status(j);
    }
    j->on_event(j->event_ctx, &ev);
}

static void emit_stage(cz_engine *e, cz_job *j, size_t idx, cz_partition_stage stage, int dev)
{
    (void)e;
    emit(j, CZ_EVENT_STAGE, idx, stage, dev);
}

/* Partition idx of j has its result (set by the caller, no lock held):
 * reports it, and the job when it was the last. taken: it had been taken
 * by synthesis (counted in flight). */
static void part_end_(cz_engine *e, cz_job *j, size_t idx, int taken)
{
    pthread_mutex_lock(&e->mu);
    cz_partition_result *r = &j->res[idx];
    r->t.total_s = cz_now() - j->t_submit;
    if (taken) e->in_flight--;
    if (r->status == CZ_OK)
        e->parts_done++;
    else
        e->parts_failed++;
    pthread_mutex_unlock(&e->mu);
    emit(j, CZ_EVENT_PARTITION, idx, CZ_STAGE_FINALIZE, -1);
    pthread_mutex_lock(&e->mu);
    int last = --j->remaining == 0;
    if (last) {
        j->key->refs--;
        j->key->last_use = ++e->tick;
        e->jobs_done++;
        e->jobs_active--;
    }
    pthread_mutex_unlock(&e->mu);
    if (!last) return;
    emit(j, CZ_EVENT_JOB, 0, CZ_STAGE_FINALIZE, -1);
    pthread_mutex_lock(&e->mu);
    j->done = 1;
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
}

static void part_end(cz_engine *e, cz_job *j, size_t idx) { part_end_(e, j, idx, 1); }

static int job_cancelled(const cz_job *j) { return __atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE); }

/* n bytes in a short unit ("129.6 KiB"), into buf */
static const char *hbytes(char buf[24], size_t n)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    snprintf(buf, 24, i ? "%.1f %s" : "%.0f %s", v, u[i]);
    return buf;
}

/* ---- keys: loaded through budgeted allocators ---- */

/* The most bytes a backend of e allocates in host memory for a proof with
 * key info zi (reserved per partition, CZ_MEM_SCRATCH). */
static size_t scratch_need(cz_engine *e, const cz_zkey *zi)
{
    size_t n = zi->n_vars > zi->domain_size ? zi->n_vars : zi->domain_size, m = 0;
    for (int d = 0; d < e->ndev; d++) {
        size_t s = cz_backend_scratch_bytes(e->dev[d].be, zi->curve, zi->log_domain, n);
        if (s > m) m = s;
    }
    return m;
}

/* Loads k unless loaded; the caller holds reserve_mu. CZ_OK when loaded.
 * timeout_s and cancel bound the waits for memory (a preload does not wait:
 * what holds the memory may need reserve_mu to let it go; a job's load waits
 * until its job is cancelled). */
static cz_status key_ensure_locked(cz_engine *e, cz_engine_key *k, double *load_s, double timeout_s,
                                   const volatile int *cancel, cz_error *err)
{
    pthread_mutex_lock(&e->mu);
    /* loading is only set by a holder of reserve_mu (us); freeing by an
     * eviction, which ends without waiting for anything */
    while (k->loading || k->freeing) pthread_cond_wait(&e->cv_key, &e->mu);
    if (k->loaded) {
        pthread_mutex_unlock(&e->mu);
        return CZ_OK;
    }
    const size_t limit = cz_budget_limit(e->budget);
    if (k->bytes > limit) { /* the whole key can never fit: say so before any piece waits */
        char b1[24], b2[24];
        cz_status st = cz_error_set(err, CZ_ERR_BUDGET,
                                    "%s: the key does not fit the memory budget: it needs %zu bytes (%s); the budget "
                                    "is %zu bytes (%s)",
                                    k->path, k->bytes, hbytes(b1, k->bytes), limit, hbytes(b2, limit));
        snprintf(k->error, sizeof k->error, "%s", cz_error_msg(err));
        pthread_mutex_unlock(&e->mu);
        return st;
    }
    k->loading = 1;
    pthread_mutex_unlock(&e->mu);
    double t = cz_now();
    cz_budget_alloc_init(&k->ka, e->budget, CZ_MEM_KEY, e->key_host);
    cz_budget_alloc_init(&k->ma, e->budget, CZ_MEM_MATRIX, NULL);
    cz_budget_alloc_join(&k->ma, &k->ka);
    k->ka.timeout_s = k->ma.timeout_s = timeout_s;
    k->ka.cancel = k->ma.cancel = cancel;
    cz_zkey_opts o;
    memset(&o, 0, sizeof o);
    o.alloc = &k->ka.a;
    o.matrix_alloc = &k->ma.a;
    cz_zkey zk;
    cz_error lerr;
    cz_error_clear(&lerr);
    cz_status st = cz_zkey_load(&zk, k->path, &o, &lerr);
    const cz_error *refusal = k->ka.refusal.status != CZ_OK ? &k->ka.refusal : &k->ma.refusal;
    if (st != CZ_OK && refusal->status != CZ_OK) {
        /* the whole need, not the piece that was refused */
        const size_t limit = cz_budget_limit(e->budget), used = cz_budget_used(e->budget);
        const size_t mat = (size_t)(2 * ((uint64_t)k->info.domain_size + 1) * 8 + k->info.n_coef * 36);
        char b1[24], b2[24], b3[24], b4[24], b5[24];
        st = cz_error_set(err, refusal->status,
                          "%s: the key does not fit the memory budget: it needs %zu bytes (%s: point tables %s, "
                          "matrices %s); the budget is %zu bytes (%s), %s of it held by other consumers",
                          k->path, k->bytes, hbytes(b1, k->bytes), hbytes(b2, k->bytes > mat ? k->bytes - mat : 0),
                          hbytes(b3, mat), limit, hbytes(b4, limit), hbytes(b5, used));
    }
    else if (st != CZ_OK)
        cz_error_set(err, st, "%s", cz_error_msg(&lerr));
    if (load_s) *load_s += cz_now() - t;
    pthread_mutex_lock(&e->mu);
    k->loading = 0;
    if (st == CZ_OK) {
        k->zk = zk;
        k->loaded = 1;
        k->bytes = zk.bytes;
        k->error[0] = '\0';
        e->key_loads++;
    } else {
        snprintf(k->error, sizeof k->error, "%s", cz_error_msg(err));
    }
    pthread_cond_broadcast(&e->cv_key);
    pthread_mutex_unlock(&e->mu);
    return st;
}

static cz_status key_ensure(cz_engine *e, cz_engine_key *k, double *load_s, double timeout_s, cz_error *err)
{
    pthread_mutex_lock(&e->reserve_mu);
    cz_status st = key_ensure_locked(e, k, load_s, timeout_s, NULL, err);
    pthread_mutex_unlock(&e->reserve_mu);
    return st;
}

/* Frees the VRAM copies of a key on the devices of mask `resident`. */
static void drop_resident(cz_engine *e, const cz_zkey *zk, uint32_t resident)
{
    for (int d = 0; d < e->ndev; d++)
        if (resident & ((uint32_t)1 << d)) cz_groth16_drop_resident(e->dev[d].be, zk);
}

/* Under e->mu: the idle loaded key used least recently (NULL: none). */
static cz_engine_key *idle_key_locked(cz_engine *e, const cz_engine_key *except)
{
    cz_engine_key *victim = NULL;
    for (cz_engine_key *k = e->keys; k; k = k->next)
        if (k != except && k->loaded && !k->loading && !k->freeing && k->refs == 0 &&
            (!victim || k->last_use < victim->last_use))
            victim = k;
    return victim;
}

/* Budget reclaimer, stage CZ_RECLAIM_KEYS: unload idle keys, least recently
 * used first. */
static size_t evict_keys(void *ctx, size_t need)
{
    cz_engine *e = ctx;
    size_t freed = 0;
    while (freed < need) {
        pthread_mutex_lock(&e->mu);
        cz_engine_key *victim = idle_key_locked(e, NULL);
        if (!victim) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        cz_zkey zk = victim->zk;
        uint32_t resident = victim->resident;
        victim->loaded = 0;
        victim->freeing = 1; /* nobody reloads it while it is being freed */
        victim->resident = 0;
        memset(&victim->zk, 0, sizeof victim->zk);
        e->key_evictions++;
        pthread_mutex_unlock(&e->mu);
        drop_resident(e, &zk, resident);
        size_t b = zk.bytes;
        cz_zkey_free(&zk);
        freed += b;
        pthread_mutex_lock(&e->mu);
        victim->freeing = 0;
        pthread_cond_broadcast(&e->cv_key);
        pthread_mutex_unlock(&e->mu);
    }
    return freed;
}

cz_status cz_engine_key_register(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err)
{
    *out = NULL;
    if (!e || !path) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_key_register: NULL argument");
    /* the header first: a file that is not a key fails here, whatever else is registered */
    cz_zkey hdr;
    cz_zkey_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.header_only = 1;
    cz_status st = cz_zkey_load(&hdr, path, &ho, err);
    if (st != CZ_OK) return st;
    const cz_zkey facts = hdr; /* the header fields (pointers cleared below) */
    cz_zkey_free(&hdr);        /* the IC table */
    char *canon = realpath(path, NULL);
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
        k->info = facts;
        k->info.ic = k->info.a = k->info.b1 = k->info.b2 = k->info.c = k->info.h = NULL;
        memset(&k->info.A, 0, sizeof k->info.A);
        memset(&k->info.B, 0, sizeof k->info.B);
        k->bytes = (size_t)cz_zkey_expected_bytes(&facts);
        k->last_use = ++e->tick;
        k->next = e->keys;
        e->keys = k;
    }
    pthread_mutex_unlock(&e->mu);
    *out = k;
    return CZ_OK;
}

cz_status cz_engine_key_add(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err)
{
    cz_engine_key *k;
    cz_status st = cz_engine_key_register(e, path, &k, err);
    if (st != CZ_OK) {
        *out = NULL;
        return st;
    }
    /* loads it, or waits for a load in progress by another registration */
    if ((st = key_ensure(e, k, NULL, -1, err)) != CZ_OK) {
        cz_engine_key_remove(e, k);
        *out = NULL;
        return st;
    }
    pthread_mutex_lock(&e->mu);
    k->last_use = ++e->tick;
    pthread_mutex_unlock(&e->mu);
    *out = k;
    return CZ_OK;
}

static void *load_main(void *arg)
{
    cz_engine *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        while (!e->loads && !e->stop) pthread_cond_wait(&e->cv_load, &e->mu);
        preload *p = e->loads;
        if (p) {
            e->loads = p->next;
            if (!e->loads) e->loads_tail = &e->loads;
        }
        int stop = e->stop;
        pthread_mutex_unlock(&e->mu);
        if (!p) return NULL;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = stop ? cz_error_set(&err, CZ_ERR_CANCELLED, "the engine is shutting down")
                            : key_ensure(e, p->k, NULL, 0, &err); /* no waiting: see key_ensure_locked */
        if (st == CZ_OK)
            CZ_LOG(&e->cfg.log, CZ_LOG_INFO, "engine", "key %s loaded (%zu MiB)", p->k->path, p->k->bytes >> 20);
        if (p->done) p->done(p->ctx, p->k, st, st == CZ_OK ? "" : cz_error_msg(&err));
        cz_engine_key_remove(e, p->k); /* the preload's registration (the last one frees the key) */
        free(p);
    }
}

cz_status cz_engine_key_preload(cz_engine *e, cz_engine_key *k, cz_engine_key_fn done, void *ctx, cz_error *err)
{
    preload *p = calloc(1, sizeof *p);
    if (!p) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    p->k = k;
    p->done = done;
    p->ctx = ctx;
    pthread_mutex_lock(&e->mu);
    if (e->stop) {
        pthread_mutex_unlock(&e->mu);
        free(p);
        return cz_error_set(err, CZ_ERR_CANCELLED, "the engine is shutting down");
    }
    k->regs++; /* a registration of its own: the caller may remove the key meanwhile */
    *e->loads_tail = p;
    e->loads_tail = &p->next;
    pthread_cond_signal(&e->cv_load);
    pthread_mutex_unlock(&e->mu);
    return CZ_OK;
}

cz_engine_key_state cz_engine_key_state_get(cz_engine *e, const cz_engine_key *k)
{
    pthread_mutex_lock(&e->mu);
    cz_engine_key_state s = k->loading ? CZ_KEY_LOADING : k->loaded ? CZ_KEY_LOADED : CZ_KEY_UNLOADED;
    pthread_mutex_unlock(&e->mu);
    return s;
}

void cz_engine_key_error(cz_engine *e, const cz_engine_key *k, char *buf, size_t cap)
{
    pthread_mutex_lock(&e->mu);
    snprintf(buf, cap, "%s", k->error);
    pthread_mutex_unlock(&e->mu);
}

size_t cz_engine_key_bytes(const cz_engine_key *k) { return k->bytes; }
const cz_zkey *cz_engine_key_info(const cz_engine_key *k) { return &k->info; }
const char *cz_engine_key_path(const cz_engine_key *k) { return k->path; }

int cz_engine_key_jobs(cz_engine *e, const cz_engine_key *k)
{
    pthread_mutex_lock(&e->mu);
    int r = k->refs;
    pthread_mutex_unlock(&e->mu);
    return r;
}

uint32_t cz_engine_key_resident(cz_engine *e, const cz_engine_key *k)
{
    pthread_mutex_lock(&e->mu);
    uint32_t r = k->resident;
    pthread_mutex_unlock(&e->mu);
    return r;
}

size_t cz_engine_key_vram_need(cz_engine *e, const cz_engine_key *k)
{
    pthread_mutex_lock(&e->mu);
    size_t r = k->vram_ws;
    pthread_mutex_unlock(&e->mu);
    return r;
}

void cz_engine_key_remove(cz_engine *e, cz_engine_key *k)
{
    if (!k) return;
    pthread_mutex_lock(&e->mu);
    if (--k->regs > 0) { /* another registration holds it */
        pthread_mutex_unlock(&e->mu);
        return;
    }
    while (k->loading || k->freeing) pthread_cond_wait(&e->cv_key, &e->mu);
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

/* ---- admission ---- */

/* the bytes one partition of a job needs besides its key */
static size_t partition_need(cz_engine *e, const cz_zkey *zi, size_t witness_bytes)
{
    return cz_ab_bytes(zi->domain_size) + witness_bytes + scratch_need(e, zi);
}

cz_status cz_engine_admit(cz_engine *e, cz_engine_key *k, size_t witness_bytes, cz_engine_admission *out)
{
    memset(out, 0, sizeof *out);
    if (!e || !k) return CZ_ERR_INVALID_ARG;
    const size_t part = partition_need(e, &k->info, witness_bytes), limit = cz_budget_limit(e->budget);
    cz_bufpool_stats ps;
    cz_bufpool_stats_get(e->pool, &ps);
    size_t used = cz_budget_used(e->budget);
    pthread_mutex_lock(&e->mu);
    const int loaded = k->loaded;
    size_t idle_keys = 0;
    for (cz_engine_key *q = e->keys; q; q = q->next)
        if (q != k && q->loaded && !q->loading && !q->freeing && q->refs == 0) idle_keys += q->bytes;
    out->devices_in_service = e->in_service;
    out->key_bytes = loaded ? 0 : k->bytes;
    pthread_mutex_unlock(&e->mu);
    out->limit = limit;
    out->fits = k->bytes + part <= limit;
    out->need = out->key_bytes + part;
    out->available = (used < limit ? limit - used : 0) + ps.idle + idle_keys;
    out->missing = out->need > out->available ? out->need - out->available : 0;
    out->can_start = out->fits && out->missing == 0 && out->devices_in_service > 0;
    return CZ_OK;
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

/* Gives back the item's device-step memory: its pool buffer and scratch. */
static void item_drop_device_mem(cz_engine *e, item *it)
{
    if (it->ab) cz_bufpool_put(e->pool, it->ab);
    it->ab = NULL;
    if (it->scratch) cz_budget_release(e->budget, CZ_MEM_SCRATCH, it->scratch);
    it->scratch = 0;
}

/* Frees the item with everything it holds (the witness through its synth). */
static void item_free(cz_engine *e, item *it)
{
    item_drop_device_mem(e, it);
    cz_synth_release(it->job->parts[it->idx]);
    if (it->walloc_init) cz_budget_alloc_drop_prepaid(&it->walloc);
    free(it);
}

/* Ends an item with a failure (or cancellation). */
static void fail_item(cz_engine *e, item *it, cz_status st, const char *msg)
{
    cz_job *j = it->job;
    size_t idx = it->idx;
    item_free(e, it);
    set_result(&j->res[idx], st, "%s", msg);
    part_end(e, j, idx);
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

/* Takes the memory of item it (key loaded, scratch, witness prepaid, a/b/c
 * buffer) under reserve_mu; CZ_OK or the failure in err. */
static cz_status reserve_partition(cz_engine *e, item *it, cz_error *err)
{
    cz_job *j = it->job;
    cz_partition_result *r = &j->res[it->idx];
    cz_synth_info si;
    cz_status st = cz_synth_info_get(j->parts[it->idx], &si, err);
    if (st != CZ_OK) return st;
    pthread_mutex_lock(&e->reserve_mu);
    st = key_ensure_locked(e, j->key, &r->t.key_load_s, -1, &j->cancel, err);
    const cz_zkey *zk = &j->key->zk; /* loaded: the job's reference keeps it */
    if (st == CZ_OK) {
        size_t s = scratch_need(e, zk);
        st = cz_budget_reserve(e->budget, CZ_MEM_SCRATCH, s, -1, &j->cancel, err);
        if (st == CZ_OK) it->scratch = s;
    }
    if (st == CZ_OK) {
        cz_budget_alloc_init(&it->walloc, e->budget, CZ_MEM_WITNESS, NULL);
        it->walloc.cancel = &j->cancel;
        it->walloc_init = 1;
        st = cz_budget_alloc_prepay(&it->walloc, si.witness_bytes, err);
    }
    /* the working set: waits here while the budget is full (this is
     * what bounds how far synthesis runs ahead of the device) */
    if (st == CZ_OK) st = cz_bufpool_get(e->pool, cz_ab_bytes(zk->domain_size), &it->ab, &it->ab_got, -1, &j->cancel, err);
    if (st != CZ_OK) it->ab = NULL;
    pthread_mutex_unlock(&e->reserve_mu);
    return st;
}

/* a, b of it into its buffer (witness prepared first) */
static cz_status synthesize(cz_engine *e, item *it, cz_error *err)
{
    (void)e;
    cz_job *j = it->job;
    cz_synth *s = j->parts[it->idx];
    cz_status st = cz_synth_prepare(s, &it->walloc.a, err);
    if (st == CZ_OK) st = cz_synth_ab(s, &j->key->zk, it->ab, NULL, err);
    return st;
}

static void *synth_main(void *arg)
{
    cz_engine *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        cz_job *j = NULL;
        /* a partition to synthesize, unless enough wait for the device */
        while ((e->drain || !(j = pick_job_locked(e)) || e->gpu_ready >= e->cfg.max_ready) && !e->stop)
            pthread_cond_wait(&e->cv_synth, &e->mu);
        if (e->stop) {
            pthread_mutex_unlock(&e->mu);
            return NULL;
        }
        size_t idx = j->next_synth++;
        e->in_flight++;
        if (j->next_synth == j->n) unlink_waiting_locked(e, j);
        pthread_mutex_unlock(&e->mu);

        cz_partition_result *r = &j->res[idx];
        r->t.queue_s = cz_now() - j->t_submit;
        item *it = calloc(1, sizeof *it);
        if (!it) {
            set_result(r, CZ_ERR_NO_MEMORY, "out of memory");
            part_end(e, j, idx);
            continue;
        }
        it->job = j;
        it->idx = idx;
        if (job_cancelled(j)) {
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        if (fail_if_no_device(e, it)) continue;
        emit_stage(e, j, idx, CZ_STAGE_SYNTH, -1);
        cz_error err;
        cz_error_clear(&err);
        cz_status st = reserve_partition(e, it, &err);
        if (st != CZ_OK) {
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        timeline(e, j, idx, "synthesis start");
        double t = cz_now();
        if ((st = synthesize(e, it, &err)) != CZ_OK) {
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        r->t.synth_s = cz_now() - t;
        r->t.ab_bytes = cz_ab_bytes(j->key->zk.domain_size);
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
    e->step_ends++; /* a lane that left its steps to d takes them now */
    pthread_cond_broadcast(&e->cv_gpu);
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
    CZ_LOG(&e->cfg.log, CZ_LOG_WARN, "engine", "%s taken out of service after a device error (%s); %d device%s left%s",
           d->be->name, d->error, left, left == 1 ? "" : "s", left ? ", its partition goes to another" : "");
    it->job->res[it->idx].t.retries++;
    if (left == 0) {
        it->next = orphans;
        orphans = it;
        while (orphans) {
            item *next = orphans->next;
            fail_item(e, orphans, CZ_ERR_NO_DEVICE, m.s);
            orphans = next;
        }
        return;
    }
    /* the failed step may have clobbered a, b (the H step works in place) */
    cz_error serr;
    cz_error_clear(&serr);
    double t = cz_now();
    cz_status st = cz_synth_ab(it->job->parts[it->idx], &it->job->key->zk, it->ab, NULL, &serr);
    it->job->res[it->idx].t.synth_s += cz_now() - t;
    if (st != CZ_OK) {
        fail_item(e, it, st, cz_error_msg(&serr));
        return;
    }
    pthread_mutex_lock(&e->mu);
    e->retries++;
    pthread_mutex_unlock(&e->mu);
    timeline(e, it->job, it->idx, "synthesized again for another device");
    to_gpu_queue(e, it);
}

/* ---- lanes: entries of one GPU (`cuda:0,0`) ----
 *
 * Lanes share the key's copy in VRAM (mem/resident.h), but each keeps its
 * own working set (scratch, grown to its largest step and kept). A working
 * set that VRAM cannot hold beside what is there would evict the key or its
 * tables to make room, which costs far more than a second step at once
 * gains. So a lane takes a step of key k only when
 *   - it holds a working set as large as k's steps ask for (k->vram_ws:
 *     measured on each step, from the backend's mark to its mem_info's
 *     asked, so a small key is not charged what a large one grew a lane
 *     to), or
 *   - the device's free memory covers its growth to that plus the step's
 *     own blocks (witness and H result) and a margin, less the growth other
 *     lanes were admitted with and may not have allocated yet (admissions
 *     by free memory one at a time, admit_mu), or
 *   - no other lane in service holds such a working set (someone must);
 * and, while k->vram_ws is not known yet (k's first step on the GPU), only
 * when no other lane is in a step or holds a larger working set. Else the
 * step goes back to the queue, where a lane that holds the room takes it,
 * and the lane waits for a step to end. With room for one working set, one
 * lane does the work, as a single entry would. */

/* Under e->mu: 1 when lane d may take a step of key k now; 0: leave it to
 * another lane; -1: it depends on the device's free memory (lane_fits). */
static int lane_admit_locked(const cz_engine *e, const device *d, const cz_engine_key *k)
{
    if (d->gpu < 0) return 1;
    const size_t need = k->vram_ws;
    int busy = 0, larger = 0, holder = 0;
    for (int i = 0; i < e->ndev; i++) {
        const device *o = &e->dev[i];
        if (i == d->idx || o->gpu != d->gpu || !o->in_service) continue;
        busy |= o->busy;
        larger |= o->vram_ws > d->vram_ws;
        holder |= need && o->vram_ws >= need;
    }
    if (!need) return !busy && !larger;
    if (d->vram_ws >= need || !holder) return 1;
    return -1;
}

/* Under e->mu: d's step is over (done, failed or cancelled); a lane that
 * left a step to another may try again. */
static void step_ended_locked(cz_engine *e, device *d)
{
    d->busy = 0;
    d->vram_pending = 0; /* grown by now: the device's free memory shows it */
    e->step_ends++;
    if (d->gpu >= 0) pthread_cond_broadcast(&e->cv_gpu);
}

/* Under e->mu: the bits of d and of the other lanes of its GPU. */
static uint32_t lane_mask_locked(const cz_engine *e, const device *d)
{
    uint32_t m = (uint32_t)1 << d->idx;
    for (int i = 0; d->gpu >= 0 && i < e->ndev; i++)
        if (e->dev[i].gpu == d->gpu) m |= (uint32_t)1 << i;
    return m;
}

/* d's device memory now into *m; 0 when the backend does not report it. */
static int lane_mem(device *d, cz_backend_mem *m)
{
    memset(m, 0, sizeof *m);
    return d->be->ops->mem_info && d->be->ops->mem_info(d->be, m, NULL) == CZ_OK;
}

/* Under e->mu: the growth the other lanes of d's GPU were admitted with
 * and may not have allocated yet. */
static size_t lane_pending_locked(const cz_engine *e, const device *d)
{
    size_t p = 0;
    for (int i = 0; i < e->ndev; i++)
        if (i != d->idx && e->dev[i].gpu == d->gpu) p += e->dev[i].vram_pending;
    return p;
}

/* 1 when VRAM holds d's working set for a step of key k (need bytes) next
 * to what is there now and the growth other lanes were admitted with
 * (pending); *growth: what d grows by (no mem_info: 1, nothing to go by). */
static int lane_fits(device *d, const cz_engine_key *k, size_t need, size_t pending, size_t *growth)
{
    cz_backend_mem m;
    *growth = 0;
    if (!lane_mem(d, &m) || m.scratch >= need) return 1;
    const size_t blocks = ((size_t)k->info.n_vars + k->info.domain_size) * 32 + ((size_t)256 << 20);
    *growth = need - m.scratch;
    return m.free >= pending && m.free - pending >= *growth + blocks;
}

/* Before a step on lane d: a new measure of what it asks for. */
static void lane_mark(device *d)
{
    if (d->gpu >= 0 && d->be->ops->mem_mark) d->be->ops->mem_mark(d->be);
}

/* After a step of key k on lane d: the working set d holds now, and what
 * the step asked for (k's need; the held one where the backend does not
 * measure it). */
static void lane_note(cz_engine *e, device *d, cz_engine_key *k)
{
    cz_backend_mem m;
    if (d->gpu < 0 || !lane_mem(d, &m)) return;
    const size_t need = m.asked ? m.asked : m.scratch;
    pthread_mutex_lock(&e->mu);
    d->vram_ws = m.scratch;
    if (need > k->vram_ws) k->vram_ws = need;
    pthread_mutex_unlock(&e->mu);
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
        int ok = lane_admit_locked(e, d, it->job->key);
        if (ok < 0) { /* the key stays loaded: it->job holds it */
            const size_t need = it->job->key->vram_ws;
            pthread_mutex_unlock(&e->mu);
            pthread_mutex_lock(&e->admit_mu);
            pthread_mutex_lock(&e->mu);
            const size_t pending = lane_pending_locked(e, d);
            pthread_mutex_unlock(&e->mu);
            size_t growth;
            ok = lane_fits(d, it->job->key, need, pending, &growth);
            pthread_mutex_lock(&e->mu);
            if (ok) d->vram_pending = growth;
            pthread_mutex_unlock(&e->admit_mu);
        }
        if (!ok) { /* back to the queue (taken by priority and age, not place) */
            it->next = e->gpu_q;
            e->gpu_q = it;
            d->lane_waits++;
            const uint64_t ends = e->step_ends;
            pthread_cond_broadcast(&e->cv_gpu);
            while (e->step_ends == ends && !e->stop) pthread_cond_wait(&e->cv_gpu, &e->mu);
            pthread_mutex_unlock(&e->mu);
            continue;
        }
        e->gpu_ready--;
        d->busy = 1;
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
            pthread_mutex_lock(&e->mu);
            step_ended_locked(e, d);
            pthread_mutex_unlock(&e->mu);
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        emit_stage(e, j, it->idx, CZ_STAGE_DEVICE, d->idx);
        cz_prove_opts o;
        memset(&o, 0, sizeof o);
        o.backend = d->be;
        o.keep_resident = 1; /* dropped when the key is evicted or removed */
        cz_error err;
        cz_error_clear(&err);
        const cz_zkey *zk = &key->zk; /* held: the job's reference keeps it loaded */
        const size_t each = (size_t)zk->domain_size * 32;
        uint8_t *ab = it->ab;
        timeline(e, j, it->idx, "device start");
        lane_mark(d);
        double t = cz_now();
        cz_status st;
        if (d->fail_at && step == d->fail_at)
            st = cz_error_set(&err, CZ_ERR_CUDA, "injected failure at device step %llu (fail_step)",
                              (unsigned long long)step);
        else
            st = cz_groth16_device(&it->part, zk, cz_synth_witness(j->parts[it->idx]), ab, ab + each, NULL, &o,
                                   &r->t.stages, &err); /* c = a o b: the backend's */
        double dt = cz_now() - t;
        timeline(e, j, it->idx, st == CZ_OK ? "device done" : "device failed");
        if (st == CZ_OK) lane_note(e, d, key);
        pthread_mutex_lock(&e->mu);
        d->busy_s += dt;
        step_ended_locked(e, d);
        pthread_mutex_unlock(&e->mu);
        if (st != CZ_OK && e->ndev > 1 && cz_backend_device_error(st)) {
            device_failed(e, d, it, &err);
            return NULL; /* this device is done */
        }
        item_drop_device_mem(e, it);
        if (st != CZ_OK) {
            fail_item(e, it, st, cz_error_msg(&err));
            continue;
        }
        r->t.device_s = dt;
        r->t.device = d->idx;
        pthread_mutex_lock(&e->mu);
        d->parts++;
        if (!placed && !(key->resident & bit)) {
            key->resident |= lane_mask_locked(e, d); /* the lanes of its GPU share the copy */
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
        const size_t idx = it->idx;
        cz_partition_result *r = &j->res[idx];
        if (job_cancelled(j)) {
            fail_item(e, it, CZ_ERR_CANCELLED, "cancelled");
            continue;
        }
        emit_stage(e, j, idx, CZ_STAGE_FINALIZE, -1);
        cz_prove_opts o;
        memset(&o, 0, sizeof o);
        o.skip_verify = !e->cfg.verify;
        cz_error err;
        cz_error_clear(&err);
        double t = cz_now();
        cz_prove_timings ft;
        memset(&ft, 0, sizeof ft);
        /* the key is loaded: the job's reference keeps it from eviction */
        cz_status st =
            cz_groth16_finalize(&r->proof, &j->key->zk, cz_synth_witness(j->parts[idx]), &it->part, &o, &ft, &err);
        r->t.finalize_s = cz_now() - t;
        r->t.stages.finalize = ft.finalize;
        r->t.stages.verify = ft.verify;
        timeline(e, j, idx, st == CZ_OK ? "finalized" : "failed verification");
        if (st == CZ_OK) { /* the public signals, before the witness goes */
            const cz_wtns *w = cz_synth_witness(j->parts[idx]);
            const size_t np = j->key->zk.n_public;
            if (np && !(r->pub = malloc(np * 32))) {
                st = cz_error_set(&err, CZ_ERR_NO_MEMORY, "out of memory for the public signals");
            } else if (np) {
                memcpy(r->pub, (const uint8_t *)w->values + 32, np * 32);
                r->n_pub = np;
            }
        }
        item_free(e, it);
        if (st == CZ_OK)
            r->status = CZ_OK;
        else
            set_result(r, st, "%s", cz_error_msg(&err));
        part_end(e, j, idx);
    }
}

/* ---- jobs ---- */

cz_status cz_engine_submit_job(cz_engine *e, const cz_job_spec *spec, cz_job **out, cz_error *err)
{
    *out = NULL;
    if (!e || !spec || !spec->key || !spec->parts || spec->n == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_submit_job: no key or no partitions");
    cz_engine_key *key = spec->key;
    const size_t n = spec->n;
    size_t wmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (!spec->parts[i])
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_submit_job: partition %zu has no input", i);
        cz_status st = cz_synth_check(spec->parts[i], &key->info, key->path, err);
        if (st != CZ_OK) return st;
        cz_synth_info si;
        if ((st = cz_synth_info_get(spec->parts[i], &si, err)) != CZ_OK) return st;
        if (si.witness_bytes > wmax) wmax = si.witness_bytes;
    }
    const size_t ab = cz_ab_bytes(key->info.domain_size), scratch = scratch_need(e, &key->info);
    const size_t need = key->bytes + ab + wmax + scratch, limit = cz_budget_limit(e->budget);
    no_device_msg m;
    pthread_mutex_lock(&e->mu);
    int none = no_device_locked(e, &m);
    pthread_mutex_unlock(&e->mu);
    if (none) return cz_error_set(err, CZ_ERR_NO_DEVICE, "%s", m.s);
    if (need > limit)
        return cz_error_set(err, CZ_ERR_BUDGET,
                            "the job needs %zu bytes (%zu MiB: key %zu MiB + working set %zu MiB + witness %zu MiB + "
                            "scratch %zu MiB) at least; the memory budget is %zu bytes (%zu MiB)",
                            need, need >> 20, key->bytes >> 20, ab >> 20, wmax >> 20, scratch >> 20, limit,
                            limit >> 20);
    cz_job *j = calloc(1, sizeof *j);
    cz_synth **parts = calloc(n, sizeof *parts);
    cz_partition_result *res = calloc(n, sizeof *res);
    if (!j || !parts || !res) {
        free(j);
        free(parts);
        free(res);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    memcpy(parts, spec->parts, n * sizeof *parts);
    j->e = e;
    j->key = key;
    j->priority = spec->priority;
    j->id = spec->id;
    j->tag = spec->tag;
    j->on_event = spec->on_event;
    j->event_ctx = spec->event_ctx;
    j->n = j->remaining = n;
    j->parts = parts;
    j->res = res;
    j->t_submit = cz_now();
    pthread_mutex_lock(&e->mu);
    j->seq = ++e->seq;
    key->refs++;
    key->last_use = ++e->tick;
    e->jobs_active++;
    j->next_waiting = e->waiting;
    e->waiting = j;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->mu);
    *out = j;
    return CZ_OK;
}

cz_status cz_engine_submit(cz_engine *e, cz_engine_key *key, const cz_wtns *const *witnesses, size_t n, int priority,
                           cz_job **out, cz_error *err)
{
    *out = NULL;
    if (!e || !key || !witnesses || n == 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_submit: no key or no partitions");
    cz_synth **parts = calloc(n, sizeof *parts);
    if (!parts) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    cz_status st = CZ_OK;
    for (size_t i = 0; i < n && st == CZ_OK; i++) {
        char name[48];
        snprintf(name, sizeof name, "the witness of partition %zu", i);
        if (!witnesses[i])
            st = cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_engine_submit: %s is NULL", name);
        else
            st = cz_synth_borrow_wtns(&parts[i], witnesses[i], name, err);
    }
    if (st == CZ_OK) {
        cz_job_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.key = key;
        spec.parts = parts;
        spec.n = n;
        spec.priority = priority;
        st = cz_engine_submit_job(e, &spec, out, err);
    }
    if (st != CZ_OK)
        for (size_t i = 0; i < n; i++) cz_synth_free(parts[i]);
    free(parts);
    return st;
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

int cz_job_done(const cz_job *j)
{
    pthread_mutex_lock(&j->e->mu);
    int d = j->done;
    pthread_mutex_unlock(&j->e->mu);
    return d;
}

uint64_t cz_job_id(const cz_job *j) { return j->id; }

void cz_job_cancel(cz_job *j)
{
    cz_engine *e = j->e;
    __atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&e->mu);
    /* partitions not yet taken by synthesis end now */
    size_t from = j->next_synth, to = j->n;
    if (from < to) {
        unlink_waiting_locked(e, j);
        j->next_synth = to;
    }
    pthread_mutex_unlock(&e->mu);
    for (size_t idx = from; idx < to; idx++) {
        set_result(&j->res[idx], CZ_ERR_CANCELLED, "cancelled");
        part_end_(e, j, idx, 0);
    }
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
    for (size_t i = 0; i < j->n; i++) {
        cz_synth_free(j->parts[i]);
        free(j->res[i].pub);
    }
    free(j->parts);
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

/* Opens the devices of the configuration. */
static cz_status open_devices(cz_engine *e, cz_error *err)
{
    const cz_engine_config *c = &e->cfg;
    int n = 0;
    cz_status st = CZ_OK;
    cz_backend_opts bo = c->backend;
    bo.budget = e->budget;
    bo.log = &e->cfg.log;
    bo.pool = NULL;
    if (c->make_backend) {
        if (c->gpus <= 0 || c->gpus > CZ_ENGINE_MAX_DEVICES)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "make_backend: gpus must be 1 to %d", CZ_ENGINE_MAX_DEVICES);
        n = c->gpus;
        for (int i = 0; i < n && st == CZ_OK; i++)
            if ((st = c->make_backend(c->make_backend_ctx, i, &e->dev[i].be, err)) == CZ_OK) e->ndev++;
    } else {
        cz_devspec ds;
        if ((st = cz_devspec_parse(&ds, c->device, c->gpus, cz_backend_gpu_count(), CZ_ENGINE_MAX_DEVICES, err)) !=
            CZ_OK)
            return st;
        if (c->gpu_lanes < 0 || c->gpu_lanes > CZ_DEVSPEC_PER_GPU)
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "gpu_lanes %d: expected 1 to %d (0: %d)", c->gpu_lanes,
                                CZ_DEVSPEC_PER_GPU, CZ_ENGINE_GPU_LANES);
        cz_devspec_lanes(&ds, c->gpu_lanes ? c->gpu_lanes : CZ_ENGINE_GPU_LANES, CZ_ENGINE_MAX_DEVICES);
        n = ds.n;
        /* one GPU (an entry, or several entries of it): a failed step is
         * rerun on the CPU; several GPUs: the partition moves to another */
        bo.fallback = n == 1 || cz_devspec_gpus(&ds) == 1; /* (a spec is all CPU or all GPU) */
        for (int i = 0; i < n && st == CZ_OK; i++) {
            if (ds.dev[i].cuda) {
                if (bo.fallback) {
                    char spec[32];
                    st = cz_backend_create(&e->dev[i].be, cz_devspec_entry_name(&ds, i, spec, sizeof spec), &bo,
                                           err);
                } else {
                    st = cz_backend_cuda_create(&e->dev[i].be, ds.dev[i].index, &bo, err);
                }
            } else {
                st = cz_backend_cpu_create(&e->dev[i].be, &bo, err);
            }
            if (st != CZ_OK) break;
            e->ndev++;
            cz_backend *b = e->dev[i].be;
            if (n > 1 && b->kind == CZ_BACKEND_CPU) { /* "cpu:1 (16 threads)": which one */
                char tmp[sizeof b->name];
                snprintf(tmp, sizeof tmp, "cpu:%d%s", i, b->name + 3);
                memcpy(b->name, tmp, sizeof tmp);
            } else if (ds.dev[i].cuda && ds.dev[i].slot > 0) { /* "cuda:0#2 NVIDIA ...": its 2nd entry */
                char tmp[sizeof b->name], pre[16];
                int pl = snprintf(pre, sizeof pre, "cuda:%d", ds.dev[i].index);
                if (pl > 0 && strncmp(b->name, pre, (size_t)pl) == 0) {
                    snprintf(tmp, sizeof tmp, "%s#%d%s", pre, ds.dev[i].slot + 1, b->name + pl);
                    memcpy(b->name, tmp, sizeof tmp);
                }
            }
        }
    }
    if (st != CZ_OK) return st;
    if (c->fail_step && (c->fail_device < 0 || c->fail_device >= n))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "fail_device %d: the engine has %d device%s", c->fail_device, n,
                            n == 1 ? "" : "s");
    size_t off = 0;
    if (n > 1) off = (size_t)snprintf(e->dev_names, sizeof e->dev_names, "%d devices: ", n);
    for (int i = 0; i < n; i++) {
        device *d = &e->dev[i];
        d->e = e;
        d->idx = i;
        d->in_service = 1;
        d->gpu = -1; /* a lane when another entry runs on its GPU */
        for (int j = 0; j < n; j++)
            if (j != i && d->be->kind == CZ_BACKEND_CUDA && e->dev[j].be->kind == CZ_BACKEND_CUDA &&
                e->dev[j].be->gpu == d->be->gpu)
                d->gpu = d->be->gpu;
        if (c->fail_step && i == c->fail_device) d->fail_at = c->fail_step;
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
    e->t0 = cz_now();
    e->loads_tail = &e->loads;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->reserve_mu, NULL);
    pthread_mutex_init(&e->admit_mu, NULL);
    pthread_cond_init(&e->cv_synth, NULL);
    pthread_cond_init(&e->cv_gpu, NULL);
    pthread_cond_init(&e->cv_fin, NULL);
    pthread_cond_init(&e->cv_done, NULL);
    pthread_cond_init(&e->cv_key, NULL);
    pthread_cond_init(&e->cv_load, NULL);
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
        st = cz_bufpool_create(&e->pool, e->budget, pa, &e->cfg.log, err);
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
        if (st == CZ_OK) {
            if (pthread_create(&e->load_th, NULL, load_main, e) != 0)
                st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the key loader thread");
            else
                e->started_load = 1;
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

cz_budget *cz_engine_budget(cz_engine *e) { return e ? e->budget : NULL; }

void cz_engine_drain(cz_engine *e, int on)
{
    pthread_mutex_lock(&e->mu);
    e->drain = on != 0;
    pthread_cond_broadcast(&e->cv_synth);
    pthread_mutex_unlock(&e->mu);
}

uint64_t cz_engine_in_flight(cz_engine *e)
{
    pthread_mutex_lock(&e->mu);
    uint64_t n = e->in_flight;
    pthread_mutex_unlock(&e->mu);
    return n;
}

void cz_engine_stats_get(cz_engine *e, cz_engine_stats *out)
{
    memset(out, 0, sizeof *out);
    cz_budget_stats_get(e->budget, &out->budget);
    cz_bufpool_stats_get(e->pool, &out->pool);
    for (int i = 0; i < e->ndev; i++) { /* outside e->mu: the backend may take its own lock */
        cz_backend *be = e->dev[i].be;
        if (be->ops->mem_info && be->ops->mem_info(be, &out->dev[i].mem, NULL) == CZ_OK) out->dev[i].has_mem = 1;
    }
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
        o->busy = d->busy;
        o->busy_s = d->busy_s;
        o->partitions = d->parts;
        o->key_uploads = d->key_uploads;
        o->lane_of = d->gpu;
        o->lane_waits = d->lane_waits;
        for (const cz_engine_key *k = e->keys; k; k = k->next) o->keys_resident += (k->resident >> i) & 1;
        out->device_busy_s += d->busy_s;
    }
    for (const cz_engine_key *k = e->keys; k; k = k->next) {
        out->keys++;
        out->keys_loaded += k->loaded;
    }
    for (const cz_job *j = e->waiting; j; j = j->next_waiting) out->partitions_queued += j->n - j->next_synth;
    out->partitions_ready = (uint64_t)e->gpu_ready;
    out->uptime_s = cz_now() - e->t0;
    out->pool_pinned = e->pool_pinned;
    out->jobs_done = e->jobs_done;
    out->jobs_active = e->jobs_active;
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
    pthread_cond_broadcast(&e->cv_load);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < e->nsynth; i++) pthread_join(e->synth_th[i], NULL);
    for (int i = 0; i < e->ndev; i++)
        if (e->dev[i].started) pthread_join(e->dev[i].th, NULL);
    if (e->started_fin) pthread_join(e->fin_th, NULL);
    if (e->started_load) pthread_join(e->load_th, NULL);
    while (e->loads) { /* never started (no loader thread); the keys are freed below */
        preload *p = e->loads;
        e->loads = p->next;
        if (p->done) p->done(p->ctx, p->k, CZ_ERR_CANCELLED, "the engine is shutting down");
        free(p);
    }
    if (e->budget) cz_budget_remove_reclaimer(e->budget, CZ_RECLAIM_KEYS, evict_keys, e);
    while (e->keys) {
        e->keys->regs = 1;
        cz_engine_key_remove(e, e->keys);
    }
    cz_bufpool_free(e->pool); /* before the backend whose allocator it used */
    for (int i = 0; i < CZ_ENGINE_MAX_DEVICES; i++)
        if (e->dev[i].be) cz_backend_free(e->dev[i].be);
    cz_budget_free(e->budget);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->reserve_mu);
    pthread_mutex_destroy(&e->admit_mu);
    pthread_cond_destroy(&e->cv_synth);
    pthread_cond_destroy(&e->cv_gpu);
    pthread_cond_destroy(&e->cv_fin);
    pthread_cond_destroy(&e->cv_done);
    pthread_cond_destroy(&e->cv_key);
    pthread_cond_destroy(&e->cv_load);
    free(e);
}
