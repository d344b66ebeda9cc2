/*
 * io tests: the snarkjs fixtures of both curves load with the parameters
 * recorded in tests/fixtures/fixtures.json; the witness satisfies the r1cs
 * (A.w o B.w = C.w, an end-to-end check of three readers); the zkey's A/B
 * matrices agree with the r1cs plus the public-input rows; the vkey/proof/
 * public JSON readers agree with the zkey and witness; and every kind of
 * corrupted file (truncation at many lengths, wrong magic/version, bad
 * sizes, indices, values >= p, off-curve points, malformed JSON) is rejected
 * with the right status and never crashes; a curve value that is no curve
 * is refused by every reader and writer that takes one. The bellperson
 * binary proof: known encodings (generators, infinity), the round trip of
 * proofs made by the prover and by snarkjs, and tampered bytes (flag bits,
 * x >= q, points off the curve or outside the subgroup) rejected with the
 * offset named.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ec/ec.h"
#include "circuit/gen_circuit.h"
#include "ec/ec_serde.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/binfile.h"
#include "io/json.h"
#include "io/proof.h"
#include "io/r1cs.h"
#include "io/subgroup.h"
#include "io/r1cs_write.h"
#include "io/wtns.h"
#include "io/wtns_write.h"
#include "io/zkey.h"
#include "io/zkey_write.h"
#include "test_util.h"

#ifndef CZ_SOURCE_DIR
#error "CZ_SOURCE_DIR must point at the repository"
#endif
#define FIX CZ_SOURCE_DIR "/tests/fixtures/"

static char tmpdir[256];

/* ---- scalar-field helpers over both curves ---- */
typedef struct {
    uint64_t l[4];
} fr;
static void fr_mul(cz_curve c, fr *r, const fr *a, const fr *b)
{
    if (c == CZ_CURVE_BN254)
        cz_bn254_fr_mul((cz_bn254_fr *)r, (const cz_bn254_fr *)a, (const cz_bn254_fr *)b);
    else
        cz_bls12_381_fr_mul((cz_bls12_381_fr *)r, (const cz_bls12_381_fr *)a, (const cz_bls12_381_fr *)b);
}
static void fr_add(cz_curve c, fr *r, const fr *a, const fr *b)
{
    if (c == CZ_CURVE_BN254)
        cz_bn254_fr_add((cz_bn254_fr *)r, (const cz_bn254_fr *)a, (const cz_bn254_fr *)b);
    else
        cz_bls12_381_fr_add((cz_bls12_381_fr *)r, (const cz_bls12_381_fr *)a, (const cz_bls12_381_fr *)b);
}
static void spmv_row(cz_curve c, fr *out, const cz_csr *m, uint32_t row, const fr *w)
{
    memset(out, 0, sizeof *out);
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        fr t;
        fr_mul(c, &t, (const fr *)m->val + k, &w[m->col[k]]);
        fr_add(c, out, out, &t);
    }
}

/* ---- file helpers ---- */
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
    if (b) b[n] = 0; /* text files can be used as strings */
    fclose(f);
    *len = (size_t)n;
    return b;
}
static const char *spit(const char *name, const uint8_t *data, size_t len)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    fwrite(data, 1, len, f);
    fclose(f);
    return path;
}

static cz_status load_zkey_bytes(const uint8_t *d, size_t len, cz_error *err)
{
    cz_zkey z;
    cz_status st = cz_zkey_load(&z, spit("t.zkey", d, len), NULL, err);
    if (st == CZ_OK) cz_zkey_free(&z);
    return st;
}
static cz_status load_wtns_bytes(const uint8_t *d, size_t len, cz_error *err)
{
    cz_wtns w;
    cz_status st = cz_wtns_load(&w, spit("t.wtns", d, len), NULL, err);
    if (st == CZ_OK) cz_wtns_free(&w);
    return st;
}
static cz_status load_r1cs_bytes(const uint8_t *d, size_t len, cz_error *err)
{
    cz_r1cs r;
    cz_status st = cz_r1cs_load(&r, spit("t.r1cs", d, len), 0, NULL, err);
    if (st == CZ_OK) cz_r1cs_free(&r);
    return st;
}

/* offset of the body of section id in a container image */
static size_t section_offset(const uint8_t *d, size_t len, uint32_t id, uint64_t *size)
{
    size_t pos = 12;
    uint32_t ns = cz_load_u32(d + 8);
    for (uint32_t i = 0; i < ns && pos + 12 <= len; i++) {
        uint32_t sid = cz_load_u32(d + pos);
        uint64_t sz = cz_load_u64(d + pos + 4);
        if (sid == id) {
            if (size) *size = sz;
            return pos + 12;
        }
        pos += 12 + sz;
    }
    return 0;
}

/* ---- fixture tests ---- */
static void test_fixture(const cz_json *fx)
{
    const char *dir = cz_json_get(fx, "dir")->str;
    char p[512];
    cz_error err;
    cz_curve curve = cz_curve_parse(cz_json_get(fx, "curve")->str);
    uint32_t n_constraints = (uint32_t)atol(cz_json_get(fx, "nConstraints")->str);
    uint32_t n_vars = (uint32_t)atol(cz_json_get(fx, "nVars")->str);
    uint32_t n_public = (uint32_t)atol(cz_json_get(fx, "nPublic")->str);
    uint32_t domain = (uint32_t)atol(cz_json_get(fx, "domainSize")->str);
    uint64_t n_coef = (uint64_t)atoll(cz_json_get(fx, "nCoef")->str);
    CHECK(curve != CZ_CURVE_NONE);

    cz_zkey z;
    cz_wtns w;
    cz_r1cs r;
    snprintf(p, sizeof p, FIX "%s/circuit.zkey", dir);
    cz_error_clear(&err);
    cz_status st = cz_zkey_load(&z, p, NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));
    if (st != CZ_OK) return;
    snprintf(p, sizeof p, FIX "%s/witness.wtns", dir);
    st = cz_wtns_load(&w, p, NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));
    snprintf(p, sizeof p, FIX "%s/circuit.r1cs", dir);
    st = cz_r1cs_load(&r, p, 0, NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));

    CHECK(z.curve == curve && w.curve == curve && r.curve == curve);
    CHECK(z.n_vars == n_vars && w.n == n_vars && r.n_wires == n_vars);
    CHECK(z.n_public == n_public && r.n_pub_out + r.n_pub_in == n_public);
    CHECK(z.domain_size == domain && (1u << z.log_domain) == domain);
    CHECK(r.n_constraints == n_constraints);
    CHECK(z.n_coef == n_coef && z.A.nnz + z.B.nnz == n_coef);

    const fr *wv = w.values;
    /* w[0] = 1 */
    if (curve == CZ_CURVE_BN254)
        CHECK(cz_bn254_fr_is_one((const cz_bn254_fr *)&wv[0]));
    else
        CHECK(cz_bls12_381_fr_is_one((const cz_bls12_381_fr *)&wv[0]));

    /* the witness satisfies the r1cs, and the zkey matrices agree with it */
    long bad_sat = 0, bad_a = 0, bad_b = 0;
    for (uint32_t i = 0; i < r.n_constraints; i++) {
        fr a, b, c, ab, za, zb;
        spmv_row(curve, &a, &r.A, i, wv);
        spmv_row(curve, &b, &r.B, i, wv);
        spmv_row(curve, &c, &r.C, i, wv);
        fr_mul(curve, &ab, &a, &b);
        bad_sat += memcmp(&ab, &c, sizeof ab) != 0;
        spmv_row(curve, &za, &z.A, i, wv);
        spmv_row(curve, &zb, &z.B, i, wv);
        bad_a += memcmp(&za, &a, sizeof a) != 0;
        bad_b += memcmp(&zb, &b, sizeof b) != 0;
    }
    CHECK_MSG(bad_sat == 0, "%s: %ld unsatisfied constraints", dir, bad_sat);
    CHECK_MSG(bad_a == 0 && bad_b == 0, "%s: zkey A/B differ from r1cs in %ld/%ld rows", dir, bad_a, bad_b);
    /* public-input rows: A row nConstraints+s = w[s]; nothing below the domain */
    long bad_pub = 0;
    for (uint32_t s = 0; s <= n_public; s++) {
        fr za;
        spmv_row(curve, &za, &z.A, n_constraints + s, wv);
        bad_pub += memcmp(&za, &wv[s], sizeof za) != 0;
    }
    CHECK(bad_pub == 0);
    for (uint32_t i = n_constraints + n_public + 1; i < domain; i++) {
        CHECK(z.A.row_ptr[i] == z.A.row_ptr[i + 1]);
        CHECK(z.B.row_ptr[i] == z.B.row_ptr[i + 1]);
    }

    /* verification_key.json matches the zkey */
    cz_vkey vk;
    snprintf(p, sizeof p, FIX "%s/verification_key.json", dir);
    st = cz_vkey_read_json(&vk, p, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));
    if (st == CZ_OK) {
        size_t g1 = cz_curve_info_get(curve)->g1_affine_bytes, g2 = cz_curve_info_get(curve)->g2_affine_bytes;
        CHECK(vk.curve == curve && vk.n_public == n_public);
        CHECK(memcmp(vk.alpha1, z.alpha1, g1) == 0);
        CHECK(memcmp(vk.beta2, z.beta2, g2) == 0);
        CHECK(memcmp(vk.gamma2, z.gamma2, g2) == 0);
        CHECK(memcmp(vk.delta2, z.delta2, g2) == 0);
        int ic_ok = 1;
        for (uint32_t i = 0; i <= n_public; i++)
            ic_ok &= memcmp(vk.ic + 12 * i, (const uint8_t *)z.ic + g1 * i, g1) == 0;
        CHECK(ic_ok);
        /* write it back (with a dummy alphabeta) and read again: same key */
        uint64_t ab[72] = {0};
        char out[512];
        snprintf(out, sizeof out, "%s/vk.json", tmpdir);
        CHECK(cz_vkey_write_json(out, &vk, ab, &err) == CZ_OK);
        cz_vkey vk2;
        CHECK(cz_vkey_read_json(&vk2, out, &err) == CZ_OK);
        CHECK(memcmp(vk2.alpha1, vk.alpha1, sizeof vk.alpha1) == 0 && memcmp(vk2.delta2, vk.delta2, sizeof vk.delta2) == 0);
        CHECK(vk2.n_public == vk.n_public && memcmp(vk2.ic, vk.ic, 12 * 8 * ((size_t)n_public + 1)) == 0);
        cz_vkey_free(&vk2);
        cz_vkey_free(&vk);
    }
    /* proof.json and public.json */
    cz_proof pr;
    snprintf(p, sizeof p, FIX "%s/proof.json", dir);
    st = cz_proof_read_json(&pr, curve, p, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));
    if (st == CZ_OK) {
        char out[512];
        snprintf(out, sizeof out, "%s/proof.json", tmpdir);
        CHECK(cz_proof_write_json(out, &pr, &err) == CZ_OK);
        cz_proof pr2;
        CHECK(cz_proof_read_json(&pr2, curve, out, &err) == CZ_OK && memcmp(&pr, &pr2, sizeof pr) == 0);
        /* the other curve's reader rejects it */
        cz_curve other = curve == CZ_CURVE_BN254 ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254;
        cz_error_clear(&err);
        CHECK(cz_proof_read_json(&pr2, other, p, &err) != CZ_OK);
    }
    void *pub;
    size_t npub;
    snprintf(p, sizeof p, FIX "%s/public.json", dir);
    st = cz_public_read_json(&pub, &npub, curve, p, &err);
    CHECK_MSG(st == CZ_OK, "%s: %s", p, cz_error_msg(&err));
    if (st == CZ_OK) {
        CHECK(npub == n_public && memcmp(pub, &wv[1], 32 * npub) == 0);
        char out[512];
        snprintf(out, sizeof out, "%s/public.json", tmpdir);
        CHECK(cz_public_write_json(out, curve, &wv[1], n_public, &err) == CZ_OK);
        size_t l1, l2;
        uint8_t *a = slurp(out, &l1), *b = slurp(p, &l2);
        /* byte-identical to snarkjs's public.json */
        CHECK(a && b && l1 == l2 && memcmp(a, b, l1) == 0);
        free(a);
        free(b);
        free(pub);
    }
    cz_zkey_free(&z);
    cz_wtns_free(&w);
    cz_r1cs_free(&r);
}

