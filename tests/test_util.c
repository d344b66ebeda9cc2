/*
 * util tests:
 *  - stats: medians of odd and even counts, percentiles against a sorted
 *    reference (insertion sort, the rank rule written out), min/max/mean,
 *    the caller's array untouched; the histogram's buckets at and around
 *    their edges, cumulative counts, sum, merge, bad bounds refused;
 *  - error: the first error wins until cleared, NULL err, message
 *    truncation, the status text when there is no message;
 *  - alloc: 64-byte alignment, NULL for 0 bytes and for sizes that
 *    overflow, a custom allocator called with the sizes asked for;
 *  - atomic_file: commit makes the file appear whole with mode
 *    0666 & ~umask, abort leaves nothing (no temporary, a short
 *    ".cuzk-XXXXXX" beside the file: names of 250 characters work),
 *    failures (a read-only directory, a missing one, a directory at the
 *    name, a rename onto a directory) give CZ_ERR_IO and leave no temporary;
 *    a symbolic link's target is replaced and the link kept, a loop refused;
 *    /dev/null, /dev/full (ENOSPC), a FIFO and /dev/fd/N are written in
 *    place and stay what they were; a read-only file is not replaced; the
 *    table of temporaries empties as a signal handler would;
 *  - outputs: a group's placeholders leave earlier files untouched until
 *    the commit, abort removes only them, messages name the outputs; the
 *    same-file check (hard link, link to an input, one name written three
 *    ways, one descriptor twice; /dev/null twice allowed);
 *  - rng: seeded streams deterministic and distinct per seed; OS bytes not
 *    constant; a refusing OS (the test setting) gives CZ_ERR_RANDOM and
 *    zeros, never another stream, and a failed generator stays failed;
 *  - thread: every task index run exactly once, thread ids in range and
 *    unique among concurrent tasks, nested runs inline on the caller,
 *    parallel_for covering [0, n) exactly once for various grains.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/common.h"
#include "util/error.h"
#include "util/outputs.h"
#include "util/rng.h"
#include "util/stats.h"
#include "util/thread.h"

static char tmpdir[256];

static double unif(cz_rng *r) { return (double)(cz_rng_u64(r) >> 11) / 9007199254740992.0; }

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1e-300); }

/* ---- stats ---- */
static void insertion_sort(double *x, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > v; j--) x[j] = x[j - 1];
        x[j] = v;
    }
}

/* percentile by the rank rule of util/stats.h, written out */
static double ref_percentile(const double *s, size_t n, double p)
{
    double rank = p / 100 * (double)(n - 1);
    size_t lo = (size_t)floor(rank);
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + (rank - (double)lo) * (s[lo + 1] - s[lo]);
}

static void test_stats(cz_rng *rng)
{
    cz_stats_summary s;
    cz_error err;
    /* small known cases */
    const double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7.5};
    CHECK(cz_stats_summarize(&s, odd, 3, NULL) == CZ_OK && s.n == 3 && s.p50 == 2 && s.min == 1 && s.max == 3 &&
          s.mean == 2);
    CHECK(cz_stats_summarize(&s, even, 4, NULL) == CZ_OK && s.p50 == 2.5 && s.min == 1 && s.max == 4 && s.mean == 2.5);
    CHECK(odd[0] == 3 && odd[1] == 1 && even[0] == 4 && even[3] == 2); /* untouched */
    CHECK(cz_stats_summarize(&s, one, 1, NULL) == CZ_OK && s.p50 == 7.5 && s.p90 == 7.5 && s.p99 == 7.5 &&
          s.min == 7.5 && s.max == 7.5);
    CHECK(cz_stats_summarize(&s, NULL, 0, NULL) == CZ_OK && s.n == 0 && s.p50 == 0 && s.mean == 0);
    /* 1..11: p90 = 10, p99 = 10.9; 1..10: p50 = 5.5, p90 = 9.1 */
    double seq[11];
    for (int i = 0; i < 11; i++) seq[10 - i] = i + 1;
    CHECK(cz_stats_summarize(&s, seq, 11, NULL) == CZ_OK && s.p50 == 6 && near(s.p90, 10) && near(s.p99, 10.9));
    CHECK(cz_stats_summarize(&s, seq + 1, 10, NULL) == CZ_OK && s.p50 == 5.5 && near(s.p90, 9.1));
    /* ties */
    const double ties[] = {2, 2, 2, 5, 5};
    CHECK(cz_stats_summarize(&s, ties, 5, NULL) == CZ_OK && s.p50 == 2 && s.max == 5);
    /* percentile on sorted data: clamped p, ends */
    const double sorted[] = {-1, 0, 4, 10};
    CHECK(cz_stats_percentile(sorted, 4, 0) == -1 && cz_stats_percentile(sorted, 4, 100) == 10);
    CHECK(cz_stats_percentile(sorted, 4, -5) == -1 && cz_stats_percentile(sorted, 4, 250) == 10);
    CHECK(cz_stats_percentile(sorted, 4, NAN) == -1 && cz_stats_percentile(sorted, 0, 50) == 0);
    CHECK(cz_stats_percentile(sorted, 4, 50) == 2 && cz_stats_mean(sorted, 4) == 3.25 && cz_stats_mean(NULL, 0) == 0);

    /* random arrays against the sorted reference */
    long iters = cz_test_iters(300), bad = 0, moved = 0, unsorted = 0;
    for (long it = 0; it < iters; it++) {
        size_t n = 1 + (size_t)(cz_rng_u64(rng) % 257);
        double *x = malloc(n * sizeof *x), *keep = malloc(n * sizeof *x), *ref = malloc(n * sizeof *x);
        int ints = it % 3 == 0; /* many ties */
        for (size_t i = 0; i < n; i++) x[i] = ints ? (double)(cz_rng_u64(rng) % 10) : (unif(rng) - 0.3) * 1e3;
        memcpy(keep, x, n * sizeof *x);
        memcpy(ref, x, n * sizeof *x);
        insertion_sort(ref, n);
        double mean = 0;
        for (size_t i = 0; i < n; i++) mean += x[i];
        mean /= (double)n;
        double med = n % 2 ? ref[n / 2] : 0.5 * (ref[n / 2 - 1] + ref[n / 2]);
        cz_error_clear(&err);
        if (cz_stats_summarize(&s, x, n, &err) != CZ_OK || s.n != n || s.p50 != med || s.min != ref[0] ||
            s.max != ref[n - 1] || !near(s.mean, mean) || !near(s.p90, ref_percentile(ref, n, 90)) ||
            !near(s.p99, ref_percentile(ref, n, 99)))
            bad++;
        moved += memcmp(x, keep, n * sizeof *x) != 0;
        for (int p = 0; p <= 100; p += 5)
            if (!near(cz_stats_percentile(ref, n, p), ref_percentile(ref, n, p))) bad++;
        cz_stats_sort(x, n);
        unsorted += memcmp(x, ref, n * sizeof *x) != 0;
        free(x);
        free(keep);
        free(ref);
    }
    CHECK_MSG(bad == 0, "%ld summaries differ from the reference", bad);
    CHECK_MSG(moved == 0, "%ld arrays modified by cz_stats_summarize", moved);
    CHECK_MSG(unsorted == 0, "%ld arrays sorted differently", unsorted);
}

