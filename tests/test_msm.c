/*
 * msm tests, all four groups: Pippenger/Straus MSM and the batch-affine adder.
 *
 * Oracles:
 *  - naive: sum of ec mul_fr(P_i, s_i) with Jacobian additions (sizes up to
 *    1000, G2 up to 100 in short runs);
 *  - linearity: the bases are built as a random walk P_{i+1} = P_i + e_j G
 *    from a table of 16 random e_j, so each P_i = k_i G with k_i known, and
 *    sum s_i P_i = (sum s_i k_i) G: one scalar multiplication, for any n;
 *  - the Jacobian adder of ec for the batch-affine adder.
 * Every size runs through the automatic plan and through each method forced
 * (Straus, XYZZ buckets, batch-affine buckets), single- and multithreaded.
 * Edge inputs: n = 0..3, zero scalars (all, most), 1, 2 (all points in one
 * bucket), r - 1, digit extremes for every window c (values whose Booth digits
 * are all +2^(c-1), all -2^(c-1), or zero with carries), repeated bases, P and
 * -P, bases at infinity, canonical vs Montgomery scalars, scalars >= r
 * rejected, caller scratch, chunking.
 */
#include <string.h>

#include "ec/ec_batch.h"
#include "msm/msm.h"
#include "test_util.h"

typedef struct {
    const char *name;
    size_t aff, jac;
    int g1;
    void (*add)(void *, const void *, const void *);
    void (*from_affine)(void *, const void *);
    void (*to_affine)(void *, const void *);
    cz_status (*batch_to_affine)(void *, const void *, size_t);
    int (*eq)(const void *, const void *);
    void (*mul_fr)(void *, const void *, const void *);
    const void *(*generator)(void);
    void (*set_inf)(void *);
    int (*is_inf)(const void *);
    void (*neg)(void *, const void *);
    void (*affine_neg)(void *, const void *);
    int (*affine_is_inf)(const void *);
    int (*affine_eq)(const void *, const void *);
    cz_status (*msm)(void *, const void *, const uint8_t *, size_t, const cz_msm_opts *);
    size_t (*scratch_size)(size_t, int);
    size_t (*scratch_size_opts)(size_t, int, const cz_msm_opts *);
    cz_status (*badd)(void *, const void *, const void *, size_t, void *);
    void (*bacc)(void *, const uint32_t *, const void *, const uint32_t *, size_t, void *);
    size_t (*bscratch)(size_t);
    /* scalar field (4 limbs, Montgomery) */
    void (*fr_random)(void *, cz_rng *);
    void (*fr_add)(void *, const void *, const void *);
    void (*fr_mul)(void *, const void *, const void *);
    void (*fr_neg)(void *, const void *);
    void (*fr_from_canonical)(void *, const uint64_t *);
    void (*fr_to_canonical)(uint64_t *, const void *);
    const uint64_t *fr_modulus;
    int fr_bits;
} group_t;

typedef void (*f_ppp)(void *, const void *, const void *);
typedef void (*f_pp)(void *, const void *);

#define GROUP(G, FR, IS_G1)                                                                                            \
    {                                                                                                                  \
#G, sizeof(G##_affine), sizeof(G), IS_G1, (f_ppp)G##_add, (f_pp)G##_from_affine, (f_pp)G##_to_affine,          \
            (cz_status(*)(void *, const void *, size_t))G##_batch_to_affine,                                           \
            (int (*)(const void *, const void *))G##_eq, (f_ppp)G##_mul_fr, (const void *(*)(void))G##_generator,      \
            (void (*)(void *))G##_set_inf, (int (*)(const void *))G##_is_inf, (f_pp)G##_neg, (f_pp)G##_affine_neg,     \
            (int (*)(const void *))G##_affine_is_inf, (int (*)(const void *, const void *))G##_affine_eq,              \
            (cz_status(*)(void *, const void *, const uint8_t *, size_t, const cz_msm_opts *))G##_msm,                 \
            G##_msm_scratch_size, G##_msm_scratch_size_opts,                                                           \
            (cz_status(*)(void *, const void *, const void *, size_t, void *))G##_batch_add_affine,                    \
            (void (*)(void *, const uint32_t *, const void *, const uint32_t *, size_t, void *))G##_batch_acc_affine,  \
            G##_batch_scratch_size, (void (*)(void *, cz_rng *))FR##_random, (f_ppp)FR##_add, (f_ppp)FR##_mul,         \
            (f_pp)FR##_neg, (void (*)(void *, const uint64_t *))FR##_from_canonical,                                   \
            (void (*)(uint64_t *, const void *))FR##_to_canonical, FR##_modulus, FR##_BITS                             \
    }

