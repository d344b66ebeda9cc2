/*
 * Development setup tests: msm/fixed_base, io/zkey_write, groth16/setup.
 *
 * Oracles:
 *  - fixed base, all four groups: ec's variable-time double-and-add (mul)
 *    for every output; random scalars (canonical and Montgomery), 0, 1, 2,
 *    r - 1, powers of two, digit extremes, and scalars whose top-window
 *    addition is a doubling (the accumulator equals the table entry), for
 *    windows 2..16 and the automatic one, on the generator and on a random
 *    base; base at infinity; scalars >= r rejected;
 *  - zkey writer: every snarkjs fixture loaded and saved again has sections
 *    1-9 byte-identical to snarkjs's file;
 *  - setup on the snarkjs fixtures of both curves: our key loads, proofs made
 *    with it verify against its verifying key, section 4 and the counts of
 *    section 2 equal snarkjs's key for the same r1cs, points at infinity sit
 *    where snarkjs has them, the same seed gives the same bytes (on 1 and
 *    several threads), another seed other bytes, a changed point in a point
 *    section makes proofs fail;
 *  - the key maths, independently: hand-written r1cs files (no public
 *    inputs; a wire in no constraint; a row with empty A and B; a duplicated
 *    term) with fixed tau, alpha, beta, delta; every point of every section
 *    recomputed from the definition with GMP (roots of unity 5^((r-1)/n),
 *    Lagrange bases by the product formula over all domain points, the H
 *    basis over the 2n domain) and ec's double-and-add;
 *  - failures: unwritable output leaves no file, fixed tau on the domain is
 *    refused.
 */
#define _GNU_SOURCE /* memmem */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ec/ec.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/binfile.h"
#include "io/zkey_write.h"
#include "msm/fixed_base.h"
#include "test_util.h"

#define FIX CZ_SOURCE_DIR "/tests/fixtures/"

static char tmpdir[256];

/* ---------------------------------------------------------------- fixed base */

typedef struct {
    const char *name;
    size_t aff, jac;
    const uint64_t *r; /* scalar field modulus, 4 limbs */
    int bits;
    cz_status (*create)(void **, const void *, size_t, int, cz_pool *);
    cz_status (*mul)(const void *, void *, const uint8_t *, size_t, cz_msm_scalar_form, cz_pool *);
    void (*free_)(void *);
    int (*window)(const void *);
    void (*ref)(void *aff, const void *base_aff, const uint64_t *k); /* aff = k * base */
    const void *(*generator)(void);
    void (*random)(void *aff, cz_rng *);
    void (*fr_from_canonical)(void *, const uint64_t *);
} group_t;

#define GROUP_FNS(G, FRP)                                                                                              \
    static cz_status G##_t_create(void **t, const void *b, size_t n, int w, cz_pool *p)                                \
    {                                                                                                                  \
        return G##_fb_create((G##_fb **)t, b, n, w, p);                                                                \
    }                                                                                                                  \
    static cz_status G##_t_mul(const void *t, void *o, const uint8_t *s, size_t n, cz_msm_scalar_form f, cz_pool *p)   \
    {                                                                                                                  \
        return G##_fb_mul(t, o, s, n, f, p);                                                                           \
    }                                                                                                                  \
    static void G##_t_free(void *t)                                                                                    \
    {                                                                                                                  \
        G##_fb_free(t);                                                                                                \
    }                                                                                                                  \
    static int G##_t_window(const void *t)                                                                             \
    {                                                                                                                  \
        return G##_fb_window(t);                                                                                       \
    }                                                                                                                  \
    static void G##_t_ref(void *o, const void *b, const uint64_t *k)                                                   \
    {                                                                                                                  \
        G j, r;                                                                                                        \
        G##_from_affine(&j, b);                                                                                        \
        G##_mul(&r, &j, k, 4);                                                                                         \
        G##_to_affine(o, &r);                                                                                          \
    }                                                                                                                  \
    static const void *G##_t_gen(void)                                                                                 \
    {                                                                                                                  \
        return G##_generator();                                                                                        \
    }                                                                                                                  \
    static void G##_t_random(void *o, cz_rng *rng)                                                                     \
    {                                                                                                                  \
        G j;                                                                                                           \
        G##_random(&j, rng);                                                                                           \
        G##_to_affine(o, &j);                                                                                          \
    }                                                                                                                  \
    static void G##_t_fr(void *o, const uint64_t *l)                                                                   \
    {                                                                                                                  \
        FRP##_from_canonical(o, l);                                                                                    \
    }

GROUP_FNS(cz_bn254_g1, cz_bn254_fr)
GROUP_FNS(cz_bn254_g2, cz_bn254_fr)
GROUP_FNS(cz_bls12_381_g1, cz_bls12_381_fr)
GROUP_FNS(cz_bls12_381_g2, cz_bls12_381_fr)

#define GROUP(G, FRP, BITS)                                                                                            \
    {                                                                                                                  \
#G, sizeof(G##_affine), sizeof(G), FRP##_modulus, BITS, G##_t_create, G##_t_mul, G##_t_free, G##_t_window,     \
            G##_t_ref, G##_t_gen, G##_t_random, G##_t_fr                                                               \
    }

static const group_t GROUPS[4] = {
    GROUP(cz_bn254_g1, cz_bn254_fr, 254),
    GROUP(cz_bn254_g2, cz_bn254_fr, 254),
    GROUP(cz_bls12_381_g1, cz_bls12_381_fr, 255),
    GROUP(cz_bls12_381_g2, cz_bls12_381_fr, 255),
};

static void mpz_from_limbs(mpz_t z, const uint64_t *l, size_t n)
{
    mpz_import(z, n, -1, 8, 0, 0, l);
}
static void mpz_to_limbs(uint64_t *l, size_t n, const mpz_t z)
{
    size_t cnt = 0;
    memset(l, 0, n * 8);
    mpz_export(l, &cnt, -1, 8, 0, 0, z);
}

