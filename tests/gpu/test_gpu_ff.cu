/*
 * GPU test (label gpu): the device arithmetic of cuda/ff.cuh and cuda/ec.cuh
 * run in kernels on fresh random inputs, against the CPU fields and curves
 * of ff/ and ec/. Exits 77 (skipped) when there is no GPU.
 *
 * Per field: add, sub, mul, sqr, mul_sub, from_mont, inv and the lazy forms
 * (mul_lazy, add_lazy, sub_lazy on [0, 2p)) on 2^16 random pairs plus edge
 * values; the FP64-pipe product of cuda/ff52.cuh (its FMAs checked here, on
 * the device) on the same pairs, a b and b a, the second operand x or x + p.
 * Per Fq2: mul (with merged reductions in a CZ_CUDA_PTX build), sqr on 2^16
 * random pairs plus the pairs of 8 edge values. Per group (G1, G2 of both curves): mixed add, full add, doubling
 * on 2^12 random points, including P + P and P + (-P) lanes.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "cuda/cuda.h"
#include "cuda/ec.cuh"
#include "cuda/ff52.cuh"
#include "cuda_test_util.h"
#include "ec/ec.h"
#include "test_util.h"

using namespace cz_dev;

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            cz_test_failed++;                                                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* out[11i..11i+10] = a+b, a-b, a*b, a^2, a*b - b^2 (one reduction in a build
 * with CZ_CUDA_PTX: fp::mul_sub, negative before the reduction about half
 * the time), canonical(a), the lazy forms on a + p, b + p (below 2p):
 * mul_lazy(a + p, b), add_lazy(a + p, b + p), sub_lazy(a, b + p), 1/a, and
 * a^2 by fp::sqr_ptx in a CZ_CUDA_PTX build (the squaring block that
 * CZ_CUDA_PTX_SQR gives sqr(): tested whether or not sqr() uses it) */
enum { FIELD_OUTS = 11 };
template <class F> __global__ void k_field(F *out, const F *a, const F *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = a[i], y = b[i];
    F *o = out + FIELD_OUTS * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x.sqr();
    o[4] = F::mul_sub(x, y, y, y);
    o[5] = x.from_mont();
    const F xp = cz_test_plus_p(x), yp = cz_test_plus_p(y);
    o[6] = F::mul_lazy(xp, y);
    o[7] = F::add_lazy(xp, yp);
    o[8] = F::sub_lazy(x, yp);
    o[9] = x.inv(); /* 4-bit windows (0 for 0) */
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
    o[10] = F::sqr_ptx(x);
#else
    o[10] = x.sqr();
#endif
}

/* out[2i] = fp52::mul_r(a, b), out[2i + 1] = fp52::mul_r(b, a), the second
 * operand + p on odd lanes (the range [0, 2p)): below 2p and a b / R mod p */
template <class F> __global__ void k_field52(F *out, const F *a, const F *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const F x = (i & 1) ? cz_test_plus_p(a[i]) : a[i], y = (i & 1) ? cz_test_plus_p(b[i]) : b[i];
    out[2 * i] = fp52<typename F::P_>::mul_r(a[i], y);
    out[2 * i + 1] = fp52<typename F::P_>::mul_r(b[i], x);
}

/* out[4i..4i+3] = a*b, a^2, a*a, a b - (a + b)(a - b) in Fq2 (in a build
 * with CZ_CUDA_PTX the product with merged reductions, or with
 * CZ_CUDA_PTX_FQ2 two sums of products; mul_sub through that product) */
template <class F> __global__ void k_fq2(F *out, const F *a, const F *b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = a[i], y = b[i];
    out[4 * i + 0] = x * y;
    out[4 * i + 1] = x.sqr();
    out[4 * i + 2] = x * x;
    out[4 * i + 3] = F::mul_sub(x, y, x + y, x - y);
}

