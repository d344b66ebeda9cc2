/*
 * The CPU backend: ntt/ and msm/ on a thread pool.
 *
 * DESIGN: NTT domains (twiddle tables) are built once per size and curve
 * and kept for the backend's life when their bytes fit in the budget of the
 * options (reserved as CZ_MEM_SCRATCH, released at free; no budget: kept
 * uncounted); a domain that does not fit is built for the call and freed
 * after it, within scratch_bytes. MSM scratch is allocated inside each
 * call (msm/msm.h), also within scratch_bytes. The window of the options
 * forces the Pippenger window.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "ntt/ntt.h"
#include "util/thread.h"

typedef struct {
    cz_pool *pool;
    cz_budget *budget;
    int window;
    pthread_mutex_t lock;
    cz_bn254_ntt_domain *bn[CZ_BN254_FR_S + 1];
    cz_bls12_381_ntt_domain *bls[CZ_BLS12_381_FR_S + 1];
    size_t kept; /* bytes of the kept domains reserved in the budget */
} cpu_ctx;

typedef struct {
    void *a, *b, *c;
    cz_curve curve;
} pointwise_ctx;

static void pointwise_range(void *arg, size_t lo, size_t hi, int thread)
{
    pointwise_ctx *p = arg;
    (void)thread;
    if (p->curve == CZ_CURVE_BN254) {
        cz_bn254_fr *a = p->a, *b = p->b, *c = p->c;
        for (size_t i = lo; i < hi; i++) {
            cz_bn254_fr_mul(&a[i], &a[i], &b[i]);
            cz_bn254_fr_sub(&a[i], &a[i], &c[i]);
        }
    } else {
        cz_bls12_381_fr *a = p->a, *b = p->b, *c = p->c;
        for (size_t i = lo; i < hi; i++) {
            cz_bls12_381_fr_mul(&a[i], &a[i], &b[i]);
            cz_bls12_381_fr_sub(&a[i], &a[i], &c[i]);
        }
    }
}

static size_t domain_bytes_for(cz_curve curve, unsigned k)
{
    return curve == CZ_CURVE_BN254 ? cz_bn254_ntt_domain_bytes_for(k) : cz_bls12_381_ntt_domain_bytes_for(k);
}

static void domain_free(cz_curve curve, void *dom)
{
    if (curve == CZ_CURVE_BN254)
        cz_bn254_ntt_domain_free(dom);
    else
        cz_bls12_381_ntt_domain_free(dom);
}

/* The domain of size 2^k for a curve: the kept one, else built now and kept
 * if its bytes fit in the budget (*temp = 0), else built for this call only
 * (*temp = 1: the caller frees it). */
static cz_status get_domain(cpu_ctx *c, cz_curve curve, unsigned k, void **dom, int *temp)
{
    cz_status st = CZ_OK;
    *temp = 0;
    pthread_mutex_lock(&c->lock);
    void **slot = curve == CZ_CURVE_BN254 ? (void **)&c->bn[k] : (void **)&c->bls[k];
    if (!*slot) {
        size_t bytes = domain_bytes_for(curve, k);
        int keep = !c->budget || cz_budget_try_reserve(c->budget, CZ_MEM_SCRATCH, bytes);
        void *d = NULL;
        st = curve == CZ_CURVE_BN254 ? cz_bn254_ntt_domain_create((cz_bn254_ntt_domain **)&d, k)
                                     : cz_bls12_381_ntt_domain_create((cz_bls12_381_ntt_domain **)&d, k);
        if (st != CZ_OK) {
            if (keep && c->budget) cz_budget_release(c->budget, CZ_MEM_SCRATCH, bytes);
        } else if (keep) {
            *slot = d;
            if (c->budget) c->kept += bytes;
        } else {
            *dom = d;
            *temp = 1;
            pthread_mutex_unlock(&c->lock);
            return CZ_OK;
        }
    }
    *dom = *slot;
    pthread_mutex_unlock(&c->lock);
    return st;
}

