/*
 * ec/pairing: Miller loops (ec/pairing_tmpl_impl.h, instantiated per curve) and
 * the per-curve final exponentiations (written out: each is its own
 * addition chain). See ec/pairing.h for the contract
 * and for exactly which power of the reduced pairing is returned.
 *
 * DESIGN: final exponentiation f -> f^((p^12 - 1)/r * m).
 * Easy part f1 = f^((p^6 - 1)(p^2 + 1)) = frob2(g) g with g = conj(f)/f: one
 * Fq12 inversion. f1 then lies in the cyclotomic subgroup, where the
 * inverse is the conjugate and squaring is Granger-Scott. Hard part with
 * h = (p^4 - p^2 + 1)/r:
 *   BLS12-381 (Hayashida-Hayasaka-Teruya 2020):
 *     3h = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3      (m = 3)
 *     five exponentiations by x (64 bits, 6 non-zero NAF digits).
 *   BN254 (Fuentes-Castaneda-Knapp-Rodriguez-Henriquez 2011):
 *     2x(6x^2 + 3x + 1) h = l0 + l1 p + l2 p^2 + l3 p^3 with
 *       l2 = 12x^3 + 6x^2 + 6x,   l1 = l2 - 2x,
 *       l0 = l2 + 6x^2 + 1,       l3 = l1 - 1         (m = 2x(6x^2+3x+1))
 *     three exponentiations by x (63 bits).
 * Both identities were checked with exact integer arithmetic (and the
 * results against ffjavascript); tests/test_pairing.c checks final_exp
 * against a plain pow() by m (p^12 - 1)/r on random Fq12 elements.
 */
#include "ec/pairing.h"

/* ---- the Miller loops: each curve's twist type and loop scalar ---- */

/* BLS12-381: M-type twist, loop over |x|, x = -0xd201000000010000 < 0 */
#define CZ_BLS12_381_X_ABS 0xd201000000010000ULL
#define CZ_BLS12_381_PAIRING_MTWIST 1
#define CZ_BLS12_381_PAIRING_LOOP CZ_BLS12_381_X_ABS
#define CZ_BLS12_381_PAIRING_LOOP_NEG 1
#define CZ_BLS12_381_PAIRING_BN_TAIL 0

/* BN254: D-type twist, loop over 6x + 2 = 0x19d797039be763ba8 */
#define CZ_BN254_X 4965661367192848881ULL
#define CZ_BN254_PAIRING_MTWIST 0
#define CZ_BN254_PAIRING_LOOP ((((cz_u128)1) << 64) | 0x9d797039be763ba8ULL)
#define CZ_BN254_PAIRING_LOOP_NEG 0
#define CZ_BN254_PAIRING_BN_TAIL 1

#define CZ_TMPL "ec/pairing_tmpl_impl.h"
#include "util/foreach_curve.h"

/* ---- final exponentiations ---- */

/* f1 = f^((p^6 - 1)(p^2 + 1)); CZ_ERR_DIV_BY_ZERO for f = 0 */
#define CZ_EASY_PART(F12, r, f)                                                                    \
    do {                                                                                           \
        F12##_fq12 inv_, t_;                                                                       \
        if (F12##_fq12_inv(&inv_, (f)) != CZ_OK) {                                                 \
            F12##_fq12_set_zero(r);                                                                \
            return CZ_ERR_DIV_BY_ZERO;                                                             \
        }                                                                                          \
        F12##_fq12_conj(&t_, (f));                                                                 \
        F12##_fq12_mul(&t_, &t_, &inv_);                                                           \
        F12##_fq12_frobenius(&inv_, &t_, 2);                                                       \
        F12##_fq12_mul((r), &inv_, &t_);                                                           \
    } while (0)

/* r = a^x for BLS12-381's x < 0 on the cyclotomic subgroup */
static void bls12_381_exp_x(cz_bls12_381_fq12 *r, const cz_bls12_381_fq12 *a)
{
    cz_bls12_381_cyc_pow_(r, a, CZ_BLS12_381_X_ABS);
    cz_bls12_381_fq12_conj(r, r);
}