static void test_histogram(cz_rng *rng)
{
    cz_error err;
    cz_histogram h, h2;
    const double b[] = {0.1, 1, 10};
    cz_error_clear(&err);
    CHECK(cz_histogram_init(&h, b, 3, &err) == CZ_OK && h.nbounds == 3 && h.count == 0 && h.sum == 0);
    /* le buckets: a value equal to a bound is in that bound's bucket */
    const double v[] = {0.05, 0.1, nextafter(0.1, 1), 1, 5, 10, 10.5, -100, INFINITY};
    const int want[] = {0, 0, 1, 1, 2, 2, 3, 0, 3};
    double sum = 0;
    for (size_t i = 0; i < CZ_ARRAY_LEN(v); i++) {
        uint64_t before = h.bucket[want[i]];
        cz_histogram_observe(&h, v[i]);
        CHECK_MSG(h.bucket[want[i]] == before + 1, "%g not in bucket %d", v[i], want[i]);
        if (isfinite(v[i])) sum += v[i];
    }
    CHECK(h.count == CZ_ARRAY_LEN(v) && h.sum == INFINITY);
    CHECK(h.bucket[0] == 3 && h.bucket[1] == 2 && h.bucket[2] == 2 && h.bucket[3] == 2);
    CHECK(cz_histogram_cumulative(&h, 0) == 3 && cz_histogram_cumulative(&h, 1) == 5 &&
          cz_histogram_cumulative(&h, 2) == 7 && cz_histogram_cumulative(&h, 3) == 9 &&
          cz_histogram_cumulative(&h, 99) == 9);
    /* NaN: the +Inf bucket */
    cz_histogram_observe(&h, NAN);
    CHECK(h.bucket[3] == 3 && h.count == 10 && isnan(h.sum));
    /* sum of finite observations */
    CHECK(cz_histogram_init(&h2, b, 3, &err) == CZ_OK);
    for (size_t i = 0; i < CZ_ARRAY_LEN(v) - 1; i++) cz_histogram_observe(&h2, v[i]);
    CHECK(near(h2.sum, sum));
    /* merge */
    cz_histogram m;
    CHECK(cz_histogram_init(&m, b, 3, &err) == CZ_OK);
    CHECK(cz_histogram_merge(&m, &h2, &err) == CZ_OK && cz_histogram_merge(&m, &h2, &err) == CZ_OK);
    CHECK(m.count == 2 * h2.count && m.bucket[1] == 2 * h2.bucket[1] && near(m.sum, 2 * h2.sum));
    const double other[] = {0.1, 1, 11};
    cz_histogram o;
    CHECK(cz_histogram_init(&o, other, 3, &err) == CZ_OK);
    cz_histogram keep = m;
    cz_error_clear(&err);
    CHECK(cz_histogram_merge(&m, &o, &err) == CZ_ERR_MISMATCH && memcmp(&m, &keep, sizeof m) == 0);
    CHECK(cz_histogram_init(&o, other, 2, &err) == CZ_OK && cz_histogram_merge(&m, &o, NULL) == CZ_ERR_MISMATCH);
    /* bad bounds */
    const double flat[] = {1, 1}, down[] = {2, 1}, nan_b[] = {1, NAN}, inf_b[] = {1, INFINITY};
    double many[CZ_HISTOGRAM_MAX_BOUNDS + 1];
    for (size_t i = 0; i < CZ_ARRAY_LEN(many); i++) many[i] = (double)i;
    cz_error_clear(&err);
    CHECK(cz_histogram_init(&o, flat, 2, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, "bound 1"));
    CHECK(cz_histogram_init(&o, down, 2, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_histogram_init(&o, nan_b, 2, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_histogram_init(&o, inf_b, 2, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_histogram_init(&o, b, 0, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_histogram_init(&o, many, CZ_ARRAY_LEN(many), NULL) == CZ_ERR_INVALID_ARG);
    CHECK(cz_histogram_init(&o, many, CZ_HISTOGRAM_MAX_BOUNDS, NULL) == CZ_OK);
    /* random values against a linear scan, with the bounds themselves hit */
    double rb[CZ_HISTOGRAM_MAX_BOUNDS];
    for (size_t i = 0; i < CZ_HISTOGRAM_MAX_BOUNDS; i++) rb[i] = 0.5 * (double)i * (double)i;
    CHECK(cz_histogram_init(&h, rb, CZ_HISTOGRAM_MAX_BOUNDS, NULL) == CZ_OK);
    uint64_t cnt[CZ_HISTOGRAM_MAX_BOUNDS + 1] = {0};
    long n = cz_test_iters(20000);
    for (long i = 0; i < n; i++) {
        double x = i % 5 == 0 ? rb[cz_rng_u64(rng) % CZ_HISTOGRAM_MAX_BOUNDS] : unif(rng) * 520 - 5;
        size_t k = 0;
        while (k < CZ_HISTOGRAM_MAX_BOUNDS && x > rb[k]) k++;
        cnt[k]++;
        cz_histogram_observe(&h, x);
    }
    long bad = 0;
    uint64_t cum = 0;
    for (size_t k = 0; k <= CZ_HISTOGRAM_MAX_BOUNDS; k++) {
        cum += cnt[k];
        bad += h.bucket[k] != cnt[k] || cz_histogram_cumulative(&h, k) != cum;
    }
    CHECK_MSG(bad == 0 && h.count == (uint64_t)n, "%ld buckets differ from a linear scan", bad);
}

/* ---- error ---- */
static void test_error(void)
{
    cz_error e;
    cz_error_clear(&e);
    CHECK(e.status == CZ_OK && e.msg[0] == 0);
    CHECK(cz_error_set(&e, CZ_ERR_FORMAT, "%s: section %d", "x.zkey", 3) == CZ_ERR_FORMAT);
    CHECK(e.status == CZ_ERR_FORMAT && !strcmp(e.msg, "x.zkey: section 3") && !strcmp(cz_error_msg(&e), e.msg));
    /* the first error wins: a later one returns its status but changes nothing */
    CHECK(cz_error_set(&e, CZ_ERR_IO, "later") == CZ_ERR_IO);
    CHECK(e.status == CZ_ERR_FORMAT && !strcmp(e.msg, "x.zkey: section 3"));
    cz_error_clear(&e);
    CHECK(e.status == CZ_OK && e.msg[0] == 0);
    CHECK(cz_error_set(&e, CZ_ERR_IO, "now %s", "this") == CZ_ERR_IO && !strcmp(e.msg, "now this"));
    /* NULL err: the status comes back, nothing else happens */
    CHECK(cz_error_set(NULL, CZ_ERR_RANGE, "ignored %d", 1) == CZ_ERR_RANGE);
    cz_error_clear(NULL);
    CHECK(!strcmp(cz_error_msg(NULL), ""));
    /* no message: the status's text */
    cz_error_clear(&e);
    cz_error_set(&e, CZ_ERR_NO_MEMORY, "%s", "");
    CHECK(!strcmp(cz_error_msg(&e), cz_status_str(CZ_ERR_NO_MEMORY)));
    /* a long message is cut at the buffer, NUL-terminated */
    char big[2000];
    for (size_t i = 0; i < sizeof big - 1; i++) big[i] = (char)('a' + i % 26);
    big[sizeof big - 1] = 0;
    cz_error_clear(&e);
    CHECK(cz_error_set(&e, CZ_ERR_FORMAT, "%s", big) == CZ_ERR_FORMAT);
    CHECK(strlen(e.msg) == sizeof e.msg - 1 && !strncmp(e.msg, big, sizeof e.msg - 1));
    /* every status has a text; unknown codes too */
    for (int s = 0; s <= CZ_STATUS_COUNT_; s++) CHECK(cz_status_str((cz_status)s) && *cz_status_str((cz_status)s));
}

/* ---- alloc ---- */
typedef struct {
    int allocs, frees;
    size_t last_alloc, last_free;
    void *last_p;
} counting;

static void *count_alloc(void *ctx, size_t bytes)
{
    counting *c = ctx;
    c->allocs++;
    c->last_alloc = bytes;
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

static void count_free(void *ctx, void *p, size_t bytes)
{
    counting *c = ctx;
    c->frees++;
    c->last_free = bytes;
    c->last_p = p;
    free(p);
}

static void test_alloc(void)
{
    CHECK(cz_alloc(NULL, 0) == NULL);
    CHECK(cz_alloc(NULL, SIZE_MAX) == NULL && cz_alloc(NULL, SIZE_MAX - 40) == NULL); /* rounding overflows */
    const size_t sizes[] = {1, 8, 63, 64, 65, 100, 1000, 4097, 65536 + 3, ((size_t)4 << 20) - 1, (size_t)4 << 20,
                            ((size_t)4 << 20) + 1, (size_t)9 << 20};
    long misaligned = 0, failed = 0;
    for (size_t i = 0; i < CZ_ARRAY_LEN(sizes); i++) {
        uint8_t *p = cz_alloc(NULL, sizes[i]);
        if (!p) {
            failed++;
            continue;
        }
        misaligned += ((uintptr_t)p & 63) != 0;
        memset(p, 0x5a, sizes[i]); /* all of it is ours (ASan checks) */
        cz_free(NULL, p, sizes[i]);
    }
    CHECK_MSG(failed == 0 && misaligned == 0, "%ld failed, %ld not 64-byte aligned", failed, misaligned);
    cz_free(NULL, NULL, 10);
    /* a custom allocator gets the sizes asked for, free the same size */
    counting c = {0, 0, 0, 0, NULL};
    cz_allocator a = {count_alloc, count_free, &c};
    CHECK(cz_alloc(&a, 0) == NULL && c.allocs == 0);
    void *p = cz_alloc(&a, 100);
    CHECK(p && c.allocs == 1 && c.last_alloc == 100);
    cz_free(&a, p, 100);
    CHECK(c.frees == 1 && c.last_free == 100 && c.last_p == p);
    p = cz_alloc(&a, 12345);
    CHECK(p && c.allocs == 2 && c.last_alloc == 12345);
    cz_free(&a, p, 12345);
    CHECK(c.frees == 2 && c.last_free == 12345);
    cz_free(&a, NULL, 7);
    CHECK(c.frees == 2);
    /* an allocator without functions means the default */
    cz_allocator none = {NULL, NULL, NULL};
    p = cz_alloc(&none, 200);
    CHECK(p && ((uintptr_t)p & 63) == 0);
    cz_free(&none, p, 200);
}

/* ---- atomic_file ---- */
/* entries of dir other than . and .. (the first one's name into first) */
static int dir_entries(const char *dir, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            if (n++ == 0 && first) snprintf(first, cap, "%s", e->d_name);
        }
    closedir(d);
    return n;
}

static int file_is(const char *path, const char *content)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return n == strlen(content) && memcmp(buf, content, n) == 0;
}

/* open in a directory the process cannot write: CZ_ERR_IO naming the
 * path, nothing left; 0 when all of that holds */
static int ro_open_fails(const char *dir)
{
    char path[400];
    snprintf(path, sizeof path, "%s/out.json", dir);
    cz_atomic_file af;
    cz_error err;
    cz_error_clear(&err);
    if (cz_atomic_file_open(&af, path, &err) != CZ_ERR_IO) return 1;
    if (!strstr(err.msg, path)) return 2;
    if (dir_entries(dir, NULL, 0) != 0) return 3;
    return 0;
}

static void test_atomic_file(void)
{
    char dir[300], path[400], first[256];
    snprintf(dir, sizeof dir, "%s/af", tmpdir);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/out.json", dir);
    cz_error err;
    cz_atomic_file af;
    /* commit: the file appears whole, only then; mode 0666 & ~umask */
    const mode_t masks[] = {022, 027, 077};
    char prev[32] = "", content[32];
    for (size_t i = 0; i < CZ_ARRAY_LEN(masks); i++) {
        snprintf(content, sizeof content, "{\"a\": %zu}", i);
        mode_t old = umask(masks[i]);
        cz_error_clear(&err);
        cz_status st = cz_atomic_file_open(&af, path, &err);
        CHECK_MSG(st == CZ_OK, "%s", cz_error_msg(&err));
        if (st != CZ_OK) {
            umask(old);
            continue;
        }
        fputs("{\"a\": ", af.fp);
        fflush(af.fp);
        /* until the commit: the destination as it was, the temporary beside it */
        CHECK(i == 0 ? access(path, F_OK) != 0 : file_is(path, prev));
        CHECK(dir_entries(dir, NULL, 0) == (i == 0 ? 1 : 2));
        if (i == 0) CHECK(dir_entries(dir, first, sizeof first) == 1 && !strncmp(first, ".cuzk-", 6) && strlen(first) == 12);
        fputs(content + 6, af.fp);
        CHECK(cz_atomic_file_commit(&af, &err) == CZ_OK && af.fp == NULL);
        umask(old);
        struct stat sb;
        CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~masks[i]));
        CHECK(file_is(path, content));
        CHECK(dir_entries(dir, NULL, 0) == 1); /* no temporary left */
        snprintf(prev, sizeof prev, "%s", content);
    }
    CHECK(unlink(path) == 0);
    /* abort: nothing, no temporary */
    CHECK(cz_atomic_file_open(&af, path, &err) == CZ_OK);
    fputs("partial", af.fp);
    cz_atomic_file_abort(&af);
    CHECK(dir_entries(dir, NULL, 0) == 0 && access(path, F_OK) != 0);
    cz_atomic_file_abort(&af); /* twice: harmless */
    /* an aborted rewrite keeps the old file */
    CHECK(cz_atomic_file_open(&af, path, &err) == CZ_OK);
    fputs("old", af.fp);
    CHECK(cz_atomic_file_commit(&af, &err) == CZ_OK);
    CHECK(cz_atomic_file_open(&af, path, &err) == CZ_OK);
    fputs("new, cut short", af.fp);
    cz_atomic_file_abort(&af);
    CHECK(file_is(path, "old") && dir_entries(dir, NULL, 0) == 1);
    CHECK(unlink(path) == 0);
    /* a missing directory */
    char missing[400];
    snprintf(missing, sizeof missing, "%s/no-such-dir/out.json", dir);
    cz_error_clear(&err);
    CHECK(cz_atomic_file_open(&af, missing, &err) == CZ_ERR_IO && strstr(err.msg, missing));
    /* a directory is refused at open; one that takes the name before the
     * commit makes the rename fail, and the temporary goes */
    char sub[400], inner[460];
    snprintf(sub, sizeof sub, "%s/taken", dir);
    snprintf(inner, sizeof inner, "%s/x", sub);
    CHECK(mkdir(sub, 0755) == 0);
    cz_error_clear(&err);
    CHECK(cz_atomic_file_open(&af, sub, &err) == CZ_ERR_IO && strstr(err.msg, "is a directory"));
    CHECK(rmdir(sub) == 0);
    CHECK(cz_atomic_file_open(&af, sub, &err) == CZ_OK);
    fputs("x", af.fp);
    CHECK(mkdir(sub, 0755) == 0);
    FILE *f = fopen(inner, "w"); /* a non-empty directory: rename(2) cannot replace it */
    CHECK(f != NULL);
    if (f) fclose(f);
    cz_error_clear(&err);
    CHECK(cz_atomic_file_commit(&af, &err) == CZ_ERR_IO && strstr(err.msg, sub));
    CHECK(dir_entries(dir, first, sizeof first) == 1 && !strcmp(first, "taken"));
    unlink(inner);
    rmdir(sub);
    /* commit of a file that is not open */
    cz_atomic_file closed;
    memset(&closed, 0, sizeof closed);
    CHECK(cz_atomic_file_commit(&closed, NULL) == CZ_ERR_INVALID_ARG);
    /* a read-only directory; root writes there anyway, so as root the check
     * runs in a child that has become nobody */
    char ro[300];
    snprintf(ro, sizeof ro, "%s/ro", tmpdir);
    CHECK(mkdir(ro, 0555) == 0 && chmod(ro, 0555) == 0);
    if (geteuid() != 0) {
        CHECK_MSG(ro_open_fails(ro) == 0, "read-only directory: case %d", ro_open_fails(ro));
    } else {
        (void)chmod(tmpdir, 0755); /* nobody must reach ro */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(77);
            _exit(ro_open_fails(ro));
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
            printf("  atomic_file: running as root and cannot become nobody: read-only directory not checked\n");
        else
            CHECK_MSG(WEXITSTATUS(status) == 0, "read-only directory: case %d", WEXITSTATUS(status));
        (void)chmod(tmpdir, 0700);
    }
    CHECK(dir_entries(ro, NULL, 0) == 0);
    chmod(ro, 0755);
}

/* ---- atomic_file: what is at the destination ---- */

static int read_all(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (int)n;
}

/* writes text to path through an atomic file; the status of open or commit */
static cz_status af_write(const char *path, const char *text, cz_error *err)
{
    cz_atomic_file af;
    cz_status st = cz_atomic_file_open(&af, path, err);
    if (st != CZ_OK) return st;
    fputs(text, af.fp);
    return cz_atomic_file_commit(&af, err);
}

static void test_atomic_targets(void)
{
    char dir[300], p[700], q[700], buf[256];
    snprintf(dir, sizeof dir, "%s/aft", tmpdir);
    CHECK(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0);
    cz_error err;
    struct stat sb;
    /* a name of 250 characters: the temporary's name is short */
    char name[251];
    memset(name, 'n', 250);
    name[250] = '\0';
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cz_error_clear(&err);
    CHECK_MSG(af_write(p, "long", &err) == CZ_OK, "%s", cz_error_msg(&err));
    CHECK(file_is(p, "long") && dir_entries(dir, NULL, 0) == 1);
    CHECK(unlink(p) == 0);
    /* an empty path */
    cz_atomic_file af;
    CHECK(cz_atomic_file_open(&af, "", &err) == CZ_ERR_INVALID_ARG);
    /* a symbolic link: its target replaced, the link kept; relative targets
     * from the link's directory; a dangling link creates its target */
    snprintf(p, sizeof p, "%s/target", dir);
    snprintf(q, sizeof q, "%s/link", dir);
    CHECK(af_write(p, "old", &err) == CZ_OK && symlink("target", q) == 0);
    CHECK(af_write(q, "new", &err) == CZ_OK);
    CHECK(file_is(p, "new") && lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode) && dir_entries(dir, NULL, 0) == 2);
    CHECK(unlink(p) == 0);
    CHECK(af_write(q, "made", &err) == CZ_OK && file_is(p, "made") && lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode));
    CHECK(unlink(p) == 0 && unlink(q) == 0);
    /* a loop of links */
    snprintf(p, sizeof p, "%s/la", dir);
    snprintf(q, sizeof q, "%s/lb", dir);
    CHECK(symlink("lb", p) == 0 && symlink("la", q) == 0);
    cz_error_clear(&err);
    CHECK(af_write(p, "x", &err) == CZ_ERR_IO && strstr(err.msg, "symbolic links"));
    CHECK(unlink(p) == 0 && unlink(q) == 0 && dir_entries(dir, NULL, 0) == 0);
    /* devices: written in place, never replaced; /dev/full's ENOSPC fails the commit */
    CHECK(af_write("/dev/null", "discarded", &err) == CZ_OK);
    CHECK(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        cz_error_clear(&err);
        CHECK(af_write("/dev/full", "x", &err) == CZ_ERR_IO && strstr(err.msg, "/dev/full") &&
              strstr(err.msg, strerror(ENOSPC)));
        CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
    }
    /* a descriptor (/dev/fd/N): written through a duplicate, in place */
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    snprintf(p, sizeof p, "/dev/fd/%d", pfd[1]);
    CHECK(af_write(p, "through the pipe", &err) == CZ_OK);
    close(pfd[1]);
    ssize_t got = read(pfd[0], buf, sizeof buf - 1);
    CHECK(got == 16 && !memcmp(buf, "through the pipe", 16));
    close(pfd[0]);
    int fd = -1;
    CHECK(cz_path_fd("/dev/stdout", &fd) && fd == 1 && cz_path_fd("/proc/self/fd/7", &fd) && fd == 7);
    CHECK(!cz_path_fd("/dev/fd/", &fd) && !cz_path_fd("/dev/fd/1x", &fd) && !cz_path_fd("/dev/stdoutx", &fd));
    /* a FIFO: written in place for the reader (a child) */
    snprintf(p, sizeof p, "%s/fifo", dir);
    CHECK(mkfifo(p, 0600) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char b[64];
        int n = read_all(p, b, sizeof b);
        _exit(n == 9 && !memcmp(b, "for fifos", 9) ? 0 : 1);
    }
    CHECK(af_write(p, "for fifos", &err) == CZ_OK);
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(stat(p, &sb) == 0 && S_ISFIFO(sb.st_mode) && dir_entries(dir, NULL, 0) == 1);
    CHECK(unlink(p) == 0);
    /* a read-only file is not replaced (as a process that may not write it:
     * root may, so as root the check runs as nobody) */
    snprintf(p, sizeof p, "%s/ro.json", dir);
    CHECK(af_write(p, "keep", &err) == CZ_OK && chmod(p, 0444) == 0);
    (void)chmod(tmpdir, 0755);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
        cz_error e;
        cz_error_clear(&e);
        _exit(af_write(p, "lost", &e) == CZ_ERR_IO && strstr(e.msg, "read-only") ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        printf("  atomic_file: cannot become nobody: read-only file not checked\n");
    else
        CHECK(WEXITSTATUS(status) == 0);
    (void)chmod(tmpdir, 0700);
    CHECK(file_is(p, "keep") && dir_entries(dir, NULL, 0) == 1);
    CHECK(unlink(p) == 0);
    /* the table of temporaries: what a signal handler removes */
    snprintf(p, sizeof p, "%s/sig.json", dir);
    CHECK(cz_atomic_file_open(&af, p, &err) == CZ_OK && af.slot >= 0);
    CHECK(dir_entries(dir, NULL, 0) == 1);
    cz_atomic_file_remove_temporaries();
    CHECK(dir_entries(dir, NULL, 0) == 0);
    cz_atomic_file_abort(&af);
    /* more temporaries than the table holds: all still work */
    static cz_atomic_file many[70];
    int ok = 1;
    for (int i = 0; i < 70; i++) {
        snprintf(p, sizeof p, "%s/m%d", dir, i);
        ok &= cz_atomic_file_open(&many[i], p, &err) == CZ_OK;
    }
    CHECK(ok && dir_entries(dir, NULL, 0) == 70 && many[0].slot >= 0 && many[69].slot == -1);
    for (int i = 0; i < 70; i++) cz_atomic_file_abort(&many[i]);
    CHECK(dir_entries(dir, NULL, 0) == 0);
    rmdir(dir);
}

