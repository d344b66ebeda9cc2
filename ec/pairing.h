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

/* Per curve cz_<curve>_: miller_loop, final_exp, pairing, multi_pairing,
 * pairing_check (ec/pairing_tmpl.h). */
#define CZ_TMPL "ec/pairing_tmpl.h"
#include "util/foreach_curve.h"

#ifdef __cplusplus
}
#endif

#endif /* CZ_EC_PAIRING_H */
