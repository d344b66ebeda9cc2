/*
 * ec/pairing: the optimal-ate pairing e: G1 x G2 -> GT of BLS12-381 and BN254.
 *
 * DESIGN: a Miller loop on the twist in homogeneous projective coordinates
 * (no inversion in the loop; the tangent/chord line is evaluated at the G1
 * point and multiplied into the accumulator with a sparse product:
 * mul_by_014 for BLS12-381's M-type twist, mul_by_034 for BN254's D-type
 * twist), followed by the final exponentiation: the easy part
 * (p^6 - 1)(p^2 + 1) and an addition chain in the curve parameter for the
 * hard part, squaring with Granger-Scott in the cyclotomic subgroup. A
 * multi-pairing runs one Miller loop over all pairs (one shared
 * accumulator, one squaring per step) and one final exponentiation; that is
 * what a Groth16 verifier calls through pairing_check.
 *
 *   BLS12-381: loop over |x|, x = -0xd201000000010000, then conjugate (x < 0).
 *   BN254:     loop over 6x + 2 (NAF), x = 4965661367192848881, then the two
 *              lines through pi(Q) and -pi^2(Q) (pi the p-power Frobenius).
 *
 * WHICH VALUE IN GT. With h = (p^4 - p^2 + 1)/r and f the Miller loop value,
 * the output is
 *   BLS12-381:  f^((p^6 - 1)(p^2 + 1) * 3h)                      = e_exact^3
 *   BN254:      f^((p^6 - 1)(p^2 + 1) * 2x(6x^2 + 3x + 1) * h)  = e_exact^m
 * where e_exact = f^((p^12 - 1)/r) is the reduced pairing. Both exponents
 * are those of ffjavascript 0.3.1 (wasmcurves), i.e. of snarkjs's
 * `curve.pairing` and hence of `vk_alphabeta_12` in a snarkjs verification
 * key; tests/test_pairing.c checks e(G1, G2) against the values that
 * ffjavascript prints, and checks final_exp against f^(m (p^12-1)/r)
 * computed with a plain pow(). Verified with ffjavascript itself: its
 * `pairing` is NOT the plain f^((p^12-1)/r) (its `_finalExponentiationOld`
 * is), but that value raised to m = 3 resp. 2x(6x^2+3x+1). Since m is
 * coprime to r, the output is still a non-degenerate bilinear pairing, and
 * products of pairings equal 1 exactly when the products of e_exact do.
 *
 * Contract: inputs are affine points in the ec/ec.h layout (infinity =
 * (0, 0)); they must be on the curve and in the prime-order subgroup: the
 * callers check that (ec/ec.h in_subgroup, the zkey/proof readers). A pair
 * with an infinity point contributes 1. Not constant time (pairing inputs
 * are public). Outputs may not alias inputs of another type; out and f of
 * final_exp may alias. Functions return CZ_ERR_INVALID_ARG for NULL arrays
 * with n > 0 and never allocate.
 */
#ifndef CZ_EC_PAIRING_H
#define CZ_EC_PAIRING_H

#include "ec/ec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- BLS12-381 ---- */

/* f = product over i < n of the Miller loop values of (ps[i], qs[i])
 * (before the final exponentiation; n = 0 gives f = 1). */
cz_status cz_bls12_381_miller_loop(cz_bls12_381_fq12 *f, const cz_bls12_381_g1_affine *ps,
                                   const cz_bls12_381_g2_affine *qs, size_t n);
/* out = f^(3 (p^12 - 1)/r) (see WHICH VALUE above). CZ_ERR_DIV_BY_ZERO
 * (out = 0) for f = 0, which no Miller loop of valid points produces. */
cz_status cz_bls12_381_final_exp(cz_bls12_381_fq12 *out, const cz_bls12_381_fq12 *f);
/* out = e(p, q) */
cz_status cz_bls12_381_pairing(cz_bls12_381_fq12 *out, const cz_bls12_381_g1_affine *p,
                               const cz_bls12_381_g2_affine *q);
/* out = prod e(ps[i], qs[i]): one Miller loop, one final exponentiation */
cz_status cz_bls12_381_multi_pairing(cz_bls12_381_fq12 *out, const cz_bls12_381_g1_affine *ps,
                                     const cz_bls12_381_g2_affine *qs, size_t n);
/* 1 if prod e(ps[i], qs[i]) = 1 (an empty product is 1), 0 otherwise or on
 * an invalid argument. */
int cz_bls12_381_pairing_check(const cz_bls12_381_g1_affine *ps, const cz_bls12_381_g2_affine *qs, size_t n);

/* ---- BN254 ---- */

cz_status cz_bn254_miller_loop(cz_bn254_fq12 *f, const cz_bn254_g1_affine *ps, const cz_bn254_g2_affine *qs,
                               size_t n);
/* out = f^(2x(6x^2+3x+1) (p^12 - 1)/r) (see WHICH VALUE above) */
cz_status cz_bn254_final_exp(cz_bn254_fq12 *out, const cz_bn254_fq12 *f);
cz_status cz_bn254_pairing(cz_bn254_fq12 *out, const cz_bn254_g1_affine *p, const cz_bn254_g2_affine *q);
cz_status cz_bn254_multi_pairing(cz_bn254_fq12 *out, const cz_bn254_g1_affine *ps, const cz_bn254_g2_affine *qs,
                                 size_t n);
int cz_bn254_pairing_check(const cz_bn254_g1_affine *ps, const cz_bn254_g2_affine *qs, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CZ_EC_PAIRING_H */
