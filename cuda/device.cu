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
 * docs/DESIGN.md) and reused. Resident bases live in the device's store
 * (mem/resident.h), of which each context on the GPU is a lane: two
 * contexts on one GPU (the engine's `cuda:0,0`) keep one copy of a key
 * both pin, and one table of its multiples; this file gives the store its
 * device memory (cudaMalloc) and each lane its copies (its own streams).
 */
#include <stdint.h>
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

/* The device memory of the store (mem/resident.h): ctx is the GPU index. */
static cz_status store_alloc(void *c, void **p, size_t bytes, cz_error *err)
{
    const int device = (int)(intptr_t)c;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) return CZ_OK;
    *p = NULL;
    (void)cudaGetLastError();
    return cz_error_set(err, e == cudaErrorMemoryAllocation ? CZ_ERR_DEVICE_MEMORY : CZ_ERR_CUDA,
                        "cuda:%d: cudaMalloc of %zu MiB: %s", device, bytes >> 20, cudaGetErrorString(e));
}

static void store_free(void *c, void *p)
{
    cudaSetDevice((int)(intptr_t)c);
    if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
}

static size_t store_free_bytes(void *c)
{
    size_t f = 0, t = 0;
    if (cudaSetDevice((int)(intptr_t)c) != cudaSuccess || cudaMemGetInfo(&f, &t) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return f;
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
    static const cz_resident_dev store_ops = {NULL, store_alloc, store_free, store_free_bytes};
    cz_resident_dev ops = store_ops;
    ops.ctx = (void *)(intptr_t)device; /* outlives every context: the store may */
    if ((st = cz_resident_open(&ctx->store, device, &ops, &ctx->lane, err)) != CZ_OK) {
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
    if (ctx->store) cz_resident_close(ctx->store, ctx->lane); /* what only this context kept */
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
    if (o->msm_l1 < CZ_CUDA_L1_DEFAULT || o->msm_l1 > CZ_CUDA_L1_MIN)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU MSM L1 split %d: expected 0 (driver), 1 (most L1) or 2 (least)",
                            o->msm_l1);
    if (o->msm_table < CZ_CUDA_TABLE_AUTO || o->msm_table > CZ_CUDA_TABLE_EAGER)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU MSM table mode %d: expected 0 (auto), 1 (off) or 2 (eager)",
                            o->msm_table);
    if (o->msm_table_windows && (o->msm_table_windows < 2 || o->msm_table_windows > 64))
        return cz_error_set(err, CZ_ERR_INVALID_ARG,
                            "GPU MSM table windows %d: expected 2 to 64 (0: whole tables only)", o->msm_table_windows);
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

extern "C" cz_status cz_cuda_mem_info(cz_cuda *ctx, size_t *total, size_t *free_bytes, size_t *held, size_t *scratch,
                                     cz_error *err)
{
    size_t f = 0, t = 0;
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e == cudaSuccess) e = cudaMemGetInfo(&f, &t);
    if (e != cudaSuccess) return cz_cuda_fail(ctx, e, err, "cudaMemGetInfo");
    *total = t;
    *free_bytes = f;
    *held = cz_resident_bytes(ctx->store) + ctx->scratch_bytes; /* blocks shared with other contexts included */
    *scratch = ctx->scratch_bytes;
    return CZ_OK;
}

extern "C" size_t cz_cuda_scratch_asked(const cz_cuda *ctx) { return ctx->scratch_asked; }
extern "C" void cz_cuda_scratch_mark(cz_cuda *ctx) { ctx->scratch_asked = 0; }

cz_status cz_cuda_scratch(cz_cuda *ctx, size_t bytes, void **out, cz_error *err)
{
    size_t got;
    return cz_cuda_scratch_spare(ctx, bytes, 0, out, &got, err);
}

/* the scratch given back (before a larger one is taken) */
static void scratch_drop(cz_cuda *ctx)
{
    if (ctx->scratch) cudaFree(ctx->scratch);
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
}

/* bytes rounded up to 64 MiB, so that slightly larger calls reuse the scratch */
static size_t scratch_round(size_t bytes) { return (bytes + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1); }

