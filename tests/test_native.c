/*
 * test_native: circuits written in C (circuit/native.h) as the engine's
 * partitions, on the CPU backend.
 *
 * For each circuit (poseidon-merkle on BN254, sha256 and porep-like on
 * BLS12-381) the
 * reference is the .wtns path: the circuit is exported (.r1cs + .wtns of
 * each input, cz_native_export), a key made from the .r1cs
 * (cz_groth16_setup_dev), and a, b computed from the exported witness by
 * the key's SpMV (cz_circuit_abc). The native synth (cz_native_synth:
 * witness-only synthesis, then the recorded matrices' SpMV) must give the
 * same witness and the same a, b bit for bit (nothing written past them),
 * for several inputs of one shape. Then one engine job whose partitions are native synths (different
 * inputs) proves; every proof is verified again here with
 * cz_groth16_verify against the exported witness's public inputs, and the
 * job's public signals are those. The PCE cache: one recording for the
 * shape, a file in pce_dir that a later synth (after the in-memory cache is
 * flushed) loads, a corrupted file rebuilt. An input the circuit does not
 * accept fails its partition with CZ_ERR_UNSATISFIED naming the
 * constraint, and the job's other partitions still prove.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit/circuit.h"
#include "circuit/native.h"
#include "engine/engine.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/json.h"
#include "io/r1cs.h"
#include "test_util.h"

static char g_dir[128];

/* An input of c from JSON text (NULL on failure, reported). */
static void *input_of(const cz_native_circuit *c, const uint64_t *params, const char *json)
{
    cz_json_doc *doc;
    cz_json *root;
    cz_error err;
    cz_error_clear(&err);
    void *in = NULL;
    cz_status st = cz_json_parse(&doc, &root, json, strlen(json), "input", &err);
    if (st == CZ_OK) {
        st = c->parse(root, params, "input", &in, &err);
        cz_json_free(doc);
    }
    CHECK_MSG(st == CZ_OK, "%s input: %s", c->name, cz_error_msg(&err));
    return st == CZ_OK ? in : NULL;
}

typedef struct fixture {
    const cz_native_circuit *c;
    uint64_t params[CZ_NATIVE_MAX_PARAMS];
    cz_curve curve;
    const char *const *inputs; /* n JSON texts, one shape */
    size_t n;
    char zkey[256];
    cz_zkey zk;
    cz_vkey vk;
    cz_wtns *w; /* the exported witness of each input */
} fixture;

static int fixture_make(fixture *f, const char *name)
{
    cz_error err;
    cz_error_clear(&err);
    f->w = calloc(f->n, sizeof *f->w);
    if (!f->w) return 0;
    char r1cs[256], wtns[256];
    snprintf(f->zkey, sizeof f->zkey, "%s/%s.zkey", g_dir, name);
    for (size_t i = 0; i < f->n; i++) {
        void *in = input_of(f->c, f->params, f->inputs[i]);
        if (!in) return 0;
        snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", g_dir, name);
        snprintf(wtns, sizeof wtns, "%s/%s.%zu.wtns", g_dir, name, i);
        cz_status st = cz_native_export(f->c, f->params, in, f->curve, r1cs, wtns, 0, NULL, &err);
        f->c->free_input(in);
        CHECK_MSG(st == CZ_OK, "export %s %zu: %s", name, i, cz_error_msg(&err));
        if (st == CZ_OK) st = cz_wtns_load(&f->w[i], wtns, NULL, &err);
        unlink(wtns);
        if (st != CZ_OK) return 0;
    }
    cz_r1cs r;
    cz_status st = cz_r1cs_load(&r, r1cs, 0, NULL, &err);
    if (st == CZ_OK) {
        cz_setup_opts so;
        memset(&so, 0, sizeof so);
        so.use_seed = 1;
        so.seed = 3;
        st = cz_groth16_setup_dev(&r, f->zkey, &so, NULL, &err);
        cz_r1cs_free(&r);
    }
    unlink(r1cs);
    if (st == CZ_OK) st = cz_zkey_load(&f->zk, f->zkey, NULL, &err);
    if (st == CZ_OK) st = cz_vkey_from_zkey(&f->vk, &f->zk);
    CHECK_MSG(st == CZ_OK, "key %s: %s", name, cz_error_msg(&err));
    return st == CZ_OK;
}

static void fixture_free(fixture *f)
{
    for (size_t i = 0; f->w && i < f->n; i++) cz_wtns_free(&f->w[i]);
    free(f->w);
    cz_vkey_free(&f->vk);
    cz_zkey_free(&f->zk);
    unlink(f->zkey);
}

