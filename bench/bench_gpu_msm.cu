/*
 * bench_gpu_msm: the GPU MSM (cz_cuda_msm_g1/g2), whole-call time: scalars
 * (Montgomery form, as the prover passes the witness) from pinned host
 * memory, the result back on the host as a Jacobian point. Median of 5 calls
 * after one warm-up call (which sizes the scratch arena).
 *
 * Rows: BLS12-381 G1 at 2^20, 2^22, 2^24, 2^26 and BN254 G1 at 2^24, with
 * the bases resident (cz_cuda_bases_pin) and streamed from pinned host
 * memory (BLS12-381 G1 2^24 also from pageable memory, and with a
 * witness-like scalar mix: 50% 0, 44% 1, 3% small, 3% random); G2 of both
 * curves at 2^22. The bases are 2^n distinct random points (a random walk
 * per thread, make_bases below); a row with 2^16 distinct points repeated
 * (they fit in the L2) is kept only as a labelled extra. Each
 * configuration's resident and streamed results are compared (a mismatch
 * is reported); correctness against the CPU is tests/gpu/test_gpu_msm.cu's
 * job.
 *
 * Flags: --max-log=K (largest BLS12-381 G1 size 2^K, default 26), --g2-log=K
 * (G2 size, default 22), --quick (2^20 and 2^22 only, G2 at 2^18), plus
 * bench.h's (--write, --repeats, ...). --trace prints each call's plan and
 * phase times; --window=c forces the window, --run=n the level-0 run,
 * --chunk=n the points per chunk, --first=n the first of a split call's two
 * chunks (cz_cuda_opts). --sweep=ROWS times rows at a range of windows and
 * level-0 runs instead (see --help); --only=ROWS times only the resident
 * rows of those groups and sizes (for A/Bs of one row).
 * --table=eager (default) builds the table of multiples of the resident
 * bases in the warm-up call (its build time goes to stderr), so the
 * 'resident' rows time calls through it; the 'no table' rows time the same
 * calls with the per-window plan, in the same run (the A/B).
 * --table-windows=K keeps at most K windows in each table (a partial table:
 * one bucket set per group of K windows), as where VRAM holds no more.
 */
#include <string.h>

#include <cuda_runtime.h>

#pragma nv_diag_suppress 550 /* ff/mont_x86_64.h's asm outputs look unused to the CUDA front end */
#include "cuda/cuda.h"
#include "ec/ec.h"
#include "util/thread.h"
extern "C" {
#include "bench.h"
}
#pragma nv_diag_default 550

