/*
 * cuda/device.cu: the per-GPU context of cuda/cuda.h — opening a device,
 * mapping CUDA errors to cz_status, the scratch arena, pinned staging
 * buffers and the table of resident bases.
 *
 * DESIGN: a context serves one call at a time (backend/cuda.c holds a lock
 * around each operation). Device memory is taken with plain cudaMalloc and
 * kept: the scratch arena only grows (a proof's MSMs and NTTs reuse it),
 * resident bases stay until released or until a scratch allocation needs
 * their room (then the least recently used go first). Pinned staging
 * buffers are allocated once per context (cudaHostAlloc pins at ~1.8 GB/s,
 * docs/DESIGN.md) and reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.cuh"

extern "C" int cz_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear: no driver is not an error here */
        return 0;
    }
    return n;
}

/* Errors after which the CUDA context cannot be used any more. */
static int is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
        return 1;
    default:
        return 0;
    }
}

cz_status cz_cuda_fail(cz_cuda *ctx, cudaError_t e, cz_error *err, const char *what)
{
    cz_status st = CZ_ERR_CUDA;
    if (e == cudaErrorMemoryAllocation) st = CZ_ERR_DEVICE_MEMORY;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice)
        st = CZ_ERR_NO_DEVICE;
    if (ctx && is_sticky(e)) ctx->sticky = 1;
    (void)cudaGetLastError(); /* clear non-sticky errors so the context stays usable */
    return cz_error_set(err, st, "cuda:%d: %s: %s (%s)", ctx ? ctx->device : -1, what, cudaGetErrorString(e),
                        cudaGetErrorName(e));
}

cz_status cz_cuda_enter(cz_cuda *ctx, cz_error *err)
{
    if (ctx->sticky)
        return cz_error_set(err, CZ_ERR_CUDA, "cuda:%d: the device context failed earlier and cannot be used",
                            ctx->device);
    CZ_CUDA_TRY(ctx, err, cudaSetDevice(ctx->device));
    return CZ_OK;
}

extern "C" cz_status cz_cuda_open(cz_cuda **out, int device, cz_error *err)
{
    *out = NULL;
    int n = cz_cuda_device_count();
    if (n <= 0) return cz_error_set(err, CZ_ERR_NO_DEVICE, "no CUDA device (no GPU, or no driver)");
    if (device < 0 || device >= n)
        return cz_error_set(err, CZ_ERR_NO_DEVICE, "cuda:%d: no such device (%d present)", device, n);
    cz_cuda *ctx = (cz_cuda *)calloc(1, sizeof *ctx);
    if (!ctx) return cz_error_set(err, CZ_ERR_NO_MEMORY, "out of host memory");
    ctx->device = device;
    cz_status st = CZ_OK;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&ctx->prop, device);
    if (e != cudaSuccess) {
        st = cz_cuda_fail(ctx, e, err, "opening the device");
        free(ctx);
        return st;
    }
    if (ctx->prop.major < 7) {
        st = cz_error_set(err, CZ_ERR_NO_DEVICE, "cuda:%d: %s has compute capability %d.%d; cuzk needs 7.0 or newer",
                          device, ctx->prop.name, ctx->prop.major, ctx->prop.minor);
        free(ctx);
        return st;
    }
    e = cudaStreamCreateWithFlags(&ctx->compute, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->h2d, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->aux, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        st = cz_cuda_fail(ctx, e, err, "creating streams");
        cz_cuda_close(ctx);
        return st;
    }
    /* copy threads: half the process's threads (the other half synthesize
     * the next proofs meanwhile), at most 8 (~50 GB/s of memcpy, about the
     * upload's line rate); without them the caller copies alone */
    int ct = cz_get_threads() / 2;
    ctx->copy_pool = cz_pool_create(ct < 1 ? 1 : ct > 8 ? 8 : ct);
    snprintf(ctx->name, sizeof ctx->name, "%s (cc %d.%d, %.0f GiB)", ctx->prop.name, ctx->prop.major,
             ctx->prop.minor, (double)ctx->prop.totalGlobalMem / (1024.0 * 1024 * 1024));
    *out = ctx;
    return CZ_OK;
}