static cz_status cpu_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                               cz_backend_h_stats *stats, cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    if (stats) memset(stats, 0, sizeof *stats);
    if (curve != CZ_CURVE_BN254 && curve != CZ_CURVE_BLS12_381)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "the H step: unknown curve %d", (int)curve);
    unsigned max = curve == CZ_CURVE_BN254 ? CZ_BN254_FR_S : CZ_BLS12_381_FR_S;
    if (log_n > max) return cz_error_set(err, CZ_ERR_RANGE, "NTT of 2^%u exceeds the 2-adicity 2^%u", log_n, max);
    void *dom;
    int temp;
    cz_status st = get_domain(cx, curve, log_n, &dom, &temp);
    if (st != CZ_OK) return cz_error_set(err, st, "cannot build the NTT domain of 2^%u: %s", log_n, cz_status_str(st));
    void *v[3] = {a, b, c};
    /* coefficients, then the coset evaluations in bit-reversed order: the
     * pointwise step does not care about order, so one permutation at the
     * end replaces three */
    if (curve == CZ_CURVE_BN254) {
        cz_bn254_fr g;
        cz_bn254_ntt_coset_shift(&g, log_n);
        for (int i = 0; i < 3 && st == CZ_OK; i++) {
            st = cz_bn254_ntt_inverse(dom, v[i], cx->pool);
            if (st == CZ_OK) st = cz_bn254_ntt_coset_forward_to_bitrev(dom, v[i], &g, cx->pool);
        }
    } else {
        cz_bls12_381_fr g;
        cz_bls12_381_ntt_coset_shift(&g, log_n);
        for (int i = 0; i < 3 && st == CZ_OK; i++) {
            st = cz_bls12_381_ntt_inverse(dom, v[i], cx->pool);
            if (st == CZ_OK) st = cz_bls12_381_ntt_coset_forward_to_bitrev(dom, v[i], &g, cx->pool);
        }
    }
    if (temp) domain_free(curve, dom);
    if (st != CZ_OK) return cz_error_set(err, st, "NTT of 2^%u failed: %s", log_n, cz_status_str(st));
    pointwise_ctx pc = {a, b, c, curve};
    cz_parallel_for(cx->pool, (size_t)1 << log_n, 4096, pointwise_range, &pc);
    st = curve == CZ_CURVE_BN254 ? cz_bn254_ntt_bit_reverse(a, log_n, cx->pool)
                                 : cz_bls12_381_ntt_bit_reverse(a, log_n, cx->pool);
    if (st != CZ_OK) return cz_error_set(err, st, "bit reversal of 2^%u failed", log_n);
    return CZ_OK;
}

static cz_status cpu_msm(cz_backend *be, cz_curve curve, int group, void *out, const void *bases,
                         const void *scalars, size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.form = form;
    o.pool = cx->pool;
    o.window = cx->window;
    cz_status st;
    if (curve != CZ_CURVE_BN254 && curve != CZ_CURVE_BLS12_381)
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "G%d MSM: unknown curve %d", group, (int)curve);
    if (curve == CZ_CURVE_BN254)
        st = group == 1 ? cz_bn254_g1_msm(out, bases, scalars, n, &o) : cz_bn254_g2_msm(out, bases, scalars, n, &o);
    else
        st = group == 1 ? cz_bls12_381_g1_msm(out, bases, scalars, n, &o)
                        : cz_bls12_381_g2_msm(out, bases, scalars, n, &o);
    if (st != CZ_OK)
        return cz_error_set(err, st, "G%d MSM of %zu points failed: %s", group, n, cz_status_str(st));
    return CZ_OK;
}

static cz_status cpu_msm_g1(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                            size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return cpu_msm(be, curve, 1, out, bases, scalars, n, form, err);
}

static cz_status cpu_msm_g2(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                            size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return cpu_msm(be, curve, 2, out, bases, scalars, n, form, err);
}