/* ---- corruption ---- */
static void test_corruption(cz_rng *rng)
{
    size_t zl, wl, rl;
    uint8_t *zk = slurp(FIX "bn128/poseidon/circuit.zkey", &zl);
    uint8_t *wt = slurp(FIX "bn128/poseidon/witness.wtns", &wl);
    uint8_t *rc = slurp(FIX "bls12381/poseidon/circuit.r1cs", &rl);
    CHECK(zk && wt && rc);
    if (!zk || !wt || !rc) return;
    cz_error err;

    /* every truncation fails cleanly (sampled lengths incl. all small ones) */
    int trunc_ok = 1;
    for (size_t len = 0; len < zl; len += (len < 800 ? 1 : 1 + cz_rng_u64(rng) % 4000)) {
        cz_error_clear(&err);
        cz_status st = load_zkey_bytes(zk, len, &err);
        trunc_ok &= st == CZ_ERR_FORMAT && strstr(err.msg, "t.zkey") != NULL;
    }
    CHECK_MSG(trunc_ok, "truncated zkey not rejected with CZ_ERR_FORMAT naming the file");
    trunc_ok = 1;
    for (size_t len = 0; len < wl; len += (len < 200 ? 1 : 1 + cz_rng_u64(rng) % 300)) {
        cz_error_clear(&err);
        trunc_ok &= load_wtns_bytes(wt, len, &err) == CZ_ERR_FORMAT;
    }
    CHECK(trunc_ok);
    trunc_ok = 1;
    for (size_t len = 0; len < rl; len += (len < 300 ? 1 : 1 + cz_rng_u64(rng) % 2000)) {
        cz_error_clear(&err);
        trunc_ok &= load_r1cs_bytes(rc, len, &err) == CZ_ERR_FORMAT;
    }
    CHECK(trunc_ok);

    uint8_t *m = malloc(zl > wl ? (zl > rl ? zl : rl) : (wl > rl ? wl : rl));
    /* wrong magic / version */
    memcpy(m, zk, zl);
    m[0] = 'x';
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_FORMAT && strstr(err.msg, "magic"));
    memcpy(m, zk, zl);
    m[4] = 2;
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_FORMAT && strstr(err.msg, "version"));
    /* a wtns is not a zkey */
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(wt, wl, &err) == CZ_ERR_FORMAT);
    /* a point coordinate >= q in section 5 */
    uint64_t s5size;
    size_t s5 = section_offset(zk, zl, 5, &s5size);
    CHECK(s5 > 0);
    memcpy(m, zk, zl);
    memset(m + s5 + 64 * 3, 0xff, 32); /* point 3, x = 2^256 - 1 */
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_RANGE && strstr(err.msg, "point 3"));
    /* an off-curve point */
    memcpy(m, zk, zl);
    m[s5 + 64 * 5 + 40] ^= 1; /* point 5, y perturbed */
    cz_error_clear(&err);
    cz_status st = load_zkey_bytes(m, zl, &err);
    CHECK_MSG(st == CZ_ERR_NOT_ON_CURVE || st == CZ_ERR_RANGE, "off-curve point: %s", cz_error_msg(&err));
    /* coefficient with a bad matrix id, row and signal */
    size_t s4 = section_offset(zk, zl, 4, NULL);
    for (int k = 0; k < 3; k++) {
        memcpy(m, zk, zl);
        uint8_t *e = m + s4 + 4 + 44 * 7 + 4 * k;
        e[0] = 0xff;
        e[1] = 0xff;
        e[2] = 0xff;
        e[3] = 0x7f;
        cz_error_clear(&err);
        CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_FORMAT && strstr(err.msg, "coefficient 7"));
    }
    /* coefficient value >= r */
    memcpy(m, zk, zl);
    memset(m + s4 + 4 + 44 * 2 + 12, 0xff, 32);
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_RANGE && strstr(err.msg, "coefficient 2 value is >= r"));
    /* two bad ones: the message names the first in file order */
    memset(m + s4 + 4 + 44 * 5 + 12, 0xff, 32);
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_RANGE && strstr(err.msg, "coefficient 2 value is >= r"));
    /* section size inflated beyond the file */
    memcpy(m, zk, zl);
    m[12 + 4 + 7] = 0x7f;
    cz_error_clear(&err);
    CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_FORMAT);
    /* duplicated section id: rename section 3's id to 5 */
    {
        memcpy(m, zk, zl);
        size_t pos = 12;
        for (uint32_t i = 0; i < cz_load_u32(zk + 8); i++) {
            if (cz_load_u32(zk + pos) == 3) m[pos] = 5;
            pos += 12 + cz_load_u64(zk + pos + 4);
        }
        cz_error_clear(&err);
        CHECK(load_zkey_bytes(m, zl, &err) == CZ_ERR_FORMAT);
    }
    /* witness value >= r */
    memcpy(m, wt, wl);
    size_t w2 = section_offset(wt, wl, 2, NULL);
    memset(m + w2 + 32 * 4, 0xff, 32);
    cz_error_clear(&err);
    CHECK(load_wtns_bytes(m, wl, &err) == CZ_ERR_RANGE && strstr(err.msg, "witness value 4"));
    /* wtns with an unknown prime */
    memcpy(m, wt, wl);
    m[section_offset(wt, wl, 1, NULL) + 4] ^= 1;
    cz_error_clear(&err);
    CHECK(load_wtns_bytes(m, wl, &err) == CZ_ERR_FORMAT);
    /* r1cs: wire index out of range in the first term */
    memcpy(m, rc, rl);
    size_t r2 = section_offset(rc, rl, 2, NULL);
    m[r2 + 4 + 3] = 0x7f;
    cz_error_clear(&err);
    CHECK(load_r1cs_bytes(m, rl, &err) == CZ_ERR_FORMAT && strstr(err.msg, "wire"));

    /* random byte mutations: never a crash; accepted files stay consistent */
    long accepted = 0;
    for (int it = 0; it < (int)cz_test_iters(300); it++) {
        memcpy(m, zk, zl);
        int flips = 1 + (int)(cz_rng_u64(rng) % 4);
        for (int k = 0; k < flips; k++) m[cz_rng_u64(rng) % zl] ^= (uint8_t)(1u << (cz_rng_u64(rng) % 8));
        cz_error_clear(&err);
        cz_status s2 = load_zkey_bytes(m, zl, &err);
        if (s2 == CZ_OK)
            accepted++;
        else
            CHECK(err.msg[0] != 0);
    }
    printf("  mutated zkeys accepted: %ld (flips in unchecked bytes such as section 10)\n", accepted);
    free(m);
    free(zk);
    free(wt);
    free(rc);
    /* missing file */
    cz_zkey z;
    cz_error_clear(&err);
    CHECK(cz_zkey_load(&z, "/nonexistent/x.zkey", NULL, &err) == CZ_ERR_IO && strstr(err.msg, "/nonexistent/x.zkey"));
}

static void test_json(void)
{
    static const char *good[] = {"{}", "[]", " [1, -2.5e+3, \"a\\u00e9\\ud83d\\ude00\", true, false, null] ",
                                 "{\"a\": {\"b\": [[]]}}", "\"\\\\\\/\\b\\f\\n\\r\\t\""};
    static const char *bad[] = {"", "{", "[1,]", "{\"a\" 1}", "[01]", "[1.]", "\"\\x\"", "\"\\ud800\"", "[1] x",
                                "{\"a\":1,}", "tru", "\"abc", "[\"\\u0000\"]", "-", "[1e]", "{1:2}"};
    cz_error err;
    for (size_t i = 0; i < CZ_ARRAY_LEN(good); i++) {
        cz_json_doc *d;
        cz_json *r;
        cz_error_clear(&err);
        CHECK_MSG(cz_json_parse(&d, &r, good[i], strlen(good[i]), "t", &err) == CZ_OK, "good json %zu: %s", i,
                  cz_error_msg(&err));
        cz_json_free(d);
    }
    for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
        cz_json_doc *d;
        cz_json *r;
        cz_error_clear(&err);
        CHECK_MSG(cz_json_parse(&d, &r, bad[i], strlen(bad[i]), "t", &err) == CZ_ERR_FORMAT && strstr(err.msg, "line 1"),
                  "bad json %zu accepted", i);
    }
    /* the unicode string decodes to UTF-8 */
    cz_json_doc *d;
    cz_json *r;
    CHECK(cz_json_parse(&d, &r, good[2], strlen(good[2]), "t", &err) == CZ_OK);
    const cz_json *s = cz_json_at(r, 2);
    CHECK(s && s->len == 7 && memcmp(s->str, "a\xc3\xa9\xf0\x9f\x98\x80", 7) == 0);
    CHECK(cz_json_at(r, 1)->type == CZ_JSON_NUMBER && strcmp(cz_json_at(r, 1)->str, "-2.5e+3") == 0);
    cz_json_free(d);
    /* depth limit */
    char deep[300];
    memset(deep, '[', 150);
    memset(deep + 150, ']', 150);
    CHECK(cz_json_parse(&d, &r, deep, 300, "t", &err) == CZ_ERR_FORMAT);
    /* line/column */
    cz_error_clear(&err);
    CHECK(cz_json_parse(&d, &r, "{\n  \"a\": x}", 11, "f.json", &err) == CZ_ERR_FORMAT &&
          strstr(err.msg, "f.json: line 2, column 8"));
}

