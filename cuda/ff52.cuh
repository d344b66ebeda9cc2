/*
 * cuda/ff52.cuh: Montgomery products on the FP64 pipe (52-bit limbs).
 *
 * DESIGN: the H200 issues double-precision FMAs at the same rate as 32-bit
 * integer multiply-adds (64 per clock per SM each), but an FMA of two exact
 * 52-bit integers yields the 104-bit product in two FMAs and a subtraction,
 * 2.6 times the bits of a 32 x 32 product's two IMADs, and it runs on a pipe
 * the integer product (cuda/ff.cuh) leaves idle. So a product of two field
 * elements in L = ceil(32 N / 52) limbs of 52 bits:
 *
 *   hi = fma_rz(a, b, 2^104)             = 2^104 + floor(a b / 2^52) 2^52
 *   lo = fma_rz(a, b, 2^104 + 2^52 - hi) = 2^52 + (a b mod 2^52)  (exact)
 *
 * and the bit patterns of hi and lo are the two halves plus a constant (the
 * exponent field): they are summed as 64-bit integers into the columns of
 * the product with no carry between columns (a column holds < 2^57), the
 * constants taken out once, in each column's start value. Montgomery
 * reduction by fp's own R = 2^(32 N), limb by limb (SOS order): Q full steps,
 * column i giving m = (c_i mod 2^52) (-1/p) mod 2^52 (an integer product)
 * and m p going into columns i .. i + L, where the low half of m p_0 is never
 * computed (it only makes column i a multiple of 2^52, so its carry is c_i /
 * 2^52 rounded up); then one step of the remaining RB = 32 N - 52 Q bits
 * (48 for N = 8, 20 for N = 12), whose column keeps its bits above RB; the
 * result is the normalized columns Q.. shifted right by RB, repacked into
 * 32-bit limbs. So mul_r(x, y) = x y / R in [0, 2p) for x < p, y < 2p: a
 * drop-in for fp::mul_noreduce, with fp's bytes in and out.
 *
 * On the host the same code runs with the two FMAs replaced by the exact
 * integer product (same bit patterns), so tests/test_cuda_ff.cu checks the
 * columns, the biases and the reduction in CI without a GPU, and
 * tests/gpu/test_gpu_ff.cu the FMAs on the device.
 *
 * Where it is used: the device products of BLS12-381's Fq in cuda/msm.cu
 * (cuda/ff.cuh CZ_CUDA_FP52, CMake CZ_CUDA_MSM_FP52). Measured on the H200
 * (bench/RESULTS.md, "FP64-pipe field products"): bench/bench_gpu_ff has the
 * FP64 product at 1.13-1.31x the integer one's products per second alone
 * (ALU pipe 60%, FP64 48%: the column sums are 64-bit integer additions).
 * In the MSM, BLS12-381 G1 gains 1-3% (2^24: 150.7 -> 147.2 ms); BN254 G1
 * (inlined 254-bit products, dedicated squaring, merged Y3) lost 14% and
 * both G2 (Fq2) 4-8%, so they keep the integer product; the NTT with its
 * twiddle products moved here lost 7-11% (its butterflies' additions
 * already load the ALU).
 */
#ifndef CZ_CUDA_FF52_CUH
#define CZ_CUDA_FF52_CUH

#include <stdint.h>

#include "cuda/ff.cuh"

