/*
 * x86-64 Montgomery products for 4 limbs (BN254 Fq/Fr, BLS12-381 Fr) and 6
 * limbs (BLS12-381 Fq), with mulx/adcx/adox (BMI2 + ADX) in GCC/Clang
 * inline asm. Included by ff/mont.h when CZ_ASM_X86_64 is defined.
 *
 * DESIGN: mulx multiplies without touching the flags, and adcx/adox add
 * with carry through CF resp. OF only, so one row of partial products runs
 * as two independent carry chains (low halves on CF, high halves on OF)
 * and the core keeps two additions in flight per cycle next to the
 * multiplier. All loops are unrolled; each row's accumulator registers are
 * renamed instead of moved (the "window" of n+1 words rotates through the
 * same n+1 registers, named T0..Tn by the row macros). The compiler
 * allocates the registers (13 at most, so a frame pointer may stay
 * reserved); rdx is the implicit mulx operand.
 *
 *   mul (CIOS, "no-carry"): for each word b_i, t += a*b_i; m = t_0*pinv;
 *     t = (t + m*p) / 2^64. With p's top limb below 2^63 - 1 the window
 *     never needs an (n+2)-th word and t < 2p after every row; one
 *     branch-free conditional subtraction (sub/sbb + cmovc) at the end.
 *     2n^2 mulx + n imul (for m): 32 + 4 (n=4), 72 + 6 (n=6).
 *   sqr, n = 4: the 8-word square from its 6 off-diagonal products,
 *     doubled and the 4 diagonal squares added in one adcx/adox pass, then
 *     4 reduction rows over the low half only and the high half added at
 *     the end: REDC(T) = (T_lo + M*p)/R + T_hi < p + p. 26 mulx + 4 imul.
 *   sqr, n = 6 (not enough registers for a 12-word square): CIOS where row
 *     i multiplies a_i by (a_i, 2a_{i+1}, 2a_{i+2}, ...) placed at relative
 *     words i..n-1, i.e. each cross product once, pre-doubled. The doubled
 *     words come from a small table on the stack: (a_{i+1} << 1) for the
 *     first (no bit from a_i) and the words of 2a after it. Row i has
 *     n - i products: 21 + 36 mulx + 6 imul. Between rows t < 2a + p < 3p,
 *     which fits 6 words because p < 2^384 / 3 (BLS12-381: 381 bits).
 *
 * Speed: a chain of dependent products is bound by the m chain of CIOS
 * (imul, mulx, two additions: ~10 cycles a row, ~60 cycles for n = 4);
 * independent products by the multiplier port (one mulx a cycle), where
 * these kernels reach ~47 (n = 4) and ~100 (n = 6) cycles a product. See
 * bench/RESULTS.md (bench_ff) for measured figures against the C kernels.
 *
 * Contract (as ff/mont.h): a, b < p; the result is < p; r may alias a or
 * b (the asm reads all inputs before the result is stored); pinv = -p^-1
 * mod 2^64; p's top limb < 2^63 - 1; for cz_mont_sqr_6_adx also p < 2^382.
 * Needs a CPU with BMI2 and ADX (Intel Broadwell+, AMD Zen+); the build
 * only selects this path for x86-64 hosts that have both.
 */
#ifndef CZ_FF_MONT_X86_64_H
#define CZ_FF_MONT_X86_64_H

#include <stdint.h>

#if !defined(__x86_64__)
#error "ff/mont_x86_64.h needs an x86-64 target (configure with -DCZ_PORTABLE=ON elsewhere)"
#endif

/* Operand references by name: CZ_X_(t3) is "%[t3]", CZ_XK_(t3) its 32-bit
 * register name (for the flag-clearing xorl). */
#define CZ_X_(r) "%[" #r "]"
#define CZ_XK_(r) "%k[" #r "]"

/* rdx * SRC: low half added into TL on the CF chain, high half into TH on
 * the OF chain. */
#define CZ_MAC_(SRC, TL, TH)                                                                       \
    "mulxq " SRC ", %[lo], %[hi]\n\t"                                                              \
    "adcxq %[lo], " CZ_X_(TL) "\n\t"                                                               \
    "adoxq %[hi], " CZ_X_(TH) "\n\t"

/* ---- 4 limbs ------------------------------------------------------------ */

/* T0..T4 = a * b_0 (the first row: the window starts empty). a_0 and a_1
 * come in registers (%[a0], %[a1]): the first product of a row feeds the
 * next m, and two registers are all that is left; it saves ~5% latency. */
#define CZ_M4_ROW0_(T0, T1, T2, T3, T4)                                                            \
    "movq (%[b]), %%rdx\n\t"                                                                       \
    "mulxq %[a0], " CZ_X_(T0) ", " CZ_X_(T1) "\n\t"                                                \
    "mulxq %[a1], %[lo], " CZ_X_(T2) "\n\t"                                                       \
    "addq %[lo], " CZ_X_(T1) "\n\t"                                                                \
    "mulxq 16(%[a]), %[lo], " CZ_X_(T3) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T2) "\n\t"                                                                \
    "mulxq 24(%[a]), %[lo], " CZ_X_(T4) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T3) "\n\t"                                                                \
    "adcq $0, " CZ_X_(T4) "\n\t"

