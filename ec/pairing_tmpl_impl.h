/*
 * Miller loop template (see ec/pairing.h), instantiated from ec/pairing.c
 * once per curve by util/foreach_curve.h; from CZ_G and the curve's
 * CONST_PAIRING_* facts (ec/pairing.c):
 *   CZ_PR          the curve prefix (cz_bls12_381 / cz_bn254); the types are
 *                  CZ_PR##_fq, _fq2, _fq12, _g1_affine, _g2_affine
 *   CZ_PR_MTWIST   1: M-type twist (lines are mul_by_014), 0: D-type (mul_by_034)
 *   CZ_PR_LOOP     the loop scalar |s| as an unsigned __int128 constant
 *   CZ_PR_LOOP_NEG 1 if the loop scalar is negative (BLS12: s = x < 0)
 *   CZ_PR_BN_TAIL  1 for BN curves: after the loop, the lines through
 *                  pi(Q) and -pi^2(Q)
 * It defines the exported miller_loop, pairing, multi_pairing and
 * pairing_check; the curve's final_exp is written in ec/pairing.c.
 *
 * Line functions. Let T = (X : Y : Z) be homogeneous projective on the twist
 * E': y^2 = x^3 + b', untwisted into E(Fq12) by (x, y) -> (x w^-2, y w^-3)
 * (M-type, b' = b xi) or (x w^2, y w^3) (D-type, b' = b / xi). The line
 * through the untwisted points evaluated at P = (xP, yP) in E(Fq), scaled by
 * w^3 (M) or nothing (D) and by a factor in Fq2 (both die in the final
 * exponentiation, whose exponent is a multiple of p^4 - 1 and p^6 - 1), is
 *   c0 + c1 xP + c2 yP  placed at  M: c0 -> 1, c1 xP -> v, c2 yP -> v w
 *                                   D: c2 yP -> 1, c1 xP -> w, c0 -> v w
 * with, for the tangent at T (dbl_step),
 *   c0 = 3 b' Z^2 - Y^2,  c1 = 3 X^2,  c2 = -2 Y Z
 * and for the chord through T and an affine Q = (x2, y2) (add_step), with
 * theta = Y - y2 Z, lambda = X - x2 Z,
 *   c0 = theta x2 - lambda y2,  c1 = -theta,  c2 = lambda.
 * The point formulas are the a = 0 homogeneous ones (Costello-Lange-Naehrig
 * 2010): doubling 2X3 = XY (Y^2 - 9b'Z^2), Y3 = ((Y^2 + 9b'Z^2)/2)^2 - 27b'^2 Z^4,
 * Z3 = 2Y^3 Z; mixed addition as written in add_step.
 */
#define CZ_PR CZ_G
#define CZ_PR_MTWIST CZ_CAT(CZ_G_C, _PAIRING_MTWIST)
#define CZ_PR_LOOP CZ_CAT(CZ_G_C, _PAIRING_LOOP)
#define CZ_PR_LOOP_NEG CZ_CAT(CZ_G_C, _PAIRING_LOOP_NEG)
#define CZ_PR_BN_TAIL CZ_CAT(CZ_G_C, _PAIRING_BN_TAIL)
#define CZ_PF(x) CZ_CAT(CZ_CAT(CZ_PR, _), x)
#define CZ_P1(x) CZ_CAT(CZ_CAT(CZ_PR, _fq_), x)
#define CZ_P2(x) CZ_CAT(CZ_CAT(CZ_PR, _fq2_), x)
#define CZ_P12(x) CZ_CAT(CZ_CAT(CZ_PR, _fq12_), x)
#define CZ_PT_FQ CZ_CAT(CZ_PR, _fq)
#define CZ_PT_FQ2 CZ_CAT(CZ_PR, _fq2)
#define CZ_PT_FQ12 CZ_CAT(CZ_PR, _fq12)
#define CZ_PT_G1A CZ_CAT(CZ_PR, _g1_affine)
#define CZ_PT_G2A CZ_CAT(CZ_PR, _g2_affine)
#define CZ_PT_PROJ CZ_CAT(CZ_PR, _g2_proj_)
#define CZ_PT_LINE CZ_CAT(CZ_PR, _line_)

