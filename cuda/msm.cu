/*
 * cuda/msm.cu: multi-scalar multiplication on the GPU (cz_cuda_msm_g1/g2 of
 * cuda/cuda.h), G1 and G2 of every curve of CZ_CURVE_LIST from one template.
 *
 * DESIGN: Pippenger with signed digits; the algorithm and the per-thread
 * work are described in cuda/msm.cuh. This file holds the kernels that need
 * block cooperation, the sort, and the host side of a call:
 *
 *  - points are processed in chunks (msm.cuh chunk_points: cz_cuda_opts
 *    msm_chunk, default 2^25, which bounds the scratch, and a short first
 *    chunk, an eighth or for BN254 G1 a fifth, or msm_first, for G1 calls
 *    through a table whose scalars upload: CZ_CUDA_MSM_SPLIT)
 *    that carry one plan's buckets: the
 *    window is chosen at the first chunk for the whole call, the later
 *    chunks add into its buckets, the last reduces them; each chunk's ones
 *    are summed on their own and added on the host;
 *  - per chunk, on ctx->h2d: the scalars are uploaded in pieces (straight
 *    from pinned host memory, else through the two pinned staging buffers)
 *    unless they are resident (the prover keeps the witness in VRAM for its
 *    four MSMs with cz_cuda_bases_pin), then, if the bases are not resident
 *    (cz_cuda_bases_lookup), the bases, the same way; chunk k + 1 is queued
 *    before chunk k is waited for, so its scalars upload (once chunk k's
 *    compaction has read its own) while chunk k sorts and accumulates;
 *  - on ctx->aux where the scalars upload (CZ_CUDA_MSM_SPLIT; else, and
 *    when tracing, on ctx->compute): k_classify (range check, class per scalar, per-block
 *    counts) on each piece of scalars as soon as it has arrived, so that
 *    the upload is hidden but for its last piece, k_scan (block offsets, m
 *    and m1), the counts go to the host;
 *    at the first chunk the host picks the window c from m (msm.cuh
 *    choose_window of carry_estimate, or msm_window) while the bases upload
 *    goes on; on ctx->compute k_compact writes the
 *    ones' indices and the W digit entries of each other point; one CUB
 *    radix sort per window on the c - 1 bits of the bucket ids (TODO: a
 *    custom counting sort / 16-bit keys, and sorting the next chunk while
 *    the current one accumulates); then (after the bases event) the launches
 *    of msm.cuh acc_part; meanwhile, on ctx->aux from the compaction on,
 *    ones_part (the sum of the ones' bases, which would otherwise wait
 *    for the sort and the accumulation: ~4 ms of a witness-like 2^22
 *    BLS12-381 G1 MSM, bench/RESULTS.md); the W window sums and the sum of
 *    the ones come back and the host combines them (c doublings per window).
 *  - tables of multiples (msm.cuh table_fn, shared plans): a resident block
 *    of bases gets one (build_table, after the call) once a second call
 *    (cz_cuda_opts.msm_table AUTO; EAGER: the first) would have used it;
 *    a chunk whose count m makes the shared plan a tenth cheaper
 *    (table_pays) writes entries that name table points and sorts them as
 *    one set;
 *  - scratch: one block from cz_cuda_scratch per call, sized up front for
 *    the worst (c, m) the chunk size allows (the fixed part: scalars, block
 *    counts, ones, streamed bases; the variable part: the largest layout over
 *    every window c the plan may choose, at the largest m choosing it; a
 *    split call's first chunk's entries after them where they fit without
 *    evicting anything, CZ_CUDA_MSM_SORT_AHEAD).
 *
 * Knobs (cz_cuda_opts of cuda/cuda.h, read per call; not the environment:
 * bench_gpu_msm's --window, --run, --l1 and --trace set them): msm_window = c
 * (4..20), msm_run = entries per thread at level 0 (>= 8, default 32, 64
 * or, for G1's largest launches, 256: msm.cuh run_default), msm_chunk =
 * points per chunk, msm_trace (plan and phase times on the logger), msm_l1
 * (the level-0 kernels' L1 / shared-memory split, for comparisons).
 *
 * TODO (tune on the H200): the accumulation is bound by the ~10 products
 * per point and window (since 2026-12-05 the move-free PTX product of
 * cuda/ff_ptx.inc for every field, Y3 = A B - C D and each Fq2 coefficient
 * as one sum of products with one reduction; BLS12-381's Fq products were
 * on the FP64 pipe 2026-12-04/05, cuda/ff52.cuh, now an option); on
 * BLS12-381 G1 by latency too (ncu, FP64 days: 12 warps per SM at 166
 * registers, issue active 43%, most stalls fixed-latency waits and the
 * multiply pipe): batch-affine accumulation with more independent work per
 * thread than a running product (below); skipping the upload of bases
 * whose scalar is 0; 16-bit sort keys. (Tried and measured,
 * bench/RESULTS.md: inlining the 381-bit product; the running sums in
 * shared memory so that the called product need not save 31 registers per
 * call under the 128-register cap, 2026-12-05: 2-16% slower; other
 * register caps at level 0 than L0_MIN_BLOCKS's; with the older products, the merged Y3 for
 * BLS12-381 as a second called body: 16-28% slower; a third of the
 * FP64-pipe products moved to the integer pipe: 24-28% slower (SASS then:
 * the level-0 loop ~800 instructions, its one product body ~1060);
 * batch-affine rounds before level 0 with one Fermat inversion per thread,
 * commit c8e0825 + 2b1fd19, 18-40% slower for G1: serial chains at 8-16
 * warps per SM; batch-affine rounds inside the level-0 runs with one
 * inversion per 64 threads, c5d754d, 4-10% slower for G1: its kernels at
 * 8-12 warps per SM, points read twice per round, the inversions' latency
 * once per round and sub-batch.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

/* ff/mont_x86_64.h's asm outputs look unused to the CUDA front end */
#pragma nv_diag_suppress 550
#include "cuda/internal.cuh"
#include "ec/ec.h"
#include "util/error.h"
#include "util/timer.h"
#pragma nv_diag_default 550

#include "cuda/msm.cuh"

