/*
 * The curves cuzk proves on, and their names in the formats it reads.
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cz_curve {
    CZ_CURVE_NONE = 0,
    CZ_CURVE_BN254 = 1,     /* a.k.a. bn128, alt_bn128 (circom/snarkjs default) */
    CZ_CURVE_BLS12_381 = 2, /* Filecoin, Zcash, Ethereum consensus */
} cz_curve;

/* "bn254" / "bls12-381" ("none" for CZ_CURVE_NONE) */
const char *cz_curve_name(cz_curve c);
/* snarkjs's names: "bn128" / "bls12381" */
const char *cz_curve_snarkjs_name(cz_curve c);
/* Accepts bn254, bn128, alt_bn128, bls12-381, bls12381, bls12_381 (any case);
 * CZ_CURVE_NONE otherwise. */
cz_curve cz_curve_parse(const char *name);
/* Identifies a curve from its scalar field prime r (resp. base field prime q)
 * given as n8 little-endian bytes; CZ_CURVE_NONE when it is neither. */
cz_curve cz_curve_from_r(const uint8_t *le, uint32_t n8);
cz_curve cz_curve_from_q(const uint8_t *le, uint32_t n8);

#ifdef __cplusplus
}
#endif

#endif
