/*
 * cuda/ntt.cu: NTTs and the Groth16 H step on the GPU (cz_cuda_ntt,
 * cz_cuda_compute_h of cuda/cuda.h; device-resident variants in
 * cuda/ntt.cuh).
 *
 * DESIGN: the maths (twiddle tables, butterflies, index maps, the plan and
 * the order of the steps) lives in cuda/ntt.cuh as __host__ __device__ code
 * that tests/test_cuda_ntt.cu proves against ntt/ntt.h on the host; this file
 * adds the kernels, the table cache and the transfers.
 *
 *  - Kernels: k_pass (the fast path: 2^t x 2^c tiles in shared memory, two
 *    radix-2 levels per __syncthreads in registers (radix 4, ntt.cuh
 *    pass_step), values kept in [0, 2p) inside a pass, a few global passes
 *    per transform),
 *    k_level (the simple path: one launch per radix-2 level, one thread per
 *    butterfly; selected with cz_cuda_opts ntt_simple, for tests and as a
 *    fallback), k_bitrev_tiles (the in-place bit reversal, only cz_cuda_ntt
 *    needs it: pairs of 16 x 16 tiles through shared memory, ntt.cuh; the
 *    simple path and sizes below 2^8 swap element by element, k_bitrev),
 *    k_pass_h (the H step's lowest pass of the inverse transform and of the
 *    coset one on one load of the tile, ntt.cuh CZ_CUDA_NTT_H_FUSE; the
 *    inverse's last radix-4 step and the coset one's first in one step,
 *    CZ_CUDA_NTT_H_JOINT),
 *    k_pass<F, true, true> (c's last pass of the H step with the pointwise
 *    step in its store, ntt.cuh CZ_CUDA_NTT_H_PW), k_pointwise (a = a b - c)
 *    and k_table (builds a twiddle table).
 *  - Tables: per (curve, log_n, kind) in device memory, cached in
 *    ctx->ntt_state (at most NTT_MAX_TABLES and an eighth of the VRAM beyond
 *    the tables of the current call, least recently used evicted first; all
 *    of them evicted and the allocation retried when VRAM runs out),
 *    built on the device from two power tables of ~2^(k/2) entries that the
 *    host computes with ntt/ntt.h's roots and coset shift.
 *  - H step: a, b, c uploaded once on ctx->h2d, each array transformed on
 *    ctx->compute as soon as its upload is done (b and c upload while a is
 *    transformed), h downloaded into a. Pinned host memory is copied by DMA
 *    directly; pageable memory goes through the context's two pinned staging
 *    buffers in chunks (the host copies chunk i+1 while chunk i is on the
 *    bus), so the upload of b still overlaps the transforms of a. The host
 *    arrays are only read until the final copy of h into a, the last step,
 *    which starts once every kernel has finished (backend/cuda.c reruns a
 *    failed H step on the CPU from the untouched arrays).
 *  - Knobs (cz_cuda_opts, read per call): ntt_simple (the per-level
 *    kernels), ntt_tile (tile log; 0: 10, or 11 where that takes fewer
 *    passes, at most what shared memory allows: ntt.cuh make_default_plan),
 *    ntt_cols (column log of the upper passes, default 2) and ntt_rev_kernel
 *    (the bit reversal's own kernel even where a pass could carry it: ntt.cuh
 *    CZ_CUDA_NTT_FUSED_REV).
 *
 * TODO(H200 tuning): radix 8 (three levels per round trip) once the
 * registers allow it, tile 12 with 512 threads, multi-threaded host copies
 * for pageable memory. Tried on the H100 and removed (bench/RESULTS.md,
 * 2026-12-06 14:30; commit 5924c43), when the plans still had odd passes: a
 * DIF pass's lone level first so that level 1's twiddle 1 needs no product
 * (n/4 products fewer, yet the forward transform 2^24 4.64 -> 4.77 ms), and
 * with it the fused pass's two middle steps merged (the H step 27.05 ->
 * 27.17 ms). (Since 2026-12-07 only odd k's first pass is odd, and there the
 * lone level does run first: ntt.cuh pass_step; 2^23 forward -1.2 to -1.5%.)
 * (The ALU, adds and
 * conditional selects, was the busiest pipe before the lazy butterflies:
 * ncu, bench/RESULTS.md.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ntt.cuh"

namespace nt = cz_dev::ntt;

namespace { /* everything but the entry points is private to this file */

/* ---- kernels ----------------------------------------------------------------- */

template <class F, bool DIT> __global__ void k_level(F *x, nt::tw_t<F> tw, unsigned b, uint64_t nbf)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t q = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nbf; q += stride)
        nt::level_bf<F, DIT>(x, tw, b, q);
}

/* Blocks of 256 threads per SM the pass kernel is compiled for (its
 * registers capped to fit: 768 threads, 80 registers): 3, as many as a
 * 2^11-element tile's shared memory allows; the default 2^10-element tiles
 * run 128 threads a block (ntt.cuh pass_threads), 6 blocks at the same cap
 * (a 7th, at 72 registers: slower, bench/RESULTS.md 2026-12-07). Measured on
 * the H200 (bench/RESULTS.md, 2026-12-02): with the radix-4 steps and no cap
 * (102-128 registers, 2 blocks per SM) the BLS12-381 coset forward NTT at
 * 2^24 took 8.6 ms; capped (80 registers, 32-148 bytes of spills) 6.7 ms and
 * every transform 1-5% faster than the radix-2 levels. Again on the H100 with
 * the later products (2026-12-06): 2 blocks 6.5% slower at 2^24 (4.94 against
 * 4.64 ms), the H step 3%. */
#ifndef CZ_NTT_PASS_MIN_BLOCKS
#define CZ_NTT_PASS_MIN_BLOCKS 3
#endif
/* Quadruples per thread side by side in a radix-4 step (ntt.cuh pass_step):
 * 1, or 2 for twice the independent work between barriers at more registers
 * (with CZ_NTT_PASS_MIN_BLOCKS 2 to keep it from spilling). Measured on the
 * H100 (bench/RESULTS.md, 2026-12-06): 2 at 2 blocks per SM made the forward
 * transform 2^24 13% slower and the H step 15%; 1 stays. */
