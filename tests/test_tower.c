/*
 * Tower tests: Fq2, Fq6 and Fq12 of both curves against an independent GMP
 * model, plus field axioms.
 *
 * The oracle does not know the tower. It represents
 *   Fq2  as Fq[X]/(X^2 + 1)                          (X = u)
 *   Fq6  as Fq[X]/(X^6 - 2 x0 X^3 + x0^2 + 1)        (X = v)
 *   Fq12 as Fq[X]/(X^12 - 2 x0 X^6 + x0^2 + 1)       (X = w)
 * with xi = x0 + u (x0 = 1 or 9): from v^3 = xi resp. w^6 = xi, u = X^3 - x0
 * resp. X^6 - x0 and u^2 = -1. A tower element maps to its flat polynomial
 * (an Fq-linear ring isomorphism), products are schoolbook products reduced
 * by the defining polynomial, the p^k-power Frobenius is the Fq-linear map
 * sending X^i to (X^(p^k))^i, with X^p computed by square-and-multiply in
 * the model. Every tower result (mul, sqr, inv, Frobenius, cyclotomic
 * squaring, sparse line products, Fq2 sqrt) is compared with the model on
 * thousands of random elements (CZ_TEST_SCALE scales the counts).
 */
#include <gmp.h>
#include <string.h>

#include "ff/tower.h"
#include "test_util.h"

/* Largest element: BLS12-381 Fq12 = 12 x 6 limbs. */
typedef struct {
    uint64_t l[72];
} big_el;

typedef void (*bin_fn)(void *, const void *, const void *);
typedef void (*un_fn)(void *, const void *);
typedef cz_status (*inv_fn)(void *, const void *);
typedef void (*frob_fn)(void *, const void *, unsigned);
typedef void (*pow_fn)(void *, const void *, const uint64_t *, size_t);
typedef void (*rnd_fn)(void *, cz_rng *);
typedef int (*eq_fn)(const void *, const void *);
typedef int (*pred_fn)(const void *);
typedef void (*sparse_fn)(void *, const void *, const void *, const void *, const void *);

/* One curve's tower seen through function pointers. */
typedef struct {
    const char *name;
    int n; /* limbs of Fq */
    unsigned long xi0;
    const uint64_t *p;
    /* Fq2 */
    bin_fn f2_mul, f2_add, f2_sub;
    un_fn f2_sqr, f2_conj, f2_mul_by_xi, f2_neg;
    inv_fn f2_inv, f2_sqrt;
    pred_fn f2_is_square, f2_is_lex_largest;
    rnd_fn f2_random;
    /* Fq6 */
    bin_fn f6_mul, f6_add, f6_sub;
    un_fn f6_sqr, f6_mul_by_v, f6_neg;
    inv_fn f6_inv;
    frob_fn f6_frob;
    pow_fn f6_pow;
    rnd_fn f6_random;
    void (*f6_mul_by_01)(void *, const void *, const void *, const void *);
    void (*f6_mul_by_1)(void *, const void *, const void *);
    void (*f6_mul_by_fq2)(void *, const void *, const void *);
    /* Fq12 */
    bin_fn f12_mul, f12_add, f12_sub;
    un_fn f12_sqr, f12_conj, f12_cyc_sqr, f12_neg;
    inv_fn f12_inv;
    frob_fn f12_frob;
    pow_fn f12_pow;
    rnd_fn f12_random;
    eq_fn f12_eq;
    pred_fn f12_is_one, f12_is_zero;
    sparse_fn f12_mul_by_014, f12_mul_by_034;
    /* schoolbook Fq2 product / square from base-field operations */
    bin_fn f2_mul_ref;
    un_fn f2_sqr_ref;
} tower_t;

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u with the base
 * field's mul/add/sub: an independent path to the lazy Fq2 kernels. */
#define FQ2_REF(C)                                                                                 \
    static void C##_fq2_mul_ref(void *rv, const void *av, const void *bv)                          \
    {                                                                                              \
        const C##_fq2 *a = av, *b = bv;                                                            \
        C##_fq t0, t1, t2, t3;                                                                     \
        C##_fq_mul(&t0, &a->c0, &b->c0);                                                           \
        C##_fq_mul(&t1, &a->c1, &b->c1);                                                           \
        C##_fq_mul(&t2, &a->c0, &b->c1);                                                           \
        C##_fq_mul(&t3, &a->c1, &b->c0);                                                           \
        C##_fq2 *r = rv;                                                                           \
        C##_fq_sub(&r->c0, &t0, &t1);                                                              \
        C##_fq_add(&r->c1, &t2, &t3);                                                              \
    }                                                                                              \
    static void C##_fq2_sqr_ref(void *r, const void *a) { C##_fq2_mul_ref(r, a, a); }
FQ2_REF(cz_bls12_381)
FQ2_REF(cz_bn254)