extern "C" void cz_cuda_close(cz_cuda *ctx)
{
    if (!ctx) return;
    cudaSetDevice(ctx->device);
    if (ctx->ntt_state_free) ctx->ntt_state_free(ctx);
    if (ctx->msm_state_free) ctx->msm_state_free(ctx);
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++)
        if (ctx->res[i].dev) cudaFree(ctx->res[i].dev);
    if (ctx->scratch) cudaFree(ctx->scratch);
    for (int i = 0; i < 2; i++)
        if (ctx->pinned[i]) cudaFreeHost(ctx->pinned[i]);
    if (ctx->compute) cudaStreamDestroy(ctx->compute);
    if (ctx->h2d) cudaStreamDestroy(ctx->h2d);
    if (ctx->aux) cudaStreamDestroy(ctx->aux);
    (void)cudaGetLastError();
    cz_pool_free(ctx->copy_pool);
    free(ctx);
}

extern "C" const char *cz_cuda_name(const cz_cuda *ctx) { return ctx ? ctx->name : "none"; }

extern "C" cz_status cz_cuda_set_opts(cz_cuda *ctx, const cz_cuda_opts *o, cz_error *err)
{
    if (!ctx || !o) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_set_opts: NULL argument");
    if (o->msm_window && (o->msm_window < 4 || o->msm_window > 20))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU MSM window %d: expected 4 to 20 (0: automatic)",
                            o->msm_window);
    if (o->msm_run && (o->msm_run < 8 || o->msm_run > ((size_t)1 << 20)))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU MSM run %zu: expected 8 to 2^20 (0: automatic)", o->msm_run);
    if (o->msm_table < CZ_CUDA_TABLE_AUTO || o->msm_table > CZ_CUDA_TABLE_EAGER)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU MSM table mode %d: expected 0 (auto), 1 (off) or 2 (eager)",
                            o->msm_table);
    if (o->ntt_tile < 0 || o->ntt_cols < 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU NTT tile %d / cols %d: expected >= 0", o->ntt_tile,
                            o->ntt_cols);
    ctx->opts = *o;
    return CZ_OK;
}

extern "C" void cz_cuda_set_logger(cz_cuda *ctx, const cz_logger *log)
{
    if (log)
        ctx->log = *log;
    else
        memset(&ctx->log, 0, sizeof ctx->log);
}

extern "C" cz_status cz_cuda_mem_info(cz_cuda *ctx, size_t *total, size_t *free_bytes, size_t *held, cz_error *err)
{
    size_t f = 0, t = 0;
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
    if (e != cudaSuccess) return cz_cuda_fail(ctx, e, err, "cudaMemGetInfo");
    *total = t;
    *free_bytes = f;
    *held = ctx->res_bytes + ctx->scratch_bytes;
    return CZ_OK;
}

void cz_cuda_table_free(cz_cuda *ctx, cz_cuda_resident *r)
{
    if (!r->tab) return;
    cudaFree(r->tab);
    ctx->res_bytes -= r->tab_bytes;
    r->tab = NULL;
    r->tab_bytes = 0;
    r->tab_group = NULL;
    r->tab_c = 0;
}

static void free_slot(cz_cuda *ctx, cz_cuda_resident *r)
{
    cz_cuda_table_free(ctx, r);
    cudaFree(r->dev);
    ctx->res_bytes -= r->bytes;
    memset(r, 0, sizeof *r);
}

/* Frees the least recently used table (an MSM then runs without it) if
 * `tables`, else (or when there is none) the least recently used resident
 * block; 0 when there is nothing to free. A block whose table was evicted
 * does not build it again (tab_failed): the room was needed. */
static int evict_one(cz_cuda *ctx, int tables)
{
    for (; tables >= 0; tables--) {
        int v = -1;
        for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++) {
            const cz_cuda_resident *r = &ctx->res[i];
            if (r->dev && (!tables || r->tab) && (v < 0 || r->last_use < ctx->res[v].last_use)) v = i;
        }
        if (v < 0) continue;
        if (tables) {
            cz_cuda_table_free(ctx, &ctx->res[v]);
            ctx->res[v].tab_failed = 1;
        } else {
            free_slot(ctx, &ctx->res[v]);
        }
        return 1;
    }
    return 0;
}

