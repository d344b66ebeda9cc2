/*
 * cuda/ff.cuh: the prime fields and the Fq2 of every curve on the GPU.
 *
 * DESIGN: one template, cz_dev::fp<P>, over a parameter struct P that names
 * the number of 32-bit limbs and the Montgomery constants (made from
 * ff/ff_consts.inc, the numbers of the CPU fields, for every curve of
 * CZ_CURVE_LIST: cz_dev::bn254_fr, cz_dev::bls12_381_fq, ...). Elements are
 * Montgomery residues a R mod p with R = 2^(32 N), fully reduced (< p), in
 * little-endian 32-bit limbs: on a little-endian host the bytes of an fp<P>
 * are exactly the bytes of the CPU type (64-bit limbs, same R), so arrays are
 * copied between host and device without conversion.
 *
 * Every function is __host__ __device__ and written in plain C++ (32 x 32 ->
 * 64-bit products, CIOS): the very same code runs in the kernels and on the
 * host, where tests/test_cuda_ff.cu checks it against the CPU fields on
 * random inputs in every CI run. On the device the compiler turns the 64-bit
 * accumulations into IMAD.WIDE chains (measured ~16.8 G mul/s for 381 bits on
 * the H200, bench/RESULTS.md); in translation units built with CZ_CUDA_PTX
 * (cuda/msm.cu and cuda/ntt.cu, CMake option of the same name, ON by default)
 * the device product is mul_ptx_noreduce below (and the final subtraction), the
 * same CIOS as PTX carry chains, with no change to any caller; there sqr()
 * is a dedicated squaring (sqr_ptx) and mul_sub(a, b, c, d) = a b - c d
 * takes one reduction for the two products (mul_sub_ptx), elsewhere both
 * are the plain products. Lazy forms (mul_lazy, add_lazy, sub_lazy) keep
 * values in [0, 2p) for the NTT's inner levels.
 *
 * In translation units built with CZ_CUDA_FP52 (cuda/msm.cu, CMake option
 * CZ_CUDA_MSM_FP52, OFF by default) the device products of the 381-bit field
 * run on the FP64 pipe instead (cuda/ff52.cuh fp52::mul_r, below).
 *
 * Fq2 = Fq[u] / (u^2 + 1) for both curves (cz_dev::fp2<F>), Karatsuba; on
 * the device with CZ_CUDA_PTX_FQ2 (the default) two sums of two products
 * with one reduction each (F::mul2), else for BN254 with one reduction per
 * coefficient (fp2::mul_merged).
 */
#ifndef CZ_CUDA_FF_CUH
#define CZ_CUDA_FF_CUH

#include <stdint.h>

#include "cuzk/curve.h"
#include "ff/ff_consts.inc"

#ifdef __CUDACC__
#define CZ_HD __host__ __device__ __forceinline__
/* For the larger bodies (an Fq2 product, a point addition): one copy per
 * type, called. Inlining them everywhere multiplies the code a kernel holds
 * (a 381-bit product is ~1,500 instructions) and ptxas's time with it, for
 * a call overhead of a few instructions against thousands. */
#define CZ_HD_CALL __host__ __device__ __noinline__
/* The Fq2 product and squaring: called (CZ_HD_CALL), or, for coordinate
 * fields of at least CZ_CUDA_FQ2_INLINE_MIN_N 32-bit limbs, inlined into
 * the point formulas, whose Fq products stay called (the 381-bit ones:
 * mul_call, mul2_call), so that the Fq2 values stay in registers instead of
 * crossing a call. Static counts of BLS12-381 G2's level-0 kernel (sm_90):
 * called, 6263 instructions with 454 LDL, 144 STL.64 and 192 generic loads;
 * inlined, 7635 with 129 LDL, 74 STL.64 and 144 (more register moves: 1899
 * against 1107). On the H100 (bench/RESULTS.md, 2026-12-06), inlined for
 * both curves: BLS12-381 G2 2^22 2.3% faster, BN254 G2 25% slower; for
 * BLS12-381 only (12): its G2 2^22 1.4% faster with full-width scalars
 * (mostly this wrapper's doing: 0.7% without the inlining) but 5% slower
 * with witness-like ones, which proofs have. The default, 99, inlines none;
 * -DCZ_CUDA_FQ2_INLINE=1 (the earlier switch) inlines all. */
#ifndef CZ_CUDA_FQ2_INLINE_MIN_N
#if defined(CZ_CUDA_FQ2_INLINE) && CZ_CUDA_FQ2_INLINE
#define CZ_CUDA_FQ2_INLINE_MIN_N 0
#else
#define CZ_CUDA_FQ2_INLINE_MIN_N 99
#endif
#endif
#else
#define CZ_HD inline
#define CZ_HD_CALL inline
#ifndef CZ_CUDA_FQ2_INLINE_MIN_N
#define CZ_CUDA_FQ2_INLINE_MIN_N 99
#endif
#endif

#if defined(__CUDACC__) && defined(CZ_CUDA_PTX)
/* With CZ_CUDA_PTX_P1 1, the product of a field with p = 1 mod 2^32
 * (BLS12-381 r: the NTT) takes each row's m = -E_0 and E_0 + m p_0 by
 * additions instead of a multiply by -1/p from constant memory and a
 * multiply-add pair (FMA-pipe instructions of the NTT's pass kernel -6 to
 * -8%, tools/gen_ptx_mul.py; H100: 60.1 -> 64.0 G products/s). 1 by default
 * (CMake option CZ_CUDA_PTX_P1). */
