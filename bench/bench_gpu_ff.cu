/*
 * bench_gpu_ff: field product throughput on the GPU, integer pipe against
 * FP64 pipe (issue 16's "field products" lever).
 *
 * DESIGN: a kernel runs C independent chains per thread, x = x w repeated
 * --iters times (w per lane, read from memory), over a grid of --blocks
 * blocks per SM of 256 threads; products per second = lanes x C x iters over
 * the kernel's time (CUDA events, median of --repeats runs after a warm-up).
 * Products, x in [0, 2p), w below p, result below 2p, both in fp's form:
 *  - imad: fp::mul_lazy of cuda/ff.cuh (PTX carry chains in this build),
 *  - fp64: fp52::mul_r of cuda/ff52.cuh (52-bit limbs on the FP64 pipe),
 *  - mixed: half the chains with each, to see the two pipes add up;
 * and squarings, x = x^2 (x below p): fp::sqr() (with CZ_CUDA_PTX_SQR the
 * dedicated squaring block) beside x * x (the product it otherwise is; for
 * the 381-bit field both called, not inlined). The two squaring kinds must
 * give the same values.
 * The peak beside them: SMs x 64 IMAD/clk x the SM clock, over the 4 N^2
 * IMADs of a CIOS product (N^2 32 x 32 products and N^2 for the reduction,
 * each a low and a high half). Every chain's end is written
 * out and one lane of each kind is checked against the other (same residue).
 *
 * Flags (besides the harness's): --field=bn254_fr | bls12_381_fr | bn254_fq |
 * bls12_381_fq (default all), --iters=K (default 256), --blocks=B (default
 * 4). Exits 77 when there is no GPU.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda/ff52.cuh"

using namespace cz_dev;

enum { CHAINS = 4, THREADS = 256 };

/* kind 0: imad, 1: fp64, 2: mixed (chains 0, 1 imad; 2, 3 fp64), 3: x^2 by
 * sqr(), 4: x^2 by x * x */
template <class F, int KIND> __global__ void __launch_bounds__(THREADS) k_chain(F *out, const F *x0, const F *w, int iters)
{
    typedef fp52<typename F::P_> W;
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) x[c] = x0[(i + c) % 1024];
    const F wi = w[i % 1024];
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++) {
            if (KIND == 3)
                x[c] = x[c].sqr();
            else if (KIND == 4)
                x[c] = x[c] * x[c];
            else if (KIND == 0 || (KIND == 2 && c < CHAINS / 2))
                x[c] = F::mul_lazy(x[c], wi);
            else
                x[c] = W::mul_r(wi, x[c]);
        }
    }
#pragma unroll
    for (int c = 0; c < CHAINS; c++) out[i * CHAINS + c] = x[c];
}

typedef struct {
    const char *name;
    int n32;       /* 32-bit limbs */
    double ms[5];  /* median kernel time per kind */
    int ok;        /* the product kinds agree, and the squaring kinds */
} row;