#ifndef CZ_NTT_PASS_ILP
#define CZ_NTT_PASS_ILP 1
#endif
/* A tile's levels of a pass (steps: nt::pass_steps(a.t)), a radix-4 step between two barriers each */
template <class F, bool DIT>
__device__ __forceinline__ void tile_levels(const nt::pass_args<F> &a, uint32_t *sh, uint64_t blk, unsigned steps,
                                            unsigned first = 0)
{
    for (unsigned s = first; s < steps; s++) {
        nt::pass_step<F, DIT, CZ_NTT_PASS_ILP>(a, sh, blk, s, threadIdx.x, blockDim.x);
        __syncthreads();
    }
}

/* One pass; PW: the H step's last pass of c with the pointwise step in its
 * store (ntt.cuh CZ_CUDA_NTT_H_PW): pa = pa pb - c (else pa, pb unused).
 * IO: out of place (a.y) and the bit reversal where a.rev says (ntt.cuh
 * run_op); else in place with neither, so that the in-place instances, the
 * H step's and the bit-reversal kernel's passes, carry no branches for them
 * (with the branches the coset forward transform 2^24 was 1.4% slower and the
 * BLS12-381 H step 0.5%: H100, bench/RESULTS.md 2026-12-07). */
template <class F, bool DIT, bool PW = false, bool IO = false>
__global__ void __launch_bounds__(256, CZ_NTT_PASS_MIN_BLOCKS) k_pass(nt::pass_args<F> a, F *pa, const F *pb)
{
    extern __shared__ uint4 k_pass_sh[];
    uint32_t *sh = reinterpret_cast<uint32_t *>(k_pass_sh);
    if (!IO) {
        a.y = nullptr;
        a.rev = nt::REV_NONE;
    }
    const uint64_t blk = nt::pass_block(a, blockIdx.x);
    nt::pass_load(a, sh, blk, threadIdx.x, blockDim.x);
    __syncthreads();
    tile_levels<F, DIT>(a, sh, blk, nt::pass_steps(a.t));
    if (PW)
        nt::pass_store_pw(a, sh, blk, threadIdx.x, blockDim.x, pa, pb);
    else
        nt::pass_store(a, sh, blk, threadIdx.x, blockDim.x);
}

/* The H step's fused pass (ntt.cuh CZ_CUDA_NTT_H_FUSE): ai's DIF levels, then
 * ac's DIT levels (the same tile: only the twiddles differ) */
template <class F>
__global__ void __launch_bounds__(256, CZ_NTT_PASS_MIN_BLOCKS) k_pass_h(nt::pass_args<F> ai, nt::pass_args<F> ac)
{
    extern __shared__ uint4 k_pass_h_sh[];
    uint32_t *sh = reinterpret_cast<uint32_t *>(k_pass_h_sh);
    const uint64_t blk = blockIdx.x;
    ai.y = ac.y = nullptr; /* in place, no bit reversal (as k_pass without IO) */
    ai.rev = ac.rev = nt::REV_NONE;
    nt::pass_load(ai, sh, blk, threadIdx.x, blockDim.x);
    __syncthreads();
    const unsigned steps = nt::pass_steps(ai.t); /* (ac.t: the same) */
    if (nt::h_joint(ai.tw, ai.b0, ai.t, ai.c)) { /* ac.tw: ntt.cuh h_joint_tw */
        tile_levels<F, false>(ai, sh, blk, steps - 1);
        nt::pass_step_joint(ai, ac, sh, threadIdx.x, blockDim.x);
        __syncthreads();
        tile_levels<F, true>(ac, sh, blk, steps, 1);
    } else {
        tile_levels<F, false>(ai, sh, blk, steps);
        tile_levels<F, true>(ac, sh, blk, steps);
    }
    nt::pass_store(ac, sh, blk, threadIdx.x, blockDim.x);
}

template <class F> __global__ void k_bitrev(F *x, unsigned k, uint64_t n)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        nt::bitrev_swap(x, k, i);
}

/* the tiled bit reversal: a block of 256 threads per pair of tiles (ntt.cuh bitrev_tile_load) */
enum { BR_THREADS = 256 };
template <class F> __global__ void __launch_bounds__(BR_THREADS) k_bitrev_tiles(F *x, unsigned k)
{
    __shared__ uint32_t sh[2 * F::N * nt::BR_PLANE];
    if (!nt::bitrev_tile_load(x, k, blockIdx.x, sh, threadIdx.x, BR_THREADS)) return; /* the whole block */
    __syncthreads();
    nt::bitrev_tile_store(x, k, blockIdx.x, sh, threadIdx.x, BR_THREADS);
}

template <class F> __global__ void k_pointwise(F *a, const F *b, const F *c, uint64_t n)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        nt::pointwise(a, b, c, i);
}

template <class F> __global__ void k_product(F *c, const F *a, const F *b, uint64_t n)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        nt::product(c, a, b, i);
}

template <class F>
__global__ void k_table(F *tab, const F *hi, const F *lo, unsigned m, F c, int coset, unsigned k, uint64_t entries)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t x = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; x < entries; x += stride)
        nt::store_el(tab + x, nt::tab_entry(hi, lo, m, c, coset, k, x));
}

/* grid of a grid-stride kernel over `work` items */
static unsigned grid_for(uint64_t work, unsigned threads)
{
    uint64_t g = (work + threads - 1) / threads;
    if (g > (1u << 20)) g = 1u << 20;
    return g ? (unsigned)g : 1;
}

/* ---- the per-context state: table cache, events, limits ---------------------- */

/* Default tiles: ntt.cuh make_default_plan (2^10 or 2^11 elements), 2^2 columns at least. */
enum { NTT_MAX_TABLES = 8, NTT_DEFAULT_TILE = nt::LARGE_TILE_LOG, NTT_DEFAULT_COLS = 2 };
static const size_t NTT_CHUNK = (size_t)16 << 20; /* staging chunk of pageable transfers */

typedef struct {
    cz_curve curve; /* CZ_CURVE_NONE: free slot */
    unsigned k;
    int kind;
    void *dev; /* table, then the power tables it was built from */
    size_t bytes;
    uint64_t last; /* state tick of the last call that used it */
} ntt_table;