#define GROUP(NAME, FR, CURVE, G1, LABEL, TOPMASK)                                                                   \
    struct NAME {                                                                                                    \
        typedef cz_##NAME jac;                                                                                       \
        typedef cz_##NAME##_affine caff;                                                                             \
        static const char *label() { return LABEL; }                                                                 \
        static cz_status gpu(cz_cuda *ctx, jac *out, const void *b, const void *s, size_t n, cz_error *err)          \
        {                                                                                                            \
            return G1 ? cz_cuda_msm_g1(ctx, CURVE, out, b, s, n, CZ_MSM_MONTGOMERY, err)                             \
                      : cz_cuda_msm_g2(ctx, CURVE, out, b, s, n, CZ_MSM_MONTGOMERY, err);                            \
        }                                                                                                            \
        static void add(jac *r, const jac *a, const jac *b) { cz_##NAME##_add(r, a, b); }                            \
        static int eq(const jac *a, const jac *b) { return cz_##NAME##_eq(a, b); }                                   \
        static void random(jac *r, cz_rng *rng) { cz_##NAME##_random(r, rng); }                                      \
        static cz_status batch_to_affine(caff *r, const jac *p, size_t n)                                            \
        {                                                                                                            \
            return cz_##NAME##_batch_to_affine(r, p, n);                                                             \
        }                                                                                                            \
        static const uint64_t top_mask = TOPMASK; /* keeps a random 256-bit value below r */                         \
        static void fr_small(uint64_t out[4], uint64_t v) /* v in Montgomery form */                                 \
        {                                                                                                            \
            uint64_t c[4] = {v, 0, 0, 0};                                                                            \
            FR f;                                                                                                    \
            FR##_from_canonical(&f, c);                                                                              \
            memcpy(out, f.l, 32);                                                                                    \
        }                                                                                                            \
    };

GROUP(bls12_381_g1, cz_bls12_381_fr, CZ_CURVE_BLS12_381, true, "BLS12-381 G1", 0x3fffffffffffffffull)
GROUP(bls12_381_g2, cz_bls12_381_fr, CZ_CURVE_BLS12_381, false, "BLS12-381 G2", 0x3fffffffffffffffull)
GROUP(bn254_g1, cz_bn254_fr, CZ_CURVE_BN254, true, "BN254 G1", 0x1fffffffffffffffull)
GROUP(bn254_g2, cz_bn254_fr, CZ_CURVE_BN254, false, "BN254 G2", 0x1fffffffffffffffull)
#undef GROUP

static cz_cuda *g_ctx;
static cz_rng g_rng;
static int g_trace; /* --trace: kept by the sweep's options too */
static cz_cuda_opts g_opts; /* the command line's */

/* g_opts with the table mode t */
static bool set_table(int t)
{
    cz_cuda_opts o = g_opts;
    o.msm_table = t;
    cz_error err;
    cz_error_clear(&err);
    if (cz_cuda_set_opts(g_ctx, &o, &err) == CZ_OK) return true;
    fprintf(stderr, "bench_gpu_msm: %s\n", cz_error_msg(&err));
    return false;
}

/* one timed configuration */
template <class T> struct run_ctx {
    const void *bases;
    const void *scalars;
    size_t n;
    typename T::jac out;
    cz_status st;
    char msg[512];
};

template <class T> static void run_fn(void *p, uint64_t iters)
{
    run_ctx<T> *c = (run_ctx<T> *)p;
    for (uint64_t i = 0; i < iters && c->st == CZ_OK; i++) {
        cz_error err;
        cz_error_clear(&err);
        c->st = T::gpu(g_ctx, &c->out, c->bases, c->scalars, c->n, &err);
        if (c->st != CZ_OK) snprintf(c->msg, sizeof c->msg, "%s", cz_error_msg(&err));
    }
}

/* pinned host buffer (NULL on failure) */
static void *pinned_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

/* Bases. distinct: n distinct random points (each task walks from its own
 * random start by random steps from a table of 16, and converts its chunk
 * to affine; about 2 group additions per point, in parallel); else 2^16
 * distinct points repeated (they fit in the L2: a flattering extra, labelled
 * as such). */
template <class T> struct walk_ctx {
    typename T::caff *out;
    size_t n, chunk;
    const typename T::jac *step;
    uint64_t seed;
    int failed;
};

template <class T> static void walk_range(void *arg, size_t lo, size_t hi, int thread)
{
    (void)thread;
    walk_ctx<T> *w = (walk_ctx<T> *)arg;
    typename T::jac *jac = (typename T::jac *)malloc(w->chunk * sizeof *jac);
    if (!jac) {
        __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t c = lo; c < hi; c++) {
        cz_rng r;
        cz_rng_seed(&r, w->seed ^ (0x9e3779b97f4a7c15ull * (c + 1)));
        typename T::jac P;
        T::random(&P, &r);
        size_t b = c * w->chunk, e = b + w->chunk < w->n ? b + w->chunk : w->n;
        for (size_t i = b; i < e; i++) {
            jac[i - b] = P;
            T::add(&P, &P, &w->step[cz_rng_u64(&r) & 15]);
        }
        if (T::batch_to_affine(w->out + b, jac, e - b) != CZ_OK) __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
    }
    free(jac);
}

template <class T> static bool make_bases(typename T::caff *out, size_t n, bool distinct)
{
    typename T::jac step[16];
    for (int i = 0; i < 16; i++) T::random(&step[i], &g_rng);
    const size_t d = (size_t)1 << 16, k = distinct ? n : n < d ? n : d;
    walk_ctx<T> w = {out, k, (size_t)1 << 14, step, cz_rng_u64(&g_rng), 0};
    cz_parallel_for(cz_pool_default(), (k + w.chunk - 1) / w.chunk, 1, walk_range<T>, &w);
    for (size_t i = k; i < n; i += k) memcpy(out + i, out, (n - i < k ? n - i : k) * sizeof *out);
    return !w.failed;
}

/* random scalars below r (a witness-like mix if `witness`), Montgomery form */
template <class T> static void make_scalars(uint64_t *s, size_t n, bool witness)
{
    cz_rng_bytes(&g_rng, s, 32 * n);
    for (size_t i = 0; i < n; i++) s[4 * i + 3] &= T::top_mask;
    if (!witness) return;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cz_rng_u64(&g_rng) % 100;
        if (r < 50)
            memset(&s[4 * i], 0, 32);
        else if (r < 94)
            T::fr_small(&s[4 * i], 1);
        else if (r < 97)
            T::fr_small(&s[4 * i], 2 + cz_rng_u64(&g_rng) % 1000);
    }
}

/* --only: the groups and sizes to time (bit lg of g_only[group]), resident rows alone */
enum { GR_BLS_G1, GR_BN_G1, GR_BLS_G2, GR_BN_G2, GR_COUNT };
static bool g_only_set;
static uint64_t g_only[GR_COUNT];
static int group_of(const char *name)
{
    static const char *const names[GR_COUNT] = {"bls-g1", "bn-g1", "bls-g2", "bn-g2"};
    for (int i = 0; i < GR_COUNT; i++)
        if (!strcmp(name, names[i])) return i;
    return -1;
}
static bool wanted(int group, int lg) { return !g_only_set || (g_only[group] >> lg & 1); }

/* One GROUP:LOG of a --sweep / --only list at *q (advanced past it and its
 * comma); false, with the error printed, when it is not one. */
static bool parse_row(const char *flag, const char *rows, const char **q, int *group, int *lg)
{
    char name[16];
    int used = 0;
    *lg = 0;
    if (sscanf(*q, "%15[a-z0-9-]:%d%n", name, lg, &used) != 2 || *lg < 1 || *lg > 28 ||
        ((*q)[used] && (*q)[used] != ',') || (*group = group_of(name)) < 0) {
        fprintf(stderr,
                "bench_gpu_msm: %s=%s: expected GROUP:LOG[,GROUP:LOG...] (GROUP bls-g1, bn-g1, bls-g2, bn-g2; "
                "LOG 1..28)\n",
                flag, rows);
        return false;
    }
    *q += used;
    if (**q == ',') (*q)++;
    return true;
}

/* times the configurations of one group at one size; adds rows to t */
template <class T>
static int bench_group(cz_bench *b, cz_bench_table *t, int logn, bool pageable_too, bool witness_too,
                       bool repeated_too)
{
    const size_t n = (size_t)1 << logn;
    const size_t bbytes = n * sizeof(typename T::caff);
    typename T::caff *bases = (typename T::caff *)pinned_alloc(bbytes);
    uint64_t *scal = (uint64_t *)pinned_alloc(32 * n);
    if (!bases || !scal) {
        fprintf(stderr, "%s 2^%d: cannot allocate %zu pinned bytes\n", T::label(), logn, bbytes + 32 * n);
        if (bases) cudaFreeHost(bases);
        if (scal) cudaFreeHost(scal);
        return 1;
    }
    int rc = 0;
    if (!make_bases<T>(bases, n, true)) rc = 1;
    make_scalars<T>(scal, n, false);
    cz_error err;
    cz_error_clear(&err);
    bool resident = cz_cuda_bases_pin(g_ctx, bases, bbytes, &err) == CZ_OK;
    if (!resident) fprintf(stderr, "%s 2^%d: bases not resident: %s\n", T::label(), logn, cz_error_msg(&err));
    typename T::jac ref;
    bool have_ref = false;
    static const int modes[] = {0, 5, 1, 2, 3, 6, 4};
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0] && rc == 0; mi++) {
        /* 0 resident (the table, if the options allow one, built in the
         * warm-up: --table), 5 resident without a table (the per-window
         * plan: the A/B of the table), 1 streamed pinned, 2 streamed
         * pageable, 3 witness-like resident, 6 the same without a table, 4
         * resident with 2^16 bases repeated (the old, flattering input:
         * last, it overwrites the bases) */
        const int mode = modes[mi];
        if (g_only_set && mode != 0) continue;
        if ((mode == 5 || mode == 6) && g_opts.msm_table == CZ_CUDA_TABLE_OFF) continue;
        if ((mode == 0 || mode == 5) && !resident) continue;
        if (mode == 6 && (!witness_too || !resident)) continue;
        if (mode == 2 && !pageable_too) continue;
        if (mode == 3 && (!witness_too || !resident)) continue;
        if (mode == 4 && !repeated_too) continue;
        run_ctx<T> c;
        memset(&c, 0, sizeof c);
        c.n = n;
        c.scalars = scal;
        c.bases = bases;
        void *pageable = NULL;
        uint64_t *wscal = NULL;
        if (mode == 1) cz_cuda_bases_release(g_ctx, bases);
        if (mode == 2) {
            pageable = malloc(bbytes);
            if (!pageable) continue;
            memcpy(pageable, bases, bbytes);
            c.bases = pageable;
        }
        if (mode == 4) {
            cz_cuda_bases_release(g_ctx, bases);
            if (!make_bases<T>(bases, n, false) || cz_cuda_bases_pin(g_ctx, bases, bbytes, &err) != CZ_OK) continue;
        }
        if (mode == 3 || mode == 6) {
            if (cz_cuda_bases_pin(g_ctx, bases, bbytes, &err) != CZ_OK) continue;
            wscal = (uint64_t *)pinned_alloc(32 * n);
            if (!wscal) continue;
            cz_rng wr = g_rng; /* the same mix for modes 3 and 6 */
            make_scalars<T>(wscal, n, true);
            if (mode == 3) g_rng = wr;
            c.scalars = wscal;
        }
        if ((mode == 5 || mode == 6) && !set_table(CZ_CUDA_TABLE_OFF)) rc = 1;
        run_fn<T>(&c, 1); /* warm-up: scratch, staging, the table */
        double ns = c.st == CZ_OK ? cz_bench_time(b, run_fn<T>, &c) : 0;
        if ((mode == 5 || mode == 6) && !set_table(g_opts.msm_table)) rc = 1;
        if (c.st != CZ_OK) {
            fprintf(stderr, "%s 2^%d: %s\n", T::label(), logn, c.msg);
            rc = 1;
        } else if (mode < 3 || mode == 5) {
            if (!have_ref) {
                ref = c.out;
                have_ref = true;
            } else if (!T::eq(&ref, &c.out)) {
                fprintf(stderr, "%s 2^%d: MISMATCH between the resident and streamed results\n", T::label(), logn);
                rc = 1;
            }
        }
        static const char *mode_name[] = {"resident", "streamed (pinned)", "streamed (pageable)",
                                          "resident, witness-like", "resident, 2^16 bases repeated (extra)",
                                          "resident, no table", "resident, witness-like, no table"};
        if (c.st == CZ_OK)
            cz_bench_table_addf(t, "%s|2^%d|%s|%.2f|%.2f", T::label(), logn, mode_name[mode], ns * 1e-6,
                                ns / (double)n);
        if (pageable) free(pageable);
        if (wscal) cudaFreeHost(wscal);
    }
    cz_cuda_bases_release(g_ctx, bases);
    cudaFreeHost(bases);
    cudaFreeHost(scal);
    return rc;
}

