/* daemon/metrics: Prometheus text (contract in metrics.h). */
#include "daemon/metrics.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

/* the stages of a partition, as histograms */
enum {
    S_QUEUE,
    S_KEY_LOAD,
    S_SYNTH,
    S_GPU_WAIT,
    S_DEVICE,
    S_H,
    S_H2D,
    S_MSM_A,
    S_MSM_B1,
    S_MSM_B2,
    S_MSM_C,
    S_MSM_H,
    S_FINALIZE,
    S_TOTAL,
    S_COUNT
};
static const char *const stage_names[S_COUNT] = {"queue", "key_load", "synthesis", "gpu_wait", "device",
                                                 "h",     "h2d",      "msm_a",     "msm_b1",   "msm_b2",
                                                 "msm_c", "msm_h",    "finalize",  "total"};

/* HTTP answers counted by status class and the common codes */
static const int http_codes[] = {200, 201, 202, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503, 507};
#define N_HTTP ((int)(sizeof http_codes / sizeof http_codes[0]))

struct cz_metrics {
    pthread_mutex_t mu;
    uint64_t jobs_accepted;
    uint64_t jobs[5];  /* by final cz_job_state (done, failed, cancelled used) */
    uint64_t parts_ok, parts_failed, parts_cancelled;
    cz_histogram stage[S_COUNT];
    cz_histogram job_seconds;
    uint64_t http[N_HTTP + 1]; /* + other */
};

static const double stage_bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                      1,     2.5,    5,     10,   25,    60,   120, 300, 600};

cz_status cz_metrics_create(cz_metrics **out, cz_error *err)
{
    *out = NULL;
    cz_metrics *m = calloc(1, sizeof *m);
    if (!m) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    const size_t nb = sizeof stage_bounds / sizeof stage_bounds[0];
    for (int i = 0; i < S_COUNT; i++)
        if (cz_histogram_init(&m->stage[i], stage_bounds, nb, err) != CZ_OK) {
            free(m);
            return CZ_ERR_INVALID_ARG;
        }
    if (cz_histogram_init(&m->job_seconds, stage_bounds, nb, err) != CZ_OK) {
        free(m);
        return CZ_ERR_INVALID_ARG;
    }
    pthread_mutex_init(&m->mu, NULL);
    *out = m;
    return CZ_OK;
}

void cz_metrics_free(cz_metrics *m)
{
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void cz_metrics_job_accepted(cz_metrics *m)
{
    pthread_mutex_lock(&m->mu);
    m->jobs_accepted++;
    pthread_mutex_unlock(&m->mu);
}

void cz_metrics_job_end(cz_metrics *m, cz_job_state outcome, double seconds)
{
    pthread_mutex_lock(&m->mu);
    if ((unsigned)outcome < 5) m->jobs[outcome]++;
    if (outcome == CZ_JOB_DONE) cz_histogram_observe(&m->job_seconds, seconds);
    pthread_mutex_unlock(&m->mu);
}

void cz_metrics_partition_end(cz_metrics *m, const cz_partition_result *r)
{
    pthread_mutex_lock(&m->mu);
    if (r->status == CZ_OK) {
        m->parts_ok++;
        const cz_partition_timings *t = &r->t;
        const double v[S_COUNT] = {t->queue_s,       t->key_load_s,    t->synth_s,       t->gpu_wait_s,
                                   t->device_s,      t->stages.h,      t->stages.h2d,    t->stages.msm_a,
                                   t->stages.msm_b1, t->stages.msm_b2, t->stages.msm_c,  t->stages.msm_h,
                                   t->finalize_s,    t->total_s};
        for (int i = 0; i < S_COUNT; i++) cz_histogram_observe(&m->stage[i], v[i]);
    } else if (r->status == CZ_ERR_CANCELLED) {
        m->parts_cancelled++;
    } else {
        m->parts_failed++;
    }
    pthread_mutex_unlock(&m->mu);
}

void cz_metrics_http(cz_metrics *m, int status)
{
    int k = N_HTTP;
    for (int i = 0; i < N_HTTP; i++)
        if (http_codes[i] == status) k = i;
    pthread_mutex_lock(&m->mu);
    m->http[k]++;
    pthread_mutex_unlock(&m->mu);
}

/* ---- rendering ---- */

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void histogram(FILE *f, const char *name, const char *labels, const cz_histogram *h)
{
    const char *sep = labels[0] ? "," : "";
    for (size_t i = 0; i < h->nbounds; i++)
        fprintf(f, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, h->bound[i],
                (unsigned long long)cz_histogram_cumulative(h, i));
    fprintf(f, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)h->count);
    const char *lo = labels[0] ? "{" : "", *lc = labels[0] ? "}" : ""; /* no labels: no braces */
    fprintf(f, "%s_sum%s%s%s %.9g\n%s_count%s%s%s %llu\n", name, lo, labels, lc, h->sum, name, lo, labels, lc,
            (unsigned long long)h->count);
}

