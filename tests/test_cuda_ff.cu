/*
 * The device arithmetic of cuda/ff.cuh and cuda/ec.cuh, run on the host
 * (the same __host__ __device__ code the kernels compile), against the CPU
 * fields and curves of ff/ and ec/ (themselves tested against GMP and the
 * published generators). Needs no GPU: runs in CI wherever nvcc builds.
 *
 * Fields: add, sub, neg, dbl, mul, sqr, to/from Montgomery, inv on random
 * and edge operands (0, 1, p - 1, R mod p, values near 2^k), the lazy forms and
 * cuda/ff52.cuh's FP64-pipe product on [0, 2p). Fq2: mul, sqr,
 * inv. Curves (G1 and G2 of both): mixed, full and doubling XYZZ additions
 * against the CPU's Jacobian arithmetic, including P + P, P + (-P), the
 * point at infinity on either side, and long random chains.
 */
#include <string.h>

#include "cuda/ec.cuh"
#include "cuda/ff52.cuh"
#include "cuda_test_util.h"
#include "ec/ec.h"
#include "test_util.h"

using namespace cz_dev;

/* byte views: a device element and its CPU twin have the same bytes */
template <class D, class C> static D to_dev(const C &c)
{
    static_assert(sizeof(D) == sizeof(C), "layouts differ");
    D d;
    memcpy(&d, &c, sizeof d);
    return d;
}
template <class D, class C> static bool same(const D &d, const C &c)
{
    static_assert(sizeof(D) == sizeof(C), "layouts differ");
    return memcmp(&d, &c, sizeof d) == 0;
}

/* the parameter struct of a device field, and limb i of 64-bit limbs in halves */
template <class T> struct params_of;
template <class P> struct params_of<fp<P>> {
    typedef P type;
};
static uint32_t half32(const uint64_t *v, int i) { return (uint32_t)(v[i / 2] >> (32 * (i % 2))); }

