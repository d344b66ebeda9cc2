/*
 * Per-curve Groth16 code, instantiated from groth16/groth16.c once per curve
 * by util/foreach_curve.h, with
 *   CZ_G        the curve prefix (cz_bn254, cz_bls12_381)
 *   CZ_G_CURVE  its cz_curve value
 * Types: CZ_G_fr, CZ_G_g1(_affine), CZ_G_g2(_affine), CZ_G_fq12.
 */
#define GN(x) CZ_CAT(CZ_CAT(CZ_G, _), x) /* static helpers of this curve */
#define FR CZ_CAT(CZ_G, _fr)
#define FRF(x) CZ_CAT(CZ_CAT(CZ_G, _fr_), x)
#define G1 CZ_CAT(CZ_G, _g1)
#define G1A CZ_CAT(CZ_G, _g1_affine)
#define G1F(x) CZ_CAT(CZ_CAT(CZ_G, _g1_), x)
#define G2 CZ_CAT(CZ_G, _g2)
#define G2A CZ_CAT(CZ_G, _g2_affine)
#define G2F(x) CZ_CAT(CZ_CAT(CZ_G, _g2_), x)
#define FQ12 CZ_CAT(CZ_G, _fq12)

/* ---- blinding scalars ---- */
static cz_status GN(blinding)(FR *v, const uint8_t *fixed, const char *name, cz_error *err)
{
    if (fixed) {
        if (FRF(from_bytes_le)(v, fixed) != CZ_OK)
            return cz_error_set(err, CZ_ERR_RANGE, "fixed blinding %s is >= r", name);
        return CZ_OK;
    }
    /* from the OS CSPRNG only: a refused draw fails the proof (CZ_ERR_RANDOM) */
    cz_rng rng;
    if (cz_rng_os(&rng) == CZ_OK) FRF(random)(v, &rng);
    if (cz_rng_status(&rng) != CZ_OK) {
        memset(v, 0, sizeof *v);
        return cz_error_set(err, CZ_ERR_RANDOM,
                            "blinding %s: no secure randomness: the OS CSPRNG (getrandom) failed: %s", name,
                            rng.error > 0 ? strerror(rng.error) : "refused");
    }
    return CZ_OK;
}

/* ---- stages 2 and 3 ---- */

