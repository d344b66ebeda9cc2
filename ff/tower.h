/*
 * ff/tower: the extension fields of both pairing-friendly curves.
 *
 * DESIGN: Fq2 = Fq[u]/(u^2 + 1) for both curves (ff/fq2_tmpl.h); the sextic
 * non-residue is xi = 1 + u (BLS12-381) or 9 + u (BN254). Fq6 = Fq2[v]/(v^3 - xi)
 * and Fq12 = Fq6[w]/(w^2 - v) follow in ff/fq12_tmpl.h (pairing layer).
 * Same conventions as ff/ff.h: Montgomery coefficients, aliasing allowed.
 */
#ifndef CZ_FF_TOWER_H
#define CZ_FF_TOWER_H

#include "ff/ff.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_F2 cz_bls12_381_fq2
#define CZ_F2_B cz_bls12_381_fq
#define CZ_F2_XI 1
#include "ff/fq2_tmpl.h"
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2_XI

#define CZ_F2 cz_bn254_fq2
#define CZ_F2_B cz_bn254_fq
#define CZ_F2_XI 9
#include "ff/fq2_tmpl.h"
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2_XI

/* Fq6 and Fq12 (ff/fq12_tmpl.h): cz_bls12_381_fq6, cz_bls12_381_fq12,
 * cz_bn254_fq6, cz_bn254_fq12. */
#define CZ_F12 cz_bls12_381_fq12
#define CZ_F6 cz_bls12_381_fq6
#define CZ_F2 cz_bls12_381_fq2
#define CZ_F2_B cz_bls12_381_fq
#include "ff/fq12_tmpl.h"
#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B

#define CZ_F12 cz_bn254_fq12
#define CZ_F6 cz_bn254_fq6
#define CZ_F2 cz_bn254_fq2
#define CZ_F2_B cz_bn254_fq
#include "ff/fq12_tmpl.h"
#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B

#ifdef __cplusplus
}
#endif

#endif
