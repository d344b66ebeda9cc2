/*
 * ec tests: the four groups (BLS12-381 G1/G2, BN254 G1/G2) against an
 * independent affine reference over GMP (textbook chord-and-tangent
 * formulas, values converted from the raw Montgomery limbs with GMP, so no
 * cuzk field or point code is in the oracle), against published vectors
 * (zcash/IETF BLS12-381 generator bytes and multiples, EIP-196/197 BN254
 * precompile vectors), and against each other (Jacobian, mixed, XYZZ paths,
 * fast vs slow subgroup checks). Then the point encodings of ec/ec_serde.h:
 * round trips, published bytes, every malformed-input class, and a fuzz loop
 * of random bit flips.
 */
#include <gmp.h>
#include <string.h>

#include "ec/ec.h"
#include "ec/ec_serde.h"
#include "ec/ec_subgroup.h"
#include "test_util.h"

/* ======================================================================
 * Generic storage and a group seen through void-pointer wrappers
 * ====================================================================== */

/* Large enough for any representation of any group (BLS12-381 G2 XYZZ: 48). */
typedef struct {
    uint64_t l[48];
} pt_t;

typedef struct {
    const char *name;
    int deg;              /* 1: Fq coordinates, 2: Fq2 */
    int n;                /* limbs of one Fq element */
    const char *q_hex;    /* base field modulus (published) */
    const char *r_hex;    /* group order (published) */
    int zcash;            /* encoding family: 1 zcash flags, 0 gnark flags */
    size_t asz, jsz, xsz; /* sizeof affine / Jacobian / XYZZ */
    size_t csz, usz, lsz; /* encoding sizes */
    void (*set_inf)(void *);
    int (*is_inf)(const void *);
    void (*from_affine)(void *, const void *);
    void (*neg)(void *, const void *);
    int (*affine_is_inf)(const void *);
    void (*affine_set_inf)(void *);
    void (*affine_neg)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*add)(void *, const void *, const void *);
    void (*add_affine)(void *, const void *, const void *);
    void (*xyzz_set_inf)(void *);
    int (*xyzz_is_inf)(const void *);
    void (*xyzz_dbl_affine)(void *, const void *);
    void (*xyzz_dbl)(void *, const void *);
    void (*xyzz_add_affine)(void *, const void *, const void *);
    void (*xyzz_sub_affine)(void *, const void *, const void *);
    void (*xyzz_add)(void *, const void *, const void *);
    void (*from_xyzz)(void *, const void *);
    const void *(*generator)(void);
    const void *(*b)(void);
    void (*to_affine)(void *, const void *);
    cz_status (*batch_to_affine)(void *, const void *, size_t);
    int (*eq)(const void *, const void *);
    int (*affine_is_on_curve)(const void *);
    int (*is_on_curve)(const void *);
    void (*mul)(void *, const void *, const uint64_t *, size_t);
    void (*mul_fr)(void *, const void *, const void *);
    void (*mul_fr_ct)(void *, const void *, const void *);
    int (*affine_in_subgroup)(const void *);
    int (*in_subgroup)(const void *);
    int (*in_subgroup_slow)(const void *);
    void (*random)(void *, cz_rng *);
    cz_status (*coord_sqrt)(void *, const void *);
    void (*to_c)(uint8_t *, const void *);
    void (*to_u)(uint8_t *, const void *);
    void (*to_l)(uint8_t *, const void *);
    cz_status (*from_c)(void *, const uint8_t *, unsigned);
    cz_status (*from_u)(void *, const uint8_t *, unsigned);
    cz_status (*from_l)(void *, const uint8_t *, unsigned);
    cz_status (*validate)(const void *, unsigned);
    void (*endo)(void *, const void *); /* phi / psi, NULL for BN254 G1 */
} group_t;

#define GROUP_WRAPPERS(G, F)                                                                                           \
    static void G##_w_set_inf(void *p)                                                                                 \
    {                                                                                                                  \
        G##_set_inf(p);                                                                                                \
    }                                                                                                                  \
    static int G##_w_is_inf(const void *p)                                                                             \
    {                                                                                                                  \
        return G##_is_inf(p);                                                                                          \
    }                                                                                                                  \
    static void G##_w_from_affine(void *r, const void *a)                                                              \
    {                                                                                                                  \
        G##_from_affine(r, a);                                                                                         \
    }                                                                                                                  \
    static void G##_w_neg(void *r, const void *p)                                                                      \
    {                                                                                                                  \
        G##_neg(r, p);                                                                                                 \
    }                                                                                                                  \
    static int G##_w_affine_is_inf(const void *p)                                                                      \
    {                                                                                                                  \
        return G##_affine_is_inf(p);                                                                                   \
    }                                                                                                                  \
    static void G##_w_affine_set_inf(void *p)                                                                          \
    {                                                                                                                  \
        G##_affine_set_inf(p);                                                                                         \
    }                                                                                                                  \
    static void G##_w_affine_neg(void *r, const void *p)                                                               \
    {                                                                                                                  \
        G##_affine_neg(r, p);                                                                                          \
    }                                                                                                                  \
    static void G##_w_dbl(void *r, const void *p)                                                                      \
    {                                                                                                                  \
        G##_dbl(r, p);                                                                                                 \
    }                                                                                                                  \
    static void G##_w_add(void *r, const void *p, const void *q)                                                       \
    {                                                                                                                  \
        G##_add(r, p, q);                                                                                              \
    }                                                                                                                  \
    static void G##_w_add_affine(void *r, const void *p, const void *q)                                                \
    {                                                                                                                  \
        G##_add_affine(r, p, q);                                                                                       \
    }                                                                                                                  \
    static void G##_w_xyzz_set_inf(void *p)                                                                            \
    {                                                                                                                  \
        G##_xyzz_set_inf(p);                                                                                           \
    }                                                                                                                  \
    static int G##_w_xyzz_is_inf(const void *p)                                                                        \
    {                                                                                                                  \
        return G##_xyzz_is_inf(p);                                                                                     \
    }                                                                                                                  \
    static void G##_w_xyzz_dbl_affine(void *r, const void *q)                                                          \
    {                                                                                                                  \
        G##_xyzz_dbl_affine(r, q);                                                                                     \
    }                                                                                                                  \
    static void G##_w_xyzz_dbl(void *r, const void *p)                                                                 \
    {                                                                                                                  \
        G##_xyzz_dbl(r, p);                                                                                            \
    }                                                                                                                  \
    static void G##_w_xyzz_add_affine(void *r, const void *p, const void *q)                                           \
    {                                                                                                                  \
        G##_xyzz_add_affine(r, p, q);                                                                                  \
    }                                                                                                                  \
    static void G##_w_xyzz_sub_affine(void *r, const void *p, const void *q)                                           \
    {                                                                                                                  \
        G##_xyzz_sub_affine(r, p, q);                                                                                  \
    }                                                                                                                  \
    static void G##_w_xyzz_add(void *r, const void *p, const void *q)                                                  \
    {                                                                                                                  \
        G##_xyzz_add(r, p, q);                                                                                         \
    }                                                                                                                  \
    static void G##_w_from_xyzz(void *r, const void *p)                                                                \
    {                                                                                                                  \
        G##_from_xyzz(r, p);                                                                                           \
    }                                                                                                                  \
    static const void *G##_w_generator(void)                                                                           \
    {                                                                                                                  \
        return G##_generator();                                                                                        \
    }                                                                                                                  \
    static const void *G##_w_b(void)                                                                                   \
    {                                                                                                                  \
        return G##_b();                                                                                                \
    }                                                                                                                  \
    static void G##_w_to_affine(void *r, const void *p)                                                                \
    {                                                                                                                  \
        G##_to_affine(r, p);                                                                                           \
    }                                                                                                                  \
    static cz_status G##_w_batch_to_affine(void *r, const void *p, size_t n)                                           \
    {                                                                                                                  \
        return G##_batch_to_affine(r, p, n);                                                                           \
    }                                                                                                                  \
    static int G##_w_eq(const void *p, const void *q)                                                                  \
    {                                                                                                                  \
        return G##_eq(p, q);                                                                                           \
    }                                                                                                                  \
    static int G##_w_affine_is_on_curve(const void *p)                                                                 \
    {                                                                                                                  \
        return G##_affine_is_on_curve(p);                                                                              \
    }                                                                                                                  \
    static int G##_w_is_on_curve(const void *p)                                                                        \
    {                                                                                                                  \
        return G##_is_on_curve(p);                                                                                     \
    }                                                                                                                  \
    static void G##_w_mul(void *r, const void *p, const uint64_t *k, size_t nk)                                        \
    {                                                                                                                  \
        G##_mul(r, p, k, nk);                                                                                          \
    }                                                                                                                  \
    static void G##_w_mul_fr(void *r, const void *p, const void *k)                                                    \
    {                                                                                                                  \
        G##_mul_fr(r, p, k);                                                                                           \
    }                                                                                                                  \
    static void G##_w_mul_fr_ct(void *r, const void *p, const void *k)                                                 \
    {                                                                                                                  \
        G##_mul_fr_ct(r, p, k);                                                                                        \
    }                                                                                                                  \
    static int G##_w_affine_in_subgroup(const void *p)                                                                 \
    {                                                                                                                  \
        return G##_affine_in_subgroup(p);                                                                              \
    }                                                                                                                  \
    static int G##_w_in_subgroup(const void *p)                                                                        \
    {                                                                                                                  \
        return G##_in_subgroup(p);                                                                                     \
    }                                                                                                                  \
    static int G##_w_in_subgroup_slow(const void *p)                                                                   \
    {                                                                                                                  \
        return G##_in_subgroup_slow(p);                                                                                \
    }                                                                                                                  \
    static void G##_w_random(void *r, cz_rng *rng)                                                                     \
    {                                                                                                                  \
        G##_random(r, rng);                                                                                            \
    }                                                                                                                  \
    static cz_status G##_w_coord_sqrt(void *r, const void *a)                                                          \
    {                                                                                                                  \
        return F##_sqrt(r, a);                                                                                         \
    }                                                                                                                  \
    static void G##_w_to_c(uint8_t *o, const void *p)                                                                  \
    {                                                                                                                  \
        G##_to_compressed(o, p);                                                                                       \
    }                                                                                                                  \
    static void G##_w_to_u(uint8_t *o, const void *p)                                                                  \
    {                                                                                                                  \
        G##_to_uncompressed(o, p);                                                                                     \
    }                                                                                                                  \
    static void G##_w_to_l(uint8_t *o, const void *p)                                                                  \
    {                                                                                                                  \
        G##_to_lem(o, p);                                                                                              \
    }                                                                                                                  \
    static cz_status G##_w_from_c(void *r, const uint8_t *i, unsigned f)                                               \
    {                                                                                                                  \
        return G##_from_compressed(r, i, f);                                                                           \
    }                                                                                                                  \
    static cz_status G##_w_from_u(void *r, const uint8_t *i, unsigned f)                                               \
    {                                                                                                                  \
        return G##_from_uncompressed(r, i, f);                                                                         \
    }                                                                                                                  \
    static cz_status G##_w_from_l(void *r, const uint8_t *i, unsigned f)                                               \
    {                                                                                                                  \
        return G##_from_lem(r, i, f);                                                                                  \
    }                                                                                                                  \
    static cz_status G##_w_validate(const void *p, unsigned f)                                                         \
    {                                                                                                                  \
        return G##_affine_validate(p, f);                                                                              \
    }

