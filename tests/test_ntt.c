/*
 * ntt tests, both scalar fields (BN254 Fr, BLS12-381 Fr):
 *  - roots of unity against GMP (5^((r-1)/2^k) mod r for every k <= s), their
 *    orders, the snarkjs values of w[s], the snarkjs coset shift;
 *  - every transform against a naive O(n^2) evaluation/interpolation for all
 *    sizes 2^0..2^10 (random vectors, unit vectors, constants, the snarkjs
 *    coset generator and a random one), natural and bit-reversed variants;
 *  - round trips for 2^11..2^16, 2^18, 2^20 plus O(n) spot checks of single
 *    outputs (Horner) so a wrong-but-invertible transform cannot pass;
 *  - results independent of the thread count; k > s rejected; n = 1; bad
 *    arguments; the blocked bit reversal against the naive permutation;
 *  - the Groth16 "H" convention of snarkjs: evaluations -> iNTT -> coset NTT
 *    with g = w[k+1] give A(g w^i), and A'B' - C' equals (AB - C)(g w^i)
 *    = h(g w^i) * (g^n - 1) with h = (AB - C)/(x^n - 1) by naive division.
 * CZ_TEST_SCALE < 0.5 (sanitizer runs) skips the naive sizes above 2^8 and the
 * round trips above 2^14.
 */
#include <gmp.h>
#include <string.h>

#include "ntt/ntt.h"
#include "test_util.h"

typedef struct {
    uint64_t l[4];
} el; /* both fields: 4 limbs, Montgomery form */

typedef struct {
    const char *name;
    unsigned s;
    const uint64_t *p;
    const char *w_s_hex; /* snarkjs w[s] */
    void (*add)(el *, const el *, const el *);
    void (*sub)(el *, const el *, const el *);
    void (*mul)(el *, const el *, const el *);
    void (*random)(el *, cz_rng *);
    void (*from_u64)(el *, uint64_t);
    void (*to_canonical)(uint64_t *, const el *);
    cz_status (*inv)(el *, const el *);
    int (*is_zero)(const el *);
    cz_status (*root)(el *, unsigned);
    cz_status (*shift)(el *, unsigned);
    cz_status (*create)(void **, unsigned);
    void (*destroy)(void *);
    size_t (*bytes)(const void *);
    size_t (*bytes_for)(unsigned);
    size_t (*scratch)(unsigned, int);
    unsigned (*log_size)(const void *);
    size_t (*size)(const void *);
    void (*omega)(const void *, el *, el *);
    cz_status (*fwd)(const void *, el *, cz_pool *);
    cz_status (*inv_ntt)(const void *, el *, cz_pool *);
    cz_status (*cfwd)(const void *, el *, const el *, cz_pool *);
    cz_status (*cinv)(const void *, el *, const el *, cz_pool *);
    cz_status (*fwd_br)(const void *, el *, cz_pool *);
    cz_status (*inv_br)(const void *, el *, cz_pool *);
    cz_status (*cfwd_br)(const void *, el *, const el *, cz_pool *);
    cz_status (*cinv_br)(const void *, el *, const el *, cz_pool *);
    cz_status (*bitrev)(el *, unsigned, cz_pool *);
} field_t;

