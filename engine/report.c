#include "engine/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

/* The medians of every stage over the n partitions in res. */
static cz_status stage_medians(cz_engine_report_stages *m, const cz_partition_result *res, size_t n, cz_error *err)
{
#define STAGE(field, expr) {offsetof(cz_engine_report_stages, field), offsetof(cz_partition_result, expr)}
    static const struct {
        size_t out, in; /* double members of cz_engine_report_stages, cz_partition_result */
    } stages[] = {STAGE(queue, t.queue_s),       STAGE(synth, t.synth_s),         STAGE(gpu_wait, t.gpu_wait_s),
                  STAGE(device, t.device_s),     STAGE(h, t.stages.h),            STAGE(msm_a, t.stages.msm_a),
                  STAGE(msm_b1, t.stages.msm_b1), STAGE(msm_b2, t.stages.msm_b2), STAGE(msm_c, t.stages.msm_c),
                  STAGE(msm_h, t.stages.msm_h),  STAGE(finalize, t.finalize_s),   STAGE(total, t.total_s)};
#undef STAGE
    double *col = malloc(n * sizeof *col);
    if (!col) return cz_error_set(err, CZ_ERR_NO_MEMORY, "engine report: out of memory for %zu partitions", n);
    cz_status st = CZ_OK;
    for (size_t s = 0; st == CZ_OK && s < sizeof stages / sizeof *stages; s++) {
        for (size_t i = 0; i < n; i++) memcpy(&col[i], (const char *)&res[i] + stages[s].in, sizeof(double));
        cz_stats_summary sum;
        if ((st = cz_stats_summarize(&sum, col, n, err)) == CZ_OK)
            memcpy((char *)m + stages[s].out, &sum.p50, sizeof(double));
    }
    free(col);
    return st;
}

cz_status cz_engine_report_compute(cz_engine_report *r, const cz_engine_run *run, cz_error *err)
{
    memset(r, 0, sizeof *r);
    if (run->jobs == 0 || run->partitions == 0 || !run->results)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "engine report: a run of %llu jobs x %llu partitions%s",
                            (unsigned long long)run->jobs, (unsigned long long)run->partitions,
                            run->results ? "" : " without results");
    const cz_engine_stats *s = &run->end;
    const uint64_t jobs = run->jobs, parts = run->partitions;
    const size_t n = (size_t)(jobs * parts);
    const double wall = run->wall_s;
    r->key_name = run->key_name;
    r->device_name = run->device_name;
    r->curve = run->curve;
    r->log_domain = run->log_domain;
    r->jobs = jobs;
    r->partitions = parts;
    r->pool_pinned = s->pool_pinned;
    r->key_bytes = run->key_bytes;
    r->key_vram_need = run->key_vram_need;
    r->key_load_s = run->key_load_s;
    r->ab_bytes_per_partition = cz_ab_bytes(run->domain_size);

    /* a, b and the H step, summed in job order */
    for (size_t i = 0; i < n; i++) {
        const cz_partition_timings *t = &run->results[i].t;
        r->ab_bytes += t->ab_bytes;
        r->h_s += t->stages.h;
        r->h2d_bytes += t->stages.h2d_bytes;
        r->h2d_s += t->stages.h2d;
    }
    r->h_gbps = r->h_s > 0 ? r->ab_bytes / 1e9 / r->h_s : 0.0;
    r->h2d_gbps = r->h2d_s > 0 ? r->h2d_bytes / 1e9 / r->h2d_s : 0.0;

    const double proofs = (double)(jobs * parts);
    const double nd = s->ndevices > 0 ? s->ndevices : 1, ndw = nd * wall;
    r->ndevices = s->ndevices;
    r->wall_s = wall;
    r->proofs_per_min = proofs * 60 / wall;
    r->busy_pct = 100 * s->device_busy_s / ndw;
    if (jobs > 1) {
        double steady = wall - run->first_job_s;
        r->steady_s = steady;
        r->proofs_per_min_steady = (proofs - (double)parts) * 60 / steady;
        r->busy_pct_steady = fmin(100.0, 100 * (s->device_busy_s - run->first.device_busy_s) / (steady * nd));
    }

    r->peak_rss = run->peak_rss;
    r->budget_limit = s->budget.limit;
    r->budget_peak = s->budget.peak;
    r->rss_per_reserved = s->budget.peak ? (double)run->peak_rss / (double)s->budget.peak : 0.0;
    r->pool_hits = s->pool.hits;
    r->pool_misses = s->pool.misses;
    r->pool_fallbacks = s->pool.fallbacks;
    r->key_loads = s->key_loads;
    r->key_evictions = s->key_evictions;
    r->devices_in_service = s->devices_in_service;
    r->retries = s->retries;
    for (int d = 0; d < s->ndevices && d < CZ_ENGINE_MAX_DEVICES; d++) {
        cz_engine_report_device *o = &r->dev[d];
        snprintf(o->name, sizeof o->name, "%s", s->dev[d].name);
        snprintf(o->error, sizeof o->error, "%s", s->dev[d].error);
        o->in_service = s->dev[d].in_service;
        o->busy_s = s->dev[d].busy_s;
        o->busy_pct = 100 * s->dev[d].busy_s / wall;
        o->partitions = s->dev[d].partitions;
        o->key_uploads = s->dev[d].key_uploads;
        o->lane_waits = s->dev[d].lane_waits;
    }
    r->nmedian = n;
    return stage_medians(&r->median, run->results, n, err);
}