static void random_scalar(uint64_t out[4], const uint64_t *r, cz_rng *rng)
{
    mpz_t z, m;
    mpz_inits(z, m, NULL);
    uint64_t l[6];
    for (int i = 0; i < 6; i++)
        l[i] = cz_rng_u64(rng);
    mpz_from_limbs(z, l, 6);
    mpz_from_limbs(m, r, 4);
    mpz_mod(z, z, m);
    mpz_to_limbs(out, 4, z);
    mpz_clears(z, m, NULL);
}

/* Scalars s < r whose recoding with window w makes the accumulator equal the
 * top-window entry: s = 2 d 2^(wk) - r with the lower part d 2^(wk) - r
 * representable by k windows. Returns how many were written. */
static int doubling_scalars(uint64_t (*out)[4], int max, const uint64_t *rl, int bits, int w)
{
    int nwin = (bits + 1 + w - 1) / w, cnt = 0;
    mpz_t r, p, d, v, lim, s, h;
    mpz_inits(r, p, d, v, lim, s, h, NULL);
    mpz_from_limbs(r, rl, 4);
    for (int k = 1; k < nwin && cnt < max; k++) {
        mpz_ui_pow_ui(p, 2, (unsigned long)(w * k));
        mpz_fdiv_q(d, r, p); /* d = floor(r / 2^(wk)) */
        for (int dd = 0; dd < 2 && cnt < max; dd++, mpz_add_ui(d, d, 1)) {
            mpz_mul(v, d, p);
            mpz_sub(v, v, r); /* lower part v = d 2^(wk) - r */
            /* k signed windows with digits in (-h, h] reach down to
             * -(h - 1)(2^(wk) - 1) / (2^w - 1) */
            mpz_ui_pow_ui(h, 2, (unsigned long)(w - 1));
            mpz_sub_ui(lim, p, 1);
            mpz_mul_ui(lim, lim, mpz_get_ui(h) - 1);
            mpz_fdiv_q_ui(lim, lim, (1ul << w) - 1);
            mpz_neg(lim, lim);
            mpz_mul_ui(s, d, 2);
            mpz_mul(s, s, p);
            mpz_sub(s, s, r);
            if (mpz_cmp(v, lim) >= 0 && mpz_sgn(v) <= 0 && mpz_cmp(d, h) <= 0 && mpz_sgn(d) > 0 && mpz_sgn(s) > 0 &&
                mpz_cmp(s, r) < 0)
                mpz_to_limbs(out[cnt++], 4, s);
        }
    }
    mpz_clears(r, p, d, v, lim, s, h, NULL);
    return cnt;
}

static void test_fixed_base(cz_rng *rng)
{
    static const int windows[] = {0, 2, 3, 4, 5, 7, 8, 11, 13, 16};
    cz_pool *one = cz_pool_create(1);
    long total_dbl = 0;
    for (int gi = 0; gi < 4; gi++) {
        const group_t *g = &GROUPS[gi];
        int g2 = gi & 1;
        for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
            int w = windows[wi];
            if (w == 16 && g2 && cz_test_iters(10) < 10) continue; /* short runs: skip the largest G2 table */
            /* base: the generator, or a random point for odd entries */
            uint8_t base[192];
            if (wi & 1)
                g->random(base, rng);
            else
                memcpy(base, g->generator(), g->aff);
            size_t n = (size_t)cz_test_iters(w == 0 ? 2500 : 300);
            if (g2) n = n / 3 + 1;
            uint64_t(*sc)[4] = calloc(n + 64, 32);
            size_t m = 0;
            /* edge scalars */
            uint64_t rm1[4];
            memcpy(rm1, g->r, 32);
            rm1[0] -= 1;
            memset(sc[m++], 0, 32);
            sc[m][0] = 1, m++;
            sc[m][0] = 2, m++;
            memcpy(sc[m++], rm1, 32);
            sc[m][1] = 1, m++;            /* 2^64 */
            sc[m][3] = (uint64_t)1 << 60; /* 2^252 */
            m++;
            for (int i = 0; i < 4; i++)
                sc[m][i] = 0x5555555555555555ull; /* alternating bits */
            sc[m][3] &= 0x0fffffffffffffffull;
            m++;
            for (int i = 0; i < 4; i++)
                sc[m][i] = 0x8000800080008000ull; /* digit extremes for w = 16 */
            sc[m][3] &= 0x0fffffffffffffffull;
            m++;
            void *t = NULL;
            cz_status st = g->create(&t, base, n, w, NULL);
            CHECK_MSG(st == CZ_OK, "%s w=%d create: %s", g->name, w, cz_status_str(st));
            if (st != CZ_OK) {
                free(sc);
                continue;
            }
            int tw = g->window(t);
            int nd = doubling_scalars(sc + m, 8, g->r, g->bits, tw);
            m += (size_t)nd;
            total_dbl += nd;
            for (; m < n; m++)
                random_scalar(sc[m], g->r, rng);
            uint8_t *out = malloc(n * g->aff), *exp = malloc(n * g->aff), *mont = malloc(n * 32);
            /* canonical on the default pool, Montgomery on one thread */
            st = g->mul(t, out, (const uint8_t *)sc, n, CZ_MSM_CANONICAL, NULL);
            CHECK_MSG(st == CZ_OK, "%s w=%d mul: %s", g->name, tw, cz_status_str(st));
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) {
                g->ref(exp + i * g->aff, base, sc[i]);
                if (memcmp(out + i * g->aff, exp + i * g->aff, g->aff)) bad++;
            }
            CHECK_MSG(bad == 0, "%s w=%d: %zu of %zu outputs differ from double-and-add", g->name, tw, bad, n);
            for (size_t i = 0; i < n; i++)
                g->fr_from_canonical(mont + 32 * i, sc[i]);
            memset(out, 0xa5, n * g->aff);
            st = g->mul(t, out, mont, n, CZ_MSM_MONTGOMERY, one);
            CHECK(st == CZ_OK && memcmp(out, exp, n * g->aff) == 0);
            /* zero scalar -> all-zero bytes (the zkey's infinity) */
            static const uint8_t zero[192];
            CHECK(memcmp(out, zero, g->aff) == 0);
            /* a scalar >= r is refused: r itself at position n/2 */
            memcpy(sc[n / 2], g->r, 32);
            CHECK(g->mul(t, out, (const uint8_t *)sc, n, CZ_MSM_CANONICAL, NULL) == CZ_ERR_RANGE);
            CHECK(g->mul(t, out, (const uint8_t *)sc, 0, CZ_MSM_CANONICAL, NULL) == CZ_OK);
            CHECK(g->mul(t, out, NULL, 1, CZ_MSM_CANONICAL, NULL) == CZ_ERR_INVALID_ARG);
            g->free_(t);
            free(sc);
            free(out);
            free(exp);
            free(mont);
        }
        /* base at infinity: every output is infinity */
        uint8_t inf[192] = {0}, out[8 * 192];
        uint64_t sc[8][4];
        for (int i = 0; i < 8; i++)
            random_scalar(sc[i], g->r, rng);
        void *t = NULL;
        CHECK(g->create(&t, inf, 8, 4, NULL) == CZ_OK);
        memset(out, 1, sizeof out);
        CHECK(g->mul(t, out, (const uint8_t *)sc, 8, CZ_MSM_CANONICAL, NULL) == CZ_OK);
        int allz = 1;
        for (size_t i = 0; i < 8 * g->aff; i++)
            allz &= out[i] == 0;
        CHECK(allz);
        g->free_(t);
        /* bad windows */
        CHECK(g->create(&t, g->generator(), 1, 1, NULL) == CZ_ERR_INVALID_ARG && t == NULL);
        CHECK(g->create(&t, g->generator(), 1, CZ_FB_MAX_WINDOW + 1, NULL) == CZ_ERR_INVALID_ARG);
    }
    CHECK_MSG(total_dbl > 10, "only %ld doubling-case scalars were constructed", total_dbl);
    printf("fixed base: %ld top-window doubling scalars checked\n", total_dbl);
    /* window choice: grows with n, tables stay bounded */
    CHECK(cz_bn254_g1_fb_auto_window(1) <= 4);
    CHECK(cz_bn254_g1_fb_auto_window((size_t)1 << 26) >= 14);
    CHECK(cz_bls12_381_g2_fb_table_bytes_for(cz_bls12_381_g2_fb_auto_window((size_t)1 << 30)) <= CZ_FB_MAX_TABLE);
    cz_pool_free(one);
}

