/*
 * Point encodings (see ec/ec_serde.h for the formats and the contract):
 * ec/ec_serde_tmpl_impl.h once per group.
 */
#include "ec/ec_serde.h"

#include <string.h>

/* The flag bits of each curve's encodings (see ec/ec_serde.h): zcash
 * (1) or gnark (0). */
#define CZ_BLS12_381_SERDE_ZCASH 1
#define CZ_BN254_SERDE_ZCASH 0

#define CZ_TMPL "ec/ec_serde_tmpl_impl.h"
#include "util/foreach_group.h"
