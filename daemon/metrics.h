/*
 * daemon/metrics: what cuzkd counts, in the Prometheus text format.
 *
 * DESIGN: counters and histograms the job manager and the HTTP layer feed
 * as things happen (jobs and partitions by outcome, per-stage durations of
 * every partition, HTTP answers by status), and gauges read when /metrics
 * is scraped (the engine's stats: device busy ratio, VRAM, budget per
 * consumer, pool; the store's job counts by state and priority and its
 * size; the spool's bytes). Histograms use util/stats (fixed buckets,
 * cumulative counts). Thread-safe; rendering allocates the text.
 */
#ifndef CZ_DAEMON_METRICS_H
#define CZ_DAEMON_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/jobs.h"
#include "daemon/store.h"
#include "engine/engine.h"

typedef struct cz_metrics cz_metrics;

cz_status cz_metrics_create(cz_metrics **out, cz_error *err);
void cz_metrics_free(cz_metrics *m);

void cz_metrics_job_accepted(cz_metrics *m);
/* outcome: done, failed or cancelled; seconds from acceptance */
void cz_metrics_job_end(cz_metrics *m, cz_job_state outcome, double seconds);
/* a partition's end in the engine (outcome from its status, stage times) */
void cz_metrics_partition_end(cz_metrics *m, const cz_partition_result *r);
void cz_metrics_http(cz_metrics *m, int status);

/* The exposition text (malloc'ed, NUL-terminated; *len its length). */
char *cz_metrics_render(cz_metrics *m, cz_engine *e, cz_jobs *jobs, uint64_t spool_bytes, size_t *len);

#endif
