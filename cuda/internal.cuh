/*
 * cuda/internal.cuh: what the .cu files of cuda/ share (not a public header).
 *
 * The context (struct cz_cuda), CUDA error -> cz_status mapping, the scratch
 * arena and the resident-bases lookup. Implemented in cuda/device.cu.
 */
#ifndef CZ_CUDA_INTERNAL_CUH
#define CZ_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

#include "cuda/cuda.h"
#include "mem/resident.h"
#include "util/thread.h"

struct cz_cuda {
    int device;
    cudaDeviceProp prop;
    char name[128];
    cudaStream_t compute; /* kernels and D2H of results */
    cudaStream_t h2d;     /* uploads that overlap the kernels */
    cudaStream_t aux;     /* kernels of a call that run beside its compute ones (the MSM's sum of the ones) */
    /* scratch arena: one device block reused by every call, grown on demand */
    void *scratch;
    size_t scratch_bytes;
    size_t scratch_asked; /* the largest request since cz_cuda_scratch_mark */
    size_t spare_failed;  /* the smallest block with a spare that did not fit (0: none; cz_cuda_scratch_spare) */
    size_t spare_free;    /* the device's free bytes then */
    /* pinned host staging buffers (double-buffered streamed uploads) */
    void *pinned[2];
    size_t pinned_bytes;
    cz_pool *copy_pool; /* threads of the copies into and out of them (cz_cuda_host_copy) */
    /* resident bases and their MSM tables: the device's store, of which
     * this context is a lane (mem/resident.h: contexts on one GPU share
     * the copies of what they both pin, such as a key's point sections) */
    cz_resident *store;
    int lane;
    int sticky; /* a sticky CUDA error happened: the context is dead */
    cz_cuda_opts opts; /* cz_cuda_set_opts */
    cz_logger log;     /* cz_cuda_set_logger */
    /* per-module caches (twiddle tables, MSM plans...): owned by cuda/ntt.cu
     * and cuda/msm.cu, freed by cz_cuda_close through the hook if set */
    void *ntt_state;
    void (*ntt_state_free)(cz_cuda *ctx);
    void *msm_state;
    void (*msm_state_free)(cz_cuda *ctx);
};

/* Maps e (!= cudaSuccess) to a status and records "what: cuda error text" in
 * err; a sticky error marks the context dead. Returns the status. */
cz_status cz_cuda_fail(cz_cuda *ctx, cudaError_t e, cz_error *err, const char *what);

/* CZ_CUDA_TRY(ctx, err, call): returns the mapped status from the calling
 * function when call fails. */
#define CZ_CUDA_TRY(ctx, err, call)                                                                \
    do {                                                                                           \
        cudaError_t cz_e_ = (call);                                                                \
        if (cz_e_ != cudaSuccess) return cz_cuda_fail((ctx), cz_e_, (err), #call);                 \
    } while (0)

/* memcpy between host buffers on the context's copy threads: the staging of
 * pageable memory (one thread's ~10 GB/s would hold a 55 GB/s upload back). */
void cz_cuda_host_copy(cz_cuda *ctx, void *dst, const void *src, size_t bytes);
/* Whether [p, p + bytes) lies in page-locked host memory (both ends are
 * checked; copies from it need no staging). */
bool cz_cuda_host_pinned(const void *p, size_t bytes);

/* Makes ctx current on the calling thread; CZ_ERR_CUDA on a dead context. */
cz_status cz_cuda_enter(cz_cuda *ctx, cz_error *err);

/* A device block of at least `bytes` from the context's scratch arena (valid
 * until the next call of this function on ctx; one user at a time, as the
 * context serves one call at a time). */
cz_status cz_cuda_scratch(cz_cuda *ctx, size_t bytes, void **out, cz_error *err);
/* The same, with up to `spare` bytes more after the `bytes` where the
 * device has room for them without evicting anything (an optional region:
 * *got is how many of them the block has, 0..spare). */
cz_status cz_cuda_scratch_spare(cz_cuda *ctx, size_t bytes, size_t spare, void **out, size_t *got, cz_error *err);

/* Pinned host staging buffers of at least `bytes` each (two of them). */
cz_status cz_cuda_staging(cz_cuda *ctx, size_t bytes, void *out[2], cz_error *err);

/* The device copy of host bases if [host, host + bytes) lies inside a
 * block this context keeps, else NULL. A block still pending
 * (cz_cuda_bases_pin_later) is copied first; if that copy fails it is
 * dropped (a warning on the context's logger) and NULL returned: the caller
 * streams. The block is busy until cz_cuda_call_done (no other context
 * evicts it or its table meanwhile); *blk and *view (may be NULL) get its
 * handle and a snapshot (its range, its published table: mem/resident.h). */
const void *cz_cuda_bases_lookup(cz_cuda *ctx, const void *host, size_t bytes, cz_res_block **blk,
                                 cz_res_view *view);
/* The end of a call on ctx: what it looked up may be evicted again. */
void cz_cuda_call_done(cz_cuda *ctx);

/* Copies every pending block (cz_cuda_compute_h calls it once its kernels
 * are queued, so the copies overlap them); a block whose copy fails is
 * dropped as in cz_cuda_bases_lookup. */
void cz_cuda_bases_flush(cz_cuda *ctx);
/* Host memory [host, host + bytes) is about to receive what the device
 * holds at dev (a result on its way down): a block kept over exactly that
 * range gets its copy from dev instead (queued on ctx->compute, no longer
 * pending); true if there was one. Blocks that only overlap the range are
 * dropped (stale). A caller whose copy-out then fails releases the block. */
bool cz_cuda_bases_fill(cz_cuda *ctx, const void *host, size_t bytes, const void *dev);

#endif