/* a label value: the characters Prometheus needs escaped */
static void label(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') out[o++] = '\\';
        if (*s == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
            continue;
        }
        out[o++] = *s;
    }
    out[o] = '\0';
}

char *cz_metrics_render(cz_metrics *m, cz_engine *e, cz_jobs *jobs, uint64_t spool_bytes, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    cz_engine_stats es;
    cz_engine_stats_get(e, &es);
    cz_jobs_status js;
    cz_jobs_status_get(jobs, &js);
    pthread_mutex_lock(&m->mu);
    head(f, "cuzk_jobs_accepted_total", "counter", "Jobs accepted (202).");
    fprintf(f, "cuzk_jobs_accepted_total %llu\n", (unsigned long long)m->jobs_accepted);
    head(f, "cuzk_jobs_total", "counter", "Jobs that ended, by outcome.");
    fprintf(f, "cuzk_jobs_total{outcome=\"done\"} %llu\n", (unsigned long long)m->jobs[CZ_JOB_DONE]);
    fprintf(f, "cuzk_jobs_total{outcome=\"failed\"} %llu\n", (unsigned long long)m->jobs[CZ_JOB_FAILED]);
    fprintf(f, "cuzk_jobs_total{outcome=\"cancelled\"} %llu\n", (unsigned long long)m->jobs[CZ_JOB_CANCELLED]);
    head(f, "cuzk_partitions_total", "counter", "Partitions that ended in the engine, by outcome.");
    fprintf(f, "cuzk_partitions_total{outcome=\"done\"} %llu\n", (unsigned long long)m->parts_ok);
    fprintf(f, "cuzk_partitions_total{outcome=\"failed\"} %llu\n", (unsigned long long)m->parts_failed);
    fprintf(f, "cuzk_partitions_total{outcome=\"cancelled\"} %llu\n", (unsigned long long)m->parts_cancelled);
    head(f, "cuzk_partition_stage_seconds", "histogram", "Time of each stage of a proved partition.");
    for (int i = 0; i < S_COUNT; i++) {
        char l[64];
        snprintf(l, sizeof l, "stage=\"%s\"", stage_names[i]);
        histogram(f, "cuzk_partition_stage_seconds", l, &m->stage[i]);
    }
    head(f, "cuzk_job_seconds", "histogram", "Time from acceptance to the end of jobs that were proved.");
    histogram(f, "cuzk_job_seconds", "", &m->job_seconds);
    head(f, "cuzk_http_responses_total", "counter", "HTTP responses by status code.");
    for (int i = 0; i < N_HTTP; i++)
        if (m->http[i]) fprintf(f, "cuzk_http_responses_total{code=\"%d\"} %llu\n", http_codes[i], (unsigned long long)m->http[i]);
    if (m->http[N_HTTP]) fprintf(f, "cuzk_http_responses_total{code=\"other\"} %llu\n", (unsigned long long)m->http[N_HTTP]);
    pthread_mutex_unlock(&m->mu);

    head(f, "cuzk_device_busy_ratio", "gauge", "Share of the uptime each device spent in device work.");
    for (int i = 0; i < es.ndevices; i++) {
        char name[256];
        label(name, sizeof name, es.dev[i].name);
        fprintf(f, "cuzk_device_busy_ratio{device=\"%d\",name=\"%s\"} %.6f\n", i, name,
                es.uptime_s > 0 ? es.dev[i].busy_s / es.uptime_s : 0.0);
    }
    head(f, "cuzk_device_in_service", "gauge", "1 while the device is in service.");
    for (int i = 0; i < es.ndevices; i++)
        fprintf(f, "cuzk_device_in_service{device=\"%d\"} %d\n", i, es.dev[i].in_service);
    head(f, "cuzk_device_partitions_total", "counter", "Device steps each device completed.");
    for (int i = 0; i < es.ndevices; i++)
        fprintf(f, "cuzk_device_partitions_total{device=\"%d\"} %llu\n", i, (unsigned long long)es.dev[i].partitions);
    head(f, "cuzk_device_lane_waits_total", "counter", "Device steps a device left to another device on its GPU (devices listed on one GPU, e.g. cuda:0,0) for want of VRAM for a second working set.");
    for (int i = 0; i < es.ndevices; i++)
        fprintf(f, "cuzk_device_lane_waits_total{device=\"%d\"} %llu\n", i, (unsigned long long)es.dev[i].lane_waits);
    head(f, "cuzk_device_memory_bytes", "gauge", "Device memory (VRAM): total, free, held by cuzk (devices on one GPU share its resident keys: each counts them), of which its own working set (scratch).");
    for (int i = 0; i < es.ndevices; i++)
        if (es.dev[i].has_mem)
            fprintf(f,
                    "cuzk_device_memory_bytes{device=\"%d\",kind=\"total\"} %zu\n"
                    "cuzk_device_memory_bytes{device=\"%d\",kind=\"free\"} %zu\n"
                    "cuzk_device_memory_bytes{device=\"%d\",kind=\"held\"} %zu\n"
                    "cuzk_device_memory_bytes{device=\"%d\",kind=\"scratch\"} %zu\n",
                    i, es.dev[i].mem.total, i, es.dev[i].mem.free, i, es.dev[i].mem.resident, i,
                    es.dev[i].mem.scratch);
    head(f, "cuzk_budget_bytes", "gauge", "Memory budget reserved now, by consumer.");
    for (int i = 0; i < CZ_MEM_CONSUMERS_; i++)
        fprintf(f, "cuzk_budget_bytes{consumer=\"%s\"} %zu\n", cz_mem_consumer_name((cz_mem_consumer)i),
                es.budget.by[i]);
    head(f, "cuzk_budget_limit_bytes", "gauge", "The memory budget.");
    fprintf(f, "cuzk_budget_limit_bytes %zu\n", es.budget.limit);
    head(f, "cuzk_budget_peak_bytes", "gauge", "The most reserved at once.");
    fprintf(f, "cuzk_budget_peak_bytes %zu\n", es.budget.peak);
    head(f, "cuzk_pool_bytes", "gauge", "Pinned pool: bytes held and in use.");
    fprintf(f, "cuzk_pool_bytes{kind=\"held\"} %zu\ncuzk_pool_bytes{kind=\"in_use\"} %zu\n", es.pool.held,
            es.pool.in_use);
    head(f, "cuzk_pool_requests_total", "counter", "Pinned pool requests served from the free list (hit) or not.");
    fprintf(f, "cuzk_pool_requests_total{result=\"hit\"} %llu\ncuzk_pool_requests_total{result=\"miss\"} %llu\n",
            (unsigned long long)es.pool.hits, (unsigned long long)es.pool.misses);
    head(f, "cuzk_key_loads_total", "counter", "Proving keys loaded.");
    fprintf(f, "cuzk_key_loads_total %llu\n", (unsigned long long)es.key_loads);
    head(f, "cuzk_key_evictions_total", "counter", "Proving keys evicted to make room in the budget.");
    fprintf(f, "cuzk_key_evictions_total %llu\n", (unsigned long long)es.key_evictions);
    head(f, "cuzk_queue_depth", "gauge", "Jobs queued or running, by priority class.");
    static const char *const prio[4] = {"critical", "high", "normal", "low"};
    for (int i = 0; i < 4; i++)
        fprintf(f, "cuzk_queue_depth{priority=\"%s\"} %llu\n", prio[i], (unsigned long long)js.store.queued_by_prio[i]);
    head(f, "cuzk_partitions_waiting", "gauge", "Partitions in the engine: not yet synthesized, synthesized.");
    fprintf(f, "cuzk_partitions_waiting{stage=\"synthesis\"} %llu\ncuzk_partitions_waiting{stage=\"device\"} %llu\n",
            (unsigned long long)es.partitions_queued, (unsigned long long)es.partitions_ready);
    head(f, "cuzk_store_jobs", "gauge", "Jobs in the store, by state.");
    for (int i = 0; i < 5; i++)
        fprintf(f, "cuzk_store_jobs{state=\"%s\"} %llu\n", cz_job_state_name((cz_job_state)i),
                (unsigned long long)js.store.jobs[i]);
    head(f, "cuzk_store_bytes", "gauge", "The job store's size on disk.");
    fprintf(f, "cuzk_store_bytes %llu\n", (unsigned long long)js.store.bytes);
    head(f, "cuzk_store_healthy", "gauge", "1 while the store answers (0: degraded, submissions get 503).");
    fprintf(f, "cuzk_store_healthy %d\n", js.store_healthy);
    if (js.shared) {
        head(f, "cuzk_claims_total", "counter", "Partitions this host claimed from the shared store.");
        fprintf(f, "cuzk_claims_total %llu\n", (unsigned long long)js.claims);
        head(f, "cuzk_claims_held", "gauge", "Claimed partitions this host holds now.");
        fprintf(f, "cuzk_claims_held %llu\n", (unsigned long long)js.held);
        head(f, "cuzk_results_fenced_total", "counter", "Late results or failures the store refused (fencing).");
        fprintf(f, "cuzk_results_fenced_total %llu\n", (unsigned long long)js.results_fenced);
        head(f, "cuzk_leases_lost_total", "counter", "Partitions this host lost (lease run out, cancelled elsewhere).");
        fprintf(f, "cuzk_leases_lost_total %llu\n", (unsigned long long)js.leases_lost);
        head(f, "cuzk_leases_expired_total", "counter", "Partitions of silent hosts this host took back.");
        fprintf(f, "cuzk_leases_expired_total %llu\n", (unsigned long long)js.leases_expired);
    }
    head(f, "cuzk_spool_bytes", "gauge", "Witness bytes in the spool.");
    fprintf(f, "cuzk_spool_bytes %llu\n", (unsigned long long)spool_bytes);
    head(f, "cuzk_uptime_seconds", "gauge", "Since the engine started.");
    fprintf(f, "cuzk_uptime_seconds %.3f\n", es.uptime_s);
    fclose(f);
    *len = n;
    return buf;
}
