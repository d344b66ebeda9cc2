/*
 * Multi-limb Montgomery arithmetic, generic in the limb count n (4 or 6).
 *
 * DESIGN: every function takes n as an argument and is static inline, so each
 * field wrapper (ff/fp_tmpl.h) calls it with a constant n and a constant
 * modulus and the compiler unrolls it into straight-line code. Elements are
 * little-endian arrays of 64-bit limbs.
 *
 * Contract for all functions here:
 *   - inputs are fully reduced, in [0, p); outputs are fully reduced.
 *   - outputs may alias inputs.
 *   - the modulus leaves its top bit clear and its top limb below 2^63 - 1
 *     (true for all cuzk fields), which the "no-carry" Montgomery product and
 *     the carry-free addition rely on.
 *
 * The portable C path (unsigned __int128) is always compiled; with
 * CZ_ASM_X86_64 the 4- and 6-limb products use the mulx/adcx/adox code of
 * ff/mont_x86_64.h instead. Exactly one of CZ_ASM_X86_64 / CZ_PORTABLE is set.
 */
#ifndef CZ_FF_MONT_H
#define CZ_FF_MONT_H

#include <stdint.h>
#include <stddef.h>

#if defined(CZ_ASM_X86_64) && defined(CZ_PORTABLE)
#error "define exactly one of CZ_ASM_X86_64 and CZ_PORTABLE"
#elif !defined(CZ_ASM_X86_64) && !defined(CZ_PORTABLE)
#error "define exactly one of CZ_ASM_X86_64 and CZ_PORTABLE (the build system does)"
#endif

#define CZ_MAX_LIMBS 6

#if defined(__GNUC__)
#define CZ_INLINE static inline
#else
#define CZ_INLINE static inline
#endif

typedef unsigned __int128 cz_u128;

/* r = a + b + carry_in, returns carry out. */
CZ_INLINE uint64_t cz_adc(uint64_t *r, uint64_t a, uint64_t b, uint64_t c)
{
    cz_u128 t = (cz_u128)a + b + c;
    *r = (uint64_t)t;
    return (uint64_t)(t >> 64);
}

/* r = a - b - borrow_in, returns borrow out (0 or 1). */
CZ_INLINE uint64_t cz_sbb(uint64_t *r, uint64_t a, uint64_t b, uint64_t c)
{
    cz_u128 t = (cz_u128)a - b - c;
    *r = (uint64_t)t;
    return (uint64_t)(t >> 64) & 1;
}

CZ_INLINE int cz_limbs_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

CZ_INLINE int cz_limbs_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return acc == 0;
}

/* Returns -1, 0, 1 as a <, =, > b (as integers). Not constant time. */
CZ_INLINE int cz_limbs_cmp(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/* r = t - p if t >= p else t, for t < 2p; branch-free select. */
CZ_INLINE void cz_mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *p, int n)
{
    uint64_t d[CZ_MAX_LIMBS];
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) borrow = cz_sbb(&d[i], t[i], p[i], borrow);
    uint64_t keep = (uint64_t)0 - borrow; /* all ones: t < p, keep t */
    for (int i = 0; i < n; i++) r[i] = (t[i] & keep) | (d[i] & ~keep);
}

/* Portable modular addition / subtraction. Written with explicit carries
 * (c = s < a) rather than unsigned __int128: GCC 12 keeps these in registers,
 * while the __int128 form spilled to the stack. */
CZ_INLINE void cz_mont_add_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t t[CZ_MAX_LIMBS], d[CZ_MAX_LIMBS], c = 0, br = 0;
    for (int i = 0; i < n; i++) {
        uint64_t s = a[i] + c, c1 = s < c;
        t[i] = s + b[i];
        c = c1 | (t[i] < s);
    }
    /* a + b < 2p < 2^(64n): no carry out of the top limb */
    for (int i = 0; i < n; i++) {
        uint64_t s = t[i] - p[i], b1 = t[i] < p[i];
        d[i] = s - br;
        br = b1 | (s < br);
    }
    uint64_t keep = (uint64_t)0 - br; /* t < p: keep t */
    for (int i = 0; i < n; i++) r[i] = (t[i] & keep) | (d[i] & ~keep);
}