namespace cz_dev {

template <class P> struct fp52 {
    static constexpr int N = P::N;               /* 32-bit limbs of fp<P> */
    static constexpr int L = (32 * N + 51) / 52; /* 52-bit limbs */
    static constexpr int Q = (32 * N) / 52;      /* full reduction steps */
    static constexpr int RB = 32 * N - 52 * Q;   /* bits of the last step */
    static constexpr uint64_t MASK = ((uint64_t)1 << 52) - 1;
    static constexpr uint64_t BLO = 0x4330000000000000ull; /* bits of 2^52 */
    static constexpr uint64_t BHI = 0x4670000000000000ull; /* bits of 2^104 */
    static_assert(L * 52 >= 32 * N && L <= 8, "52-bit limbs");
    static_assert(RB > 0 && Q + L <= 2 * L - 1, "a partial last step");

    /* ---- constants ---- */
    CZ_HD static uint64_t p64(int i) /* bits [64 i, 64 i + 64) of p */
    {
        return (2 * i < N ? (uint64_t)P::p(2 * i) : 0) | (2 * i + 1 < N ? (uint64_t)P::p(2 * i + 1) << 32 : 0);
    }
    /* limb i of p in 52 bits, as a double */
    CZ_HD static double pl(int i) { return (double)limb_of(P::p, i); }
    /* -1/p mod 2^52 */
    CZ_HD static uint64_t ninv()
    {
        const uint64_t p0 = p64(0);
        uint64_t x = p0; /* correct to 3 bits: p0 odd, p0 p0 = 1 mod 8 */
        for (int k = 0; k < 5; k++) x *= 2 - p0 * x;
        return (0 - x) & MASK;
    }
    /* bits [52 i, 52 i + 52) of a value given as 32-bit words w(0..N-1) */
    template <class W> CZ_HD static uint64_t limb_of(W word, int i)
    {
        const int b = 52 * i, k = b / 32, o = b % 32;
        uint64_t v = (k < N ? (uint64_t)word(k) : 0) | (k + 1 < N ? (uint64_t)word(k + 1) << 32 : 0);
        v >>= o;
        if (o > 12 && k + 2 < N) v |= (uint64_t)word(k + 2) << (64 - o);
        return v & MASK;
    }
    /* ---- the limb product ---- */
    CZ_HD static double to_d(uint64_t x) /* x < 2^52, exactly */
    {
#ifdef __CUDA_ARCH__
        return __longlong_as_double((long long)(x | BLO)) - 4503599627370496.0;
#else
        return (double)x;
#endif
    }
    /* bit patterns of 2^104 + hi 2^52 and 2^52 + lo, a b = hi 2^52 + lo */
    CZ_HD static void prod(double a, double b, uint64_t &h, uint64_t &l)
    {
#ifdef __CUDA_ARCH__
        const double hd = __fma_rz(a, b, 20282409603651670423947251286016.0); /* 2^104 */
        const double ld = __fma_rz(a, b, 20282409603651674927546878656512.0 - hd); /* 2^104 + 2^52 */
        h = (uint64_t)__double_as_longlong(hd);
        l = (uint64_t)__double_as_longlong(ld);
#else
        const unsigned __int128 t = (unsigned __int128)(uint64_t)a * (uint64_t)b;
        h = BHI + (uint64_t)(t >> 52);
        l = BLO + ((uint64_t)t & MASK);
#endif
    }
    CZ_HD static uint64_t prod_hi(double a, double b)
    {
#ifdef __CUDA_ARCH__
        return (uint64_t)__double_as_longlong(__fma_rz(a, b, 20282409603651670423947251286016.0));
#else
        return BHI + (uint64_t)(((unsigned __int128)(uint64_t)a * (uint64_t)b) >> 52);
#endif
    }

    /* ---- the product ---- */
    /* start value of column k: minus the exponent bits of every term added
     * to it (product: lo at i + j, hi at i + j + 1; full reduction steps i < Q:
     * lo for j >= 1, hi for all j; the last step: both for all j) */
    CZ_HD static uint64_t bias_r(int k)
    {
        uint64_t nlo = 0, nhi = 0;
        for (int i = 0; i < L; i++)
            for (int j = 0; j < L; j++) {
                nlo += (i + j == k);
                nhi += (i + j + 1 == k);
                if (i < Q) {
                    nlo += j >= 1 && i + j == k;
                    nhi += i + j + 1 == k;
                }
            }
        for (int j = 0; j < L; j++) {
            nlo += Q + j == k;
            nhi += Q + j + 1 == k;
        }
        return (uint64_t)0 - (nlo * BLO + nhi * BHI);
    }
    /* x y / R mod p in [0, 2p) for x < p, y < 2p: fp::mul_noreduce's result
     * (a residue, not necessarily the same integer) */
    CZ_HD static fp<P> mul_r(const fp<P> &x, const fp<P> &y)
    {
        double a[L], b[L];
        unpack(x, a);
        unpack(y, b);
        uint64_t c[2 * L];
#pragma unroll
        for (int k = 0; k < 2 * L; k++) c[k] = bias_r(k);
#pragma unroll
        for (int i = 0; i < L; i++)
#pragma unroll
            for (int j = 0; j < L; j++) {
                uint64_t h, l;
                prod(a[i], b[j], h, l);
                c[i + j] += l;
                c[i + j + 1] += h;
            }
        return redc_r(c);
    }
    /* columns i.. += m p, the limb products j >= j0 */
    CZ_HD static void add_mp(uint64_t (&c)[2 * L], int i, double m, int j0)
    {
#pragma unroll
        for (int j = j0; j < L; j++) {
            uint64_t h, l;
            prod(m, pl(j), h, l);
            c[i + j] += l;
            c[i + j + 1] += h;
        }
    }
    /* the reduction by R of mul_r, and the repacking */
    CZ_HD static fp<P> redc_r(uint64_t (&c)[2 * L])
    {
        const uint64_t ni = ninv();
#pragma unroll
        for (int i = 0; i < Q; i++) {
            const uint64_t v = c[i], t = v & MASK;
            const double m = to_d((t * ni) & MASK);
            c[i + 1] += (v >> 52) + (t != 0) + prod_hi(m, pl(0));
            add_mp(c, i, m, 1);
        }
        { /* the RB-bit step: column Q's low RB bits become 0 */
            const uint64_t mb = ((uint64_t)1 << RB) - 1;
            add_mp(c, Q, to_d((c[Q] & mb) * ni & mb), 0);
        }
        constexpr int Z = 2 * L - Q; /* limbs of the shifted result */
        uint64_t z[Z], carry = 0;
#pragma unroll
        for (int k = 0; k < Z; k++) {
            const uint64_t v = c[Q + k] + carry;
            z[k] = k + 1 < Z ? v & MASK : v;
            carry = v >> 52;
        }
        fp<P> r;
#pragma unroll
        for (int w = 0; w < N; w++) {
            const int bit = RB + 32 * w, i = bit / 52, o = bit % 52;
            uint64_t v = z[i] >> o;
            if (o > 20 && i + 1 < Z) v |= z[i + 1] << (52 - o);
            r.l[w] = (uint32_t)v;
        }
        return r;
    }

    /* ---- conversion ---- */
    CZ_HD static void unpack(const fp<P> &x, double (&d)[L])
    {
#pragma unroll
        for (int i = 0; i < L; i++) d[i] = to_d(limb_of([&](int k) { return x.l[k]; }, i));
    }
};

} // namespace cz_dev

#endif
