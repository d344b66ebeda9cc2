/*
 * groth16 tests on the snarkjs fixtures of both curves:
 *  - cz_groth16_prove (CPU backend) makes proofs that our verifier accepts
 *    against snarkjs's own verification_key.json (and the self-check passes);
 *  - with a fixed blinding r = s = 0 the proof equals, coordinate by
 *    coordinate, the one snarkjs's algorithm gives (tests/fixtures/<dir>/
 *    proof_r0s0.json, made by an independent reference prover kept outside this repository);
 *  - snarkjs's proof.json verifies; a proof with one coordinate changed, a
 *    changed public signal, swapped points, or the wrong count of public
 *    signals are all rejected;
 *  - an unsatisfied witness (one value changed) ends in CZ_ERR_UNSATISFIED and
 *    cz_r1cs_check names the first failing constraint;
 *  - witness/key mismatches (other curve, other length) are refused;
 *  - a curve value that is no curve is refused by every stage, the verifier
 *    and the CPU backend (never taken for another curve).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec/ec.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "test_util.h"

#define FIX CZ_SOURCE_DIR "/tests/fixtures/"

static char tmpdir[256];

static void flip_coord(cz_proof *p, int which)
{
    /* add 1 (in Montgomery form, any change) to the x coordinate: the point
     * leaves the curve, or for a few values lands elsewhere on it */
    uint64_t *c = which == 0 ? p->a : which == 1 ? p->b : p->c;
    c[0] ^= 0x10;
}