/* --sweep: one row (group, 2^logn distinct resident bases) at every window
 * in [wlo, whi] and every level-0 run in runs[], full-width and witness-like
 * scalars; each result must equal the automatic plan's on the same inputs. */
template <class T>
static int sweep_group(cz_bench *b, cz_bench_table *t, int logn, int wlo, int whi, const size_t *runs, int nruns)
{
    const size_t n = (size_t)1 << logn;
    const size_t bbytes = n * sizeof(typename T::caff);
    typename T::caff *bases = (typename T::caff *)pinned_alloc(bbytes);
    uint64_t *scal = (uint64_t *)pinned_alloc(32 * n);
    int rc = 0;
    cz_error err;
    cz_error_clear(&err);
    if (!bases || !scal || !make_bases<T>(bases, n, true) || cz_cuda_bases_pin(g_ctx, bases, bbytes, &err) != CZ_OK) {
        fprintf(stderr, "%s 2^%d: cannot set up the sweep: %s\n", T::label(), logn, cz_error_msg(&err));
        rc = 1;
    }
    for (int witness = 0; witness < 2 && rc == 0; witness++) {
        make_scalars<T>(scal, n, witness != 0);
        double ns0 = 0;
        typename T::jac ref;
        for (int c = 0; c <= whi && rc == 0; c = c ? c + 1 : wlo) {
            for (int r = 0; r < (c ? nruns : 1) && rc == 0; r++) {
                cz_cuda_opts co;
                memset(&co, 0, sizeof co);
                co.msm_window = c;
                co.msm_run = c ? runs[r] : 0;
                co.msm_trace = g_trace;
                if (cz_cuda_set_opts(g_ctx, &co, &err) != CZ_OK) {
                    fprintf(stderr, "bench_gpu_msm: %s\n", cz_error_msg(&err));
                    rc = 1;
                    break;
                }
                run_ctx<T> x;
                memset(&x, 0, sizeof x);
                x.n = n;
                x.scalars = scal;
                x.bases = bases;
                run_fn<T>(&x, 1);
                double ns = x.st == CZ_OK ? cz_bench_time(b, run_fn<T>, &x) : 0;
                if (x.st != CZ_OK) {
                    fprintf(stderr, "%s 2^%d c=%d run=%zu: %s\n", T::label(), logn, c, co.msm_run, x.msg);
                    rc = 1;
                    break;
                }
                if (c == 0) {
                    ref = x.out;
                    ns0 = ns;
                } else if (!T::eq(&ref, &x.out)) {
                    fprintf(stderr, "%s 2^%d c=%d run=%zu: MISMATCH against the automatic plan\n", T::label(), logn,
                            c, co.msm_run);
                    rc = 1;
                }
                char cs[16], rs[24];
                snprintf(cs, sizeof cs, c ? "%d" : "auto", c);
                snprintf(rs, sizeof rs, c ? "%zu" : "auto", co.msm_run);
                cz_bench_table_addf(t, "%s|2^%d|%s|%s|%s|%.2f|%.3f", T::label(), logn,
                                    witness ? "witness-like" : "full-width", cs, rs, ns * 1e-6, ns / ns0);
            }
        }
    }
    cz_cuda_opts co;
    memset(&co, 0, sizeof co);
    co.msm_trace = g_trace;
    (void)cz_cuda_set_opts(g_ctx, &co, &err);
    if (bases) {
        cz_cuda_bases_release(g_ctx, bases);
        cudaFreeHost(bases);
    }
    if (scal) cudaFreeHost(scal);
    return rc;
}