/* kept domains are counted once they exist; a proof may build one more (a
 * temporary one when it does not fit) and runs one MSM or one NTT at a
 * time, each with its own scratch */
static size_t cpu_scratch_bytes(cz_backend *be, cz_curve curve, unsigned log_n, size_t n)
{
    cpu_ctx *cx = be->ctx;
    const unsigned max = curve == CZ_CURVE_BN254 ? CZ_BN254_FR_S : CZ_BLS12_381_FR_S;
    const int threads = cz_pool_threads(cx->pool);
    size_t dom = 0;
    if (log_n <= max) {
        pthread_mutex_lock(&cx->lock);
        int have = curve == CZ_CURVE_BN254 ? cx->bn[log_n] != NULL : cx->bls[log_n] != NULL;
        pthread_mutex_unlock(&cx->lock);
        if (!have) dom = domain_bytes_for(curve, log_n);
    }
    size_t ntt = curve == CZ_CURVE_BN254 ? cz_bn254_ntt_scratch_bytes(log_n, threads)
                                         : cz_bls12_381_ntt_scratch_bytes(log_n, threads);
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.window = cx->window;
    size_t g1 = curve == CZ_CURVE_BN254 ? cz_bn254_g1_msm_scratch_size_opts(n, threads, &o)
                                        : cz_bls12_381_g1_msm_scratch_size_opts(n, threads, &o);
    size_t g2 = curve == CZ_CURVE_BN254 ? cz_bn254_g2_msm_scratch_size_opts(n, threads, &o)
                                        : cz_bls12_381_g2_msm_scratch_size_opts(n, threads, &o);
    size_t m = ntt > g1 ? ntt : g1;
    if (g2 > m) m = g2;
    return dom + m;
}

static void cpu_free(cz_backend *be)
{
    cpu_ctx *cx = be->ctx;
    for (unsigned k = 0; k <= CZ_BN254_FR_S; k++) cz_bn254_ntt_domain_free(cx->bn[k]);
    for (unsigned k = 0; k <= CZ_BLS12_381_FR_S; k++) cz_bls12_381_ntt_domain_free(cx->bls[k]);
    if (cx->budget && cx->kept) cz_budget_release(cx->budget, CZ_MEM_SCRATCH, cx->kept);
    pthread_mutex_destroy(&cx->lock);
    free(cx);
    free(be);
}

static const cz_backend_ops cpu_ops = {
    /* .compute_h = */ cpu_compute_h,
    /* .msm_g1    = */ cpu_msm_g1,
    /* .msm_g2    = */ cpu_msm_g2,
    /* .keep_bases = */ NULL,
    /* .drop_bases = */ NULL,
    /* .host_allocator = */ NULL,
    /* .mem_info  = */ NULL,
    /* .scratch_bytes = */ cpu_scratch_bytes,
    /* .free      = */ cpu_free,
};

cz_status cz_backend_cpu_create(cz_backend **out, const cz_backend_opts *opts, cz_error *err)
{
    *out = NULL;
    if (opts && opts->msm_window && (opts->msm_window < 2 || opts->msm_window > CZ_MSM_MAX_WINDOW))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "MSM window %d: expected 2 to %d (0: automatic)",
                            opts->msm_window, CZ_MSM_MAX_WINDOW);
    cz_backend *be = calloc(1, sizeof *be);
    cpu_ctx *cx = calloc(1, sizeof *cx);
    if (!be || !cx) {
        free(be);
        free(cx);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "cannot create the CPU backend: out of memory");
    }
    cx->pool = opts && opts->pool ? opts->pool : cz_pool_default();
    cx->budget = opts ? opts->budget : NULL;
    cx->window = opts ? opts->msm_window : 0;
    pthread_mutex_init(&cx->lock, NULL);
    be->ops = &cpu_ops;
    be->ctx = cx;
    be->kind = CZ_BACKEND_CPU;
    snprintf(be->name, sizeof be->name, "cpu (%d threads)", cz_pool_threads(cx->pool));
    *out = be;
    return CZ_OK;
}