typedef struct {
    ntt_table tab[NTT_MAX_TABLES];
    uint64_t tick;
    cudaEvent_t ev_stage[2]; /* last use of each pinned staging buffer */
    cudaEvent_t ev_up[3];    /* upload of array i done (on ctx->h2d) */
    cudaEvent_t ev_t[2];     /* timed: before the first and after the last a/b/c upload */
    double last_up_s;        /* the last compute_h's a/b/c upload time (0: none timed) */
    uint64_t last_up_bytes;
    unsigned max_tile;       /* largest tile log the shared memory allows */
} ntt_state;

static void ntt_state_free(cz_cuda *ctx)
{
    ntt_state *s = (ntt_state *)ctx->ntt_state;
    if (!s) return;
    for (int i = 0; i < NTT_MAX_TABLES; i++)
        if (s->tab[i].dev) cudaFree(s->tab[i].dev);
    for (int i = 0; i < 2; i++)
        if (s->ev_stage[i]) cudaEventDestroy(s->ev_stage[i]);
    for (int i = 0; i < 3; i++)
        if (s->ev_up[i]) cudaEventDestroy(s->ev_up[i]);
    for (int i = 0; i < 2; i++)
        if (s->ev_t[i]) cudaEventDestroy(s->ev_t[i]);
    free(s);
    ctx->ntt_state = NULL;
    ctx->ntt_state_free = NULL;
}