#define TOWER(C, N, XI0)                                                                           \
    {                                                                                              \
        #C, N, XI0, C##_fq_modulus, (bin_fn)C##_fq2_mul, (bin_fn)C##_fq2_add, (bin_fn)C##_fq2_sub, \
            (un_fn)C##_fq2_sqr, (un_fn)C##_fq2_conj, (un_fn)C##_fq2_mul_by_xi, (un_fn)C##_fq2_neg, \
            (inv_fn)C##_fq2_inv, (inv_fn)C##_fq2_sqrt, (pred_fn)C##_fq2_is_square,                 \
            (pred_fn)C##_fq2_is_lex_largest, (rnd_fn)C##_fq2_random, (bin_fn)C##_fq6_mul,          \
            (bin_fn)C##_fq6_add, (bin_fn)C##_fq6_sub, (un_fn)C##_fq6_sqr, (un_fn)C##_fq6_mul_by_v, \
            (un_fn)C##_fq6_neg, (inv_fn)C##_fq6_inv, (frob_fn)C##_fq6_frobenius,                   \
            (pow_fn)C##_fq6_pow, (rnd_fn)C##_fq6_random,                                           \
            (void (*)(void *, const void *, const void *, const void *))C##_fq6_mul_by_01,         \
            (void (*)(void *, const void *, const void *))C##_fq6_mul_by_1,                        \
            (void (*)(void *, const void *, const void *))C##_fq6_mul_by_fq2,                      \
            (bin_fn)C##_fq12_mul, (bin_fn)C##_fq12_add, (bin_fn)C##_fq12_sub,                      \
            (un_fn)C##_fq12_sqr, (un_fn)C##_fq12_conj, (un_fn)C##_fq12_cyclotomic_sqr,             \
            (un_fn)C##_fq12_neg, (inv_fn)C##_fq12_inv, (frob_fn)C##_fq12_frobenius,                \
            (pow_fn)C##_fq12_pow, (rnd_fn)C##_fq12_random, (eq_fn)C##_fq12_eq,                     \
            (pred_fn)C##_fq12_is_one, (pred_fn)C##_fq12_is_zero, (sparse_fn)C##_fq12_mul_by_014,   \
            (sparse_fn)C##_fq12_mul_by_034, C##_fq2_mul_ref, C##_fq2_sqr_ref                       \
    }

static const tower_t TOWERS[] = {
    TOWER(cz_bls12_381, 6, 1),
    TOWER(cz_bn254, 4, 9),
};

/* ---- the GMP model ---- */

static mpz_t P, RINV, XI0, MID, CST, PM1H;

/* D = 2: X^2 = -1; D = 6, 12: X^D = MID X^(D/2) - CST with MID = 2 x0,
 * CST = x0^2 + 1. Polynomials are arrays of D mpz (coefficients in [0, p)). */
typedef struct {
    int d;
    mpz_t c[12];
} poly;

static void poly_init(poly *a, int d)
{
    a->d = d;
    for (int i = 0; i < 12; i++) mpz_init(a->c[i]);
}
static void poly_clear(poly *a)
{
    for (int i = 0; i < 12; i++) mpz_clear(a->c[i]);
}
static void poly_set(poly *r, const poly *a)
{
    r->d = a->d;
    for (int i = 0; i < a->d; i++) mpz_set(r->c[i], a->c[i]);
}
static void poly_one(poly *r, int d)
{
    r->d = d;
    for (int i = 0; i < d; i++) mpz_set_ui(r->c[i], i == 0);
}
static int poly_eq(const poly *a, const poly *b)
{
    if (a->d != b->d) return 0;
    for (int i = 0; i < a->d; i++)
        if (mpz_cmp(a->c[i], b->c[i]) != 0) return 0;
    return 1;
}
static int poly_is_one(const poly *a)
{
    for (int i = 0; i < a->d; i++)
        if (mpz_cmp_ui(a->c[i], i == 0) != 0) return 0;
    return 1;
}

static mpz_t PT[23];

static void poly_mul(poly *r, const poly *a, const poly *b)
{
    int d = a->d;
    for (int i = 0; i < 2 * d - 1; i++) mpz_set_ui(PT[i], 0);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) mpz_addmul(PT[i + j], a->c[i], b->c[j]);
    for (int k = 2 * d - 2; k >= d; k--) {
        mpz_mod(PT[k], PT[k], P);
        if (d == 2) {
            mpz_sub(PT[k - 2], PT[k - 2], PT[k]);
        } else {
            mpz_addmul(PT[k - d / 2], PT[k], MID);
            mpz_submul(PT[k - d], PT[k], CST);
        }
    }
    r->d = d;
    for (int i = 0; i < d; i++) mpz_mod(r->c[i], PT[i], P);
}

static void poly_pow(poly *r, const poly *a, const mpz_t e)
{
    poly acc, base;
    poly_init(&acc, a->d);
    poly_init(&base, a->d);
    poly_one(&acc, a->d);
    poly_set(&base, a);
    for (long i = (long)mpz_sizeinbase(e, 2) - 1; i >= 0; i--) {
        poly_mul(&acc, &acc, &acc);
        if (mpz_tstbit(e, (mp_bitcnt_t)i)) poly_mul(&acc, &acc, &base);
    }
    poly_set(r, &acc);
    poly_clear(&acc);
    poly_clear(&base);
}

/* value of one Fq limb group (Montgomery) as an integer in [0, p) */
static void fq_value(mpz_t out, const uint64_t *l, int n)
{
    mpz_import(out, (size_t)n, -1, 8, 0, 0, l);
    mpz_mul(out, out, RINV);
    mpz_mod(out, out, P);
}