/* cudaMalloc that makes room by evicting resident bases when allowed. */
static cudaError_t dev_alloc(cz_cuda *ctx, void **p, size_t bytes, int may_evict)
{
    for (;;) {
        cudaError_t e = cudaMalloc(p, bytes);
        if (e == cudaSuccess) return e;
        (void)cudaGetLastError();
        if (e != cudaErrorMemoryAllocation || !may_evict || !evict_one(ctx, 1)) return e;
    }
}

cz_status cz_cuda_scratch(cz_cuda *ctx, size_t bytes, void **out, cz_error *err)
{
    *out = NULL;
    if (bytes == 0) bytes = 256;
    if (bytes > ctx->scratch_bytes) {
        if (ctx->scratch) cudaFree(ctx->scratch);
        ctx->scratch = NULL;
        ctx->scratch_bytes = 0;
        /* round up to 64 MiB so that slightly larger calls reuse it */
        size_t want = (bytes + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
        void *p = NULL;
        cudaError_t e = dev_alloc(ctx, &p, want, 1);
        if (e != cudaSuccess && want > bytes) e = dev_alloc(ctx, &p, want = bytes, 1);
        if (e != cudaSuccess) {
            cz_cuda_fail(ctx, e, err, "allocating scratch memory");
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY, "cuda:%d: cannot allocate %zu MiB of scratch memory",
                                ctx->device, bytes >> 20);
        }
        ctx->scratch = p;
        ctx->scratch_bytes = want;
    }
    *out = ctx->scratch;
    return CZ_OK;
}

cz_status cz_cuda_staging(cz_cuda *ctx, size_t bytes, void *out[2], cz_error *err)
{
    if (bytes > ctx->pinned_bytes) {
        for (int i = 0; i < 2; i++) {
            if (ctx->pinned[i]) cudaFreeHost(ctx->pinned[i]);
            ctx->pinned[i] = NULL;
        }
        ctx->pinned_bytes = 0;
        for (int i = 0; i < 2; i++) CZ_CUDA_TRY(ctx, err, cudaHostAlloc(&ctx->pinned[i], bytes, cudaHostAllocDefault));
        ctx->pinned_bytes = bytes;
    }
    out[0] = ctx->pinned[0];
    out[1] = ctx->pinned[1];
    return CZ_OK;
}

void cz_cuda_host_copy(cz_cuda *ctx, void *dst, const void *src, size_t bytes)
{
    cz_memcpy_parallel(ctx->copy_pool, dst, src, bytes);
}

bool cz_cuda_host_pinned(const void *p, size_t bytes)
{
    if (bytes == 0) return false;
    cudaPointerAttributes a;
    const void *ends[2] = {p, (const char *)p + bytes - 1};
    for (int i = 0; i < 2; i++) {
        if (cudaPointerGetAttributes(&a, ends[i]) != cudaSuccess) {
            (void)cudaGetLastError(); /* older runtimes fail on unregistered memory: not an error */
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

/* the slot whose copy covers host[0, bytes), or -1 */
static int find_slot(cz_cuda *ctx, const void *host, size_t bytes)
{
    const char *h = (const char *)host;
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++) {
        cz_cuda_resident *r = &ctx->res[i];
        if (!r->dev) continue;
        const char *b = (const char *)r->host;
        if (h >= b && h + bytes <= b + r->bytes) return i;
    }
    return -1;
}

/*
 * host -> dev of slot r: one DMA from pinned memory; else in pinned chunks
 * (a pageable cudaMemcpy runs at ~8 GB/s, pinned at ~55), each staged by
 * the copy threads while the previous chunk is on the wire. Returns once
 * the copy is on the device.
 */
static cz_status upload_slot(cz_cuda *ctx, cz_cuda_resident *r, cz_error *err)
{
    const size_t chunk = (size_t)32 << 20, bytes = r->bytes;
    const char *host = (const char *)r->host;
    char *d = (char *)r->dev;
    cz_status st = CZ_OK;
    void *stg[2];
    if (cz_cuda_host_pinned(host, bytes)) {
        cudaError_t ce = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, ctx->h2d);
        if (ce == cudaSuccess) ce = cudaStreamSynchronize(ctx->h2d);
        if (ce != cudaSuccess) st = cz_cuda_fail(ctx, ce, err, "uploading bases");
    } else if ((st = cz_cuda_staging(ctx, chunk, stg, err)) == CZ_OK) {
        cudaEvent_t done[2];
        cudaError_t ce = cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming);
        if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming);
        int k = 0;
        for (size_t off = 0; ce == cudaSuccess && off < bytes; off += chunk, k ^= 1) {
            size_t len = bytes - off < chunk ? bytes - off : chunk;
            ce = cudaEventSynchronize(done[k]); /* the copy that last used this buffer */
            if (ce != cudaSuccess) break;
            cz_cuda_host_copy(ctx, stg[k], host + off, len);
            ce = cudaMemcpyAsync(d + off, stg[k], len, cudaMemcpyHostToDevice, ctx->h2d);
            if (ce == cudaSuccess) ce = cudaEventRecord(done[k], ctx->h2d);
        }
        if (ce == cudaSuccess) ce = cudaStreamSynchronize(ctx->h2d);
        cudaEventDestroy(done[0]);
        cudaEventDestroy(done[1]);
        if (ce != cudaSuccess) st = cz_cuda_fail(ctx, ce, err, "uploading bases");
    }
    if (st == CZ_OK) r->pending = 0;
    return st;
}