template <class F> static cz_status pass_smem_setup(cz_cuda *ctx, size_t bytes, cz_error *err)
{
    if (bytes <= 48 * 1024) return CZ_OK;
    CZ_CUDA_TRY(ctx, err, cudaFuncSetAttribute(k_pass<F, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    CZ_CUDA_TRY(ctx, err, cudaFuncSetAttribute(k_pass<F, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    CZ_CUDA_TRY(ctx, err, cudaFuncSetAttribute(k_pass_h<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    CZ_CUDA_TRY(ctx, err,
                cudaFuncSetAttribute(k_pass<F, false, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    CZ_CUDA_TRY(ctx, err,
                cudaFuncSetAttribute(k_pass<F, true, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    if constexpr (CZ_CUDA_NTT_H_PW)
        CZ_CUDA_TRY(ctx, err,
                    cudaFuncSetAttribute(k_pass<F, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return CZ_OK;
}

/* pass_smem_setup of each curve's scalar field */
typedef cz_status (*smem_setup_fn)(cz_cuda *ctx, size_t bytes, cz_error *err);
#define CZ_NTT_SMEM_ROW_(ID, VALUE, SYM, CONST, SHORT, ...) pass_smem_setup<cz_dev::SHORT##_fr>,
static const smem_setup_fn smem_setups[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_NTT_SMEM_ROW_)};
#undef CZ_NTT_SMEM_ROW_

static cz_status get_state(cz_cuda *ctx, ntt_state **out, cz_error *err)
{
    if (ctx->ntt_state) {
        *out = (ntt_state *)ctx->ntt_state;
        return CZ_OK;
    }
    ntt_state *s = (ntt_state *)calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "NTT state: out of host memory");
    /* published in ctx once complete; ntt_state_free undoes a partial one */
    ctx->ntt_state = s;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags(&s->ev_stage[i], cudaEventDisableTiming);
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags(&s->ev_up[i], cudaEventDisableTiming);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaEventCreate(&s->ev_t[i]);
    if (e != cudaSuccess) {
        ntt_state_free(ctx);
        return cz_cuda_fail(ctx, e, err, "cudaEventCreateWithFlags (NTT)");
    }
    /* every scalar field has 32-byte elements: the tile of 2^T elements needs 2^T * 32 bytes */
    size_t optin = ctx->prop.sharedMemPerBlockOptin ? ctx->prop.sharedMemPerBlockOptin : ctx->prop.sharedMemPerBlock;
    unsigned t = nt::MAX_TILE_LOG;
    while (t > 1 && ((size_t)32 << t) > optin)
        t--;
    s->max_tile = t;
    cz_status st = CZ_OK;
    for (int i = 0; i < CZ_CURVE_COUNT && st == CZ_OK; i++) st = smem_setups[i](ctx, (size_t)32 << t, err);
    if (st != CZ_OK) {
        ntt_state_free(ctx);
        return st;
    }
    ctx->ntt_state_free = ntt_state_free;
    *out = s;
    return CZ_OK;
}

/* ---- configuration ----------------------------------------------------------- */

typedef struct {
    int simple;
    int rev_kernel; /* the bit reversal's own kernel, never in a pass */
    unsigned tile, cols;
    int tile_auto; /* no tile option: cfg_plan chooses 2^10 or 2^11 */
} ntt_cfg;

static void read_cfg(const cz_cuda *ctx, const ntt_state *s, ntt_cfg *c)
{
    const cz_cuda_opts &o = ctx->opts;
    c->simple = o.ntt_simple != 0;
    c->rev_kernel = o.ntt_rev_kernel != 0;
    long tl = o.ntt_tile ? (long)o.ntt_tile : (long)NTT_DEFAULT_TILE;
    long cl = o.ntt_cols ? (long)o.ntt_cols : (long)NTT_DEFAULT_COLS;
    if (tl < 1) tl = 1;
    if (tl > (long)s->max_tile) tl = (long)s->max_tile;
    if (cl < 0) cl = 0;
    if (cl >= tl) cl = tl - 1;
    c->tile = (unsigned)tl;
    c->cols = (unsigned)cl;
    c->tile_auto = o.ntt_tile == 0;
}

/* The plan of a transform of 2^k under cfg: its tile, or with none set the default plan */
static void cfg_plan(nt::plan_t *pl, unsigned k, const ntt_cfg *cfg)
{
    if (cfg->tile_auto)
        nt::make_default_plan(pl, k, cfg->tile, cfg->cols);
    else
        nt::make_plan(pl, k, cfg->tile, cfg->cols);
}

/* ---- twiddle tables ---------------------------------------------------------- */

template <class F> static cz_status build_table(cz_cuda *ctx, ntt_table *t, const nt::tab_consts<F> &tc, cz_error *err)
{
    const unsigned k = t->k, m = nt::seed_m(k);
    const uint64_t entries = nt::tab_entries(t->kind, k);
    const size_t nlo = (size_t)1 << m, nhi = (size_t)1 << (k - 1 - m);
    F *host = (F *)malloc((nhi + nlo) * sizeof(F));
    if (!host) return cz_error_set(err, CZ_ERR_NO_MEMORY, "NTT table seeds: out of host memory");
    nt::tab_consts<F> tmp;
    cz_status st = nt::host_tab_consts<F>(t->kind, k, &tmp, host, host + nhi);
    if (st != CZ_OK) {
        free(host);
        return cz_error_set(err, st, "NTT table constants of 2^%u: %s", k, cz_status_str(st));
    }
    F *tab = (F *)t->dev, *seeds = tab + entries;
    cudaError_t e = cudaMemcpyAsync(seeds, host, (nhi + nlo) * sizeof(F), cudaMemcpyHostToDevice, ctx->compute);
    if (e == cudaSuccess) {
        k_table<F><<<grid_for(entries, 256), 256, 0, ctx->compute>>>(tab, seeds, seeds + nhi, m, tc.c,
                                                                      nt::tab_is_coset(t->kind), k, entries);
        e = cudaGetLastError();
    }
    /* the host seeds must outlive the copy */
    cudaError_t e2 = cudaStreamSynchronize(ctx->compute);
    free(host);
    if (e != cudaSuccess) return cz_cuda_fail(ctx, e, err, "building an NTT twiddle table");
    if (e2 != cudaSuccess) return cz_cuda_fail(ctx, e2, err, "building an NTT twiddle table");
    return CZ_OK;
}

static void drop_table(ntt_table *t)
{
    if (t->dev) cudaFree(t->dev);
    memset(t, 0, sizeof *t);
}

/* The table of (curve, k, kind), built if not cached; tc: its constants.
 * Tables used in the current call (last == s->tick) are never evicted. */
template <class F>
static cz_status get_table(cz_cuda *ctx, ntt_state *s, cz_curve curve, unsigned k, int kind, const F **out,
                           nt::tab_consts<F> *tc, cz_error *err)
{
    cz_status st = nt::host_tab_consts<F>(kind, k, tc, NULL, NULL);
    if (st != CZ_OK) return cz_error_set(err, st, "NTT of 2^%u: no roots (%s)", k, cz_status_str(st));
    for (int i = 0; i < NTT_MAX_TABLES; i++) {
        ntt_table *t = &s->tab[i];
        if (t->dev && t->curve == curve && t->k == k && t->kind == kind) {
            t->last = s->tick;
            *out = (const F *)t->dev;
            return CZ_OK;
        }
    }
    /* a slot: a free one, else the least recently used one not in use now */
    ntt_table *slot = NULL;
    for (int i = 0; i < NTT_MAX_TABLES; i++) {
        ntt_table *t = &s->tab[i];
        if (!t->dev) {
            slot = t;
            break;
        }
        if (t->last != s->tick && (!slot || t->last < slot->last)) slot = t;
    }
    if (!slot) return cz_error_set(err, CZ_ERR_INTERNAL, "NTT table cache full");
    drop_table(slot);
    const unsigned m = nt::seed_m(k);
    const size_t bytes = (size_t)(nt::tab_entries(kind, k) + ((uint64_t)1 << m) + ((uint64_t)1 << (k - 1 - m))) * sizeof(F);
    void *dev = NULL;
    cudaError_t e = cudaMalloc(&dev, bytes);
    if (e == cudaErrorMemoryAllocation) {
        /* out of VRAM: evict every table not in use now and retry once */
        (void)cudaGetLastError();
        for (int i = 0; i < NTT_MAX_TABLES; i++)
            if (s->tab[i].dev && s->tab[i].last != s->tick) drop_table(&s->tab[i]);
        e = cudaMalloc(&dev, bytes);
    }
    if (e != cudaSuccess) {
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY, "NTT twiddle table of 2^%u: %zu bytes of VRAM not available",
                                k, bytes);
        }
        return cz_cuda_fail(ctx, e, err, "cudaMalloc (NTT twiddle table)");
    }
    slot->curve = curve;
    slot->k = k;
    slot->kind = kind;
    slot->dev = dev;
    slot->bytes = bytes;
    slot->last = s->tick;
    st = build_table<F>(ctx, slot, *tc, err);
    if (st != CZ_OK) {
        drop_table(slot);
        return st;
    }
    /* keep the cache within an eighth of the VRAM (other modules cannot
     * evict it): drop the least recently used tables not in use now */
    for (;;) {
        size_t total = 0;
        ntt_table *old = NULL;
        for (int i = 0; i < NTT_MAX_TABLES; i++) {
            ntt_table *t = &s->tab[i];
            if (!t->dev) continue;
            total += t->bytes;
            if (t->last != s->tick && (!old || t->last < old->last)) old = t;
        }
        if (total <= ctx->prop.totalGlobalMem / 8 || !old) break;
        drop_table(old);
    }
    *out = (const F *)dev;
    return CZ_OK;
}

/* ---- the executor of cuda/ntt.cuh's step order on the GPU --------------------- */

template <class F> struct gpu_exec {
    cz_cuda *ctx;
    cz_error *err;
    bool simple; /* ntt_simple: the per-level kernels and the element-wise bit reversal */
    F *pw_a = NULL; /* pass_pw's, during its launch */
    const F *pw_b = NULL;

    cz_status level(F *x, const nt::tw_t<F> &tw, unsigned b, bool dit)
    {
        const uint64_t nbf = (uint64_t)1 << (tw.k - 1);
        if (dit)
            k_level<F, true><<<grid_for(nbf, 256), 256, 0, ctx->compute>>>(x, tw, b, nbf);
        else
            k_level<F, false><<<grid_for(nbf, 256), 256, 0, ctx->compute>>>(x, tw, b, nbf);
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        return CZ_OK;
    }

    cz_status pass(F *x, const nt::tw_t<F> &tw, const nt::pass_t &p, bool dit)
    {
        return launch_pass(x, tw, NULL, p, dit);
    }
    /* out of place, with the bit reversal where rev says (ntt.cuh run_op) */
    cz_status pass_io(F *src, F *dst, const nt::tw_t<F> &tw, const nt::pass_t &p, bool dit, unsigned rev)
    {
        return launch_pass(src, tw, NULL, p, dit, dst, rev);
    }
    /* the H step's last pass of c with the pointwise step (ntt.cuh run_h_array) */
    cz_status pass_pw(F *x, const nt::tw_t<F> &tw, const nt::pass_t &p, F *pa, const F *pb)
    {
        pw_a = pa;
        pw_b = pb;
        cz_status st = launch_pass(x, tw, NULL, p, true);
        pw_a = NULL;
        pw_b = NULL;
        return st;
    }
    /* the H step's fused pass: DIF with tw, then DIT with *tw2 (ntt.cuh run_h_array) */
    cz_status pass_h(F *x, const nt::tw_t<F> &tw, const nt::tw_t<F> &tw2, const nt::pass_t &p)
    {
        return launch_pass(x, tw, &tw2, p, false);
    }
    cz_status launch_pass(F *x, const nt::tw_t<F> &tw, const nt::tw_t<F> *tw2, const nt::pass_t &p, bool dit,
                          F *y = NULL, unsigned rev = nt::REV_NONE)
    {
        nt::pass_args<F> a = nt::pass_args_of(x, tw, p, y, rev);
        const uint32_t E = nt::pass_elems(a);
        const uint64_t blocks = ((uint64_t)1 << tw.k) / E;
        if (blocks > 0x7fffffffu)
            return cz_error_set(err, CZ_ERR_RANGE, "NTT of 2^%u: %llu blocks of 2^%u (tile too small)", tw.k,
                                (unsigned long long)blocks, p.t + p.c);
        const size_t smem = (size_t)E * sizeof(F);
        const uint32_t thr = nt::pass_threads(E);
        if (tw2) {
            nt::pass_args<F> a2 = a;
            a2.tw = *tw2;
            k_pass_h<F><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, a2);
        } else if (dit && pw_a) {
            if constexpr (CZ_CUDA_NTT_H_PW)
                k_pass<F, true, true><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, pw_a, pw_b);
            else
                return cz_error_set(err, CZ_ERR_INTERNAL, "NTT: the pointwise pass is not built (CZ_CUDA_NTT_H_PW)");
        } else if ((y && y != x) || rev != nt::REV_NONE) { /* out of place (run_op) */
            if (dit)
                k_pass<F, true, false, true><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, NULL, NULL);
            else
                k_pass<F, false, false, true><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, NULL, NULL);
        } else if (dit) {
            k_pass<F, true><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, NULL, NULL);
        } else {
            k_pass<F, false><<<(unsigned)blocks, thr, smem, ctx->compute>>>(a, NULL, NULL);
        }
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        return CZ_OK;
    }

    cz_status bitrev(F *x, unsigned k)
    {
        const uint64_t n = (uint64_t)1 << k;
        if (!simple && nt::bitrev_tiled(k))
            k_bitrev_tiles<F><<<(unsigned)nt::bitrev_tile_blocks(k), BR_THREADS, 0, ctx->compute>>>(x, k);
        else
            k_bitrev<F><<<grid_for(n, 256), 256, 0, ctx->compute>>>(x, k, n);
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        return CZ_OK;
    }
};

/* ---- host <-> device transfers ------------------------------------------------- */

/* The context's pinned staging buffers (NTT_CHUNK bytes each: always the
 * same request, so they are allocated once), after our earlier transfers
 * through them are over; 0 when there are none (then the driver stages). */
static int get_staging(cz_cuda *ctx, ntt_state *s, void *stg[2])
{
    for (int i = 0; i < 2; i++)
        if (cudaEventSynchronize(s->ev_stage[i]) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
    return cz_cuda_staging(ctx, NTT_CHUNK, stg, NULL) == CZ_OK;
}

/* dst (device) <- src (host) on ctx->h2d; `done` is recorded after it. The
 * host buffer may be reused when this returns only if it was pageable. */
static cz_status upload(cz_cuda *ctx, ntt_state *s, void *dst, const void *src, size_t bytes, cudaEvent_t done,
                        cz_error *err)
{
    void *stg[2] = {NULL, NULL};
    if (cz_cuda_host_pinned(src, bytes) || !get_staging(ctx, s, stg)) {
        /* pinned: DMA straight from it; no staging buffers: let the driver stage it */
        CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, ctx->h2d));
    } else {
        for (size_t off = 0, i = 0; off < bytes; off += NTT_CHUNK, i++) {
            const size_t len = bytes - off < NTT_CHUNK ? bytes - off : NTT_CHUNK;
            const int b = (int)(i & 1);
            /* the buffer's previous DMA (this transfer or an earlier one) is over */
            CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(s->ev_stage[b]));
            cz_cuda_host_copy(ctx, stg[b], (const char *)src + off, len);
            CZ_CUDA_TRY(ctx, err,
                        cudaMemcpyAsync((char *)dst + off, stg[b], len, cudaMemcpyHostToDevice, ctx->h2d));
            CZ_CUDA_TRY(ctx, err, cudaEventRecord(s->ev_stage[b], ctx->h2d));
        }
    }
    CZ_CUDA_TRY(ctx, err, cudaEventRecord(done, ctx->h2d));
    return CZ_OK;
}

/* dst (host) <- src (device) after the work queued on ctx->compute; returns
 * when dst holds the data. That work is waited for first, so that a failed
 * kernel is reported before dst is touched (backend/cuda.c reruns a failed
 * H step on the CPU from the untouched host arrays). */
static cz_status download(cz_cuda *ctx, ntt_state *s, void *dst, const void *src, size_t bytes, cz_error *err)
{
    CZ_CUDA_TRY(ctx, err, cudaStreamSynchronize(ctx->compute));
    void *stg[2] = {NULL, NULL};
    if (cz_cuda_host_pinned(dst, bytes) || !get_staging(ctx, s, stg)) {
        CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx->compute));
        CZ_CUDA_TRY(ctx, err, cudaStreamSynchronize(ctx->compute));
        return CZ_OK;
    }
    const size_t nchunks = (bytes + NTT_CHUNK - 1) / NTT_CHUNK;
    for (size_t i = 0; i <= nchunks; i++) {
        if (i < nchunks) {
            const size_t off = i * NTT_CHUNK, len = bytes - off < NTT_CHUNK ? bytes - off : NTT_CHUNK;
            const int b = (int)(i & 1);
            CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(s->ev_stage[b]));
            CZ_CUDA_TRY(ctx, err,
                        cudaMemcpyAsync(stg[b], (const char *)src + off, len, cudaMemcpyDeviceToHost, ctx->compute));
            CZ_CUDA_TRY(ctx, err, cudaEventRecord(s->ev_stage[b], ctx->compute));
        }
        if (i > 0) { /* chunk i-1 is on its way: wait for it and copy it out */
            const size_t off = (i - 1) * NTT_CHUNK, len = bytes - off < NTT_CHUNK ? bytes - off : NTT_CHUNK;
            const int b = (int)((i - 1) & 1);
            CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(s->ev_stage[b]));
            cz_cuda_host_copy(ctx, (char *)dst + off, stg[b], len);
        }
    }
    return CZ_OK;
}

