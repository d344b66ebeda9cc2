/* Out-of-line field functions: ff/fp_tmpl_impl.h instantiated per field. */
#include "ff/ff.h"

#define CZ_FP cz_bls12_381_fq
#define CZ_FP_C CZ_BLS12_381_FQ
#define CZ_FP_N 6
#include "ff/fp_tmpl_impl.h"
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N

#define CZ_FP cz_bls12_381_fr
#define CZ_FP_C CZ_BLS12_381_FR
#define CZ_FP_N 4
#include "ff/fp_tmpl_impl.h"
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N

#define CZ_FP cz_bn254_fq
#define CZ_FP_C CZ_BN254_FQ
#define CZ_FP_N 4
#include "ff/fp_tmpl_impl.h"
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N

#define CZ_FP cz_bn254_fr
#define CZ_FP_C CZ_BN254_FR
#define CZ_FP_N 4
#include "ff/fp_tmpl_impl.h"
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N