static const group_t groups[] = {
    GROUP(cz_bls12_381_g1, cz_bls12_381_fr, 1),
    GROUP(cz_bls12_381_g2, cz_bls12_381_fr, 0),
    GROUP(cz_bn254_g1, cz_bn254_fr, 1),
    GROUP(cz_bn254_g2, cz_bn254_fr, 0),
};

typedef struct {
    uint64_t l[4];
} fr_t; /* both scalar fields: 4 limbs */

/* ---- inputs ------------------------------------------------------------------ */

/* An MSM instance: bases with known logs (k[i] G), scalars in both forms. */
typedef struct {
    const group_t *g;
    size_t n;
    uint8_t *bases; /* n affine */
    fr_t *k;        /* bases[i] = k[i] G (k = 0 for infinity) */
    fr_t *s;        /* scalars, Montgomery */
    uint8_t *canon; /* scalars, canonical little-endian bytes */
} inst_t;

#define AFF(I, i) ((I)->bases + (size_t)(i) * (I)->g->aff)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* mul_fr of the generator */
static void gen_mul(const group_t *g, void *out, const fr_t *k)
{
    uint8_t G[512];
    g->from_affine(G, g->generator());
    g->mul_fr(out, G, k);
}

static void fr_zero(fr_t *a)
{
    memset(a, 0, sizeof *a);
}
static void fr_from_u64(const group_t *g, fr_t *a, uint64_t v)
{
    uint64_t c[4] = {v, 0, 0, 0};
    g->fr_from_canonical(a, c);
}

/* Bases by a random walk from k0 G with steps from a table of 16 random
 * multiples of G: cheap (one addition per point) and with known logs. */
static void inst_init(inst_t *I, const group_t *g, size_t n, cz_rng *rng)
{
    I->g = g;
    I->n = n;
    I->bases = xmalloc(n * g->aff);
    I->k = xmalloc(n * sizeof(fr_t));
    I->s = xmalloc(n * sizeof(fr_t));
    I->canon = xmalloc(n * 32);
    uint8_t *jac = xmalloc(n * g->jac);
    uint8_t step[16][512];
    fr_t e[16], k;
    for (int j = 0; j < 16; j++) {
        g->fr_random(&e[j], rng);
        gen_mul(g, step[j], &e[j]);
    }
    g->fr_random(&k, rng);
    uint8_t P[512];
    gen_mul(g, P, &k);
    for (size_t i = 0; i < n; i++) {
        memcpy(jac + i * g->jac, P, g->jac);
        I->k[i] = k;
        int j = (int)(cz_rng_u64(rng) & 15);
        g->add(P, P, step[j]);
        g->fr_add(&k, &k, &e[j]);
    }
    if (g->batch_to_affine(I->bases, jac, n) != CZ_OK) {
        fprintf(stderr, "batch_to_affine failed\n");
        exit(2);
    }
    free(jac);
    for (size_t i = 0; i < n; i++)
        g->fr_random(&I->s[i], rng);
}

static void inst_free(inst_t *I)
{
    free(I->bases);
    free(I->k);
    free(I->s);
    free(I->canon);
}

/* refresh the canonical bytes after changing s */
static void inst_sync(inst_t *I)
{
    for (size_t i = 0; i < I->n; i++) {
        uint64_t c[4];
        I->g->fr_to_canonical(c, &I->s[i]);
        for (int b = 0; b < 32; b++)
            I->canon[32 * i + b] = (uint8_t)(c[b / 8] >> (8 * (b % 8)));
    }
}

static void inst_set_base_inf(inst_t *I, size_t i)
{
    memset(AFF(I, i), 0, I->g->aff);
    fr_zero(&I->k[i]);
}

static void inst_set_base(inst_t *I, size_t i, size_t from, int negate)
{
    const group_t *g = I->g;
    if (negate) {
        g->affine_neg(AFF(I, i), AFF(I, from));
        g->fr_neg(&I->k[i], &I->k[from]);
    } else {
        memcpy(AFF(I, i), AFF(I, from), g->aff);
        I->k[i] = I->k[from];
    }
}