/* After a failure with work in flight: let it drain so that the next call
 * does not race with it on the scratch or staging buffers. */
static cz_status drain_on_error(cz_cuda *ctx, cz_status st)
{
    if (st != CZ_OK) {
        (void)cudaStreamSynchronize(ctx->h2d);
        (void)cudaStreamSynchronize(ctx->compute);
        (void)cudaGetLastError();
    }
    return st;
}

/* ---- operations ----------------------------------------------------------------- */

static cz_status check_args(cz_curve curve, unsigned log_n, cz_error *err)
{
    const cz_curve_info *ci = cz_curve_info_get(curve);
    if (!ci) return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU NTT: unknown curve %d", (int)curve);
    if (log_n > ci->fr_two_adicity)
        return cz_error_set(err, CZ_ERR_RANGE, "NTT of 2^%u exceeds the 2-adicity 2^%u of %s", log_n,
                            ci->fr_two_adicity, cz_curve_name(curve));
    return CZ_OK;
}

/* Makes ctx current, clears stale errors, returns the state with a new tick. */
static cz_status begin(cz_cuda *ctx, ntt_state **s, ntt_cfg *cfg, cz_error *err)
{
    cz_status st = cz_cuda_enter(ctx, err);
    if (st != CZ_OK) return st;
    (void)cudaGetLastError();
    if ((st = get_state(ctx, s, err)) != CZ_OK) return st;
    (*s)->tick++;
    read_cfg(ctx, *s, cfg);
    return CZ_OK;
}

