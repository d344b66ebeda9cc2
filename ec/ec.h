/*
 * ec: the groups G1 and G2 of BLS12-381 and BN254.
 *
 * DESIGN: one formula text (ec/ec_tmpl.h) instantiated four times:
 *
 *   prefix           field               curve
 *   cz_bls12_381_g1  cz_bls12_381_fq     y^2 = x^3 + 4
 *   cz_bls12_381_g2  cz_bls12_381_fq2    y^2 = x^3 + 4(1 + u)      (M-twist)
 *   cz_bn254_g1      cz_bn254_fq         y^2 = x^3 + 3
 *   cz_bn254_g2      cz_bn254_fq2        y^2 = x^3 + 3/(9 + u)     (D-twist)
 *
 * Each has _affine (x, y; infinity = (0, 0)), Jacobian and _xyzz types.
 * Serialisation (compressed/uncompressed, zcash flag bits) is in
 * ec/ec_serde.h, the pairing in ec/pairing.h.
 */
#ifndef CZ_EC_EC_H
#define CZ_EC_EC_H

#include <stdlib.h>

#include "ff/tower.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_EC cz_bls12_381_g1
#define CZ_EC_F cz_bls12_381_fq
#define CZ_EC_FR cz_bls12_381_fr
#include "ec/ec_tmpl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR

#define CZ_EC cz_bls12_381_g2
#define CZ_EC_F cz_bls12_381_fq2
#define CZ_EC_FR cz_bls12_381_fr
#include "ec/ec_tmpl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR

#define CZ_EC cz_bn254_g1
#define CZ_EC_F cz_bn254_fq
#define CZ_EC_FR cz_bn254_fr
#include "ec/ec_tmpl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR

#define CZ_EC cz_bn254_g2
#define CZ_EC_F cz_bn254_fq2
#define CZ_EC_FR cz_bn254_fr
#include "ec/ec_tmpl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR

#ifdef __cplusplus
}
#endif

#endif
