/*
 * cuda/msm.cuh: the per-element logic and the plan of the GPU MSM
 * (cuda/msm.cu), shared with the host test tests/test_cuda_msm.cu.
 *
 * DESIGN: Pippenger with signed digits, data-parallel throughout. For a
 * chunk of points (scalars s_i, affine bases P_i):
 *
 *  1. prep: every scalar is range-checked (stored value < r, both forms) and
 *     classified: 0 (dropped), 1 (its base goes to the "ones" list, summed
 *     directly), other (m of them, compacted in index order). For each other
 *     scalar, converted to canonical form, the W = (bits + c) / c signed
 *     digits d_w in [-2^(c-1), 2^(c-1)] of msm/msm.h (Booth recoding read
 *     from bits wc-1 .. wc+c-1, no carries between windows) become entries
 *     (key = |d| - 1, val = i | sign << 31) of window w; d = 0 gives
 *     (key 0, val SENT), an entry that adds nothing.
 *  2. sort: each window's m entries by key (radix sort, cuda/msm.cu), so the
 *     entries of a bucket are contiguous.
 *  3. accumulation (levels): the sorted entries of a window are cut into
 *     fixed runs of L0 entries, one thread each, so every thread does the
 *     same number of mixed XYZZ additions however uneven the buckets are. A
 *     bucket whose entries lie inside one thread's run is written by that
 *     thread; the pieces of a bucket that crosses a run boundary go to a
 *     level-1 array (two slots per thread: the sum of its first and of its
 *     last bucket, or infinity), which is sorted by key again by
 *     construction and is reduced the same way (runs of L entries, full XYZZ
 *     additions), and so on until one thread holds everything. A bucket is
 *     written exactly once, at the level where it first lies inside one
 *     run (later levels only see infinity for it and skip the write), so no
 *     atomics and no bucket-size dependent work: all points in one bucket
 *     cost the same as uniform buckets plus log_{L/2}(m) cheap levels.
 *  4. reduction: sum_k (k + 1) B_k per window, by segments of S buckets in
 *     parallel: each segment computes tot = sum_i (i + 1) B_{a+i} and
 *     sum = sum_i B_{a+i} by running sums from the top and returns
 *     tot + a * sum (a = its first bucket, double-and-add); then the segment
 *     results of a window are summed by a tree of group sums (G per thread).
 *  5. the ones: their bases are summed by the same group-sum tree (on the
 *     GPU on a stream of their own, beside steps 2-4: ones_part, acc_part);
 *     the trees take 32 values per thread while a step fills the GPU, then
 *     8 or 4 (tree_group).
 *  6. host: the W window sums are combined (c doublings per window, top
 *     first), the ones added (combine_windows), the chunks' results added
 *     (one reduction per call: the chunks carry the buckets, chunk_points).
 *
 * Shared plans (plan.shared): where the bases are resident with a table of
 * their multiples 2^(c w) P (table_fn), digit w of point i is an entry for
 * the table point 2^(c w) P_i, so all W m entries go into one bucket set:
 * one sort, one accumulation (the same levels over W m entries), one
 * reduction, and the host adds the set's sum to the ones' (plan_result):
 * no doublings between windows, and W - 1 fewer reductions, so the window
 * grows (TAB_C_MAX) and W shrinks. A partial table (the first Wt windows,
 * where VRAM holds no more) gives one set per group of Wt windows instead.
 * table_pays decides per chunk.
 *
 * Everything a thread does is a __host__ __device__ functor here; the
 * sequence of launches after the sort is after_sort(), templated over an
 * executor: cuda/msm.cu runs it with kernel launches, the host test with
 * loops over the thread index (in a random order per launch, so threads
 * that would race on the GPU give wrong results there too), so the very
 * code the GPU runs (index math included) is checked against the CPU MSM on
 * every CI run. Only block-level cooperation (compaction scans) and the sort
 * stay in cuda/msm.cu.
 *
 * Costs (m points, W windows, nb = 2^(c-1) buckets): W m mixed additions at
 * level 0 (the bulk), ~2 W m / L0 full additions in the upper levels,
 * ~2.1 W nb full additions in the reduction, W m radix-sort entries.
 */
#ifndef CZ_CUDA_MSM_CUH
#define CZ_CUDA_MSM_CUH

#include <stddef.h>
#include <stdint.h>

#include "cuda/ec.cuh"
#include "cuzk/status.h"

