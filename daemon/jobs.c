/* daemon/jobs: the job manager (contract and design in jobs.h). */
#include "daemon/jobs.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "circuit/native.h"
#include "daemon/metrics.h"
#include "ec/ec_serde.h"
#include "io/proof.h"
#include "util/rng.h"

/* a key known to the daemon */
typedef struct dkey {
    cz_store_key sk;
    cz_engine_key *ek;
    struct dkey *next;
} dkey;

/* a job in the engine */
typedef struct djob {
    char id[CZ_STORE_ID_MAX];
    cz_job *ej;
    size_t n;           /* engine partitions */
    uint32_t *idx;      /* engine partition -> store partition */
    uint32_t *attempt;  /* its claim's attempt (0: not claimed) */
    size_t n_store;     /* the job's partitions in the store */
    cz_jobs_progress *progress; /* by store partition */
    atomic_int cancelled; /* cancelled by a request (its events are not recorded); set under mu, read by the event thread without it */
    int pending;        /* shared store: claimed, not yet in synthesis (counted in cz_jobs.pending) */
    int lost;           /* shared store: the heartbeat found its lease lost; cancelled in the engine */
    int ended;          /* shared store: its partition's end was handled */
    int pins;           /* cz_jobs_delete is cancelling ej outside the lock: not freed until 0 */
    struct djob *next;
} djob;

/* an engine event on its way to the event thread */
typedef struct ev {
    cz_engine_event_kind kind;
    djob *dj;
    size_t part;
    cz_partition_stage stage;
    int device;
    struct ev *next;
} ev;

typedef struct watch {
    char id[CZ_STORE_ID_MAX];
    cz_jobs_watch_fn fn;
    void *ctx;
    struct watch *next;
} watch;

enum { UNSURE_MAX = 256 };
/* A commit the store received before its connection went away has landed
 * (or not) well within this; the store answering "unknown job" after it
 * means not committed. */
#define UNSURE_GRACE_S 10.0

struct cz_jobs {
    cz_jobs_config c;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* events queued; event thread idle */
    dkey *keys;
    djob *jobs;
    ev *q, **q_tail;
    int q_busy;             /* the event thread is handling one */
    watch *watches;
    pthread_t th;
    int started, stop, draining;
    atomic_int closing; /* set under mu; read without it by the event thread and the store retries */
    uint64_t accepted, done, failed, cancelled;
    /* shared stores: the feeder and heartbeat threads */
    int shared;
    pthread_t feed_th, hb_th;
    int feed_started, hb_started, stop_threads;
    pthread_cond_t feed_cv; /* room for claims; stop */
    pthread_cond_t hb_cv;   /* stop (the heartbeat sleeps on it) */
    uint64_t pending;       /* claimed partitions not yet in synthesis */
    uint64_t claims, fenced, lost, expired, parts_done;
    uint64_t ticks;
    double started_at;
    /* shared stores: submits the store went away during (committed or not,
     * unknown), their witnesses moved into the spool; resolved on a tick once
     * the store answers and UNSURE_GRACE_S have passed: a job the store does
     * not know then was not committed and its directory goes (those beyond
     * UNSURE_MAX wait for the sweep's hour). Also the directories this host
     * made before it started that the store does not know (its first sweep) */
    struct {
        char id[CZ_STORE_ID_MAX];
        double at;
    } unsure[UNSURE_MAX];
    size_t n_unsure;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int cz_jobs_priority(const char *cls)
{
    if (!cls || !*cls || !strcmp(cls, "normal")) return 10;
    if (!strcmp(cls, "critical")) return 30;
    if (!strcmp(cls, "high")) return 20;
    if (!strcmp(cls, "low")) return 0;
    return -1;
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* the error code of a failed partition, as the API reports it */
static const char *fail_code(cz_status st)
{
    switch (st) {
    case CZ_ERR_UNSATISFIED:
    case CZ_ERR_VERIFY: return "unsatisfied";
    case CZ_ERR_CANCELLED: return "cancelled";
    case CZ_ERR_CUDA:
    case CZ_ERR_NO_DEVICE:
    case CZ_ERR_DEVICE_MEMORY: return "device";
    case CZ_ERR_NO_MEMORY:
    case CZ_ERR_BUDGET: return "resources";
    case CZ_ERR_INTERNAL: return "internal";
    case CZ_ERR_RANDOM: return "randomness";
    default: return "input";
    }
}

/* one line per job event (text, or a JSON object with the same fields) */
static void job_event(cz_jobs *j, cz_log_level lv, const char *event, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void job_event(cz_jobs *j, cz_log_level lv, const char *event, const char *id, const char *fmt, ...)
{
    if (!cz_log_enabled(&j->c.log, lv)) return;
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    cz_log(&j->c.log, lv, "jobs", "job %s %s: %s", id, event, detail);
}

/* ---- keys ---- */

static dkey *key_find_locked(cz_jobs *j, const char *id_or_path)
{
    for (dkey *k = j->keys; k; k = k->next)
        if (!strcmp(k->sk.id, id_or_path) || !strcmp(k->sk.path, id_or_path)) return k;
    return NULL;
}

static void key_id_of(char *out, const char *canonical)
{
    uint8_t h[32];
    gnutls_hash_fast(GNUTLS_DIG_SHA256, canonical, strlen(canonical), h);
    out[0] = 'k';
    out[1] = '_';
    hex(out + 2, h, 8);
}

static void key_info_locked(cz_jobs *j, const dkey *k, cz_jobs_key_info *o)
{
    memset(o, 0, sizeof *o);
    o->key = k->sk;
    o->state = cz_engine_key_state_get(j->c.engine, k->ek);
    cz_engine_key_error(j->c.engine, k->ek, o->error, sizeof o->error);
    o->bytes = cz_engine_key_bytes(k->ek);
    const cz_zkey *zi = cz_engine_key_info(k->ek);
    o->domain_size = zi->domain_size;
    o->n_vars = zi->n_vars;
    o->n_public = zi->n_public;
    o->curve = (int)zi->curve;
    o->resident = cz_engine_key_resident(j->c.engine, k->ek);
    o->vram_need = cz_engine_key_vram_need(j->c.engine, k->ek);
}

static int key_jobs(cz_jobs *j, const char *key_id)
{
    cz_store_job *u = NULL;
    size_t n = 0;
    int c = 0;
    if (j->c.store->ops->jobs_unfinished(j->c.store, &u, &n, NULL) == CZ_OK)
        for (size_t i = 0; i < n; i++) c += !strcmp(u[i].key_id, key_id);
    free(u);
    return c;
}

static void preload_done(void *ctx, cz_engine_key *k, cz_status st, const char *error)
{
    cz_jobs *j = ctx;
    if (st != CZ_OK && st != CZ_ERR_CANCELLED) /* (a load that worked: the engine says so) */
        CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "key %s: loading failed: %s", cz_engine_key_path(k), error);
}

/* Registers sk with the engine (the caller holds no lock). */
static cz_status key_attach(cz_jobs *j, const cz_store_key *sk, dkey **out, cz_error *err)
{
    dkey *k = calloc(1, sizeof *k);
    if (!k) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    k->sk = *sk;
    cz_status st = cz_engine_key_register(j->c.engine, sk->path, &k->ek, err);
    if (st != CZ_OK) {
        free(k);
        return st;
    }
    pthread_mutex_lock(&j->mu);
    k->next = j->keys;
    j->keys = k;
    pthread_mutex_unlock(&j->mu);
    (void)cz_engine_key_preload(j->c.engine, k->ek, preload_done, j, NULL);
    *out = k;
    return CZ_OK;
}

cz_status cz_jobs_key_add(cz_jobs *j, const char *canonical, cz_jobs_key_info *out, int *created, cz_error *err)
{
    *created = 0;
    pthread_mutex_lock(&j->mu);
    dkey *k = key_find_locked(j, canonical);
    if (k) {
        key_info_locked(j, k, out);
        pthread_mutex_unlock(&j->mu);
        out->jobs = key_jobs(j, out->key.id);
        return CZ_OK;
    }
    pthread_mutex_unlock(&j->mu);
    cz_store_key sk;
    memset(&sk, 0, sizeof sk);
    key_id_of(sk.id, canonical);
    snprintf(sk.path, sizeof sk.path, "%s", canonical);
    sk.created = now_s();
    cz_status st = key_attach(j, &sk, &k, err); /* reads and checks the header */
    if (st != CZ_OK) return st;
    if ((st = j->c.store->ops->key_put(j->c.store, &sk, err)) != CZ_OK) {
        (void)cz_jobs_key_remove(j, sk.id, NULL);
        return st;
    }
    *created = 1;
    pthread_mutex_lock(&j->mu);
    key_info_locked(j, k, out);
    pthread_mutex_unlock(&j->mu);
    CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "key %s registered: %s", sk.id, sk.path);
    return CZ_OK;
}

/* A key by id or path: registered here, or (shared store) registered by
 * another host, then registered with this engine now. NULL when unknown. */
static dkey *key_lookup(cz_jobs *j, const char *id_or_path, cz_error *err)
{
    pthread_mutex_lock(&j->mu);
    dkey *k = key_find_locked(j, id_or_path);
    pthread_mutex_unlock(&j->mu);
    if (k || !j->shared || !id_or_path || strchr(id_or_path, '/')) return k;
    cz_store_key sk;
    int found = 0;
    if (j->c.store->ops->key_get(j->c.store, id_or_path, &sk, &found, err) != CZ_OK || !found) return NULL;
    pthread_mutex_lock(&j->mu);
    k = key_find_locked(j, sk.id); /* (attached meanwhile by another thread) */
    pthread_mutex_unlock(&j->mu);
    if (k) return k;
    if (key_attach(j, &sk, &k, err) != CZ_OK) {
        CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "key %s (%s), registered by another host, cannot be registered here: %s",
               sk.id, sk.path, cz_error_msg(err));
        return NULL;
    }
    CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "key %s registered from the shared store: %s", sk.id, sk.path);
    return k;
}