/* The coefficient section is placed in parallel (chunks of entries, blocks
 * of rows); the layout must be the sequential one: each row's entries in
 * file order. Checked on a generated key large enough for several chunks
 * and row blocks, against a placement done here entry by entry. */
static void test_coef_layout(void)
{
    char r1cs[300], wtns[300], zkey[300];
    snprintf(r1cs, sizeof r1cs, "%s/lay.r1cs", tmpdir);
    snprintf(wtns, sizeof wtns, "%s/lay.wtns", tmpdir);
    snprintf(zkey, sizeof zkey, "%s/lay.zkey", tmpdir);
    cz_gen_opts go;
    memset(&go, 0, sizeof go);
    go.curve = CZ_CURVE_BN254;
    go.profile = CZ_GEN_DENSE;
    go.n_constraints = 20000;
    go.n_public = CZ_GEN_PUBLIC_DEFAULT;
    go.seed = 5;
    cz_error err;
    cz_error_clear(&err);
    cz_r1cs r;
    cz_status st = cz_gen_circuit(&go, r1cs, wtns, NULL, &err);
    if (st == CZ_OK) st = cz_r1cs_load(&r, r1cs, 0, NULL, &err);
    if (st == CZ_OK) {
        cz_setup_opts so;
        memset(&so, 0, sizeof so);
        so.use_seed = 1;
        so.seed = 5;
        st = cz_groth16_setup_dev(&r, zkey, &so, NULL, &err);
        cz_r1cs_free(&r);
    }
    CHECK_MSG(st == CZ_OK, "layout key: %s", cz_error_msg(&err));
    if (st != CZ_OK) return;
    cz_zkey z;
    st = cz_zkey_load(&z, zkey, NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s", cz_error_msg(&err));
    size_t len;
    uint8_t *d = slurp(zkey, &len);
    uint64_t sz = 0;
    size_t off = d ? section_offset(d, len, 4, &sz) : 0;
    CHECK(off != 0);
    if (st != CZ_OK || !off) {
        if (st == CZ_OK) cz_zkey_free(&z);
        free(d);
        return;
    }
    const uint32_t n = cz_load_u32(d + off);
    CHECK(n == z.n_coef && n > 4 * 4096 && z.domain_size >= 8 * 1024);
    const cz_csr *mats[2] = {&z.A, &z.B};
    uint64_t *next[2];
    long bad_col = 0, bad_val = 0;
    for (int m = 0; m < 2; m++) {
        next[m] = malloc(((size_t)z.domain_size + 1) * sizeof(uint64_t));
        memcpy(next[m], mats[m]->row_ptr, ((size_t)z.domain_size + 1) * sizeof(uint64_t));
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = d + off + 4 + (size_t)i * 44;
        uint32_t m = cz_load_u32(e), row = cz_load_u32(e + 4), sig = cz_load_u32(e + 8);
        uint64_t slot = next[m][row]++;
        bad_col += mats[m]->col[slot] != sig;
        cz_bn254_fr raw;
        uint64_t want[4];
        for (int k = 0; k < 4; k++) raw.l[k] = cz_load_u64(e + 12 + 8 * k);
        cz_bn254_fr_to_canonical(want, &raw); /* coef R^2 -> coef R, as stored */
        bad_val += memcmp((const uint8_t *)mats[m]->val + 32 * slot, want, 32) != 0;
    }
    long bad_end = 0;
    for (int m = 0; m < 2; m++) {
        for (uint32_t row = 0; row < z.domain_size; row++) bad_end += next[m][row] != mats[m]->row_ptr[row + 1];
        free(next[m]);
    }
    CHECK_MSG(bad_col == 0 && bad_val == 0 && bad_end == 0, "%ld columns, %ld values, %ld row ends differ", bad_col,
              bad_val, bad_end);
    printf("  coefficient layout: %u entries, domain %u, file order kept\n", n, z.domain_size);
    cz_zkey_free(&z);
    free(d);
}


/* ---- bellperson binary proof ---- */
static void from_hex(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i]; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* A compressed G1 (g2 = 0) or G2 (g2 = 1) encoding with x = (k) resp.
 * x = (c1 = k, c0 = 0) whose decoding gives want (NOT_ON_CURVE: x^3 + b is
 * no square; NOT_IN_SUBGROUP: a point of the curve outside the order-r
 * subgroup); 0 when none of k = 1..200 does. */
static int find_bad_x(uint8_t *enc, int g2, cz_status want)
{
    size_t len = g2 ? 96 : 48;
    for (unsigned k = 1; k <= 200; k++) {
        memset(enc, 0, len);
        enc[0] = 0x80;
        enc[47] = (uint8_t)k; /* G1: x = k; G2: x.c1 = k (the first 48 bytes), x.c0 = 0 */
        cz_status st;
        if (g2) {
            cz_bls12_381_g2_affine q;
            st = cz_bls12_381_g2_from_compressed(&q, enc, 0);
        } else {
            cz_bls12_381_g1_affine q;
            st = cz_bls12_381_g1_from_compressed(&q, enc, 0);
        }
        if (st == want) return 1;
    }
    return 0;
}

static void test_bellperson(void)
{
    cz_error err;
    uint8_t bin[CZ_PROOF_BIN_BYTES], want[CZ_PROOF_BIN_BYTES];

    /* known points: A = the G1 generator, B = the G2 generator, C = infinity */
    cz_proof g;
    memset(&g, 0, sizeof g);
    g.curve = CZ_CURVE_BLS12_381;
    memcpy(g.a, cz_bls12_381_g1_generator(), sizeof(cz_bls12_381_g1_affine));
    memcpy(g.b, cz_bls12_381_g2_generator(), sizeof(cz_bls12_381_g2_affine));
    from_hex(want, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    from_hex(want + 48,
             "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
             "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    memset(want + 144, 0, 48);
    want[144] = 0xc0; /* compressed infinity */
    cz_error_clear(&err);
    CHECK(cz_proof_to_bellperson(bin, &g, &err) == CZ_OK);
    CHECK_MSG(memcmp(bin, want, sizeof bin) == 0, "the generators' encoding differs from the zcash one");
    cz_proof back;
    CHECK(cz_proof_from_bellperson(&back, want, &err) == CZ_OK && memcmp(&back, &g, sizeof g) == 0);

    /* BN254 proofs have no bellperson encoding */
    cz_proof bn = g;
    bn.curve = CZ_CURVE_BN254;
    cz_error_clear(&err);
    CHECK(cz_proof_to_bellperson(bin, &bn, &err) == CZ_ERR_UNSUPPORTED && strstr(err.msg, "BLS12-381") &&
          strstr(err.msg, "bn254"));
    char path[300];
    snprintf(path, sizeof path, "%s/bn.bin", tmpdir);
    cz_error_clear(&err);
    CHECK(cz_proof_write_bin(path, &bn, &err) == CZ_ERR_UNSUPPORTED && strstr(err.msg, path) &&
          access(path, F_OK) != 0);

    /* round trips: a proof of the prover (fresh blinding) and snarkjs's own */
    cz_zkey zk;
    cz_wtns w;
    cz_proof proofs[2];
    int nproofs = 0;
    cz_error_clear(&err);
    if (cz_zkey_load(&zk, FIX "bls12381/poseidon/circuit.zkey", NULL, &err) == CZ_OK) {
        if (cz_wtns_load(&w, FIX "bls12381/poseidon/witness.wtns", NULL, &err) == CZ_OK) {
            CHECK_MSG(cz_groth16_prove(&proofs[0], &zk, &w, NULL, NULL, &err) == CZ_OK, "prove: %s",
                      cz_error_msg(&err));
            nproofs += err.status == CZ_OK;
            cz_wtns_free(&w);
        }
        cz_zkey_free(&zk);
    }
    CHECK_MSG(nproofs == 1, "%s", cz_error_msg(&err));
    cz_error_clear(&err);
    CHECK(cz_proof_read_json(&proofs[nproofs], CZ_CURVE_BLS12_381, FIX "bls12381/poseidon/proof.json", &err) == CZ_OK);
    nproofs += err.status == CZ_OK;
    for (int i = 0; i < nproofs; i++) {
        cz_error_clear(&err);
        CHECK(cz_proof_to_bellperson(bin, &proofs[i], &err) == CZ_OK);
        CHECK((bin[0] & 0xc0) == 0x80 && (bin[48] & 0xc0) == 0x80 && (bin[144] & 0xc0) == 0x80);
        memset(&back, 0xab, sizeof back);
        CHECK_MSG(cz_proof_from_bellperson(&back, bin, &err) == CZ_OK, "%s", cz_error_msg(&err));
        CHECK(memcmp(&back, &proofs[i], sizeof back) == 0);
        /* the file holds exactly the encoding */
        snprintf(path, sizeof path, "%s/proof%d.bin", tmpdir, i);
        CHECK(cz_proof_write_bin(path, &proofs[i], &err) == CZ_OK);
        size_t len = 0;
        uint8_t *file = slurp(path, &len);
        CHECK(file && len == CZ_PROOF_BIN_BYTES && memcmp(file, bin, len) == 0);
        free(file);
    }
    if (nproofs == 0) return;
    CHECK(cz_proof_to_bellperson(want, &proofs[0], &err) == CZ_OK);

    /* tampered bytes: status, the offset in the message, *p unchanged */
    struct {
        int off;          /* byte changed */
        uint8_t xor_mask; /* by this */
        cz_status st;
        const char *name;
    } flips[] = {
        {0, 0x80, CZ_ERR_ENCODING, "A: compression flag cleared"},
        {48, 0x80, CZ_ERR_ENCODING, "B: compression flag cleared"},
        {144, 0x80, CZ_ERR_ENCODING, "C: compression flag cleared"},
        {0, 0x40, CZ_ERR_ENCODING, "A: infinity flag on a point"},
        {144, 0x40, CZ_ERR_ENCODING, "C: infinity flag on a point"},
    };
    for (size_t i = 0; i < CZ_ARRAY_LEN(flips); i++) {
        memcpy(bin, want, sizeof bin);
        bin[flips[i].off] ^= flips[i].xor_mask;
        char at[32];
        snprintf(at, sizeof at, "offset %d", flips[i].off);
        memset(&back, 0x5a, sizeof back);
        cz_proof before = back;
        cz_error_clear(&err);
        cz_status st = cz_proof_from_bellperson(&back, bin, &err);
        CHECK_MSG(st == flips[i].st && strstr(err.msg, at) && memcmp(&back, &before, sizeof back) == 0,
                  "%s: %s (%s)", flips[i].name, cz_status_str(st), err.msg);
    }
    /* x >= q (all value bits set) in B */
    memcpy(bin, want, sizeof bin);
    memset(bin + 48, 0xff, 96);
    bin[48] = 0x9f;
    cz_error_clear(&err);
    CHECK_MSG(cz_proof_from_bellperson(&back, bin, &err) == CZ_ERR_RANGE && strstr(err.msg, "offset 48"), "%s",
              err.msg);
    /* infinity with a stray byte in C */
    memcpy(bin, want, sizeof bin);
    memset(bin + 144, 0, 48);
    bin[144] = 0xc0;
    CHECK(cz_proof_from_bellperson(&back, bin, &err) == CZ_OK); /* C = infinity is a valid encoding */
    bin[191] = 1;
    cz_error_clear(&err);
    CHECK(cz_proof_from_bellperson(&back, bin, &err) == CZ_ERR_ENCODING && strstr(err.msg, "offset 144"));
    /* off the curve (no point has that x), and on the curve but outside the
     * prime-order subgroup (the curve's other points: the wrong group) */
    static const struct {
        int off, g2;
        cz_status st;
    } bad_x[] = {{0, 0, CZ_ERR_NOT_ON_CURVE},  {144, 0, CZ_ERR_NOT_ON_CURVE},  {48, 1, CZ_ERR_NOT_ON_CURVE},
                 {0, 0, CZ_ERR_NOT_IN_SUBGROUP}, {144, 0, CZ_ERR_NOT_IN_SUBGROUP}, {48, 1, CZ_ERR_NOT_IN_SUBGROUP}};
    for (size_t i = 0; i < CZ_ARRAY_LEN(bad_x); i++) {
        memcpy(bin, want, sizeof bin);
        int found = find_bad_x(bin + bad_x[i].off, bad_x[i].g2, bad_x[i].st);
        CHECK_MSG(found, "no x = 1..200 gives %s", cz_status_str(bad_x[i].st));
        if (!found) continue;
        char at[32];
        snprintf(at, sizeof at, "offset %d", bad_x[i].off);
        cz_error_clear(&err);
        cz_status st = cz_proof_from_bellperson(&back, bin, &err);
        CHECK_MSG(st == bad_x[i].st && strstr(err.msg, at), "offset %d: %s (%s)", bad_x[i].off, cz_status_str(st),
                  err.msg);
    }
    /* a BN254 G1 point (its generator (1, 2), 32 bytes) in A's place */
    memcpy(bin, want, sizeof bin);
    uint8_t bn_g1[32];
    cz_bn254_g1_to_compressed(bn_g1, cz_bn254_g1_generator());
    memset(bin, 0, 48);
    memcpy(bin, bn_g1, 32);
    cz_error_clear(&err);
    CHECK_MSG(cz_proof_from_bellperson(&back, bin, &err) != CZ_OK && strstr(err.msg, "offset 0"), "%s", err.msg);
}

/* The curve table, and values that are no curve: every entry point that
 * takes a curve refuses them (CZ_ERR_INVALID_ARG, "unknown curve N")
 * instead of running another curve's code, and writes no file. */
static void test_unknown_curve(void)
{
    /* the known curves: one table row each, names that parse back */
    CHECK(CZ_CURVE_COUNT == 2 && CZ_CURVE_BN254 == 1 && CZ_CURVE_BLS12_381 == 2);
    static const cz_curve known[] = {CZ_CURVE_BN254, CZ_CURVE_BLS12_381};
    CHECK(cz_curve_index(known[0]) != cz_curve_index(known[1]));
    for (int i = 0; i < 2; i++) {
        const cz_curve_info *ci = cz_curve_info_get(known[i]);
        CHECK(ci && ci->curve == known[i] && ci->index == cz_curve_index(known[i]) && ci->index >= 0 &&
              ci->index < CZ_CURVE_COUNT);
        if (!ci) continue;
        CHECK(cz_curve_parse(ci->name) == known[i] && cz_curve_parse(ci->snarkjs_name) == known[i] &&
              cz_curve_parse(ci->alias) == known[i]);
        CHECK(ci->fr_bytes == 32 && ci->fr_limbs == 4 && ci->fq_bytes == 8 * ci->fq_limbs);
        CHECK(ci->g1_affine_bytes == 2 * ci->fq_bytes && ci->g2_affine_bytes == 4 * ci->fq_bytes);
    }
    CHECK(!strcmp(cz_curve_info_get(CZ_CURVE_BN254)->name, "bn254") &&
          !strcmp(cz_curve_info_get(CZ_CURVE_BN254)->snarkjs_name, "bn128") &&
          cz_curve_info_get(CZ_CURVE_BN254)->fq_limbs == 4 && cz_curve_info_get(CZ_CURVE_BN254)->fr_two_adicity == 28);
    CHECK(!strcmp(cz_curve_info_get(CZ_CURVE_BLS12_381)->name, "bls12-381") &&
          !strcmp(cz_curve_info_get(CZ_CURVE_BLS12_381)->snarkjs_name, "bls12381") &&
          cz_curve_info_get(CZ_CURVE_BLS12_381)->fq_limbs == 6 &&
          cz_curve_info_get(CZ_CURVE_BLS12_381)->fr_two_adicity == 32);
    CHECK(cz_curve_parse("BN128") == CZ_CURVE_BN254 && cz_curve_parse("Alt_BN128") == CZ_CURVE_BN254);
    CHECK(cz_curve_parse("bls12-377") == CZ_CURVE_NONE && cz_curve_parse("") == CZ_CURVE_NONE &&
          cz_curve_parse(NULL) == CZ_CURVE_NONE);

    static const cz_curve bad[] = {CZ_CURVE_NONE, (cz_curve)(CZ_CURVE_COUNT + 1), (cz_curve)99, (cz_curve)-1};
    char p[512];
    snprintf(p, sizeof p, "%s/unknown_curve.out", tmpdir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_curve c = bad[i];
        char want[64];
        snprintf(want, sizeof want, "unknown curve %d", (int)c);
        cz_error err;
#define REFUSED(call)                                                                                                  \
    do {                                                                                                               \
        cz_error_clear(&err);                                                                                          \
        cz_status st_ = (call);                                                                                        \
        CHECK_MSG(st_ == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), want), "curve %d: %s: %s", (int)c, #call,    \
                  cz_error_msg(&err));                                                                                 \
        CHECK_MSG(access(p, F_OK) != 0, "curve %d: %s left a file", (int)c, #call);                                    \
    } while (0)
        CHECK(cz_curve_index(c) == -1 && cz_curve_info_get(c) == NULL);
        CHECK(!strcmp(cz_curve_name(c), "none") && !strcmp(cz_curve_snarkjs_name(c), "none"));
        /* JSON writers and readers */
        cz_proof pr;
        memset(&pr, 0, sizeof pr);
        pr.curve = c;
        REFUSED(cz_proof_write_json(p, &pr, &err));
        uint8_t one[32] = {1};
        REFUSED(cz_public_write_json(p, c, one, 1, &err));
        cz_vkey vk;
        memset(&vk, 0, sizeof vk);
        vk.curve = c;
        uint64_t ab[72] = {0};
        REFUSED(cz_vkey_write_json(p, &vk, ab, &err));
        REFUSED(cz_proof_read_json(&pr, c, FIX "bn128/poseidon/proof.json", &err));
        void *vals = (void *)1;
        size_t nv = 7;
        REFUSED(cz_public_read_json(&vals, &nv, c, FIX "bn128/poseidon/public.json", &err));
        CHECK(vals == NULL && nv == 0);
        /* binary writers */
        REFUSED(cz_wtns_write(p, c, one, 1, 0, NULL, &err));
        cz_r1cs_header h = {c, 3, 0, 1, 1, 0};
        cz_r1cs_writer rw;
        REFUSED(cz_r1cs_writer_open(&rw, p, &h, &err));
        cz_zkey_layout l = {c, 3, 1, 4, 0, 68};
        cz_zkey_writer zw;
        REFUSED(cz_zkey_writer_open(&zw, p, &l, &err));
        uint64_t sizes[11];
        CHECK(cz_zkey_layout_sizes(&l, sizes) == CZ_ERR_INVALID_ARG && cz_zkey_file_size(&l) == 0);
#undef REFUSED
    }
}

/* ====================================================================
 * Issue 13: hostile inputs. Each test builds its own inputs in tmpdir.
 * ==================================================================== */

/* "…a or b…": the message holds every one of the NULL-terminated words */
static int msg_has(const cz_error *e, ...)
{
    va_list ap;
    va_start(ap, e);
    int ok = 1;
    for (const char *w; (w = va_arg(ap, const char *)) != NULL;)
        ok &= strstr(e->msg, w) != NULL;
    va_end(ap);
    return ok;
}

static const char *tpath(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* an allocator that, on its at-th call, truncates or changes the file the
 * loader is reading (and that counts its calls): a file changing while it
 * is read, at a chosen point of the load */
typedef struct {
    const char *path;
    int calls, at;
    int mode; /* 0: truncate to size; 1: overwrite byte off with val (same size); 2: fail */
    off_t size, off;
    uint8_t val;
} hook_ctx;

static void *hook_alloc(void *ctx, size_t bytes)
{
    hook_ctx *h = ctx;
    if (++h->calls == h->at) {
        if (h->mode == 0) {
            if (truncate(h->path, h->size) != 0) perror("truncate");
        } else if (h->mode == 1) {
            int fd = open(h->path, O_WRONLY);
            if (fd >= 0) {
                if (pwrite(fd, &h->val, 1, h->off) != 1) perror("pwrite");
                close(fd);
            }
        } else {
            return NULL;
        }
    }
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}
static void hook_free(void *ctx, void *p, size_t bytes)
{
    (void)ctx;
    (void)bytes;
    free(p);
}

/* a copy of src at name with its modification time a day back (an in-place
 * change made during the load then moves it, whatever the clock's grain) */
static const char *fresh_copy(const char *name, const uint8_t *d, size_t len)
{
    const char *p = spit(name, d, len);
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec -= 86400;
    ts[1] = ts[0];
    if (p) utimensat(AT_FDCWD, p, ts, 0);
    return p;
}

/* 1. A file that shrinks or changes while it is read: an error naming the
 * file (and, for a read past the new end, the offset), never a signal; the
 * r1cs reader's second pass never writes past what its first counted. */
static void test_changing_files(void)
{
    size_t zl, wl, rl;
    uint8_t *zk = slurp(FIX "bls12381/poseidon/circuit.zkey", &zl);
    uint8_t *wt = slurp(FIX "bn128/poseidon/witness.wtns", &wl);
    uint8_t *rc = slurp(FIX "bn128/poseidon/circuit.r1cs", &rl);
    CHECK(zk && wt && rc);
    if (!zk || !wt || !rc) goto out;
    cz_error err;
    /* the binfile layer: opened at one size, read after truncation */
    {
        const char *p = fresh_copy("shrink.zkey", zk, zl);
        cz_binfile f;
        cz_error_clear(&err);
        CHECK(cz_binfile_open(&f, p, "zkey", 1, 1, &err) == CZ_OK);
        CHECK(truncate(p, (off_t)zl / 2) == 0);
        uint8_t buf[64];
        cz_error_clear(&err);
        CHECK_MSG(cz_binfile_read(&f, zl - 100, buf, 64, &err) == CZ_ERR_IO &&
                      msg_has(&err, p, "offset", "truncated while it was read", NULL),
                  "%s", err.msg);
        char want[64];
        snprintf(want, sizeof want, "offset %zu", zl - 100);
        CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
        cz_error_clear(&err);
        CHECK(cz_binfile_check_unchanged(&f, &err) == CZ_ERR_IO && msg_has(&err, p, "changed while it was read", NULL));
        cz_binfile_close(&f);
    }
    /* the zkey loader, truncated at each of its allocations (every point of
     * the load between two reads), then changed in place (same size) */
    int zk_ok = 1, calls = 0;
    for (int at = 1; at <= 16; at++) {
        const char *p = fresh_copy("shrink.zkey", zk, zl);
        hook_ctx h = {p, 0, at, 0, (off_t)zl / 3, 0, 0};
        cz_allocator a = {hook_alloc, hook_free, &h};
        cz_zkey_opts o;
        memset(&o, 0, sizeof o);
        o.alloc = &a;
        cz_zkey z;
        cz_error_clear(&err);
        cz_status st = cz_zkey_load(&z, p, &o, &err);
        if (st == CZ_OK) cz_zkey_free(&z);
        if (h.calls < at) break; /* fewer allocations than that */
        calls = at;
        int good = st == CZ_ERR_IO && msg_has(&err, p, NULL) &&
                   (strstr(err.msg, "truncated while it was read") || strstr(err.msg, "changed while it was read"));
        if (!good) printf("  truncated at allocation %d: %s (%s)\n", at, cz_status_str(st), err.msg);
        zk_ok &= good;
    }
    CHECK_MSG(zk_ok && calls >= 10, "zkey truncated during the load: %d allocations", calls);
    {
        uint64_t s10sz = 0;
        size_t s10 = section_offset(zk, zl, 10, &s10sz);
        CHECK(s10 > 0);
        const char *p = fresh_copy("change.zkey", zk, zl);
        hook_ctx h = {p, 0, 4, 1, 0, (off_t)(s10 + s10sz - 1), (uint8_t)(zk[s10 + s10sz - 1] ^ 1)};
        cz_allocator a = {hook_alloc, hook_free, &h};
        cz_zkey_opts o;
        memset(&o, 0, sizeof o);
        o.alloc = &a;
        cz_zkey z;
        cz_error_clear(&err);
        cz_status st = cz_zkey_load(&z, p, &o, &err);
        if (st == CZ_OK) cz_zkey_free(&z);
        CHECK_MSG(st == CZ_ERR_IO && msg_has(&err, p, "modified while it was read", NULL), "%s", err.msg);
    }
    /* the witness: truncated when its values are allocated */
    {
        const char *p = fresh_copy("shrink.wtns", wt, wl);
        hook_ctx h = {p, 0, 1, 0, (off_t)wl - 40, 0, 0};
        cz_allocator a = {hook_alloc, hook_free, &h};
        cz_wtns w;
        cz_error_clear(&err);
        cz_status st = cz_wtns_load(&w, p, &a, &err);
        if (st == CZ_OK) cz_wtns_free(&w);
        CHECK_MSG(st == CZ_ERR_IO && msg_has(&err, p, "offset", "truncated while it was read", NULL), "%s", err.msg);
    }
    /* the r1cs: truncated between its two passes; changed between them so
     * that the second finds more terms than the first counted */
    {
        const char *p = fresh_copy("shrink.r1cs", rc, rl);
        hook_ctx h = {p, 0, 1, 0, (off_t)rl / 2, 0, 0};
        cz_allocator a = {hook_alloc, hook_free, &h};
        cz_r1cs r;
        cz_error_clear(&err);
        cz_status st = cz_r1cs_load(&r, p, 0, &a, &err);
        if (st == CZ_OK) cz_r1cs_free(&r);
        CHECK_MSG(st == CZ_ERR_IO && msg_has(&err, p, "truncated while it was read", NULL), "%s", err.msg);
        size_t s2 = section_offset(rc, rl, 2, NULL);
        /* constraint 0: A's term count + 1 (its byte 0) */
        p = fresh_copy("change.r1cs", rc, rl);
        hook_ctx h2 = {p, 0, 1, 1, 0, (off_t)s2, (uint8_t)(rc[s2] + 1)};
        cz_allocator a2 = {hook_alloc, hook_free, &h2};
        cz_error_clear(&err);
        st = cz_r1cs_load(&r, p, 0, &a2, &err);
        if (st == CZ_OK) cz_r1cs_free(&r);
        CHECK_MSG(st != CZ_OK && msg_has(&err, p, NULL), "r1cs changed between the passes: %s (%s)", cz_status_str(st),
                  err.msg);
    }
out:
    free(zk);
    free(wt);
    free(rc);
}

/* 8, 18. FIFOs, directories and devices are refused at once, by name and
 * kind, by every reader (a FIFO with no writer would block in open). */
static void test_special_files(void)
{
    const char *fifo = tpath("in.fifo");
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *dir = tpath("a_dir.json");
    CHECK(mkdir(dir, 0700) == 0);
    alarm(60); /* a regression hangs: end the test instead */
    const struct {
        const char *path, *kind;
    } cases[] = {{fifo, "is a FIFO (named pipe), not a regular file"},
                 {dir, "is a directory"},
                 {"/dev/zero", "is a character device, not a regular file"}};
    for (size_t i = 0; i < CZ_ARRAY_LEN(cases); i++) {
        const char *p = cases[i].path, *k = cases[i].kind;
        cz_error err;
        cz_zkey z;
        cz_error_clear(&err);
        CHECK_MSG(cz_zkey_load(&z, p, NULL, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL), "zkey: %s", err.msg);
        cz_wtns w;
        cz_error_clear(&err);
        CHECK_MSG(cz_wtns_load(&w, p, NULL, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL), "wtns: %s", err.msg);
        cz_curve c;
        uint32_t n;
        cz_error_clear(&err);
        CHECK(cz_wtns_probe(p, &c, &n, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL));
        cz_r1cs r;
        cz_error_clear(&err);
        CHECK_MSG(cz_r1cs_load(&r, p, 0, NULL, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL), "r1cs: %s", err.msg);
        cz_vkey vk;
        cz_error_clear(&err);
        CHECK_MSG(cz_vkey_read_json(&vk, p, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL), "vkey: %s", err.msg);
        cz_proof pr;
        cz_error_clear(&err);
        CHECK(cz_proof_read_json(&pr, CZ_CURVE_BN254, p, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL));
        void *v;
        size_t nv;
        cz_error_clear(&err);
        CHECK(cz_public_read_json(&v, &nv, CZ_CURVE_BN254, p, &err) == CZ_ERR_IO && msg_has(&err, p, k, NULL));
        uint8_t mg[4];
        size_t got = 9;
        cz_error_clear(&err);
        CHECK(cz_io_read_magic(p, mg, &got, &err) == CZ_ERR_IO && got == 0 && msg_has(&err, p, k, NULL));
    }
    uint8_t mg[4];
    size_t got = 0;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_io_read_magic(FIX "bn128/poseidon/circuit.zkey", mg, &got, &err) == CZ_OK && got == 4 &&
          memcmp(mg, "zkey", 4) == 0);
    const char *shortf = spit("short.bin", (const uint8_t *)"ab", 2);
    CHECK(cz_io_read_magic(shortf, mg, &got, &err) == CZ_OK && got == 2 && mg[0] == 'a');
    alarm(0);
    unlink(fifo);
    rmdir(dir);
    /* 10: the status of a failed system call */
    CHECK(cz_io_status(ENOMEM) == CZ_ERR_NO_MEMORY && cz_io_status(EIO) == CZ_ERR_IO &&
          cz_io_status(EACCES) == CZ_ERR_IO);
}

/* 10. An allocation that fails is CZ_ERR_NO_MEMORY (exit 6) in every
 * reader, whichever allocation it is. */
static void test_no_memory(void)
{
    int ok = 1;
    for (int at = 1; at <= 12; at++) {
        hook_ctx h = {NULL, 0, at, 2, 0, 0, 0};
        cz_allocator a = {hook_alloc, hook_free, &h};
        cz_zkey_opts o;
        memset(&o, 0, sizeof o);
        o.alloc = &a;
        cz_zkey z;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = cz_zkey_load(&z, FIX "bn128/poseidon/circuit.zkey", &o, &err);
        if (st == CZ_OK) cz_zkey_free(&z);
        if (h.calls < at) break;
        ok &= st == CZ_ERR_NO_MEMORY && strstr(err.msg, "out of memory") != NULL;
    }
    CHECK(ok);
    hook_ctx h = {NULL, 0, 1, 2, 0, 0, 0};
    cz_allocator a = {hook_alloc, hook_free, &h};
    cz_wtns w;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_wtns_load(&w, FIX "bn128/poseidon/witness.wtns", &a, &err) == CZ_ERR_NO_MEMORY);
    h.calls = 0;
    cz_r1cs r;
    cz_error_clear(&err);
    CHECK(cz_r1cs_load(&r, FIX "bn128/poseidon/circuit.r1cs", 0, &a, &err) == CZ_ERR_NO_MEMORY);
}

static void st32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}
static void bn254_r_le(uint8_t *out)
{
    const cz_field *fr = cz_field_fr(CZ_CURVE_BN254);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++)
            out[8 * i + k] = (uint8_t)(fr->modulus[i] >> (8 * k));
}

