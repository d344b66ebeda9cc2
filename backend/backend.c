/* backend: selection from a device spec and the fallback wrapper (contract
 * in backend.h). */
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/devspec.h"

#ifdef CZ_HAVE_CUDA
#include "cuda/cuda.h"
#endif

int cz_backend_device_error(cz_status st)
{
    return st == CZ_ERR_CUDA || st == CZ_ERR_DEVICE_MEMORY || st == CZ_ERR_NO_DEVICE || st == CZ_ERR_INTERNAL;
}

int cz_backend_gpu_count(void)
{
#ifdef CZ_HAVE_CUDA
    return cz_cuda_device_count();
#else
    return 0;
#endif
}

cz_status cz_backend_msm_table_parse(const char *text, int *mode, cz_error *err)
{
    static const char *const words[] = {"auto", "off", "eager"}; /* CZ_CUDA_TABLE_AUTO, _OFF, _EAGER */
    *mode = 0;
    if (!text || !*text) return CZ_OK;
    for (int i = 0; i < 3; i++)
        if (!strcmp(text, words[i])) {
            *mode = i;
            return CZ_OK;
        }
    return cz_error_set(err, CZ_ERR_INVALID_ARG, "expected auto, off or eager");
}

cz_status cz_backend_msm_table_windows_parse(const char *text, int *windows, cz_error *err)
{
    *windows = 0;
    if (!text || !*text || !strcmp(text, "whole")) return CZ_OK;
    if (!strcmp(text, "fit")) {
        *windows = 64;
        return CZ_OK;
    }
    int v = 0;
    const char *p = text;
    while (*p >= '0' && *p <= '9' && v <= 64) v = v * 10 + (*p++ - '0');
    if (p == text || *p || v < 2 || v > 64)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "expected whole, fit or a number of windows from 2 to 64");
    *windows = v;
    return CZ_OK;
}

size_t cz_backend_scratch_bytes(cz_backend *be, cz_curve curve, unsigned log_n, size_t n)
{
    return be && be->ops->scratch_bytes ? be->ops->scratch_bytes(be, curve, log_n, n) : 0;
}

void cz_backend_free(cz_backend *be)
{
    if (be && be->ops && be->ops->free) be->ops->free(be);
}

#ifndef CZ_HAVE_CUDA
cz_status cz_backend_cuda_create(cz_backend **out, int index, const cz_backend_opts *opts, cz_error *err)
{
    (void)opts;
    *out = NULL;
    return cz_error_set(err, CZ_ERR_UNSUPPORTED, "device 'cuda:%d': this build has no CUDA backend", index);
}
#endif

/* ---- the fallback wrapper ---- */

typedef struct {
    cz_backend *primary, *fallback;
    cz_logger log;
} fb_ctx;

static void fb_warn(fb_ctx *f, const char *step, const cz_error *e)
{
    CZ_LOG(&f->log, CZ_LOG_WARN, "backend", "%s on %s failed (%s); running it on the CPU", step, f->primary->name,
           cz_error_msg(e));
}

static cz_status fb_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                              cz_backend_h_stats *stats, cz_error *err)
{
    fb_ctx *f = be->ctx;
    cz_error pe;
    cz_error_clear(&pe);
    cz_status st = f->primary->ops->compute_h(f->primary, curve, log_n, a, b, c, stats, &pe);
    if (st == CZ_OK) return CZ_OK;
    if (!cz_backend_device_error(st)) return cz_error_set(err, st, "%s", cz_error_msg(&pe));
    fb_warn(f, "the H step (NTTs)", &pe);
    if (stats) memset(stats, 0, sizeof *stats);
    return f->fallback->ops->compute_h(f->fallback, curve, log_n, a, b, c, stats, err);
}

static cz_status fb_msm(cz_backend *be, int group, cz_curve curve, void *out, const void *bases, const void *scalars,
                        size_t n, cz_msm_scalar_form form, cz_error *err)
{
    fb_ctx *f = be->ctx;
    cz_error pe;
    cz_error_clear(&pe);
    cz_backend *p = f->primary, *q = f->fallback;
    cz_status st = group == 1 ? p->ops->msm_g1(p, curve, out, bases, scalars, n, form, &pe)
                              : p->ops->msm_g2(p, curve, out, bases, scalars, n, form, &pe);
    if (st == CZ_OK) return CZ_OK;
    if (!cz_backend_device_error(st)) return cz_error_set(err, st, "%s", cz_error_msg(&pe));
    fb_warn(f, group == 1 ? "a G1 MSM" : "a G2 MSM", &pe);
    return group == 1 ? q->ops->msm_g1(q, curve, out, bases, scalars, n, form, err)
                      : q->ops->msm_g2(q, curve, out, bases, scalars, n, form, err);
}

static cz_status fb_msm_g1(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                           cz_msm_scalar_form form, cz_error *err)
{
    return fb_msm(be, 1, curve, out, bases, scalars, n, form, err);
}

static cz_status fb_msm_g2(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                           cz_msm_scalar_form form, cz_error *err)
{
    return fb_msm(be, 2, curve, out, bases, scalars, n, form, err);
}