static cz_synth *synth_of(const fixture *f, const char *json, const char *pce_dir)
{
    void *in = input_of(f->c, f->params, json);
    if (!in) return NULL;
    cz_synth *s = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_native_synth(&s, f->c, f->params, in, f->curve, pce_dir, f->c->name, &err);
    CHECK_MSG(st == CZ_OK, "native synth %s: %s", f->c->name, cz_error_msg(&err));
    return st == CZ_OK ? s : NULL;
}

/* Witness and a, b of the native synth equal the .wtns path's. */
static void test_abc_equal(fixture *f, const char *pce_dir)
{
    const size_t bytes = cz_ab_bytes(f->zk.domain_size), each = bytes / 2, abcb = 3 * each;
    uint8_t *ref = malloc(abcb), *got = malloc(abcb);
    if (!ref || !got) {
        CHECK(0);
        goto out;
    }
    for (size_t i = 0; i < f->n; i++) {
        cz_error err;
        cz_error_clear(&err);
        CHECK(cz_circuit_abc(&f->zk, &f->w[i], ref, ref + each, ref + 2 * each, NULL) == CZ_OK);
        cz_synth *s = synth_of(f, f->inputs[i], pce_dir);
        if (!s) continue;
        CHECK_MSG(cz_synth_check(s, &f->zk, f->zkey, &err) == CZ_OK, "check: %s", cz_error_msg(&err));
        cz_synth_info si;
        CHECK(cz_synth_info_get(s, &si, &err) == CZ_OK && si.curve == f->curve && si.n_vars == f->w[i].n &&
              si.witness_bytes == (size_t)f->w[i].n * 32);
        CHECK(cz_synth_witness(s) == NULL);
        CHECK_MSG(cz_synth_prepare(s, NULL, &err) == CZ_OK, "prepare: %s", cz_error_msg(&err));
        const cz_wtns *w = cz_synth_witness(s);
        CHECK(w && w->n == f->w[i].n && w->curve == f->curve &&
              memcmp(w->values, f->w[i].values, (size_t)w->n * 32) == 0);
        memset(got, 0xa5, abcb); /* every byte of a, b is written, the padding rows too; nothing past them */
        CHECK_MSG(cz_synth_ab(s, &f->zk, got, NULL, &err) == CZ_OK, "ab: %s", cz_error_msg(&err));
        CHECK_MSG(memcmp(ref, got, each) == 0, "%s input %zu: a differs", f->c->name, i);
        CHECK_MSG(memcmp(ref + each, got + each, each) == 0, "%s input %zu: b differs", f->c->name, i);
        CHECK(got[bytes] == 0xa5 && got[abcb - 1] == 0xa5);
        /* released and prepared again (a device failure's path): the same */
        cz_synth_release(s);
        CHECK(cz_synth_witness(s) == NULL);
        CHECK(cz_synth_prepare(s, NULL, &err) == CZ_OK && cz_synth_ab(s, &f->zk, got, NULL, &err) == CZ_OK &&
              memcmp(ref, got, bytes) == 0);
        cz_synth_free(s);
    }
out:
    free(ref);
    free(got);
}