/* a small .r1cs: header counts as given, one constraint (A: 1 term, B: 1,
 * C: 0) over wires 0 and 1, and a wire map of map_wires entries; bn128 */
static size_t craft_r1cs(uint8_t *b, uint32_t n_wires, uint32_t n_constraints, uint32_t map_wires)
{
    size_t n = 0;
#define PUT32(v) (st32(b + n, (v)), n += 4)
#define PUT64(v) (st32(b + n, (uint32_t)(v)), st32(b + n + 4, (uint32_t)((uint64_t)(v) >> 32)), n += 8)
    memcpy(b, "r1cs", 4);
    n = 4;
    PUT32(1);
    PUT32(3);
    /* section 1 */
    PUT32(1);
    PUT64(64);
    PUT32(32);
    bn254_r_le(b + n);
    n += 32;
    PUT32(n_wires);
    PUT32(1); /* nPubOut */
    PUT32(0);
    PUT32(0);
    PUT64(n_wires);
    PUT32(n_constraints);
    /* section 2 */
    PUT32(2);
    PUT64(84);
    for (int m = 0; m < 3; m++) {
        PUT32(m < 2 ? 1u : 0u);
        if (m < 2) {
            PUT32((uint32_t)m);
            memset(b + n, 0, 32);
            b[n] = 1; /* coefficient 1 */
            n += 32;
        }
    }
    /* section 3 */
    PUT32(3);
    PUT64((uint64_t)map_wires * 8);
    for (uint32_t i = 0; i < map_wires; i++)
        PUT64(i);
#undef PUT32
#undef PUT64
    return n;
}