/* T0..T4 += a * b_i, T4 a fresh register (zeroed here; the xorl also
 * clears CF and OF). The top word takes both final carries. */
#define CZ_M4_ROW_(OFF, T0, T1, T2, T3, T4)                                                        \
    "movq " #OFF "(%[b]), %%rdx\n\t"                                                               \
    "xorl " CZ_XK_(T4) ", " CZ_XK_(T4) "\n\t"                                                      \
    CZ_MAC_("%[a0]", T0, T1)                                                                       \
    CZ_MAC_("%[a1]", T1, T2)                                                                       \
    CZ_MAC_("16(%[a])", T2, T3)                                                                    \
    CZ_MAC_("24(%[a])", T3, T4)                                                                    \
    "adcq $0, " CZ_X_(T4) "\n\t"

/* m = T0 * pinv; T0..T4 += m * p (T0 becomes 0: the value moves to T1..T4) */
#define CZ_M4_RED_(T0, T1, T2, T3, T4)                                                             \
    "movq " CZ_X_(T0) ", %%rdx\n\t"                                                                \
    "imulq %[pinv], %%rdx\n\t"                                                                     \
    "xorl %k[lo], %k[lo]\n\t"                                                                      \
    CZ_MAC_("(%[p])", T0, T1)                                                                      \
    CZ_MAC_("8(%[p])", T1, T2)                                                                     \
    CZ_MAC_("16(%[p])", T2, T3)                                                                    \
    CZ_MAC_("24(%[p])", T3, T4)                                                                    \
    "adcq $0, " CZ_X_(T4) "\n\t"

/* As CZ_M4_RED_ for a window whose top word T4 starts at zero (squaring:
 * the high half of the square is added afterwards). */
#define CZ_S4_RED_(T0, T1, T2, T3, T4)                                                             \
    "movq " CZ_X_(T0) ", %%rdx\n\t"                                                                \
    "imulq %[pinv], %%rdx\n\t"                                                                     \
    "xorl " CZ_XK_(T4) ", " CZ_XK_(T4) "\n\t"                                                      \
    CZ_MAC_("(%[p])", T0, T1)                                                                      \
    CZ_MAC_("8(%[p])", T1, T2)                                                                     \
    CZ_MAC_("16(%[p])", T2, T3)                                                                    \
    CZ_MAC_("24(%[p])", T3, T4)                                                                    \
    "adcq $0, " CZ_X_(T4) "\n\t"

/* (lo, hi, rdx, U3) = T0..T3 < 2p reduced below p: subtract p, and keep T
 * where that borrowed. */
#define CZ_M4_FINAL_(T0, T1, T2, T3, U3)                                                           \
    "movq " CZ_X_(T0) ", %[lo]\n\t"                                                                \
    "subq (%[p]), %[lo]\n\t"                                                                       \
    "movq " CZ_X_(T1) ", %[hi]\n\t"                                                                \
    "sbbq 8(%[p]), %[hi]\n\t"                                                                      \
    "movq " CZ_X_(T2) ", %%rdx\n\t"                                                                \
    "sbbq 16(%[p]), %%rdx\n\t"                                                                     \
    "movq " CZ_X_(T3) ", " CZ_X_(U3) "\n\t"                                                        \
    "sbbq 24(%[p]), " CZ_X_(U3) "\n\t"                                                             \
    "cmovcq " CZ_X_(T0) ", %[lo]\n\t"                                                              \
    "cmovcq " CZ_X_(T1) ", %[hi]\n\t"                                                              \
    "cmovcq " CZ_X_(T2) ", %%rdx\n\t"                                                              \
    "cmovcq " CZ_X_(T3) ", " CZ_X_(U3) "\n\t"

/* r = a*b / 2^256 mod p */
static inline void cz_mont_mul_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                     const uint64_t p[4], uint64_t pinv)
{
    uint64_t t0, t1, t2, t3, t4, lo, hi, dx;
    const uint64_t a0 = a[0], a1 = a[1];
    __asm__(CZ_M4_ROW0_(t0, t1, t2, t3, t4)
            CZ_M4_RED_(t0, t1, t2, t3, t4)
            CZ_M4_ROW_(8, t1, t2, t3, t4, t0)
            CZ_M4_RED_(t1, t2, t3, t4, t0)
            CZ_M4_ROW_(16, t2, t3, t4, t0, t1)
            CZ_M4_RED_(t2, t3, t4, t0, t1)
            CZ_M4_ROW_(24, t3, t4, t0, t1, t2)
            CZ_M4_RED_(t3, t4, t0, t1, t2)
            CZ_M4_FINAL_(t4, t0, t1, t2, t3)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx)
            : [a0] "r"(a0), [a1] "r"(a1), [a] "r"(a), [b] "r"(b), [p] "r"(p), [pinv] "rm"(pinv)
            : "cc", "memory");
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = t3;
}

