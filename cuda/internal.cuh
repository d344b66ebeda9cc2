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
#include "util/thread.h"

/* One resident copy of host bases. */
typedef struct cz_cuda_resident {
    const void *host;
    size_t bytes;
    void *dev;
    uint64_t last_use; /* ctx->tick at the last lookup (least recently used goes first) */
    int pending;       /* allocated, not copied yet (cz_cuda_bases_pin_later) */
    /* the MSM's table of multiples of these bases (cuda/msm.cu, msm.cuh
     * table_fn): the windows of tab_c bits, window w of point i at
     * tab[w * (bytes / point size) + i]; device.cu only owns the memory
     * (cz_cuda_table_alloc / _free, counted in res_bytes, freed before any
     * block when VRAM runs short, dropped when the block's content changes) */
    void *tab;
    size_t tab_bytes;
    const char *tab_group; /* the group it was built for (a static name) */
    int tab_c;
    unsigned tab_wants;    /* MSM calls that would have used a table (msm.cu builds on the 2nd) */
    int tab_failed;        /* a build failed or did not fit: not tried again for this block */
} cz_cuda_resident;

#define CZ_CUDA_MAX_RESIDENT 32

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
    /* pinned host staging buffers (double-buffered streamed uploads) */
    void *pinned[2];
    size_t pinned_bytes;
    cz_pool *copy_pool; /* threads of the copies into and out of them (cz_cuda_host_copy) */
    cz_cuda_resident res[CZ_CUDA_MAX_RESIDENT];
    size_t res_bytes;
    uint64_t tick;
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

/* Pinned host staging buffers of at least `bytes` each (two of them). */
cz_status cz_cuda_staging(cz_cuda *ctx, size_t bytes, void *out[2], cz_error *err);

/* The device copy of host bases if [host, host + bytes) lies inside a
 * resident block, else NULL. A block still pending (cz_cuda_bases_pin_later)
 * is copied first; if that copy fails it is dropped (a warning on the
 * context's logger) and NULL returned: the caller streams. */
const void *cz_cuda_bases_lookup(cz_cuda *ctx, const void *host, size_t bytes);
/* The resident block whose copy covers host[0, bytes) (as looked up by
 * cz_cuda_bases_lookup, which must have returned non-NULL), or NULL. */
cz_cuda_resident *cz_cuda_bases_slot(cz_cuda *ctx, const void *host, size_t bytes);
/* Device memory for r's table: CZ_OK when cudaMalloc gave `bytes` and at
 * least `headroom` bytes of VRAM stay free after it (resident blocks are
 * never evicted for a table); CZ_ERR_DEVICE_MEMORY otherwise. */
cz_status cz_cuda_table_alloc(cz_cuda *ctx, cz_cuda_resident *r, size_t bytes, size_t headroom, cz_error *err);
/* Frees r's table (if any); the block stays. */
void cz_cuda_table_free(cz_cuda *ctx, cz_cuda_resident *r);

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