/* ---------------------------------------------------------------- helpers */

static int read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(*data, 1, (size_t)n, f);
    fclose(f);
    return *len == (size_t)n;
}

/* body of section id of a binfile in memory; NULL if missing */
static const uint8_t *section(const uint8_t *d, size_t len, uint32_t id, uint64_t *size)
{
    if (len < 12) return NULL;
    uint32_t ns = cz_load_u32(d + 8);
    size_t p = 12;
    for (uint32_t i = 0; i < ns && p + 12 <= len; i++) {
        uint32_t sid = cz_load_u32(d + p);
        uint64_t sz = cz_load_u64(d + p + 4);
        if (sid == id) {
            *size = sz;
            return d + p + 12;
        }
        p += 12 + sz;
    }
    return NULL;
}

static int sections_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint32_t id)
{
    uint64_t sa, sb;
    const uint8_t *pa = section(a, alen, id, &sa), *pb = section(b, blen, id, &sb);
    return pa && pb && sa == sb && memcmp(pa, pb, sa) == 0;
}

static int files_equal(const char *p, const char *q)
{
    uint8_t *a, *b;
    size_t la, lb;
    if (!read_file(p, &a, &la)) return 0;
    if (!read_file(q, &b, &lb)) {
        free(a);
        return 0;
    }
    int eq = la == lb && memcmp(a, b, la) == 0;
    free(a);
    free(b);
    return eq;
}

static const char *FIXTURES[] = {"bn128/mul_chain",   "bn128/many_public",    "bn128/poseidon",
                                 "bn128/poseidon_o1", "bls12381/mul_chain",   "bls12381/many_public",
                                 "bls12381/poseidon", "bls12381/poseidon_o1", "bn128/poseidon_setup_only"};
enum { NFIX = sizeof FIXTURES / sizeof FIXTURES[0] };

/* ---------------------------------------------------------------- writer */

