/*
 * backend: the table of operations the prover runs on a device.
 *
 * DESIGN: the Groth16 prover does not know where its heavy steps run. A
 * backend is a table of function pointers plus a context (ggml-backend
 * style); the CPU backend (backend/cpu.c) runs ntt/ and msm/ on the thread
 * pool, the CUDA backend (backend/cuda.c, built when nvcc is found) runs the
 * kernels of cuda/. Optional members may be NULL (the caller then does
 * without: no resident bases, ordinary host memory, no memory report).
 * Every member returns a cz_status and fills err with the detail (a CUDA
 * error string, say); none aborts, none prints (lines go to the logger of
 * cz_backend_opts).
 *
 * Composition: a backend that fails with a device error (out of device
 * memory, a launch failure: cz_backend_device_error) leaves the inputs of
 * that operation as they were, so the operation can be run elsewhere. The
 * fallback wrapper (cz_backend_fallback_create) uses that: it runs each
 * operation on its primary (a GPU) and, on a device error, on its fallback
 * (the CPU), with a warning on the logger; a job is slower then, never
 * wrong (the prover verifies every proof it writes). The engine wraps its
 * one GPU this way; with several GPUs it uses them bare and moves a failed
 * partition to another GPU instead.
 *
 * Data is passed in host memory in the layouts of ff/ and ec/: scalars are
 * 32-byte scalar-field elements, bases the curve's *_affine points (all-zero
 * = infinity), results Jacobian points. Backends may keep device copies of
 * bases between calls (keys resident in VRAM), keyed by the host pointer;
 * the same holds for scalars (a witness read by several MSMs).
 *
 * Memory: host memory a backend allocates during a proof's operations
 * (the CPU MSM's buckets, NTT column scratch, NTT twiddle tables not yet
 * kept) is at most scratch_bytes(); callers that account memory reserve that
 * much in their budget (mem/budget.h, CZ_MEM_SCRATCH) before the device
 * step. Twiddle tables the CPU backend keeps between calls are reserved in
 * the budget of cz_backend_opts (when they fit; otherwise they are built for
 * the call and freed after it, inside scratch_bytes).
 */
#ifndef CZ_BACKEND_BACKEND_H
#define CZ_BACKEND_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "mem/budget.h"
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/log.h"
#include "util/thread.h"

typedef struct cz_backend cz_backend;

/* What one compute_h call moved to the device (device-timed); zeros on the
 * CPU. */
typedef struct cz_backend_h_stats {
    uint64_t h2d_bytes; /* a, b (and c where given) host-to-device */
    double h2d_s;       /* seconds between device events around those copies */
} cz_backend_h_stats;

/* Device memory (VRAM) of a backend. */
typedef struct cz_backend_mem {
    size_t total;    /* bytes on the device */
    size_t free;     /* free now (all processes) */
    size_t resident; /* held by this backend: its scratch, and the resident bases,
                      * scalars and tables of its GPU (those it shares with
                      * other backends on the same GPU included) */
    size_t scratch;  /* of resident: this backend's own working set, kept
                      * between calls (grown to the largest call so far) */
    size_t asked;    /* the largest working set a call asked for since the
                      * last mem_mark (0: none, or not measured): what the
                      * calls of one proof step need, where scratch is also
                      * what an earlier, larger step left */
} cz_backend_mem;