/* 1 if every Fq limb group of the element is fully reduced (< p) */
static int el_reduced(const tower_t *t, const big_el *a, int nfq)
{
    mpz_t v;
    mpz_init(v);
    int ok = 1;
    for (int i = 0; i < nfq; i++) {
        mpz_import(v, (size_t)t->n, -1, 8, 0, 0, a->l + i * t->n);
        ok &= mpz_cmp(v, P) < 0;
    }
    mpz_clear(v);
    return ok;
}

/* Tower element (2, 6 or 12 Fq values in struct order) -> flat polynomial. */
static void to_poly(poly *r, const tower_t *t, const big_el *a, int d)
{
    mpz_t c0, c1;
    mpz_inits(c0, c1, NULL);
    r->d = d;
    for (int i = 0; i < d; i++) mpz_set_ui(r->c[i], 0);
    int nq = d / 2; /* number of Fq2 coefficients */
    for (int idx = 0; idx < nq; idx++) {
        fq_value(c0, a->l + (2 * idx) * t->n, t->n);
        fq_value(c1, a->l + (2 * idx + 1) * t->n, t->n);
        if (d == 2) {
            mpz_set(r->c[0], c0);
            mpz_set(r->c[1], c1);
            continue;
        }
        /* Fq6: idx = power of v. Fq12: struct order c0.c0, c0.c1, c0.c2,
         * c1.c0, c1.c1, c1.c2 = w^0, w^2, w^4, w^1, w^3, w^5 */
        int j = d == 6 ? idx : (idx % 3) * 2 + idx / 3;
        /* (c0 + c1 u) X^j with u = X^(d/2) - x0 */
        mpz_add(r->c[j], r->c[j], c0);
        mpz_submul(r->c[j], c1, XI0);
        mpz_add(r->c[j + d / 2], r->c[j + d / 2], c1);
    }
    for (int i = 0; i < d; i++) mpz_mod(r->c[i], r->c[i], P);
    mpz_clears(c0, c1, NULL);
}

/* 1 if tower element a equals polynomial q (and is fully reduced) */
static int el_matches(const tower_t *t, const big_el *a, const poly *q)
{
    poly x;
    poly_init(&x, q->d);
    to_poly(&x, t, a, q->d);
    int ok = poly_eq(&x, q) && el_reduced(t, a, q->d);
    poly_clear(&x);
    return ok;
}

/* Frobenius matrices of the model: FROB[d][k] column i = (X^(p^k))^i. */
typedef struct {
    int d;
    poly col[12];
} frob_mat;

static frob_mat FM6[6], FM12[12];

static void frob_mats_init(frob_mat *m, int d, int kmax)
{
    poly x, xp;
    poly_init(&x, d);
    poly_init(&xp, d);
    for (int i = 0; i < d; i++) mpz_set_ui(x.c[i], i == 1);
    poly_pow(&xp, &x, P); /* X^p */
    for (int k = 0; k < kmax; k++) {
        m[k].d = d;
        for (int i = 0; i < 12; i++) poly_init(&m[k].col[i], d);
    }
    /* k = 0: identity */
    for (int i = 0; i < d; i++) {
        poly_one(&m[0].col[i], d);
        if (i > 0) poly_mul(&m[0].col[i], &m[0].col[i - 1], &x);
    }
    poly wk;
    poly_init(&wk, d);
    poly_set(&wk, &xp);
    for (int k = 1; k < kmax; k++) {
        /* X^(p^k) = frob_1(X^(p^(k-1))), applied through the k-1 matrix of
         * powers: X^(p^k) = (X^(p^(k-1)))^p = sum c_i (X^p)^i */
        if (k > 1) {
            poly acc;
            poly_init(&acc, d);
            for (int i = 0; i < d; i++) mpz_set_ui(acc.c[i], 0);
            /* wk holds X^(p^(k-1)); map it with the k = 1 matrix */
            for (int i = 0; i < d; i++)
                for (int r = 0; r < d; r++) mpz_addmul(acc.c[r], wk.c[i], m[1].col[i].c[r]);
            for (int r = 0; r < d; r++) mpz_mod(acc.c[r], acc.c[r], P);
            poly_set(&wk, &acc);
            poly_clear(&acc);
        }
        poly_one(&m[k].col[0], d);
        for (int i = 1; i < d; i++) poly_mul(&m[k].col[i], &m[k].col[i - 1], &wk);
    }
    poly_clear(&x);
    poly_clear(&xp);
    poly_clear(&wk);
}

static void frob_mats_clear(frob_mat *m, int kmax)
{
    for (int k = 0; k < kmax; k++)
        for (int i = 0; i < 12; i++) poly_clear(&m[k].col[i]);
}

static void frob_apply(poly *r, const frob_mat *m, const poly *a)
{
    int d = a->d;
    for (int i = 0; i < 2 * d && i < 23; i++) mpz_set_ui(PT[i], 0);
    for (int i = 0; i < d; i++)
        for (int row = 0; row < d; row++) mpz_addmul(PT[row], a->c[i], m->col[i].c[row]);
    r->d = d;
    for (int row = 0; row < d; row++) mpz_mod(r->c[row], PT[row], P);
}

/* ---- tests ---- */