#ifndef CZ_CUDA_PTX_P1
#define CZ_CUDA_PTX_P1 1
#endif
/* the products as PTX blocks, one per field and form (tools/gen_ptx_mul.py) */
#include "cuda/ff_ptx.inc"
/* r = OP(a, b) for the N-limb blocks mont, add, add2, sub, sub2 of field NAME */
#define CZ_DEV_PTX_BIN_(OP, NAME)                                                                                      \
    __device__ __forceinline__ static void ptx_##OP(uint32_t(&r)[N], const uint32_t(&a)[N], const uint32_t(&b)[N])    \
    {                                                                                                                  \
        cz_ptx_##OP##_##NAME(r, a, b);                                                                                 \
    }
#define CZ_DEV_PTX_ROW_(NAME)                                                                                          \
    CZ_DEV_PTX_BIN_(mont, NAME)                                                                                        \
    CZ_DEV_PTX_BIN_(add, NAME)                                                                                         \
    CZ_DEV_PTX_BIN_(add2, NAME)                                                                                        \
    CZ_DEV_PTX_BIN_(sub, NAME)                                                                                         \
    CZ_DEV_PTX_BIN_(sub2, NAME)                                                                                        \
    __device__ __forceinline__ static void ptx_red(uint32_t(&r)[N], const uint32_t(&a)[N]) { cz_ptx_red_##NAME(r, a); } \
    __device__ __forceinline__ static void ptx_mont2(uint32_t(&r)[N], const uint32_t(&a)[N], const uint32_t(&b)[N],    \
                                                     const uint32_t(&c)[N], const uint32_t(&d)[N])                     \
    {                                                                                                                  \
        cz_ptx_mont2_##NAME(r, a, b, c, d);                                                                            \
    }                                                                                                                  \
    __device__ __forceinline__ static void ptx_row(uint32_t *w, const uint32_t(&a)[N], uint32_t b)                     \
    {                                                                                                                  \
        cz_ptx_row_##NAME(w, a, b);                                                                                    \
    }                                                                                                                  \
    __device__ __forceinline__ static void ptx_mulrow(uint32_t *w, const uint32_t(&a)[N], uint32_t b)                  \
    {                                                                                                                  \
        cz_ptx_mulrow_##NAME(w, a, b);                                                                                 \
    }                                                                                                                  \
    __device__ __forceinline__ static void ptx_redrow(uint32_t *w, uint32_t &c) { cz_ptx_redrow_##NAME(w, c); }   \
    __device__ __forceinline__ static void ptx_sqrwide(uint32_t *t, const uint32_t(&a)[N]) { cz_ptx_sqrwide_##NAME(t, a); } \
    __device__ __forceinline__ static void ptx_sqrm(uint32_t(&r)[N], const uint32_t(&a)[N]) { cz_ptx_sqrm_##NAME(r, a); }
#else
#define CZ_DEV_PTX_ROW_(NAME)
#endif

namespace cz_dev {

/* CZ_CUDA_PTX device code. The product (fp::mul_ptx_noreduce): with
 * CZ_CUDA_PTX_MONT 1, one PTX block with even/odd accumulators (ptx_mont:
 * no register moves; 224 sm_90 instructions for a 254-bit product against
 * 360, the NTT's pass kernel 29% shorter), else N row blocks on a sliding
 * window (ptx_row). 1 by default: with CZ_CUDA_PTX_ADD, on the H200
 * (2026-12-05) the NTT 2^24 23% faster, the BN254 G1 MSM 25%, the
 * BLS12-381 G2 MSM 29% than the row blocks (CMake option CZ_CUDA_PTX_MONT;
 * bench/RESULTS.md).
 * The dedicated squaring (fp::sqr_ptx) where CZ_CUDA_PTX_SQR is 1; the
 * merged a b - c d (fp::mul_sub_ptx) for fields of at most
 * CZ_CUDA_MUL_SUB_MAX_N 32-bit limbs. Both are ahead of the row product
 * (2026-12-02 on the H200: the squaring 2.2% for the BLS12-381 G1 MSM and
 * 4.2% for BN254 G1, the merged Y3 another 2.6% for BN254 G1), but they are
 * built from row blocks on sliding windows (mulrow, redrow, sqrwide), with
 * the moves that ptx_mont does not have: a a through ptx_mont is 288
 * instructions against sqr_ptx's 336 (BN254 Fq), a b - c d as two products
 * 568 against 647. So with ptx_mont neither row-based form is used (the
 * merged a b - c d off, CZ_CUDA_MUL_SUB_MAX_N 0; the squaring below), else
 * both are on (CZ_CUDA_PTX_SQR 1, CZ_CUDA_MUL_SUB_MAX_N 8).
 * With ptx_mont, CZ_CUDA_PTX_SQR=1 gives sqr_ptx the mont block's own rows
 * over the square's triangle instead (P::ptx_sqrm, no moves; BLS12-381 Fq
 * 210 wide multiply-adds against the product's 276, sm_90). 1 by default
 * (CMake option CZ_CUDA_PTX_SQR): on the H100 (2026-12-06) the BLS12-381 G1
 * MSM 2^24 1.9% faster, x^2 in BLS12-381 Fq 21% faster than x x
 * (bench/RESULTS.md, "A squaring in the product's own form"). */
#ifndef CZ_CUDA_PTX_MONT
#define CZ_CUDA_PTX_MONT 1
#endif
/* With CZ_CUDA_PTX_ADD 1, the additions, subtractions and the final
 * subtraction of a product (a + b, a - b, their lazy forms against 2p,
 * reduce_once) are PTX blocks too (cz_ptx_add, add2, sub, sub2, red): one
 * carry chain each way and a select, 26 instructions for 8 limbs where the
 * compiler's code of the C loops below takes ~47. 1 by default (CMake
 * option CZ_CUDA_PTX_ADD; measured with CZ_CUDA_PTX_MONT, bench/RESULTS.md). */
#ifndef CZ_CUDA_PTX_ADD
#define CZ_CUDA_PTX_ADD 1
#endif
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX) && CZ_CUDA_PTX_ADD
#define CZ_PTX_ADD_ON 1
#else
#define CZ_PTX_ADD_ON 0
#endif
/* With CZ_CUDA_PTX_FQ2 1, the Fq2 product is two sums of two products, each
 * one PTX block with one reduction (fp::mul2_ptx, cz_ptx_mont2): c0 = a0 b0
 * + a1 (p - b1), c1 = a0 b1 + a1 b0; 4 N^2 + 2 N^2 word products, as many
 * as Karatsuba's three reduced products, without Karatsuba's five additions
 * and subtractions and with the mont block's aligned pairs (no moves). 1 by
 * default (CMake option CZ_CUDA_PTX_FQ2). */
#ifndef CZ_CUDA_PTX_FQ2
#define CZ_CUDA_PTX_FQ2 1
#endif
/* With CZ_CUDA_PTX_MSUB 1, a b - c d (the point formulas' Y3) in Fq is one
 * sum of products with one reduction, a b + c (p - d) (cz_ptx_mont2: 3 N^2
 * word products instead of two products' 4 N^2) where the integer product
 * serves (not with CZ_CUDA_FP52's 381-bit Fq). (In Fq2, each coefficient as
 * one sum of four products was built: the 8 operands spilled, STL 170 ->
 * 462 in BN254 G2's level 0.) 1 by default (CMake option CZ_CUDA_PTX_MSUB). */
#ifndef CZ_CUDA_PTX_MSUB
#define CZ_CUDA_PTX_MSUB 1
#endif
#ifndef CZ_CUDA_PTX_SQR
#define CZ_CUDA_PTX_SQR 1
#endif
#ifndef CZ_CUDA_MUL_SUB_MAX_N
#define CZ_CUDA_MUL_SUB_MAX_N (CZ_CUDA_PTX_MONT ? 0 : 8)
#endif

/* ---- parameters: N 32-bit limbs, p, -p^-1 mod 2^32, R mod p, R^2 mod p ----
 * Two per curve of CZ_CURVE_LIST (SHORT_fq_p, SHORT_fr_p), from
 * ff/ff_consts.inc: the _U32 lists are the CPU field's p, R, R^2 in 32-bit
 * limbs, and -p^-1 mod 2^32 is the low half of -p^-1 mod 2^64. */
#define CZ_DEV_FIELD_P_(NAME, C, NL)                                                                                   \
    struct NAME##_p {                                                                                                  \
        static constexpr int N = 2 * (NL);                                                                             \
        static constexpr uint32_t PINV = (uint32_t)C##_PINV;                                                           \
        CZ_HD static uint32_t p(int i)                                                                                 \
        {                                                                                                              \
            const uint32_t v[N] = C##_P_U32;                                                                           \
            return v[i];                                                                                               \
        }                                                                                                              \
        CZ_HD static uint32_t r(int i)                                                                                 \
        {                                                                                                              \
            const uint32_t v[N] = C##_R_U32;                                                                           \
            return v[i];                                                                                               \
        }                                                                                                              \
        CZ_HD static uint32_t r2(int i)                                                                                \
        {                                                                                                              \
            const uint32_t v[N] = C##_R2_U32;                                                                          \
            return v[i];                                                                                               \
        }                                                                                                              \
        CZ_DEV_PTX_ROW_(NAME)                                                                                          \
    };
#define CZ_DEV_FIELDS_P_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR)                                          \
    CZ_DEV_FIELD_P_(SHORT##_fq, CONST##_FQ, NQ) CZ_DEV_FIELD_P_(SHORT##_fr, CONST##_FR, NR)
CZ_CURVE_LIST(CZ_DEV_FIELDS_P_)
#undef CZ_DEV_FIELDS_P_
#undef CZ_DEV_FIELD_P_

template <class P> struct fp52; /* cuda/ff52.cuh: products on the FP64 pipe */

/* CZ_CUDA_FP52 (device code of the translation units built with it: cuda/msm.cu
 * with the CMake option CZ_CUDA_MSM_FP52): the products and squarings of the
 * fields of at least CZ_CUDA_FP52_MIN_N limbs go through cuda/ff52.cuh
 * (fp52::mul_r, the same results as fp's in [0, 2p)); fp2 keeps the
 * integer product (fp::mul_int), which measured faster there. Measured on
 * the H200 (bench/RESULTS.md): BLS12-381 G1 MSMs 1-3% faster; the 254-bit
 * fields 14% slower (so 12 limbs only). */
#ifndef CZ_CUDA_FP52_MIN_N
#define CZ_CUDA_FP52_MIN_N 12
#endif
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_FP52)
#define CZ_FP52_ON(N) ((N) >= CZ_CUDA_FP52_MIN_N)
#else
#define CZ_FP52_ON(N) false
#endif

/* ---- the prime field ------------------------------------------------------ */
template <class P> struct fp {
    typedef P P_;
    static constexpr int N = P::N;
    static constexpr int DEGREE = 1; /* over the prime field */
    uint32_t l[N];

    CZ_HD static fp zero()
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = 0;
        return r;
    }
    CZ_HD static fp one() /* R mod p */
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = P::r(i);
        return r;
    }
    CZ_HD bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= l[i];
        return acc == 0;
    }
    CZ_HD bool operator==(const fp &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= l[i] ^ b.l[i];
        return acc == 0;
    }
    CZ_HD bool operator!=(const fp &b) const { return !(*this == b); }

    /* r = a - p if a >= p (a < 2p) */
    CZ_HD static void reduce_once(uint32_t a[N])
    {
#if CZ_PTX_ADD_ON
        uint32_t(&w)[N] = *reinterpret_cast<uint32_t(*)[N]>(a);
        uint32_t r[N];
        P::ptx_red(r, w);
#pragma unroll
        for (int i = 0; i < N; i++) a[i] = r[i];
#else
        uint32_t d[N];
        uint64_t br = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)a[i] - P::p(i) - br;
            d[i] = (uint32_t)t;
            br = (t >> 32) & 1;
        }
        /* br = 1: a < p, keep a */
        uint32_t keep = (uint32_t)0 - (uint32_t)br;