static cz_status fb_keep_bases(cz_backend *be, const void *bases, size_t bytes, cz_error *err)
{
    fb_ctx *f = be->ctx;
    if (!f->primary->ops->keep_bases) return CZ_OK;
    return f->primary->ops->keep_bases(f->primary, bases, bytes, err);
}

static void fb_drop_bases(cz_backend *be, const void *bases)
{
    fb_ctx *f = be->ctx;
    if (f->primary->ops->drop_bases) f->primary->ops->drop_bases(f->primary, bases);
}

static const cz_allocator *fb_host_allocator(cz_backend *be)
{
    fb_ctx *f = be->ctx;
    return f->primary->ops->host_allocator ? f->primary->ops->host_allocator(f->primary) : NULL;
}

static cz_status fb_mem_info(cz_backend *be, cz_backend_mem *out, cz_error *err)
{
    fb_ctx *f = be->ctx;
    if (!f->primary->ops->mem_info) {
        memset(out, 0, sizeof *out);
        return cz_error_set(err, CZ_ERR_UNSUPPORTED, "%s reports no device memory", f->primary->name);
    }
    return f->primary->ops->mem_info(f->primary, out, err);
}

static void fb_mem_mark(cz_backend *be)
{
    fb_ctx *f = be->ctx;
    if (f->primary->ops->mem_mark) f->primary->ops->mem_mark(f->primary);
}

static size_t fb_scratch_bytes(cz_backend *be, cz_curve curve, unsigned log_n, size_t n)
{
    fb_ctx *f = be->ctx;
    size_t a = cz_backend_scratch_bytes(f->primary, curve, log_n, n);
    size_t b = cz_backend_scratch_bytes(f->fallback, curve, log_n, n);
    return a > b ? a : b;
}

static void fb_free(cz_backend *be)
{
    fb_ctx *f = be->ctx;
    cz_backend_free(f->primary);
    cz_backend_free(f->fallback);
    free(f);
    free(be);
}

static const cz_backend_ops fb_ops = {
    /* .compute_h      = */ fb_compute_h,
    /* .msm_g1         = */ fb_msm_g1,
    /* .msm_g2         = */ fb_msm_g2,
    /* .keep_bases     = */ fb_keep_bases,
    /* .drop_bases     = */ fb_drop_bases,
    /* .host_allocator = */ fb_host_allocator,
    /* .mem_info       = */ fb_mem_info,
    /* .mem_mark       = */ fb_mem_mark,
    /* .scratch_bytes  = */ fb_scratch_bytes,
    /* .free           = */ fb_free,
};

cz_status cz_backend_fallback_create(cz_backend **out, cz_backend *primary, cz_backend *fallback,
                                     const cz_logger *log, cz_error *err)
{
    *out = NULL;
    if (!primary || !fallback) {
        cz_backend_free(primary);
        cz_backend_free(fallback);
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_backend_fallback_create: a backend is NULL");
    }
    cz_backend *be = calloc(1, sizeof *be);
    fb_ctx *f = calloc(1, sizeof *f);
    if (!be || !f) {
        free(be);
        free(f);
        cz_backend_free(primary);
        cz_backend_free(fallback);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of memory");
    }
    f->primary = primary;
    f->fallback = fallback;
    if (log) f->log = *log;
    be->ops = &fb_ops;
    be->ctx = f;
    be->kind = primary->kind;
    be->gpu = primary->gpu;
    memcpy(be->name, primary->name, sizeof be->name);
    *out = be;
    return CZ_OK;
}

/* ---- selection ---- */

static cz_status cuda_maybe_wrapped(cz_backend **out, int index, const cz_backend_opts *opts, cz_error *err)
{
    cz_status st = cz_backend_cuda_create(out, index, opts, err);
    if (st != CZ_OK || !opts || !opts->fallback) return st;
    cz_backend *cpu = NULL;
    cz_backend_opts co = *opts; /* a GPU window the CPU cannot take: its own choice */
    if (co.msm_window > CZ_MSM_MAX_WINDOW) co.msm_window = 0;
    if ((st = cz_backend_cpu_create(&cpu, &co, err)) != CZ_OK) {
        cz_backend_free(*out);
        *out = NULL;
        return st;
    }
    cz_backend *gpu = *out;
    *out = NULL;
    return cz_backend_fallback_create(out, gpu, cpu, opts->log, err);
}

cz_status cz_backend_create(cz_backend **out, const char *spec, const cz_backend_opts *opts, cz_error *err)
{
    *out = NULL;
    if (spec && strchr(spec, ','))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "device '%s': one device expected here (auto, cpu, cuda or cuda:N)",
                            spec);
    cz_devspec d;
    cz_status st = cz_devspec_parse(&d, spec, 1, cz_backend_gpu_count(), 1, err);
    if (st != CZ_OK) return st;
    if (!d.dev[0].cuda) return cz_backend_cpu_create(out, opts, err);
    cz_error cerr;
    cz_error_clear(&cerr);
    st = cuda_maybe_wrapped(out, d.dev[0].index, opts, &cerr);
    if (st == CZ_OK) return CZ_OK;
    if (!d.is_auto) return cz_error_set(err, st, "%s", cz_error_msg(&cerr));
    /* auto: a GPU that cannot be used gives way to the CPU */
    return cz_backend_cpu_create(out, opts, err);
}
