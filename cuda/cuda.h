/*
 * cuda/cuda.h: the contract between the host code (backend/cuda.c) and the
 * CUDA layer (the .cu files of cuda/). Plain C: the rest of cuzk never includes a CUDA
 * header; builds without nvcc have no cuda/ objects and backend/backend.c
 * does not reference these symbols (CZ_HAVE_CUDA undefined).
 *
 * DESIGN: one cz_cuda context per GPU (cuda/device.cu) owns the device, two
 * streams (compute, and h2d for uploads that overlap it), a scratch arena
 * that grows and is reused across calls, and the table of resident bases
 * (proving-key point sections kept in VRAM across proofs, keyed by the host
 * pointer and length they were uploaded from). The operations take host
 * memory in the layouts of ff/ and ec/ (see backend/backend.h) and return
 * results in host memory; all device detail stays inside.
 *
 * Errors: every CUDA failure becomes a cz_status (CZ_ERR_NO_DEVICE,
 * CZ_ERR_DEVICE_MEMORY when an allocation fails, CZ_ERR_CUDA otherwise) with
 * the CUDA error text in err; nothing aborts. A failed call leaves the
 * context usable (sticky errors excepted: then every later call fails with
 * CZ_ERR_CUDA and the caller falls back to the CPU).
 */
#ifndef CZ_CUDA_CUDA_H
#define CZ_CUDA_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "msm/msm.h"
#include "util/error.h"
#include "util/log.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_cuda cz_cuda;

/* Number of usable CUDA devices (0 when there is no driver or no GPU). */
int cz_cuda_device_count(void);

/* Opens GPU `device` (0-based). CZ_ERR_NO_DEVICE when it does not exist or
 * cannot be used (no driver, compute capability below 7.0). */
cz_status cz_cuda_open(cz_cuda **out, int device, cz_error *err);
void cz_cuda_close(cz_cuda *ctx);
/* "NVIDIA H200 (cc 9.0, 139 GiB)" */
const char *cz_cuda_name(const cz_cuda *ctx);

/* Tuning of the kernels (0 everywhere: automatic). Values out of a knob's
 * range are refused by cz_cuda_set_opts (CZ_ERR_INVALID_ARG naming it). */
typedef struct cz_cuda_opts {
    int msm_window;   /* MSM window c (4..C_MAX of cuda/msm.cuh) */
    size_t msm_run;   /* level-0 bucket-sum entries per thread (>= 8) */
    size_t msm_chunk; /* points per MSM chunk (>= 1) */
    size_t msm_first; /* points of the first of a call's carried chunks (cuda/msm.cuh chunk_points; 0: automatic) */
    int msm_trace;    /* 1: per-phase MSM times on the logger (debug) */
    int msm_l1;       /* the level-0 kernels' L1 / shared-memory split: 0 the driver's choice,
                       * CZ_CUDA_L1_MAX the most L1, CZ_CUDA_L1_MIN the least (for comparisons) */
    int msm_table;    /* tables of multiples of resident bases (cuda/msm.cu): CZ_CUDA_TABLE_* */
    int msm_table_windows; /* 0: whole tables only; 2..64: at most that many windows (partial tables) */
    int ntt_simple;   /* 1: the per-level NTT kernels (for comparisons) */
    int ntt_tile;     /* tile log of the NTT pass kernel (clamped to what fits; 0: 10, or 11 where that saves a pass) */
    int ntt_cols;     /* column log of the upper passes (0: automatic, < tile) */
    int ntt_rev_kernel; /* 1: cz_cuda_ntt's bit reversal in a kernel of its own, in place, even where
                         * a pass could do it out of place (cuda/ntt.cuh CZ_CUDA_NTT_FUSED_REV;
                         * for comparisons) */
} cz_cuda_opts;
/* msm_table: AUTO builds a resident block's table on the second MSM call
 * that would use one (a key kept for many proofs; not for a one-off), when
 * it fits in VRAM; EAGER on the first such call; OFF never (each MSM runs
 * window by window). Environment override: CZ_MSM_TABLE=auto|eager|off
 * (backend/cuda.c, for comparisons in whole runs). msm_table_windows: with
 * 0 a table is built whole (all W windows) or not at all; with K >= 2 a
 * table keeps at most K windows, and where the whole one does not fit, the
 * first Wt of them that do (one bucket set per group of Wt windows,
 * cuda/msm.cuh), when the cost model says that still pays. Environment
 * override (the CLI): CZ_MSM_TABLE_WINDOWS=whole|fit|K. */