/* The five MSMs of a proof (t1: the time stage 3 began). */
static cz_status GN(msm5)(const cz_zkey *zk, const cz_wtns *w, const void *h, cz_backend *be, G1 *pa, G1 *pb1,
                          G2 *pb2, G1 *pc, G1 *ph, cz_prove_timings *t, double t1, cz_error *err)
{
    cz_status st;
    const FR *wv = w->values;
    cz_msm_scalar_form mont = CZ_MSM_MONTGOMERY;
    size_t npriv = (size_t)zk->n_vars - zk->n_public - 1;
    if ((st = be->ops->msm_g1(be, CZ_G_CURVE, pa, zk->a, wv, zk->n_vars, mont, err)) != CZ_OK) return st;
    double t2 = cz_now();
    t->msm_a = t2 - t1;
    if ((st = be->ops->msm_g1(be, CZ_G_CURVE, pb1, zk->b1, wv, zk->n_vars, mont, err)) != CZ_OK) return st;
    double t3 = cz_now();
    t->msm_b1 = t3 - t2;
    if ((st = be->ops->msm_g2(be, CZ_G_CURVE, pb2, zk->b2, wv, zk->n_vars, mont, err)) != CZ_OK) return st;
    double t4 = cz_now();
    t->msm_b2 = t4 - t3;
    if ((st = be->ops->msm_g1(be, CZ_G_CURVE, pc, zk->c, wv + zk->n_public + 1, npriv, mont, err)) != CZ_OK)
        return st;
    double t5 = cz_now();
    t->msm_c = t5 - t4;
    if ((st = be->ops->msm_g1(be, CZ_G_CURVE, ph, zk->h, h, zk->domain_size, mont, err)) != CZ_OK) return st;
    t->msm_h = cz_now() - t5;
    return CZ_OK;
}
/* stage 2: the H step and the five MSMs on the backend */
static cz_status GN(device)(cz_groth16_partial *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                            const cz_prove_opts *o, cz_backend *be, cz_prove_timings *t, cz_error *err)
{
    _Static_assert(sizeof(G1) <= sizeof out->a && sizeof(G2) <= sizeof out->b2, "cz_groth16_partial too small");
    cz_status st;
    double t0 = cz_now();
    /* the witness goes to the device once for the four MSMs that read it
     * (A, B1, B2 over all of it, C over its private part); kept before the H
     * step, so that a backend may copy it while the H step runs */
    int wres = be->ops->keep_bases && be->ops->drop_bases &&
               be->ops->keep_bases(be, w->values, (size_t)zk->n_vars * sizeof(FR), NULL) == CZ_OK;
    /* and a, where the H step leaves h, the H MSM's scalars: kept over the
     * H step, the device's result stays there (backend.h keep_bases) */
    int hres = be->ops->keep_bases && be->ops->drop_bases &&
               be->ops->keep_bases(be, a, (size_t)zk->domain_size * sizeof(FR), NULL) == CZ_OK;
    cz_backend_h_stats hs;
    if ((st = be->ops->compute_h(be, CZ_G_CURVE, zk->log_domain, a, b, c, &hs, err)) != CZ_OK) {
        if (wres) be->ops->drop_bases(be, w->values);
        if (hres) be->ops->drop_bases(be, a);
        return st;
    }
    double t1 = cz_now();
    t->h = t1 - t0;
    t->h2d_bytes = hs.h2d_bytes;
    t->h2d = hs.h2d_s;

    G1 pa, pb1, pc, ph;
    G2 pb2;
    size_t npriv = (size_t)zk->n_vars - zk->n_public - 1;
    /* the key's point sections on the device for the MSMs (a no-op on the
     * CPU; a section that does not fit is streamed instead) */
    const void *sec[5] = {zk->a, zk->b1, zk->b2, zk->c, zk->h};
    size_t secb[5] = {zk->n_vars * sizeof(G1A), zk->n_vars * sizeof(G1A), zk->n_vars * sizeof(G2A),
                      npriv * sizeof(G1A), zk->domain_size * sizeof(G1A)};
    if (be->ops->keep_bases)
        for (int i = 0; i < 5; i++)
            if (secb[i]) (void)be->ops->keep_bases(be, sec[i], secb[i], NULL);
    st = GN(msm5)(zk, w, a, be, &pa, &pb1, &pb2, &pc, &ph, t, t1, err);
    if (wres) be->ops->drop_bases(be, w->values);
    if (hres) be->ops->drop_bases(be, a);
    if (be->ops->drop_bases && !o->keep_resident)
        for (int i = 0; i < 5; i++) be->ops->drop_bases(be, sec[i]);
    if (st != CZ_OK) return st;
    memset(out, 0, sizeof *out);
    out->curve = CZ_G_CURVE;
    memcpy(out->a, &pa, sizeof pa);
    memcpy(out->b1, &pb1, sizeof pb1);
    memcpy(out->c, &pc, sizeof pc);
    memcpy(out->h, &ph, sizeof ph);
    memcpy(out->b2, &pb2, sizeof pb2);
    return CZ_OK;
}

/* stage 3: blinding and assembly, as snarkjs groth16_prove.js */
static cz_status GN(finalize)(cz_proof *out, const cz_zkey *zk, const cz_groth16_partial *part,
                              const cz_prove_opts *o, cz_prove_timings *t, cz_error *err)
{
    cz_status st;
    double t6 = cz_now();
    G1 pa, pb1, pc, ph;
    G2 pb2;
    memcpy(&pa, part->a, sizeof pa);
    memcpy(&pb1, part->b1, sizeof pb1);
    memcpy(&pc, part->c, sizeof pc);
    memcpy(&ph, part->h, sizeof ph);
    memcpy(&pb2, part->b2, sizeof pb2);
    FR r, s, rs;
    if ((st = GN(blinding)(&r, o->fixed_r, "r", err)) != CZ_OK) return st;
    if ((st = GN(blinding)(&s, o->fixed_s, "s", err)) != CZ_OK) return st;
    FRF(mul)(&rs, &r, &s);
    G1 d1, alpha1, beta1, tmp;
    G2 d2, beta2, tmp2;
    G1F(from_affine)(&d1, (const G1A *)zk->delta1);
    G1F(from_affine)(&alpha1, (const G1A *)zk->alpha1);
    G1F(from_affine)(&beta1, (const G1A *)zk->beta1);
    G2F(from_affine)(&d2, (const G2A *)zk->delta2);
    G2F(from_affine)(&beta2, (const G2A *)zk->beta2);

    /* pi_a = A + alpha1 + r delta1 */
    G1F(add)(&pa, &pa, &alpha1);
    G1F(mul_fr_ct)(&tmp, &d1, &r);
    G1F(add)(&pa, &pa, &tmp);
    /* pi_b = B + beta2 + s delta2 */
    G2F(add)(&pb2, &pb2, &beta2);
    G2F(mul_fr_ct)(&tmp2, &d2, &s);
    G2F(add)(&pb2, &pb2, &tmp2);
    /* b1 = B1 + beta1 + s delta1 */
    G1F(add)(&pb1, &pb1, &beta1);
    G1F(mul_fr_ct)(&tmp, &d1, &s);
    G1F(add)(&pb1, &pb1, &tmp);
    /* pi_c = C + H + s pi_a + r b1 - r s delta1 */
    G1F(add)(&pc, &pc, &ph);
    G1F(mul_fr_ct)(&tmp, &pa, &s);
    G1F(add)(&pc, &pc, &tmp);
    G1F(mul_fr_ct)(&tmp, &pb1, &r);
    G1F(add)(&pc, &pc, &tmp);
    G1F(mul_fr_ct)(&tmp, &d1, &rs);
    G1F(neg)(&tmp, &tmp);
    G1F(add)(&pc, &pc, &tmp);

    memset(out, 0, sizeof *out);
    out->curve = CZ_G_CURVE;
    G1F(to_affine)((G1A *)out->a, &pa);
    G2F(to_affine)((G2A *)out->b, &pb2);
    G1F(to_affine)((G1A *)out->c, &pc);
    /* wipe the blinding scalars */
    volatile uint8_t *vr = (volatile uint8_t *)&r, *vs = (volatile uint8_t *)&s, *vrs = (volatile uint8_t *)&rs;
    for (size_t i = 0; i < sizeof r; i++) vr[i] = vs[i] = vrs[i] = 0;
    t->finalize = cz_now() - t6;
    return CZ_OK;
}

