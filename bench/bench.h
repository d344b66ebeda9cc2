/*
 * bench.h: the one harness shared by every benchmark binary (bench/bench_*.c).
 *
 * DESIGN: header-only and static, because each benchmark is a single .c file.
 * A benchmark does four things:
 *
 *   cz_bench b;
 *   static const char *const own[] = {"--log2n", NULL};     // its own flags
 *   int rc = cz_bench_init(&b, "bench_ntt", argc, argv, own,
 *                          "  --log2n=K   largest size 2^K (default 20)\n");
 *   if (rc >= 0) return rc;              // --help printed (0) or bad flag (2)
 *   long k = cz_bench_opt_long(&b, "--log2n", 20);
 *
 *   double ns = cz_bench_time(&b, my_fn, &ctx);  // median ns per iteration
 *
 *   cz_bench_table t;
 *   cz_bench_table_init(&t, "NTT, 1 thread", "size|ns/element|ms");
 *   cz_bench_table_addf(&t, "2^%ld|%.2f|%.3f", k, ns / n, ns * 1e-6);
 *   cz_bench_table_print(&b, &t);        // prints it; kept for --write
 *
 *   return cz_bench_finish(&b);          // with --write: into RESULTS.md
 *
 * Timing: fn(ctx, iters) must perform the measured operation iters times (a
 * "closure": a function plus its context). cz_bench_time() first calibrates
 * iters by growing it until one run lasts at least min_ms, then times
 * `repeats` runs of that many iterations on CLOCK_MONOTONIC and returns the
 * median time per iteration in ns (the calibration doubles as warm-up). An
 * operation slower than min_ms is simply run once per repeat. To measure a
 * latency, make each iteration depend on the previous result; to stop the
 * compiler from deleting unused work, pass results to cz_bench_escape().
 *
 * Common flags, handled here: --quick (short runs and fewer repeats: a
 * smoke test, e.g. in CI), --write[=PATH] (write the results section),
 * --repeats=N, --min-ms=X, --best (report the fastest run instead of the
 * median: steadier for short kernels on a busy machine), --help. A benchmark lists its own flags
 * ("--name", given as --name=value or a bare --name) and reads them with
 * cz_bench_opt_str / cz_bench_opt_long / cz_bench_has.
 *
 * Results file: tables print as aligned markdown (same text on the terminal
 * and in the file). With --write, the benchmark's section "## <name>" in
 * bench/RESULTS.md (the file beside this header; --write=PATH for another)
 * is replaced, or appended if it is not there yet, with the date (UTC), the
 * machine (CPU model from /proc/cpuinfo, online cores), the command line,
 * the notes and the tables. Other sections are left as they are.
 *
 * Figures from a shared machine are indicative only: the median of several
 * repeats damps, but does not remove, other processes' noise.
 */
#ifndef CZ_BENCH_H
#define CZ_BENCH_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *name;         /* section title in RESULTS.md, e.g. "bench_ff" */
    int quick;                /* --quick */
    int write;                /* --write[=PATH] */
    int repeats;              /* timed runs per measurement (median reported) */
    int best;                 /* --best: report the fastest run instead */
    double min_ms;            /* length of one timed run */
    char results_path[1024];  /* where --write writes */
    char cmdline[1024];       /* the command line, for the results section */
    int argc;
    char **argv;
    const char *const *own;   /* the benchmark's own flags, NULL-terminated */
    char *md;                 /* markdown body collected for --write */
    size_t md_len, md_cap;
} cz_bench;

/* The measured operation, performed iters times. */
typedef void (*cz_bench_fn)(void *ctx, uint64_t iters);

/* Makes the compiler assume *p is read and written: keeps results alive. */
static inline void cz_bench_escape(void *p) { __asm__ volatile("" : : "g"(p) : "memory"); }

/* Monotonic clock in nanoseconds. */
static inline uint64_t cz_bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cz_bench_md_(cz_bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->md_len + (size_t)n + 1 > b->md_cap) {
        size_t cap = (b->md_cap ? 2 * b->md_cap : 4096) + (size_t)n;
        char *p = (char *)realloc(b->md, cap);
        if (!p) return;
        b->md = p;
        b->md_cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->md + b->md_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->md_len += (size_t)n;
}

/* Index of flag s among the benchmark's own flags (matching "--x" or
 * "--x=..."), or -1. */
static int cz_bench_own_(const cz_bench *b, const char *s)
{
    for (int i = 0; b->own && b->own[i]; i++) {
        size_t l = strlen(b->own[i]);
        if (strncmp(s, b->own[i], l) == 0 && (s[l] == '\0' || s[l] == '=')) return i;
    }
    return -1;
}

