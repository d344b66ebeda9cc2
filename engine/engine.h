/*
 * engine: the proving engine. Jobs of one or more partitions (circuits that
 * share a proving key, one witness each) go through a pipeline that keeps
 * the device busy, under one memory budget.
 *
 * DESIGN (docs/DESIGN.md, "The engine"):
 *
 *   submit -> [synthesis workers] -> GPU queue -> [device worker per GPU] -> [finalizer] -> events
 *
 *  - inputs: each partition is a cz_synth (circuit/circuit.h): a witness in
 *    memory, a .wtns file read when the partition is synthesized, or a
 *    native circuit. The engine owns a job's synths from submit on.
 *  - synthesis (CPU): the witness is made available (cz_synth_prepare, in
 *    memory reserved in the budget as CZ_MEM_WITNESS) and a, b are
 *    written straight into a buffer of the pinned pool (mem/bufpool.h): the
 *    device reads them from there, no staging copy. Partitions are taken by
 *    priority (higher first), then by age. How far synthesis runs ahead of
 *    the device is bounded by the budget (a worker waits for its memory)
 *    and by config.max_ready synthesized partitions waiting for the device.
 *    A partition's memory (witness, a, b, the backend's host scratch)
 *    is reserved by one worker at a time, so two half-reserved partitions
 *    can never wait for each other.
 *  - device workers, one per device (every GPU, or the configured subset):
 *    the H step and the MSMs (cz_groth16_device) on that device's backend,
 *    holding the device only for that; the buffer goes back to the pool as
 *    soon as the device is done with it. A key's point sections are placed
 *    in the VRAM of each device that proves with it (on first use there)
 *    and stay; which queued partition an idle device takes follows
 *    engine/sched.h (priority, then a key already resident there, then
 *    age), so a job's partitions spread over the devices. With several
 *    devices a device error takes that device out of service (a warning on
 *    the logger) and its partition is synthesized again and proved on
 *    another; with one GPU, the engine wraps it in the CPU fallback
 *    (backend/backend.h), which reruns a failed step on the CPU.
 *  - finalizer (CPU): blinding, assembly, self-verification
 *    (cz_groth16_finalize); when the last partition is done the job is.
 *  - events: every partition's end (proved, failed, cancelled) and the
 *    job's end are reported exactly once to the job's callback, the
 *    partition events before the job event; stage changes (synthesis,
 *    device, finalize) are reported too. cz_job_wait is built on the same
 *    path. An event loop hands the callback a pipe or eventfd to write to.
 *  - memory: keys are loaded through budgeted allocators (mem/budget.h:
 *    point tables CZ_MEM_KEY, A/B matrices CZ_MEM_MATRIX); idle keys (no
 *    job holds them) are unloaded least recently used first when the
 *    budget needs room (after idle pool buffers), and reloaded from their
 *    file when a job needs them again. A job whose key plus one partition's
 *    needs exceed the whole budget fails at submit with CZ_ERR_BUDGET,
 *    saying how much it needs; cz_engine_admit answers the same question
 *    (and whether it can start now) without submitting.
 *  - keys can be registered without loading (header read and checked) and
 *    preloaded on the engine's loader thread, with their own completion.
 *  - cancel: queued partitions of a cancelled job end at once; one in a
 *    stage finishes that stage and ends after it; budget waits end.
 *  - timings: per partition (queue wait, synthesis, device and which one,
 *    finalize, and the backend's own split: H step with its a/b/c H2D bytes
 *    and device-timed copy time, each MSM) and engine counters (device busy
 *    time per device, pool hits/misses, budget per consumer, evictions,
 *    key placements, partitions moved off failed devices). config.timeline
 *    logs one debug line per stage event.
 *  - configuration comes only from cz_engine_config (no environment
 *    variables); lines go only to config.log.
 *
 * Thread-safe: any thread may submit, wait, cancel, query.
 */
#ifndef CZ_ENGINE_ENGINE_H
#define CZ_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "circuit/circuit.h"
#include "engine/sched.h"
#include "groth16/groth16.h"
#include "io/proof.h"
#include "io/wtns.h"
#include "mem/budget.h"
#include "mem/bufpool.h"
#include "util/log.h"