typedef struct cz_backend_ops {
    /* The H step of a snarkjs-convention Groth16 proof. On entry a, b, c hold
     * the n = 2^log_n constraint-row values A.w, B.w, C.w (Montgomery). On
     * return a holds, in natural order, h_i = A(x_i) B(x_i) - C(x_i) at the
     * coset points x_i = g omega_n^i (g = omega_2n, or 25 when n = 2^s), in
     * Montgomery form; b and c are clobbered. c may be NULL: the backend
     * then forms c = a o b itself (what C.w is on every row of a satisfied
     * system; snarkjs keys hold no C), in its own memory (the GPU's: c is
     * never uploaded; the CPU's: n elements of scratch, in scratch_bytes).
     * stats (may be NULL): what this call moved to the device. */
    cz_status (*compute_h)(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                           cz_backend_h_stats *stats, cz_error *err);
    /* out (Jacobian) = sum_{i<n} scalars_i * bases_i in G1 / G2. */
    cz_status (*msm_g1)(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                        cz_msm_scalar_form form, cz_error *err);
    cz_status (*msm_g2)(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                        cz_msm_scalar_form form, cz_error *err);
    /* Optional (NULL on the CPU): keep a device copy of bases[0 .. bytes)
     * for the MSMs that follow (a proving key's point section resident in
     * VRAM), or of scalars read by several MSMs (a witness). A failure is
     * not fatal: the MSMs then stream them. The copy may be made later, at
     * the latest when an MSM first reads it (CUDA: during the next compute_h,
     * behind its kernels), so bases[0 .. bytes) must not change while kept,
     * but by this backend's compute_h: a block kept over exactly its array a
     * (domain elements) then holds the result h, which stays on the device
     * for the H MSM (CUDA: copied there on the device, not uploaded again).
     * drop_bases releases it; the owner of the host memory must drop before
     * freeing it (copies are found by host address). */
    cz_status (*keep_bases)(cz_backend *be, const void *bases, size_t bytes, cz_error *err);
    void (*drop_bases)(cz_backend *be, const void *bases);
    /* Optional (NULL on the CPU): host memory the device reads fastest
     * (page-locked on CUDA: ~55 GB/s against ~8 for pageable), for the a, b, c
     * working set. Each allocation pins anew and pinning is slow (~1.8
     * GB/s): callers keep and reuse the buffers (mem/bufpool.h). Falls
     * back to ordinary memory when pinning fails; buffers must be freed
     * through it before the backend is freed. */
    const cz_allocator *(*host_allocator)(cz_backend *be);
    /* Optional (NULL on the CPU): the device's memory now. */
    cz_status (*mem_info)(cz_backend *be, cz_backend_mem *out, cz_error *err);
    /* Optional (NULL on the CPU): starts a new measure of mem_info's asked
     * (the engine marks before each proof step and reads after it). */
    void (*mem_mark)(cz_backend *be);
    /* Optional (NULL: 0): the most host memory the operations of one proof
     * of this shape allocate while they run (domain 2^log_n, MSMs of at most
     * n points); see DESIGN. */
    size_t (*scratch_bytes)(cz_backend *be, cz_curve curve, unsigned log_n, size_t n);
    void (*free)(cz_backend *be);
} cz_backend_ops;

typedef enum cz_backend_kind { CZ_BACKEND_CPU = 0, CZ_BACKEND_CUDA = 1, CZ_BACKEND_OTHER = 2 } cz_backend_kind;

struct cz_backend {
    const cz_backend_ops *ops;
    void *ctx;
    cz_backend_kind kind; /* a fallback wrapper has its primary's kind */
    int gpu;              /* kind CZ_BACKEND_CUDA: the GPU's index (several backends
                           * on one GPU share its resident blocks: mem/resident.h) */
    char name[96];        /* e.g. "cpu (16 threads)", "cuda:0 NVIDIA H200 (...)" */
};