#pragma unroll
        for (int i = 0; i < N; i++) a[i] = (a[i] & keep) | (d[i] & ~keep);
#endif
    }

    CZ_HD friend fp operator+(const fp &a, const fp &b)
    {
        /* p < 2^(32N - 1) for all four fields: a + b does not carry out */
        fp r;
#if CZ_PTX_ADD_ON
        P::ptx_add(r.l, a.l, b.l);
#else
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            c += (uint64_t)a.l[i] + b.l[i];
            r.l[i] = (uint32_t)c;
            c >>= 32;
        }
        reduce_once(r.l);
#endif
        return r;
    }
    CZ_HD friend fp operator-(const fp &a, const fp &b) { return sub_add_back<false>(a, b); }
    /* a - b, plus p (TWO_P: 2p) when negative: the carry out of the addition
     * cancels the borrow */
    template <bool TWO_P> CZ_HD static fp sub_add_back(const fp &a, const fp &b)
    {
        fp r;
#if CZ_PTX_ADD_ON
        if constexpr (TWO_P)
            P::ptx_sub2(r.l, a.l, b.l);
        else
            P::ptx_sub(r.l, a.l, b.l);
#else
        uint64_t br = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)a.l[i] - b.l[i] - br;
            r.l[i] = (uint32_t)t;
            br = (t >> 32) & 1;
        }
        const uint32_t mask = (uint32_t)0 - (uint32_t)br;
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            c += (uint64_t)r.l[i] + ((TWO_P ? p2(i) : P::p(i)) & mask);
            r.l[i] = (uint32_t)c;
            c >>= 32;
        }