#define GROUP_DESC(G, NAME, DEG, N, QHEX, RHEX, ZC, ENDO)                                                              \
    {                                                                                                                  \
        NAME, DEG, N, QHEX, RHEX, ZC, sizeof(G##_affine), sizeof(G), sizeof(G##_xyzz), G##_COMPRESSED_SIZE,            \
            G##_UNCOMPRESSED_SIZE, G##_LEM_SIZE, G##_w_set_inf, G##_w_is_inf, G##_w_from_affine, G##_w_neg,            \
            G##_w_affine_is_inf, G##_w_affine_set_inf, G##_w_affine_neg, G##_w_dbl, G##_w_add, G##_w_add_affine,       \
            G##_w_xyzz_set_inf, G##_w_xyzz_is_inf, G##_w_xyzz_dbl_affine, G##_w_xyzz_dbl, G##_w_xyzz_add_affine,       \
            G##_w_xyzz_sub_affine, G##_w_xyzz_add, G##_w_from_xyzz, G##_w_generator, G##_w_b, G##_w_to_affine,         \
            G##_w_batch_to_affine, G##_w_eq, G##_w_affine_is_on_curve, G##_w_is_on_curve, G##_w_mul, G##_w_mul_fr,     \
            G##_w_mul_fr_ct, G##_w_affine_in_subgroup, G##_w_in_subgroup, G##_w_in_subgroup_slow, G##_w_random,        \
            G##_w_coord_sqrt, G##_w_to_c, G##_w_to_u, G##_w_to_l, G##_w_from_c, G##_w_from_u, G##_w_from_l,            \
            G##_w_validate, ENDO                                                                                       \
    }

GROUP_WRAPPERS(cz_bls12_381_g1, cz_bls12_381_fq)
GROUP_WRAPPERS(cz_bls12_381_g2, cz_bls12_381_fq2)
GROUP_WRAPPERS(cz_bn254_g1, cz_bn254_fq)
GROUP_WRAPPERS(cz_bn254_g2, cz_bn254_fq2)

static void w_bls_g1_phi(void *r, const void *p)
{
    cz_bls12_381_g1_phi(r, p);
}
static void w_bls_g2_psi(void *r, const void *p)
{
    cz_bls12_381_g2_psi(r, p);
}
static void w_bn_g2_psi(void *r, const void *p)
{
    cz_bn254_g2_psi(r, p);
}

#define Q_BLS "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"
#define R_BLS "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"
#define Q_BN "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47"
#define R_BN "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"

enum { BLS_G1, BLS_G2, BN_G1, BN_G2 };
static const group_t GROUPS[] = {
    GROUP_DESC(cz_bls12_381_g1, "bls12_381_g1", 1, 6, Q_BLS, R_BLS, 1, w_bls_g1_phi),
    GROUP_DESC(cz_bls12_381_g2, "bls12_381_g2", 2, 6, Q_BLS, R_BLS, 1, w_bls_g2_psi),
    GROUP_DESC(cz_bn254_g1, "bn254_g1", 1, 4, Q_BN, R_BN, 0, NULL),
    GROUP_DESC(cz_bn254_g2, "bn254_g2", 2, 4, Q_BN, R_BN, 0, w_bn_g2_psi),
};

/* ======================================================================
 * GMP reference: Fq / Fq2 = Fq[u]/(u^2+1) and affine curve arithmetic
 * ====================================================================== */

typedef struct {
    mpz_t c[2]; /* c[1] stays 0 for Fq */
} rf;

typedef struct {
    rf x, y;
    int inf;
} rpt;

static struct {
    const group_t *g;
    int deg, n;
    mpz_t q, r, R, Rinv; /* R = 2^(64n) mod q, Rinv = 1/R mod q */
    mpz_t Rr;            /* 2^256 mod r: Montgomery factor of Fr */
    mpz_t h;             /* cofactor */
    mpz_t lambda;        /* eigenvalue of the endomorphism on the subgroup */
    rf b;
} RC;

static void rf_init(rf *a)
{
    mpz_init(a->c[0]);
    mpz_init(a->c[1]);
}
static void rf_clear(rf *a)
{
    mpz_clear(a->c[0]);
    mpz_clear(a->c[1]);
}
static void rf_set(rf *r, const rf *a)
{
    mpz_set(r->c[0], a->c[0]);
    mpz_set(r->c[1], a->c[1]);
}
static void rf_set_si(rf *r, long a0, long a1)
{
    mpz_set_si(r->c[0], a0);
    mpz_mod(r->c[0], r->c[0], RC.q);
    mpz_set_si(r->c[1], a1);
    mpz_mod(r->c[1], r->c[1], RC.q);
}
static void rf_add(rf *r, const rf *a, const rf *b)
{
    for (int i = 0; i < 2; i++) {
        mpz_add(r->c[i], a->c[i], b->c[i]);
        mpz_mod(r->c[i], r->c[i], RC.q);
    }
}
static void rf_sub(rf *r, const rf *a, const rf *b)
{
    for (int i = 0; i < 2; i++) {
        mpz_sub(r->c[i], a->c[i], b->c[i]);
        mpz_mod(r->c[i], r->c[i], RC.q);
    }
}
static void rf_neg(rf *r, const rf *a)
{
    for (int i = 0; i < 2; i++) {
        mpz_neg(r->c[i], a->c[i]);
        mpz_mod(r->c[i], r->c[i], RC.q);
    }
}
static void rf_mul(rf *r, const rf *a, const rf *b)
{
    mpz_t t0, t1, t;
    mpz_inits(t0, t1, t, NULL);
    mpz_mul(t0, a->c[0], b->c[0]);
    mpz_mul(t, a->c[1], b->c[1]);
    mpz_sub(t0, t0, t);
    mpz_mul(t1, a->c[0], b->c[1]);
    mpz_mul(t, a->c[1], b->c[0]);
    mpz_add(t1, t1, t);
    mpz_mod(r->c[0], t0, RC.q);
    mpz_mod(r->c[1], t1, RC.q);
    mpz_clears(t0, t1, t, NULL);
}
static void rf_inv(rf *r, const rf *a)
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    mpz_t n, t;
    mpz_inits(n, t, NULL);
    mpz_mul(n, a->c[0], a->c[0]);
    mpz_mul(t, a->c[1], a->c[1]);
    mpz_add(n, n, t);
    mpz_mod(n, n, RC.q);
    mpz_invert(n, n, RC.q);
    mpz_mul(r->c[0], a->c[0], n);
    mpz_mod(r->c[0], r->c[0], RC.q);
    mpz_mul(t, a->c[1], n);
    mpz_neg(t, t);
    mpz_mod(r->c[1], t, RC.q);
    mpz_clears(n, t, NULL);
}
static int rf_eq(const rf *a, const rf *b)
{
    return !mpz_cmp(a->c[0], b->c[0]) && !mpz_cmp(a->c[1], b->c[1]);
}
static int rf_is_zero(const rf *a)
{
    return !mpz_sgn(a->c[0]) && !mpz_sgn(a->c[1]);
}

static void random_mpz_below(mpz_t z, const mpz_t bound, cz_rng *rng)
{
    uint8_t buf[80];
    cz_rng_bytes(rng, buf, sizeof buf);
    mpz_import(z, sizeof buf, 1, 1, 0, 0, buf);
    mpz_mod(z, z, bound);
}
static void rf_random(rf *a, cz_rng *rng)
{
    random_mpz_below(a->c[0], RC.q, rng);
    if (RC.deg == 2)
        random_mpz_below(a->c[1], RC.q, rng);
    else
        mpz_set_ui(a->c[1], 0);
}

static void rp_init(rpt *p)
{
    rf_init(&p->x);
    rf_init(&p->y);
    p->inf = 1;
}
static void rp_clear(rpt *p)
{
    rf_clear(&p->x);
    rf_clear(&p->y);
}
static void rp_set(rpt *r, const rpt *p)
{
    rf_set(&r->x, &p->x);
    rf_set(&r->y, &p->y);
    r->inf = p->inf;
}
static void rp_set_inf(rpt *p)
{
    rf_set_si(&p->x, 0, 0);
    rf_set_si(&p->y, 0, 0);
    p->inf = 1;
}
static int rp_eq(const rpt *a, const rpt *b)
{
    if (a->inf || b->inf) return a->inf && b->inf;
    return rf_eq(&a->x, &b->x) && rf_eq(&a->y, &b->y);
}
static void rp_neg(rpt *r, const rpt *p)
{
    rf_set(&r->x, &p->x);
    rf_neg(&r->y, &p->y);
    r->inf = p->inf;
}
/* y^2 - x^3 - b */
static int rp_on_curve(const rpt *p)
{
    if (p->inf) return 1;
    rf l, t;
    rf_init(&l);
    rf_init(&t);
    rf_mul(&l, &p->y, &p->y);
    rf_mul(&t, &p->x, &p->x);
    rf_mul(&t, &t, &p->x);
    rf_add(&t, &t, &RC.b);
    int ok = rf_eq(&l, &t);
    rf_clear(&l);
    rf_clear(&t);
    return ok;
}
/* r = p + q, chord and tangent; r may alias p or q */
static void rp_add(rpt *r, const rpt *p, const rpt *q)
{
    if (p->inf) {
        rp_set(r, q);
        return;
    }
    if (q->inf) {
        rp_set(r, p);
        return;
    }
    rf lam, t, x3, y3;
    rf_init(&lam);
    rf_init(&t);
    rf_init(&x3);
    rf_init(&y3);
    if (rf_eq(&p->x, &q->x)) {
        rf_add(&t, &p->y, &q->y);
        if (rf_is_zero(&t)) { /* q = -p */
            rp_set_inf(r);
            goto done;
        }
        /* lambda = 3x^2 / 2y */
        rf_mul(&lam, &p->x, &p->x);
        rf_add(&t, &lam, &lam);
        rf_add(&lam, &t, &lam);
        rf_add(&t, &p->y, &p->y);
        rf_inv(&t, &t);
        rf_mul(&lam, &lam, &t);
    } else {
        rf_sub(&lam, &q->y, &p->y);
        rf_sub(&t, &q->x, &p->x);
        rf_inv(&t, &t);
        rf_mul(&lam, &lam, &t);
    }
    rf_mul(&x3, &lam, &lam);
    rf_sub(&x3, &x3, &p->x);
    rf_sub(&x3, &x3, &q->x);
    rf_sub(&t, &p->x, &x3);
    rf_mul(&y3, &lam, &t);
    rf_sub(&y3, &y3, &p->y);
    rf_set(&r->x, &x3);
    rf_set(&r->y, &y3);
    r->inf = 0;
done:
    rf_clear(&lam);
    rf_clear(&t);
    rf_clear(&x3);
    rf_clear(&y3);
}
/* r = k p for any integer k (double-and-add) */
static void rp_mul(rpt *r, const rpt *p, const mpz_t k)
{
    rpt acc, base;
    mpz_t a;
    rp_init(&acc);
    rp_init(&base);
    mpz_init(a);
    rp_set_inf(&acc);
    if (mpz_sgn(k) < 0)
        rp_neg(&base, p);
    else
        rp_set(&base, p);
    mpz_abs(a, k);
    for (long i = (long)mpz_sizeinbase(a, 2) - 1; i >= 0 && mpz_sgn(a); i--) {
        rp_add(&acc, &acc, &acc);
        if (mpz_tstbit(a, (mp_bitcnt_t)i)) rp_add(&acc, &acc, &base);
    }
    rp_set(r, &acc);
    mpz_clear(a);
    rp_clear(&acc);
    rp_clear(&base);
}

/* ---- conversions between cuzk's raw limbs and reference values ---- */

/* one Fq2 / Fq element at limbs l (Montgomery form: value = l / R) */
static void rf_from_limbs(rf *a, const uint64_t *l)
{
    for (int i = 0; i < 2; i++) {
        if (i < RC.deg) {
            mpz_import(a->c[i], (size_t)RC.n, -1, 8, 0, 0, l + i * RC.n);
            mpz_mul(a->c[i], a->c[i], RC.Rinv);
            mpz_mod(a->c[i], a->c[i], RC.q);
        } else {
            mpz_set_ui(a->c[i], 0);
        }
    }
}
static void mpz_to_limbs(uint64_t *l, const mpz_t v, int n)
{
    memset(l, 0, (size_t)n * 8);
    size_t cnt = 0;
    mpz_export(l, &cnt, -1, 8, 0, 0, v);
}
static void rf_to_limbs(uint64_t *l, const rf *a)
{
    mpz_t t;
    mpz_init(t);
    for (int i = 0; i < RC.deg; i++) {
        mpz_mul(t, a->c[i], RC.R);
        mpz_mod(t, t, RC.q);
        mpz_to_limbs(l + i * RC.n, t, RC.n);
    }
    mpz_clear(t);
}
static int CW(void)
{
    return RC.deg * RC.n;
} /* limbs of one coordinate */

static void rp_from_affine(rpt *p, const void *a)
{
    const uint64_t *l = a;
    int z = 1;
    for (int i = 0; i < 2 * CW(); i++)
        z &= l[i] == 0;
    rf_from_limbs(&p->x, l);
    rf_from_limbs(&p->y, l + CW());
    p->inf = z;
}
static void rp_to_affine(void *a, const rpt *p)
{
    uint64_t *l = a;
    if (p->inf) {
        memset(l, 0, (size_t)2 * CW() * 8);
        return;
    }
    rf_to_limbs(l, &p->x);
    rf_to_limbs(l + CW(), &p->y);
}
static void rp_from_jac(rpt *p, const void *j)
{
    const uint64_t *l = j;
    rf X, Y, Z, zi, t;
    rf_init(&X), rf_init(&Y), rf_init(&Z), rf_init(&zi), rf_init(&t);
    rf_from_limbs(&X, l);
    rf_from_limbs(&Y, l + CW());
    rf_from_limbs(&Z, l + 2 * CW());
    if (rf_is_zero(&Z)) {
        rp_set_inf(p);
    } else {
        rf_inv(&zi, &Z);
        rf_mul(&t, &zi, &zi);
        rf_mul(&p->x, &X, &t);
        rf_mul(&t, &t, &zi);
        rf_mul(&p->y, &Y, &t);
        p->inf = 0;
    }
    rf_clear(&X), rf_clear(&Y), rf_clear(&Z), rf_clear(&zi), rf_clear(&t);
}
/* Jacobian with a random Z (lambda^2 x, lambda^3 y, lambda) */
static void rp_to_jac(void *j, const rpt *p, cz_rng *rng)
{
    uint64_t *l = j;
    if (p->inf) {
        RC.g->set_inf(j);
        return;
    }
    rf lam, t, u;
    rf_init(&lam), rf_init(&t), rf_init(&u);
    do
        rf_random(&lam, rng);
    while (rf_is_zero(&lam));
    rf_mul(&t, &lam, &lam);
    rf_mul(&u, &p->x, &t);
    rf_to_limbs(l, &u);
    rf_mul(&t, &t, &lam);
    rf_mul(&u, &p->y, &t);
    rf_to_limbs(l + CW(), &u);
    rf_to_limbs(l + 2 * CW(), &lam);
    rf_clear(&lam), rf_clear(&t), rf_clear(&u);
}
/* returns 0 if the XYZZ invariant ZZ^3 = ZZZ^2 is broken */
static int rp_from_xyzz(rpt *p, const void *xz)
{
    const uint64_t *l = xz;
    rf X, Y, ZZ, ZZZ, t, u;
    rf_init(&X), rf_init(&Y), rf_init(&ZZ), rf_init(&ZZZ), rf_init(&t), rf_init(&u);
    rf_from_limbs(&X, l);
    rf_from_limbs(&Y, l + CW());
    rf_from_limbs(&ZZ, l + 2 * CW());
    rf_from_limbs(&ZZZ, l + 3 * CW());
    int ok = 1;
    if (rf_is_zero(&ZZ)) {
        rp_set_inf(p);
    } else {
        rf_mul(&t, &ZZ, &ZZ);
        rf_mul(&t, &t, &ZZ);
        rf_mul(&u, &ZZZ, &ZZZ);
        ok = rf_eq(&t, &u);
        rf_inv(&t, &ZZ);
        rf_mul(&p->x, &X, &t);
        rf_inv(&t, &ZZZ);
        rf_mul(&p->y, &Y, &t);
        p->inf = 0;
    }
    rf_clear(&X), rf_clear(&Y), rf_clear(&ZZ), rf_clear(&ZZZ), rf_clear(&t), rf_clear(&u);
    return ok;
}
static void rp_to_xyzz(void *xz, const rpt *p, cz_rng *rng)
{
    uint64_t *l = xz;
    if (p->inf) {
        RC.g->xyzz_set_inf(xz);
        return;
    }
    rf lam, t, u;
    rf_init(&lam), rf_init(&t), rf_init(&u);
    do
        rf_random(&lam, rng);
    while (rf_is_zero(&lam));
    rf_mul(&t, &lam, &lam);
    rf_mul(&u, &p->x, &t);
    rf_to_limbs(l, &u);
    rf_to_limbs(l + 2 * CW(), &t);
    rf_mul(&t, &t, &lam);
    rf_mul(&u, &p->y, &t);
    rf_to_limbs(l + CW(), &u);
    rf_to_limbs(l + 3 * CW(), &t);
    rf_clear(&lam), rf_clear(&t), rf_clear(&u);
}