namespace {

using namespace cz_dev;
using namespace cz_dev::msm;

/* ---- the groups: G1 and G2 of every curve of CZ_CURVE_LIST ---------------------- */

#define CZ_MSM_GROUP(NAME, FIELD, FRP_, BITS, MUL_PER_US)                                                            \
    struct NAME {                                                                                                    \
        typedef FIELD F;                                                                                             \
        typedef FRP_ FRP;                                                                                            \
        typedef cz_##NAME jac;                                                                                       \
        typedef cz_##NAME##_xyzz cxyzz;                                                                              \
        typedef cz_##NAME##_affine caff;                                                                             \
        static constexpr int bits = BITS;                                                                            \
        static constexpr double mul_per_us = MUL_PER_US;                                                             \
        static const char *name() { return #NAME; }                                                                  \
        static void set_inf(jac *r) { cz_##NAME##_set_inf(r); }                                                      \
        static void from_xyzz(jac *r, const cxyzz *p) { cz_##NAME##_from_xyzz(r, p); }                               \
    };                                                                                                               \
    static_assert(sizeof(affine<FIELD>) == sizeof(cz_##NAME##_affine), "affine layout");                             \
    static_assert(sizeof(xyzz<FIELD>) == sizeof(cz_##NAME##_xyzz), "xyzz layout");

/* products per microsecond of each curve's Fq: measured CIOS rates on the
 * H200 (bench/RESULTS.md), Fq2 at a third; they only weigh the fixed
 * per-window cost in the plan */
#define CZ_BLS12_381_GPU_FQ_MUL_PER_US 16800.0
#define CZ_BN254_GPU_FQ_MUL_PER_US 37500.0
#define CZ_MSM_GROUPS_(ID, VALUE, SYM, CONST, SHORT, ...)                                                                    \
    CZ_MSM_GROUP(SHORT##_g1, SHORT##_fq, SHORT##_fr_p, CONST##_FR_BITS, CONST##_GPU_FQ_MUL_PER_US)                   \
    CZ_MSM_GROUP(SHORT##_g2, SHORT##_fq2, SHORT##_fr_p, CONST##_FR_BITS, CONST##_GPU_FQ_MUL_PER_US / 3.0)
CZ_CURVE_LIST(CZ_MSM_GROUPS_)
#undef CZ_MSM_GROUPS_
#undef CZ_MSM_GROUP

/* ---- per-context state: events and a small pinned buffer ----------------------------- */

struct msm_state {
    cudaEvent_t ev_scal, ev_counts, ev_bases, ev_prep, ev_stage[2];
    cudaEvent_t ev_ones;       /* the sum of the ones done (on ctx->aux) */
    cudaEvent_t ev_sorted;     /* a chunk sorted ahead on ctx->aux (CZ_CUDA_MSM_SORT_AHEAD) */
    cudaEvent_t ev_done[2];    /* per chunk parity: its last kernel (and its results' copy) done */
    cudaEvent_t tev[PH_COUNT]; /* timing events (msm_trace) */
    void *host;                /* pinned: flags at 0, results at HOST_OUT (two slots, per chunk parity) */
};

static const size_t HOST_OUT = 256;
/* the largest bucket type: G2 of the curve with the widest Fq */
#define CZ_MSM_G2_XYZZ_(ID, VALUE, SYM, CONST, SHORT, ...) sizeof(xyzz<SHORT##_fq2>),
static constexpr size_t G2_XYZZ_BYTES[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_MSM_G2_XYZZ_)};
#undef CZ_MSM_G2_XYZZ_
static constexpr size_t max_of(const size_t *v, size_t n)
{
    return n == 1 ? v[0] : v[0] > max_of(v + 1, n - 1) ? v[0] : max_of(v + 1, n - 1);
}
static const size_t HOST_SLOT = (MAX_WINDOWS + 1) * max_of(G2_XYZZ_BYTES, CZ_CURVE_COUNT);
static const size_t HOST_BYTES = HOST_OUT + 2 * HOST_SLOT;
static const size_t STAGE_BYTES = (size_t)32 << 20; /* per staging buffer */

/* flags (uint32 words at the start of the device "flags" array and of host) */
enum { FL_M, FL_M1, FL_BAD, FL_FIRST_BAD, FL_COUNT };

static void msm_state_free(cz_cuda *ctx)
{
    msm_state *s = (msm_state *)ctx->msm_state;
    if (!s) return;
    cudaEvent_t *evs[] = {&s->ev_scal,     &s->ev_counts,  &s->ev_bases,   &s->ev_prep,  &s->ev_stage[0],
                          &s->ev_stage[1], &s->ev_done[0], &s->ev_done[1], &s->ev_ones, &s->ev_sorted};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i]) cudaEventDestroy(*evs[i]);
    for (int i = 0; i < PH_COUNT; i++)
        if (s->tev[i]) cudaEventDestroy(s->tev[i]);
    if (s->host) cudaFreeHost(s->host);
    free(s);
    ctx->msm_state = NULL;
    ctx->msm_state_free = NULL;
}

static cz_status init_state(cz_cuda *ctx, msm_state *s, cz_error *err)
{
    cudaEvent_t *evs[] = {&s->ev_scal,     &s->ev_counts,  &s->ev_bases,   &s->ev_prep,  &s->ev_stage[0],
                          &s->ev_stage[1], &s->ev_done[0], &s->ev_done[1], &s->ev_ones, &s->ev_sorted};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        CZ_CUDA_TRY(ctx, err, cudaEventCreateWithFlags(evs[i], cudaEventDisableTiming));
    for (int i = 0; i < PH_COUNT; i++)
        CZ_CUDA_TRY(ctx, err, cudaEventCreate(&s->tev[i]));
    CZ_CUDA_TRY(ctx, err, cudaHostAlloc(&s->host, HOST_BYTES, cudaHostAllocDefault));
    return CZ_OK;
}

static cz_status get_state(cz_cuda *ctx, msm_state **out, cz_error *err)
{
    if (ctx->msm_state) {
        *out = (msm_state *)ctx->msm_state;
        return CZ_OK;
    }
    msm_state *s = (msm_state *)calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_ERR_NO_MEMORY, "cz_cuda_msm: out of host memory");
    ctx->msm_state = s;
    ctx->msm_state_free = msm_state_free;
    cz_status st = init_state(ctx, s, err);
    if (st != CZ_OK) {
        msm_state_free(ctx); /* the next call starts afresh */
        return st;
    }
    *out = s;
    return CZ_OK;
}

/* ---- knobs ---------------------------------------------------------------------------- */

static knobs read_knobs(const cz_cuda *ctx)
{
    knobs k;
    const cz_cuda_opts &o = ctx->opts;
    k.window = o.msm_window >= C_FORCE_MIN && o.msm_window <= C_MAX ? o.msm_window : 0;
    k.run = o.msm_run >= 8 && o.msm_run <= ((size_t)1 << 20) ? o.msm_run : 0;
    k.chunk = o.msm_chunk;
    k.run_huge = 0;
    k.chunk_first = o.msm_first;
    return k;
}

/* ---- kernels ---------------------------------------------------------------------------- */

static const int PREP_BLOCK = 256;
static const int SCAN_BLOCK = 512, SCAN_ITEMS = 4;
static const int FN_BLOCK = 128;

CZ_HD scalar load_scalar_v(const uint4 *p)
{
    uint4 a = p[0], b = p[1];
    scalar s = {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
    return s;
}

/* class of each scalar of blocks blk0 + blockIdx.x (a launch per uploaded
 * piece); per block: (#other) | (#ones << 16); bad scalars set flags[FL_BAD]
 * and the least bad index */
template <class FRP>
__global__ void __launch_bounds__(PREP_BLOCK)
    k_classify(const uint4 *scal, size_t n, int mont, size_t blk0, uint32_t *blkcnt, uint32_t *flags)
{
    typedef cub::BlockReduce<uint32_t, PREP_BLOCK> reduce_t;
    __shared__ typename reduce_t::TempStorage tmp;
    const size_t blk = blk0 + blockIdx.x, i = blk * PREP_BLOCK + threadIdx.x;
    uint32_t packed = 0;
    if (i < n) {
        int cls = classify<FRP>(load_scalar_v(scal + 2 * i), mont != 0);
        if (cls == CLS_BAD) {
            atomicOr(&flags[FL_BAD], 1u);
            atomicMin(&flags[FL_FIRST_BAD], (uint32_t)i);
        }
        packed = (uint32_t)(cls == CLS_OTHER) | ((uint32_t)(cls == CLS_ONE) << 16);
    }
    uint32_t sum = reduce_t(tmp).Sum(packed);
    if (threadIdx.x == 0) blkcnt[blk] = sum;
}

/* one block: exclusive offsets of the per-block counts, totals m and m1 */
__global__ void __launch_bounds__(SCAN_BLOCK)
    k_scan(const uint32_t *blkcnt, size_t nblk, uint32_t *off_other, uint32_t *off_one, uint32_t *flags)
{
    typedef cub::BlockScan<unsigned long long, SCAN_BLOCK> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    unsigned long long carry = 0; /* other counts in the low half, ones in the high half */
    for (size_t base = 0; base < nblk; base += (size_t)SCAN_BLOCK * SCAN_ITEMS) {
        unsigned long long v[SCAN_ITEMS];
        for (int k = 0; k < SCAN_ITEMS; k++) {
            size_t idx = base + (size_t)threadIdx.x * SCAN_ITEMS + k;
            uint32_t x = idx < nblk ? blkcnt[idx] : 0;
            v[k] = (unsigned long long)(x & 0xffffu) | ((unsigned long long)(x >> 16) << 32);
        }
        unsigned long long agg;
        scan_t(tmp).ExclusiveSum(v, v, agg);
        for (int k = 0; k < SCAN_ITEMS; k++) {
            size_t idx = base + (size_t)threadIdx.x * SCAN_ITEMS + k;
            if (idx < nblk) {
                unsigned long long o = v[k] + carry;
                off_other[idx] = (uint32_t)o;
                off_one[idx] = (uint32_t)(o >> 32);
            }
        }
        carry += agg;
        __syncthreads(); /* tmp is reused */
    }
    if (threadIdx.x == 0) {
        flags[FL_M] = (uint32_t)carry;
        flags[FL_M1] = (uint32_t)(carry >> 32);
    }
}

/* compaction in index order: the ones' indices, the digit entries of the others */
template <class FRP>
__global__ void __launch_bounds__(PREP_BLOCK)
    k_compact(const uint4 *scal, size_t n, int mont, const uint32_t *off_other, const uint32_t *off_one, int c,
              int W, int wt, int wpad, size_t m, uint32_t v0, uint32_t vstep, uint32_t *keys, uint32_t *vals,
              uint32_t *idx1)
{
    typedef cub::BlockScan<uint32_t, PREP_BLOCK> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    const size_t i = (size_t)blockIdx.x * PREP_BLOCK + threadIdx.x;
    int cls = CLS_SKIP;
    scalar s = {{0, 0, 0, 0, 0, 0, 0, 0}};
    if (i < n) {
        s = load_scalar_v(scal + 2 * i);
        cls = classify<FRP>(s, mont != 0);
    }
    uint32_t packed = (uint32_t)(cls == CLS_OTHER) | ((uint32_t)(cls == CLS_ONE) << 16), rank;
    scan_t(tmp).ExclusiveSum(packed, rank);
    if (cls == CLS_OTHER) {
        size_t j = (size_t)off_other[blockIdx.x] + (rank & 0xffffu);
        write_entries(canonical<FRP>(s, mont != 0), v0 + (uint32_t)i, j, c, W, m, keys, vals, vstep, wt, wpad);
    } else if (cls == CLS_ONE) {
        idx1[(size_t)off_one[blockIdx.x] + (rank >> 16)] = (uint32_t)i;
    }
}

template <class Fn> __global__ void __launch_bounds__(FN_BLOCK) k_for_each(Fn fn, size_t count)
{
    const size_t t = (size_t)blockIdx.x * FN_BLOCK + threadIdx.x;
    if (t < count) fn(t);
}

/* the level-0 kernel, its registers capped so that MINB blocks fit an SM */
template <class Fn, int MINB> __global__ void __launch_bounds__(FN_BLOCK, MINB) k_level0(Fn fn, size_t count)
{
    const size_t t = (size_t)blockIdx.x * FN_BLOCK + threadIdx.x;
    if (t < count) fn(t);
}

/* grid for count threads of `block` */
static bool grid_of(size_t count, int block, unsigned *grid)
{
    size_t g = (count + (size_t)block - 1) / (size_t)block;
    if (g > 0x7fffffffu) return false;
    *grid = (unsigned)g;
    return true;
}

/* Level 0 with the mixed addition inlined in its loop (level0_inlined) for
 * coordinate fields of at most 512 bits: measured on the H200 (bench/
 * RESULTS.md, 2026-12-02), BN254 G2 4.3% and BLS12-381 G1 1.1% faster than
 * the called addition, BN254 G1 the same; BLS12-381 G2's Fq2 formula inlined
 * was 57% slower (255 registers and spills), so it keeps the call. (Inlining
 * the 381-bit products too was 27% slower for BLS12-381 G1: ~10 copies of a
 * product no longer fit the instruction cache.) */
template <class F> static constexpr bool L0_INLINE = sizeof(F) <= 64;

/* Blocks per SM the level-0 kernel is compiled for (0: no minimum, the
 * kernel of all the other operations' launch bounds), measured on the H200
 * (bench/RESULTS.md, 2026-12-02 and 2026-12-04) and the H100 (2026-12-05):
 *  - BLS12-381 G1, 4 (at most 128 registers, 86 bytes of spills, 16
 *    warps): with the integer product (the default since 2026-12-05) 5.7%
 *    faster at 2^24 than 3 blocks (168, no spills), 2.7-5% at 2^20-2^22,
 *    witness-like scalars unchanged (H100, twice); 3 had been the best for
 *    the FP64-pipe product (which spilled at 128);
 *  - BN254 G1, 6 (80 registers, 24 warps, some spills): 1% faster than its
 *    128 (16 warps); 5 (96) 1% slower;
 *  - BN254 G2, 4 (128 registers, 544 bytes of spills): 3.0% faster than its
 *    236;
 *  - BLS12-381 G2 keeps 255 registers and its called addition: 3 blocks
 *    (168, 1100 bytes of spills) was 3.3% slower, 4 blocks 4.7%. */
#ifndef CZ_CUDA_L0_BLOCKS_BLS_G1 /* (-D... to compare other caps without an edit) */
#define CZ_CUDA_L0_BLOCKS_BLS_G1 4
#endif
#ifndef CZ_CUDA_L0_BLOCKS_BN_G1
#define CZ_CUDA_L0_BLOCKS_BN_G1 6
#endif
#ifndef CZ_CUDA_L0_BLOCKS_BLS_G2
#define CZ_CUDA_L0_BLOCKS_BLS_G2 0
#endif
#ifndef CZ_CUDA_L0_BLOCKS_BN_G2
#define CZ_CUDA_L0_BLOCKS_BN_G2 4
#endif
template <class F>
static constexpr int L0_MIN_BLOCKS = F::DEGREE == 1
                                         ? (sizeof(F) == 48 ? CZ_CUDA_L0_BLOCKS_BLS_G1 : CZ_CUDA_L0_BLOCKS_BN_G1)
                                         : (sizeof(F) == 64 ? CZ_CUDA_L0_BLOCKS_BN_G2 : CZ_CUDA_L0_BLOCKS_BLS_G2);

/* Operations that get a kernel of their own beside level 0's, with its
 * register cap (L0_MIN_BLOCKS), instead of sharing the generic kernel's
 * (255 registers for BLS12-381 G1: 8 warps per SM): bit 1 the merge of a
 * later chunk's buckets (merge_fn, one full addition per bucket), bit 2 the
 * reduction (reduce_fn). Each costs ptxas one more kernel per group, and
 * neither paid (H100, bench/RESULTS.md 2026-12-06: BLS12-381 G1 2^24
 * through the table 101.48 / 101.42 ms with bit 1 / bits 1 and 2, against
 * 101.48 without), so 0. */
#ifndef CZ_CUDA_MSM_OWN
#define CZ_CUDA_MSM_OWN 0
#endif

/* msm.cuh's executor on one stream (ctx->compute, or ctx->aux for the
 * ones). The level-0 accumulation, where the
 * time goes, has a kernel of its own: in the kernel of all the other
 * operations it would share their register count (the reduction's: 255
 * against 166 for BLS12-381 G1, 229 against 116 for BN254 G1). */
struct dev_exec {
    cz_cuda *ctx;
    cz_error *err;
    msm_state *st;
    bool trace;
    cudaStream_t s;
    /* MINB > 0: the level-0 kernel (k_level0), compiled for MINB blocks per
     * SM; L0: a level-0 launch (its L1 split, l1_split) */
    template <int MINB = 0, bool L0 = false, class Fn> cz_status launch(const Fn &fn, size_t count)
    {
        if (count == 0) return CZ_OK;
        if constexpr (L0) {
            cz_status ls = MINB > 0 ? l1_split(k_level0<Fn, MINB>) : l1_split(k_for_each<Fn>);
            if (ls != CZ_OK) return ls;
        }
        unsigned grid;
        if (!grid_of(count, FN_BLOCK, &grid))
            return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: launch of %zu threads", count);
        if constexpr (MINB > 0)
            k_level0<Fn, MINB><<<grid, FN_BLOCK, 0, s>>>(fn, count);
        else
            k_for_each<Fn><<<grid, FN_BLOCK, 0, s>>>(fn, count);
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        return CZ_OK;
    }
    /* The L1 / shared-memory split of a level-0 kernel (cz_cuda_opts
     * msm_l1: the level-0 loops' local memory, the products' saved
     * registers and spills, lives in L1), set when it changes (the last
     * value set per kernel kept: the default never calls the driver). */
    template <class K> cz_status l1_split(K *kern)
    {
        enum { DEVS = 64 }; /* per device: the attribute is the device's (past DEVS: set every time) */
        static std::atomic<int> set[DEVS];
        const int want = ctx->opts.msm_l1;
        const bool cached = (unsigned)ctx->device < DEVS;
        if (cached && set[ctx->device].load(std::memory_order_relaxed) == want) return CZ_OK;
        const int pct = want == CZ_CUDA_L1_MAX   ? (int)cudaSharedmemCarveoutMaxL1
                        : want == CZ_CUDA_L1_MIN ? (int)cudaSharedmemCarveoutMaxShared
                                                 : (int)cudaSharedmemCarveoutDefault;
        CZ_CUDA_TRY(ctx, err, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
        if (cached) set[ctx->device].store(want, std::memory_order_relaxed);
        return CZ_OK;
    }
    template <class F> cz_status run(const op<F> &fn, size_t count)
    {
        if (fn.kind == OP_LEVEL0) {
            if constexpr (L0_INLINE<F>)
                return launch<L0_MIN_BLOCKS<F>, true>(level0_inlined(fn.l0), count);
            else
                return launch<L0_MIN_BLOCKS<F>, true>(fn.l0, count);
        }
        if constexpr ((CZ_CUDA_MSM_OWN & 1) != 0)
            if (fn.kind == OP_MERGE) return launch<L0_MIN_BLOCKS<F>>(fn.mg, count);
        if constexpr ((CZ_CUDA_MSM_OWN & 2) != 0)
            if (fn.kind == OP_REDUCE) return launch<L0_MIN_BLOCKS<F>>(fn.r, count);
        return launch(fn, count);
    }
    cz_status zero(void *p, size_t bytes)
    {
        CZ_CUDA_TRY(ctx, err, cudaMemsetAsync(p, 0, bytes, s));
        return CZ_OK;
    }
    cz_status copy(void *dst, const void *src, size_t bytes)
    {
        CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
        return CZ_OK;
    }
    cz_status mark(int phase)
    {
        if (trace) CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->tev[phase], s));
        return CZ_OK;
    }
};

/* ---- scratch layout ------------------------------------------------------------------- */

/* Carves aligned arrays off a block; with base NULL it only measures. */
struct carver {
    char *base;
    size_t used;
    template <class T> T *take(size_t count)
    {
        used = (used + 255) & ~(size_t)255;
        T *p = base ? (T *)(base + used) : NULL;
        used += count * sizeof(T);
        return p;
    }
};

/* the part of the scratch that does not depend on (c, m) */
template <class T> struct fixed_part {
    uint4 *scal;
    uint32_t *blkcnt, *off_other, *off_one, *flags, *idx1;
    affine<typename T::F> *bases; /* streamed bases (NULL when resident) */
    xyzz<typename T::F> *ones[2];
};

template <class T> static void carve_fixed(carver &cv, fixed_part<T> &f, size_t nc, bool streamed)
{
    typedef typename T::F F;
    size_t nblk = (nc + PREP_BLOCK - 1) / PREP_BLOCK;
    f.scal = cv.template take<uint4>(2 * nc);
    f.blkcnt = cv.template take<uint32_t>(nblk);
    f.off_other = cv.template take<uint32_t>(nblk);
    f.off_one = cv.template take<uint32_t>(nblk);
    f.flags = cv.template take<uint32_t>(FL_COUNT);
    f.idx1 = cv.template take<uint32_t>(nc);
    f.bases = streamed ? cv.template take<affine<F>>(nc) : NULL;
    size_t g1 = (nc + SUM_GROUP - 1) / SUM_GROUP;
    f.ones[0] = cv.template take<xyzz<F>>(g1);
    f.ones[1] = cv.template take<xyzz<F>>(tree_tmp_cap(1, g1));
}

/* the part that depends on the plan */
template <class T> struct var_part {
    uint32_t *keys, *vals, *keys_alt, *vals_alt;
    uint32_t *pkey[2];
    xyzz<typename T::F> *pval[2], *buckets, *fresh, *seg[2], *out;
    void *sort_tmp;
    size_t sort_bytes;
};

static cz_status sort_temp_bytes(cz_cuda *ctx, size_t m, int c, size_t *bytes, cz_error *err)
{
    *bytes = 0;
    if (m == 0) return CZ_OK;
    cub::DoubleBuffer<uint32_t> k(NULL, NULL), v(NULL, NULL);
    CZ_CUDA_TRY(ctx, err, cub::DeviceRadixSort::SortPairs(NULL, *bytes, k, v, (int)m, 0, c - 1, ctx->compute));
    return CZ_OK;
}

/* (ev: the entry arrays, level partials and sort temporary from a region of
 * their own: a call's short first chunk's, sorted ahead of the next, below) */
template <class T> static void carve_var(carver &cv, var_part<T> &v, const plan &p, size_t sort_bytes, carver *ev = NULL)
{
    typedef typename T::F F;
    carver &ec = ev ? *ev : cv;
    const size_t W = (size_t)p.A, e = (size_t)p.A * p.E; /* W: bucket sets */
    /* first: what the chunks of a call share (the buckets, carried from
     * chunk to chunk) sits at the same place in every chunk's layout; the
     * fresh buckets of the later chunks where the call has several */
    v.buckets = cv.template take<xyzz<F>>(W * p.nb);
    v.seg[0] = cv.template take<xyzz<F>>(W * p.nseg);
    v.seg[1] = cv.template take<xyzz<F>>(tree_tmp_cap(W, p.nseg));
    v.out = cv.template take<xyzz<F>>(W + 1);
    v.fresh = p.first && p.last ? NULL : cv.template take<xyzz<F>>(W * p.nb);
    v.keys = ec.template take<uint32_t>(e);
    v.vals = ec.template take<uint32_t>(e);
    v.keys_alt = ec.template take<uint32_t>(e);
    v.vals_alt = ec.template take<uint32_t>(e);
    for (int q = 0; q < 2; q++) {
        size_t cap = piece_cap(p, q);
        v.pkey[q] = ec.template take<uint32_t>(cap);
        v.pval[q] = ec.template take<xyzz<F>>(cap);
    }
    v.sort_tmp = ec.template take<char>(sort_bytes);
    v.sort_bytes = sort_bytes;
}

/* the bytes carve_var takes from ev for plan p */
template <class T> static size_t entries_bytes(const plan &p, size_t sort_bytes)
{
    carver cv = {NULL, 0}, ev = {NULL, 0};
    var_part<T> v;
    carve_var<T>(cv, v, p, sort_bytes, &ev);
    return ev.used + 256;
}

/* the window for m points */
template <class T> static int window_for(size_t m, const knobs &k)
{
    return k.window ? k.window : choose_window(m > 0 ? m : 1, T::bits, T::mul_per_us);
}

/* (multi: a chunk of a call of several, whose layout holds fresh buckets) */
template <class T>
static cz_status var_bytes(cz_cuda *ctx, size_t m, int c, const knobs &k, bool shared, int wt, bool multi,
                           size_t *bytes, cz_error *err)
{
    plan p;
    if (!make_plan(&p, m, 0, c, T::bits, k, shared, wt))
        return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: no plan for m=%zu c=%d", m, c);
    p.last = !multi;
    size_t sb;
    cz_status st = sort_temp_bytes(ctx, p.E, c, &sb, err);
    if (st != CZ_OK) return st;
    carver cv = {NULL, 0};
    var_part<T> v;
    carve_var<T>(cv, v, p, sb);
    *bytes = cv.used + 256;
    return CZ_OK;
}

/*
 * The variable part's size for any m <= hi at window c: the layout grows with
 * m for a fixed c and a fixed level-0 run, so the largest is at hi or, where
 * the default run switches to a longer one at some m < hi (run_default), at
 * the largest m below the switch.
 */
template <class T>
static cz_status var_bytes_upto(cz_cuda *ctx, size_t hi, int c, const knobs &k, bool shared, int wt, bool multi,
                                size_t *bytes, cz_error *err)
{
    cz_status st = var_bytes<T>(ctx, hi, c, k, shared, wt, multi, bytes, err);
    for (int i = 0; i < 2 && st == CZ_OK; i++) {
        const size_t below = run_switch_below(i, windows_of(c, T::bits), k);
        size_t b = 0;
        if (below >= 1 && below < hi && (st = var_bytes<T>(ctx, below, c, k, shared, wt, multi, &b, err)) == CZ_OK &&
            b > *bytes)
            *bytes = b;
    }
    return st;
}

/*
 * The variable part's size for any m <= nc: for every window c the plan can
 * pick, up to the largest m that picks at most c (choose_window never
 * decreases as m grows); with a table of window tc (> 0) and tw windows,
 * the shared plan's for any m <= nc too. A call of n points in several
 * chunks (the first of `first` < n points: msm.cuh chunk_points) picks its
 * window for an m up to n, which any chunk's m <= nc may meet, and holds
 * fresh buckets.
 */
template <class T>
static cz_status var_reserve(cz_cuda *ctx, size_t n, size_t nc, size_t first, const knobs &k, int tc, int tw,
                             size_t *bytes, cz_error *err)
{
    const bool multi = first < n;
    *bytes = 0;
    if (tc > 0) {
        cz_status st = var_bytes_upto<T>(ctx, nc, tc, k, true, tw, multi, bytes, err);
        if (st != CZ_OK) return st;
    }
    if (k.window) {
        size_t b = 0;
        cz_status st = var_bytes_upto<T>(ctx, nc, k.window, k, false, 0, multi, &b, err);
        if (b > *bytes) *bytes = b;
        return st;
    }
    int clo = window_for<T>(1, k), chi = window_for<T>(multi ? n : nc, k);
    for (int c = clo; c <= chi; c++) {
        /* the largest m in [1, nc] with window_for(m) <= c; several chunks: nc */
        size_t lo = multi ? nc : 1, hi = nc;
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            if (window_for<T>(mid, k) <= c)
                lo = mid;
            else
                hi = mid - 1;
        }
        size_t b = 0;
        cz_status st = var_bytes_upto<T>(ctx, lo, c, k, false, 0, multi, &b, err);
        if (st != CZ_OK) return st;
        if (b > *bytes) *bytes = b;
    }
    return CZ_OK;
}

/* ---- uploads -------------------------------------------------------------------------------- */

/* Bytes per piece of an upload: an eighth of it, at least 1 MiB (a copy
 * costs a few microseconds to issue), at most a staging buffer; a multiple
 * of 64 KiB, so that a piece of scalars is whole k_classify blocks
 * (PREP_BLOCK x 32 bytes). */
static size_t upload_piece(size_t bytes)
{
    size_t p = bytes / 8;
    if (p < ((size_t)1 << 20)) p = (size_t)1 << 20;
    if (p > STAGE_BYTES) p = STAGE_BYTES;
    return p & ~(((size_t)64 << 10) - 1);
}

/*
 * host[0, bytes) -> dev on ctx->h2d in pieces (upload_piece): copies
 * straight from pinned memory, else through the two staging buffers (each
 * reused once the copy out of it has finished). poll(done) runs after each
 * piece is queued, done = the bytes queued so far (the host's chance to
 * launch compute work on what has arrived, or other work meanwhile).
 */
template <class Poll>
static cz_status upload(cz_cuda *ctx, msm_state *st, void *dev, const void *host, size_t bytes, Poll &poll,
                        cz_error *err)
{
    if (bytes == 0) return poll(0);
    const bool direct = cz_cuda_host_pinned(host, bytes);
    void *stage[2] = {NULL, NULL};
    if (!direct) {
        cz_status s = cz_cuda_staging(ctx, STAGE_BYTES, stage, err); /* always the same size: allocated once */
        if (s != CZ_OK) return s;
    }
    const size_t piece = upload_piece(bytes);
    size_t k = 0;
    for (size_t off = 0; off < bytes; off += piece, k++) {
        size_t len = bytes - off < piece ? bytes - off : piece;
        const void *src = (const char *)host + off;
        int b = (int)(k & 1);
        if (!direct) {
            CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(st->ev_stage[b]));
            cz_cuda_host_copy(ctx, stage[b], src, len);
            src = stage[b];
        }
        CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync((char *)dev + off, src, len, cudaMemcpyHostToDevice, ctx->h2d));
        if (!direct) CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_stage[b], ctx->h2d));
        cz_status s = poll(off + len);
        if (s != CZ_OK) return s;
    }
    return CZ_OK;
}

/* ---- one chunk -------------------------------------------------------------------------------- */

/* 1: G1 calls through a table of multiples whose scalars upload run in
 * two carried chunks (msm.cuh chunk_points), and every call's uploaded
 * scalars are classified and counted on ctx->aux beside the previous
 * chunk's work; 0: one chunk up to CHUNK_DEFAULT points, classified on
 * ctx->compute (the comparison: -DCZ_CUDA_MSM_SPLIT=0). Measured on the
 * H100 (bench/RESULTS.md, 2026-12-06): split, BLS12-381 G1 2^24 through
 * the table 104.8 -> 101.6 ms and BN254 G1 54.2 -> 51.0, but per-window
 * plans (BLS12-381 G1 2^24 120.4 -> 124.3, its A nb = 6.8 M merge
 * additions) and G2 (BLS12-381 2^22 91.3 -> 95.2) slower: those keep one
 * chunk. */
#ifndef CZ_CUDA_MSM_SPLIT
#define CZ_CUDA_MSM_SPLIT 1
#endif

/* 1: in a call split into a short first chunk and the rest, the first
 * chunk's entry arrays, level partials and sort temporary live in a region
 * of their own (cl.first_base, taken beside the variable part where the
 * device has room for it without evicting anything: ~0.45 GB at BLS12-381
 * G1 2^24), so the second chunk's compaction and sort run on ctx->aux as
 * soon as its counts are in, beside the first chunk's accumulation on
 * ctx->compute (its memory-bound sort beside the product-bound level 0 and
 * the small launches of the upper levels), instead of after it. Its ones
 * wait for the first chunk's results to be copied out (they share the
 * output's ones slot). Measured on the H100 (bench/RESULTS.md, 2026-12-06):
 * BLS12-381 G1 2^24 through the table 101.6 -> 100.9 ms, BN254 G1 49.5 ->
 * 49.0. 0: the sort after the previous chunk on ctx->compute. */
#ifndef CZ_CUDA_MSM_SORT_AHEAD
#define CZ_CUDA_MSM_SORT_AHEAD 1
#endif

template <class T> struct call {
    typedef typename T::F F;
    cz_cuda *ctx;
    msm_state *st;
    cz_error *err;
    knobs kn;
    bool mont, trace;
    fixed_part<T> fx;
    char *var_base;
    size_t var_reserved;
    char *first_base;      /* the short first chunk's entries (CZ_CUDA_MSM_SORT_AHEAD; NULL: none) */
    size_t first_reserved; /* bytes at first_base */
    bool first_own;        /* the first chunk took them: the next one sorts ahead */
    size_t first_len;      /* the first chunk's points */
    bool ahead;            /* this chunk sorted ahead on ps */
    const affine<F> *resident; /* device copy of all n bases, or NULL */
    const uint4 *resident_scal; /* device copy of all n scalars, or NULL */
    /* the table of multiples of the resident block (msm.cuh table_fn), or
     * NULL: window w >= 1 of the call's point i at table[(w - 1) tab_n +
     * tab_first + i], window 0 the block's point itself */
    const affine<F> *table;
    size_t tab_n, tab_first;
    int tab_c, tab_w; /* its window and windows kept (all W, or a partial table's Wt) */
    int want_c; /* without a table: the window of one this call would use, else 0 */
    bool wants_table;
    const uint4 *d_scal;        /* this chunk's scalars on the device */
    cudaStream_t ps;            /* the chunk's classification and counts (ctx->aux; tracing: ctx->compute) */
    /* the chunk, of a call of n_all points whose chunks carry one plan's
     * buckets (msm.cuh chunk_points): its window and kind, from the first */
    size_t off, len, nblk, n_all;
    int carry_c;
    bool carry_shared;
    const uint8_t *h_scal;
    const affine<F> *h_bases;
    /* phase 2 (after the counts) */
    bool launched;
    plan p;
    var_part<T> v;
    const uint32_t *keys_sorted, *vals_sorted;

    /* Reads the counts, plans, compacts and sorts. */
    cz_status phase2()
    {
        launched = true;
        const uint32_t *hf = (const uint32_t *)st->host;
        if (hf[FL_BAD])
            return cz_error_set(err, CZ_ERR_RANGE, "cz_cuda_msm: scalar %zu is not below r",
                                off + (size_t)hf[FL_FIRST_BAD]);
        size_t m = hf[FL_M], m1 = hf[FL_M1];
        if (m + m1 > len)
            return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: counts %zu + %zu > %zu", m, m1, len);
        /* the plan: chosen at the first chunk for the whole call's m (an
         * estimate from this chunk where there are more), kept by the
         * others; one bucket set through the table where that is cheaper
         * (never with a forced window: sweeps time the per-window plan) */
        if (off == 0) {
            const size_t me = carry_estimate(m, len, n_all);
            carry_shared = table && !kn.window && table_pays(me, tab_c, T::bits, T::mul_per_us, tab_w) &&
                           make_plan(&p, m, m1, tab_c, T::bits, kn, true, tab_w);
            carry_c = carry_shared ? tab_c : window_for<T>(me, kn);
            if (want_c && !kn.window && table_pays(me, want_c, T::bits, T::mul_per_us)) wants_table = true;
        }
        if (!make_plan(&p, m, m1, carry_c, T::bits, kn, carry_shared, carry_shared ? tab_w : 0))
            return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: no plan for m=%zu c=%d%s", m, carry_c,
                                carry_shared ? " (table)" : "");
        p.first = off == 0;
        p.last = off + len >= n_all;
        const bool shared = p.shared;
        const int c = p.c;
        size_t sb;
        cz_status s = sort_temp_bytes(ctx, p.E, c, &sb, err);
        if (s != CZ_OK) return s;
        carver cv = {var_base, 0};
        if (off == 0) {
            first_own = first_base && !p.last && entries_bytes<T>(p, sb) <= first_reserved;
            first_len = len;
        }
        carver ev = {first_base, 0};
        carve_var<T>(cv, v, p, sb, off == 0 && first_own ? &ev : NULL);
        /* the chunk after a first one with entries of its own: compacted and
         * sorted on ps beside the first chunk's accumulation */
        ahead = first_own && off > 0 && off == first_len && ps != ctx->compute;
        cudaStream_t cs = ahead ? ps : ctx->compute;
        if (cv.used > var_reserved)
            return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: layout %zu > reserved %zu bytes (m=%zu c=%d)",
                                cv.used, var_reserved, m, c);
        /* the counts' offsets come from ps */
        if (cs != ps) CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(cs, st->ev_counts, 0));
        if (m + m1 > 0) {
            /* entries name the bases of the chunk, or their multiples in the table */
            const uint32_t v0 = shared ? (uint32_t)(tab_first + off) : 0, vstep = shared ? (uint32_t)tab_n : 0;
            k_compact<typename T::FRP><<<(unsigned)nblk, PREP_BLOCK, 0, cs>>>(
                d_scal, len, mont, fx.off_other, fx.off_one, p.c, p.W, shared ? p.Wt : 0, p.A * p.Wt, m, v0, vstep,
                v.keys, v.vals, fx.idx1);
            CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        }
        /* the last read of the chunk's scalar buffer: the next chunk may upload into it */
        CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_prep, cs));
        keys_sorted = v.keys;
        vals_sorted = v.vals;
        if (m > 0) {
            /* each bucket set's E entries (a window's m, or all W m when shared) */
            const size_t E = p.E;
            int sel0 = -1;
            for (int w = 0; w < p.A; w++) {
                size_t o = (size_t)w * E;
                cub::DoubleBuffer<uint32_t> dk(v.keys + o, v.keys_alt + o), dv(v.vals + o, v.vals_alt + o);
                size_t tb = v.sort_bytes;
                CZ_CUDA_TRY(ctx, err,
                            cub::DeviceRadixSort::SortPairs(v.sort_tmp, tb, dk, dv, (int)E, 0, p.c - 1, cs));
                CZ_CUDA_TRY(ctx, err, cudaGetLastError());
                if (dk.selector != dv.selector)
                    return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: sort left keys and values apart");
                if (sel0 < 0) sel0 = dk.selector;
                if (dk.selector != sel0) { /* not expected (same passes for every window): move it */
                    uint32_t *kd = (sel0 ? v.keys_alt : v.keys) + o, *vd = (sel0 ? v.vals_alt : v.vals) + o;
                    CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(kd, dk.Current(), E * 4, cudaMemcpyDeviceToDevice, cs));
                    CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(vd, dv.Current(), E * 4, cudaMemcpyDeviceToDevice, cs));
                }
            }
            keys_sorted = sel0 ? v.keys_alt : v.keys;
            vals_sorted = sel0 ? v.vals_alt : v.vals;
        }
        if (ahead) { /* the accumulation (ctx->compute) after the sort */
            CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_sorted, cs));
            CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->compute, st->ev_sorted, 0));
        }
        if (trace) CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->tev[PH_SORT], ctx->compute));
        return CZ_OK;
    }

    /* poll hook of the bases upload: phase 2 as soon as the counts are in */
    cz_status operator()(size_t)
    {
        if (launched) return CZ_OK;
        cudaError_t e = cudaEventQuery(st->ev_counts);
        if (e == cudaErrorNotReady) {
            (void)cudaGetLastError(); /* not an error: keep it out of the launch checks */
            return CZ_OK;
        }
        CZ_CUDA_TRY(ctx, err, e);
        return phase2();
    }

    /* k_classify of blocks [blk0, blk1) once ctx->h2d has copied them */
    cz_status classify(size_t blk0, size_t blk1, bool after_h2d)
    {
        if (blk1 <= blk0) return CZ_OK;
        if (after_h2d) {
            CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_scal, ctx->h2d));
            CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ps, st->ev_scal, 0));
        }
        k_classify<typename T::FRP><<<(unsigned)(blk1 - blk0), PREP_BLOCK, 0, ps>>>(d_scal, len, mont, blk0, fx.blkcnt,
                                                                                   fx.flags);
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        return CZ_OK;
    }

    /* poll hook of the scalar upload: each piece classified as soon as it is on the device */
    struct scal_poll {
        call *cl;
        size_t blk_done, total;
        cz_status operator()(size_t done)
        {
            size_t blk = done >= total ? cl->nblk : done / (32 * (size_t)PREP_BLOCK);
            cz_status s = cl->classify(blk_done, blk, true);
            if (s == CZ_OK && blk > blk_done) blk_done = blk;
            return s;
        }
    };

    /* what finish() needs of a started chunk */
    struct started {
        int par;
        plan p;
    };

    /*
     * Queues the chunk [off, off + len) of parity par (its index mod 2) and
     * returns once its last kernel is queued, with what finish() needs. The
     * previous chunk may still run: this one's scalars upload as soon as the
     * previous one's compaction has read its own (ev_prep), and are
     * classified and counted on ps as they arrive, beside the previous
     * chunk's sort and accumulation (so its plan is made before those end);
     * its streamed bases upload once the previous one is done (ev_done of
     * the other parity); its kernels follow the previous one's on
     * ctx->compute.
     */
    cz_status start(int par, started *out)
    {
        launched = false;
        nblk = (len + PREP_BLOCK - 1) / PREP_BLOCK;
        /* uploaded scalars only: resident ones may still be written by
         * work queued on ctx->compute (a kept H result: device.cu
         * fill_block); tracing: the phase events are on one stream */
        ps = trace || !CZ_CUDA_MSM_SPLIT || resident_scal ? ctx->compute : ctx->aux;
        dev_exec ex = {ctx, err, st, trace, ctx->compute};
        cz_status s;
        if ((s = ex.mark(PH_START)) != CZ_OK) return s;
        /* the counts and offsets are rewritten once the previous compaction has read them */
        if (ps != ctx->compute) CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ps, st->ev_prep, 0));
        CZ_CUDA_TRY(ctx, err, cudaMemsetAsync(fx.flags, 0, FL_COUNT * sizeof(uint32_t), ps));
        CZ_CUDA_TRY(ctx, err, cudaMemsetAsync(fx.flags + FL_FIRST_BAD, 0xff, sizeof(uint32_t), ps));
        /* scalars, classified piece by piece as they arrive */
        if (resident_scal) { /* kept in VRAM by the caller (a witness used by several MSMs) */
            d_scal = resident_scal + 2 * off;
            if ((s = classify(0, nblk, false)) != CZ_OK) return s;
        } else {
            d_scal = fx.scal;
            CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->h2d, st->ev_prep, 0));
            scal_poll sp = {this, 0, 32 * len};
            if ((s = upload(ctx, st, fx.scal, h_scal + 32 * off, 32 * len, sp, err)) != CZ_OK) return s;
        }
        k_scan<<<1, SCAN_BLOCK, 0, ps>>>(fx.blkcnt, nblk, fx.off_other, fx.off_one, fx.flags);
        CZ_CUDA_TRY(ctx, err, cudaGetLastError());
        CZ_CUDA_TRY(ctx, err,
                    cudaMemcpyAsync(st->host, fx.flags, FL_COUNT * sizeof(uint32_t), cudaMemcpyDeviceToHost, ps));
        CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_counts, ps));
        if ((s = ex.mark(PH_PREP)) != CZ_OK) return s;
        /* bases, with phase 2 launched from the upload loop when possible */
        const affine<F> *d_bases;
        if (resident) {
            d_bases = resident + off;
        } else {
            d_bases = fx.bases;
            CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->h2d, st->ev_done[par ^ 1], 0));
            s = upload(ctx, st, fx.bases, h_bases + off, len * sizeof(affine<F>), *this, err);
            if (s != CZ_OK) return s;
            CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_bases, ctx->h2d));
        }
        if (!launched) {
            CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(st->ev_counts));
            if ((s = phase2()) != CZ_OK) return s;
        }
        if (!resident) CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->compute, st->ev_bases, 0));
        /* accumulation, reduction, ones */
        bufs<F> b;
        b.bases = d_bases;
        /* through the table the entries index the whole block's points (its
         * window 0) and, from tab_n on, the table (msm.cuh src_entries) */
        b.ebases = p.shared ? resident - tab_first : d_bases;
        b.etab = p.shared ? table : NULL;
        b.esplit = p.shared ? (uint32_t)tab_n : SIGN;
        b.keys = keys_sorted;
        b.vals = vals_sorted;
        b.idx1 = fx.idx1;
        for (int q = 0; q < 2; q++) {
            b.pkey[q] = v.pkey[q];
            b.pval[q] = v.pval[q];
            b.seg[q] = v.seg[q];
            b.ones[q] = fx.ones[q];
        }
        b.buckets = v.buckets;
        b.fresh = v.fresh;
        b.out = v.out;
        /* the ones on ctx->aux from the compaction on (ev_prep) and the
         * bases, beside the sort and the accumulation; joined before the
         * results' copy (so the next chunk's compaction, later on
         * ctx->compute, rewrites idx1 only once they are read) */
        dev_exec ex1 = {ctx, err, st, trace, ctx->aux};
        CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->aux, st->ev_prep, 0));
        /* sorted ahead: the previous chunk's ones may not be copied out yet */
        if (ahead) CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->aux, st->ev_done[par ^ 1], 0));
        if (!resident) CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->aux, st->ev_bases, 0));
        if ((s = ones_part<F>(ex1, p, b)) != CZ_OK) return s;
        CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_ones, ctx->aux));
        if ((s = acc_part<F>(ex, p, b)) != CZ_OK) return s;
        CZ_CUDA_TRY(ctx, err, cudaStreamWaitEvent(ctx->compute, st->ev_ones, 0));
        CZ_CUDA_TRY(ctx, err, cudaMemcpyAsync(host_slot(par), v.out, (size_t)(p.A + 1) * sizeof(xyzz<F>),
                                              cudaMemcpyDeviceToHost, ctx->compute));
        if ((s = ex.mark(PH_END)) != CZ_OK) return s;
        CZ_CUDA_TRY(ctx, err, cudaEventRecord(st->ev_done[par], ctx->compute));
        out->par = par;
        out->p = p;
        return CZ_OK;
    }

    xyzz<F> *host_slot(int par) { return (xyzz<F> *)((char *)st->host + HOST_OUT + (size_t)par * HOST_SLOT); }

    /* Waits for a started chunk: *res = its sum. */
    cz_status finish(const started &sc, xyzz<F> *res)
    {
        CZ_CUDA_TRY(ctx, err, cudaEventSynchronize(st->ev_done[sc.par]));
        const xyzz<F> *hout = host_slot(sc.par);
        *res = plan_result<F>(sc.p, hout);
        if (trace && cz_log_enabled(&ctx->log, CZ_LOG_DEBUG)) print_trace();
        return CZ_OK;
    }

    void print_trace()
    {
        float ms[PH_COUNT] = {0};
        for (int i = 1; i < PH_COUNT; i++) {
            if (cudaEventElapsedTime(&ms[i], st->tev[PH_START], st->tev[i]) != cudaSuccess) {
                (void)cudaGetLastError();
                ms[i] = -1;
            }
        }
        cz_log(&ctx->log, CZ_LOG_DEBUG, "cuda",
                "cz_cuda_msm %s: chunk %zu+%zu m=%zu m1=%zu c=%d W=%d sets=%d%s levels=%d S=%zu | ms from start: prep "
                "%.3f sort %.3f ones %.3f acc %.3f end %.3f | %s bases\n",
                T::name(), off, len, p.m, p.m1, p.c, p.W, p.A, p.shared ? " (table)" : "", p.levels, p.S,
                ms[PH_PREP], ms[PH_SORT], ms[PH_ONES], ms[PH_ACC], ms[PH_END], resident ? "resident" : "streamed");
    }
};