/* 7. Counts in an .r1cs header are checked against the bytes that hold
 * them before anything is allocated for them. */
static void test_r1cs_claims(void)
{
    uint8_t b[512];
    cz_error err;
    size_t len = craft_r1cs(b, 3, 1, 3);
    CHECK_MSG(len == 220, "%zu bytes", len);
    cz_r1cs r;
    cz_error_clear(&err);
    CHECK_MSG(cz_r1cs_load(&r, spit("small.r1cs", b, len), 0, NULL, &err) == CZ_OK, "%s", err.msg);
    if (err.status == CZ_OK) {
        CHECK(r.n_wires == 3 && r.n_constraints == 1 && r.A.nnz == 1 && r.B.nnz == 1 && r.C.nnz == 0);
        cz_r1cs_free(&r);
    }
    static const struct {
        uint32_t wires, constraints, map;
        const char *words[4];
    } bad[] = {
        {0xffffffffu, 1, 3, {"section 3 (wire map)", "24 bytes", "nWires = 4294967295", "34359738360"}},
        {1u << 27, 1, 3, {"section 3 (wire map)", "24 bytes", "nWires = 134217728", "1073741824"}},
        {3, 1u << 31, 3, {"section 2 (constraints)", "84 bytes", "nConstraints = 2147483648", "25769803776"}},
        {3, 8, 3, {"section 2 (constraints)", "84 bytes", "nConstraints = 8", "96 in all"}},
        {3, 1, 2, {"section 3 (wire map)", "16 bytes", "nWires = 3", "= 24"}},
    };
    for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
        len = craft_r1cs(b, bad[i].wires, bad[i].constraints, bad[i].map);
        const char *p = spit("claims.r1cs", b, len);
        /* an allocator that fails the test if it is called at all */
        hook_ctx h = {NULL, 0, 1, 2, 0, 0, 0};
        cz_allocator a = {hook_alloc, hook_free, &h};
        for (int header_only = 0; header_only < 2; header_only++) {
            cz_error_clear(&err);
            cz_status st = cz_r1cs_load(&r, p, header_only, &a, &err);
            CHECK_MSG(st == CZ_ERR_FORMAT && h.calls == 0 &&
                          msg_has(&err, p, bad[i].words[0], bad[i].words[1], bad[i].words[2], bad[i].words[3], NULL),
                      "case %zu: %s, %d allocations: %s", i, cz_status_str(st), h.calls, err.msg);
        }
    }
    /* section 3 missing */
    len = craft_r1cs(b, 3, 1, 3);
    st32(b + 8, 2); /* two sections: the wire map is cut off */
    cz_error_clear(&err);
    CHECK(cz_r1cs_load(&r, spit("nomap.r1cs", b, len - 36), 0, NULL, &err) == CZ_ERR_FORMAT &&
          msg_has(&err, "section id 3 is missing", NULL));
}