/* (sum s_i k_i) G */
static void oracle_linear(const inst_t *I, void *out)
{
    const group_t *g = I->g;
    fr_t acc, t;
    fr_zero(&acc);
    for (size_t i = 0; i < I->n; i++) {
        g->fr_mul(&t, &I->s[i], &I->k[i]);
        g->fr_add(&acc, &acc, &t);
    }
    gen_mul(g, out, &acc);
}

/* sum mul_fr(P_i, s_i) */
static void oracle_naive(const inst_t *I, void *out)
{
    const group_t *g = I->g;
    uint8_t P[512], Q[512];
    g->set_inf(out);
    for (size_t i = 0; i < I->n; i++) {
        g->from_affine(P, AFF(I, i));
        g->mul_fr(Q, P, &I->s[i]);
        g->add(out, out, Q);
    }
}

/* ---- running the MSM ------------------------------------------------------------ */

static cz_pool *pool1, *pool2, *pool5, *pool16;

static const char *method_name(cz_msm_method m)
{
    static const char *nm[] = {"auto", "straus", "xyzz", "batch"};
    return nm[m];
}

/* MSM with the given options (form picks the scalar array) == expect */
static void check_msm(const inst_t *I, const void *expect, cz_msm_opts o, const char *what)
{
    const group_t *g = I->g;
    uint8_t R[512];
    const uint8_t *sc = o.form == CZ_MSM_MONTGOMERY ? (const uint8_t *)I->s : I->canon;
    cz_status st = g->msm(R, I->bases, sc, I->n, &o);
    CHECK_MSG(st == CZ_OK && g->eq(R, expect), "%s %s n=%zu method=%s c=%d splits=%d form=%d: status %s", g->name, what,
              I->n, method_name(o.method), o.window, o.splits, (int)o.form, cz_status_str(st));
}

/* the automatic plan and every method, canonical and Montgomery, several pools */
static void check_all_methods(const inst_t *I, const void *expect, const char *what, int straus_ok)
{
    cz_msm_opts o = {0};
    o.pool = pool2;
    check_msm(I, expect, o, what);
    o.form = CZ_MSM_MONTGOMERY;
    o.pool = pool1;
    check_msm(I, expect, o, what);
    o.form = CZ_MSM_CANONICAL;
    o.pool = pool5;
    o.method = CZ_MSM_PIPPENGER_XYZZ;
    check_msm(I, expect, o, what);
    o.method = CZ_MSM_PIPPENGER_BATCH;
    check_msm(I, expect, o, what);
    o.pool = pool1;
    o.form = CZ_MSM_MONTGOMERY;
    o.batch = 7; /* tiny batches: many deferred points */
    check_msm(I, expect, o, what);
    o.batch = 0;
    if (straus_ok) {
        o.method = CZ_MSM_STRAUS;
        o.pool = pool2;
        check_msm(I, expect, o, what);
    }
}

/* ---- tests ------------------------------------------------------------------- */

static int g_scale_big; /* full-size runs (CZ_TEST_SCALE >= 0.5) */

static void test_random_sizes(const group_t *g, cz_rng *rng)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 100, 1000, 4097};
    for (size_t si = 0; si < CZ_ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        if (!g_scale_big && n > 1000) continue;
        inst_t I;
        inst_init(&I, g, n, rng);
        inst_sync(&I);
        uint8_t lin[512], nai[512];
        oracle_linear(&I, lin);
        size_t naive_max = g_scale_big ? 1000 : (g->g1 ? 100 : 31);
        if (n <= naive_max) {
            oracle_naive(&I, nai);
            CHECK_MSG(g->eq(lin, nai), "%s: oracles disagree at n=%zu", g->name, n);
        }
        check_all_methods(&I, lin, "random", n <= 1000);
        if (n == 0) {
            uint8_t R[512];
            CHECK(g->msm(R, NULL, NULL, 0, NULL) == CZ_OK && g->is_inf(R));
        }
        inst_free(&I);
    }
}