/* lib Jacobian / XYZZ / affine point equals the reference point */
static int jac_is(const void *j, const rpt *e)
{
    rpt p;
    rp_init(&p);
    rp_from_jac(&p, j);
    int ok = rp_eq(&p, e);
    rp_clear(&p);
    return ok;
}
static int xyzz_is(const void *xz, const rpt *e)
{
    rpt p;
    rp_init(&p);
    int ok = rp_from_xyzz(&p, xz);
    ok = ok && rp_eq(&p, e);
    rp_clear(&p);
    return ok;
}
static int aff_is(const void *a, const rpt *e)
{
    rpt p;
    rp_init(&p);
    rp_from_affine(&p, a);
    int ok = rp_eq(&p, e);
    rp_clear(&p);
    return ok;
}

/* k as little-endian limbs of |k| (at most SCALAR_LIMBS) */
enum { SCALAR_LIMBS = 16 };
static size_t scalar_limbs(uint64_t *l, const mpz_t k)
{
    mpz_t a;
    mpz_init(a);
    mpz_abs(a, k);
    memset(l, 0, SCALAR_LIMBS * 8);
    size_t cnt = 0;
    mpz_export(l, &cnt, -1, 8, 0, 0, a);
    mpz_clear(a);
    return cnt;
}
/* Fr element (Montgomery) of value k mod r */
static void fr_from_mpz(uint64_t l[4], const mpz_t k)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, k, RC.r);
    mpz_mul(t, t, RC.Rr);
    mpz_mod(t, t, RC.r);
    mpz_to_limbs(l, t, 4);
    mpz_clear(t);
}
/* lib: r = k * p (Jacobian) for any integer k, through <g>_mul */
static void lib_mul_mpz(void *r, const void *p, const mpz_t k)
{
    uint64_t l[SCALAR_LIMBS];
    size_t nk = scalar_limbs(l, k);
    RC.g->mul(r, p, l, nk);
    if (mpz_sgn(k) < 0) RC.g->neg(r, r);
}

static void rp_random_subgroup(rpt *p, cz_rng *rng)
{
    rpt g;
    mpz_t k;
    rp_init(&g);
    mpz_init(k);
    rp_from_affine(&g, RC.g->generator());
    random_mpz_below(k, RC.r, rng);
    rp_mul(p, &g, k);
    mpz_clear(k);
    rp_clear(&g);
}

/* A random point of the curve (not necessarily in the subgroup): random x
 * until x^3 + b is a square. The root comes from the tested field layer's
 * sqrt and is re-checked here with GMP. */
static void rp_random_curve(rpt *p, cz_rng *rng)
{
    rf rhs, t;
    rf_init(&rhs), rf_init(&t);
    pt_t a, b;
    for (;;) {
        rf_random(&p->x, rng);
        rf_mul(&rhs, &p->x, &p->x);
        rf_mul(&rhs, &rhs, &p->x);
        rf_add(&rhs, &rhs, &RC.b);
        rf_to_limbs(a.l, &rhs);
        if (RC.g->coord_sqrt(b.l, a.l) != CZ_OK) continue;
        rf_from_limbs(&p->y, b.l);
        rf_mul(&t, &p->y, &p->y);
        CHECK(rf_eq(&t, &rhs));
        if (cz_rng_u64(rng) & 1) rf_neg(&p->y, &p->y);
        p->inf = 0;
        break;
    }
    rf_clear(&rhs), rf_clear(&t);
}

/* Set up RC for group g: moduli, Montgomery factors, b, cofactor, eigenvalue. */
static void rc_setup(const group_t *g)
{
    RC.g = g;
    RC.deg = g->deg;
    RC.n = g->n;
    mpz_set_str(RC.q, g->q_hex, 16);
    mpz_set_str(RC.r, g->r_hex, 16);
    mpz_set_ui(RC.R, 1);
    mpz_mul_2exp(RC.R, RC.R, (mp_bitcnt_t)(64 * g->n));
    mpz_mod(RC.R, RC.R, RC.q);
    mpz_invert(RC.Rinv, RC.R, RC.q);
    mpz_set_ui(RC.Rr, 1);
    mpz_mul_2exp(RC.Rr, RC.Rr, 256);
    mpz_mod(RC.Rr, RC.Rr, RC.r);
    /* b, the cofactor and the endomorphism eigenvalue, from the curve parameter z */
    mpz_t z, t;
    mpz_inits(z, t, NULL);
    int bls = g->zcash;
    if (bls)
        mpz_set_str(z, "-d201000000010000", 16);
    else
        mpz_set_str(z, "4965661367192848881", 10);
    if (g == &GROUPS[BLS_G1]) {
        rf_set_si(&RC.b, 4, 0);
        mpz_sub_ui(t, z, 1); /* h = (z - 1)^2 / 3 */
        mpz_mul(t, t, t);
        mpz_divexact_ui(RC.h, t, 3);
        mpz_mul(t, z, z); /* phi acts as -z^2 */
        mpz_neg(t, t);
        mpz_mod(RC.lambda, t, RC.r);
    } else if (g == &GROUPS[BLS_G2]) {
        rf_set_si(&RC.b, 4, 4);
        /* h2 = (z^8 - 4z^7 + 5z^6 - 4z^4 + 6z^3 - 4z^2 - 4z + 13) / 9 */
        static const long co[9] = {13, -4, -4, 6, -4, 0, 5, -4, 1};
        mpz_set_ui(t, 0);
        for (int i = 8; i >= 0; i--) {
            mpz_mul(t, t, z);
            if (co[i] >= 0)
                mpz_add_ui(t, t, (unsigned long)co[i]);
            else
                mpz_sub_ui(t, t, (unsigned long)-co[i]);
        }
        mpz_divexact_ui(RC.h, t, 9);
        mpz_mod(RC.lambda, z, RC.r); /* psi acts as z */
    } else if (g == &GROUPS[BN_G1]) {
        rf_set_si(&RC.b, 3, 0);
        mpz_set_ui(RC.h, 1);
        mpz_set_ui(RC.lambda, 0);
    } else {
        /* b = 3 / (9 + u) */
        rf xi;
        rf_init(&xi);
        rf_set_si(&xi, 9, 1);
        rf_inv(&xi, &xi);
        rf_set_si(&RC.b, 3, 0);
        rf_mul(&RC.b, &RC.b, &xi);
        rf_clear(&xi);
        mpz_mul_2exp(t, RC.q, 1); /* h2 = 2q - r */
        mpz_sub(RC.h, t, RC.r);
        mpz_mul(t, z, z); /* psi acts as q = 6 z^2 mod r */
        mpz_mul_ui(t, t, 6);
        mpz_mod(RC.lambda, t, RC.r);
    }
    mpz_clears(z, t, NULL);
}

/* ---- small helpers ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
static size_t hex_to_bytes(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
    return n;
}
/* point of published coordinates (hex or "0x"/decimal via base 0) */
static void rp_from_strs(rpt *p, const char *x0, const char *x1, const char *y0, const char *y1)
{
    mpz_set_str(p->x.c[0], x0, 0);
    mpz_set_str(p->y.c[0], y0, 0);
    mpz_set_ui(p->x.c[1], 0);
    mpz_set_ui(p->y.c[1], 0);
    if (x1) mpz_set_str(p->x.c[1], x1, 0);
    if (y1) mpz_set_str(p->y.c[1], y1, 0);
    p->inf = 0;
}

/* ======================================================================
 * Published vectors
 * ====================================================================== */

typedef struct {
    const char *k; /* scalar: multiple of the generator (base 0: "0x.." or decimal, may be negative) */
    const char *x0, *x1, *y0, *y1;
} coord_vec;

typedef struct {
    const char *k;
    const char *hex; /* an encoding of k*G */
} enc_vec;

/* BLS12-381 G1 generator (zcash / IETF draft-irtf-cfrg-pairing-friendly-curves) */
static const coord_vec BLS_G1_COORDS[] = {
    {"1", "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", NULL,
     "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1", NULL},
};
/* compressed k*G (zcash encoding; published multiples, e.g. the Ethereum
 * interop keys 1..4 and the IC/miracl serde test vectors) */