enum { CZ_CUDA_L1_DEFAULT = 0, CZ_CUDA_L1_MAX = 1, CZ_CUDA_L1_MIN = 2 };
enum { CZ_CUDA_TABLE_AUTO = 0, CZ_CUDA_TABLE_OFF = 1, CZ_CUDA_TABLE_EAGER = 2 };
cz_status cz_cuda_set_opts(cz_cuda *ctx, const cz_cuda_opts *o, cz_error *err);
/* Where the CUDA layer's lines go (the MSM trace); NULL: silent. Copied. */
void cz_cuda_set_logger(cz_cuda *ctx, const cz_logger *log);

/* VRAM: the device's total and free bytes now; held: the resident blocks
 * and tables of the device (shared by its contexts) and this context's
 * scratch arena; scratch: that arena alone (kept between calls). */
cz_status cz_cuda_mem_info(cz_cuda *ctx, size_t *total, size_t *free_bytes, size_t *held, size_t *scratch,
                           cz_error *err);
/* The largest scratch any call of this context asked for since the last
 * cz_cuda_scratch_mark (or since it was opened): the working set of the
 * calls in between, where the arena itself may be larger (an earlier call). */
size_t cz_cuda_scratch_asked(const cz_cuda *ctx);
void cz_cuda_scratch_mark(cz_cuda *ctx);

/* Resident bases: keeps a device copy of host[0 .. bytes) for later MSMs
 * with these bases (cz_cuda_msm_* look them up by host pointer). CZ_OK when
 * resident afterwards; CZ_ERR_DEVICE_MEMORY when it does not fit (the MSMs
 * then stream the bases). Releasing unknown pointers is a no-op. */
cz_status cz_cuda_bases_pin(cz_cuda *ctx, const void *host, size_t bytes, cz_error *err);
/* The same, the device memory taken now and the copy made later: during the
 * next cz_cuda_compute_h, once its kernels are queued (the copy then
 * overlaps them), or when an MSM first looks the block up, whichever comes
 * first. host[0 .. bytes) must not change while the block is kept. A copy
 * that fails then drops the block (the MSMs stream) with a warning on the
 * logger. */
cz_status cz_cuda_bases_pin_later(cz_cuda *ctx, const void *host, size_t bytes, cz_error *err);
void cz_cuda_bases_release(cz_cuda *ctx, const void *host);
/* bytes of VRAM held by resident bases */
size_t cz_cuda_bases_resident(const cz_cuda *ctx);
/* (The same table keeps scalars resident: the prover pins a witness for the
 * four MSMs that read it; cz_cuda_msm_* look scalars up like bases.) */

/* Page-locked host memory (cudaHostAlloc: the GPU copies from it at ~55
 * GB/s, pageable memory goes at ~8). Pinning is slow (~1.8 GB/s), so callers
 * reuse these buffers. NULL when it cannot be had (use pageable memory). */
void *cz_cuda_host_alloc(cz_cuda *ctx, size_t bytes);
void cz_cuda_host_free(cz_cuda *ctx, void *p);

/* The H step of backend/backend.h's compute_h, on the GPU (cuda/ntt.cu); c
 * NULL: c = a o b formed on the device (not uploaded). */
cz_status cz_cuda_compute_h(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                            cz_error *err);
/* The host-to-device transfer of a, b (and c) in the last successful
 * cz_cuda_compute_h on ctx: bytes and seconds between CUDA events around the
 * copies (0, 0 when none was timed). */
void cz_cuda_last_upload(cz_cuda *ctx, uint64_t *bytes, double *seconds);

/* Forward / inverse NTT of 2^log_n scalar-field elements (Montgomery, natural
 * order in and out) in place in host memory, with the roots of ntt/ntt.h
 * (snarkjs's). coset: forward evaluates on g * <omega> (g = the coset shift
 * of ntt/ntt.h), inverse interpolates from it. For tests and benchmarks;
 * the prover uses cz_cuda_compute_h. */
cz_status cz_cuda_ntt(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *data, int inverse, int coset,
                      cz_error *err);

/* out = sum_{i<n} scalars_i bases_i (cuda/msm.cu). out is the group's CPU
 * Jacobian type (ec/ec.h); bases the _affine points (all-zero = infinity),
 * scalars 32-byte scalar-field elements in `form`. Bases made resident with
 * cz_cuda_bases_pin are used from VRAM, others are streamed. */
cz_status cz_cuda_msm_g1(cz_cuda *ctx, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                         cz_msm_scalar_form form, cz_error *err);
cz_status cz_cuda_msm_g2(cz_cuda *ctx, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                         cz_msm_scalar_form form, cz_error *err);

#ifdef __cplusplus
}
#endif

#endif
