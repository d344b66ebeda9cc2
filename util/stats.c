#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cz_stats_sort(double *x, size_t n)
{
    if (n > 1) qsort(x, n, sizeof *x, cmp_double);
}

double cz_stats_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0) return 0.0;
    if (!(p > 0)) p = 0; /* NaN too */
    if (p > 100) p = 100;
    double rank = p / 100 * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo >= n - 1) return sorted[n - 1];
    double f = rank - (double)lo;
    double a = sorted[lo], b = sorted[lo + 1];
    if (f == 0) return a;
    if (f == 0.5) return 0.5 * (a + b); /* the median of an even count: the mean of the middle two */
    double v = a + f * (b - a);
    return v > b ? b : v; /* (rounding) */
}

double cz_stats_mean(const double *x, size_t n)
{
    if (n == 0) return 0.0;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

cz_status cz_stats_summarize(cz_stats_summary *out, const double *x, size_t n, cz_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return CZ_OK;
    double *s = malloc(n * sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "statistics of %zu values: out of memory", n);
    memcpy(s, x, n * sizeof *s);
    cz_stats_sort(s, n);
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = cz_stats_mean(x, n);
    out->p50 = cz_stats_percentile(s, n, 50);
    out->p90 = cz_stats_percentile(s, n, 90);
    out->p99 = cz_stats_percentile(s, n, 99);
    free(s);
    return CZ_OK;
}

cz_status cz_histogram_init(cz_histogram *h, const double *bounds, size_t n, cz_error *err)
{
    if (n == 0 || n > CZ_HISTOGRAM_MAX_BOUNDS)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "histogram: %zu bounds (1..%d)", n, CZ_HISTOGRAM_MAX_BOUNDS);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(bounds[i]))
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "histogram: bound %zu is not finite", i);
        if (i > 0 && !(bounds[i] > bounds[i - 1]))
            return cz_error_set(err, CZ_ERR_INVALID_ARG, "histogram: bound %zu (%g) is not above bound %zu (%g)", i,
                                bounds[i], i - 1, bounds[i - 1]);
    }
    memset(h, 0, sizeof *h);
    h->nbounds = n;
    memcpy(h->bound, bounds, n * sizeof *bounds);
    return CZ_OK;
}

void cz_histogram_observe(cz_histogram *h, double v)
{
    size_t lo = 0, hi = h->nbounds; /* the first bound >= v: binary search */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v <= h->bound[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    if (isnan(v)) lo = h->nbounds;
    h->bucket[lo]++;
    h->count++;
    h->sum += v;
}

cz_status cz_histogram_merge(cz_histogram *dst, const cz_histogram *src, cz_error *err)
{
    if (dst->nbounds != src->nbounds || memcmp(dst->bound, src->bound, dst->nbounds * sizeof dst->bound[0]) != 0)
        return cz_error_set(err, CZ_ERR_MISMATCH, "histogram merge: the bounds differ");
    for (size_t i = 0; i <= dst->nbounds; i++) dst->bucket[i] += src->bucket[i];
    dst->count += src->count;
    dst->sum += src->sum;
    return CZ_OK;
}

uint64_t cz_histogram_cumulative(const cz_histogram *h, size_t i)
{
    if (i >= h->nbounds) return h->count;
    uint64_t c = 0;
    for (size_t k = 0; k <= i; k++) c += h->bucket[k];
    return c;
}