/* --sweep=ROWS: comma-separated GROUP:LOG (GROUP: bls-g1, bn-g1, bls-g2,
 * bn-g2); --sweep-windows=LO-HI; --sweep-runs=R1,R2,... */
static int sweep(cz_bench *b, const char *rows)
{
    int wlo = 14, whi = 20;
    const char *w = cz_bench_opt_str(b, "--sweep-windows");
    if (w && (sscanf(w, "%d-%d", &wlo, &whi) != 2 || wlo < 4 || whi > 20 || wlo > whi)) {
        fprintf(stderr, "bench_gpu_msm: --sweep-windows=%s: expected LO-HI within 4-20\n", w);
        return 2;
    }
    size_t runs[8] = {32};
    int nruns = 1;
    const char *rl = cz_bench_opt_str(b, "--sweep-runs");
    if (rl) {
        nruns = 0;
        for (const char *q = rl; *q && nruns < 8;) {
            char *end;
            unsigned long long v = strtoull(q, &end, 10);
            if (end == q || v < 8 || (*end && *end != ',')) {
                fprintf(stderr, "bench_gpu_msm: --sweep-runs=%s: expected numbers >= 8, comma-separated\n", rl);
                return 2;
            }
            runs[nruns++] = (size_t)v;
            q = *end ? end + 1 : end;
        }
    }
    cz_bench_table t;
    cz_bench_table_init(&t, "GPU MSM window/run sweep, resident bases, whole call",
                        "group|n|scalars|window|run|ms|/ auto");
    int rc = 0;
    for (const char *q = rows; *q;) {
        int g, lg;
        if (!parse_row("--sweep", rows, &q, &g, &lg)) return 2;
        switch (g) {
        case GR_BLS_G1: rc |= sweep_group<bls12_381_g1>(b, &t, lg, wlo, whi, runs, nruns); break;
        case GR_BN_G1: rc |= sweep_group<bn254_g1>(b, &t, lg, wlo, whi, runs, nruns); break;
        case GR_BLS_G2: rc |= sweep_group<bls12_381_g2>(b, &t, lg, wlo, whi, runs, nruns); break;
        default: rc |= sweep_group<bn254_g2>(b, &t, lg, wlo, whi, runs, nruns); break;
        }
    }
    cz_bench_table_print(b, &t);
    return rc;
}

