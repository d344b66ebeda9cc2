/* Out-of-line Fq2 functions (see ff/fq2_tmpl.h), instantiated from
 * ff/tower.c once per curve by util/foreach_curve.h. */
#define CZ_F2 CZ_CAT(CZ_G, _fq2)
#define CZ_F2_B CZ_CAT(CZ_G, _fq)
#define CZ_F2FN(x) CZ_CAT(CZ_CAT(CZ_F2, _), x)
#define CZ_BFN(x) CZ_CAT(CZ_CAT(CZ_F2_B, _), x)

void CZ_F2FN(mul)(CZ_F2 *r, const CZ_F2 *a, const CZ_F2 *b)
{
    cz_mont_fq2_mul(r->c0.l, r->c1.l, a->c0.l, a->c1.l, b->c0.l, b->c1.l, CZ_BFN(modulus), CZ_BFN(pinv),
                    CZ_BFN(LIMBS));
}

void CZ_F2FN(sqr)(CZ_F2 *r, const CZ_F2 *a)
{
    cz_mont_fq2_sqr(r->c0.l, r->c1.l, a->c0.l, a->c1.l, CZ_BFN(modulus), CZ_BFN(pinv), CZ_BFN(LIMBS));
}

cz_status CZ_F2FN(inv)(CZ_F2 *r, const CZ_F2 *a)
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    CZ_F2_B t0, t1;
    CZ_BFN(sqr)(&t0, &a->c0);
    CZ_BFN(sqr)(&t1, &a->c1);
    CZ_BFN(add)(&t0, &t0, &t1);
    cz_status st = CZ_BFN(inv)(&t1, &t0);
    if (st != CZ_OK) {
        CZ_F2FN(set_zero)(r);
        return st;
    }
    CZ_BFN(mul)(&r->c0, &a->c0, &t1);
    CZ_BFN(mul)(&r->c1, &a->c1, &t1);
    CZ_BFN(neg)(&r->c1, &r->c1);
    return CZ_OK;
}

void CZ_F2FN(pow)(CZ_F2 *r, const CZ_F2 *a, const uint64_t *e, size_t ne)
{
    CZ_F2 acc, base = *a;
    CZ_F2FN(set_one)(&acc);
    size_t top = ne * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        CZ_F2FN(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) CZ_F2FN(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

int CZ_F2FN(is_square)(const CZ_F2 *a)
{
    /* a is a square in Fq2 iff its norm a0^2 + a1^2 is a square in Fq */
    CZ_F2_B t0, t1;
    CZ_BFN(sqr)(&t0, &a->c0);
    CZ_BFN(sqr)(&t1, &a->c1);
    CZ_BFN(add)(&t0, &t0, &t1);
    return CZ_BFN(legendre)(&t0) >= 0;
}

cz_status CZ_F2FN(sqrt)(CZ_F2 *r, const CZ_F2 *a)
{
    /*
     * "Complex" method for u^2 = -1: with alpha = sqrt(a0^2 + a1^2) in Fq,
     * x0^2 = (a0 + alpha)/2 (or (a0 - alpha)/2 when that one is no square),
     * x1 = a1 / (2 x0). For a1 = 0 the root is sqrt(a0) or sqrt(-a0)*u.
     */
    CZ_F2 out;
    if (CZ_BFN(is_zero)(&a->c1)) {
        CZ_F2_B t;
        if (CZ_BFN(sqrt)(&t, &a->c0) == CZ_OK) {
            out.c0 = t;
            CZ_BFN(set_zero)(&out.c1);
        } else {
            CZ_BFN(neg)(&t, &a->c0);
            if (CZ_BFN(sqrt)(&out.c1, &t) != CZ_OK) return CZ_ERR_NOT_SQUARE;
            CZ_BFN(set_zero)(&out.c0);
        }
        *r = out;
        return CZ_OK;
    }
    CZ_F2_B n, t1, alpha, delta, x0, x1;
    CZ_BFN(sqr)(&n, &a->c0);
    CZ_BFN(sqr)(&t1, &a->c1);
    CZ_BFN(add)(&n, &n, &t1);
    if (CZ_BFN(sqrt)(&alpha, &n) != CZ_OK) return CZ_ERR_NOT_SQUARE;
    CZ_BFN(add)(&delta, &a->c0, &alpha);
    CZ_BFN(half)(&delta, &delta);
    if (CZ_BFN(sqrt)(&x0, &delta) != CZ_OK) {
        CZ_BFN(sub)(&delta, &a->c0, &alpha);
        CZ_BFN(half)(&delta, &delta);
        if (CZ_BFN(sqrt)(&x0, &delta) != CZ_OK) return CZ_ERR_NOT_SQUARE;
    }
    CZ_BFN(dbl)(&t1, &x0);
    if (CZ_BFN(inv)(&t1, &t1) != CZ_OK) return CZ_ERR_NOT_SQUARE; /* x0 = 0 only if a1 = 0 */
    CZ_BFN(mul)(&x1, &a->c1, &t1);
    out.c0 = x0;
    out.c1 = x1;
    /* guard: verify */
    CZ_F2 chk;
    CZ_F2FN(sqr)(&chk, &out);
    if (!CZ_F2FN(eq)(&chk, a)) return CZ_ERR_NOT_SQUARE;
    *r = out;
    return CZ_OK;
}

int CZ_F2FN(is_lex_largest)(const CZ_F2 *a)
{
    if (!CZ_BFN(is_zero)(&a->c1)) return CZ_BFN(is_lex_largest)(&a->c1);
    return CZ_BFN(is_lex_largest)(&a->c0);
}

void CZ_F2FN(random)(CZ_F2 *r, cz_rng *rng)
{
    CZ_BFN(random)(&r->c0, rng);
    CZ_BFN(random)(&r->c1, rng);
}

#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F2FN
#undef CZ_BFN
