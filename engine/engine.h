/*
 * engine: the proving engine. Jobs of one or more partitions (circuits that
 * share a proving key, one witness each) go through a pipeline that keeps
 * the device busy, under one memory budget.
 *
 * DESIGN (../shared/DESIGN.md, "The engine"):
 *
 *   submit -> [synthesis workers] -> GPU queue -> [device worker per GPU] -> [finalizer] -> result
 *
 *  - synthesis (CPU): a, b, c of a partition are written straight into a
 *    buffer of the pinned pool (engine/bufpool.h): the device reads them
 *    from there, no staging copy. Partitions are taken by priority (higher
 *    first), then by age. How far synthesis runs ahead of the device is
 *    bounded by the budget (a worker waits for its pool buffer) and by
 *    config.max_ready synthesized partitions waiting for the device.
 *  - device workers, one per device (every GPU, or the configured subset):
 *    the H step and the MSMs (cz_groth16_device) on that device's backend,
 *    holding the device only for that; the buffer goes back to the pool as
 *    soon as the device is done with it. A key's point sections are placed
 *    in the VRAM of each device that proves with it (on first use there)
 *    and stay; which queued partition an idle device takes follows
 *    engine/sched.h (priority, then a key already resident there, then
 *    age), so a job's partitions spread over the devices. With several
 *    devices a device error takes that device out of service (one log
 *    line) and its partition is synthesized again and proved on another;
 *    with one, the CUDA backend re-runs the failed step on the CPU.
 *  - finalizer (CPU): blinding, assembly, self-verification
 *    (cz_groth16_finalize); when the last partition is done the job is.
 *  - memory: keys are loaded with an allocator that reserves in the budget
 *    (consumer CZ_MEM_KEY); idle keys (no job holds them) are unloaded least
 *    recently used first when the budget needs room (after idle pool
 *    buffers), and reloaded from their file when a job needs them again. A
 *    job whose key plus one partition's working set exceeds the whole budget
 *    fails at submit with CZ_ERR_BUDGET, saying how much it needs.
 *  - cancel: queued partitions of a cancelled job are dropped; one in a
 *    stage finishes that stage and is dropped after it; budget waits end.
 *  - timings: per partition (queue wait, synthesis, device and which one,
 *    finalize, and the backend's own split: H step with its a/b/c H2D bytes
 *    and device-timed copy time, each MSM) and engine counters (device busy
 *    time per device, pool hits/misses, budget per consumer, evictions,
 *    key placements, partitions moved off failed devices). CZ_ENGINE_TIMELINE=1
 *    (or config.timeline) prints one line per stage event on stderr.
 *
 * Thread-safe: any thread may submit, wait, cancel.
 */
#ifndef CZ_ENGINE_ENGINE_H
#define CZ_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "engine/budget.h"
#include "engine/bufpool.h"
#include "engine/sched.h"
#include "groth16/groth16.h"
#include "io/proof.h"
#include "io/wtns.h"

typedef struct cz_engine_config {
    size_t budget_bytes;  /* 0: detected (engine/budget.h) */
    size_t budget_margin; /* 0: the default margin (detected budgets only) */
    /* devices: "auto" (NULL: every GPU, else the CPU), "cpu", "cuda" (every
     * GPU), "cuda:N" (one), "cuda:N,M,..." (a list) */
    const char *device;
    int gpus;             /* 0: every device the spec names; N: the first N of them.
                           * With "cpu", N CPU backends pose as N devices (to
                           * exercise the scheduling without GPUs) */
    /* tests: the devices come from this factory instead (gpus of them,
     * index 0..gpus-1); the engine frees them */
    cz_status (*make_backend)(void *ctx, int index, cz_backend **out, cz_error *err);
    void *make_backend_ctx;
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
                           * for ~1.8 GB/s of pinning at load (default 0: keys stay
                           * resident in VRAM, so pinning them rarely pays; H200:
                           * a 2.76 GiB key loads in 2.04 s instead of 1.02, and
                           * its first step is 1.26 s instead of 1.30) */
    int timeline;         /* 1: per-stage timeline on stderr (also CZ_ENGINE_TIMELINE=1) */
} cz_engine_config;

void cz_engine_config_default(cz_engine_config *c);

typedef struct cz_engine cz_engine;
typedef struct cz_engine_key cz_engine_key;
typedef struct cz_job cz_job;

#define CZ_ENGINE_MAX_DEVICES CZ_SCHED_MAX_DEVICES

