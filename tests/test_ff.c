/*
 * ff tests: every operation of the four prime fields against GMP on random
 * operands and edge values (0, 1, p-1, 2^k and 2^k-1 boundaries), constants
 * re-derived with GMP, decoders rejecting inputs >= p, and (asm builds) the
 * x86-64 kernels against the portable C products. The product kernels are
 * also run on raw Montgomery representations chosen to stress carries (all
 * ones limbs, values just below p and below limb boundaries, R mod p and
 * its neighbours), every pair of them, against GMP and the portable C.
 */
#include <gmp.h>
#include <string.h>

#include "ff/ff.h"
#include "test_util.h"

/* A field seen through function pointers so one test body covers all four. */
typedef struct {
    const char *name;
    int n;    /* limbs */
    int bits; /* bit length of p */
    const uint64_t *p;
    uint64_t pinv;
    const uint64_t *one; /* Montgomery one = R mod p */
    const uint64_t *r2;
    int two_adicity, nqr;
    const uint64_t *root; /* Montgomery form */
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*neg)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*half)(void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*mul_portable)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    cz_status (*inv)(void *, const void *);
    void (*inv_ct)(void *, const void *);
    void (*batch_inv)(void *, const void *, size_t, void *);
    void (*pow)(void *, const void *, const uint64_t *, size_t);
    int (*legendre)(const void *);
    cz_status (*sqrt)(void *, const void *);
    int (*is_lex_largest)(const void *);
    void (*from_canonical)(void *, const uint64_t *);
    void (*to_canonical)(uint64_t *, const void *);
    cz_status (*from_le)(void *, const uint8_t *);
    cz_status (*from_be)(void *, const uint8_t *);
    void (*to_le)(uint8_t *, const void *);
    void (*to_be)(uint8_t *, const void *);
    cz_status (*from_mont_le)(void *, const uint8_t *);
    void (*from_wide)(void *, const uint8_t *, size_t);
    void (*random)(void *, cz_rng *);
    size_t (*to_dec)(char *, size_t, const void *);
    cz_status (*from_dec)(void *, const char *, size_t);
    void (*sqr_portable)(void *, const void *); /* cz_mont_sqr_c */
} field_t;

/* the portable squaring kernel of each field, always compiled */
#define SQR_PORTABLE(F, N)                                                                         \
    static void F##_sqr_portable_(void *r, const void *a)                                          \
    {                                                                                              \
        cz_mont_sqr_c(((F *)r)->l, ((const F *)a)->l, F##_modulus, F##_pinv, N);                   \
    }
SQR_PORTABLE(cz_bls12_381_fq, 6)
SQR_PORTABLE(cz_bls12_381_fr, 4)
SQR_PORTABLE(cz_bn254_fq, 4)
SQR_PORTABLE(cz_bn254_fr, 4)

#define FIELD(F, C, N)                                                                             \
    {                                                                                              \
        #F, N, C##_BITS, F##_modulus, C##_PINV, F##_ONE.l, F##_r2_limbs, C##_S, C##_NQR,           \
            (const uint64_t[])C##_ROOT, (void (*)(void *, const void *, const void *))F##_add,     \
            (void (*)(void *, const void *, const void *))F##_sub,                                 \
            (void (*)(void *, const void *))F##_neg, (void (*)(void *, const void *))F##_dbl,      \
            (void (*)(void *, const void *))F##_half,                                              \
            (void (*)(void *, const void *, const void *))F##_mul,                                 \
            (void (*)(void *, const void *, const void *))F##_mul_portable,                        \
            (void (*)(void *, const void *))F##_sqr, (cz_status(*)(void *, const void *))F##_inv,  \
            (void (*)(void *, const void *))F##_inv_ct,                                            \
            (void (*)(void *, const void *, size_t, void *))F##_batch_inv,                         \
            (void (*)(void *, const void *, const uint64_t *, size_t))F##_pow,                     \
            (int (*)(const void *))F##_legendre, (cz_status(*)(void *, const void *))F##_sqrt,     \
            (int (*)(const void *))F##_is_lex_largest,                                             \
            (void (*)(void *, const uint64_t *))F##_from_canonical,                                \
            (void (*)(uint64_t *, const void *))F##_to_canonical,                                  \
            (cz_status(*)(void *, const uint8_t *))F##_from_bytes_le,                              \
            (cz_status(*)(void *, const uint8_t *))F##_from_bytes_be,                              \
            (void (*)(uint8_t *, const void *))F##_to_bytes_le,                                    \
            (void (*)(uint8_t *, const void *))F##_to_bytes_be,                                    \
            (cz_status(*)(void *, const uint8_t *))F##_from_mont_bytes_le,                         \
            (void (*)(void *, const uint8_t *, size_t))F##_from_bytes_le_wide,                     \
            (void (*)(void *, cz_rng *))F##_random,                                                \
            (size_t(*)(char *, size_t, const void *))F##_to_dec,                                   \
            (cz_status(*)(void *, const char *, size_t))F##_from_dec, F##_sqr_portable_            \
    }

static const field_t FIELDS[] = {
    FIELD(cz_bls12_381_fq, CZ_BLS12_381_FQ, 6),
    FIELD(cz_bls12_381_fr, CZ_BLS12_381_FR, 4),
    FIELD(cz_bn254_fq, CZ_BN254_FQ, 4),
    FIELD(cz_bn254_fr, CZ_BN254_FR, 4),
};

typedef struct {
    uint64_t l[6];
} el;

static mpz_t P, R, RINV, T0, T1, T2;

static void limbs_to_mpz(mpz_t z, const uint64_t *l, int n) { mpz_import(z, (size_t)n, -1, 8, 0, 0, l); }

static void mpz_to_limbs(uint64_t *l, const mpz_t z, int n)
{
    memset(l, 0, (size_t)n * 8);
    size_t cnt = 0;
    mpz_export(l, &cnt, -1, 8, 0, 0, z);
}

/* the value an element represents: canonical = mont * R^-1 mod p, via GMP */
static void el_value(mpz_t out, const field_t *f, const el *a)
{
    limbs_to_mpz(out, a->l, f->n);
    mpz_mul(out, out, RINV);
    mpz_mod(out, out, P);
}

/* element of value v (0 <= v < p), via GMP: mont = v*R mod p */
static void el_from_mpz(el *a, const field_t *f, const mpz_t v)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, v, R);
    mpz_mod(t, t, P);
    memset(a, 0, sizeof *a);
    mpz_to_limbs(a->l, t, f->n);
    mpz_clear(t);
}

