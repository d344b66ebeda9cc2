/*
 * The CPU backend: ntt/ and msm/ on a thread pool. NTT domains (twiddle
 * tables) are built once per size and curve and kept for the backend's life.
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
    pthread_mutex_t lock;
    cz_bn254_ntt_domain *bn[CZ_BN254_FR_S + 1];
    cz_bls12_381_ntt_domain *bls[CZ_BLS12_381_FR_S + 1];
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

/* The domain of size 2^k for a curve, built on first use. */
static cz_status get_domain(cpu_ctx *c, cz_curve curve, unsigned k, void **dom)
{
    cz_status st = CZ_OK;
    pthread_mutex_lock(&c->lock);
    if (curve == CZ_CURVE_BN254) {
        if (!c->bn[k]) st = cz_bn254_ntt_domain_create(&c->bn[k], k);
        *dom = c->bn[k];
    } else {
        if (!c->bls[k]) st = cz_bls12_381_ntt_domain_create(&c->bls[k], k);
        *dom = c->bls[k];
    }
    pthread_mutex_unlock(&c->lock);
    return st;
}

static cz_status cpu_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                               cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    unsigned max = curve == CZ_CURVE_BN254 ? CZ_BN254_FR_S : CZ_BLS12_381_FR_S;
    if (log_n > max) return cz_error_set(err, CZ_ERR_RANGE, "NTT of 2^%u exceeds the 2-adicity 2^%u", log_n, max);
    void *dom;
    cz_status st = get_domain(cx, curve, log_n, &dom);
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
    cz_status st;
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

static void cpu_free(cz_backend *be)
{
    cpu_ctx *cx = be->ctx;
    for (unsigned k = 0; k <= CZ_BN254_FR_S; k++) cz_bn254_ntt_domain_free(cx->bn[k]);
    for (unsigned k = 0; k <= CZ_BLS12_381_FR_S; k++) cz_bls12_381_ntt_domain_free(cx->bls[k]);
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
    /* .free      = */ cpu_free,
};

cz_status cz_backend_cpu_create(cz_backend **out, cz_pool *pool)
{
    *out = NULL;
    cz_backend *be = calloc(1, sizeof *be);
    cpu_ctx *cx = calloc(1, sizeof *cx);
    if (!be || !cx) {
        free(be);
        free(cx);
        return CZ_ERR_NO_MEMORY;
    }
    cx->pool = pool ? pool : cz_pool_default();
    pthread_mutex_init(&cx->lock, NULL);
    be->ops = &cpu_ops;
    be->ctx = cx;
    snprintf(be->name, sizeof be->name, "cpu (%d threads)", cz_pool_threads(cx->pool));
    *out = be;
    return CZ_OK;
}

void cz_backend_free(cz_backend *be)
{
    if (be && be->ops && be->ops->free) be->ops->free(be);
}