#endif
        return r;
    }
    CZ_HD fp operator-() const { return zero() - *this; }
    CZ_HD fp dbl() const { return *this + *this; }

    /* Montgomery product a b / R mod p: CIOS over 32-bit limbs. p < 2^(32N-1)
     * keeps the running value below 2p, so one trailing subtraction. The
     * 381-bit product is called, not inlined, on the device (CZ_HD_CALL), its
     * operands by value so that they travel in registers; the 254/255-bit
     * ones (NTT butterflies, BN254 points) are inlined. */
    CZ_HD friend fp operator*(const fp &a, const fp &b)
    {
        if constexpr (N > 8)
            return mul_call(a, b);
        else
            return mul_inline(a, b);
    }
    CZ_HD_CALL static fp mul_call(fp a, fp b) { return mul_inline(a, b); }
    CZ_HD static fp mul_inline(const fp &a, const fp &b)
    {
        fp r = mul_noreduce(a, b);
        reduce_once(r.l);
        return r;
    }
    /* a b on the integer pipe whatever CZ_CUDA_FP52 selects for a * b */
    CZ_HD static fp mul_int(const fp &a, const fp &b)
    {
        if constexpr (!CZ_FP52_ON(N))
            return a * b;
        else
            return mul_int_call(a, b);
    }
    CZ_HD_CALL static fp mul_int_call(fp a, fp b)
    {
        fp r = mul_noreduce_int(a, b);
        reduce_once(r.l);
        return r;
    }
    /* a b / R mod p in [0, 2p) for a < 2p, b < p (the NTT's lazy levels):
     * the CIOS without its final subtraction, b as the whole operand and a
     * limb by limb (mul_noreduce). */
    CZ_HD static fp mul_lazy(const fp &a, const fp &b) { return mul_noreduce(b, a); }
    /* The CIOS, a whole, b limb by limb, without the final subtraction: for
     * a < p and any b < 2p the running value stays below a + p < 2p (each
     * row adds less than (a + p)(2^32 - 1), so N + 1 words hold it) and the
     * result t < a b / R + p < 2p p / R + p < 2p, as 2p < R. (With a < 2p
     * the rows of BLS12-381's r would need N + 2 words: tools/check_ptx_mul.py
     * found the carry lost.) */
    CZ_HD static fp mul_noreduce(const fp &a, const fp &b)
    {
        if constexpr (CZ_FP52_ON(N))
            return fp52<P>::mul_r(a, b);
        else
            return mul_noreduce_int(a, b);
    }
    CZ_HD static fp mul_noreduce_int(const fp &a, const fp &b)
    {
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
        return mul_ptx_noreduce(a, b);
#else
        uint32_t t[N + 1];
#pragma unroll
        for (int i = 0; i < N + 1; i++) t[i] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            /* t += a * b_i */
            uint64_t c = 0;
#pragma unroll
            for (int j = 0; j < N; j++) {
                c += (uint64_t)a.l[j] * b.l[i] + t[j];
                t[j] = (uint32_t)c;
                c >>= 32;
            }
            uint64_t top = (uint64_t)t[N] + c; /* < 2^33 */
            /* t = (t + m p) / 2^32 */
            uint32_t m = t[0] * P::PINV;
            c = ((uint64_t)m * P::p(0) + t[0]) >> 32;
#pragma unroll
            for (int j = 1; j < N; j++) {
                c += (uint64_t)m * P::p(j) + t[j];
                t[j - 1] = (uint32_t)c;
                c >>= 32;
            }
            top += c;
            t[N - 1] = (uint32_t)top;
            t[N] = (uint32_t)(top >> 32);
        }
        fp r;
        /* t < 2p < 2^(32N): t[N] is 0 */
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = t[i];
        return r;
