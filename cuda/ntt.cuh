/*
 * cuda/ntt.cuh: the NTT of cuda/ntt.cu, the part that runs the same on the
 * host and on the device (not a public header).
 *
 * DESIGN: everything the kernels compute per element or per butterfly -- the
 * twiddle tables, the radix-2 butterflies, the index maps of the per-level
 * kernel and of the shared-memory pass kernel, the bit reversal, the plan
 * that splits the levels into passes, and the order in which an operation
 * runs them -- is written here as __host__ __device__ functions. cuda/ntt.cu
 * wraps them in kernels; tests/test_cuda_ntt.cu runs the very same functions
 * in host loops that emulate the kernels (block by block, thread by thread,
 * one loop per __syncthreads phase) and compares with ntt/ntt.h. So the index
 * and twiddle maths is proven on every CI machine, without a GPU.
 *
 * The transforms. n = 2^k, data x[0..n) of Montgomery elements. Two radix-2
 * networks over one twiddle function tw(b, j), b = the level (pairs of
 * indices i, i + 2^b), j = i mod 2^b:
 *
 *   tw(b, j) = (c sigma^j)^(2^(k-1-b)) = gamma_b sigma_(2^(b+1))^j,
 *   gamma_b  = c^(2^(k-1-b)),
 *
 * sigma = omega_n or omega_n^-1 (ntt/ntt.h's roots), c = a coset factor (1,
 * g or g^-1, g = cz_<curve>_ntt_coset_shift(k)).
 *
 *   DIT(sigma, c): levels b = 0 .. k-1, (u, v) -> (u + t v, u - t v).
 *                  = DFT_sigma diag(c^j) P: coefficients in bit-reversed
 *                  order in, values at c sigma^i in natural order out.
 *   DIF(sigma, c): levels b = k-1 .. 0, (u, v) -> (u + v, (u - v) t).
 *                  = P diag(c^j) DFT_sigma (the transpose network): natural
 *                  in, out[p] = c^q X[q] at q = bitrev(p).
 *
 * (DIT: after level b a block of 2h = 2^(b+1) points holds its polynomial
 * of stride n/2h at the 2h points gamma_b sigma_2h^i, because the block's
 * polynomial is E(z^2) + z O(z^2) and z^2 = gamma_(b-1) sigma_h^i.) An
 * optional scale s (1/n for inverses) goes into level 0: DIT scales its
 * inputs, DIF its outputs. So, with P the bit reversal:
 *
 *   forward        DIF(omega, 1), P
 *   inverse        DIF(omega^-1, 1) s = 1/n, P
 *   coset forward  P, DIT(omega, g)
 *   coset inverse  DIF(omega^-1, g^-1) s = 1/n, P
 *   H step         DIF(omega^-1, 1) s = 1/n, then DIT(omega, g): natural
 *                  values in, natural coset values out, no permutation.
 *
 * Twiddle tables (device memory, one per (curve, k, kind), built on the
 * device from two small host-computed power tables):
 *   plain (c = 1):  R[j] = sigma^j, j < n/2; tw(b, j) = R[j << (k-1-b)].
 *   coset:          T[2^b + j] = tw(b, j) for 1 <= b < k, j < 2^b (n entries).
 * Every butterfly then costs exactly one product (level 0 uses two constants
 * passed as arguments: the twiddle there is gamma_0 for all j). Tables cost
 * memory (n/2 resp. n elements, 0.75 GB for the two the H step uses at 2^24)
 * instead of products: the NTT is product-bound on the GPU (bench/RESULTS.md).
 *
 * The fast kernel: a pass handles the levels of bits [b0, b0 + t) on tiles
 * of 2^t rows x 2^c columns (elements i = hi 2^(b0+t) + r 2^b0 + lo, the
 * 2^c columns are adjacent lo values so that the loads are coalesced) in
 * shared memory, element-major in swizzled 16-byte halves (tile_slot), two levels per
 * __syncthreads (pass_step: radix 4 in registers; a last radix-2 level when a
 * pass has an odd number of levels), the values in [0, 2p) until the pass
 * stores them. The plan puts bits [0, T) (T = the tile log, contiguous
 * tiles) in one pass and splits the bits above into as few passes of at most
 * T - C levels as possible (at least 2^C columns), then evens the passes'
 * level counts where that costs no pass (make_plan): 2^24 in three passes
 * (10, 8 and 6 levels with the default T = 10: cuda/ntt.cu takes 2^11 where
 * that saves a pass, as at 2^20: 11 and 9).
 */
#ifndef CZ_CUDA_NTT_CUH
#define CZ_CUDA_NTT_CUH

#include <stdint.h>
#include <string.h>

#include "cuda/ff.cuh"
#include "cuda/internal.cuh"
#include "ntt/ntt.h"

/* #pragma unroll for the device pass only (the host compiler warns on it) */
#ifdef __CUDA_ARCH__
#define CZ_NTT_UNROLL _Pragma("unroll")
#else
#define CZ_NTT_UNROLL
#endif