cz_status cz_jobs_key_get(cz_jobs *j, const char *id_or_path, cz_jobs_key_info *out, int *found, cz_error *err)
{
    (void)key_lookup(j, id_or_path, err);
    pthread_mutex_lock(&j->mu);
    dkey *k = key_find_locked(j, id_or_path);
    *found = k != NULL;
    if (k) key_info_locked(j, k, out);
    pthread_mutex_unlock(&j->mu);
    if (*found) out->jobs = key_jobs(j, out->key.id);
    return CZ_OK;
}

cz_status cz_jobs_key_list(cz_jobs *j, cz_jobs_key_info **out, size_t *n, cz_error *err)
{
    *out = NULL;
    *n = 0;
    if (j->shared) { /* the keys other hosts registered too */
        cz_store_key *sk = NULL;
        size_t ns = 0;
        cz_status st = j->c.store->ops->key_list(j->c.store, &sk, &ns, err);
        if (st != CZ_OK) return st;
        for (size_t i = 0; i < ns; i++) {
            cz_error kerr;
            cz_error_clear(&kerr);
            (void)key_lookup(j, sk[i].id, &kerr);
        }
        free(sk);
    }
    pthread_mutex_lock(&j->mu);
    size_t c = 0;
    for (dkey *k = j->keys; k; k = k->next) c++;
    cz_jobs_key_info *a = calloc(c ? c : 1, sizeof *a);
    if (!a) {
        pthread_mutex_unlock(&j->mu);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    size_t i = 0;
    for (dkey *k = j->keys; k; k = k->next) key_info_locked(j, k, &a[i++]);
    pthread_mutex_unlock(&j->mu);
    for (size_t q = 0; q < c; q++) a[q].jobs = key_jobs(j, a[q].key.id);
    *out = a;
    *n = c;
    return CZ_OK;
}

cz_status cz_jobs_key_remove(cz_jobs *j, const char *id, cz_error *err)
{
    int busy = key_jobs(j, id);
    pthread_mutex_lock(&j->mu);
    dkey **pp = &j->keys;
    while (*pp && strcmp((*pp)->sk.id, id)) pp = &(*pp)->next;
    dkey *k = *pp;
    if (!k) {
        pthread_mutex_unlock(&j->mu);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "no key %s", id);
    }
    if (busy > 0 || cz_engine_key_jobs(j->c.engine, k->ek) > 0) {
        pthread_mutex_unlock(&j->mu);
        return cz_error_set(err, CZ_ERR_MISMATCH, "key %s is used by %d job%s that are not finished", id, busy,
                            busy == 1 ? "" : "s");
    }
    *pp = k->next;
    pthread_mutex_unlock(&j->mu);
    cz_status st = j->c.store->ops->key_delete(j->c.store, id, err);
    cz_engine_key_remove(j->c.engine, k->ek);
    CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "key %s removed: %s", id, k->sk.path);
    free(k);
    return st;
}

/* ---- events: engine threads -> queue -> event thread ---- */

static void on_event(void *ctx, const cz_engine_event *e)
{
    djob *dj = e->tag;
    cz_jobs *j = ctx;
    ev *v = calloc(1, sizeof *v);
    if (!v) return; /* lost: the partition is proved again after a restart */
    v->kind = e->kind;
    v->dj = dj;
    v->part = e->partition;
    v->stage = e->stage;
    v->device = e->device;
    pthread_mutex_lock(&j->mu);
    *j->q_tail = v;
    j->q_tail = &v->next;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

/* Wakes (and drops) the watchers of a final job; no lock held. */
static void fire_watches(cz_jobs *j, const char *id)
{
    pthread_mutex_lock(&j->mu);
    watch *fire = NULL;
    for (watch **pp = &j->watches; *pp;) {
        watch *w = *pp;
        if (!strcmp(w->id, id)) {
            *pp = w->next;
            w->next = fire;
            fire = w;
        } else {
            pp = &w->next;
        }
    }
    pthread_mutex_unlock(&j->mu);
    while (fire) {
        watch *n = fire->next;
        fire->fn(fire->ctx);
        free(fire);
        fire = n;
    }
}

/* The results of a proved partition in the store's form. */
static cz_status results_of(const cz_job *ej, size_t part, const cz_store_part *sp, cz_store_part *out,
                            cz_error *err)
{
    (void)sp;
    size_t n;
    const cz_partition_result *r = &cz_job_results(ej, &n)[part];
    memset(out, 0, sizeof *out);
    cz_status st = cz_proof_format_json(&r->proof, &out->proof_json, err);
    if (st == CZ_OK) st = cz_public_format_json(r->proof.curve, r->pub, r->n_pub, &out->public_json, err);
    if (st != CZ_OK) return st;
    if (r->proof.curve == CZ_CURVE_BLS12_381) {
        if ((st = cz_proof_to_bellperson(out->proof_bin, &r->proof, err)) != CZ_OK) return st;
        out->has_bin = 1;
    }
    const cz_partition_timings *t = &r->t;
    char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"queue\": %.6f, \"key_load\": %.6f, \"synthesis\": %.6f, \"gpu_wait\": %.6f, \"device\": %.6f, "
             "\"h\": %.6f, \"h2d\": %.6f, \"h2d_bytes\": %llu, \"msm_a\": %.6f, \"msm_b1\": %.6f, \"msm_b2\": %.6f, "
             "\"msm_c\": %.6f, \"msm_h\": %.6f, \"finalize\": %.6f, \"total\": %.6f, \"device_index\": %d, "
             "\"retries\": %d}",
             t->queue_s, t->key_load_s, t->synth_s, t->gpu_wait_s, t->device_s, t->stages.h, t->stages.h2d,
             (unsigned long long)t->stages.h2d_bytes, t->stages.msm_a, t->stages.msm_b1, t->stages.msm_b2,
             t->stages.msm_c, t->stages.msm_h, t->finalize_s, t->total_s, t->device, t->retries);
    if (!(out->timings_json = strdup(buf))) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    return CZ_OK;
}

static void free_results(cz_store_part *p)
{
    free(p->proof_json);
    free(p->public_json);
    free(p->timings_json);
    p->proof_json = p->public_json = p->timings_json = NULL;
}

static void djob_free(djob *dj)
{
    if (!dj) return;
    free(dj->idx);
    free(dj->attempt);
    free(dj->progress);
    free(dj);
}

/* claims store partition s of dj; 1 when claimed */
static int claim(cz_jobs *j, djob *dj, size_t part)
{
    if (dj->attempt[part]) return 1;
    cz_error err;
    cz_error_clear(&err);
    uint32_t a = 0;
    if (j->c.store->ops->claim(j->c.store, dj->id, dj->idx[part], j->c.owner, &a, &err) != CZ_OK) {
        if (!dj->cancelled)
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "job %s partition %u: claim refused: %s", dj->id, dj->idx[part],
                   cz_error_msg(&err));
        return 0;
    }
    dj->attempt[part] = a;
    return 1;
}

/* A job this host saw become final (its last partition recorded here, or
 * its end in the engine on one host): spool, counters, watchers. known_done:
 * the store said just now that the job is done (a read that fails then does
 * not stop the rest; its duration is then unknown). */
static void job_finished(cz_jobs *j, const char *id, int known_done)
{
    cz_store *s = j->c.store;
    cz_store_job sj;
    int found = 0;
    cz_error err;
    cz_error_clear(&err);
    if (s->ops->job_get(s, id, &sj, &found, &err) != CZ_OK) {
        if (!known_done) return;
        /* the store made it done just now but does not answer this read: the rest does not need it */
        memset(&sj, 0, sizeof sj);
        snprintf(sj.id, sizeof sj.id, "%s", id);
        sj.state = CZ_JOB_DONE;
        found = 1;
        sj.finished = sj.created = now_s();
    }
    if (!found || !cz_job_state_final(sj.state)) return;
    cz_spool_remove_job(j->c.spool, id);
    pthread_mutex_lock(&j->mu);
    if (sj.state == CZ_JOB_DONE)
        j->done++;
    else
        j->failed++;
    pthread_mutex_unlock(&j->mu);
    if (j->c.metrics) cz_metrics_job_end(j->c.metrics, sj.state, sj.finished - sj.created);
    if (sj.state == CZ_JOB_DONE)
        job_event(j, CZ_LOG_INFO, "done", id, "%u partition%s in %.3f s", sj.n_parts, sj.n_parts == 1 ? "" : "s",
                  sj.finished - sj.created);
    else
        job_event(j, CZ_LOG_WARN, "failed", id, "%s: %s", sj.error_code, sj.error);
    fire_watches(j, id);
}

static int store_down(cz_jobs *j)
{
    cz_store *s = j->c.store;
    return s->ops->healthy && !s->ops->healthy(s, NULL, 0);
}

static void sleep_s(double t)
{
    struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
    nanosleep(&ts, NULL);
}

