/*
 * The CPU side shared by the two MSM tests of the CUDA code
 * (tests/test_cuda_msm.cu, host emulation; tests/gpu/test_gpu_msm.cu, on the
 * GPU): per group, the CPU functions of ec/ and msm/ behind one name
 * (cpu_<group>, which each test extends with its device side), random
 * inputs (inst<T>) and the two oracles: the CPU MSM and the naive sum.
 * Include after ec/ec.h, msm/msm.h and test_util.h; C++ (nvcc) only.
 */
#ifndef CZ_TESTS_MSM_TEST_GROUPS_H
#define CZ_TESTS_MSM_TEST_GROUPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#define CZ_TEST_CPU_GROUP(NAME, FR)                                                                                  \
    struct cpu_##NAME {                                                                                              \
        typedef cz_##NAME jac;                                                                                       \
        typedef cz_##NAME##_affine caff;                                                                             \
        typedef FR fr;                                                                                               \
        static const char *name() { return #NAME; }                                                                  \
        static void set_inf(jac *r) { cz_##NAME##_set_inf(r); }                                                      \
        static int is_inf(const jac *p) { return cz_##NAME##_is_inf(p); }                                           \
        static void from_affine(jac *r, const caff *a) { cz_##NAME##_from_affine(r, a); }                            \
        static void add(jac *r, const jac *a, const jac *b) { cz_##NAME##_add(r, a, b); }                            \
        static void neg(jac *r, const jac *a) { cz_##NAME##_neg(r, a); }                                             \
        static int eq(const jac *a, const jac *b) { return cz_##NAME##_eq(a, b); }                                   \
        static void mul(jac *r, const jac *p, const uint64_t *k, size_t nk) { cz_##NAME##_mul(r, p, k, nk); }        \
        static void mul_fr(jac *r, const jac *p, const fr *k) { cz_##NAME##_mul_fr(r, p, k); }                       \
        static void random(jac *r, cz_rng *rng) { cz_##NAME##_random(r, rng); }                                      \
        static cz_status batch_to_affine(caff *r, const jac *p, size_t n)                                            \
        {                                                                                                            \
            return cz_##NAME##_batch_to_affine(r, p, n);                                                             \
        }                                                                                                            \
        static void affine_neg(caff *r, const caff *a) { cz_##NAME##_affine_neg(r, a); }                             \
        static cz_status msm(jac *r, const caff *b, const uint8_t *s, size_t n, const cz_msm_opts *o)                \
        {                                                                                                            \
            return cz_##NAME##_msm(r, b, s, n, o);                                                                   \
        }                                                                                                            \
        static void fr_random(fr *a, cz_rng *rng) { FR##_random(a, rng); }                                          \
        static void fr_add(fr *r, const fr *a, const fr *b) { FR##_add(r, a, b); }                                   \
        static void fr_neg(fr *r, const fr *a) { FR##_neg(r, a); }                                                   \
        static void fr_from_canonical(fr *r, const uint64_t *c) { FR##_from_canonical(r, c); }                       \
        static void fr_to_canonical(uint64_t *c, const fr *a) { FR##_to_canonical(c, a); }                           \
        static const uint64_t *fr_modulus() { return FR##_modulus; }                                                 \
    };

CZ_TEST_CPU_GROUP(bls12_381_g1, cz_bls12_381_fr)
CZ_TEST_CPU_GROUP(bls12_381_g2, cz_bls12_381_fr)
CZ_TEST_CPU_GROUP(bn254_g1, cz_bn254_fr)
CZ_TEST_CPU_GROUP(bn254_g2, cz_bn254_fr)
#undef CZ_TEST_CPU_GROUP

/* the test's random stream (seeded by its main with cz_test_seed) */
static cz_rng g_rng;

template <class T> struct inst {
    typedef typename T::fr fr;
    size_t n;
    std::vector<typename T::caff> bases;
    std::vector<fr> s;          /* Montgomery */
    std::vector<uint8_t> canon; /* canonical bytes */

    /* n bases by a random walk from a random point (steps: 16 random
     * points; converted to affine in blocks of 2^16), random scalars */
    void init(size_t n_)
    {
        n = n_;
        bases.resize(n ? n : 1);
        s.resize(n ? n : 1);
        canon.resize(32 * (n ? n : 1));
        typename T::jac step[16], P;
        for (int k = 0; k < 16; k++) T::random(&step[k], &g_rng);
        T::random(&P, &g_rng);
        const size_t blk = (size_t)1 << 16;
        std::vector<typename T::jac> jac(n < blk ? (n ? n : 1) : blk);
        for (size_t b0 = 0; b0 < n; b0 += blk) {
            size_t len = n - b0 < blk ? n - b0 : blk;
            for (size_t i = 0; i < len; i++) {
                jac[i] = P;
                T::add(&P, &P, &step[cz_rng_u64(&g_rng) & 15]);
            }
            if (T::batch_to_affine(&bases[b0], jac.data(), len) != CZ_OK) {
                fprintf(stderr, "batch_to_affine failed\n");
                exit(2);
            }
        }
        for (size_t i = 0; i < n; i++) T::fr_random(&s[i], &g_rng);
        sync();
    }
    /* canonical bytes from s (after the test changed scalars) */
    void sync()
    {
        for (size_t i = 0; i < n; i++) {
            uint64_t c[4];
            T::fr_to_canonical(c, &s[i]);
            for (int b = 0; b < 32; b++) canon[32 * i + b] = (uint8_t)(c[b / 8] >> (8 * (b % 8)));
        }
    }
    void set_u64(size_t i, uint64_t v)
    {
        uint64_t c[4] = {v, 0, 0, 0};
        T::fr_from_canonical(&s[i], c);
    }
    const uint8_t *scalars(bool mont) const { return mont ? (const uint8_t *)s.data() : canon.data(); }
};

/* scalar i of I with extreme signed digits in windows of c bits (below
 * bit bits - 1), by i % 4: the low c - 1 bits of every window set; the top
 * bit of every other window; every bit (carries through all windows); the
 * top bit of every window. T needs bits (the scalar field's). */
template <class T> static void set_digit_extremes(inst<T> &I, size_t i, int c)
{
    uint64_t v[4] = {0, 0, 0, 0};
    for (int b = 0; b < T::bits - 1; b++) {
        int pos = b % c, kind = (int)(i % 4);
        int set = kind == 0   ? pos < c - 1
                  : kind == 1 ? ((b / c) % 2 == 0 && pos == c - 1)
                  : kind == 2 ? 1
                              : pos == c - 1;
        if (set) v[b / 64] |= 1ull << (b % 64);
    }
    T::fr_from_canonical(&I.s[i], v);
}

/* the CPU MSM */
template <class T> static void oracle(const inst<T> &I, typename T::jac *r)
{
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.form = CZ_MSM_MONTGOMERY;
    cz_status st = T::msm(r, I.bases.data(), (const uint8_t *)I.s.data(), I.n, &o);
    if (st != CZ_OK) {
        fprintf(stderr, "CPU msm failed: %s\n", cz_status_str(st));
        exit(2);
    }
}

/* sum mul_fr(P_i, s_i) */
template <class T> static void oracle_naive(const inst<T> &I, typename T::jac *r)
{
    T::set_inf(r);
    for (size_t i = 0; i < I.n; i++) {
        typename T::jac P, Q;
        T::from_affine(&P, &I.bases[i]);
        T::mul_fr(&Q, &P, &I.s[i]);
        T::add(r, r, &Q);
    }
}

#endif
