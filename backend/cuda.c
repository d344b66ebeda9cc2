/*
 * The CUDA backend: the operations of backend/backend.h on one GPU through
 * cuda/cuda.h.
 *
 * DESIGN: a lock serialises calls on the GPU context (one call at a time per
 * device; the engine runs one worker per GPU anyway). A failing operation
 * returns its device error and leaves its inputs as they were, as
 * backend.h requires of a primary under the fallback wrapper: compute_h
 * clobbers its inputs, so cz_cuda_compute_h leaves the host arrays
 * untouched until its final copy-out, which is the last thing it does. The
 * CPU fallback is not here: cz_backend_fallback_create composes it.
 *
 * Compiled in every build; without CZ_HAVE_CUDA it is empty (backend.c then
 * reports that the build has no CUDA backend).
 */
#ifdef CZ_HAVE_CUDA

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuda/cuda.h"

/* pinned buffers handed out by host_allocator (to tell them from the
 * ordinary memory of its fallback at free) */
#define HOST_PINNED_MAX 64

typedef struct {
    cz_cuda *gpu;
    pthread_mutex_t lock;
    cz_logger log;
    pthread_mutex_t hlock; /* pinned[] */
    void *pinned[HOST_PINNED_MAX];
    int pin_warned;
    cz_allocator halloc;
} cuda_ctx;

static cz_status cuda_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                                cz_backend_h_stats *stats, cz_error *err)
{
    cuda_ctx *cx = be->ctx;
    if (stats) memset(stats, 0, sizeof *stats);
    pthread_mutex_lock(&cx->lock);
    cz_status st = cz_cuda_compute_h(cx->gpu, curve, log_n, a, b, c, err);
    if (st == CZ_OK && stats) cz_cuda_last_upload(cx->gpu, &stats->h2d_bytes, &stats->h2d_s);
    pthread_mutex_unlock(&cx->lock);
    return st;
}

static cz_status cuda_msm(cz_backend *be, int group, cz_curve curve, void *out, const void *bases,
                          const void *scalars, size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cuda_ctx *cx = be->ctx;
    pthread_mutex_lock(&cx->lock);
    cz_status st = group == 1 ? cz_cuda_msm_g1(cx->gpu, curve, out, bases, scalars, n, form, err)
                              : cz_cuda_msm_g2(cx->gpu, curve, out, bases, scalars, n, form, err);
    pthread_mutex_unlock(&cx->lock);
    return st;
}

static cz_status cuda_msm_g1(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                             size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return cuda_msm(be, 1, curve, out, bases, scalars, n, form, err);
}

static cz_status cuda_msm_g2(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars,
                             size_t n, cz_msm_scalar_form form, cz_error *err)
{
    return cuda_msm(be, 2, curve, out, bases, scalars, n, form, err);
}

static cz_status cuda_keep_bases(cz_backend *be, const void *bases, size_t bytes, cz_error *err)
{
    cuda_ctx *cx = be->ctx;
    pthread_mutex_lock(&cx->lock);
    cz_status st = cz_cuda_bases_pin_later(cx->gpu, bases, bytes, err); /* copied behind the next H step's kernels */
    pthread_mutex_unlock(&cx->lock);
    return st;
}

static void cuda_drop_bases(cz_backend *be, const void *bases)
{
    cuda_ctx *cx = be->ctx;
    pthread_mutex_lock(&cx->lock);
    cz_cuda_bases_release(cx->gpu, bases);
    pthread_mutex_unlock(&cx->lock);
}

/*
 * host_allocator: page-locked memory, each allocation pinned anew (the
 * engine's pool, mem/bufpool.h, keeps and reuses the buffers, counted in
 * its memory budget). When pinning fails: ordinary memory, one warning on
 * the logger; a table tells the two kinds apart at free.
 */
static void *host_alloc(void *c, size_t bytes)
{
    cuda_ctx *cx = c;
    if (!bytes) return NULL;
    void *p = cz_cuda_host_alloc(cx->gpu, bytes);
    pthread_mutex_lock(&cx->hlock);
    if (p) {
        int slot = -1;
        for (int i = 0; i < HOST_PINNED_MAX && slot < 0; i++)
            if (!cx->pinned[i]) slot = i;
        if (slot >= 0) {
            cx->pinned[slot] = p;
        } else { /* table full: ordinary memory instead */
            cz_cuda_host_free(cx->gpu, p);
            p = NULL;
        }
    }
    if (!p) {
        if (!cx->pin_warned)
            CZ_LOG(&cx->log, CZ_LOG_WARN, "cuda",
                   "cannot pin %zu MiB of host memory on %s; using pageable memory (slower uploads)", bytes >> 20,
                   cz_cuda_name(cx->gpu));
        cx->pin_warned = 1;
        p = cz_alloc(NULL, bytes);
    }
    pthread_mutex_unlock(&cx->hlock);
    return p;
}