/* r = a^2 / 2^256 mod p */
static inline void cz_mont_sqr_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t p[4], uint64_t pinv)
{
    uint64_t w0, w1, w2, w3, w4, w5, w6, w7, lo, hi, dx;
    const uint64_t *ap = a; /* its register is reused as a window word */
    __asm__(/* off-diagonal products a_i a_j (i < j) into w1..w6 */
            "movq (%[a]), %%rdx\n\t"
            "mulxq 8(%[a]), %[w1], %[w2]\n\t"
            "mulxq 16(%[a]), %[lo], %[w3]\n\t"
            "addq %[lo], %[w2]\n\t"
            "mulxq 24(%[a]), %[lo], %[w4]\n\t"
            "adcq %[lo], %[w3]\n\t"
            "adcq $0, %[w4]\n\t"
            "movq 8(%[a]), %%rdx\n\t"
            "xorl %k[w5], %k[w5]\n\t"
            CZ_MAC_("16(%[a])", w3, w4)
            CZ_MAC_("24(%[a])", w4, w5)
            "adcq $0, %[w5]\n\t"
            "movq 16(%[a]), %%rdx\n\t"
            "mulxq 24(%[a]), %[lo], %[w6]\n\t"
            "addq %[lo], %[w5]\n\t"
            "adcq $0, %[w6]\n\t"
            /* double them (CF chain) and add the squares a_i^2 (OF chain) */
            "movq (%[a]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq %%rdx, %[w0], %[hi]\n\t"
            "adcxq %[w1], %[w1]\n\t"
            "adoxq %[hi], %[w1]\n\t"
            "movq 8(%[a]), %%rdx\n\t"
            "mulxq %%rdx, %[lo], %[hi]\n\t"
            "adcxq %[w2], %[w2]\n\t"
            "adoxq %[lo], %[w2]\n\t"
            "adcxq %[w3], %[w3]\n\t"
            "adoxq %[hi], %[w3]\n\t"
            "movq 16(%[a]), %%rdx\n\t"
            "mulxq %%rdx, %[lo], %[hi]\n\t"
            "adcxq %[w4], %[w4]\n\t"
            "adoxq %[lo], %[w4]\n\t"
            "adcxq %[w5], %[w5]\n\t"
            "adoxq %[hi], %[w5]\n\t"
            "movq 24(%[a]), %%rdx\n\t"
            "mulxq %%rdx, %[lo], %[w7]\n\t"
            "adcxq %[w6], %[w6]\n\t"
            "adoxq %[lo], %[w6]\n\t"
            "movl $0, %k[lo]\n\t" /* movl leaves the flags alone */
            "adcxq %[lo], %[w7]\n\t"
            "adoxq %[lo], %[w7]\n\t"
            /* reduce the low half w0..w3 (window top: the free a register) */
            CZ_S4_RED_(w0, w1, w2, w3, a)
            CZ_S4_RED_(w1, w2, w3, a, w0)
            CZ_S4_RED_(w2, w3, a, w0, w1)
            CZ_S4_RED_(w3, a, w0, w1, w2)
            /* + high half w4..w7; the sum is < 2p */
            "addq %[w4], %[a]\n\t"
            "adcq %[w5], %[w0]\n\t"
            "adcq %[w6], %[w1]\n\t"
            "adcq %[w7], %[w2]\n\t"
            CZ_M4_FINAL_(a, w0, w1, w2, w3)
            : [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w4] "=&r"(w4),
              [w5] "=&r"(w5), [w6] "=&r"(w6), [w7] "=&r"(w7), [lo] "=&r"(lo), [hi] "=&r"(hi),
              "=&d"(dx), [a] "+&r"(ap)
            : [p] "r"(p), [pinv] "rm"(pinv)
            : "cc", "memory");
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = w3;
}

/* ---- 6 limbs ------------------------------------------------------------ */

#define CZ_M6_ROW0_(T0, T1, T2, T3, T4, T5, T6)                                                    \
    "movq (%[b]), %%rdx\n\t"                                                                       \
    "mulxq (%[a]), " CZ_X_(T0) ", " CZ_X_(T1) "\n\t"                                               \
    "mulxq 8(%[a]), %[lo], " CZ_X_(T2) "\n\t"                                                      \
    "addq %[lo], " CZ_X_(T1) "\n\t"                                                                \
    "mulxq 16(%[a]), %[lo], " CZ_X_(T3) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T2) "\n\t"                                                                \
    "mulxq 24(%[a]), %[lo], " CZ_X_(T4) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T3) "\n\t"                                                                \
    "mulxq 32(%[a]), %[lo], " CZ_X_(T5) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T4) "\n\t"                                                                \
    "mulxq 40(%[a]), %[lo], " CZ_X_(T6) "\n\t"                                                     \
    "adcq %[lo], " CZ_X_(T5) "\n\t"                                                                \
    "adcq $0, " CZ_X_(T6) "\n\t"

