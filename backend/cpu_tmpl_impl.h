/*
 * The CPU backend's steps for one curve (see backend/cpu.c), instantiated
 * from backend/cpu.c once per curve by util/foreach_curve.h (CZ_G). Uses
 * cpu.c's cpu_ctx (the domain cache CZ_G##_dom, the budget) and
 * pointwise_ctx.
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

/* c = a o b (compute_h with c NULL) */
static void CP(product_range)(void *arg, size_t lo, size_t hi, int thread)
{
    pointwise_ctx *p = arg;
    (void)thread;
    const FR *a = p->a, *b = p->b;
    FR *c = p->c;
    for (size_t i = lo; i < hi; i++) FRF(mul)(&c[i], &a[i], &b[i]);
}

/* The domain of size 2^k: the kept one, else built now and kept if its
 * bytes fit in the budget (*temp = 0), else built for this call only
 * (*temp = 1: the caller frees it). */
static cz_status CP(get_domain)(cpu_ctx *c, unsigned k, NTT(domain) **dom, int *temp)
{
    cz_status st = CZ_OK;
    *temp = 0;
    pthread_mutex_lock(&c->lock);
    if (!c->DOMS[k]) {
        const size_t bytes = NTT(domain_bytes_for)(k);
        const int keep = !c->budget || cz_budget_try_reserve(c->budget, CZ_MEM_SCRATCH, bytes);
        NTT(domain) *d = NULL;
        st = NTT(domain_create)(&d, k);
        if (st != CZ_OK) {
            if (keep && c->budget) cz_budget_release(c->budget, CZ_MEM_SCRATCH, bytes);
        } else if (keep) {
            c->DOMS[k] = d;
            if (c->budget) c->kept += bytes;
        } else {
            *dom = d;
            *temp = 1;
            pthread_mutex_unlock(&c->lock);
            return CZ_OK;
        }
    }
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
    int temp;
    cz_status st = CP(get_domain)(cx, log_n, &dom, &temp);
    if (st != CZ_OK) return cz_error_set(err, st, "cannot build the NTT domain of 2^%u: %s", log_n, cz_status_str(st));
    void *own = NULL; /* c = a o b where the caller passed none (backend.h) */
    if (!c) {
        const size_t bytes = ((size_t)1 << log_n) * sizeof(FR);
        if (!(c = own = malloc(bytes))) {
            if (temp) NTT(domain_free)(dom);
            return cz_error_set(err, CZ_ERR_NO_MEMORY, "H step of 2^%u: out of memory for c = a o b (%zu bytes)",
                                log_n, bytes);
        }
        pointwise_ctx pp = {a, b, c};
        cz_parallel_for(cx->pool, (size_t)1 << log_n, 4096, CP(product_range), &pp);
    }
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
    if (temp) NTT(domain_free)(dom);
    if (st == CZ_OK) {
        pointwise_ctx pc = {a, b, c};
        cz_parallel_for(cx->pool, (size_t)1 << log_n, 4096, CP(pointwise_range), &pc);
    }
    free(own);
    if (st != CZ_OK) return cz_error_set(err, st, "NTT of 2^%u failed: %s", log_n, cz_status_str(st));
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

/* kept domains are counted once they exist; a proof may build one more (a
 * temporary one when it does not fit) and runs one MSM or one NTT at a
 * time, each with its own scratch */
static size_t CP(scratch_bytes)(cpu_ctx *cx, unsigned log_n, size_t n)
{
    const int threads = cz_pool_threads(cx->pool);
    size_t dom = 0;
    if (log_n <= NTT(MAX_LOG)) {
        pthread_mutex_lock(&cx->lock);
        if (!cx->DOMS[log_n]) dom = NTT(domain_bytes_for)(log_n);
        pthread_mutex_unlock(&cx->lock);
    }
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.window = cx->window;
    /* the H step's: the NTTs' and c = a o b (compute_h with c NULL) */
    size_t m = NTT(scratch_bytes)(log_n, threads);
    if (log_n <= NTT(MAX_LOG)) m += ((size_t)1 << log_n) * sizeof(FR);
    size_t g1 = CZ_CAT(CZ_G, _g1_msm_scratch_size_opts)(n, threads, &o);
    size_t g2 = CZ_CAT(CZ_G, _g2_msm_scratch_size_opts)(n, threads, &o);
    if (g1 > m) m = g1;
    if (g2 > m) m = g2;
    return dom + m;
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