/* Whether a transform of 2^k under cfg would carry its bit reversal in a
 * pass given an n-element scratch (ntt.cuh CZ_CUDA_NTT_FUSED_REV, run_op). */
static bool rev_scratch_pays(const ntt_cfg *cfg, unsigned k)
{
    if (!CZ_CUDA_NTT_FUSED_REV || cfg->simple || cfg->rev_kernel || k == 0) return false;
    nt::plan_t pl;
    cfg_plan(&pl, k, cfg);
    return nt::rev_fusable(&pl);
}

/* y: NULL, or an n-element scratch for the bit reversal in a pass */
template <class F>
static cz_status ntt_dev_t(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k, F *x, int op,
                           F *y, cz_error *err)
{
    if (k == 0) return CZ_OK;
    const F *tab;
    nt::tab_consts<F> tc;
    cz_status st = get_table<F>(ctx, s, curve, k, nt::op_tab(op), &tab, &tc, err);
    if (st != CZ_OK) return st;
    nt::tw_t<F> tw = nt::make_tw<F>(tab, nt::op_tab(op), k, nt::op_scale(op), tc);
    nt::plan_t pl;
    cfg_plan(&pl, k, cfg);
    gpu_exec<F> ex = {ctx, err, cfg->simple != 0};
    return nt::run_op(ex, x, op, tw, cfg->simple ? NULL : &pl, y);
}

template <class F>
static cz_status h_tables(cz_cuda *ctx, ntt_state *s, cz_curve curve, unsigned k, nt::tw_t<F> *tw_inv,
                          nt::tw_t<F> *tw_cos, cz_error *err)
{
    const F *ti, *tcos;
    nt::tab_consts<F> ci, cc;
    cz_status st = get_table<F>(ctx, s, curve, k, nt::TAB_INV, &ti, &ci, err);
    if (st == CZ_OK) st = get_table<F>(ctx, s, curve, k, nt::TAB_COSET_FWD, &tcos, &cc, err);
    if (st != CZ_OK) return st;
    *tw_inv = nt::make_tw<F>(ti, nt::TAB_INV, k, 1, ci);
    *tw_cos = nt::make_tw<F>(tcos, nt::TAB_COSET_FWD, k, 0, cc);
    return CZ_OK;
}

template <class F> static cz_status pointwise_dev(cz_cuda *ctx, F *a, const F *b, const F *c, uint64_t n, cz_error *err)
{
    k_pointwise<F><<<grid_for(n, 256), 256, 0, ctx->compute>>>(a, b, c, n);
    CZ_CUDA_TRY(ctx, err, cudaGetLastError());
    return CZ_OK;
}

template <class F> static cz_status product_dev(cz_cuda *ctx, F *c, const F *a, const F *b, uint64_t n, cz_error *err)
{
    k_product<F><<<grid_for(n, 256), 256, 0, ctx->compute>>>(c, a, b, n);
    CZ_CUDA_TRY(ctx, err, cudaGetLastError());
    return CZ_OK;
}

/* The executor of the H step (ntt.cuh run_h_step): gpu_exec's launches, and
 * the arrays' arrival: with host arrays each is uploaded on ctx->h2d and
 * ctx->compute waits for it; ev_t[1] is recorded after the last upload */
