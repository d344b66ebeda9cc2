/*
 * ec: the groups G1 and G2 of BLS12-381 and BN254.
 *
 * DESIGN: one formula text (ec/ec_tmpl.h) instantiated for G1 and G2 of
 * every curve of CZ_CURVE_LIST (util/foreach_group.h):
 *
 *   prefix           field               curve
 *   cz_bls12_381_g1  cz_bls12_381_fq     y^2 = x^3 + 4
 *   cz_bls12_381_g2  cz_bls12_381_fq2    y^2 = x^3 + 4(1 + u)      (M-twist)
 *   cz_bn254_g1      cz_bn254_fq         y^2 = x^3 + 3
 *   cz_bn254_g2      cz_bn254_fq2        y^2 = x^3 + 3/(9 + u)     (D-twist)
 *
 * Each has _affine (x, y; infinity = (0, 0)), Jacobian and _xyzz types.
 * Serialisation (compressed/uncompressed, zcash flag bits) is in
 * ec/ec_serde.h, the pairing in ec/pairing.h.
 */
#ifndef CZ_EC_EC_H
#define CZ_EC_EC_H

#include <stdlib.h>

#include "ff/tower.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A group behind a table, for the code that picks a curve at run time
 * (readers, writers): sizes and the per-point checks and conversions of
 * ec/ec_tmpl.h on untyped points (the ec types: Jacobian and _affine).
 * One indirect call per point; bulk work stays typed. */
typedef struct cz_group {
    int degree;                                /* 1: G1 over Fq, 2: G2 over Fq2 */
    size_t affine_bytes;                       /* sizeof <g>_affine */
    size_t jacobian_bytes;                     /* sizeof <g> */
    int (*affine_in_range)(const void *p);     /* every coordinate's stored limbs < q */
    int (*affine_is_on_curve)(const void *p);  /* on the curve, or the all-zero infinity */
    int (*is_on_curve)(const void *p);         /* Jacobian; infinity counts as on it */
    int (*in_subgroup)(const void *p);         /* Jacobian: on the curve and in the order-r subgroup */
    void (*to_affine)(void *r, const void *p); /* Jacobian -> affine */
} cz_group;

#define CZ_TMPL "ec/ec_tmpl.h"
#include "util/foreach_group.h"

/* G1 and G2 of a curve (ec/ec_table.c); NULL for a value that is no curve. */
const cz_group *cz_group_g1(cz_curve c);
const cz_group *cz_group_g2(cz_curve c);

#ifdef __cplusplus
}
#endif

#endif