#define FQ2_TEST(NAME, F, C, B)                                                                          \
    static void fq2_##NAME(cz_rng *rng, size_t n)                                                        \
    {                                                                                                    \
        static_assert(sizeof(F) == sizeof(C), "layout");                                                 \
        F *ha = (F *)calloc(n, sizeof(F)), *hb = (F *)calloc(n, sizeof(F)), *ho = (F *)calloc(4 * n, sizeof(F)); \
        for (size_t i = 0; i < n; i++) {                                                                 \
            B##_random(&((C *)&ha[i])->c0, rng);                                                         \
            B##_random(&((C *)&ha[i])->c1, rng);                                                         \
            B##_random(&((C *)&hb[i])->c0, rng);                                                         \
            B##_random(&((C *)&hb[i])->c1, rng);                                                         \
        }                                                                                                \
        /* edges: 0, 1, u, -1, -1 - u, p - 1 in one coefficient; a0 b0 < a1 b1 and > */                 \
        typedef decltype(F::zero().c0) E;                                                                \
        const E z = E::zero(), o = E::one(), m = -E::one();                                             \
        const F edge[] = {{z, z}, {o, z}, {z, o}, {m, z}, {m, m}, {z, m}, {o, m}, {m, o}};                 \
        const size_t ne = sizeof edge / sizeof edge[0];                                                  \
        for (size_t i = 0; i < ne * ne && i < n; i++) {                                                  \
            ha[i] = edge[i / ne];                                                                        \
            hb[i] = edge[i % ne];                                                                        \
        }                                                                                                \
        F *da, *db, *dout;                                                                               \
        CUDA_OK(cudaMalloc(&da, n * sizeof(F)));                                                         \
        CUDA_OK(cudaMalloc(&db, n * sizeof(F)));                                                         \
        CUDA_OK(cudaMalloc(&dout, 4 * n * sizeof(F)));                                                   \
        CUDA_OK(cudaMemcpy(da, ha, n * sizeof(F), cudaMemcpyHostToDevice));                              \
        CUDA_OK(cudaMemcpy(db, hb, n * sizeof(F), cudaMemcpyHostToDevice));                              \
        k_fq2<F><<<(unsigned)((n + 127) / 128), 128>>>(dout, da, db, n);                                 \
        CUDA_OK(cudaGetLastError());                                                                     \
        CUDA_OK(cudaMemcpy(ho, dout, 4 * n * sizeof(F), cudaMemcpyDeviceToHost));                        \
        long bad = 0;                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                 \
            C w[4], s, d, t;                                                                             \
            const C *x = (const C *)&ha[i], *y = (const C *)&hb[i];                                      \
            C##_mul(&w[0], x, y);                                                                        \
            C##_sqr(&w[1], x);                                                                           \
            w[2] = w[1];                                                                                 \
            C##_add(&s, x, y);                                                                           \
            C##_sub(&d, x, y);                                                                           \
            C##_mul(&t, &s, &d);                                                                         \
            C##_sub(&w[3], &w[0], &t);                                                                   \
            for (int k = 0; k < 4; k++) bad += memcmp(&ho[4 * i + k], &w[k], sizeof(C)) != 0;            \
        }                                                                                                \
        CHECK_MSG(bad == 0, #NAME ": %ld of %zu device Fq2 results differ from the CPU", bad, 4 * n);    \
        cudaFree(da);                                                                                    \
        cudaFree(db);                                                                                    \
        cudaFree(dout);                                                                                  \
        free(ha);                                                                                        \
        free(hb);                                                                                        \
        free(ho);                                                                                        \
    }
FQ2_TEST(bls12_381, bls12_381_fq2, cz_bls12_381_fq2, cz_bls12_381_fq)
FQ2_TEST(bn254, bn254_fq2, cz_bn254_fq2, cz_bn254_fq)

/* out[4i..4i+3] = P + Q (mixed, P made XYZZ by a doubling), P + P, full add, P - P */
template <class F> __global__ void k_curve(xyzz<F> *out, const affine<F> *p, const affine<F> *q, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    xyzz<F> x = xyzz<F>::dbl_affine(p[i]); /* 2P */
    out[4 * i + 0] = x.add_affine(q[i]);   /* 2P + Q */
    out[4 * i + 1] = x.dbl();              /* 4P */
    out[4 * i + 2] = x.add(xyzz<F>::from_affine(q[i]).add_affine(p[i])); /* 3P + Q */
    out[4 * i + 3] = x.add(-x);            /* inf */
}

/* the CPU field's operations, the oracle */
template <class C> struct cpu_ops {
    void (*rnd)(C *, cz_rng *);
    void (*add)(C *, const C *, const C *);
    void (*sub)(C *, const C *, const C *);
    void (*mul)(C *, const C *, const C *);
    void (*sqr)(C *, const C *);
    void (*to_canonical)(uint64_t *, const C *);
    cz_status (*inv)(C *, const C *);
};
#define CPU_OPS(C) cpu_ops<C>{C##_random, C##_add, C##_sub, C##_mul, C##_sqr, C##_to_canonical, C##_inv}

