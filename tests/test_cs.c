/* tests/test_cs: the constraint system (circuit/cs.h) in its three modes,
 * the LC pool, capacity hints, and the pre-compiled evaluator
 * (circuit/pce.h) with its file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuit/cs.h"
#include "circuit/pce.h"
#include "cs_test_util.h"
#include "test_util.h"

/* A circuit that interleaves alloc_input with constraints (the case that
 * broke the original's column numbering): x private; every step i:
 *   y_i = y_{i-1} * x + i           (private)
 *   every third step an input p = y_i + 7, enforced after it was used
 *   once in a product with x, and a constraint reading inputs and aux. */
typedef struct {
    uint64_t x;
    int steps;
    int tamper; /* witness value of step tamper is off by one (0: none) */
} ileave;

static void ileave_synth(cz_cs *cs, void *arg)
{
    ileave *c = arg;
    cz_fe x, y, t, k;
    cz_fe_from_u64(cs, &x, c->x);
    cz_var vx = cz_cs_alloc(cs, &x);
    cz_var vy = vx;
    y = x;
    cz_var last_in = CZ_VAR_ONE;
    for (int i = 1; i <= c->steps; i++) {
        cz_cs_push(cs, "step %d", i);
        cz_fe_mul(cs, &t, &y, &x);
        cz_fe_from_u64(cs, &k, (uint64_t)i);
        cz_fe_add(cs, &t, &t, &k);
        if (c->tamper == i) cz_fe_add(cs, &t, &t, &cz_cs_fr(cs)->one);
        cz_var vt = cz_cs_alloc(cs, &t);
        cz_lc a = {0}, b = {0}, cc = {0};
        cz_lc_add(cs, &a, vy, NULL);
        cz_lc_add(cs, &b, vx, NULL);
        cz_lc_add(cs, &cc, vt, NULL);
        cz_fe mk;
        cz_fe_neg(cs, &mk, &k);
        cz_lc_add(cs, &cc, CZ_VAR_ONE, &mk);
        cz_cs_enforce(cs, "y = y' x + i", &a, &b, &cc);
        if (i % 3 == 0) {
            cz_fe seven, pv;
            cz_fe_from_u64(cs, &seven, 7);
            cz_fe_add(cs, &pv, &t, &seven);
            cz_var vp = cz_cs_alloc_input(cs, &pv);
            /* (t + 7) * 1 = p */
            cz_lc_clear(&a);
            cz_lc_clear(&b);
            cz_lc_clear(&cc);
            cz_lc_add(cs, &a, vt, NULL);
            cz_lc_add(cs, &a, CZ_VAR_ONE, &seven);
            cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
            cz_lc_add(cs, &cc, vp, NULL);
            cz_cs_enforce(cs, "p = y + 7", &a, &b, &cc);
            /* p_prev * x = q (an aux that reads an earlier input) */
            const cz_fe *lv = cz_cs_value(cs, last_in);
            cz_fe q;
            cz_fe_mul(cs, &q, lv, &x);
            cz_var vq = cz_cs_alloc(cs, &q);
            cz_lc_clear(&a);
            cz_lc_clear(&b);
            cz_lc_clear(&cc);
            cz_lc_add(cs, &a, last_in, NULL);
            cz_lc_add(cs, &b, vx, NULL);
            cz_lc_add(cs, &cc, vq, NULL);
            cz_cs_enforce(cs, "q = p' x", &a, &b, &cc);
            last_in = vp;
        }
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &cc);
        vy = vt;
        y = t;
        cz_cs_pop(cs);
    }
}

