/* Out-of-line extension-field functions, instantiated per curve. */
#include "ff/tower.h"

#define CZ_F2 cz_bls12_381_fq2
#define CZ_F2_B cz_bls12_381_fq
#define CZ_F2_XI 1
#include "ff/fq2_tmpl_impl.h"
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2_XI

#define CZ_F2 cz_bn254_fq2
#define CZ_F2_B cz_bn254_fq
#define CZ_F2_XI 9
#include "ff/fq2_tmpl_impl.h"
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2_XI

/* Fq6 / Fq12 (ff/fq12_tmpl_impl.h) with the Frobenius coefficients of
 * ff/tower_consts.inc (tools/gen_tower_consts.py). */
#include "ff/tower_consts.inc"

#define CZ_F12 cz_bls12_381_fq12
#define CZ_F6 cz_bls12_381_fq6
#define CZ_F2 cz_bls12_381_fq2
#define CZ_F2_B cz_bls12_381_fq
#define CZ_F12_FROB_INIT CZ_BLS12_381_FQ12_FROB_INIT
#include "ff/fq12_tmpl_impl.h"
#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F12_FROB_INIT

#define CZ_F12 cz_bn254_fq12
#define CZ_F6 cz_bn254_fq6
#define CZ_F2 cz_bn254_fq2
#define CZ_F2_B cz_bn254_fq
#define CZ_F12_FROB_INIT CZ_BN254_FQ12_FROB_INIT
#include "ff/fq12_tmpl_impl.h"
#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F12_FROB_INIT
