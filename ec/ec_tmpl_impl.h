/*
 * Out-of-line group functions (see ec/ec_tmpl.h), instantiated from ec/ec.c
 * once per group by util/foreach_group.h, with CZ_EC, CZ_EC_F, CZ_EC_FR and
 * from CZ_EC_C (ec/ec_consts.inc)
 *   CZ_EC_GEN_INIT  initialiser of the affine generator (CONST_GEN)
 *   CZ_EC_B_INIT    initialiser of b (CONST_B)
 */
#define CZ_EC_GEN_INIT CZ_CAT(CZ_EC_C, _GEN)
#define CZ_EC_B_INIT CZ_CAT(CZ_EC_C, _B)
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EF(x) CZ_CAT(CZ_CAT(CZ_EC_F, _), x)
#define CZ_RF(x) CZ_CAT(CZ_CAT(CZ_EC_FR, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)
#define CZ_EC_X CZ_CAT(CZ_EC, _xyzz)

/* r = 2p, dbl-2009-l: 2M + 5S */
void CZ_EFN(dbl)(CZ_EC *r, const CZ_EC *p)
{
    CZ_EC_F A, B, C, D, E, F, t;
    CZ_EF(sqr)(&A, &p->X);
    CZ_EF(sqr)(&B, &p->Y);
    CZ_EF(sqr)(&C, &B);
    CZ_EF(add)(&D, &p->X, &B);
    CZ_EF(sqr)(&D, &D);
    CZ_EF(sub)(&D, &D, &A);
    CZ_EF(sub)(&D, &D, &C);
    CZ_EF(dbl)(&D, &D);
    CZ_EF(dbl)(&E, &A);
    CZ_EF(add)(&E, &E, &A);
    CZ_EF(sqr)(&F, &E);
    CZ_EF(mul)(&t, &p->Y, &p->Z); /* Z3 first: p may alias r */
    CZ_EF(dbl)(&r->Z, &t);
    CZ_EF(dbl)(&t, &D);
    CZ_EF(sub)(&r->X, &F, &t);
    CZ_EF(sub)(&t, &D, &r->X);
    CZ_EF(mul)(&t, &E, &t);
    CZ_EF(dbl)(&C, &C);
    CZ_EF(dbl)(&C, &C);
    CZ_EF(dbl)(&C, &C);
    CZ_EF(sub)(&r->Y, &t, &C);
}

