/*
 * bench_gpu_ntt: the GPU NTT and H step of cuda/ntt.cu, both scalar fields.
 *
 * DESIGN: for each field and size 2^k (k = 20..26 by default) two kinds of
 * figures, median of --repeats runs after a warm-up run (twiddle tables are
 * built before any timing):
 *  - device time, CUDA events around the call on the context's compute
 *    stream, data resident in VRAM: forward, inverse, coset forward, coset
 *    inverse (natural order in and out, so each includes one bit reversal)
 *    and the H step (3 inverse + 3 coset NTTs + a b - c, no permutation);
 *  - whole-call wall time including the transfers: cz_cuda_ntt (forward) and
 *    cz_cuda_compute_h, from pinned and from pageable host memory (timed by
 *    cz_bench_time: calls shorter than --min-ms are repeated within a run);
 *    the H step both ways: a, b, c uploaded ("H pinned", "H pageable") and
 *    a, b only, c = a o b formed on the device as the prover calls it
 *    ("H ab pinned", "H ab pageable").
 * Also reported: the H step's device time per NTT in ns per butterfly
 * (6 n/2 k butterflies), the figure to compare with the product rate of
 * cuda/ff.cuh (one product per butterfly).
 *
 * Flags (besides the harness's): --min=K, --max=K (sizes), --field=bn254 |
 * bls12_381 (default both), --simple (the per-level kernels, cz_cuda_opts
 * ntt_simple), --tile=T and --cols=C (ntt_tile / ntt_cols; without --tile
 * the default plan: tiles of 2^10, or 2^11 where that saves a pass). Exits
 * 77 when there is no GPU.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda/internal.cuh"
#include "cuda/ntt.cuh"

typedef struct {
    cz_cuda *ctx;
    cz_curve curve;
    unsigned k;
    void *d[3]; /* device arrays */
    void *h[3]; /* host arrays */
    cz_status st;
    cz_error err;
} run_ctx;

/* op 0..3: cz_cuda_ntt_dev(inverse = op & 1, coset = op >> 1); 4: H step */
static cz_status run_dev(run_ctx *r, int op)
{
    if (op < 4) return cz_cuda_ntt_dev(r->ctx, r->curve, r->k, r->d[0], op & 1, op >> 1, &r->err);
    return cz_cuda_compute_h_dev(r->ctx, r->curve, r->k, r->d[0], r->d[1], r->d[2], &r->err);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return a < c ? -1 : a > c;
}

static double median(double *s, int n, int best)
{
    qsort(s, (size_t)n, sizeof s[0], cmp_dbl);
    if (best) return s[0];
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* device ms of one run of op (median over reps) */
static double time_dev(run_ctx *r, int op, int reps, int best)
{
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        r->st = CZ_ERR_CUDA;
        return -1;
    }
    double s[64], res = -1;
    if (reps > 64) reps = 64;
    int i = -1; /* -1: warm-up */
    for (; i < reps; i++) {
        float ms = 0;
        cudaEventRecord(e0, r->ctx->compute);
        if ((r->st = run_dev(r, op)) != CZ_OK) break;
        cudaEventRecord(e1, r->ctx->compute);
        if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
            r->st = cz_error_set(&r->err, CZ_ERR_CUDA, "timing: %s", cudaGetErrorString(cudaGetLastError()));
            break;
        }
        if (i >= 0) s[i] = ms;
    }
    if (i == reps) res = median(s, reps, best);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return res;
}

/* a whole call on the host arrays, iters times: op 0 = cz_cuda_ntt forward
 * on h[0], 1 = cz_cuda_compute_h on h[0..2], 2 = cz_cuda_compute_h on h[0..1]
 * with c NULL (a closure for cz_bench_time) */
typedef struct {
    run_ctx *r;
    int op;
} call_ctx;

static void run_call(void *p, uint64_t iters)
{
    call_ctx *c = (call_ctx *)p;
    run_ctx *r = c->r;
    for (uint64_t i = 0; i < iters && r->st == CZ_OK; i++)
        r->st = c->op == 0 ? cz_cuda_ntt(r->ctx, r->curve, r->k, r->h[0], 0, 0, &r->err)
                           : cz_cuda_compute_h(r->ctx, r->curve, r->k, r->h[0], r->h[1], c->op == 1 ? r->h[2] : NULL,
                                               &r->err);
}