/* Thin typed wrappers, one set per field. */
#define WRAP(F, P)                                                                                                     \
    static void P##_t_add(el *r, const el *a, const el *b)                                                             \
    {                                                                                                                  \
        F##_add((F *)r, (const F *)a, (const F *)b);                                                                   \
    }                                                                                                                  \
    static void P##_t_sub(el *r, const el *a, const el *b)                                                             \
    {                                                                                                                  \
        F##_sub((F *)r, (const F *)a, (const F *)b);                                                                   \
    }                                                                                                                  \
    static void P##_t_mul(el *r, const el *a, const el *b)                                                             \
    {                                                                                                                  \
        F##_mul((F *)r, (const F *)a, (const F *)b);                                                                   \
    }                                                                                                                  \
    static void P##_t_random(el *r, cz_rng *g)                                                                         \
    {                                                                                                                  \
        F##_random((F *)r, g);                                                                                         \
    }                                                                                                                  \
    static void P##_t_from_u64(el *r, uint64_t v)                                                                      \
    {                                                                                                                  \
        F##_from_u64((F *)r, v);                                                                                       \
    }                                                                                                                  \
    static void P##_t_to_canonical(uint64_t *r, const el *a)                                                           \
    {                                                                                                                  \
        F##_to_canonical(r, (const F *)a);                                                                             \
    }                                                                                                                  \
    static cz_status P##_t_inv(el *r, const el *a)                                                                     \
    {                                                                                                                  \
        return F##_inv((F *)r, (const F *)a);                                                                          \
    }                                                                                                                  \
    static int P##_t_is_zero(const el *a)                                                                              \
    {                                                                                                                  \
        return F##_is_zero((const F *)a);                                                                              \
    }                                                                                                                  \
    static cz_status P##_t_root(el *r, unsigned k)                                                                     \
    {                                                                                                                  \
        return P##_root_of_unity((F *)r, k);                                                                           \
    }                                                                                                                  \
    static cz_status P##_t_shift(el *r, unsigned k)                                                                    \
    {                                                                                                                  \
        return P##_coset_shift((F *)r, k);                                                                             \
    }                                                                                                                  \
    static cz_status P##_t_create(void **d, unsigned k)                                                                \
    {                                                                                                                  \
        if (!d) return P##_domain_create(NULL, k);                                                                     \
        P##_domain *x = NULL;                                                                                          \
        cz_status st = P##_domain_create(&x, k);                                                                       \
        *d = x;                                                                                                        \
        return st;                                                                                                     \
    }                                                                                                                  \
    static void P##_t_destroy(void *d)                                                                                 \
    {                                                                                                                  \
        P##_domain_free((P##_domain *)d);                                                                              \
    }                                                                                                                  \
    static size_t P##_t_bytes(const void *d)                                                                           \
    {                                                                                                                  \
        return P##_domain_bytes((const P##_domain *)d);                                                                \
    }                                                                                                                  \
    static unsigned P##_t_log_size(const void *d)                                                                      \
    {                                                                                                                  \
        return P##_domain_log_size((const P##_domain *)d);                                                             \
    }                                                                                                                  \
    static size_t P##_t_size(const void *d)                                                                            \
    {                                                                                                                  \
        return P##_domain_size((const P##_domain *)d);                                                                 \
    }                                                                                                                  \
    static void P##_t_omega(const void *d, el *w, el *wi)                                                              \
    {                                                                                                                  \
        P##_domain_omega((const P##_domain *)d, (F *)w, (F *)wi);                                                      \
    }                                                                                                                  \
    static cz_status P##_t_fwd(const void *d, el *a, cz_pool *p)                                                       \
    {                                                                                                                  \
        return P##_forward((const P##_domain *)d, (F *)a, p);                                                          \
    }                                                                                                                  \
    static cz_status P##_t_inv_ntt(const void *d, el *a, cz_pool *p)                                                   \
    {                                                                                                                  \
        return P##_inverse((const P##_domain *)d, (F *)a, p);                                                          \
    }                                                                                                                  \
    static cz_status P##_t_cfwd(const void *d, el *a, const el *g, cz_pool *p)                                         \
    {                                                                                                                  \
        return P##_coset_forward((const P##_domain *)d, (F *)a, (const F *)g, p);                                      \
    }                                                                                                                  \
    static cz_status P##_t_cinv(const void *d, el *a, const el *g, cz_pool *p)                                         \
    {                                                                                                                  \
        return P##_coset_inverse((const P##_domain *)d, (F *)a, (const F *)g, p);                                      \
    }                                                                                                                  \
    static cz_status P##_t_fwd_br(const void *d, el *a, cz_pool *p)                                                    \
    {                                                                                                                  \
        return P##_forward_to_bitrev((const P##_domain *)d, (F *)a, p);                                                \
    }                                                                                                                  \
    static cz_status P##_t_inv_br(const void *d, el *a, cz_pool *p)                                                    \
    {                                                                                                                  \
        return P##_inverse_from_bitrev((const P##_domain *)d, (F *)a, p);                                              \
    }                                                                                                                  \
    static cz_status P##_t_cfwd_br(const void *d, el *a, const el *g, cz_pool *p)                                      \
    {                                                                                                                  \
        return P##_coset_forward_to_bitrev((const P##_domain *)d, (F *)a, (const F *)g, p);                            \
    }                                                                                                                  \
    static cz_status P##_t_cinv_br(const void *d, el *a, const el *g, cz_pool *p)                                      \
    {                                                                                                                  \
        return P##_coset_inverse_from_bitrev((const P##_domain *)d, (F *)a, (const F *)g, p);                          \
    }                                                                                                                  \
    static cz_status P##_t_bitrev(el *a, unsigned k, cz_pool *p)                                                       \
    {                                                                                                                  \
        return P##_bit_reverse((F *)a, k, p);                                                                          \
    }