/* ---- outputs: a group together or not at all; the same-file check ---- */
static void test_outputs(void)
{
    char dir[300], a[400], b[400], h[400], l[400], x[400], x2[400], x3[400], sub[400], buf[64];
    snprintf(dir, sizeof dir, "%s/out", tmpdir);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    cz_error err;
    CHECK(af_write(a, "old-a", &err) == CZ_OK);
    for (int commit = 0; commit < 2; commit++) {
        cz_outputs g;
        cz_outputs_init(&g);
        const char *wa, *wb, *wn;
        CHECK(cz_outputs_add(&g, a, &wa, &err) == CZ_OK && cz_outputs_add(&g, b, &wb, &err) == CZ_OK);
        CHECK(cz_outputs_add(&g, "/dev/null", &wn, &err) == CZ_OK && !strcmp(wn, "/dev/null"));
        CHECK(!cz_outputs_in_place(&g, 0) && !cz_outputs_in_place(&g, 1) && cz_outputs_in_place(&g, 2));
        CHECK(strstr(wa, "/.cuzk-") && strstr(wb, "/.cuzk-") && dir_entries(dir, NULL, 0) == 3);
        /* a directory: refused, the group unchanged */
        const char *wd;
        CHECK(cz_outputs_add(&g, dir, &wd, &err) == CZ_ERR_IO && g.n == 3);
        CHECK(af_write(wa, "new-a", &err) == CZ_OK && af_write(wb, "new-b", &err) == CZ_OK);
        CHECK(af_write(wn, "nothing", &err) == CZ_OK);
        /* messages name the outputs, not the placeholders */
        cz_error e2;
        cz_error_clear(&e2);
        cz_error_set(&e2, CZ_ERR_IO, "%s: write failed", wb);
        cz_outputs_explain(&g, &e2);
        char want[520];
        snprintf(want, sizeof want, "%s: write failed", b);
        CHECK(!strcmp(e2.msg, want));
        CHECK(file_is(a, "old-a") && access(b, F_OK) != 0); /* nothing before the commit */
        if (commit) {
            CHECK(cz_outputs_commit(&g, &err) == CZ_OK);
            CHECK(file_is(a, "new-a") && file_is(b, "new-b") && dir_entries(dir, NULL, 0) == 2);
        } else {
            cz_outputs_abort(&g);
            CHECK(file_is(a, "old-a") && access(b, F_OK) != 0 && dir_entries(dir, NULL, 0) == 1);
        }
        cz_outputs_abort(&g); /* empty: harmless */
    }
    CHECK(read_all(a, buf, sizeof buf) == 5);
    /* the same file: names of one inode, one name written two ways, a link
     * to an input; devices may repeat, a descriptor may not */
    snprintf(h, sizeof h, "%s/hard", dir);
    snprintf(l, sizeof l, "%s/sym", dir);
    snprintf(x, sizeof x, "%s/x", dir);
    snprintf(x2, sizeof x2, "%s/./x", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(x3, sizeof x3, "%s/sub/../x", dir);
    CHECK(link(a, h) == 0 && symlink("a", l) == 0 && mkdir(sub, 0755) == 0);
    const char *in1[1] = {a};
    const char *o_hard[1] = {h}, *o_sym[1] = {l}, *o_two[2] = {x, x2}, *o_up[2] = {x, x3}, *o_ok[2] = {x, b};
    const char *o_null[2] = {"/dev/null", "/dev/null"}, *o_fd[2] = {"/dev/stdout", "/dev/fd/1"};
    const char *o_nodir[2] = {"/no-such-dir/p", "/no-such-dir/p"}, *o_skip[3] = {NULL, x, NULL};
    cz_error_clear(&err);
    CHECK(cz_outputs_check(in1, 1, o_hard, 1, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, h) && strstr(err.msg, a));
    cz_error_clear(&err);
    CHECK(cz_outputs_check(in1, 1, o_sym, 1, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, l));
    cz_error_clear(&err);
    CHECK(cz_outputs_check(NULL, 0, o_two, 2, &err) == CZ_ERR_INVALID_ARG && strstr(err.msg, x2));
    cz_error_clear(&err);
    CHECK(cz_outputs_check(NULL, 0, o_up, 2, &err) == CZ_ERR_INVALID_ARG);
    cz_error_clear(&err);
    CHECK(cz_outputs_check(NULL, 0, o_fd, 2, &err) == CZ_ERR_INVALID_ARG);
    cz_error_clear(&err);
    CHECK(cz_outputs_check(NULL, 0, o_nodir, 2, &err) == CZ_ERR_INVALID_ARG);
    CHECK(cz_outputs_check(in1, 1, o_ok, 2, &err) == CZ_OK);
    CHECK(cz_outputs_check(NULL, 0, o_null, 2, &err) == CZ_OK);
    CHECK(cz_outputs_check(in1, 1, o_skip, 3, &err) == CZ_OK);
    CHECK(unlink(h) == 0 && unlink(l) == 0 && unlink(a) == 0 && unlink(b) == 0 && rmdir(sub) == 0 && rmdir(dir) == 0);
}

/* ---- rng ---- */
static void test_rng(void)
{
    cz_rng a, b;
    enum { N = 64, SEEDS = 64 };
    cz_rng_seed(&a, 12345);
    cz_rng_seed(&b, 12345);
    int same = 1;
    for (int i = 0; i < N; i++) same &= cz_rng_u64(&a) == cz_rng_u64(&b);
    CHECK(same);
    uint8_t x[37], y[37];
    cz_rng_seed(&a, 99);
    cz_rng_seed(&b, 99);
    CHECK(cz_rng_bytes(&a, x, sizeof x) == CZ_OK && cz_rng_bytes(&b, y, sizeof y) == CZ_OK && !memcmp(x, y, sizeof x));
    /* after an odd-length draw both streams still agree */
    CHECK(cz_rng_u64(&a) == cz_rng_u64(&b));
    /* distinct seeds (0 included): distinct streams */
    uint64_t first[SEEDS][4];
    for (int s = 0; s < SEEDS; s++) {
        cz_rng_seed(&a, (uint64_t)s);
        for (int k = 0; k < 4; k++) first[s][k] = cz_rng_u64(&a);
    }
    int collide = 0, zero = 0;
    for (int s = 0; s < SEEDS; s++) {
        zero += first[s][0] == 0 && first[s][1] == 0;
        for (int t = 0; t < s; t++) collide += !memcmp(first[s], first[t], sizeof first[s]);
    }
    CHECK(collide == 0 && zero == 0);
    cz_rng_seed(&b, 100);
    cz_rng_seed(&a, 99);
    CHECK(cz_rng_bytes(&b, y, sizeof y) == CZ_OK && cz_rng_bytes(&a, x, sizeof x) == CZ_OK && memcmp(x, y, sizeof x));
    /* a seeded stream is not constant */
    cz_rng_seed(&a, 7);
    uint64_t v0 = cz_rng_u64(&a);
    int varies = 0;
    for (int i = 0; i < 8; i++) varies |= cz_rng_u64(&a) != v0;
    CHECK(varies);
    /* the OS: two draws differ and neither is constant */
    uint8_t o1[64], o2[64];
    CHECK(cz_os_random(o1, sizeof o1) == CZ_OK && cz_os_random(o2, sizeof o2) == CZ_OK);
    int const1 = 1, const2 = 1;
    for (size_t i = 1; i < sizeof o1; i++) {
        const1 &= o1[i] == o1[0];
        const2 &= o2[i] == o2[0];
    }
    CHECK(!const1 && !const2 && memcmp(o1, o2, sizeof o1) != 0);
    cz_rng os;
    cz_rng_os(&os);
    CHECK(os.os == 1 && cz_rng_bytes(&os, o1, sizeof o1) == CZ_OK && cz_rng_bytes(&os, o1, 0) == CZ_OK);
    CHECK(cz_rng_u64(&os) != cz_rng_u64(&os) || cz_rng_u64(&os) != cz_rng_u64(&os));
    CHECK(cz_rng_status(&os) == CZ_OK);
    /* the OS refusing (as under a seccomp filter): errors, zeros, never a
     * substitute stream; a seeded generator is not affected */
    cz_rng_os_set_failing(1);
    memset(o1, 0xa5, sizeof o1);
    CHECK(cz_os_random(o1, sizeof o1) == CZ_ERR_RANDOM && o1[0] == 0 && o1[63] == 0);
    CHECK(cz_rng_u64(&os) == 0 && cz_rng_status(&os) == CZ_ERR_RANDOM && os.error == ENOSYS);
    cz_rng fresh;
    CHECK(cz_rng_os(&fresh) == CZ_ERR_RANDOM && cz_rng_status(&fresh) == CZ_ERR_RANDOM);
    memset(o2, 0xa5, sizeof o2);
    CHECK(cz_rng_bytes(&fresh, o2, sizeof o2) == CZ_ERR_RANDOM && o2[0] == 0 && o2[63] == 0);
    uint64_t z = 1;
    for (int i = 0; i < 4; i++) z |= cz_rng_u64(&fresh);
    CHECK(z == 1);
    cz_rng_seed(&a, 5);
    cz_rng_seed(&b, 5);
    CHECK(cz_rng_u64(&a) == cz_rng_u64(&b) && cz_rng_u64(&a) != 0 && cz_rng_status(&a) == CZ_OK);
    cz_rng_os_set_failing(0);
    /* a generator that failed stays failed; a new one works again */
    CHECK(cz_rng_bytes(&fresh, o2, 8) == CZ_ERR_RANDOM);
    CHECK(cz_rng_os(&fresh) == CZ_OK && cz_rng_bytes(&fresh, o2, sizeof o2) == CZ_OK);
    CHECK(cz_rng_status(&fresh) == CZ_OK);
}

/* ---- thread ---- */
typedef struct {
    atomic_int *hits;  /* per index */
    atomic_int *busy;  /* per thread id: a task is running with it */
    int nthreads;
    atomic_int bad_thread, clash;
} run_ctx;

static void count_task(void *arg, size_t i, int thread)
{
    run_ctx *c = arg;
    if (thread < 0 || thread >= c->nthreads) {
        atomic_fetch_add(&c->bad_thread, 1);
        return;
    }
    if (atomic_exchange(&c->busy[thread], 1)) atomic_fetch_add(&c->clash, 1);
    atomic_fetch_add(&c->hits[i], 1);
    for (volatile int k = 0; k < 200; k++) {
    }
    atomic_store(&c->busy[thread], 0);
}

typedef struct {
    cz_pool *pool;
    int nthreads, inner_n;
    atomic_int *hits; /* outer x inner */
    atomic_int off_thread, bad_thread, not_done;
    pthread_t *owner; /* per outer task */
} nest_ctx;

typedef struct {
    nest_ctx *n;
    size_t outer;
} nest_inner;

static void inner_task(void *arg, size_t i, int thread)
{
    nest_inner *ni = arg;
    nest_ctx *n = ni->n;
    if (!pthread_equal(pthread_self(), n->owner[ni->outer])) atomic_fetch_add(&n->off_thread, 1);
    if (thread < 0 || thread >= n->nthreads) atomic_fetch_add(&n->bad_thread, 1);
    atomic_fetch_add(&n->hits[ni->outer * (size_t)n->inner_n + i], 1);
}

static void outer_task(void *arg, size_t i, int thread)
{
    nest_ctx *n = arg;
    n->owner[i] = pthread_self();
    nest_inner ni = {n, i};
    cz_pool_run(n->pool, (size_t)n->inner_n, inner_task, &ni);
    /* inline: every inner task has run when the nested call returns */
    for (int k = 0; k < n->inner_n; k++)
        if (atomic_load(&n->hits[i * (size_t)n->inner_n + (size_t)k]) != 1) atomic_fetch_add(&n->not_done, 1);
    (void)thread;
}

typedef struct {
    atomic_int *hits;
    size_t n, grain;
    int nthreads;
    atomic_int bad_range, short_chunk, bad_thread;
} for_ctx;

static void range_fn(void *arg, size_t begin, size_t end, int thread)
{
    for_ctx *c = arg;
    if (begin >= end || end > c->n) {
        atomic_fetch_add(&c->bad_range, 1);
        return;
    }
    if (end - begin < c->grain && end != c->n) atomic_fetch_add(&c->short_chunk, 1);
    if (thread < 0 || thread >= c->nthreads) atomic_fetch_add(&c->bad_thread, 1);
    for (size_t i = begin; i < end; i++) atomic_fetch_add(&c->hits[i], 1);
}

/* cz_pool_run: each index once per run, ids in range, unique among
 * concurrent tasks */
static void check_run(cz_pool *pool, int nt, size_t n)
{
    run_ctx c;
    c.hits = calloc(n + 1, sizeof *c.hits);
    c.busy = calloc((size_t)nt, sizeof *c.busy);
    c.nthreads = nt;
    atomic_init(&c.bad_thread, 0);
    atomic_init(&c.clash, 0);
    for (int rep = 0; rep < 3; rep++) cz_pool_run(pool, n, count_task, &c);
    long wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += atomic_load(&c.hits[i]) != 3;
    CHECK_MSG(wrong == 0 && atomic_load(&c.bad_thread) == 0 && atomic_load(&c.clash) == 0,
              "pool %d, %zu tasks: %ld indices not run once per run, %d ids out of range, %d clashes", nt, n, wrong,
              atomic_load(&c.bad_thread), atomic_load(&c.clash));
    free(c.hits);
    free(c.busy);
}

/* nested runs execute inline on the thread of the outer task */
static void check_nested(cz_pool *pool, int nt)
{
    nest_ctx nc;
    const size_t outer = 24;
    nc.pool = pool;
    nc.nthreads = nt;
    nc.inner_n = 16;
    nc.hits = calloc(outer * 16, sizeof *nc.hits);
    nc.owner = calloc(outer, sizeof *nc.owner);
    atomic_init(&nc.off_thread, 0);
    atomic_init(&nc.bad_thread, 0);
    atomic_init(&nc.not_done, 0);
    cz_pool_run(pool, outer, outer_task, &nc);
    long wrong = 0;
    for (size_t i = 0; i < outer * 16; i++) wrong += atomic_load(&nc.hits[i]) != 1;
    CHECK_MSG(wrong == 0 && atomic_load(&nc.off_thread) == 0 && atomic_load(&nc.bad_thread) == 0 &&
                  atomic_load(&nc.not_done) == 0,
              "pool %d nested: %ld not once, %d on another thread, %d ids out of range, %d unfinished", nt, wrong,
              atomic_load(&nc.off_thread), atomic_load(&nc.bad_thread), atomic_load(&nc.not_done));
    free(nc.hits);
    free(nc.owner);
}

/* parallel_for: [0, n) exactly once, chunks of at least grain (but the last) */
static void check_parallel_for(cz_pool *pool, int nt, size_t n, size_t grain)
{
    for_ctx fc;
    fc.hits = calloc(n + 1, sizeof *fc.hits);
    fc.n = n;
    fc.grain = grain;
    fc.nthreads = nt;
    atomic_init(&fc.bad_range, 0);
    atomic_init(&fc.short_chunk, 0);
    atomic_init(&fc.bad_thread, 0);
    cz_parallel_for(pool, n, grain, range_fn, &fc);
    long wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += atomic_load(&fc.hits[i]) != 1;
    CHECK_MSG(wrong == 0 && atomic_load(&fc.bad_range) == 0 && atomic_load(&fc.short_chunk) == 0 &&
                  atomic_load(&fc.bad_thread) == 0,
              "parallel_for pool %d n %zu grain %zu: %ld not once, %d bad ranges, %d short chunks, %d ids out of range",
              nt, n, grain, wrong, atomic_load(&fc.bad_range), atomic_load(&fc.short_chunk),
              atomic_load(&fc.bad_thread));
    free(fc.hits);
}

/* cz_memcpy_parallel: every byte of [dst, dst + n) from src, none outside it
 * (guards of 64 bytes either side), at sizes around the 1 MiB piece and odd
 * offsets */
static void check_memcpy(cz_pool *pool, cz_rng *rng)
{
    const size_t M = (size_t)1 << 20;
    const size_t sizes[] = {0, 1, 63, M - 1, 2 * M - 1, 2 * M, 2 * M + 1, 5 * M + 4093, 17 * M + 7};
    const size_t cap = 17 * M + 7 + 3 + 128;
    uint8_t *src = malloc(cap), *dst = malloc(cap);
    CHECK(src && dst);
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    CHECK(cz_rng_bytes(rng, src, cap) == CZ_OK);
    for (size_t i = 0; i < CZ_ARRAY_LEN(sizes); i++) {
        size_t n = sizes[i], so = cz_rng_u64(rng) % 4, d0 = 64 + cz_rng_u64(rng) % 4;
        memset(dst, 0xa5, cap);
        cz_memcpy_parallel(pool, dst + d0, src + so, n);
        int bad = memcmp(dst + d0, src + so, n) != 0;
        for (size_t j = 0; j < d0; j++) bad |= dst[j] != 0xa5;
        for (size_t j = d0 + n; j < d0 + n + 64; j++) bad |= dst[j] != 0xa5;
        CHECK_MSG(!bad, "cz_memcpy_parallel pool %d, %zu bytes (src +%zu, dst +%zu): wrong bytes", cz_pool_threads(pool), n,
               so, d0);
    }
    free(src);
    free(dst);
}

/* a long run: each task waits (up to 10 s) for the flag */
typedef struct {
    cz_pool *pool;
    atomic_int release, started, finished;
} hold_ctx;

static void hold_task(void *arg, size_t i, int thread)
{
    (void)i;
    (void)thread;
    hold_ctx *h = arg;
    atomic_fetch_add(&h->started, 1);
    for (int t = 0; t < 10000 && !atomic_load(&h->release); t++) usleep(1000);
}

static void *hold_main(void *arg)
{
    hold_ctx *h = arg;
    cz_pool_run(h->pool, 4, hold_task, h);
    atomic_store(&h->finished, 1);
    return NULL;
}

/* cz_pool_serial: inline on the caller, never behind another thread's run */
static void check_serial(cz_rng *rng)
{
    cz_pool *s = cz_pool_serial();
    CHECK(s != NULL && s == cz_pool_serial() && cz_pool_threads(s) == 1);
    check_run(s, 1, 0);
    check_run(s, 1, 1000);
    check_nested(s, 1);
    check_parallel_for(s, 1, 12345, 64);
    check_memcpy(s, rng);
    /* another thread holds a run of the default pool (a partition's
     * synthesis); a run on the serial pool finishes before that one ends */
    cz_set_threads(2);
    hold_ctx h;
    h.pool = cz_pool_default();
    atomic_init(&h.release, 0);
    atomic_init(&h.started, 0);
    atomic_init(&h.finished, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, hold_main, &h) != 0) {
        CHECK(0);
        return;
    }
    for (int t = 0; t < 5000 && !atomic_load(&h.started); t++) usleep(1000);
    check_run(s, 1, 100);
    CHECK_MSG(atomic_load(&h.started) && !atomic_load(&h.finished), "the serial run waited for the default pool's");
    atomic_store(&h.release, 1);
    pthread_join(th, NULL);
    CHECK(atomic_load(&h.finished));
}

