/* The Groth16 prover and verifier: per-curve code from
 * groth16/groth16_tmpl_impl.h, dispatched on the key's curve through a table
 * with a row per curve of CZ_CURVE_LIST. */
#include "groth16/groth16.h"

#include <stdlib.h>
#include <string.h>

#include "ec/pairing.h"
#include "util/timer.h"

#define CZ_TMPL "groth16/groth16_tmpl_impl.h"
#include "util/foreach_curve.h"

/* the per-curve stages (cz_groth16_abc and cz_r1cs_check, which move to
 * circuit/, still pick theirs by hand) */
typedef struct {
    cz_status (*device)(cz_groth16_partial *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                        const cz_prove_opts *o, cz_backend *be, cz_prove_timings *t, cz_error *err);
    cz_status (*finalize)(cz_proof *out, const cz_zkey *zk, const cz_groth16_partial *part, const cz_prove_opts *o,
                          cz_prove_timings *t, cz_error *err);
    cz_status (*verify)(const cz_vkey *vk, const void *pub, size_t npub, const cz_proof *p, cz_error *err);
    cz_status (*alphabeta)(uint64_t out[72], const cz_vkey *vk);
} g16_curve;

#define G16_ROW_(ID, VALUE, SYM, ...) {SYM##_device, SYM##_finalize, SYM##_verify, SYM##_alphabeta},
static const g16_curve g16_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(G16_ROW_)};
#undef G16_ROW_

/* the row of curve c; NULL (and err set to st, "unknown curve c") for a
 * value that is no curve */
static const g16_curve *g16_curve_of(cz_curve c, cz_status st, cz_error *err)
{
    int i = cz_curve_index(c);
    if (i >= 0) return &g16_curves[i];
    cz_error_set(err, st, "unknown curve %d", (int)c);
    return NULL;
}

cz_status cz_groth16_check_inputs(const cz_zkey *zk, const cz_wtns *w, const char *zkey_name, const char *wtns_name,
                                  cz_error *err)
{
    if (w->curve != zk->curve)
        return cz_error_set(err, CZ_ERR_MISMATCH, "%s is a %s witness but %s is a %s key", wtns_name,
                            cz_curve_snarkjs_name(w->curve), zkey_name, cz_curve_snarkjs_name(zk->curve));
    if (w->n != zk->n_vars)
        return cz_error_set(err, CZ_ERR_MISMATCH,
                            "%s holds %u values but %s expects %u (nVars): a witness of another circuit?", wtns_name,
                            w->n, zkey_name, zk->n_vars);
    return CZ_OK;
}

cz_status cz_vkey_from_zkey(cz_vkey *vk, const cz_zkey *zk)
{
    memset(vk, 0, sizeof *vk);
    const cz_curve_info *ci = cz_curve_info_get(zk->curve);
    if (!ci) return CZ_ERR_INVALID_ARG;
    size_t g1 = ci->g1_affine_bytes, g2 = ci->g2_affine_bytes;
    vk->curve = zk->curve;
    vk->n_public = zk->n_public;
    memcpy(vk->alpha1, zk->alpha1, g1);
    memcpy(vk->beta2, zk->beta2, g2);
    memcpy(vk->gamma2, zk->gamma2, g2);
    memcpy(vk->delta2, zk->delta2, g2);
    vk->ic = calloc((size_t)zk->n_public + 1, 12 * sizeof(uint64_t));
    if (!vk->ic) return CZ_ERR_NO_MEMORY;
    for (uint32_t i = 0; i <= zk->n_public; i++) memcpy(vk->ic + 12 * (size_t)i, (const uint8_t *)zk->ic + g1 * i, g1);
    return CZ_OK;
}

cz_status cz_groth16_alphabeta(uint64_t out[72], const cz_vkey *vk)
{
    memset(out, 0, 72 * sizeof(uint64_t));
    const g16_curve *gc = g16_curve_of(vk->curve, CZ_ERR_INVALID_ARG, NULL);
    return gc ? gc->alphabeta(out, vk) : CZ_ERR_INVALID_ARG;
}

cz_status cz_groth16_verify(const cz_vkey *vk, const void *pub, size_t npub, const cz_proof *p, cz_error *err)
{
    if (p->curve != vk->curve)
        return cz_error_set(err, CZ_ERR_MISMATCH, "proof is on %s, verifying key on %s", cz_curve_name(p->curve),
                            cz_curve_name(vk->curve));
    const g16_curve *gc = g16_curve_of(vk->curve, CZ_ERR_UNSUPPORTED, err);
    return gc ? gc->verify(vk, pub, npub, p, err) : CZ_ERR_UNSUPPORTED;
}