/* After a try whose answer was lost: did that try commit this attempt's end
 * (the partition done, or failed or queued again, by this owner's attempt)? */
static int own_write_landed(cz_jobs *j, const char *id, uint32_t idx, uint32_t attempt, cz_part_state end)
{
    cz_store *s = j->c.store;
    cz_store_part *parts = NULL;
    size_t n = 0;
    int hit = 0;
    if (s->ops->parts_get(s, id, 0, &parts, &n, NULL) != CZ_OK) return 0;
    for (size_t i = 0; i < n; i++)
        if (parts[i].idx == idx)
            hit = parts[i].attempts == attempt && !strcmp(parts[i].owner, j->c.owner) && parts[i].state == end;
    cz_store_parts_free(parts, n);
    return hit;
}

static int job_is_final(cz_jobs *j, const char *id)
{
    cz_store_job sj;
    int found = 0;
    return j->c.store->ops->job_get(j->c.store, id, &sj, &found, NULL) == CZ_OK && found &&
           cz_job_state_final(sj.state);
}

/* Shared store: records the end of a claimed partition, fenced by its
 * attempt; while the database is away, retried until it answers. A retry
 * refused by the fence because an earlier try committed (its answer lost),
 * or accepted as that try's own write, counts as recorded; the job's end is
 * then read back from the store (and
 * may be counted on two hosts when two ended its last partitions at once,
 * one of them through a lost answer). */
static void record_shared(cz_jobs *j, djob *dj, size_t part, const cz_partition_result *r)
{
    cz_store *s = j->c.store;
    const uint32_t idx = dj->idx[part], a = dj->attempt[part];
    const uint32_t max_att = j->c.max_attempts ? j->c.max_attempts : 3;
    cz_error err;
    cz_status st;
    int final = 0, warned = 0, requeue = 0;
    double wait = 0.1;
    for (;;) {
        cz_error_clear(&err);
        if (r->status == CZ_OK) {
            cz_store_part res;
            st = results_of(dj->ej, part, NULL, &res, &err);
            if (st == CZ_OK) st = s->ops->complete(s, dj->id, idx, j->c.owner, a, &res, &final, &err);
            free_results(&res);
        } else {
            requeue = !strcmp(fail_code(r->status), "device") && a < max_att;
            st = s->ops->fail(s, dj->id, idx, j->c.owner, a, requeue, fail_code(r->status), r->error, &err);
        }
        if (st == CZ_ERR_MISMATCH && warned && own_write_landed(j, dj->id, idx, a,
                                                            r->status == CZ_OK ? CZ_PART_DONE
                                                            : requeue          ? CZ_PART_QUEUED
                                                                               : CZ_PART_FAILED)) {
            st = CZ_OK; /* an earlier try committed, its answer lost in the outage: recorded */
            final = job_is_final(j, dj->id);
            break;
        }
        if (st == CZ_OK || st == CZ_ERR_MISMATCH || !store_down(j) || j->closing) break;
        if (!warned++)
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "job %s partition %u: the store does not answer, retrying: %s", dj->id,
                   idx, cz_error_msg(&err));
        sleep_s(wait);
        wait = wait * 2 > 2.0 ? 2.0 : wait * 2;
    }
    if (st == CZ_ERR_MISMATCH) {
        pthread_mutex_lock(&j->mu);
        j->fenced++;
        pthread_mutex_unlock(&j->mu);
        CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "job %s partition %u attempt %u: late %s refused by the fence: %s", dj->id,
               idx, a, r->status == CZ_OK ? "result" : "failure", cz_error_msg(&err));
        return;
    }
    if (st != CZ_OK) {
        CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "job %s partition %u: the %s was not recorded: %s", dj->id, idx,
               r->status == CZ_OK ? "result" : "failure", cz_error_msg(&err));
        return;
    }
    if (warned) CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "job %s partition %u: recorded after the store came back", dj->id, idx);
    /* a retry that found its own earlier try committed (the store's "already": its answer lost)
     * reports no job end, though that try may have ended the job: read it back */
    if (warned && !final && r->status == CZ_OK) final = job_is_final(j, dj->id);
    if (r->status == CZ_OK) {
        pthread_mutex_lock(&j->mu);
        j->parts_done++;
        pthread_mutex_unlock(&j->mu);
        if (final) job_finished(j, dj->id, 1);
        return;
    }
    if (requeue) {
        job_event(j, CZ_LOG_WARN, "requeued", dj->id, "partition %u attempt %u: %s", idx, a, r->error);
        return;
    }
    cz_store_job sj;
    int found = 0;
    if (s->ops->job_get(s, dj->id, &sj, &found, &err) == CZ_OK && found && sj.state == CZ_JOB_FAILED &&
        !strcmp(sj.error, r->error)) /* (this failure failed the job, not an earlier one) */
        job_finished(j, dj->id, 0);
}

static void handle(cz_jobs *j, ev *v)
{
    djob *dj = v->dj;
    cz_store *s = j->c.store;
    cz_error err;
    cz_error_clear(&err);
    if (v->kind == CZ_EVENT_STAGE) {
        pthread_mutex_lock(&j->mu);
        if (dj->pending) { /* room for another claim */
            dj->pending = 0;
            j->pending--;
            pthread_cond_broadcast(&j->feed_cv);
        }
        pthread_mutex_unlock(&j->mu);
        if (j->closing) return;
        pthread_mutex_lock(&j->mu);
        dj->progress[dj->idx[v->part]].stage = (int)v->stage;
        dj->progress[dj->idx[v->part]].device = v->device;
        pthread_mutex_unlock(&j->mu);
        if (v->stage == CZ_STAGE_SYNTH && !dj->cancelled) {
            int first = 1;
            for (size_t i = 0; i < dj->n; i++) first &= dj->attempt[i] == 0;
            if (j->shared) first = dj->idx[v->part] == 0 && dj->attempt[v->part] == 1;
            if (claim(j, dj, v->part) && first) job_event(j, CZ_LOG_INFO, "started", dj->id, "partition %u", dj->idx[v->part]);
        }
        return;
    }
    if (v->kind == CZ_EVENT_PARTITION) {
        size_t n;
        const cz_partition_result *r = &cz_job_results(dj->ej, &n)[v->part];
        pthread_mutex_lock(&j->mu);
        dj->progress[dj->idx[v->part]].stage = -1;
        if (dj->pending) {
            dj->pending = 0;
            j->pending--;
            pthread_cond_broadcast(&j->feed_cv);
        }
        dj->ended = 1;
        pthread_mutex_unlock(&j->mu);
        if (j->c.metrics) cz_metrics_partition_end(j->c.metrics, r);
        if (dj->cancelled || j->closing) return; /* recorded by the cancel / left queued for the next start */
        if (r->status == CZ_ERR_CANCELLED) return;
        if (j->shared) {
            CZ_LOG(&j->c.log, CZ_LOG_DEBUG, "jobs", "job %s partition %u attempt %u: %s in the engine, recording it",
                   dj->id, dj->idx[v->part], dj->attempt[v->part], r->status == CZ_OK ? "proved" : "failed");
            record_shared(j, dj, v->part, r);
            return;
        }
        if (!claim(j, dj, v->part)) return;
        if (r->status == CZ_OK) {
            cz_store_part res;
            cz_status st = results_of(dj->ej, v->part, NULL, &res, &err);
            if (st == CZ_OK)
                st = s->ops->complete(s, dj->id, dj->idx[v->part], j->c.owner, dj->attempt[v->part], &res, NULL, &err);
            free_results(&res);
            if (st != CZ_OK)
                CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "job %s partition %u: the result was not recorded: %s",
                       dj->id, dj->idx[v->part], cz_error_msg(&err));
        } else {
            cz_status st = s->ops->fail(s, dj->id, dj->idx[v->part], j->c.owner, dj->attempt[v->part], 0,
                                        fail_code(r->status), r->error, &err);
            if (st != CZ_OK)
                CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "job %s partition %u: the failure was not recorded: %s",
                       dj->id, dj->idx[v->part], cz_error_msg(&err));
        }
        return;
    }
    /* the job's end in the engine (not while a cancel outside the lock uses ej; ej is taken away
     * under the lock, so that no cancel can pin it between the wait and the free) */
    pthread_mutex_lock(&j->mu);
    while (dj->pins) pthread_cond_wait(&j->cv, &j->mu);
    cz_job *ej = dj->ej;
    dj->ej = NULL;
    pthread_mutex_unlock(&j->mu);
    cz_job_free(ej);
    pthread_mutex_lock(&j->mu);
    for (djob **pp = &j->jobs; *pp; pp = &(*pp)->next)
        if (*pp == dj) {
            *pp = dj->next;
            break;
        }
    pthread_mutex_unlock(&j->mu);
    if (!j->closing && !dj->cancelled && !j->shared) job_finished(j, dj->id, 0);
    djob_free(dj);
}

static void *event_main(void *arg)
{
    cz_jobs *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        while (!j->q && !j->stop) pthread_cond_wait(&j->cv, &j->mu);
        ev *v = j->q;
        if (v) {
            j->q = v->next;
            if (!j->q) j->q_tail = &j->q;
            j->q_busy = 1;
        }
        pthread_mutex_unlock(&j->mu);
        if (!v) return NULL;
        handle(j, v);
        free(v);
        pthread_mutex_lock(&j->mu);
        j->q_busy = 0;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
}