namespace cz_dev {
namespace ntt {

/* ---- the plan ------------------------------------------------------------- */

enum { MAX_PASSES = 33, MAX_TILE_LOG = 12 };

/* One pass: levels of bits [b0, b0 + t), tiles of 2^t rows x 2^c columns. */
struct pass_t {
    unsigned b0, t, c;
};

/* Passes in ascending b0 (DIT runs them in this order, DIF backwards). */
struct plan_t {
    unsigned k, npass;
    pass_t p[MAX_PASSES];
};

/* A plan's arguments in range: tile_log T in [1, MAX_TILE_LOG], col_log C < T. */
static inline void plan_clamp(unsigned *tile_log, unsigned *col_log)
{
    if (*tile_log < 1) *tile_log = 1;
    if (*tile_log > MAX_TILE_LOG) *tile_log = MAX_TILE_LOG;
    if (*col_log >= *tile_log) *col_log = *tile_log - 1;
}
/* Splits k levels into passes: bits [0, min(k, T)) contiguous (c = 0), the
 * rest in as few passes of at most T - C levels as possible, sizes balanced,
 * each with c = T - t >= C columns (every tile 2^T elements: wider rows for
 * the loads when a pass has fewer levels). T and C clamped (plan_clamp). */
static inline void make_plan_fewest(plan_t *pl, unsigned k, unsigned tile_log, unsigned col_log)
{
    plan_clamp(&tile_log, &col_log);
    pl->k = k;
    pl->npass = 0;
    if (k == 0) return;
    unsigned t0 = k < tile_log ? k : tile_log;
    pl->p[pl->npass++] = pass_t{0, t0, 0};
    unsigned rest = k - t0, tm = tile_log - col_log;
    if (!rest) return;
    unsigned m = (rest + tm - 1) / tm, base = rest / m, extra = rest % m, b = t0;
    for (unsigned i = 0; i < m; i++) {
        unsigned t = base + (i < extra ? 1 : 0);
        pl->p[pl->npass++] = pass_t{b, t, tile_log - t};
        b += t;
    }
}

/*
 * The plan: make_plan_fewest's passes, then, with CZ_CUDA_NTT_PLAN_EVEN (1,
 * default) and where it takes no more passes, an even number of levels in
 * each (the contiguous pass the largest even count up to T, or odd when k
 * is: it then takes the one odd pass), so that no pass ends in a lone
 * radix-2 step (a round trip through shared memory and a barrier for one
 * level). 2^24 with T = 10, C = 2: passes of 10, 8 and 6 levels (12 radix-4
 * steps) instead of 10, 7 and 7 (11 radix-4 and 2 radix-2 steps). Measured on
 * the H100 (bench/RESULTS.md, 2026-12-07), 2^24 BLS12-381: forward 3.80 ->
 * 3.78 ms, the H step 23.93 -> 23.79 ms (tiles of 2^10, 128 threads); with
 * tiles of 2^11 (11, 7, 6 -> 10, 8, 6) forward 4.05 -> 3.98 ms.
 */
#ifndef CZ_CUDA_NTT_PLAN_EVEN
#define CZ_CUDA_NTT_PLAN_EVEN 1
#endif
static inline void make_plan(plan_t *pl, unsigned k, unsigned tile_log, unsigned col_log)
{
    make_plan_fewest(pl, k, tile_log, col_log);
    if (!CZ_CUDA_NTT_PLAN_EVEN || pl->npass < 2) return;
    plan_clamp(&tile_log, &col_log);
    unsigned t0 = k < tile_log ? k : tile_log;
    if ((t0 ^ k) & 1) t0--; /* the rest even */
    const unsigned pairs = (k - t0) / 2, cap = (tile_log - col_log) / 2;
    if (t0 == 0 || cap == 0) return;
    const unsigned m = (pairs + cap - 1) / cap;
    if (m == 0 || 1 + m > pl->npass) return; /* more passes: keep the fewest */
    pl->npass = 0;
    pl->p[pl->npass++] = pass_t{0, t0, 0};
    unsigned b = t0;
    for (unsigned i = 0; i < m; i++) { /* the larger passes first (lower bits: fewer columns) */
        const unsigned t = 2 * (pairs / m + (i < pairs % m ? 1 : 0));
        pl->p[pl->npass++] = pass_t{b, t, tile_log - t};
        b += t;
    }
}

/* The default plan of 2^k (cuda/ntt.cu without a tile option): tiles of
 * 2^10 elements, or 2^11 where those take fewer passes (2^11, 2^19, 2^20),
 * at most 2^max_tile (what shared memory allows). Each tile's block has two
 * quadruples a thread (pass_threads): 128 threads and 6 blocks an SM for
 * 2^10, 256 and 3 for 2^11. */
enum { SMALL_TILE_LOG = 10, LARGE_TILE_LOG = 11 };
static inline void make_default_plan(plan_t *pl, unsigned k, unsigned max_tile, unsigned col_log)
{
    make_plan(pl, k, max_tile < LARGE_TILE_LOG ? max_tile : LARGE_TILE_LOG, col_log);
    if (max_tile <= SMALL_TILE_LOG) return;
    plan_t q;
    make_plan(&q, k, SMALL_TILE_LOG, col_log);
    if (q.npass <= pl->npass) *pl = q;
}

/* ---- twiddles ------------------------------------------------------------- */

/* Table kinds: (sigma, c) = (omega, 1), (omega^-1, 1), (omega, g), (omega^-1, g^-1). */
enum { TAB_FWD = 0, TAB_INV = 1, TAB_COSET_FWD = 2, TAB_COSET_INV = 3, TAB_KINDS = 4 };

static inline int tab_is_coset(int kind) { return kind == TAB_COSET_FWD || kind == TAB_COSET_INV; }
static inline int tab_is_inverse(int kind) { return kind == TAB_INV || kind == TAB_COSET_INV; }
/* entries of a table: n/2 (plain) or n (coset; entry 0 unused) */
static inline uint64_t tab_entries(int kind, unsigned k)
{
    if (k == 0) return 0;
    return tab_is_coset(kind) ? (uint64_t)1 << k : (uint64_t)1 << (k - 1);
}

/* What a transform needs to know about its twiddles. */
template <class F> struct tw_t {
    const F *tab; /* table (device memory in kernels, host memory when emulated) */
    unsigned k;
    int coset; /* layout: 1 = T[2^b + j], 0 = R[j << (k-1-b)] */
    int lvl0;  /* level 0: 0 = twiddle 1 and no scale, 1 = twiddle tw0, 2 = scale s and twiddle tw0 (which includes s) */
    F s, tw0;
    F w1, w1s; /* plain tables (k >= 2): tw(1, 1) = sigma^(n/4), and w1 s (lvl0 2) or w1 (pass_step_low) */
};

/* Read-only load of an element (tables, through the non-coherent cache on
 * the device; p must be 16-byte aligned there). */
template <class F> CZ_HD F load_ro(const F *p)
{
#ifdef __CUDA_ARCH__
    static_assert(sizeof(F) % 16 == 0, "elements are whole uint4s");
    F r;
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
CZ_NTT_UNROLL
    for (int i = 0; i < F::N / 4; i++) {
        uint4 v = __ldg(q + i);
        r.l[4 * i] = v.x;
        r.l[4 * i + 1] = v.y;
        r.l[4 * i + 2] = v.z;
        r.l[4 * i + 3] = v.w;
    }
    return r;
#else
    return *p;
#endif
}

/* Plain load / store of a data element (vectorised on the device). */
template <class F> CZ_HD F load_el(const F *p)
{
#ifdef __CUDA_ARCH__
    F r;
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
CZ_NTT_UNROLL
    for (int i = 0; i < F::N / 4; i++) {
        uint4 v = q[i];
        r.l[4 * i] = v.x;
        r.l[4 * i + 1] = v.y;
        r.l[4 * i + 2] = v.z;
        r.l[4 * i + 3] = v.w;
    }
    return r;
#else
    return *p;
#endif
}
template <class F> CZ_HD void store_el(F *p, const F &a)
{
#ifdef __CUDA_ARCH__
    uint4 *q = reinterpret_cast<uint4 *>(p);
CZ_NTT_UNROLL
    for (int i = 0; i < F::N / 4; i++)
        q[i] = make_uint4(a.l[4 * i], a.l[4 * i + 1], a.l[4 * i + 2], a.l[4 * i + 3]);
#else
    *p = a;
#endif
}

/* tw(b, j) for 1 <= b < k, j < 2^b. */
template <class F> CZ_HD F twiddle(const tw_t<F> &w, unsigned b, uint64_t j)
{
    uint64_t idx = w.coset ? (((uint64_t)1 << b) | j) : (j << (w.k - 1 - b));
    return load_ro(w.tab + idx);
}

CZ_HD unsigned log2_u64(uint64_t x) /* x > 0 */
{
#ifdef __CUDA_ARCH__
    return 63u - (unsigned)__clzll((long long)x);
#else
    return 63u - (unsigned)__builtin_clzll(x);
#endif
}

/* Entry x of a table, from lo[i] = sigma^i (i < 2^m) and hi[i] = sigma^(i 2^m):
 * plain: R[x] = sigma^x; coset: T[x] = (c sigma^j)^(2^(k-1-b)), x = 2^b + j
 * (x = 0: zero, unused). */
template <class F>
CZ_HD F tab_entry(const F *hi, const F *lo, unsigned m, const F &c, int coset, unsigned k, uint64_t x)
{
    const uint64_t mask = ((uint64_t)1 << m) - 1;
    if (!coset) return load_ro(hi + (x >> m)) * load_ro(lo + (x & mask));
    if (x == 0) return F::zero();
    unsigned b = log2_u64(x);
    uint64_t j = x ^ ((uint64_t)1 << b);
    F v = c * (load_ro(hi + (j >> m)) * load_ro(lo + (j & mask)));
    for (unsigned i = b; i + 1 < k; i++)
        v = v.sqr();
    return v;
}

/* Split of the exponent range [0, 2^(k-1)) of the power tables: lo holds
 * 2^m entries, hi 2^(k-1-m) (k >= 1). */
static inline unsigned seed_m(unsigned k) { return k <= 1 ? 0 : k / 2; }

/* ---- butterflies ------------------------------------------------------------ */

/* DIF: (u, v) -> (u + v, (u - v) w) */
template <class F> CZ_HD void bf_dif(F &u, F &v, const F &w)
{
    F d = u - v;
    u = u + v;
    v = d * w;
}
template <class F> CZ_HD void bf_dif0(F &u, F &v, const tw_t<F> &tw)
{
    F d = u - v, a = u + v;
    if (tw.lvl0 == 2) a = a * tw.s;
    if (tw.lvl0 != 0) d = d * tw.tw0;
    u = a;
    v = d;
}
/* DIT: (u, v) -> (u + w v, u - w v) */
template <class F> CZ_HD void bf_dit(F &u, F &v, const F &w)
{
    F t = v * w;
    v = u - t;
    u = u + t;
}
template <class F> CZ_HD void bf_dit0(F &u, F &v, const tw_t<F> &tw)
{
    F t = tw.lvl0 != 0 ? v * tw.tw0 : v;
    F a = tw.lvl0 == 2 ? u * tw.s : u;
    u = a + t;
    v = a - t;
}

/* The same four on values in [0, 2p) (the shared-memory levels of the pass
 * kernel; twiddles and constants below p): two conditional steps per
 * butterfly instead of three (ff.cuh add_lazy, sub_lazy, mul_lazy);
 * pass_store reduces what goes back to global memory. */
template <class F> CZ_HD void bf_dif_lazy(F &u, F &v, const F &w)
{
    F d = F::sub_lazy(u, v);
    u = F::add_lazy(u, v);
    v = F::mul_lazy(d, w);
}
template <class F> CZ_HD void bf_dif0_lazy(F &u, F &v, const tw_t<F> &tw)
{
    F d = F::sub_lazy(u, v), a = F::add_lazy(u, v);
    if (tw.lvl0 == 2) a = F::mul_lazy(a, tw.s);
    if (tw.lvl0 != 0) d = F::mul_lazy(d, tw.tw0);
    u = a;
    v = d;
}
template <class F> CZ_HD void bf_dit_lazy(F &u, F &v, const F &w)
{
    F t = F::mul_lazy(v, w);
    v = F::sub_lazy(u, t);
    u = F::add_lazy(u, t);
}
template <class F> CZ_HD void bf_dit0_lazy(F &u, F &v, const tw_t<F> &tw)
{
    F t = tw.lvl0 != 0 ? F::mul_lazy(v, tw.tw0) : v;
    F a = tw.lvl0 == 2 ? F::mul_lazy(u, tw.s) : u;
    u = F::add_lazy(a, t);
    v = F::sub_lazy(a, t);
}

/* ---- the simple kernel: one launch per level, one thread per butterfly ---- */

/* Butterfly q (< n/2) of level b on the global array x. */
template <class F, bool DIT> CZ_HD void level_bf(F *x, const tw_t<F> &tw, unsigned b, uint64_t q)
{
    const uint64_t h = (uint64_t)1 << b, j = q & (h - 1);
    const uint64_t i = ((q >> b) << (b + 1)) | j;
    F u = load_el(x + i), v = load_el(x + i + h);
    if (b == 0) {
        if (DIT)
            bf_dit0(u, v, tw);
        else
            bf_dif0(u, v, tw);
    } else {
        F w = twiddle(tw, b, j);
        if (DIT)
            bf_dit(u, v, w);
        else
            bf_dif(u, v, w);
    }
    store_el(x + i, u);
    store_el(x + i + h, v);
}

/* ---- the pass kernel: 2^t x 2^c tiles in shared memory --------------------- */

/* i's k low bits reversed */
CZ_HD uint64_t bitrev(uint64_t i, unsigned k)
{
    if (k == 0) return 0;
#ifdef __CUDA_ARCH__
    return __brevll((unsigned long long)i) >> (64 - k);
#else
    uint64_t r = 0;
    for (unsigned b = 0; b < k; b++)
        r |= ((i >> b) & 1) << (k - 1 - b);
    return r;
#endif
}

/* A pass's bit reversal (CZ_CUDA_NTT_FUSED_REV): none, in its store (the
 * last pass of a DIF network) or in its load (the first pass of a DIT one). */
enum { REV_NONE = 0, REV_STORE = 1, REV_LOAD = 2 };

template <class F> struct pass_args {
    F *x; /* loaded from */
    tw_t<F> tw;
    unsigned b0, t, c;
    F *y = nullptr;          /* stored to (nullptr: x, in place) */
    unsigned rev = REV_NONE; /* REV_STORE / REV_LOAD: only in a pass of bits [0, t), c = 0 */
};

/* The arguments of pass p over x with twiddles tw (the executors' launches) */
template <class F>
CZ_HD pass_args<F> pass_args_of(F *x, const tw_t<F> &tw, const pass_t &p, F *y = nullptr, unsigned rev = REV_NONE)
{
    pass_args<F> a;
    a.x = x;
    a.tw = tw;
    a.b0 = p.b0;
    a.t = p.t;
    a.c = p.c;
    a.y = y;
    a.rev = rev;
    return a;
}

/* elements per tile */
template <class F> CZ_HD uint32_t pass_elems(const pass_args<F> &a) { return (uint32_t)1 << (a.t + a.c); }

/* Global index of tile element e = r 2^c + lc of block blk. Blocks: blk =
 * hi 2^(b0-c) + lo_hi; element index = hi 2^(b0+t) + r 2^b0 + lo_hi 2^c + lc. */
template <class F> CZ_HD uint64_t pass_gidx(const pass_args<F> &a, uint64_t blk, uint32_t e)
{
    const unsigned lohb = a.b0 - a.c;
    const uint64_t lo_hi = blk & (((uint64_t)1 << lohb) - 1), hi = blk >> lohb;
    const uint64_t r = e >> a.c, lc = e & ((1u << a.c) - 1);
    return (hi << (a.b0 + a.t)) | (r << a.b0) | (lo_hi << a.c) | lc;
}

/*
 * The block of launch index i (the kernel's blockIdx.x). Without a bit
 * reversal, i itself. With one (a pass of bits [0, t): block blk holds
 * elements blk 2^t + e, whose bit-reversed places are rev_t(e) 2^(k-t) +
 * rev_(k-t)(blk)), blk = rev_(k-t)(i): the blocks that run at the same time
 * (neighbouring i) then store (REV_STORE) or load (REV_LOAD) neighbouring
 * elements, so the 32-byte elements of one L2 line come from blocks that are
 * resident together rather than 2^(k-t-2) launches apart.
 */
template <class F> CZ_HD uint64_t pass_block(const pass_args<F> &a, uint64_t i)
{
    return a.rev == REV_NONE ? i : bitrev(i, a.tw.k - a.t);
}

template <class F> CZ_HD F sh_get(const uint32_t *sh, uint32_t E, uint32_t e)
{
    F r;
CZ_NTT_UNROLL
    for (int l = 0; l < F::N; l++)
        r.l[l] = sh[(uint32_t)l * E + e];
    return r;
}
template <class F> CZ_HD void sh_put(uint32_t *sh, uint32_t E, uint32_t e, const F &v)
{
CZ_NTT_UNROLL
    for (int l = 0; l < F::N; l++)
        sh[(uint32_t)l * E + e] = v.l[l];
}

/*
 * The pass tile's layout (CZ_CUDA_NTT_SH_VEC): element-major in 16-byte
 * halves (1, default: two 128-bit shared loads or stores an element), or
 * limb-major (0: sh_get / sh_put, a warp reads one limb of 32 elements per
 * 32-bit load: 8 loads and 8 addresses an element). Half h of element e is
 * 16-byte slot (2 e + h) XOR v(e), v(e) = ((e >> 2) ^ (e >> 3) ^ (e >> 4)) & 7:
 * a permutation within each 128-byte row that leaves every access of a
 * pass's phases (loads, stores, the radix-2 and radix-4 steps, for every
 * plan of tiles 2^8..2^12 with 2^2 columns, n up to 2^28) free of bank
 * conflicts: each quarter-warp's 8 lanes hit 8 different 16-byte bank groups
 * (tools/ntt_banks.py replays every warp's accesses). Fewer
 * address registers: the pass kernels' spills at the 80-register cap went
 * from 64-80 bytes (DIF / DIT, BLS12-381 r, sm_90) to 8, the H step's fused
 * pass from 168 to 24. Measured on the H100 (bench/RESULTS.md, 2026-12-07),
 * 2^24 BLS12-381: forward 4.41 -> 4.10 ms, the H step 26.43 -> 25.06 ms.
 * Only for elements of 8 limbs (both scalar fields); others stay limb-major.
 */
#ifndef CZ_CUDA_NTT_SH_VEC
#define CZ_CUDA_NTT_SH_VEC 1
#endif
CZ_HD uint32_t tile_slot(uint32_t e) { return (2 * e) ^ (((e >> 2) ^ (e >> 3) ^ (e >> 4)) & 7); }
/* the 32-bit word of limb l of the element whose half 0 is at slot s (the host's view of the halves) */
CZ_HD uint32_t tile_word(uint32_t s, int l) { return 4 * (s ^ (uint32_t)(l >> 2)) + (uint32_t)(l & 3); }

template <class F> CZ_HD F tile_get(const uint32_t *sh, uint32_t E, uint32_t e)
{
    if constexpr (CZ_CUDA_NTT_SH_VEC && F::N == 8) {
        const uint32_t s = tile_slot(e);
        F r;
#ifdef __CUDA_ARCH__
        const uint4 a = reinterpret_cast<const uint4 *>(sh)[s], b = reinterpret_cast<const uint4 *>(sh)[s ^ 1];
        r.l[0] = a.x, r.l[1] = a.y, r.l[2] = a.z, r.l[3] = a.w;
        r.l[4] = b.x, r.l[5] = b.y, r.l[6] = b.z, r.l[7] = b.w;
#else
        for (int l = 0; l < 8; l++)
            r.l[l] = sh[tile_word(s, l)];
#endif
        return r;
    } else {
        return sh_get<F>(sh, E, e);
    }
}
template <class F> CZ_HD void tile_put(uint32_t *sh, uint32_t E, uint32_t e, const F &v)
{
    if constexpr (CZ_CUDA_NTT_SH_VEC && F::N == 8) {
        const uint32_t s = tile_slot(e);
#ifdef __CUDA_ARCH__
        reinterpret_cast<uint4 *>(sh)[s] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
        reinterpret_cast<uint4 *>(sh)[s ^ 1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
#else
        for (int l = 0; l < 8; l++)
            sh[tile_word(s, l)] = v.l[l];
#endif
    } else {
        sh_put(sh, E, e, v);
    }
}

/*
 * (For the limb-major tile, CZ_CUDA_NTT_SH_VEC 0.) Where tile element e
 * lives in each limb plane: e itself, or with
 * CZ_CUDA_NTT_SWIZZLE 1, e with its bank bits (0..4) XORed with a function
 * of bits 5 and 6 (x = e >> 5: x0, x1 into bits 0 and 2, x1 also into bits
 * 1, 3 and 4), a permutation within each 32 elements. A radix-4 step at low
 * local levels reads elements 4, 16 or 64 apart (e0 = 4 q at lo = 0 in the
 * first pass; at lo = 2 runs of 4 every 16; the second pass's 16 columns at
 * lo = 0): 4-, 4- and 2-way bank conflicts unswizzled. With the XOR, the
 * lanes' bank bits are a bijection of the bits they vary (bits 2..6, 0-1 and
 * 4..6, 0..3 and 6, or 0..4), so every step is conflict-free. Measured on
 * the H100 (bench/RESULTS.md, 2026-12-06): the 2^24 transforms unchanged
 * (4.64 ms), the H step 1% slower; the conflicts (12-24% of the shared-load
 * wavefronts in two of the three passes) are not the bound. Off.
 */
#ifndef CZ_CUDA_NTT_SWIZZLE
#define CZ_CUDA_NTT_SWIZZLE 0
#endif
CZ_HD uint32_t pass_swizzle(uint32_t e)
{
    const uint32_t x = (e >> 5) & 3;
    return e ^ (x | (x << 2) | ((x & 2) << 3));
}
CZ_HD uint32_t pass_sw(uint32_t e) { return CZ_CUDA_NTT_SWIZZLE ? pass_swizzle(e) : e; }

/*
 * CZ_CUDA_NTT_SH_ASYNC (1, default; with CZ_CUDA_NTT_SH_VEC): the tile's
 * loads as asynchronous 16-byte copies straight into its slots (cp.async.cg:
 * through L2 only, nothing staged in registers, all of a thread's copies in
 * flight at once), each thread waiting for its own before the barrier that
 * follows. The device only (sm_80 and up); the host emulation takes the same
 * slots through tile_put. On the H100, 2^24 BLS12-381: forward 4.10 -> 4.05
 * ms, the H step 25.06 -> 24.85 ms (bench/RESULTS.md, 2026-12-07).
 */
#ifndef CZ_CUDA_NTT_SH_ASYNC
#define CZ_CUDA_NTT_SH_ASYNC 1
#endif

/* Where tile element e of block blk is loaded from (REV_LOAD: its
 * bit-reversed place). */
template <class F> CZ_HD uint64_t pass_src(const pass_args<F> &a, uint64_t blk, uint32_t e)
{
    const uint64_t g = pass_gidx(a, blk, e);
    return a.rev == REV_LOAD ? bitrev(g, a.tw.k) : g;
}

/* Phase 1 (thread tid of nthr): global -> shared (REV_LOAD: from the
 * bit-reversed places). */
template <class F> CZ_HD void pass_load(const pass_args<F> &a, uint32_t *sh, uint64_t blk, uint32_t tid, uint32_t nthr)
{
    const uint32_t E = pass_elems(a);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (CZ_CUDA_NTT_SH_ASYNC && CZ_CUDA_NTT_SH_VEC && F::N == 8) {
        const uint32_t base = (uint32_t)__cvta_generic_to_shared(sh);
        for (uint32_t e = tid; e < E; e += nthr) {
            const uint32_t s = tile_slot(pass_sw(e));
            const char *src = reinterpret_cast<const char *>(a.x + pass_src(a, blk, e));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(base + 16 * s), "l"(src));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(base + 16 * (s ^ 1)), "l"(src + 16));
        }
        asm volatile("cp.async.wait_all;\n" ::: "memory");
    } else
#endif
    {
        for (uint32_t e = tid; e < E; e += nthr)
            tile_put(sh, E, pass_sw(e), load_el(a.x + pass_src(a, blk, e)));
    }
}

/* The two tile elements of butterfly q (< E/2) at local level bb. */
CZ_HD void pass_pair(unsigned c, unsigned bb, uint32_t q, uint32_t *e0, uint32_t *e1, uint32_t *r)
{
    const uint32_t lc = q & ((1u << c) - 1), rr = q >> c;
    const uint32_t rw = ((rr >> bb) << (bb + 1)) | (rr & ((1u << bb) - 1));
    *r = rw;
    *e0 = (rw << c) | lc;
    *e1 = *e0 + (1u << (bb + c));
}

/* Phase 2 + lv (lv = 0 .. t-1): one level. DIF runs local bits t-1 .. 0, DIT 0 .. t-1.
 * The tile's values stay in [0, 2p) between levels (the lazy butterflies). */
template <class F, bool DIT>
CZ_HD void pass_level(const pass_args<F> &a, uint32_t *sh, uint64_t blk, unsigned lv, uint32_t tid, uint32_t nthr)
{
    const uint32_t E = pass_elems(a);
    const unsigned bb = DIT ? lv : a.t - 1 - lv, b = a.b0 + bb;
    const uint64_t lo_hi = blk & (((uint64_t)1 << (a.b0 - a.c)) - 1);
    for (uint32_t q = tid; q < E / 2; q += nthr) {
        uint32_t e0, e1, r;
        pass_pair(a.c, bb, q, &e0, &e1, &r);
        F u = tile_get<F>(sh, E, pass_sw(e0)), v = tile_get<F>(sh, E, pass_sw(e1));
        if (b == 0) {
            if (DIT)
                bf_dit0_lazy(u, v, a.tw);
            else
                bf_dif0_lazy(u, v, a.tw);
        } else {
            /* j = i mod 2^b = (r mod 2^bb) 2^b0 + lo_hi 2^c + lc */
            const uint64_t j = ((uint64_t)(r & ((1u << bb) - 1)) << a.b0) | (lo_hi << a.c) | (q & ((1u << a.c) - 1));
            F w = twiddle(a.tw, b, j);
            if (DIT)
                bf_dit_lazy(u, v, w);
            else
                bf_dif_lazy(u, v, w);
        }
        tile_put(sh, E, pass_sw(e0), u);
        tile_put(sh, E, pass_sw(e1), v);
    }
}

/* The two level-b butterflies of a radix-4 step, (x0, x1) and (x2, x3),
 * which share the twiddle tw(b, j) (level 0: the constants of tw). */
template <class F, bool DIT>
CZ_HD void bf_lower_pair_lazy(F &x0, F &x1, F &x2, F &x3, const tw_t<F> &tw, unsigned b, uint64_t j)
{
    if (b == 0) {
        if (DIT) {
            bf_dit0_lazy(x0, x1, tw);
            bf_dit0_lazy(x2, x3, tw);
        } else {
            bf_dif0_lazy(x0, x1, tw);
            bf_dif0_lazy(x2, x3, tw);
        }
        return;
    }
    const F w = twiddle(tw, b, j);
    if (DIT) {
        bf_dit_lazy(x0, x1, w);
        bf_dit_lazy(x2, x3, w);
    } else {
        bf_dif_lazy(x0, x1, w);
        bf_dif_lazy(x2, x3, w);
    }
}

/* The sync phases of a pass of t levels: two levels at a time (radix 4,
 * pass_step), one alone when t is odd (DIT: the last, local bit t - 1; DIF:
 * the first, the same bit, so that a DIF pass still ends on bits 1 and 0). */
CZ_HD unsigned pass_steps(unsigned t) { return (t + 1) / 2; }

/* The level-(b + 1) twiddles of a radix-4 step: both loaded before the
 * step's butterflies (0), or each just before its butterfly (1: in DIT,
 * after the level-b pair, so they are not live across it). Static sm_90
 * figures of the pass kernel at its 80-register cap (ptxas, 2026-12-06):
 * DIT's spills 156 / 168 bytes stored / loaded -> 76 / 80 for BLS12-381 r
 * (BN254: 148 / 164 -> 72 / 76), DIF's unchanged (64 / 64, BN254 56 -> 60).
 * Measured on the H100 (bench/RESULTS.md, 2026-12-06), 2^24: the coset
 * forward transform (DIT) 4.98 -> 4.80 ms, the H step 27.90 -> 27.31 ms
 * (BN254 28.19 -> 27.28), the DIF ones unchanged. */
#ifndef CZ_CUDA_NTT_LATE_TW
#define CZ_CUDA_NTT_LATE_TW 1
#endif

/*
 * 1: the last radix-4 step of a DIF network on a plain table (levels 1 and
 * 0, so b0 = 0, c = 0, j = 0: each quadruple is 4 adjacent tile elements)
 * skips the products by one: level 1's twiddles are tw(1, 0) = 1 and tw(1,
 * 1) = w1 for every quadruple and level 0's is 1, so it takes one product
 * (x1 - x3) w1 instead of two, and with a scale s (lvl0 2: level 0 scaled
 * both outputs, two products a butterfly) s goes into level 1's four
 * outputs instead (w1 s precomputed): four products instead of six. n / 4
 * products of a forward transform's ~12 n fewer, n / 2 of a scaled
 * inverse's. 0: the general step (bench/RESULTS.md).
 */
#ifndef CZ_CUDA_NTT_LOW4
#define CZ_CUDA_NTT_LOW4 1
#endif
/* Levels 1 and 0 of a plain DIF network on one quadruple (j = 0): level 1's
 * pairs (x0, x2) with twiddle 1 and (x1, x3) with w, level 0's with 1; s:
 * NULL, or a scale on the four values between them (w then includes it). */
template <class F> CZ_HD void dif_low4(F &x0, F &x1, F &x2, F &x3, const F &w, const F *s)
{
    F s0 = F::add_lazy(x0, x2), d0 = F::sub_lazy(x0, x2);
    F s1 = F::add_lazy(x1, x3), d1 = F::mul_lazy(F::sub_lazy(x1, x3), w);
    if (s) {
        s0 = F::mul_lazy(s0, *s);
        d0 = F::mul_lazy(d0, *s);
        s1 = F::mul_lazy(s1, *s);
    }
    x0 = F::add_lazy(s0, s1);
    x1 = F::sub_lazy(s0, s1);
    x2 = F::add_lazy(d0, d1);
    x3 = F::sub_lazy(d0, d1);
}
/* Whether a DIF network with twiddles tw takes pass_step_low at level 0:
 * plain tables (level 1's twiddles 1 and w1), level 0 with twiddle 1. (A
 * macro: as an inline function the pass kernels' sm_90 code came out
 * different from the measured one.) */
#define CZ_NTT_LOW4_OK(tw) (!(tw).coset && (tw).lvl0 != 1)
template <class F> CZ_HD void pass_step_low(const pass_args<F> &a, uint32_t *sh, uint32_t tid, uint32_t nthr)
{
    const uint32_t E = pass_elems(a);
    for (uint32_t q = tid; q < E / 4; q += nthr) {
        const uint32_t e0 = 4 * q;
        F x0 = tile_get<F>(sh, E, pass_sw(e0)), x1 = tile_get<F>(sh, E, pass_sw(e0 + 1)),
          x2 = tile_get<F>(sh, E, pass_sw(e0 + 2)), x3 = tile_get<F>(sh, E, pass_sw(e0 + 3));
        dif_low4(x0, x1, x2, x3, a.tw.w1s, a.tw.lvl0 == 2 ? &a.tw.s : (const F *)NULL);
        tile_put(sh, E, pass_sw(e0), x0);
        tile_put(sh, E, pass_sw(e0 + 1), x1);
        tile_put(sh, E, pass_sw(e0 + 2), x2);
        tile_put(sh, E, pass_sw(e0 + 3), x3);
    }
}

/*
 * 1: in the H step's fused pass (X::pass_h, run_h_array) the inverse
 * transform's last radix-4 step (pass_step_low's levels 1 and 0) and the
 * coset transform's first (levels 0 and 1) take the same quadruples, four
 * adjacent tile elements, with the same threads: one step does both, with
 * no round trip through shared memory and no barrier between them. The
 * inverse's scale (lvl0 2) moves into the coset transform's level 0 (h_joint_tw:
 * two products a quadruple instead of three). Measured on the H100
 * (bench/RESULTS.md, 2026-12-07 13:02, two rounds): the H step 2^24 23.63 /
 * 23.58 -> 23.40 / 23.36 ms (BLS12-381; BN254 23.51 / 23.55 -> 23.34 /
 * 23.36), 2^22 5.75 -> 5.69; the transforms unchanged. 0: two steps.
 */
#ifndef CZ_CUDA_NTT_H_JOINT
#define CZ_CUDA_NTT_H_JOINT 1
#endif
/* Whether the fused pass of bits [b0, b0 + t), tile columns 2^c, with the
 * inverse twiddles ti takes the joint step. */
template <class F> CZ_HD bool h_joint(const tw_t<F> &ti, unsigned b0, unsigned t, unsigned c)
{
    return CZ_CUDA_NTT_H_JOINT && CZ_CUDA_NTT_LOW4 && b0 == 0 && c == 0 && t >= 2 && CZ_NTT_LOW4_OK(ti);
}
/* The coset twiddles tc of the fused pass with the inverse's scale (ti:
 * lvl0 2) in its level 0: DIT's u s and v tw0 s (tw0 = 1 for lvl0 0). */
template <class F> static inline tw_t<F> h_joint_tw(const tw_t<F> &ti, const tw_t<F> &tc)
{
    tw_t<F> w = tc;
    if (ti.lvl0 != 2) return w;
    w.s = (tc.lvl0 == 2 ? tc.s : F::one()) * ti.s;
    w.tw0 = (tc.lvl0 != 0 ? tc.tw0 : F::one()) * ti.s;
    w.lvl0 = 2;
    return w;
}
/* The joint step (h_joint): ai's levels 1 and 0 (DIF, plain, its scale left
 * out), then ac's levels 0 and 1 (DIT; ac.tw from h_joint_tw). */
template <class F>
CZ_HD void pass_step_joint(const pass_args<F> &ai, const pass_args<F> &ac, uint32_t *sh, uint32_t tid, uint32_t nthr)
{
    const uint32_t E = pass_elems(ai);
    for (uint32_t q = tid; q < E / 4; q += nthr) {
        const uint32_t e0 = 4 * q;
        F x0 = tile_get<F>(sh, E, pass_sw(e0)), x1 = tile_get<F>(sh, E, pass_sw(e0 + 1)),
          x2 = tile_get<F>(sh, E, pass_sw(e0 + 2)), x3 = tile_get<F>(sh, E, pass_sw(e0 + 3));
        dif_low4(x0, x1, x2, x3, ai.tw.w1, (const F *)NULL);
        bf_dit0_lazy(x0, x1, ac.tw);
        bf_dit0_lazy(x2, x3, ac.tw);
        const F w0 = twiddle(ac.tw, 1, 0);
        bf_dit_lazy(x0, x2, w0);
        const F w1 = twiddle(ac.tw, 1, 1);
        bf_dit_lazy(x1, x3, w1);
        tile_put(sh, E, pass_sw(e0), x0);
        tile_put(sh, E, pass_sw(e0 + 1), x1);
        tile_put(sh, E, pass_sw(e0 + 2), x2);
        tile_put(sh, E, pass_sw(e0 + 3), x3);
    }
}

/*
 * Phase 2 + s (s < pass_steps(a.t)): two levels of the pass in one round
 * trip through shared memory, local bits lo and lo + 1 (DIT: lo = 2s, the
 * last step of an odd t bit t - 1 alone; DIF, which runs the bits downwards:
 * lo = t - 2 - 2s, and with t odd the first step bit t - 1 alone and lo = t
 * - 1 - 2s after it, so that its last step is bits 1 and 0 whatever t:
 * pass_step_low and h_joint apply to the odd first pass of an odd k's plan
 * too), global levels b = b0 + lo and b + 1: each
 * thread takes quadruples x0..x3 at rows r, r + 2^lo, r + 2^(lo+1), r + 3 2^lo
 * (bits lo, lo + 1 of r zero) and does the four butterflies of the two levels
 * in registers: at level b the pairs (x0, x1), (x2, x3), both with tw(b, j),
 * j = i0 mod 2^b (i0: the global index of x0); at level b + 1 the pairs
 * (x0, x2) with tw(b + 1, j) and (x1, x3) with tw(b + 1, j + 2^b). Half the
 * shared-memory loads, stores and barriers of two radix-2 levels, three
 * twiddle loads instead of four. ILP > 1 (cuda/ntt.cu CZ_NTT_PASS_ILP): a
 * thread with a multiple of ILP quadruples in the step takes ILP of them
 * side by side (independent product chains between two barriers for the
 * scheduler to overlap); the same results.
 */
template <class F, bool DIT, int ILP = 1>
CZ_HD void pass_step(const pass_args<F> &a, uint32_t *sh, uint64_t blk, unsigned s, uint32_t tid, uint32_t nthr)
{
    const unsigned odd = a.t & 1;
    if (DIT ? 2 * s + 1 >= a.t : odd && s == 0) { /* the lone level: local bit t - 1 */
        pass_level<F, DIT>(a, sh, blk, 2 * s, tid, nthr); /* (DIF: s = 0) */
        return;
    }
    const uint32_t E = pass_elems(a);
    const unsigned lo = DIT ? 2 * s : a.t - 2 - 2 * s + odd, b = a.b0 + lo;
#if CZ_CUDA_NTT_LOW4
    if (!DIT && b == 0 && CZ_NTT_LOW4_OK(a.tw)) {
        pass_step_low(a, sh, tid, nthr);
        return;
    }
#endif
    const uint64_t lo_hi = blk & (((uint64_t)1 << (a.b0 - a.c)) - 1);
    const uint32_t h = 1u << (lo + a.c);
    if (ILP > 1 && (E / 4) % (ILP * nthr) == 0) {
        /* ILP quadruples per thread at once (q, q + nthr, ..): independent
         * product chains between two barriers for the scheduler to overlap */
        for (uint32_t q0 = tid; q0 < E / 4; q0 += ILP * nthr) {
            F x[ILP][4], w0[ILP], w1[ILP];
            uint32_t e0[ILP];
            uint64_t j[ILP];
            CZ_NTT_UNROLL
            for (int u = 0; u < ILP; u++) {
                const uint32_t q = q0 + (uint32_t)u * nthr;
                const uint32_t lc = q & ((1u << a.c) - 1), rr = q >> a.c;
                const uint32_t rw = ((rr >> lo) << (lo + 2)) | (rr & ((1u << lo) - 1));
                e0[u] = (rw << a.c) | lc;
                for (int i = 0; i < 4; i++) x[u][i] = tile_get<F>(sh, E, pass_sw(e0[u] + (uint32_t)i * h));
                j[u] = ((uint64_t)(rw & ((1u << lo) - 1)) << a.b0) | (lo_hi << a.c) | lc; /* < 2^b */
                w0[u] = twiddle(a.tw, b + 1, j[u]);
                w1[u] = twiddle(a.tw, b + 1, j[u] | ((uint64_t)1 << b));
            }
            CZ_NTT_UNROLL
            for (int u = 0; u < ILP; u++) {
                if (DIT) { /* level b, then b + 1 */
                    bf_lower_pair_lazy<F, DIT>(x[u][0], x[u][1], x[u][2], x[u][3], a.tw, b, j[u]);
                    bf_dit_lazy(x[u][0], x[u][2], w0[u]);
                    bf_dit_lazy(x[u][1], x[u][3], w1[u]);
                } else { /* level b + 1, then b */
                    bf_dif_lazy(x[u][0], x[u][2], w0[u]);
                    bf_dif_lazy(x[u][1], x[u][3], w1[u]);
                    bf_lower_pair_lazy<F, DIT>(x[u][0], x[u][1], x[u][2], x[u][3], a.tw, b, j[u]);
                }
            }
            CZ_NTT_UNROLL
            for (int u = 0; u < ILP; u++)
                for (int i = 0; i < 4; i++) tile_put(sh, E, pass_sw(e0[u] + (uint32_t)i * h), x[u][i]);
        }
        return;
    }
    /* (the form above with ILP = 1 would be the same maths, but not the
     * same machine code: this loop is the one timed, bench/RESULTS.md) */
    for (uint32_t q = tid; q < E / 4; q += nthr) {
        const uint32_t lc = q & ((1u << a.c) - 1), rr = q >> a.c;
        const uint32_t rw = ((rr >> lo) << (lo + 2)) | (rr & ((1u << lo) - 1));
        const uint32_t e0 = (rw << a.c) | lc;
        F x0 = tile_get<F>(sh, E, pass_sw(e0)), x1 = tile_get<F>(sh, E, pass_sw(e0 + h)),
          x2 = tile_get<F>(sh, E, pass_sw(e0 + 2 * h)), x3 = tile_get<F>(sh, E, pass_sw(e0 + 3 * h));
        const uint64_t j = ((uint64_t)(rw & ((1u << lo) - 1)) << a.b0) | (lo_hi << a.c) | lc; /* < 2^b */
#if CZ_CUDA_NTT_LATE_TW
        /* each level-(b + 1) twiddle loaded just before its butterfly */
        if (DIT) { /* level b, then b + 1 */
            bf_lower_pair_lazy<F, DIT>(x0, x1, x2, x3, a.tw, b, j);
            const F w0 = twiddle(a.tw, b + 1, j);
            bf_dit_lazy(x0, x2, w0);
            const F w1 = twiddle(a.tw, b + 1, j | ((uint64_t)1 << b));
            bf_dit_lazy(x1, x3, w1);
        } else { /* level b + 1, then b */
            const F w0 = twiddle(a.tw, b + 1, j);
            bf_dif_lazy(x0, x2, w0);
            const F w1 = twiddle(a.tw, b + 1, j | ((uint64_t)1 << b));
            bf_dif_lazy(x1, x3, w1);
            bf_lower_pair_lazy<F, DIT>(x0, x1, x2, x3, a.tw, b, j);
        }
#else
        const F w0 = twiddle(a.tw, b + 1, j), w1 = twiddle(a.tw, b + 1, j | ((uint64_t)1 << b));
        if (DIT) { /* level b, then b + 1 */
            bf_lower_pair_lazy<F, DIT>(x0, x1, x2, x3, a.tw, b, j);
            bf_dit_lazy(x0, x2, w0);
            bf_dit_lazy(x1, x3, w1);
        } else { /* level b + 1, then b */
            bf_dif_lazy(x0, x2, w0);
            bf_dif_lazy(x1, x3, w1);
            bf_lower_pair_lazy<F, DIT>(x0, x1, x2, x3, a.tw, b, j);
        }
#endif
        tile_put(sh, E, pass_sw(e0), x0);
        tile_put(sh, E, pass_sw(e0 + h), x1);
        tile_put(sh, E, pass_sw(e0 + 2 * h), x2);
        tile_put(sh, E, pass_sw(e0 + 3 * h), x3);
    }
}

/* Last phase: shared -> global (a.y, else a.x; REV_STORE: to the
 * bit-reversed places), each element reduced from [0, 2p) to [0, p). */
template <class F> CZ_HD void pass_store(const pass_args<F> &a, const uint32_t *sh, uint64_t blk, uint32_t tid, uint32_t nthr)
{
    const uint32_t E = pass_elems(a);
    F *y = a.y ? a.y : a.x;
    for (uint32_t e = tid; e < E; e += nthr) {
        uint64_t g = pass_gidx(a, blk, e);
        if (a.rev == REV_STORE) g = bitrev(g, a.tw.k);
        store_el(y + g, tile_get<F>(sh, E, pass_sw(e)).reduced());
    }
}

/* The H step's last pass of c with the pointwise step in its store
 * (CZ_CUDA_NTT_H_PW): pa[i] = pa[i] pb[i] - c_i for the tile's elements
 * (pa, pb: a and b, transformed; the tile: c's coset values, not stored). */
template <class F>
CZ_HD void pass_store_pw(const pass_args<F> &a, const uint32_t *sh, uint64_t blk, uint32_t tid, uint32_t nthr, F *pa,
                         const F *pb)
{
    const uint32_t E = pass_elems(a);
    for (uint32_t e = tid; e < E; e += nthr) {
        const uint64_t g = pass_gidx(a, blk, e);
        store_el(pa + g, load_el(pa + g) * load_el(pb + g) - tile_get<F>(sh, E, pass_sw(e)).reduced());
    }
}

/* Threads per block of a pass kernel: two quadruples a thread per radix-4
 * step (E / 8: 128 threads for the default 2^10-element tiles, 256 for 2^11;
 * at least a warp, or E / 2 below that), at most 256 (the launch bounds).
 * The kernels' registers are capped for 768 threads an SM (80), so tiles of
 * 2^10 run 6 blocks of 4 warps an SM where 2^11 run 3 of 8: the same warps,
 * twice the blocks, whose barriers fall apart. Measured on the H100
 * (bench/RESULTS.md, 2026-12-07), 2^24 BLS12-381: forward 4.02 (2^10, 256
 * threads) and 4.05 (2^11, 256) -> 3.80 ms (2^10, 128), the H step 24.9 ->
 * 23.9 ms. */
static inline uint32_t pass_threads(uint32_t E)
{
    const uint32_t lo = E / 2 < 32 ? (E / 2 ? E / 2 : 1) : 32;
    const uint32_t t = E / 8 < lo ? lo : E / 8;
    return t > 256 ? 256 : t;
}

/* ---- bit reversal and the pointwise step ---------------------------------- */

/* Element i of the in-place bit reversal: swaps x[i] and x[bitrev(i)] once. */
template <class F> CZ_HD void bitrev_swap(F *x, unsigned k, uint64_t i)
{
    uint64_t j = bitrev(i, k);
    if (i < j) {
        F u = load_el(x + i), v = load_el(x + j);
        store_el(x + i, v);
        store_el(x + j, u);
    }
}

/*
 * The tiled in-place bit reversal (k >= 2 BR_T, the GPU's, since bitrev_swap
 * reads and writes one 32-byte element at a stride of 2^(k-1) bytes, a
 * sector per element). Index i = hi 2^(k-t) + m 2^t + lo (t = BR_T; hi, lo <
 * 2^t; m: the k - 2t middle bits) goes to bitrev(i) = rev_t(lo) 2^(k-t) +
 * rev(m) 2^t + rev_t(hi), so tile m (its 2^t rows hi of 2^t adjacent
 * elements lo) lands, transposed and with rows and columns reversed, on tile
 * m' = rev(m). Block blk (one per m) with m <= m' reads tiles m and m' into
 * shared memory (rows of 2^t elements: 512-byte runs) and writes each to the
 * other's place; blocks with m > m' have nothing to do. Shared memory:
 * limb-major planes of 2^t rows padded to 2^t + 1 words, so that the
 * transposed reads of the second phase hit 2^t different banks.
 */
enum { BR_T = 4, BR_E = 1 << (2 * BR_T), BR_ROW = (1 << BR_T) + 1, BR_PLANE = (1 << BR_T) * BR_ROW };

/* the tiled kernel is used for 2^(2 BR_T) <= n and at most 2^30 blocks */
static inline bool bitrev_tiled(unsigned k) { return k >= 2 * BR_T && k - 2 * BR_T <= 30; }
static inline uint64_t bitrev_tile_blocks(unsigned k) { return (uint64_t)1 << (k - 2 * BR_T); }

/* Phase 1 of block blk (threads tid of nthr): tiles blk and rev(blk) into
 * sh (2 F::N BR_PLANE words); false: the block has nothing to do. */
template <class F>
CZ_HD bool bitrev_tile_load(const F *x, unsigned k, uint64_t blk, uint32_t *sh, uint32_t tid, uint32_t nthr)
{
    const uint64_t m2 = bitrev(blk, k - 2 * BR_T);
    if (m2 < blk) return false;
    const uint32_t ne = m2 == blk ? BR_E : 2 * BR_E, mask = (1u << BR_T) - 1;
    for (uint32_t e = tid; e < ne; e += nthr) {
        const uint32_t tile = e >> (2 * BR_T), hi = (e >> BR_T) & mask, lo = e & mask;
        const uint64_t m = tile ? m2 : blk;
        const F v = load_el(x + (((uint64_t)hi << (k - BR_T)) | (m << BR_T) | lo));
        sh_put(sh + (size_t)tile * F::N * BR_PLANE, BR_PLANE, hi * BR_ROW + lo, v);
    }
    return true;
}

/* Phase 2 (after a barrier, only where phase 1 returned true): element (a,
 * b) of the tile at rev(m) is element (rev_t(b), rev_t(a)) of tile m. */
template <class F> CZ_HD void bitrev_tile_store(F *x, unsigned k, uint64_t blk, const uint32_t *sh, uint32_t tid, uint32_t nthr)
{
    const uint64_t m2 = bitrev(blk, k - 2 * BR_T);
    const uint32_t ne = m2 == blk ? BR_E : 2 * BR_E, mask = (1u << BR_T) - 1;
    for (uint32_t e = tid; e < ne; e += nthr) {
        const uint32_t tile = e >> (2 * BR_T), a = (e >> BR_T) & mask, b = e & mask;
        const uint32_t ra = (uint32_t)bitrev(a, BR_T), rb = (uint32_t)bitrev(b, BR_T);
        const F v = sh_get<F>(sh + (size_t)tile * F::N * BR_PLANE, BR_PLANE, rb * BR_ROW + ra);
        const uint64_t dst = tile ? blk : m2; /* tile 0 (from blk) goes to rev(blk), tile 1 back to blk */
        store_el(x + (((uint64_t)a << (k - BR_T)) | (dst << BR_T) | b), v);
    }
}

/* h_i = a_i b_i - c_i (the snarkjs H step: no division by Z(x)). */
template <class F> CZ_HD void pointwise(F *a, const F *b, const F *c, uint64_t i)
{
    store_el(a + i, load_el(a + i) * load_el(b + i) - load_el(c + i));
}

/* c_i = a_i b_i (the H step's c where the caller passed none: backend.h). */
template <class F> CZ_HD void product(F *c, const F *a, const F *b, uint64_t i)
{
    store_el(c + i, load_el(a + i) * load_el(b + i));
}

/* ---- host side: constants from the CPU fields ------------------------------ */

/* host_field<SHORT_fr>: the CPU scalar field and NTT of each curve */
template <class F> struct host_field;
#define CZ_NTT_HOST_FIELD_(ID, VALUE, SYM, CONST, SHORT, ...)                                                                 \
    template <> struct host_field<SHORT##_fr> {                                                                        \
        typedef SYM##_fr C;                                                                                            \
        static const unsigned S = CONST##_FR_S;                                                                        \
        static void mul(C *r, const C *a, const C *b) { SYM##_fr_mul(r, a, b); }                                      \
        static void sqr(C *r, const C *a) { SYM##_fr_sqr(r, a); }                                                      \
        static cz_status inv(C *r, const C *a) { return SYM##_fr_inv(r, a); }                                         \
        static void from_u64(C *r, uint64_t v) { SYM##_fr_from_u64(r, v); }                                           \
        static C one() { return SYM##_fr_ONE; }                                                                        \
        static cz_status root(C *r, unsigned k) { return SYM##_ntt_root_of_unity(r, k); }                              \
        static cz_status shift(C *g, unsigned k) { return SYM##_ntt_coset_shift(g, k); }                               \
    };
CZ_CURVE_LIST(CZ_NTT_HOST_FIELD_)
#undef CZ_NTT_HOST_FIELD_

/* CPU element -> device element: the same bytes (ff.cuh's contract). */
template <class F, class C> static inline F to_dev(const C &a)
{
    static_assert(sizeof(F) == sizeof(C), "same layout");
    F r;
    memcpy(&r, &a, sizeof r);
    return r;
}

/* The constants of a table kind for size 2^k (1 <= k <= S): sigma, the coset
 * factor c, gamma_0 = c^(2^(k-1)), and the power tables lo[2^m], hi[2^(k-1-m)]
 * (m = seed_m(k)) of sigma. hi / lo may be NULL (constants only). */
template <class F> struct tab_consts {
    F sigma, c, gamma0;
    F w1; /* tw(1, 1) = (c sigma)^(2^(k-2)) (k >= 2; 1 for k = 1) */
};

template <class F> static inline cz_status host_tab_consts(int kind, unsigned k, tab_consts<F> *out, F *hi, F *lo)
{
    typedef host_field<F> H;
    typedef typename H::C C;
    if (k == 0 || k > H::S) return CZ_ERR_RANGE;
    C sigma, c = H::one();
    cz_status st = H::root(&sigma, k);
    if (st != CZ_OK) return st;
    if (tab_is_inverse(kind) && (st = H::inv(&sigma, &sigma)) != CZ_OK) return st;
    if (tab_is_coset(kind)) {
        if ((st = H::shift(&c, k)) != CZ_OK) return st;
        if (kind == TAB_COSET_INV && (st = H::inv(&c, &c)) != CZ_OK) return st;
    }
    C g0 = c;
    for (unsigned i = 0; i + 1 < k; i++)
        H::sqr(&g0, &g0);
    out->sigma = to_dev<F>(sigma);
    out->c = to_dev<F>(c);
    out->gamma0 = to_dev<F>(g0);
    C w1;
    H::mul(&w1, &c, &sigma);
    if (k < 2) w1 = H::one();
    for (unsigned i = 0; i + 2 < k; i++)
        H::sqr(&w1, &w1);
    out->w1 = to_dev<F>(w1);
    const unsigned m = seed_m(k);
    if (lo) {
        C p = H::one();
        for (uint64_t i = 0; i < ((uint64_t)1 << m); i++) {
            lo[i] = to_dev<F>(p);
            H::mul(&p, &p, &sigma);
        }
    }
    if (hi) {
        C step = sigma, p = H::one();
        for (unsigned i = 0; i < m; i++)
            H::sqr(&step, &step);
        for (uint64_t i = 0; i < ((uint64_t)1 << (k - 1 - m)); i++) {
            hi[i] = to_dev<F>(p);
            H::mul(&p, &p, &step);
        }
    }
    return CZ_OK;
}

/* 1/2^k as a device element. */
template <class F> static inline F host_inv_n(unsigned k)
{
    typedef host_field<F> H;
    typename H::C two, r = H::one();
    H::from_u64(&two, 2);
    (void)H::inv(&two, &two);
    for (unsigned i = 0; i < k; i++)
        H::mul(&r, &r, &two);
    return to_dev<F>(r);
}

/* The twiddle descriptor of a transform with table tab of kind `kind`; scale:
 * multiply by 1/n (inverse transforms). */
template <class F> static inline tw_t<F> make_tw(const F *tab, int kind, unsigned k, int scale, const tab_consts<F> &tc)
{
    tw_t<F> w;
    w.tab = tab;
    w.k = k;
    w.coset = tab_is_coset(kind);
    w.s = scale ? host_inv_n<F>(k) : F::one();
    w.tw0 = w.coset ? tc.gamma0 : F::one();
    if (scale) w.tw0 = w.tw0 * w.s;
    w.lvl0 = scale ? 2 : w.coset ? 1 : 0;
    w.w1 = tc.w1;
    w.w1s = scale ? w.w1 * w.s : w.w1;
    return w;
}

/* ---- the order of the steps: shared by cuda/ntt.cu and the host emulation -- */

/* One radix-2 network on x: DIF (DIT = false) or DIT, per-level (pl == NULL)
 * or by passes. X provides level(x, tw, b, dit) and pass(x, tw, pass, dit),
 * each returning cz_status. */
template <class F, class X> static inline cz_status run_network(X &ex, F *x, const tw_t<F> &tw, bool dit, const plan_t *pl)
{
    const unsigned k = tw.k;
    cz_status st = CZ_OK;
    if (!pl) {
        for (unsigned i = 0; i < k && st == CZ_OK; i++)
            st = ex.level(x, tw, dit ? i : k - 1 - i, dit);
    } else {
        for (unsigned i = 0; i < pl->npass && st == CZ_OK; i++)
            st = ex.pass(x, tw, pl->p[dit ? i : pl->npass - 1 - i], dit);
    }
    return st;
}

/* Operations of cz_cuda_ntt: 0 forward, 1 inverse, 2 coset forward, 3 coset inverse. */
static inline int op_of(int inverse, int coset) { return (coset ? 2 : 0) + (inverse ? 1 : 0); }
/* table kind, scale and network of each op (coset forward is the only DIT) */
static inline int op_tab(int op) { return op; }
static inline int op_dit(int op) { return op == 2; }
static inline int op_scale(int op) { return op == 1 || op == 3; }

/*
 * 1: cz_cuda_ntt's bit reversal inside a pass where the plan has two passes
 * or more and the call has an n-element scratch y (run_op): the network runs
 * out of place, x -> y -> .. -> y -> x, and its pass of bits [0, t) (DIF's
 * last, DIT's first; c = 0: whole contiguous tiles) stores to (REV_STORE) or
 * loads from (REV_LOAD) the bit-reversed places, so the bit reversal's own
 * kernel (a read and a write of the whole array: 1 GB at 2^24) is not run.
 * A pass cannot do it in place: a tile's elements go to every tile's places.
 * 0: the bit reversal's kernel (bitrev_tile_load / _store).
 */
#ifndef CZ_CUDA_NTT_FUSED_REV
#define CZ_CUDA_NTT_FUSED_REV 1
#endif
/* whether plan pl can carry the bit reversal (blocks: 2^(k-t) <= 2^31) */
static inline bool rev_fusable(const plan_t *pl)
{
    return pl && pl->npass >= 2 && pl->p[0].b0 == 0 && pl->p[0].c == 0 && pl->k - pl->p[0].t <= 31;
}

/* cz_cuda_ntt's steps on x (natural order in and out). tw from make_tw for
 * op_tab(op), op_scale(op). X also provides bitrev(x, k). With y (n elements,
 * not overlapping x), fuse_rev and rev_fusable(pl): the passes out of place
 * through X::pass_io(src, dst, tw, pass, dit, rev), no bit reversal of its
 * own (CZ_CUDA_NTT_FUSED_REV); y's contents are then undefined. */
template <class F, class X>
static inline cz_status run_op(X &ex, F *x, int op, const tw_t<F> &tw, const plan_t *pl, F *y = NULL,
                               bool fuse_rev = CZ_CUDA_NTT_FUSED_REV)
{
    if (tw.k == 0) return CZ_OK;
    cz_status st = CZ_OK;
    if (y && fuse_rev && rev_fusable(pl)) {
        const bool dit = op_dit(op) != 0;
        const unsigned np = pl->npass;
        for (unsigned s = 0; s < np && st == CZ_OK; s++) {
            const unsigned i = dit ? s : np - 1 - s; /* DIT ascends, DIF descends */
            const unsigned rev = i != 0 ? REV_NONE : dit ? REV_LOAD : REV_STORE;
            st = ex.pass_io(s == 0 ? x : y, s + 1 == np ? x : y, tw, pl->p[i], dit, rev);
        }
        return st;
    }
    if (op_dit(op)) {
        if ((st = ex.bitrev(x, tw.k)) != CZ_OK) return st;
        return run_network(ex, x, tw, true, pl);
    }
    if ((st = run_network(ex, x, tw, false, pl)) != CZ_OK) return st;
    return ex.bitrev(x, tw.k);
}

/* 1: the H step's inverse transform ends and its coset transform starts in
 * one pass (X::pass_h): the lowest pass's tile is loaded once, its DIF
 * levels run with the inverse twiddles and then its DIT levels with the coset
 * ones (both keep the tile's values in [0, 2p)), and stored once: one pass of
 * the array's reads and writes fewer per array (1 GB at 2^24). Measured on
 * the H100 (bench/RESULTS.md, 2026-12-06): the H step 2^24 27.31 -> 27.02 ms
 * (BLS12-381; BN254 27.28 -> 27.02), 2^22 6.73 -> 6.63. 0: two passes. */
#ifndef CZ_CUDA_NTT_H_FUSE
#define CZ_CUDA_NTT_H_FUSE 1
#endif

/* 1: the H step's inverse transform of a without its scale 1/n (level 0
 * then needs no product: n per array with it, two per butterfly) and that of
 * b with 1/n^2, so that a b is the same (c keeps 1/n): n products of ~75 n
 * fewer (1.3%). Measured on the H100 (bench/RESULTS.md, 2026-12-06 14:30,
 * two rounds of 7): the H step 2^24 27.05 -> 26.80 ms (BLS12-381; BN254
 * 27.02 -> 26.81), the transforms unchanged. 0: every inverse scaled 1/n. */
#ifndef CZ_CUDA_NTT_H_SCALE_B
#define CZ_CUDA_NTT_H_SCALE_B 1
#endif
/* The inverse transform's twiddles of array i (0 a, 1 b, 2 c) of the H step;
 * tw_inv: make_tw(TAB_INV, scale 1). */
template <class F> static inline tw_t<F> h_tw_inv(const tw_t<F> &tw_inv, int i, bool scale_b = CZ_CUDA_NTT_H_SCALE_B)
{
    tw_t<F> w = tw_inv;
    if (!scale_b || i == 2 || w.lvl0 != 2 || w.coset) return w;
    if (i == 0) {
        w.s = w.tw0 = F::one();
        w.lvl0 = 0;
    } else {
        w.s = w.s * w.s;
        w.tw0 = w.s;
    }
    w.w1s = w.w1 * w.s;
    return w;
}

/* 1: the H step's pointwise step (h = a b - c into a) in the store of c's
 * last pass (X::pass_pw, ntt.cu k_pass<F, true, true>) instead of a kernel of its own:
 * c's coset values are never stored and read back: that pass and the
 * pointwise step move 2 GiB instead of 3 at 2^24. Where the plan has no plain
 * last pass (one pass, fused) the pointwise kernel runs (h_pw_ok). Measured
 * on the H100 (bench/RESULTS.md, 2026-12-06 14:30, two rounds of 7): the H
 * step 2^24 27.05 -> 26.64 ms (BLS12-381; BN254 27.02 -> 26.63), the
 * transforms unchanged. 0: the pointwise step in a kernel of its own. */
#ifndef CZ_CUDA_NTT_H_PW
#define CZ_CUDA_NTT_H_PW 1
#endif
static inline bool h_pw_ok(const plan_t *pl, bool fuse) { return pl && pl->k > 0 && pl->npass >= (fuse ? 2u : 1u); }

/* The H step's transforms of one array: values -> coefficients (bit-reversed,
 * scaled) -> natural values on the coset. tw_inv: make_tw(TAB_INV, scale 1),
 * tw_cos: make_tw(TAB_COSET_FWD, scale 0). With passes and fuse
 * (CZ_CUDA_NTT_H_FUSE), through X::pass_h(x, tw_inv, tw_cos, pass). With pw_a
 * (c's transforms; needs h_pw_ok(pl, fuse)): the last pass through
 * X::pass_pw(x, tw_cos, pass, pw_a, pw_b), h = pw_a pw_b - c into pw_a. */
template <class F, class X>
static inline cz_status run_h_array(X &ex, F *x, const tw_t<F> &tw_inv, const tw_t<F> &tw_cos, const plan_t *pl,
                                    bool fuse = CZ_CUDA_NTT_H_FUSE, F *pw_a = NULL, const F *pw_b = NULL)
{
    if (tw_inv.k == 0) return CZ_OK;
    if (pw_a && !h_pw_ok(pl, fuse)) return CZ_ERR_INTERNAL;
    cz_status st = CZ_OK;
    unsigned first = 0; /* the coset transform's first plain pass */
    if (fuse && pl) {
        for (unsigned i = pl->npass; i-- > 1 && st == CZ_OK;)
            st = ex.pass(x, tw_inv, pl->p[i], false);
        const pass_t &p0 = pl->p[0];
        if (st == CZ_OK)
            st = ex.pass_h(x, tw_inv, h_joint(tw_inv, p0.b0, p0.t, p0.c) ? h_joint_tw(tw_inv, tw_cos) : tw_cos, p0);
        first = 1;
    } else {
        st = run_network(ex, x, tw_inv, false, pl);
        if (!pl) return st == CZ_OK ? run_network(ex, x, tw_cos, true, pl) : st;
    }
    for (unsigned i = first; i < pl->npass && st == CZ_OK; i++)
        st = pw_a && i + 1 == pl->npass ? ex.pass_pw(x, tw_cos, pl->p[i], pw_a, pw_b) : ex.pass(x, tw_cos, pl->p[i], true);
    return st;
}

/* The H step on arrays x[0..2] = a, b, c of 2^k elements (h into a): the
 * order of its work, for the GPU (cuda/ntt.cu compute_h_t) and the emulator
 * alike. X adds to run_h_array's executor: arrive(i) (array i is there from
 * here on: the GPU queues its upload and waits for it; nothing where the
 * arrays are there already), copy(dst, src), product(c, a, b) (c = a o b)
 * and pointwise(a, b, c) (a = a b - c). form_c: c is not given (backend.h
 * compute_h with c NULL): b arrives first and is copied into x[2] before its
 * transforms, which run while a arrives; then x[2] = a o x[2] and a's and
 * c's transforms. c goes last either way: its last pass holds the pointwise
 * step where h_pw_ok. */
template <class F, class X>
static inline cz_status run_h_step(X &ex, F *const x[3], const tw_t<F> &tw_inv, const tw_t<F> &tw_cos,
                                   const plan_t *pl, unsigned k, bool form_c)
{
    static const int order[2][3] = {{0, 1, 2}, {1, 0, 2}};
    const bool pw = CZ_CUDA_NTT_H_PW && h_pw_ok(pl, CZ_CUDA_NTT_H_FUSE);
    cz_status st = CZ_OK;
    for (int j = 0; j < 3 && st == CZ_OK; j++) {
        const int i = order[form_c][j];
        if (!form_c || i != 2) st = ex.arrive(i);
        if (st == CZ_OK && form_c && i == 1) st = ex.copy(x[2], x[1]);
        if (st == CZ_OK && form_c && i == 0) st = ex.product(x[2], x[0], x[2]);
        if (st == CZ_OK && k > 0)
            st = run_h_array(ex, x[i], h_tw_inv(tw_inv, i), tw_cos, pl, CZ_CUDA_NTT_H_FUSE, pw && i == 2 ? x[0] : NULL,
                             pw && i == 2 ? x[1] : NULL);
    }
    return st == CZ_OK && !pw ? ex.pointwise(x[0], x[1], x[2]) : st;
}

} // namespace ntt
} // namespace cz_dev

/* ---- device-resident entry points (cuda/ntt.cu), for the prover's GPU path
 * and the benchmarks. Data are device pointers (16-byte aligned) of 2^log_n
 * elements; the work is queued on ctx->compute and not waited for. Tables are
 * built on first use (cz_cuda_ntt_prepare builds them ahead, e.g. so that a
 * benchmark does not time it). Same results and errors as the host-memory
 * calls of cuda/cuda.h. cz_cuda_ntt_dev may take the context's scratch arena
 * (n elements for the bit reversal in a pass, where the device has room),
 * like the host-memory calls: blocks the caller got from it earlier are not
 * valid after it, unless d_data is one of them (then it leaves the arena
 * alone). ---- */
cz_status cz_cuda_ntt_dev(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *d_data, int inverse, int coset,
                          cz_error *err);
cz_status cz_cuda_compute_h_dev(cz_cuda *ctx, cz_curve curve, unsigned log_n, void *d_a, void *d_b, void *d_c,
                                cz_error *err);
/* Builds the tables that cz_cuda_ntt(inverse, coset) (h = 0) or compute_h (h = 1) uses. */
cz_status cz_cuda_ntt_prepare(cz_cuda *ctx, cz_curve curve, unsigned log_n, int h, int inverse, int coset,
                              cz_error *err);

#endif