static void test_fixture(const char *dir, cz_rng *rng)
{
    char p[512];
    cz_error err;
    cz_zkey zk;
    cz_wtns w;
    cz_vkey vk;
    snprintf(p, sizeof p, FIX "%s/circuit.zkey", dir);
    cz_error_clear(&err);
    if (cz_zkey_load(&zk, p, NULL, &err) != CZ_OK) {
        CHECK_MSG(0, "%s", cz_error_msg(&err));
        return;
    }
    snprintf(p, sizeof p, FIX "%s/witness.wtns", dir);
    CHECK(cz_wtns_load(&w, p, NULL, &err) == CZ_OK);
    snprintf(p, sizeof p, FIX "%s/verification_key.json", dir);
    CHECK(cz_vkey_read_json(&vk, p, &err) == CZ_OK);
    const void *pub = (const uint8_t *)w.values + 32;

    /* prove with random blinding; verify against snarkjs's vkey */
    cz_proof proof, proof2;
    cz_prove_timings t;
    cz_error_clear(&err);
    cz_status st = cz_groth16_prove(&proof, &zk, &w, NULL, &t, &err);
    CHECK_MSG(st == CZ_OK, "%s: prove: %s", dir, cz_error_msg(&err));
    cz_error_clear(&err);
    CHECK_MSG(cz_groth16_verify(&vk, pub, zk.n_public, &proof, &err) == CZ_OK, "%s: verify: %s", dir,
              cz_error_msg(&err));
    /* two proofs differ (fresh blinding) and both verify */
    CHECK(cz_groth16_prove(&proof2, &zk, &w, NULL, NULL, &err) == CZ_OK);
    CHECK(memcmp(&proof, &proof2, sizeof proof) != 0);

    /* written and read back through proof.json */
    snprintf(p, sizeof p, "%s/proof.json", tmpdir);
    CHECK(cz_proof_write_json(p, &proof, &err) == CZ_OK);
    cz_proof back;
    CHECK(cz_proof_read_json(&back, zk.curve, p, &err) == CZ_OK && memcmp(&back, &proof, sizeof back) == 0);

    /* r = s = 0 reproduces snarkjs's deterministic proof if we have it */
    uint8_t zero[32] = {0};
    cz_prove_opts o;
    memset(&o, 0, sizeof o);
    o.fixed_r = zero;
    o.fixed_s = zero;
    cz_proof det;
    CHECK(cz_groth16_prove(&det, &zk, &w, &o, NULL, &err) == CZ_OK);
    snprintf(p, sizeof p, FIX "%s/proof_r0s0.json", dir);
    if (access(p, R_OK) == 0) {
        cz_proof ref;
        CHECK(cz_proof_read_json(&ref, zk.curve, p, &err) == CZ_OK);
        CHECK_MSG(memcmp(&ref, &det, sizeof ref) == 0, "%s: r=s=0 proof differs from the reference prover", dir);
    }

    /* snarkjs's own proof verifies */
    cz_proof sj;
    snprintf(p, sizeof p, FIX "%s/proof.json", dir);
    CHECK(cz_proof_read_json(&sj, zk.curve, p, &err) == CZ_OK);
    cz_error_clear(&err);
    CHECK_MSG(cz_groth16_verify(&vk, pub, zk.n_public, &sj, &err) == CZ_OK, "%s: snarkjs proof: %s", dir,
              cz_error_msg(&err));

    /* tampering */
    for (int which = 0; which < 3; which++) {
        cz_proof bad = proof;
        flip_coord(&bad, which);
        cz_error_clear(&err);
        CHECK(cz_groth16_verify(&vk, pub, zk.n_public, &bad, &err) != CZ_OK);
    }
    {
        cz_proof bad = proof;
        memcpy(bad.a, proof.c, sizeof bad.a);
        memcpy(bad.c, proof.a, sizeof bad.c);
        cz_error_clear(&err);
        CHECK(cz_groth16_verify(&vk, pub, zk.n_public, &bad, &err) == CZ_ERR_VERIFY);
        /* a valid point that is the wrong one: pi_a replaced by 2 pi_a */
        bad = proof;
        if (zk.curve == CZ_CURVE_BN254) {
            cz_bn254_g1 j;
            cz_bn254_g1_from_affine(&j, (cz_bn254_g1_affine *)bad.a);
            cz_bn254_g1_dbl(&j, &j);
            cz_bn254_g1_to_affine((cz_bn254_g1_affine *)bad.a, &j);
        } else {
            cz_bls12_381_g1 j;
            cz_bls12_381_g1_from_affine(&j, (cz_bls12_381_g1_affine *)bad.a);
            cz_bls12_381_g1_dbl(&j, &j);
            cz_bls12_381_g1_to_affine((cz_bls12_381_g1_affine *)bad.a, &j);
        }
        cz_error_clear(&err);
        CHECK(cz_groth16_verify(&vk, pub, zk.n_public, &bad, &err) == CZ_ERR_VERIFY);
    }
    {
        uint8_t *pub2 = malloc(32 * (size_t)zk.n_public);
        memcpy(pub2, pub, 32 * (size_t)zk.n_public);
        /* change the last public signal by +1 */
        if (zk.curve == CZ_CURVE_BN254)
            cz_bn254_fr_add((cz_bn254_fr *)(pub2 + 32 * (zk.n_public - 1)),
                            (cz_bn254_fr *)(pub2 + 32 * (zk.n_public - 1)), &cz_bn254_fr_ONE);
        else
            cz_bls12_381_fr_add((cz_bls12_381_fr *)(pub2 + 32 * (zk.n_public - 1)),
                                (cz_bls12_381_fr *)(pub2 + 32 * (zk.n_public - 1)), &cz_bls12_381_fr_ONE);
        cz_error_clear(&err);
        CHECK(cz_groth16_verify(&vk, pub2, zk.n_public, &proof, &err) == CZ_ERR_VERIFY);
        cz_error_clear(&err);
        CHECK(cz_groth16_verify(&vk, pub, zk.n_public - 1, &proof, &err) == CZ_ERR_MISMATCH);
        free(pub2);
    }

    /* unsatisfied witness: change one private value */
    {
        cz_wtns bad = w;
        size_t nb = (size_t)w.n * 32;
        bad.values = malloc(nb);
        memcpy(bad.values, w.values, nb);
        size_t idx = zk.n_public + 1 + (size_t)(cz_rng_u64(rng) % (w.n - zk.n_public - 1));
        uint8_t *v = (uint8_t *)bad.values + 32 * idx;
        if (zk.curve == CZ_CURVE_BN254)
            cz_bn254_fr_add((cz_bn254_fr *)v, (cz_bn254_fr *)v, &cz_bn254_fr_ONE);
        else
            cz_bls12_381_fr_add((cz_bls12_381_fr *)v, (cz_bls12_381_fr *)v, &cz_bls12_381_fr_ONE);
        cz_error_clear(&err);
        st = cz_groth16_prove(&proof2, &zk, &bad, NULL, NULL, &err);
        CHECK_MSG(st == CZ_ERR_UNSATISFIED, "%s: changed witness value %zu: status %s", dir, idx, cz_status_str(st));
        cz_r1cs r1;
        snprintf(p, sizeof p, FIX "%s/circuit.r1cs", dir);
        CHECK(cz_r1cs_load(&r1, p, 0, NULL, &err) == CZ_OK);
        uint64_t first = 0;
        CHECK(cz_r1cs_check(&r1, &w, &first, &err) == CZ_OK && first == UINT64_MAX);
        cz_error_clear(&err);
        CHECK(cz_r1cs_check(&r1, &bad, &first, &err) == CZ_ERR_UNSATISFIED && first < r1.n_constraints &&
              strstr(err.msg, "constraint"));
        cz_r1cs_free(&r1);
        free(bad.values);
        /* wrong length */
        bad = w;
        bad.n = w.n - 1;
        cz_error_clear(&err);
        CHECK(cz_groth16_prove(&proof2, &zk, &bad, NULL, NULL, &err) == CZ_ERR_MISMATCH && strstr(err.msg, "nVars"));
        /* other curve */
        bad = w;
        bad.curve = zk.curve == CZ_CURVE_BN254 ? CZ_CURVE_BLS12_381 : CZ_CURVE_BN254;
        cz_error_clear(&err);
        CHECK(cz_groth16_prove(&proof2, &zk, &bad, NULL, NULL, &err) == CZ_ERR_MISMATCH);
    }
    printf("  %-28s ok  (prove %.1f ms: synth %.1f, h %.1f, msm %.1f/%.1f/%.1f/%.1f/%.1f, verify %.1f)\n", dir,
           1e3 * t.total, 1e3 * t.synth, 1e3 * t.h, 1e3 * t.msm_a, 1e3 * t.msm_b1, 1e3 * t.msm_b2, 1e3 * t.msm_c,
           1e3 * t.msm_h, 1e3 * t.verify);
    cz_vkey_free(&vk);
    cz_wtns_free(&w);
    cz_zkey_free(&zk);
}

