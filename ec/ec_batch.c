/* Batch-affine addition (ec/ec_batch.h), instantiated per group. */
#include "ec/ec_batch.h"

#include <stdlib.h>
#include <string.h>

#define CZ_EC cz_bls12_381_g1
#define CZ_EC_F cz_bls12_381_fq
#include "ec/ec_batch_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F

#define CZ_EC cz_bls12_381_g2
#define CZ_EC_F cz_bls12_381_fq2
#include "ec/ec_batch_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F

#define CZ_EC cz_bn254_g1
#define CZ_EC_F cz_bn254_fq
#include "ec/ec_batch_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F

#define CZ_EC cz_bn254_g2
#define CZ_EC_F cz_bn254_fq2
#include "ec/ec_batch_tmpl_impl.h"
#undef CZ_EC
#undef CZ_EC_F
