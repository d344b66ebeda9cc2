/*
 * daemon/jobs: the daemon's job manager, between the HTTP handlers, the
 * store (daemon/store.h), the spool (daemon/spool.h) and the engine.
 *
 * DESIGN: the store is the truth; the engine only holds what this process
 * is proving now. A job accepted by cz_jobs_submit is committed to the store
 * first, then handed to the engine (its partitions that are not done, each
 * a cz_synth over its .wtns file, read when the partition is synthesized,
 * or over a built-in circuit's partition file: cz_native_synth_file).
 * The engine's events go through a queue to the manager's one event
 * thread, which writes them to the store in order: a partition entering
 * synthesis claims it (attempt n), its end completes or fails it, fenced by
 * that attempt; the job's end frees the engine's job, removes the job's
 * spool directory (its results are in the store) and wakes the watchers of
 * the job (long-polls). Because every state change is in the store before
 * it is acted upon, a process killed at any instant restarts with
 * cz_jobs_create: running partitions are requeued (cz_store recover) and
 * every job that is not final goes back to the engine; a done partition is
 * never proved again, an accepted job is never lost.
 *
 * Keys: registered by path (confined by the caller to the allowed
 * directories), their id derived from the canonical path (the same file,
 * the same id), kept in the store and registered with the engine again at
 * start. Housekeeping (cz_jobs_tick, once a second): expiry of finished jobs
 * past the retention, store heartbeat.
 *
 * Shutdown: cz_jobs_drain stops new partitions and waits (up to a grace
 * time) for those in flight to finish and be recorded; what is left stays
 * queued in the store for the next start.
 *
 * A shared store (ops->shared: PostgreSQL, several hosts; docs/CLUSTER.md)
 * is pulled instead of pushed: an accepted job is only committed (and the
 * other hosts hinted); a feeder thread claims the partitions this host can
 * start now (cz_store claim_next: the highest priority first, the keys this
 * engine has loaded next, then age; never those of a key that can never fit
 * this host's memory budget, none while no device is in service), enough
 * to keep claim_ahead of them
 * waiting in the engine ahead of synthesis so that the device never waits
 * for a claim, and hands each to the engine as a job of one partition (its
 * key registered from the store if this host has not seen it). A heartbeat
 * thread of its own (proving never delays it) renews this host's leases
 * every lease_s / 4, cancels in the engine what the answer says this host
 * lost (taken over after its lease ran out, or cancelled by another host),
 * and takes back the partitions of hosts whose lease ran out (lease_expire,
 * up to max_attempts claims each). Results are written with the claim's
 * attempt: a late one is refused by the store's fence (logged, counted in
 * results_fenced). A device error requeues the partition for another
 * attempt (on any host) until max_attempts. The job's end is seen by the
 * host that recorded its last partition; the long-polls of other hosts are
 * answered by polling the store (every 250 ms, sooner on a hint). While the
 * database does not answer, the engine goes on proving, results are
 * retried until they are recorded, and submissions are refused (503).
 * The single-host SQLite store keeps the push path: each accepted job is
 * handed to the engine whole, claimed as its partitions start.
 */
#ifndef CZ_DAEMON_JOBS_H
#define CZ_DAEMON_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/spool.h"
#include "daemon/store.h"
#include "engine/engine.h"
#include "util/error.h"
#include "util/log.h"

typedef struct cz_metrics cz_metrics;
typedef struct cz_jobs cz_jobs;

typedef struct cz_jobs_config {
    cz_engine *engine;
    cz_store *store;
    cz_spool *spool;
    cz_metrics *metrics; /* may be NULL */
    cz_logger log;
    int json_events;     /* 1: job event lines as JSON objects */
    const char *owner;   /* this host (claims in the store) */
    double retention_s;
    int keep_until_fetched;
    uint64_t max_jobs; /* not final at most (CZ_ERR_BUDGET... no: see cz_jobs_submit) */
    uint32_t max_parts;
    /* shared stores */
    uint32_t claim_ahead;  /* partitions claimed and waiting for synthesis (0: 3) */
    uint32_t max_attempts; /* claims of a partition at most (0: 3) */
    double lease_s;        /* the store's lease (0: 30); heartbeat every lease_s / 4 */
    const char *devices;   /* this host's devices, for the hosts list */
    const char *version;
    const char *pce_dir;   /* circuits written in C: their recorded R1CS files (NULL: in memory only) */
} cz_jobs_config;

/* Recovers what the store holds (keys registered with the engine, jobs not
 * final handed to it) and starts the event thread. */
cz_status cz_jobs_create(cz_jobs **out, const cz_jobs_config *c, cz_error *err);
/* After cz_jobs_drain. Frees the engine's jobs (cancelling them without
 * recording it: they stay as they are in the store). */
void cz_jobs_free(cz_jobs *j);

/* Priority classes and their engine priorities: critical 30, high 20,
 * normal 10, low 0. -1 for an unknown name. */
int cz_jobs_priority(const char *cls);

/* ---- keys ---- */

typedef struct cz_jobs_key_info {
    cz_store_key key;
    cz_engine_key_state state;
    char error[256];
    size_t bytes;
    uint32_t domain_size, n_vars, n_public;
    int curve; /* cz_curve */
    int jobs;  /* not final, in the store */
    uint32_t resident; /* devices holding it */
    size_t vram_need;  /* cz_engine_key_vram_need */
} cz_jobs_key_info;

/* Registers (or finds) the key at a canonical path and starts loading it.
 * *created = 1 when it was not registered before. */