cz_status cz_groth16_device(cz_groth16_partial *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                            const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err)
{
    static const cz_prove_opts defaults;
    const cz_prove_opts *o = opts ? opts : &defaults;
    cz_prove_timings tdummy;
    if (!t) t = &tdummy;
    cz_status st = cz_groth16_check_inputs(zk, w, "the proving key", "the witness", err);
    if (st != CZ_OK) return st;
    const g16_curve *gc = g16_curve_of(zk->curve, CZ_ERR_INVALID_ARG, err);
    if (!gc) return CZ_ERR_INVALID_ARG;
    cz_backend *be = o->backend, *own = NULL;
    if (!be) {
        if ((st = cz_backend_cpu_create(&own, NULL, err)) != CZ_OK) return st;
        be = own;
    }
    st = gc->device(out, zk, w, a, b, c, o, be, t, err);
    cz_backend_free(own);
    return st;
}

cz_status cz_groth16_finalize(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, const cz_groth16_partial *p,
                              const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err)
{
    static const cz_prove_opts defaults;
    const cz_prove_opts *o = opts ? opts : &defaults;
    cz_prove_timings tdummy;
    if (!t) t = &tdummy;
    cz_status st = cz_groth16_check_inputs(zk, w, "the proving key", "the witness", err);
    if (st != CZ_OK) return st;
    if (p->curve != zk->curve)
        return cz_error_set(err, CZ_ERR_MISMATCH, "the partial proof is on %s, the key on %s", cz_curve_name(p->curve),
                            cz_curve_name(zk->curve));
    const g16_curve *gc = g16_curve_of(zk->curve, CZ_ERR_INVALID_ARG, err);
    if (!gc) return CZ_ERR_INVALID_ARG;
    st = gc->finalize(out, zk, p, o, t, err);
    if (st != CZ_OK || o->skip_verify) return st;
    /* verify before anything is written: an unsatisfied witness ends here */
    double t0 = cz_now();
    cz_vkey vk;
    if ((st = cz_vkey_from_zkey(&vk, zk)) != CZ_OK) return cz_error_set(err, st, "out of memory");
    cz_error verr;
    cz_error_clear(&verr);
    st = cz_groth16_verify(&vk, (const uint8_t *)w->values + 32, zk->n_public, out, &verr);
    cz_vkey_free(&vk);
    t->verify = cz_now() - t0;
    if (st == CZ_ERR_VERIFY)
        return cz_error_set(err, CZ_ERR_UNSATISFIED,
                            "the proof does not verify: the witness does not satisfy the circuit of this key (run "
                            "with the .r1cs and --check to find the first failing constraint)");
    if (st != CZ_OK) return cz_error_set(err, st, "self-verification failed: %s", cz_error_msg(&verr));
    return CZ_OK;
}

cz_status cz_groth16_prove_abc(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                               const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err)
{
    cz_groth16_partial p;
    cz_status st = cz_groth16_device(&p, zk, w, a, b, c, opts, t, err);
    if (st != CZ_OK) return st;
    return cz_groth16_finalize(out, zk, w, &p, opts, t, err);
}

void cz_groth16_drop_resident(cz_backend *be, const cz_zkey *zk)
{
    if (!be || !zk || !be->ops->drop_bases) return;
    const void *sec[5] = {zk->a, zk->b1, zk->b2, zk->c, zk->h};
    for (int i = 0; i < 5; i++)
        if (sec[i]) be->ops->drop_bases(be, sec[i]);
}

cz_status cz_groth16_prove(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, const cz_prove_opts *opts,
                           cz_prove_timings *t, cz_error *err)
{
    static const cz_prove_opts defaults;
    const cz_prove_opts *o = opts ? opts : &defaults;
    cz_prove_timings tdummy;
    if (!t) t = &tdummy;
    memset(t, 0, sizeof *t);
    double t0 = cz_now();
    cz_status st = cz_groth16_check_inputs(zk, w, "the proving key", "the witness", err);
    if (st != CZ_OK) return st;
    if (!g16_curve_of(zk->curve, CZ_ERR_INVALID_ARG, err)) return CZ_ERR_INVALID_ARG;
    const size_t each = (size_t)zk->domain_size * 32, bytes = cz_ab_bytes(zk->domain_size);
    uint8_t *ab = cz_alloc(o->alloc, bytes);
    if (!ab) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory for the a, b vectors (%zu bytes)", bytes);
    if ((st = cz_circuit_abc(zk, w, ab, ab + each, NULL, NULL)) != CZ_OK) {
        cz_free(o->alloc, ab, bytes);
        return cz_error_set(err, st, "a, b: unknown curve %d", (int)zk->curve);
    }
    t->synth = cz_now() - t0;
    /* c = a o b: the backend's (backend.h compute_h) */
    st = cz_groth16_prove_abc(out, zk, w, ab, ab + each, NULL, o, t, err);
    cz_free(o->alloc, ab, bytes);
    t->total = cz_now() - t0;
    return st;
}
