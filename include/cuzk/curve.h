/*
 * The curves cuzk proves on, and their names in the formats it reads.
 *
 * DESIGN: CZ_CURVE_LIST is the one list of curves. Everything per curve
 * comes from it: the enum below, the info table (cz_curve_info_get,
 * io/curve.c), the template instantiations of every layer
 * (util/foreach.h) and the per-curve dispatch tables of the code that
 * picks a curve at run time. One entry per curve:
 *
 *   X(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, FQ_LIMBS, FR_LIMBS)
 *     ID, VALUE the enum constant CZ_CURVE_<ID> = VALUE (CZ_CURVE_NONE = 0)
 *     SYM       prefix of the curve's types and functions: SYM_fq, SYM_fr,
 *               SYM_g1, SYM_g2, SYM_ntt, ...
 *     CONST     prefix of its constants: CONST_FQ_P, CONST_FR_S,
 *               CONST_G1_GEN, ... (ff/ff_consts.inc and the other .inc)
 *     SHORT     its name in the device code (cuda/: cz_dev::SHORT_fr)
 *     NAME      cuzk's name; SNARKJS: snarkjs's; ALIAS: one more that
 *               cz_curve_parse accepts
 *     FQ_LIMBS, FR_LIMBS  64-bit limbs of the base and the scalar field
 *
 * The position in the list (cz_curve_index) is the row of every per-curve
 * table; BLS12-381 comes first because the per-curve code was instantiated
 * in that order before the list existed (the same object code). What else
 * a new curve needs is listed in util/foreach.h.
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BN254 a.k.a. bn128, alt_bn128 (circom/snarkjs default);
 * BLS12-381: Filecoin, Zcash, Ethereum consensus. */
#define CZ_CURVE_LIST(X)                                                                                               \
    X(BLS12_381, 2, cz_bls12_381, CZ_BLS12_381, bls12_381, "bls12-381", "bls12381", "bls12_381", 6, 4)                \
    X(BN254, 1, cz_bn254, CZ_BN254, bn254, "bn254", "bn128", "alt_bn128", 4, 4)

#define CZ_CURVE_ENUM_(ID, VALUE, ...) CZ_CURVE_##ID = VALUE,
typedef enum cz_curve {
    CZ_CURVE_NONE = 0,
    CZ_CURVE_LIST(CZ_CURVE_ENUM_) /* CZ_CURVE_BLS12_381 = 2, CZ_CURVE_BN254 = 1 */
} cz_curve;
#undef CZ_CURVE_ENUM_

/* The number of curves; a plain sum, so #if can use it too. */
#define CZ_CURVE_COUNT_ONE_(...) +1
#define CZ_CURVE_COUNT (0 CZ_CURVE_LIST(CZ_CURVE_COUNT_ONE_))

/* CZ_CURVE_IDX_<ID>: the position of each curve in the list */
#define CZ_CURVE_IDX_(ID, ...) CZ_CURVE_IDX_##ID,
enum { CZ_CURVE_LIST(CZ_CURVE_IDX_) CZ_CURVE_IDX_END_ };
#undef CZ_CURVE_IDX_

/* Position of c in CZ_CURVE_LIST (the row of every per-curve table), or -1
 * for a value that is no curve (CZ_CURVE_NONE included). */
static inline int cz_curve_index(cz_curve c)
{
#define CZ_CURVE_CASE_(ID, ...)                                                                                        \
    case CZ_CURVE_##ID: return CZ_CURVE_IDX_##ID;
    switch (c) {
        CZ_CURVE_LIST(CZ_CURVE_CASE_)
    default: return -1;
    }
#undef CZ_CURVE_CASE_
}

/* What a curve is, in numbers. */
typedef struct cz_curve_info {
    cz_curve curve;
    int index;                   /* cz_curve_index(curve) */
    const char *name;            /* "bn254" / "bls12-381" */
    const char *snarkjs_name;    /* "bn128" / "bls12381" */
    const char *alias;           /* "alt_bn128" / "bls12_381" */
    unsigned fq_limbs, fr_limbs; /* 64-bit limbs of Fq, Fr */
    unsigned fq_bytes, fr_bytes; /* 8 x limbs: snarkjs's n8q, n8r */
    unsigned fr_two_adicity;     /* s with 2^s | r - 1: the largest NTT domain is 2^s */
    /* affine points in memory, which is also their zkey encoding (LEM) */
    size_t g1_affine_bytes, g2_affine_bytes;
} cz_curve_info;

/* The info of c; NULL for a value that is no curve. */
const cz_curve_info *cz_curve_info_get(cz_curve c);

/* "bn254" / "bls12-381" ("none" for CZ_CURVE_NONE and unknown values) */
const char *cz_curve_name(cz_curve c);
/* snarkjs's names: "bn128" / "bls12381" */
const char *cz_curve_snarkjs_name(cz_curve c);
/* Accepts the three names of each curve (bn254, bn128, alt_bn128,
 * bls12-381, bls12381, bls12_381), in any case; CZ_CURVE_NONE otherwise. */
cz_curve cz_curve_parse(const char *name);
/* Identifies a curve from its scalar field prime r (resp. base field prime q)
 * given as n8 little-endian bytes; CZ_CURVE_NONE when it is none of them. */
cz_curve cz_curve_from_r(const uint8_t *le, uint32_t n8);
cz_curve cz_curve_from_q(const uint8_t *le, uint32_t n8);

#ifdef __cplusplus
}
#endif

#endif