namespace cz_dev {
namespace msm {

/* ---- constants -------------------------------------------------------------- */

enum { CLS_SKIP = 0, CLS_ONE = 1, CLS_OTHER = 2, CLS_BAD = 3 };

static const uint32_t SENT = 0xffffffffu;  /* entry of a zero digit: adds nothing */
static const uint32_t SIGN = 0x80000000u;  /* entry val: negate the base */
static const size_t MAX_CHUNK = (size_t)1 << 30; /* points per chunk: indices < 2^31 - 1 */

/* phases an executor may time (Exec::mark) */
enum { PH_START, PH_PREP, PH_SORT, PH_ONES, PH_ACC, PH_END, PH_COUNT };

static const int C_MIN = 8;        /* automatic windows: c in [C_MIN, C_MAX] */
static const int C_MAX = 20;
static const int TAB_C_MIN = 10;   /* windows of a table of multiples (table_fn) */
static const int TAB_C_MAX = 24;
static const size_t TAB_MAX_ENTRIES = ((size_t)1 << 31) - 2; /* W m (shared plan), W n (table): < SIGN, != SENT */
static const int C_FORCE_MIN = 4;  /* CZ_MSM_WINDOW accepts [C_FORCE_MIN, C_MAX] */
static const int MAX_WINDOWS = 64; /* (255 + 4) / 4 */
static const int MAX_LEVELS = 40;

/* ---- scalars ---------------------------------------------------------------- */

/* 8 little-endian 32-bit words of a 32-byte scalar */
struct scalar {
    uint32_t w[8];
};

CZ_HD scalar load_scalar(const uint32_t *p)
{
    scalar s;
    for (int i = 0; i < 8; i++) s.w[i] = p[i];
    return s;
}

/* a < b as 256-bit integers */
CZ_HD bool less_256(const scalar &a, const uint32_t b[8])
{
    for (int i = 7; i >= 0; i--) {
        if (a.w[i] != b[i]) return a.w[i] < b[i];
    }
    return false;
}

/*
 * Class of a stored scalar (FRP: the scalar field's parameters of
 * cuda/ff.cuh): CLS_BAD when the stored 256-bit value is >= r (both forms,
 * as msm/msm.h), else CLS_SKIP for 0, CLS_ONE for the element 1 (R mod r in
 * Montgomery form), CLS_OTHER for the rest.
 */
template <class FRP> CZ_HD int classify(const scalar &s, bool montgomery)
{
    uint32_t r[8], one[8];
    uint32_t z = 0, is_one = 1;
    for (int i = 0; i < 8; i++) {
        r[i] = FRP::p(i);
        one[i] = montgomery ? FRP::r(i) : (i == 0 ? 1u : 0u);
        z |= s.w[i];
        is_one &= (uint32_t)(s.w[i] == one[i]);
    }
    if (!less_256(s, r)) return CLS_BAD;
    if (z == 0) return CLS_SKIP;
    return is_one ? CLS_ONE : CLS_OTHER;
}

/* The canonical integer of a stored scalar < r. */
template <class FRP> CZ_HD scalar canonical(const scalar &s, bool montgomery)
{
    if (!montgomery) return s;
    fp<FRP> x;
    for (int i = 0; i < 8; i++) x.l[i] = s.w[i];
    x = x.from_mont();
    scalar o;
    for (int i = 0; i < 8; i++) o.w[i] = x.l[i];
    return o;
}

/* ---- signed digits ---------------------------------------------------------- */

/* windows of c bits for scalars < 2^bits: W c >= bits + 1 keeps the top digit >= 0 */
CZ_HD int windows_of(int c, int bits) { return (bits + c) / c; }

/*
 * Digit w (window width c, 2 <= c <= 31) of a canonical scalar k < 2^256
 * whose top bit is 0: v = bits [wc - 1, wc + c - 1] of k (bit -1 = 0),
 * d = ((v + 1) >> 1) - (v_c << c), in [-2^(c-1), 2^(c-1)];
 * sum_w d_w 2^(wc) = k over windows_of(c, bits) windows (msm/msm.h).
 */
CZ_HD int digit(const scalar &k, int w, int c)
{
    uint64_t v;
    int lo = w * c - 1;
    if (lo < 0) {
        v = (uint64_t)k.w[0] << 1;
    } else {
        int li = lo >> 5, sh = lo & 31;
        uint64_t x = li < 8 ? k.w[li] : 0;
        if (li + 1 < 8) x |= (uint64_t)k.w[li + 1] << 32;
        v = x >> sh;
    }
    v &= ((uint64_t)1 << (c + 1)) - 1;
    return (int)((v + 1) >> 1) - (int)((v >> c) << c);
}

/*
 * The W entries of the point with canonical scalar k, at position j of each
 * window's array (window w at w * stride). The entry of window w names the
 * base v0 + (w mod wt) * vstep (< 2^31 - 1): v0 = the point's index and
 * vstep = 0 for the bases themselves; with a table of multiples (table_fn
 * below: index u n + i names 2^(c u) P_i, u < wt: the block's own point for
 * u = 0, src_entries), v0 = the point's index in the table's block and
 * vstep = n, so that the entry of window w names 2^(c (w mod wt)) P and the
 * wt windows of a group share one bucket set (wt = 0: all W windows, one
 * set). Windows W .. wpad - 1 (a last group's padding) get entries that add
 * nothing.
 */
CZ_HD void write_entries(const scalar &k, uint32_t v0, size_t j, int c, int W, size_t stride, uint32_t *keys,
                         uint32_t *vals, uint32_t vstep = 0, int wt = 0, int wpad = 0)
{
    for (int w = 0, u = 0; w < W; w++, u = u + 1 == wt ? 0 : u + 1) {
        int d = digit(k, w, c);
        const uint32_t i = v0 + (uint32_t)u * vstep;
        uint32_t key = 0, val = SENT;
        if (d > 0) {
            key = (uint32_t)d - 1;
            val = i;
        } else if (d < 0) {
            key = (uint32_t)(-d) - 1;
            val = i | SIGN;
        }
        keys[(size_t)w * stride + j] = key;
        vals[(size_t)w * stride + j] = val;
    }
    for (int w = W; w < wpad; w++) {
        keys[(size_t)w * stride + j] = 0;
        vals[(size_t)w * stride + j] = SENT;
    }
}

/* ---- point helpers ---------------------------------------------------------- */

/* k p for k < 2^32 (double-and-add from the top bit) */
template <class F> CZ_HD xyzz<F> mul_small(const xyzz<F> &p, uint32_t k)
{
    xyzz<F> r = xyzz<F>::inf();
    if (k == 0 || p.is_inf()) return r;
    int top = 31;
    while (!((k >> top) & 1)) top--;
    r = p;
    for (int b = top - 1; b >= 0; b--) {
        r = r.dbl();
        if ((k >> b) & 1) r = r.add(p);
    }
    return r;
}

/* sum_w 2^(wc) win[w] (Horner, top window first; on the host) */
template <class F> xyzz<F> combine_windows(const xyzz<F> *win, int W, int c)
{
    xyzz<F> acc = xyzz<F>::inf();
    for (int w = W - 1; w >= 0; w--) {
        for (int i = 0; i < c; i++) acc = acc.dbl();
        acc = acc.add(win[w]);
    }
    return acc;
}

/* ---- the table of multiples ----------------------------------------------------- */

/*
 * Precomputation for resident bases: tab[(w - 1) n + i] = 2^(c w) P_i
 * (affine) for the n points P_i of a block and 1 <= w < W (window 0 is the
 * block itself: entry index w n + i names P_i for w = 0 and tab[(w - 1) n +
 * i] for w >= 1, src_entries; so a table costs W - 1 times the block's
 * bytes, not W: 6 GiB less for a 2^26 BLS12-381 G1 block), so that digit w of a scalar
 * is an entry for the point 2^(c w) P_i and all W windows share one bucket
 * set (plan.shared): one reduction instead of W, and no doublings between
 * windows, so that the window can grow (fewer windows, fewer entries).
 * Where VRAM holds fewer than W windows of the block, a partial table keeps
 * the first Wt: digit w is an entry for 2^(c (w mod Wt)) P_i in the bucket
 * set of group w / Wt, and the host adds the A = ceil(W / Wt) set sums with
 * c Wt doublings between them (plan_result): the same entries, A
 * reductions, a table A times smaller.
 * cuda/msm.cu builds a block's table once, one window after the other:
 * launch w (1 <= w < Wt) over the
 * points [lo, hi) of a piece, K consecutive points per thread: acc[i - lo]
 * (window w - 1's point in XYZZ form, or P_i when w = 1) doubled c times
 * and kept for the next window, then made affine with one inversion per
 * thread (Montgomery's trick: the running product of the ZZZ goes through
 * tab's x on the way; 1/ZZ = ZZ^2 / ZZZ^2 since ZZ^3 = ZZZ^2). Points at
 * infinity (and any that a doubling takes there) become (0, 0).
 */
static const size_t TAB_K = 16;
template <class F> struct table_fn {
    const affine<F> *src; /* the n bases */
    affine<F> *tab;       /* (W - 1) x n: windows 1 .. W - 1 */
    xyzz<F> *acc;         /* hi - lo */
    size_t n, lo, hi, K;
    int c, w;
    CZ_HD void operator()(size_t t) const
    {
        const size_t a = lo + t * K, e = a + K < hi ? a + K : hi;
        if (a >= e) return;
        affine<F> *out = tab + (size_t)(w - 1) * n;
        F run = F::one();
        for (size_t i = a; i < e; i++) {
            xyzz<F> p = w == 1 ? xyzz<F>::from_affine(src[i]) : acc[i - lo];
            for (int k = 0; k < c; k++) p = p.dbl();
            acc[i - lo] = p;
            if (!p.is_inf()) run = run * p.ZZZ;
            out[i].x = run; /* the product of the ZZZ of [a, i] */
        }
        F inv = run.inv();
        for (size_t i = e; i-- > a;) {
            const xyzz<F> p = acc[i - lo];
            if (p.is_inf()) {
                out[i] = affine<F>::inf();
                continue;
            }
            const F u = i > a ? inv * out[i - 1].x : inv; /* 1 / ZZZ_i */
            inv = inv * p.ZZZ;                              /* 1 / the product of [a, i) */
            const F u2 = u.sqr();
            out[i].x = p.X * p.ZZ.sqr() * u2;
            out[i].y = p.Y * u;
        }
    }
};

/* ---- bucket accumulation: one run of entries ---------------------------------- */

/*
 * One thread of a level: the entries [lo, hi) of a window's sorted array of
 * cnt entries (src.key(j) non-decreasing; src.add(acc, j) adds entry j).
 * Buckets that lie entirely inside [lo, hi) are stored into bk[key] (unless
 * their sum is infinity: bk starts all-infinity). The first and the last
 * bucket of the run, when they continue beyond it (a piece), go to the two
 * slots (pkey[0], pval[0]) and (pkey[1], pval[1]); unused slots get the key of
 * the first / last bucket and infinity, so the slots of all threads form a
 * key-sorted array again (the next level's input).
 */
template <class F, class Src>
CZ_HD void acc_run(const Src &src, size_t cnt, size_t lo, size_t hi, xyzz<F> *bk, uint32_t *pkey, xyzz<F> *pval)
{
    const uint32_t first = src.key(lo), last = src.key(hi - 1);
    const bool cont_in = lo > 0 && src.key(lo - 1) == first;
    const bool cont_out = hi < cnt && src.key(hi) == last;
    pkey[0] = first;
    pkey[1] = last;
    xyzz<F> acc = xyzz<F>::inf();
    uint32_t cur = first;
    bool in_first = true;
    for (size_t j = lo; j < hi; j++) {
        const uint32_t k = src.key(j);
        if (k != cur) {
            /* bucket cur ended inside the run */
            if (in_first) {
                pval[0] = cont_in ? acc : xyzz<F>::inf();
                if (!cont_in && !acc.is_inf()) bk[cur] = acc;
            } else if (!acc.is_inf()) {
                bk[cur] = acc;
            }
            acc = xyzz<F>::inf();
            cur = k;
            in_first = false;
        }
        src.add(acc, j);
    }
    /* bucket cur ends at hi */
    if (in_first) {
        const bool piece = cont_in || cont_out;
        pval[0] = piece ? acc : xyzz<F>::inf();
        pval[1] = xyzz<F>::inf();
        if (!piece && !acc.is_inf()) bk[cur] = acc;
    } else {
        pval[1] = cont_out ? acc : xyzz<F>::inf();
        if (!cont_out && !acc.is_inf()) bk[cur] = acc;
    }
}

/* level 0 source: sorted (key, val) entries and the affine points they
 * name: index i < split is bases[i], i >= split is tab[i - split] (a table
 * of multiples: split = n, the block's own points being its window 0;
 * without one split = SIGN, every index in bases); INL: the mixed addition
 * inlined in the loop (xyzz::add_affine_inline) */
template <class F, bool INL = false> struct src_entries {
    const uint32_t *keys, *vals;
    const affine<F> *bases, *tab;
    uint32_t split;
    CZ_HD uint32_t key(size_t j) const { return keys[j]; }
    CZ_HD void add(xyzz<F> &acc, size_t j) const
    {
        const uint32_t v = vals[j];
        if (v == SENT) return;
        const uint32_t i = v & ~SIGN;
        affine<F> P = *(i < split ? bases + i : tab + (i - split));
        if (v & SIGN) P.y = -P.y; /* infinity (0, 0) stays infinity */
        if constexpr (INL)
            acc = acc.add_affine_inline(P);
        else
            acc = acc.add_affine(P);
    }
};

/* level >= 1 source: the pieces of the level below */
template <class F> struct src_pieces {
    const uint32_t *keys;
    const xyzz<F> *vals;
    CZ_HD uint32_t key(size_t j) const { return keys[j]; }
    CZ_HD void add(xyzz<F> &acc, size_t j) const { acc = acc.add(vals[j]); }
};

/*
 * A level over all windows at once: thread t = w T + u takes entries
 * [u L, min(cnt, (u + 1) L)) of window w (window w's entries at w * cnt, its
 * buckets at w * nb, its 2 T output slots at w * 2T).
 */
template <class F, bool INL = false> struct level0_fn {
    const uint32_t *keys, *vals; /* W x cnt, sorted per window */
    const affine<F> *bases, *tab; /* the points the entries name (src_entries) */
    uint32_t split;
    size_t cnt, L, T, nb;
    xyzz<F> *buckets;   /* W x nb */
    uint32_t *okey;     /* W x 2T */
    xyzz<F> *oval;
    CZ_HD void operator()(size_t t) const
    {
        const size_t w = t / T, u = t % T;
        const size_t lo = u * L, hi = lo + L < cnt ? lo + L : cnt;
        if (lo >= hi) return;
        src_entries<F, INL> s = {keys + w * cnt, vals + w * cnt, bases, tab, split};
        acc_run<F>(s, cnt, lo, hi, buckets + w * nb, okey + w * 2 * T + 2 * u, oval + w * 2 * T + 2 * u);
    }
};

/* the same level with the inlined addition */
template <class F> CZ_HD level0_fn<F, true> level0_inlined(const level0_fn<F> &a)
{
    level0_fn<F, true> f = {a.keys, a.vals, a.bases, a.tab, a.split, a.cnt, a.L, a.T, a.nb, a.buckets, a.okey, a.oval};
    return f;
}

template <class F> struct levelk_fn {
    const uint32_t *ikey; /* W x cnt */
    const xyzz<F> *ival;
    size_t cnt, L, T, nb;
    xyzz<F> *buckets;
    uint32_t *okey; /* W x 2T */
    xyzz<F> *oval;
    CZ_HD void operator()(size_t t) const
    {
        const size_t w = t / T, u = t % T;
        const size_t lo = u * L, hi = lo + L < cnt ? lo + L : cnt;
        if (lo >= hi) return;
        src_pieces<F> s = {ikey + w * cnt, ival + w * cnt};
        acc_run<F>(s, cnt, lo, hi, buckets + w * nb, okey + w * 2 * T + 2 * u, oval + w * 2 * T + 2 * u);
    }
};

/* ---- reduction and sums ------------------------------------------------------ */

/*
 * Segment s of window w (t = w nseg + s), buckets [a, a + S) with a = s S:
 * out[t] = sum_{i<S} (a + i + 1) B_{a+i} = tot + a * sum.
 */
template <class F> struct reduce_fn {
    const xyzz<F> *buckets; /* W x nb */
    size_t nb, S, nseg;
    xyzz<F> *out; /* W x nseg */
    CZ_HD void operator()(size_t t) const
    {
        const size_t w = t / nseg, s = t % nseg;
        const xyzz<F> *b = buckets + w * nb + s * S;
        xyzz<F> run = xyzz<F>::inf(), tot = xyzz<F>::inf();
        for (size_t i = S; i-- > 0;) {
            run = run.add(b[i]);
            tot = tot.add(run);
        }
        out[t] = tot.add(mul_small(run, (uint32_t)(s * S)));
    }
};

/* acc[t] += fresh[t]: a later chunk's buckets into the ones its call carries */
template <class F> struct merge_fn {
    xyzz<F> *acc;
    const xyzz<F> *fresh;
    CZ_HD void operator()(size_t t) const
    {
        const xyzz<F> f = fresh[t];
        if (!f.is_inf()) acc[t] = acc[t].add(f);
    }
};

/* out[w ocnt + g] = sum of in[w cnt + i] for i in [g G, min(cnt, g G + G)) */
template <class F> struct sum_fn {
    const xyzz<F> *in;
    size_t cnt, G, ocnt;
    xyzz<F> *out;
    CZ_HD void operator()(size_t t) const
    {
        const size_t w = t / ocnt, g = t % ocnt;
        const size_t lo = g * G, hi = lo + G < cnt ? lo + G : cnt;
        xyzz<F> acc = xyzz<F>::inf();
        for (size_t i = lo; i < hi; i++) acc = acc.add(in[w * cnt + i]);
        out[t] = acc;
    }
};

/* out[g] = sum of bases[idx[i]] for i in [g G, min(cnt, g G + G)) */
template <class F> struct ones_fn {
    const uint32_t *idx;
    const affine<F> *bases;
    size_t cnt, G;
    xyzz<F> *out;
    CZ_HD void operator()(size_t g) const
    {
        const size_t lo = g * G, hi = lo + G < cnt ? lo + G : cnt;
        xyzz<F> acc = xyzz<F>::inf();
        for (size_t i = lo; i < hi; i++) acc = acc.add_affine(bases[idx[i]]);
        out[g] = acc;
    }
};

/*
 * All launches of after_sort go through one functor type per group, a
 * tagged union of the above: the GPU compiles a single kernel per group
 * (ptxas compiles the called point formulas again for every kernel that
 * calls them: five kernels per group took 10 minutes to build, one takes
 * under one), and the host test runs the very same dispatch.
 */
enum { OP_LEVEL0, OP_LEVELK, OP_REDUCE, OP_SUM, OP_ONES, OP_TABLE, OP_MERGE };

template <class F> struct op {
    int kind;
    union {
        level0_fn<F> l0;
        levelk_fn<F> lk;
        reduce_fn<F> r;
        sum_fn<F> s;
        ones_fn<F> o;
        table_fn<F> tb;
        merge_fn<F> mg;
    };
    CZ_HD void operator()(size_t t) const
    {
        switch (kind) {
        case OP_LEVEL0: l0(t); break;
        case OP_LEVELK: lk(t); break;
        case OP_REDUCE: r(t); break;
        case OP_SUM: s(t); break;
        case OP_TABLE: tb(t); break;
        case OP_MERGE: mg(t); break;
        default: o(t); break;
        }
    }
};

template <class F> CZ_HD op<F> make_op(const level0_fn<F> &f)
{
    op<F> x;
    x.kind = OP_LEVEL0;
    x.l0 = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const levelk_fn<F> &f)
{
    op<F> x;
    x.kind = OP_LEVELK;
    x.lk = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const reduce_fn<F> &f)
{
    op<F> x;
    x.kind = OP_REDUCE;
    x.r = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const sum_fn<F> &f)
{
    op<F> x;
    x.kind = OP_SUM;
    x.s = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const ones_fn<F> &f)
{
    op<F> x;
    x.kind = OP_ONES;
    x.o = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const table_fn<F> &f)
{
    op<F> x;
    x.kind = OP_TABLE;
    x.tb = f;
    return x;
}
template <class F> CZ_HD op<F> make_op(const merge_fn<F> &f)
{
    op<F> x;
    x.kind = OP_MERGE;
    x.mg = f;
    return x;
}

/* ---- the plan ------------------------------------------------------------------ */

/*
 * Cost of window c for m points, in field products of the group (mul_per_us:
 * the GPU's products per microsecond for this group's coordinate field,
 * which prices the per-window launch overhead, ~20 us, and the sorting and
 * entry traffic, ~60 ps per entry): every window costs a mixed addition per
 * point (10 products), per bucket two full additions in the reduction (28,
 * plus the segment offsets ~1) and the partial sums that the level-0 runs
 * leave at bucket boundaries (~7: fitted to the H200's window sweep of
 * bench/RESULTS.md, where 29 a bucket chose c = 18 for 2^22 points and
 * c = 16 was 8% faster), and the fixed overhead.
 */
inline double window_cost(size_t m, int c, int bits, double mul_per_us)
{
    const double W = (double)windows_of(c, bits), nb = (double)((size_t)1 << (c - 1));
    return W * ((double)m * (10.0 + 6e-5 * mul_per_us) + nb * 36.0 + 20.0 * mul_per_us);
}

/* The window for m points: the cheapest c in [C_MIN, C_MAX] (ties: the
 * smaller c, so that the choice never decreases as m grows). */
inline int choose_window(size_t m, int bits, double mul_per_us)
{
    int best = C_MIN;
    double bc = window_cost(m, C_MIN, bits, mul_per_us);
    for (int c = C_MIN + 1; c <= C_MAX; c++) {
        double k = window_cost(m, c, bits, mul_per_us);
        if (k < bc) {
            bc = k;
            best = c;
        }
    }
    return best;
}

/* The windows a table of window c keeps: all W (wt = 0 or >= W), else wt. */
CZ_HD int table_windows(int c, int bits, int wt)
{
    const int W = windows_of(c, bits);
    return wt <= 0 || wt >= W ? W : wt;
}
/* The bucket sets of a plan through a table of wt windows: ceil(W / wt). */
CZ_HD int table_sets(int c, int bits, int wt)
{
    const int W = windows_of(c, bits), t = table_windows(c, bits, wt);
    return (W + t - 1) / t;
}

/*
 * The same cost through a table of multiples of wt of the W windows (0:
 * all): the windows form A = ceil(W / wt) groups of wt, each one bucket set
 * (A = 1 with the whole table): the A wt m entries (a last group's padding
 * counted as whole entries) and their additions stay, the reduction and
 * the fixed launches are paid once per set.
 */
inline double shared_cost(size_t m, int c, int bits, double mul_per_us, int wt = 0)
{
    const int t = table_windows(c, bits, wt), A = table_sets(c, bits, wt);
    const double nb = (double)((size_t)1 << (c - 1));
    return (double)A * ((double)t * (double)m * (10.0 + 6e-5 * mul_per_us) + nb * 36.0 + 60.0 * mul_per_us);
}

/*
 * The table for calls of up to n points: with maxw = 0 a whole one (all W
 * windows, W n <= TAB_MAX_ENTRIES); with maxw > 0 (the windows of n points
 * that fit in VRAM) all W where they fit, else the fewest bucket sets A
 * that fit, each of ceil(W / A) windows (at least 2: a table of one window
 * is the bases, the per-window plan), with wt n <= TAB_MAX_ENTRIES. The
 * cheapest c in [TAB_C_MIN, TAB_C_MAX] and its windows *wt; returns the
 * window, 0 if none (*wt = 0 then).
 */
inline int table_plan(size_t n, int bits, double mul_per_us, int maxw, int *wt)
{
    int best = 0, bw = 0;
    double bc = 0;
    const size_t cap = n ? TAB_MAX_ENTRIES / n : TAB_MAX_ENTRIES;
    for (int c = TAB_C_MIN; c <= TAB_C_MAX; c++) {
        const int W = windows_of(c, bits);
        if (maxw == 0 && (size_t)W > cap) continue;
        int lim = maxw > 0 && maxw < W ? maxw : W;
        if ((size_t)lim > cap) lim = (int)cap;
        if (lim < 2 && lim < W) continue;
        const int A = (W + lim - 1) / lim, t = (W + A - 1) / A;
        const double k = shared_cost(n, c, bits, mul_per_us, t);
        if (best == 0 || k < bc) {
            bc = k;
            best = c;
            bw = t;
        }
    }
    *wt = bw;
    return best;
}

/* The window of a whole table for calls of up to n points (table_plan
 * without a limit on its windows); 0 if none. */
inline int table_window(size_t n, int bits, double mul_per_us)
{
    int wt;
    return table_plan(n, bits, mul_per_us, 0, &wt);
}

/* Whether m points go faster through a table of window tc (wt of its
 * windows; 0: all) than through the per-window plan (at its own best
 * window): by at least a tenth in the model (measured on the H200,
 * bench/RESULTS.md: a witness-like BN254 G1 MSM of 2^24 points that the
 * model put 1% in favour of the table took 20.2 ms through it against 18.8
 * without; full-width ones, modelled 13-19% cheaper, were 13-17% faster). */
inline bool table_pays(size_t m, int tc, int bits, double mul_per_us, int wt = 0)
{
    if (m == 0 || tc < TAB_C_MIN || tc > TAB_C_MAX ||
        (size_t)table_windows(tc, bits, wt) * m > TAB_MAX_ENTRIES)
        return false;
    if (table_windows(tc, bits, wt) < 2 && windows_of(tc, bits) > 1) return false;
    const int c = choose_window(m, bits, mul_per_us);
    return shared_cost(m, tc, bits, mul_per_us, wt) < 0.9 * window_cost(m, c, bits, mul_per_us);
}

/* Tunables (0 = default; cuda/msm.cu reads them from the environment). */
struct knobs {
    int window;   /* CZ_MSM_WINDOW: c, in [C_FORCE_MIN, C_MAX] */
    size_t run;   /* CZ_MSM_RUN: level-0 entries per thread, >= 8 */
    size_t chunk; /* CZ_MSM_CHUNK: points per chunk, >= 1 */
    size_t run_huge; /* the default run from RUN_HUGE_ENTRIES entries on (0: no such tier; cuda/msm.cu: G1) */
    size_t chunk_first; /* points of the first chunk (0: chunk_points' choice; cz_cuda_opts msm_first) */
};

/* Level-0 entries per thread: 64 where the level-0 launch has at least 2^25
 * entries (W m; at least 2^19 threads, ~16 waves of 132 SMs), else 32, so
 * that the small launches still fill the GPU (measured on the H200: 64 is
 * 1-3% faster for full-width scalars at 2^22-2^24 and up to 7% slower for
 * the few points of a witness-like G2 MSM); and, where the caller asks for
 * a third tier (knobs run_huge: cuda/msm.cu gives G1 RUN_HUGE), that from
 * 2^27 entries (measured on the H200, 2026-12-04, against 64: BLS12-381 G1
 * 2^24 -1.0% through the table, BN254 G1 2^24 -2.0%, with 2 x 10^8 entries;
 * BLS12-381 G1 2^22, 5 x 10^7 entries, +0.8%; G2 2^22 1-3% slower, so G2
 * keeps 64). The plan's layout for a fixed c grows with m between the
 * switches (var_reserve sizes each side). */
static const size_t RUN_SMALL = 32, RUN_BIG = 64, RUN_HUGE = 256;
static const size_t RUN_BIG_ENTRIES = (size_t)1 << 25, RUN_HUGE_ENTRIES = (size_t)1 << 27;
inline size_t run_default(size_t m, int W, size_t huge = 0)
{
    const size_t e = m * (size_t)W;
    if (huge && e >= RUN_HUGE_ENTRIES) return huge;
    return e >= RUN_BIG_ENTRIES ? RUN_BIG : RUN_SMALL;
}
/* the largest m whose default run is below the one of switch i (0: RUN_BIG,
 * 1: the huge tier), 0 if none */
inline size_t run_switch_below(int i, int W, const knobs &k)
{
    if (k.run || (i == 1 && !k.run_huge)) return 0;
    return ((i == 0 ? RUN_BIG_ENTRIES : RUN_HUGE_ENTRIES) - 1) / (size_t)W;
}
static const size_t RUN_UPPER = 16;   /* entries per thread at levels >= 1 */
static const size_t SUM_GROUP = 32;   /* bases per thread in the ones' first sum */

/*
 * Values per thread in one step of a group-sum tree over W arrays of cnt
 * values: 32 while the step still has TREE_THREADS threads at that (the
 * GPU full, the time set by the additions' throughput), else 8 or 4. A step
 * with few threads is a chain of G dependent additions per thread at one
 * warp's latency (~20 us for a BLS12-381 G1 addition on the H200, measured:
 * the old fixed G = 32 made the tree over 2048 segments cost 66 chained
 * additions), so there the total chain, G per step over log_G(cnt) steps,
 * is what counts, shortest at G ~ 4.
 */
static const size_t TREE_THREADS = (size_t)1 << 16;
static const size_t TREE_G_MIN = 4;
inline size_t tree_group(size_t W, size_t cnt)
{
    static const size_t gs[] = {32, 8};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        if (W * ((cnt + gs[i] - 1) / gs[i]) >= TREE_THREADS) return gs[i];
    return TREE_G_MIN;
}
/* capacity (values) of a tree's second buffer tmp[1] over W arrays of cnt */
inline size_t tree_tmp_cap(size_t W, size_t cnt) { return W * ((cnt + TREE_G_MIN - 1) / TREE_G_MIN); }
static const size_t CHUNK_DEFAULT = (size_t)1 << 25;

/*
 * Chunks. A call of n points runs in chunks of at most chunk_points(n)
 * points: knobs.chunk (default CHUNK_DEFAULT, which bounds the scratch) or,
 * where the scalars are uploaded (upload: cuda/msm.cu asks for it for G1
 * through a table of multiples only) and n >= CARRY_SPLIT_MIN,
 * CARRY_PARTS chunks (more where those would pass CHUNK_DEFAULT), the
 * first a first_div-th of the others (CARRY_FIRST_DIV, or
 * CARRY_FIRST_DIV_FAST for the cheaper groups; all whole CARRY_ALIGN points),
 * so that chunk k + 1's scalars upload while chunk k sorts and accumulates
 * (cuda/msm.cu) and only the small first chunk's upload is in the call's
 * time (a 2^24-point BLS12-381 G1 call in one chunk waited 11.7 ms for its
 * 512 MiB of scalars and their classification before anything else could
 * start, H100, 2026-12-05; a chunk's sort and accumulation take ~8 times
 * its upload, so the first chunk's cover the upload of one 7 times its
 * size). Two chunks, as each after the first costs a merge (below).
 *
 * The chunks of a call carry one plan's bucket sets: the window (and
 * whether the plan goes through a table) is chosen once, at the first
 * chunk, for the m the whole call is estimated to have (carry_estimate:
 * the first chunk's share of others, scaled to n); each later chunk
 * accumulates into fresh buckets (bufs.fresh), which are then added to
 * what the earlier chunks left (merge_fn: plan.first false), and only the
 * last chunk reduces them (plan.last; the others return only the sum of
 * their ones, plan_result). So a chunk after the first costs A nb full
 * additions (~2 M for BLS12-381 G1 through a table of window 22), not a
 * reduction and a smaller window. (The additions inside level 0 instead,
 * at its bucket stores, took BLS12-381 G1's level-0 kernel from 3387 to
 * 5709 instructions and from no spills to 40 bytes, sm_90: left alone.)
 */
static const size_t CARRY_PARTS = 2;
/* the later chunk CARRY_FIRST_DIV times the first (BLS12-381 G1: 1/8 of the
 * call first); CARRY_FIRST_DIV_FAST for groups whose additions cost half
 * as much (BN254 G1: a first chunk's accumulation covers half as much
 * upload, so it is twice as large; measured on the H100, bench/RESULTS.md
 * 2026-12-06: BLS12-381 G1 2^24 101.7 ms at 1/8, 102.0-103.1 at 1/16, 3/32,
 * 5/32 and 3/16; BN254 G1 51.2-51.6 at 1/8, 49.6 at 3/16) */
static const size_t CARRY_FIRST_DIV = 7;
static const size_t CARRY_FIRST_DIV_FAST = 4;
static const size_t CARRY_SPLIT_MIN = (size_t)1 << 21;
static const size_t CARRY_ALIGN = (size_t)1 << 11; /* 64 KiB of scalars: whole upload pieces */
inline size_t carry_round(size_t x) { return (x + CARRY_ALIGN - 1) & ~(CARRY_ALIGN - 1); }
/* The points of the call's chunks: returns the most a chunk has, *first
 * the first chunk's (<= it); the others have the most but for the last. */
inline size_t chunk_points(size_t n, bool upload, const knobs &k, size_t *first, size_t first_div = CARRY_FIRST_DIV)
{
    size_t nc = k.chunk ? k.chunk : CHUNK_DEFAULT, f = 0;
    if (!k.chunk && upload && n >= CARRY_SPLIT_MIN) {
        if (k.chunk_first && k.chunk_first < n) { /* a given first chunk, the rest in one */
            const size_t q = carry_round(n - k.chunk_first);
            if (q < nc) nc = q;
        } else {
            /* f + (CARRY_PARTS - 1) q >= n with f = q / first_div */
            const size_t d = (CARRY_PARTS - 1) * first_div + 1;
            const size_t q = carry_round((n / d) * first_div + ((n % d) * first_div + d - 1) / d);
            if (q < nc) nc = q;
            f = carry_round(nc / first_div); /* (more chunks of CHUNK_DEFAULT: still a short first) */
        }
    }
    if (nc > MAX_CHUNK) nc = MAX_CHUNK;
    if (nc > n) nc = n;
    if (k.chunk_first) f = k.chunk_first;
    *first = f == 0 || f > nc ? nc : f;
    return nc;
}
/* the m of a call of n points whose first chunk of len0 points has m0 */
inline size_t carry_estimate(size_t m0, size_t len0, size_t n)
{
    if (len0 == 0 || len0 >= n) return m0;
    const double e = (double)m0 * ((double)n / (double)len0);
    return e >= (double)n ? n : (size_t)(e + 0.5);
}

/* Everything the launches after the sort need, for m other points (in W
 * windows of c bits) and m1 ones: per window a bucket set of m entries, or
 * (shared: a table of multiples) one bucket set of W m entries, or, through
 * a table of Wt < W windows, one set of Wt m entries per group of Wt
 * windows (the last group padded with entries that add nothing). */
struct plan {
    int c, W;
    bool shared;         /* bucket sets shared by windows (a table) */
    int Wt;              /* windows per set: 1, or W (or the table's) when shared */
    int A;               /* bucket sets: W, or ceil(W / Wt) when shared */
    size_t nb;           /* buckets per set, 2^(c-1) */
    size_t m, m1;
    size_t E;            /* entries per set: m, or Wt m when shared */
    int levels;          /* accumulation launches (0 when m = 0) */
    bool first, last;    /* a call's first / last chunk (carried chunks; both for one chunk) */
    size_t cnt[MAX_LEVELS], T[MAX_LEVELS], L[MAX_LEVELS]; /* per set */
    size_t S, nseg;      /* reduction segments */
    size_t G;            /* bases per thread in the ones' first sum */
};

/* Fills p for (m, m1, c) (shared: through a table of wt windows, 0: all,
 * c up to TAB_C_MAX); returns false if the knobs are out of range. */
inline bool make_plan(plan *p, size_t m, size_t m1, int c, int bits, const knobs &k, bool shared = false,
                      int wt = 0)
{
    if (c < 2 || c > (shared ? TAB_C_MAX : C_MAX)) return false;
    p->c = c;
    p->W = windows_of(c, bits);
    if (p->W > MAX_WINDOWS) return false;
    p->shared = shared;
    p->Wt = shared ? table_windows(c, bits, wt) : 1;
    p->A = shared ? table_sets(c, bits, wt) : p->W;
    if (shared && (size_t)p->Wt * m > TAB_MAX_ENTRIES) return false;
    p->nb = (size_t)1 << (c - 1);
    p->m = m;
    p->m1 = m1;
    p->E = shared ? (size_t)p->Wt * m : m;
    p->first = p->last = true;
    const size_t L0 = k.run ? k.run : run_default(m, p->W, k.run_huge);
    if (L0 < 8) return false;
    p->levels = 0;
    if (m > 0) {
        size_t cnt = p->E, L = L0;
        for (;;) {
            if (p->levels == MAX_LEVELS) return false;
            size_t T = (cnt + L - 1) / L;
            p->cnt[p->levels] = cnt;
            p->T[p->levels] = T;
            p->L[p->levels] = L;
            p->levels++;
            if (T <= 1) break;
            cnt = 2 * T; /* < cnt for cnt > L >= 8 */
            L = RUN_UPPER;
        }
    }
    /* segments: enough threads to fill the GPU, at most 64 buckets each */
    size_t S = 64;
    while (S > 16 && (size_t)p->A * (p->nb / S) < ((size_t)1 << 16)) S /= 2;
    if (S > p->nb) S = p->nb;
    p->S = S;
    p->nseg = p->nb / S;
    p->G = SUM_GROUP;
    return true;
}

/* The chunk's sum from the plan's results out[0, A] (A set sums, then the
 * ones): sum_a 2^(a c Wt) out[a] (host doublings; Wt = 1 per window, and
 * none with one shared set); before a call's last chunk only the ones (its
 * buckets go on to the next chunk). */
template <class F> xyzz<F> plan_result(const plan &p, const xyzz<F> *out)
{
    if (!p.last) return out[p.A];
    return (p.A == 1 ? out[0] : combine_windows<F>(out, p.A, p.c * p.Wt)).add(out[p.A]);
}

/* ---- the launches after the sort ------------------------------------------------- */

/*
 * Buffers of msm_after_sort (device pointers on the GPU, host pointers in the
 * host test). Sizes for a plan p (per entry: key 4 bytes, points sizeof):
 *   keys, vals      A * E sorted entries (set a's E at a * E)
 *   idx1            m1 base indices of the ones
 *   pkey/pval[q]    pieces of the levels k with k % 2 == q: max A * 2 T[k]
 *   buckets         A * nb (carried through a call's chunks)
 *   fresh           A * nb, for the chunks after a call's first (plan.first
 *                   false: their buckets, then added to `buckets`); else unused
 *   seg[0]          A * nseg; seg[1]: tree_tmp_cap(A, nseg)
 *   ones[0]         ceil(m1 / G); ones[1]: tree_tmp_cap(1, ceil(m1 / G))
 *   out             A + 1 points: the set sums, then the sum of the ones
 * bases are the chunk's (the ones' indices), ebases, etab and esplit what
 * the entries' vals index (src_entries): the same bases (etab NULL, esplit
 * SIGN), or a table of multiples (shared plans: ebases the block's points,
 * etab its windows 1.., esplit the block's points).
 */
template <class F> struct bufs {
    const affine<F> *bases, *ebases;
    const affine<F> *etab = NULL;
    uint32_t esplit = SIGN;
    const uint32_t *keys, *vals;
    const uint32_t *idx1;
    uint32_t *pkey[2];
    xyzz<F> *pval[2];
    xyzz<F> *buckets, *fresh;
    xyzz<F> *seg[2];
    xyzz<F> *ones[2];
    xyzz<F> *out;
};

/* capacity (entries) the plan needs in pkey/pval[q] */
inline size_t piece_cap(const plan &p, int q)
{
    size_t cap = 0;
    for (int k = q; k < p.levels; k += 2) {
        size_t e = (size_t)p.A * 2 * p.T[k];
        if (e > cap) cap = e;
    }
    return cap;
}

/*
 * Sums W arrays of cnt values each (in, window w at w * cnt) into out[w],
 * by group sums (tree_group values per thread) ping-ponging between tmp[0]
 * and tmp[1]: in is tmp[0] (only read by the first step; later steps write
 * fewer values into it), tmp[1] holds tree_tmp_cap(W, cnt).
 */
template <class F, class Exec>
cz_status sum_tree(Exec &ex, const xyzz<F> *in, size_t cnt, size_t W, xyzz<F> *const tmp[2], xyzz<F> *out)
{
    if (cnt == 0) return ex.zero(out, W * sizeof(xyzz<F>));
    if (cnt == 1) return ex.copy(out, in, W * sizeof(xyzz<F>));
    const xyzz<F> *src = in;
    for (int step = 0; cnt > 1; step++) {
        const size_t G = tree_group(W, cnt);
        size_t ocnt = (cnt + G - 1) / G;
        xyzz<F> *dst = ocnt == 1 ? out : tmp[(step + 1) % 2];
        sum_fn<F> f = {src, cnt, G, ocnt, dst};
        cz_status st = ex.run(make_op(f), W * ocnt);
        if (st != CZ_OK) return st;
        src = dst;
        cnt = ocnt;
    }
    return CZ_OK;
}

/*
 * After the compaction, the two independent parts (the GPU runs them on two
 * streams): ones_part sums the ones' bases into b.out[W] (reads idx1,
 * bases; writes ones[], out[W]); acc_part, after the sort, runs the
 * accumulation levels, the reduction and the window sums into b.out[0, W)
 * (reads keys, vals, bases; writes pkey/pval, buckets, seg, out[0, W)).
 * Exec provides
 *   cz_status run(const op<F> &fn, size_t threads)  fn(t) for t < threads
 *   cz_status zero(void *p, size_t bytes)        all-zero bytes (= infinity)
 *   cz_status copy(void *dst, const void *src, size_t bytes)
 *   cz_status mark(int phase)                    PH_ONES, PH_ACC reached (timing)
 * executed in order.
 */
template <class F, class Exec> cz_status ones_part(Exec &ex, const plan &p, const bufs<F> &b)
{
    cz_status st;
    const size_t W = (size_t)p.A;
    if (p.m1 == 0) {
        st = ex.zero(b.out + W, sizeof(xyzz<F>));
    } else {
        size_t g1 = (p.m1 + p.G - 1) / p.G;
        ones_fn<F> f = {b.idx1, b.bases, p.m1, p.G, b.ones[0]};
        st = ex.run(make_op(f), g1);
        if (st == CZ_OK) st = sum_tree<F>(ex, b.ones[0], g1, 1, b.ones, b.out + W);
    }
    return st == CZ_OK ? ex.mark(PH_ONES) : st;
}

template <class F, class Exec> cz_status acc_part(Exec &ex, const plan &p, const bufs<F> &b)
{
    cz_status st;
    const size_t W = (size_t)p.A; /* bucket sets */
    if (p.m == 0 && p.first && p.last) {
        st = ex.zero(b.out, W * sizeof(xyzz<F>));
        return st == CZ_OK ? ex.mark(PH_ACC) : st;
    }

    /* accumulation: a call's first chunk into the buckets, a later one's
     * (with other points) into fresh ones, then added to them */
    xyzz<F> *bk = p.first ? b.buckets : b.fresh;
    if ((p.first || p.m > 0) && (st = ex.zero(bk, W * p.nb * sizeof(xyzz<F>))) != CZ_OK) return st;
    for (int k = 0; k < p.levels; k++) {
        const int q = k % 2;
        if (k == 0) {
            level0_fn<F> f = {b.keys, b.vals, b.ebases, b.etab, b.esplit,
                              p.cnt[0], p.L[0], p.T[0], p.nb, bk, b.pkey[q], b.pval[q]};
            st = ex.run(make_op(f), W * p.T[0]);
        } else {
            levelk_fn<F> f = {b.pkey[1 - q], b.pval[1 - q], p.cnt[k], p.L[k], p.T[k], p.nb,
                              bk, b.pkey[q], b.pval[q]};
            st = ex.run(make_op(f), W * p.T[k]);
        }
        if (st != CZ_OK) return st;
    }
    if (!p.first && p.m > 0) {
        merge_fn<F> mg = {b.buckets, b.fresh};
        if ((st = ex.run(make_op(mg), W * p.nb)) != CZ_OK) return st;
    }
    if ((st = ex.mark(PH_ACC)) != CZ_OK) return st;
    if (!p.last) return CZ_OK; /* the buckets go on to the next chunk */

    /* reduction: segments, then the sum of each window's segments */
    reduce_fn<F> r = {b.buckets, p.nb, p.S, p.nseg, b.seg[0]};
    st = ex.run(make_op(r), W * p.nseg);
    if (st != CZ_OK) return st;
    return sum_tree<F>(ex, b.seg[0], p.nseg, W, b.seg, b.out);
}

/* Both parts on one executor (the host test; the GPU's order is the same
 * within each part) into b.out (W + 1 points). */
template <class F, class Exec> cz_status after_sort(Exec &ex, const plan &p, const bufs<F> &b)
{
    cz_status st = ones_part<F>(ex, p, b);
    return st == CZ_OK ? acc_part<F>(ex, p, b) : st;
}

} // namespace msm
} // namespace cz_dev

#endif