static const enc_vec BLS_G1_COMPRESSED[] = {
    {"1", "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"},
    {"2", "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"},
    {"3", "89ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224"},
    {"4", "ac9b60d5afcbd5663a8a44b7c5a02f19e9a77ab0a35bd65809bb5c67ec582c897feb04decc694b13e08587f3ff9b5b60"},
    {"5", "b0e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc"},
    {"6", "a6e82f6da4520f85c5d27d8f329eccfa05944fd1096b20734c894966d12a9e2a9a9744529d7212d33883113a0cadb909"},
    {"8", "a85ae765588126f5e860d019c0e26235f567a9c0c0b2d8ff30f3e8d436b1082596e5e7462d20f5be3764fd473e57f9cf"},
    {"16", "a73eb991aa22cdb794da6fcde55a427f0a4df5a4a70de23a988b5e5fc8c4d844f66d990273267a54dd21579b7ba6a086"},
    {"32", "a72841987e4f219d54f2b6a9eac5fe6e78704644753c3579e776a3691bc123743f8c63770ed0f72a71e9e964dbf58f43"},
    {"-1", "b7f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"},
    {"-2", "8572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"},
    {"-3", "a9ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224"},
    {"-4", "8c9b60d5afcbd5663a8a44b7c5a02f19e9a77ab0a35bd65809bb5c67ec582c897feb04decc694b13e08587f3ff9b5b60"},
    {"-5", "90e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc"},
    {"0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     "86b50179774296419b7e8375118823ddb06940d9a28ea045ab418c7ecbe6da84d416cb55406eec6393db97ac26e38bd4"},
    {"0", "c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
};
static const enc_vec BLS_G1_UNCOMPRESSED[] = {
    {"1", "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
          "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"},
    {"2", "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"
          "166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28"},
};

/* BLS12-381 G2: generator and multiples with published coordinates */
static const coord_vec BLS_G2_COORDS[] = {
    {"1", "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
     "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
     "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
     "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"},
    {"2", "0x1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053",
     "0x0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577",
     "0x0468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764bf3bd999d95d71e4c9899",
     "0x0f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59c8967acdefd8b6e36ccf3"},
    {"3", "0x122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae",
     "0x09380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc",
     "0x0b21da7955969e61010c7a1abc1a6f0136961d1e3b20b1a7326ac738fef5c721479dfd948b52fdf2455e44813ecfd892",
     "0x08f239ba329b3967fe48d718a36cfe5f62a7e42e0bf1c1ed714150a166bfbd6bcf6b3b58b975b9edea56d53f23a0e849"},
    {"7", "0x049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c",
     "0x0d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8",
     "0x08b7ae4dbf802c17a6648842922c9467e460a71c88d393ee7af356da123a2f3619e80c3bdcc8e2b1da52f8cd9913ccdd",
     "0x05ecf93654b7a1885695aaeeb7caf41b0239dc45e1022be55d37111af2aecef87799638bec572de86a7437898efa7020"},
    {"256", "0x0412f6b2e37effc7e16d566d6f831572411d130eee4c15d82aa29e44cb4db9b5eb8c08b0ae158cde970d9d29ba368780",
     "0x02f7f6cc00b080cb3a7f8976c44d1987fd36a8334db831be269c6f6144c392b54bb934313d5fc832ec41d2f9a4b7ea91",
     "0x19ffef0307855bed96575447cb4a9442c91ec72b91e4c9107cbf619a3d9cf20df17831a98b65cc6def810c57e45594ea",
     "0x0af2e093a01abcfa36b20fc57d5d51ded73dbb06b639f10e921f8bb2758b2c3f10623aa26cbf9cce9856ccd1bc261e9a"},
    {"65537", "0x06c67e6c183435e5aec742d2d786f6435f61b143f64b2bc1f69678ee434eb4feed7952b0f15777c5d72cddc3976fb090",
     "0x148a606f6a01429e4f7cc71d89b077128075d8101b7092d5fba8eb9189a57f34e9c4b442961357b1278f0464ea330876",
     "0x15b7953c1ae1467c7aade7e9ee06bcc682403179e2dd64325495f5984cbf59161c8507ad6a3fed6378a0500df04b0d8e",
     "0x062d6d609dbe6a6507032b5461a5d3d250d47ec10fe5003e14c008a9ec4b6590d16d4641a3a3167136d86261425c1938"},
    {"4294967295", "0x0b4cb7985b95afdb0b39596dd016bd58c2f4a0b3f74e6f39cc627199a52718187c6265c2e8aa72094f06ef836e191bbd",
     "0x0f17f1c6651dbdee41e06e98bf0eb7bc47b0d5d7ab2df18ade51328d1cc771aaf4b22e1138f677833d4f596535475117",
     "0x0cdaf320208c8a20110e89113e38656aacbe0265eb9c663f22600c9636ad668ce2eb3638b7550392b7e2cdd45fafdd15",
     "0x10b79a3e6fee32f56d2fd8cf7a1fceb21435455a6894e83445abb4fee6a1db327ecb237a08cdda13d06b7a4231a6756d"},
    {"1234567890123",
     "0x1342a65568d2f3cddeeba0db89641b5b6fac9459b7f500a4499b553915e7bf20cafbfb47b5467f9d7e1923b81063eed9",
     "0x1922fb9b5d990e55aa94f023e0dda0dd4976039695a807b007bca7720475336b09a4d428b68f4782e789b259d6f57328",
     "0x0075a9423c074a2102087d2a9fd32eb9432057a5833a872c3492350dd97061c1a0018a78e3968354ce47472835090063",
     "0x189bae5f89b4ff2d0640f7f2dfae407f0c6ef53cd7e96bd19df145d989b54b9cc5d4024da8b6e99f5b73c4a359853cbf"},
};
static const enc_vec BLS_G2_COMPRESSED[] = {
    {"1", "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
          "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"},
    {"2", "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
          "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053"},
    {"3", "89380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc"
          "122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae"},
    {"4", "870227d3f13684fdb7ce31b8065ba3acb35f7bde6fe2ddfefa359f8b35d08a9ab9537b43e24f4ffb720b5a0bda2a82f2"
          "0e7a30979a8853a077454eb63b8dcee75f106221b262886bb8e01b0abb043368da82f60899cc1412e33e4120195fc557"},
    {"5", "80fb837804dba8213329db46608b6c121d973363c1234a86dd183baff112709cf97096c5e9a1a770ee9d7dc641a894d6"
          "0411a5de6730ffece671a9f21d65028cc0f1102378de124562cb1ff49db6f004fcd14d683024b0548eff3d1468df2688"},
    {"6", "83f4b4e761936d90fd5f55f99087138a07a69755ad4a46e4dd1c2cfe6d11371e1cc033111a0595e3bba98d0f538db451"
          "19e384121b7d70927c49e6d044fd8517c36bc6ed2813a8956dd64f049869e8a77f7e46930240e6984abe26fa6a89658f"},
    {"7", "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
          "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c"},
    {"8", "92be651a5fa620340d418834526d37a8c932652345400b4cd9d43c8f41c080f41a6d9558118ebeab9d4268bb73e850e1"
          "02142a58bae275564a6d63cb6bd6266ca66bef07a6ab8ca37b9d0ba2d4effbccfd89c169649f7d0e8a3eb006846579ad"},
    {"9", "ac48e0d4f9404ae0a7f10774c55a9e838bb09d3bae85b5eaa6b16b0f4dc2354368117f3799c37f3f7126d8b54d3f8393"
          "018405e4b67f957b6465ead9f5afc47832d45643dc3aa03af7314c6cf980fa23dd3bb8db3358693ad06011f6a6b1a5ff"},
    {"16", "a70401d9bba01c0445e0a682406b099f21d16d9c348cc97156769084055ca328a145c134b8c8b58f019d62882b2965de"
           "1800ecc167bb714100f31e7610cd3fd010ca299b394c01b1a89afd11b051e92989f6336db5e6d3212f6b04673526d839"},
    {"32", "ac1bcdf2034a7d577355b280f431cf2bf2cb5e955915904766a52d57b3aca6e8c4c96af35382e0c63687f4a77724012b"
           "0f22d7c4d43cbb513893e53e6cf995c70e4f5fa7c5b6f167838b217825d3d2dadab5f07764ef69d346f2dc97c231a3f6"},
    {"64", "b6480241fab3ca8ec408219988d8dce6180dbed76fd5e9b84fdb42d73759ea991f179a40566038c1ec6cbbd2d1674539"
           "0254b59e8676796a65a52610b9c88e366f9dbf7fdbdd5983a4e0b691a3c310f8eb5d2bc1177833bdfa1c1b42cacb953f"},
    {"128", "afc5f85e7adc6cea5b3792af7c9fa9d3acc465e3785f40654292be3a09dfd2f266bc765fcfe8da55e948c2312ec571d2"
            "11f6a8f78fa020f9ea41dc9c2b54e1037c77f59dcb9058a1f7ff95a0102d30b7ad18e0ada1dee28bc05183abf87cdb1e"},
    {"256", "82f7f6cc00b080cb3a7f8976c44d1987fd36a8334db831be269c6f6144c392b54bb934313d5fc832ec41d2f9a4b7ea91"
            "0412f6b2e37effc7e16d566d6f831572411d130eee4c15d82aa29e44cb4db9b5eb8c08b0ae158cde970d9d29ba368780"},
    {"-1", "b3e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
           "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"},
    {"-2", "8a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
           "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053"},
    {"-3", "a9380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc"
           "122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae"},
    {"-9", "8c48e0d4f9404ae0a7f10774c55a9e838bb09d3bae85b5eaa6b16b0f4dc2354368117f3799c37f3f7126d8b54d3f8393"
           "018405e4b67f957b6465ead9f5afc47832d45643dc3aa03af7314c6cf980fa23dd3bb8db3358693ad06011f6a6b1a5ff"},
    {"65537", "948a606f6a01429e4f7cc71d89b077128075d8101b7092d5fba8eb9189a57f34e9c4b442961357b1278f0464ea330876"
              "06c67e6c183435e5aec742d2d786f6435f61b143f64b2bc1f69678ee434eb4feed7952b0f15777c5d72cddc3976fb090"},
    {"1234567890123",
     "b922fb9b5d990e55aa94f023e0dda0dd4976039695a807b007bca7720475336b09a4d428b68f4782e789b259d6f57328"
     "1342a65568d2f3cddeeba0db89641b5b6fac9459b7f500a4499b553915e7bf20cafbfb47b5467f9d7e1923b81063eed9"},
};

/* BN254 G1: EIP-196 (G = (1, 2)) and multiples from the Ethereum tests */
static const coord_vec BN_G1_COORDS[] = {
    {"1", "1", NULL, "2", NULL},
    {"2", "0x030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3", NULL,
     "0x15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4", NULL},
    {"3", "0x0769bf9ac56bea3ff40232bcb1b6bd159315d84715b8e679f2d355961915abf0", NULL,
     "0x2ab799bee0489429554fdb7c8d086475319e63b40b9c5b57cdf1ff3dd9fe2261", NULL},
    {"5", "0x17c139df0efee0f766bc0204762b774362e4ded88953a39ce849a8a7fa163fa9", NULL,
     "0x01e0559bacb160664764a357af8a9fe70baa9258e0b959273ffc5718c6d4cc7c", NULL},
};
/* EIP-196 ecMul vectors (ethereum/tests "chfast", "cdetrio"): R = k * P */
static const struct {
    const char *px, *py, *k, *rx, *ry;
} BN_G1_MUL[] = {
    {"2bd3e6d0f3b142924f5ca7b49ce5b9d54c4703d7ae5648e61d02268b1a0a9fb7",
     "21611ce0a6af85915e2f1d70300909ce2e49dfad4a4619c8390cae66cefdb204", "11138ce750fa15c2",
     "070a8d6a982153cae4be29d434e8faef8a47b274a053f5a4ee2a6c9c13c31e5c",
     "031b8ce914eba3a9ffb989f9cdd5b0f01943074bf4f0f315690ec3cec6981afc"},
    {"070a8d6a982153cae4be29d434e8faef8a47b274a053f5a4ee2a6c9c13c31e5c",
     "031b8ce914eba3a9ffb989f9cdd5b0f01943074bf4f0f315690ec3cec6981afc",
     "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd46",
     "025a6f4181d2b4ea8b724290ffb40156eb0adb514c688556eb79cdea0752c2bb",
     "2eff3f31dea215f1eb86023a133a996eb6300b44da664d64251d05381bb8a02e"},
    {"025a6f4181d2b4ea8b724290ffb40156eb0adb514c688556eb79cdea0752c2bb",
     "2eff3f31dea215f1eb86023a133a996eb6300b44da664d64251d05381bb8a02e",
     "183227397098d014dc2822db40c0ac2ecbc0b548b438e5469e10460b6c3e7ea3",
     "14789d0d4a730b354403b5fac948113739e276c23e0258d8596ee72f9cd9d323",
     "0af18a63153e0ec25ff9f2951dd3fa90ed0197bfef6e2a1a62b5095b9d2b4a27"},
    {"1a87b0584ce92f4593d161480614f2989035225609f08058ccfa3d0f940febe3",
     "1a2f3c951f6dadcc7ee9007dff81504b0fcd6d7cf59996efdc33d92bf7f9f8f6",
     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "2cde5879ba6f13c0b5aa4ef627f159a3347df9722efce88a9afbb20b763b4c41",
     "1aa7e43076f6aee272755a7f9b84832e71559ba0d2e0b17d5f9f01755e5b0d11"},
    {"1a87b0584ce92f4593d161480614f2989035225609f08058ccfa3d0f940febe3",
     "1a2f3c951f6dadcc7ee9007dff81504b0fcd6d7cf59996efdc33d92bf7f9f8f6",
     "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000",
     "1a87b0584ce92f4593d161480614f2989035225609f08058ccfa3d0f940febe3",
     "163511ddc1c3f25d396745388200081287b3fd1472d8339d5fecb2eae0830451"},
    {"1a87b0584ce92f4593d161480614f2989035225609f08058ccfa3d0f940febe3",
     "1a2f3c951f6dadcc7ee9007dff81504b0fcd6d7cf59996efdc33d92bf7f9f8f6", "100000000000000000000000000000000",
     "1051acb0700ec6d42a88215852d582efbaef31529b6fcbc3277b5c1b300f5cf0",
     "135b2394bb45ab04b8bd7611bd2dfe1de6a4e6e2ccea1ea1955f577cd66af85b"},
    {"1a87b0584ce92f4593d161480614f2989035225609f08058ccfa3d0f940febe3",
     "1a2f3c951f6dadcc7ee9007dff81504b0fcd6d7cf59996efdc33d92bf7f9f8f6", "9",
     "1dbad7d39dbc56379f78fac1bca147dc8e66de1b9d183c7b167351bfe0aeab74",
     "2cd757d51289cd8dbd0acf9e673ad67d0f0a89f912af47ed1be53664f5692575"},
    {"17c139df0efee0f766bc0204762b774362e4ded88953a39ce849a8a7fa163fa9",
     "01e0559bacb160664764a357af8a9fe70baa9258e0b959273ffc5718c6d4cc7c",
     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "29e587aadd7c06722aabba753017c093f70ba7eb1f1c0104ec0564e7e3e21f60",
     "22b1143f6a41008e7755c71c3d00b6b915d386de21783ef590486d8afa8453b1"},
    {"039730ea8dff1254c0fee9c0ea777d29a9c710b7e616683f194f18c43b43b869",
     "073a5ffcc6fc7a28c30723d6e58ce577356982d65b833a5a5c15bf9024b43d98",
     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "00a1a234d08efaa2616607e31eca1980128b00b415c845ff25bba3afcb81dc00",
     "242077290ed33906aeb8e42fd98c41bcb9057ba03421af3f2d08cfc441186024"},
    {"039730ea8dff1254c0fee9c0ea777d29a9c710b7e616683f194f18c43b43b869",
     "073a5ffcc6fc7a28c30723d6e58ce577356982d65b833a5a5c15bf9024b43d98", "9",
     "19f75b9dd68c080a688774a6213f131e3052bd353a304a189d7a2ee367e3c258",
     "2612f545fb9fc89fde80fd81c68fc7dcb27fea5fc124eeda69433cf5c46d2d7f"},
};
/* EIP-196 ecAdd "cdetrio9": 5G + P */
static const char *BN_G1_ADD[6] = {
    "17c139df0efee0f766bc0204762b774362e4ded88953a39ce849a8a7fa163fa9",
    "01e0559bacb160664764a357af8a9fe70baa9258e0b959273ffc5718c6d4cc7c",
    "039730ea8dff1254c0fee9c0ea777d29a9c710b7e616683f194f18c43b43b869",
    "073a5ffcc6fc7a28c30723d6e58ce577356982d65b833a5a5c15bf9024b43d98",
    "15bf2bb17880144b5d1cd2b1f46eff9d617bffd1ca57c37fb5a49bd84e53cf66",
    "049c797f9ce0d17083deb32b5e36f2ea2a212ee036598dd7624c168993d1355f",
};

/* BN254 G2: the EIP-197 generator and its published double and triple */
static const coord_vec BN_G2_COORDS[] = {
    {"1", "10857046999023057135944570762232829481370756359578518086990519993285655852781",
     "11559732032986387107991004021392285783925812861821192530917403151452391805634",
     "8495653923123431417604973247489272438418190587263600148770280649306958101930",
     "4082367875863433681332203403145435568316851327593401208105741076214120093531"},
    {"2", "18029695676650738226693292988307914797657423701064905010927197838374790804409",
     "14583779054894525174450323658765874724019480979794335525732096752006891875705",
     "2140229616977736810657479771656733941598412651537078903776637920509952744750",
     "11474861747383700316476719153975578001603231366361248090558603872215261634898"},
    {"3", "2725019753478801796453339367788033689375851816420509565303521482350756874229",
     "7273165102799931111715871471550377909735733521218303035754523677688038059653",
     "2512659008974376214222774206987427162027254181373325676825515531566330959255",
     "957874124722006818841961785324909313781880061366718538693995380805373202866"},
};
/* EIP-197 byte layout of the G2 generator: x.c1 || x.c0 || y.c1 || y.c0 */
static const enc_vec BN_G2_UNCOMPRESSED[] = {
    {"1", "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2"
          "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"
          "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b"
          "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"},
};
static const enc_vec BN_G1_UNCOMPRESSED[] = {
    {"1", "0000000000000000000000000000000000000000000000000000000000000001"
          "0000000000000000000000000000000000000000000000000000000000000002"},
    {"2", "030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3"
          "15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4"},
    {"0", "0000000000000000000000000000000000000000000000000000000000000000"
          "0000000000000000000000000000000000000000000000000000000000000000"},
};
/* gnark compressed form of G = (1, 2): 2 is the smaller root, flag 10 */
static const enc_vec BN_G1_COMPRESSED[] = {
    {"1", "8000000000000000000000000000000000000000000000000000000000000001"},
    {"-1", "c000000000000000000000000000000000000000000000000000000000000001"},
    {"0", "4000000000000000000000000000000000000000000000000000000000000000"},
};

/* ======================================================================
 * Tests
 * ====================================================================== */

static int scale_iters(long n)
{
    return (int)cz_test_iters(n);
}

/* generator, b, published coordinates and encodings */
static void test_constants(const group_t *g)
{
    rpt G, P, E;
    rp_init(&G), rp_init(&P), rp_init(&E);
    mpz_t k;
    mpz_init(k);
    pt_t a, j, t;

    /* b equals the independently derived coefficient */
    rf bb;
    rf_init(&bb);
    rf_from_limbs(&bb, g->b());
    CHECK_MSG(rf_eq(&bb, &RC.b), "%s: b", g->name);
    rf_clear(&bb);

    /* the generator: on the curve (lib and GMP), in the subgroup (fast, slow, GMP r*G = O) */
    rp_from_affine(&G, g->generator());
    CHECK_MSG(!G.inf && rp_on_curve(&G), "%s: generator on curve (GMP)", g->name);
    CHECK(g->affine_is_on_curve(g->generator()));
    g->from_affine(j.l, g->generator());
    CHECK(g->is_on_curve(j.l));
    CHECK_MSG(g->in_subgroup(j.l) && g->in_subgroup_slow(j.l) && g->affine_in_subgroup(g->generator()),
              "%s: generator in subgroup", g->name);
    rp_mul(&P, &G, RC.r);
    CHECK_MSG(P.inf, "%s: r*G = O (GMP)", g->name);
    CHECK_MSG(mpz_probab_prime_p(RC.r, 30), "%s: r prime", g->name);

    const coord_vec *cv = NULL;
    size_t ncv = 0;
    if (g == &GROUPS[BLS_G1]) cv = BLS_G1_COORDS, ncv = CZ_ARRAY_LEN(BLS_G1_COORDS);
    if (g == &GROUPS[BLS_G2]) cv = BLS_G2_COORDS, ncv = CZ_ARRAY_LEN(BLS_G2_COORDS);
    if (g == &GROUPS[BN_G1]) cv = BN_G1_COORDS, ncv = CZ_ARRAY_LEN(BN_G1_COORDS);
    if (g == &GROUPS[BN_G2]) cv = BN_G2_COORDS, ncv = CZ_ARRAY_LEN(BN_G2_COORDS);
    for (size_t i = 0; i < ncv; i++) {
        rp_from_strs(&E, cv[i].x0, cv[i].x1, cv[i].y0, cv[i].y1);
        mpz_set_str(k, cv[i].k, 0);
        CHECK_MSG(rp_on_curve(&E), "%s: published %sG on curve", g->name, cv[i].k);
        rp_mul(&P, &G, k);
        CHECK_MSG(rp_eq(&P, &E), "%s: GMP %sG = published", g->name, cv[i].k);
        g->from_affine(j.l, g->generator());
        lib_mul_mpz(t.l, j.l, k);
        CHECK_MSG(jac_is(t.l, &E), "%s: mul %sG = published", g->name, cv[i].k);
        g->to_affine(a.l, t.l);
        CHECK(aff_is(a.l, &E));
    }

    /* encodings of published multiples */
    const enc_vec *ev[3] = {NULL, NULL, NULL}; /* compressed, uncompressed */
    size_t nev[3] = {0, 0, 0};
    if (g == &GROUPS[BLS_G1]) {
        ev[0] = BLS_G1_COMPRESSED, nev[0] = CZ_ARRAY_LEN(BLS_G1_COMPRESSED);
        ev[1] = BLS_G1_UNCOMPRESSED, nev[1] = CZ_ARRAY_LEN(BLS_G1_UNCOMPRESSED);
    } else if (g == &GROUPS[BLS_G2]) {
        ev[0] = BLS_G2_COMPRESSED, nev[0] = CZ_ARRAY_LEN(BLS_G2_COMPRESSED);
    } else if (g == &GROUPS[BN_G1]) {
        ev[0] = BN_G1_COMPRESSED, nev[0] = CZ_ARRAY_LEN(BN_G1_COMPRESSED);
        ev[1] = BN_G1_UNCOMPRESSED, nev[1] = CZ_ARRAY_LEN(BN_G1_UNCOMPRESSED);
    } else {
        ev[1] = BN_G2_UNCOMPRESSED, nev[1] = CZ_ARRAY_LEN(BN_G2_UNCOMPRESSED);
    }
    for (int form = 0; form < 2; form++) {
        size_t sz = form ? g->usz : g->csz;
        for (size_t i = 0; i < nev[form]; i++) {
            uint8_t want[192], got[192];
            size_t n = hex_to_bytes(want, ev[form][i].hex);
            CHECK_MSG(n == sz, "%s: vector size %zu", g->name, n);
            mpz_set_str(k, ev[form][i].k, 0);
            g->from_affine(j.l, g->generator());
            lib_mul_mpz(t.l, j.l, k);
            g->to_affine(a.l, t.l);
            rp_mul(&P, &G, k);
            CHECK(aff_is(a.l, &P));
            (form ? g->to_u : g->to_c)(got, a.l);
            CHECK_MSG(!memcmp(got, want, sz), "%s: %s encoding of %sG", g->name, form ? "uncompressed" : "compressed",
                      ev[form][i].k);
            pt_t d;
            cz_status st = (form ? g->from_u : g->from_c)(d.l, want, 0);
            CHECK_MSG(st == CZ_OK && aff_is(d.l, &P), "%s: decode published %sG: %s", g->name, ev[form][i].k,
                      cz_status_str(st));
        }
    }

    /* EIP-196 ecMul / ecAdd vectors */
    if (g == &GROUPS[BN_G1]) {
        for (size_t i = 0; i < CZ_ARRAY_LEN(BN_G1_MUL); i++) {
            rpt S;
            rp_init(&S);
            mpz_set_str(S.x.c[0], BN_G1_MUL[i].px, 16);
            mpz_set_str(S.y.c[0], BN_G1_MUL[i].py, 16);
            S.inf = 0;
            mpz_set_str(E.x.c[0], BN_G1_MUL[i].rx, 16);
            mpz_set_str(E.y.c[0], BN_G1_MUL[i].ry, 16);
            E.inf = 0;
            mpz_set_str(k, BN_G1_MUL[i].k, 16);
            rp_mul(&P, &S, k);
            CHECK_MSG(rp_eq(&P, &E), "EIP-196 mul %zu (GMP)", i);
            rp_to_affine(a.l, &S);
            g->from_affine(j.l, a.l);
            lib_mul_mpz(t.l, j.l, k);
            CHECK_MSG(jac_is(t.l, &E), "EIP-196 mul %zu", i);
            rp_clear(&S);
        }
        rpt A, B;
        rp_init(&A), rp_init(&B);
        mpz_set_str(A.x.c[0], BN_G1_ADD[0], 16), mpz_set_str(A.y.c[0], BN_G1_ADD[1], 16);
        mpz_set_str(B.x.c[0], BN_G1_ADD[2], 16), mpz_set_str(B.y.c[0], BN_G1_ADD[3], 16);
        mpz_set_str(E.x.c[0], BN_G1_ADD[4], 16), mpz_set_str(E.y.c[0], BN_G1_ADD[5], 16);
        A.inf = B.inf = E.inf = 0;
        pt_t ja, ab;
        rp_to_affine(a.l, &A);
        rp_to_affine(ab.l, &B);
        g->from_affine(ja.l, a.l);
        g->add_affine(t.l, ja.l, ab.l);
        CHECK_MSG(jac_is(t.l, &E), "EIP-196 add");
        rp_clear(&A), rp_clear(&B);
    }
    mpz_clear(k);
    rp_clear(&G), rp_clear(&P), rp_clear(&E);
}

/* Jacobian / mixed / XYZZ paths against the reference, special cases, aliasing */
static void test_group_laws(const group_t *g, cz_rng *rng, int iters)
{
    rpt P, Q, S, E, T;
    rp_init(&P), rp_init(&Q), rp_init(&S), rp_init(&E), rp_init(&T);
    pt_t jp, jq, js, ap, aq, r1, r2, r3, xp, xq, inf, ainf, xinf;
    g->set_inf(inf.l);
    g->affine_set_inf(ainf.l);
    g->xyzz_set_inf(xinf.l);
    CHECK(g->is_inf(inf.l) && g->affine_is_inf(ainf.l) && g->xyzz_is_inf(xinf.l));

    for (int it = 0; it < iters; it++) {
        rp_random_subgroup(&P, rng);
        rp_random_subgroup(&Q, rng);
        rp_random_subgroup(&S, rng);
        rp_to_jac(jp.l, &P, rng);
        rp_to_jac(jq.l, &Q, rng);
        rp_to_jac(js.l, &S, rng);
        rp_to_affine(ap.l, &P);
        rp_to_affine(aq.l, &Q);
        rp_to_xyzz(xp.l, &P, rng);
        rp_to_xyzz(xq.l, &Q, rng);
        CHECK(g->is_on_curve(jp.l) && g->affine_is_on_curve(ap.l));

        /* add, commutativity, associativity */
        rp_add(&E, &P, &Q);
        g->add(r1.l, jp.l, jq.l);
        CHECK_MSG(jac_is(r1.l, &E), "%s: add", g->name);
        g->add(r2.l, jq.l, jp.l);
        CHECK(g->eq(r1.l, r2.l));
        g->add(r1.l, r1.l, js.l); /* (P+Q)+S, r aliases p */
        g->add(r2.l, jq.l, js.l);
        g->add(r2.l, jp.l, r2.l); /* P+(Q+S), r aliases q */
        rp_add(&T, &E, &S);
        CHECK_MSG(g->eq(r1.l, r2.l) && jac_is(r1.l, &T), "%s: associativity", g->name);
        /* identity and inverse */
        g->add(r1.l, jp.l, inf.l);
        CHECK(jac_is(r1.l, &P));
        g->add(r1.l, inf.l, jp.l);
        CHECK(jac_is(r1.l, &P));
        g->add(r1.l, inf.l, inf.l);
        CHECK(g->is_inf(r1.l));
        g->neg(r2.l, jp.l);
        rp_neg(&T, &P);
        CHECK(jac_is(r2.l, &T));
        g->add(r1.l, jp.l, r2.l);
        CHECK_MSG(g->is_inf(r1.l), "%s: P + (-P)", g->name);
        /* P + P through add (different Z), = dbl(P), = reference */
        rp_add(&E, &P, &P);
        rp_to_jac(r3.l, &P, rng);
        g->add(r1.l, jp.l, r3.l);
        g->dbl(r2.l, jp.l);
        CHECK_MSG(jac_is(r1.l, &E) && jac_is(r2.l, &E), "%s: P+P = dbl(P)", g->name);
        memcpy(r1.l, jp.l, g->jsz);
        g->add(r1.l, r1.l, r1.l); /* r == p == q */
        CHECK(jac_is(r1.l, &E));
        memcpy(r1.l, jp.l, g->jsz);
        g->dbl(r1.l, r1.l);
        CHECK(jac_is(r1.l, &E));
        g->dbl(r1.l, inf.l);
        CHECK(g->is_inf(r1.l));
        /* eq across Z representations */
        CHECK_MSG(g->eq(jp.l, r3.l) && !g->eq(jp.l, jq.l) && !g->eq(jp.l, inf.l) && g->eq(inf.l, inf.l), "%s: eq",
                  g->name);
        g->neg(r2.l, r3.l);
        CHECK(!g->eq(jp.l, r2.l));

        /* mixed addition */
        rp_add(&E, &P, &Q);
        g->add_affine(r1.l, jp.l, aq.l);
        CHECK_MSG(jac_is(r1.l, &E), "%s: add_affine", g->name);
        memcpy(r1.l, jp.l, g->jsz);
        g->add_affine(r1.l, r1.l, aq.l);
        CHECK(jac_is(r1.l, &E));
        g->add_affine(r1.l, jp.l, ap.l); /* doubling branch */
        rp_add(&E, &P, &P);
        CHECK_MSG(jac_is(r1.l, &E), "%s: add_affine P+P", g->name);
        g->affine_neg(r2.l, ap.l);
        g->add_affine(r1.l, jp.l, r2.l);
        CHECK_MSG(g->is_inf(r1.l), "%s: add_affine P-P", g->name);
        g->add_affine(r1.l, inf.l, aq.l);
        CHECK(jac_is(r1.l, &Q));
        g->add_affine(r1.l, jp.l, ainf.l);
        CHECK(jac_is(r1.l, &P));
        g->add_affine(r1.l, inf.l, ainf.l);
        CHECK(g->is_inf(r1.l));
        g->from_affine(r1.l, ap.l);
        CHECK(jac_is(r1.l, &P));
        g->from_affine(r1.l, ainf.l);
        CHECK(g->is_inf(r1.l));

        /* XYZZ */
        rp_add(&E, &P, &Q);
        g->xyzz_add_affine(r1.l, xp.l, aq.l);
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_add_affine", g->name);
        memcpy(r1.l, xp.l, g->xsz);
        g->xyzz_add_affine(r1.l, r1.l, aq.l);
        CHECK(xyzz_is(r1.l, &E));
        g->xyzz_add(r1.l, xp.l, xq.l);
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_add", g->name);
        memcpy(r1.l, xq.l, g->xsz);
        g->xyzz_add(r1.l, xp.l, r1.l);
        CHECK(xyzz_is(r1.l, &E));
        memcpy(r1.l, xp.l, g->xsz);
        g->xyzz_add(r1.l, r1.l, xq.l);
        CHECK(xyzz_is(r1.l, &E));
        g->from_xyzz(r2.l, r1.l);
        CHECK_MSG(jac_is(r2.l, &E), "%s: from_xyzz", g->name);
        rp_neg(&T, &Q);
        rp_add(&E, &P, &T);
        g->xyzz_sub_affine(r1.l, xp.l, aq.l);
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_sub_affine", g->name);
        memcpy(r1.l, xp.l, g->xsz);
        g->xyzz_sub_affine(r1.l, r1.l, aq.l);
        CHECK(xyzz_is(r1.l, &E));
        rp_add(&E, &P, &P);
        g->xyzz_dbl(r1.l, xp.l);
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_dbl", g->name);
        memcpy(r1.l, xp.l, g->xsz);
        g->xyzz_dbl(r1.l, r1.l);
        CHECK(xyzz_is(r1.l, &E));
        g->xyzz_dbl_affine(r1.l, ap.l);
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_dbl_affine", g->name);
        g->xyzz_add_affine(r1.l, xp.l, ap.l); /* doubling branch */
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_add_affine P+P", g->name);
        rp_to_xyzz(r3.l, &P, rng);
        g->xyzz_add(r1.l, xp.l, r3.l); /* equal points, different ZZ */
        CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz_add P+P", g->name);
        g->xyzz_sub_affine(r1.l, xp.l, ap.l);
        CHECK_MSG(g->xyzz_is_inf(r1.l), "%s: xyzz P-P", g->name);
        g->affine_neg(r2.l, ap.l);
        rp_neg(&T, &P);
        rp_to_xyzz(r3.l, &T, rng);
        g->xyzz_add(r1.l, xp.l, r3.l);
        CHECK(g->xyzz_is_inf(r1.l));
        g->xyzz_add_affine(r1.l, xp.l, r2.l);
        CHECK(g->xyzz_is_inf(r1.l));
        g->xyzz_add_affine(r1.l, xinf.l, aq.l);
        CHECK(xyzz_is(r1.l, &Q));
        g->xyzz_add_affine(r1.l, xp.l, ainf.l);
        CHECK(xyzz_is(r1.l, &P));
        g->xyzz_add(r1.l, xinf.l, xq.l);
        CHECK(xyzz_is(r1.l, &Q));
        g->xyzz_add(r1.l, xp.l, xinf.l);
        CHECK(xyzz_is(r1.l, &P));
        g->xyzz_dbl(r1.l, xinf.l);
        CHECK(g->xyzz_is_inf(r1.l));
        g->xyzz_dbl_affine(r1.l, ainf.l);
        CHECK(g->xyzz_is_inf(r1.l));
        g->from_xyzz(r2.l, xinf.l);
        CHECK(g->is_inf(r2.l));
        g->xyzz_sub_affine(r1.l, xinf.l, aq.l);
        rp_neg(&T, &Q);
        CHECK(xyzz_is(r1.l, &T));

        /* an XYZZ bucket chain (as Pippenger runs it) against the reference */
        if (it < 3) {
            g->xyzz_set_inf(r1.l);
            rp_set_inf(&E);
            for (int s = 0; s < 12; s++) {
                int sub = (int)(cz_rng_u64(rng) % 3) == 0;
                rp_random_subgroup(&T, rng);
                if (s == 5) rp_neg(&T, &E); /* lands on infinity */
                if (s == 8) rp_set(&T, &E); /* doubling inside the chain */
                rp_to_affine(r2.l, &T);
                if (sub) {
                    g->xyzz_sub_affine(r1.l, r1.l, r2.l);
                    rp_neg(&T, &T);
                } else {
                    g->xyzz_add_affine(r1.l, r1.l, r2.l);
                }
                rp_add(&E, &E, &T);
                CHECK_MSG(xyzz_is(r1.l, &E), "%s: xyzz chain step %d", g->name, s);
            }
        }
    }
    rp_clear(&P), rp_clear(&Q), rp_clear(&S), rp_clear(&E), rp_clear(&T);
}

/* scalar multiplication: against repeated addition and the reference; edge scalars */
static void test_scalar_mul(const group_t *g, cz_rng *rng, int iters)
{
    rpt P, E;
    rp_init(&P), rp_init(&E);
    mpz_t k;
    mpz_init(k);
    pt_t jp, r1, r2, acc, inf;
    uint64_t fr[4], l[SCALAR_LIMBS];
    g->set_inf(inf.l);

    for (int it = 0; it < iters; it++) {
        rp_random_subgroup(&P, rng);
        rp_to_jac(jp.l, &P, rng);
        /* small k against repeated addition */
        g->set_inf(acc.l);
        for (unsigned s = 0; s <= 20; s++) {
            l[0] = s;
            g->mul(r1.l, jp.l, l, 1);
            CHECK_MSG(g->eq(r1.l, acc.l), "%s: mul by %u", g->name, s);
            mpz_set_ui(k, s);
            fr_from_mpz(fr, k);
            g->mul_fr(r1.l, jp.l, fr);
            g->mul_fr_ct(r2.l, jp.l, fr);
            CHECK_MSG(g->eq(r1.l, acc.l) && g->eq(r2.l, acc.l), "%s: mul_fr / mul_fr_ct by %u", g->name, s);
            mpz_sub_ui(k, RC.r, s); /* -s */
            fr_from_mpz(fr, k);
            g->mul_fr_ct(r2.l, jp.l, fr);
            g->neg(r1.l, acc.l);
            CHECK_MSG(g->eq(r2.l, r1.l), "%s: mul_fr_ct by -%u", g->name, s);
            g->add(acc.l, acc.l, jp.l);
        }
        /* random k of 1..512 bits against GMP */
        int bits = 1 + (int)(cz_rng_u64(rng) % 512);
        random_mpz_below(k, RC.q, rng);
        mpz_mul(k, k, k);
        mpz_fdiv_r_2exp(k, k, (mp_bitcnt_t)bits);
        rp_mul(&E, &P, k);
        size_t nk = scalar_limbs(l, k);
        g->mul(r1.l, jp.l, l, nk);
        CHECK_MSG(jac_is(r1.l, &E), "%s: mul (%d-bit k)", g->name, bits);
        /* mul_fr and mul_fr_ct against GMP (odd and even k, all 64 digit windows exercised) */
        random_mpz_below(k, RC.r, rng);
        if (it % 2) mpz_clrbit(k, 0);
        rp_mul(&E, &P, k);
        fr_from_mpz(fr, k);
        g->mul_fr(r1.l, jp.l, fr);
        g->mul_fr_ct(r2.l, jp.l, fr);
        CHECK_MSG(jac_is(r1.l, &E) && jac_is(r2.l, &E), "%s: mul_fr / mul_fr_ct", g->name);
        /* aliasing r == p */
        memcpy(r2.l, jp.l, g->jsz);
        g->mul_fr(r2.l, r2.l, fr);
        CHECK(jac_is(r2.l, &E));
        /* k = 0, 1, r-1, r, r+1, 2r+5 */
        static const long offs[] = {0, 1, -1, 0, 1, 5};
        static const int mult[] = {0, 0, 1, 1, 1, 2};
        for (int e = 0; e < 6; e++) {
            mpz_mul_ui(k, RC.r, (unsigned long)mult[e]);
            if (offs[e] >= 0)
                mpz_add_ui(k, k, (unsigned long)offs[e]);
            else
                mpz_sub_ui(k, k, 1);
            rp_mul(&E, &P, k);
            nk = scalar_limbs(l, k);
            g->mul(r1.l, jp.l, l, nk);
            CHECK_MSG(jac_is(r1.l, &E), "%s: mul edge %d", g->name, e);
            if (mult[e] == 1 && offs[e] == 0) CHECK_MSG(g->is_inf(r1.l), "%s: r*P = O", g->name);
            if (mult[e] <= 1) {
                fr_from_mpz(fr, k);
                g->mul_fr(r1.l, jp.l, fr);
                g->mul_fr_ct(r2.l, jp.l, fr);
                CHECK_MSG(jac_is(r1.l, &E) && jac_is(r2.l, &E), "%s: mul_fr edge %d", g->name, e);
            }
        }
        g->mul(r1.l, jp.l, l, 0); /* empty scalar */
        CHECK(g->is_inf(r1.l));
        g->mul(r1.l, inf.l, l, nk);
        CHECK(g->is_inf(r1.l));
        g->mul_fr_ct(r1.l, inf.l, fr);
        CHECK(g->is_inf(r1.l));
    }
    /* random(): in the subgroup, distinct */
    g->random(r1.l, rng);
    g->random(r2.l, rng);
    CHECK(g->in_subgroup_slow(r1.l) && !g->eq(r1.l, r2.l));
    mpz_clear(k);
    rp_clear(&P), rp_clear(&E);
}

static void test_batch_to_affine(const group_t *g, cz_rng *rng)
{
    enum { N = 37 };
    pt_t *j = malloc(N * sizeof(pt_t)), *a = malloc(N * sizeof(pt_t));
    uint8_t *jb = malloc(N * g->jsz), *ab = malloc(N * g->asz);
    rpt *e = malloc(N * sizeof(rpt));
    for (int i = 0; i < N; i++) {
        rp_init(&e[i]);
        if (i % 5 == 0 || i == N - 1)
            rp_set_inf(&e[i]);
        else
            rp_random_subgroup(&e[i], rng);
        rp_to_jac(j[i].l, &e[i], rng);
        memcpy(jb + i * g->jsz, j[i].l, g->jsz);
    }
    CHECK(g->batch_to_affine(ab, jb, N) == CZ_OK);
    for (int i = 0; i < N; i++) {
        memcpy(a[i].l, ab + i * g->asz, g->asz);
        CHECK_MSG(aff_is(a[i].l, &e[i]), "%s: batch_to_affine [%d]", g->name, i);
        pt_t s;
        g->to_affine(s.l, j[i].l);
        CHECK(!memcmp(s.l, a[i].l, g->asz));
    }
    CHECK(g->batch_to_affine(ab, jb, 0) == CZ_OK);
    for (int i = 0; i < N; i++)
        g->set_inf(jb + i * g->jsz);
    CHECK(g->batch_to_affine(ab, jb, N) == CZ_OK);
    for (int i = 0; i < N; i++)
        CHECK(g->affine_is_inf(ab + i * g->asz));
    for (int i = 0; i < N; i++)
        rp_clear(&e[i]);
    free(j), free(a), free(jb), free(ab), free(e);
}

/* on-curve / subgroup rejection; fast vs slow subgroup checks; endomorphisms */
static void test_subgroup(const group_t *g, cz_rng *rng, int iters)
{
    rpt P, T, E;
    rp_init(&P), rp_init(&T), rp_init(&E);
    pt_t j, a, r1, r2;
    int cof1 = mpz_cmp_ui(RC.h, 1) == 0;

    for (int it = 0; it < iters; it++) {
        /* in the subgroup: both tests accept */
        rp_random_subgroup(&P, rng);
        rp_to_jac(j.l, &P, rng);
        rp_to_affine(a.l, &P);
        CHECK_MSG(g->in_subgroup(j.l) && g->in_subgroup_slow(j.l) && g->affine_in_subgroup(a.l),
                  "%s: subgroup point accepted", g->name);
        /* the endomorphism's eigenvalue on the subgroup, against GMP */
        if (g->endo) {
            g->endo(r1.l, j.l);
            rp_mul(&E, &P, RC.lambda);
            CHECK_MSG(jac_is(r1.l, &E), "%s: endomorphism eigenvalue", g->name);
            memcpy(r2.l, j.l, g->jsz);
            g->endo(r2.l, r2.l);
            CHECK(g->eq(r1.l, r2.l));
        }
        /* off the curve: perturb y */
        rf_add(&T.y, &P.y, &RC.b); /* y + b != +-y */
        rf_set(&T.x, &P.x);
        T.inf = 0;
        CHECK(!rp_on_curve(&T));
        rp_to_jac(j.l, &T, rng);
        rp_to_affine(a.l, &T);
        CHECK_MSG(!g->is_on_curve(j.l) && !g->affine_is_on_curve(a.l), "%s: off-curve detected", g->name);
        CHECK_MSG(!g->in_subgroup(j.l) && !g->in_subgroup_slow(j.l) && !g->affine_in_subgroup(a.l),
                  "%s: off-curve rejected by subgroup checks", g->name);
        CHECK(g->validate(a.l, 0) == CZ_ERR_NOT_ON_CURVE &&
              g->validate(a.l, CZ_EC_DECODE_TRUSTED) == CZ_ERR_NOT_ON_CURVE);

        /* on the curve, (almost surely) outside the subgroup */
        rp_random_curve(&P, rng);
        rp_to_jac(j.l, &P, rng);
        rp_to_affine(a.l, &P);
        CHECK(g->is_on_curve(j.l) && g->affine_is_on_curve(a.l));
        int fast = g->in_subgroup(j.l), slow = g->in_subgroup_slow(j.l);
        CHECK_MSG(fast == slow, "%s: fast and slow subgroup checks disagree", g->name);
        CHECK_MSG(fast == cof1, "%s: random curve point %s the subgroup", g->name, cof1 ? "outside" : "inside");
        CHECK(g->affine_in_subgroup(a.l) == cof1);
        CHECK(g->validate(a.l, 0) == (cof1 ? CZ_OK : CZ_ERR_NOT_IN_SUBGROUP));
        CHECK(g->validate(a.l, CZ_EC_DECODE_TRUSTED) == CZ_OK);
        if (it < 2) { /* GMP agrees: r*P = O exactly when the cofactor is 1 */
            rp_mul(&E, &P, RC.r);
            CHECK_MSG(E.inf == cof1, "%s: GMP r*P", g->name);
        }
        if (g->endo) { /* the endomorphism keeps any point on the curve */
            g->endo(r1.l, j.l);
            rp_from_jac(&E, r1.l);
            CHECK(rp_on_curve(&E));
        }
        /* non-subgroup point + subgroup point: still outside */
        if (!cof1) {
            rp_random_subgroup(&T, rng);
            rp_add(&E, &P, &T);
            rp_to_jac(r1.l, &E, rng);
            CHECK(!g->in_subgroup(r1.l) && !g->in_subgroup_slow(r1.l));
        }
        /* clearing the cofactor lands in the subgroup */
        lib_mul_mpz(r1.l, j.l, RC.h);
        rp_mul(&E, &P, RC.h);
        CHECK(jac_is(r1.l, &E));
        CHECK_MSG(g->in_subgroup(r1.l) && g->in_subgroup_slow(r1.l), "%s: [h]P accepted", g->name);
    }
    /* infinity is in every subgroup */
    g->set_inf(j.l);
    g->affine_set_inf(a.l);
    CHECK(g->in_subgroup(j.l) && g->in_subgroup_slow(j.l) && g->affine_in_subgroup(a.l));
    CHECK(g->validate(a.l, 0) == CZ_OK);
    /* BLS12-381 G1: (0, +-2) is on the curve with order 3 */
    if (g == &GROUPS[BLS_G1]) {
        rf_set_si(&P.x, 0, 0);
        rf_set_si(&P.y, 2, 0);
        P.inf = 0;
        CHECK(rp_on_curve(&P));
        rp_to_jac(j.l, &P, rng);
        CHECK(g->is_on_curve(j.l) && !g->in_subgroup(j.l) && !g->in_subgroup_slow(j.l));
        g->dbl(r1.l, j.l);
        g->add(r1.l, r1.l, j.l);
        CHECK_MSG(g->is_inf(r1.l), "bls12_381_g1: (0, 2) has order 3");
    }
    rp_clear(&P), rp_clear(&T), rp_clear(&E);
}

/* ---- serialisation ---- */

typedef struct {
    const char *name;
    size_t size;
    void (*enc)(uint8_t *, const void *);
    cz_status (*dec)(void *, const uint8_t *, unsigned);
} codec_t;

static void codecs(const group_t *g, codec_t c[3])
{
    c[0] = (codec_t){"compressed", g->csz, g->to_c, g->from_c};
    c[1] = (codec_t){"uncompressed", g->usz, g->to_u, g->from_u};
    c[2] = (codec_t){"lem", g->lsz, g->to_l, g->from_l};
}

/* decode and check the status; on error the output must stay untouched */
static cz_status dec_check(const group_t *g, const codec_t *c, const uint8_t *in, unsigned flags, cz_status want,
                           const char *what)
{
    pt_t out;
    memset(out.l, 0xa5, sizeof out.l);
    cz_status st = c->dec(out.l, in, flags);
    CHECK_MSG(st == want, "%s %s: %s: got %s, want %s", g->name, c->name, what, cz_status_str(st), cz_status_str(want));
    if (st != CZ_OK) {
        int untouched = 1;
        for (size_t i = 0; i < g->asz / 8; i++)
            untouched &= out.l[i] == 0xa5a5a5a5a5a5a5a5ULL;
        CHECK_MSG(untouched, "%s %s: %s: output written on error", g->name, c->name, what);
    }
    return st;
}

/* big-endian bytes of v into out[0..len) */
static void mpz_to_be(uint8_t *out, size_t len, const mpz_t v)
{
    memset(out, 0, len);
    size_t cnt = 0;
    uint8_t tmp[256];
    mpz_export(tmp, &cnt, 1, 1, 0, 0, v);
    memcpy(out + len - cnt, tmp, cnt);
}

static void test_serde(const group_t *g, cz_rng *rng, int iters)
{
    codec_t c[3];
    codecs(g, c);
    rpt P, T;
    rp_init(&P), rp_init(&T);
    pt_t a, d, ainf;
    uint8_t buf[192], buf2[192];
    size_t fb = (size_t)g->n * 8; /* bytes of one Fq */
    size_t cb = g->csz;           /* bytes of one big-endian coordinate */
    g->affine_set_inf(ainf.l);

    CHECK(g->csz == (size_t)g->deg * fb && g->usz == 2 * g->csz && g->lsz == 2 * g->csz && g->lsz == g->asz);

    /* round trips: random points, their negations, infinity */
    for (int it = 0; it < iters; it++) {
        rp_random_subgroup(&P, rng);
        if (it % 2) rp_neg(&P, &P);
        if (it == 0) rp_set_inf(&P);
        rp_to_affine(a.l, &P);
        for (int k = 0; k < 3; k++) {
            c[k].enc(buf, a.l);
            dec_check(g, &c[k], buf, 0, CZ_OK, "round trip");
            memset(d.l, 0, sizeof d.l);
            c[k].dec(d.l, buf, 0);
            CHECK_MSG(aff_is(d.l, &P), "%s %s round trip value", g->name, c[k].name);
            c[k].enc(buf2, d.l);
            CHECK(!memcmp(buf, buf2, c[k].size));
            CHECK(c[k].dec(d.l, buf, CZ_EC_DECODE_TRUSTED) == CZ_OK && aff_is(d.l, &P));
        }
        CHECK(g->validate(a.l, 0) == CZ_OK);
        /* the big-endian coordinates are the canonical values, Fq2 as c1 || c0 */
        if (!P.inf) {
            g->to_u(buf, a.l);
            uint8_t want[96];
            for (int comp = 0; comp < 2; comp++) {
                const rf *v = comp ? &P.y : &P.x;
                if (g->deg == 1) {
                    mpz_to_be(want, fb, v->c[0]);
                } else {
                    mpz_to_be(want, fb, v->c[1]);
                    mpz_to_be(want + fb, fb, v->c[0]);
                }
                CHECK_MSG(!memcmp(buf + comp * cb, want, cb), "%s: uncompressed layout", g->name);
            }
            /* sign flag: y lexicographically largest (Fq2: c1, or c0 when c1 = 0) */
            mpz_t half;
            mpz_init(half);
            mpz_sub_ui(half, RC.q, 1);
            mpz_fdiv_q_2exp(half, half, 1);
            int big = mpz_sgn(P.y.c[1]) ? mpz_cmp(P.y.c[1], half) > 0 : mpz_cmp(P.y.c[0], half) > 0;
            mpz_clear(half);
            g->to_c(buf, a.l);
            if (g->zcash)
                CHECK_MSG((buf[0] & 0xe0) == (big ? 0xa0 : 0x80), "%s: compressed flags", g->name);
            else
                CHECK_MSG((buf[0] & 0xc0) == (big ? 0xc0 : 0x80), "%s: compressed flags", g->name);
            /* LEM = raw Montgomery limbs, little-endian, Fq2 as c0 || c1 */
            g->to_l(buf, a.l);
            int lem_ok = 1;
            for (size_t i = 0; i < g->lsz; i++)
                lem_ok &= buf[i] == (uint8_t)(a.l[i / 8] >> (8 * (i % 8)));
            CHECK_MSG(lem_ok, "%s: LEM layout", g->name);
        }
    }
    /* canonical infinity encodings */
    g->to_c(buf, ainf.l);
    CHECK(buf[0] == (g->zcash ? 0xc0 : 0x40));
    g->to_u(buf2, ainf.l);
    CHECK(buf2[0] == (g->zcash ? 0x40 : 0x00));
    for (size_t i = 1; i < g->usz; i++)
        CHECK(buf2[i] == 0 && (i >= g->csz || buf[i] == 0));
    g->to_l(buf, ainf.l);
    for (size_t i = 0; i < g->lsz; i++)
        CHECK(buf[i] == 0);

    /* ---- malformed inputs, class by class ---- */
    rp_random_subgroup(&P, rng);
    rp_to_affine(a.l, &P);
    uint8_t good_c[96], good_u[192], good_l[192];
    g->to_c(good_c, a.l);
    g->to_u(good_u, a.l);
    g->to_l(good_l, a.l);

    /* compression flag that does not match the length */
    memcpy(buf, good_c, cb);
    buf[0] &= g->zcash ? 0x7f : 0x3f;
    dec_check(g, &c[0], buf, 0, CZ_ERR_ENCODING, "compressed without the compression flag");
    memcpy(buf, good_u, g->usz);
    buf[0] |= 0x80;
    dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed with the compression flag");
    if (!g->zcash) {
        memcpy(buf, good_u, g->usz);
        buf[0] |= 0x40;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed with the infinity marker");
        memcpy(buf, good_u, g->usz);
        buf[0] |= 0xc0;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed with compressed-largest marker");
    }
    /* infinity: canonical forms decode, any extra bit is an error */
    g->to_c(buf, ainf.l);
    dec_check(g, &c[0], buf, 0, CZ_OK, "compressed infinity");
    for (int bit = 0; bit < 8 * (int)cb; bit++) {
        if (bit < 2) continue;                     /* compression / infinity flags: other classes */
        if (!(bit < 8 || bit % 13 == 0)) continue; /* sample the body */
        g->to_c(buf, ainf.l);
        buf[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
        dec_check(g, &c[0], buf, 0, CZ_ERR_ENCODING, "compressed infinity with an extra bit");
    }
    g->to_u(buf, ainf.l);
    dec_check(g, &c[1], buf, 0, CZ_OK, "uncompressed infinity");
    if (g->zcash) {
        for (int bit = 2; bit < 8 * (int)g->usz; bit += (bit < 8 ? 1 : 29)) {
            g->to_u(buf, ainf.l);
            buf[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
            dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed infinity with an extra bit");
        }
        /* infinity flag on a finite point */
        memcpy(buf, good_c, cb);
        buf[0] |= 0x40;
        dec_check(g, &c[0], buf, 0, CZ_ERR_ENCODING, "compressed finite point with the infinity flag");
        memcpy(buf, good_u, g->usz);
        buf[0] |= 0x40;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed finite point with the infinity flag");
        /* sign flag on an uncompressed point */
        memcpy(buf, good_u, g->usz);
        buf[0] |= 0x20;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed with the sign flag");
        /* (0, 0) without the infinity flag is not a point */
        memset(buf, 0, g->usz);
        dec_check(g, &c[1], buf, 0, CZ_ERR_NOT_ON_CURVE, "uncompressed (0, 0) without the infinity flag");
        /* compressed infinity from the uncompressed length is an error and vice versa */
        memset(buf, 0, g->usz);
        buf[0] = 0xc0;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed length with 0xc0");
        memset(buf, 0, cb);
        buf[0] = 0x40;
        dec_check(g, &c[0], buf, 0, CZ_ERR_ENCODING, "compressed length with 0x40");
    } else {
        memset(buf, 0, cb);
        dec_check(g, &c[0], buf, 0, CZ_ERR_ENCODING, "compressed length, all zero");
        memset(buf, 0, g->usz);
        buf[0] = 0x40;
        dec_check(g, &c[1], buf, 0, CZ_ERR_ENCODING, "uncompressed length with 0x40");
    }
    /* sign flag flipped: decodes to -P */
    memcpy(buf, good_c, cb);
    buf[0] ^= g->zcash ? 0x20 : 0x40;
    if (dec_check(g, &c[0], buf, 0, CZ_OK, "sign flipped") == CZ_OK) {
        c[0].dec(d.l, buf, 0);
        rp_neg(&T, &P);
        CHECK_MSG(aff_is(d.l, &T), "%s: sign flip gives -P", g->name);
    }

    /* coordinates >= q: q itself, q + 1, all ones (below the flags), in each component */
    mpz_t v;
    mpz_init(v);
    for (int comp = 0; comp < 2 * g->deg; comp++) { /* comp: index of an Fq in x||y (big-endian order) */
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 0) mpz_set(v, RC.q);
            if (kind == 1) mpz_add_ui(v, RC.q, 1);
            if (kind == 2) {
                mpz_set_ui(v, 1);
                mpz_mul_2exp(v, v, (mp_bitcnt_t)(8 * fb - (g->zcash ? 3 : 2)));
                mpz_sub_ui(v, v, 1);
            }
            /* uncompressed */
            memcpy(buf, good_u, g->usz);
            mpz_to_be(buf + comp * fb, fb, v);
            dec_check(g, &c[1], buf, 0, CZ_ERR_RANGE, "uncompressed coordinate >= q");
            /* compressed: x components only, flags kept */
            if (comp < g->deg) {
                memcpy(buf, good_c, cb);
                uint8_t flags = buf[0] & (g->zcash ? 0xe0 : 0xc0);
                mpz_to_be(buf + comp * fb, fb, v);
                if (comp == 0) buf[0] |= flags;
                dec_check(g, &c[0], buf, 0, CZ_ERR_RANGE, "compressed x >= q");
            }
            /* LEM: raw Montgomery limbs >= q */
            memcpy(buf, good_l, g->lsz);
            {
                uint64_t lim[6];
                mpz_to_limbs(lim, v, g->n);
                for (int i = 0; i < g->n * 8; i++)
                    buf[comp * fb + (size_t)i] = (uint8_t)(lim[i / 8] >> (8 * (i % 8)));
                pt_t raw;
                memcpy(raw.l, good_l, g->lsz); /* little-endian host: bytes are the limbs */
                memcpy((uint8_t *)raw.l + comp * fb, buf + comp * fb, fb);
                CHECK_MSG(g->validate(raw.l, CZ_EC_DECODE_TRUSTED) == CZ_ERR_RANGE, "%s: validate range", g->name);
            }
            dec_check(g, &c[2], buf, 0, CZ_ERR_RANGE, "lem coordinate >= q");
        }
    }
    /* the largest valid coordinate, q - 1, is accepted by the range check (then fails the curve) */
    mpz_sub_ui(v, RC.q, 1);
    memcpy(buf, good_u, g->usz);
    mpz_to_be(buf + g->csz, fb, v);
    dec_check(g, &c[1], buf, 0, CZ_ERR_NOT_ON_CURVE, "uncompressed y = q - 1");

    /* off the curve */
    rf_add(&T.y, &P.y, &RC.b);
    rf_set(&T.x, &P.x);
    T.inf = 0;
    rp_to_affine(d.l, &T);
    g->to_u(buf, d.l);
    dec_check(g, &c[1], buf, CZ_EC_DECODE_TRUSTED, CZ_ERR_NOT_ON_CURVE, "uncompressed off-curve");
    g->to_l(buf, d.l);
    dec_check(g, &c[2], buf, CZ_EC_DECODE_TRUSTED, CZ_ERR_NOT_ON_CURVE, "lem off-curve");
    /* compressed x with no square root of x^3 + b */
    for (int found = 0; !found;) {
        rf t;
        rf_init(&t);
        rf_random(&T.x, rng);
        rf_mul(&t, &T.x, &T.x);
        rf_mul(&t, &t, &T.x);
        rf_add(&t, &t, &RC.b);
        /* non-square: the norm (Fq2) or the element (Fq) is a non-residue mod q */
        mpz_t nrm, s;
        mpz_inits(nrm, s, NULL);
        if (g->deg == 2) {
            mpz_mul(nrm, t.c[0], t.c[0]);
            mpz_mul(s, t.c[1], t.c[1]);
            mpz_add(nrm, nrm, s);
            mpz_mod(nrm, nrm, RC.q);
        } else {
            mpz_set(nrm, t.c[0]);
        }
        if (mpz_legendre(nrm, RC.q) == -1) {
            found = 1;
            memset(buf, 0, cb);
            if (g->deg == 1) {
                mpz_to_be(buf, fb, T.x.c[0]);
            } else {
                mpz_to_be(buf, fb, T.x.c[1]);
                mpz_to_be(buf + fb, fb, T.x.c[0]);
            }
            buf[0] |= 0x80;
            dec_check(g, &c[0], buf, CZ_EC_DECODE_TRUSTED, CZ_ERR_NOT_ON_CURVE, "compressed x without a root");
        }
        mpz_clears(nrm, s, NULL);
        rf_clear(&t);
    }
    /* on the curve, outside the subgroup: rejected, accepted when trusted */
    rp_random_curve(&T, rng);
    rp_to_affine(d.l, &T);
    cz_status want = mpz_cmp_ui(RC.h, 1) ? CZ_ERR_NOT_IN_SUBGROUP : CZ_OK;
    for (int k = 0; k < 3; k++) {
        c[k].enc(buf, d.l);
        dec_check(g, &c[k], buf, 0, want, "outside the subgroup");
        pt_t e;
        CHECK(c[k].dec(e.l, buf, CZ_EC_DECODE_TRUSTED) == CZ_OK && aff_is(e.l, &T));
    }
    if (g == &GROUPS[BLS_G1]) { /* x = 0: (0, +-2), order 3 */
        memset(buf, 0, cb);
        buf[0] = 0x80;
        dec_check(g, &c[0], buf, 0, CZ_ERR_NOT_IN_SUBGROUP, "compressed x = 0 (order 3)");
        if (c[0].dec(d.l, buf, CZ_EC_DECODE_TRUSTED) == CZ_OK) {
            rf_set_si(&T.x, 0, 0);
            rf_set_si(&T.y, 2, 0);
            T.inf = 0;
            CHECK_MSG(aff_is(d.l, &T), "x = 0 decodes to (0, 2) (2 is the smaller root)");
        }
    }
    mpz_clear(v);
    rp_clear(&P), rp_clear(&T);
}

/* Random bit flips on valid encodings: the decoders must not crash, and
 * whatever they accept must re-encode to the same bytes and be a valid point. */
static void test_fuzz(const group_t *g, cz_rng *rng, int iters)
{
    codec_t c[3];
    codecs(g, c);
    rpt P;
    rp_init(&P);
    long accepted[3] = {0, 0, 0};
    for (int it = 0; it < iters; it++) {
        pt_t a, d;
        uint8_t buf[192], re[192];
        int src = (int)(cz_rng_u64(rng) % 8);
        if (src == 0)
            rp_set_inf(&P);
        else if (src == 1)
            rp_random_curve(&P, rng); /* outside the subgroup */
        else
            rp_random_subgroup(&P, rng);
        rp_to_affine(a.l, &P);
        int k = it % 3;
        c[k].enc(buf, a.l);
        memcpy(re, buf, c[k].size);
        int flips = 1 + (int)(cz_rng_u64(rng) % 3);
        for (int f = 0; f < flips || !memcmp(re, buf, c[k].size); f++) { /* at least one net change */
            uint64_t u = cz_rng_u64(rng);
            size_t byte = (u & 3) == 0 ? 0 : (size_t)((u >> 2) % c[k].size); /* bias to the flag byte */
            buf[byte] ^= (uint8_t)(1u << ((u >> 20) % 8));
        }
        unsigned flags = (cz_rng_u64(rng) & 1) ? CZ_EC_DECODE_TRUSTED : 0;
        uint8_t *exact = malloc(c[k].size); /* exactly sized: ASan builds catch any over-read */
        memcpy(exact, buf, c[k].size);
        cz_status st = c[k].dec(d.l, exact, flags);
        free(exact);
        if (st != CZ_OK) continue;
        accepted[k]++;
        c[k].enc(re, d.l);
        CHECK_MSG(!memcmp(re, buf, c[k].size), "%s %s fuzz: accepted bytes do not re-encode", g->name, c[k].name);
        rpt D;
        rp_init(&D);
        rp_from_affine(&D, d.l);
        CHECK_MSG(rp_on_curve(&D), "%s %s fuzz: accepted an off-curve point", g->name, c[k].name);
        rp_clear(&D);
        pt_t j;
        g->from_affine(j.l, d.l);
        if (!flags)
            CHECK_MSG(g->in_subgroup_slow(j.l), "%s %s fuzz: accepted a non-subgroup point", g->name, c[k].name);
    }
    printf("  %-14s fuzz: %d mutations, accepted %ld / %ld / %ld (compressed / uncompressed / lem)\n", g->name, iters,
           accepted[0], accepted[1], accepted[2]);
    rp_clear(&P);
}

/* ---- snarkjs byte compatibility of the LEM encoding ---- */

#ifdef CZ_SOURCE_DIR
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b) b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}
/* the next quoted decimal number after *p, into z */
static int next_dec(const char **p, mpz_t z)
{
    const char *q = strchr(*p, '"');
    while (q && !(q[1] >= '0' && q[1] <= '9'))
        q = strchr(q + 1, '"');
    if (!q) return 0;
    const char *e = strchr(q + 1, '"');
    char buf[200];
    size_t n = (size_t)(e - q - 1);
    if (n >= sizeof buf) return 0;
    memcpy(buf, q + 1, n);
    buf[n] = 0;
    *p = e + 1;
    return mpz_set_str(z, buf, 10) == 0;
}
static const uint8_t *find_bytes(const uint8_t *hay, size_t n, const uint8_t *needle, size_t m)
{
    for (size_t i = 0; i + m <= n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, m)) return hay + i;
    return NULL;
}
#endif