/*
 * Parses the command line. Returns -1 to go on benchmarking, 0 after
 * printing --help (exit with 0), 2 after reporting an unknown flag (exit
 * with 2). own: the benchmark's own flags (NULL-terminated, may be NULL);
 * own_help: their help text (may be NULL).
 */
static int cz_bench_init(cz_bench *b, const char *name, int argc, char **argv, const char *const *own,
                         const char *own_help)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    b->argc = argc;
    b->argv = argv;
    b->own = own;
    b->repeats = 7;
    b->min_ms = 40;
    /* default results file: RESULTS.md beside this header (CMake passes
     * absolute include paths, so __FILE__ is absolute) */
    const char *here = __FILE__, *slash = strrchr(here, '/');
    if (slash)
        snprintf(b->results_path, sizeof b->results_path, "%.*s/RESULTS.md", (int)(slash - here), here);
    else
        snprintf(b->results_path, sizeof b->results_path, "bench/RESULTS.md");
    size_t off = 0;
    for (int i = 0; i < argc && off < sizeof b->cmdline; i++) {
        const char *a = argv[i];
        if (i == 0 && strrchr(a, '/')) a = strrchr(a, '/') + 1;
        off += (size_t)snprintf(b->cmdline + off, sizeof b->cmdline - off, "%s%s", i ? " " : "", a);
    }
    int explicit_repeats = 0, explicit_ms = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: %s [flags]\n"
                   "  --quick        short runs, fewer repeats (a smoke test)\n"
                   "  --write[=PATH] write this benchmark's section into the results file\n"
                   "                 (default %s): date, machine, command line, tables\n"
                   "  --repeats=N    timed runs per figure, median reported (default 7, quick 3)\n"
                   "  --min-ms=X     length of one timed run in ms (default 40, quick 4)\n"
                   "  --best         report the fastest run, not the median\n"
                   "  --help         this text\n%s",
                   name, b->results_path, own_help ? own_help : "");
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            b->quick = 1;
        } else if (strcmp(a, "--best") == 0) {
            b->best = 1;
        } else if (strcmp(a, "--write") == 0) {
            b->write = 1;
        } else if (strncmp(a, "--write=", 8) == 0) {
            b->write = 1;
            snprintf(b->results_path, sizeof b->results_path, "%s", a + 8);
        } else if (strncmp(a, "--repeats=", 10) == 0) {
            if (atoi(a + 10) <= 0) {
                fprintf(stderr, "%s: %s: expected a whole number >= 1\n", name, a);
                return 2;
            }
            b->repeats = atoi(a + 10);
            explicit_repeats = 1;
        } else if (strncmp(a, "--min-ms=", 9) == 0) {
            if (!(atof(a + 9) > 0)) {
                fprintf(stderr, "%s: %s: expected a length in ms > 0\n", name, a);
                return 2;
            }
            b->min_ms = atof(a + 9);
            explicit_ms = 1;
        } else if (cz_bench_own_(b, a) < 0) {
            fprintf(stderr, "%s: unknown flag '%s' (--help lists them)\n", name, a);
            return 2;
        }
    }
    if (b->quick) {
        if (!explicit_repeats) b->repeats = 3;
        if (!explicit_ms) b->min_ms = 4;
    }
    return -1;
}

/* Value of the benchmark's own flag "--x=value"; "" for a bare "--x"; NULL
 * if absent. The last occurrence wins. */
static const char *cz_bench_opt_str(const cz_bench *b, const char *flag)
{
    const char *v = NULL;
    size_t l = strlen(flag);
    for (int i = 1; i < b->argc; i++) {
        const char *a = b->argv[i];
        if (strncmp(a, flag, l) == 0 && (a[l] == '\0' || a[l] == '=')) v = a[l] ? a + l + 1 : "";
    }
    return v;
}

static long cz_bench_opt_long(const cz_bench *b, const char *flag, long dflt)
{
    const char *v = cz_bench_opt_str(b, flag);
    return v && *v ? strtol(v, NULL, 0) : dflt;
}

static int cz_bench_has(const cz_bench *b, const char *flag) { return cz_bench_opt_str(b, flag) != NULL; }

static int cz_bench_cmp_dbl_(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return a < c ? -1 : a > c;
}

/* Median (--best: minimum) ns per iteration of fn(ctx, iters) over
 * b->repeats timed runs. */