/* How a backend is made. Zero-initialised = every default. */
typedef struct cz_backend_opts {
    cz_pool *pool;         /* CPU threads (NULL: the default pool) */
    cz_budget *budget;     /* where the CPU backend reserves the twiddle tables it keeps (NULL: not counted) */
    const cz_logger *log;  /* copied; NULL: silent */
    /* MSM tuning, 0 = automatic (the cost model): */
    int msm_window;        /* Pippenger window bits (CPU: 2..CZ_MSM_MAX_WINDOW; CUDA: 4..20; a CPU
                            * fallback given a window above its range chooses its own) */
    size_t msm_run;        /* CUDA: points per bucket-sum run */
    size_t msm_chunk;      /* CUDA: points per upload chunk */
    int msm_trace;         /* CUDA: per-phase MSM times on the logger at debug level */
    int msm_table;         /* CUDA: tables of multiples of resident bases, CZ_CUDA_TABLE_* of
                            * cuda/cuda.h: 0 auto (built on the 2nd MSM that would use one),
                            * 1 off, 2 eager (the CLI maps CZ_MSM_TABLE=auto|off|eager here) */
    int msm_table_windows; /* CUDA: 0 whole tables only; K >= 2: a table of at most K windows, fewer
                            * than all where VRAM holds no more (cz_cuda_opts; the CLI maps
                            * CZ_MSM_TABLE_WINDOWS=whole|fit|K here, fit = 64) */
    /* CUDA NTT: 1 = the simple kernel (one launch per level), for comparisons;
     * tile/cols: shared-memory pass shape (0: automatic) */
    int ntt_simple;
    int ntt_tile, ntt_cols;
    /* 1: wrap a CUDA backend in the CPU fallback (cz_backend_fallback_create)
     * sharing these options */
    int fallback;
} cz_backend_opts;

/* 1 for the statuses that mean the device failed rather than the input:
 * the device's own errors, and a broken invariant of the device code
 * (CZ_ERR_INTERNAL: a bug in cuda/). These the CPU (or another GPU) can make
 * good; input errors (a scalar >= r, say) are the caller's. */
int cz_backend_device_error(cz_status st);

/* The number of GPUs present (0 without a driver or a CUDA build). */
int cz_backend_gpu_count(void);

/* The CPU backend. opts may be NULL. */
cz_status cz_backend_cpu_create(cz_backend **out, const cz_backend_opts *opts, cz_error *err);

/* The fallback wrapper: primary's operations, each rerun on fallback after a
 * device error of the primary (a warning on log). Takes ownership of both
 * (freed with it, also on failure). Its name and kind are the primary's;
 * keep_bases, drop_bases, host_allocator, mem_info and mem_mark are the primary's;
 * scratch_bytes is the larger of the two. */
cz_status cz_backend_fallback_create(cz_backend **out, cz_backend *primary, cz_backend *fallback,
                                     const cz_logger *log, cz_error *err);

/* One backend from a spec (backend/devspec.h): "cpu", "cuda", "cuda:N" or
 * "auto" (the first GPU when one is usable, else the CPU). CZ_ERR_NO_DEVICE /
 * CZ_ERR_UNSUPPORTED when a GPU is asked for and cannot be had;
 * CZ_ERR_INVALID_ARG for a malformed spec or a list. opts may be NULL. */
cz_status cz_backend_create(cz_backend **out, const char *spec, const cz_backend_opts *opts, cz_error *err);
/* The backend of GPU `index` (no fallback, whatever opts says). */
cz_status cz_backend_cuda_create(cz_backend **out, int index, const cz_backend_opts *opts, cz_error *err);
void cz_backend_free(cz_backend *be);

/* scratch_bytes of be, 0 when it has none. */
size_t cz_backend_scratch_bytes(cz_backend *be, cz_curve curve, unsigned log_n, size_t n);

/* The words of the GPU MSM's table settings, for the CLI's environment and
 * the daemon's configuration: "auto" | "off" | "eager" into *mode
 * (msm_table), and "whole" | "fit" | K (2 to 64) into *windows
 * (msm_table_windows: 0, 64, K). CZ_ERR_INVALID_ARG for anything else (err
 * says what is expected; NULL or "" give the defaults, auto and whole). */
cz_status cz_backend_msm_table_parse(const char *text, int *mode, cz_error *err);
cz_status cz_backend_msm_table_windows_parse(const char *text, int *windows, cz_error *err);

#endif