/*
 * Builds the table of multiples of the resident block blk (v: its snapshot)
 * for group T and calls of up to nc points (msm.cuh table_fn): the window
 * and the windows kept from table_plan, all W where they fit in VRAM with
 * an eighth of the GPU's memory left free (the working sets of later calls;
 * they may still evict the table, mem/resident.c), else (where the knob
 * msm_table_windows allows partial tables) the first Wt, and none where no
 * such table pays. Window 0 is the block itself (not copied: the table
 * holds windows 1..Wt-1, Wt - 1 times the block's bytes), one launch
 * per window and piece of points (the XYZZ running points of a piece in a
 * temporary block). *c_out: the table's window. Synchronous: once per
 * block, after the call that asked for it and claimed the build (the caller
 * publishes or frees it).
 */
template <class T>
static cz_status build_table(cz_cuda *ctx, cz_res_block *blk, const cz_res_view &v, size_t nc, int *c_out,
                             cz_error *err)
{
    typedef typename T::F F;
    const size_t n = v.bytes / sizeof(affine<F>), headroom = ctx->prop.totalGlobalMem / 8;
    *c_out = 0;
    if (n == 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: no table for an empty block");
    /* the windows that fit beside what is held now (the claim keeps the
     * block from holding a table: nothing of its own to free first) */
    size_t fr = 0, tot = 0;
    CZ_CUDA_TRY(ctx, err, cudaMemGetInfo(&fr, &tot));
    const size_t room = fr > headroom ? (fr - headroom) / v.bytes : 0; /* windows past the block's own */
    const int tw = ctx->opts.msm_table_windows;
    int maxw = room + 1 > (size_t)MAX_WINDOWS ? MAX_WINDOWS : (int)room + 1, wt = 0;
    if (tw > 0 && tw < maxw) maxw = tw;
    const int cw = table_window(nc, T::bits, T::mul_per_us);
    if (cw == 0) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: no table for %zu points", n);
    int c = cw;
    wt = windows_of(cw, T::bits);
    if (maxw < wt) { /* the whole table does not fit */
        if (tw == 0 || maxw < 2)
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                                "device: a table of %zu MiB does not fit (%zu MiB free, %zu MiB kept free)%s",
                                ((size_t)(wt - 1) * v.bytes) >> 20, fr >> 20, headroom >> 20,
                                tw ? "; nor a partial one of 2 windows" : "");
        c = table_plan(nc, T::bits, T::mul_per_us, maxw, &wt);
        if (c == 0 || !table_pays(nc, c, T::bits, T::mul_per_us, wt))
            return cz_error_set(err, CZ_ERR_DEVICE_MEMORY,
                                "device: %d windows of %zu MiB fit (%zu MiB free, %zu MiB kept free): no table pays",
                                maxw, v.bytes >> 20, fr >> 20, headroom >> 20);
    }
    const int W = windows_of(c, T::bits);
    if ((size_t)wt * n > TAB_MAX_ENTRIES)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: no table of window %d for %zu points", c, n);
    const double t0 = cz_now();
    void *tabmem = NULL;
    cz_status s = cz_resident_table_begin(ctx->store, ctx->lane, blk, (size_t)(wt - 1) * n * sizeof(affine<F>),
                                          headroom, &tabmem, err);
    if (s != CZ_OK) return s;
    const size_t piece = n < ((size_t)1 << 22) ? n : (size_t)1 << 22;
    void *acc = NULL;
    cudaError_t e = cudaMalloc(&acc, piece * sizeof(xyzz<F>));
    if (e != cudaSuccess) return cz_cuda_fail(ctx, e, err, "allocating the MSM table's working points");
    affine<F> *tab = (affine<F> *)tabmem;
    const affine<F> *pts = (const affine<F> *)v.dev;
    msm_state *st = (msm_state *)ctx->msm_state;
    dev_exec ex = {ctx, err, st, false, ctx->compute};
    for (size_t lo = 0; s == CZ_OK && lo < n; lo += piece) {
        const size_t hi = n - lo < piece ? n : lo + piece;
        for (int w = 1; s == CZ_OK && w < wt; w++) {
            table_fn<F> f = {pts, tab, (xyzz<F> *)acc, n, lo, hi, TAB_K, c, w};
            s = ex.run(make_op(f), (hi - lo + TAB_K - 1) / TAB_K);
        }
    }
    if (s == CZ_OK) {
        e = cudaStreamSynchronize(ctx->compute);
        if (e != cudaSuccess) s = cz_cuda_fail(ctx, e, err, "building the MSM table");
    } else {
        (void)cudaStreamSynchronize(ctx->compute);
    }
    cudaFree(acc);
    if (s != CZ_OK) return s; /* the caller's table_end frees it */
    CZ_LOG(&ctx->log, CZ_LOG_INFO, "cuda",
           "%s: MSM table of %zu points, window %d (%d of %d windows, %d bucket sets): %zu MiB in %.2f s", T::name(), n,
           c, wt, W, (W + wt - 1) / wt, ((size_t)(wt - 1) * n * sizeof(affine<F>)) >> 20, cz_now() - t0);
    *c_out = c;
    return CZ_OK;
}