/* 9. JSON inputs: a size limit checked on fstat's size before any byte is
 * read, and binary bytes refused where they are met. */
static void test_json_limits(void)
{
    cz_error err;
    const char *p = tpath("sparse_vk.json");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)3 << 30) == 0);
    if (fd >= 0) close(fd);
    cz_vkey vk;
    cz_error_clear(&err);
    CHECK_MSG(cz_vkey_read_json(&vk, p, &err) == CZ_ERR_FORMAT &&
                  msg_has(&err, p, "3221225472 bytes", "more than the", "a verification key", NULL),
              "%s", err.msg);
    cz_proof pr;
    cz_error_clear(&err);
    CHECK(cz_proof_read_json(&pr, CZ_CURVE_BN254, p, &err) == CZ_ERR_FORMAT && msg_has(&err, "a proof", NULL));
    void *v;
    size_t nv;
    cz_error_clear(&err);
    CHECK(cz_public_read_json(&v, &nv, CZ_CURVE_BN254, p, &err) == CZ_ERR_FORMAT &&
          msg_has(&err, "public signals", NULL));
    unlink(p);
    /* just over each limit: refused; zeros within the limit: refused at
     * their first byte, line 1 column 1 */
    const size_t limits[] = {CZ_VKEY_JSON_MAX, CZ_PROOF_JSON_MAX, CZ_PUBLIC_JSON_MAX};
    for (int k = 0; k < 3; k++) {
        for (int over = 0; over < 2; over++) {
            fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            CHECK(fd >= 0 && ftruncate(fd, (off_t)(limits[k] + (size_t)over)) == 0);
            if (fd >= 0) close(fd);
            cz_error_clear(&err);
            cz_status st = k == 0   ? cz_vkey_read_json(&vk, p, &err)
                           : k == 1 ? cz_proof_read_json(&pr, CZ_CURVE_BN254, p, &err)
                                    : cz_public_read_json(&v, &nv, CZ_CURVE_BN254, p, &err);
            CHECK_MSG(st == CZ_ERR_FORMAT && msg_has(&err, p,
                                                     over ? "more than the"
                                                          : "line 1, column 1 (offset 0): "
                                                            "byte 0x00",
                                                     NULL),
                      "limit %d over %d: %s", k, over, err.msg);
        }
    }
    unlink(p);
    /* a control byte after valid text: named by line and column */
    const char *txt = "{\n \"protocol\": \"groth16\",\n \x01";
    cz_error_clear(&err);
    CHECK(cz_vkey_read_json(&vk, spit("ctl.json", (const uint8_t *)txt, strlen(txt)), &err) == CZ_ERR_FORMAT &&
          msg_has(&err, "line 3, column 2", "byte 0x01", NULL));
}

/* replaces the first occurrence of from in s by to (s has room) */
static void replace1(char *s, size_t cap, const char *from, const char *to)
{
    char *at = strstr(s, from);
    if (!at) return;
    size_t fl = strlen(from), tl = strlen(to), rest = strlen(at + fl);
    if (strlen(s) - fl + tl + 1 > cap) return;
    memmove(at + tl, at + fl, rest + 1);
    memcpy(at, to, tl);
}

/* 13, 14. No JSON file reads differently here and in snarkjs: a repeated
 * key is refused in every object (at any depth, in small and large objects),
 * public signals must be strings, nPublic a plain integer. */
