/*
 * Sextic and dodecic extension template, instantiated from ff/tower.h once
 * per curve by util/foreach_curve.h; from CZ_G:
 *   CZ_F12     the Fq12 type/prefix (e.g. cz_bls12_381_fq12)
 *   CZ_F6      the Fq6 type/prefix  (e.g. cz_bls12_381_fq6)
 *   CZ_F2      the Fq2 type/prefix  (e.g. cz_bls12_381_fq2, ff/fq2_tmpl.h)
 *   CZ_F2_B    the base field       (e.g. cz_bls12_381_fq)
 *
 * Tower: Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v), so w^6 = xi with
 * xi = 1 + u (BLS12-381) or 9 + u (BN254) (Fq2's mul_by_xi). This is the
 * tower of ffjavascript/snarkjs, zkcrypto and arkworks, so an Fq12 element's
 * coefficients (c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2), each an Fq2
 * element, are exactly snarkjs's Gt layout [[c00, c01, c02], [c10, c11, c12]].
 * In powers of w: c0.c0 = a0, c0.c1 = a2, c0.c2 = a4, c1.c0 = a1,
 * c1.c1 = a3, c1.c2 = a5 for x = sum_j a_j w^j.
 *
 * Contract: coefficients in Montgomery form, fully reduced (as in ff/ff.h);
 * every function allows its output to alias any input. Not constant time
 * (inv, pow), which is fine for the pairing: it works on public data.
 *
 * Frobenius maps x -> x^(p^k) use the precomputed coefficients of
 * ff/tower_consts.inc (tools/gen_tower_consts.py), checked against pow() and
 * an independent GMP model in tests/test_tower.c.
 */
#define CZ_F12 CZ_CAT(CZ_G, _fq12)
#define CZ_F6 CZ_CAT(CZ_G, _fq6)
#define CZ_F2 CZ_CAT(CZ_G, _fq2)
#define CZ_F2_B CZ_CAT(CZ_G, _fq)
#define CZ_T12(x) CZ_CAT(CZ_CAT(CZ_F12, _), x)
#define CZ_T6(x) CZ_CAT(CZ_CAT(CZ_F6, _), x)
#define CZ_T2(x) CZ_CAT(CZ_CAT(CZ_F2, _), x)

typedef struct {
    CZ_F2 c0, c1, c2; /* c0 + c1 v + c2 v^2 */
} CZ_F6;

typedef struct {
    CZ_F6 c0, c1; /* c0 + c1 w */
} CZ_F12;

/* ---- Fq6 ---- */
CZ_INLINE void CZ_T6(set_zero)(CZ_F6 *r)
{
    CZ_T2(set_zero)(&r->c0);
    CZ_T2(set_zero)(&r->c1);
    CZ_T2(set_zero)(&r->c2);
}
CZ_INLINE void CZ_T6(set_one)(CZ_F6 *r)
{
    CZ_T2(set_one)(&r->c0);
    CZ_T2(set_zero)(&r->c1);
    CZ_T2(set_zero)(&r->c2);
}
CZ_INLINE int CZ_T6(is_zero)(const CZ_F6 *a)
{
    return CZ_T2(is_zero)(&a->c0) & CZ_T2(is_zero)(&a->c1) & CZ_T2(is_zero)(&a->c2);
}
CZ_INLINE int CZ_T6(is_one)(const CZ_F6 *a)
{
    return CZ_T2(is_one)(&a->c0) & CZ_T2(is_zero)(&a->c1) & CZ_T2(is_zero)(&a->c2);
}
CZ_INLINE int CZ_T6(eq)(const CZ_F6 *a, const CZ_F6 *b)
{
    return CZ_T2(eq)(&a->c0, &b->c0) & CZ_T2(eq)(&a->c1, &b->c1) & CZ_T2(eq)(&a->c2, &b->c2);
}
CZ_INLINE void CZ_T6(add)(CZ_F6 *r, const CZ_F6 *a, const CZ_F6 *b)
{
    CZ_T2(add)(&r->c0, &a->c0, &b->c0);
    CZ_T2(add)(&r->c1, &a->c1, &b->c1);
    CZ_T2(add)(&r->c2, &a->c2, &b->c2);
}
CZ_INLINE void CZ_T6(sub)(CZ_F6 *r, const CZ_F6 *a, const CZ_F6 *b)
{
    CZ_T2(sub)(&r->c0, &a->c0, &b->c0);
    CZ_T2(sub)(&r->c1, &a->c1, &b->c1);
    CZ_T2(sub)(&r->c2, &a->c2, &b->c2);
}
CZ_INLINE void CZ_T6(neg)(CZ_F6 *r, const CZ_F6 *a)
{
    CZ_T2(neg)(&r->c0, &a->c0);
    CZ_T2(neg)(&r->c1, &a->c1);
    CZ_T2(neg)(&r->c2, &a->c2);
}
CZ_INLINE void CZ_T6(dbl)(CZ_F6 *r, const CZ_F6 *a)
{
    CZ_T2(dbl)(&r->c0, &a->c0);
    CZ_T2(dbl)(&r->c1, &a->c1);
    CZ_T2(dbl)(&r->c2, &a->c2);
}
/* r = a * v = xi a2 + a0 v + a1 v^2 */
CZ_INLINE void CZ_T6(mul_by_v)(CZ_F6 *r, const CZ_F6 *a)
{
    CZ_F2 t;
    CZ_T2(mul_by_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* ---- out-of-line Fq6 (ff/tower.c) ---- */
void CZ_T6(mul)(CZ_F6 *r, const CZ_F6 *a, const CZ_F6 *b);
void CZ_T6(sqr)(CZ_F6 *r, const CZ_F6 *a);
/* r = 1/a; CZ_ERR_DIV_BY_ZERO (r = 0) for a = 0 */
cz_status CZ_T6(inv)(CZ_F6 *r, const CZ_F6 *a);
/* r = a * b with b an Fq2 element */
void CZ_T6(mul_by_fq2)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b);
/* r = a * (b0 + b1 v): the sparse product of line evaluation */
void CZ_T6(mul_by_01)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b0, const CZ_F2 *b1);
/* r = a * (b1 v) */
void CZ_T6(mul_by_1)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b1);
/* r = a^(p^k), any k >= 0 (taken mod 6) */
void CZ_T6(frobenius)(CZ_F6 *r, const CZ_F6 *a, unsigned k);
/* r = a^e, e as ne little-endian 64-bit limbs */
void CZ_T6(pow)(CZ_F6 *r, const CZ_F6 *a, const uint64_t *e, size_t ne);
void CZ_T6(random)(CZ_F6 *r, cz_rng *rng);