/* homogeneous projective point on the twist: x = X/Z, y = Y/Z */
typedef struct {
    CZ_PT_FQ2 X, Y, Z;
} CZ_PT_PROJ;

/* line value c0 + c1 xP + c2 yP (placement by twist type, see above) */
typedef struct {
    CZ_PT_FQ2 c0, c1, c2;
} CZ_PT_LINE;

/* T = 2T and the tangent line at T; b3 = 3b' */
static void CZ_PF(dbl_step_)(CZ_PT_PROJ *T, CZ_PT_LINE *l, const CZ_PT_FQ2 *b3)
{
    CZ_PT_FQ2 A, B, C, E, F, G, H, t;
    CZ_P2(mul)(&A, &T->X, &T->Y);
    CZ_P2(half)(&A, &A);    /* XY/2 */
    CZ_P2(sqr)(&B, &T->Y);  /* Y^2 */
    CZ_P2(sqr)(&C, &T->Z);  /* Z^2 */
    CZ_P2(mul)(&E, &C, b3); /* 3b'Z^2 */
    CZ_P2(dbl)(&F, &E);
    CZ_P2(add)(&F, &F, &E); /* 9b'Z^2 */
    CZ_P2(add)(&G, &B, &F);
    CZ_P2(half)(&G, &G); /* (Y^2 + 9b'Z^2)/2 */
    CZ_P2(add)(&H, &T->Y, &T->Z);
    CZ_P2(sqr)(&H, &H);
    CZ_P2(sub)(&H, &H, &B);
    CZ_P2(sub)(&H, &H, &C); /* 2YZ */
    /* line: c0 = E - B, c1 = 3X^2, c2 = -H */
    CZ_P2(sub)(&l->c0, &E, &B);
    CZ_P2(sqr)(&t, &T->X);
    CZ_P2(dbl)(&l->c1, &t);
    CZ_P2(add)(&l->c1, &l->c1, &t);
    CZ_P2(neg)(&l->c2, &H);
    /* point */
    CZ_P2(sub)(&t, &B, &F);
    CZ_P2(mul)(&T->X, &A, &t); /* XY/2 (Y^2 - 9b'Z^2) */
    CZ_P2(sqr)(&t, &E);
    CZ_P2(sqr)(&G, &G);
    CZ_P2(sub)(&G, &G, &t);
    CZ_P2(dbl)(&t, &t);
    CZ_P2(sub)(&T->Y, &G, &t); /* G^2 - 3E^2 */
    CZ_P2(mul)(&T->Z, &B, &H); /* 2Y^3 Z */
}

/* T = T + Q (Q affine, Q != +-T) and the line through T and Q */
static void CZ_PF(add_step_)(CZ_PT_PROJ *T, CZ_PT_LINE *l, const CZ_PT_G2A *Q)
{
    CZ_PT_FQ2 theta, lambda, C, D, E, F, G, H, t;
    CZ_P2(mul)(&t, &Q->y, &T->Z);
    CZ_P2(sub)(&theta, &T->Y, &t);
    CZ_P2(mul)(&t, &Q->x, &T->Z);
    CZ_P2(sub)(&lambda, &T->X, &t);
    CZ_P2(sqr)(&C, &theta);
    CZ_P2(sqr)(&D, &lambda);
    CZ_P2(mul)(&E, &lambda, &D);
    CZ_P2(mul)(&F, &T->Z, &C);
    CZ_P2(mul)(&G, &T->X, &D);
    CZ_P2(dbl)(&t, &G);
    CZ_P2(add)(&H, &E, &F);
    CZ_P2(sub)(&H, &H, &t); /* E + F - 2G */
    CZ_P2(mul)(&T->X, &lambda, &H);
    CZ_P2(sub)(&t, &G, &H);
    CZ_P2(mul)(&t, &theta, &t);
    CZ_P2(mul)(&C, &E, &T->Y);
    CZ_P2(sub)(&T->Y, &t, &C);
    CZ_P2(mul)(&T->Z, &T->Z, &E);
    /* line: c0 = theta x2 - lambda y2, c1 = -theta, c2 = lambda */
    CZ_P2(mul)(&t, &theta, &Q->x);
    CZ_P2(mul)(&C, &lambda, &Q->y);
    CZ_P2(sub)(&l->c0, &t, &C);
    CZ_P2(neg)(&l->c1, &theta);
    l->c2 = lambda;
}