/* One engine job of native partitions; each proof verified here. */
static void test_engine_job(fixture *f, const char *pce_dir, const char *bad_json, const char *bad_name)
{
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.device = "cpu";
    c.budget_bytes = (size_t)2 << 30;
    c.synth_workers = 2;
    cz_engine *e = NULL;
    cz_engine_key *k = NULL;
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_engine_create(&e, &c, &err);
    if (st == CZ_OK) st = cz_engine_key_add(e, f->zkey, &k, &err);
    CHECK_MSG(st == CZ_OK, "engine: %s", cz_error_msg(&err));
    if (st != CZ_OK) {
        cz_engine_free(e);
        return;
    }
    const size_t n = f->n + (bad_json ? 1 : 0);
    cz_synth **parts = calloc(n, sizeof *parts);
    size_t made = 0;
    for (size_t i = 0; parts && i < f->n; i++)
        if ((parts[made] = synth_of(f, f->inputs[i], pce_dir))) made++;
    if (parts && bad_json && (parts[made] = synth_of(f, bad_json, pce_dir))) made++;
    CHECK(made == n);
    cz_job *j = NULL;
    if (made == n) {
        cz_job_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.id = 17;
        spec.key = k;
        spec.parts = parts;
        spec.n = n;
        st = cz_engine_submit_job(e, &spec, &j, &err);
        CHECK_MSG(st == CZ_OK, "submit: %s", cz_error_msg(&err));
        if (st != CZ_OK) j = NULL;
    }
    if (!j)
        for (size_t i = 0; parts && i < made; i++) cz_synth_free(parts[i]);
    free(parts);
    if (j) {
        CHECK(cz_job_wait(j, -1) == CZ_OK);
        size_t nr;
        const cz_partition_result *r = cz_job_results(j, &nr);
        CHECK(nr == n);
        for (size_t i = 0; i < f->n && i < nr; i++) {
            CHECK_MSG(r[i].status == CZ_OK, "partition %zu: %s", i, r[i].error);
            if (r[i].status != CZ_OK) continue;
            const uint8_t *pub = (const uint8_t *)f->w[i].values + 32;
            CHECK(r[i].n_pub == f->zk.n_public && memcmp(r[i].pub, pub, 32 * r[i].n_pub) == 0);
            CHECK_MSG(cz_groth16_verify(&f->vk, pub, f->zk.n_public, &r[i].proof, &err) == CZ_OK,
                      "partition %zu does not verify: %s", i, cz_error_msg(&err));
            /* against another partition's public inputs it must not */
            if (f->n > 1) {
                const uint8_t *other = (const uint8_t *)f->w[(i + 1) % f->n].values + 32;
                if (memcmp(other, pub, 32 * f->zk.n_public) != 0)
                    CHECK(cz_groth16_verify(&f->vk, other, f->zk.n_public, &r[i].proof, NULL) != CZ_OK);
            }
            CHECK(r[i].t.ab_bytes == cz_ab_bytes(f->zk.domain_size));
        }
        if (bad_json && nr == n) {
            CHECK(r[n - 1].status == CZ_ERR_UNSATISFIED);
            CHECK_MSG(strstr(r[n - 1].error, bad_name) != NULL, "the failure names %s: %s", bad_name, r[n - 1].error);
            CHECK(cz_job_status(j) == CZ_ERR_UNSATISFIED);
        } else {
            CHECK(cz_job_status(j) == CZ_OK);
        }
        cz_job_free(j);
    }
    cz_engine_key_remove(e, k);
    cz_engine_free(e);
}

/* The recordings: one per shape, kept in pce_dir, loaded from there after
 * a flush, a corrupted file rebuilt. */
static void test_pce_cache(fixture *f, const char *pce_dir)
{
    cz_native_pce_flush();
    cz_native_pce_stats s0, s1, s2, s3;
    cz_native_pce_stats_get(&s0);
    cz_synth *a = synth_of(f, f->inputs[0], pce_dir), *b = synth_of(f, f->inputs[f->n - 1], pce_dir);
    cz_native_pce_stats_get(&s1);
    /* a file of an earlier test, or one recording; the second synth a hit */
    CHECK(s1.records + s1.file_loads == s0.records + s0.file_loads + 1);
    CHECK(s1.hits == s0.hits + 1);
    cz_synth_free(a);
    cz_synth_free(b);
    cz_native_pce_flush();
    a = synth_of(f, f->inputs[0], pce_dir);
    cz_native_pce_stats_get(&s2);
    CHECK(s2.file_loads == s1.file_loads + 1 && s2.records == s1.records);
    cz_synth_free(a);
    cz_native_pce_flush();
    /* corrupt every recording file in the folder (flip a body byte) */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "for p in %s/*.pce; do printf '\\377' | dd of=\"$p\" bs=1 seek=200 conv=notrunc status=none; done",
             pce_dir);
    CHECK(system(cmd) == 0);
    a = synth_of(f, f->inputs[0], pce_dir);
    cz_native_pce_stats_get(&s3);
    CHECK(s3.rebuilt == s2.rebuilt + 1 && s3.records == s2.records + 1);
    /* and it still proves the same a, b, c (the rebuilt recording) */
    cz_synth_free(a);
    test_abc_equal(f, pce_dir);
}

static void run_circuit(fixture *f, const char *name, const char *bad_json, const char *bad_name)
{
    if (fixture_make(f, name)) {
        printf("  %s on %s: %u wires, %u public, domain 2^%u\n", f->c->name, cz_curve_name(f->curve), f->zk.n_vars,
               f->zk.n_public, f->zk.log_domain);
        char pce_dir[200];
        snprintf(pce_dir, sizeof pce_dir, "%s/pce-%s", g_dir, name);
        CHECK(mkdir(pce_dir, 0700) == 0);
        test_abc_equal(f, NULL); /* in memory only */
        test_abc_equal(f, pce_dir);
        test_engine_job(f, pce_dir, bad_json, bad_name);
        test_pce_cache(f, pce_dir);
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", pce_dir);
        CHECK(system(cmd) == 0);
    }
    fixture_free(f);
}

