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

/* 4-limb modular add and subtract for the butterflies: the straight-line
 * kernels of ff/mont.h (asm under CZ_ASM_X86_64). */
#define cz_ntt_add4_(r, a, b, p) cz_mont_add((r), (a), (b), (p), 4)
#define cz_ntt_sub4_(r, a, b, p) cz_mont_sub((r), (a), (b), (p), 4)

#define CZ_TMPL "ntt/ntt_tmpl_impl.h"
#include "util/foreach_curve.h"