static int el_equals_mpz(const field_t *f, const el *a, const mpz_t v)
{
    /* also require full reduction of the representation */
    mpz_t rep;
    mpz_init(rep);
    limbs_to_mpz(rep, a->l, f->n);
    int ok = mpz_cmp(rep, P) < 0;
    el_value(rep, f, a);
    ok = ok && mpz_cmp(rep, v) == 0;
    mpz_clear(rep);
    return ok;
}

static void check_slow_ops(const field_t *f, const mpz_t va, cz_rng *rng);

/* Edge values: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, 2^k and 2^k-1 (mod p). */
static int edge_values(const field_t *f, mpz_t *out, int cap)
{
    int k = 0;
    mpz_set_ui(out[k++], 0);
    mpz_set_ui(out[k++], 1);
    mpz_set_ui(out[k++], 2);
    mpz_sub_ui(out[k++], P, 1);
    mpz_sub_ui(out[k++], P, 2);
    mpz_sub_ui(out[k], P, 1);
    mpz_fdiv_q_2exp(out[k], out[k], 1);
    k++;
    mpz_add_ui(out[k], P, 1);
    mpz_fdiv_q_2exp(out[k], out[k], 1);
    k++;
    for (int b = 1; b < f->bits + 2 && k + 2 <= cap; b += (b < 8 || b % 64 >= 62 || b % 64 <= 1) ? 1 : 7) {
        mpz_set_ui(out[k], 1);
        mpz_mul_2exp(out[k], out[k], (mp_bitcnt_t)b);
        mpz_mod(out[k], out[k], P);
        k++;
        mpz_set_ui(out[k], 1);
        mpz_mul_2exp(out[k], out[k], (mp_bitcnt_t)b);
        mpz_sub_ui(out[k], out[k], 1);
        mpz_mod(out[k], out[k], P);
        k++;
    }
    return k;
}

static void test_constants(const field_t *f)
{
    /* R = 2^(64n) mod p, R2 = R^2, pinv = -p^-1 mod 2^64, root has order 2^S */
    mpz_t t, u;
    mpz_inits(t, u, NULL);
    limbs_to_mpz(t, f->one, f->n);
    CHECK(mpz_cmp(t, R) == 0);
    mpz_mul(u, R, R);
    mpz_mod(u, u, P);
    limbs_to_mpz(t, f->r2, f->n);
    CHECK(mpz_cmp(t, u) == 0);
    CHECK((uint64_t)(f->pinv * f->p[0]) == (uint64_t)-1);
    CHECK(mpz_sizeinbase(P, 2) == (size_t)f->bits);
    CHECK(mpz_probab_prime_p(P, 30) > 0);
    /* 2-adicity */
    mpz_sub_ui(t, P, 1);
    CHECK((int)mpz_scan1(t, 0) == f->two_adicity);
    /* nqr is the smallest non-residue >= 2 */
    for (int q = 2; q < f->nqr; q++) {
        mpz_set_ui(u, (unsigned long)q);
        CHECK(mpz_legendre(u, P) == 1);
    }
    mpz_set_ui(u, (unsigned long)f->nqr);
    CHECK(mpz_legendre(u, P) == -1);
    /* root = nqr^((p-1)/2^S), given in Montgomery form */
    el root;
    memcpy(root.l, f->root, 8 * (size_t)f->n);
    mpz_fdiv_q_2exp(t, t, (mp_bitcnt_t)f->two_adicity);
    mpz_powm(u, u, t, P);
    CHECK(el_equals_mpz(f, &root, u));
    mpz_clears(t, u, NULL);
}