/* wall ms of a whole call (cz_bench_time: median of the harness's repeats) */
static double time_call(const cz_bench *b, run_ctx *r, int op)
{
    call_ctx c = {r, op};
    run_call(&c, 1); /* warm-up */
    double ns = r->st == CZ_OK ? cz_bench_time(b, run_call, &c) : -1;
    return r->st == CZ_OK ? ns * 1e-6 : -1;
}

/* random integers below 2^253: valid Montgomery residues of both fields */
static void fill(void *p, size_t n, uint64_t *state)
{
    uint64_t *w = (uint64_t *)p, x = *state;
    for (size_t i = 0; i < 4 * n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        w[i] = (i & 3) == 3 ? x & (((uint64_t)1 << 61) - 1) : x;
    }
    *state = x;
}

static int bench_size(cz_bench *b, cz_bench_table *t, cz_cuda *ctx, cz_curve curve, unsigned k)
{
    const size_t n = (size_t)1 << k, bytes = n * 32;
    run_ctx r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.curve = curve;
    r.k = k;
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ k;
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        ok = cudaMalloc(&r.d[i], bytes) == cudaSuccess;
        void *tmp = ok ? malloc(bytes) : NULL;
        ok = ok && tmp;
        if (ok) {
            fill(tmp, n, &seed);
            ok = cudaMemcpy(r.d[i], tmp, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
        }
        free(tmp);
    }
    ok = ok && cudaDeviceSynchronize() == cudaSuccess; /* the context's streams do not wait for cudaMemcpy */
    const char *fname = curve == CZ_CURVE_BN254 ? "bn254" : "bls12_381";
    if (!ok) {
        (void)cudaGetLastError();
        fprintf(stderr, "bench_gpu_ntt: %s 2^%u: cannot allocate %zu MiB x 3 on the device\n", fname, k, bytes >> 20);
        for (int i = 0; i < 3; i++)
            if (r.d[i]) cudaFree(r.d[i]);
        return 0;
    }
    /* tables first: not timed */
    for (int op = 0; op < 4 && r.st == CZ_OK; op++)
        r.st = cz_cuda_ntt_prepare(ctx, curve, k, 0, op & 1, op >> 1, &r.err);
    if (r.st == CZ_OK) r.st = cz_cuda_ntt_prepare(ctx, curve, k, 1, 0, 0, &r.err);
    double dev[5] = {0};
    for (int op = 0; op < 5 && r.st == CZ_OK; op++)
        dev[op] = time_dev(&r, op, b->repeats, b->best);
    for (int i = 0; i < 3; i++)
        cudaFree(r.d[i]);
    if (r.st != CZ_OK) {
        fprintf(stderr, "bench_gpu_ntt: %s 2^%u: %s\n", fname, k, cz_error_msg(&r.err));
        return 1;
    }
    /* whole calls: pinned, then pageable */
    double call[2][3] = {{-1, -1, -1}, {-1, -1, -1}}; /* [pinned][op] */
    for (int pinned = 1; pinned >= 0; pinned--) {
        ok = 1;
        for (int i = 0; i < 3; i++) {
            r.h[i] = NULL;
            if (pinned)
                ok = ok && cudaHostAlloc(&r.h[i], bytes, cudaHostAllocDefault) == cudaSuccess;
            else
                ok = ok && (r.h[i] = malloc(bytes)) != NULL;
            if (ok) fill(r.h[i], n, &seed);
        }
        if (ok) {
            call[pinned][0] = time_call(b, &r, 0);
            if (r.st == CZ_OK) call[pinned][1] = time_call(b, &r, 1);
            if (r.st == CZ_OK) call[pinned][2] = time_call(b, &r, 2);
        } else {
            (void)cudaGetLastError();
            fprintf(stderr, "bench_gpu_ntt: %s 2^%u: no %s host buffers\n", fname, k, pinned ? "pinned" : "pageable");
        }
        for (int i = 0; i < 3; i++) {
            if (!r.h[i]) continue;
            if (pinned)
                cudaFreeHost(r.h[i]);
            else
                free(r.h[i]);
        }
        if (r.st != CZ_OK) {
            fprintf(stderr, "bench_gpu_ntt: %s 2^%u: %s\n", fname, k, cz_error_msg(&r.err));
            return 1;
        }
    }
    const double bfly = 6.0 * (double)(n / 2) * (double)k;
    cz_bench_table_addf(t, "%s|2^%u|%.3f|%.3f|%.3f|%.3f|%.3f|%.3f|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f", fname, k, dev[0],
                        dev[1], dev[2], dev[3], dev[4], dev[4] * 1e6 / bfly, call[1][1], call[0][1], call[1][2],
                        call[0][2], call[1][0], call[0][0]);
    return 0;
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--min",  "--max",  "--field",      "--simple",
                                      "--tile", "--cols", "--rev-kernel", NULL};
    int rc = cz_bench_init(&b, "bench_gpu_ntt", argc, argv, own,
                           "  --min=K        smallest size 2^K (default 20)\n"
                           "  --max=K        largest size 2^K (default 26)\n"
                           "  --field=F      bn254 or bls12_381 (default both)\n"
                           "  --simple       the per-level kernels (cz_cuda_opts ntt_simple)\n"
                           "  --tile=T       tile log of the pass kernel (ntt_tile; default: 10, or 11\n"
                           "                 where that saves a pass)\n"
                           "  --cols=C       column log of the upper passes (ntt_cols)\n"
                           "  --rev-kernel   the bit reversal in a kernel of its own, in place (ntt_rev_kernel;\n"
                           "                 default: out of place, in a pass, where VRAM allows)\n");
    if (rc >= 0) return rc;
    unsigned kmin = (unsigned)cz_bench_opt_long(&b, "--min", 20);
    unsigned kmax = (unsigned)cz_bench_opt_long(&b, "--max", 26);
    if (b.quick && !cz_bench_has(&b, "--max")) kmax = kmin + 2;
    const char *field = cz_bench_opt_str(&b, "--field");
    cz_cuda_opts co;
    memset(&co, 0, sizeof co);
    co.ntt_simple = cz_bench_has(&b, "--simple");
    co.ntt_tile = (int)cz_bench_opt_long(&b, "--tile", 0);
    co.ntt_cols = (int)cz_bench_opt_long(&b, "--cols", 0);
    co.ntt_rev_kernel = cz_bench_has(&b, "--rev-kernel");

    cz_cuda *ctx = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_cuda_open(&ctx, 0, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "bench_gpu_ntt: %s\n", cz_error_msg(&err));
        return st == CZ_ERR_NO_DEVICE ? 77 : 1;
    }
    if ((st = cz_cuda_set_opts(ctx, &co, &err)) != CZ_OK) {
        fprintf(stderr, "bench_gpu_ntt: %s\n", cz_error_msg(&err));
        cz_cuda_close(ctx);
        return 2;
    }
    char tile[16], cols[16];
    snprintf(tile, sizeof tile, "%d", co.ntt_tile);
    snprintf(cols, sizeof cols, "%d", co.ntt_cols);
    cz_bench_note(&b, "GPU: %s. Kernels: %s (tile log %s, column log %s; bit reversal %s).", cz_cuda_name(ctx),
                  co.ntt_simple ? "simple, one launch per level" : "shared-memory passes",
                  co.ntt_tile ? tile : "default 10, 11 where that saves a pass", co.ntt_cols ? cols : "default 2",
                  co.ntt_simple || co.ntt_rev_kernel ? "in a kernel of its own" : "in a pass where VRAM allows");
    cz_bench_note(&b, "Device ms: CUDA events, data in VRAM, natural order in and out (one bit reversal per "
                      "transform); H = 3 inverse + 3 coset NTTs + a*b - c (no permutation). Whole-call ms: "
                      "host memory in and out, including transfers; H ab: a, b in, c = a o b on the device (the "
                      "prover's call). Goal: H at 2^24 <= 15 ms; sppark's "
                      "forward NTT at 2^24 is 4.73 ms on the H200 (bench/RESULTS.md).");
    cz_bench_table t;
    cz_bench_table_init(&t, "GPU NTT (ms; H ns/bfly = H device time per butterfly of its 6 NTTs)",
                        "field|size|fwd|inv|coset fwd|coset inv|H device|H ns/bfly|H pinned|H pageable|"
                        "H ab pinned|H ab pageable|NTT pinned|NTT pageable");
    int fail = 0;
    for (int fi = 0; fi < 2 && !fail; fi++) {
        cz_curve curve = fi ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254;
        if (field && strcmp(field, fi ? "bls12_381" : "bn254") != 0) continue;
        for (unsigned k = kmin; k <= kmax && !fail; k++)
            fail = bench_size(&b, &t, ctx, curve, k);
    }
    cz_bench_table_print(&b, &t);
    cz_cuda_close(ctx);
    if (fail) return 1;
    return cz_bench_finish(&b);
}