static double cz_bench_time(const cz_bench *b, cz_bench_fn fn, void *ctx)
{
    const double target = b->min_ms * 1e6;
    uint64_t iters = 1;
    double t = 0;
    for (;;) {
        uint64_t t0 = cz_bench_now_ns();
        fn(ctx, iters);
        t = (double)(cz_bench_now_ns() - t0);
        if (t >= target || iters >= ((uint64_t)1 << 40)) break;
        /* aim 20% past the target, growing at most 16x per step */
        double grow = t > 0 ? 1.2 * target / t : 16;
        if (grow > 16) grow = 16;
        if (grow < 2) grow = 2;
        iters = (uint64_t)((double)iters * grow);
    }
    double s[64];
    int n = b->repeats < 64 ? b->repeats : 64;
    s[0] = t / (double)iters; /* the calibration run is a valid sample */
    for (int r = 1; r < n; r++) {
        uint64_t t0 = cz_bench_now_ns();
        fn(ctx, iters);
        s[r] = (double)(cz_bench_now_ns() - t0) / (double)iters;
    }
    qsort(s, (size_t)n, sizeof s[0], cz_bench_cmp_dbl_);
    if (b->best) return s[0];
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* ---- tables ----------------------------------------------------------- */

#define CZ_BENCH_CELL 48
#define CZ_BENCH_MAX_COLS 16

typedef struct {
    char title[160];
    int ncols, nrows, cap;
    char (*cells)[CZ_BENCH_CELL]; /* row-major; row 0 is the header */
} cz_bench_table;

static void cz_bench_split_(cz_bench_table *t, const char *row)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        void *p = realloc(t->cells, (size_t)cap * (size_t)t->ncols * CZ_BENCH_CELL);
        if (!p) return;
        t->cells = (char(*)[CZ_BENCH_CELL])p;
        t->cap = cap;
    }
    char(*c)[CZ_BENCH_CELL] = t->cells + (size_t)t->nrows * (size_t)t->ncols;
    for (int k = 0; k < t->ncols; k++) {
        const char *end = row ? strchr(row, '|') : NULL;
        size_t l = row ? (end ? (size_t)(end - row) : strlen(row)) : 0;
        if (l >= CZ_BENCH_CELL) l = CZ_BENCH_CELL - 1;
        memcpy(c[k], row ? row : "", l);
        c[k][l] = '\0';
        row = (row && end) ? end + 1 : NULL;
    }
    t->nrows++;
}

/* A table with the given title and header cells separated by '|'. */
static void cz_bench_table_init(cz_bench_table *t, const char *title, const char *header)
{
    memset(t, 0, sizeof *t);
    snprintf(t->title, sizeof t->title, "%s", title ? title : "");
    t->ncols = 1;
    for (const char *s = header; *s; s++) t->ncols += *s == '|';
    if (t->ncols > CZ_BENCH_MAX_COLS) t->ncols = CZ_BENCH_MAX_COLS;
    cz_bench_split_(t, header);
}

/* Adds a row: printf-style, cells separated by '|' (missing cells empty). */
static void cz_bench_table_addf(cz_bench_table *t, const char *fmt, ...)
{
    char row[CZ_BENCH_MAX_COLS * CZ_BENCH_CELL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row, sizeof row, fmt, ap);
    va_end(ap);
    cz_bench_split_(t, row);
}

/* A cell is right-aligned when it starts like a number. */
static int cz_bench_numeric_(const char *s)
{
    return (s[0] >= '0' && s[0] <= '9') || ((s[0] == '-' || s[0] == '.') && s[1] >= '0' && s[1] <= '9');
}

/*
 * Prints the table as aligned markdown, keeps it for --write, and frees
 * its rows (the table may be initialised again).
 */