/* sqr (the build's path, r given) against the portable squaring, the
 * portable product a*a and sqr in place */
static void check_sqr_paths(const field_t *f, const el *a, const el *r)
{
    size_t sz = 8 * (size_t)f->n;
    el s, m;
    f->sqr_portable(&s, a);
    CHECK_MSG(memcmp(r->l, s.l, sz) == 0, "%s sqr vs portable sqr", f->name);
    f->mul_portable(&m, a, a);
    CHECK_MSG(memcmp(s.l, m.l, sz) == 0, "%s portable sqr vs portable mul", f->name);
    s = *a;
    f->sqr(&s, &s);
    CHECK_MSG(memcmp(r->l, s.l, sz) == 0, "%s sqr in place", f->name);
}

static void check_binary_ops(const field_t *f, const mpz_t va, const mpz_t vb)
{
    el a, b, r, r2;
    el_from_mpz(&a, f, va);
    el_from_mpz(&b, f, vb);

    f->add(&r, &a, &b);
    mpz_add(T0, va, vb);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s add", f->name);

    f->sub(&r, &a, &b);
    mpz_sub(T0, va, vb);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s sub", f->name);

    f->mul(&r, &a, &b);
    mpz_mul(T0, va, vb);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s mul", f->name);
    f->mul_portable(&r2, &a, &b);
    CHECK_MSG(memcmp(r.l, r2.l, 8 * (size_t)f->n) == 0, "%s mul vs portable", f->name);

    /* aliasing: r = a; r = r * b, and r = b; r = a * r */
    r = a;
    f->mul(&r, &r, &b);
    CHECK(el_equals_mpz(f, &r, T0));
    r = b;
    f->mul(&r, &a, &r);
    CHECK(el_equals_mpz(f, &r, T0));
}

/*
 * Raw Montgomery representations (limbs < p) that stress the carry chains of
 * the product kernels: limbs all ones or zero below a top limb under p's,
 * p - 1 - 2^k, 2^(64k) - 1 and 2^(64k), R mod p (the Montgomery one) and
 * R mod p +- 1, R^2 mod p, (2^(64n) - 1) mod p, p - (R mod p), and values
 * just below p/2, p/3, 2p/3. Returns the count written to out (cap >= 64).
 */
static void push_rep(const field_t *f, el *out, int *k, int cap, mpz_t z)
{
    mpz_mod(z, z, P);
    if (*k >= cap) return;
    memset(&out[*k], 0, sizeof out[*k]);
    mpz_to_limbs(out[*k].l, z, f->n);
    (*k)++;
}

static int edge_reps(const field_t *f, el *out, int cap)
{
    int n = f->n, k = 0;
    mpz_t z;
    mpz_init(z);
    /* lower limbs patterned, top limb just under p's (or half of it) */
    static const uint64_t pat[4] = {~(uint64_t)0, 0, 0x8000000000000000u, 0x7fffffffffffffffu};
    const uint64_t top = f->p[n - 1];
    for (int v = 0; v < 5; v++) {
        el e;
        for (int i = 0; i < n - 1; i++) e.l[i] = v < 4 ? pat[v] : (i & 1) ? ~(uint64_t)0 : 0;
        const uint64_t tops[3] = {top - 1, top - 2, top / 2};
        for (int t = 0; t < 3; t++) {
            e.l[n - 1] = tops[t];
            limbs_to_mpz(z, e.l, n);
            push_rep(f, out, &k, cap, z);
        }
    }
    for (int b = 0; b < 64 * n; b += (b % 64 == 0 || b % 64 == 63) ? 1 : 21) {
        /* p - 1 - 2^b, 2^b - 1, 2^b (mod p) */
        mpz_set_ui(z, 0);
        mpz_setbit(z, (mp_bitcnt_t)b);
        mpz_sub(z, P, z);
        mpz_sub_ui(z, z, 1);
        push_rep(f, out, &k, cap, z);
        mpz_set_ui(z, 0);
        mpz_setbit(z, (mp_bitcnt_t)b);
        mpz_sub_ui(z, z, 1);
        push_rep(f, out, &k, cap, z);
        mpz_set_ui(z, 0);
        mpz_setbit(z, (mp_bitcnt_t)b);
        push_rep(f, out, &k, cap, z);
    }
    mpz_set(z, R); /* the Montgomery one and its neighbours */
    push_rep(f, out, &k, cap, z);
    mpz_add_ui(z, R, 1);
    push_rep(f, out, &k, cap, z);
    mpz_sub_ui(z, R, 1);
    push_rep(f, out, &k, cap, z);
    mpz_mul(z, R, R);
    push_rep(f, out, &k, cap, z);
    mpz_sub(z, P, R);
    push_rep(f, out, &k, cap, z);
    mpz_set_ui(z, 0);
    mpz_setbit(z, (mp_bitcnt_t)(64 * n));
    mpz_sub_ui(z, z, 1);
    push_rep(f, out, &k, cap, z);
    mpz_fdiv_q_ui(z, P, 2);
    push_rep(f, out, &k, cap, z);
    mpz_fdiv_q_ui(z, P, 3);
    push_rep(f, out, &k, cap, z);
    mpz_mul_ui(z, P, 2);
    mpz_fdiv_q_ui(z, z, 3);
    push_rep(f, out, &k, cap, z);
    mpz_sub_ui(z, P, 1);
    push_rep(f, out, &k, cap, z);
    mpz_set_ui(z, 1);
    push_rep(f, out, &k, cap, z);
    mpz_set_ui(z, 0);
    push_rep(f, out, &k, cap, z);
    mpz_clear(z);
    return k;
}

