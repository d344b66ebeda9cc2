/*
 * The CPU backend's steps for one curve (see backend/cpu.c), instantiated
 * from backend/cpu.c once per curve by util/foreach_curve.h (CZ_G). Uses
 * cpu.c's cpu_ctx (the domain cache CZ_G##_dom) and pointwise_ctx.
 */
#define CP(x) CZ_CAT(CZ_CAT(CZ_G, _cpu_), x)
#define FR CZ_CAT(CZ_G, _fr)
#define FRF(x) CZ_CAT(CZ_CAT(CZ_G, _fr_), x)
#define NTT(x) CZ_CAT(CZ_CAT(CZ_G, _ntt_), x)
#define DOMS CZ_CAT(CZ_G, _dom)

static void CP(pointwise_range)(void *arg, size_t lo, size_t hi, int thread)
{
    pointwise_ctx *p = arg;
    (void)thread;
    FR *a = p->a, *b = p->b, *c = p->c;
    for (size_t i = lo; i < hi; i++) {
        FRF(mul)(&a[i], &a[i], &b[i]);
        FRF(sub)(&a[i], &a[i], &c[i]);
    }
}

/* The domain of size 2^k, built on first use. */
static cz_status CP(get_domain)(cpu_ctx *c, unsigned k, NTT(domain) **dom)
{
    cz_status st = CZ_OK;
    pthread_mutex_lock(&c->lock);
    if (!c->DOMS[k]) st = NTT(domain_create)(&c->DOMS[k], k);
    *dom = c->DOMS[k];
    pthread_mutex_unlock(&c->lock);
    return st;
}

static cz_status CP(compute_h)(cz_backend *be, unsigned log_n, void *a, void *b, void *c, cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    unsigned max = NTT(MAX_LOG);
    if (log_n > max) return cz_error_set(err, CZ_ERR_RANGE, "NTT of 2^%u exceeds the 2-adicity 2^%u", log_n, max);
    NTT(domain) *dom;
    cz_status st = CP(get_domain)(cx, log_n, &dom);
    if (st != CZ_OK) return cz_error_set(err, st, "cannot build the NTT domain of 2^%u: %s", log_n, cz_status_str(st));
    void *v[3] = {a, b, c};
    /* coefficients, then the coset evaluations in bit-reversed order: the
     * pointwise step does not care about order, so one permutation at the
     * end replaces three */
    FR g;
    NTT(coset_shift)(&g, log_n);
    for (int i = 0; i < 3 && st == CZ_OK; i++) {
        st = NTT(inverse)(dom, v[i], cx->pool);
        if (st == CZ_OK) st = NTT(coset_forward_to_bitrev)(dom, v[i], &g, cx->pool);
    }
    if (st != CZ_OK) return cz_error_set(err, st, "NTT of 2^%u failed: %s", log_n, cz_status_str(st));
    pointwise_ctx pc = {a, b, c};
    cz_parallel_for(cx->pool, (size_t)1 << log_n, 4096, CP(pointwise_range), &pc);
    st = NTT(bit_reverse)(a, log_n, cx->pool);
    if (st != CZ_OK) return cz_error_set(err, st, "bit reversal of 2^%u failed", log_n);
    return CZ_OK;
}

static cz_status CP(msm)(int group, void *out, const void *bases, const void *scalars, size_t n,
                         const cz_msm_opts *o)
{
    return group == 1 ? CZ_CAT(CZ_G, _g1_msm)(out, bases, scalars, n, o)
                      : CZ_CAT(CZ_G, _g2_msm)(out, bases, scalars, n, o);
}

static void CP(free_domains)(cpu_ctx *cx)
{
    for (unsigned k = 0; k <= NTT(MAX_LOG); k++) NTT(domain_free)(cx->DOMS[k]);
}

#undef CP
#undef FR
#undef FRF
#undef NTT
#undef DOMS