static void test_json_strict(void)
{
    cz_error err;
    cz_json_doc *d;
    cz_json *r;
    static const struct {
        const char *text, *words[3];
    } dups[] = {
        {"{\"a\": 1, \"a\": 2}", {"line 1, column 10", "duplicate key \"a\"", "first at line 1, column 2"}},
        {"[{\"x\": [1, {\"k\": 1,\n \"k\": true}]}]",
         {"line 2, column 2", "duplicate key \"k\"", "first at line 1, column 13"}},
        {"{\"a\": {\"a\": 1}, \"b\": 2, \"a\": 3}",
         {"line 1, column 25", "duplicate key \"a\"", "first at line 1, column 2"}},
        {"{\"\\u0061\": 1, \"a\": 2}", {"duplicate key \"a\"", "line 1, column 15", "first at line 1, column 2"}},
    };
    for (size_t i = 0; i < CZ_ARRAY_LEN(dups); i++) {
        cz_error_clear(&err);
        cz_status st = cz_json_parse(&d, &r, dups[i].text, strlen(dups[i].text), "dup.json", &err);
        if (st == CZ_OK) cz_json_free(d);
        CHECK_MSG(st == CZ_ERR_FORMAT &&
                      msg_has(&err, "dup.json", dups[i].words[0], dups[i].words[1], dups[i].words[2], NULL),
                  "%zu: %s", i, err.msg);
    }
    /* an object of 5000 keys, the repeated one last (the hashed path); and
     * the same without the repetition parses */
    {
        size_t cap = 5000 * 16 + 64, n = 0;
        char *big = malloc(cap);
        n += (size_t)snprintf(big + n, cap - n, "{");
        for (int i = 0; i < 5000; i++)
            n += (size_t)snprintf(big + n, cap - n, "%s\"k%d\": %d", i ? ", " : "", i, i);
        size_t ok_len = n;
        n += (size_t)snprintf(big + n, cap - n, ", \"k4321\": 0}");
        cz_error_clear(&err);
        cz_status st = cz_json_parse(&d, &r, big, n, "big.json", &err);
        if (st == CZ_OK) cz_json_free(d);
        CHECK_MSG(st == CZ_ERR_FORMAT && msg_has(&err, "duplicate key \"k4321\"", NULL), "%s", err.msg);
        big[ok_len] = '}';
        cz_error_clear(&err);
        st = cz_json_parse(&d, &r, big, ok_len + 1, "big.json", &err);
        CHECK_MSG(st == CZ_OK, "%s", err.msg);
        if (st == CZ_OK) {
            CHECK(r->nchild == 5000 && cz_json_get(r, "k4999") && !strcmp(cz_json_get(r, "k4999")->str, "4999"));
            cz_json_free(d);
        }
        free(big);
    }
    /* in each file kind */
    size_t l;
    uint8_t *vk_txt = slurp(FIX "bn128/poseidon/verification_key.json", &l);
    uint8_t *pr_txt = slurp(FIX "bn128/poseidon/proof.json", &l);
    CHECK(vk_txt && pr_txt);
    if (!vk_txt || !pr_txt) {
        free(vk_txt);
        free(pr_txt);
        return;
    }
    size_t cap = strlen((char *)vk_txt) + 4096;
    char *t = malloc(cap);
    cz_vkey vk;
    cz_proof pr;
    /* proof.json: pi_a twice (snarkjs would take the second) */
    snprintf(t, cap, "%s", (char *)pr_txt);
    replace1(t, cap, "\"protocol\"", "\"pi_a\": [\"1\", \"2\", \"1\"],\n \"protocol\"");
    cz_error_clear(&err);
    const char *p = spit("dup_proof.json", (uint8_t *)t, strlen(t));
    CHECK_MSG(cz_proof_read_json(&pr, CZ_CURVE_BN254, p, &err) == CZ_ERR_FORMAT &&
                  msg_has(&err, p, "duplicate key \"pi_a\"", NULL),
              "%s", err.msg);
    /* the vkey: IC twice, curve twice */
    snprintf(t, cap, "%s", (char *)vk_txt);
    replace1(t, cap, "\"protocol\"", "\"IC\": [],\n \"protocol\"");
    cz_error_clear(&err);
    p = spit("dup_vk.json", (uint8_t *)t, strlen(t));
    CHECK(cz_vkey_read_json(&vk, p, &err) == CZ_ERR_FORMAT && msg_has(&err, p, "duplicate key \"IC\"", NULL));
    snprintf(t, cap, "%s", (char *)vk_txt);
    replace1(t, cap, "\"protocol\"", "\"curve\": \"bls12381\",\n \"protocol\"");
    cz_error_clear(&err);
    p = spit("dup_vk.json", (uint8_t *)t, strlen(t));
    CHECK(cz_vkey_read_json(&vk, p, &err) == CZ_ERR_FORMAT && msg_has(&err, p, "duplicate key \"curve\"", NULL));
    /* public signals: strings only */
    void *v;
    size_t nv;
    static const char *nums[] = {"[1]", "[\"1\", 2]", "[1e0]", "[\"1\", -3]"};
    static const char *where[] = {"element 0: 1 is a JSON number", "element 1: 2 is a JSON number",
                                  "element 0: 1e0 is a JSON number", "element 1: -3 is a JSON number"};
    for (size_t i = 0; i < CZ_ARRAY_LEN(nums); i++) {
        p = spit("num_public.json", (const uint8_t *)nums[i], strlen(nums[i]));
        cz_error_clear(&err);
        cz_status st = cz_public_read_json(&v, &nv, CZ_CURVE_BN254, p, &err);
        if (st == CZ_OK) free(v);
        CHECK_MSG(st == CZ_ERR_FORMAT && msg_has(&err, p, where[i], "expected a decimal string", NULL), "%s", err.msg);
    }
    p = spit("str_public.json", (const uint8_t *)"[\"1\", \"2\"]", 10);
    cz_error_clear(&err);
    CHECK(cz_public_read_json(&v, &nv, CZ_CURVE_BN254, p, &err) == CZ_OK && nv == 2);
    if (err.status == CZ_OK) free(v);
    /* nPublic: a plain integer equal to len(IC) - 1 */
    char np[32];
    snprintf(np, sizeof np, "\"nPublic\": %u", 1u);
    static const struct {
        const char *val, *words[2];
        cz_status st;
    } npub[] = {
        {"1.5", {"nPublic = 1.5", "expected an integer"}, CZ_ERR_FORMAT},
        {"1e0", {"nPublic = 1e0", "no sign, fraction or exponent"}, CZ_ERR_FORMAT},
        {"1E0", {"nPublic = 1E0", "expected an integer"}, CZ_ERR_FORMAT},
        {"1.0", {"nPublic = 1.0", "expected an integer"}, CZ_ERR_FORMAT},
        {"-1", {"nPublic = -1", "expected an integer"}, CZ_ERR_FORMAT},
        {"-0", {"nPublic = -0", "expected an integer"}, CZ_ERR_FORMAT},
        {"\"1\"", {"nPublic = (a string)", "expected an integer"}, CZ_ERR_FORMAT},
        {"4294967297", {"nPublic = 4294967297", "[0, 2^32)"}, CZ_ERR_FORMAT},
        {"18446744073709551617", {"nPublic = 18446744073709551617", "[0, 2^32)"}, CZ_ERR_FORMAT},
        {"01", {"line", "leading zero"}, CZ_ERR_FORMAT},
        {"2", {"nPublic = 2 does not match the 2 IC points", "nPublic + 1"}, CZ_ERR_FORMAT},
        {"1", {"", ""}, CZ_OK},
    };
    for (size_t i = 0; i < CZ_ARRAY_LEN(npub); i++) {
        snprintf(t, cap, "%s", (char *)vk_txt);
        char to[64];
        snprintf(to, sizeof to, "\"nPublic\": %s", npub[i].val);
        replace1(t, cap, np, to);
        CHECK(strstr(t, to) != NULL);
        p = spit("np_vk.json", (uint8_t *)t, strlen(t));
        cz_error_clear(&err);
        cz_status st = cz_vkey_read_json(&vk, p, &err);
        if (st == CZ_OK) cz_vkey_free(&vk);
        CHECK_MSG(st == npub[i].st && msg_has(&err, npub[i].st ? p : "", npub[i].words[0], npub[i].words[1], NULL),
                  "nPublic %s: %s (%s)", npub[i].val, cz_status_str(st), err.msg);
    }
    /* the integer helper on its own */
    const char *ints[] = {"0", "7", "4294967295", "4294967296", "1.5", "-1", "1e3"};
    const cz_status want[] = {CZ_OK, CZ_OK, CZ_OK, CZ_ERR_RANGE, CZ_ERR_FORMAT, CZ_ERR_FORMAT, CZ_ERR_FORMAT};
    for (size_t i = 0; i < CZ_ARRAY_LEN(ints); i++) {
        cz_error_clear(&err);
        CHECK(cz_json_parse(&d, &r, ints[i], strlen(ints[i]), "n", &err) == CZ_OK);
        if (err.status != CZ_OK) continue;
        uint64_t x = 99;
        CHECK_MSG(cz_json_uint(r, UINT32_MAX, &x) == want[i], "%s", ints[i]);
        if (want[i] == CZ_OK) CHECK(x == strtoull(ints[i], NULL, 10));
        cz_json_free(d);
    }
    free(t);
    free(vk_txt);
    free(pr_txt);
}

/* ---- 11, 12: the points of a proving key ---- */

/* bytes of a G1 / G2 LEM point of c */
static size_t gsize(cz_curve c, int g)
{
    return g == 1 ? cz_curve_info_get(c)->g1_affine_bytes : cz_curve_info_get(c)->g2_affine_bytes;
}

/* A point of the curve (group g of c) outside the prime-order subgroup, as
 * LEM bytes: the first x = k (G2: x = k + 0 u) whose point decodes (without
 * the subgroup check) and is not in the subgroup. A random point of the
 * curve has a cofactor component of large order: a test that finds one in
 * many points finds it whatever the random draws. */
static int bad_point(uint8_t *lem, cz_curve c, int g, unsigned k0)
{
    for (unsigned k = k0; k < k0 + 400; k++) {
        uint8_t enc[96];
        memset(enc, 0, sizeof enc);
        int ok = 0;
        if (c == CZ_CURVE_BLS12_381 && g == 1) {
            cz_bls12_381_g1_affine p;
            enc[0] = 0x80;
            enc[47] = (uint8_t)k;
            enc[46] = (uint8_t)(k >> 8);
            if (cz_bls12_381_g1_from_compressed(&p, enc, CZ_EC_DECODE_TRUSTED) == CZ_OK &&
                !cz_bls12_381_g1_affine_in_subgroup(&p)) {
                memcpy(lem, &p, sizeof p);
                ok = 1;
            }
        } else if (c == CZ_CURVE_BLS12_381) {
            cz_bls12_381_g2_affine p;
            enc[0] = 0x80;
            enc[95] = (uint8_t)k;
            enc[94] = (uint8_t)(k >> 8);
            if (cz_bls12_381_g2_from_compressed(&p, enc, CZ_EC_DECODE_TRUSTED) == CZ_OK &&
                !cz_bls12_381_g2_affine_in_subgroup(&p)) {
                memcpy(lem, &p, sizeof p);
                ok = 1;
            }
        } else if (g == 2) {
            cz_bn254_g2_affine p;
            enc[0] = 0x80;
            enc[63] = (uint8_t)k;
            enc[62] = (uint8_t)(k >> 8);
            if (cz_bn254_g2_from_compressed(&p, enc, CZ_EC_DECODE_TRUSTED) == CZ_OK &&
                !cz_bn254_g2_affine_in_subgroup(&p)) {
                memcpy(lem, &p, sizeof p);
                ok = 1;
            }
        }
        if (ok) return 1;
    }
    return 0;
}

/* offset in section 2 of a verifying-key point: 0 alpha_1, 1 beta_1,
 * 2 beta_2, 3 gamma_2, 4 delta_1, 5 delta_2 */
static size_t vk_point_offset(cz_curve c, int which, int *group)
{
    static const int groups[6] = {1, 1, 2, 2, 1, 2};
    size_t off = 4 + cz_curve_info_get(c)->fq_bytes + 4 + 32 + 12;
    for (int i = 0; i < which; i++)
        off += gsize(c, groups[i]);
    *group = groups[which];
    return off;
}