static void host_free(void *c, void *p, size_t bytes)
{
    cuda_ctx *cx = c;
    if (!p) return;
    pthread_mutex_lock(&cx->hlock);
    for (int i = 0; i < HOST_PINNED_MAX; i++) {
        if (cx->pinned[i] == p) {
            cz_cuda_host_free(cx->gpu, p);
            cx->pinned[i] = NULL;
            pthread_mutex_unlock(&cx->hlock);
            return;
        }
    }
    pthread_mutex_unlock(&cx->hlock);
    cz_free(NULL, p, bytes); /* ordinary memory */
}

static cz_status cuda_mem_info(cz_backend *be, cz_backend_mem *out, cz_error *err)
{
    cuda_ctx *cx = be->ctx;
    pthread_mutex_lock(&cx->lock);
    cz_status st = cz_cuda_mem_info(cx->gpu, &out->total, &out->free, &out->resident, &out->scratch, err);
    out->asked = cz_cuda_scratch_asked(cx->gpu);
    pthread_mutex_unlock(&cx->lock);
    return st;
}

static void cuda_mem_mark(cz_backend *be)
{
    cuda_ctx *cx = be->ctx;
    pthread_mutex_lock(&cx->lock);
    cz_cuda_scratch_mark(cx->gpu);
    pthread_mutex_unlock(&cx->lock);
}

static const cz_allocator *cuda_host_allocator(cz_backend *be)
{
    cuda_ctx *cx = be->ctx;
    return &cx->halloc;
}

static void cuda_free(cz_backend *be)
{
    cuda_ctx *cx = be->ctx;
    for (int i = 0; i < HOST_PINNED_MAX; i++)
        if (cx->pinned[i]) cz_cuda_host_free(cx->gpu, cx->pinned[i]);
    pthread_mutex_destroy(&cx->hlock);
    cz_cuda_close(cx->gpu);
    pthread_mutex_destroy(&cx->lock);
    free(cx);
    free(be);
}

static const cz_backend_ops cuda_ops = {
    /* .compute_h  = */ cuda_compute_h,
    /* .msm_g1     = */ cuda_msm_g1,
    /* .msm_g2     = */ cuda_msm_g2,
    /* .keep_bases = */ cuda_keep_bases,
    /* .drop_bases = */ cuda_drop_bases,
    /* .host_allocator = */ cuda_host_allocator,
    /* .mem_info   = */ cuda_mem_info,
    /* .mem_mark   = */ cuda_mem_mark,
    /* .scratch_bytes = */ NULL, /* host temporaries only: small */
    /* .free       = */ cuda_free,
};

cz_status cz_backend_cuda_create(cz_backend **out, int device, const cz_backend_opts *opts, cz_error *err)
{
    *out = NULL;
    cz_backend *be = calloc(1, sizeof *be);
    cuda_ctx *cx = calloc(1, sizeof *cx);
    if (!be || !cx) {
        free(be);
        free(cx);
        return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of host memory");
    }
    cz_status st = cz_cuda_open(&cx->gpu, device, err);
    if (st == CZ_OK && opts) {
        cz_cuda_opts co;
        memset(&co, 0, sizeof co);
        co.msm_window = opts->msm_window;
        co.msm_run = opts->msm_run;
        co.msm_chunk = opts->msm_chunk;
        co.msm_table = opts->msm_table;
        co.msm_table_windows = opts->msm_table_windows;
        co.ntt_simple = opts->ntt_simple;
        co.ntt_tile = opts->ntt_tile;
        co.ntt_cols = opts->ntt_cols;
        co.msm_trace = opts->log && cz_log_enabled(opts->log, CZ_LOG_DEBUG) && opts->msm_trace;
        st = cz_cuda_set_opts(cx->gpu, &co, err);
        if (opts->log) {
            cx->log = *opts->log;
            cz_cuda_set_logger(cx->gpu, opts->log);
        }
    }
    if (st != CZ_OK) {
        cz_cuda_close(cx->gpu);
        free(cx);
        free(be);
        return st;
    }
    pthread_mutex_init(&cx->lock, NULL);
    pthread_mutex_init(&cx->hlock, NULL);
    cx->halloc.alloc = host_alloc;
    cx->halloc.free = host_free;
    cx->halloc.ctx = cx;
    be->ops = &cuda_ops;
    be->ctx = cx;
    be->kind = CZ_BACKEND_CUDA;
    be->gpu = device;
    snprintf(be->name, sizeof be->name, "cuda:%d %s", device, cz_cuda_name(cx->gpu));
    *out = be;
    return CZ_OK;
}

#else
typedef int cz_backend_cuda_unused_; /* ISO C: a translation unit is not empty */
#endif