template <class F, class C> static void field_test(const char *name, cz_rng *rng, size_t n, cpu_ops<C> ops)
{
    void (*rnd)(C *, cz_rng *) = ops.rnd;
    static_assert(sizeof(F) == sizeof(C), "layout");
    F *ha = (F *)calloc(n, sizeof(F)), *hb = (F *)calloc(n, sizeof(F)), *ho = (F *)calloc(FIELD_OUTS * n, sizeof(F));
    for (size_t i = 0; i < n; i++) {
        rnd((C *)&ha[i], rng);
        rnd((C *)&hb[i], rng);
    }
    ha[0] = F::zero();
    hb[1] = F::zero();
    ha[2] = F::one();
    hb[3] = -F::one();
    ha[4] = -F::one();
    hb[4] = -F::one();
    F *da, *db, *dout;
    CUDA_OK(cudaMalloc(&da, n * sizeof(F)));
    CUDA_OK(cudaMalloc(&db, n * sizeof(F)));
    CUDA_OK(cudaMalloc(&dout, FIELD_OUTS * n * sizeof(F)));
    CUDA_OK(cudaMemcpy(da, ha, n * sizeof(F), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hb, n * sizeof(F), cudaMemcpyHostToDevice));
    k_field<F><<<(unsigned)((n + 255) / 256), 256>>>(dout, da, db, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(ho, dout, FIELD_OUTS * n * sizeof(F), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const C *x = (const C *)&ha[i], *y = (const C *)&hb[i];
        C w[5], yy;
        uint64_t can[sizeof(C) / 8];
        ops.add(&w[0], x, y);
        ops.sub(&w[1], x, y);
        ops.mul(&w[2], x, y);
        ops.sqr(&w[3], x);
        ops.sqr(&yy, y);
        ops.sub(&w[4], &w[2], &yy);
        ops.to_canonical(can, x);
        const F *o = &ho[FIELD_OUTS * i];
        for (int k = 0; k < 5; k++) bad += memcmp(&o[k], &w[k], sizeof(C)) != 0;
        bad += memcmp(&o[5], can, sizeof can) != 0;
        bad += cz_test_lazy_bad(o[6], *(const F *)&w[2]) + cz_test_lazy_bad(o[7], *(const F *)&w[0]) +
               cz_test_lazy_bad(o[8], *(const F *)&w[1]);
        C xi;
        if (ops.inv(&xi, x) != CZ_OK) memset(&xi, 0, sizeof xi);
        bad += memcmp(&o[9], &xi, sizeof(C)) != 0;
        bad += memcmp(&o[10], &w[3], sizeof(C)) != 0;
    }
    CHECK_MSG(bad == 0, "%s: %ld of %zu device results differ from the CPU field", name, bad, FIELD_OUTS * n);
    k_field52<F><<<(unsigned)((n + 255) / 256), 256>>>(dout, da, db, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(ho, dout, 2 * n * sizeof(F), cudaMemcpyDeviceToHost));
    long bad52 = 0;
    for (size_t i = 0; i < n; i++) {
        C w2;
        ops.mul(&w2, (const C *)&ha[i], (const C *)&hb[i]);
        bad52 += cz_test_lazy_bad(ho[2 * i], *(const F *)&w2) + cz_test_lazy_bad(ho[2 * i + 1], *(const F *)&w2);
    }
    CHECK_MSG(bad52 == 0, "%s: %ld of %zu FP64-pipe products differ from the CPU field", name, bad52, 2 * n);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    free(ha);
    free(hb);
    free(ho);
}

#define CURVE_TEST(NAME, F, G)                                                                        \
    static void curve_##NAME(cz_rng *rng, size_t n)                                                   \
    {                                                                                                 \
        typedef affine<F> A;                                                                          \
        typedef xyzz<F> X;                                                                            \
        A *hp = (A *)calloc(n, sizeof(A)), *hq = (A *)calloc(n, sizeof(A));                           \
        X *ho = (X *)calloc(4 * n, sizeof(X));                                                        \
        G *cp = (G *)calloc(n, sizeof(G)), *cq = (G *)calloc(n, sizeof(G));                           \
        for (size_t i = 0; i < n; i++) {                                                              \
            G##_random(&cp[i], rng);                                                                  \
            G##_random(&cq[i], rng);                                                                  \
        }                                                                                             \
        cq[1] = cp[1];                      /* Q = P */                                               \
        G##_neg(&cq[2], &cp[2]);            /* Q = -P */                                              \
        G##_dbl(&cq[3], &cp[3]);            /* Q = 2P: 2P + Q doubles */                              \
        G##_batch_to_affine((G##_affine *)hp, cp, n);                                                 \
        G##_batch_to_affine((G##_affine *)hq, cq, n);                                                 \
        memset(&hq[4], 0, sizeof(A));       /* Q = infinity */                                        \
        G##_set_inf(&cq[4]);                                                                          \
        A *dp, *dq;                                                                                   \
        X *dout;                                                                                      \
        CUDA_OK(cudaMalloc(&dp, n * sizeof(A)));                                                      \
        CUDA_OK(cudaMalloc(&dq, n * sizeof(A)));                                                      \
        CUDA_OK(cudaMalloc(&dout, 4 * n * sizeof(X)));                                                \
        CUDA_OK(cudaMemcpy(dp, hp, n * sizeof(A), cudaMemcpyHostToDevice));                           \
        CUDA_OK(cudaMemcpy(dq, hq, n * sizeof(A), cudaMemcpyHostToDevice));                           \
        k_curve<F><<<(unsigned)((n + 127) / 128), 128>>>(dout, dp, dq, n);                            \
        CUDA_OK(cudaGetLastError());                                                                  \
        CUDA_OK(cudaMemcpy(ho, dout, 4 * n * sizeof(X), cudaMemcpyDeviceToHost));                     \
        long bad = 0;                                                                                 \
        for (size_t i = 0; i < n; i++) {                                                              \
            G p2, want[4], got;                                                                       \
            G##_dbl(&p2, &cp[i]);                                                                     \
            G##_add(&want[0], &p2, &cq[i]);                                                           \
            G##_dbl(&want[1], &p2);                                                                   \
            G##_add(&want[2], &want[0], &cp[i]);                                                      \
            G##_set_inf(&want[3]);                                                                    \
            for (int k = 0; k < 4; k++) {                                                             \
                G##_from_xyzz(&got, (const G##_xyzz *)&ho[4 * i + k]);                                \
                bad += !G##_eq(&got, &want[k]);                                                       \
            }                                                                                         \
        }                                                                                             \
        CHECK_MSG(bad == 0, #NAME ": %ld of %zu device point results differ from the CPU", bad, 4 * n); \
        cudaFree(dp);                                                                                 \
        cudaFree(dq);                                                                                 \
        cudaFree(dout);                                                                               \
        free(hp);                                                                                     \
        free(hq);                                                                                     \
        free(ho);                                                                                     \
        free(cp);                                                                                     \
        free(cq);                                                                                     \
    }

CURVE_TEST(bls12_381_g1, bls12_381_fq, cz_bls12_381_g1)
CURVE_TEST(bls12_381_g2, bls12_381_fq2, cz_bls12_381_g2)
CURVE_TEST(bn254_g1, bn254_fq, cz_bn254_g1)
CURVE_TEST(bn254_g2, bn254_fq2, cz_bn254_g2)

int main(void)
{
    if (cz_cuda_device_count() <= 0) {
        printf("test_gpu_ff: no GPU: skipped\n");
        return 77;
    }
    cz_rng rng;
    cz_test_seed(&rng, "test_gpu_ff");
    size_t n = (size_t)cz_test_iters(1 << 16);
    field_test<bls12_381_fq, cz_bls12_381_fq>("bls12_381_fq", &rng, n, CPU_OPS(cz_bls12_381_fq));
    field_test<bls12_381_fr, cz_bls12_381_fr>("bls12_381_fr", &rng, n, CPU_OPS(cz_bls12_381_fr));
    field_test<bn254_fq, cz_bn254_fq>("bn254_fq", &rng, n, CPU_OPS(cz_bn254_fq));
    field_test<bn254_fr, cz_bn254_fr>("bn254_fr", &rng, n, CPU_OPS(cz_bn254_fr));
    fq2_bls12_381(&rng, n);
    fq2_bn254(&rng, n);
    size_t m = (size_t)cz_test_iters(1 << 12);
    if (m < 8) m = 8;
    curve_bls12_381_g1(&rng, m);
    curve_bls12_381_g2(&rng, m);
    curve_bn254_g1(&rng, m);
    curve_bn254_g2(&rng, m);
    return cz_test_finish("test_gpu_ff");
}
