/*
 * Multi-scalar multiplication (msm/msm.h): the group-independent parts (digit
 * recoding, scratch layout, the cost model that picks method, window and
 * splits), then msm/msm_tmpl_impl.h instantiated for every group.
 */
#include "msm/msm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ec/ec_batch.h"

/* per-point classes of the preparation step */
enum { MSM_SKIP = 0, MSM_ONE = 1, MSM_OTHER = 2, MSM_BAD = 3 };

/* Straus processes points in groups of this many (table 8 XYZZ per point) */
#define MSM_STRAUS_GROUP 32

static const uint64_t msm_one4[4] = {1, 0, 0, 0};

/* bucket loops prefetch the bucket and base of the point this far ahead */
#define MSM_PREFETCH 4
#if defined(__GNUC__)
#define MSM_PREFETCH_ADDR(p) __builtin_prefetch((p), 0, 3)
#else
#define MSM_PREFETCH_ADDR(p) ((void)(p))
#endif

/* 32 little-endian bytes -> 4 limbs */
static inline void msm_load4(uint64_t s[4], const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(s, p, 32);
#else
    for (int i = 0; i < 4; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--)
            v = (v << 8) | p[8 * i + j];
        s[i] = v;
    }
#endif
}

/* ---- signed (Booth) digits ------------------------------------------------------ */

/* windows of width c for scalars of `bits` bits: W c >= bits + 1 keeps the
 * sign bit of the top digit zero */
static inline int msm_windows(int c, int bits)
{
    return (bits + c) / c;
}

/*
 * Digit w of width c: v = bits [wc - 1, wc + c - 1] of the scalar (bit -1 = 0),
 * d = v0 + (bits 1..c-1 of v) - 2^(c-1) v_c = ((v + 1) >> 1) - (v_c << c),
 * in [-2^(c-1), 2^(c-1)]. Reading bits wc - 1 of the window below replaces the
 * carry of the usual recoding, so digits are independent.
 */
typedef struct {
    unsigned li, sh; /* limb and shift of bit wc - 1 */
    int w0, hi_ok;   /* first window; the window reaches into limb li + 1 */
    int c;
    uint64_t mask;
} msm_digit_reader;

static inline msm_digit_reader msm_digit_reader_of(int w, int c)
{
    msm_digit_reader r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.mask = ((uint64_t)1 << (c + 1)) - 1;
    if (w == 0) {
        r.w0 = 1;
    } else {
        unsigned o = (unsigned)(w * c - 1);
        r.li = o / 64;
        r.sh = o % 64;
        r.hi_ok = r.li + 1 < 4;
    }
    return r;
}

static inline int msm_digit(const msm_digit_reader *r, const uint64_t s[4])
{
    uint64_t v;
    if (r->w0) {
        v = s[0] << 1;
    } else {
        v = s[r->li] >> r->sh;
        if (r->hi_ok) v |= (s[r->li + 1] << 1) << (63 - r->sh);
    }
    v &= r->mask;
    return (int)((v + 1) >> 1) - (int)((v >> r->c) << r->c);
}

/* ---- plans and the cost model ------------------------------------------------------ */

typedef struct {
    cz_msm_method method; /* STRAUS, PIPPENGER_XYZZ or PIPPENGER_BATCH */
    int c;                /* window (Straus: 4) */
    int windows;          /* Straus: 1 */
    int splits;           /* point ranges per window (Straus: tasks) */
} msm_plan;

/* buckets that digits of window w can reach: 2^(c-1), fewer in the top window */
static inline size_t msm_window_buckets(const msm_plan *p, int w, int bits)
{
    size_t nb = (size_t)1 << (p->c - 1);
    if (w == p->windows - 1) {
        int e = bits - (p->windows - 1) * p->c; /* 0 <= e < c */
        if (e < p->c - 1) nb = (size_t)1 << e;
    }
    return nb;
}

/* sizes of one group's types */
typedef struct {
    size_t aff, xyzz, fe;
    size_t (*batch_scratch)(size_t n);
} msm_sizes;

/* offsets inside one thread's area for the batch-affine method */
typedef struct {
    size_t bk, mark, slot, bidx, q, dkey, dpt, pa, pb, core, end;
    size_t bs, dcap;
} msm_batch_layout;

