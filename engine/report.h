/*
 * engine/report: the figures of a benchmark run through the engine (what
 * `cuzk bench-engine` prints), computed from what the engine's public API
 * hands out: each partition's result (cz_partition_result) and engine stats
 * snapshots (cz_engine_stats), plus the wall times and the peak RSS the
 * caller measured.
 *
 * DESIGN: two steps, so the figures can be printed, compared or exported
 * (a future Prometheus exporter) apart from their text: compute fills a
 * plain struct, print writes the text. Only engine/engine.h's public types
 * are read; nothing here depends on how the engine works inside.
 */
#ifndef CZ_ENGINE_REPORT_H
#define CZ_ENGINE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

/* What the run was and what it measured. */
typedef struct cz_engine_run {
    const char *key_name; /* the key as named to the engine (its path) */
    cz_curve curve;
    uint32_t log_domain, domain_size;
    size_t key_bytes;  /* cz_engine_key_bytes */
    size_t key_vram_need; /* cz_engine_key_vram_need at the end (0: no lanes) */
    double key_load_s; /* cz_engine_key_add */
    const char *device_name; /* cz_engine_device_name */
    uint64_t jobs, partitions; /* partitions per job */
    /* jobs * partitions results, job by job (job j's partition q at
     * j * partitions + q); all of them succeeded */
    const cz_partition_result *results;
    cz_engine_stats first; /* snapshot when the first job had ended */
    cz_engine_stats end;   /* snapshot when the last had */
    double first_job_s;    /* first submit -> first job ended */
    double wall_s;         /* first submit -> last job ended */
    size_t peak_rss;       /* bytes */
} cz_engine_run;

/* Medians over all partitions of each stage's seconds (cz_partition_timings) */
typedef struct cz_engine_report_stages {
    double queue, synth, gpu_wait, device;
    double h, msm_a, msm_b1, msm_b2, msm_c, msm_h; /* the backend's split of device */
    double finalize, total;
} cz_engine_report_stages;

typedef struct cz_engine_report_device {
    char name[96];
    int in_service;
    char error[256]; /* why it was taken out of service */
    double busy_s;
    double busy_pct; /* of the wall time */
    uint64_t partitions, key_uploads;
    uint64_t lane_waits; /* steps left to another lane of its GPU (no VRAM for two) */
} cz_engine_report_device;

typedef struct cz_engine_report {
    /* the run (key_name and device_name borrowed from cz_engine_run) */
    const char *key_name, *device_name;
    cz_curve curve;
    uint32_t log_domain;
    uint64_t jobs, partitions;
    int pool_pinned;
    size_t key_bytes, key_vram_need;
    double key_load_s;
    size_t ab_bytes_per_partition; /* the a, b working set: 2 x domain x 32 (cz_ab_bytes) */

    /* throughput; the steady state (after the first job) only with jobs > 1 */
    double wall_s, proofs_per_min;
    double steady_s, proofs_per_min_steady;
    /* share of the wall time the device workers were busy, in percent, the
     * mean over the devices; after the first job clamped to 100 (a device
     * step running across the first job's end counts whole after it) */
    int ndevices;
    double busy_pct, busy_pct_steady;

    /* a, b handed to the device; per second of H step (transfer + NTTs)
     * and of the device-timed host-to-device copies (h2d_bytes 0: the H
     * step ran on the CPU) */
    size_t ab_bytes;
    double h_s, h_gbps;
    uint64_t h2d_bytes;
    double h2d_s, h2d_gbps;

    /* memory: peak RSS against the budget and its peak reservation (key +
     * working sets in flight) */
    size_t peak_rss, budget_limit, budget_peak;
    double rss_per_reserved; /* peak RSS / peak reserved (0 without reservations) */

    uint64_t pool_hits, pool_misses, pool_fallbacks, key_loads, key_evictions;
    int devices_in_service;
    uint64_t retries; /* partitions moved after a device error */
    cz_engine_report_device dev[CZ_ENGINE_MAX_DEVICES]; /* ndevices of them */

    size_t nmedian; /* partitions the medians are over */
    cz_engine_report_stages median;
} cz_engine_report;

/* The figures of run. CZ_ERR_INVALID_ARG for a run without jobs, partitions
 * or results; CZ_ERR_NO_MEMORY if the medians' scratch cannot be allocated. */
cz_status cz_engine_report_compute(cz_engine_report *r, const cz_engine_run *run, cz_error *err);

/* Writes the report as `cuzk bench-engine` prints it: a header line, key,
 * throughput, device busy, a, b (H step, H2D), memory, pool, the stage
 * medians, and with several devices one line per device. */
void cz_engine_report_print(FILE *f, const cz_engine_report *r);

#endif
