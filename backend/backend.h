/*
 * backend: the table of operations the prover runs on a device.
 *
 * DESIGN: the Groth16 prover does not know where its heavy steps run. A
 * backend is a table of function pointers plus a context (ggml-backend
 * style); the CPU backend (backend/cpu.c) runs ntt/ and msm/ on the thread
 * pool, the CUDA backend (backend/cuda.c, built when nvcc is found) runs the
 * kernels of cuda/. Optional members may be NULL: the prover then uses the
 * CPU backend for that step. Every member returns a cz_status and fills err
 * with the detail (a CUDA error string, say); none aborts.
 *
 * The CUDA backend runs each step on the GPU and, when the GPU fails (out of
 * memory, a launch failure), runs that step on its CPU backend instead and
 * says so on stderr: a job is slower then, never wrong (the prover verifies
 * every proof it writes).
 *
 * Data is passed in host memory in the layouts of ff/ and ec/: scalars are
 * 32-byte scalar-field elements, bases the curve's *_affine points (all-zero
 * = infinity), results Jacobian points. Backends may keep device copies of
 * bases between calls (keys resident in VRAM), keyed by the host pointer;
 * the same holds for scalars (a witness read by several MSMs).
 */
#ifndef CZ_BACKEND_BACKEND_H
#define CZ_BACKEND_BACKEND_H

#include <stddef.h>

#include "cuzk/curve.h"
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/error.h"

typedef struct cz_backend cz_backend;

typedef struct cz_backend_ops {
    /* The H step of a snarkjs-convention Groth16 proof. On entry a, b, c hold
     * the n = 2^log_n constraint-row values A.w, B.w, C.w (Montgomery). On
     * return a holds, in natural order, h_i = A(x_i) B(x_i) - C(x_i) at the
     * coset points x_i = g omega_n^i (g = omega_2n, or 25 when n = 2^s), in
     * Montgomery form; b and c are clobbered. */
    cz_status (*compute_h)(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c, cz_error *err);
    /* out (Jacobian) = sum_{i<n} scalars_i * bases_i in G1 / G2. */
    cz_status (*msm_g1)(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                        cz_msm_scalar_form form, cz_error *err);
    cz_status (*msm_g2)(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                        cz_msm_scalar_form form, cz_error *err);
    /* Optional (NULL on the CPU): keep a device copy of bases[0 .. bytes)
     * for the MSMs that follow (a proving key's point section resident in
     * VRAM), or of scalars read by several MSMs (a witness). A failure is
     * not fatal: the MSMs then stream them. drop_bases releases it; the owner of the host memory must drop before
     * freeing it (copies are found by host address). */
    cz_status (*keep_bases)(cz_backend *be, const void *bases, size_t bytes, cz_error *err);
    void (*drop_bases)(cz_backend *be, const void *bases);
    /* Optional (NULL on the CPU): host memory the device reads fastest
     * (page-locked on CUDA: ~55 GB/s against ~8 for pageable), for the a, b, c
     * working set. Each allocation pins anew and pinning is slow (~1.8
     * GB/s): callers keep and reuse the buffers (engine/bufpool.h). Falls
     * back to ordinary memory when pinning fails; buffers must be freed
     * through it before the backend is freed. */
    const cz_allocator *(*host_allocator)(cz_backend *be);
    void (*free)(cz_backend *be);
} cz_backend_ops;

struct cz_backend {
    const cz_backend_ops *ops;
    void *ctx;
    char name[96]; /* e.g. "cpu (16 threads)", "cuda:0 (NVIDIA H200)" */
    /* Host-to-device traffic of the a, b, c arrays of compute_h, summed over
     * the calls that ran on a device (timed with device events, not host
     * clocks); stays 0 on the CPU. Read it around a call for that call's. */
    uint64_t h2d_bytes;
    double h2d_s;
    /* 1: a device error (CZ_ERR_CUDA, CZ_ERR_DEVICE_MEMORY, CZ_ERR_NO_DEVICE,
     * CZ_ERR_INTERNAL) is returned instead of re-running the step on the
     * CPU. The engine sets it when it has other devices to move the work to
     * (cz_backend_device_error tells those statuses apart). */
    int strict;
};

/* 1 for the statuses that mean the device failed rather than the input:
 * the device's own errors, and a broken invariant of the device code
 * (CZ_ERR_INTERNAL: a bug in cuda/). These the CPU (or another GPU) can make
 * good; input errors (a scalar >= r, say) are the caller's. */
int cz_backend_device_error(cz_status st);

/* The number of devices a spec can address: for "cuda"/"auto", the GPUs
 * present (0 without a driver or CUDA build); 1 for "cpu". */
int cz_backend_device_count(const char *spec);

/* The CPU backend over a thread pool (NULL: the default pool). */
cz_status cz_backend_cpu_create(cz_backend **out, cz_pool *pool);

/* Picks a backend from a spec: "cpu", "cuda", "cuda:N" or "auto" (CUDA when
 * a usable GPU is present, else CPU). CZ_ERR_NO_DEVICE / CZ_ERR_UNSUPPORTED
 * when a CUDA backend is asked for and cannot be had. */
cz_status cz_backend_create(cz_backend **out, const char *spec, cz_error *err);
void cz_backend_free(cz_backend *be);

#endif