/* A poseidon-merkle (BN254) fixture of the given depth, for the cache
 * tests (no key); 0 when the circuit or the parameter is refused. */
static int pm_fixture(fixture *f, const char *depth_kv)
{
    memset(f, 0, sizeof *f);
    f->c = cz_native_find("poseidon-merkle");
    CHECK(f->c != NULL);
    if (!f->c) return 0;
    f->curve = CZ_CURVE_BN254;
    const char *kv[1] = {depth_kv};
    cz_status st = cz_native_params(f->c, kv, 1, f->params, NULL);
    CHECK(st == CZ_OK);
    return st == CZ_OK;
}

/* The cache's cap: with a cap of 1 byte an idle recording stays only while
 * it is the most recently used; a second shape evicts the first, and the
 * first comes back from its file. Two shapes of poseidon-merkle (depth 1
 * and 2). */
static void test_pce_cap(void)
{
    fixture f1, f2;
    if (!pm_fixture(&f1, "depth=1") || !pm_fixture(&f2, "depth=2")) return;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/pce-cap", g_dir);
    CHECK(mkdir(dir, 0700) == 0);
    const char *in1 = "{\"leaf\": \"3\", \"path\": [\"4\"], \"index\": 1}";
    const char *in2 = "{\"leaf\": \"3\", \"path\": [\"4\", \"5\"], \"index\": 2}";
    cz_native_pce_flush();
    cz_native_pce_set_cap(1);
    cz_native_pce_stats s0, s1, s2, s3;
    cz_native_pce_stats_get(&s0);
    cz_synth *a = synth_of(&f1, in1, dir);
    cz_synth_free(a); /* idle, the most recent: kept */
    a = synth_of(&f1, in1, dir);
    cz_native_pce_stats_get(&s1);
    CHECK(s1.hits == s0.hits + 1 && s1.evictions == s0.evictions);
    cz_synth *b = synth_of(&f2, in2, dir);
    cz_synth_free(a); /* a idle, the only idle one: kept */
    cz_synth_free(b); /* b idle and more recent: a is dropped */
    cz_native_pce_stats_get(&s2);
    CHECK_MSG(s2.evictions == s1.evictions + 1, "evictions %llu -> %llu", (unsigned long long)s1.evictions,
              (unsigned long long)s2.evictions);
    a = synth_of(&f1, in1, dir); /* from its file, not from memory */
    cz_native_pce_stats_get(&s3);
    CHECK(s3.hits == s2.hits && s3.file_loads == s2.file_loads + 1);
    cz_synth_free(a);
    cz_native_pce_set_cap(CZ_NATIVE_PCE_CAP_DEFAULT);
    cz_native_pce_flush();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* Threads asking for shapes at once: 4 for one new shape (recorded once,
 * the other three wait and hit), 1 for another (recorded beside it, not
 * after it: the recording runs outside the cache's lock). */
typedef struct {
    const fixture *f;
    void *in; /* parsed here (CHECK is not for threads), owned by the synth */
    pthread_barrier_t *go;
    cz_synth *s;
    cz_status st;
} conc_arg;

static void *conc_thread(void *p)
{
    conc_arg *a = p;
    pthread_barrier_wait(a->go);
    cz_error err;
    cz_error_clear(&err);
    a->st = a->in ? cz_native_synth(&a->s, a->f->c, a->f->params, a->in, a->f->curve, NULL, a->f->c->name, &err)
                  : CZ_ERR_FORMAT;
    return NULL;
}

static void test_pce_concurrent(void)
{
    fixture f1, f2;
    if (!pm_fixture(&f1, "depth=4") || !pm_fixture(&f2, "depth=5")) return;
    cz_native_pce_flush();
    cz_native_pce_stats s0, s1;
    cz_native_pce_stats_get(&s0);
    enum { NT = 5 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, NT);
    conc_arg a[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        a[i].f = i < 4 ? &f1 : &f2;
        a[i].in = input_of(a[i].f->c, a[i].f->params,
                           i < 4 ? "{\"leaf\": \"3\", \"path\": [\"4\", \"5\", \"6\", \"7\"], \"index\": 2}"
                                 : "{\"leaf\": \"3\", \"path\": [\"4\", \"5\", \"6\", \"7\", \"8\"], \"index\": 9}");
        a[i].go = &go;
        a[i].s = NULL;
        a[i].st = CZ_ERR_INTERNAL;
        CHECK(pthread_create(&th[i], NULL, conc_thread, &a[i]) == 0);
    }
    for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    cz_native_pce_stats_get(&s1);
    for (int i = 0; i < NT; i++) {
        CHECK_MSG(a[i].st == CZ_OK, "thread %d: status %d", i, (int)a[i].st);
        cz_synth_info si;
        CHECK(a[i].s && cz_synth_info_get(a[i].s, &si, NULL) == CZ_OK);
        cz_synth_free(a[i].s);
    }
    CHECK_MSG(s1.records == s0.records + 2 && s1.hits == s0.hits + 3,
              "records %llu -> %llu, hits %llu -> %llu (expected +2, +3)", (unsigned long long)s0.records,
              (unsigned long long)s1.records, (unsigned long long)s0.hits, (unsigned long long)s1.hits);
    cz_native_pce_flush();
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cz_test_native.XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    /* poseidon-merkle, depth 3: paths of one shape, different leaves,
     * indices and siblings; a claimed root that the path does not reach */
    {
        static const char *const in[] = {
            "{\"leaf\": \"1\", \"path\": [\"2\", \"3\", \"4\"], \"index\": 0}",
            "{\"leaf\": \"77\", \"path\": [\"5\", \"6\", \"7\"], \"index\": 5}",
            "{\"leaf\": \"123456789\", \"path\": [\"0\", \"9\", \"11\"], \"index\": 7}",
        };
        fixture f;
        memset(&f, 0, sizeof f);
        f.c = cz_native_find("poseidon-merkle");
        CHECK(f.c != NULL);
        if (f.c) {
            const char *kv[1] = {"depth=3"};
            CHECK(cz_native_params(f.c, kv, 1, f.params, NULL) == CZ_OK);
            f.curve = CZ_CURVE_BN254;
            f.inputs = in;
            f.n = 3;
            run_circuit(&f, "pm", "{\"leaf\": \"1\", \"path\": [\"2\", \"3\", \"4\"], \"index\": 0, \"root\": \"5\"}",
                        "(root)");
        }
    }
    /* sha256 on BLS12-381: preimages of one length (3 bytes); a claimed
     * digest that is not theirs */
    {
        static const char *const in[] = {
            "{\"preimage\": \"616263\"}",
            "{\"preimage\": \"00ff10\"}",
        };
        fixture f;
        memset(&f, 0, sizeof f);
        f.c = cz_native_find("sha256");
        CHECK(f.c != NULL);
        if (f.c) {
            CHECK(cz_native_params(f.c, NULL, 0, f.params, NULL) == CZ_OK);
            f.curve = CZ_CURVE_BLS12_381;
            f.inputs = in;
            f.n = 2;
            run_circuit(&f, "sha",
                        "{\"preimage\": \"616264\", \"digest\": "
                        "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"}",
                        "digest/packed input");
        }
    }
    /* porep-like on BLS12-381, the smallest instance with a labelling over
     * a parent (1 challenge, 1 parent, depth 1: 2^17): two sectors; a
     * claimed comm_r that is not the sector's. Not in the scaled-down
     * sanitizer runs (CZ_TEST_SCALE < 1): its proofs are most of this test's
     * time there, and the two circuits above go through the same paths. */
    if (cz_test_iters(100) >= 100) {
        static const char *const in[] = {
            "{\"replica_id\": \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\", \"seed\": 1}",
            "{\"replica_id\": \"ff23456789abcdef0123456789abcdef0123456789abcdef0123456789abcd00\", \"seed\": 99}",
        };
        fixture f;
        memset(&f, 0, sizeof f);
        f.c = cz_native_find("porep-like");
        CHECK(f.c != NULL);
        if (f.c) {
            const char *kv[3] = {"challenges=1", "parents=1", "depth=1"};
            CHECK(cz_native_params(f.c, kv, 3, f.params, NULL) == CZ_OK);
            f.curve = CZ_CURVE_BLS12_381;
            f.inputs = in;
            f.n = 2;
            run_circuit(&f, "pl",
                        "{\"replica_id\": \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\", "
                        "\"seed\": 1, \"comm_r\": "
                        "\"00000000000000000000000000000000000000000000000000000000000000aa\"}",
                        "challenge 0/parent 0/root");
        }
    }
    test_pce_cap();
    test_pce_concurrent();
    rmdir(g_dir);
    return cz_test_finish("test_native");
}