static size_t msm_up64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/*
 * Additions per batch for 2^(c-1) buckets (batch: forced size, 0 = automatic).
 * A point whose bucket is queued already is deferred, which happens with
 * probability about bs / (2 nb): batches of nb/8 defer ~6% of the points at
 * most; CZ_MSM_BATCH caps the working set (bs points and prefix products stay
 * in L1/L2) while the shared inversion (~60-100 products) stays cheap.
 */
static size_t msm_batch_size(int c, size_t batch)
{
    if (batch) return batch;
    size_t bs = ((size_t)1 << (c - 1)) / 8;
    if (bs > CZ_MSM_BATCH) bs = CZ_MSM_BATCH;
    if (bs < 32) bs = 32;
    return bs;
}

static msm_batch_layout msm_batch_layout_of(msm_sizes z, int c, size_t batch)
{
    msm_batch_layout L;
    size_t nb = (size_t)1 << (c - 1);
    L.bs = msm_batch_size(c, batch);
    L.dcap = L.bs;
    size_t o = 0;
    L.mark = o, o += msm_up64((nb + 63) / 64 * 8);
    L.slot = o, o += msm_up64(nb * 4);
    L.bk = o, o += msm_up64(nb * z.aff);
    L.bidx = o, o += msm_up64(L.bs * 4);
    L.q = o, o += msm_up64(L.bs * z.aff);
    L.dkey = o, o += msm_up64(L.dcap * 4);
    L.dpt = o, o += msm_up64(L.dcap * z.aff);
    L.pa = o, o += msm_up64(L.dcap * 4);
    L.pb = o, o += msm_up64(L.dcap * 4);
    L.core = o, o += msm_up64(z.batch_scratch(L.bs > L.dcap ? L.bs : L.dcap));
    L.end = o;
    return L;
}

/* bytes of a thread's area that a plan needs */
static size_t msm_thread_need(msm_sizes z, cz_msm_method method, int c, size_t batch)
{
    switch (method) {
    case CZ_MSM_STRAUS: return msm_up64(MSM_STRAUS_GROUP * 8 * z.xyzz);
    case CZ_MSM_PIPPENGER_XYZZ: return msm_up64(((size_t)1 << (c - 1)) * z.xyzz);
    case CZ_MSM_PIPPENGER_BATCH: return msm_batch_layout_of(z, c, batch).end;
    default: return 0;
    }
}

/*
 * Cost model, in units of one batch-affine bucket addition (~6 field products
 * and bookkeeping), fitted to window sweeps of bench_msm --tune (BLS12-381
 * G1, 2^16 points, one thread; 2^20, 16 threads): an XYZZ mixed addition
 * costs ~1.2 of them, a bucket of the running-sum reduction ~1.45 (affine
 * buckets) or ~2 (XYZZ buckets). A batch of bs additions shares one
 * inversion (~8 units). Bucket arrays beyond ~1 MiB per thread fall out of
 * the core's L2: their windows were measured ~10% (1.5 MiB) and ~25%
 * (3 MiB) slower. A Straus point is 64 full XYZZ additions plus its table,
 * a Straus group shares 256 XYZZ doublings. Only the ratios matter.
 */
#define MSM_COST_BATCH 1.0
#define MSM_COST_INV 8.0
#define MSM_COST_XYZZ 1.2
#define MSM_COST_BUCKET_AFFINE 1.45
#define MSM_COST_BUCKET_XYZZ 2.0
#define MSM_COST_BATCH_TASK 25.0 /* final flushes, setup */
#define MSM_COST_TASK 5.0
#define MSM_COST_STRAUS_POINT 150.0
#define MSM_COST_STRAUS_CHAIN 380.0
#define MSM_COST_DBL 1.4 /* XYZZ doubling */
#define MSM_COST_ADD 2.0 /* full XYZZ addition */
#define MSM_L2_BYTES ((double)(1 << 20))