/* The LEM bytes of vk_alpha_1 (G1) and vk_beta_2 (G2), computed from the
 * decimal coordinates of a snarkjs verification_key.json, must occur
 * verbatim in the .zkey snarkjs wrote, and decode back to the same points. */
static void test_snarkjs_lem(const group_t *g)
{
#ifdef CZ_SOURCE_DIR
    const char *dir = g->zcash ? CZ_SOURCE_DIR "/tests/fixtures/bls12381/mul_chain/"
                               : CZ_SOURCE_DIR "/tests/fixtures/bn128/mul_chain/";
    char path[512];
    size_t vlen = 0, zlen = 0;
    snprintf(path, sizeof path, "%sverification_key.json", dir);
    uint8_t *vk = read_file(path, &vlen);
    snprintf(path, sizeof path, "%scircuit.zkey", dir);
    uint8_t *zk = read_file(path, &zlen);
    CHECK_MSG(vk && zk, "%s: fixture files in %s", g->name, dir);
    if (vk && zk) {
        const char *p = strstr((const char *)vk, g->deg == 1 ? "\"vk_alpha_1\"" : "\"vk_beta_2\"");
        rpt P;
        rp_init(&P);
        int ok = p != NULL;
        for (int i = 0; i < 2 * g->deg && ok; i++) {
            rf *c = i < g->deg ? &P.x : &P.y;
            ok = next_dec(&p, c->c[i % g->deg]);
        }
        P.inf = 0;
        CHECK_MSG(ok && rp_on_curve(&P), "%s: verification key point parsed and on the curve", g->name);
        pt_t a, d;
        uint8_t lem[192];
        rp_to_affine(a.l, &P);
        g->to_l(lem, a.l);
        const uint8_t *at = find_bytes(zk, zlen, lem, g->lsz);
        CHECK_MSG(at != NULL, "%s: LEM bytes of the verification key point found in the snarkjs zkey", g->name);
        if (at) CHECK(g->from_l(d.l, at, 0) == CZ_OK && aff_is(d.l, &P));
        rp_clear(&P);
    }
    free(vk);
    free(zk);
#else
    (void)g;
#endif
}

