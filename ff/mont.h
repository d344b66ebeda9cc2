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

/* r = 2a mod p */
CZ_INLINE void cz_mont_dbl(uint64_t *r, const uint64_t *a, const uint64_t *p, int n)
{
    cz_mont_add(r, a, a, p, n);
}

#endif /* CZ_FF_MONT_H */
