/*
 * test_circuit: the circuit layer (circuit/circuit.h) on the snarkjs
 * fixtures of both curves:
 *  - cz_ab_bytes is 2 x domain x 32;
 *  - the SpMV: a = A.w and b = B.w against a row-by-row reference written
 *    here over the key's CSR, c = a o b (and with c NULL: a and b the same,
 *    nothing else written); a satisfied witness gives rows that
 *    satisfy the .r1cs (cz_r1cs_check passes), a changed witness value makes
 *    cz_r1cs_check name a failing constraint;
 *  - synths: a borrowed witness (left untouched), a moved-in one (the
 *    caller's emptied), a .wtns file (header checked at create, values read
 *    at prepare into the given allocator, released after, prepared again;
 *    a file that changed after create is refused), a custom source through
 *    cz_synth_create with its own abc (asked for a and b only: c NULL);
 *    cz_synth_ab writes exactly the a, b cz_circuit_abc writes and nothing
 *    past them; cz_synth_check refuses another curve's or
 *    circuit's witness naming both; bad files are refused naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuit/circuit.h"
#include "ff/ff.h"
#include "test_util.h"
#include "util/alloc.h"

#define FIX CZ_SOURCE_DIR "/tests/fixtures/"

/* row r of m times w, by the definition */
static void ref_row(uint8_t out[32], const cz_csr *m, uint32_t r, const void *w, cz_curve c)
{
    if (c == CZ_CURVE_BN254) {
        cz_bn254_fr acc, t;
        cz_bn254_fr_set_zero(&acc);
        for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
            cz_bn254_fr_mul(&t, (const cz_bn254_fr *)m->val + k, (const cz_bn254_fr *)w + m->col[k]);
            cz_bn254_fr_add(&acc, &acc, &t);
        }
        memcpy(out, &acc, 32);
    } else {
        cz_bls12_381_fr acc, t;
        cz_bls12_381_fr_set_zero(&acc);
        for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
            cz_bls12_381_fr_mul(&t, (const cz_bls12_381_fr *)m->val + k, (const cz_bls12_381_fr *)w + m->col[k]);
            cz_bls12_381_fr_add(&acc, &acc, &t);
        }
        memcpy(out, &acc, 32);
    }
}

typedef struct {
    size_t allocs, frees, live;
} count_alloc;

static void *ca_alloc(void *ctx, size_t n)
{
    count_alloc *c = ctx;
    c->allocs++;
    c->live += n;
    return cz_alloc(NULL, n);
}

static void ca_free(void *ctx, void *p, size_t n)
{
    count_alloc *c = ctx;
    if (!p) return;
    c->frees++;
    c->live -= n;
    cz_free(NULL, p, n);
}

/* a custom source: the witness borrowed, a, b (c where asked) all ones */
typedef struct {
    const cz_wtns *w;
    int prepared, released, destroyed, abc_calls, no_c;
} custom_ctx;

static cz_status cu_info(void *ctx, cz_synth_info *o, cz_error *err)
{
    (void)err;
    custom_ctx *c = ctx;
    o->curve = c->w->curve;
    o->n_vars = c->w->n;
    o->witness_bytes = 0;
    return CZ_OK;
}
static cz_status cu_prepare(void *ctx, const cz_allocator *a, cz_error *err)
{
    (void)a;
    (void)err;
    ((custom_ctx *)ctx)->prepared++;
    return CZ_OK;
}
static const cz_wtns *cu_witness(void *ctx)
{
    custom_ctx *c = ctx;
    return c->prepared ? c->w : NULL;
}
static cz_status cu_abc(void *ctx, const cz_zkey *zk, void *a, void *b, void *c, cz_pool *pool, cz_error *err)
{
    (void)pool;
    (void)err;
    ((custom_ctx *)ctx)->abc_calls++;
    memset(a, 1, (size_t)zk->domain_size * 32);
    memset(b, 1, (size_t)zk->domain_size * 32);
    if (c) memset(c, 1, (size_t)zk->domain_size * 32);
    else ((custom_ctx *)ctx)->no_c++;
    return CZ_OK;
}
static void cu_release(void *ctx) { ((custom_ctx *)ctx)->released++; }
static void cu_destroy(void *ctx) { ((custom_ctx *)ctx)->destroyed++; }
static const cz_synth_ops custom_ops = {"custom", cu_info, cu_prepare, cu_witness, cu_abc, cu_release, cu_destroy};