static void setup_curve(const tower_t *t)
{
    mpz_import(P, (size_t)t->n, -1, 8, 0, 0, t->p);
    mpz_set_ui(RINV, 1);
    mpz_mul_2exp(RINV, RINV, (mp_bitcnt_t)(64 * t->n));
    mpz_invert(RINV, RINV, P);
    mpz_set_ui(XI0, t->xi0);
    mpz_set_ui(MID, 2 * t->xi0);
    mpz_set_ui(CST, t->xi0 * t->xi0 + 1);
    mpz_sub_ui(PM1H, P, 1);
    mpz_fdiv_q_2exp(PM1H, PM1H, 1);
}

static void test_fq2(const tower_t *t, cz_rng *rng)
{
    long iters = cz_test_iters(2000);
    poly pa, pb, pr;
    poly_init(&pa, 2);
    poly_init(&pb, 2);
    poly_init(&pr, 2);
    mpz_t e, c0, c1;
    mpz_inits(e, c0, c1, NULL);
    mpz_mul(e, P, P);
    mpz_sub_ui(e, e, 1);
    mpz_fdiv_q_2exp(e, e, 1); /* (p^2 - 1) / 2: Euler's criterion in Fq2 */
    long squares = 0, non_squares = 0;
    for (long it = 0; it < iters; it++) {
        big_el a, b, r, s;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        t->f2_random(&a, rng);
        t->f2_random(&b, rng);
        /* edge shapes: a with c1 = 0 or c0 = 0 */
        if (it % 16 == 1) memset(a.l + t->n, 0, 8 * (size_t)t->n);
        if (it % 16 == 2) memset(a.l, 0, 8 * (size_t)t->n);
        to_poly(&pa, t, &a, 2);
        to_poly(&pb, t, &b, 2);

        t->f2_mul(&r, &a, &b);
        poly_mul(&pr, &pa, &pb);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq2 mul", t->name);
        t->f2_sqr(&r, &a);
        poly_mul(&pr, &pa, &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq2 sqr", t->name);
        if (t->f2_inv(&r, &a) == CZ_OK) {
            to_poly(&pr, t, &r, 2);
            poly_mul(&pr, &pr, &pa);
            CHECK_MSG(poly_is_one(&pr), "%s fq2 inv", t->name);
        } else {
            CHECK(0);
        }
        /* conj = x^p, mul_by_xi */
        t->f2_conj(&r, &a);
        poly_pow(&pr, &pa, P);
        if (it < 64) CHECK_MSG(el_matches(t, &r, &pr), "%s fq2 conj = frobenius", t->name);
        t->f2_mul_by_xi(&r, &a);
        mpz_set(pb.c[0], XI0);
        mpz_set_ui(pb.c[1], 1);
        poly_mul(&pr, &pa, &pb);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq2 mul_by_xi", t->name);

        /* sqrt of a square: a root whose square is a^2 */
        t->f2_sqr(&s, &a);
        cz_status st = t->f2_sqrt(&r, &s);
        CHECK_MSG(st == CZ_OK, "%s fq2 sqrt of a square", t->name);
        if (st == CZ_OK) {
            big_el r2;
            t->f2_sqr(&r2, &r);
            CHECK(memcmp(r2.l, s.l, 16 * (size_t)t->n) == 0);
        }
        CHECK(t->f2_is_square(&s));
        /* sqrt of a random element: exists iff Euler's criterion says so */
        if (it < cz_test_iters(400) || it < 40) {
            poly_pow(&pr, &pa, e);
            int is_sq = poly_is_one(&pr) || (mpz_sgn(pa.c[0]) == 0 && mpz_sgn(pa.c[1]) == 0);
            st = t->f2_sqrt(&r, &a);
            CHECK_MSG((st == CZ_OK) == is_sq, "%s fq2 sqrt existence", t->name);
            CHECK(t->f2_is_square(&a) == is_sq);
            if (st == CZ_OK) {
                big_el r2;
                t->f2_sqr(&r2, &r);
                CHECK(memcmp(r2.l, a.l, 16 * (size_t)t->n) == 0);
            } else {
                CHECK(st == CZ_ERR_NOT_SQUARE);
            }
            if (is_sq)
                squares++;
            else
                non_squares++;
        }
        /* is_lex_largest against GMP */
        fq_value(c0, a.l, t->n);
        fq_value(c1, a.l + t->n, t->n);
        int want = mpz_sgn(c1) != 0 ? mpz_cmp(c1, PM1H) > 0 : mpz_cmp(c0, PM1H) > 0;
        CHECK_MSG(t->f2_is_lex_largest(&a) == want, "%s fq2 is_lex_largest", t->name);
        /* a and -a: exactly one is lex-largest unless a = 0 */
        t->f2_neg(&r, &a);
        if (mpz_sgn(c0) || mpz_sgn(c1)) CHECK(t->f2_is_lex_largest(&r) != t->f2_is_lex_largest(&a));
    }
    CHECK_MSG(squares > 0 && non_squares > 0, "%s: sqrt saw %ld squares, %ld non-squares", t->name,
              squares, non_squares);
    /* zero: sqrt(0) = 0, inv(0) fails, 0 is not lex-largest */
    big_el z, r;
    memset(&z, 0, sizeof z);
    CHECK(t->f2_sqrt(&r, &z) == CZ_OK && mpz_sgn((mpz_set_ui(c0, 0), c0)) == 0);
    CHECK(cz_limbs_is_zero(r.l, 2 * t->n));
    CHECK(t->f2_inv(&r, &z) == CZ_ERR_DIV_BY_ZERO);
    CHECK(!t->f2_is_lex_largest(&z));
    /* specific non-squares: xi is a non-square (it is a sextic non-residue) */
    big_el xi;
    memset(&xi, 0, sizeof xi);
    big_el one;
    memset(&one, 0, sizeof one);
    /* Montgomery one of Fq2 = (R, 0): obtain as a * a^-1 */
    t->f2_random(&one, rng);
    CHECK(t->f2_inv(&r, &one) == CZ_OK);
    t->f2_mul(&one, &one, &r);
    t->f2_mul_by_xi(&xi, &one);
    CHECK(t->f2_sqrt(&r, &xi) == CZ_ERR_NOT_SQUARE);
    CHECK(!t->f2_is_square(&xi));
    /* -1 = u^2 is a square in Fq2 (u), with c1 = 0 */
    big_el m1;
    t->f2_neg(&m1, &one);
    CHECK(t->f2_sqrt(&r, &m1) == CZ_OK);
    poly_clear(&pa);
    poly_clear(&pb);
    poly_clear(&pr);
    mpz_clears(e, c0, c1, NULL);
}

/*
 * Fq2 mul and sqr on edge representations of the coefficients: the raw
 * (Montgomery) limbs 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p,
 * p - (R mod p), 2^64k - 1 and 2^64k mod p, limbs all ones below a top limb
 * just under p's, p - 2^k. These stress the lazy reductions of
 * cz_mont_fq2_mul / cz_mont_fq2_sqr (unreduced sums a0 + a1 near 2p, the
 * sign of a0 b0 - a1 b1, double-width borrows). Every pair of pairs is
 * compared with the model, and each result with a schoolbook product over
 * the base field's own mul/add/sub (fq2_ref, below).
 */
static int fq2_edge_reps(const tower_t *t, uint64_t (*out)[6], int cap)
{
    int n = t->n, k = 0;
    mpz_t z, r;
    mpz_inits(z, r, NULL);
    mpz_set_ui(r, 1);
    mpz_mul_2exp(r, r, (mp_bitcnt_t)(64 * n));
    mpz_mod(r, r, P);
    for (int v = 0; v < 24 && k < cap; v++) {
        switch (v) {
        case 0: mpz_set_ui(z, 0); break;
        case 1: mpz_set_ui(z, 1); break;
        case 2: mpz_set_ui(z, 2); break;
        case 3: mpz_sub_ui(z, P, 1); break;
        case 4: mpz_sub_ui(z, P, 2); break;
        case 5: mpz_sub_ui(z, P, 1), mpz_fdiv_q_2exp(z, z, 1); break;
        case 6: mpz_add_ui(z, P, 1), mpz_fdiv_q_2exp(z, z, 1); break;
        case 7: mpz_set(z, r); break;
        case 8: mpz_sub(z, P, r); break;
        case 9: case 10: case 11: /* 2^(64k) - 1 for k = 1, n-1, n (mod p) */
            mpz_set_ui(z, 1);
            mpz_mul_2exp(z, z, (mp_bitcnt_t)(64 * (v == 9 ? 1 : v == 10 ? n - 1 : n)));
            mpz_sub_ui(z, z, 1);
            break;
        case 12: case 13: /* limbs all ones below a top limb of p's top - 1 (resp. / 2) */
            mpz_set_ui(z, v == 12 ? t->p[n - 1] - 1 : t->p[n - 1] / 2);
            mpz_mul_2exp(z, z, (mp_bitcnt_t)(64 * (n - 1)));
            {
                mpz_t o;
                mpz_init_set_ui(o, 1);
                mpz_mul_2exp(o, o, (mp_bitcnt_t)(64 * (n - 1)));
                mpz_sub_ui(o, o, 1);
                mpz_add(z, z, o);
                mpz_clear(o);
            }
            break;
        default: /* p - 2^b for a spread of b */
            mpz_set_ui(z, 1);
            mpz_mul_2exp(z, z, (mp_bitcnt_t)((v - 14) * (64 * n - 3) / 9));
            mpz_sub(z, P, z);
            break;
        }
        mpz_mod(z, z, P);
        memset(out[k], 0, sizeof out[k]);
        size_t cnt = 0;
        mpz_export(out[k], &cnt, -1, 8, 0, 0, z);
        k++;
    }
    mpz_clears(z, r, NULL);
    return k;
}

static void test_fq2_edges(const tower_t *t)
{
    uint64_t reps[24][6];
    int nr = fq2_edge_reps(t, reps, 24);
    size_t fb = 8 * (size_t)t->n;
    poly pa, pb, pr;
    poly_init(&pa, 2);
    poly_init(&pb, 2);
    poly_init(&pr, 2);
    long bad = 0;
    for (int i0 = 0; i0 < nr; i0++)
        for (int i1 = 0; i1 < nr; i1++) {
            big_el a, r, c;
            memset(&a, 0, sizeof a);
            memcpy(a.l, reps[i0], fb);
            memcpy(a.l + t->n, reps[i1], fb);
            to_poly(&pa, t, &a, 2);
            t->f2_sqr(&r, &a);
            poly_mul(&pr, &pa, &pa);
            if (!el_matches(t, &r, &pr)) bad++;
            t->f2_sqr_ref(&c, &a);
            if (memcmp(r.l, c.l, 2 * fb) != 0) bad++;
            /* aliasing: r = a */
            c = a;
            t->f2_sqr(&c, &c);
            if (memcmp(r.l, c.l, 2 * fb) != 0) bad++;
            for (int j0 = 0; j0 < nr; j0 += (j0 < 12 ? 1 : 3))
                for (int j1 = 0; j1 < nr; j1 += (j1 < 12 ? 1 : 3)) {
                    big_el b;
                    memset(&b, 0, sizeof b);
                    memcpy(b.l, reps[j0], fb);
                    memcpy(b.l + t->n, reps[j1], fb);
                    to_poly(&pb, t, &b, 2);
                    t->f2_mul(&r, &a, &b);
                    poly_mul(&pr, &pa, &pb);
                    if (!el_matches(t, &r, &pr)) bad++;
                    t->f2_mul_ref(&c, &a, &b);
                    if (memcmp(r.l, c.l, 2 * fb) != 0) bad++;
                }
            c = a;
            t->f2_mul(&c, &c, &c); /* aliasing: r = a = b */
            t->f2_sqr(&r, &a);
            if (memcmp(r.l, c.l, 2 * fb) != 0) bad++;
        }
    CHECK_MSG(bad == 0, "%s: %ld fq2 mul/sqr mismatches on edge representations", t->name, bad);
    poly_clear(&pa);
    poly_clear(&pb);
    poly_clear(&pr);
}

/* a = element with only the given Fq2 coefficients (struct index) copied */
static void sparse_dense(const tower_t *t, big_el *out, int nfq2, const int *idx, const big_el *const *vals,
                         int cnt)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < cnt; i++) memcpy(out->l + 2 * idx[i] * t->n, vals[i]->l, 16 * (size_t)t->n);
    (void)nfq2;
}