/* a pending block copied now; false (dropped, with a warning) when that fails */
static bool copy_pending(cz_cuda *ctx, cz_cuda_resident *r)
{
    if (!r->pending) return true;
    cz_error err;
    cz_error_clear(&err);
    if (upload_slot(ctx, r, &err) == CZ_OK) return true;
    CZ_LOG(&ctx->log, CZ_LOG_WARN, "cuda", "%s; the bases will be streamed", cz_error_msg(&err));
    free_slot(ctx, r);
    return false;
}

cz_cuda_resident *cz_cuda_bases_slot(cz_cuda *ctx, const void *host, size_t bytes)
{
    int i = find_slot(ctx, host, bytes);
    return i < 0 || ctx->res[i].pending ? NULL : &ctx->res[i];
}

cz_status cz_cuda_table_alloc(cz_cuda *ctx, cz_cuda_resident *r, size_t bytes, size_t headroom, cz_error *err)
{
    cz_cuda_table_free(ctx, r);
    size_t f = 0, t = 0;
    CZ_CUDA_TRY(ctx, err, cudaMemGetInfo(&f, &t));
    if (f < bytes || f - bytes < headroom)
        return cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                            "cuda:%d: a table of %zu MiB does not fit (%zu MiB free, %zu MiB kept free)", ctx->device,
                            bytes >> 20, f >> 20, headroom >> 20);
    void *p = NULL;
    cudaError_t e = dev_alloc(ctx, &p, bytes, 0);
    if (e != cudaSuccess) return cz_cuda_fail(ctx, e, err, "allocating an MSM table");
    r->tab = p;
    r->tab_bytes = bytes;
    ctx->res_bytes += bytes;
    return CZ_OK;
}

const void *cz_cuda_bases_lookup(cz_cuda *ctx, const void *host, size_t bytes)
{
    int i = find_slot(ctx, host, bytes);
    if (i < 0) return NULL;
    cz_cuda_resident *r = &ctx->res[i];
    if (!copy_pending(ctx, r)) return NULL;
    r->last_use = ++ctx->tick;
    return (const char *)r->dev + ((const char *)host - (const char *)r->host);
}

void cz_cuda_bases_flush(cz_cuda *ctx)
{
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++)
        if (ctx->res[i].dev) (void)copy_pending(ctx, &ctx->res[i]);
}