/* ---- handing jobs to the engine ---- */

/* Submits the partitions of job sj that are queued to the engine. */
static cz_status engine_start(cz_jobs *j, const cz_store_job *sj, cz_store_part *parts, size_t n, cz_error *err)
{
    pthread_mutex_lock(&j->mu);
    dkey *k = key_find_locked(j, sj->key_id);
    cz_engine_key *ek = k ? k->ek : NULL;
    pthread_mutex_unlock(&j->mu);
    if (!ek) return cz_error_set(err, CZ_ERR_MISMATCH, "the key %s of job %s is not registered", sj->key_id, sj->id);
    djob *dj = calloc(1, sizeof *dj);
    cz_synth **synths = calloc(n ? n : 1, sizeof *synths);
    if (!dj || !synths || !(dj->idx = calloc(n ? n : 1, sizeof *dj->idx)) ||
        !(dj->attempt = calloc(n ? n : 1, sizeof *dj->attempt)) ||
        !(dj->progress = calloc(sj->n_parts ? sj->n_parts : 1, sizeof *dj->progress))) {
        djob_free(dj);
        free(synths);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    snprintf(dj->id, sizeof dj->id, "%s", sj->id);
    dj->n_store = sj->n_parts;
    for (uint32_t i = 0; i < sj->n_parts; i++) dj->progress[i].stage = -1;
    cz_status st = CZ_OK;
    size_t m = 0;
    for (size_t i = 0; i < n && st == CZ_OK; i++) {
        if (parts[i].state != CZ_PART_QUEUED) continue;
        /* a .wtns, or a circuit's partition (circuit/native.h) */
        st = cz_native_synth_file(&synths[m], parts[i].witness, cz_engine_key_info(ek)->curve, j->c.pce_dir, err);
        if (st == CZ_OK) dj->idx[m++] = parts[i].idx;
    }
    if (st == CZ_OK && m == 0) st = cz_error_set(err, CZ_ERR_INTERNAL, "job %s has no queued partition", sj->id);
    if (st == CZ_OK) {
        dj->n = m;
        cz_job_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.tag = dj;
        spec.key = ek;
        spec.parts = synths;
        spec.n = m;
        spec.priority = cz_jobs_priority(sj->priority);
        spec.on_event = on_event;
        spec.event_ctx = j;
        pthread_mutex_lock(&j->mu); /* listed before its first event can arrive */
        dj->next = j->jobs;
        j->jobs = dj;
        st = cz_engine_submit_job(j->c.engine, &spec, &dj->ej, err);
        if (st != CZ_OK) j->jobs = dj->next;
        pthread_mutex_unlock(&j->mu);
    }
    if (st != CZ_OK) {
        for (size_t i = 0; i < m; i++) cz_synth_free(synths[i]);
        djob_free(dj);
    }
    free(synths);
    return st;
}

/* A job the engine cannot take: its queued partitions fail with err. */
static void fail_job(cz_jobs *j, const char *id, const cz_store_part *parts, size_t n, cz_status why,
                     const cz_error *cause)
{
    cz_store *s = j->c.store;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].state != CZ_PART_QUEUED && parts[i].state != CZ_PART_RUNNING) continue;
        uint32_t a = 0;
        if (parts[i].state == CZ_PART_QUEUED && s->ops->claim(s, id, parts[i].idx, j->c.owner, &a, NULL) != CZ_OK)
            continue;
        if (parts[i].state == CZ_PART_RUNNING) a = parts[i].attempts;
        if (s->ops->fail(s, id, parts[i].idx, j->c.owner, a, 0, fail_code(why), cz_error_msg(cause), NULL) == CZ_OK)
            break; /* the job is failed now; the rest were cancelled with it */
    }
    cz_spool_remove_job(j->c.spool, id);
    job_event(j, CZ_LOG_WARN, "failed", id, "%s: %s", fail_code(why), cz_error_msg(cause));
    fire_watches(j, id);
}

/* ---- shared stores: claims, leases, watches ---- */

/* Hands a claimed partition to the engine as a job of one partition. */
static cz_status start_claim(cz_jobs *j, const cz_store_claim *c, cz_error *err)
{
    dkey *k = key_lookup(j, c->key_id, err);
    if (!k) {
        if (err && err->status == CZ_OK)
            cz_error_set(err, CZ_ERR_MISMATCH, "the key %s of job %s is not registered in the store", c->key_id,
                         c->job_id);
        return err ? err->status : CZ_ERR_MISMATCH;
    }
    djob *dj = calloc(1, sizeof *dj);
    uint32_t np = c->n_parts > c->idx ? c->n_parts : c->idx + 1;
    if (!dj || !(dj->idx = calloc(1, sizeof *dj->idx)) || !(dj->attempt = calloc(1, sizeof *dj->attempt)) ||
        !(dj->progress = calloc(np, sizeof *dj->progress))) {
        djob_free(dj);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    snprintf(dj->id, sizeof dj->id, "%s", c->job_id);
    dj->n = 1;
    dj->n_store = np;
    dj->idx[0] = c->idx;
    dj->attempt[0] = c->attempt;
    for (uint32_t i = 0; i < np; i++) dj->progress[i].stage = -1;
    cz_synth *sy = NULL;
    /* a .wtns, or a circuit's partition (circuit/native.h), as engine_start reads them */
    cz_status st = cz_native_synth_file(&sy, c->witness, cz_engine_key_info(k->ek)->curve, j->c.pce_dir, err);
    if (st != CZ_OK) {
        djob_free(dj);
        return st;
    }
    cz_job_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.tag = dj;
    spec.key = k->ek;
    spec.parts = &sy;
    spec.n = 1;
    spec.priority = cz_jobs_priority(c->priority);
    spec.on_event = on_event;
    spec.event_ctx = j;
    pthread_mutex_lock(&j->mu);
    dj->next = j->jobs;
    j->jobs = dj;
    dj->pending = 1;
    j->pending++;
    st = cz_engine_submit_job(j->c.engine, &spec, &dj->ej, err);
    if (st != CZ_OK) {
        j->jobs = dj->next;
        j->pending--;
    }
    pthread_mutex_unlock(&j->mu);
    if (st != CZ_OK) {
        cz_synth_free(sy);
        djob_free(dj);
    }
    return st;
}

/* Long-polls of jobs another host may finish: answered from the store. */
static void poll_watches(cz_jobs *j)
{
    enum { MAXW = 256 };
    char(*ids)[CZ_STORE_ID_MAX] = NULL;
    size_t n = 0;
    pthread_mutex_lock(&j->mu);
    for (watch *w = j->watches; w && n < MAXW; w = w->next) {
        if (!ids && !(ids = malloc(MAXW * sizeof *ids))) break;
        int dup = 0;
        for (size_t i = 0; i < n && !dup; i++) dup = !strcmp(ids[i], w->id);
        if (!dup) snprintf(ids[n++], CZ_STORE_ID_MAX, "%s", w->id);
    }
    pthread_mutex_unlock(&j->mu);
    for (size_t i = 0; i < n; i++) {
        cz_store_job sj;
        int found = 0;
        if (j->c.store->ops->job_get(j->c.store, ids[i], &sj, &found, NULL) == CZ_OK &&
            (!found || cz_job_state_final(sj.state)))
            fire_watches(j, ids[i]);
    }
    free(ids);
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *mu, double t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double end = (double)ts.tv_nsec * 1e-9 + t;
    ts.tv_sec += (time_t)end;
    ts.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
    pthread_cond_timedwait(cv, mu, &ts);
}

/* The feeder: claims what this host can start now, keeps claim_ahead of
 * them waiting for synthesis; answers remote long-polls. */
static void *feed_main(void *arg)
{
    cz_jobs *j = arg;
    cz_store *s = j->c.store;
    const size_t ahead = j->c.claim_ahead ? j->c.claim_ahead : 3;
    cz_store_claim *cl = calloc(ahead, sizeof *cl);
    const char **prefer = NULL;
    char(*pref_ids)[CZ_STORE_ID_MAX] = NULL; /* copies: a key may be removed while we claim */
    const char **avoid = NULL;               /* keys this host can never fit: left to the others */
    char(*avoid_ids)[CZ_STORE_ID_MAX] = NULL;
    size_t cap_prefer = 0;
    int no_device = 0;
    double next_watch = 0;
    int hint = 0, failing = 0;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        if (j->stop_threads) {
            pthread_mutex_unlock(&j->mu);
            break;
        }
        size_t room = !j->draining && !j->closing && j->pending < ahead ? ahead - (size_t)j->pending : 0;
        size_t np = 0, na = 0;
        int devices = 1;
        if (room) { /* the keys this engine has loaded: claimed first (key affinity); those it can never fit: not */
            size_t nk = 0;
            for (dkey *k = j->keys; k; k = k->next) nk++;
            if (nk > cap_prefer) {
                const char **b = realloc(prefer, nk * sizeof *b);
                if (b) prefer = b;
                const char **b2 = b ? realloc(avoid, nk * sizeof *b2) : NULL;
                if (b2) avoid = b2;
                char(*c)[CZ_STORE_ID_MAX] = b2 ? realloc(pref_ids, nk * sizeof *c) : NULL;
                if (c) pref_ids = c;
                char(*c2)[CZ_STORE_ID_MAX] = c ? realloc(avoid_ids, nk * sizeof *c2) : NULL;
                if (c2) {
                    avoid_ids = c2;
                    cap_prefer = nk;
                }
            }
            for (dkey *k = j->keys; k && np + na < cap_prefer; k = k->next) {
                cz_engine_admission adm;
                cz_engine_admit(j->c.engine, k->ek, 0, &adm);
                if (adm.devices_in_service == 0) devices = 0;
                if (!adm.fits) {
                    snprintf(avoid_ids[na], CZ_STORE_ID_MAX, "%s", k->sk.id);
                    avoid[na] = avoid_ids[na];
                    na++;
                } else if (cz_engine_key_state_get(j->c.engine, k->ek) == CZ_KEY_LOADED) {
                    snprintf(pref_ids[np], CZ_STORE_ID_MAX, "%s", k->sk.id);
                    prefer[np] = pref_ids[np];
                    np++;
                }
            }
        }
        pthread_mutex_unlock(&j->mu);
        if (!devices) { /* no device in service: nothing could start here */
            if (!no_device++)
                CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "no device is in service: this host claims no partition");
            room = 0;
        } else {
            no_device = 0;
        }
        size_t got = 0;
        if (room && cl) {
            cz_error err;
            cz_error_clear(&err);
            if (s->ops->claim_next(s, j->c.owner, prefer, np, avoid, na, room, cl, &got, &err) != CZ_OK) {
                if (!failing++)
                    CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "claiming partitions: %s (retrying)", cz_error_msg(&err));
                got = 0;
            } else {
                if (failing) CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "claiming partitions again");
                failing = 0;
            }
            for (size_t i = 0; i < got; i++) {
                cz_error serr;
                cz_error_clear(&serr);
                if (start_claim(j, &cl[i], &serr) == CZ_OK) continue;
                /* this host cannot prove it (its key or witness is not reachable here, ...) */
                const uint32_t max_att = j->c.max_attempts ? j->c.max_attempts : 3;
                int requeue = cl[i].attempt < max_att;
                CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "job %s partition %u: cannot start it here (%s); %s",
                       cl[i].job_id, cl[i].idx, cz_error_msg(&serr), requeue ? "requeued" : "the job fails");
                (void)s->ops->fail(s, cl[i].job_id, cl[i].idx, j->c.owner, cl[i].attempt, requeue, "input",
                                   cz_error_msg(&serr), NULL);
                if (!requeue) job_finished(j, cl[i].job_id, 0);
            }
            pthread_mutex_lock(&j->mu);
            j->claims += got;
            pthread_mutex_unlock(&j->mu);
        }
        if (mono_s() >= next_watch || (hint & 2)) {
            poll_watches(j);
            next_watch = mono_s() + 0.25;
        }
        if (room && got == room) continue; /* there may be more */
        if (room && !failing) {
            hint = s->ops->wait_hint(s, 0.25); /* the queue is empty: a hint, or poll again */
        } else {
            pthread_mutex_lock(&j->mu);
            if (!j->stop_threads) cond_wait_s(&j->feed_cv, &j->mu, 0.25);
            pthread_mutex_unlock(&j->mu);
            hint = 0;
        }
    }
    free(cl);
    free(prefer);
    free(pref_ids);
    free(avoid);
    free(avoid_ids);
    return NULL;
}

