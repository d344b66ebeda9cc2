/*
 * Out-of-line Fq6/Fq12 functions (see ff/fq12_tmpl.h), instantiated from
 * ff/tower.c once per curve by util/foreach_curve.h; from CZ_G, CZ_G_C the
 * types of ff/fq12_tmpl.h and
 *   CZ_F12_FROB_INIT  initialiser of the 11 x 5 Frobenius coefficients
 *                     gamma[k-1][j-1] = xi^(j (p^k - 1) / 6): CONST_FQ12_FROB_INIT
 *                     of ff/tower_consts.inc
 */
#define CZ_F12 CZ_CAT(CZ_G, _fq12)
#define CZ_F6 CZ_CAT(CZ_G, _fq6)
#define CZ_F2 CZ_CAT(CZ_G, _fq2)
#define CZ_F2_B CZ_CAT(CZ_G, _fq)
#define CZ_F12_FROB_INIT CZ_CAT(CZ_G_C, _FQ12_FROB_INIT)
#define CZ_T12(x) CZ_CAT(CZ_CAT(CZ_F12, _), x)
#define CZ_T6(x) CZ_CAT(CZ_CAT(CZ_F6, _), x)
#define CZ_T2(x) CZ_CAT(CZ_CAT(CZ_F2, _), x)
#define CZ_TB(x) CZ_CAT(CZ_CAT(CZ_F2_B, _), x)

static const CZ_F2 CZ_T12(gamma_)[11][5] = CZ_F12_FROB_INIT;

const CZ_F2 *CZ_T12(frob_coeff)(unsigned k, unsigned j)
{
    CZ_VERIFY_CHECK(k >= 1 && k <= 11 && j >= 1 && j <= 5);
    return &CZ_T12(gamma_)[k - 1][j - 1];
}

/* r = frob_k(a) * gamma(k, j), frob_k = conjugation for odd k; for even k
 * gamma lies in Fq (tools/gen_tower_consts.py asserts it), one Fq product
 * per half. */
static inline void CZ_T12(frob_coef_)(CZ_F2 *r, const CZ_F2 *a, unsigned k, unsigned j)
{
    const CZ_F2 *g = &CZ_T12(gamma_)[k - 1][j - 1];
    if (k & 1) {
        CZ_F2 t;
        CZ_T2(conj)(&t, a);
        CZ_T2(mul)(r, &t, g);
    } else {
        CZ_T2(mul_base)(r, a, &g->c0);
    }
}

/* ---- Fq6 ---- */