static void test_save_roundtrip(void)
{
    for (int i = 0; i < NFIX; i++) {
        char p[512], q[512];
        snprintf(p, sizeof p, FIX "%s/circuit.zkey", FIXTURES[i]);
        snprintf(q, sizeof q, "%s/saved.zkey", tmpdir);
        cz_zkey zk;
        cz_error err;
        cz_error_clear(&err);
        if (cz_zkey_load(&zk, p, NULL, &err) != CZ_OK) {
            CHECK_MSG(0, "%s", cz_error_msg(&err));
            continue;
        }
        cz_status st = cz_zkey_save(&zk, q, NULL, &err);
        CHECK_MSG(st == CZ_OK, "%s: save: %s", FIXTURES[i], cz_error_msg(&err));
        uint8_t *a, *b;
        size_t la, lb;
        if (st == CZ_OK && read_file(p, &a, &la) && read_file(q, &b, &lb)) {
            for (uint32_t id = 1; id <= 9; id++)
                CHECK_MSG(sections_equal(a, la, b, lb, id), "%s: saved section %u differs", FIXTURES[i], id);
            cz_zkey_layout l = {zk.curve,       zk.n_vars, zk.n_public,
                                zk.domain_size, zk.n_coef, cz_zkey_mpc_bytes(zk.curve, NULL, 0)};
            CHECK(lb == cz_zkey_file_size(&l));
            cz_zkey back;
            CHECK(cz_zkey_load(&back, q, NULL, &err) == CZ_OK);
            cz_zkey_free(&back);
            free(a);
            free(b);
        }
        cz_zkey_free(&zk);
    }
    /* the writer refuses sections out of order and short sections */
    cz_zkey_layout l = {CZ_CURVE_BN254, 3, 1, 4, 2, cz_zkey_mpc_bytes(CZ_CURVE_BN254, NULL, 0)};
    cz_zkey_writer w;
    cz_error err;
    char q[512];
    snprintf(q, sizeof q, "%s/bad.zkey", tmpdir);
    CHECK(cz_zkey_writer_open(&w, q, &l, &err) == CZ_OK);
    CHECK(cz_zkey_writer_begin(&w, 2, &err) == CZ_ERR_INTERNAL);
    CHECK(cz_zkey_writer_begin(&w, 1, &err) == CZ_OK);
    CHECK(cz_zkey_writer_end(&w, &err) == CZ_ERR_INTERNAL); /* 4 bytes missing */
    CHECK(cz_zkey_writer_put(&w, "12345", 5, &err) == CZ_ERR_INTERNAL);
    CHECK(cz_zkey_writer_commit(&w, &err) == CZ_ERR_INTERNAL);
    CHECK(access(q, F_OK) != 0);
    l.n_public = 3;
    CHECK(cz_zkey_writer_open(&w, q, &l, &err) == CZ_ERR_INVALID_ARG);
}

/* ---------------------------------------------------------------- setup on fixtures */

static cz_status prove_verify(const char *zkey, const cz_wtns *w, int *verified)
{
    cz_zkey zk;
    cz_error err;
    cz_error_clear(&err);
    *verified = 0;
    cz_status st = cz_zkey_load(&zk, zkey, NULL, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "  load %s: %s\n", zkey, cz_error_msg(&err));
        return st;
    }
    cz_prove_opts po;
    memset(&po, 0, sizeof po);
    po.skip_verify = 1;
    cz_proof proof;
    st = cz_groth16_prove(&proof, &zk, w, &po, NULL, &err);
    if (st == CZ_OK) {
        cz_vkey vk;
        if ((st = cz_vkey_from_zkey(&vk, &zk)) == CZ_OK) {
            *verified = cz_groth16_verify(&vk, (const uint8_t *)w->values + 32, zk.n_public, &proof, &err) == CZ_OK;
            cz_vkey_free(&vk);
        }
    }
    cz_zkey_free(&zk);
    return st;
}

static int g_progress_calls;
static void count_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    (void)ctx;
    (void)stage;
    if (done <= total) g_progress_calls++;
}