static double msm_pip_cost(size_t m, int threads, int c, int windows, int splits, cz_msm_method method, int bits,
                           msm_sizes z, size_t batch)
{
    size_t tasks = (size_t)windows * (size_t)splits;
    double rounds = (double)((tasks + (size_t)threads - 1) / (size_t)threads);
    double pts = (double)((m + (size_t)splits - 1) / (size_t)splits);
    msm_plan p = {method, c, windows, splits};
    size_t nbmax = (size_t)1 << (c - 1);
    /* buckets per task, the top window's fewer averaged in */
    double nb =
        ((double)(windows - 1) * (double)nbmax + (double)msm_window_buckets(&p, windows - 1, bits)) / (double)windows;
    int affine = method == CZ_MSM_PIPPENGER_BATCH;
    double bytes = (double)nbmax * (double)(affine ? z.aff : z.xyzz);
    double cache = bytes > MSM_L2_BYTES ? 1.0 + 0.15 * log2(bytes / MSM_L2_BYTES) : 1.0;
    double task;
    if (affine) {
        double bs = (double)msm_batch_size(c, batch);
        task = pts * (MSM_COST_BATCH + MSM_COST_INV / bs) + nb * MSM_COST_BUCKET_AFFINE + MSM_COST_BATCH_TASK;
    } else {
        task = pts * MSM_COST_XYZZ + nb * MSM_COST_BUCKET_XYZZ + MSM_COST_TASK;
    }
    /* the caller's combination: c doublings per window, one addition per task */
    double combine = (double)(windows * c) * MSM_COST_DBL + (double)tasks * MSM_COST_ADD;
    return rounds * task * cache + combine;
}

static double msm_straus_cost(size_t m, int threads, int splits)
{
    size_t pts = (m + (size_t)splits - 1) / (size_t)splits;
    double groups = (double)((pts + MSM_STRAUS_GROUP - 1) / MSM_STRAUS_GROUP);
    double rounds = (double)(((size_t)splits + (size_t)threads - 1) / (size_t)threads);
    return rounds * ((double)pts * MSM_COST_STRAUS_POINT + groups * MSM_COST_STRAUS_CHAIN) +
           (double)splits * MSM_COST_ADD;
}

/* most tasks a Pippenger plan may have: res[] holds this many results */
static size_t msm_max_tasks(int threads)
{
    return 8 * (size_t)threads + 128;
}

/*
 * The best plan for m points and `threads` threads under the forced options
 * of o, among those whose thread area fits tstride (0: no limit). Returns 0
 * if the forced options admit no plan.
 */
static int msm_choose(msm_plan *best, size_t m, int threads, const cz_msm_opts *o, int bits, msm_sizes z,
                      size_t tstride)
{
    cz_msm_method fm = o ? o->method : CZ_MSM_AUTO;
    int fc = o ? o->window : 0, fs = o ? o->splits : 0;
    size_t batch = o ? o->batch : 0;
    double best_cost = 0;
    int found = 0;
    if (m == 0) m = 1;
    if (fm == CZ_MSM_AUTO || fm == CZ_MSM_STRAUS) {
        size_t smax = (m + MSM_STRAUS_GROUP - 1) / MSM_STRAUS_GROUP;
        if (smax > (size_t)threads) smax = (size_t)threads;
        if (fs) smax = (size_t)fs < (size_t)threads ? (size_t)fs : (size_t)threads;
        if (tstride == 0 || msm_thread_need(z, CZ_MSM_STRAUS, 4, 0) <= tstride) {
            for (size_t s = fs ? smax : 1; s <= smax; s++) {
                double cost = msm_straus_cost(m, threads, (int)s);
                if (!found || cost < best_cost) {
                    *best = (msm_plan){CZ_MSM_STRAUS, 4, 1, (int)s};
                    best_cost = cost;
                    found = 1;
                }
            }
        }
    }
    if (fm == CZ_MSM_STRAUS) return found;
    int cmin = fc ? fc : 2, cmax = fc ? fc : CZ_MSM_MAX_WINDOW;
    for (int c = cmin; c <= cmax; c++) {
        int windows = msm_windows(c, bits);
        for (int k = 0; k < 2; k++) {
            cz_msm_method method = k ? CZ_MSM_PIPPENGER_BATCH : CZ_MSM_PIPPENGER_XYZZ;
            if (fm != CZ_MSM_AUTO && fm != method) continue;
            if (fm == CZ_MSM_AUTO && method == CZ_MSM_PIPPENGER_BATCH && c < CZ_MSM_BATCH_MIN_WINDOW) continue;
            if (tstride && msm_thread_need(z, method, c, batch) > tstride) continue;
            size_t smax = msm_max_tasks(threads) / (size_t)windows;
            if (smax < 1) smax = 1;
            if (smax > m) smax = m;
            int s0 = 1, s1 = (int)smax;
            if (fs) s0 = s1 = fs;
            if ((size_t)windows * (size_t)s1 > msm_max_tasks(threads) && s1 > 1) continue;
            for (int s = s0; s <= s1; s++) {
                double cost = msm_pip_cost(m, threads, c, windows, s, method, bits, z, batch);
                if (!found || cost < best_cost) {
                    *best = (msm_plan){method, c, windows, s};
                    best_cost = cost;
                    found = 1;
                }
            }
        }
    }
    return found;
}