/* r = p + q (mixed, q affine), madd-2007-bl: 7M + 4S */
void CZ_EFN(add_affine)(CZ_EC *r, const CZ_EC *p, const CZ_EC_A *q)
{
    if (CZ_EFN(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (CZ_EFN(is_inf)(p)) {
        CZ_EFN(from_affine)(r, q);
        return;
    }
    CZ_EC_F Z1Z1, U2, S2, H, HH, I, J, R, V, t;
    CZ_EF(sqr)(&Z1Z1, &p->Z);
    CZ_EF(mul)(&U2, &q->x, &Z1Z1);
    CZ_EF(mul)(&S2, &q->y, &p->Z);
    CZ_EF(mul)(&S2, &S2, &Z1Z1);
    CZ_EF(sub)(&H, &U2, &p->X);
    CZ_EF(sub)(&R, &S2, &p->Y);
    if (CZ_EF(is_zero)(&H)) {
        if (CZ_EF(is_zero)(&R)) {
            CZ_EFN(dbl)(r, p);
        } else {
            CZ_EFN(set_inf)(r);
        }
        return;
    }
    CZ_EC_F Y1J;
    CZ_EF(dbl)(&R, &R);
    CZ_EF(sqr)(&HH, &H);
    CZ_EF(dbl)(&I, &HH);
    CZ_EF(dbl)(&I, &I);
    CZ_EF(mul)(&J, &H, &I);
    CZ_EF(mul)(&V, &p->X, &I);
    CZ_EF(mul)(&Y1J, &p->Y, &J);
    /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    CZ_EF(add)(&t, &p->Z, &H);
    CZ_EF(sqr)(&t, &t);
    CZ_EF(sub)(&t, &t, &Z1Z1);
    CZ_EF(sub)(&r->Z, &t, &HH);
    /* X3 = R^2 - J - 2V */
    CZ_EF(sqr)(&t, &R);
    CZ_EF(sub)(&t, &t, &J);
    CZ_EF(sub)(&t, &t, &V);
    CZ_EF(sub)(&r->X, &t, &V);
    /* Y3 = R (V - X3) - 2 Y1 J */
    CZ_EF(sub)(&t, &V, &r->X);
    CZ_EF(mul)(&t, &R, &t);
    CZ_EF(dbl)(&Y1J, &Y1J);
    CZ_EF(sub)(&r->Y, &t, &Y1J);
}

/* r = p + q, add-2007-bl: 11M + 5S */
void CZ_EFN(add)(CZ_EC *r, const CZ_EC *p, const CZ_EC *q)
{
    if (CZ_EFN(is_inf)(p)) {
        *r = *q;
        return;
    }
    if (CZ_EFN(is_inf)(q)) {
        *r = *p;
        return;
    }
    CZ_EC_F Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, R, V, t;
    CZ_EF(sqr)(&Z1Z1, &p->Z);
    CZ_EF(sqr)(&Z2Z2, &q->Z);
    CZ_EF(mul)(&U1, &p->X, &Z2Z2);
    CZ_EF(mul)(&U2, &q->X, &Z1Z1);
    CZ_EF(mul)(&S1, &p->Y, &q->Z);
    CZ_EF(mul)(&S1, &S1, &Z2Z2);
    CZ_EF(mul)(&S2, &q->Y, &p->Z);
    CZ_EF(mul)(&S2, &S2, &Z1Z1);
    CZ_EF(sub)(&H, &U2, &U1);
    CZ_EF(sub)(&R, &S2, &S1);
    if (CZ_EF(is_zero)(&H)) {
        if (CZ_EF(is_zero)(&R)) {
            CZ_EFN(dbl)(r, p);
        } else {
            CZ_EFN(set_inf)(r);
        }
        return;
    }
    CZ_EF(dbl)(&R, &R);
    CZ_EF(dbl)(&I, &H);
    CZ_EF(sqr)(&I, &I);
    CZ_EF(mul)(&J, &H, &I);
    CZ_EF(mul)(&V, &U1, &I);
    CZ_EF(add)(&t, &p->Z, &q->Z);
    CZ_EF(sqr)(&t, &t);
    CZ_EF(sub)(&t, &t, &Z1Z1);
    CZ_EF(sub)(&t, &t, &Z2Z2);
    CZ_EF(mul)(&r->Z, &t, &H);
    CZ_EF(sqr)(&t, &R);
    CZ_EF(sub)(&t, &t, &J);
    CZ_EF(sub)(&t, &t, &V);
    CZ_EF(sub)(&r->X, &t, &V);
    CZ_EF(sub)(&t, &V, &r->X);
    CZ_EF(mul)(&t, &R, &t);
    CZ_EF(mul)(&S1, &S1, &J);
    CZ_EF(dbl)(&S1, &S1);
    CZ_EF(sub)(&r->Y, &t, &S1);
}

/* r = 2q for affine q, mdbl-2008-s-1 */
void CZ_EFN(xyzz_dbl_affine)(CZ_EC_X *r, const CZ_EC_A *q)
{
    CZ_EC_F U, V, W, S, M, t;
    CZ_EF(dbl)(&U, &q->y);
    CZ_EF(sqr)(&V, &U);
    CZ_EF(mul)(&W, &U, &V);
    CZ_EF(mul)(&S, &q->x, &V);
    CZ_EF(sqr)(&M, &q->x);
    CZ_EF(dbl)(&t, &M);
    CZ_EF(add)(&M, &M, &t);
    CZ_EF(sqr)(&t, &M);
    CZ_EF(sub)(&t, &t, &S);
    CZ_EF(sub)(&r->X, &t, &S);
    CZ_EF(sub)(&t, &S, &r->X);
    CZ_EF(mul)(&t, &M, &t);
    CZ_EF(mul)(&U, &W, &q->y);
    CZ_EF(sub)(&r->Y, &t, &U);
    r->ZZ = V;
    r->ZZZ = W;
}

/* r = 2p, dbl-2008-s-1: 6M + 4S (a = 0) */
void CZ_EFN(xyzz_dbl)(CZ_EC_X *r, const CZ_EC_X *p)
{
    if (CZ_EFN(xyzz_is_inf)(p)) {
        *r = *p;
        return;
    }
    CZ_EC_F U, V, W, S, M, t;
    CZ_EF(dbl)(&U, &p->Y);
    CZ_EF(sqr)(&V, &U);
    CZ_EF(mul)(&W, &U, &V);
    CZ_EF(mul)(&S, &p->X, &V);
    CZ_EF(sqr)(&M, &p->X);
    CZ_EF(dbl)(&t, &M);
    CZ_EF(add)(&M, &M, &t);
    CZ_EF(mul)(&r->ZZ, &V, &p->ZZ);
    CZ_EF(mul)(&r->ZZZ, &W, &p->ZZZ);
    CZ_EF(mul)(&W, &W, &p->Y);
    CZ_EF(sqr)(&t, &M);
    CZ_EF(sub)(&t, &t, &S);
    CZ_EF(sub)(&r->X, &t, &S);
    CZ_EF(sub)(&t, &S, &r->X);
    CZ_EF(mul)(&t, &M, &t);
    CZ_EF(sub)(&r->Y, &t, &W);
}

/* r = p + q, q affine, madd-2008-s: 8M + 2S */
void CZ_EFN(xyzz_add_affine)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_A *q)
{
    if (CZ_EFN(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (CZ_EFN(xyzz_is_inf)(p)) {
        r->X = q->x;
        r->Y = q->y;
        CZ_EF(set_one)(&r->ZZ);
        CZ_EF(set_one)(&r->ZZZ);
        return;
    }
    CZ_EC_F P, R, PP, PPP, Q, t;
    CZ_EF(mul)(&P, &q->x, &p->ZZ);
    CZ_EF(sub)(&P, &P, &p->X);
    CZ_EF(mul)(&R, &q->y, &p->ZZZ);
    CZ_EF(sub)(&R, &R, &p->Y);
    if (CZ_EF(is_zero)(&P)) {
        if (CZ_EF(is_zero)(&R)) {
            CZ_EFN(xyzz_dbl_affine)(r, q);
        } else {
            CZ_EFN(xyzz_set_inf)(r);
        }
        return;
    }
    CZ_EC_F Y1PPP;
    CZ_EF(sqr)(&PP, &P);
    CZ_EF(mul)(&PPP, &P, &PP);
    CZ_EF(mul)(&Q, &p->X, &PP);
    CZ_EF(mul)(&Y1PPP, &p->Y, &PPP);
    CZ_EF(mul)(&r->ZZ, &p->ZZ, &PP);
    CZ_EF(mul)(&r->ZZZ, &p->ZZZ, &PPP);
    /* X3 = R^2 - PPP - 2Q */
    CZ_EF(sqr)(&t, &R);
    CZ_EF(sub)(&t, &t, &PPP);
    CZ_EF(sub)(&t, &t, &Q);
    CZ_EF(sub)(&r->X, &t, &Q);
    /* Y3 = R (Q - X3) - Y1 PPP */
    CZ_EF(sub)(&t, &Q, &r->X);
    CZ_EF(mul)(&t, &R, &t);
    CZ_EF(sub)(&r->Y, &t, &Y1PPP);
}

/* r = p - q, q affine */
void CZ_EFN(xyzz_sub_affine)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_A *q)
{
    CZ_EC_A n;
    CZ_EFN(affine_neg)(&n, q);
    CZ_EFN(xyzz_add_affine)(r, p, &n);
}

/* r = p + q, add-2008-s: 12M + 2S */
void CZ_EFN(xyzz_add)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_X *q)
{
    if (CZ_EFN(xyzz_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (CZ_EFN(xyzz_is_inf)(p)) {
        *r = *q;
        return;
    }
    CZ_EC_F U1, U2, S1, S2, P, R, PP, PPP, Q, t;
    CZ_EF(mul)(&U1, &p->X, &q->ZZ);
    CZ_EF(mul)(&U2, &q->X, &p->ZZ);
    CZ_EF(mul)(&S1, &p->Y, &q->ZZZ);
    CZ_EF(mul)(&S2, &q->Y, &p->ZZZ);
    CZ_EF(sub)(&P, &U2, &U1);
    CZ_EF(sub)(&R, &S2, &S1);
    if (CZ_EF(is_zero)(&P)) {
        if (CZ_EF(is_zero)(&R)) {
            CZ_EFN(xyzz_dbl)(r, p);
        } else {
            CZ_EFN(xyzz_set_inf)(r);
        }
        return;
    }
    CZ_EF(sqr)(&PP, &P);
    CZ_EF(mul)(&PPP, &P, &PP);
    CZ_EF(mul)(&Q, &U1, &PP);
    CZ_EF(mul)(&t, &p->ZZ, &q->ZZ);
    CZ_EF(mul)(&r->ZZ, &t, &PP);
    CZ_EF(mul)(&t, &p->ZZZ, &q->ZZZ);
    CZ_EF(mul)(&r->ZZZ, &t, &PPP);
    CZ_EF(sqr)(&t, &R);
    CZ_EF(sub)(&t, &t, &PPP);
    CZ_EF(sub)(&t, &t, &Q);
    CZ_EF(sub)(&r->X, &t, &Q);
    CZ_EF(sub)(&t, &Q, &r->X);
    CZ_EF(mul)(&t, &R, &t);
    CZ_EF(mul)(&S1, &S1, &PPP);
    CZ_EF(sub)(&r->Y, &t, &S1);
}

/* Jacobian from XYZZ without inversion: (X*ZZ^2, Y*ZZZ^2, ZZZ) */
void CZ_EFN(from_xyzz)(CZ_EC *r, const CZ_EC_X *p)
{
    if (CZ_EFN(xyzz_is_inf)(p)) {
        CZ_EFN(set_inf)(r);
        return;
    }
    CZ_EC_F t;
    CZ_EF(sqr)(&t, &p->ZZ);
    CZ_EF(mul)(&r->X, &p->X, &t);
    CZ_EF(sqr)(&t, &p->ZZZ);
    CZ_EF(mul)(&r->Y, &p->Y, &t);
    r->Z = p->ZZZ;
}

static const CZ_EC_A CZ_EFN(gen_) = CZ_EC_GEN_INIT;
static const CZ_EC_F CZ_EFN(b_) = CZ_EC_B_INIT;

const CZ_EC_A *CZ_EFN(generator)(void) { return &CZ_EFN(gen_); }
const CZ_EC_F *CZ_EFN(b)(void) { return &CZ_EFN(b_); }

void CZ_EFN(to_affine)(CZ_EC_A *r, const CZ_EC *p)
{
    if (CZ_EFN(is_inf)(p)) {
        CZ_EFN(affine_set_inf)(r);
        return;
    }
    CZ_EC_F zi, zi2, zi3;
    (void)CZ_EF(inv)(&zi, &p->Z);
    CZ_EF(sqr)(&zi2, &zi);
    CZ_EF(mul)(&zi3, &zi2, &zi);
    CZ_EF(mul)(&r->x, &p->X, &zi2);
    CZ_EF(mul)(&r->y, &p->Y, &zi3);
}

cz_status CZ_EFN(batch_to_affine)(CZ_EC_A *r, const CZ_EC *p, size_t n)
{
    if (n == 0) return CZ_OK;
    CZ_EC_F *pre = malloc(n * sizeof(CZ_EC_F));
    if (!pre) return CZ_ERR_NO_MEMORY;
    /* prefix products of the non-zero Z */
    CZ_EC_F acc;
    CZ_EF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (!CZ_EFN(is_inf)(&p[i])) CZ_EF(mul)(&acc, &acc, &p[i].Z);
        pre[i] = acc;
    }
    CZ_EC_F inv;
    (void)CZ_EF(inv)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (CZ_EFN(is_inf)(&p[i])) {
            CZ_EFN(affine_set_inf)(&r[i]);
            continue;
        }
        CZ_EC_F zi, zi2;
        if (i > 0)
            CZ_EF(mul)(&zi, &inv, &pre[i - 1]);
        else
            zi = inv;
        CZ_EF(mul)(&inv, &inv, &p[i].Z);
        CZ_EF(sqr)(&zi2, &zi);
        CZ_EF(mul)(&r[i].x, &p[i].X, &zi2);
        CZ_EF(mul)(&zi2, &zi2, &zi);
        CZ_EF(mul)(&r[i].y, &p[i].Y, &zi2);
    }
    free(pre);
    return CZ_OK;
}

int CZ_EFN(eq)(const CZ_EC *p, const CZ_EC *q)
{
    int pi = CZ_EFN(is_inf)(p), qi = CZ_EFN(is_inf)(q);
    if (pi || qi) return pi && qi;
    /* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3 */
    CZ_EC_F z1z1, z2z2, a, b;
    CZ_EF(sqr)(&z1z1, &p->Z);
    CZ_EF(sqr)(&z2z2, &q->Z);
    CZ_EF(mul)(&a, &p->X, &z2z2);
    CZ_EF(mul)(&b, &q->X, &z1z1);
    if (!CZ_EF(eq)(&a, &b)) return 0;
    CZ_EF(mul)(&z1z1, &z1z1, &p->Z);
    CZ_EF(mul)(&z2z2, &z2z2, &q->Z);
    CZ_EF(mul)(&a, &p->Y, &z2z2);
    CZ_EF(mul)(&b, &q->Y, &z1z1);
    return CZ_EF(eq)(&a, &b);
}

int CZ_EFN(affine_is_on_curve)(const CZ_EC_A *p)
{
    if (CZ_EFN(affine_is_inf)(p)) return 1;
    CZ_EC_F l, r;
    CZ_EF(sqr)(&l, &p->y);
    CZ_EF(sqr)(&r, &p->x);
    CZ_EF(mul)(&r, &r, &p->x);
    CZ_EF(add)(&r, &r, &CZ_EFN(b_));
    return CZ_EF(eq)(&l, &r);
}

int CZ_EFN(is_on_curve)(const CZ_EC *p)
{
    if (CZ_EFN(is_inf)(p)) return 1;
    /* Y^2 = X^3 + b Z^6 */
    CZ_EC_F l, r, z6;
    CZ_EF(sqr)(&l, &p->Y);
    CZ_EF(sqr)(&r, &p->X);
    CZ_EF(mul)(&r, &r, &p->X);
    CZ_EF(sqr)(&z6, &p->Z);
    CZ_EF(mul)(&z6, &z6, &p->Z);
    CZ_EF(sqr)(&z6, &z6);
    CZ_EF(mul)(&z6, &z6, &CZ_EFN(b_));
    CZ_EF(add)(&r, &r, &z6);
    return CZ_EF(eq)(&l, &r);
}

void CZ_EFN(mul)(CZ_EC *r, const CZ_EC *p, const uint64_t *k, size_t nk)
{
    /* 4-bit fixed window, table of 0..15 * p */
    CZ_EC tab[16], acc;
    CZ_EFN(set_inf)(&tab[0]);
    tab[1] = *p;
    for (int i = 2; i < 16; i++) CZ_EFN(add)(&tab[i], &tab[i - 1], p);
    CZ_EFN(set_inf)(&acc);
    size_t top = nk * 64;
    while (top > 0 && !((k[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    size_t nwin = (top + 3) / 4;
    for (size_t w = nwin; w-- > 0;) {
        for (int d = 0; d < 4; d++) CZ_EFN(dbl)(&acc, &acc);
        unsigned digit = (unsigned)((k[(4 * w) / 64] >> ((4 * w) % 64)) & 15);
        if (digit) CZ_EFN(add)(&acc, &acc, &tab[digit]);
    }
    *r = acc;
}

void CZ_EFN(mul_fr)(CZ_EC *r, const CZ_EC *p, const CZ_EC_FR *k)
{
    uint64_t c[CZ_CAT(CZ_EC_FR, _LIMBS)];
    CZ_RF(to_canonical)(c, k);
    CZ_EFN(mul)(r, p, c, CZ_CAT(CZ_EC_FR, _LIMBS));
}

/* constant-time conditional copy: r = cond ? a : r */
static void CZ_EFN(cmov_)(CZ_EC *r, const CZ_EC *a, uint64_t cond)
{
    uint64_t mask = (uint64_t)0 - (cond & 1);
    uint64_t *dst = (uint64_t *)r;
    const uint64_t *src = (const uint64_t *)a;
    for (size_t i = 0; i < sizeof(CZ_EC) / 8; i++) dst[i] ^= (dst[i] ^ src[i]) & mask;
}

/* constant-time conditional copy of one coordinate: r = cond ? a : r */
static void CZ_EFN(fcmov_)(CZ_EC_F *r, const CZ_EC_F *a, uint64_t cond)
{
    uint64_t mask = (uint64_t)0 - (cond & 1);
    uint64_t *dst = (uint64_t *)r;
    const uint64_t *src = (const uint64_t *)a;
    for (size_t i = 0; i < sizeof(CZ_EC_F) / 8; i++) dst[i] ^= (dst[i] ^ src[i]) & mask;
}

void CZ_EFN(mul_fr_ct)(CZ_EC *r, const CZ_EC *p, const CZ_EC_FR *k)
{
    /*
     * Regular signed-window ladder, so that neither the sequence of point
     * operations nor their inputs' exceptional cases depend on k:
     *  - k' = k | 1 is odd; the result is corrected by subtracting p when k
     *    was even (the subtraction is always computed, the choice is a cmov).
     *  - k' = sum_{i<64} d_i 16^i + 16^64 with every d_i odd in [-15, 15]:
     *    d_i = (((k' >> 4i) & 31) | 1) - 16 (k' < 2^255 for both curves).
     *    No digit is zero, so the accumulator never meets infinity and the
     *    additions never take their shortcut branches (acc = m p and
     *    +-d p coincide only for m = +-d mod r, i.e. never for |d| <= 15
     *    after the first window, except for crafted k on a crafted p).
     *  - the table of odd multiples p, 3p, .., 15p is scanned in full for
     *    every digit, and the sign is applied with a cmov.
     * Per digit: 4 doublings and one addition, whatever k is.
     * (The previous fixed-window version selected infinity for zero digits,
     * and add() returns early on infinity, so its time depended on the
     * number of zero nibbles of k.)
     */
    enum { NL = CZ_CAT(CZ_EC_FR, _LIMBS) };
    uint64_t c[NL + 1];
    CZ_RF(to_canonical)(c, k);
    c[NL] = 0;
    uint64_t even = (c[0] & 1) ^ 1;
    c[0] |= 1;
    CZ_EC tab[8], acc, sel, t;
    CZ_EC_F ny;
    tab[0] = *p;
    CZ_EFN(dbl)(&t, p);
    for (int i = 1; i < 8; i++) CZ_EFN(add)(&tab[i], &tab[i - 1], &t);
    acc = tab[0]; /* the top digit, 1 */
    for (int w = 64 * NL / 4; w-- > 0;) {
        for (int d = 0; d < 4; d++) CZ_EFN(dbl)(&acc, &acc);
        unsigned b = 4u * (unsigned)w, off = b % 64;
        uint64_t win = c[b / 64] >> off;
        if (off > 59) win |= c[b / 64 + 1] << (64 - off); /* public: depends on w only */
        win = (win & 31) | 1;                            /* odd, 1..31: d = win - 16 */
        uint64_t neg = (win >> 4) ^ 1;                   /* d < 0 */
        uint64_t mag = ((win ^ (0 - neg)) & 15) | 1;     /* |d|: 16 - win for d < 0 */
        uint64_t idx = mag >> 1;                         /* |d| = 2 idx + 1 */
        sel = tab[0];
        for (uint64_t j = 1; j < 8; j++) CZ_EFN(cmov_)(&sel, &tab[j], (((j ^ idx) - 1) >> 63));
        CZ_EF(neg)(&ny, &sel.Y);
        CZ_EFN(fcmov_)(&sel.Y, &ny, neg);
        CZ_EFN(add)(&acc, &acc, &sel);
    }
    /* k even: subtract p */
    CZ_EFN(neg)(&t, p);
    CZ_EFN(add)(&t, &acc, &t);
    CZ_EFN(cmov_)(&acc, &t, even);
    *r = acc;
}

/* Reference subgroup test r*p == O; the fast in_subgroup is per curve
 * (ec/ec_subgroup.c). */
int CZ_EFN(in_subgroup_slow)(const CZ_EC *p)
{
    if (!CZ_EFN(is_on_curve)(p)) return 0;
    CZ_EC t;
    CZ_EFN(mul)(&t, p, CZ_RF(modulus), CZ_CAT(CZ_EC_FR, _LIMBS));
    return CZ_EFN(is_inf)(&t);
}

int CZ_EFN(affine_in_subgroup)(const CZ_EC_A *p)
{
    CZ_EC j;
    CZ_EFN(from_affine)(&j, p);
    return CZ_EFN(in_subgroup)(&j);
}

void CZ_EFN(random)(CZ_EC *r, cz_rng *rng)
{
    CZ_EC_FR k;
    CZ_EC g;
    CZ_RF(random)(&k, rng);
    CZ_EFN(from_affine)(&g, &CZ_EFN(gen_));
    CZ_EFN(mul_fr)(r, &g, &k);
}

#undef CZ_EC_GEN_INIT
#undef CZ_EC_B_INIT
#undef CZ_EFN
#undef CZ_EF
#undef CZ_RF
#undef CZ_EC_A
#undef CZ_EC_X