template <class F> struct h_exec : gpu_exec<F> {
    ntt_state *s;
    void *const *host; /* NULL: the arrays are on the device */
    F *const *x;
    uint64_t n;
    int arrived;
    cz_status arrive(int i)
    {
        if (!host) return CZ_OK;
        cz_cuda *ctx = this->ctx;
        cz_status st = upload(ctx, s, x[i], host[i], n * sizeof(F), s->ev_up[i], this->err);
        if (st != CZ_OK) return st;
        if (++arrived == (host[2] ? 3 : 2)) CZ_CUDA_TRY(ctx, this->err, cudaEventRecord(s->ev_t[1], ctx->h2d));
        CZ_CUDA_TRY(ctx, this->err, cudaStreamWaitEvent(ctx->compute, s->ev_up[i], 0));
        return CZ_OK;
    }
    cz_status copy(F *dst, const F *src)
    {
        CZ_CUDA_TRY(this->ctx, this->err,
                    cudaMemcpyAsync(dst, src, n * sizeof(F), cudaMemcpyDeviceToDevice, this->ctx->compute));
        return CZ_OK;
    }
    cz_status product(F *c, const F *a, const F *b) { return product_dev<F>(this->ctx, c, a, b, n, this->err); }
    cz_status pointwise(F *a, const F *b, const F *c) { return pointwise_dev<F>(this->ctx, a, b, c, n, this->err); }
};

/* The H step on device arrays x[0..2] = a, b, c (h into a), in the order of
 * ntt.cuh run_h_step. With host arrays (host != NULL), the arrays are first
 * uploaded from host[0..2] on ctx->h2d, each transformed once it is there,
 * and h is downloaded into host[0]; host[2] NULL: c = a o b is formed on the
 * device (backend.h), and only a and b cross the bus. */
template <class F>
static cz_status compute_h_t(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k, F *x[3],
                             void *const host[3], cz_error *err)
{
    const size_t bytes = ((size_t)1 << k) * sizeof(F);
    nt::tw_t<F> tw_inv = nt::tw_t<F>(), tw_cos = nt::tw_t<F>();
    cz_status st = CZ_OK;
    if (k > 0 && (st = h_tables<F>(ctx, s, curve, k, &tw_inv, &tw_cos, err)) != CZ_OK) return st;
    nt::plan_t pl;
    cfg_plan(&pl, k, cfg);
    s->last_up_s = 0;
    s->last_up_bytes = 0;
    const bool form_c = host && !host[2]; /* c = a o b here */
    h_exec<F> ex = {{ctx, err, cfg->simple != 0}, s, host, x, (uint64_t)1 << k, 0};
    if (host) CZ_CUDA_TRY(ctx, err, cudaEventRecord(s->ev_t[0], ctx->h2d));
    if ((st = nt::run_h_step(ex, x, tw_inv, tw_cos, cfg->simple ? NULL : &pl, k, form_c)) != CZ_OK)
        return st; /* (the executor set err) */
    if (!host) return CZ_OK;
    /* the kernels are queued: resident blocks still pending (the prover's
     * witness) are copied now, behind them (after the staging copies of
     * pageable a, b, c: the same buffers) */
    for (int i = 0; i < 2; i++) CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(s->ev_stage[i]));
    /* h kept on the device for the H MSM when its host array is kept (the
     * prover keeps a): a device copy, not an upload of what comes down */
    const bool filled = cz_cuda_bases_fill(ctx, host[0], bytes, x[0]);
    cz_cuda_bases_flush(ctx);
    if ((st = download(ctx, s, host[0], x[0], bytes, err)) != CZ_OK) {
        if (filled) cz_cuda_bases_release(ctx, host[0]);
        return st;
    }
    /* the kernels waited for every upload, so both events have completed;
     * with pinned arrays the copies ran back to back on ctx->h2d (the three
     * while the first NTTs ran), so this is their wire time; pageable ones
     * include the staging memcpy, which is what they cost */
    float ms = 0;
    CZ_CUDA_TRY(ctx, err, cudaEventElapsedTime(&ms, s->ev_t[0], s->ev_t[1]));
    s->last_up_s = ms / 1e3;
    s->last_up_bytes = (uint64_t)ex.arrived * bytes;
    return CZ_OK;
}

/* ---- the operations of each curve, a row per curve of CZ_CURVE_LIST ---------- */

template <class F>
static cz_status ntt_any(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k, void *x, int op,
                         void *y, cz_error *err)
{
    return ntt_dev_t<F>(ctx, s, cfg, curve, k, (F *)x, op, (F *)y, err);
}

template <class F>
static cz_status compute_h_any(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k,
                               void *const d[3], void *const host[3], cz_error *err)
{
    F *x[3] = {(F *)d[0], (F *)d[1], (F *)d[2]};
    return compute_h_t<F>(ctx, s, cfg, curve, k, x, host, err);
}

/* the tables of one transform (tab: nt::op_tab), or of the H step (h) */
template <class F>
static cz_status prepare_any(cz_cuda *ctx, ntt_state *s, cz_curve curve, unsigned k, int h, int tab, cz_error *err)
{
    if (h) {
        nt::tw_t<F> a, b;
        return h_tables<F>(ctx, s, curve, k, &a, &b, err);
    }
    const F *t;
    nt::tab_consts<F> tc;
    return get_table<F>(ctx, s, curve, k, tab, &t, &tc, err);
}

struct ntt_curve {
    cz_status (*ntt)(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k, void *x, int op,
                     void *y, cz_error *err);
    cz_status (*compute_h)(cz_cuda *ctx, ntt_state *s, const ntt_cfg *cfg, cz_curve curve, unsigned k,
                           void *const d[3], void *const host[3], cz_error *err);
    cz_status (*prepare)(cz_cuda *ctx, ntt_state *s, cz_curve curve, unsigned k, int h, int tab, cz_error *err);
};
#define CZ_NTT_ROW_(ID, VALUE, SYM, CONST, SHORT, ...)                                                                        \
    {ntt_any<cz_dev::SHORT##_fr>, compute_h_any<cz_dev::SHORT##_fr>, prepare_any<cz_dev::SHORT##_fr>},
static const ntt_curve ntt_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_NTT_ROW_)};
#undef CZ_NTT_ROW_

