/*
 * NTT over the scalar fields: ntt/ntt_tmpl_impl.h instantiated per field (see
 * the DESIGN paragraph in ntt/ntt.h), plus the field-independent helpers.
 */
#include "ntt/ntt.h"

#include <stdlib.h>
#include <string.h>

/* Sizes up to 2^DIRECT_MAX_LOG run as one in-cache kernel on the caller's
 * thread; larger ones are split into column and row passes on the pool. */
#ifndef CZ_NTT_DIRECT_MAX_LOG
#define CZ_NTT_DIRECT_MAX_LOG 12
#endif
/* Up to this size a single-threaded pool also takes the one-kernel path
 * (faster there than the split, whose rows pay a product per block). */
#ifndef CZ_NTT_DIRECT1_MAX_LOG
#define CZ_NTT_DIRECT1_MAX_LOG 14
#endif
/* Elements (points times width) below which a kernel subtree runs level by
 * level instead of depth first: 32 KiB, within L1. */
#ifndef CZ_NTT_LEAF_ELEMS
#define CZ_NTT_LEAF_ELEMS 1024
#endif
/* Target size of one gathered column batch (elements): 256 KiB. */
#ifndef CZ_NTT_COL_ELEMS
#define CZ_NTT_COL_ELEMS 8192
#endif

static size_t cz_ntt_round64_(size_t b)
{
    return (b + 63) & ~(size_t)63;
}

/* 64-byte aligned; NULL for failure */
static void *cz_ntt_alloc_(size_t bytes)
{
    if (bytes == 0) bytes = 64;
    return aligned_alloc(64, cz_ntt_round64_(bytes));
}

static void cz_ntt_free_(void *p)
{
    free(p);
}

size_t cz_ntt_bitrev_index(size_t i, unsigned k)
{
    if (k == 0) return 0;
    uint64_t x = (uint64_t)i;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = __builtin_bswap64(x);
    return (size_t)(x >> (64 - k));
}

/*
 * 4-limb modular add and subtract for the butterflies (inputs < p < 2^255,
 * outputs < p; r may alias a or b). The generic ones of ff/mont.h are
 * written with unsigned __int128 and, with GCC 12, compile to a long
 * sequence with stack round trips; these are about 3x (asm) resp. 1.5x
 * (portable C) faster, which matters because a butterfly is one product plus
 * one of each.
 */
#if defined(CZ_ASM_X86_64)
static inline void cz_ntt_add4_(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p)
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

static inline void cz_ntt_sub4_(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p)
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
#elif defined(CZ_PORTABLE)
static inline void cz_ntt_add4_(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p)
{
    uint64_t t[4], d[4], c = 0, br = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t s = a[i] + c, c1 = s < c;
        t[i] = s + b[i];
        c = c1 | (t[i] < s);
    }
    for (int i = 0; i < 4; i++) {
        uint64_t s = t[i] - p[i], b1 = t[i] < p[i];
        d[i] = s - br;
        br = b1 | (s < br);
    }
    uint64_t keep = (uint64_t)0 - br; /* t < p: keep t */
    for (int i = 0; i < 4; i++)
        r[i] = (t[i] & keep) | (d[i] & ~keep);
}

static inline void cz_ntt_sub4_(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p)
{
    uint64_t t[4], br = 0, c = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t s = a[i] - b[i], b1 = a[i] < b[i];
        t[i] = s - br;
        br = b1 | (s < br);
    }
    uint64_t mask = (uint64_t)0 - br; /* borrow: add p back */
    for (int i = 0; i < 4; i++) {
        uint64_t s = t[i] + c, c1 = s < c;
        r[i] = s + (p[i] & mask);
        c = c1 | (r[i] < s);
    }
}
#else
#error "define exactly one of CZ_ASM_X86_64 and CZ_PORTABLE"
#endif

#define CZ_NTT cz_bn254_ntt
#define CZ_NTT_F cz_bn254_fr
#define CZ_NTT_C CZ_BN254_FR
#include "ntt/ntt_tmpl_impl.h"
#undef CZ_NTT
#undef CZ_NTT_F
#undef CZ_NTT_C

#define CZ_NTT cz_bls12_381_ntt
#define CZ_NTT_F cz_bls12_381_fr
#define CZ_NTT_C CZ_BLS12_381_FR
#include "ntt/ntt_tmpl_impl.h"
#undef CZ_NTT
#undef CZ_NTT_F
#undef CZ_NTT_C