static void test_key_points(void)
{
    static const char *const fields[6] = {"alpha_1", "beta_1", "beta_2", "gamma_2", "delta_1", "delta_2"};
    static const struct {
        const char *fix;
        cz_curve c;
    } keys[] = {{FIX "bn128/poseidon/circuit.zkey", CZ_CURVE_BN254},
                {FIX "bls12381/poseidon/circuit.zkey", CZ_CURVE_BLS12_381}};
    cz_error err;
    for (size_t ki = 0; ki < CZ_ARRAY_LEN(keys); ki++) {
        const cz_curve c = keys[ki].c;
        size_t zl;
        uint8_t *zk = slurp(keys[ki].fix, &zl);
        CHECK(zk != NULL);
        if (!zk) continue;
        uint8_t *m = malloc(zl);
        size_t s2 = section_offset(zk, zl, 2, NULL);
        for (int w = 0; w < 6; w++) {
            int g;
            size_t off = s2 + vk_point_offset(c, w, &g);
            char at[64];
            snprintf(at, sizeof at, "section 2, offset %zu", off);
            /* 12: at infinity (all zero), for a full and a header-only load */
            memcpy(m, zk, zl);
            memset(m + off, 0, gsize(c, g));
            const char *p = spit("deg.zkey", m, zl);
            for (int ho = 0; ho < 2; ho++) {
                cz_zkey_opts o;
                memset(&o, 0, sizeof o);
                o.header_only = ho;
                cz_zkey z;
                cz_error_clear(&err);
                cz_status st = cz_zkey_load(&z, p, &o, &err);
                if (st == CZ_OK) cz_zkey_free(&z);
                CHECK_MSG(st == CZ_ERR_FORMAT &&
                              msg_has(&err, p, at, fields[w], "point at infinity", "degenerate", NULL),
                          "%s %s at infinity: %s", cz_curve_name(c), fields[w], err.msg);
            }
            /* 11: on the curve, outside the subgroup (BN254 G1 has none) */
            if (c == CZ_CURVE_BN254 && g == 1) continue;
            memcpy(m, zk, zl);
            CHECK(bad_point(m + off, c, g, 1));
            p = spit("sub.zkey", m, zl);
            for (int ho = 0; ho < 2; ho++) {
                cz_zkey_opts o;
                memset(&o, 0, sizeof o);
                o.header_only = ho;
                cz_zkey z;
                cz_error_clear(&err);
                cz_status st = cz_zkey_load(&z, p, &o, &err);
                if (st == CZ_OK) cz_zkey_free(&z);
                CHECK_MSG(st == CZ_ERR_NOT_IN_SUBGROUP &&
                              msg_has(&err, p, at, fields[w], "not in the prime-order subgroup", NULL),
                          "%s %s outside the subgroup: %s", cz_curve_name(c), fields[w], err.msg);
            }
        }
        /* IC (every point checked; G1: BLS12-381 only) and the tables: bad
         * points at 24 indices from 7 on; the message names the first */
        static const struct {
            uint32_t id;
            int g;
            const char *name;
        } secs[] = {{3, 1, "IC"}, {5, 1, "A"}, {6, 1, "B1"}, {7, 2, "B2"}, {8, 1, "C"}, {9, 1, "H"}};
        for (size_t si = 0; si < CZ_ARRAY_LEN(secs); si++) {
            if (cz_subgroup_trivial(c, secs[si].g)) continue;
            uint64_t ssz;
            size_t so = section_offset(zk, zl, secs[si].id, &ssz);
            const size_t ps = gsize(c, secs[si].g);
            const uint64_t npts = ssz / ps;
            const uint64_t first = secs[si].id == 3 ? npts - 1 : 7;
            memcpy(m, zk, zl);
            int made = 1;
            for (uint64_t i = first, k = 1; i < npts && k <= 24; i += 5, k++)
                made &= bad_point(m + so + i * ps, c, secs[si].g, 3 * (unsigned)k);
            CHECK(made);
            const char *p = spit("subt.zkey", m, zl);
            char want[96], offs[64];
            snprintf(want, sizeof want, "section %u (%s)", secs[si].id, secs[si].name);
            snprintf(offs, sizeof offs, "offset %" PRIu64 ": point %" PRIu64 " ", so + first * ps, first);
            cz_zkey z;
            cz_error_clear(&err);
            cz_status st = cz_zkey_load(&z, p, NULL, &err);
            if (st == CZ_OK) cz_zkey_free(&z);
            CHECK_MSG(st == CZ_ERR_NOT_IN_SUBGROUP && msg_has(&err, p, want, offs, "not in the prime-order subgroup",
                                                              secs[si].g == 1 ? "G1" : "G2", NULL),
                      "%s %s: %s (%s)", cz_curve_name(c), secs[si].name, cz_status_str(st), err.msg);
            /* skip_point_checks skips the tables' check (IC is always checked) */
            cz_zkey_opts o;
            memset(&o, 0, sizeof o);
            o.skip_point_checks = 1;
            cz_error_clear(&err);
            st = cz_zkey_load(&z, p, &o, &err);
            if (st == CZ_OK) cz_zkey_free(&z);
            CHECK_MSG(secs[si].id == 3 ? st == CZ_ERR_NOT_IN_SUBGROUP : st == CZ_OK, "skip_point_checks %s: %s",
                      secs[si].name, err.msg);
        }
        free(m);
        free(zk);
    }
}

/* The combination test itself (io/subgroup.h): tables of the subgroup pass,
 * with and without infinity; a table with one point off by a 3-torsion
 * point (BLS12-381 G1, the smallest cofactor prime: the hardest case for a
 * linear test) is caught; the exact search names it. */
static void test_subgroup_combination(cz_rng *rng)
{
    const size_t n = 60000; /* >= 3^10: all ten digits */
    cz_bls12_381_g1_affine *t = malloc(n * sizeof *t);
    cz_bls12_381_g1 *j = malloc(n * sizeof *j);
    CHECK(t && j);
    if (!t || !j) goto out;
    cz_bls12_381_g1 acc;
    cz_bls12_381_g1_random(&acc, rng);
    for (size_t i = 0; i < n; i++) {
        cz_bls12_381_g1_add_affine(&acc, &acc, cz_bls12_381_g1_generator());
        j[i] = acc;
    }
    CHECK(cz_bls12_381_g1_batch_to_affine(t, j, n) == CZ_OK);
    memset(&t[17], 0, sizeof t[17]); /* infinity is in the subgroup */
    double bits = 0;
    CHECK(cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, n, &bits) == CZ_OK);
    CHECK_MSG(bits > 15.8 && bits < 15.9, "%.2f bits", bits); /* 3^10 buckets */
    CHECK(cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, 100, &bits) == CZ_OK && bits > 9.50 && bits < 9.52); /* 3^6 */
    CHECK(cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, 20, &bits) == CZ_OK && bits > 1e300);                /* exact */
    CHECK(cz_subgroup_first_bad(CZ_CURVE_BLS12_381, 1, t, 200) == UINT64_MAX);
    /* P + T, T = (0, 2) of order 3 */
    const size_t at = 41234;
    {
        uint8_t enc[48] = {0x80};
        cz_bls12_381_g1_affine t3;
        CHECK(cz_bls12_381_g1_from_compressed(&t3, enc, CZ_EC_DECODE_TRUSTED) == CZ_OK);
        cz_bls12_381_g1 s, q;
        cz_bls12_381_g1_from_affine(&q, &t[at]);
        cz_bls12_381_g1_add_affine(&s, &q, &t3);
        cz_bls12_381_g1_dbl(&q, &s);
        cz_bls12_381_g1_add(&q, &q, &s); /* 3 (P + T) = 3P: in the subgroup */
        CHECK(cz_bls12_381_g1_in_subgroup(&q) && !cz_bls12_381_g1_in_subgroup(&s));
        cz_bls12_381_g1_to_affine(&t[at], &s);
    }
    /* a miss has probability 3^-10 per run: two runs both missing, 3^-20 */
    cz_status s1 = cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, n, NULL);
    cz_status s2 = cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, n, NULL);
    CHECK_MSG(s1 == CZ_ERR_NOT_IN_SUBGROUP || s2 == CZ_ERR_NOT_IN_SUBGROUP, "%s, %s", cz_status_str(s1),
              cz_status_str(s2));
    CHECK(cz_subgroup_first_bad(CZ_CURVE_BLS12_381, 1, t, n) == at);
    /* no secure randomness: CZ_ERR_RANDOM, never a check without it */
    cz_rng_os_set_failing(1);
    CHECK(cz_subgroup_check(CZ_CURVE_BLS12_381, 1, t, n, NULL) == CZ_ERR_RANDOM);
    cz_zkey z;
    cz_error err;
    cz_error_clear(&err);
    CHECK_MSG(cz_zkey_load(&z, FIX "bls12381/poseidon/circuit.zkey", NULL, &err) == CZ_ERR_RANDOM &&
                  msg_has(&err, "circuit.zkey", "no secure randomness", NULL),
              "%s", err.msg);
    cz_rng_os_set_failing(0);
    /* the trivial group, and no curve */
    CHECK(cz_subgroup_trivial(CZ_CURVE_BN254, 1) && !cz_subgroup_trivial(CZ_CURVE_BN254, 2) &&
          !cz_subgroup_trivial(CZ_CURVE_BLS12_381, 1) && !cz_subgroup_trivial(CZ_CURVE_NONE, 1));
    CHECK(cz_subgroup_check(CZ_CURVE_NONE, 1, t, n, NULL) == CZ_ERR_INVALID_ARG);
out:
    free(t);
    free(j);
}

/* 18. A witness whose values exceed the r its header's prime names: the
 * message names that curve and, when the values fit the other one, says
 * so; a prime of no curve is named as such. */
static void test_wtns_prime(void)
{
    size_t gl, fl;
    uint8_t *g = slurp(FIX "bls12381/poseidon/witness.wtns", &gl);
    uint8_t *f = slurp(FIX "bn128/poseidon/witness.wtns", &fl);
    CHECK(g && f);
    if (!g || !f) goto out;
    size_t g1 = section_offset(g, gl, 1, NULL), f1 = section_offset(f, fl, 1, NULL),
           g2 = section_offset(g, gl, 2, NULL);
    /* the bls12381 witness with bn128's prime: its first value >= bn128's r */
    uint8_t *m = malloc(gl);
    memcpy(m, g, gl);
    memcpy(m + g1 + 4, f + f1 + 4, 32);
    const char *p = spit("prime.wtns", m, gl);
    cz_wtns w;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_wtns_load(&w, p, NULL, &err);
    if (st == CZ_OK) cz_wtns_free(&w);
    /* which value is the first >= bn128's r */
    uint64_t first = UINT64_MAX;
    for (uint64_t i = 0; (g2 + 32 * (i + 1)) <= gl && first == UINT64_MAX; i++) {
        cz_bn254_fr x;
        if (cz_bn254_fr_from_bytes_le(&x, g + g2 + 32 * i) != CZ_OK) first = i;
    }
    char want[64];
    snprintf(want, sizeof want, "witness value %" PRIu64 " ", first);
    CHECK_MSG(first != UINT64_MAX && st == CZ_ERR_RANGE &&
                  msg_has(&err, p, want, "r of bn128", "prime in the header", "below bls12381's r",
                          "a bls12381 witness written with the bn128 prime", NULL),
              "%s", err.msg);
    /* a prime of neither curve */
    memcpy(m, g, gl);
    m[g1 + 4] ^= 2;
    p = spit("prime.wtns", m, gl);
    cz_error_clear(&err);
    st = cz_wtns_load(&w, p, NULL, &err);
    char off[32];
    snprintf(off, sizeof off, "offset %zu", g1 + 4);
    CHECK_MSG(st == CZ_ERR_FORMAT && msg_has(&err, p, "section 1", off, "no known curve", "bn128", "bls12381", NULL),
              "%s", err.msg);
    free(m);
out:
    free(g);
    free(f);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_io");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_io_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;

    test_json();
    cz_json_doc *doc;
    cz_json *root;
    cz_error err;
    cz_status st = cz_json_parse_file(&doc, &root, FIX "fixtures.json", &err);
    CHECK_MSG(st == CZ_OK, "%s", cz_error_msg(&err));
    if (st == CZ_OK) {
        const cz_json *list = cz_json_get(root, "fixtures");
        for (size_t i = 0; list && i < list->nchild; i++) {
            test_fixture(list->child[i]);
            printf("  fixture %s ok so far\n", cz_json_get(list->child[i], "dir")->str);
        }
        cz_json_free(doc);
    }
    test_corruption(&rng);
    test_coef_layout();
    test_bellperson();
    test_unknown_curve();
    test_changing_files();
    test_special_files();
    test_no_memory();
    test_r1cs_claims();
    test_json_limits();
    test_json_strict();
    test_key_points();
    test_subgroup_combination(&rng);
    test_wtns_prime();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    return cz_test_finish("test_io");
}