#endif
    }

    /* ---- lazy forms, on values in [0, 2p) (the NTT's shared-memory levels,
     * cuda/ntt.cuh): one conditional step each, as in a + b or a - b, but
     * against 2p, so that a butterfly takes two such steps instead of three
     * (the product's own is dropped: mul_lazy). 2p < 2^(32N) for every field
     * here; a + b < 4p may carry out of the top limb (BLS12-381's r), which
     * the comparison takes into account. ---- */
    CZ_HD static uint32_t p2(int i) /* limb i of 2p */
    {
        return (P::p(i) << 1) | (i > 0 ? P::p(i - 1) >> 31 : 0u);
    }
    CZ_HD static fp add_lazy(const fp &a, const fp &b)
    {
#if CZ_PTX_ADD_ON
        fp r;
        P::ptx_add2(r.l, a.l, b.l);
        return r;
#else
        fp s, d;
        uint64_t c = 0, br = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            c += (uint64_t)a.l[i] + b.l[i];
            s.l[i] = (uint32_t)c;
            c >>= 32;
        }
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)s.l[i] - p2(i) - br;
            d.l[i] = (uint32_t)t;
            br = (t >> 32) & 1;
        }
        /* a + b = s + c 2^(32N) >= 2p unless (no carry and a borrow) */
        const uint32_t keep = (uint32_t)0 - (uint32_t)((c == 0) & (br == 1));
#pragma unroll
        for (int i = 0; i < N; i++) s.l[i] = (s.l[i] & keep) | (d.l[i] & ~keep);
        return s;
#endif
    }
    CZ_HD static fp sub_lazy(const fp &a, const fp &b) { return sub_add_back<true>(a, b); }
    /* [0, 2p) -> [0, p) */
    CZ_HD fp reduced() const
    {
        fp r = *this;
        reduce_once(r.l);
        return r;
    }
    /* a^2: on the device with CZ_CUDA_PTX a dedicated squaring (sqr_ptx),
     * called for the 381-bit field as the product is; elsewhere a a. */
    CZ_HD fp sqr() const
    {
        if constexpr (CZ_FP52_ON(N)) return *this * *this; /* one called body (a second one, a dedicated
                                                            * squaring, measured 7% slower: instruction fetch) */
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX) && CZ_CUDA_PTX_SQR
        if constexpr (N > 8)
            return sqr_call(*this);
        else
            return sqr_ptx(*this);
#else
        return *this * *this;
#endif
    }
    CZ_HD_CALL static fp sqr_call(fp a)
    {
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
        return sqr_ptx(a);
#else
        return a * a;
#endif
    }

    /* a b - c d: on the device with CZ_CUDA_PTX, for fields of at most
     * CZ_CUDA_MUL_SUB_MAX_N limbs, with one reduction (mul_sub_ptx; called
     * for the 381-bit field as the product is); elsewhere two products and a
     * subtraction. The point formulas' Y3. */
    CZ_HD static fp mul_sub(const fp &a, const fp &b, const fp &c, const fp &d)
    {
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
        if constexpr (CZ_CUDA_PTX_MSUB && !CZ_FP52_ON(N))
            return mul2(a, b, c, -d); /* a b + c (p - d): every operand below p */
        else if constexpr (N > CZ_CUDA_MUL_SUB_MAX_N || CZ_FP52_ON(N))
            return a * b - c * d;
        else if constexpr (N > 8)
            return mul_sub_call(a, b, c, d);
        else
            return mul_sub_ptx(a, b, c, d);
#else
        return a * b - c * d;
#endif
    }
    CZ_HD_CALL static fp mul_sub_call(fp a, fp b, fp c, fp d)
    {
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
        return mul_sub_ptx(a, b, c, d);
#else
        return a * b - c * d;
#endif
    }