/* f = f * l(P) */
static void CZ_PF(ell_)(CZ_PT_FQ12 *f, const CZ_PT_LINE *l, const CZ_PT_G1A *P)
{
    CZ_PT_FQ2 a, b;
    CZ_P2(mul_base)(&a, &l->c1, &P->x);
    CZ_P2(mul_base)(&b, &l->c2, &P->y);
#if CZ_PR_MTWIST
    CZ_P12(mul_by_014)(f, f, &l->c0, &a, &b);
#else
    CZ_P12(mul_by_034)(f, f, &b, &a, &l->c0);
#endif
}

/* Non-adjacent form of k, least significant digit first; returns the count.
 * Digits in {-1, 0, 1}; the top digit is 1. */
static int CZ_PF(naf_)(int8_t *d, cz_u128 k)
{
    int n = 0;
    while (k) {
        if (k & 1) {
            int8_t z = (k & 3) == 3 ? -1 : 1;
            d[n++] = z;
            if (z < 0)
                k += 1;
            else
                k -= 1;
        } else {
            d[n++] = 0;
        }
        k >>= 1;
    }
    return n;
}

/* r = a^e for a in the cyclotomic subgroup (inverse = conjugate), e > 0 */
static void CZ_PF(cyc_pow_)(CZ_PT_FQ12 *r, const CZ_PT_FQ12 *a, uint64_t e)
{
    int8_t d[80];
    int n = CZ_PF(naf_)(d, e);
    CZ_PT_FQ12 acc = *a, ainv;
    CZ_P12(conj)(&ainv, a);
    for (int i = n - 2; i >= 0; i--) {
        CZ_P12(cyclotomic_sqr)(&acc, &acc);
        if (d[i] > 0)
            CZ_P12(mul)(&acc, &acc, a);
        else if (d[i] < 0)
            CZ_P12(mul)(&acc, &acc, &ainv);
    }
    *r = acc;
}

/* Miller loops of up to CZ_PAIRING_CHUNK pairs sharing one accumulator */
#ifndef CZ_PAIRING_CHUNK
#define CZ_PAIRING_CHUNK 8
#endif

/* f = product of the Miller loop values of n <= CZ_PAIRING_CHUNK pairs, none
 * of them with an infinity point */
static void CZ_PF(miller_chunk_)(CZ_PT_FQ12 *f, const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n)
{
    CZ_PT_PROJ T[CZ_PAIRING_CHUNK];
    CZ_PT_G2A negq[CZ_PAIRING_CHUNK];
    CZ_PT_LINE l;
    CZ_PT_FQ2 b3;
    CZ_P2(dbl)(&b3, CZ_CAT(CZ_PR, _g2_b)());
    CZ_P2(add)(&b3, &b3, CZ_CAT(CZ_PR, _g2_b)());
    for (size_t j = 0; j < n; j++) {
        T[j].X = qs[j].x;
        T[j].Y = qs[j].y;
        CZ_P2(set_one)(&T[j].Z);
        CZ_CAT(CZ_PR, _g2_affine_neg)(&negq[j], &qs[j]);
    }
    int8_t d[130];
    int nd = CZ_PF(naf_)(d, (cz_u128)CZ_PR_LOOP);
    CZ_P12(set_one)(f);
    for (int i = nd - 2; i >= 0; i--) {
        if (i != nd - 2) CZ_P12(sqr)(f, f);
        for (size_t j = 0; j < n; j++) {
            CZ_PF(dbl_step_)(&T[j], &l, &b3);
            CZ_PF(ell_)(f, &l, &ps[j]);
        }
        if (d[i] == 0) continue;
        for (size_t j = 0; j < n; j++) {
            CZ_PF(add_step_)(&T[j], &l, d[i] > 0 ? &qs[j] : &negq[j]);
            CZ_PF(ell_)(f, &l, &ps[j]);
        }
    }
#if CZ_PR_LOOP_NEG
    /* f_{-s} = 1 / (f_s v_s) and the vertical v_s dies in the final
     * exponentiation; 1/f equals conj(f) = f^(p^6) after it (p^6 = -1 mod r) */
    CZ_P12(conj)(f, f);
#endif
#if CZ_PR_BN_TAIL
    /* Q1 = pi(Q), Q2 = pi^2(Q) on the twist: x -> conj(x) gamma(1,2),
     * y -> conj(y) gamma(1,3); x -> x gamma(2,2), y -> y gamma(2,3). Then
     * f *= l_{T,Q1}(P) l_{T+Q1,-Q2}(P). */
    for (size_t j = 0; j < n; j++) {
        CZ_PT_G2A q1, q2;
        CZ_P2(conj)(&q1.x, &qs[j].x);
        CZ_P2(mul)(&q1.x, &q1.x, CZ_P12(frob_coeff)(1, 2));
        CZ_P2(conj)(&q1.y, &qs[j].y);
        CZ_P2(mul)(&q1.y, &q1.y, CZ_P12(frob_coeff)(1, 3));
        CZ_P2(mul)(&q2.x, &qs[j].x, CZ_P12(frob_coeff)(2, 2));
        CZ_P2(mul)(&q2.y, &qs[j].y, CZ_P12(frob_coeff)(2, 3));
        CZ_P2(neg)(&q2.y, &q2.y);
        CZ_PF(add_step_)(&T[j], &l, &q1);
        CZ_PF(ell_)(f, &l, &ps[j]);
        CZ_PF(add_step_)(&T[j], &l, &q2);
        CZ_PF(ell_)(f, &l, &ps[j]);
    }
#endif
}

