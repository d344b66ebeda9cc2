/*
 * gen_circuit tests: synthetic circuits of the three profiles on both curves
 * at sizes from 1 row to beyond one group of blocks (non-powers of two).
 *
 * Oracles:
 *   - GMP over the raw file bytes: a parser written here (not io/r1cs or
 *     io/wtns) walks the container, checks the section sizes add up to the file
 *     size, the header, the identity label map, and evaluates every constraint
 *     A.w * B.w = C.w mod r with mpz (small sizes);
 *   - cz_r1cs_load / cz_wtns_load / cz_r1cs_check (every size);
 *   - the CSR matrices: counts, nnz, distinct columns, no wire twice in a
 *     combination, the profile's shape (filecoin: >90% of the witness 0/1,
 *     >=99% of the private wires in A, ~25% in B), compared with the stats;
 *   - the circom fixture mul_chain (N = 1021): the chain profile's matrices
 *     equal circom's up to circom's sign convention (A and C negated);
 *   - determinism (same seed and 1 or all threads: identical bytes; other
 *     seed: other bytes), a changed witness value is caught, bad options and
 *     unwritable outputs fail with nothing left behind;
 *   - the writers on their own: Montgomery and canonical coefficients, the
 *     checks of cz_r1cs_writer_add, round trips through the readers.
 */
#include <dirent.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ff/ff.h"
#include "circuit/gen_circuit.h"
#include "groth16/groth16.h"
#include "io/binfile.h"
#include "io/r1cs.h"
#include "io/r1cs_write.h"
#include "io/wtns.h"
#include "io/wtns_write.h"
#include "test_util.h"

#ifndef CZ_SOURCE_DIR
#error "CZ_SOURCE_DIR must point at the repository"
#endif

static char tmpdir[256];

static uint8_t *slurp(const char *path, size_t *len)
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
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* entries of dir besides . and .. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* ======== the GMP oracle over raw bytes ======== */

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* offsets/sizes of sections 1..3 of a container; -1 on a malformed file */
static int sections(const uint8_t *b, size_t len, const char *magic, uint32_t version, uint64_t off[4], uint64_t sz[4])
{
    if (len < 12 || memcmp(b, magic, 4) || ld32(b + 4) != version) return -1;
    uint32_t ns = ld32(b + 8);
    uint64_t pos = 12;
    memset(off, 0, 4 * sizeof off[0]);
    for (uint32_t i = 0; i < ns; i++) {
        if (pos + 12 > len) return -1;
        uint32_t id = ld32(b + pos);
        uint64_t s = ld64(b + pos + 4);
        pos += 12;
        if (s > len - pos) return -1;
        if (id >= 1 && id <= 3) {
            if (off[id]) return -1;
            off[id] = pos;
            sz[id] = s;
        }
        pos += s;
    }
    return pos == len ? 0 : -1; /* the sections fill the file exactly */
}

/* A.w*B.w - C.w over every constraint with mpz; returns the number of
 * unsatisfied constraints, or -1 for a malformed file. Also checks the
 * header counts against expectations and the identity label map. */