/* Every pair of edge representations: mul and sqr against GMP (rep_a *
 * rep_b / R mod p) and the portable kernels; inv of each against GMP. */
static void test_edge_reps(const field_t *f, cz_rng *rng, int *count)
{
    el reps[200];
    int nr = edge_reps(f, reps, 200);
    *count = nr;
    size_t sz = 8 * (size_t)f->n;
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    for (int i = 0; i < nr; i++) {
        limbs_to_mpz(x, reps[i].l, f->n);
        CHECK(mpz_cmp(x, P) < 0);
        for (int j = 0; j < nr; j++) {
            el r, c;
            limbs_to_mpz(y, reps[j].l, f->n);
            mpz_mul(T0, x, y);
            mpz_mul(T0, T0, RINV);
            mpz_mod(T0, T0, P);
            f->mul(&r, &reps[i], &reps[j]);
            limbs_to_mpz(T1, r.l, f->n);
            CHECK_MSG(mpz_cmp(T1, T0) == 0, "%s mul of edge reps %d, %d", f->name, i, j);
            f->mul_portable(&c, &reps[i], &reps[j]);
            CHECK_MSG(memcmp(r.l, c.l, sz) == 0, "%s mul vs portable, edge reps %d, %d", f->name, i, j);
        }
        el r;
        f->sqr(&r, &reps[i]);
        mpz_mul(T0, x, x);
        mpz_mul(T0, T0, RINV);
        mpz_mod(T0, T0, P);
        limbs_to_mpz(T1, r.l, f->n);
        CHECK_MSG(mpz_cmp(T1, T0) == 0, "%s sqr of edge rep %d", f->name, i);
        check_sqr_paths(f, &reps[i], &r);
        /* inverse (and the rest of the slow operations) of the value */
        el_value(T2, f, &reps[i]);
        mpz_set(y, T2);
        check_slow_ops(f, y, rng);
    }
    mpz_clears(x, y, NULL);
}