template <class T>
static cz_status msm_call(cz_cuda *ctx, typename T::jac *out, const void *bases, const void *scalars, size_t n,
                          cz_msm_scalar_form form, cz_error *err)
{
    typedef typename T::F F;
    cz_status s = cz_cuda_enter(ctx, err);
    if (s != CZ_OK) return s;
    msm_state *st;
    if ((s = get_state(ctx, &st, err)) != CZ_OK) return s;
    call<T> cl;
    memset((void *)&cl, 0, sizeof cl);
    cl.ctx = ctx;
    cl.st = st;
    cl.err = err;
    cl.kn = read_knobs(ctx);
    if (F::DEGREE == 1) cl.kn.run_huge = RUN_HUGE; /* G1: the longer level-0 runs of the largest launches */
    cl.mont = form == CZ_MSM_MONTGOMERY;
    cl.trace = ctx->opts.msm_trace;
    cl.h_scal = (const uint8_t *)scalars;
    cl.h_bases = (const affine<F> *)bases;
    cl.n_all = n;
    /* points per chunk, and of the first (msm.cuh chunk_points: fewer where the scalars upload) */
    size_t nc = 0, first = 0;

    /* scratch: the fixed part, then the variable part. Growing the scratch
     * may evict tables and resident blocks (device.cu), this call's too:
     * the lookups are made again after it until they hold (the second
     * round's needs are never larger: a block gone streams, a table gone
     * leaves the shared plan's room unused). What the last round looked up
     * stays busy until the call ends (msm_entry): another context on this
     * GPU does not evict it meanwhile. */
    cz_res_block *blk = NULL;
    cz_res_view view;
    for (int round = 0;; round++) {
        const void *res = cz_cuda_bases_lookup(ctx, bases, n * sizeof(affine<F>), &blk, &view);
        const affine<F> *tab = NULL;
        if (res && view.tab && view.tab_group && !strcmp(view.tab_group, T::name()) &&
            ctx->opts.msm_table != CZ_CUDA_TABLE_OFF)
            tab = (const affine<F> *)view.tab;
        /* scalars kept resident the same way (cz_cuda_bases_pin); 16-byte
         * aligned as k_classify's vector loads need */
        const uint4 *rs = (const uint4 *)cz_cuda_bases_lookup(ctx, scalars, n * 32, NULL, NULL);
        if (((uintptr_t)rs & 15) != 0) rs = NULL;
        if (round > 0 && (const void *)cl.resident == res && cl.table == tab && cl.resident_scal == rs) break;
        cl.resident = (const affine<F> *)res;
        cl.resident_scal = rs;
        cl.table = tab;
        cl.tab_c = tab ? view.tab_c : 0;
        cl.tab_w = tab && view.bytes ? (int)(view.tab_bytes / view.bytes) + 1 : 0; /* + the block itself */
        cl.tab_n = res ? view.bytes / sizeof(affine<F>) : 0;
        cl.tab_first = res ? (size_t)((const char *)bases - (const char *)view.host) / sizeof(affine<F>) : 0;
        /* split where the scalars upload, for G1 through a table only
         * (CZ_CUDA_MSM_SPLIT: where the merge measured cheaper than the
         * upload it hides; a forced window never takes the table) */
        const bool split = CZ_CUDA_MSM_SPLIT && rs == NULL && tab && F::DEGREE == 1 && !cl.kn.window;
        nc = chunk_points(n, split, cl.kn, &first, sizeof(F) <= 32 ? CARRY_FIRST_DIV_FAST : CARRY_FIRST_DIV);
        carver cv = {NULL, 0};
        carve_fixed<T>(cv, cl.fx, nc, cl.resident == NULL);
        size_t fixed = (cv.used + 255) & ~(size_t)255, var;
        /* (a forced window never takes the shared plan: phase2) */
        if ((s = var_reserve<T>(ctx, n, nc, first, cl.kn, cl.kn.window ? 0 : cl.tab_c, cl.tab_w, &var, err)) !=
            CZ_OK)
            return s;
        /* the short first chunk's entries apart, for its plan through the
         * table (CZ_CUDA_MSM_SORT_AHEAD; phase2 checks that they fit) */
        size_t extra = 0;
        if (CZ_CUDA_MSM_SORT_AHEAD && split && first < nc && !cl.trace) {
            plan fp;
            size_t sb = 0;
            if (make_plan(&fp, first, 0, cl.tab_c, T::bits, cl.kn, true, cl.tab_w)) {
                fp.first = true;
                fp.last = false;
                if ((s = sort_temp_bytes(ctx, fp.E, fp.c, &sb, err)) != CZ_OK) return s;
                extra = entries_bytes<T>(fp, sb);
            }
        }
        var = (var + 255) & ~(size_t)255;
        void *mem; /* (the arena itself when it is large enough) */
        size_t got; /* (the first chunk's region only where it fits without evicting) */
        if ((s = cz_cuda_scratch_spare(ctx, fixed + var, extra, &mem, &got, err)) != CZ_OK) return s;
        if (got < extra) extra = 0;
        cv.base = (char *)mem;
        cv.used = 0;
        carve_fixed<T>(cv, cl.fx, nc, cl.resident == NULL);
        cl.var_base = (char *)mem + fixed;
        cl.var_reserved = var;
        cl.first_base = extra ? (char *)mem + fixed + var : NULL;
        cl.first_reserved = extra;
        if (round == 3) return cz_error_set(err, CZ_ERR_INTERNAL, "cz_cuda_msm: the resident bases keep changing");
    }
    /* a table this call could have used: its window (built after the call),
     * for its n points (its chunks carry one bucket set) */
    if (blk && !cl.table && !view.tab_failed && ctx->opts.msm_table != CZ_CUDA_TABLE_OFF &&
        view.bytes % sizeof(affine<F>) == 0)
        cl.want_c = table_window(n, T::bits, T::mul_per_us);

    /* chunk k + 1 is queued before chunk k is waited for (its scalars
     * upload while chunk k accumulates), except when tracing: the phase
     * events are one set */
    xyzz<F> acc = xyzz<F>::inf(), r;
    typename call<T>::started prev, cur;
    bool pending = false;
    for (size_t off = 0, k = 0, len = first; off < n; off += len, k++, len = n - off < nc ? n - off : nc) {
        cl.off = off;
        cl.len = len;
        if ((s = cl.start((int)(k & 1), &cur)) != CZ_OK) return s;
        if (pending) {
            if ((s = cl.finish(prev, &r)) != CZ_OK) return s;
            acc = acc.add(r);
        }
        prev = cur;
        pending = true;
        if (cl.trace) {
            if ((s = cl.finish(prev, &r)) != CZ_OK) return s;
            acc = acc.add(r);
            pending = false;
        }
    }
    if (pending) {
        if ((s = cl.finish(prev, &r)) != CZ_OK) return s;
        acc = acc.add(r);
    }
    if (acc.is_inf()) {
        T::set_inf(out);
    } else {
        typename T::cxyzz cx;
        memcpy(&cx, &acc, sizeof cx);
        T::from_xyzz(out, &cx);
    }
    /* the block's table, once a call (AUTO: a second call) would have used
     * one; built by one context of the GPU (the others go on without until
     * it is published); a failure only costs this attempt (the MSMs go on
     * without, and the block builds none again) */
    if (cl.wants_table && blk &&
        cz_resident_table_claim(ctx->store, ctx->lane, blk, ctx->opts.msm_table == CZ_CUDA_TABLE_EAGER ? 1u : 2u)) {
        cz_error terr;
        cz_error_clear(&terr);
        int tc = 0;
        const cz_status ts = build_table<T>(ctx, blk, view, n, &tc, &terr);
        cz_resident_table_end(ctx->store, ctx->lane, blk, ts == CZ_OK, T::name(), tc);
        if (ts != CZ_OK) {
            if (ctx->sticky) return cz_error_set(err, terr.status, "%s", cz_error_msg(&terr));
            CZ_LOG(&ctx->log, CZ_LOG_INFO, "cuda", "%s: no MSM table (%s); the MSMs run window by window",
                   T::name(), cz_error_msg(&terr));
        }
    }
    return CZ_OK;
}