#define CZ_M6_ROW_(OFF, T0, T1, T2, T3, T4, T5, T6)                                                \
    "movq " #OFF "(%[b]), %%rdx\n\t"                                                               \
    "xorl " CZ_XK_(T6) ", " CZ_XK_(T6) "\n\t"                                                      \
    CZ_MAC_("(%[a])", T0, T1)                                                                      \
    CZ_MAC_("8(%[a])", T1, T2)                                                                     \
    CZ_MAC_("16(%[a])", T2, T3)                                                                    \
    CZ_MAC_("24(%[a])", T3, T4)                                                                    \
    CZ_MAC_("32(%[a])", T4, T5)                                                                    \
    CZ_MAC_("40(%[a])", T5, T6)                                                                    \
    "adcq $0, " CZ_X_(T6) "\n\t"

#define CZ_M6_RED_(T0, T1, T2, T3, T4, T5, T6)                                                     \
    "movq " CZ_X_(T0) ", %%rdx\n\t"                                                                \
    "imulq %[pinv], %%rdx\n\t"                                                                     \
    "xorl %k[lo], %k[lo]\n\t"                                                                      \
    CZ_MAC_("(%[p])", T0, T1)                                                                      \
    CZ_MAC_("8(%[p])", T1, T2)                                                                     \
    CZ_MAC_("16(%[p])", T2, T3)                                                                    \
    CZ_MAC_("24(%[p])", T3, T4)                                                                    \
    CZ_MAC_("32(%[p])", T4, T5)                                                                    \
    CZ_MAC_("40(%[p])", T5, T6)                                                                    \
    "adcq $0, " CZ_X_(T6) "\n\t"

/* (lo, hi, rdx, U3, U4, U5) = T0..T5 < 2p reduced below p */
#define CZ_M6_FINAL_(T0, T1, T2, T3, T4, T5, U3, U4, U5)                                           \
    "movq " CZ_X_(T0) ", %[lo]\n\t"                                                                \
    "subq (%[p]), %[lo]\n\t"                                                                       \
    "movq " CZ_X_(T1) ", %[hi]\n\t"                                                                \
    "sbbq 8(%[p]), %[hi]\n\t"                                                                      \
    "movq " CZ_X_(T2) ", %%rdx\n\t"                                                                \
    "sbbq 16(%[p]), %%rdx\n\t"                                                                     \
    "movq " CZ_X_(T3) ", " CZ_X_(U3) "\n\t"                                                        \
    "sbbq 24(%[p]), " CZ_X_(U3) "\n\t"                                                             \
    "movq " CZ_X_(T4) ", " CZ_X_(U4) "\n\t"                                                        \
    "sbbq 32(%[p]), " CZ_X_(U4) "\n\t"                                                             \
    "movq " CZ_X_(T5) ", " CZ_X_(U5) "\n\t"                                                        \
    "sbbq 40(%[p]), " CZ_X_(U5) "\n\t"                                                             \
    "cmovcq " CZ_X_(T0) ", %[lo]\n\t"                                                              \
    "cmovcq " CZ_X_(T1) ", %[hi]\n\t"                                                              \
    "cmovcq " CZ_X_(T2) ", %%rdx\n\t"                                                              \
    "cmovcq " CZ_X_(T3) ", " CZ_X_(U3) "\n\t"                                                      \
    "cmovcq " CZ_X_(T4) ", " CZ_X_(U4) "\n\t"                                                      \
    "cmovcq " CZ_X_(T5) ", " CZ_X_(U5) "\n\t"

/* r = a*b / 2^384 mod p */
static inline void cz_mont_mul_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                                     const uint64_t p[6], uint64_t pinv)
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
    const uint64_t *ap = a, *bp = b; /* their registers hold result words at the end */
    __asm__(CZ_M6_ROW0_(t0, t1, t2, t3, t4, t5, t6)
            CZ_M6_RED_(t0, t1, t2, t3, t4, t5, t6)
            CZ_M6_ROW_(8, t1, t2, t3, t4, t5, t6, t0)
            CZ_M6_RED_(t1, t2, t3, t4, t5, t6, t0)
            CZ_M6_ROW_(16, t2, t3, t4, t5, t6, t0, t1)
            CZ_M6_RED_(t2, t3, t4, t5, t6, t0, t1)
            CZ_M6_ROW_(24, t3, t4, t5, t6, t0, t1, t2)
            CZ_M6_RED_(t3, t4, t5, t6, t0, t1, t2)
            CZ_M6_ROW_(32, t4, t5, t6, t0, t1, t2, t3)
            CZ_M6_RED_(t4, t5, t6, t0, t1, t2, t3)
            CZ_M6_ROW_(40, t5, t6, t0, t1, t2, t3, t4)
            CZ_M6_RED_(t5, t6, t0, t1, t2, t3, t4)
            CZ_M6_FINAL_(t6, t0, t1, t2, t3, t4, t5, a, b)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [a] "+&r"(ap), [b] "+&r"(bp)
            : [p] "r"(p), [pinv] "rm"(pinv)
            : "cc", "memory");
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = t5;
    r[4] = (uint64_t)(uintptr_t)ap;
    r[5] = (uint64_t)(uintptr_t)bp;
}