typedef struct cz_engine_config {
    size_t budget_bytes;  /* 0: detected (mem/budget.h) */
    size_t budget_margin; /* 0: the default margin (detected budgets only) */
    /* devices (backend/devspec.h): "auto" (NULL: every GPU, else the CPU),
     * "cpu", "cuda" (every GPU), "cuda:N" (one), "cuda:N,M,..." (a list;
     * a GPU listed k times is k devices sharing it: k device steps at once) */
    const char *device;
    int gpus;             /* 0: every device the spec names; N: the first N of them
                           * (GPUs then get their lanes, gpu_lanes below).
                           * With "cpu", N CPU backends pose as N devices (to
                           * exercise the scheduling without GPUs) */
    int gpu_lanes;        /* device steps at once on each GPU the spec names once
                           * (its "lanes": one device per lane, sharing the GPU's
                           * copy of the key; a lane starts a step only where VRAM
                           * holds its working set). 0: CZ_ENGINE_GPU_LANES; 1: one;
                           * at most 4. A GPU listed k times (cuda:0,0) has k. */
    /* tests: the devices come from this factory instead (gpus of them,
     * index 0..gpus-1), used as they are (no fallback); the engine frees them */
    cz_status (*make_backend)(void *ctx, int index, cz_backend **out, cz_error *err);
    void *make_backend_ctx;
    /* tuning of the backends the engine makes (its pool, budget and log
     * fields are the engine's own; fallback is set by the engine) */
    cz_backend_opts backend;
    int synth_workers;    /* partitions in synthesis at once (0: devices + 1, at least 2) */
    int max_ready;        /* synthesized partitions waiting for the device at most
                           * (0: synth_workers); the budget may bound it lower.
                           * Without it, synthesis would fill the whole budget
                           * with pinned buffers (pinning runs at ~1.8 GB/s)
                           * where a few keep the device busy. */
    int verify;           /* 0: skip the self-verification (default: verify, see cz_engine_config_default) */
    int pin;              /* 0: ordinary memory for the pool even on CUDA (to measure what pinning buys) */
    int pin_keys;         /* 1: keys in page-locked memory too (CUDA): each placement
                           * in a GPU's VRAM then copies at ~55 GB/s instead of ~8,
                           * for ~1.8 GB/s of pinning at load (default 0: see
                           * bench/RESULTS.md, "pinned keys") */
    int timeline;         /* 1: a debug line per stage event on log */
    cz_logger log;        /* the engine's lines (warnings, timeline); zero: silent */
    /* fault injection (tests, benchmarks): the fail_step-th device step
     * (1-based) of device fail_device fails with CZ_ERR_CUDA, as a GPU that
     * dies would; fail_step 0: none */
    int fail_device;
    uint64_t fail_step;
} cz_engine_config;

void cz_engine_config_default(cz_engine_config *c);

typedef struct cz_engine cz_engine;
typedef struct cz_engine_key cz_engine_key;
typedef struct cz_job cz_job;

#define CZ_ENGINE_MAX_DEVICES CZ_SCHED_MAX_DEVICES
/* Lanes per GPU by default: two steps at once fill the gaps of one (MSM
 * window reductions, read-backs, host waits): +26% proofs/min at 2^22 and
 * +14% at 2^24 on the H200 (bench/RESULTS.md, "lanes by default"). */
#define CZ_ENGINE_GPU_LANES 2

typedef struct cz_engine_device_stats {
    char name[96];
    int in_service;       /* 0 after a device error took it out */
    int busy;             /* in a device step now */
    double busy_s;        /* time its worker spent in device work */
    uint64_t partitions;  /* device steps it completed */
    uint64_t key_uploads; /* keys placed in its VRAM (first use of a key there; the
                           * entries of one GPU share a copy, mem/resident.h: the
                           * first to use a key counts its placement) */
    int keys_resident;    /* keys placed there now (on its GPU, for lanes) */
    int lane_of;          /* -1, or the GPU it shares with other entries (lanes) */
    uint64_t lane_waits;  /* steps it left to another lane of its GPU for want of
                           * VRAM for a second working set (engine.c, "lanes") */
    int has_mem;          /* the backend reports device memory (mem below valid) */
    cz_backend_mem mem;   /* VRAM now */
    char error[256];      /* why it was taken out of service */
} cz_engine_device_stats;

typedef struct cz_engine_stats {
    cz_budget_stats budget;
    cz_bufpool_stats pool;
    double device_busy_s; /* time the device workers spent in device work (summed) */
    double uptime_s;      /* since create */
    int pool_pinned;      /* the pool's memory comes from the device (page-locked) */
    uint64_t jobs_done, partitions_done, partitions_failed;
    uint64_t jobs_active;       /* submitted and not ended */
    uint64_t partitions_queued; /* not yet in synthesis */
    uint64_t partitions_ready;  /* synthesized, waiting for a device */
    uint64_t key_loads, key_evictions;
    int keys, keys_loaded;
    int ndevices, devices_in_service;
    uint64_t retries; /* partitions moved to another device after a device error */
    cz_engine_device_stats dev[CZ_ENGINE_MAX_DEVICES];
} cz_engine_stats;

