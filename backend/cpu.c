/*
 * The CPU backend: ntt/ and msm/ on a thread pool. NTT domains (twiddle
 * tables) are built once per size and curve and kept for the backend's life.
 * The steps are written once per curve (backend/cpu_tmpl_impl.h) and looked
 * up per call by the curve.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "ntt/ntt.h"
#include "util/thread.h"

/* per curve: the cached domains, 2^0 .. 2^s */
#define CPU_DOMS_(ID, VALUE, SYM, CONST, ...) SYM##_ntt_domain *SYM##_dom[CONST##_FR_S + 1];
typedef struct {
    cz_pool *pool;
    pthread_mutex_t lock;
    CZ_CURVE_LIST(CPU_DOMS_)
} cpu_ctx;
#undef CPU_DOMS_

typedef struct {
    void *a, *b, *c;
} pointwise_ctx;

/* the steps per curve (backend/cpu_tmpl_impl.h), a row per curve of
 * CZ_CURVE_LIST */
#define CZ_TMPL "backend/cpu_tmpl_impl.h"
#include "util/foreach_curve.h"

typedef struct {
    cz_status (*compute_h)(cz_backend *be, unsigned log_n, void *a, void *b, void *c, cz_error *err);
    cz_status (*msm)(int group, void *out, const void *bases, const void *scalars, size_t n, const cz_msm_opts *o);
    void (*free_domains)(cpu_ctx *cx);
} cpu_curve;

#define CPU_ROW_(ID, VALUE, SYM, ...) {SYM##_cpu_compute_h, SYM##_cpu_msm, SYM##_cpu_free_domains},
static const cpu_curve cpu_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CPU_ROW_)};
#undef CPU_ROW_

static cz_status cpu_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                               cz_error *err)
{
    int i = cz_curve_index(curve);
    if (i < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "unknown curve %d", (int)curve);
    return cpu_curves[i].compute_h(be, log_n, a, b, c, err);
}

static cz_status cpu_msm(cz_backend *be, cz_curve curve, int group, void *out, const void *bases,
                         const void *scalars, size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    int i = cz_curve_index(curve);
    if (i < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "unknown curve %d", (int)curve);
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.form = form;
    o.pool = cx->pool;
    cz_status st = cpu_curves[i].msm(group, out, bases, scalars, n, &o);
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
    for (int i = 0; i < CZ_CURVE_COUNT; i++) cpu_curves[i].free_domains(cx);
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