cz_status cz_jobs_key_add(cz_jobs *j, const char *canonical, cz_jobs_key_info *out, int *created, cz_error *err);
/* id, or a canonical path already registered. found = 0 when unknown. */
cz_status cz_jobs_key_get(cz_jobs *j, const char *id_or_path, cz_jobs_key_info *out, int *found, cz_error *err);
cz_status cz_jobs_key_list(cz_jobs *j, cz_jobs_key_info **out, size_t *n, cz_error *err);
/* CZ_ERR_MISMATCH while jobs that are not final use it. */
cz_status cz_jobs_key_remove(cz_jobs *j, const char *id, cz_error *err);

/* ---- jobs ---- */

typedef struct cz_jobs_part_in {
    char witness[4200]; /* a path (confined by the caller), or "" for an upload */
    cz_spool_file *upload; /* an upload finished in the spool, or NULL */
} cz_jobs_part_in;

typedef struct cz_jobs_submit_req {
    const char *key_id;
    const char *priority;  /* class */
    const char *idem_key;  /* may be NULL */
    cz_jobs_part_in *parts;
    size_t n;
} cz_jobs_submit_req;

/* What cz_jobs_submit refused, for the HTTP status: */
typedef enum cz_jobs_refusal {
    CZ_REFUSE_NONE = 0,
    CZ_REFUSE_BAD_REQUEST, /* 400: a field */
    CZ_REFUSE_UNKNOWN_KEY, /* 404 */
    CZ_REFUSE_INPUT,       /* 422: a witness that is malformed or does not fit the key */
    CZ_REFUSE_CONFLICT,    /* 409: the idempotency key came with other inputs */
    CZ_REFUSE_BUDGET,      /* 422: can never fit the memory budget (the message says how much it needs) */
    CZ_REFUSE_FULL,        /* 429: too many jobs queued */
    CZ_REFUSE_UNAVAILABLE, /* 503: shutting down, no device */
    CZ_REFUSE_INTERNAL,    /* 500: the store or the disk failed */
} cz_jobs_refusal;

/* Accepts a job: checks it, moves its uploads into the spool's job
 * directory, commits it to the store and hands it to the engine. On CZ_OK
 * out is the job (*existing = 1: an earlier job with the same idempotency
 * key and inputs, nothing new). Uploads are consumed on success and left to
 * the caller (to abort) on failure. */
cz_status cz_jobs_submit(cz_jobs *j, const cz_jobs_submit_req *r, cz_store_job *out, int *existing,
                         cz_jobs_refusal *why, cz_error *err);

/* Live progress of a partition (not stored): its stage and device. */
typedef struct cz_jobs_progress {
    int stage; /* -1 not started or ended, else cz_partition_stage */
    int device;
} cz_jobs_progress;

/* The job, its partitions (with results when with_results) and live
 * progress (n entries, may be NULL). found = 0 when unknown. */
cz_status cz_jobs_get(cz_jobs *j, const char *id, cz_store_job *job, cz_store_part **parts, size_t *n,
                      cz_jobs_progress **progress, int with_results, int *found, cz_error *err);
cz_status cz_jobs_mark_fetched(cz_jobs *j, const char *id, cz_error *err);
/* Cancels a job that is not final, or removes a final one (*removed = 1).
 * found = 0 when unknown. */
cz_status cz_jobs_delete(cz_jobs *j, const char *id, int *found, int *removed, cz_error *err);

/* Calls fn(ctx) once when job id is final (at once, on this thread, when it
 * is already or unknown); returns a handle for cz_jobs_unwatch. fn runs on
 * the event thread, without locks held; it must be quick. */
typedef void (*cz_jobs_watch_fn)(void *ctx);
void *cz_jobs_watch(cz_jobs *j, const char *id, cz_jobs_watch_fn fn, void *ctx);
/* Removes a watch that has not fired (no-op after it fired). After it
 * returns fn will not run. */
void cz_jobs_unwatch(cz_jobs *j, void *handle);

/* Housekeeping: expiry, heartbeat. Called once a second by the daemon. */
void cz_jobs_tick(cz_jobs *j);
/* Stops new work; waits up to grace_s for partitions in flight to end and
 * be recorded. 1 when everything in flight ended. */
int cz_jobs_drain(cz_jobs *j, double grace_s);
/* Counts for the status endpoint. */
typedef struct cz_jobs_status {
    cz_store_counts store;
    uint64_t engine_jobs;  /* held by the engine now */
    uint64_t accepted, done, failed, cancelled; /* since start */
    int draining;
    /* shared stores (0 otherwise) */
    int shared;
    int store_healthy;           /* the database answered the last call */
    char store_error[256];       /* why not */
    uint64_t claims;             /* partitions this host claimed */
    uint64_t held;               /* claimed and not ended here */
    uint64_t results_fenced;     /* late results the store refused */
    uint64_t leases_lost;        /* partitions lost to other hosts / cancels */
    uint64_t leases_expired;     /* other hosts' partitions this host took back */
} cz_jobs_status;
void cz_jobs_status_get(cz_jobs *j, cz_jobs_status *out);
/* 0 while the store does not answer (its calls fail: the HTTP layer says
 * 503), with the reason in msg (may be NULL). No store call: cheap. */
int cz_jobs_store_ok(cz_jobs *j, char *msg, size_t cap);
/* The hosts of a shared store (malloc'ed; *n 0 and CZ_OK for a store of one host). */
cz_status cz_jobs_hosts(cz_jobs *j, cz_store_host **out, size_t *n, cz_error *err);

#endif