static void test_interleaved(cz_curve curve)
{
    ileave c = {123456789, 60, 0};
    cz_cs_hint h = {0};
    CHECK(cs_modes_agree("interleaved", ileave_synth, &c, curve, &h));
    CHECK(h.n_inputs == 1 + 20 && h.n_aux == 1 + 60 + 20 && h.n_constraints == 60 + 40);
    /* columns: inputs 0..20, then aux; the witness has the inputs' values
     * at 1..20 (p = y_{3j} + 7) */
    cz_cs *rec = cs_run(ileave_synth, &c, curve, CZ_CS_RECORD, NULL);
    uint32_t n = 0;
    const cz_fe *w = cz_cs_witness(rec, &n);
    CHECK(n == 102);
    /* aux 0 is x: wire 21 */
    cz_fe x;
    cz_fe_from_u64(rec, &x, c.x);
    CHECK(cz_fe_eq(&w[21], &x));
    CHECK(cz_fe_eq(&w[0], &cz_cs_fr(rec)->one));
    /* input 1 = y_3 + 7 = aux 3 + 7 */
    cz_fe s7;
    cz_fe_from_u64(rec, &s7, 7);
    cz_fe_add(rec, &s7, &s7, &w[21 + 3]);
    CHECK(cz_fe_eq(&w[1], &s7));
    cz_csr A, B, C;
    cz_error err = {0};
    CHECK(cz_cs_take_matrices(rec, &A, &B, &C, &err) == CZ_OK);
    /* row 0: A = {y_0 = x: wire 21}, B = {x: wire 21}, C = {y_1: wire 22, ONE} */
    CHECK(A.nrows == 100 && A.ncols == 102 && A.row_ptr[1] == 1 && A.col[0] == 21 && B.col[0] == 21 && C.col[0] == 22);
    /* row 3 (step 3's "p = y + 7"): C = {input 1} */
    CHECK(C.col[C.row_ptr[3]] == 1);
    cz_csr_free(&A, NULL);
    cz_csr_free(&B, NULL);
    cz_csr_free(&C, NULL);
    cz_cs_free(rec);

    /* check mode names the first failing constraint */
    c.tamper = 17;
    cz_cs *chk = cs_run(ileave_synth, &c, curve, CZ_CS_CHECK, NULL);
    uint64_t bad = 0;
    cz_error e2 = {0};
    CHECK(cz_cs_check_result(chk, &bad, &e2) == CZ_ERR_UNSATISFIED);
    /* step 17's row: rows before it: 16 + 2 * 5 = 26; its constraint
     * "y = y' x + i" holds with the tampered value (it is computed from it);
     * the next step's does not: row 27 */
    CHECK_MSG(bad == 26 || bad == 27, "bad %llu", (unsigned long long)bad);
    CHECK_MSG(strstr(e2.msg, "step 1") != NULL && strstr(e2.msg, "y = y' x + i") != NULL, "%s", e2.msg);
    printf("  check names it: %s\n", e2.msg);
    cz_cs_free(chk);
}

/* tamper: the tampered value is allocated and then enforced against
 * y' x + i: the row of step 17 itself fails. */
static void test_tamper_row(void)
{
    ileave c = {5, 20, 17};
    cz_cs *chk = cs_run(ileave_synth, &c, CZ_CURVE_BN254, CZ_CS_CHECK, NULL);
    uint64_t bad = 0;
    cz_error e = {0};
    CHECK(cz_cs_check_result(chk, &bad, &e) == CZ_ERR_UNSATISFIED);
    CHECK_MSG(bad == 16 + 2 * 5, "bad %llu", (unsigned long long)bad);
    CHECK_MSG(strstr(e.msg, "step 17/y = y' x + i") != NULL, "%s", e.msg);
    cz_cs_free(chk);
    /* the PCE's SpMV finds the same row from a witness-only run */
    c.tamper = 0;
    cz_cs *rec = cs_run(ileave_synth, &c, CZ_CURVE_BN254, CZ_CS_RECORD, NULL);
    cz_cs_hint h;
    cz_cs_counts(rec, &h);
    cz_pce p;
    uint8_t key[32] = {0};
    cz_error err = {0};
    CHECK(cz_pce_from_cs(&p, rec, key, &err) == CZ_OK);
    c.tamper = 17;
    cz_cs *wit = cs_run(ileave_synth, &c, CZ_CURVE_BN254, CZ_CS_WITNESS, &h);
    uint32_t n;
    const cz_fe *w = cz_cs_witness(wit, &n);
    cz_fe *abc = malloc(3 * 32 * h.n_constraints);
    uint64_t fb = 0;
    CHECK(cz_pce_abc(&p, w, n, abc, abc + h.n_constraints, abc + 2 * h.n_constraints, &fb, NULL, &err) == CZ_OK);
    CHECK_MSG(fb == 26, "first bad %llu", (unsigned long long)fb);
    /* c NULL: checked all the same, not kept */
    fb = 0;
    CHECK(cz_pce_abc(&p, w, n, abc, abc + h.n_constraints, NULL, &fb, NULL, &err) == CZ_OK);
    CHECK_MSG(fb == 26, "first bad %llu (c NULL)", (unsigned long long)fb);
    free(abc);
    cz_pce_free(&p);
    cz_cs_free(rec);
    cz_cs_free(wit);
}

/* The LC pool: many constraints, a bounded number of blocks. */
static void test_pool(void)
{
    cz_cs_opts o = {CZ_CURVE_BLS12_381, CZ_CS_RECORD, 0, NULL, NULL, 0};
    cz_cs *cs;
    cz_error err = {0};
    CHECK(cz_cs_new(&cs, &o, &err) == CZ_OK);
    cz_fe one = cz_cs_fr(cs)->one;
    cz_var v = cz_cs_alloc(cs, &one);
    for (int i = 0; i < 20000; i++) {
        cz_lc a = {0}, b = {0}, c = {0};
        for (int k = 0; k < 1 + i % 40; k++) cz_lc_add(cs, &a, v, NULL); /* grows through 4 classes */
        cz_lc_add(cs, &b, CZ_VAR_ONE, NULL);
        cz_lc_add(cs, &c, v, NULL);
        cz_cs_enforce(cs, NULL, &a, &b, &c);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &c);
    }
    CHECK_MSG(cz_cs_lc_blocks(cs) <= 8, "%zu blocks for 20000 constraints", cz_cs_lc_blocks(cs));
    cz_cs_hint h;
    cz_cs_counts(cs, &h);
    CHECK(h.n_constraints == 20000 && h.nnz[1] == 20000 && h.nnz[0] == 20000 / 40 * (40 * 41 / 2));
    cz_cs_free(cs);
    /* witness mode builds nothing */
    o.mode = CZ_CS_WITNESS;
    CHECK(cz_cs_new(&cs, &o, &err) == CZ_OK);
    cz_lc a = {0};
    cz_lc_add(cs, &a, CZ_VAR_ONE, NULL);
    CHECK(a.n == 0 && a.t == NULL && !cz_cs_wants_lc(cs));
    cz_cs_free(cs);
}