/* Key, witness, proof, vkey and backend calls with a curve value that is no
 * curve: refused with "unknown curve N" before any work. zk, w: a loaded
 * fixture, copied (not modified). */
static void test_unknown_curve(const cz_zkey *zk, const cz_wtns *w)
{
    static const cz_curve bad[] = {CZ_CURVE_NONE, (cz_curve)(CZ_CURVE_COUNT + 1), (cz_curve)99, (cz_curve)-1};
    size_t each = (size_t)zk->domain_size * 32;
    uint8_t *abc = calloc(3, each);
    cz_backend *be = NULL;
    CHECK(cz_backend_cpu_create(&be, NULL, NULL) == CZ_OK);
    for (size_t i = 0; abc && be && i < sizeof bad / sizeof bad[0]; i++) {
        cz_curve c = bad[i];
        char want[64];
        snprintf(want, sizeof want, "unknown curve %d", (int)c);
        cz_error err;
#define REFUSED(status, call)                                                                                          \
    do {                                                                                                               \
        cz_error_clear(&err);                                                                                          \
        cz_status st_ = (call);                                                                                        \
        CHECK_MSG(st_ == (status) && strstr(cz_error_msg(&err), want), "curve %d: %s: %s", (int)c, #call,              \
                  cz_error_msg(&err));                                                                                 \
    } while (0)
        cz_zkey zb = *zk;
        cz_wtns wb = *w;
        zb.curve = wb.curve = c;
        cz_groth16_partial part;
        memset(&part, 0, sizeof part);
        part.curve = c;
        cz_proof pr;
        cz_prove_opts o;
        memset(&o, 0, sizeof o);
        o.backend = be;
        REFUSED(CZ_ERR_INVALID_ARG, cz_groth16_prove(&pr, &zb, &wb, &o, NULL, &err));
        REFUSED(CZ_ERR_INVALID_ARG,
                cz_groth16_device(&part, &zb, &wb, abc, abc + each, abc + 2 * each, &o, NULL, &err));
        REFUSED(CZ_ERR_INVALID_ARG, cz_groth16_finalize(&pr, &zb, &wb, &part, &o, NULL, &err));
        cz_vkey vk;
        CHECK(cz_vkey_from_zkey(&vk, &zb) == CZ_ERR_INVALID_ARG && vk.ic == NULL);
        vk.curve = c;
        memset(&pr, 0, sizeof pr);
        pr.curve = c;
        REFUSED(CZ_ERR_UNSUPPORTED, cz_groth16_verify(&vk, w->values, zk->n_public, &pr, &err));
        uint64_t ab[72];
        CHECK(cz_groth16_alphabeta(ab, &vk) == CZ_ERR_INVALID_ARG);
        /* the CPU backend's steps */
        uint64_t out[36];
        REFUSED(CZ_ERR_INVALID_ARG, be->ops->compute_h(be, c, zk->log_domain, abc, abc + each, abc + 2 * each, NULL, &err));
        REFUSED(CZ_ERR_INVALID_ARG, be->ops->msm_g1(be, c, out, zk->a, w->values, 1, CZ_MSM_MONTGOMERY, &err));
        REFUSED(CZ_ERR_INVALID_ARG, be->ops->msm_g2(be, c, out, zk->b2, w->values, 1, CZ_MSM_MONTGOMERY, &err));
#undef REFUSED
    }
    cz_backend_free(be);
    free(abc);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_groth16");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cz_test_g16_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    cz_json_doc *doc;
    cz_json *root;
    cz_error err;
    CHECK(cz_json_parse_file(&doc, &root, FIX "fixtures.json", &err) == CZ_OK);
    const cz_json *list = cz_json_get(root, "fixtures");
    for (size_t i = 0; list && i < list->nchild; i++) test_fixture(cz_json_get(list->child[i], "dir")->str, &rng);
    cz_json_free(doc);
    {
        cz_zkey zk;
        cz_wtns w;
        cz_error_clear(&err);
        if (cz_zkey_load(&zk, FIX "bn128/poseidon/circuit.zkey", NULL, &err) == CZ_OK) {
            if (cz_wtns_load(&w, FIX "bn128/poseidon/witness.wtns", NULL, &err) == CZ_OK) {
                test_unknown_curve(&zk, &w);
                cz_wtns_free(&w);
            }
            cz_zkey_free(&zk);
        }
        CHECK_MSG(err.status == CZ_OK, "%s", cz_error_msg(&err));
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    return cz_test_finish("test_groth16");
}