void CZ_T6(mul)(CZ_F6 *r, const CZ_F6 *a, const CZ_F6 *b)
{
    /* Karatsuba over v: 6 Fq2 products */
    CZ_F2 t0, t1, t2, s, u, c0, c1, c2;
    CZ_T2(mul)(&t0, &a->c0, &b->c0);
    CZ_T2(mul)(&t1, &a->c1, &b->c1);
    CZ_T2(mul)(&t2, &a->c2, &b->c2);
    /* c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2) */
    CZ_T2(add)(&s, &a->c1, &a->c2);
    CZ_T2(add)(&u, &b->c1, &b->c2);
    CZ_T2(mul)(&s, &s, &u);
    CZ_T2(sub)(&s, &s, &t1);
    CZ_T2(sub)(&s, &s, &t2);
    CZ_T2(mul_by_xi)(&s, &s);
    CZ_T2(add)(&c0, &s, &t0);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2 */
    CZ_T2(add)(&s, &a->c0, &a->c1);
    CZ_T2(add)(&u, &b->c0, &b->c1);
    CZ_T2(mul)(&s, &s, &u);
    CZ_T2(sub)(&s, &s, &t0);
    CZ_T2(sub)(&s, &s, &t1);
    CZ_T2(mul_by_xi)(&u, &t2);
    CZ_T2(add)(&c1, &s, &u);
    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    CZ_T2(add)(&s, &a->c0, &a->c2);
    CZ_T2(add)(&u, &b->c0, &b->c2);
    CZ_T2(mul)(&s, &s, &u);
    CZ_T2(sub)(&s, &s, &t0);
    CZ_T2(sub)(&s, &s, &t2);
    CZ_T2(add)(&c2, &s, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void CZ_T6(sqr)(CZ_F6 *r, const CZ_F6 *a)
{
    /* Chung-Hasan SQR2: 2 products + 3 squarings in Fq2 */
    CZ_F2 s0, s1, s2, s3, s4, t;
    CZ_T2(sqr)(&s0, &a->c0);
    CZ_T2(mul)(&s1, &a->c0, &a->c1);
    CZ_T2(dbl)(&s1, &s1);
    CZ_T2(sub)(&t, &a->c0, &a->c1);
    CZ_T2(add)(&t, &t, &a->c2);
    CZ_T2(sqr)(&s2, &t);
    CZ_T2(mul)(&s3, &a->c1, &a->c2);
    CZ_T2(dbl)(&s3, &s3);
    CZ_T2(sqr)(&s4, &a->c2);
    /* c2 = s1 + s2 + s3 - s0 - s4 */
    CZ_T2(add)(&t, &s1, &s2);
    CZ_T2(add)(&t, &t, &s3);
    CZ_T2(sub)(&t, &t, &s0);
    CZ_T2(sub)(&r->c2, &t, &s4);
    /* c0 = s0 + xi s3, c1 = s1 + xi s4 */
    CZ_T2(mul_by_xi)(&s3, &s3);
    CZ_T2(add)(&r->c0, &s0, &s3);
    CZ_T2(mul_by_xi)(&s4, &s4);
    CZ_T2(add)(&r->c1, &s1, &s4);
}

cz_status CZ_T6(inv)(CZ_F6 *r, const CZ_F6 *a)
{
    /* 1/a = (A + B v + C v^2) / F with A = a0^2 - xi a1 a2,
     * B = xi a2^2 - a0 a1, C = a1^2 - a0 a2, F = a0 A + xi (a2 B + a1 C) */
    CZ_F2 A, B, C, F, t;
    CZ_T2(sqr)(&A, &a->c0);
    CZ_T2(mul)(&t, &a->c1, &a->c2);
    CZ_T2(mul_by_xi)(&t, &t);
    CZ_T2(sub)(&A, &A, &t);
    CZ_T2(sqr)(&B, &a->c2);
    CZ_T2(mul_by_xi)(&B, &B);
    CZ_T2(mul)(&t, &a->c0, &a->c1);
    CZ_T2(sub)(&B, &B, &t);
    CZ_T2(sqr)(&C, &a->c1);
    CZ_T2(mul)(&t, &a->c0, &a->c2);
    CZ_T2(sub)(&C, &C, &t);
    CZ_T2(mul)(&F, &a->c2, &B);
    CZ_T2(mul)(&t, &a->c1, &C);
    CZ_T2(add)(&F, &F, &t);
    CZ_T2(mul_by_xi)(&F, &F);
    CZ_T2(mul)(&t, &a->c0, &A);
    CZ_T2(add)(&F, &F, &t);
    cz_status st = CZ_T2(inv)(&F, &F);
    if (st != CZ_OK) {
        CZ_T6(set_zero)(r);
        return st;
    }
    CZ_T2(mul)(&r->c0, &A, &F);
    CZ_T2(mul)(&r->c1, &B, &F);
    CZ_T2(mul)(&r->c2, &C, &F);
    return CZ_OK;
}

void CZ_T6(mul_by_fq2)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b)
{
    const CZ_F2 k = *b; /* b may be a coefficient of r */
    CZ_T2(mul)(&r->c0, &a->c0, &k);
    CZ_T2(mul)(&r->c1, &a->c1, &k);
    CZ_T2(mul)(&r->c2, &a->c2, &k);
}

void CZ_T6(mul_by_01)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b0, const CZ_F2 *b1)
{
    /* (a0 + a1 v + a2 v^2)(b0 + b1 v):
     * c0 = a0 b0 + xi a2 b1, c1 = a0 b1 + a1 b0, c2 = a1 b1 + a2 b0; 5 products */
    CZ_F2 t0, t1, s, u, c0, c1, c2;
    CZ_T2(mul)(&t0, &a->c0, b0);
    CZ_T2(mul)(&t1, &a->c1, b1);
    CZ_T2(mul)(&s, &a->c2, b1);
    CZ_T2(mul_by_xi)(&s, &s);
    CZ_T2(add)(&c0, &s, &t0);
    CZ_T2(add)(&s, &a->c0, &a->c1);
    CZ_T2(add)(&u, b0, b1);
    CZ_T2(mul)(&s, &s, &u);
    CZ_T2(sub)(&s, &s, &t0);
    CZ_T2(sub)(&c1, &s, &t1);
    CZ_T2(add)(&s, &a->c0, &a->c2);
    CZ_T2(mul)(&s, &s, b0);
    CZ_T2(sub)(&s, &s, &t0);
    CZ_T2(add)(&c2, &s, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void CZ_T6(mul_by_1)(CZ_F6 *r, const CZ_F6 *a, const CZ_F2 *b1)
{
    /* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    CZ_F2 c0, c1, c2;
    CZ_T2(mul)(&c0, &a->c2, b1);
    CZ_T2(mul_by_xi)(&c0, &c0);
    CZ_T2(mul)(&c1, &a->c0, b1);
    CZ_T2(mul)(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void CZ_T6(frobenius)(CZ_F6 *r, const CZ_F6 *a, unsigned k)
{
    k %= 6;
    if (k == 0) {
        *r = *a;
        return;
    }
    /* v = w^2: coefficient j of v^i is gamma(k, 2i) */
    if (k & 1)
        CZ_T2(conj)(&r->c0, &a->c0);
    else
        r->c0 = a->c0;
    CZ_T12(frob_coef_)(&r->c1, &a->c1, k, 2);
    CZ_T12(frob_coef_)(&r->c2, &a->c2, k, 4);
}

void CZ_T6(pow)(CZ_F6 *r, const CZ_F6 *a, const uint64_t *e, size_t ne)
{
    CZ_F6 acc, base = *a;
    CZ_T6(set_one)(&acc);
    size_t top = ne * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        CZ_T6(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) CZ_T6(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

void CZ_T6(random)(CZ_F6 *r, cz_rng *rng)
{
    CZ_T2(random)(&r->c0, rng);
    CZ_T2(random)(&r->c1, rng);
    CZ_T2(random)(&r->c2, rng);
}

/* ---- Fq12 ---- */

void CZ_T12(mul)(CZ_F12 *r, const CZ_F12 *a, const CZ_F12 *b)
{
    /* Karatsuba over w: 3 Fq6 products */
    CZ_F6 t0, t1, s, u;
    CZ_T6(mul)(&t0, &a->c0, &b->c0);
    CZ_T6(mul)(&t1, &a->c1, &b->c1);
    CZ_T6(add)(&s, &a->c0, &a->c1);
    CZ_T6(add)(&u, &b->c0, &b->c1);
    CZ_T6(mul)(&s, &s, &u);
    CZ_T6(sub)(&s, &s, &t0);
    CZ_T6(sub)(&r->c1, &s, &t1);
    CZ_T6(mul_by_v)(&t1, &t1);
    CZ_T6(add)(&r->c0, &t0, &t1);
}

void CZ_T12(sqr)(CZ_F12 *r, const CZ_F12 *a)
{
    /* complex squaring: c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2t, t = a0 a1 */
    CZ_F6 t, s, u;
    CZ_T6(mul)(&t, &a->c0, &a->c1);
    CZ_T6(add)(&s, &a->c0, &a->c1);
    CZ_T6(mul_by_v)(&u, &a->c1);
    CZ_T6(add)(&u, &u, &a->c0);
    CZ_T6(mul)(&s, &s, &u);
    CZ_T6(sub)(&s, &s, &t);
    CZ_T6(mul_by_v)(&u, &t);
    CZ_T6(sub)(&r->c0, &s, &u);
    CZ_T6(dbl)(&r->c1, &t);
}

cz_status CZ_T12(inv)(CZ_F12 *r, const CZ_F12 *a)
{
    /* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
    CZ_F6 t0, t1;
    CZ_T6(sqr)(&t0, &a->c0);
    CZ_T6(sqr)(&t1, &a->c1);
    CZ_T6(mul_by_v)(&t1, &t1);
    CZ_T6(sub)(&t0, &t0, &t1);
    cz_status st = CZ_T6(inv)(&t1, &t0);
    if (st != CZ_OK) {
        CZ_T12(set_zero)(r);
        return st;
    }
    CZ_T6(mul)(&r->c0, &a->c0, &t1);
    CZ_T6(mul)(&r->c1, &a->c1, &t1);
    CZ_T6(neg)(&r->c1, &r->c1);
    return CZ_OK;
}

void CZ_T12(frobenius)(CZ_F12 *r, const CZ_F12 *a, unsigned k)
{
    k %= 12;
    if (k == 0) {
        *r = *a;
        return;
    }
    if (k & 1)
        CZ_T2(conj)(&r->c0.c0, &a->c0.c0);
    else
        r->c0.c0 = a->c0.c0;
    CZ_T12(frob_coef_)(&r->c0.c1, &a->c0.c1, k, 2); /* w^2 */
    CZ_T12(frob_coef_)(&r->c0.c2, &a->c0.c2, k, 4); /* w^4 */
    CZ_T12(frob_coef_)(&r->c1.c0, &a->c1.c0, k, 1); /* w   */
    CZ_T12(frob_coef_)(&r->c1.c1, &a->c1.c1, k, 3); /* w^3 */
    CZ_T12(frob_coef_)(&r->c1.c2, &a->c1.c2, k, 5); /* w^5 */
}

void CZ_T12(pow)(CZ_F12 *r, const CZ_F12 *a, const uint64_t *e, size_t ne)
{
    CZ_F12 acc, base = *a;
    CZ_T12(set_one)(&acc);
    size_t top = ne * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        CZ_T12(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) CZ_T12(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

/* (x + y s)^2 in Fq4 = Fq2[s]/(s^2 - xi): (x^2 + xi y^2) + 2xy s */
static inline void CZ_T12(fq4_sqr_)(CZ_F2 *r0, CZ_F2 *r1, const CZ_F2 *x, const CZ_F2 *y)
{
    CZ_F2 t0, t1, s;
    CZ_T2(sqr)(&t0, x);
    CZ_T2(sqr)(&t1, y);
    CZ_T2(add)(&s, x, y);
    CZ_T2(sqr)(&s, &s);
    CZ_T2(sub)(&s, &s, &t0);
    CZ_T2(sub)(r1, &s, &t1);
    CZ_T2(mul_by_xi)(&t1, &t1);
    CZ_T2(add)(r0, &t0, &t1);
}

/* r = 3t - 2a and r = 3t + 2a */
static inline void CZ_T12(gs_minus_)(CZ_F2 *r, const CZ_F2 *t, const CZ_F2 *a)
{
    CZ_F2 d;
    CZ_T2(sub)(&d, t, a);
    CZ_T2(dbl)(&d, &d);
    CZ_T2(add)(r, &d, t);
}
static inline void CZ_T12(gs_plus_)(CZ_F2 *r, const CZ_F2 *t, const CZ_F2 *a)
{
    CZ_F2 d;
    CZ_T2(add)(&d, t, a);
    CZ_T2(dbl)(&d, &d);
    CZ_T2(add)(r, &d, t);
}

void CZ_T12(cyclotomic_sqr)(CZ_F12 *r, const CZ_F12 *a)
{
    /*
     * Granger-Scott (PKC 2010, section 3.1). View Fq12 as Fq4[t]/(t^3 - s)
     * with t = w, s = w^3 and Fq4 = Fq2[s]/(s^2 - xi):
     *   a = A0 + A1 t + A2 t^2, A0 = a0 + a3 s, A1 = a1 + a4 s, A2 = a2 + a5 s
     * (a_j the w^j coefficients). For a in the cyclotomic subgroup,
     *   a^2 = (3 A0^2 - 2 conj(A0)) + (3 s A2^2 + 2 conj(A1)) t + (3 A1^2 - 2 conj(A2)) t^2
     * with conj(x + y s) = x - y s.
     */
    CZ_F2 t00, t01, t10, t11, t20, t21;
    CZ_T12(fq4_sqr_)(&t00, &t01, &a->c0.c0, &a->c1.c1); /* A0^2 */
    CZ_T12(fq4_sqr_)(&t10, &t11, &a->c1.c0, &a->c0.c2); /* A1^2 */
    CZ_T12(fq4_sqr_)(&t20, &t21, &a->c0.c1, &a->c1.c2); /* A2^2 */
    CZ_F2 xt21;
    CZ_T2(mul_by_xi)(&xt21, &t21); /* s A2^2 = xi t21 + t20 s */
    CZ_T12(gs_minus_)(&r->c0.c0, &t00, &a->c0.c0); /* a0 */
    CZ_T12(gs_plus_)(&r->c1.c1, &t01, &a->c1.c1);  /* a3 */
    CZ_T12(gs_plus_)(&r->c1.c0, &xt21, &a->c1.c0); /* a1 */
    CZ_T12(gs_minus_)(&r->c0.c2, &t20, &a->c0.c2); /* a4 */
    CZ_T12(gs_minus_)(&r->c0.c1, &t10, &a->c0.c1); /* a2 */
    CZ_T12(gs_plus_)(&r->c1.c2, &t11, &a->c1.c2);  /* a5 */
}

void CZ_T12(mul_by_014)(CZ_F12 *r, const CZ_F12 *a, const CZ_F2 *o0, const CZ_F2 *o1, const CZ_F2 *o4)
{
    /* b = B0 + B1 w with B0 = o0 + o1 v, B1 = o4 v (13 Fq2 products) */
    CZ_F6 t0, t1, s;
    CZ_F2 e;
    CZ_T6(mul_by_01)(&t0, &a->c0, o0, o1);
    CZ_T6(mul_by_1)(&t1, &a->c1, o4);
    CZ_T2(add)(&e, o1, o4);
    CZ_T6(add)(&s, &a->c0, &a->c1);
    CZ_T6(mul_by_01)(&s, &s, o0, &e);
    CZ_T6(sub)(&s, &s, &t0);
    CZ_T6(sub)(&r->c1, &s, &t1);
    CZ_T6(mul_by_v)(&t1, &t1);
    CZ_T6(add)(&r->c0, &t0, &t1);
}

void CZ_T12(mul_by_034)(CZ_F12 *r, const CZ_F12 *a, const CZ_F2 *o0, const CZ_F2 *o3, const CZ_F2 *o4)
{
    /* b = B0 + B1 w with B0 = o0, B1 = o3 + o4 v (13 Fq2 products) */
    CZ_F6 t0, t1, s;
    CZ_F2 e;
    CZ_T6(mul_by_fq2)(&t0, &a->c0, o0);
    CZ_T6(mul_by_01)(&t1, &a->c1, o3, o4);
    CZ_T2(add)(&e, o0, o3);
    CZ_T6(add)(&s, &a->c0, &a->c1);
    CZ_T6(mul_by_01)(&s, &s, &e, o4);
    CZ_T6(sub)(&s, &s, &t0);
    CZ_T6(sub)(&r->c1, &s, &t1);
    CZ_T6(mul_by_v)(&t1, &t1);
    CZ_T6(add)(&r->c0, &t0, &t1);
}

void CZ_T12(random)(CZ_F12 *r, cz_rng *rng)
{
    CZ_T6(random)(&r->c0, rng);
    CZ_T6(random)(&r->c1, rng);
}

#undef CZ_F12
#undef CZ_F6
#undef CZ_F2
#undef CZ_F2_B
#undef CZ_F12_FROB_INIT
#undef CZ_T12
#undef CZ_T6
#undef CZ_T2
#undef CZ_TB
