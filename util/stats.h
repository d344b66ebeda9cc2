/*
 * Summary statistics of timings (medians and percentiles of per-proof or
 * per-partition stage times) and a fixed-bucket histogram for metrics.
 *
 * DESIGN: percentiles interpolate linearly between the two closest ranks:
 * the p-th percentile of sorted x[0..n) is at rank p/100 * (n - 1), so p = 0
 * is the minimum, p = 100 the maximum and p = 50 the median (the middle
 * value for odd n, the mean of the two middle values for even n). The
 * summary works on a sorted copy: the caller's array is never modified.
 *
 * The histogram has fixed upper bounds given at init, in the Prometheus
 * convention: an observation v falls in the first bucket whose bound b has
 * v <= b, or in the implicit +Inf bucket after the last bound; it keeps the
 * count of each bucket, the total count and the sum of the observations.
 * No allocation (at most CZ_HISTOGRAM_MAX_BOUNDS bounds), not thread-safe:
 * a shared histogram needs the caller's lock (or one per thread, merged).
 */
#ifndef CZ_UTIL_STATS_H
#define CZ_UTIL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_stats_summary {
    size_t n;
    double min, max, mean;
    double p50, p90, p99; /* p50 is the median */
} cz_stats_summary;

/* Summary of x[0..n) (x is not modified; NaNs are not allowed). n == 0
 * gives n = 0 and every value 0. CZ_ERR_NO_MEMORY when the sorted copy
 * cannot be allocated. */
cz_status cz_stats_summarize(cz_stats_summary *out, const double *x, size_t n, cz_error *err);

/* The p-th percentile (0 <= p <= 100, clamped) of sorted[0..n), ascending;
 * 0 for n == 0. */
double cz_stats_percentile(const double *sorted, size_t n, double p);

/* Sorts x[0..n) ascending in place (NaNs not allowed). */
void cz_stats_sort(double *x, size_t n);

/* Arithmetic mean of x[0..n) (0 for n == 0). */
double cz_stats_mean(const double *x, size_t n);

#define CZ_HISTOGRAM_MAX_BOUNDS 32

typedef struct cz_histogram {
    size_t nbounds;
    double bound[CZ_HISTOGRAM_MAX_BOUNDS];       /* ascending upper bounds (inclusive) */
    uint64_t bucket[CZ_HISTOGRAM_MAX_BOUNDS + 1]; /* observations per bucket (not cumulative);
                                                   * bucket[nbounds]: above the last bound */
    uint64_t count;                               /* observations in all */
    double sum;                                   /* their sum */
} cz_histogram;

/* Empty histogram with the n bounds (1 <= n <= CZ_HISTOGRAM_MAX_BOUNDS,
 * finite, strictly ascending; copied). CZ_ERR_INVALID_ARG otherwise. */
cz_status cz_histogram_init(cz_histogram *h, const double *bounds, size_t n, cz_error *err);
/* Counts one observation v (NaN falls in the +Inf bucket and makes the sum NaN). */
void cz_histogram_observe(cz_histogram *h, double v);
/* Adds the counts and sum of src to dst (the same bounds, else
 * CZ_ERR_MISMATCH and dst unchanged). */
cz_status cz_histogram_merge(cz_histogram *dst, const cz_histogram *src, cz_error *err);
/* Observations <= bound[i] (Prometheus's cumulative `le` bucket): i <
 * nbounds; i >= nbounds gives the +Inf bucket, the total count. */
uint64_t cz_histogram_cumulative(const cz_histogram *h, size_t i);

#ifdef __cplusplus
}
#endif

#endif