typedef struct held_ref {
    char id[CZ_STORE_ID_MAX];
    uint32_t idx, attempt;
} held_ref;

/* The heartbeat: renews this host's leases, cancels what it lost, takes
 * back what silent hosts held. Its own thread and database connection. */
static void *hb_main(void *arg)
{
    cz_jobs *j = arg;
    cz_store *s = j->c.store;
    const double lease = j->c.lease_s > 0 ? j->c.lease_s : 30;
    const double period = lease / 4 < 0.25 ? 0.25 : lease / 4;
    int failing = 0;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        if (!j->stop_threads) cond_wait_s(&j->hb_cv, &j->mu, period);
        int stop = j->stop_threads;
        size_t n = 0;
        for (djob *dj = j->jobs; dj; dj = dj->next) n++;
        held_ref *mine = calloc(n ? n : 1, sizeof *mine);
        size_t m = 0;
        for (djob *dj = j->jobs; dj && mine; dj = dj->next)
            if (!dj->ended && !dj->lost && !dj->cancelled && dj->attempt[0]) {
                snprintf(mine[m].id, sizeof mine[m].id, "%s", dj->id);
                mine[m].idx = dj->idx[0];
                mine[m].attempt = dj->attempt[0];
                m++;
            }
        cz_store_host h;
        memset(&h, 0, sizeof h);
        snprintf(h.id, sizeof h.id, "%s", j->c.owner);
        h.started = j->started_at;
        snprintf(h.devices, sizeof h.devices, "%s", j->c.devices ? j->c.devices : "");
        snprintf(h.version, sizeof h.version, "%s", j->c.version ? j->c.version : "");
        h.done = j->parts_done;
        pthread_mutex_unlock(&j->mu);
        if (stop) {
            free(mine);
            break;
        }
        cz_store_claim *held = NULL;
        size_t nh = 0;
        cz_error err;
        cz_error_clear(&err);
        if (s->ops->lease_renew(s, &h, &held, &nh, &err) != CZ_OK) {
            if (!failing++)
                CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "heartbeat: %s (retrying; the engine goes on)", cz_error_msg(&err));
            free(mine);
            continue;
        }
        if (failing) CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "heartbeat: the store answers again");
        failing = 0;
        for (size_t i = 0; i < m; i++) {
            int kept = 0;
            for (size_t q = 0; q < nh && !kept; q++)
                kept = held[q].idx == mine[i].idx && held[q].attempt == mine[i].attempt && !strcmp(held[q].job_id, mine[i].id);
            if (kept) continue;
            pthread_mutex_lock(&j->mu);
            djob *hit = NULL;
            for (djob *dj = j->jobs; dj && !hit; dj = dj->next)
                if (!dj->ended && !dj->lost && dj->ej && dj->idx[0] == mine[i].idx && dj->attempt[0] == mine[i].attempt &&
                    !strcmp(dj->id, mine[i].id))
                    hit = dj;
            if (hit) {
                hit->lost = 1;
                hit->pins++;
                j->lost++;
            }
            pthread_mutex_unlock(&j->mu);
            if (!hit) continue;
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs",
                   "job %s partition %u attempt %u: lease lost (taken over or cancelled elsewhere); cancelled here",
                   mine[i].id, mine[i].idx, mine[i].attempt);
            cz_job_cancel(hit->ej);
            pthread_mutex_lock(&j->mu);
            hit->pins--;
            pthread_cond_broadcast(&j->cv);
            pthread_mutex_unlock(&j->mu);
        }
        free(held);
        free(mine);
        uint64_t rq = 0, fl = 0;
        cz_error_clear(&err);
        if (s->ops->lease_expire(s, j->c.max_attempts ? j->c.max_attempts : 3, &rq, &fl, &err) != CZ_OK) {
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "lease expiry: %s", cz_error_msg(&err));
        } else if (rq || fl) {
            pthread_mutex_lock(&j->mu);
            j->expired += rq + fl;
            pthread_cond_broadcast(&j->feed_cv);
            pthread_mutex_unlock(&j->mu);
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs",
                   "leases ran out: %llu partition%s queued again, %llu failed (max_attempts reached)",
                   (unsigned long long)rq, rq == 1 ? "" : "s", (unsigned long long)fl);
        }
    }
    return NULL;
}

int cz_jobs_store_ok(cz_jobs *j, char *msg, size_t cap)
{
    cz_store *s = j->c.store;
    if (msg && cap) msg[0] = '\0';
    return !s->ops->healthy || s->ops->healthy(s, msg, cap);
}

cz_status cz_jobs_hosts(cz_jobs *j, cz_store_host **out, size_t *n, cz_error *err)
{
    *out = NULL;
    *n = 0;
    if (!j->shared) return CZ_OK;
    return j->c.store->ops->hosts(j->c.store, out, n, err);
}

/* Remembers a submit whose commit is unknown (for resolve_unsure; once). */
static void unsure_add(cz_jobs *j, const char *id, double at)
{
    pthread_mutex_lock(&j->mu);
    int have = 0;
    for (size_t i = 0; i < j->n_unsure && !have; i++) have = !strcmp(j->unsure[i].id, id);
    if (!have && j->n_unsure < UNSURE_MAX) {
        snprintf(j->unsure[j->n_unsure].id, sizeof j->unsure[0].id, "%s", id);
        j->unsure[j->n_unsure++].at = at;
    }
    pthread_mutex_unlock(&j->mu);
}

/* The shared spool's sweep: a directory is kept while the store knows its
 * job unfinished and while the store does not answer; one the store does
 * not know is kept for an hour after it was made (another host may be
 * between moving its uploads in and its commit), unless this host made it
 * before it started: then it is resolved like an interrupted submit. The
 * directories of jobs that ended are removed by the host that recorded the
 * end; this sweep (on a host's first tick, then every 10 min) takes those a
 * host killed between the two left behind. */
static int spool_keep_shared(void *ctx, const char *name)
{
    cz_jobs *j = ctx;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", cz_spool_dir(j->c.spool), name);
    cz_store_job sj;
    int found = 0;
    if (j->c.store->ops->job_get(j->c.store, name, &sj, &found, NULL) != CZ_OK) return 1;
    if (found) return !cz_job_state_final(sj.state); /* (a job id is never used twice) */
    /* Made by this host before it started (killed between the move and the store's commit):
     * no commit of it is in progress any more, but one sent just before the kill may still
     * land, so it is resolved like a submit the store went away during (UNSURE_GRACE_S from
     * now). Another host's stays for an hour: its commit may be in progress. */
    double made;
    if (cz_spool_job_ours(j->c.spool, name, &made) && made < j->started_at) {
        unsure_add(j, name, now_s());
        return 1;
    }
    struct stat sb;
    return stat(path, &sb) == 0 && (double)sb.st_mtime > now_s() - 3600;
}

