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
