/*
 * ff/tower: the extension fields of both pairing-friendly curves.
 *
 * DESIGN: Fq2 = Fq[u]/(u^2 + 1) for every curve (ff/fq2_tmpl.h); the sextic
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

/* the Frobenius coefficients and xi of each curve (CONST_FQ2_XI,
 * CONST_FQ12_FROB_INIT; tools/gen_tower_consts.py) */
#include "ff/tower_consts.inc"

#define CZ_TMPL "ff/fq2_tmpl.h"
#include "util/foreach_curve.h"

/* Fq6 and Fq12 (ff/fq12_tmpl.h): cz_<curve>_fq6, cz_<curve>_fq12. */
#define CZ_TMPL "ff/fq12_tmpl.h"
#include "util/foreach_curve.h"

#ifdef __cplusplus
}
#endif

#endif