#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
    /* The same CIOS with PTX carry chains (-DCZ_CUDA_PTX, device only): the
     * whole product is ONE asm block (P::ptx_mont, generated by
     * tools/gen_ptx_mul.py with p in immediates), or each row is one
     * (P::ptx_row, without CZ_CUDA_PTX_MONT): the carry flag lives only
     * inside a block, where nothing can be put between its instructions.
     * (The first version issued each instruction as its own asm statement;
     * the compiler's instructions in between clobbered the flag and 60% of
     * the products were wrong on the H200.) Each product a_j b_i is a lo/hi
     * pair on two words (2k, 2k + 1) of one of two accumulators (even limbs
     * of a in one, odd in the other, the two swapping roles every row), so
     * that sm_90 issues it as one wide multiply-add with carry on an aligned
     * register pair and no register moves. (The row blocks slide a window
     * a word up per row over one 2N-word accumulator: ~160 moves per
     * 254-bit product, more than its multiply-adds.)
     * Checked against the CPU field by tests/gpu/test_gpu_ff.cu in a build
     * with CZ_CUDA_PTX, and the instruction sequence by
     * tools/check_ptx_mul.py (an emulator of these PTX instructions, random
     * and edge operands, every carry checked). */
    __device__ __forceinline__ static fp mul_ptx_noreduce(const fp &a, const fp &b) /* < 2p */
    {
        fp r;
        if constexpr (CZ_CUDA_PTX_MONT) {
            P::ptx_mont(r.l, a.l, b.l);
        } else {
            uint32_t t[2 * N + 1];
#pragma unroll
            for (int i = 0; i < 2 * N + 1; i++) t[i] = 0;
#pragma unroll
            for (int i = 0; i < N; i++) P::ptx_row(t + i, a.l, b.l[i]);
#pragma unroll
            for (int i = 0; i < N; i++) r.l[i] = t[N + i];
        }
        return r;
    }

    /* (a b + c d) / R mod p, below p, for a, b, c, d < p: both products
     * added into the mont block's accumulators before each row's reduction
     * (P::ptx_mont2; the running value stays below 3p, the result below
     * 2 p^2 / R + p < 2p), then the final subtraction. */
    __device__ __forceinline__ static fp mul2_ptx(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        fp r;
        P::ptx_mont2(r.l, a.l, b.l, c.l, d.l);
        reduce_once(r.l);
        return r;
    }
    /* the same, called for the 381-bit field as its product is (one copy
     * for both coefficients of an Fq2 product), inlined for the others */
    __device__ __forceinline__ static fp mul2(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        if constexpr (N > 8)
            return mul2_call(a, b, c, d);
        else
            return mul2_ptx(a, b, c, d);
    }
    __device__ __noinline__ static fp mul2_call(fp a, fp b, fp c, fp d) { return mul2_ptx(a, b, c, d); }

    /* The same work split in two, for products whose reductions are merged
     * (fp2's): t = a b, 2N words, exact for any a, b < 2^(32N); and
     * t / R mod p (< p) for t < p R, t clobbered. */
    __device__ __forceinline__ static void mul_wide_ptx(const uint32_t (&a)[N], const uint32_t (&b)[N], uint32_t *t)
    {
#pragma unroll
        for (int i = 0; i < 2 * N; i++) t[i] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) P::ptx_mulrow(t + i, a, b[i]);
    }
    __device__ __forceinline__ static fp redc_ptx(uint32_t *t)
    {
        uint32_t c = 0;
#pragma unroll
        for (int i = 0; i < N; i++) P::ptx_redrow(t + i, c);
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = t[N + i];
        reduce_once(r.l); /* < 2p */
        return r;
    }

    /* a^2 / R mod p, a < p: with CZ_CUDA_PTX_MONT one P::ptx_sqrm block
     * (the mont rows over the square's triangle, result below 2p), then the
     * final subtraction; else the 2N-word square (P::ptx_sqrwide: the
     * products a_i a_j, i < j, once, doubled, plus the squares a_i^2;
     * N(N + 1)/2 word products instead of N^2), then the N reduction rows
     * (a^2 < p^2 < p R as redc_ptx needs). */
    __device__ __forceinline__ static fp sqr_ptx(const fp &a)
    {
        if constexpr (CZ_CUDA_PTX_MONT) {
            fp r;
            P::ptx_sqrm(r.l, a.l);
            reduce_once(r.l);
            return r;
        } else {
            uint32_t t[2 * N];
#pragma unroll
            for (int i = 0; i < 2 * N; i++) t[i] = 0;
            P::ptx_sqrwide(t, a.l);
            return redc_ptx(t);
        }
    }

    /* (a b - c d) / R mod p with one reduction: a b and c d in full (2N
     * words each, < p^2), their difference in (-p^2, p^2), plus p R when
     * negative (p added to the top N words: the carry out cancels the
     * borrow), so 0 <= T < p R as redc_ptx needs. */
    __device__ __forceinline__ static fp mul_sub_ptx(const fp &a, const fp &b, const fp &c, const fp &d)
    {
        uint32_t t0[2 * N], t1[2 * N];
        mul_wide_ptx(a.l, b.l, t0);
        mul_wide_ptx(c.l, d.l, t1);
        add_pR_if(t0, sub_wide(t0, t1));
        return redc_ptx(t0);
    }

    /* t -= u over 2N words; returns the borrow out (1: t was below u) */
    __device__ __forceinline__ static uint32_t sub_wide(uint32_t *t, const uint32_t *u)
    {
        uint64_t bd = 0;
#pragma unroll
        for (int i = 0; i < 2 * N; i++) {
            uint64_t x = (uint64_t)t[i] - u[i] - bd;
            t[i] = (uint32_t)x;
            bd = (x >> 32) & 1;
        }
        return (uint32_t)bd;
    }

    /* t += p R (p added to the top N of 2N words) when borrow is 1: a
     * negative 2N-word difference made non-negative for redc_ptx (the carry
     * out cancels the borrow) */
    __device__ __forceinline__ static void add_pR_if(uint32_t *t, uint32_t borrow)
    {
        const uint32_t mask = (uint32_t)0 - borrow;
        uint64_t cp = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            cp += (uint64_t)t[N + i] + (P::p(i) & mask);
            t[N + i] = (uint32_t)cp;
            cp >>= 32;
        }
    }