CZ_INLINE void cz_mont_sub_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, int n)
{
    uint64_t t[CZ_MAX_LIMBS], br = 0, c = 0;
    for (int i = 0; i < n; i++) {
        uint64_t s = a[i] - b[i], b1 = a[i] < b[i];
        t[i] = s - br;
        br = b1 | (s < br);
    }
    uint64_t mask = (uint64_t)0 - br; /* borrow: add p back */
    for (int i = 0; i < n; i++) {
        uint64_t s = t[i] + c, c1 = s < c;
        r[i] = s + (p[i] & mask);
        c = c1 | (r[i] < s);
    }
}

CZ_INLINE void cz_mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    uint64_t nz = (uint64_t)0 - (uint64_t)!cz_limbs_is_zero(a, n);
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t;
        borrow = cz_sbb(&t, p[i], a[i], borrow);
        r[i] = t & nz;
    }
}

/* r = a / 2 mod p */
CZ_INLINE void cz_mont_half(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    uint64_t t[CZ_MAX_LIMBS + 1];
    uint64_t mask = (uint64_t)0 - (a[0] & 1);
    uint64_t c = 0;
    for (int i = 0; i < n; i++) c = cz_adc(&t[i], a[i], p[i] & mask, c);
    t[n] = c;
    for (int i = 0; i < n; i++) r[i] = (t[i] >> 1) | (t[i + 1] << 63);
}

/*
 * Montgomery product r = a*b*2^(-64n) mod p, CIOS with the "no-carry"
 * shortcut (the top limb of p is below 2^63 - 1, so t[n] never overflows).
 * pinv = -p^-1 mod 2^64. Portable: always compiled.
 */