/* r = a^2 / 2^384 mod p (needs p < 2^382, see the DESIGN note) */
static inline void cz_mont_sqr_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t p[6], uint64_t pinv)
{
    /* dd[j-1] = a_j << 1 (j = 1..5): the first multiplicand after a_i in
     * row i = j-1; dd[3+j] = word j of 2a (j = 2..5): the rest of the row */
    uint64_t dd[9];
    for (int j = 1; j < 6; j++) dd[j - 1] = a[j] << 1;
    for (int j = 2; j < 6; j++) dd[3 + j] = (a[j] << 1) | (a[j - 1] >> 63);
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
    const uint64_t *ap = a, *dp = dd;
    __asm__(/* row 0: a0 * (a0, 2a1, 2a2.., 2a5), window empty */
            "movq (%[a]), %%rdx\n\t"
            "mulxq (%[a]), %[t0], %[t1]\n\t"
            "mulxq (%[d]), %[lo], %[t2]\n\t"
            "addq %[lo], %[t1]\n\t"
            "mulxq 40(%[d]), %[lo], %[t3]\n\t"
            "adcq %[lo], %[t2]\n\t"
            "mulxq 48(%[d]), %[lo], %[t4]\n\t"
            "adcq %[lo], %[t3]\n\t"
            "mulxq 56(%[d]), %[lo], %[t5]\n\t"
            "adcq %[lo], %[t4]\n\t"
            "mulxq 64(%[d]), %[lo], %[t6]\n\t"
            "adcq %[lo], %[t5]\n\t"
            "adcq $0, %[t6]\n\t"
            CZ_M6_RED_(t0, t1, t2, t3, t4, t5, t6)
            /* row 1: a1 * (a1, 2a2, 2a3, 2a4, 2a5) at relative words 1..5 */
            "movq 8(%[a]), %%rdx\n\t"
            "xorl %k[t0], %k[t0]\n\t"
            CZ_MAC_("8(%[a])", t2, t3)
            CZ_MAC_("8(%[d])", t3, t4)
            CZ_MAC_("48(%[d])", t4, t5)
            CZ_MAC_("56(%[d])", t5, t6)
            CZ_MAC_("64(%[d])", t6, t0)
            "adcq $0, %[t0]\n\t"
            CZ_M6_RED_(t1, t2, t3, t4, t5, t6, t0)
            /* row 2: a2 * (a2, 2a3, 2a4, 2a5) at relative words 2..5 */
            "movq 16(%[a]), %%rdx\n\t"
            "xorl %k[t1], %k[t1]\n\t"
            CZ_MAC_("16(%[a])", t4, t5)
            CZ_MAC_("16(%[d])", t5, t6)
            CZ_MAC_("56(%[d])", t6, t0)
            CZ_MAC_("64(%[d])", t0, t1)
            "adcq $0, %[t1]\n\t"
            CZ_M6_RED_(t2, t3, t4, t5, t6, t0, t1)
            /* row 3: a3 * (a3, 2a4, 2a5) at relative words 3..5 */
            "movq 24(%[a]), %%rdx\n\t"
            "xorl %k[t2], %k[t2]\n\t"
            CZ_MAC_("24(%[a])", t6, t0)
            CZ_MAC_("24(%[d])", t0, t1)
            CZ_MAC_("64(%[d])", t1, t2)
            "adcq $0, %[t2]\n\t"
            CZ_M6_RED_(t3, t4, t5, t6, t0, t1, t2)
            /* row 4: a4 * (a4, 2a5) at relative words 4..5 */
            "movq 32(%[a]), %%rdx\n\t"
            "xorl %k[t3], %k[t3]\n\t"
            CZ_MAC_("32(%[a])", t1, t2)
            CZ_MAC_("32(%[d])", t2, t3)
            "adcq $0, %[t3]\n\t"
            CZ_M6_RED_(t4, t5, t6, t0, t1, t2, t3)
            /* row 5: a5 * a5 at relative word 5 */
            "movq 40(%[a]), %%rdx\n\t"
            "xorl %k[t4], %k[t4]\n\t"
            CZ_MAC_("40(%[a])", t3, t4)
            "adcq $0, %[t4]\n\t"
            CZ_M6_RED_(t5, t6, t0, t1, t2, t3, t4)
            CZ_M6_FINAL_(t6, t0, t1, t2, t3, t4, t5, a, d)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [a] "+&r"(ap), [d] "+&r"(dp)
            : [p] "r"(p), [pinv] "rm"(pinv)
            : "cc", "memory");
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = t5;
    r[4] = (uint64_t)(uintptr_t)ap;
    r[5] = (uint64_t)(uintptr_t)dp;
}


