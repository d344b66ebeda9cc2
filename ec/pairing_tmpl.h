/*
 * The pairing of one curve (see ec/pairing.h for the contract): the
 * declarations, instantiated from ec/pairing.h once per curve by
 * util/foreach_curve.h (CZ_G: the functions are CZ_G##_miller_loop, ...).
 */
#define CZ_PF(x) CZ_CAT(CZ_CAT(CZ_G, _), x)
#define CZ_PT_G1A CZ_CAT(CZ_G, _g1_affine)
#define CZ_PT_G2A CZ_CAT(CZ_G, _g2_affine)
#define CZ_PT_FQ12 CZ_CAT(CZ_G, _fq12)

/* f = product over i < n of the Miller loop values of (ps[i], qs[i])
 * (before the final exponentiation; n = 0 gives f = 1). */
cz_status CZ_PF(miller_loop)(CZ_PT_FQ12 *f, const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n);
/* out = f^(m (p^12 - 1)/r), m = 3 for BLS12-381, 2x(6x^2+3x+1) for BN254
 * (see WHICH VALUE above). CZ_ERR_DIV_BY_ZERO (out = 0) for f = 0, which
 * no Miller loop of valid points produces. */
cz_status CZ_PF(final_exp)(CZ_PT_FQ12 *out, const CZ_PT_FQ12 *f);
/* out = e(p, q) */
cz_status CZ_PF(pairing)(CZ_PT_FQ12 *out, const CZ_PT_G1A *p, const CZ_PT_G2A *q);
/* out = prod e(ps[i], qs[i]): one Miller loop, one final exponentiation */
cz_status CZ_PF(multi_pairing)(CZ_PT_FQ12 *out, const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n);
/* 1 if prod e(ps[i], qs[i]) = 1 (an empty product is 1), 0 otherwise or on
 * an invalid argument. */
int CZ_PF(pairing_check)(const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n);

#undef CZ_PF
#undef CZ_PT_G1A
#undef CZ_PT_G2A
#undef CZ_PT_FQ12