static void check_unary_ops(const field_t *f, const mpz_t va)
{
    el a, r;
    el_from_mpz(&a, f, va);

    f->neg(&r, &a);
    mpz_neg(T0, va);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s neg", f->name);

    f->dbl(&r, &a);
    mpz_mul_2exp(T0, va, 1);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s dbl", f->name);

    f->half(&r, &a);
    mpz_set_ui(T1, 2);
    mpz_invert(T1, T1, P);
    mpz_mul(T0, va, T1);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s half", f->name);

    f->sqr(&r, &a);
    mpz_mul(T0, va, va);
    mpz_mod(T0, T0, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s sqr", f->name);
    check_sqr_paths(f, &a, &r);

    /* canonical conversions */
    uint64_t c[6] = {0};
    f->to_canonical(c, &a);
    limbs_to_mpz(T0, c, f->n);
    CHECK_MSG(mpz_cmp(T0, va) == 0, "%s to_canonical", f->name);
    f->from_canonical(&r, c);
    CHECK(memcmp(r.l, a.l, 8 * (size_t)f->n) == 0);

    /* bytes round trips */
    uint8_t le[48], be[48];
    f->to_le(le, &a);
    f->to_be(be, &a);
    int nb = 8 * f->n, rev_ok = 1;
    for (int i = 0; i < nb; i++) rev_ok &= le[i] == be[nb - 1 - i];
    CHECK(rev_ok);
    mpz_import(T0, (size_t)nb, -1, 1, 0, 0, le);
    CHECK_MSG(mpz_cmp(T0, va) == 0, "%s to_bytes_le", f->name);
    memset(&r, 0, sizeof r);
    CHECK(f->from_le(&r, le) == CZ_OK && memcmp(r.l, a.l, 8 * (size_t)f->n) == 0);
    memset(&r, 0, sizeof r);
    CHECK(f->from_be(&r, be) == CZ_OK && memcmp(r.l, a.l, 8 * (size_t)f->n) == 0);

    /* decimal round trip */
    char dec[CZ_FP_DEC_MAX], *gdec = mpz_get_str(NULL, 10, va);
    size_t dl = f->to_dec(dec, sizeof dec, &a);
    CHECK_MSG(dl == strlen(gdec) && strcmp(dec, gdec) == 0, "%s to_dec %s vs %s", f->name, dec, gdec);
    memset(&r, 0, sizeof r);
    CHECK(f->from_dec(&r, gdec, strlen(gdec)) == CZ_OK && memcmp(r.l, a.l, 8 * (size_t)f->n) == 0);
    free(gdec);
}

static void check_slow_ops(const field_t *f, const mpz_t va, cz_rng *rng)
{
    el a, r, r2;
    el_from_mpz(&a, f, va);

    cz_status st = f->inv(&r, &a);
    if (mpz_sgn(va) == 0) {
        CHECK(st == CZ_ERR_DIV_BY_ZERO);
    } else {
        mpz_invert(T0, va, P);
        CHECK_MSG(st == CZ_OK && el_equals_mpz(f, &r, T0), "%s inv", f->name);
        /* in place, and back again */
        r2 = a;
        CHECK(f->inv(&r2, &r2) == CZ_OK && memcmp(r2.l, r.l, 8 * (size_t)f->n) == 0);
        CHECK(f->inv(&r2, &r) == CZ_OK && memcmp(r2.l, a.l, 8 * (size_t)f->n) == 0);
        f->inv_ct(&r2, &a);
        CHECK_MSG(el_equals_mpz(f, &r2, T0), "%s inv_ct", f->name);
    }

    /* pow with a random exponent of 1..2n limbs */
    uint64_t e[12];
    size_t ne = 1 + (size_t)(cz_rng_u64(rng) % (2 * (uint64_t)f->n));
    for (size_t i = 0; i < ne; i++) e[i] = cz_rng_u64(rng);
    f->pow(&r, &a, e, ne);
    limbs_to_mpz(T1, e, (int)ne);
    mpz_powm(T0, va, T1, P);
    CHECK_MSG(el_equals_mpz(f, &r, T0), "%s pow", f->name);

    int leg = f->legendre(&a);
    CHECK_MSG(leg == mpz_legendre(va, P), "%s legendre", f->name);
    st = f->sqrt(&r, &a);
    if (leg >= 0) {
        f->sqr(&r2, &r);
        CHECK_MSG(st == CZ_OK && memcmp(r2.l, a.l, 8 * (size_t)f->n) == 0, "%s sqrt", f->name);
    } else {
        CHECK_MSG(st == CZ_ERR_NOT_SQUARE, "%s sqrt of non-residue", f->name);
    }

    mpz_sub_ui(T0, P, 1);
    mpz_fdiv_q_2exp(T0, T0, 1);
    CHECK(f->is_lex_largest(&a) == (mpz_cmp(va, T0) > 0));
}

static void random_mpz(mpz_t z, cz_rng *rng, const field_t *f)
{
    /* mix of uniform values and values with long runs of 0/1 bits */
    uint64_t l[6];
    int mode = (int)(cz_rng_u64(rng) % 8);
    for (int i = 0; i < f->n; i++) {
        l[i] = cz_rng_u64(rng);
        if (mode == 0) l[i] = (cz_rng_u64(rng) & 1) ? ~(uint64_t)0 : 0;
        if (mode == 1 && i > 0) l[i] = 0;
    }
    limbs_to_mpz(z, l, f->n);
    mpz_mod(z, z, P);
}

static void test_decoders(const field_t *f)
{
    /* values >= p are rejected by every decoder: p, p+1, 2^(8n)-1, p + 2^k */
    int nb = 8 * f->n;
    mpz_t bad[4];
    for (int i = 0; i < 4; i++) mpz_init(bad[i]);
    mpz_set(bad[0], P);
    mpz_add_ui(bad[1], P, 1);
    mpz_set_ui(bad[2], 1);
    mpz_mul_2exp(bad[2], bad[2], (mp_bitcnt_t)(8 * nb));
    mpz_sub_ui(bad[2], bad[2], 1);
    mpz_set_ui(bad[3], 1);
    mpz_mul_2exp(bad[3], bad[3], (mp_bitcnt_t)(f->bits - 1));
    mpz_add(bad[3], bad[3], P);
    for (int i = 0; i < 4; i++) {
        uint8_t le[48] = {0}, be[48];
        size_t cnt = 0;
        mpz_export(le, &cnt, -1, 1, 0, 0, bad[i]);
        for (int k = 0; k < nb; k++) be[k] = le[nb - 1 - k];
        el r = {{0}};
        CHECK(f->from_le(&r, le) == CZ_ERR_RANGE);
        CHECK(f->from_be(&r, be) == CZ_ERR_RANGE);
        CHECK(f->from_mont_le(&r, le) == CZ_ERR_RANGE);
        char *s = mpz_get_str(NULL, 10, bad[i]);
        CHECK(f->from_dec(&r, s, strlen(s)) == CZ_ERR_RANGE);
        free(s);
        mpz_clear(bad[i]);
    }
    el r;
    CHECK(f->from_dec(&r, "", 0) == CZ_ERR_ENCODING);
    CHECK(f->from_dec(&r, "12a", 3) == CZ_ERR_ENCODING);
    CHECK(f->from_dec(&r, "-1", 2) == CZ_ERR_ENCODING);
    /* 200 nines overflows the accumulator */
    char big[200];
    memset(big, '9', sizeof big);
    CHECK(f->from_dec(&r, big, sizeof big) == CZ_ERR_RANGE);
    CHECK(f->from_dec(&r, "0", 1) == CZ_OK && mpz_sgn(P) > 0);
}

static void test_wide_and_random(const field_t *f, cz_rng *rng)
{
    for (int it = 0; it < 200; it++) {
        uint8_t buf[100];
        size_t len = (size_t)(cz_rng_u64(rng) % sizeof buf);
        cz_rng_bytes(rng, buf, len);
        el r;
        f->from_wide(&r, buf, len);
        if (len)
            mpz_import(T0, len, -1, 1, 0, 0, buf);
        else
            mpz_set_ui(T0, 0);
        mpz_mod(T0, T0, P);
        CHECK_MSG(el_equals_mpz(f, &r, T0), "%s from_bytes_le_wide len %zu", f->name, len);
    }
    /* random(): fully reduced; top bit pattern not stuck */
    int hi = 0;
    for (int it = 0; it < 1000; it++) {
        el r;
        f->random(&r, rng);
        limbs_to_mpz(T0, r.l, f->n);
        CHECK(mpz_cmp(T0, P) < 0);
        mpz_fdiv_q_2exp(T1, P, 1);
        hi += mpz_cmp(T0, T1) > 0;
    }
    CHECK(hi > 300 && hi < 700);
}

static void test_batch_inv(const field_t *f, cz_rng *rng)
{
    /* arrays of the field's own type: stride 8n bytes */
    enum { N = 67 };
    size_t sz = 8 * (size_t)f->n;
    uint64_t in[N * 6], out[N * 6], scratch[N * 6], again[N * 6];
    for (int i = 0; i < N; i++) {
        f->random(in + i * f->n, rng);
        if (i % 9 == 4) memset(in + i * f->n, 0, sz);
    }
    f->batch_inv(out, in, N, scratch);
    for (int i = 0; i < N; i++) {
        el a, b;
        memcpy(a.l, in + i * f->n, sz);
        memcpy(b.l, out + i * f->n, sz);
        el_value(T0, f, &a);
        if (mpz_sgn(T0) == 0) {
            CHECK(cz_limbs_is_zero(b.l, f->n));
        } else {
            mpz_invert(T1, T0, P);
            CHECK(el_equals_mpz(f, &b, T1));
        }
    }
    /* in place */
    memcpy(again, in, N * sz);
    f->batch_inv(again, again, N, scratch);
    CHECK(memcmp(again, out, N * sz) == 0);
}

/*
 * The lazy-reduction kernels of ff/mont.h used by the Fq2 product, on all
 * pairs of edge representations and random operands, against GMP:
 *   - cz_mont_mul_wide (this build's path) and cz_mont_mul_wide_c: a*b;
 *   - cz_mont_redc_wide / _c: t R^-1 mod p, fully reduced, for t = a*b and
 *     for t near the bound p R (p R - 1, p R - R, (p - 1) R + small);
 *   - cz_mont_mul on unreduced operands a + b < 2p (cz_mont_add_nr), for
 *     the fields with 4p < R (not BLS12-381 Fr), also through the portable
 *     kernel.
 */
static void check_lazy_pair(const field_t *f, const uint64_t *x, const uint64_t *y, mpz_t xv, mpz_t yv, int lazy_ok)
{
    int n = f->n;
    uint64_t t[12], tc[12], r[6], rc[6];
    mpz_mul(T0, xv, yv);
    cz_mont_mul_wide(t, x, y, n);
    cz_mont_mul_wide_c(tc, x, y, n);
    limbs_to_mpz(T1, t, 2 * n);
    CHECK_MSG(mpz_cmp(T0, T1) == 0, "%s mul_wide", f->name);
    CHECK_MSG(memcmp(t, tc, 16 * (size_t)n) == 0, "%s mul_wide vs C", f->name);
    if (mpz_cmp(xv, P) < 0 && mpz_cmp(yv, P) < 0) {
        cz_mont_redc_wide(r, t, f->p, f->pinv, n);
        cz_mont_redc_wide_c(rc, t, f->p, f->pinv, n);
        mpz_mul(T1, T0, RINV);
        mpz_mod(T1, T1, P);
        limbs_to_mpz(T2, r, n);
        CHECK_MSG(mpz_cmp(T1, T2) == 0, "%s redc_wide", f->name);
        CHECK_MSG(memcmp(r, rc, 8 * (size_t)n) == 0, "%s redc_wide vs C", f->name);
    }
    if (lazy_ok) {
        /* x, y < 2p here: Montgomery product of unreduced operands */
        cz_mont_mul(r, x, y, f->p, f->pinv, n);
        cz_mont_mul_c(rc, x, y, f->p, f->pinv, n);
        mpz_mul(T1, T0, RINV);
        mpz_mod(T1, T1, P);
        limbs_to_mpz(T2, r, n);
        CHECK_MSG(mpz_cmp(T1, T2) == 0, "%s mul of operands < 2p", f->name);
        CHECK_MSG(memcmp(r, rc, 8 * (size_t)n) == 0, "%s mul of operands < 2p vs C", f->name);
    }
}

static void test_lazy(const field_t *f, cz_rng *rng)
{
    int n = f->n;
    el reps[200];
    int nr = edge_reps(f, reps, 200);
    mpz_t x, y, fourp;
    mpz_inits(x, y, fourp, NULL);
    mpz_mul_ui(fourp, P, 4);
    mpz_set_ui(T0, 1);
    mpz_mul_2exp(T0, T0, (mp_bitcnt_t)(64 * n));
    int lazy_ok = mpz_cmp(fourp, T0) < 0; /* 4p < R */
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nr; j++) {
            limbs_to_mpz(x, reps[i].l, n);
            limbs_to_mpz(y, reps[j].l, n);
            check_lazy_pair(f, reps[i].l, reps[j].l, x, y, 0);
            if (lazy_ok && (i % 3 == 0 || j % 3 == 0)) {
                /* unreduced sums x + y' in [0, 2p) as both operands */
                uint64_t s[6], u[6];
                int k = (i + j + 1) % nr;
                cz_mont_add_nr(s, reps[i].l, reps[j].l, n);
                cz_mont_add_nr(u, reps[j].l, reps[k].l, n);
                limbs_to_mpz(x, s, n);
                limbs_to_mpz(y, u, n);
                check_lazy_pair(f, s, u, x, y, 1);
            }
        }
    /* redc near its bound t < p R */
    for (int v = 0; v < 64; v++) {
        uint64_t t[12], r[6], rc[6];
        mpz_set_ui(T0, 1);
        mpz_mul_2exp(T0, T0, (mp_bitcnt_t)(64 * n)); /* R */
        mpz_mul(T1, P, T0);                          /* p R */
        if (v == 0) mpz_sub_ui(T1, T1, 1);
        else if (v == 1) mpz_sub(T1, T1, T0);
        else if (v == 2) mpz_set_ui(T1, 0);
        else if (v < 32) mpz_sub_ui(T1, T1, (unsigned long)cz_rng_u64(rng) | 1);
        else { /* random in [0, p R) */
            uint64_t w[12];
            for (int i = 0; i < 2 * n; i++) w[i] = cz_rng_u64(rng);
            limbs_to_mpz(T2, w, 2 * n);
            mpz_mod(T1, T2, T1);
        }
        memset(t, 0, sizeof t);
        size_t cnt = 0;
        mpz_export(t, &cnt, -1, 8, 0, 0, T1);
        cz_mont_redc_wide(r, t, f->p, f->pinv, n);
        cz_mont_redc_wide_c(rc, t, f->p, f->pinv, n);
        mpz_mul(T2, T1, RINV);
        mpz_mod(T2, T2, P);
        limbs_to_mpz(T1, r, n);
        CHECK_MSG(mpz_cmp(T1, T2) == 0, "%s redc_wide near p R (%d)", f->name, v);
        CHECK_MSG(memcmp(r, rc, 8 * (size_t)n) == 0, "%s redc_wide vs C near p R (%d)", f->name, v);
    }
    /* random operands */
    long iters = cz_test_iters(20000);
    for (long it = 0; it < iters; it++) {
        el a, b, c;
        f->random(&a, rng);
        f->random(&b, rng);
        f->random(&c, rng);
        limbs_to_mpz(x, a.l, n);
        limbs_to_mpz(y, b.l, n);
        check_lazy_pair(f, a.l, b.l, x, y, 0);
        if (lazy_ok) {
            uint64_t s[6];
            cz_mont_add_nr(s, a.l, c.l, n);
            limbs_to_mpz(x, s, n);
            check_lazy_pair(f, s, b.l, x, y, 1);
        }
    }
    mpz_clears(x, y, fourp, NULL);
}