/* ---- double-width ("lazy") kernels -------------------------------------------
 *
 * For sums of products reduced once (the Fq2 product, ff/mont.h
 * cz_mont_fq2_mul): the plain product of two n-word integers into 2n words,
 * and the Montgomery reduction of a 2n-word value.
 *
 *   mul_wide: t = a*b, a and b any n-word integers (no reduction, no bound),
 *     the rows of the CIOS product without the m rows: n^2 mulx. t must not
 *     overlap a or b.
 *   redc_wide: r = t / R mod p for t < p*R, result < p. The low half is
 *     reduced by n rows m_i = t_i * pinv (as in cz_mont_sqr_4_adx), giving
 *     (t_lo + M p) / R <= p, then the high half t_hi < p is added: the sum is
 *     < 2p < 2^(64n) (no carry out) and one conditional subtraction of p
 *     leaves it below p. n^2 mulx + n imul.
 */

/* As CZ_M6_RED_ for a window whose top word T6 starts at zero. */
#define CZ_S6_RED_(T0, T1, T2, T3, T4, T5, T6)                                                     \
    "movq " CZ_X_(T0) ", %%rdx\n\t"                                                                \
    "imulq %[pinv], %%rdx\n\t"                                                                     \
    "xorl " CZ_XK_(T6) ", " CZ_XK_(T6) "\n\t"                                                      \
    CZ_MAC_("(%[p])", T0, T1)                                                                      \
    CZ_MAC_("8(%[p])", T1, T2)                                                                     \
    CZ_MAC_("16(%[p])", T2, T3)                                                                    \
    CZ_MAC_("24(%[p])", T3, T4)                                                                    \
    CZ_MAC_("32(%[p])", T4, T5)                                                                    \
    CZ_MAC_("40(%[p])", T5, T6)                                                                    \
    "adcq $0, " CZ_X_(T6) "\n\t"

/* t[0..7] = a*b (plain 4x4-word product) */
static inline void cz_mont_mul_wide_4_adx(uint64_t t[8], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t0, t1, t2, t3, t4, lo, hi, dx;
    const uint64_t a0 = a[0], a1 = a[1];
    __asm__(CZ_M4_ROW0_(t0, t1, t2, t3, t4)
            "movq %[t0], (%[o])\n\t"
            CZ_M4_ROW_(8, t1, t2, t3, t4, t0)
            "movq %[t1], 8(%[o])\n\t"
            CZ_M4_ROW_(16, t2, t3, t4, t0, t1)
            "movq %[t2], 16(%[o])\n\t"
            CZ_M4_ROW_(24, t3, t4, t0, t1, t2)
            "movq %[t3], 24(%[o])\n\t"
            "movq %[t4], 32(%[o])\n\t"
            "movq %[t0], 40(%[o])\n\t"
            "movq %[t1], 48(%[o])\n\t"
            "movq %[t2], 56(%[o])\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx), "=m"(*(uint64_t(*)[8])t)
            : [a0] "r"(a0), [a1] "r"(a1), [a] "r"(a), [b] "r"(b), [o] "r"(t), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b)
            : "cc");
}

/* r = t / 2^256 mod p for t[0..7] < p 2^256 */
static inline void cz_mont_redc_wide_4_adx(uint64_t r[4], const uint64_t t[8], const uint64_t p[4], uint64_t pinv)
{
    uint64_t w0 = t[0], w1 = t[1], w2 = t[2], w3 = t[3], x, lo, hi, dx;
    __asm__(CZ_S4_RED_(w0, w1, w2, w3, x)
            CZ_S4_RED_(w1, w2, w3, x, w0)
            CZ_S4_RED_(w2, w3, x, w0, w1)
            CZ_S4_RED_(w3, x, w0, w1, w2)
            /* + high half; the sum is < 2p */
            "addq 32(%[t]), %[x]\n\t"
            "adcq 40(%[t]), %[w0]\n\t"
            "adcq 48(%[t]), %[w1]\n\t"
            "adcq 56(%[t]), %[w2]\n\t"
            CZ_M4_FINAL_(x, w0, w1, w2, w3)
            : [w0] "+&r"(w0), [w1] "+&r"(w1), [w2] "+&r"(w2), [w3] "+&r"(w3), [x] "=&r"(x),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx)
            : [t] "r"(t), [p] "r"(p), [pinv] "rm"(pinv), "m"(*(const uint64_t(*)[8])t),
              "m"(*(const uint64_t(*)[4])p)
            : "cc");
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = w3;
}