cz_status cz_cuda_scratch_spare(cz_cuda *ctx, size_t bytes, size_t spare, void **out, size_t *got, cz_error *err)
{
    *out = NULL;
    *got = 0;
    if (bytes == 0) bytes = 256;
    if (bytes > ctx->scratch_asked) ctx->scratch_asked = bytes;
    const size_t total = bytes + spare;
    size_t f = 0;
    if (spare && total > ctx->scratch_bytes &&
        (f = store_free_bytes((void *)(intptr_t)ctx->device)) + ctx->scratch_bytes >= total &&
        (!ctx->spare_failed || total < ctx->spare_failed || f > ctx->spare_free)) {
        /* the spare only where the device has room for it as it is: free
         * memory enough with the scratch given back, and no eviction (a
         * block that did not fit anyway is tried again only once more memory
         * is free than then: each try frees the scratch, and cudaFree waits
         * for the whole device) */
        scratch_drop(ctx);
        const size_t tries[2] = {scratch_round(total), total};
        for (int i = 0; i < 2 && !ctx->scratch; i++) {
            void *p = NULL;
            cz_error aerr;
            cz_error_clear(&aerr);
            if (cz_resident_alloc(ctx->store, ctx->lane, &p, tries[i], 0, &aerr) == CZ_OK) {
                ctx->scratch = p;
                ctx->scratch_bytes = tries[i];
            }
        }
        if (!ctx->scratch) {
            ctx->spare_failed = total;
            ctx->spare_free = f;
        }
    }
    if (bytes > ctx->scratch_bytes) {
        scratch_drop(ctx);
        size_t want = scratch_round(bytes);
        void *p = NULL;
        /* resident blocks and tables are evicted for what the call needs,
         * never for the rounding */
        cz_error aerr;
        cz_error_clear(&aerr);
        cz_status st = cz_resident_alloc(ctx->store, ctx->lane, &p, want, 0, &aerr);
        for (int evict = 0; st != CZ_OK && evict < 2; evict++) {
            cz_error_clear(&aerr);
            st = cz_resident_alloc(ctx->store, ctx->lane, &p, want = bytes, evict, &aerr);
        }
        if (st != CZ_OK)
            return cz_error_set(err, st, "cuda:%d: cannot allocate %zu MiB of scratch memory (%s)", ctx->device,
                                bytes >> 20, cz_error_msg(&aerr));
        ctx->scratch = p;
        ctx->scratch_bytes = want;
    }
    *out = ctx->scratch;
    *got = ctx->scratch_bytes - bytes < spare ? ctx->scratch_bytes - bytes : spare;
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

/*
 * host -> dev (a resident block's copy, the store's copy callback, on the
 * lane's h2d stream): one DMA from pinned memory; else in pinned chunks
 * (a pageable cudaMemcpy runs at ~8 GB/s, pinned at ~55), each staged by
 * the copy threads while the previous chunk is on the wire. Returns once
 * the copy is on the device.
 */
static cz_status upload_block(void *c, void *dev, const void *hostp, size_t bytes, cz_error *err)
{
    cz_cuda *ctx = (cz_cuda *)c;
    const size_t chunk = (size_t)32 << 20;
    const char *host = (const char *)hostp;
    char *d = (char *)dev;
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
    return st;
}

const void *cz_cuda_bases_lookup(cz_cuda *ctx, const void *host, size_t bytes, cz_res_block **blk,
                                 cz_res_view *view)
{
    cz_error err;
    cz_error_clear(&err);
    const void *d = cz_resident_lookup(ctx->store, ctx->lane, host, bytes, upload_block, ctx, blk, view, &err);
    if (!d && err.status != CZ_OK)
        CZ_LOG(&ctx->log, CZ_LOG_WARN, "cuda", "%s; the bases will be streamed", cz_error_msg(&err));
    return d;
}

void cz_cuda_call_done(cz_cuda *ctx) { cz_resident_idle(ctx->store, ctx->lane); }

void cz_cuda_bases_flush(cz_cuda *ctx)
{
    cz_error err;
    cz_error_clear(&err);
    if (cz_resident_flush(ctx->store, ctx->lane, upload_block, ctx, &err))
        CZ_LOG(&ctx->log, CZ_LOG_WARN, "cuda", "%s; the bases will be streamed", cz_error_msg(&err));
}

/* the store's fill callback: the lane's result copied into the block */
struct fill_src {
    cz_cuda *ctx;
    const void *dev;
    size_t bytes;
};

static cz_status fill_block(void *f, void *block_dev, cz_error *err)
{
    const fill_src *fs = (const fill_src *)f;
    cudaError_t e = cudaMemcpyAsync(block_dev, fs->dev, fs->bytes, cudaMemcpyDeviceToDevice, fs->ctx->compute);
    if (e != cudaSuccess) return cz_cuda_fail(fs->ctx, e, err, "copying a result into a resident block");
    return CZ_OK;
}

bool cz_cuda_bases_fill(cz_cuda *ctx, const void *host, size_t bytes, const void *dev)
{
    fill_src fs = {ctx, dev, bytes};
    cz_error err;
    cz_error_clear(&err);
    const int filled = cz_resident_fill(ctx->store, ctx->lane, host, bytes, fill_block, &fs, &err);
    if (err.status != CZ_OK) CZ_LOG(&ctx->log, CZ_LOG_WARN, "cuda", "%s; it will be streamed", cz_error_msg(&err));
    return filled != 0;
}

static cz_status bases_pin(cz_cuda *ctx, const void *host, size_t bytes, bool later, cz_error *err)
{
    cz_status st = cz_cuda_enter(ctx, err);
    if (st != CZ_OK) return st;
    /* a block that does not fit is refused: resident bases never evict each
     * other here, and the scratch arena is kept (the working set's room) */
    return cz_resident_pin(ctx->store, ctx->lane, host, bytes, later ? 1 : 0, upload_block, ctx, err);
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
    cudaSetDevice(ctx->device);
    cz_resident_release(ctx->store, ctx->lane, host);
}

extern "C" size_t cz_cuda_bases_resident(const cz_cuda *ctx) { return ctx ? cz_resident_bytes(ctx->store) : 0; }

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