bool cz_cuda_bases_fill(cz_cuda *ctx, const void *host, size_t bytes, const void *dev)
{
    const char *h = (const char *)host;
    bool filled = false;
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++) {
        cz_cuda_resident *r = &ctx->res[i];
        if (!r->dev) continue;
        const char *b = (const char *)r->host;
        if (b == h && r->bytes == bytes && !filled) {
            cz_cuda_table_free(ctx, r); /* multiples of what the block held */
            cudaError_t e = cudaMemcpyAsync(r->dev, dev, bytes, cudaMemcpyDeviceToDevice, ctx->compute);
            if (e == cudaSuccess) {
                r->pending = 0;
                filled = true;
                continue;
            }
            cz_error err;
            cz_error_clear(&err);
            cz_cuda_fail(ctx, e, &err, "copying a result into a resident block");
            CZ_LOG(&ctx->log, CZ_LOG_WARN, "cuda", "%s; it will be streamed", cz_error_msg(&err));
            free_slot(ctx, r);
        } else if (b < h + bytes && h < b + r->bytes) {
            free_slot(ctx, r); /* overlaps memory that is about to change: stale */
        }
    }
    return filled;
}

static cz_status bases_pin(cz_cuda *ctx, const void *host, size_t bytes, bool later, cz_error *err)
{
    cz_status st = cz_cuda_enter(ctx, err);
    if (st != CZ_OK) return st;
    int have = find_slot(ctx, host, bytes);
    if (have >= 0) {
        cz_cuda_resident *r = &ctx->res[have];
        r->last_use = ++ctx->tick;
        if (later || !r->pending) return CZ_OK;
        if ((st = upload_slot(ctx, r, err)) != CZ_OK) free_slot(ctx, r);
        return st;
    }
    int slot = -1;
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT && slot < 0; i++)
        if (!ctx->res[i].dev) slot = i;
    if (slot < 0) {
        evict_one(ctx, 0); /* a slot, not a table */
        for (int i = 0; i < CZ_CUDA_MAX_RESIDENT && slot < 0; i++)
            if (!ctx->res[i].dev) slot = i;
    }
    /* leave room for the working set: the scratch arena is kept, resident
     * bases never evict each other here (a key that does not fit streams) */
    void *d = NULL;
    cudaError_t e = dev_alloc(ctx, &d, bytes, 0);
    if (e != cudaSuccess) {
        cz_cuda_fail(ctx, e, err, "allocating resident bases");
        return cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                            "cuda:%d: %zu MiB of bases do not fit in VRAM (%zu MiB resident); they will be streamed",
                            ctx->device, bytes >> 20, ctx->res_bytes >> 20);
    }
    cz_cuda_resident *r = &ctx->res[slot];
    r->host = host;
    r->bytes = bytes;
    r->dev = d;
    r->pending = 1;
    r->last_use = ++ctx->tick;
    ctx->res_bytes += bytes;
    if (later) return CZ_OK;
    if ((st = upload_slot(ctx, r, err)) != CZ_OK) free_slot(ctx, r);
    return st;
}

extern "C" cz_status cz_cuda_bases_pin(cz_cuda *ctx, const void *host, size_t bytes, cz_error *err)
{
    return bases_pin(ctx, host, bytes, false, err);
}

extern "C" cz_status cz_cuda_bases_pin_later(cz_cuda *ctx, const void *host, size_t bytes, cz_error *err)
{
    return bases_pin(ctx, host, bytes, true, err);
}

extern "C" void cz_cuda_bases_release(cz_cuda *ctx, const void *host)
{
    for (int i = 0; i < CZ_CUDA_MAX_RESIDENT; i++) {
        if (ctx->res[i].dev && ctx->res[i].host == host) {
            cudaSetDevice(ctx->device);
            free_slot(ctx, &ctx->res[i]);
        }
    }
}

extern "C" size_t cz_cuda_bases_resident(const cz_cuda *ctx) { return ctx ? ctx->res_bytes : 0; }

extern "C" void *cz_cuda_host_alloc(cz_cuda *ctx, size_t bytes)
{
    if (!ctx || !bytes) return NULL;
    cz_error err;
    if (cz_cuda_enter(ctx, &err) != CZ_OK) return NULL;
    void *p = NULL;
    /* portable: page-locked for every GPU's context, not just ctx's (the
     * engine's one pool feeds several GPUs) */
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: the caller takes pageable memory */
        return NULL;
    }
    return p;
}

extern "C" void cz_cuda_host_free(cz_cuda *ctx, void *p)
{
    if (!ctx || !p) return;
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}