static void test_thread(cz_rng *rng)
{
    CHECK(cz_cpu_count() >= 1 && cz_pool_threads(NULL) == 1);
    const int sizes[] = {1, 2, 4, 7};
    const size_t tasks[] = {0, 1, 2, 3, 17, 1000, 10007};
    const size_t ns[] = {0, 1, 2, 5, 100, 1000, 12345};
    for (size_t si = 0; si < CZ_ARRAY_LEN(sizes); si++) {
        cz_pool *pool = cz_pool_create(sizes[si]);
        CHECK(pool != NULL);
        if (!pool) continue;
        int nt = cz_pool_threads(pool);
        CHECK(nt >= 1 && nt <= sizes[si]);
        for (size_t ti = 0; ti < CZ_ARRAY_LEN(tasks); ti++) check_run(pool, nt, tasks[ti]);
        check_nested(pool, nt);
        check_memcpy(pool, rng);
        for (size_t ni = 0; ni < CZ_ARRAY_LEN(ns); ni++) {
            const size_t grains[] = {0, 1, 3, 64, ns[ni], ns[ni] + 5};
            for (size_t gi = 0; gi < CZ_ARRAY_LEN(grains); gi++) check_parallel_for(pool, nt, ns[ni], grains[gi]);
        }
        cz_pool_free(pool);
    }
    /* no pool: inline on the caller */
    check_run(NULL, 1, 5);
    check_serial(rng);
    /* the default pool follows cz_set_threads */
    cz_set_threads(3);
    CHECK(cz_get_threads() == 3 && cz_pool_threads(cz_pool_default()) == 3);
    cz_set_threads(1);
    CHECK(cz_get_threads() == 1);
    cz_set_threads(0);
    CHECK(cz_get_threads() == cz_cpu_count());
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_util");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_util_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;

    test_stats(&rng);
    test_histogram(&rng);
    test_error();
    test_alloc();
    test_atomic_file(); /* before any thread exists (it may fork) */
    test_atomic_targets();
    test_outputs();
    test_rng();
    test_thread(&rng);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    return cz_test_finish("test_util");
}