typedef struct cz_partition_timings {
    double queue_s;    /* submit -> synthesis start */
    double key_load_s; /* (re)loading the key for this partition, if it had to */
    double synth_s;    /* witness + a, b */
    double gpu_wait_s; /* synthesis done -> device start */
    double device_s;   /* H step + MSMs (on the device that completed it) */
    int device;        /* which device (index into cz_engine_stats.dev) */
    int retries;       /* device errors it met first (each took a device out of service) */
    double finalize_s; /* assembly + verification */
    double total_s;    /* submit -> done */
    cz_prove_timings stages; /* the backend's split (h, msm_*) */
    size_t ab_bytes;   /* a, b handed to the device */
} cz_partition_timings;

typedef struct cz_partition_result {
    cz_status status;
    char error[256];
    cz_proof proof;   /* valid when status == CZ_OK */
    void *pub;        /* and its public signals: n_public scalars (32 bytes, Montgomery), owned by the job */
    size_t n_pub;
    cz_partition_timings t;
} cz_partition_result;

/* ---- events ---- */

typedef enum cz_engine_event_kind {
    CZ_EVENT_STAGE = 0,     /* a partition entered a stage (stage, device) */
    CZ_EVENT_PARTITION = 1, /* a partition ended (result, status) */
    CZ_EVENT_JOB = 2,       /* the job ended (status); every partition was reported before */
} cz_engine_event_kind;

typedef enum cz_partition_stage {
    CZ_STAGE_SYNTH = 0,    /* witness and a, b */
    CZ_STAGE_DEVICE = 1,   /* H step and MSMs */
    CZ_STAGE_FINALIZE = 2, /* assembly and verification */
} cz_partition_stage;

const char *cz_partition_stage_name(cz_partition_stage s); /* "synthesis", "device", "finalize" */

typedef struct cz_engine_event {
    cz_engine_event_kind kind;
    cz_job *job;
    uint64_t job_id; /* the spec's id */
    void *tag;       /* the spec's tag */
    size_t partition, partitions;
    cz_partition_stage stage;          /* CZ_EVENT_STAGE */
    int device;                        /* CZ_EVENT_STAGE of CZ_STAGE_DEVICE: which device */
    const cz_partition_result *result; /* CZ_EVENT_PARTITION (valid until cz_job_free) */
    cz_status status;                  /* CZ_EVENT_PARTITION: its status; CZ_EVENT_JOB: cz_job_status */
} cz_engine_event;

/* Called on an engine thread (or the thread that cancels), never with an
 * engine lock held, possibly from several threads at once for different
 * partitions. It must return quickly and must not free its job or the
 * engine; it may cancel, query, submit. */
typedef void (*cz_engine_event_fn)(void *ctx, const cz_engine_event *ev);

/* ---- the engine ---- */

cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, cz_error *err);
/* Cancels what is queued, waits for the workers, frees everything. Jobs and
 * keys must have been freed/released first (their handles die with it). */
void cz_engine_free(cz_engine *e);
/* "cuda:0 NVIDIA H200", or the list "2 devices: cuda:0 ..., cuda:1 ..." */
const char *cz_engine_device_name(const cz_engine *e);
int cz_engine_device_count(const cz_engine *e);
void cz_engine_stats_get(cz_engine *e, cz_engine_stats *out);
cz_budget *cz_engine_budget(cz_engine *e);
/* Drain (on = 1): no partition starts synthesis any more; those in a stage
 * go on to their end. Queued partitions stay queued (a daemon that shuts
 * down leaves them in its store). on = 0 resumes. */
void cz_engine_drain(cz_engine *e, int on);
/* Partitions between the start of synthesis and their end. */
uint64_t cz_engine_in_flight(cz_engine *e);

/* ---- keys ---- */

typedef enum cz_engine_key_state {
    CZ_KEY_UNLOADED = 0, /* registered; loaded when a job needs it (or preload) */
    CZ_KEY_LOADING = 1,
    CZ_KEY_LOADED = 2,
} cz_engine_key_state;

/* Registers the key in path without loading it: its header is read and
 * checked now (errors name the file). The same file registered again (by
 * any spelling of its path) gives the same key, one copy in memory; it is
 * unregistered when every registration has been removed. */
cz_status cz_engine_key_register(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err);
/* Registers and loads on this thread (its memory reserved in the budget;
 * this may evict idle keys or wait). */
cz_status cz_engine_key_add(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err);
/* Loads a registered key on the engine's loader thread; done (may be NULL)
 * is called once, on that thread, when it is loaded or failed (st, message),
 * or with CZ_ERR_CANCELLED when the engine is freed first. A preload takes
 * only memory that is free or reclaimable now (it does not wait for jobs to
 * release theirs): when the budget is busy it fails with CZ_ERR_BUDGET and
 * the key is loaded by the first job that needs it. A key larger than the
 * whole budget fails at once, here and in every load. A loaded key
 * reports at once (on the loader thread too). The preload holds a
 * registration of its own until done has returned, so the caller may
 * remove the key meanwhile (the key is freed after done then). */