/* ---- verifier ---- */
static cz_status GN(verify)(const cz_vkey *vk, const void *pub, size_t npub, const cz_proof *p, cz_error *err)
{
    if (npub != vk->n_public)
        return cz_error_set(err, CZ_ERR_MISMATCH, "%zu public signals given, the verifying key expects %u", npub,
                            vk->n_public);
    const G1A *pa = (const G1A *)p->a, *pc = (const G1A *)p->c;
    const G2A *pb = (const G2A *)p->b;
    if (!G1F(affine_is_on_curve)(pa) || !G1F(affine_in_subgroup)(pa))
        return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP, "proof point pi_a is not a valid G1 point");
    if (!G2F(affine_is_on_curve)(pb) || !G2F(affine_in_subgroup)(pb))
        return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP, "proof point pi_b is not a valid G2 point");
    if (!G1F(affine_is_on_curve)(pc) || !G1F(affine_in_subgroup)(pc))
        return cz_error_set(err, CZ_ERR_NOT_IN_SUBGROUP, "proof point pi_c is not a valid G1 point");
    /* cpub = IC0 + sum pub_i IC_{i+1} */
    G1 cpub, t;
    G1F(from_affine)(&cpub, (const G1A *)vk->ic);
    if (npub) {
        G1A *ics = malloc(npub * sizeof(G1A));
        if (!ics) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
        for (size_t i = 0; i < npub; i++) memcpy(&ics[i], vk->ic + 12 * (i + 1), sizeof(G1A));
        cz_msm_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.form = CZ_MSM_MONTGOMERY;
        /* a few public inputs: on this thread, not queued behind another run of
         * the shared pool (the engine's finalizer verifies while partitions
         * are synthesized) */
        if (npub <= 4096) mo.pool = cz_pool_serial();
        cz_status st = G1F(msm)(&t, ics, pub, npub, &mo);
        free(ics);
        if (st != CZ_OK) return cz_error_set(err, st, "public input combination failed: %s", cz_status_str(st));
        G1F(add)(&cpub, &cpub, &t);
    }
    G1A ps[4];
    G2A qs[4];
    G1F(affine_neg)(&ps[0], pa);
    qs[0] = *pb;
    memcpy(&ps[1], vk->alpha1, sizeof(G1A));
    memcpy(&qs[1], vk->beta2, sizeof(G2A));
    G1F(to_affine)(&ps[2], &cpub);
    memcpy(&qs[2], vk->gamma2, sizeof(G2A));
    ps[3] = *pc;
    memcpy(&qs[3], vk->delta2, sizeof(G2A));
    if (!CZ_CAT(CZ_G, _pairing_check)(ps, qs, 4))
        return cz_error_set(err, CZ_ERR_VERIFY, "the pairing equation does not hold");
    return CZ_OK;
}

static cz_status GN(alphabeta)(uint64_t out[72], const cz_vkey *vk)
{
    FQ12 f;
    cz_status st = CZ_CAT(CZ_G, _pairing)(&f, (const G1A *)vk->alpha1, (const G2A *)vk->beta2);
    memcpy(out, &f, sizeof f);
    return st;
}

#undef GN
#undef FR
#undef FRF
#undef G1
#undef G1A
#undef G1F
#undef G2
#undef G2A
#undef G2F
#undef FQ12