/* a G1 size above 2^14: big windows, several threads, split point ranges */
static void test_large(const group_t *g, cz_rng *rng)
{
    size_t n = g_scale_big ? 40000 : 5000;
    inst_t I;
    inst_init(&I, g, n, rng);
    /* some zeros and ones mixed in, as in a witness */
    for (size_t i = 0; i < n; i += 7)
        fr_zero(&I.s[i]);
    for (size_t i = 3; i < n; i += 11)
        fr_from_u64(g, &I.s[i], 1);
    inst_sync(&I);
    uint8_t lin[512];
    oracle_linear(&I, lin);
    cz_msm_opts o = {0};
    o.pool = pool2;
    check_msm(&I, lin, o, "large auto");
    o.pool = pool5;
    o.method = CZ_MSM_PIPPENGER_BATCH;
    o.window = 16;
    o.splits = 3;
    check_msm(&I, lin, o, "large c=16 split");
    o.window = 13;
    o.splits = 0;
    o.form = CZ_MSM_MONTGOMERY;
    check_msm(&I, lin, o, "large c=13");
    /* chunks */
    cz_msm_opts oc = {0};
    oc.pool = pool2;
    oc.chunk = n / 3 + 1;
    check_msm(&I, lin, oc, "large chunked");
    inst_free(&I);
}

/* scalars whose Booth digits sit at the extremes of window c */
static void pattern_scalar(const group_t *g, fr_t *out, int c, int kind)
{
    uint64_t v[4] = {0, 0, 0, 0};
    int top = g->fr_bits - 1; /* keep below 2^(bits-1) < r */
    for (int w = 0; w * c < top; w++) {
        uint64_t p;
        switch (kind) {
        case 0: p = ((uint64_t)1 << (c - 1)) - 1; break;         /* 011..1: digit +2^(c-1) */
        case 1: p = (w & 1) ? 0 : (uint64_t)1 << (c - 1); break; /* 100..0 after 0: -2^(c-1) */
        case 2: p = ((uint64_t)1 << c) - 1; break;               /* 111..1: zero digits, carries */
        default: p = (uint64_t)1 << (c - 1); break;              /* 100..0 everywhere */
        }
        for (int b = 0; b < c; b++) {
            int bit = w * c + b;
            if (bit < top && ((p >> b) & 1)) v[bit / 64] |= (uint64_t)1 << (bit % 64);
        }
    }
    g->fr_from_canonical(out, v);
}

static void test_digit_extremes(const group_t *g, cz_rng *rng)
{
    size_t n = 40;
    inst_t I;
    inst_init(&I, g, n, rng);
    for (int c = 2; c <= CZ_MSM_MAX_WINDOW; c++) {
        for (size_t i = 0; i < n; i++) {
            if (i < 32)
                pattern_scalar(g, &I.s[i], c, (int)(i % 4));
            else
                g->fr_random(&I.s[i], rng);
        }
        inst_sync(&I);
        uint8_t lin[512];
        oracle_linear(&I, lin);
        cz_msm_opts o = {0};
        o.pool = pool2;
        o.window = c;
        o.method = CZ_MSM_PIPPENGER_XYZZ;
        check_msm(&I, lin, o, "digit extremes");
        o.method = CZ_MSM_PIPPENGER_BATCH;
        o.form = CZ_MSM_MONTGOMERY;
        check_msm(&I, lin, o, "digit extremes");
    }
    /* the same patterns against the naive oracle once (window 4 = Straus) */
    for (size_t i = 0; i < n; i++)
        pattern_scalar(g, &I.s[i], 4 + (int)(i % 5), (int)(i % 4));
    inst_sync(&I);
    uint8_t nai[512];
    oracle_naive(&I, nai);
    check_all_methods(&I, nai, "digit extremes naive", 1);
    inst_free(&I);
}

