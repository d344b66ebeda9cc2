/*
 * Fixed-base multiplication for the four groups: msm/fixed_base_tmpl_impl.h
 * instantiated once per group (contract and design in msm/fixed_base.h).
 */
#include "msm/fixed_base.h"

#include <stdlib.h>
#include <string.h>

#include "ec/ec_batch.h"
#include "util/common.h"

#define CZ_FB_G cz_bls12_381_g1
#define CZ_FB_F cz_bls12_381_fq
#define CZ_FB_FR cz_bls12_381_fr
#define CZ_FB_BITS CZ_BLS12_381_FR_BITS
#include "msm/fixed_base_tmpl_impl.h"
#undef CZ_FB_G
#undef CZ_FB_F
#undef CZ_FB_FR
#undef CZ_FB_BITS

#define CZ_FB_G cz_bls12_381_g2
#define CZ_FB_F cz_bls12_381_fq2
#define CZ_FB_FR cz_bls12_381_fr
#define CZ_FB_BITS CZ_BLS12_381_FR_BITS
#include "msm/fixed_base_tmpl_impl.h"
#undef CZ_FB_G
#undef CZ_FB_F
#undef CZ_FB_FR
#undef CZ_FB_BITS

#define CZ_FB_G cz_bn254_g1
#define CZ_FB_F cz_bn254_fq
#define CZ_FB_FR cz_bn254_fr
#define CZ_FB_BITS CZ_BN254_FR_BITS
#include "msm/fixed_base_tmpl_impl.h"
#undef CZ_FB_G
#undef CZ_FB_F
#undef CZ_FB_FR
#undef CZ_FB_BITS

#define CZ_FB_G cz_bn254_g2
#define CZ_FB_F cz_bn254_fq2
#define CZ_FB_FR cz_bn254_fr
#define CZ_FB_BITS CZ_BN254_FR_BITS
#include "msm/fixed_base_tmpl_impl.h"
#undef CZ_FB_G
#undef CZ_FB_F
#undef CZ_FB_FR
#undef CZ_FB_BITS
