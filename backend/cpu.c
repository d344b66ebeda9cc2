/*
 * The CPU backend: ntt/ and msm/ on a thread pool.
 *
 * DESIGN: the steps are written once per curve (backend/cpu_tmpl_impl.h)
 * and looked up per call by the curve (an unknown curve is refused). NTT
 * domains (twiddle tables) are built once per size and curve and kept for
 * the backend's life when their bytes fit in the budget of the options
 * (reserved as CZ_MEM_SCRATCH, released at free; no budget: kept uncounted);
 * a domain that does not fit is built for the call and freed after it,
 * within scratch_bytes. MSM scratch is allocated inside each call
 * (msm/msm.h), also within scratch_bytes. The window of the options forces
 * the Pippenger window.
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
    cz_budget *budget;
    int window;
    pthread_mutex_t lock;
    size_t kept; /* bytes of the kept domains reserved in the budget */
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
    size_t (*scratch_bytes)(cpu_ctx *cx, unsigned log_n, size_t n);
    void (*free_domains)(cpu_ctx *cx);
} cpu_curve;

#define CPU_ROW_(ID, VALUE, SYM, ...) {SYM##_cpu_compute_h, SYM##_cpu_msm, SYM##_cpu_scratch_bytes, SYM##_cpu_free_domains},
static const cpu_curve cpu_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CPU_ROW_)};
#undef CPU_ROW_

static cz_status cpu_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                               cz_backend_h_stats *stats, cz_error *err)
{
    if (stats) memset(stats, 0, sizeof *stats);
    int i = cz_curve_index(curve);
    if (i < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "the H step: unknown curve %d", (int)curve);
    return cpu_curves[i].compute_h(be, log_n, a, b, c, err);
}

static cz_status cpu_msm(cz_backend *be, cz_curve curve, int group, void *out, const void *bases,
                         const void *scalars, size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cpu_ctx *cx = be->ctx;
    int i = cz_curve_index(curve);
    if (i < 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "G%d MSM: unknown curve %d", group, (int)curve);
    cz_msm_opts o;
    memset(&o, 0, sizeof o);
    o.form = form;
    o.pool = cx->pool;
    o.window = cx->window;
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

static size_t cpu_scratch_bytes(cz_backend *be, cz_curve curve, unsigned log_n, size_t n)
{
    int i = cz_curve_index(curve);
    return i < 0 ? 0 : cpu_curves[i].scratch_bytes(be->ctx, log_n, n);
}

static void cpu_free(cz_backend *be)
{
    cpu_ctx *cx = be->ctx;
    for (int i = 0; i < CZ_CURVE_COUNT; i++) cpu_curves[i].free_domains(cx);
    if (cx->budget && cx->kept) cz_budget_release(cx->budget, CZ_MEM_SCRATCH, cx->kept);
    pthread_mutex_destroy(&cx->lock);
    free(cx);
    free(be);
}

static const cz_backend_ops cpu_ops = {
    /* .compute_h      = */ cpu_compute_h,
    /* .msm_g1         = */ cpu_msm_g1,
    /* .msm_g2         = */ cpu_msm_g2,
    /* .keep_bases     = */ NULL,
    /* .drop_bases     = */ NULL,
    /* .host_allocator = */ NULL,
    /* .mem_info       = */ NULL,
    /* .mem_mark       = */ NULL,
    /* .scratch_bytes  = */ cpu_scratch_bytes,
    /* .free           = */ cpu_free,
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