/* argument checks, infinity on every failure, streams drained after one */
template <class T>
static cz_status msm_entry(cz_cuda *ctx, void *out, const void *bases, const void *scalars, size_t n,
                           cz_msm_scalar_form form, cz_error *err)
{
    typedef typename T::F F;
    T::set_inf((typename T::jac *)out);
    if (n == 0) return CZ_OK;
    if (!bases || !scalars)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: NULL bases or scalars with n = %zu", n);
    if (n > ((size_t)1 << 40) / sizeof(affine<F>))
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: n = %zu is too large", n);
    cz_status s = msm_call<T>(ctx, (typename T::jac *)out, bases, scalars, n, form, err);
    if (s != CZ_OK) {
        T::set_inf((typename T::jac *)out);
        if (!ctx->sticky) { /* nothing in flight may touch the scratch or the staging buffers later */
            cudaStreamSynchronize(ctx->h2d);
            cudaStreamSynchronize(ctx->aux);
            cudaStreamSynchronize(ctx->compute);
            (void)cudaGetLastError();
        }
    }
    cz_cuda_call_done(ctx); /* the result is on the host: no kernel reads the blocks any more */
    return s;
}

/* the entry of each group, a row per curve */
typedef cz_status (*msm_entry_fn)(cz_cuda *ctx, void *out, const void *bases, const void *scalars, size_t n,
                                  cz_msm_scalar_form form, cz_error *err);