static void trace_line(void *ctx, cz_log_level level, const char *component, const char *msg)
{
    (void)ctx;
    (void)level;
    fprintf(stderr, "%s: %s\n", component, msg);
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--max-log",  "--g2-log",        "--window",     "--trace",
                                      "--table",    "--table-windows", "--sweep",      "--sweep-windows",
                                      "--sweep-runs", "--run",         "--l1",         "--chunk",      "--first", "--only", NULL};
    int rc = cz_bench_init(&b, "bench_gpu_msm", argc, argv, own,
                           "  --max-log=K   largest BLS12-381 G1 size 2^K (default 26)\n"
                           "  --g2-log=K    G2 size 2^K (default 22)\n"
                           "  --window=C    force the MSM window (default: the plan's)\n"
                           "  --run=N       force the level-0 entries per thread (>= 8; default: the plan's)\n"
                           "  --chunk=N     points per MSM chunk (default: cuda/msm.cuh chunk_points)\n"
                           "  --first=N     points of the first of two carried chunks where a call splits\n"
                           "                (default: cuda/msm.cuh chunk_points: an eighth, a fifth for\n"
                           "                BN254 G1)\n"
                           "  --l1=MODE     the level-0 kernels' L1 / shared-memory split: max (the\n"
                           "                most L1) or min (the least); default: the driver's\n"
                           "  --only=ROWS   only these rows (GROUP:LOG, comma-separated; GROUP bls-g1,\n"
                           "                bn-g1, bls-g2, bn-g2), resident full-width scalars alone\n"
                           "  --trace       each call's plan and phase times on stderr\n"
                           "  --table=MODE  tables of multiples of resident bases: eager (default: built\n"
                           "                in the warm-up call, so the timed calls use it; rows 'no\n"
                           "                table' time the same calls without), auto (built on the 2nd\n"
                           "                call, as in the prover) or off\n"
                           "  --table-windows=K  tables of at most K windows (2..64): partial tables, one\n"
                           "                bucket set per group of K windows (default: whole tables)\n"
                           "  --sweep=ROWS  instead of the table: each row (GROUP:LOG, comma-separated;\n"
                           "                GROUP bls-g1, bn-g1, bls-g2, bn-g2) with resident bases at\n"
                           "                every window and run below, full-width and witness-like\n"
                           "                scalars, each result checked against the automatic plan's\n"
                           "  --sweep-windows=LO-HI  windows of the sweep (default 14-20)\n"
                           "  --sweep-runs=R1,R2,... level-0 runs of the sweep (default 32)\n");
    if (rc >= 0) return rc;
    int explicit_repeats = 0;
    for (int i = 1; i < argc; i++) explicit_repeats |= strncmp(argv[i], "--repeats=", 10) == 0;
    if (!explicit_repeats) b.repeats = b.quick ? 3 : 5;
    b.min_ms = 1; /* one call per timed run: the figure is the median call */
    int max_log = (int)cz_bench_opt_long(&b, "--max-log", b.quick ? 22 : 26);
    int g2_log = (int)cz_bench_opt_long(&b, "--g2-log", b.quick ? 18 : 22);

    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_cuda_open(&g_ctx, 0, &err);
    if (st == CZ_ERR_NO_DEVICE) {
        printf("no GPU: skipped\n");
        return 77;
    }
    if (st != CZ_OK) {
        fprintf(stderr, "cz_cuda_open: %s\n", cz_error_msg(&err));
        return 1;
    }
    cz_cuda_opts co;
    memset(&co, 0, sizeof co);
    co.msm_window = (int)cz_bench_opt_long(&b, "--window", 0);
    co.msm_run = (size_t)cz_bench_opt_long(&b, "--run", 0);
    co.msm_chunk = (size_t)cz_bench_opt_long(&b, "--chunk", 0);
    co.msm_first = (size_t)cz_bench_opt_long(&b, "--first", 0);
    co.msm_trace = g_trace = cz_bench_has(&b, "--trace");
    const char *l1 = cz_bench_opt_str(&b, "--l1");
    if (l1 && strcmp(l1, "max") && strcmp(l1, "min")) {
        fprintf(stderr, "bench_gpu_msm: --l1=%s: expected max or min\n", l1);
        return 2;
    }
    co.msm_l1 = !l1 ? CZ_CUDA_L1_DEFAULT : !strcmp(l1, "max") ? CZ_CUDA_L1_MAX : CZ_CUDA_L1_MIN;
    const char *tm = cz_bench_opt_str(&b, "--table");
    co.msm_table = CZ_CUDA_TABLE_EAGER;
    if (tm && !strcmp(tm, "auto"))
        co.msm_table = CZ_CUDA_TABLE_AUTO;
    else if (tm && !strcmp(tm, "off"))
        co.msm_table = CZ_CUDA_TABLE_OFF;
    else if (tm && strcmp(tm, "eager")) {
        fprintf(stderr, "bench_gpu_msm: --table=%s: expected eager, auto or off\n", tm);
        return 2;
    }
    co.msm_table_windows = (int)cz_bench_opt_long(&b, "--table-windows", 0);
    g_opts = co;
    static const cz_logger trace_log = {trace_line, NULL, CZ_LOG_DEBUG};
    cz_cuda_set_logger(g_ctx, &trace_log);
    if ((st = cz_cuda_set_opts(g_ctx, &co, &err)) != CZ_OK) {
        fprintf(stderr, "bench_gpu_msm: %s\n", cz_error_msg(&err));
        return 2;
    }
    cz_rng_seed(&g_rng, 12345);
    cz_bench_note(&b, "GPU: %s. Whole call: Montgomery scalars from pinned host memory, result on the host; "
                      "median of %d calls after a warm-up. Bases: 2^n distinct random points (the '2^16 bases repeated' rows "
                      "are an extra: those fit in the L2). Scalars: full-width random; witness-like: 50%% zero, 44%% "
                      "one, 3%% small, 3%% full width. Resident rows use the bases' table of multiples (built in the "
                      "warm-up) where the plan finds it cheaper; 'no table' rows are the per-window plan.",
                  cz_cuda_name(g_ctx), b.repeats);
    const char *rows = cz_bench_opt_str(&b, "--sweep");
    if (rows) {
        rc = sweep(&b, rows);
        cz_cuda_close(g_ctx);
        int wrc = cz_bench_finish(&b);
        return rc ? rc : wrc;
    }
    const char *only = cz_bench_opt_str(&b, "--only");
    for (const char *q = only; q && *q;) {
        int g, lg;
        if (!parse_row("--only", only, &q, &g, &lg)) {
            cz_cuda_close(g_ctx);
            return 2;
        }
        g_only_set = true;
        g_only[g] |= (uint64_t)1 << lg;
    }
    cz_bench_table t;
    cz_bench_table_init(&t, "GPU MSM, whole call", "group|n|bases|ms|ns/point");
    rc = 0; /* (cz_bench_init's -1 meant "run") */
    if (g_only_set) { /* the rows asked for, whatever --max-log and --g2-log say */
        for (int lg = 1; lg <= 28; lg++) {
            if (wanted(GR_BLS_G1, lg)) rc |= bench_group<bls12_381_g1>(&b, &t, lg, false, false, false);
            if (wanted(GR_BN_G1, lg)) rc |= bench_group<bn254_g1>(&b, &t, lg, false, false, false);
            if (wanted(GR_BLS_G2, lg)) rc |= bench_group<bls12_381_g2>(&b, &t, lg, false, false, false);
            if (wanted(GR_BN_G2, lg)) rc |= bench_group<bn254_g2>(&b, &t, lg, false, false, false);
        }
    } else {
        for (int lg = 20; lg <= max_log; lg += 2)
            rc |= bench_group<bls12_381_g1>(&b, &t, lg, lg == 24, lg == 24, lg == 24);
        if (max_log >= 24) rc |= bench_group<bn254_g1>(&b, &t, 24, false, true, true);
        rc |= bench_group<bls12_381_g2>(&b, &t, g2_log, false, true, false);
        rc |= bench_group<bn254_g2>(&b, &t, g2_log, false, true, false);
    }
    cz_bench_table_print(&b, &t);
    cz_cuda_close(g_ctx);
    int wrc = cz_bench_finish(&b);
    return rc ? rc : wrc;
}