/* ---- the scratch of one call ----------------------------------------------------------- */

typedef struct {
    size_t cls, cnt, ones, sc, idx, res, threads, total; /* offsets, after 64-byte alignment */
    size_t tstride;
    size_t nranges, chunk, rescap;
    int invalid; /* the forced options admit no plan */
} msm_scratch_layout;

/* Fills lay for chunks of nc points (the first chunk is the largest) and
 * returns the bytes to allocate. */
static size_t msm_scratch_layout_of(msm_scratch_layout *lay, msm_sizes z, size_t nc, int threads, const cz_msm_opts *o,
                                    int bits)
{
    memset(lay, 0, sizeof *lay);
    lay->chunk = o && o->chunk ? o->chunk : CZ_MSM_CHUNK;
    if (o && (o->window < 0 || o->window == 1 || o->window > CZ_MSM_MAX_WINDOW || o->splits < 0 ||
              (unsigned)o->method > CZ_MSM_PIPPENGER_BATCH))
        lay->invalid = 1;
    msm_plan p;
    if (!lay->invalid && !msm_choose(&p, nc, threads, o, bits, z, 0)) lay->invalid = 1;
    if (lay->invalid) return 0;
    /* the thread area: the worst-case plan, and room for Straus and for the
     * smaller XYZZ windows a smaller chunk may choose */
    size_t ts = msm_thread_need(z, p.method, p.c, o ? o->batch : 0);
    size_t straus = msm_thread_need(z, CZ_MSM_STRAUS, 4, 0);
    if (straus > ts) ts = straus;
    if (p.method != CZ_MSM_STRAUS) {
        int cx = p.c < CZ_MSM_BATCH_MIN_WINDOW - 1 ? p.c : CZ_MSM_BATCH_MIN_WINDOW - 1;
        size_t x = msm_thread_need(z, CZ_MSM_PIPPENGER_XYZZ, cx, 0);
        if (x > ts) ts = x;
    }
    lay->tstride = msm_up64(ts);
    /* preparation ranges: ~4 per thread, none smaller than 256 points */
    size_t nr = nc / 256;
    if (nr > 4 * (size_t)threads) nr = 4 * (size_t)threads;
    if (nr < 1) nr = 1;
    lay->nranges = nr;
    lay->rescap = msm_max_tasks(threads);
    size_t off = 0;
    lay->cls = off, off += msm_up64(nc);
    lay->cnt = off, off += msm_up64(nr * sizeof(size_t));
    lay->ones = off, off += msm_up64(nr * z.xyzz);
    lay->sc = off, off += msm_up64(nc * 32);
    lay->idx = off, off += msm_up64(nc * 4);
    lay->res = off, off += msm_up64(lay->rescap * z.xyzz);
    lay->threads = off, off += lay->tstride * (size_t)threads;
    lay->total = off;
    return off + 64; /* + alignment of the caller's pointer */
}

/* The plan for one chunk of m points within the layout's limits. */
static cz_status msm_plan_for(msm_plan *p, size_t m, int threads, const cz_msm_opts *o, int bits, msm_sizes z,
                              const msm_scratch_layout *lay)
{
    if (!msm_choose(p, m, threads, o, bits, z, lay->tstride)) return CZ_ERR_INVALID_ARG;
    if ((size_t)p->windows * (size_t)p->splits > lay->rescap) return CZ_ERR_INTERNAL;
    return CZ_OK;
}

/* ---- every group ------------------------------------------------------------------------- */

#define CZ_TMPL "msm/msm_tmpl_impl.h"
#include "util/foreach_group.h"