cz_status CZ_PF(miller_loop)(CZ_PT_FQ12 *f, const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n)
{
    if (!f || (n > 0 && (!ps || !qs))) return CZ_ERR_INVALID_ARG;
    CZ_PT_G1A cp[CZ_PAIRING_CHUNK];
    CZ_PT_G2A cq[CZ_PAIRING_CHUNK];
    CZ_PT_FQ12 acc, part;
    CZ_P12(set_one)(&acc);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        /* pairs with an infinity point contribute 1 */
        if (CZ_CAT(CZ_PR, _g1_affine_is_inf)(&ps[i]) || CZ_CAT(CZ_PR, _g2_affine_is_inf)(&qs[i])) continue;
        cp[m] = ps[i];
        cq[m] = qs[i];
        if (++m == CZ_PAIRING_CHUNK) {
            CZ_PF(miller_chunk_)(&part, cp, cq, m);
            CZ_P12(mul)(&acc, &acc, &part);
            m = 0;
        }
    }
    if (m > 0) {
        CZ_PF(miller_chunk_)(&part, cp, cq, m);
        CZ_P12(mul)(&acc, &acc, &part);
    }
    *f = acc;
    return CZ_OK;
}

cz_status CZ_PF(multi_pairing)(CZ_PT_FQ12 *out, const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    CZ_PT_FQ12 f;
    cz_status st = CZ_PF(miller_loop)(&f, ps, qs, n);
    if (st != CZ_OK) return st;
    return CZ_PF(final_exp)(out, &f);
}

cz_status CZ_PF(pairing)(CZ_PT_FQ12 *out, const CZ_PT_G1A *p, const CZ_PT_G2A *q)
{
    if (!p || !q) return CZ_ERR_INVALID_ARG;
    return CZ_PF(multi_pairing)(out, p, q, 1);
}

int CZ_PF(pairing_check)(const CZ_PT_G1A *ps, const CZ_PT_G2A *qs, size_t n)
{
    CZ_PT_FQ12 r;
    if (CZ_PF(multi_pairing)(&r, ps, qs, n) != CZ_OK) return 0;
    return CZ_P12(is_one)(&r);
}

#undef CZ_PR
#undef CZ_PR_MTWIST
#undef CZ_PR_LOOP
#undef CZ_PR_LOOP_NEG
#undef CZ_PR_BN_TAIL
#undef CZ_PF
#undef CZ_P1
#undef CZ_P2
#undef CZ_P12
#undef CZ_PT_FQ
#undef CZ_PT_FQ2
#undef CZ_PT_FQ12
#undef CZ_PT_G1A
#undef CZ_PT_G2A
#undef CZ_PT_PROJ
#undef CZ_PT_LINE