/* the row of a curve that check_args accepted */
static const ntt_curve *curve_ops(cz_curve curve)
{
    return &ntt_curves[cz_curve_index(curve)];
}

} // namespace

/* ---- entry points ---------------------------------------------------------------- */

extern "C" cz_status cz_cuda_ntt(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *data, int inverse, int coset,
                                 cz_error *err)
{
    if (!ctx || !data) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_ntt: NULL argument");
    cz_status st = check_args(curve, log_n, err);
    if (st != CZ_OK) return st;
    ntt_state *s;
    ntt_cfg cfg;
    if ((st = begin(ctx, &s, &cfg, err)) != CZ_OK) return st;
    const size_t bytes = ((size_t)1 << log_n) * 32;
    void *d;
    size_t got = 0;
    /* the array, and where the device has room a second one for the bit reversal in a pass */
    const size_t spare = rev_scratch_pays(&cfg, log_n) ? bytes : 0;
    if ((st = cz_cuda_scratch_spare(ctx, bytes, spare, &d, &got, err)) != CZ_OK) return st;
    void *y = spare && got >= spare ? (char *)d + bytes : NULL;
    st = upload(ctx, s, d, data, bytes, s->ev_up[0], err);
    if (st == CZ_OK) {
        cudaError_t e = cudaStreamWaitEvent(ctx->compute, s->ev_up[0], 0);
        if (e != cudaSuccess) st = cz_cuda_fail(ctx, e, err, "cudaStreamWaitEvent");
    }
    const int op = nt::op_of(inverse, coset);
    if (st == CZ_OK) st = curve_ops(curve)->ntt(ctx, s, &cfg, curve, log_n, d, op, y, err);
    if (st == CZ_OK) st = download(ctx, s, data, d, bytes, err);
    return drain_on_error(ctx, st);
}

extern "C" cz_status cz_cuda_compute_h(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                                       cz_error *err)
{
    if (!ctx || !a || !b) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_compute_h: NULL argument");
    cz_status st = check_args(curve, log_n, err);
    if (st != CZ_OK) return st;
    ntt_state *s;
    ntt_cfg cfg;
    if ((st = begin(ctx, &s, &cfg, err)) != CZ_OK) return st;
    const size_t bytes = ((size_t)1 << log_n) * 32;
    char *d;
    if ((st = cz_cuda_scratch(ctx, 3 * bytes, (void **)&d, err)) != CZ_OK) return st;
    void *const host[3] = {a, b, c};
    void *const x[3] = {d, d + bytes, d + 2 * bytes};
    st = curve_ops(curve)->compute_h(ctx, s, &cfg, curve, log_n, x, host, err);
    return drain_on_error(ctx, st);
}

void cz_cuda_last_upload(cz_cuda *ctx, uint64_t *bytes, double *seconds)
{
    const ntt_state *s = ctx ? (const ntt_state *)ctx->ntt_state : NULL;
    *bytes = s ? s->last_up_bytes : 0;
    *seconds = s ? s->last_up_s : 0;
}

static cz_status check_dev_ptr(const void *p, cz_error *err)
{
    if (!p || ((uintptr_t)p & 15))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "GPU NTT: device pointer %p is NULL or not 16-byte aligned", p);
    return CZ_OK;
}

cz_status cz_cuda_ntt_dev(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *d_data, int inverse, int coset,
                          cz_error *err)
{
    if (!ctx) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_ntt_dev: NULL context");
    cz_status st = check_args(curve, log_n, err);
    if (st == CZ_OK) st = check_dev_ptr(d_data, err);
    if (st != CZ_OK) return st;
    ntt_state *s;
    ntt_cfg cfg;
    if ((st = begin(ctx, &s, &cfg, err)) != CZ_OK) return st;
    const int op = nt::op_of(inverse, coset);
    /* an n-element scratch for the bit reversal in a pass, where the device
     * has room for it; never where d_data lies in the scratch arena (the
     * caller's own block of it: it may not be moved) */
    void *y = NULL;
    const size_t bytes = ((size_t)1 << log_n) * 32;
    const char *sa = (const char *)ctx->scratch, *dd = (const char *)d_data;
    if (rev_scratch_pays(&cfg, log_n) && !(sa && dd < sa + ctx->scratch_bytes && dd + bytes > sa)) {
        void *p = NULL;
        size_t got = 0;
        const size_t lead = 256; /* (the arena's required part: nothing) */
        if ((st = cz_cuda_scratch_spare(ctx, lead, bytes, &p, &got, err)) != CZ_OK) return st;
        if (got >= bytes) y = (char *)p + lead;
    }
    return curve_ops(curve)->ntt(ctx, s, &cfg, curve, log_n, d_data, op, y, err);
}

cz_status cz_cuda_compute_h_dev(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *d_a, void *d_b, void *d_c,
                                cz_error *err)
{
    if (!ctx) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_compute_h_dev: NULL context");
    cz_status st = check_args(curve, log_n, err);
    if (st == CZ_OK) st = check_dev_ptr(d_a, err);
    if (st == CZ_OK) st = check_dev_ptr(d_b, err);
    if (st == CZ_OK) st = check_dev_ptr(d_c, err);
    if (st != CZ_OK) return st;
    ntt_state *s;
    ntt_cfg cfg;
    if ((st = begin(ctx, &s, &cfg, err)) != CZ_OK) return st;
    void *const x[3] = {d_a, d_b, d_c};
    return curve_ops(curve)->compute_h(ctx, s, &cfg, curve, log_n, x, NULL, err);
}

cz_status cz_cuda_ntt_prepare(cz_cuda *ctx, cz_curve curve, unsigned log_n, int h, int inverse, int coset,
                              cz_error *err)
{
    if (!ctx) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_ntt_prepare: NULL context");
    cz_status st = check_args(curve, log_n, err);
    if (st != CZ_OK || log_n == 0) return st;
    ntt_state *s;
    ntt_cfg cfg;
    if ((st = begin(ctx, &s, &cfg, err)) != CZ_OK) return st;
    return curve_ops(curve)->prepare(ctx, s, curve, log_n, h, nt::op_tab(nt::op_of(inverse, coset)), err);
}