/* t[0..11] = a*b (plain 6x6-word product) */
static inline void cz_mont_mul_wide_6_adx(uint64_t t[12], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
    __asm__(CZ_M6_ROW0_(t0, t1, t2, t3, t4, t5, t6)
            "movq %[t0], (%[o])\n\t"
            CZ_M6_ROW_(8, t1, t2, t3, t4, t5, t6, t0)
            "movq %[t1], 8(%[o])\n\t"
            CZ_M6_ROW_(16, t2, t3, t4, t5, t6, t0, t1)
            "movq %[t2], 16(%[o])\n\t"
            CZ_M6_ROW_(24, t3, t4, t5, t6, t0, t1, t2)
            "movq %[t3], 24(%[o])\n\t"
            CZ_M6_ROW_(32, t4, t5, t6, t0, t1, t2, t3)
            "movq %[t4], 32(%[o])\n\t"
            CZ_M6_ROW_(40, t5, t6, t0, t1, t2, t3, t4)
            "movq %[t5], 40(%[o])\n\t"
            "movq %[t6], 48(%[o])\n\t"
            "movq %[t0], 56(%[o])\n\t"
            "movq %[t1], 64(%[o])\n\t"
            "movq %[t2], 72(%[o])\n\t"
            "movq %[t3], 80(%[o])\n\t"
            "movq %[t4], 88(%[o])\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              "=m"(*(uint64_t(*)[12])t)
            : [a] "r"(a), [b] "r"(b), [o] "r"(t), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "cc");
}

/* r = t / 2^384 mod p for t[0..11] < p 2^384 */
static inline void cz_mont_redc_wide_6_adx(uint64_t r[6], const uint64_t t[12], const uint64_t p[6], uint64_t pinv)
{
    uint64_t w0 = t[0], w1 = t[1], w2 = t[2], w3 = t[3], w4 = t[4], w5 = t[5], x, u5, lo, hi, dx;
    const uint64_t *tp = t; /* its register holds a result word at the end */
    __asm__(CZ_S6_RED_(w0, w1, w2, w3, w4, w5, x)
            CZ_S6_RED_(w1, w2, w3, w4, w5, x, w0)
            CZ_S6_RED_(w2, w3, w4, w5, x, w0, w1)
            CZ_S6_RED_(w3, w4, w5, x, w0, w1, w2)
            CZ_S6_RED_(w4, w5, x, w0, w1, w2, w3)
            CZ_S6_RED_(w5, x, w0, w1, w2, w3, w4)
            /* + high half; the sum is < 2p */
            "addq 48(%[t]), %[x]\n\t"
            "adcq 56(%[t]), %[w0]\n\t"
            "adcq 64(%[t]), %[w1]\n\t"
            "adcq 72(%[t]), %[w2]\n\t"
            "adcq 80(%[t]), %[w3]\n\t"
            "adcq 88(%[t]), %[w4]\n\t"
            CZ_M6_FINAL_(x, w0, w1, w2, w3, w4, w5, t, u5)
            : [w0] "+&r"(w0), [w1] "+&r"(w1), [w2] "+&r"(w2), [w3] "+&r"(w3), [w4] "+&r"(w4),
              [w5] "+&r"(w5), [x] "=&r"(x), [u5] "=&r"(u5), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [t] "+&r"(tp)
            : [p] "r"(p), [pinv] "m"(pinv)
            : "cc", "memory"); /* no "m" operand for t: its register is clobbered, and a
                                 * second one for the address would exceed what ASan builds leave */
    r[0] = lo;
    r[1] = hi;
    r[2] = dx;
    r[3] = w5;
    r[4] = (uint64_t)(uintptr_t)tp;
    r[5] = u5;
}

/*
 * Modular addition and subtraction, 4 and 6 limbs: one carry chain, a trial
 * subtraction of p and conditional moves (no branches). Inputs < p, outputs
 * < p, r may alias a or b; p < 2^(64n - 1) so a + b does not carry out.
 */
static inline void cz_mont_add_4_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t p[4])
{
    uint64_t t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3], d0, d1, d2, d3;
    __asm__("addq %[b0], %[t0]\n\tadcq %[b1], %[t1]\n\tadcq %[b2], %[t2]\n\tadcq %[b3], %[t3]\n\t"
            "movq %[t0], %[d0]\n\tmovq %[t1], %[d1]\n\tmovq %[t2], %[d2]\n\tmovq %[t3], %[d3]\n\t"
            "subq %[p0], %[d0]\n\tsbbq %[p1], %[d1]\n\tsbbq %[p2], %[d2]\n\tsbbq %[p3], %[d3]\n\t"
            "cmovcq %[t0], %[d0]\n\tcmovcq %[t1], %[d1]\n\tcmovcq %[t2], %[d2]\n\tcmovcq %[t3], %[d3]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [d0] "=&r"(d0), [d1] "=&r"(d1),
              [d2] "=&r"(d2), [d3] "=&r"(d3)
            : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3]), [p0] "m"(p[0]), [p1] "m"(p[1]),
              [p2] "m"(p[2]), [p3] "m"(p[3])
            : "cc");
    r[0] = d0;
    r[1] = d1;
    r[2] = d2;
    r[3] = d3;
}