static void test_fixture_setup(const char *dir)
{
    char r1p[512], wp[512], zp[512], ours[512], ours2[512];
    snprintf(r1p, sizeof r1p, FIX "%s/circuit.r1cs", dir);
    snprintf(wp, sizeof wp, FIX "%s/witness.wtns", dir);
    snprintf(zp, sizeof zp, FIX "%s/circuit.zkey", dir);
    snprintf(ours, sizeof ours, "%s/ours.zkey", tmpdir);
    snprintf(ours2, sizeof ours2, "%s/ours2.zkey", tmpdir);
    cz_error err;
    cz_error_clear(&err);
    cz_r1cs r;
    cz_wtns w;
    if (cz_r1cs_load(&r, r1p, 0, NULL, &err) != CZ_OK || cz_wtns_load(&w, wp, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s: %s", dir, cz_error_msg(&err));
        return;
    }
    cz_setup_opts o;
    memset(&o, 0, sizeof o);
    o.use_seed = 1;
    o.seed = 1;
    o.progress = count_progress;
    o.chunk = 100;    /* several chunks per section, and the coefficient buffer too */
    o.row_block = 77; /* several row blocks of Lagrange values */
    cz_setup_stats stats;
    g_progress_calls = 0;
    cz_status st = cz_groth16_setup_dev(&r, ours, &o, &stats, &err);
    CHECK_MSG(st == CZ_OK, "%s: setup: %s", dir, cz_error_msg(&err));
    if (st != CZ_OK) goto out;
    CHECK(g_progress_calls > 10);
    struct stat sb;
    CHECK(stat(ours, &sb) == 0 && (uint64_t)sb.st_size == stats.file_bytes);

    /* proofs with our key verify against its verifying key */
    int ok;
    st = prove_verify(ours, &w, &ok);
    CHECK_MSG(st == CZ_OK && ok, "%s: a proof with our key does not verify (%s)", dir, cz_status_str(st));

    /* same r1cs -> same coefficients, counts and infinity pattern as snarkjs */
    uint8_t *a, *b;
    size_t la, lb;
    if (read_file(zp, &a, &la) && read_file(ours, &b, &lb)) {
        CHECK_MSG(sections_equal(a, la, b, lb, 4), "%s: section 4 differs from snarkjs", dir);
        CHECK_MSG(sections_equal(a, la, b, lb, 1), "%s: section 1 differs", dir);
        uint64_t s2a, s2b;
        const uint8_t *ha = section(a, la, 2, &s2a), *hb = section(b, lb, 2, &s2b);
        size_t n8q = ha ? cz_load_u32(ha) : 0;
        size_t counts = 4 + n8q + 4 + 32 + 12; /* primes, nVars, nPublic, domainSize */
        CHECK_MSG(ha && hb && s2a == s2b && memcmp(ha, hb, counts) == 0, "%s: section 2 counts differ", dir);
        /* gamma_2 = the G2 generator in both */
        size_t g1 = 2 * n8q, g2 = 4 * n8q;
        CHECK(ha && hb && memcmp(ha + counts + 2 * g1 + g2, hb + counts + 2 * g1 + g2, g2) == 0);
        /* alpha, beta, delta differ from snarkjs's (other toxic waste) */
        CHECK(ha && hb && memcmp(ha + counts, hb + counts, g1) != 0);
        for (uint32_t id = 3; id <= 9; id++) {
            uint64_t sa, sb;
            const uint8_t *pa = section(a, la, id, &sa), *pb = section(b, lb, id, &sb);
            size_t psz = id == 7 ? g2 : g1;
            CHECK_MSG(pa && pb && sa == sb, "%s: section %u size %llu vs snarkjs %llu", dir, id, (unsigned long long)sb,
                      (unsigned long long)sa);
            if (!pa || !pb || sa != sb) continue;
            size_t mism = 0;
            for (uint64_t k = 0; k < sa / psz; k++) {
                int za = 1, zb = 1;
                for (size_t t = 0; t < psz; t++)
                    za &= pa[k * psz + t] == 0, zb &= pb[k * psz + t] == 0;
                mism += za != zb;
            }
            CHECK_MSG(mism == 0, "%s: section %u: %zu points at infinity in one key only", dir, id, mism);
        }
        /* section 10 holds the warning in a contribution name */
        uint64_t s10;
        const uint8_t *c10 = section(b, lb, 10, &s10);
        CHECK(c10 && s10 > 68 && cz_load_u32(c10 + 64) == 1);
        CHECK(c10 && memmem(c10, s10, "INSECURE DEV KEY", 16) != NULL);
        free(a);
        free(b);
    }

    /* determinism: same seed, one thread and another chunk size -> same bytes;
     * another seed -> other bytes */
    cz_pool *one = cz_pool_create(1);
    o.pool = one;
    o.chunk = 0;
    o.row_block = 0;
    o.progress = NULL;
    CHECK(cz_groth16_setup_dev(&r, ours2, &o, NULL, &err) == CZ_OK);
    CHECK_MSG(files_equal(ours, ours2), "%s: the same seed gave different keys", dir);
    o.seed = 2;
    o.pool = NULL;
    CHECK(cz_groth16_setup_dev(&r, ours2, &o, NULL, &err) == CZ_OK);
    CHECK(!files_equal(ours, ours2));
    cz_pool_free(one);

    /* a changed point in any point section makes proofs fail (C, H: a
     * different valid point; A: one on another key) */
    if (read_file(ours, &b, &lb)) {
        static const uint32_t ids[] = {5, 8, 9};
        for (size_t t = 0; t < 3; t++) {
            uint64_t ssz;
            uint8_t *s = (uint8_t *)section(b, lb, ids[t], &ssz);
            uint8_t *copy = malloc(lb);
            memcpy(copy, b, lb);
            s = copy + (s - b);
            size_t psz = r.curve == CZ_CURVE_BN254 ? 64 : 96;
            /* swap two non-infinity points the witness uses (non-zero
             * values): replace point k by point k+1 for several k */
            uint64_t npts = ssz / psz;
            for (uint64_t k = 1; k + 1 < npts; k += 7)
                memcpy(s + k * psz, s + (k + 1) * psz, psz);
            FILE *f = fopen(ours2, "wb");
            fwrite(copy, 1, lb, f);
            fclose(f);
            st = prove_verify(ours2, &w, &ok);
            CHECK_MSG(st == CZ_OK && !ok, "%s: section %u tampered but the proof verifies", dir, ids[t]);
            free(copy);
        }
        free(b);
    }
out:
    cz_r1cs_free(&r);
    cz_wtns_free(&w);
}

/* ---------------------------------------------------------------- hand-made r1cs + maths */

typedef struct {
    uint32_t wire;
    int64_t coef;
} term_t;

typedef struct {
    int na, nb, nc;
    term_t a[4], b[4], c[4];
} row_t;

typedef struct {
    const char *name;
    uint32_t nwires, npub_out, npub_in, nprv_in;
    int nrows;
    row_t rows[8];
    int64_t witness[8];
} circuit_t;

/* circuit A: no public signals; wire 4 in no constraint; a row with empty A
 * and B; ONE in B.  x = 3: y = 9, z = 27. */
static const circuit_t CIRC_A = {
    "no public inputs",
    5,
    0,
    0,
    1,
    4,
    {
        {1, 1, 1, {{1, 1}}, {{1, 1}}, {{2, 1}}},
        {1, 1, 1, {{2, 1}}, {{1, 1}}, {{3, 1}}},
        {0, 0, 2, {{0}}, {{0}}, {{2, 1}, {0, -9}}},
        {2, 1, 2, {{1, 2}, {0, 1}}, {{0, 1}}, {{1, 2}, {0, 1}}},
    },
    {1, 3, 9, 27, 5},
};

/* circuit B: one output, one public input; a duplicated term; a private
 * wire in no constraint; negative coefficients. in = 2, p = 5: t = 10,
 * out = 10. */
static const circuit_t CIRC_B = {
    "public inputs, duplicate term",
    6,
    1,
    1,
    1,
    3,
    {
        {1, 1, 1, {{2, 1}}, {{3, 1}}, {{4, 1}}},
        {2, 1, 1, {{4, 1}, {4, 1}}, {{0, 1}}, {{1, 2}}},
        {1, 1, 1, {{1, -1}}, {{0, 1}}, {{4, -1}}},
    },
    {1, 10, 2, 5, 10, 7},
};

static void put32(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

static void coef_bytes(uint8_t *out, int64_t c, const uint64_t *r)
{
    mpz_t z, m;
    mpz_inits(z, m, NULL);
    mpz_set_si(z, c);
    mpz_from_limbs(m, r, 4);
    mpz_mod(z, z, m);
    uint64_t l[4];
    mpz_to_limbs(l, 4, z);
    memcpy(out, l, 32);
    mpz_clears(z, m, NULL);
}

/* The .r1cs bytes of a circuit (sections in circom's order 2, 1, 3). */
static size_t build_r1cs(uint8_t *buf, const circuit_t *c, cz_curve curve)
{
    const uint64_t *r = curve == CZ_CURVE_BN254 ? cz_bn254_fr_modulus : cz_bls12_381_fr_modulus;
    uint8_t *p = buf;
    memcpy(p, "r1cs", 4);
    p += 4;
    put32(&p, 1);
    put32(&p, 3);
    /* section 2 */
    put32(&p, 2);
    uint8_t *szp = p;
    p += 8;
    uint8_t *s0 = p;
    for (int i = 0; i < c->nrows; i++) {
        const row_t *row = &c->rows[i];
        const int cnt[3] = {row->na, row->nb, row->nc};
        const term_t *ts[3] = {row->a, row->b, row->c};
        for (int m = 0; m < 3; m++) {
            put32(&p, (uint32_t)cnt[m]);
            for (int t = 0; t < cnt[m]; t++) {
                put32(&p, ts[m][t].wire);
                coef_bytes(p, ts[m][t].coef, r);
                p += 32;
            }
        }
    }
    uint64_t sz = (uint64_t)(p - s0);
    memcpy(szp, &sz, 8);
    /* section 1 */
    put32(&p, 1);
    sz = 4 + 32 + 4 * 4 + 8 + 4;
    memcpy(p, &sz, 8);
    p += 8;
    put32(&p, 32);
    memcpy(p, r, 32);
    p += 32;
    put32(&p, c->nwires);
    put32(&p, c->npub_out);
    put32(&p, c->npub_in);
    put32(&p, c->nprv_in);
    uint64_t nl = c->nwires;
    memcpy(p, &nl, 8);
    p += 8;
    put32(&p, (uint32_t)c->nrows);
    /* section 3: labels */
    put32(&p, 3);
    sz = 8ull * c->nwires;
    memcpy(p, &sz, 8);
    p += 8;
    for (uint64_t i = 0; i < c->nwires; i++) {
        memcpy(p, &i, 8);
        p += 8;
    }
    return (size_t)(p - buf);
}

typedef struct {
    cz_curve curve;
    const uint64_t *r;
    size_t g1, g2;
    void (*g1_mul)(void *aff, const uint64_t *k);
    void (*g2_mul)(void *aff, const uint64_t *k);
    void (*fr_from_canonical)(void *, const uint64_t *);
} curve_t;

static void bn_g1_mul(void *o, const uint64_t *k)
{
    cz_bn254_g1_t_ref(o, cz_bn254_g1_generator(), k);
}
static void bn_g2_mul(void *o, const uint64_t *k)
{
    cz_bn254_g2_t_ref(o, cz_bn254_g2_generator(), k);
}
static void bls_g1_mul(void *o, const uint64_t *k)
{
    cz_bls12_381_g1_t_ref(o, cz_bls12_381_g1_generator(), k);
}
static void bls_g2_mul(void *o, const uint64_t *k)
{
    cz_bls12_381_g2_t_ref(o, cz_bls12_381_g2_generator(), k);
}

static const curve_t CURVES[2] = {
    {CZ_CURVE_BN254, cz_bn254_fr_modulus, 64, 128, bn_g1_mul, bn_g2_mul, cz_bn254_g1_t_fr},
    {CZ_CURVE_BLS12_381, cz_bls12_381_fr_modulus, 96, 192, bls_g1_mul, bls_g2_mul, cz_bls12_381_g1_t_fr},
};

/* L_c(tau) over the points x_m = omega^m, m < n: prod_{m != c} (tau - x_m) / (x_c - x_m) */
static void lagrange_naive(mpz_t out, const mpz_t tau, const mpz_t omega, unsigned long n, unsigned long c,
                           const mpz_t r)
{
    mpz_t num, den, xc, xm, t;
    mpz_inits(num, den, xc, xm, t, NULL);
    mpz_set_ui(num, 1);
    mpz_set_ui(den, 1);
    mpz_powm_ui(xc, omega, c, r);
    for (unsigned long m = 0; m < n; m++) {
        if (m == c) continue;
        mpz_powm_ui(xm, omega, m, r);
        mpz_sub(t, tau, xm);
        mpz_mul(num, num, t);
        mpz_mod(num, num, r);
        mpz_sub(t, xc, xm);
        mpz_mul(den, den, t);
        mpz_mod(den, den, r);
    }
    mpz_invert(den, den, r);
    mpz_mul(out, num, den);
    mpz_mod(out, out, r);
    mpz_clears(num, den, xc, xm, t, NULL);
}

static void point_of(const curve_t *cv, int g2, uint8_t *out, const mpz_t k)
{
    uint64_t l[4];
    mpz_to_limbs(l, 4, k);
    if (g2)
        cv->g2_mul(out, l);
    else
        cv->g1_mul(out, l);
}

/* Recomputes every point of the key from the definitions. */
static void check_key_maths(const curve_t *cv, const circuit_t *c, const char *zkey, const uint8_t tox[4][32])
{
    cz_zkey zk;
    cz_error err;
    if (cz_zkey_load(&zk, zkey, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s", cz_error_msg(&err));
        return;
    }
    mpz_t r, tau, alpha, beta, delta, dinv, omega, omega2, e, L[64], A[8], B[8], C[8], t, u;
    mpz_inits(r, tau, alpha, beta, delta, dinv, omega, omega2, e, t, u, NULL);
    mpz_from_limbs(r, cv->r, 4);
    mpz_t *tv[4] = {&tau, &alpha, &beta, &delta};
    for (int i = 0; i < 4; i++)
        mpz_import(*tv[i], 32, -1, 1, 0, 0, tox[i]);
    mpz_invert(dinv, delta, r);
    unsigned npub = c->npub_out + c->npub_in;
    unsigned long n = 1;
    unsigned k = 0;
    while (n <= (unsigned long)c->nrows + npub)
        n <<= 1, k++;
    CHECK(zk.domain_size == n && zk.n_vars == c->nwires && zk.n_public == npub);
    /* omega_n = 5^((r - 1) / n), omega_2n likewise */
    mpz_sub_ui(e, r, 1);
    mpz_fdiv_q_ui(e, e, n);
    mpz_set_ui(t, 5);
    mpz_powm(omega, t, e, r);
    mpz_sub_ui(e, r, 1);
    mpz_fdiv_q_ui(e, e, 2 * n);
    mpz_powm(omega2, t, e, r);
    for (unsigned long i = 0; i < n; i++) {
        mpz_init(L[i]);
        lagrange_naive(L[i], tau, omega, n, i, r);
    }
    for (unsigned j = 0; j < c->nwires; j++)
        mpz_inits(A[j], B[j], C[j], NULL);
    for (int i = 0; i < c->nrows; i++) {
        const row_t *row = &c->rows[i];
        const int cnt[3] = {row->na, row->nb, row->nc};
        const term_t *ts[3] = {row->a, row->b, row->c};
        mpz_t *dst[3] = {A, B, C};
        for (int m = 0; m < 3; m++)
            for (int q = 0; q < cnt[m]; q++) {
                mpz_set_si(t, ts[m][q].coef);
                mpz_mul(t, t, L[i]);
                mpz_add(dst[m][ts[m][q].wire], dst[m][ts[m][q].wire], t);
                mpz_mod(dst[m][ts[m][q].wire], dst[m][ts[m][q].wire], r);
            }
    }
    for (unsigned s = 0; s <= npub; s++) {
        mpz_add(A[s], A[s], L[c->nrows + s]);
        mpz_mod(A[s], A[s], r);
    }
    uint8_t pt[192];
    int bad = 0;
    for (unsigned j = 0; j < c->nwires; j++) {
        point_of(cv, 0, pt, A[j]);
        bad += memcmp(pt, (uint8_t *)zk.a + j * cv->g1, cv->g1) != 0;
        point_of(cv, 0, pt, B[j]);
        bad += memcmp(pt, (uint8_t *)zk.b1 + j * cv->g1, cv->g1) != 0;
        point_of(cv, 1, pt, B[j]);
        bad += memcmp(pt, (uint8_t *)zk.b2 + j * cv->g2, cv->g2) != 0;
        /* beta A + alpha B + C, / delta for private wires */
        mpz_mul(t, beta, A[j]);
        mpz_mul(u, alpha, B[j]);
        mpz_add(t, t, u);
        mpz_add(t, t, C[j]);
        if (j > npub) mpz_mul(t, t, dinv);
        mpz_mod(t, t, r);
        point_of(cv, 0, pt, t);
        if (j <= npub)
            bad += memcmp(pt, (uint8_t *)zk.ic + j * cv->g1, cv->g1) != 0;
        else
            bad += memcmp(pt, (uint8_t *)zk.c + (j - npub - 1) * cv->g1, cv->g1) != 0;
    }
    CHECK_MSG(bad == 0, "%s %s: %d A/B1/B2/C/IC points differ from the definition", cz_curve_name(cv->curve), c->name,
              bad);
    /* the unused wire: infinity everywhere */
    static const uint8_t zero[192];
    unsigned un = c->nwires - 1;
    CHECK(memcmp((uint8_t *)zk.a + un * cv->g1, zero, cv->g1) == 0 &&
          memcmp((uint8_t *)zk.b2 + un * cv->g2, zero, cv->g2) == 0 &&
          memcmp((uint8_t *)zk.c + (un - npub - 1) * cv->g1, zero, cv->g1) == 0);
    /* H_i = L^{2n}_{2i+1}(tau) / delta */
    bad = 0;
    for (unsigned long i = 0; i < n; i++) {
        lagrange_naive(t, tau, omega2, 2 * n, 2 * i + 1, r);
        mpz_mul(t, t, dinv);
        mpz_mod(t, t, r);
        point_of(cv, 0, pt, t);
        bad += memcmp(pt, (uint8_t *)zk.h + i * cv->g1, cv->g1) != 0;
    }
    CHECK_MSG(bad == 0, "%s %s: %d H points differ from the definition", cz_curve_name(cv->curve), c->name, bad);
    /* header */
    point_of(cv, 0, pt, alpha);
    CHECK(memcmp(pt, zk.alpha1, cv->g1) == 0);
    point_of(cv, 0, pt, beta);
    CHECK(memcmp(pt, zk.beta1, cv->g1) == 0);
    point_of(cv, 1, pt, beta);
    CHECK(memcmp(pt, zk.beta2, cv->g2) == 0);
    point_of(cv, 0, pt, delta);
    CHECK(memcmp(pt, zk.delta1, cv->g1) == 0);
    point_of(cv, 1, pt, delta);
    CHECK(memcmp(pt, zk.delta2, cv->g2) == 0);
    mpz_set_ui(t, 1);
    point_of(cv, 1, pt, t);
    CHECK(memcmp(pt, zk.gamma2, cv->g2) == 0);
    for (unsigned long i = 0; i < n; i++)
        mpz_clear(L[i]);
    for (unsigned j = 0; j < c->nwires; j++)
        mpz_clears(A[j], B[j], C[j], NULL);
    mpz_clears(r, tau, alpha, beta, delta, dinv, omega, omega2, e, t, u, NULL);
    cz_zkey_free(&zk);
}

static void test_hand_circuit(const curve_t *cv, const circuit_t *c, cz_rng *rng)
{
    uint8_t buf[4096];
    size_t len = build_r1cs(buf, c, cv->curve);
    cz_r1cs r;
    cz_error err;
    cz_error_clear(&err);
    if (cz_r1cs_load_mem(&r, buf, len, c->name, 0, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s: %s", c->name, cz_error_msg(&err));
        return;
    }
    /* the witness satisfies the circuit */
    cz_wtns w = {cv->curve, c->nwires, aligned_alloc(64, 64 * 8), NULL};
    for (unsigned i = 0; i < c->nwires; i++) {
        uint64_t l[4] = {0};
        coef_bytes((uint8_t *)l, c->witness[i], cv->r);
        cv->fr_from_canonical((uint8_t *)w.values + 32 * i, l);
    }
    uint64_t first;
    CHECK(cz_r1cs_check(&r, &w, &first, &err) == CZ_OK);

    char zp[512];
    snprintf(zp, sizeof zp, "%s/hand.zkey", tmpdir);
    /* fixed toxic waste: random, then through the key maths oracle */
    uint8_t tox[4][32];
    for (int i = 0; i < 4; i++)
        random_scalar((uint64_t *)tox[i], cv->r, rng);
    cz_setup_opts o;
    memset(&o, 0, sizeof o);
    o.tau = tox[0];
    o.alpha = tox[1];
    o.beta = tox[2];
    o.delta = tox[3];
    o.row_block = 2; /* public-input rows across block boundaries */
    cz_status st = cz_groth16_setup_dev(&r, zp, &o, NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", c->name, cz_error_msg(&err));
    if (st == CZ_OK) {
        check_key_maths(cv, c, zp, (const uint8_t(*)[32])tox);
        int ok;
        CHECK(prove_verify(zp, &w, &ok) == CZ_OK && ok);
    }
    /* a seeded key: its toxic waste is reproducible and checks out too */
    memset(&o, 0, sizeof o);
    o.use_seed = 1;
    o.seed = 77;
    o.row_block = 3;
    unsigned npub = c->npub_out + c->npub_in;
    CHECK(cz_groth16_setup_toxic(cv->curve, cz_groth16_domain_log((uint64_t)c->nrows, npub), &o, tox[0], tox[1], tox[2],
                                 tox[3], &err) == CZ_OK);
    if (cz_groth16_setup_dev(&r, zp, &o, NULL, &err) == CZ_OK) check_key_maths(cv, c, zp, (const uint8_t(*)[32])tox);

    /* tau on the domain is refused: tau = 1 */
    uint8_t one[32] = {1};
    memset(&o, 0, sizeof o);
    o.tau = one;
    CHECK(cz_groth16_setup_dev(&r, zp, &o, NULL, &err) == CZ_ERR_INVALID_ARG);
    /* ... and so is tau on the prover's coset: omega_2n^3 (tau^n = -1 = g^n) */
    {
        mpz_t rr, e, t;
        mpz_inits(rr, e, t, NULL);
        mpz_from_limbs(rr, cv->r, 4);
        unsigned long n2 = 2ul << cz_groth16_domain_log((uint64_t)c->nrows, c->npub_out + c->npub_in);
        mpz_sub_ui(e, rr, 1);
        mpz_fdiv_q_ui(e, e, n2);
        mpz_mul_ui(e, e, 3);
        mpz_set_ui(t, 5);
        mpz_powm(t, t, e, rr);
        uint8_t cos[32] = {0};
        mpz_export(cos, NULL, -1, 1, 0, 0, t);
        o.tau = cos;
        CHECK(cz_groth16_setup_dev(&r, zp, &o, NULL, &err) == CZ_ERR_INVALID_ARG);
        mpz_clears(rr, e, t, NULL);
    }
    uint8_t zero[32] = {0};
    o.tau = NULL;
    o.delta = zero;
    CHECK(cz_groth16_setup_dev(&r, zp, &o, NULL, &err) == CZ_ERR_INVALID_ARG);
    /* an unwritable destination: CZ_ERR_IO, nothing left */
    memset(&o, 0, sizeof o);
    CHECK(cz_groth16_setup_dev(&r, "/nonexistent-dir/x.zkey", &o, NULL, &err) == CZ_ERR_IO);
    free(w.values);
    cz_r1cs_free(&r);
}

/* A curve value that is no curve: both entry points refuse it
 * (CZ_ERR_UNSUPPORTED, "unknown curve N") and write no key. */
static void test_unknown_curve(void)
{
    cz_r1cs r;
    cz_error err;
    cz_error_clear(&err);
    if (cz_r1cs_load(&r, FIX "bn128/poseidon/circuit.r1cs", 0, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s", cz_error_msg(&err));
        return;
    }
    char zp[600];
    snprintf(zp, sizeof zp, "%s/unknown_curve.zkey", tmpdir);
    static const cz_curve bad[] = {CZ_CURVE_NONE, (cz_curve)(CZ_CURVE_COUNT + 1), (cz_curve)99, (cz_curve)-1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "unknown curve %d", (int)bad[i]);
        cz_r1cs rb = r;
        rb.curve = bad[i];
        cz_error_clear(&err);
        CHECK(cz_groth16_setup_dev(&rb, zp, NULL, NULL, &err) == CZ_ERR_UNSUPPORTED &&
              strstr(cz_error_msg(&err), want));
        CHECK(access(zp, F_OK) != 0);
        uint8_t t[4][32];
        cz_error_clear(&err);
        CHECK(cz_groth16_setup_toxic(bad[i], 8, NULL, t[0], t[1], t[2], t[3], &err) == CZ_ERR_UNSUPPORTED &&
              strstr(cz_error_msg(&err), want));
    }
    cz_r1cs_free(&r);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_setup");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_setup.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK(cz_groth16_domain_log(0, 0) == 0);
    CHECK(cz_groth16_domain_log(1021, 1) == 10);
    CHECK(cz_groth16_domain_log(1022, 2) == 11);
    CHECK(cz_groth16_domain_log(3, 0) == 2);

    test_fixed_base(&rng);
    test_save_roundtrip();
    for (int i = 0; i < NFIX; i++)
        test_fixture_setup(FIXTURES[i]);
    for (int ci = 0; ci < 2; ci++) {
        test_hand_circuit(&CURVES[ci], &CIRC_A, &rng);
        test_hand_circuit(&CURVES[ci], &CIRC_B, &rng);
    }
    test_unknown_curve();
    /* nothing but our files in the temporary directory */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return cz_test_finish("test_setup");
}