#endif

    /* canonical <-> Montgomery */
    CZ_HD fp to_mont() const /* this holds a canonical value < p */
    {
        fp r2;
#pragma unroll
        for (int i = 0; i < N; i++) r2.l[i] = P::r2(i);
        return *this * r2;
    }
    CZ_HD fp from_mont() const /* returns the canonical value in the limbs */
    {
        fp o = zero();
        o.l[0] = 1;
        return *this * o;
    }

    /* a^e for a little-endian exponent of nw 32-bit words (variable time) */
    CZ_HD fp pow(const uint32_t *e, int nw) const
    {
        fp r = one();
        for (int i = nw * 32 - 1; i >= 0; i--) {
            r = r.sqr();
            if ((e[i >> 5] >> (i & 31)) & 1) r = r * *this;
        }
        return r;
    }
    /* a^(p-2) = 1/a (0 for 0), by fixed 4-bit windows of the exponent
     * (32N squarings and ~8N products, against ~16N products bit by bit);
     * the table of multiples (cuda/msm.cuh table_fn) inverts once per thread */
    CZ_HD fp inv() const
    {
        uint32_t e[N];
        uint64_t br = 2;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t t = (uint64_t)P::p(i) - br;
            e[i] = (uint32_t)t;
            br = (t >> 32) & 1;
        }
        fp t[16];
        t[0] = one();
        t[1] = *this;
        for (int i = 2; i < 16; i++) t[i] = t[i - 1] * *this;
        fp r = one();
        bool started = false;
        for (int i = 8 * N - 1; i >= 0; i--) {
            const uint32_t nib = (e[i >> 3] >> ((i & 7) * 4)) & 15;
            if (started) r = r.sqr().sqr().sqr().sqr();
            if (nib) {
                r = started ? r * t[nib] : t[nib];
                started = true;
            }
        }
        return r;
    }
};

/* SHORT_fq, SHORT_fr per curve */
#define CZ_DEV_FIELDS_(ID, VALUE, SYM, CONST, SHORT, ...) typedef fp<SHORT##_fq_p> SHORT##_fq; typedef fp<SHORT##_fr_p> SHORT##_fr;
CZ_CURVE_LIST(CZ_DEV_FIELDS_)
#undef CZ_DEV_FIELDS_

/* ---- Fq2 = Fq[u] / (u^2 + 1) ----------------------------------------------- */

/* The device Fq2 product with merged reductions (mul_merged) for fields of
 * at most this many 32-bit limbs: measured on the H200 (bench/RESULTS.md,
 * 2026-12-02), the BN254 G2 MSM 4.1% faster with it (9.5% witness-like);
 * the BLS12-381 G2 MSM 13.6% slower (the 381-bit version's 2N-word
 * temporaries, 255 registers in the caller, cost more than the reduction it
 * saves), so 8. -DCZ_CUDA_FQ2_MERGED_MAX_N=12 gives it to both, to compare. */