static int spool_keep(void *ctx, const char *name)
{
    cz_jobs *j = ctx;
    cz_store_job sj;
    int found = 0;
    return j->c.store->ops->job_get(j->c.store, name, &sj, &found, NULL) == CZ_OK && found &&
           !cz_job_state_final(sj.state);
}

cz_status cz_jobs_create(cz_jobs **out, const cz_jobs_config *c, cz_error *err)
{
    *out = NULL;
    cz_jobs *j = calloc(1, sizeof *j);
    if (!j) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    j->c = *c;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_cond_init(&j->feed_cv, NULL);
    pthread_cond_init(&j->hb_cv, NULL);
    j->q_tail = &j->q;
    j->shared = c->store->ops->shared;
    j->started_at = now_s();
    if (j->shared && (!c->store->ops->claim_next || !c->store->ops->lease_renew || !c->store->ops->lease_expire ||
                      !c->store->ops->hosts || !c->store->ops->wait_hint || !c->store->ops->healthy)) {
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->cv);
        pthread_cond_destroy(&j->feed_cv);
        pthread_cond_destroy(&j->hb_cv);
        free(j);
        return cz_error_set(err, CZ_ERR_INTERNAL, "store %s: shared, but without the calls of a shared store",
                            c->store->ops->name);
    }
    cz_store *s = c->store;
    cz_status st;
    /* keys */
    cz_store_key *keys = NULL;
    size_t nk = 0;
    if ((st = s->ops->key_list(s, &keys, &nk, err)) != CZ_OK) goto fail;
    for (size_t i = 0; i < nk; i++) {
        dkey *k;
        cz_error kerr;
        cz_error_clear(&kerr);
        if (key_attach(j, &keys[i], &k, &kerr) != CZ_OK)
            CZ_LOG(&c->log, CZ_LOG_ERROR, "jobs", "key %s (%s) cannot be registered again: %s", keys[i].id,
                   keys[i].path, cz_error_msg(&kerr));
    }
    free(keys);
    if (pthread_create(&j->th, NULL, event_main, j) != 0) {
        st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the job event thread");
        goto fail;
    }
    j->started = 1;
    /* jobs: what was running when the process ended is queued again */
    uint64_t requeued = 0;
    if ((st = s->ops->recover(s, c->owner, &requeued, err)) != CZ_OK) goto fail;
    if (j->shared) { /* pulled: the feeder claims, the heartbeat keeps the leases */
        /* (a shared spool: another host may be between moving an upload in and its commit; expiry
         * removes the directories of the jobs it knows, so no sweep of unknown ones here) */
        if (pthread_create(&j->hb_th, NULL, hb_main, j) != 0) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the heartbeat thread");
            goto fail;
        }
        j->hb_started = 1;
        if (pthread_create(&j->feed_th, NULL, feed_main, j) != 0) {
            st = cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot start the claim thread");
            goto fail;
        }
        j->feed_started = 1;
        if (requeued)
            CZ_LOG(&c->log, CZ_LOG_INFO, "jobs", "%llu partition%s this host held before a restart queued again",
                   (unsigned long long)requeued, requeued == 1 ? "" : "s");
        *out = j;
        return CZ_OK;
    }
    cz_spool_gc(c->spool, spool_keep, j);
    cz_store_job *u = NULL;
    size_t nu = 0;
    if ((st = s->ops->jobs_unfinished(s, &u, &nu, err)) != CZ_OK) goto fail;
    size_t resumed = 0;
    for (size_t i = 0; i < nu; i++) {
        cz_store_part *parts = NULL;
        size_t np = 0;
        cz_error jerr;
        cz_error_clear(&jerr);
        cz_status js = s->ops->parts_get(s, u[i].id, 0, &parts, &np, &jerr);
        if (js == CZ_OK) js = engine_start(j, &u[i], parts, np, &jerr);
        if (js == CZ_OK)
            resumed++;
        else if (parts)
            fail_job(j, u[i].id, parts, np, js, &jerr);
        cz_store_parts_free(parts, np);
    }
    free(u);
    if (nu || requeued)
        CZ_LOG(&c->log, CZ_LOG_INFO, "jobs", "recovered %zu unfinished job%s (%llu partition%s were running)", resumed,
               resumed == 1 ? "" : "s", (unsigned long long)requeued, requeued == 1 ? "" : "s");
    *out = j;
    return CZ_OK;
fail:
    cz_jobs_free(j);
    return st;
}