static inline void cz_mont_sub_4_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t p[4])
{
    uint64_t t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3], m0, m1, m2, m3, z = 0;
    __asm__("subq %[b0], %[t0]\n\tsbbq %[b1], %[t1]\n\tsbbq %[b2], %[t2]\n\tsbbq %[b3], %[t3]\n\t"
            "movq %[p0], %[m0]\n\tmovq %[p1], %[m1]\n\tmovq %[p2], %[m2]\n\tmovq %[p3], %[m3]\n\t"
            "cmovncq %[z], %[m0]\n\tcmovncq %[z], %[m1]\n\tcmovncq %[z], %[m2]\n\tcmovncq %[z], %[m3]\n\t"
            "addq %[m0], %[t0]\n\tadcq %[m1], %[t1]\n\tadcq %[m2], %[t2]\n\tadcq %[m3], %[t3]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [m0] "=&r"(m0), [m1] "=&r"(m1),
              [m2] "=&r"(m2), [m3] "=&r"(m3)
            : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3]), [p0] "m"(p[0]), [p1] "m"(p[1]),
              [p2] "m"(p[2]), [p3] "m"(p[3]), [z] "r"(z)
            : "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
}

static inline void cz_mont_add_6_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t p[6])
{
    /* t = a + b; keep t in a stack copy, subtract p in registers, and on a
     * borrow reload t from the copy (cmov from memory): 9 registers, so it
     * also fits frame-pointer and sanitizer builds */
    uint64_t t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3], t4 = a[4], t5 = a[5];
    uint64_t sv[6];
    __asm__("addq 0(%[b]), %[t0]\n\tadcq 8(%[b]), %[t1]\n\tadcq 16(%[b]), %[t2]\n\t"
            "adcq 24(%[b]), %[t3]\n\tadcq 32(%[b]), %[t4]\n\tadcq 40(%[b]), %[t5]\n\t"
            "movq %[t0], 0(%[sv])\n\tmovq %[t1], 8(%[sv])\n\tmovq %[t2], 16(%[sv])\n\t"
            "movq %[t3], 24(%[sv])\n\tmovq %[t4], 32(%[sv])\n\tmovq %[t5], 40(%[sv])\n\t"
            "subq 0(%[p]), %[t0]\n\tsbbq 8(%[p]), %[t1]\n\tsbbq 16(%[p]), %[t2]\n\t"
            "sbbq 24(%[p]), %[t3]\n\tsbbq 32(%[p]), %[t4]\n\tsbbq 40(%[p]), %[t5]\n\t"
            "cmovcq 0(%[sv]), %[t0]\n\tcmovcq 8(%[sv]), %[t1]\n\tcmovcq 16(%[sv]), %[t2]\n\t"
            "cmovcq 24(%[sv]), %[t3]\n\tcmovcq 32(%[sv]), %[t4]\n\tcmovcq 40(%[sv]), %[t5]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [t5] "+&r"(t5),
              "=m"(sv)
            : [b] "r"(b), [p] "r"(p), [sv] "r"(sv), "m"(*(const uint64_t(*)[6])b), "m"(*(const uint64_t(*)[6])p)
            : "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
    r[4] = t4;
    r[5] = t5;
}

static inline void cz_mont_sub_6_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const uint64_t p[6])
{
    uint64_t t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3], t4 = a[4], t5 = a[5], m;
    /* borrow -> mask m = 0 or ~0; then add p & m limb by limb */
    __asm__("subq 0(%[b]), %[t0]\n\tsbbq 8(%[b]), %[t1]\n\tsbbq 16(%[b]), %[t2]\n\t"
            "sbbq 24(%[b]), %[t3]\n\tsbbq 32(%[b]), %[t4]\n\tsbbq 40(%[b]), %[t5]\n\t"
            "sbbq %[m], %[m]\n\t"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [t5] "+&r"(t5),
              [m] "=&r"(m)
            : [b] "r"(b), "m"(*(const uint64_t(*)[6])b)
            : "cc");
    uint64_t q0 = p[0] & m, q1 = p[1] & m, q2 = p[2] & m, q3 = p[3] & m, q4 = p[4] & m, q5 = p[5] & m;
    __asm__("addq %[q0], %[t0]\n\tadcq %[q1], %[t1]\n\tadcq %[q2], %[t2]\n\t"
            "adcq %[q3], %[t3]\n\tadcq %[q4], %[t4]\n\tadcq %[q5], %[t5]"
            : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [t5] "+&r"(t5)
            : [q0] "rm"(q0), [q1] "rm"(q1), [q2] "rm"(q2), [q3] "rm"(q3), [q4] "rm"(q4), [q5] "rm"(q5)
            : "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
    r[4] = t4;
    r[5] = t5;
}

#endif /* CZ_FF_MONT_X86_64_H */