static void test_fq6(const tower_t *t, cz_rng *rng)
{
    long iters = cz_test_iters(2000);
    poly pa, pb, pr, pq;
    poly_init(&pa, 6);
    poly_init(&pb, 6);
    poly_init(&pr, 6);
    poly_init(&pq, 6);
    for (long it = 0; it < iters; it++) {
        big_el a, b, c, r, r2, b0, b1;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        memset(&b0, 0, sizeof b0);
        memset(&b1, 0, sizeof b1);
        t->f6_random(&a, rng);
        t->f6_random(&b, rng);
        t->f6_random(&c, rng);
        t->f2_random(&b0, rng);
        t->f2_random(&b1, rng);
        to_poly(&pa, t, &a, 6);
        to_poly(&pb, t, &b, 6);

        t->f6_mul(&r, &a, &b);
        poly_mul(&pr, &pa, &pb);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 mul", t->name);
        r = a; /* aliasing */
        t->f6_mul(&r, &r, &b);
        CHECK(el_matches(t, &r, &pr));
        t->f6_sqr(&r, &a);
        poly_mul(&pr, &pa, &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 sqr", t->name);
        CHECK(t->f6_inv(&r, &a) == CZ_OK);
        to_poly(&pr, t, &r, 6);
        poly_mul(&pr, &pr, &pa);
        CHECK_MSG(poly_is_one(&pr), "%s fq6 inv", t->name);

        /* mul_by_v: v = X */
        t->f6_mul_by_v(&r, &a);
        for (int i = 0; i < 6; i++) mpz_set_ui(pq.c[i], i == 1);
        poly_mul(&pr, &pa, &pq);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 mul_by_v", t->name);
        /* sparse products against the dense product */
        {
            const int i01[2] = {0, 1}, i1[1] = {1}, i0[1] = {0};
            const big_el *v01[2] = {&b0, &b1}, *v1[1] = {&b1}, *v0[1] = {&b0};
            big_el d;
            sparse_dense(t, &d, 3, i01, v01, 2);
            to_poly(&pq, t, &d, 6);
            poly_mul(&pr, &pa, &pq);
            t->f6_mul_by_01(&r, &a, &b0, &b1);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 mul_by_01", t->name);
            sparse_dense(t, &d, 3, i1, v1, 1);
            to_poly(&pq, t, &d, 6);
            poly_mul(&pr, &pa, &pq);
            t->f6_mul_by_1(&r, &a, &b1);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 mul_by_1", t->name);
            sparse_dense(t, &d, 3, i0, v0, 1);
            to_poly(&pq, t, &d, 6);
            poly_mul(&pr, &pa, &pq);
            t->f6_mul_by_fq2(&r, &a, &b0);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 mul_by_fq2", t->name);
        }
        /* Frobenius k = it mod 6 against the model's linear map */
        unsigned k = (unsigned)(it % 6);
        t->f6_frob(&r, &a, k);
        frob_apply(&pr, &FM6[k], &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq6 frobenius %u", t->name, k);
        /* axioms: associativity, distributivity, commutativity */
        t->f6_mul(&r, &a, &b);
        t->f6_mul(&r, &r, &c);
        t->f6_mul(&r2, &b, &c);
        t->f6_mul(&r2, &a, &r2);
        CHECK(memcmp(r.l, r2.l, 48 * (size_t)t->n) == 0);
        big_el s;
        t->f6_add(&s, &b, &c);
        t->f6_mul(&r, &a, &s);
        t->f6_mul(&s, &a, &b);
        t->f6_mul(&r2, &a, &c);
        t->f6_add(&r2, &r2, &s);
        CHECK(memcmp(r.l, r2.l, 48 * (size_t)t->n) == 0);
        t->f6_mul(&r, &a, &b);
        t->f6_mul(&r2, &b, &a);
        CHECK(memcmp(r.l, r2.l, 48 * (size_t)t->n) == 0);
    }
    /* Frobenius against pow(x, p^k) for k = 1..5 */
    mpz_t e;
    mpz_init(e);
    for (unsigned k = 1; k < 6; k++) {
        big_el a, r, r2;
        memset(&a, 0, sizeof a);
        t->f6_random(&a, rng);
        mpz_pow_ui(e, P, k);
        uint64_t limbs[40] = {0};
        size_t cnt = 0;
        mpz_export(limbs, &cnt, -1, 8, 0, 0, e);
        t->f6_pow(&r, &a, limbs, cnt);
        t->f6_frob(&r2, &a, k);
        CHECK_MSG(memcmp(r.l, r2.l, 48 * (size_t)t->n) == 0, "%s fq6 frobenius %u vs pow", t->name, k);
    }
    mpz_clear(e);
    big_el z, r;
    memset(&z, 0, sizeof z);
    CHECK(t->f6_inv(&r, &z) == CZ_ERR_DIV_BY_ZERO);
    poly_clear(&pa);
    poly_clear(&pb);
    poly_clear(&pr);
    poly_clear(&pq);
}

/* easy part of the final exponentiation: a^((p^6 - 1)(p^2 + 1)), tower ops */
static void to_cyclotomic(const tower_t *t, big_el *r, const big_el *a)
{
    big_el x, y;
    t->f12_conj(&x, a);
    CHECK(t->f12_inv(&y, a) == CZ_OK);
    t->f12_mul(&x, &x, &y);
    t->f12_frob(&y, &x, 2);
    t->f12_mul(r, &x, &y);
}

static void test_fq12(const tower_t *t, cz_rng *rng)
{
    long iters = cz_test_iters(2000);
    const size_t bytes = 96 * (size_t)t->n;
    poly pa, pb, pr, pq;
    poly_init(&pa, 12);
    poly_init(&pb, 12);
    poly_init(&pr, 12);
    poly_init(&pq, 12);
    for (long it = 0; it < iters; it++) {
        big_el a, b, c, r, r2, o0, o1, o4;
        memset(&o0, 0, sizeof o0);
        memset(&o1, 0, sizeof o1);
        memset(&o4, 0, sizeof o4);
        t->f12_random(&a, rng);
        t->f12_random(&b, rng);
        t->f12_random(&c, rng);
        t->f2_random(&o0, rng);
        t->f2_random(&o1, rng);
        t->f2_random(&o4, rng);
        to_poly(&pa, t, &a, 12);
        to_poly(&pb, t, &b, 12);

        t->f12_mul(&r, &a, &b);
        poly_mul(&pr, &pa, &pb);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 mul", t->name);
        r = b; /* aliasing */
        t->f12_mul(&r, &a, &r);
        CHECK(el_matches(t, &r, &pr));
        t->f12_sqr(&r, &a);
        poly_mul(&pr, &pa, &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 sqr", t->name);
        if (it % 2 == 0) {
            CHECK(t->f12_inv(&r, &a) == CZ_OK);
            to_poly(&pr, t, &r, 12);
            poly_mul(&pr, &pr, &pa);
            CHECK_MSG(poly_is_one(&pr), "%s fq12 inv", t->name);
            t->f12_mul(&r, &r, &a);
            CHECK(t->f12_is_one(&r));
        }
        /* Frobenius k = it mod 12 */
        unsigned k = (unsigned)(it % 12);
        t->f12_frob(&r, &a, k);
        frob_apply(&pr, &FM12[k], &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 frobenius %u", t->name, k);
        /* conj = frobenius 6 */
        t->f12_conj(&r, &a);
        frob_apply(&pr, &FM12[6], &pa);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 conj", t->name);
        /* sparse line products: 014 = (c0.c0, c0.c1, c1.c1), 034 = (c0.c0, c1.c0, c1.c1) */
        {
            const int i014[3] = {0, 1, 4}, i034[3] = {0, 3, 4};
            const big_el *v[3] = {&o0, &o1, &o4};
            big_el d;
            sparse_dense(t, &d, 6, i014, v, 3);
            to_poly(&pq, t, &d, 12);
            poly_mul(&pr, &pa, &pq);
            t->f12_mul_by_014(&r, &a, &o0, &o1, &o4);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 mul_by_014", t->name);
            sparse_dense(t, &d, 6, i034, v, 3);
            to_poly(&pq, t, &d, 12);
            poly_mul(&pr, &pa, &pq);
            t->f12_mul_by_034(&r, &a, &o0, &o1, &o4);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 mul_by_034", t->name);
            r = a;
            t->f12_mul_by_034(&r, &r, &o0, &o1, &o4);
            CHECK(el_matches(t, &r, &pr));
        }
        /* cyclotomic squaring on cyclotomic elements */
        if (it % 4 == 0) {
            big_el g;
            to_cyclotomic(t, &g, &a);
            to_poly(&pq, t, &g, 12);
            /* model check that g is cyclotomic: g^(p^4) g = g^(p^2), g^(p^6) g = 1 */
            poly x4, x2;
            poly_init(&x4, 12);
            poly_init(&x2, 12);
            frob_apply(&x4, &FM12[4], &pq);
            poly_mul(&x4, &x4, &pq);
            frob_apply(&x2, &FM12[2], &pq);
            CHECK(poly_eq(&x4, &x2));
            frob_apply(&x4, &FM12[6], &pq);
            poly_mul(&x4, &x4, &pq);
            CHECK(poly_is_one(&x4));
            poly_clear(&x4);
            poly_clear(&x2);
            t->f12_cyc_sqr(&r, &g);
            poly_mul(&pr, &pq, &pq);
            CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 cyclotomic_sqr", t->name);
            t->f12_cyc_sqr(&g, &g); /* aliasing */
            CHECK(memcmp(g.l, r.l, bytes) == 0);
            /* on the cyclotomic subgroup conj is the inverse */
            t->f12_conj(&r2, &g);
            t->f12_mul(&r2, &r2, &g);
            CHECK(t->f12_is_one(&r2));
        }
        /* axioms */
        if (it % 4 == 1) {
            t->f12_mul(&r, &a, &b);
            t->f12_mul(&r, &r, &c);
            t->f12_mul(&r2, &b, &c);
            t->f12_mul(&r2, &a, &r2);
            CHECK(t->f12_eq(&r, &r2));
            big_el s;
            t->f12_add(&s, &b, &c);
            t->f12_mul(&r, &a, &s);
            t->f12_mul(&s, &a, &b);
            t->f12_mul(&r2, &a, &c);
            t->f12_add(&r2, &r2, &s);
            CHECK(t->f12_eq(&r, &r2));
            t->f12_sub(&r, &r, &r2);
            CHECK(t->f12_is_zero(&r));
            /* Frobenius is a ring homomorphism and composes */
            unsigned j = (unsigned)(it % 7) + 1;
            t->f12_mul(&s, &a, &b);
            t->f12_frob(&r, &s, j);
            t->f12_frob(&r2, &a, j);
            t->f12_frob(&s, &b, j);
            t->f12_mul(&r2, &r2, &s);
            CHECK(t->f12_eq(&r, &r2));
            t->f12_frob(&r, &a, j);
            t->f12_frob(&r, &r, 12 - j);
            CHECK(t->f12_eq(&r, &a));
        }
    }
    /* Frobenius against pow(x, p^k), k = 1..11 */
    mpz_t e;
    mpz_init(e);
    for (unsigned k = 1; k < 12; k++) {
        big_el a, r, r2;
        t->f12_random(&a, rng);
        mpz_pow_ui(e, P, k);
        uint64_t limbs[80] = {0};
        size_t cnt = 0;
        mpz_export(limbs, &cnt, -1, 8, 0, 0, e);
        t->f12_pow(&r, &a, limbs, cnt);
        t->f12_frob(&r2, &a, k);
        CHECK_MSG(t->f12_eq(&r, &r2), "%s fq12 frobenius %u vs pow", t->name, k);
    }
    /* pow against the model */
    for (int i = 0; i < 8; i++) {
        big_el a, r;
        t->f12_random(&a, rng);
        uint64_t ex[3] = {cz_rng_u64(rng), cz_rng_u64(rng), (uint64_t)i};
        t->f12_pow(&r, &a, ex, 3);
        mpz_import(e, 3, -1, 8, 0, 0, ex);
        to_poly(&pa, t, &a, 12);
        poly_pow(&pr, &pa, e);
        CHECK_MSG(el_matches(t, &r, &pr), "%s fq12 pow", t->name);
    }
    mpz_clear(e);
    big_el z, r;
    memset(&z, 0, sizeof z);
    CHECK(t->f12_inv(&r, &z) == CZ_ERR_DIV_BY_ZERO);
    CHECK(t->f12_is_zero(&r));
    poly_clear(&pa);
    poly_clear(&pb);
    poly_clear(&pr);
    poly_clear(&pq);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_tower");
    mpz_inits(P, RINV, XI0, MID, CST, PM1H, NULL);
    for (int i = 0; i < 23; i++) mpz_init(PT[i]);
    for (size_t c = 0; c < CZ_ARRAY_LEN(TOWERS); c++) {
        const tower_t *t = &TOWERS[c];
        setup_curve(t);
        frob_mats_init(FM6, 6, 6);
        frob_mats_init(FM12, 12, 12);
        /* the model's Frobenius of order 6 / 12 is the identity */
        {
            poly x, y;
            poly_init(&x, 12);
            poly_init(&y, 12);
            for (int i = 0; i < 12; i++) mpz_set_ui(x.c[i], i == 1);
            frob_apply(&y, &FM12[11], &x);
            frob_apply(&y, &FM12[1], &y);
            CHECK(poly_eq(&x, &y));
            poly_clear(&x);
            poly_clear(&y);
        }
        test_fq2(t, &rng);
        test_fq2_edges(t);
        test_fq6(t, &rng);
        test_fq12(t, &rng);
        frob_mats_clear(FM6, 6);
        frob_mats_clear(FM12, 12);
        printf("%s: tower done (%ld passed, %ld failed so far)\n", t->name, cz_test_passed, cz_test_failed);
    }
    for (int i = 0; i < 23; i++) mpz_clear(PT[i]);
    mpz_clears(P, RINV, XI0, MID, CST, PM1H, NULL);
    return cz_test_finish("test_tower");
}