void cz_jobs_free(cz_jobs *j)
{
    if (!j) return;
    pthread_mutex_lock(&j->mu);
    j->closing = 1;
    j->stop_threads = 1;
    pthread_cond_broadcast(&j->feed_cv);
    pthread_cond_broadcast(&j->hb_cv);
    pthread_mutex_unlock(&j->mu);
    if (j->feed_started) pthread_join(j->feed_th, NULL);
    if (j->hb_started) pthread_join(j->hb_th, NULL);
    /* The engine's jobs: cancelled without recording it (they stay as the
     * store has them; the event thread drops their events). Each is cancelled
     * outside the lock (the partitions a cancel ends are reported on this
     * thread, through on_event), pinned meanwhile; the event thread frees
     * it at its job event, as always: it owns the djobs and their engine
     * jobs, whose events may still be queued. */
    for (;;) {
        pthread_mutex_lock(&j->mu);
        djob *dj = j->jobs;
        while (dj && (dj->cancelled || !dj->ej)) dj = dj->next; /* (cancelled by a request: ending already) */
        if (dj) {
            dj->cancelled = 1;
            dj->pins++;
        }
        pthread_mutex_unlock(&j->mu);
        if (!dj) break;
        cz_job_cancel(dj->ej);
        pthread_mutex_lock(&j->mu);
        dj->pins--;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
    if (j->started) { /* every job's end handled, then the thread stops */
        pthread_mutex_lock(&j->mu);
        while (j->jobs || j->q || j->q_busy) pthread_cond_wait(&j->cv, &j->mu);
        j->stop = 1;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
        pthread_join(j->th, NULL);
    }
    if (j->shared && j->started) { /* what this host still held goes back to the queue for the others now */
        uint64_t rq = 0;
        cz_error rerr;
        cz_error_clear(&rerr);
        if (j->c.store->ops->recover(j->c.store, j->c.owner, &rq, &rerr) != CZ_OK)
            CZ_LOG(&j->c.log, CZ_LOG_WARN, "jobs", "giving back the claimed partitions: %s (their leases will run out)",
                   cz_error_msg(&rerr));
        else if (rq)
            CZ_LOG(&j->c.log, CZ_LOG_INFO, "jobs", "%llu claimed partition%s given back to the queue",
                   (unsigned long long)rq, rq == 1 ? "" : "s");
    }
    /* (without the event thread no job was handed to the engine) */
    while (j->watches) { /* nobody waits past the end */
        watch *w = j->watches;
        j->watches = w->next;
        w->fn(w->ctx);
        free(w);
    }
    while (j->keys) {
        dkey *k = j->keys;
        j->keys = k->next;
        cz_engine_key_remove(j->c.engine, k->ek);
        free(k);
    }
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    pthread_cond_destroy(&j->feed_cv);
    pthread_cond_destroy(&j->hb_cv);
    free(j);
}

/* ---- submit ---- */

/* out = s with every occurrence of what replaced by with (cut to cap) */
static void replace_all(char *out, size_t cap, const char *s, const char *what, const char *with)
{
    size_t o = 0, wl = strlen(what), nl = strlen(with);
    while (*s && o + 1 < cap) {
        if (wl && !strncmp(s, what, wl)) {
            size_t k = nl < cap - 1 - o ? nl : cap - 1 - o;
            memcpy(out + o, with, k);
            o += k;
            s += wl;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = '\0';
}

static cz_status refuse(cz_jobs_refusal *why, cz_jobs_refusal w, cz_error *err, cz_status st, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static cz_status refuse(cz_jobs_refusal *why, cz_jobs_refusal w, cz_error *err, cz_status st, const char *fmt, ...)
{
    *why = w;
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return cz_error_set(err, st, "%s", m);
}

cz_status cz_jobs_submit(cz_jobs *j, const cz_jobs_submit_req *r, cz_store_job *out, int *existing,
                         cz_jobs_refusal *why, cz_error *err)
{
    *existing = 0;
    *why = CZ_REFUSE_NONE;
    cz_store *s = j->c.store;
    cz_error kerr;
    cz_error_clear(&kerr);
    (void)key_lookup(j, r->key_id ? r->key_id : "", &kerr);
    pthread_mutex_lock(&j->mu);
    int draining = j->draining;
    dkey *k = key_find_locked(j, r->key_id ? r->key_id : "");
    cz_store_key sk;
    cz_engine_key *ek = k ? k->ek : NULL;
    if (k) sk = k->sk;
    pthread_mutex_unlock(&j->mu);
    if (draining)
        return refuse(why, CZ_REFUSE_UNAVAILABLE, err, CZ_ERR_UNSUPPORTED, "the daemon is shutting down");
    const int prio = cz_jobs_priority(r->priority);
    if (prio < 0)
        return refuse(why, CZ_REFUSE_BAD_REQUEST, err, CZ_ERR_INVALID_ARG,
                      "priority '%s': expected critical, high, normal or low", r->priority);
    if (r->n == 0) return refuse(why, CZ_REFUSE_BAD_REQUEST, err, CZ_ERR_INVALID_ARG, "partitions: none given");
    if (r->n > j->c.max_parts)
        return refuse(why, CZ_REFUSE_BAD_REQUEST, err, CZ_ERR_INVALID_ARG, "partitions: %zu, at most %u", r->n,
                      j->c.max_parts);
    if (r->idem_key && strlen(r->idem_key) >= CZ_STORE_IDEM_MAX)
        return refuse(why, CZ_REFUSE_BAD_REQUEST, err, CZ_ERR_INVALID_ARG,
                      "idempotency_key: longer than %d bytes", CZ_STORE_IDEM_MAX - 1);
    if (!ek) return refuse(why, CZ_REFUSE_UNKNOWN_KEY, err, CZ_ERR_INVALID_ARG, "key '%s' is not registered",
                          r->key_id ? r->key_id : "");
    /* the inputs: headers checked against the key */
    const cz_zkey *zi = cz_engine_key_info(ek);
    size_t wmax = 0;
    gnutls_hash_hd_t h;
    if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
        return refuse(why, CZ_REFUSE_INTERNAL, err, CZ_ERR_INTERNAL, "SHA-256 is not available");
    gnutls_hash(h, sk.id, strlen(sk.id));
    gnutls_hash(h, r->priority ? r->priority : "normal", strlen(r->priority ? r->priority : "normal"));
    for (size_t i = 0; i < r->n; i++) {
        const cz_jobs_part_in *p = &r->parts[i];
        const char *path = p->upload ? p->upload->tmp : p->witness;
        cz_synth *sy = NULL;
        cz_error perr;
        cz_error_clear(&perr);
        cz_status st = cz_native_synth_file(&sy, path, zi->curve, j->c.pce_dir, &perr);
        if (st == CZ_OK) st = cz_synth_check(sy, zi, sk.path, &perr);
        cz_synth_info si;
        if (st == CZ_OK) st = cz_synth_info_get(sy, &si, &perr);
        cz_synth_free(sy);
        if (st != CZ_OK) {
            gnutls_hash_deinit(h, NULL);
            char msg[sizeof perr.msg];
            if (p->upload) /* the spool's own file names stay inside the daemon */
                replace_all(msg, sizeof msg, cz_error_msg(&perr), path, "the upload");
            else
                snprintf(msg, sizeof msg, "%s", cz_error_msg(&perr));
            return refuse(why, st == CZ_ERR_IO && !p->upload ? CZ_REFUSE_BAD_REQUEST : CZ_REFUSE_INPUT, err, st,
                          "partition %zu (%s): %s", i, p->upload ? "uploaded witness" : p->witness, msg);
        }
        if (si.witness_bytes > wmax) wmax = si.witness_bytes;
        char tag[64];
        snprintf(tag, sizeof tag, "|%zu|", i);
        gnutls_hash(h, tag, strlen(tag));
        if (p->upload)
            gnutls_hash(h, p->upload->sha256, sizeof p->upload->sha256);
        else
            gnutls_hash(h, p->witness, strlen(p->witness));
    }
    uint8_t digest[32];
    gnutls_hash_deinit(h, digest);
    cz_engine_admission adm;
    cz_engine_admit(j->c.engine, ek, wmax, &adm);
    if (!adm.fits)
        return refuse(why, CZ_REFUSE_BUDGET, err, CZ_ERR_BUDGET,
                      "the job needs %zu bytes (%zu MiB: key %zu MiB and one partition) at least; the memory budget "
                      "is %zu bytes (%zu MiB)",
                      cz_engine_key_bytes(ek) + adm.need - adm.key_bytes,
                      (cz_engine_key_bytes(ek) + adm.need - adm.key_bytes) >> 20, cz_engine_key_bytes(ek) >> 20,
                      adm.limit, adm.limit >> 20);
    if (adm.devices_in_service == 0)
        return refuse(why, CZ_REFUSE_UNAVAILABLE, err, CZ_ERR_NO_DEVICE, "no device is in service");
    cz_store_counts cnt;
    cz_error serr;
    cz_error_clear(&serr);
    if (s->ops->counts(s, &cnt, &serr) != CZ_OK)
        return refuse(why, store_down(j) ? CZ_REFUSE_UNAVAILABLE : CZ_REFUSE_INTERNAL, err, CZ_ERR_IO, "%s",
                      cz_error_msg(&serr));
    uint64_t unfinished = cnt.jobs[CZ_JOB_QUEUED] + cnt.jobs[CZ_JOB_RUNNING];
    if (unfinished >= j->c.max_jobs)
        return refuse(why, CZ_REFUSE_FULL, err, CZ_ERR_BUDGET, "%llu jobs are queued or running, the limit is %llu",
                      (unsigned long long)unfinished, (unsigned long long)j->c.max_jobs);

    /* the job: id, spool, store */
    cz_store_job sj;
    memset(&sj, 0, sizeof sj);
    uint8_t rnd[8];
    if (cz_os_random(rnd, sizeof rnd) != CZ_OK)
        return refuse(why, CZ_REFUSE_INTERNAL, err, CZ_ERR_IO, "the OS random source failed");
    sj.id[0] = 'j';
    sj.id[1] = '_';
    hex(sj.id + 2, rnd, sizeof rnd);
    snprintf(sj.key_id, sizeof sj.key_id, "%s", sk.id);
    snprintf(sj.priority, sizeof sj.priority, "%s", r->priority && *r->priority ? r->priority : "normal");
    sj.state = CZ_JOB_QUEUED;
    sj.n_parts = (uint32_t)r->n;
    sj.created = now_s();
    if (r->idem_key) snprintf(sj.idem_key, sizeof sj.idem_key, "%s", r->idem_key);
    hex(sj.idem_hash, digest, sizeof digest);
    cz_store_part *parts = calloc(r->n, sizeof *parts);
    size_t nup = 0;
    for (size_t i = 0; i < r->n; i++) nup += r->parts[i].upload != NULL;
    cz_spool_file *ups = nup ? calloc(nup, sizeof *ups) : NULL;
    char(*paths)[4200] = nup ? calloc(nup, sizeof *paths) : NULL;
    if (!parts || (nup && (!ups || !paths))) {
        free(parts);
        free(ups);
        free(paths);
        return refuse(why, CZ_REFUSE_INTERNAL, err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    for (size_t i = 0, q = 0; i < r->n; i++)
        if (r->parts[i].upload) ups[q++] = *r->parts[i].upload;
    cz_status st = CZ_OK;
    if (nup) st = cz_spool_commit(j->c.spool, sj.id, ups, nup, paths, &serr); /* (ups: copies; r's keep their names) */
    if (st == CZ_OK) {
        for (size_t i = 0, q = 0; i < r->n; i++) {
            parts[i].idx = (uint32_t)i;
            parts[i].state = CZ_PART_QUEUED;
            if (r->parts[i].upload) {
                snprintf(parts[i].witness, sizeof parts[i].witness, "%s", paths[q++]);
                parts[i].spooled = 1;
            } else {
                snprintf(parts[i].witness, sizeof parts[i].witness, "%s", r->parts[i].witness);
            }
        }
        st = s->ops->submit(s, &sj, parts, out, existing, &serr);
        /* A shared store that went away during the submit may have committed it (its answer lost):
         * the job would then exist, found again by its idempotency key, and need its witnesses. They
         * stay in its directory; if it was not committed, a tick once the store is back removes it
         * (resolve_unsure; else the shared spool's sweep, after an hour). */
        int unsure = st != CZ_OK && j->shared && store_down(j);
        if (unsure && nup) {
            for (size_t i = 0; i < r->n; i++)
                if (r->parts[i].upload) r->parts[i].upload->tmp[0] = '\0'; /* moved (not the caller's to abort) */
            unsure_add(j, sj.id, now_s());
        } else if (st != CZ_OK || *existing) {
            if (nup) { /* not ours after all: the uploads go back for the caller to abort */
                for (size_t i = 0, q = 0; i < r->n; i++)
                    if (r->parts[i].upload) rename(paths[q++], r->parts[i].upload->tmp);
                cz_spool_remove_job(j->c.spool, sj.id);
            }
        } else {
            for (size_t i = 0; i < r->n; i++)
                if (r->parts[i].upload) r->parts[i].upload->tmp[0] = '\0'; /* moved */
        }
    }
    free(ups);
    free(paths);
    if (st != CZ_OK) {
        free(parts);
        if (st == CZ_ERR_MISMATCH)
            return refuse(why, CZ_REFUSE_CONFLICT, err, st, "idempotency_key '%s' was used for other inputs (%s)",
                          r->idem_key ? r->idem_key : "", cz_error_msg(&serr));
        return refuse(why, store_down(j) ? CZ_REFUSE_UNAVAILABLE : CZ_REFUSE_INTERNAL, err, st, "%s",
                      cz_error_msg(&serr));
    }
    if (*existing) {
        free(parts);
        return CZ_OK;
    }
    pthread_mutex_lock(&j->mu);
    j->accepted++;
    pthread_mutex_unlock(&j->mu);
    if (j->c.metrics) cz_metrics_job_accepted(j->c.metrics);
    job_event(j, CZ_LOG_INFO, "accepted", sj.id, "key %s, %u partition%s, priority %s", sj.key_id, sj.n_parts,
              sj.n_parts == 1 ? "" : "s", sj.priority);
    if (j->shared) { /* claimed by whichever host can start it (the hint wakes the feeders) */
        pthread_mutex_lock(&j->mu);
        pthread_cond_broadcast(&j->feed_cv);
        pthread_mutex_unlock(&j->mu);
        free(parts);
        return CZ_OK;
    }
    cz_error eerr;
    cz_error_clear(&eerr);
    if ((st = engine_start(j, out, parts, r->n, &eerr)) != CZ_OK) fail_job(j, out->id, parts, r->n, st, &eerr);
    free(parts);
    return CZ_OK;
}

/* ---- reads, cancel, delete ---- */

cz_status cz_jobs_get(cz_jobs *j, const char *id, cz_store_job *job, cz_store_part **parts, size_t *n,
                      cz_jobs_progress **progress, int with_results, int *found, cz_error *err)
{
    cz_store *s = j->c.store;
    if (parts) *parts = NULL;
    if (n) *n = 0;
    if (progress) *progress = NULL;
    cz_status st = s->ops->job_get(s, id, job, found, err);
    if (st != CZ_OK || !*found || !parts) return st;
    if ((st = s->ops->parts_get(s, id, with_results, parts, n, err)) != CZ_OK) return st;
    if (!progress) return CZ_OK;
    cz_jobs_progress *pg = calloc(*n ? *n : 1, sizeof *pg);
    if (!pg) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < *n; i++) pg[i].stage = -1;
    pthread_mutex_lock(&j->mu);
    for (djob *dj = j->jobs; dj; dj = dj->next)
        if (!strcmp(dj->id, id))
            for (size_t i = 0; i < *n && i < dj->n_store; i++) pg[i] = dj->progress[i];
    pthread_mutex_unlock(&j->mu);
    *progress = pg;
    return CZ_OK;
}

cz_status cz_jobs_mark_fetched(cz_jobs *j, const char *id, cz_error *err)
{
    return j->c.store->ops->mark_fetched(j->c.store, id, err);
}

cz_status cz_jobs_delete(cz_jobs *j, const char *id, int *found, int *removed, cz_error *err)
{
    cz_store *s = j->c.store;
    *removed = 0;
    cz_store_job sj;
    cz_status st = s->ops->job_get(s, id, &sj, found, err);
    if (st != CZ_OK || !*found) return st;
    if (cz_job_state_final(sj.state)) {
        if ((st = s->ops->job_delete(s, id, err)) != CZ_OK) return st;
        cz_spool_remove_job(j->c.spool, id);
        *removed = 1;
        return CZ_OK;
    }
    int changed = 0;
    if ((st = s->ops->cancel(s, id, &changed, err)) != CZ_OK) return st;
    pthread_mutex_lock(&j->mu);
    djob *hit = NULL;
    for (djob *dj = j->jobs; dj; dj = dj->next)
        if (!strcmp(dj->id, id)) {
            dj->cancelled = 1;
            if (dj->ej && !hit) {
                dj->pins++; /* the event thread frees ej at the job's end: not before we are done */
                hit = dj;
            }
        }
    if (changed) j->cancelled++;
    pthread_mutex_unlock(&j->mu);
    /* Outside the lock: cz_job_cancel reports the partitions it ends on this
     * thread, through on_event, which takes j->mu. */
    if (hit) {
        cz_job_cancel(hit->ej);
        pthread_mutex_lock(&j->mu);
        hit->pins--;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
    if (changed) {
        if (j->c.metrics) cz_metrics_job_end(j->c.metrics, CZ_JOB_CANCELLED, now_s() - sj.created);
        job_event(j, CZ_LOG_INFO, "cancelled", id, "by a request");
        fire_watches(j, id);
    }
    return CZ_OK;
}

void *cz_jobs_watch(cz_jobs *j, const char *id, cz_jobs_watch_fn fn, void *ctx)
{
    watch *w = calloc(1, sizeof *w);
    if (!w) {
        fn(ctx);
        return NULL;
    }
    snprintf(w->id, sizeof w->id, "%s", id);
    w->fn = fn;
    w->ctx = ctx;
    pthread_mutex_lock(&j->mu);
    w->next = j->watches;
    j->watches = w;
    pthread_mutex_unlock(&j->mu);
    /* it may have become final before the watch was in place */
    cz_store_job sj;
    int found = 0;
    if (j->c.store->ops->job_get(j->c.store, id, &sj, &found, NULL) != CZ_OK || !found ||
        cz_job_state_final(sj.state))
        fire_watches(j, id);
    return w;
}

void cz_jobs_unwatch(cz_jobs *j, void *handle)
{
    if (!handle) return;
    pthread_mutex_lock(&j->mu);
    for (watch **pp = &j->watches; *pp; pp = &(*pp)->next)
        if (*pp == handle) {
            *pp = ((watch *)handle)->next;
            free(handle);
            break;
        }
    pthread_mutex_unlock(&j->mu);
}

/* ---- housekeeping, shutdown, status ---- */

/* The submits of j->unsure old enough, against the store (which answers):
 * a job it knows keeps its directory (the job's own end removes it), one it
 * does not know was never committed and its directory goes. */
static void resolve_unsure(cz_jobs *j)
{
    char id[CZ_STORE_ID_MAX];
    for (;;) {
        int have = 0;
        pthread_mutex_lock(&j->mu);
        if (j->n_unsure && j->unsure[0].at <= now_s() - UNSURE_GRACE_S) { /* (in the order made) */
            memcpy(id, j->unsure[0].id, sizeof id);
            have = 1;
        }
        pthread_mutex_unlock(&j->mu);
        if (!have) return;
        cz_store_job sj;
        int found = 0;
        if (j->c.store->ops->job_get(j->c.store, id, &sj, &found, NULL) != CZ_OK) return; /* the next tick */
        if (!found) {
            cz_spool_remove_job(j->c.spool, id);
            job_event(j, CZ_LOG_INFO, "not committed", id,
                      "the store went away during its submit and does not know it: its spooled witnesses removed");
        }
        pthread_mutex_lock(&j->mu);
        if (j->n_unsure && !strcmp(j->unsure[0].id, id)) {
            memmove(&j->unsure[0], &j->unsure[1], (j->n_unsure - 1) * sizeof j->unsure[0]);
            j->n_unsure--;
        }
        pthread_mutex_unlock(&j->mu);
    }
}

void cz_jobs_tick(cz_jobs *j)
{
    cz_store *s = j->c.store;
    if (store_down(j)) return; /* (the heartbeat says so, once; expiry waits for the store) */
    if (j->shared) resolve_unsure(j);
    if (j->shared && ++j->ticks % 600 == 1) /* the first tick, then every 10 min (spool_keep_shared) */
        cz_spool_gc(j->c.spool, spool_keep_shared, j);
    (void)s->ops->heartbeat(s, j->c.owner, NULL);
    for (;;) {
        cz_store_job *ex = NULL;
        size_t n = 0;
        cz_error err;
        cz_error_clear(&err);
        if (s->ops->expired(s, now_s() - j->c.retention_s, j->c.keep_until_fetched, 64, &ex, &n, &err) != CZ_OK) {
            CZ_LOG(&j->c.log, CZ_LOG_ERROR, "jobs", "expiry: %s", cz_error_msg(&err));
            free(ex);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            cz_spool_remove_job(j->c.spool, ex[i].id);
            if (s->ops->job_delete(s, ex[i].id, &err) == CZ_OK)
                job_event(j, CZ_LOG_DEBUG, "expired", ex[i].id, "finished %.0f s ago", now_s() - ex[i].finished);
        }
        free(ex);
        if (n < 64) return;
    }
}

int cz_jobs_drain(cz_jobs *j, double grace_s)
{
    pthread_mutex_lock(&j->mu);
    j->draining = 1;
    pthread_mutex_unlock(&j->mu);
    cz_engine_drain(j->c.engine, 1);
    double end = now_s() + grace_s;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int idle = !j->q && !j->q_busy;
        pthread_mutex_unlock(&j->mu);
        if (cz_engine_in_flight(j->c.engine) == 0 && idle) return 1;
        if (now_s() >= end) return 0;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void cz_jobs_status_get(cz_jobs *j, cz_jobs_status *out)
{
    memset(out, 0, sizeof *out);
    (void)j->c.store->ops->counts(j->c.store, &out->store, NULL);
    pthread_mutex_lock(&j->mu);
    for (djob *dj = j->jobs; dj; dj = dj->next) out->engine_jobs++;
    out->accepted = j->accepted;
    out->done = j->done;
    out->failed = j->failed;
    out->cancelled = j->cancelled;
    out->draining = j->draining;
    out->shared = j->shared;
    out->claims = j->claims;
    out->results_fenced = j->fenced;
    out->leases_lost = j->lost;
    out->leases_expired = j->expired;
    for (djob *dj = j->jobs; dj; dj = dj->next) out->held += j->shared && !dj->ended;
    pthread_mutex_unlock(&j->mu);
    cz_store *s = j->c.store;
    out->store_healthy = !s->ops->healthy || s->ops->healthy(s, out->store_error, sizeof out->store_error);
}