static long gmp_check(const char *r1cs_path, const char *wtns_path, const cz_gen_stats *st, cz_curve curve)
{
    size_t lr, lw;
    uint8_t *r = slurp(r1cs_path, &lr), *w = slurp(wtns_path, &lw);
    long bad = -1;
    uint64_t ro[4], rs[4], wo[4], ws[4];
    mpz_t p, q, acc[3], t, *wv = NULL;
    mpz_inits(p, q, acc[0], acc[1], acc[2], t, NULL);
    uint32_t nw = 0;
    if (!r || !w) goto done;
    if (sections(r, lr, "r1cs", 1, ro, rs) || sections(w, lw, "wtns", 2, wo, ws)) goto done;
    if (!ro[1] || !ro[2] || !ro[3] || !wo[1] || !wo[2] || rs[1] != 64 || ws[1] != 40) goto done;
    const uint8_t *h = r + ro[1];
    if (ld32(h) != 32) goto done;
    mpz_import(p, 32, -1, 1, 0, 0, h + 4);
    const char *rhex = curve == CZ_CURVE_BN254 ? "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"
                                               : "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
    mpz_set_str(t, rhex, 16);
    if (mpz_cmp(p, t)) goto done;
    nw = ld32(h + 36);
    uint32_t nconst = ld32(h + 60);
    if (nw != st->n_wires || ld32(h + 40) != st->n_pub_out || ld32(h + 44) != st->n_pub_in ||
        ld32(h + 48) != st->n_prv_in || ld64(h + 52) != nw || nconst != st->n_constraints)
        goto done;
    if (rs[3] != 8ull * nw) goto done;
    for (uint32_t i = 0; i < nw; i++)
        if (ld64(r + ro[3] + 8ull * i) != i) goto done;
    /* witness */
    if (ld32(w + wo[1]) != 32 || ld32(w + wo[1] + 36) != nw || ws[2] != 32ull * nw) goto done;
    mpz_import(q, 32, -1, 1, 0, 0, w + wo[1] + 4);
    if (mpz_cmp(p, q)) goto done;
    wv = malloc(sizeof(mpz_t) * nw);
    for (uint32_t i = 0; i < nw; i++) {
        mpz_init(wv[i]);
        mpz_import(wv[i], 32, -1, 1, 0, 0, w + wo[2] + 32ull * i);
    }
    if (mpz_cmp_ui(wv[0], 1)) goto done;
    /* constraints */
    const uint8_t *c = r + ro[2], *end = c + rs[2];
    long nbad = 0;
    for (uint32_t k = 0; k < nconst; k++) {
        for (int m = 0; m < 3; m++) {
            if (end - c < 4) goto done;
            uint32_t n = ld32(c);
            c += 4;
            if ((uint64_t)(end - c) < 36ull * n) goto done;
            mpz_set_ui(acc[m], 0);
            for (uint32_t i = 0; i < n; i++, c += 36) {
                uint32_t wire = ld32(c);
                if (wire >= nw) goto done;
                mpz_import(t, 32, -1, 1, 0, 0, c + 4);
                if (mpz_cmp(t, p) >= 0) goto done;
                mpz_addmul(acc[m], t, wv[wire]);
            }
        }
        mpz_mul(t, acc[0], acc[1]);
        mpz_sub(t, t, acc[2]);
        mpz_mod(t, t, p);
        if (mpz_sgn(t)) nbad++;
    }
    if (c != end) goto done;
    bad = nbad;
done:
    if (wv)
        for (uint32_t i = 0; i < nw; i++)
            mpz_clear(wv[i]);
    free(wv);
    mpz_clears(p, q, acc[0], acc[1], acc[2], t, NULL);
    free(r);
    free(w);
    return bad;
}

/* ======== checks through the library readers ======== */

static int is_one(cz_curve c, const void *v)
{
    return c == CZ_CURVE_BN254 ? cz_bn254_fr_is_one(v) : cz_bls12_381_fr_is_one(v);
}
static int is_zero(cz_curve c, const void *v)
{
    return c == CZ_CURVE_BN254 ? cz_bn254_fr_is_zero(v) : cz_bls12_381_fr_is_zero(v);
}

typedef struct {
    uint64_t nnz[3], cols[3], prv_cols[3], zeros, ones;
    int dup; /* a wire twice in one combination */
} shape;

static void measure(const cz_r1cs *r, const cz_wtns *w, shape *s)
{
    memset(s, 0, sizeof *s);
    const cz_csr *ms[3] = {&r->A, &r->B, &r->C};
    uint32_t npub = r->n_pub_out + r->n_pub_in;
    uint8_t *seen = calloc(r->n_wires, 1);
    for (int m = 0; m < 3; m++) {
        memset(seen, 0, r->n_wires);
        s->nnz[m] = ms[m]->nnz;
        for (uint32_t row = 0; row < ms[m]->nrows; row++)
            for (uint64_t k = ms[m]->row_ptr[row]; k < ms[m]->row_ptr[row + 1]; k++) {
                for (uint64_t j = ms[m]->row_ptr[row]; j < k; j++)
                    if (ms[m]->col[j] == ms[m]->col[k]) s->dup = 1;
                seen[ms[m]->col[k]] = 1;
            }
        for (uint32_t i = 0; i < r->n_wires; i++) {
            s->cols[m] += seen[i];
            if (i > npub) s->prv_cols[m] += seen[i];
        }
    }
    free(seen);
    for (uint32_t i = 0; i < w->n; i++) {
        const uint8_t *v = (const uint8_t *)w->values + 32 * (size_t)i;
        s->zeros += is_zero(w->curve, v);
        s->ones += is_one(w->curve, v);
    }
}

static void paths(char *r, char *w, const char *name)
{
    sprintf(r, "%s/%s.r1cs", tmpdir, name);
    sprintf(w, "%s/%s.wtns", tmpdir, name);
}

static cz_status gen(cz_gen_profile prof, cz_curve curve, uint64_t n, uint32_t k, uint64_t seed, cz_pool *pool,
                     const char *name, cz_gen_stats *st, cz_error *err)
{
    char rp[512], wp[512];
    paths(rp, wp, name);
    cz_gen_opts o;
    memset(&o, 0, sizeof o);
    o.curve = curve;
    o.profile = prof;
    o.n_constraints = n;
    o.n_public = k;
    o.seed = seed;
    o.pool = pool;
    cz_error_clear(err);
    return cz_gen_circuit(&o, rp, wp, st, err);
}