static void test_edge_scalars(const group_t *g, cz_rng *rng)
{
    size_t n = g_scale_big ? 700 : 300;
    inst_t I;
    inst_init(&I, g, n, rng);
    uint8_t lin[512], R[512];
    fr_t one, two, rm1;
    fr_from_u64(g, &one, 1);
    fr_from_u64(g, &two, 2);
    g->fr_neg(&rm1, &one);

    /* all zero */
    for (size_t i = 0; i < n; i++)
        fr_zero(&I.s[i]);
    inst_sync(&I);
    {
        cz_msm_opts o = {0};
        o.pool = pool2;
        CHECK(g->msm(R, I.bases, I.canon, n, &o) == CZ_OK && g->is_inf(R));
        o.form = CZ_MSM_MONTGOMERY;
        CHECK(g->msm(R, I.bases, (const uint8_t *)I.s, n, &o) == CZ_OK && g->is_inf(R));
    }
    /* most zero */
    for (size_t i = 0; i < n; i += 37)
        g->fr_random(&I.s[i], rng);
    inst_sync(&I);
    oracle_linear(&I, lin);
    check_all_methods(&I, lin, "most zero", 1);
    /* all one (the direct sum), all two (every point in one bucket), all r-1 */
    const fr_t *vals[3] = {&one, &two, &rm1};
    const char *names[3] = {"all one", "all two", "all r-1"};
    for (int v = 0; v < 3; v++) {
        for (size_t i = 0; i < n; i++)
            I.s[i] = *vals[v];
        inst_sync(&I);
        oracle_linear(&I, lin);
        check_all_methods(&I, lin, names[v], 0);
    }
    /* a mix of 0, 1, 2, r-1, r-2 and random */
    for (size_t i = 0; i < n; i++) {
        switch (cz_rng_u64(rng) % 6) {
        case 0: fr_zero(&I.s[i]); break;
        case 1: I.s[i] = one; break;
        case 2: I.s[i] = two; break;
        case 3: I.s[i] = rm1; break;
        case 4: g->fr_add(&I.s[i], &rm1, &rm1); break;
        default: g->fr_random(&I.s[i], rng); break;
        }
    }
    inst_sync(&I);
    oracle_linear(&I, lin);
    check_all_methods(&I, lin, "mixed small", 1);
    inst_free(&I);

    /* n = 1, 2, 3 with special scalars against the naive oracle */
    for (size_t m = 1; m <= 3; m++) {
        inst_t J;
        inst_init(&J, g, m, rng);
        for (int v = 0; v < 3; v++) {
            for (size_t i = 0; i < m; i++)
                J.s[i] = *vals[(v + i) % 3];
            inst_sync(&J);
            uint8_t nai[512];
            oracle_naive(&J, nai);
            check_all_methods(&J, nai, "tiny special", 1);
        }
        inst_free(&J);
    }
}

static void test_edge_bases(const group_t *g, cz_rng *rng)
{
    size_t n = g_scale_big ? 900 : 300;
    inst_t I;
    inst_init(&I, g, n, rng);
    /* repeated bases: only 3 distinct points, random scalars */
    for (size_t i = 3; i < n; i++)
        inst_set_base(&I, i, i % 3, 0);
    inst_sync(&I);
    uint8_t lin[512];
    oracle_linear(&I, lin);
    check_all_methods(&I, lin, "repeated bases", 1);
    /* repeated bases with equal scalars: the same point into the same bucket
     * again and again (doublings inside the batches) */
    fr_t s;
    g->fr_random(&s, rng);
    for (size_t i = 0; i < n; i++)
        I.s[i] = s;
    inst_sync(&I);
    oracle_linear(&I, lin);
    check_all_methods(&I, lin, "repeated bases, equal scalars", 0);
    /* P and -P with equal scalars: everything cancels */
    inst_t J;
    inst_init(&J, g, n, rng);
    for (size_t i = 0; i + 1 < n; i += 2) {
        inst_set_base(&J, i + 1, i, 1);
        J.s[i + 1] = J.s[i];
    }
    inst_sync(&J);
    oracle_linear(&J, lin);
    if (n % 2 == 0) CHECK_MSG(g->is_inf(lin), "%s: P - P oracle not infinity", g->name);
    check_all_methods(&J, lin, "P and -P", 1);
    /* P and -P with random scalars */
    for (size_t i = 0; i < n; i++)
        g->fr_random(&J.s[i], rng);
    inst_sync(&J);
    oracle_linear(&J, lin);
    check_all_methods(&J, lin, "P and -P random", 1);
    /* bases at infinity: some, then all */
    for (size_t i = 0; i < n; i += 3)
        inst_set_base_inf(&J, i);
    oracle_linear(&J, lin);
    check_all_methods(&J, lin, "some infinity", 1);
    for (size_t i = 0; i < n; i++)
        inst_set_base_inf(&J, i);
    cz_msm_opts o = {0};
    uint8_t R[512];
    CHECK(g->msm(R, J.bases, J.canon, n, &o) == CZ_OK && g->is_inf(R));
    /* naive oracle on a small instance with all of it */
    inst_t K;
    inst_init(&K, g, 24, rng);
    inst_set_base(&K, 1, 0, 0);
    inst_set_base(&K, 2, 0, 1);
    inst_set_base_inf(&K, 3);
    inst_set_base(&K, 5, 4, 1);
    K.s[5] = K.s[4];
    K.s[2] = K.s[0];
    inst_sync(&K);
    uint8_t nai[512];
    oracle_naive(&K, nai);
    check_all_methods(&K, nai, "small edge naive", 1);
    inst_free(&K);
    inst_free(&J);
    inst_free(&I);
}