/* The field tables of ff/ff.h: each curve's Fq and Fr with the numbers and
 * functions of the typed field; NULL for a value that is no curve. */
static void test_field_tables(void)
{
#define CZ_TEST_FIELD_ROW_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR)                                        \
    {CZ_CURVE_##ID, cz_field_fq(CZ_CURVE_##ID), NQ, SYM##_fq_modulus, SYM##_fq_pinv, SYM##_fq_r2_limbs},              \
        {CZ_CURVE_##ID, cz_field_fr(CZ_CURVE_##ID), NR, SYM##_fr_modulus, SYM##_fr_pinv, SYM##_fr_r2_limbs},
    const struct {
        cz_curve c;
        const cz_field *f;
        int limbs;
        const uint64_t *p;
        uint64_t pinv;
        const uint64_t *r2;
    } rows[] = {CZ_CURVE_LIST(CZ_TEST_FIELD_ROW_)};
#undef CZ_TEST_FIELD_ROW_
    CHECK(CZ_ARRAY_LEN(rows) == 2 * CZ_CURVE_COUNT);
    for (size_t i = 0; i < CZ_ARRAY_LEN(rows); i++) {
        const cz_field *f = rows[i].f;
        CHECK(f != NULL);
        if (!f) continue;
        CHECK(f->limbs == rows[i].limbs && f->bytes == 8 * (size_t)f->limbs && f->pinv == rows[i].pinv);
        CHECK(cz_limbs_eq(f->modulus, rows[i].p, f->limbs) && cz_limbs_eq(f->r2, rows[i].r2, f->limbs));
        /* decimal round trip, the range of from_dec and from_bytes_le */
        uint64_t v[6], w[6];
        char buf[CZ_FP_DEC_MAX];
        CHECK(f->from_dec(v, "123456789012345678901234567890", 30) == CZ_OK);
        CHECK(f->to_dec(buf, sizeof buf, v) == 30 && !strcmp(buf, "123456789012345678901234567890"));
        uint8_t le[48];
        for (int k = 0; k < 8 * f->limbs; k++) le[k] = (uint8_t)(f->modulus[k / 8] >> (8 * (k % 8)));
        CHECK(f->from_bytes_le(w, le) == CZ_ERR_RANGE);
        le[0]--; /* p - 1 */
        CHECK(f->from_bytes_le(w, le) == CZ_OK);
    }
    CHECK(cz_field_fq(CZ_CURVE_BN254)->limbs == 4 && cz_field_fq(CZ_CURVE_BLS12_381)->limbs == 6);
    static const cz_curve bad[] = {CZ_CURVE_NONE, (cz_curve)(CZ_CURVE_COUNT + 1), (cz_curve)99, (cz_curve)-1};
    for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) CHECK(cz_field_fq(bad[i]) == NULL && cz_field_fr(bad[i]) == NULL);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_ff");
    test_field_tables();
    mpz_inits(P, R, RINV, T0, T1, T2, NULL);
    long iters = cz_test_iters(100000);
    long slow_iters = cz_test_iters(2000);

    for (size_t fi = 0; fi < CZ_ARRAY_LEN(FIELDS); fi++) {
        const field_t *f = &FIELDS[fi];
        long before = cz_test_failed;
        limbs_to_mpz(P, f->p, f->n);
        mpz_set_ui(R, 1);
        mpz_mul_2exp(R, R, (mp_bitcnt_t)(64 * f->n));
        mpz_mod(R, R, P);
        mpz_invert(RINV, R, P);

        test_constants(f);
        test_decoders(f);
        test_wide_and_random(f, &rng);
        test_batch_inv(f, &rng);
        int nreps = 0;
        test_edge_reps(f, &rng, &nreps);
        test_lazy(f, &rng);

        /* edge values, all pairs */
        mpz_t edges[160];
        for (int i = 0; i < 160; i++) mpz_init(edges[i]);
        int ne = edge_values(f, edges, 160);
        for (int i = 0; i < ne; i++) {
            check_unary_ops(f, edges[i]);
            check_slow_ops(f, edges[i], &rng);
            for (int j = 0; j < ne; j++) check_binary_ops(f, edges[i], edges[j]);
        }
        for (int i = 0; i < 160; i++) mpz_clear(edges[i]);

        /* random operands */
        mpz_t a, b;
        mpz_inits(a, b, NULL);
        for (long it = 0; it < iters; it++) {
            random_mpz(a, &rng, f);
            random_mpz(b, &rng, f);
            check_binary_ops(f, a, b);
            check_unary_ops(f, a);
        }
        for (long it = 0; it < slow_iters; it++) {
            random_mpz(a, &rng, f);
            check_slow_ops(f, a, &rng);
        }
        mpz_clears(a, b, NULL);
        printf("  %-16s %s (%ld random operand pairs, %d edge values, %d edge representations)\n",
               f->name, cz_test_failed == before ? "ok" : "FAILED", iters, ne, nreps);
    }
    mpz_clears(P, R, RINV, T0, T1, T2, NULL);
    return cz_test_finish("test_ff");
}