/* adds 1 to witness value i (Montgomery) */
static void bump(cz_wtns *w, uint32_t i)
{
    void *v = (uint8_t *)w->values + 32 * (size_t)i;
    if (w->curve == CZ_CURVE_BN254)
        cz_bn254_fr_add(v, v, &cz_bn254_fr_ONE);
    else
        cz_bls12_381_fr_add(v, v, &cz_bls12_381_fr_ONE);
}

/* one circuit: generate, read back, check everything */
static void one_case(cz_gen_profile prof, cz_curve curve, uint64_t n, uint32_t k, int with_gmp)
{
    const char *pn = cz_gen_profile_name(prof);
    char name[128], rp[512], wp[512];
    snprintf(name, sizeof name, "%s_%s_%llu", pn, cz_curve_name(curve), (unsigned long long)n);
    paths(rp, wp, name);
    cz_gen_stats st, plan_st;
    cz_error err;
    cz_gen_opts o;
    memset(&o, 0, sizeof o);
    o.curve = curve;
    o.profile = prof;
    o.n_constraints = n;
    o.n_public = k;
    o.seed = 1234 + n;
    CHECK(cz_gen_plan(&o, &plan_st, &err) == CZ_OK);
    cz_status s = gen(prof, curve, n, k, 1234 + n, NULL, name, &st, &err);
    CHECK_MSG(s == CZ_OK, "%s: %s", name, cz_error_msg(&err));
    if (s != CZ_OK) return;
    uint32_t K = k == CZ_GEN_PUBLIC_DEFAULT ? cz_gen_default_public(prof) : k;
    CHECK(st.n_constraints == n);
    CHECK(st.n_pub_out + st.n_pub_in == K);
    CHECK(plan_st.n_wires == st.n_wires && plan_st.wtns_bytes == st.wtns_bytes);
    if (prof != CZ_GEN_DENSE)
        CHECK_MSG(plan_st.r1cs_bytes == st.r1cs_bytes, "%s: plan %llu, made %llu", name,
                  (unsigned long long)plan_st.r1cs_bytes, (unsigned long long)st.r1cs_bytes);
    struct stat sb;
    CHECK(stat(rp, &sb) == 0 && (uint64_t)sb.st_size == st.r1cs_bytes);
    CHECK(stat(wp, &sb) == 0 && (uint64_t)sb.st_size == st.wtns_bytes && st.wtns_bytes == 76 + 32 * st.n_wires);
    if (with_gmp) {
        long bad = gmp_check(rp, wp, &st, curve);
        CHECK_MSG(bad == 0, "%s: GMP oracle: %ld (-1: malformed file)", name, bad);
    }
    cz_r1cs r;
    cz_wtns w;
    if (cz_r1cs_load(&r, rp, 0, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s: %s", name, cz_error_msg(&err));
        return;
    }
    if (cz_wtns_load(&w, wp, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s: %s", name, cz_error_msg(&err));
        cz_r1cs_free(&r);
        return;
    }
    CHECK(r.curve == curve && w.curve == curve);
    CHECK(r.n_constraints == n && r.n_wires == st.n_wires && w.n == st.n_wires);
    CHECK(r.n_pub_out == st.n_pub_out && r.n_pub_in == st.n_pub_in && r.n_prv_in == st.n_prv_in);
    uint64_t first = 0;
    s = cz_r1cs_check(&r, &w, &first, &err);
    CHECK_MSG(s == CZ_OK, "%s: %s", name, cz_error_msg(&err));

    shape sh;
    measure(&r, &w, &sh);
    CHECK_MSG(!sh.dup, "%s: a wire occurs twice in one combination", name);
    for (int m = 0; m < 3; m++) {
        CHECK(sh.nnz[m] == st.nnz[m]);
        CHECK(sh.cols[m] == st.cols[m]);
        CHECK(sh.prv_cols[m] == st.prv_cols[m]);
    }
    CHECK(sh.zeros == st.zeros && sh.ones == st.ones);
    uint64_t nprv = st.n_private;
    CHECK(nprv == r.n_wires - 1 - K);
    double a_share = (double)sh.prv_cols[0] / (double)nprv, b_share = (double)sh.prv_cols[1] / (double)nprv;
    double s01 = (double)(sh.zeros + sh.ones) / (double)w.n;

    /* profile shapes */
    if (prof == CZ_GEN_CHAIN) {
        CHECK(r.n_wires == n + 2 && r.n_pub_out == K && r.n_pub_in == 0 && r.n_prv_in == 1);
        CHECK(sh.nnz[0] == 2 * n - 1 && sh.nnz[1] == n && sh.nnz[2] == 2 * n - 1);
        CHECK(sh.prv_cols[2] == nprv - 1); /* every chain value but the input defined in C */
    } else if (prof == CZ_GEN_DENSE) {
        CHECK(r.n_prv_in == 8 && r.n_pub_out == (K ? 1u : 0u));
        CHECK(sh.nnz[2] == n);
        CHECK(sh.nnz[0] >= n && sh.nnz[0] <= 4 * n && sh.nnz[1] >= n && sh.nnz[1] <= 4 * n);
        if (n >= 1000) {
            CHECK_MSG(sh.nnz[0] > 2.3 * n && sh.nnz[0] < 2.7 * n, "%s: nnz A %llu", name,
                      (unsigned long long)sh.nnz[0]);
            CHECK(s01 < 0.01);
            CHECK_MSG(a_share > 0.99 && b_share > 0.99, "%s: A covers %.4f, B %.4f of the private wires", name, a_share,
                      b_share);
        }
    } else {
        CHECK(r.n_wires == n + 1 && r.n_pub_in == K && r.n_pub_out == 0 && r.n_prv_in == 0);
        if (n >= 2000) {
            CHECK_MSG(a_share >= 0.99, "%s: A covers %.4f of the private wires", name, a_share);
            CHECK_MSG(b_share > 0.22 && b_share < 0.30, "%s: B covers %.4f of the private wires", name, b_share);
        }
        if (n >= 10 * (uint64_t)K + 2000) CHECK_MSG(s01 > 0.90, "%s: 0/1 share %.4f", name, s01);
        if (n >= 100000) CHECK_MSG(a_share > 0.996 && a_share < 0.998, "%s: A share %.4f", name, a_share);
        /* every public input appears (in A) */
        uint8_t *seen = calloc(r.n_wires, 1);
        for (uint64_t i = 0; i < r.A.nnz; i++)
            seen[r.A.col[i]] = 1;
        uint32_t pub_seen = 0;
        for (uint32_t i = 1; i <= K; i++)
            pub_seen += seen[i];
        CHECK(pub_seen == K);
        free(seen);
    }
    CHECK(st.share01 > s01 - 1e-12 && st.share01 < s01 + 1e-12);

    /* a changed witness value is caught */
    if (n >= 8) {
        uint32_t target, want_row = UINT32_MAX;
        if (prof == CZ_GEN_CHAIN) {
            target = K + 2 + 3; /* c_3 (an internal wire when n - K > 3) */
            if (n - K > 3)
                want_row = 3;
            else
                target = 1;
        } else if (prof == CZ_GEN_DENSE) {
            target = 1 + K + 8 + 5; /* out_5 */
            want_row = 5;
        } else {
            target = 1 + K + 3; /* checked bit of row 3: 0 -> 1 keeps row 3 true, a later row breaks */
        }
        bump(&w, target);
        s = cz_r1cs_check(&r, &w, &first, &err);
        CHECK_MSG(s == CZ_ERR_UNSATISFIED, "%s: changed w[%u] was not caught", name, target);
        if (want_row != UINT32_MAX) CHECK_MSG(first == want_row, "%s: first bad %llu", name, (unsigned long long)first);
        bump(&w, target);
        bump(&w, 0); /* ONE = 2 */
        CHECK(cz_r1cs_check(&r, &w, &first, &err) == CZ_ERR_UNSATISFIED);
    }
    cz_wtns_free(&w);
    cz_r1cs_free(&r);
    unlink(rp);
    unlink(wp);
}

/* ======== chain = circom's mul_chain ======== */

/* row of m as (col, value) sorted by col */
typedef struct {
    uint32_t col;
    uint64_t v[4];
} ent;
static int ent_cmp(const void *a, const void *b)
{
    const ent *x = a, *y = b;
    return x->col < y->col ? -1 : x->col > y->col;
}
static int rows_equal(cz_curve c, const cz_csr *mine, const cz_csr *theirs, uint32_t row, int negate)
{
    uint64_t n1 = mine->row_ptr[row + 1] - mine->row_ptr[row], n2 = theirs->row_ptr[row + 1] - theirs->row_ptr[row];
    if (n1 != n2 || n1 > 8) return 0;
    ent a[8], b[8];
    memset(a, 0, sizeof a); /* padding compared by memcmp */
    memset(b, 0, sizeof b);
    for (uint64_t i = 0; i < n1; i++) {
        uint64_t k1 = mine->row_ptr[row] + i, k2 = theirs->row_ptr[row] + i;
        a[i].col = mine->col[k1];
        memcpy(a[i].v, (const uint8_t *)mine->val + 32 * k1, 32);
        b[i].col = theirs->col[k2];
        memcpy(b[i].v, (const uint8_t *)theirs->val + 32 * k2, 32);
        if (negate) {
            if (c == CZ_CURVE_BN254)
                cz_bn254_fr_neg((cz_bn254_fr *)b[i].v, (const cz_bn254_fr *)b[i].v);
            else
                cz_bls12_381_fr_neg((cz_bls12_381_fr *)b[i].v, (const cz_bls12_381_fr *)b[i].v);
        }
    }
    qsort(a, n1, sizeof a[0], ent_cmp);
    qsort(b, n1, sizeof b[0], ent_cmp);
    return memcmp(a, b, n1 * sizeof a[0]) == 0;
}

static void test_chain_is_mul_chain(void)
{
    const char *dirs[2] = {"bn128", "bls12381"};
    const cz_curve curves[2] = {CZ_CURVE_BN254, CZ_CURVE_BLS12_381};
    for (int ci = 0; ci < 2; ci++) {
        char fix[512], rp[512], wp[512];
        snprintf(fix, sizeof fix, "%s/tests/fixtures/%s/mul_chain/circuit.r1cs", CZ_SOURCE_DIR, dirs[ci]);
        cz_r1cs theirs, mine;
        cz_error err;
        if (cz_r1cs_load(&theirs, fix, 0, NULL, &err) != CZ_OK) {
            CHECK_MSG(0, "%s", cz_error_msg(&err));
            continue;
        }
        cz_gen_stats st;
        CHECK(gen(CZ_GEN_CHAIN, curves[ci], theirs.n_constraints, CZ_GEN_PUBLIC_DEFAULT, 5, NULL, "mc", &st, &err) ==
              CZ_OK);
        paths(rp, wp, "mc");
        if (cz_r1cs_load(&mine, rp, 0, NULL, &err) != CZ_OK) {
            CHECK_MSG(0, "%s", cz_error_msg(&err));
            cz_r1cs_free(&theirs);
            continue;
        }
        CHECK(mine.n_wires == theirs.n_wires && mine.n_pub_out == theirs.n_pub_out &&
              mine.n_pub_in == theirs.n_pub_in && mine.n_prv_in == theirs.n_prv_in);
        CHECK(mine.A.nnz == theirs.A.nnz && mine.B.nnz == theirs.B.nnz && mine.C.nnz == theirs.C.nnz);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < theirs.n_constraints; i++) {
            /* circom writes (-A) * B = (-C); row 0 is (-in) * in = -c_0 */
            int ok = rows_equal(curves[ci], &mine.A, &theirs.A, i, 1) &&
                     rows_equal(curves[ci], &mine.B, &theirs.B, i, 0) &&
                     rows_equal(curves[ci], &mine.C, &theirs.C, i, 1);
            if (!ok && bad++ < 3) printf("mul_chain %s: row %u differs\n", dirs[ci], i);
        }
        CHECK_MSG(bad == 0, "%s: %u rows differ from circom's mul_chain", dirs[ci], bad);
        cz_r1cs_free(&mine);
        cz_r1cs_free(&theirs);
        unlink(rp);
        unlink(wp);
    }
}

/* ======== determinism ======== */

static void test_determinism(void)
{
    cz_pool *one = cz_pool_create(1);
    const cz_gen_profile profs[3] = {CZ_GEN_CHAIN, CZ_GEN_DENSE, CZ_GEN_FILECOIN};
    for (int pi = 0; pi < 3; pi++) {
        cz_error err;
        cz_gen_stats st;
        uint64_t n = 3 * 4096 + 1001; /* several blocks */
        char r1[512], w1[512], r2[512], w2[512], r3[512], w3[512];
        paths(r1, w1, "det1");
        paths(r2, w2, "det2");
        paths(r3, w3, "det3");
        CHECK(gen(profs[pi], CZ_CURVE_BLS12_381, n, 20, 77, NULL, "det1", &st, &err) == CZ_OK);
        CHECK(gen(profs[pi], CZ_CURVE_BLS12_381, n, 20, 77, one, "det2", &st, &err) == CZ_OK);
        CHECK(gen(profs[pi], CZ_CURVE_BLS12_381, n, 20, 78, NULL, "det3", &st, &err) == CZ_OK);
        CHECK_MSG(same_file(r1, r2) && same_file(w1, w2), "%s: same seed, other thread count: other bytes",
                  cz_gen_profile_name(profs[pi]));
        CHECK_MSG(!same_file(w1, w3), "%s: other seed, same witness", cz_gen_profile_name(profs[pi]));
        /* the chain's constraints do not depend on the seed, the others' do */
        CHECK(same_file(r1, r3) == (profs[pi] == CZ_GEN_CHAIN));
        unlink(r1), unlink(w1), unlink(r2), unlink(w2), unlink(r3), unlink(w3);
    }
    cz_pool_free(one);
}

/* ======== bad options and outputs ======== */

static void test_errors(void)
{
    cz_error err;
    cz_gen_stats st;
    CHECK(gen(CZ_GEN_CHAIN, CZ_CURVE_BN254, 10, 0, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(gen(CZ_GEN_CHAIN, CZ_CURVE_BN254, 10, 11, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(gen(CZ_GEN_FILECOIN, CZ_CURVE_BN254, 333, 300, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(strstr(cz_error_msg(&err), "334") != NULL);
    CHECK(gen(CZ_GEN_DENSE, CZ_CURVE_BN254, 0, 4, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(gen(CZ_GEN_DENSE, CZ_CURVE_BN254, 1ull << 32, 4, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(gen(CZ_GEN_NONE, CZ_CURVE_BN254, 10, 4, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(gen(CZ_GEN_DENSE, CZ_CURVE_NONE, 10, 4, 1, NULL, "e", &st, &err) == CZ_ERR_INVALID_ARG);
    CHECK(dir_entries(tmpdir) == 0);
    /* unwritable outputs: nothing left behind */
    cz_gen_opts o;
    memset(&o, 0, sizeof o);
    o.curve = CZ_CURVE_BN254;
    o.profile = CZ_GEN_DENSE;
    o.n_constraints = 100;
    o.n_public = CZ_GEN_PUBLIC_DEFAULT;
    char rp[512], wp[512];
    snprintf(rp, sizeof rp, "%s/ok.r1cs", tmpdir);
    snprintf(wp, sizeof wp, "%s/no-such-dir/x.wtns", tmpdir);
    cz_error_clear(&err);
    CHECK(cz_gen_circuit(&o, rp, wp, &st, &err) == CZ_ERR_IO);
    CHECK(strstr(cz_error_msg(&err), "no-such-dir") != NULL);
    CHECK(!file_exists(rp)); /* the finished .r1cs was removed with the failed .wtns */
    snprintf(rp, sizeof rp, "%s/no-such-dir/x.r1cs", tmpdir);
    snprintf(wp, sizeof wp, "%s/ok.wtns", tmpdir);
    CHECK(cz_gen_circuit(&o, rp, wp, &st, &err) == CZ_ERR_IO);
    CHECK(dir_entries(tmpdir) == 0);
    CHECK(cz_gen_profile_parse("Filecoin") == CZ_GEN_FILECOIN && cz_gen_profile_parse("x") == CZ_GEN_NONE);
    CHECK(!strcmp(cz_gen_profile_name(CZ_GEN_DENSE), "dense"));
}

/* ======== the writers on their own ======== */

static void test_writers(void)
{
    cz_error err;
    char rp[512], wp[512];
    paths(rp, wp, "wr");
    for (int ci = 0; ci < 2; ci++) {
        cz_curve c = ci ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254;
        cz_rng rng;
        cz_rng_seed(&rng, 99 + ci);
        /* x * y = z with random x, y; z = x*y; plus a linear row 3*x + y = (3x + y) * ONE */
        uint8_t wv[6][32]; /* Montgomery elements */
        cz_bls12_381_fr tb[6];
        cz_bn254_fr tn[6];
        for (int i = 0; i < 6; i++) {
            if (c == CZ_CURVE_BN254)
                cz_bn254_fr_random(&tn[i], &rng);
            else
                cz_bls12_381_fr_random(&tb[i], &rng);
        }
        if (c == CZ_CURVE_BN254) {
            tn[0] = cz_bn254_fr_ONE;
            cz_bn254_fr_mul(&tn[3], &tn[1], &tn[2]);
            cz_bn254_fr_mul3(&tn[4], &tn[1]);
            cz_bn254_fr_add(&tn[4], &tn[4], &tn[2]);
            memcpy(wv, tn, sizeof wv);
        } else {
            tb[0] = cz_bls12_381_fr_ONE;
            cz_bls12_381_fr_mul(&tb[3], &tb[1], &tb[2]);
            cz_bls12_381_fr_mul3(&tb[4], &tb[1]);
            cz_bls12_381_fr_add(&tb[4], &tb[4], &tb[2]);
            memcpy(wv, tb, sizeof wv);
        }
        cz_r1cs_header h = {c, 6, 1, 1, 0, 10};
        cz_r1cs_writer wr;
        CHECK(cz_r1cs_writer_open(&wr, rp, &h, &err) == CZ_OK);
        /* Montgomery coefficients: 1 */
        uint8_t one_m[32], three_c[32] = {3}, one_c[32] = {1};
        memcpy(one_m, c == CZ_CURVE_BN254 ? (const void *)&cz_bn254_fr_ONE : (const void *)&cz_bls12_381_fr_ONE, 32);
        uint32_t w1 = 1, w2 = 2, w3 = 3, w0 = 0, w4 = 4, w12[2] = {1, 2}, w11[2] = {1, 1}, w9 = 9;
        uint8_t c2[64];
        cz_r1cs_lc a = {1, &w1, one_m}, b = {1, &w2, one_m}, cc = {1, &w3, one_m}, empty = {0, NULL, NULL};
        CHECK(cz_r1cs_writer_add(&wr, &a, &b, &cc, 1, &err) == CZ_OK);
        memcpy(c2, three_c, 32);
        memcpy(c2 + 32, one_c, 32);
        cz_r1cs_lc la = {2, w12, c2}, lb = {1, &w0, one_c}, lc = {1, &w4, one_c};
        CHECK(cz_r1cs_writer_add(&wr, &la, &lb, &lc, 0, &err) == CZ_OK);
        CHECK(cz_r1cs_writer_add(&wr, &empty, &empty, &empty, 0, &err) == CZ_OK); /* 0 = 0 */
        /* rejected, nothing written */
        cz_r1cs_lc dup = {2, w11, c2}, oob = {1, &w9, one_c};
        uint8_t big[32];
        memset(big, 0xff, 32);
        cz_r1cs_lc rng_lc = {1, &w1, big};
        CHECK(cz_r1cs_writer_add(&wr, &dup, &lb, &lc, 0, &err) == CZ_ERR_INVALID_ARG);
        CHECK(cz_r1cs_writer_add(&wr, &oob, &lb, &lc, 0, &err) == CZ_ERR_INVALID_ARG);
        CHECK(cz_r1cs_writer_add(&wr, &rng_lc, &lb, &lc, 0, &err) == CZ_ERR_RANGE);
        /* a pre-encoded row: ONE * ONE = ONE; and a short buffer is refused */
        uint8_t enc[3 * 40], *p = enc;
        uint64_t onel[4] = {1, 0, 0, 0};
        for (int m = 0; m < 3; m++)
            p = cz_r1cs_put_term(cz_r1cs_put_u32(p, 1), 0, onel);
        CHECK(cz_r1cs_writer_add_encoded(&wr, enc, sizeof enc - 1, 1, &err) == CZ_ERR_INVALID_ARG);
        CHECK(cz_r1cs_writer_add_encoded(&wr, enc, sizeof enc, 2, &err) == CZ_ERR_INVALID_ARG);
        CHECK(cz_r1cs_writer_add_encoded(&wr, enc, sizeof enc, 1, &err) == CZ_OK);
        CHECK(!file_exists(rp)); /* not before finish */
        CHECK(cz_r1cs_writer_finish(&wr, NULL, &err) == CZ_OK);
        CHECK(file_exists(rp));
        CHECK(cz_wtns_write(wp, c, wv, 6, 1, NULL, &err) == CZ_OK);
        /* ordinary file modes, not the 0600 of the temporary */
        mode_t um = umask(0);
        umask(um);
        struct stat sb;
        CHECK(stat(rp, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~um));
        CHECK(stat(wp, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~um));
        cz_r1cs r;
        cz_wtns w;
        CHECK(cz_r1cs_load(&r, rp, 0, NULL, &err) == CZ_OK);
        CHECK(cz_wtns_load(&w, wp, NULL, &err) == CZ_OK);
        CHECK(r.n_constraints == 4 && r.n_wires == 6 && r.n_labels == 10 && r.n_pub_out == 1 && r.n_pub_in == 1);
        CHECK(r.A.nnz == 4 && r.B.nnz == 3 && r.C.nnz == 3);
        CHECK(w.n == 6 && memcmp(w.values, wv, sizeof wv) == 0);
        uint64_t first;
        CHECK(cz_r1cs_check(&r, &w, &first, &err) == CZ_OK);
        cz_gen_stats st;
        memset(&st, 0, sizeof st);
        st.n_wires = 6, st.n_pub_out = 1, st.n_pub_in = 1, st.n_constraints = 4;
        cz_r1cs_free(&r);
        cz_wtns_free(&w);
        /* canonical witness values give the same file; a value >= r is refused */
        uint8_t canon[6][32];
        for (int i = 0; i < 6; i++) {
            if (c == CZ_CURVE_BN254)
                cz_bn254_fr_to_bytes_le(canon[i], (const cz_bn254_fr *)wv[i]);
            else
                cz_bls12_381_fr_to_bytes_le(canon[i], (const cz_bls12_381_fr *)wv[i]);
        }
        char wp2[600];
        snprintf(wp2, sizeof wp2, "%s.2", wp);
        CHECK(cz_wtns_write(wp2, c, canon, 6, 0, NULL, &err) == CZ_OK);
        CHECK(same_file(wp, wp2));
        memset(canon[5], 0xff, 32);
        unlink(wp2);
        cz_error_clear(&err);
        CHECK(cz_wtns_write(wp2, c, canon, 6, 0, NULL, &err) == CZ_ERR_RANGE);
        CHECK(strstr(cz_error_msg(&err), "value 5") != NULL);
        CHECK(!file_exists(wp2));
        /* the GMP oracle on this hand-made pair: header and all rows */
        st.n_prv_in = 0;
        paths(rp, wp, "wr");
        /* labels were identity only if nLabels == nWires: rewrite with h.n_labels = 0 */
        h.n_labels = 0;
        CHECK(cz_r1cs_writer_open(&wr, rp, &h, &err) == CZ_OK);
        CHECK(cz_r1cs_writer_add(&wr, &a, &b, &cc, 1, &err) == CZ_OK);
        CHECK(cz_r1cs_writer_add(&wr, &la, &lb, &lc, 0, &err) == CZ_OK);
        st.n_constraints = 2;
        CHECK(cz_r1cs_writer_finish(&wr, NULL, &err) == CZ_OK);
        CHECK(gmp_check(rp, wp, &st, c) == 0);
        /* an aborted writer leaves nothing */
        unlink(rp);
        CHECK(cz_r1cs_writer_open(&wr, rp, &h, &err) == CZ_OK);
        CHECK(cz_r1cs_writer_add(&wr, &a, &b, &cc, 1, &err) == CZ_OK);
        cz_r1cs_writer_abort(&wr);
        CHECK(!file_exists(rp));
        /* bad headers */
        cz_r1cs_header bad = {c, 3, 1, 1, 1, 0};
        CHECK(cz_r1cs_writer_open(&wr, rp, &bad, &err) == CZ_ERR_INVALID_ARG);
        bad.n_wires = 4;
        bad.n_labels = 3;
        CHECK(cz_r1cs_writer_open(&wr, rp, &bad, &err) == CZ_ERR_INVALID_ARG);
        unlink(wp);
        CHECK(dir_entries(tmpdir) == 0);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_gen_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;

    test_writers();
    test_errors();

    const cz_curve curves[2] = {CZ_CURVE_BN254, CZ_CURVE_BLS12_381};
    for (int ci = 0; ci < 2; ci++) {
        cz_curve c = curves[ci];
        /* small sizes: GMP oracle on the raw bytes */
        const uint64_t small[] = {1, 2, 7, 100, 1021, 4097};
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
            one_case(CZ_GEN_CHAIN, c, small[i], CZ_GEN_PUBLIC_DEFAULT, 1);
            one_case(CZ_GEN_DENSE, c, small[i], CZ_GEN_PUBLIC_DEFAULT, 1);
            if (small[i] >= 40) one_case(CZ_GEN_FILECOIN, c, small[i], 5, 1);
        }
        one_case(CZ_GEN_CHAIN, c, 50, 50, 1);   /* every value public */
        one_case(CZ_GEN_DENSE, c, 1, 0, 1);     /* no public signal */
        one_case(CZ_GEN_DENSE, c, 3, 4, 1);     /* more inputs than rows */
        one_case(CZ_GEN_FILECOIN, c, 34, 0, 1); /* one gadget */
        one_case(CZ_GEN_FILECOIN, c, 33, 0, 1); /* cut before the product */
        one_case(CZ_GEN_FILECOIN, c, 334, CZ_GEN_PUBLIC_DEFAULT, 1);
        one_case(CZ_GEN_FILECOIN, c, 20000 + 17, CZ_GEN_PUBLIC_DEFAULT, 1);
        /* beyond one group of 32 blocks (reader checks only) */
        uint64_t big = 140000 + (uint64_t)cz_test_iters(60000);
        one_case(CZ_GEN_CHAIN, c, big + 1, 3, 0);
        one_case(CZ_GEN_DENSE, c, big + 3, CZ_GEN_PUBLIC_DEFAULT, 0);
        one_case(CZ_GEN_FILECOIN, c, big + 5, CZ_GEN_PUBLIC_DEFAULT, 0);
    }
    test_chain_is_mul_chain();
    test_determinism();

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    return cz_test_finish("test_gen_circuit");
}