typedef struct cz_engine_device_stats {
    char name[96];
    int in_service;       /* 0 after a device error took it out */
    double busy_s;        /* time its worker spent in device work */
    uint64_t partitions;  /* device steps it completed */
    uint64_t key_uploads; /* keys placed in its VRAM (first use of a key there) */
    char error[256];      /* why it was taken out of service */
} cz_engine_device_stats;

typedef struct cz_engine_stats {
    cz_budget_stats budget;
    cz_bufpool_stats pool;
    double device_busy_s; /* time the device workers spent in device work (summed) */
    double uptime_s;      /* since create */
    int pool_pinned;      /* the pool's memory comes from the device (page-locked) */
    uint64_t jobs_done, partitions_done, partitions_failed;
    uint64_t key_loads, key_evictions;
    int ndevices, devices_in_service;
    uint64_t retries; /* partitions moved to another device after a device error */
    cz_engine_device_stats dev[CZ_ENGINE_MAX_DEVICES];
} cz_engine_stats;

typedef struct cz_partition_timings {
    double queue_s;    /* submit -> synthesis start */
    double key_load_s; /* (re)loading the key for this partition, if it had to */
    double synth_s;    /* a, b, c */
    double gpu_wait_s; /* synthesis done -> device start */
    double device_s;   /* H step + MSMs (on the device that completed it) */
    int device;        /* which device (index into cz_engine_stats.dev) */
    int retries;       /* device errors it met first (each took a device out of service) */
    double finalize_s; /* assembly + verification */
    double total_s;    /* submit -> done */
    cz_prove_timings stages; /* the backend's split (h, msm_*) */
    size_t abc_bytes;  /* a, b, c handed to the device */
} cz_partition_timings;

typedef struct cz_partition_result {
    cz_status status;
    char error[256];
    cz_proof proof; /* valid when status == CZ_OK */
    cz_partition_timings t;
} cz_partition_result;

/* Fault injection for tests and benchmarks: CZ_ENGINE_FAIL_DEVICE=D:K makes
 * the K-th device step (1-based) of device D fail with CZ_ERR_CUDA, as a
 * GPU that dies would. */
cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, cz_error *err);
/* Cancels what is queued, waits for the workers, frees everything. Jobs and
 * keys must have been freed/released first (their handles die with it). */
void cz_engine_free(cz_engine *e);
/* "cuda:0 NVIDIA H200", or the list "2 devices: cuda:0 ..., cuda:1 ..." */
const char *cz_engine_device_name(const cz_engine *e);
int cz_engine_device_count(const cz_engine *e);
void cz_engine_stats_get(cz_engine *e, cz_engine_stats *out);

/* Registers the key in path and loads it (its memory reserved in the
 * budget; this may evict idle keys or wait). The same file registered again
 * (by any spelling of its path) gives the same key, one copy in memory;
 * it is unregistered when every registration has been removed. */
cz_status cz_engine_key_add(cz_engine *e, const char *path, cz_engine_key **out, cz_error *err);
/* Bytes of host memory the key holds when loaded. */
size_t cz_engine_key_bytes(const cz_engine_key *k);
/* Header facts of the key (curve, sizes), valid while registered. */
const cz_zkey *cz_engine_key_info(const cz_engine_key *k);
/* Removes one registration (after every job using it has ended). */
void cz_engine_key_remove(cz_engine *e, cz_engine_key *k);

/* A job: n partitions proved with key, witness i for partition i (the caller
 * keeps the witnesses alive until the job ends). Errors at submit: a witness
 * that does not fit the key (CZ_ERR_MISMATCH naming the partition), a job
 * that can never fit the budget (CZ_ERR_BUDGET with the bytes needed). */
cz_status cz_engine_submit(cz_engine *e, cz_engine_key *key, const cz_wtns *const *witnesses, size_t n, int priority,
                           cz_job **out, cz_error *err);
/* Waits until the job has ended (timeout_s < 0: no limit): CZ_OK, or
 * CZ_ERR_TIMEOUT when it has not. */
cz_status cz_job_wait(cz_job *j, double timeout_s);
void cz_job_cancel(cz_job *j);
/* After the job ended: its partitions' results (n of them). */
const cz_partition_result *cz_job_results(const cz_job *j, size_t *n);
/* CZ_OK when every partition succeeded, else the first failure's status. */
cz_status cz_job_status(const cz_job *j);
/* Frees the handle; a job still running is cancelled and waited for. */
void cz_job_free(cz_job *j);

#endif
