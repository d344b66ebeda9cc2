/* Out-of-line extension-field functions, instantiated per curve. */
#include "ff/tower.h"

#define CZ_TMPL "ff/fq2_tmpl_impl.h"
#include "util/foreach_curve.h"

/* Fq6 / Fq12 (ff/fq12_tmpl_impl.h) with the Frobenius coefficients of
 * ff/tower_consts.inc (tools/gen_tower_consts.py). */
#define CZ_TMPL "ff/fq12_tmpl_impl.h"
#include "util/foreach_curve.h"