/* The group tables of ec/ec.h: G1 and G2 of each curve behind the typed
 * functions; NULL for a value that is no curve. */
static void test_group_tables(void)
{
#define CZ_TEST_GROUP_ROW_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR)                                        \
    {cz_group_g1(CZ_CURVE_##ID), 1, NQ, sizeof(SYM##_g1_affine), sizeof(SYM##_g1), SYM##_g1_generator()},              \
        {cz_group_g2(CZ_CURVE_##ID), 2, NQ, sizeof(SYM##_g2_affine), sizeof(SYM##_g2), SYM##_g2_generator()},
    const struct {
        const cz_group *g;
        int degree, nq;
        size_t asz, jsz;
        const void *generator;
    } rows[] = {CZ_CURVE_LIST(CZ_TEST_GROUP_ROW_)};
#undef CZ_TEST_GROUP_ROW_
    CHECK(CZ_ARRAY_LEN(rows) == 2 * CZ_CURVE_COUNT);
    for (size_t i = 0; i < CZ_ARRAY_LEN(rows); i++) {
        const cz_group *g = rows[i].g;
        CHECK(g != NULL);
        if (!g) continue;
        CHECK(g->degree == rows[i].degree && g->affine_bytes == rows[i].asz && g->jacobian_bytes == rows[i].jsz);
        pt_t a, j, back;
        memcpy(a.l, rows[i].generator, g->affine_bytes);
        CHECK(g->affine_in_range(a.l) && g->affine_is_on_curve(a.l));
        /* Jacobian (x, y, 1) of the generator: Z = the Montgomery one of Fq */
        memset(&j, 0, sizeof j);
        memcpy(j.l, a.l, g->affine_bytes);
        const uint64_t *one = rows[i].nq == 4 ? cz_bn254_fq_ONE.l : cz_bls12_381_fq_ONE.l;
        memcpy(j.l + 2 * g->degree * rows[i].nq, one, 8 * (size_t)rows[i].nq);
        CHECK(g->is_on_curve(j.l) && g->in_subgroup(j.l));
        g->to_affine(back.l, j.l);
        CHECK(memcmp(back.l, a.l, g->affine_bytes) == 0);
        /* off the curve, and a coordinate >= q */
        a.l[0] ^= 1;
        CHECK(g->affine_in_range(a.l) && !g->affine_is_on_curve(a.l));
        memset(&a, 0, sizeof a);
        CHECK(g->affine_in_range(a.l) && g->affine_is_on_curve(a.l)); /* infinity */
        memcpy(a.l + rows[i].nq * (2 * g->degree - 1), rows[i].nq == 4 ? cz_bn254_fq_modulus : cz_bls12_381_fq_modulus,
               8 * (size_t)rows[i].nq);
        CHECK(!g->affine_in_range(a.l));
    }
    static const cz_curve bad[] = {CZ_CURVE_NONE, (cz_curve)(CZ_CURVE_COUNT + 1), (cz_curve)99, (cz_curve)-1};
    for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) CHECK(cz_group_g1(bad[i]) == NULL && cz_group_g2(bad[i]) == NULL);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_ec");
    test_group_tables();
    mpz_inits(RC.q, RC.r, RC.R, RC.Rinv, RC.Rr, RC.h, RC.lambda, NULL);
    rf_init(&RC.b);

    for (size_t gi = 0; gi < CZ_ARRAY_LEN(GROUPS); gi++) {
        const group_t *g = &GROUPS[gi];
        long before = cz_test_failed;
        rc_setup(g);
        test_constants(g);
        test_group_laws(g, &rng, scale_iters(g->deg == 2 ? 12 : 24));
        test_scalar_mul(g, &rng, scale_iters(g->deg == 2 ? 6 : 12));
        test_batch_to_affine(g, &rng);
        test_subgroup(g, &rng, scale_iters(g->deg == 2 ? 10 : 20));
        test_serde(g, &rng, scale_iters(g->deg == 2 ? 20 : 40));
        test_fuzz(g, &rng, scale_iters(g->deg == 2 ? 2000 : 4000));
        test_snarkjs_lem(g);
        printf("  %-14s %s\n", g->name, cz_test_failed == before ? "ok" : "FAILED");
    }

    rf_clear(&RC.b);
    mpz_clears(RC.q, RC.r, RC.R, RC.Rinv, RC.Rr, RC.h, RC.lambda, NULL);
    return cz_test_finish("test_ec");
}