WRAP(cz_bn254_fr, cz_bn254_ntt)
WRAP(cz_bls12_381_fr, cz_bls12_381_ntt)

#define FIELD(F, P, C, WHEX)                                                                                           \
    {                                                                                                                  \
#F, C##_S, F##_modulus, WHEX, P##_t_add, P##_t_sub, P##_t_mul, P##_t_random, P##_t_from_u64,                   \
            P##_t_to_canonical, P##_t_inv, P##_t_is_zero, P##_t_root, P##_t_shift, P##_t_create, P##_t_destroy,        \
            P##_t_bytes, P##_domain_bytes_for, P##_scratch_bytes, P##_t_log_size, P##_t_size, P##_t_omega, P##_t_fwd,  \
            P##_t_inv_ntt, P##_t_cfwd, P##_t_cinv, P##_t_fwd_br, P##_t_inv_br, P##_t_cfwd_br, P##_t_cinv_br,           \
            P##_t_bitrev                                                                                               \
    }

static const field_t FIELDS[] = {
    FIELD(cz_bn254_fr, cz_bn254_ntt, CZ_BN254_FR, "2a3c09f0a58a7e8500e0a7eb8ef62abc402d111e41112ed49bd61b6e725b19f0"),
    FIELD(cz_bls12_381_fr, cz_bls12_381_ntt, CZ_BLS12_381_FR,
          "212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"),
};

static cz_rng RNG;
static int LARGE_MAX = 20, NAIVE_MAX = 10;

/* ---- helpers ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int el_eq(const el *a, const el *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static int vec_eq(const el *a, const el *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static el el_one(const field_t *f)
{
    el r;
    f->from_u64(&r, 1);
    return r;
}

static void el_pow(const field_t *f, el *r, const el *a, uint64_t e)
{
    el acc = el_one(f), b = *a;
    for (; e; e >>= 1) {
        if (e & 1) f->mul(&acc, &acc, &b);
        f->mul(&b, &b, &b);
    }
    *r = acc;
}

static void mpz_from_el(const field_t *f, mpz_t z, const el *a)
{
    uint64_t c[4];
    f->to_canonical(c, a);
    mpz_import(z, 4, -1, 8, 0, 0, c);
}

/* omega_n = 5^((p-1)/2^k) from GMP, as an element: the oracle's own root */
static el oracle_root(const field_t *f, unsigned k, int inverse)
{
    mpz_t p, e, z;
    mpz_inits(p, e, z, NULL);
    mpz_import(p, 4, -1, 8, 0, 0, f->p);
    mpz_sub_ui(e, p, 1);
    mpz_fdiv_q_2exp(e, e, k);
    mpz_set_ui(z, 5);
    mpz_powm(z, z, e, p);
    if (inverse) mpz_invert(z, z, p);
    uint64_t c[4] = {0};
    mpz_export(c, NULL, -1, 8, 0, 0, z);
    mpz_clears(p, e, z, NULL);
    /* canonical -> Montgomery: multiply by from_u64 pieces (Horner over limbs) */
    el r, t, two64;
    f->from_u64(&r, 0);
    f->from_u64(&two64, 1ULL << 32);
    f->mul(&two64, &two64, &two64);
    for (int i = 3; i >= 0; i--) {
        f->mul(&r, &r, &two64);
        f->from_u64(&t, c[i]);
        f->add(&r, &r, &t);
    }
    return r;
}

/* sum_j a_j x^j (Horner) */
static el horner(const field_t *f, const el *a, size_t n, const el *x)
{
    el acc;
    f->from_u64(&acc, 0);
    for (size_t j = n; j-- > 0;) {
        f->mul(&acc, &acc, x);
        f->add(&acc, &acc, &a[j]);
    }
    return acc;
}