cz_status cz_bls12_381_final_exp(cz_bls12_381_fq12 *out, const cz_bls12_381_fq12 *f)
{
    if (!out || !f) return CZ_ERR_INVALID_ARG;
    cz_bls12_381_fq12 f1, a, b, c, t;
    CZ_EASY_PART(cz_bls12_381, &f1, f);
    /* a = f1^((x - 1)^2) */
    bls12_381_exp_x(&a, &f1);
    cz_bls12_381_fq12_conj(&t, &f1);
    cz_bls12_381_fq12_mul(&a, &a, &t);
    bls12_381_exp_x(&t, &a);
    cz_bls12_381_fq12_conj(&a, &a);
    cz_bls12_381_fq12_mul(&a, &t, &a);
    /* b = a^(x + p) */
    bls12_381_exp_x(&b, &a);
    cz_bls12_381_fq12_frobenius(&t, &a, 1);
    cz_bls12_381_fq12_mul(&b, &b, &t);
    /* c = b^(x^2 + p^2 - 1) */
    bls12_381_exp_x(&c, &b);
    bls12_381_exp_x(&c, &c);
    cz_bls12_381_fq12_frobenius(&t, &b, 2);
    cz_bls12_381_fq12_mul(&c, &c, &t);
    cz_bls12_381_fq12_conj(&t, &b);
    cz_bls12_381_fq12_mul(&c, &c, &t);
    /* out = c f1^3 */
    cz_bls12_381_fq12_cyclotomic_sqr(&t, &f1);
    cz_bls12_381_fq12_mul(&t, &t, &f1);
    cz_bls12_381_fq12_mul(out, &c, &t);
    return CZ_OK;
}

cz_status cz_bn254_final_exp(cz_bn254_fq12 *out, const cz_bn254_fq12 *f)
{
    if (!out || !f) return CZ_ERR_INVALID_ARG;
    cz_bn254_fq12 f1, fx, f2x, f6x, f6x2, f12x3, a, b, t;
    CZ_EASY_PART(cz_bn254, &f1, f);
    cz_bn254_cyc_pow_(&fx, &f1, CZ_BN254_X);     /* f^x */
    cz_bn254_fq12_cyclotomic_sqr(&f2x, &fx);     /* f^2x */
    cz_bn254_fq12_cyclotomic_sqr(&t, &f2x);      /* f^4x */
    cz_bn254_fq12_mul(&f6x, &t, &f2x);           /* f^6x */
    cz_bn254_cyc_pow_(&f6x2, &f6x, CZ_BN254_X);  /* f^6x^2 */
    cz_bn254_fq12_cyclotomic_sqr(&t, &f6x2);     /* f^12x^2 */
    cz_bn254_cyc_pow_(&f12x3, &t, CZ_BN254_X);   /* f^12x^3 */
    /* a = f^l2, b = f^l1 */
    cz_bn254_fq12_mul(&a, &f12x3, &f6x2);
    cz_bn254_fq12_mul(&a, &a, &f6x);
    cz_bn254_fq12_conj(&t, &f2x);
    cz_bn254_fq12_mul(&b, &a, &t);
    /* out = f^l0 * (f^l1)^p * (f^l2)^(p^2) * (f^l3)^(p^3) */
    cz_bn254_fq12 acc;
    cz_bn254_fq12_mul(&acc, &a, &f6x2);
    cz_bn254_fq12_mul(&acc, &acc, &f1); /* f^l0 */
    cz_bn254_fq12_frobenius(&t, &b, 1);
    cz_bn254_fq12_mul(&acc, &acc, &t);
    cz_bn254_fq12_frobenius(&t, &a, 2);
    cz_bn254_fq12_mul(&acc, &acc, &t);
    cz_bn254_fq12_conj(&t, &f1);
    cz_bn254_fq12_mul(&t, &t, &b); /* f^l3 */
    cz_bn254_fq12_frobenius(&t, &t, 3);
    cz_bn254_fq12_mul(out, &acc, &t);
    return CZ_OK;
}