struct msm_curve {
    msm_entry_fn g1, g2;
};
#define CZ_MSM_ROW_(ID, VALUE, SYM, CONST, SHORT, ...) {msm_entry<SHORT##_g1>, msm_entry<SHORT##_g2>},
static const msm_curve msm_curves[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_MSM_ROW_)};
#undef CZ_MSM_ROW_

static cz_status check_args(cz_cuda *ctx, void *out, cz_curve curve, cz_msm_scalar_form form, cz_error *err)
{
    if (!ctx || !out) return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: NULL context or output");
    if (cz_curve_index(curve) < 0)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: unknown curve %d", (int)curve);
    if (form != CZ_MSM_CANONICAL && form != CZ_MSM_MONTGOMERY)
        return cz_error_set(err, CZ_ERR_INVALID_ARG, "cz_cuda_msm: unknown scalar form %d", (int)form);
    return CZ_OK;
}

} // namespace

extern "C" cz_status cz_cuda_msm_g1(cz_cuda *ctx, cz_curve curve, void *out, const void *bases, const void *scalars,
                                    size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cz_status s = check_args(ctx, out, curve, form, err);
    if (s != CZ_OK) return s;
    return msm_curves[cz_curve_index(curve)].g1(ctx, out, bases, scalars, n, form, err);
}

extern "C" cz_status cz_cuda_msm_g2(cz_cuda *ctx, cz_curve curve, void *out, const void *bases, const void *scalars,
                                    size_t n, cz_msm_scalar_form form, cz_error *err)
{
    cz_status s = check_args(ctx, out, curve, form, err);
    if (s != CZ_OK) return s;
    return msm_curves[cz_curve_index(curve)].g2(ctx, out, bases, scalars, n, form, err);
}