static void test_api(const group_t *g, cz_rng *rng)
{
    size_t n = 500;
    inst_t I;
    inst_init(&I, g, n, rng);
    inst_sync(&I);
    uint8_t lin[512], R[512];
    oracle_linear(&I, lin);
    /* caller scratch, exactly the reported size, unaligned */
    size_t need = g->scratch_size(n, cz_pool_threads(pool2));
    CHECK(need > 0);
    uint8_t *buf = xmalloc(need + 1);
    cz_msm_opts o = {0};
    o.pool = pool2;
    o.scratch = buf + 1;
    o.scratch_len = need;
    check_msm(&I, lin, o, "caller scratch");
    o.scratch_len = need - 1;
    CHECK(g->msm(R, I.bases, I.canon, n, &o) == CZ_ERR_INVALID_ARG);
    free(buf);
    /* caller scratch full of garbage, many threads, and most scalars zero: the
     * plan for the points left (batch-affine) may differ from the one the
     * scratch was sized for, and must not trust any scratch contents */
    {
        inst_t Z;
        size_t nz = 1024;
        inst_init(&Z, g, nz, rng);
        for (size_t i = 0; i < nz; i++)
            if (i % 4) fr_zero(&Z.s[i]);
        inst_sync(&Z);
        uint8_t zl[512];
        oracle_linear(&Z, zl);
        int threads[] = {1, 2, 5, 16};
        for (size_t k = 0; k < CZ_ARRAY_LEN(threads); k++) {
            cz_pool *pk = threads[k] == 16 ? pool16 : threads[k] == 5 ? pool5 : threads[k] == 2 ? pool2 : pool1;
            size_t zneed = g->scratch_size(nz, cz_pool_threads(pk));
            uint8_t *zb = xmalloc(zneed);
            for (int rep = 0; rep < 2; rep++) {
                memset(zb, rep ? 0xff : 0xa5, zneed);
                cz_msm_opts oz = {0};
                oz.pool = pk;
                oz.scratch = zb;
                oz.scratch_len = zneed;
                check_msm(&Z, zl, oz, "garbage scratch");
            }
            free(zb);
        }
        inst_free(&Z);
    }
    /* the sizes for forced plans are at least what they need */
    cz_msm_opts of = {0};
    of.method = CZ_MSM_PIPPENGER_BATCH;
    of.window = 16;
    CHECK(g->scratch_size_opts(n, 2, &of) >= g->scratch_size_opts(n, 2, NULL));
    /* scratch grows with n but not beyond the chunk */
    CHECK(g->scratch_size(1u << 10, 2) <= g->scratch_size(1u << 16, 2));
    CHECK(g->scratch_size(CZ_MSM_CHUNK * 3, 2) == g->scratch_size(CZ_MSM_CHUNK, 2));
    /* bad arguments */
    CHECK(g->msm(NULL, I.bases, I.canon, n, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(g->msm(R, NULL, I.canon, n, NULL) == CZ_ERR_INVALID_ARG);
    CHECK(g->msm(R, I.bases, NULL, n, NULL) == CZ_ERR_INVALID_ARG);
    cz_msm_opts ob = {0};
    ob.window = 1;
    CHECK(g->msm(R, I.bases, I.canon, n, &ob) == CZ_ERR_INVALID_ARG);
    ob.window = CZ_MSM_MAX_WINDOW + 1;
    CHECK(g->msm(R, I.bases, I.canon, n, &ob) == CZ_ERR_INVALID_ARG);
    ob.window = 0;
    ob.form = (cz_msm_scalar_form)7;
    CHECK(g->msm(R, I.bases, I.canon, n, &ob) == CZ_ERR_INVALID_ARG);
    /* scalars >= r: rejected in both forms, r set to infinity */
    uint8_t *bad = xmalloc(n * 32);
    memcpy(bad, I.canon, n * 32);
    for (int b = 0; b < 32; b++)
        bad[32 * 17 + b] = (uint8_t)(g->fr_modulus[b / 8] >> (8 * (b % 8)));
    cz_msm_opts oc = {0};
    CHECK(g->msm(R, I.bases, bad, n, &oc) == CZ_ERR_RANGE && g->is_inf(R));
    memset(bad + 32 * 17, 0xff, 32);
    CHECK(g->msm(R, I.bases, bad, n, &oc) == CZ_ERR_RANGE);
    oc.form = CZ_MSM_MONTGOMERY;
    CHECK(g->msm(R, I.bases, bad, n, &oc) == CZ_ERR_RANGE);
    /* r - 1 itself is accepted */
    uint64_t rm1[4];
    memcpy(rm1, g->fr_modulus, sizeof rm1);
    rm1[0] -= 1;
    for (int b = 0; b < 32; b++)
        bad[32 * 17 + b] = (uint8_t)(rm1[b / 8] >> (8 * (b % 8)));
    oc.form = CZ_MSM_CANONICAL;
    CHECK(g->msm(R, I.bases, bad, n, &oc) == CZ_OK);
    free(bad);
    /* one thread == several threads == default pool, bit-exact in affine */
    cz_msm_opts o1 = {0}, o5 = {0}, od = {0};
    o1.pool = pool1;
    o5.pool = pool5;
    uint8_t R1[512], R5[512], Rd[512], A1[256], A5[256], Ad[256];
    CHECK(g->msm(R1, I.bases, I.canon, n, &o1) == CZ_OK);
    CHECK(g->msm(R5, I.bases, I.canon, n, &o5) == CZ_OK);
    CHECK(g->msm(Rd, I.bases, I.canon, n, &od) == CZ_OK);
    g->to_affine(A1, R1);
    g->to_affine(A5, R5);
    g->to_affine(Ad, Rd);
    CHECK(g->affine_eq(A1, A5) && g->affine_eq(A1, Ad) && g->eq(R1, lin));
    inst_free(&I);
}

/* batch-affine adder against Jacobian additions */
static void test_batch_add(const group_t *g, cz_rng *rng)
{
    size_t n = 64;
    inst_t I;
    inst_init(&I, g, 2 * n, rng);
    uint8_t *a = xmalloc(n * g->aff), *b = xmalloc(n * g->aff), *r = xmalloc(n * g->aff);
    uint8_t *expect = xmalloc(n * g->aff);
    /* pair kinds: random, P + P, P + -P, inf + P, P + inf, inf + inf */
    for (size_t i = 0; i < n; i++) {
        uint8_t *ai = a + i * g->aff, *bi = b + i * g->aff;
        memcpy(ai, AFF(&I, i), g->aff);
        memcpy(bi, AFF(&I, n + i), g->aff);
        switch (i % 8) {
        case 1: memcpy(bi, ai, g->aff); break;
        case 2: g->affine_neg(bi, ai); break;
        case 3: memset(ai, 0, g->aff); break;
        case 4: memset(bi, 0, g->aff); break;
        case 5: memset(ai, 0, g->aff), memset(bi, 0, g->aff); break;
        default: break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t P[512], Q[512];
        g->from_affine(P, a + i * g->aff);
        g->from_affine(Q, b + i * g->aff);
        g->add(P, P, Q);
        g->to_affine(expect + i * g->aff, P);
    }
    /* disjoint output, internal scratch */
    CHECK(g->badd(r, a, b, n, NULL) == CZ_OK);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= g->affine_eq(r + i * g->aff, expect + i * g->aff);
    CHECK_MSG(ok, "%s: batch_add_affine disjoint", g->name);
    /* r == a and r == b, caller scratch */
    void *scr = xmalloc(g->bscratch(n));
    uint8_t *a2 = xmalloc(n * g->aff), *b2 = xmalloc(n * g->aff);
    memcpy(a2, a, n * g->aff);
    memcpy(b2, b, n * g->aff);
    CHECK(g->badd(a2, a2, b, n, scr) == CZ_OK);
    CHECK(g->badd(b2, a, b2, n, scr) == CZ_OK);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= g->affine_eq(a2 + i * g->aff, expect + i * g->aff) & g->affine_eq(b2 + i * g->aff, expect + i * g->aff);
    CHECK_MSG(ok, "%s: batch_add_affine aliased", g->name);
    /* r == a == b: doublings */
    memcpy(a2, a, n * g->aff);
    CHECK(g->badd(a2, a2, a2, n, scr) == CZ_OK);
    ok = 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t P[512], E[256];
        g->from_affine(P, a + i * g->aff);
        g->add(P, P, P);
        g->to_affine(E, P);
        ok &= g->affine_eq(a2 + i * g->aff, E);
    }
    CHECK_MSG(ok, "%s: batch_add_affine doubling", g->name);
    CHECK(g->badd(r, a, b, 0, NULL) == CZ_OK);
    /* short batches (one chain empty or uneven), from every offset */
    ok = 1;
    for (size_t len = 1; len <= 5; len++) {
        for (size_t off = 0; off + len <= n; off += 3) {
            CHECK(g->badd(r, a + off * g->aff, b + off * g->aff, len, scr) == CZ_OK);
            for (size_t i = 0; i < len; i++)
                ok &= g->affine_eq(r + i * g->aff, expect + (off + i) * g->aff);
        }
    }
    CHECK_MSG(ok, "%s: batch_add_affine short batches", g->name);
    /* accumulating form with index maps: acc[ai[i]] += q[qi[i]], reversed */
    uint32_t ai[64], qi[64];
    for (size_t i = 0; i < n; i++)
        ai[i] = (uint32_t)(n - 1 - i), qi[i] = (uint32_t)(n - 1 - i);
    memcpy(a2, a, n * g->aff);
    g->bacc(a2, ai, b, qi, n, scr);
    ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= g->affine_eq(a2 + i * g->aff, expect + i * g->aff);
    CHECK_MSG(ok, "%s: batch_acc_affine", g->name);
    /* a long chain: the results of random sums re-added many times */
    memcpy(a2, a, n * g->aff);
    uint8_t *jacsum = xmalloc(n * g->jac);
    for (size_t i = 0; i < n; i++)
        g->from_affine(jacsum + i * g->jac, a + i * g->aff);
    for (int round = 0; round < 4; round++) {
        CHECK(g->badd(a2, a2, b, n, scr) == CZ_OK);
        for (size_t i = 0; i < n; i++) {
            uint8_t Q[512];
            g->from_affine(Q, b + i * g->aff);
            g->add(jacsum + i * g->jac, jacsum + i * g->jac, Q);
        }
    }
    ok = 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t E[256];
        g->to_affine(E, jacsum + i * g->jac);
        ok &= g->affine_eq(a2 + i * g->aff, E);
    }
    CHECK_MSG(ok, "%s: batch_add_affine chained", g->name);
    free(jacsum);
    free(a2);
    free(b2);
    free(scr);
    free(a);
    free(b);
    free(r);
    free(expect);
    inst_free(&I);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_msm");
    g_scale_big = cz_test_iters(100) >= 50;
    pool1 = cz_pool_create(1);
    pool2 = cz_pool_create(2);
    pool5 = cz_pool_create(5);
    pool16 = cz_pool_create(16);
    if (!pool1 || !pool2 || !pool5 || !pool16) {
        fprintf(stderr, "cannot create pools\n");
        return 2;
    }
    for (size_t gi = 0; gi < CZ_ARRAY_LEN(groups); gi++) {
        const group_t *g = &groups[gi];
        long before = cz_test_failed;
        double t0 = now_s();
        test_batch_add(g, &rng);
        test_api(g, &rng);
        double t1 = now_s();
        test_random_sizes(g, &rng);
        double t2 = now_s();
        test_digit_extremes(g, &rng);
        double t3 = now_s();
        test_edge_scalars(g, &rng);
        double t4 = now_s();
        test_edge_bases(g, &rng);
        double t5 = now_s();
        if (g->g1) test_large(g, &rng);
        double t6 = now_s();
        printf("%s: %s (s: api %.1f, sizes %.1f, digits %.1f, scalars %.1f, bases %.1f, large %.1f)\n", g->name,
               cz_test_failed == before ? "ok" : "FAILED", t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5);
        fflush(stdout);
    }
    cz_pool_free(pool1);
    cz_pool_free(pool2);
    cz_pool_free(pool5);
    cz_pool_free(pool16);
    return cz_test_finish("test_msm");
}