/* out[i] = sum_j a_j (g w^i)^j, times scale (naive O(n^2)) */
static void naive_eval(const field_t *f, el *out, const el *a, size_t n, const el *w, const el *g, const el *scale)
{
    el x = *g;
    for (size_t i = 0; i < n; i++) {
        out[i] = horner(f, a, n, &x);
        if (scale) f->mul(&out[i], &out[i], scale);
        f->mul(&x, &x, w);
    }
}

static void random_vec(const field_t *f, el *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        f->random(&a[i], &RNG);
}

static void bitrev_naive(el *a, unsigned k)
{
    size_t n = (size_t)1 << k;
    for (size_t i = 0; i < n; i++) {
        size_t j = cz_ntt_bitrev_index(i, k);
        if (i < j) {
            el t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

/* ---- tests ---- */

static void test_roots(const field_t *f)
{
    el w, t, one = el_one(f), minus_one;
    f->from_u64(&minus_one, 0);
    f->sub(&minus_one, &minus_one, &one);
    for (unsigned k = 0; k <= f->s; k++) {
        CHECK(f->root(&w, k) == CZ_OK);
        el o = oracle_root(f, k, 0);
        CHECK_MSG(el_eq(&w, &o), "%s: w[%u] != 5^((r-1)/2^k)", f->name, k);
        /* order exactly 2^k */
        t = w;
        for (unsigned i = 0; i + 1 < k; i++)
            f->mul(&t, &t, &t);
        if (k >= 1) CHECK_MSG(el_eq(&t, &minus_one), "%s: w[%u]^(2^(k-1)) != -1", f->name, k);
        if (k >= 1) f->mul(&t, &t, &t);
        CHECK_MSG(el_eq(&t, &one), "%s: w[%u]^(2^k) != 1", f->name, k);
        /* coset shift: w[k+1], or 25 at k = s */
        el g, e;
        CHECK(f->shift(&g, k) == CZ_OK);
        if (k < f->s)
            e = oracle_root(f, k + 1, 0);
        else
            f->from_u64(&e, 25);
        CHECK_MSG(el_eq(&g, &e), "%s: coset_shift(%u)", f->name, k);
    }
    /* w[s] is the snarkjs value */
    CHECK(f->root(&w, f->s) == CZ_OK);
    mpz_t z;
    mpz_init(z);
    mpz_from_el(f, z, &w);
    char hex[80];
    mpz_get_str(hex, 16, z);
    CHECK_MSG(strcmp(hex, f->w_s_hex) == 0, "%s: w[s] = %s, snarkjs has %s", f->name, hex, f->w_s_hex);
    mpz_clear(z);
    /* k > s rejected */
    el keep = w;
    CHECK(f->root(&w, f->s + 1) == CZ_ERR_RANGE && el_eq(&w, &keep));
    CHECK(f->shift(&w, f->s + 1) == CZ_ERR_RANGE);
    void *d = (void *)1;
    CHECK(f->create(&d, f->s + 1) == CZ_ERR_RANGE && d == NULL);
    CHECK(f->create(NULL, 3) == CZ_ERR_INVALID_ARG);
    CHECK(f->bytes_for(f->s + 1) == 0);
}

/* Checks all eight transforms of size 2^k on input a against the naive DFT. */
static void check_naive(const field_t *f, void *d, unsigned k, const el *a, const el *g, const char *what)
{
    size_t n = (size_t)1 << k;
    el *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *x), *tmp = malloc(n * sizeof *x);
    el w = oracle_root(f, k, 0), wi = oracle_root(f, k, 1), one = el_one(f), ninv, gi, nn;
    f->from_u64(&nn, n);
    f->inv(&ninv, &nn);
    f->inv(&gi, g);

    /* forward */
    naive_eval(f, want, a, n, &w, &one, NULL);
    memcpy(x, a, n * sizeof *x);
    CHECK(f->fwd(d, x, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s forward 2^%u (%s)", f->name, k, what);
    memcpy(x, a, n * sizeof *x);
    CHECK(f->fwd_br(d, x, NULL) == CZ_OK);
    bitrev_naive(x, k);
    CHECK_MSG(vec_eq(x, want, n), "%s forward_to_bitrev 2^%u (%s)", f->name, k, what);

    /* inverse: (1/n) sum_j a_j w^-ij */
    naive_eval(f, want, a, n, &wi, &one, &ninv);
    memcpy(x, a, n * sizeof *x);
    CHECK(f->inv_ntt(d, x, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s inverse 2^%u (%s)", f->name, k, what);
    memcpy(x, a, n * sizeof *x);
    bitrev_naive(x, k);
    CHECK(f->inv_br(d, x, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s inverse_from_bitrev 2^%u (%s)", f->name, k, what);

    /* coset forward: sum_j a_j (g w^i)^j */
    naive_eval(f, want, a, n, &w, g, NULL);
    memcpy(x, a, n * sizeof *x);
    CHECK(f->cfwd(d, x, g, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s coset_forward 2^%u (%s)", f->name, k, what);
    memcpy(x, a, n * sizeof *x);
    CHECK(f->cfwd_br(d, x, g, NULL) == CZ_OK);
    bitrev_naive(x, k);
    CHECK_MSG(vec_eq(x, want, n), "%s coset_forward_to_bitrev 2^%u (%s)", f->name, k, what);

    /* coset inverse: coefficient j = g^-j (1/n) sum_i a_i w^-ij */
    naive_eval(f, tmp, a, n, &wi, &one, &ninv);
    el gp = one;
    for (size_t j = 0; j < n; j++) {
        f->mul(&want[j], &tmp[j], &gp);
        f->mul(&gp, &gp, &gi);
    }
    memcpy(x, a, n * sizeof *x);
    CHECK(f->cinv(d, x, g, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s coset_inverse 2^%u (%s)", f->name, k, what);
    memcpy(x, a, n * sizeof *x);
    bitrev_naive(x, k);
    CHECK(f->cinv_br(d, x, g, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, want, n), "%s coset_inverse_from_bitrev 2^%u (%s)", f->name, k, what);
    free(x);
    free(want);
    free(tmp);
}

static void test_naive(const field_t *f)
{
    for (unsigned k = 0; k <= (unsigned)NAIVE_MAX; k++) {
        size_t n = (size_t)1 << k;
        void *d = NULL;
        CHECK(f->create(&d, k) == CZ_OK && d);
        if (!d) continue;
        CHECK(f->bytes(d) >= f->bytes_for(k) && f->bytes_for(k) > 0);
        CHECK(f->log_size(d) == k && f->size(d) == n);
        el w, wi, wo = oracle_root(f, k, 0), wio = oracle_root(f, k, 1);
        f->omega(d, &w, &wi);
        CHECK_MSG(el_eq(&w, &wo) && el_eq(&wi, &wio), "%s domain_omega 2^%u", f->name, k);
        el *a = malloc(n * sizeof *a);
        el gs, gr;
        f->shift(&gs, k);
        do
            f->random(&gr, &RNG);
        while (f->is_zero(&gr));
        /* random vectors with the snarkjs shift and a random coset */
        long reps = cz_test_iters(2);
        for (long r = 0; r < reps; r++) {
            random_vec(f, a, n);
            check_naive(f, d, k, a, r & 1 ? &gr : &gs, "random");
        }
        /* unit vectors: all of them for small n, else a few positions */
        size_t pos[4] = {(size_t)(cz_rng_u64(&RNG) % n), 0, 1, n - 1};
        size_t nunit = n <= 16 ? n : k <= 8 ? 4 : 1;
        for (size_t u = 0; u < nunit; u++) {
            size_t at = n <= 16 ? u : pos[u];
            memset(a, 0, n * sizeof *a);
            a[at] = el_one(f);
            check_naive(f, d, k, a, &gs, "unit");
        }
        /* round trips */
        el *x = malloc(n * sizeof *x);
        random_vec(f, a, n);
        memcpy(x, a, n * sizeof *a);
        CHECK(f->fwd(d, x, NULL) == CZ_OK && f->inv_ntt(d, x, NULL) == CZ_OK);
        CHECK_MSG(vec_eq(x, a, n), "%s inverse(forward) 2^%u", f->name, k);
        CHECK(f->cfwd(d, x, &gr, NULL) == CZ_OK && f->cinv(d, x, &gr, NULL) == CZ_OK);
        CHECK_MSG(vec_eq(x, a, n), "%s coset_inverse(coset_forward) 2^%u", f->name, k);
        free(x);
        /* a constant vector */
        el c;
        f->random(&c, &RNG);
        for (size_t i = 0; i < n; i++)
            a[i] = c;
        check_naive(f, d, k, a, &gr, "constant");
        /* zero */
        if (k <= 4) {
            memset(a, 0, n * sizeof *a);
            check_naive(f, d, k, a, &gs, "zero");
        }
        free(a);
        f->destroy(d);
    }
}

/* Round trips and O(n) spot checks at the larger sizes. */
static void test_large(const field_t *f, unsigned k)
{
    size_t n = (size_t)1 << k;
    void *d = NULL;
    CHECK(f->create(&d, k) == CZ_OK && d);
    if (!d) return;
    el *a = malloc(n * sizeof *a), *x = malloc(n * sizeof *a);
    random_vec(f, a, n);
    el g, w = oracle_root(f, k, 0), one = el_one(f);
    f->shift(&g, k);

    memcpy(x, a, n * sizeof *a);
    CHECK(f->fwd(d, x, NULL) == CZ_OK);
    for (int s = 0; s < 3; s++) {
        size_t i = s == 0 ? 1 : (size_t)(cz_rng_u64(&RNG) % n);
        el pt, v;
        el_pow(f, &pt, &w, i);
        v = horner(f, a, n, &pt);
        CHECK_MSG(el_eq(&x[i], &v), "%s forward 2^%u spot %zu", f->name, k, i);
    }
    CHECK(f->inv_ntt(d, x, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, a, n), "%s inverse(forward) 2^%u", f->name, k);

    CHECK(f->cfwd(d, x, &g, NULL) == CZ_OK);
    for (int s = 0; s < 3; s++) {
        size_t i = s == 0 ? n - 1 : (size_t)(cz_rng_u64(&RNG) % n);
        el pt, v;
        el_pow(f, &pt, &w, i);
        f->mul(&pt, &pt, &g);
        v = horner(f, a, n, &pt);
        CHECK_MSG(el_eq(&x[i], &v), "%s coset_forward 2^%u spot %zu", f->name, k, i);
    }
    CHECK(f->cinv(d, x, &g, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, a, n), "%s coset_inverse(coset_forward) 2^%u", f->name, k);

    CHECK(f->fwd_br(d, x, NULL) == CZ_OK);
    CHECK(f->inv_br(d, x, NULL) == CZ_OK);
    CHECK_MSG(vec_eq(x, a, n), "%s bitrev variants round trip 2^%u", f->name, k);
    (void)one;
    free(a);
    free(x);
    f->destroy(d);
}

/* Every transform on pools of 1, 2 and 5 threads gives the same bits. */
static void test_threads(const field_t *f, unsigned k)
{
    size_t n = (size_t)1 << k;
    void *d = NULL;
    CHECK(f->create(&d, k) == CZ_OK && d);
    if (!d) return;
    cz_pool *pools[3] = {cz_pool_create(1), cz_pool_create(2), cz_pool_create(5)};
    el *a = malloc(n * sizeof *a), *x = malloc(n * sizeof *a), *y = malloc(n * sizeof *a);
    random_vec(f, a, n);
    el g;
    f->random(&g, &RNG);
    for (int op = 0; op < 8; op++) {
        for (int p = 0; p < 3; p++) {
            el *out = p == 0 ? x : y;
            memcpy(out, a, n * sizeof *a);
            cz_status st = CZ_ERR_INTERNAL;
            switch (op) {
            case 0: st = f->fwd(d, out, pools[p]); break;
            case 1: st = f->inv_ntt(d, out, pools[p]); break;
            case 2: st = f->cfwd(d, out, &g, pools[p]); break;
            case 3: st = f->cinv(d, out, &g, pools[p]); break;
            case 4: st = f->fwd_br(d, out, pools[p]); break;
            case 5: st = f->inv_br(d, out, pools[p]); break;
            case 6: st = f->cfwd_br(d, out, &g, pools[p]); break;
            case 7: st = f->bitrev(out, k, pools[p]); break;
            }
            CHECK(st == CZ_OK);
            if (p > 0)
                CHECK_MSG(vec_eq(x, y, n), "%s op %d 2^%u: %d threads differ from 1", f->name, op, k,
                          cz_pool_threads(pools[p]));
        }
    }
    for (int p = 0; p < 3; p++)
        cz_pool_free(pools[p]);
    free(a);
    free(x);
    free(y);
    f->destroy(d);
}

static void test_bitrev(const field_t *f)
{
    CHECK(cz_ntt_bitrev_index(0, 0) == 0);
    CHECK(cz_ntt_bitrev_index(1, 1) == 1);
    CHECK(cz_ntt_bitrev_index(1, 3) == 4);
    CHECK(cz_ntt_bitrev_index(6, 3) == 3);
    CHECK(cz_ntt_bitrev_index(1, 20) == (size_t)1 << 19);
    for (unsigned k = 0; k <= 18; k += (k < 14 ? 1 : 4)) {
        size_t n = (size_t)1 << k;
        el *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *a);
        random_vec(f, a, n);
        memcpy(b, a, n * sizeof *a);
        CHECK(f->bitrev(a, k, NULL) == CZ_OK);
        int ok = 1;
        for (size_t i = 0; i < n; i++)
            ok &= el_eq(&a[i], &b[cz_ntt_bitrev_index(i, k)]);
        CHECK_MSG(ok, "%s bit_reverse 2^%u", f->name, k);
        free(a);
        free(b);
    }
}

static void test_args(const field_t *f)
{
    void *d = NULL;
    CHECK(f->create(&d, 4) == CZ_OK);
    el a[16], g, z;
    random_vec(f, a, 16);
    f->from_u64(&z, 0);
    f->random(&g, &RNG);
    CHECK(f->fwd(NULL, a, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->fwd(d, NULL, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->inv_ntt(NULL, a, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->cfwd(d, a, NULL, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->cfwd(d, a, &z, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->cinv(d, a, &z, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->cinv_br(d, a, &z, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->cfwd_br(d, NULL, &g, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->bitrev(NULL, 3, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(f->bitrev(a, 64, NULL) == CZ_ERR_INVALID_ARG);
    /* n = 1: every transform is the identity */
    void *d0 = NULL;
    CHECK(f->create(&d0, 0) == CZ_OK);
    el one = a[0];
    CHECK(f->fwd(d0, a, NULL) == CZ_OK && el_eq(&a[0], &one));
    CHECK(f->inv_ntt(d0, a, NULL) == CZ_OK && el_eq(&a[0], &one));
    CHECK(f->cfwd(d0, a, &g, NULL) == CZ_OK && el_eq(&a[0], &one));
    CHECK(f->cinv(d0, a, &g, NULL) == CZ_OK && el_eq(&a[0], &one));
    f->destroy(d0);
    f->destroy(d);
    f->destroy(NULL);
    /* footprints: O(sqrt n) tables */
    CHECK(f->bytes_for(20) < ((size_t)1 << 20) * 32 / 64);
    CHECK(f->scratch(8, 4) == 0 && f->scratch(20, 4) > 0);
}

/*
 * The prover's H step as snarkjs does it (docs/FORMATS.md, the H step; step
 * 2): a_T = A(w^i) -> iNTT -> multiply by g^j (here: coset NTT) -> A(g w^i)
 * with g = w[k+1]; then A'B' - C' = (AB - C)(g w^i) = h(g w^i) * (g^n - 1).
 */
static void test_h_convention(const field_t *f)
{
    for (unsigned k = 1; k <= 7; k++) {
        size_t n = (size_t)1 << k;
        void *d = NULL;
        CHECK(f->create(&d, k) == CZ_OK);
        el *A = malloc(n * sizeof *A), *B = malloc(n * sizeof *A), *C = malloc(n * sizeof *A);
        el *aT = malloc(n * sizeof *A), *bT = malloc(n * sizeof *A), *cT = malloc(n * sizeof *A);
        el *AB = calloc(2 * n, sizeof *A), *h = calloc(2 * n, sizeof *A);
        random_vec(f, A, n);
        random_vec(f, B, n);
        el w = oracle_root(f, k, 0), one = el_one(f), g = oracle_root(f, k + 1, 0), gs;
        CHECK(f->shift(&gs, k) == CZ_OK && el_eq(&gs, &g));
        /* the QAP values at the domain points, computed naively */
        naive_eval(f, aT, A, n, &w, &one, NULL);
        naive_eval(f, bT, B, n, &w, &one, NULL);
        for (size_t i = 0; i < n; i++)
            f->mul(&cT[i], &aT[i], &bT[i]);
        /* C: the interpolant of c_T (degree < n), from the transform */
        memcpy(C, cT, n * sizeof *C);
        CHECK(f->inv_ntt(d, C, NULL) == CZ_OK);
        /* naive product AB (degree <= 2n-2), h = (AB - C) / (x^n - 1) */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                el t;
                f->mul(&t, &A[i], &B[j]);
                f->add(&AB[i + j], &AB[i + j], &t);
            }
        el *rem = malloc(2 * n * sizeof *A);
        memcpy(rem, AB, 2 * n * sizeof *A);
        for (size_t i = 0; i < n; i++)
            f->sub(&rem[i], &rem[i], &C[i]);
        for (size_t i = 2 * n; i-- > n;) { /* divide by x^n - 1 */
            h[i - n] = rem[i];
            f->add(&rem[i - n], &rem[i - n], &rem[i]);
            f->from_u64(&rem[i], 0);
        }
        int zero_rem = 1;
        for (size_t i = 0; i < n; i++)
            zero_rem &= f->is_zero(&rem[i]);
        CHECK_MSG(zero_rem, "%s 2^%u: AB - C not divisible by Z", f->name, k);
        /* the prover path */
        CHECK(f->inv_ntt(d, aT, NULL) == CZ_OK && f->cfwd(d, aT, &g, NULL) == CZ_OK);
        CHECK(f->inv_ntt(d, bT, NULL) == CZ_OK && f->cfwd(d, bT, &g, NULL) == CZ_OK);
        CHECK(f->inv_ntt(d, cT, NULL) == CZ_OK && f->cfwd(d, cT, &g, NULL) == CZ_OK);
        el zg = g; /* Z(g w^i) = g^n - 1 = -2 */
        for (unsigned i = 0; i < k; i++)
            f->mul(&zg, &zg, &zg);
        f->sub(&zg, &zg, &one);
        el m2;
        f->from_u64(&m2, 0);
        f->sub(&m2, &m2, &one);
        f->sub(&m2, &m2, &one);
        CHECK(el_eq(&zg, &m2));
        el x = g;
        int ok_a = 1, ok_ab = 1, ok_h = 1;
        for (size_t i = 0; i < n; i++) {
            el va = horner(f, A, n, &x), vab = horner(f, AB, 2 * n, &x), vh = horner(f, h, n, &x), p;
            ok_a &= el_eq(&aT[i], &va);
            f->mul(&p, &aT[i], &bT[i]);
            ok_ab &= el_eq(&p, &vab);
            f->sub(&p, &p, &cT[i]);
            f->mul(&vh, &vh, &zg);
            ok_h &= el_eq(&p, &vh);
            f->mul(&x, &x, &w);
        }
        CHECK_MSG(ok_a, "%s 2^%u: coset evaluation of A", f->name, k);
        CHECK_MSG(ok_ab, "%s 2^%u: A'B' != (AB)(g w^i)", f->name, k);
        CHECK_MSG(ok_h, "%s 2^%u: A'B' - C' != h Z on the coset", f->name, k);
        free(A), free(B), free(C), free(aT), free(bT), free(cT), free(AB), free(h), free(rem);
        f->destroy(d);
    }
}

int main(void)
{
    cz_test_seed(&RNG, "test_ntt");
    const char *env = getenv("CZ_TEST_SCALE");
    if (env && atof(env) < 0.5) {
        LARGE_MAX = 14;
        NAIVE_MAX = 8;
    }
    for (size_t fi = 0; fi < CZ_ARRAY_LEN(FIELDS); fi++) {
        const field_t *f = &FIELDS[fi];
        long before = cz_test_failed;
        test_roots(f);
        test_args(f);
        test_bitrev(f);
        double t0 = now_s();
        test_naive(f);
        double t1 = now_s();
        test_h_convention(f);
        for (unsigned k = 11; k <= (unsigned)LARGE_MAX; k++) {
            if (k > 16 && k != 18 && k != 20) continue;
            test_large(f, k);
        }
        double t2 = now_s();
        test_threads(f, 10);
        test_threads(f, 13);
        test_threads(f, LARGE_MAX > 16 ? 17 : 14);
        printf("%s: %s (naive %.1f s, large %.1f s, threads %.1f s)\n", f->name,
               cz_test_failed == before ? "ok" : "FAILED", t1 - t0, t2 - t1, now_s() - t2);
    }
    return cz_test_finish("test_ntt");
}