static void test_pce_file(void)
{
    ileave c = {987654321, 90, 0};
    cz_cs *rec = cs_run(ileave_synth, &c, CZ_CURVE_BLS12_381, CZ_CS_RECORD, NULL);
    uint32_t n;
    const cz_fe *w0 = cz_cs_witness(rec, &n);
    cz_fe *w = malloc((size_t)n * 32);
    memcpy(w, w0, (size_t)n * 32);
    cz_pce p, q;
    uint8_t key[32], other[32];
    cz_pce_key(key, "interleaved", "steps=90", 1, CZ_CURVE_BLS12_381);
    cz_pce_key(other, "interleaved", "steps=91", 1, CZ_CURVE_BLS12_381);
    CHECK(memcmp(key, other, 32) != 0);
    cz_error err = {0};
    CHECK(cz_pce_from_cs(&p, rec, key, &err) == CZ_OK);
    char path[] = "/tmp/cuzk-test-pce-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(cz_pce_save(&p, path, &err) == CZ_OK);
    CHECK(cz_pce_load(&q, path, key, &err) == CZ_OK && q.map != NULL);
    CHECK(q.n_inputs == p.n_inputs && q.n_aux == p.n_aux && q.n_constraints == p.n_constraints);
    size_t nc = p.n_constraints;
    cz_fe *x = malloc(6 * nc * 32);
    uint64_t f1, f2;
    CHECK(cz_pce_abc(&p, w, n, x, x + nc, x + 2 * nc, &f1, NULL, &err) == CZ_OK);
    CHECK(cz_pce_abc(&q, w, n, x + 3 * nc, x + 4 * nc, x + 5 * nc, &f2, NULL, &err) == CZ_OK);
    CHECK(!memcmp(x, x + 3 * nc, 3 * nc * 32) && f1 == UINT64_MAX && f2 == UINT64_MAX);
    /* c NULL: the same a, b, nothing else written */
    memset(x + 3 * nc, 0x5a, 3 * nc * 32);
    CHECK(cz_pce_abc(&q, w, n, x + 3 * nc, x + 4 * nc, NULL, &f2, NULL, &err) == CZ_OK && f2 == UINT64_MAX);
    CHECK(!memcmp(x, x + 3 * nc, 2 * nc * 32) && ((uint8_t *)(x + 5 * nc))[0] == 0x5a);
    /* density: aux column 0 (x) is in A (row 0) and B; input 1 in A (row of q) */
    CHECK(cz_pce_density(&q, 0, 0) && cz_pce_density(&q, 2, 0) && !cz_pce_density(&q, 1, 1));
    cz_pce_free(&q);
    /* stale: another key */
    err = (cz_error){0};
    CHECK(cz_pce_load(&q, path, other, &err) == CZ_ERR_MISMATCH && strstr(err.msg, "stale"));
    /* corrupt: one byte of the body, then the header, then truncated */
    FILE *f = fopen(path, "r+b");
    fseek(f, 128 + 40, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 128 + 40, SEEK_SET);
    fputc(ch ^ 1, f);
    fclose(f);
    err = (cz_error){0};
    CHECK(cz_pce_load(&q, path, key, &err) == CZ_ERR_FORMAT && strstr(err.msg, "corrupt"));
    CHECK(cz_pce_save(&p, path, &err) == CZ_OK);
    f = fopen(path, "r+b");
    fseek(f, 50, SEEK_SET);
    fputc(0x77, f);
    fclose(f);
    err = (cz_error){0};
    CHECK(cz_pce_load(&q, path, key, &err) == CZ_ERR_FORMAT);
    CHECK(cz_pce_save(&p, path, &err) == CZ_OK);
    CHECK(truncate(path, (off_t)cz_pce_file_bytes(&p) - 8) == 0);
    err = (cz_error){0};
    CHECK(cz_pce_load(&q, path, key, &err) == CZ_ERR_FORMAT);
    unlink(path);
    free(x);
    free(w);
    cz_pce_free(&p);
    cz_cs_free(rec);
}

int main(void)
{
    test_interleaved(CZ_CURVE_BN254);
    test_interleaved(CZ_CURVE_BLS12_381);
    test_tamper_row();
    test_pool();
    test_pce_file();
    return cz_test_finish("test_cs");
}