/* ---- one prime field ------------------------------------------------------ */
#define FIELD_TEST(NAME, DEV, CPU)                                                                    \
    static void test_##NAME(cz_rng *rng, long iters)                                                  \
    {                                                                                                 \
        CPU edge[8];                                                                                  \
        CPU##_set_zero(&edge[0]);                                                                     \
        CPU##_set_one(&edge[1]);                                                                      \
        CPU##_neg(&edge[2], &edge[1]); /* p - 1 */                                                    \
        CPU##_from_u64(&edge[3], 1);                                                                  \
        CPU##_from_u64(&edge[4], 0xffffffffu);                                                        \
        CPU##_from_u64(&edge[5], ~(uint64_t)0);                                                       \
        {                                                                                             \
            uint64_t v[sizeof(CPU) / 8];                                                              \
            memset(v, 0, sizeof v);                                                                   \
            v[sizeof v / 8 - 1] = 1; /* 2^(64(n-1)) canonical */                                      \
            CPU##_from_canonical(&edge[6], v);                                                        \
            memset(v, 0xff, sizeof v);                                                                \
            v[sizeof v / 8 - 1] = 0; /* 2^(64(n-1)) - 1 */                                            \
            CPU##_from_canonical(&edge[7], v);                                                        \
        }                                                                                             \
        long bad = 0;                                                                                 \
        for (long it = 0; it < iters + 64; it++) {                                                    \
            CPU a, b, r;                                                                              \
            if (it < 64) {                                                                            \
                a = edge[it & 7];                                                                     \
                b = edge[it >> 3];                                                                    \
            } else {                                                                                  \
                CPU##_random(&a, rng);                                                                \
                CPU##_random(&b, rng);                                                                \
            }                                                                                         \
            DEV da = to_dev<DEV>(a), db = to_dev<DEV>(b);                                             \
            CPU##_add(&r, &a, &b);                                                                    \
            bad += !same(da + db, r);                                                                 \
            CPU##_sub(&r, &a, &b);                                                                    \
            bad += !same(da - db, r);                                                                 \
            CPU##_neg(&r, &a);                                                                        \
            bad += !same(-da, r);                                                                     \
            CPU##_dbl(&r, &a);                                                                        \
            bad += !same(da.dbl(), r);                                                                \
            CPU##_mul(&r, &a, &b);                                                                    \
            bad += !same(da * db, r);                                                                 \
            CPU##_sqr(&r, &a);                                                                        \
            bad += !same(da.sqr(), r);                                                                \
            uint64_t can[sizeof(CPU) / 8];                                                            \
            CPU##_to_canonical(can, &a);                                                              \
            DEV dc = da.from_mont();                                                                  \
            bad += memcmp(dc.l, can, sizeof can) != 0;                                                \
            bad += !(dc.to_mont() == da);                                                             \
            bad += (da == db) != (CPU##_eq(&a, &b) != 0);                                             \
            bad += da.is_zero() != (CPU##_is_zero(&a) != 0);                                          \
            /* lazy forms on [0, 2p): a, b or a + p, b + p by the low bits of it */                   \
            DEV la = (it & 1) ? cz_test_plus_p(da) : da, lb = (it & 2) ? cz_test_plus_p(db) : db;     \
            bad += cz_test_lazy_bad(la, da);                                                          \
            bad += cz_test_lazy_bad(DEV::mul_lazy(la, db), da * db);                                  \
            bad += cz_test_lazy_bad(DEV::add_lazy(la, lb), da + db);                                  \
            bad += cz_test_lazy_bad(DEV::sub_lazy(la, lb), da - db);                                  \
            /* the FP64-pipe product (host form: the FMAs as exact integer products) */                \
            bad += cz_test_lazy_bad(fp52<params_of<DEV>::type>::mul_r(da, lb), da * db);              \
            bad += !(DEV::mul_int(da, db) == da * db);                                                \
            if (it < 64 || it % 64 == 0) { /* inv is a slow pow */                                    \
                if (CPU##_inv(&r, &a) != CZ_OK) CPU##_set_zero(&r);                                   \
                bad += !same(da.inv(), r);                                                            \
            }                                                                                         \
        }                                                                                             \
        CHECK_MSG(bad == 0, #NAME ": %ld mismatches against the CPU field", bad);                     \
        CHECK(same(DEV::one(), CPU##_ONE));                                                           \
        /* the device constants (ff/ff_consts.inc's _U32 lists) are the CPU field's */                \
        typedef params_of<DEV>::type P;                                                               \
        long cbad = P::N != 2 * CPU##_LIMBS || P::PINV != (uint32_t)CPU##_pinv;                       \
        for (int i = 0; i < P::N; i++)                                                                \
            cbad += P::p(i) != half32(CPU##_modulus, i) || P::r(i) != half32(CPU##_ONE.l, i) ||       \
                    P::r2(i) != half32(CPU##_r2_limbs, i);                                            \
        CHECK_MSG(cbad == 0, #NAME ": device constants differ from the CPU field's");                 \
    }

FIELD_TEST(bls12_381_fq, bls12_381_fq, cz_bls12_381_fq)
FIELD_TEST(bls12_381_fr, bls12_381_fr, cz_bls12_381_fr)
FIELD_TEST(bn254_fq, bn254_fq, cz_bn254_fq)
FIELD_TEST(bn254_fr, bn254_fr, cz_bn254_fr)

/* ---- Fq2 -------------------------------------------------------------------- */
#define FQ2_TEST(NAME, DEV, CPU)                                                                      \
    static void test_##NAME(cz_rng *rng, long iters)                                                  \
    {                                                                                                 \
        long bad = 0;                                                                                 \
        for (long it = 0; it < iters; it++) {                                                         \
            CPU a, b, r;                                                                              \
            CPU##_random(&a, rng);                                                                    \
            CPU##_random(&b, rng);                                                                    \
            if (it == 0) CPU##_set_zero(&a);                                                          \
            if (it == 1) CPU##_set_one(&b);                                                           \
            DEV da = to_dev<DEV>(a), db = to_dev<DEV>(b);                                             \
            CPU##_mul(&r, &a, &b);                                                                    \
            bad += !same(da * db, r);                                                                 \
            CPU##_sqr(&r, &a);                                                                        \
            bad += !same(da.sqr(), r);                                                                \
            CPU##_add(&r, &a, &b);                                                                    \
            bad += !same(da + db, r);                                                                 \
            CPU##_sub(&r, &a, &b);                                                                    \
            bad += !same(da - db, r);                                                                 \
            if (it % 32 == 0 && !CPU##_is_zero(&a)) {                                                 \
                CPU##_inv(&r, &a);                                                                    \
                bad += !same(da.inv(), r);                                                            \
            }                                                                                         \
        }                                                                                             \
        CHECK_MSG(bad == 0, #NAME ": %ld mismatches against the CPU Fq2", bad);                       \
    }

FQ2_TEST(bls12_381_fq2, bls12_381_fq2, cz_bls12_381_fq2)
FQ2_TEST(bn254_fq2, bn254_fq2, cz_bn254_fq2)

/* ---- curves ------------------------------------------------------------------ */
/* Compares a device XYZZ point with a CPU Jacobian point as group elements. */
#define CURVE_TEST(NAME, F, G)                                                                        \
    static bool eq_##NAME(const xyzz<F> &d, const G &c)                                               \
    {                                                                                                 \
        G##_xyzz x;                                                                                   \
        memcpy(&x, &d, sizeof x);                                                                     \
        G j;                                                                                          \
        G##_from_xyzz(&j, &x);                                                                        \
        return G##_eq(&j, &c) != 0;                                                                   \
    }                                                                                                 \
    static void test_##NAME(cz_rng *rng, long iters)                                                  \
    {                                                                                                 \
        static_assert(sizeof(affine<F>) == sizeof(G##_affine), "affine layout");                      \
        static_assert(sizeof(xyzz<F>) == sizeof(G##_xyzz), "xyzz layout");                            \
        long bad = 0;                                                                                 \
        G##_affine inf;                                                                               \
        memset(&inf, 0, sizeof inf);                                                                  \
        for (long it = 0; it < iters; it++) {                                                         \
            G P, Q, R;                                                                                \
            G##_affine pa, qa;                                                                        \
            G##_random(&P, rng);                                                                      \
            G##_random(&Q, rng);                                                                      \
            G##_to_affine(&pa, &P);                                                                   \
            G##_to_affine(&qa, &Q);                                                                   \
            affine<F> dp = to_dev<affine<F>>(pa), dq = to_dev<affine<F>>(qa), dinf = to_dev<affine<F>>(inf); \
            /* a non-trivial Z: X = 2P + Q computed in XYZZ */                                         \
            xyzz<F> xp = xyzz<F>::dbl_affine(dp).add_affine(dq);                                      \
            G cp;                                                                                     \
            G##_dbl(&cp, &P);                                                                         \
            G##_add(&cp, &cp, &Q);                                                                    \
            bad += !eq_##NAME(xp, cp);                                                                \
            /* mixed add: X + Q, X + inf, inf + Q, X + X (as affine), X - X */                         \
            G##_add(&R, &cp, &Q);                                                                     \
            bad += !eq_##NAME(xp.add_affine(dq), R);                                                  \
            bad += !eq_##NAME(xp.add_affine(dinf), cp);                                               \
            bad += !eq_##NAME(xyzz<F>::inf().add_affine(dq), Q);                                      \
            G##_affine ca;                                                                            \
            G##_to_affine(&ca, &cp);                                                                  \
            affine<F> dca = to_dev<affine<F>>(ca);                                                    \
            G##_dbl(&R, &cp);                                                                         \
            bad += !eq_##NAME(xp.add_affine(dca), R);                                                 \
            bad += !xp.sub_affine(dca).is_inf();                                                      \
            /* full add: X + Y, X + X, X + (-X), with infinity */                                     \
            xyzz<F> xq = xyzz<F>::dbl_affine(dq).add_affine(dp); /* 2Q + P */                        \
            G cq;                                                                                     \
            G##_dbl(&cq, &Q);                                                                         \
            G##_add(&cq, &cq, &P);                                                                    \
            G##_add(&R, &cp, &cq);                                                                    \
            bad += !eq_##NAME(xp.add(xq), R);                                                         \
            G##_dbl(&R, &cp);                                                                         \
            bad += !eq_##NAME(xp.add(xp), R);                                                         \
            bad += !eq_##NAME(xp.dbl(), R);                                                           \
            bad += !xp.add(-xp).is_inf();                                                             \
            bad += !eq_##NAME(xp.add(xyzz<F>::inf()), cp);                                            \
            bad += !eq_##NAME(xyzz<F>::inf().add(xq), cq);                                            \
            bad += !xyzz<F>::inf().dbl().is_inf();                                                    \
            bad += !xyzz<F>::dbl_affine(dinf).is_inf();                                               \
        }                                                                                             \
        /* a chain: sum of k random points, mixed additions, against the CPU */                      \
        G acc;                                                                                        \
        G##_set_inf(&acc);                                                                            \
        xyzz<F> dacc = xyzz<F>::inf();                                                                \
        for (long k = 0; k < iters; k++) {                                                            \
            G P;                                                                                      \
            G##_affine pa;                                                                            \
            G##_random(&P, rng);                                                                      \
            G##_to_affine(&pa, &P);                                                                   \
            G##_add(&acc, &acc, &P);                                                                  \
            dacc = dacc.add_affine(to_dev<affine<F>>(pa));                                            \
        }                                                                                             \
        bad += !eq_##NAME(dacc, acc);                                                                 \
        CHECK_MSG(bad == 0, #NAME ": %ld mismatches against the CPU curve", bad);                     \
    }

CURVE_TEST(bls12_381_g1, bls12_381_fq, cz_bls12_381_g1)
CURVE_TEST(bls12_381_g2, bls12_381_fq2, cz_bls12_381_g2)
CURVE_TEST(bn254_g1, bn254_fq, cz_bn254_g1)
CURVE_TEST(bn254_g2, bn254_fq2, cz_bn254_g2)

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_cuda_ff");
    long n = cz_test_iters(100000);
    test_bls12_381_fq(&rng, n);
    test_bls12_381_fr(&rng, n);
    test_bn254_fq(&rng, n);
    test_bn254_fr(&rng, n);
    test_bls12_381_fq2(&rng, cz_test_iters(20000));
    test_bn254_fq2(&rng, cz_test_iters(20000));
    long m = cz_test_iters(200);
    test_bls12_381_g1(&rng, m);
    test_bls12_381_g2(&rng, m);
    test_bn254_g1(&rng, m);
    test_bn254_g2(&rng, m);
    return cz_test_finish("test_cuda_ff");
}