/* ---- Fq12 ---- */
CZ_INLINE void CZ_T12(set_zero)(CZ_F12 *r)
{
    CZ_T6(set_zero)(&r->c0);
    CZ_T6(set_zero)(&r->c1);
}
CZ_INLINE void CZ_T12(set_one)(CZ_F12 *r)
{
    CZ_T6(set_one)(&r->c0);
    CZ_T6(set_zero)(&r->c1);
}
CZ_INLINE int CZ_T12(is_zero)(const CZ_F12 *a) { return CZ_T6(is_zero)(&a->c0) & CZ_T6(is_zero)(&a->c1); }
CZ_INLINE int CZ_T12(is_one)(const CZ_F12 *a) { return CZ_T6(is_one)(&a->c0) & CZ_T6(is_zero)(&a->c1); }
CZ_INLINE int CZ_T12(eq)(const CZ_F12 *a, const CZ_F12 *b)
{
    return CZ_T6(eq)(&a->c0, &b->c0) & CZ_T6(eq)(&a->c1, &b->c1);
}
CZ_INLINE void CZ_T12(add)(CZ_F12 *r, const CZ_F12 *a, const CZ_F12 *b)
{
    CZ_T6(add)(&r->c0, &a->c0, &b->c0);
    CZ_T6(add)(&r->c1, &a->c1, &b->c1);
}
CZ_INLINE void CZ_T12(sub)(CZ_F12 *r, const CZ_F12 *a, const CZ_F12 *b)
{
    CZ_T6(sub)(&r->c0, &a->c0, &b->c0);
    CZ_T6(sub)(&r->c1, &a->c1, &b->c1);
}
CZ_INLINE void CZ_T12(neg)(CZ_F12 *r, const CZ_F12 *a)
{
    CZ_T6(neg)(&r->c0, &a->c0);
    CZ_T6(neg)(&r->c1, &a->c1);
}
/* r = conj(a) = c0 - c1 w = a^(p^6): the inverse on the cyclotomic subgroup */
CZ_INLINE void CZ_T12(conj)(CZ_F12 *r, const CZ_F12 *a)
{
    r->c0 = a->c0;
    CZ_T6(neg)(&r->c1, &a->c1);
}

/* ---- out-of-line Fq12 (ff/tower.c) ---- */
void CZ_T12(mul)(CZ_F12 *r, const CZ_F12 *a, const CZ_F12 *b);
void CZ_T12(sqr)(CZ_F12 *r, const CZ_F12 *a);
/* r = 1/a; CZ_ERR_DIV_BY_ZERO (r = 0) for a = 0 */
cz_status CZ_T12(inv)(CZ_F12 *r, const CZ_F12 *a);
/* r = a^(p^k), any k >= 0 (taken mod 12) */
void CZ_T12(frobenius)(CZ_F12 *r, const CZ_F12 *a, unsigned k);
/* r = a^e, e as ne little-endian 64-bit limbs */
void CZ_T12(pow)(CZ_F12 *r, const CZ_F12 *a, const uint64_t *e, size_t ne);
/* r = a^2 for a in the cyclotomic subgroup {a : a^(p^4 - p^2 + 1) = 1}
 * (every output of the easy part of the final exponentiation lies there);
 * Granger-Scott, 6 Fq2 squarings instead of 12 Fq2 products. The result is
 * meaningless for other a. */
void CZ_T12(cyclotomic_sqr)(CZ_F12 *r, const CZ_F12 *a);
/* Sparse products with a line value (see ec/pairing.c):
 *   mul_by_014: r = a * (o0 + o1 v + o4 v w)   (coefficients c0.c0, c0.c1, c1.c1; M-type twist)
 *   mul_by_034: r = a * (o0 + o3 w + o4 v w)   (coefficients c0.c0, c1.c0, c1.c1; D-type twist) */
void CZ_T12(mul_by_014)(CZ_F12 *r, const CZ_F12 *a, const CZ_F2 *o0, const CZ_F2 *o1, const CZ_F2 *o4);
void CZ_T12(mul_by_034)(CZ_F12 *r, const CZ_F12 *a, const CZ_F2 *o0, const CZ_F2 *o3, const CZ_F2 *o4);
/* gamma(k, j) = xi^(j (p^k - 1) / 6) for 1 <= k <= 11, 1 <= j <= 5: the
 * Frobenius coefficients (also what untwists the p^k-power Frobenius on G2). */
const CZ_F2 *CZ_T12(frob_coeff)(unsigned k, unsigned j);
void CZ_T12(random)(CZ_F12 *r, cz_rng *rng);

#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_T12
#undef CZ_T6
#undef CZ_T2
