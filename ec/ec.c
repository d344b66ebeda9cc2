/* Out-of-line group functions, instantiated per group. */
#include "ec/ec.h"

#include "ec/ec_consts.inc"

#define CZ_EC cz_bls12_381_g1
#define CZ_EC_F cz_bls12_381_fq
#define CZ_EC_FR cz_bls12_381_fr
#define CZ_EC_GEN_INIT {CZ_BLS12_381_G1_GX, CZ_BLS12_381_G1_GY}
#define CZ_EC_B_INIT CZ_BLS12_381_G1_B
#include "ec/ec_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR
#undef CZ_EC_GEN_INIT
#undef CZ_EC_B_INIT

#define CZ_EC cz_bls12_381_g2
#define CZ_EC_F cz_bls12_381_fq2
#define CZ_EC_FR cz_bls12_381_fr
#define CZ_EC_GEN_INIT                                                                             \
    {{CZ_BLS12_381_G2_GX_C0, CZ_BLS12_381_G2_GX_C1}, {CZ_BLS12_381_G2_GY_C0, CZ_BLS12_381_G2_GY_C1}}
#define CZ_EC_B_INIT {CZ_BLS12_381_G2_B_C0, CZ_BLS12_381_G2_B_C1}
#include "ec/ec_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR
#undef CZ_EC_GEN_INIT
#undef CZ_EC_B_INIT

#define CZ_EC cz_bn254_g1
#define CZ_EC_F cz_bn254_fq
#define CZ_EC_FR cz_bn254_fr
#define CZ_EC_GEN_INIT {CZ_BN254_G1_GX, CZ_BN254_G1_GY}
#define CZ_EC_B_INIT CZ_BN254_G1_B
#include "ec/ec_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR
#undef CZ_EC_GEN_INIT
#undef CZ_EC_B_INIT

#define CZ_EC cz_bn254_g2
#define CZ_EC_F cz_bn254_fq2
#define CZ_EC_FR cz_bn254_fr
#define CZ_EC_GEN_INIT {{CZ_BN254_G2_GX_C0, CZ_BN254_G2_GX_C1}, {CZ_BN254_G2_GY_C0, CZ_BN254_G2_GY_C1}}
#define CZ_EC_B_INIT {CZ_BN254_G2_B_C0, CZ_BN254_G2_B_C1}
#include "ec/ec_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
#undef CZ_EC_FR
#undef CZ_EC_GEN_INIT
#undef CZ_EC_B_INIT