CZ_INLINE void cz_mont_mul_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                             uint64_t pinv, int n)
{
    uint64_t t[CZ_MAX_LIMBS + 1];
    for (int i = 0; i < n; i++) t[i] = 0;
    for (int i = 0; i < n; i++) {
        cz_u128 acc;
        uint64_t c = 0;
        for (int j = 0; j < n; j++) {
            acc = (cz_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        uint64_t hi = c;
        uint64_t m = t[0] * pinv;
        acc = (cz_u128)m * p[0] + t[0];
        c = (uint64_t)(acc >> 64);
        for (int j = 1; j < n; j++) {
            acc = (cz_u128)m * p[j] + t[j] + c;
            t[j - 1] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        t[n - 1] = hi + c;
    }
    cz_mont_reduce_once(r, t, p, n);
}

/*
 * Montgomery square r = a^2 * 2^(-64n) mod p, portable. Each cross product
 * a_i a_j (i < j) is computed once: the 2n-word square is the doubled
 * cross products plus the diagonal a_i^2 (n(n+1)/2 word products instead
 * of n^2), followed by a separate reduction of the 2n words (SOS), whose
 * final carry word stays 0 because the result is < 2p < 2^(64n).
 * Measured (gcc 12, Sapphire Rapids): ~10% faster than the product for 6
 * limbs, no gain for 4 (the doubling pass eats the 6 saved products), so
 * below 6 limbs it is the product with itself; n is constant at each call.
 */
CZ_INLINE void cz_mont_sqr_c(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t pinv, int n)
{
    if (n < 6) {
        cz_mont_mul_c(r, a, a, p, pinv, n);
        return;
    }
    uint64_t t[2 * CZ_MAX_LIMBS];
    cz_u128 acc;
    /* cross products into t[1..2n-2] */
    for (int i = 0; i < 2 * n; i++) t[i] = 0;
    for (int i = 0; i < n - 1; i++) {
        uint64_t c = 0;
        for (int j = i + 1; j < n; j++) {
            acc = (cz_u128)a[i] * a[j] + t[i + j] + c;
            t[i + j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        t[i + n] = c;
    }
    /* double and add the squares: t = 2t + sum a_i^2 2^(128 i) */
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
        cz_u128 sq = (cz_u128)a[i] * a[i];
        uint64_t lo = t[2 * i], hi = t[2 * i + 1];
        acc = ((cz_u128)lo << 1) + (uint64_t)sq + c;
        t[2 * i] = (uint64_t)acc;
        acc = ((cz_u128)hi << 1) + (uint64_t)(sq >> 64) + (uint64_t)(acc >> 64);
        t[2 * i + 1] = (uint64_t)acc;
        c = (uint64_t)(acc >> 64);
    }
    /* reduce: t += m_i p 2^(64 i), word by word; c2 carries past t[i+n] */
    uint64_t c2 = 0;
    for (int i = 0; i < n; i++) {
        uint64_t m = t[i] * pinv;
        c = 0;
        for (int j = 0; j < n; j++) {
            acc = (cz_u128)m * p[j] + t[i + j] + c;
            t[i + j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        acc = (cz_u128)t[i + n] + c + c2;
        t[i + n] = (uint64_t)acc;
        c2 = (uint64_t)(acc >> 64);
    }
    cz_mont_reduce_once(r, t + n, p, n);
}

/* r = a * 2^(-64n) mod p: leaves Montgomery form (a is any value < p). */
CZ_INLINE void cz_mont_redc_c(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t pinv, int n)
{
    uint64_t one[CZ_MAX_LIMBS] = {1};
    cz_mont_mul_c(r, a, one, p, pinv, n);
}

/* Dispatch: with CZ_ASM_X86_64 the 4- and 6-limb products and squares run
 * the mulx/adcx/adox kernels (cz_mont_sqr_6_adx also needs p < 2^382, true
 * of BLS12-381 Fq, the only 6-limb field); other sizes and CZ_PORTABLE
 * builds use the C kernels above. n is a constant at every call site, so
 * the selection folds away. */
#if defined(CZ_ASM_X86_64)
#include "ff/mont_x86_64.h"
#define cz_mont_mul(r, a, b, p, pinv, n)                                                           \
    ((n) == 4 ? cz_mont_mul_4_adx((r), (a), (b), (p), (pinv))                                      \
              : (n) == 6 ? cz_mont_mul_6_adx((r), (a), (b), (p), (pinv))                           \
                         : cz_mont_mul_c((r), (a), (b), (p), (pinv), (n)))
#define cz_mont_sqr(r, a, p, pinv, n)                                                              \
    ((n) == 4 ? cz_mont_sqr_4_adx((r), (a), (p), (pinv))                                           \
              : (n) == 6 ? cz_mont_sqr_6_adx((r), (a), (p), (pinv))                                \
                         : cz_mont_sqr_c((r), (a), (p), (pinv), (n)))
#else
#define cz_mont_mul(r, a, b, p, pinv, n) cz_mont_mul_c((r), (a), (b), (p), (pinv), (n))
#define cz_mont_sqr(r, a, p, pinv, n) cz_mont_sqr_c((r), (a), (p), (pinv), (n))
#endif

/* Addition and subtraction: straight-line carry chains in asm for 4 and 6
 * limbs (3x faster than what the compiler makes of the C), C otherwise. */
#if defined(CZ_ASM_X86_64)
#define cz_mont_add(r, a, b, p, n)                                                                 \
    ((n) == 4 ? cz_mont_add_4_asm((r), (a), (b), (p))                                               \
              : (n) == 6 ? cz_mont_add_6_asm((r), (a), (b), (p)) : cz_mont_add_c((r), (a), (b), (p), (n)))
#define cz_mont_sub(r, a, b, p, n)                                                                 \
    ((n) == 4 ? cz_mont_sub_4_asm((r), (a), (b), (p))                                               \
              : (n) == 6 ? cz_mont_sub_6_asm((r), (a), (b), (p)) : cz_mont_sub_c((r), (a), (b), (p), (n)))
#else
#define cz_mont_add(r, a, b, p, n) cz_mont_add_c((r), (a), (b), (p), (n))
#define cz_mont_sub(r, a, b, p, n) cz_mont_sub_c((r), (a), (b), (p), (n))
#endif

/* ---- lazy reduction: kernels for sums of products reduced once ------------
 *
 * Used only inside the Fq2 product and square below (and tested directly by
 * tests/test_ff.c); their contracts differ from the rest of this file:
 *
 *   cz_mont_add_nr(r, a, b, n): r = a + b as integers, no reduction. With
 *     a, b < p the result is < 2p, which fits n words because every cuzk
 *     field has p < 2^(64n - 2).
 *   cz_mont_mul_wide(t, a, b, n): t[0..2n-1] = a*b as integers (any n-word
 *     a, b). t must not overlap a or b.
 *   cz_mont_redc_wide(r, t, p, pinv, n): r = t / 2^(64n) mod p, r < p, for
 *     any 2n-word t < p 2^(64n).
 *   cz_mont_mul (the CIOS product above) also accepts a, b < 2p, still
 *     returning a fully reduced result, for p < 2^(64n) / 4 (BN254 Fq: p <
 *     2^254, BLS12-381 Fq: p < 2^381; the 6-limb square kernel is not
 *     covered). Proof: let t_i be the window after row i (t_0 = 0). Each row
 *     adds a*b_i < 2p 2^64 and m p < p 2^64 to t_{i-1} and divides by 2^64,
 *     so t_i < t_{i-1}/2^64 + 3p, i.e. t_i < 3p + 1 throughout, and the
 *     window before the division stays < 3p + 3p 2^64 < 2^(64(n+1)): no
 *     carry is lost (the top word takes the sum of both carry chains, which
 *     fits because the total does). The last window equals (a*b + M p) / R
 *     with M < R, so it is < 4p^2/R + p < 2p (as 4p < R), and the final
 *     conditional subtraction of p leaves it below p.
 */
/* Carry-chain steps for the lazy kernels: the x86-64 intrinsics compile to
 * adc/sbb chains in registers (GCC 12 spills the unsigned __int128 forms
 * of cz_adc/cz_sbb to the stack when several chains interleave). */
#if defined(__x86_64__)
#include <immintrin.h>
CZ_INLINE unsigned char cz_addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long t;
    c = _addcarry_u64(c, a, b, &t);
    *r = t;
    return c;
}
CZ_INLINE unsigned char cz_subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long t;
    c = _subborrow_u64(c, a, b, &t);
    *r = t;
    return c;
}
#else
CZ_INLINE unsigned char cz_addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    return (unsigned char)cz_adc(r, a, b, c);
}
CZ_INLINE unsigned char cz_subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    return (unsigned char)cz_sbb(r, a, b, c);
}
#endif

CZ_INLINE void cz_mont_add_nr(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
    unsigned char c = 0;
    for (int i = 0; i < n; i++) c = cz_addc(c, a[i], b[i], &r[i]);
}

CZ_INLINE void cz_mont_mul_wide_c(uint64_t *t, const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = 0; i < 2 * n; i++) t[i] = 0;
    for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        for (int j = 0; j < n; j++) {
            cz_u128 acc = (cz_u128)a[j] * b[i] + t[i + j] + c;
            t[i + j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        t[i + n] = c;
    }
}

/* The low half is reduced word by word (t_lo + M p) / R <= p, then the high
 * half (< p, as t < p R) is added: < 2p, one conditional subtraction. */
CZ_INLINE void cz_mont_redc_wide_c(uint64_t *r, const uint64_t *t, const uint64_t *p, uint64_t pinv, int n)
{
    uint64_t w[CZ_MAX_LIMBS + 1], s[CZ_MAX_LIMBS];
    for (int i = 0; i < n; i++) w[i] = t[i];
    for (int i = 0; i < n; i++) {
        /* w[0..n-1] holds the window; after the row, w[1..n] / 2^64 */
        uint64_t m = w[0] * pinv, c = 0;
        cz_u128 acc = (cz_u128)m * p[0] + w[0];
        c = (uint64_t)(acc >> 64);
        for (int j = 1; j < n; j++) {
            acc = (cz_u128)m * p[j] + w[j] + c;
            w[j - 1] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        w[n - 1] = c;
    }
    uint64_t c = 0;
    for (int i = 0; i < n; i++) c = cz_adc(&s[i], w[i], t[n + i], c);
    cz_mont_reduce_once(r, s, p, n);
}

#if defined(CZ_ASM_X86_64)
#define cz_mont_mul_wide(t, a, b, n)                                                               \
    ((n) == 4 ? cz_mont_mul_wide_4_adx((t), (a), (b))                                              \
              : (n) == 6 ? cz_mont_mul_wide_6_adx((t), (a), (b)) : cz_mont_mul_wide_c((t), (a), (b), (n)))
#define cz_mont_redc_wide(r, t, p, pinv, n)                                                        \
    ((n) == 4 ? cz_mont_redc_wide_4_adx((r), (t), (p), (pinv))                                     \
              : (n) == 6 ? cz_mont_redc_wide_6_adx((r), (t), (p), (pinv))                          \
                         : cz_mont_redc_wide_c((r), (t), (p), (pinv), (n)))
#else
#define cz_mont_mul_wide(t, a, b, n) cz_mont_mul_wide_c((t), (a), (b), (n))
#define cz_mont_redc_wide(r, t, p, pinv, n) cz_mont_redc_wide_c((r), (t), (p), (pinv), (n))
#endif

/*
 * Fq2 = Fq[u]/(u^2 + 1) product, (r0 + r1 u) = (a0 + a1 u)(b0 + b1 u), all
 * fully reduced, outputs may alias inputs. Karatsuba on unreduced
 * double-width products, two reductions in all (instead of three Montgomery
 * products and five modular additions):
 *   T0 = a0 b0, T1 = a1 b1, T2 = (a0 + a1)(b0 + b1)   (sums unreduced, < 2p)
 *   r1 = REDC(T2 - T0 - T1)   (= a0 b1 + a1 b0 < 2p^2 < p R, as 2p < R)
 *   r0 = REDC(T0 - T1 + [T0 < T1] p R)   (in [0, p R): T0, T1 < p^2 < p R)
 * 3 n^2 + 2 n^2 word products against 3 (2 n^2) for three Montgomery
 * products. Needs p < 2^(64n - 1) (the sums fit n words).
 */
CZ_INLINE void cz_mont_fq2_mul(uint64_t *r0, uint64_t *r1, const uint64_t *a0, const uint64_t *a1,
                               const uint64_t *b0, const uint64_t *b1, const uint64_t *p, uint64_t pinv, int n)
{
    uint64_t sa[CZ_MAX_LIMBS], sb[CZ_MAX_LIMBS];
    uint64_t t0[2 * CZ_MAX_LIMBS], t1[2 * CZ_MAX_LIMBS], t2[2 * CZ_MAX_LIMBS];
    cz_mont_add_nr(sa, a0, a1, n);
    cz_mont_add_nr(sb, b0, b1, n);
    cz_mont_mul_wide(t0, a0, b0, n);
    cz_mont_mul_wide(t1, a1, b1, n);
    cz_mont_mul_wide(t2, sa, sb, n);
    unsigned char br = 0;
    for (int i = 0; i < 2 * n; i++) br = cz_subb(br, t2[i], t0[i], &t2[i]);
    br = 0;
    for (int i = 0; i < 2 * n; i++) br = cz_subb(br, t2[i], t1[i], &t2[i]);
    br = 0;
    for (int i = 0; i < 2 * n; i++) br = cz_subb(br, t0[i], t1[i], &t0[i]);
    uint64_t mask = (uint64_t)0 - br;
    unsigned char c = 0;
    for (int i = 0; i < n; i++) c = cz_addc(c, t0[n + i], p[i] & mask, &t0[n + i]);
    cz_mont_redc_wide(r0, t0, p, pinv, n);
    cz_mont_redc_wide(r1, t2, p, pinv, n);
}

/*
 * Fq2 square: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, as two
 * Montgomery products with lazy operands: a0 + a1 (< 2p) times a0 - a1 mod p,
 * and 2 a0 (< 2p) times a1. Needs p < 2^(64n) / 4 (see above).
 */
CZ_INLINE void cz_mont_fq2_sqr(uint64_t *r0, uint64_t *r1, const uint64_t *a0, const uint64_t *a1,
                               const uint64_t *p, uint64_t pinv, int n)
{
    uint64_t s[CZ_MAX_LIMBS], d[CZ_MAX_LIMBS], a2[CZ_MAX_LIMBS];
    cz_mont_add_nr(s, a0, a1, n);
    cz_mont_add_nr(a2, a0, a0, n);
    cz_mont_sub(d, a0, a1, p, n);
    cz_mont_mul(r1, a2, a1, p, pinv, n);
    cz_mont_mul(r0, s, d, p, pinv, n);
}

/* r = 2a mod p */
CZ_INLINE void cz_mont_dbl(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    cz_mont_add(r, a, a, p, n);
}

#endif /* CZ_FF_MONT_H */