#ifndef CZ_CUDA_FQ2_MERGED_MAX_N
#define CZ_CUDA_FQ2_MERGED_MAX_N 8
#endif
template <class F> struct fp2 {
    static constexpr int DEGREE = 2;
    F c0, c1;

    CZ_HD static fp2 zero() { return fp2{F::zero(), F::zero()}; }
    CZ_HD static fp2 one() { return fp2{F::one(), F::zero()}; }
    CZ_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CZ_HD bool operator==(const fp2 &b) const { return c0 == b.c0 && c1 == b.c1; }
    CZ_HD bool operator!=(const fp2 &b) const { return !(*this == b); }
    CZ_HD friend fp2 operator+(const fp2 &a, const fp2 &b) { return fp2{a.c0 + b.c0, a.c1 + b.c1}; }
    CZ_HD friend fp2 operator-(const fp2 &a, const fp2 &b) { return fp2{a.c0 - b.c0, a.c1 - b.c1}; }
    CZ_HD fp2 operator-() const { return fp2{-c0, -c1}; }
    CZ_HD fp2 dbl() const { return fp2{c0.dbl(), c1.dbl()}; }
    /* called or inlined per field (CZ_CUDA_FQ2_INLINE_MIN_N) */
    static constexpr bool INLINE = F::N >= CZ_CUDA_FQ2_INLINE_MIN_N;
    CZ_HD friend fp2 operator*(const fp2 &a, const fp2 &b)
    {
        if constexpr (INLINE)
            return mul_(a, b);
        else
            return mul_call(a, b);
    }
    CZ_HD_CALL static fp2 mul_call(fp2 a, fp2 b) { return mul_(a, b); } /* by value: registers, not addresses */
    /* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
    CZ_HD static fp2 mul_(const fp2 &a, const fp2 &b)
    {
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
        if constexpr (CZ_CUDA_PTX_FQ2) /* a0 b0 - a1 b1 = a0 b0 + a1 (p - b1): every operand below p */
            return fp2{F::mul2(a.c0, b.c0, a.c1, -b.c1), F::mul2(a.c0, b.c1, a.c1, b.c0)};
        else if constexpr (F::N <= CZ_CUDA_FQ2_MERGED_MAX_N)
            return mul_merged(a, b);
        else
#endif
        {
            F t0 = F::mul_int(a.c0, b.c0), t1 = F::mul_int(a.c1, b.c1);
            F s = F::mul_int(a.c0 + a.c1, b.c0 + b.c1);
            return fp2{t0 - t1, s - t0 - t1};
        }
    }
#if defined(__CUDA_ARCH__) && defined(CZ_CUDA_PTX)
    /*
     * The same with two reductions instead of three: the three products
     * are formed in full (2N words), combined, and each coefficient reduced
     * once. c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0 exactly,
     * with the sums left unreduced (< 2p < 2^(32N): p < 2^(32N - 1) for
     * every field here), so c1 < 2p^2 < p R. c0 = a0 b0 - a1 b1 in
     * (-p^2, p^2), plus p R when negative (p added to the top N words: the
     * carry out cancels the borrow), so 0 <= c0 < p R. Both are what
     * redc_ptx takes. 3 N^2 + 2 N^2 word products instead of 3 (2 N^2).
     */
    __device__ __forceinline__ static fp2 mul_merged(const fp2 &a, const fp2 &b)
    {
        constexpr int N = F::N;
        /* in an order that keeps few words live: t1 = a0 b0 + a1 b1 (no carry
         * out: < 2p^2), t0 = a0 b0 - a1 b1, c0 reduced; then the sum product */
        uint32_t t0[2 * N], t1[2 * N];
        F::mul_wide_ptx(a.c0.l, b.c0.l, t0);
        F::mul_wide_ptx(a.c1.l, b.c1.l, t1);
        uint64_t cu = 0, bd = 0;
#pragma unroll
        for (int i = 0; i < 2 * N; i++) {
            uint64_t u = (uint64_t)t0[i] + t1[i] + cu, d = (uint64_t)t0[i] - t1[i] - bd;
            t1[i] = (uint32_t)u;
            cu = u >> 32;
            t0[i] = (uint32_t)d;
            bd = (d >> 32) & 1;
        }
        F::add_pR_if(t0, (uint32_t)bd); /* c0 < 0: + p R */
        const F c0 = F::redc_ptx(t0);
        uint32_t sa[N], sb[N], s[2 * N];
        uint64_t ca = 0, cb = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            ca += (uint64_t)a.c0.l[i] + a.c1.l[i];
            cb += (uint64_t)b.c0.l[i] + b.c1.l[i];
            sa[i] = (uint32_t)ca;
            sb[i] = (uint32_t)cb;
            ca >>= 32;
            cb >>= 32;
        }
        F::mul_wide_ptx(sa, sb, s);
        /* c1 = s - (a0 b0 + a1 b1) = a0 b1 + a1 b0 >= 0 */
        (void)F::sub_wide(s, t1); /* no borrow: the difference is >= 0 */
        return fp2{c0, F::redc_ptx(s)};
    }
#endif
    /* a b - c d (the point formulas' Y3; fp's merges the reductions) */
    CZ_HD static fp2 mul_sub(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) { return a * b - c * d; }
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    CZ_HD fp2 sqr() const
    {
        if constexpr (INLINE)
            return sqr_(*this);
        else
            return sqr_call(*this);
    }
    CZ_HD_CALL static fp2 sqr_call(fp2 a) { return sqr_(a); }
    CZ_HD static fp2 sqr_(const fp2 &a)
    {
        F m = F::mul_int(a.c0, a.c1);
        return fp2{F::mul_int(a.c0 + a.c1, a.c0 - a.c1), m.dbl()};
    }
    /* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    CZ_HD fp2 inv() const
    {
        F d = (c0.sqr() + c1.sqr()).inv();
        return fp2{c0 * d, -(c1 * d)};
    }
};

/* SHORT_fq2 per curve */
#define CZ_DEV_FQ2_(ID, VALUE, SYM, CONST, SHORT, ...) typedef fp2<SHORT##_fq> SHORT##_fq2;
CZ_CURVE_LIST(CZ_DEV_FQ2_)
#undef CZ_DEV_FQ2_

} // namespace cz_dev

#include "cuda/ff52.cuh"

#endif