typedef void (*cz_engine_key_fn)(void *ctx, cz_engine_key *k, cz_status st, const char *error);
cz_status cz_engine_key_preload(cz_engine *e, cz_engine_key *k, cz_engine_key_fn done, void *ctx, cz_error *err);
cz_engine_key_state cz_engine_key_state_get(cz_engine *e, const cz_engine_key *k);
/* The last load error of the key (empty when none). */
void cz_engine_key_error(cz_engine *e, const cz_engine_key *k, char *buf, size_t cap);
/* Bytes of host memory the key holds when loaded (predicted from its header
 * before the first load). */
size_t cz_engine_key_bytes(const cz_engine_key *k);
/* Header facts of the key (curve, sizes, verifying-key points), valid while
 * registered. */
const cz_zkey *cz_engine_key_info(const cz_engine_key *k);
const char *cz_engine_key_path(const cz_engine_key *k); /* as registered first */
/* Jobs that hold the key now (not ended). */
int cz_engine_key_jobs(cz_engine *e, const cz_engine_key *k);
/* Devices whose VRAM holds the key (bit d). */
uint32_t cz_engine_key_resident(cz_engine *e, const cz_engine_key *k);
/* Lanes: the VRAM working set a device step of the key asked for, the
 * largest seen (what the lane gate admits by); 0 until a step of it has run
 * on a GPU that shares its VRAM with other lanes. */
size_t cz_engine_key_vram_need(cz_engine *e, const cz_engine_key *k);
/* Removes one registration (after every job using it has ended). */
void cz_engine_key_remove(cz_engine *e, cz_engine_key *k);

/* ---- admission ---- */

typedef struct cz_engine_admission {
    int fits;          /* the key plus one partition fit the whole budget (else submit says CZ_ERR_BUDGET) */
    int can_start;     /* a partition could take its memory now without waiting */
    size_t need;       /* bytes to start one partition now: the key if not loaded + witness + a, b + scratch */
    size_t key_bytes;  /* of which the key (0 when loaded) */
    size_t available;  /* free now + what idle pool buffers and idle keys would give back */
    size_t missing;    /* need - available when positive */
    size_t limit;      /* the budget */
    int devices_in_service;
} cz_engine_admission;

/* Whether a job of this key whose largest partition holds witness_bytes of
 * witness (cz_synth_info; 0 for witnesses in memory) fits and can start. */
cz_status cz_engine_admit(cz_engine *e, cz_engine_key *k, size_t witness_bytes, cz_engine_admission *out);

/* ---- jobs ---- */

typedef struct cz_job_spec {
    uint64_t id; /* caller-chosen (a store's row id, say): reported in events */
    void *tag;   /* caller's pointer: reported in events */
    cz_engine_key *key;
    cz_synth **parts; /* n partitions; on CZ_OK the engine owns them (freed by cz_job_free) */
    size_t n;
    int priority;     /* higher first */
    cz_engine_event_fn on_event; /* may be NULL */
    void *event_ctx;
} cz_job_spec;

/* Errors at submit (the caller keeps its synths then): a partition that does
 * not fit the key (CZ_ERR_MISMATCH naming the partition), a job that can
 * never fit the budget (CZ_ERR_BUDGET with the bytes needed), no device left
 * (CZ_ERR_NO_DEVICE). */
cz_status cz_engine_submit_job(cz_engine *e, const cz_job_spec *spec, cz_job **out, cz_error *err);
/* Convenience: n partitions over witnesses in memory (borrowed: the caller
 * keeps them alive until the job is freed), no callback. */
cz_status cz_engine_submit(cz_engine *e, cz_engine_key *key, const cz_wtns *const *witnesses, size_t n, int priority,
                           cz_job **out, cz_error *err);
/* Waits until the job has ended (timeout_s < 0: no limit): CZ_OK, or
 * CZ_ERR_TIMEOUT when it has not. */
cz_status cz_job_wait(cz_job *j, double timeout_s);
/* 1 when the job has ended (its job event was delivered). */
int cz_job_done(const cz_job *j);
void cz_job_cancel(cz_job *j);
uint64_t cz_job_id(const cz_job *j);
/* After the job ended: its partitions' results (n of them). */
const cz_partition_result *cz_job_results(const cz_job *j, size_t *n);
/* CZ_OK when every partition succeeded, else the first failure's status. */
cz_status cz_job_status(const cz_job *j);
/* Frees the handle and the job's synths; a job still running is cancelled
 * and waited for. Not from the job's own callback. */
void cz_job_free(cz_job *j);

#endif