void cz_engine_report_print(FILE *f, const cz_engine_report *r)
{
    fprintf(f, "bench-engine: %s, %s 2^%u, %llu jobs x %llu partitions, device %s, pool %s\n", r->key_name,
            cz_curve_name(r->curve), r->log_domain, (unsigned long long)r->jobs, (unsigned long long)r->partitions,
            r->device_name, r->pool_pinned ? "pinned" : "ordinary memory");
    fprintf(f, "key: %.2f GiB, loaded in %.2f s; working set per partition (a, b): %.1f MiB",
            (double)r->key_bytes / (1 << 30), r->key_load_s, (double)r->ab_bytes_per_partition / (1 << 20));
    if (r->key_vram_need) /* lanes: what the gate admits a step by */
        fprintf(f, "; in VRAM per device step: %.2f GiB", (double)r->key_vram_need / (1 << 30));
    fputc('\n', f);
    fprintf(f, "throughput: %.1f proofs/min overall (%.2f s)", r->proofs_per_min, r->wall_s);
    const char *mean = r->ndevices > 1 ? " (mean over the devices)" : "";
    if (r->jobs > 1) {
        fprintf(f, ", %.1f proofs/min after the first job", r->proofs_per_min_steady);
        fprintf(f, "\ndevice busy: %.1f%% overall, %.1f%% after the first job%s", r->busy_pct, r->busy_pct_steady,
                mean);
    } else {
        fprintf(f, "\ndevice busy: %.1f%%%s", r->busy_pct, mean);
    }
    fprintf(f, "\na, b: %.2f GB handed to the device, %.1f GB/s of H step time (transfer + NTTs)\n",
            r->ab_bytes / 1e9, r->h_gbps);
    if (r->h2d_bytes)
        fprintf(f, "a, b H2D: %.2f GB in %.3f s of copies (device events) = %.1f GB/s\n", r->h2d_bytes / 1e9,
                r->h2d_s, r->h2d_gbps);
    else
        fprintf(f, "a, b H2D: none (the H step ran on the CPU)\n");
    fprintf(f,
            "memory: peak RSS %.2f GiB; budget %.2f GiB, peak reserved %.2f GiB (key + working sets); RSS / reserved "
            "peak = %.2f\n",
            (double)r->peak_rss / (1 << 30), (double)r->budget_limit / (1 << 30), (double)r->budget_peak / (1 << 30),
            r->rss_per_reserved);
    fprintf(f, "pool: %llu hits, %llu misses, %llu fallbacks; key loads %llu, evictions %llu\n",
            (unsigned long long)r->pool_hits, (unsigned long long)r->pool_misses,
            (unsigned long long)r->pool_fallbacks, (unsigned long long)r->key_loads,
            (unsigned long long)r->key_evictions);
    const cz_engine_report_stages *m = &r->median;
    fprintf(f,
            "stages (medians of %zu partitions, s): queue %.3f, synthesis %.3f, device wait %.3f, device %.3f (h %.3f, "
            "msm A %.3f B1 %.3f B2 %.3f C %.3f H %.3f), finalize %.3f, total %.3f\n",
            r->nmedian, m->queue, m->synth, m->gpu_wait, m->device, m->h, m->msm_a, m->msm_b1, m->msm_b2, m->msm_c,
            m->msm_h, m->finalize, m->total);
    if (r->ndevices > 1) {
        fprintf(f, "devices: %d, %d in service, %llu partitions moved after a device error\n", r->ndevices,
                r->devices_in_service, (unsigned long long)r->retries);
        for (int d = 0; d < r->ndevices && d < CZ_ENGINE_MAX_DEVICES; d++) {
            const cz_engine_report_device *v = &r->dev[d];
            fprintf(f, "  %-28s busy %5.1f%% (%.2f s), %llu partitions, %llu key placements", v->name, v->busy_pct,
                    v->busy_s, (unsigned long long)v->partitions, (unsigned long long)v->key_uploads);
            if (v->lane_waits)
                fprintf(f, ", %llu steps left to another lane (VRAM)", (unsigned long long)v->lane_waits);
            fprintf(f, "%s%s\n", v->in_service ? "" : "; OUT OF SERVICE: ", v->in_service ? "" : v->error);
        }
    }
}