static void test_dir(const char *dir, const char *other_dir)
{
    char zp[512], wp[512], rp[512], ow[512];
    snprintf(zp, sizeof zp, FIX "%s/circuit.zkey", dir);
    snprintf(wp, sizeof wp, FIX "%s/witness.wtns", dir);
    snprintf(rp, sizeof rp, FIX "%s/circuit.r1cs", dir);
    snprintf(ow, sizeof ow, FIX "%s/witness.wtns", other_dir);
    cz_error err;
    cz_error_clear(&err);
    cz_zkey zk;
    cz_wtns w;
    cz_r1cs r;
    if (cz_zkey_load(&zk, zp, NULL, &err) != CZ_OK || cz_wtns_load(&w, wp, NULL, &err) != CZ_OK ||
        cz_r1cs_load(&r, rp, 0, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s: %s", dir, cz_error_msg(&err));
        return;
    }
    const size_t n = zk.domain_size, each = n * 32, bytes = cz_ab_bytes(zk.domain_size), abcb = 3 * each;
    CHECK(bytes == 2 * each);
    /* abc2: a, b of a synth and a guard as long as c would be */
    uint8_t *abc = malloc(abcb), *ref = malloc(abcb), *abc2 = malloc(abcb);
    CHECK(cz_circuit_abc(&zk, &w, abc, abc + each, abc + 2 * each, NULL) == CZ_OK);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        ref_row(ref + 32 * i, &zk.A, i, w.values, zk.curve);
        ref_row(ref + each + 32 * i, &zk.B, i, w.values, zk.curve);
    }
    bad += memcmp(abc, ref, 2 * each) != 0;
    for (uint32_t i = 0; i < n && !bad; i++) {
        uint8_t prod[32];
        if (zk.curve == CZ_CURVE_BN254)
            cz_bn254_fr_mul((cz_bn254_fr *)prod, (const cz_bn254_fr *)(abc + 32 * i),
                            (const cz_bn254_fr *)(abc + each + 32 * i));
        else
            cz_bls12_381_fr_mul((cz_bls12_381_fr *)prod, (const cz_bls12_381_fr *)(abc + 32 * i),
                                (const cz_bls12_381_fr *)(abc + each + 32 * i));
        bad += memcmp(prod, abc + 2 * each + 32 * i, 32) != 0;
    }
    CHECK_MSG(bad == 0, "%s: SpMV differs from the row-by-row reference", dir);
    /* c NULL: a and b alone */
    memset(abc2, 0xee, abcb);
    CHECK(cz_circuit_abc(&zk, &w, abc2, abc2 + each, NULL, NULL) == CZ_OK && memcmp(abc, abc2, bytes) == 0);
    CHECK(abc2[bytes] == 0xee && abc2[abcb - 1] == 0xee);
    cz_zkey other = zk;
    other.curve = (cz_curve)9;
    CHECK(cz_circuit_abc(&other, &w, abc2, abc2 + each, abc2 + 2 * each, NULL) == CZ_ERR_UNSUPPORTED);

    uint64_t first = 0;
    CHECK(cz_r1cs_check(&r, &w, &first, &err) == CZ_OK && first == UINT64_MAX);
    cz_wtns wb;
    CHECK(cz_wtns_load(&wb, wp, NULL, &err) == CZ_OK);
    /* the last wire: used by some constraint in these circuits */
    uint8_t *last = (uint8_t *)wb.values + 32 * (size_t)(wb.n - 1);
    last[0] ^= 1;
    cz_error_clear(&err);
    CHECK(cz_r1cs_check(&r, &wb, &first, &err) == CZ_ERR_UNSATISFIED && first < r.n_constraints &&
          strstr(cz_error_msg(&err), "is not satisfied"));

    /* a borrowed witness */
    cz_synth *s = NULL;
    CHECK(cz_synth_borrow_wtns(&s, &w, "fixture witness", &err) == CZ_OK);
    CHECK(!strcmp(cz_synth_name(s), "fixture witness"));
    CHECK(cz_synth_check(s, &zk, "the key", &err) == CZ_OK);
    cz_synth_info in;
    CHECK(cz_synth_info_get(s, &in, &err) == CZ_OK && in.curve == zk.curve && in.n_vars == zk.n_vars &&
          in.witness_bytes == 0);
    CHECK(cz_synth_prepare(s, NULL, &err) == CZ_OK && cz_synth_witness(s) == &w);
    memset(abc2, 0xee, abcb);
    CHECK(cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_OK && memcmp(abc, abc2, bytes) == 0);
    CHECK(abc2[bytes] == 0xee && abc2[abcb - 1] == 0xee); /* nothing past a, b */
    cz_synth_free(s);
    CHECK(w.values != NULL);

    /* moved in: the caller's copy emptied, values freed with the synth */
    cz_wtns mv;
    CHECK(cz_wtns_load(&mv, wp, NULL, &err) == CZ_OK);
    CHECK(cz_synth_take_wtns(&s, &mv, NULL, &err) == CZ_OK && mv.values == NULL && mv.n == 0);
    CHECK(cz_synth_prepare(s, NULL, &err) == CZ_OK && cz_synth_witness(s)->n == w.n);
    CHECK(cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_OK && memcmp(abc, abc2, bytes) == 0);
    cz_synth_free(s);

    /* a file: values read at prepare into the allocator, released after */
    count_alloc ca = {0, 0, 0};
    cz_allocator al = {ca_alloc, ca_free, &ca};
    CHECK(cz_synth_from_file(&s, wp, &err) == CZ_OK && !strcmp(cz_synth_name(s), wp));
    CHECK(cz_synth_info_get(s, &in, &err) == CZ_OK && in.witness_bytes == (size_t)w.n * 32);
    CHECK(cz_synth_witness(s) == NULL);
    CHECK(cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_ERR_INTERNAL); /* not prepared */
    CHECK(cz_synth_prepare(s, &al, &err) == CZ_OK && ca.allocs == 1 && ca.live == (size_t)w.n * 32);
    CHECK(cz_synth_info_get(s, &in, &err) == CZ_OK && in.witness_bytes == 0); /* in memory now */
    CHECK(cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_OK && memcmp(abc, abc2, bytes) == 0);
    cz_synth_release(s);
    CHECK(ca.live == 0 && ca.frees == 1 && cz_synth_witness(s) == NULL);
    CHECK(cz_synth_prepare(s, &al, &err) == CZ_OK && ca.allocs == 2); /* again, after a release */
    cz_synth_free(s);
    CHECK(ca.live == 0);

    /* a file that changes between create and prepare */
    char tmp[] = "/tmp/cz_test_circuit_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *src = fopen(wp, "rb"), *dst = fdopen(fd, "wb");
        char buf[4096];
        size_t got;
        while (src && (got = fread(buf, 1, sizeof buf, src)) > 0) fwrite(buf, 1, got, dst);
        if (src) fclose(src);
        fclose(dst);
        CHECK(cz_synth_from_file(&s, tmp, &err) == CZ_OK);
        src = fopen(ow, "rb");
        dst = fopen(tmp, "wb");
        while (src && dst && (got = fread(buf, 1, sizeof buf, src)) > 0) fwrite(buf, 1, got, dst);
        if (src) fclose(src);
        if (dst) fclose(dst);
        cz_error_clear(&err);
        CHECK_MSG(cz_synth_prepare(s, NULL, &err) == CZ_ERR_MISMATCH && strstr(cz_error_msg(&err), "changed"),
                  "%s", cz_error_msg(&err));
        cz_synth_free(s);
        unlink(tmp);
    }

    /* not a witness, a missing file: refused at create, naming the file */
    cz_error_clear(&err);
    s = NULL;
    CHECK(cz_synth_from_file(&s, zp, &err) == CZ_ERR_FORMAT && s == NULL && strstr(cz_error_msg(&err), zp));
    cz_error_clear(&err);
    CHECK(cz_synth_from_file(&s, "/nonexistent/x.wtns", &err) == CZ_ERR_IO && strstr(cz_error_msg(&err), "x.wtns"));

    /* another curve's witness: refused by the check, naming both */
    CHECK(cz_synth_from_file(&s, ow, &err) == CZ_OK);
    cz_error_clear(&err);
    CHECK(cz_synth_check(s, &zk, "KEYNAME", &err) == CZ_ERR_MISMATCH && strstr(cz_error_msg(&err), "KEYNAME") &&
          strstr(cz_error_msg(&err), ow));
    cz_synth_free(s);
    /* another circuit's (shorter) */
    cz_wtns sh = w;
    sh.n--;
    CHECK(cz_synth_borrow_wtns(&s, &sh, NULL, &err) == CZ_OK);
    cz_error_clear(&err);
    CHECK(cz_synth_check(s, &zk, "KEYNAME", &err) == CZ_ERR_MISMATCH && strstr(cz_error_msg(&err), "nVars"));
    CHECK(cz_synth_prepare(s, NULL, &err) == CZ_OK && cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_ERR_MISMATCH);
    cz_synth_free(s);

    /* a custom source */
    custom_ctx cc = {&w, 0, 0, 0, 0, 0};
    CHECK(cz_synth_create(&s, &custom_ops, &cc, NULL, &err) == CZ_OK && !strcmp(cz_synth_name(s), "custom"));
    CHECK(cz_synth_check(s, &zk, "k", &err) == CZ_OK && cz_synth_prepare(s, NULL, &err) == CZ_OK);
    memset(abc2, 0xee, abcb);
    CHECK(cz_synth_ab(s, &zk, abc2, NULL, &err) == CZ_OK && cc.abc_calls == 1 && cc.no_c == 1 && abc2[0] == 1 &&
          abc2[bytes - 1] == 1 && abc2[bytes] == 0xee);
    cz_synth_free(s);
    CHECK(cc.released == 1 && cc.destroyed == 1);
    static const cz_synth_ops incomplete = {"x", NULL, cu_prepare, cu_witness, NULL, NULL, cu_destroy};
    cc.destroyed = 0;
    CHECK(cz_synth_create(&s, &incomplete, &cc, NULL, &err) == CZ_ERR_INVALID_ARG && s == NULL && cc.destroyed == 1);

    free(abc);
    free(abc2);
    free(ref);
    cz_wtns_free(&wb);
    cz_wtns_free(&w);
    cz_r1cs_free(&r);
    cz_zkey_free(&zk);
}

int main(void)
{
    test_dir("bn128/poseidon", "bls12381/poseidon");
    test_dir("bls12381/mul_chain", "bn128/mul_chain");
    return cz_test_finish("test_circuit");
}