static void cz_bench_table_print(cz_bench *b, cz_bench_table *t)
{
    int w[CZ_BENCH_MAX_COLS];
    for (int k = 0; k < t->ncols; k++) {
        w[k] = 3;
        for (int r = 0; r < t->nrows; r++) {
            int l = (int)strlen(t->cells[(size_t)r * (size_t)t->ncols + (size_t)k]);
            if (l > w[k]) w[k] = l;
        }
    }
    for (int pass = 0; pass < 2; pass++) { /* 0: stdout, 1: markdown buffer */
        char line[CZ_BENCH_MAX_COLS * (CZ_BENCH_CELL + 3) + 4];
        if (t->title[0]) {
            if (pass == 0) printf("\n%s\n\n", t->title);
            else cz_bench_md_(b, "\n%s\n\n", t->title);
        }
        for (int r = 0; r < t->nrows; r++) {
            size_t o = 0;
            for (int k = 0; k < t->ncols; k++) {
                const char *c = t->cells[(size_t)r * (size_t)t->ncols + (size_t)k];
                int right = r > 0 && cz_bench_numeric_(c);
                o += (size_t)snprintf(line + o, sizeof line - o, "| %*s%-*s ", right ? w[k] : 0, right ? c : "",
                                      right ? 0 : w[k], right ? "" : c);
            }
            snprintf(line + o, sizeof line - o, "|\n");
            if (pass == 0) fputs(line, stdout);
            else cz_bench_md_(b, "%s", line);
            if (r == 0) {
                o = 0;
                for (int k = 0; k < t->ncols; k++) {
                    line[o++] = '|';
                    for (int i = 0; i < w[k] + 2; i++) line[o++] = '-';
                    /* a trailing colon marks right-aligned columns */
                    int right = t->nrows > 1 && cz_bench_numeric_(t->cells[(size_t)t->ncols + (size_t)k]);
                    if (right) line[o - 1] = ':';
                    line[o] = '\0';
                }
                snprintf(line + o, sizeof line - o, "|\n");
                if (pass == 0) fputs(line, stdout);
                else cz_bench_md_(b, "%s", line);
            }
        }
    }
    fflush(stdout);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
}

/* A line of text for the results section (also printed). */
static void cz_bench_note(cz_bench *b, const char *fmt, ...)
{
    char s[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    printf("%s\n", s);
    cz_bench_md_(b, "%s\n", s);
}

/* ---- the results file ------------------------------------------------- */

/* "Intel(R) Xeon(R) ..., 2 cores" from /proc/cpuinfo and sysconf. */
static void cz_bench_machine(char *out, size_t cap)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ' || *v == '\t') v++;
                    snprintf(model, sizeof model, "%s", v);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    snprintf(out, cap, "%s, %ld cores", model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* Whole file in a NUL-terminated malloc'ed buffer, or NULL. */
static char *cz_bench_slurp_(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *s = (char *)malloc(cap);
    while (s) {
        size_t r = fread(s + len, 1, cap - len - 1, f);
        len += r;
        if (len + 1 < cap) break;
        char *p = (char *)realloc(s, cap *= 2);
        if (!p) {
            free(s);
            s = NULL;
        }
        s = p;
    }
    fclose(f);
    if (s) s[len] = '\0';
    return s;
}

/*
 * Writes the results section when --write was given (a no-op otherwise)
 * and frees the harness. Returns the process exit status: 0, or 1 if the
 * file could not be written.
 */
static int cz_bench_finish(cz_bench *b)
{
    int rc = 0;
    if (b->write) {
        char machine[320], date[64], head[160];
        cz_bench_machine(machine, sizeof machine);
        time_t now = time(NULL);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tmv);
        snprintf(head, sizeof head, "## %s\n", b->name);
        char *old = cz_bench_slurp_(b->results_path);
        const char *pre = old ? old : "# cuzk benchmark results\n\n"
                                      "One section per benchmark binary, rewritten by `<binary> --write`.\n"
                                      "Figures from shared machines are indicative.\n";
        /* the old section: from its heading to the next "## " heading */
        const char *start = NULL, *end = NULL;
        for (const char *s = pre; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
            if (!start && strncmp(s, head, strlen(head)) == 0) {
                start = s;
            } else if (start && strncmp(s, "## ", 3) == 0) {
                end = s;
                break;
            }
        }
        if (start && !end) end = start + strlen(start);
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp", b->results_path);
        FILE *f = fopen(tmp, "wb");
        if (f) {
            size_t prelen = start ? (size_t)(start - pre) : strlen(pre);
            fwrite(pre, 1, prelen, f);
            if (!start && prelen && pre[prelen - 1] != '\n') fputc('\n', f);
            if (!start) fputc('\n', f);
            fprintf(f, "%s\n- date: %s\n- machine: %s\n- command: `%s`\n\n", head, date, machine, b->cmdline);
            if (b->md) fwrite(b->md, 1, b->md_len, f);
            fputc('\n', f);
            if (start) fputs(end, f);
            rc = fclose(f) == 0 && rename(tmp, b->results_path) == 0 ? 0 : 1;
        } else {
            rc = 1;
        }
        if (rc)
            fprintf(stderr, "%s: cannot write %s\n", b->name, b->results_path);
        else
            printf("\nwrote section '%s' of %s\n", b->name, b->results_path);
        free(old);
    }
    free(b->md);
    b->md = NULL;
    return rc;
}

#endif /* CZ_BENCH_H */
