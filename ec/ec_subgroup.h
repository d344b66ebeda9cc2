/*
 * ec/ec_subgroup: the endomorphisms behind the fast subgroup checks.
 *
 * DESIGN: multiplying by r costs a full 255-bit scalar multiplication. The
 * groups here have cheap endomorphisms whose eigenvalue on the prime-order
 * subgroup is a small power of the curve parameter z, and the literature
 * proves that checking that eigen-relation on a point of the curve is
 * equivalent to membership:
 *
 *   BLS12-381 G1  phi(P) = -z^2 P, phi(x, y) = (beta x, y)      (Scott 2021/1130 s.6,
 *                                                                 proof 2022/352)
 *   BLS12-381 G2  psi(P) = z P, psi = untwist-Frobenius-twist    (Scott 2021/1130 s.4,
 *                                                                 proof 2022/352)
 *   BN254 G2      [z+1]P + psi([z]P) + psi^2([z]P) = psi^3([2z]P) (Dai-Lin-Zhao-Zhou
 *                                                                 2022/348 s.3, 5.1)
 *   BN254 G1      cofactor 1: every point of the curve is in G1.
 *
 * Each costs one or two multiplications by the 64-bit |z| instead of one by
 * the 255-bit r: measured (x86-64 asm build, indicative, shared machine)
 * 2x faster than r-multiplication for BLS12-381 G1, 5.7x for G2, 3x for
 * BN254 G2. cz_<g>_in_subgroup (ec/ec_tmpl.h) runs these tests;
 * cz_<g>_in_subgroup_slow keeps the r-multiplication as the reference.
 * The constants (beta, the psi coefficients) are in ec/ec_endo_consts.inc,
 * generated and self-checked by tools/gen_endo_consts.py.
 *
 * The endomorphisms are exported for GLV-style scalar multiplication and for
 * the tests; they accept any point (infinity included) and allow r == p.
 */
#ifndef CZ_EC_EC_SUBGROUP_H
#define CZ_EC_EC_SUBGROUP_H

#include "ec/ec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The BLS12-381 curve parameter z = -0xd201000000010000 (its absolute value). */
#define CZ_BLS12_381_Z_ABS 0xd201000000010000ULL
/* The BN254 curve parameter z = 4965661367192848881 (positive). */
#define CZ_BN254_Z 0x44e992b44a6909f1ULL

/* phi(x, y) = (beta x, y); on G1 it is multiplication by -z^2 mod r. */
void cz_bls12_381_g1_phi(cz_bls12_381_g1 *r, const cz_bls12_381_g1 *p);
/* psi = twist o Frobenius o untwist; on G2 it is multiplication by z mod r
 * (BLS12-381) resp. by q mod r = 6 z^2 (BN254). */
void cz_bls12_381_g2_psi(cz_bls12_381_g2 *r, const cz_bls12_381_g2 *p);
void cz_bn254_g2_psi(cz_bn254_g2 *r, const cz_bn254_g2 *p);

#ifdef __cplusplus
}
#endif

#endif