template <class F> static int run_field(cz_bench *b, row *r, int sms, int blocks, int iters)
{
    const size_t lanes = (size_t)sms * blocks * THREADS;
    F *hx = (F *)calloc(1024, sizeof(F)), *hw = (F *)calloc(1024, sizeof(F));
    F *ho = (F *)calloc(lanes * CHAINS, sizeof(F));
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 1024; i++) {
        for (int k = 0; k < F::N; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            hx[i].l[k] = (uint32_t)(s >> 32);
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            hw[i].l[k] = (uint32_t)(s >> 32);
        }
        hx[i].l[F::N - 1] &= F::P_::p(F::N - 1) >> 1; /* below p */
        hw[i].l[F::N - 1] &= F::P_::p(F::N - 1) >> 1;
    }
    F *dx, *dw, *dout;
    cudaMalloc(&dx, 1024 * sizeof(F));
    cudaMalloc(&dw, 1024 * sizeof(F));
    cudaMalloc(&dout, lanes * CHAINS * sizeof(F));
    cudaMemcpy(dx, hx, 1024 * sizeof(F), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, hw, 1024 * sizeof(F), cudaMemcpyHostToDevice);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    F first[5][CHAINS];
    for (int kind = 0; kind < 5; kind++) {
        double t[64];
        const int reps = b->repeats < 64 ? b->repeats : 64;
        for (int rep = -1; rep < reps; rep++) {
            cudaEventRecord(e0);
            if (kind == 0) k_chain<F, 0><<<sms * blocks, THREADS>>>(dout, dx, dw, iters);
            if (kind == 1) k_chain<F, 1><<<sms * blocks, THREADS>>>(dout, dx, dw, iters);
            if (kind == 2) k_chain<F, 2><<<sms * blocks, THREADS>>>(dout, dx, dw, iters);
            if (kind == 3) k_chain<F, 3><<<sms * blocks, THREADS>>>(dout, dx, dw, iters);
            if (kind == 4) k_chain<F, 4><<<sms * blocks, THREADS>>>(dout, dx, dw, iters);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            if (rep >= 0) t[rep] = ms;
        }
        for (int i = 1; i < reps; i++) /* insertion sort: median */
            for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
                double u = t[j];
                t[j] = t[j - 1];
                t[j - 1] = u;
            }
        r->ms[kind] = t[reps / 2];
        cudaMemcpy(ho, dout, CHAINS * sizeof(F), cudaMemcpyDeviceToHost);
        memcpy(first[kind], ho, sizeof first[kind]);
    }
    cudaError_t err = cudaGetLastError();
    r->ok = err == cudaSuccess;
    for (int c = 0; c < CHAINS; c++) {
        for (int kind = 1; kind < 3; kind++) r->ok &= first[kind][c].reduced() == first[0][c].reduced();
        r->ok &= first[3][c] == first[4][c];
    }
    if (err != cudaSuccess) fprintf(stderr, "bench_gpu_ff: %s\n", cudaGetErrorString(err));
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dout);
    free(hx);
    free(hw);
    free(ho);
    (void)b;
    return err == cudaSuccess ? 0 : -1;
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--field", "--iters", "--blocks", NULL};
    int rc = cz_bench_init(&b, "bench_gpu_ff", argc, argv, own,
                           "  --field=F    bn254_fr | bls12_381_fr | bn254_fq | bls12_381_fq (default all)\n"
                           "  --iters=K    products per chain (default 256)\n"
                           "  --blocks=B   blocks of 256 threads per SM (default 4)\n");
    if (rc >= 0) return rc;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "bench_gpu_ff: no GPU, skipped\n");
        return 77;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    const int sms = prop.multiProcessorCount;
    const int iters = (int)cz_bench_opt_long(&b, "--iters", b.quick ? 32 : 256);
    const int blocks = (int)cz_bench_opt_long(&b, "--blocks", 4);
    const char *field = cz_bench_opt_str(&b, "--field");
    cz_bench_note(&b, "GPU: %s, %d SMs, %.2f GHz. %d chains per thread, %d x %d blocks of %d threads, %d products per "
                      "chain; kernel time by CUDA events, median of %d.",
                  prop.name, sms, clock_khz * 1e-6, CHAINS, sms, blocks, THREADS, iters, b.repeats);
    row rows[4] = {{"bn254_fr", 8, {0}, 0}, {"bls12_381_fr", 8, {0}, 0}, {"bn254_fq", 8, {0}, 0},
                   {"bls12_381_fq", 12, {0}, 0}};
    cz_bench_table t;
    cz_bench_table_init(&t, "Field products (G/s; IMAD peak = 64 IMAD/clk/SM over the 4 N^2 IMADs of a CIOS product)",
                        "field|imad G/s|fp64 G/s|mixed G/s|fp64 / imad|IMAD peak G/s|x^2 G/s|x x G/s|x^2 / x x|agree");
    for (int f = 0; f < 4; f++) {
        row *r = &rows[f];
        if (field && strcmp(field, r->name) != 0) continue;
        int e = f == 0   ? run_field<fp<bn254_fr_p>>(&b, r, sms, blocks, iters)
                : f == 1 ? run_field<fp<bls12_381_fr_p>>(&b, r, sms, blocks, iters)
                : f == 2 ? run_field<fp<bn254_fq_p>>(&b, r, sms, blocks, iters)
                         : run_field<fp<bls12_381_fq_p>>(&b, r, sms, blocks, iters);
        if (e != 0) return 1;
        const double n = (double)sms * blocks * THREADS * CHAINS * iters;
        const double peak = sms * 64.0 * clock_khz * 1e3 / (4.0 * r->n32 * r->n32) * 1e-9;
        cz_bench_table_addf(&t, "%s|%.2f|%.2f|%.2f|%.3f|%.1f|%.2f|%.2f|%.3f|%s", r->name, n / r->ms[0] * 1e-6,
                            n / r->ms[1] * 1e-6, n / r->ms[2] * 1e-6, r->ms[0] / r->ms[1], peak, n / r->ms[3] * 1e-6,
                            n / r->ms[4] * 1e-6, r->ms[4] / r->ms[3], r->ok ? "yes" : "NO");
    }
    cz_bench_table_print(&b, &t);
    return cz_bench_finish(&b);
}
