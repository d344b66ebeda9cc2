/*
 * Quadratic extension template Fq2 = Fq[u] / (u^2 + 1), instantiated from
 * ff/tower.h once per curve by util/foreach_curve.h; from CZ_G, CZ_G_C:
 *   CZ_F2      the type/prefix (e.g. cz_bls12_381_fq2)
 *   CZ_F2_B    the base field   (e.g. cz_bls12_381_fq)
 *   CZ_F2_XI   c in the sextic non-residue xi = c + u used by Fq6: CONST_FQ2_XI
 *              of ff/tower_consts.inc (1 for BLS12-381, 9 for BN254)
 * Both curves have p = 3 mod 4, so -1 is a non-residue and u^2 = -1.
 * Elements are c0 + c1*u; all functions allow aliasing.
 */
#define CZ_F2 CZ_CAT(CZ_G, _fq2)
#define CZ_F2_B CZ_CAT(CZ_G, _fq)
#define CZ_F2_XI CZ_CAT(CZ_G_C, _FQ2_XI)
#define CZ_F2FN(x) CZ_CAT(CZ_CAT(CZ_F2, _), x)
#define CZ_BFN(x) CZ_CAT(CZ_CAT(CZ_F2_B, _), x)
#if CZ_F2_XI != 1 && CZ_F2_XI != 9
#error "ff/fq2_tmpl.h: mul_by_xi knows xi = 1 + u and 9 + u only"
#endif

typedef struct {
    CZ_F2_B c0, c1;
} CZ_F2;

CZ_INLINE void CZ_F2FN(set_zero)(CZ_F2 *r)
{
    CZ_BFN(set_zero)(&r->c0);
    CZ_BFN(set_zero)(&r->c1);
}
CZ_INLINE void CZ_F2FN(set_one)(CZ_F2 *r)
{
    CZ_BFN(set_one)(&r->c0);
    CZ_BFN(set_zero)(&r->c1);
}
CZ_INLINE int CZ_F2FN(is_zero)(const CZ_F2 *a) { return CZ_BFN(is_zero)(&a->c0) & CZ_BFN(is_zero)(&a->c1); }
CZ_INLINE int CZ_F2FN(is_one)(const CZ_F2 *a) { return CZ_BFN(is_one)(&a->c0) & CZ_BFN(is_zero)(&a->c1); }
CZ_INLINE int CZ_F2FN(eq)(const CZ_F2 *a, const CZ_F2 *b)
{
    return CZ_BFN(eq)(&a->c0, &b->c0) & CZ_BFN(eq)(&a->c1, &b->c1);
}
CZ_INLINE void CZ_F2FN(add)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2 *b)
{
    CZ_BFN(add)(&r->c0, &a->c0, &b->c0);
    CZ_BFN(add)(&r->c1, &a->c1, &b->c1);
}
CZ_INLINE void CZ_F2FN(sub)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2 *b)
{
    CZ_BFN(sub)(&r->c0, &a->c0, &b->c0);
    CZ_BFN(sub)(&r->c1, &a->c1, &b->c1);
}
CZ_INLINE void CZ_F2FN(neg)(CZ_F2 *r, const CZ_F2 *a)
{
    CZ_BFN(neg)(&r->c0, &a->c0);
    CZ_BFN(neg)(&r->c1, &a->c1);
}
CZ_INLINE void CZ_F2FN(dbl)(CZ_F2 *r, const CZ_F2 *a)
{
    CZ_BFN(dbl)(&r->c0, &a->c0);
    CZ_BFN(dbl)(&r->c1, &a->c1);
}
CZ_INLINE void CZ_F2FN(half)(CZ_F2 *r, const CZ_F2 *a)
{
    CZ_BFN(half)(&r->c0, &a->c0);
    CZ_BFN(half)(&r->c1, &a->c1);
}
/* conjugate = Frobenius x -> x^p */
CZ_INLINE void CZ_F2FN(conj)(CZ_F2 *r, const CZ_F2 *a)
{
    r->c0 = a->c0;
    CZ_BFN(neg)(&r->c1, &a->c1);
}
/* Products are out of line (ff/tower.c): Karatsuba over double-width
 * products with two reductions (ff/mont.h cz_mont_fq2_mul); the square is
 * two base products with lazily reduced operands (cz_mont_fq2_sqr). */
void CZ_F2FN(mul)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2 *b);
void CZ_F2FN(sqr)(CZ_F2 *r, const CZ_F2 *a);
/* the names of the base fields' inlined products (fp_tmpl.h); here calls */
CZ_INLINE void CZ_F2FN(mul_inl)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2 *b) { CZ_F2FN(mul)(r, a, b); }
CZ_INLINE void CZ_F2FN(sqr_inl)(CZ_F2 *r, const CZ_F2 *a) { CZ_F2FN(sqr)(r, a); }
/* r = a * b with b in the base field */
CZ_INLINE void CZ_F2FN(mul_base)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2_B *b)
{
    CZ_BFN(mul)(&r->c0, &a->c0, b);
    CZ_BFN(mul)(&r->c1, &a->c1, b);
}
/* r = a * xi, xi = XI + u: (XI*a0 - a1) + (a0 + XI*a1) u */
CZ_INLINE void CZ_F2FN(mul_by_xi)(CZ_F2 *r, const CZ_F2 *a)
{
    CZ_F2_B k0, k1, t;
    if (CZ_F2_XI == 1) {
        k0 = a->c0;
        k1 = a->c1;
    } else { /* 9 = 8 + 1 */
        CZ_BFN(mul8)(&k0, &a->c0);
        CZ_BFN(add)(&k0, &k0, &a->c0);
        CZ_BFN(mul8)(&k1, &a->c1);
        CZ_BFN(add)(&k1, &k1, &a->c1);
    }
    CZ_BFN(sub)(&t, &k0, &a->c1);
    CZ_BFN(add)(&r->c1, &a->c0, &k1);
    r->c0 = t;
}
/* r = a * u = -a1 + a0 u */
CZ_INLINE void CZ_F2FN(mul_by_u)(CZ_F2 *r, const CZ_F2 *a)
{
    CZ_F2_B t;
    CZ_BFN(neg)(&t, &a->c1);
    r->c1 = a->c0;
    r->c0 = t;
}
CZ_INLINE void CZ_F2FN(from_base)(CZ_F2 *r, const CZ_F2_B *a)
{
    r->c0 = *a;
    CZ_BFN(set_zero)(&r->c1);
}

/* ---- out-of-line (ff/tower.c) ---- */
/* r = 1/a; CZ_ERR_DIV_BY_ZERO (r = 0) for a = 0 */
cz_status CZ_F2FN(inv)(CZ_F2 *r, const CZ_F2 *a);
/* r = a^e, e as ne little-endian limbs */
void CZ_F2FN(pow)(CZ_F2 *r, const CZ_F2 *a, const uint64_t *e, size_t ne);
/* A square root of a, CZ_ERR_NOT_SQUARE if none. Root choice unspecified. */
cz_status CZ_F2FN(sqrt)(CZ_F2 *r, const CZ_F2 *a);
/* 1 if a is a square (a = 0 included) */
int CZ_F2FN(is_square)(const CZ_F2 *a);
/* zcash/IETF sign of an Fq2 element: c1 lexicographically largest, or
 * c1 = 0 and c0 lexicographically largest */
int CZ_F2FN(is_lex_largest)(const CZ_F2 *a);
void CZ_F2FN(random)(CZ_F2 *r, cz_rng *rng);

#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2_XI
#undef CZ_F2FN
#undef CZ_BFN
