/*
 * Host-side checks of the GPU MSM (cuda/msm.cuh): everything a GPU thread
 * does, run on the host by loops over the thread index, against the CPU MSM.
 *
 * The emulator below mirrors cuda/msm.cu step by step: per chunk, the same
 * classify / canonical / write_entries per scalar in index order (what
 * k_classify, k_scan and k_compact compute), a sort of each window's
 * entries by key (ties in random order: the GPU's sort order within a
 * bucket must not matter), then msm.cuh after_sort() itself, with a host
 * executor, on buffers of exactly the documented sizes surrounded by canary
 * words (any write out of bounds is caught), and the host combination. So
 * the index math of the kernels, the level structure, the reduction and the
 * window combination are the code under test here; only the CUDA plumbing
 * (launches, block scans, CUB, streams) is left for tests/gpu/test_gpu_msm.cu.
 *
 * Oracles: the CPU MSM (msm/msm.h, itself tested against naive sums and
 * linearity), the naive sum of scalar multiplications for tiny inputs, GMP
 * for the signed digits, direct per-bucket sums for the accumulation levels.
 * Inputs: all four groups, both scalar forms; n = 0..3 and other
 * non-powers of two up to 2^10; zero scalars (all, most), 1, 2, r - 1,
 * digit extremes, repeated bases, P and -P, bases at infinity, scalars >= r;
 * every window c in [4, 20] (G2 up to 16), several level run lengths,
 * chunking.
 */
#include <gmp.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "cuda/msm.cuh"
#pragma nv_diag_suppress 550 /* ff/mont_x86_64.h's asm outputs look unused to the CUDA front end */
#include "ec/ec.h"
#include "msm/msm.h"
#include "test_util.h"
#include "msm_test_groups.h"
#pragma nv_diag_default 550

using namespace cz_dev;
using namespace cz_dev::msm;

/* ---- the four groups: device types and CPU functions ------------------------------- */

#define GROUP(NAME, FIELD, FRP_, BITS, MUL_PER_US, G1)                                                               \
    struct NAME : cpu_##NAME {                                                                                       \
        typedef FIELD F;                                                                                             \
        typedef FRP_ FRP;                                                                                            \
        typedef cz_##NAME##_xyzz cxyzz;                                                                              \
        static constexpr int bits = BITS;                                                                            \
        static constexpr double mul_per_us = MUL_PER_US;                                                             \
        static constexpr bool g1 = G1;                                                                               \
        static void from_xyzz(jac *r, const cxyzz *p) { cz_##NAME##_from_xyzz(r, p); }                               \
    };

GROUP(bls12_381_g1, bls12_381_fq, bls12_381_fr_p, CZ_BLS12_381_FR_BITS, 16800.0, true)
GROUP(bls12_381_g2, bls12_381_fq2, bls12_381_fr_p, CZ_BLS12_381_FR_BITS, 5600.0, false)
GROUP(bn254_g1, bn254_fq, bn254_fr_p, CZ_BN254_FR_BITS, 37500.0, true)
GROUP(bn254_g2, bn254_fq2, bn254_fr_p, CZ_BN254_FR_BITS, 12500.0, false)
#undef GROUP

static int g_big;   /* CZ_TEST_SCALE >= 0.5 */
static int g_quick; /* CZ_TEST_SCALE < 0.2 (sanitizer builds): fewer sizes and windows */

/* ---- buffers with canaries -------------------------------------------------------------- */

static const size_t CANARY = 64; /* bytes after every buffer */

struct guarded {
    std::vector<uint8_t> mem;
    size_t bytes;
    void init(size_t b, uint8_t fill)
    {
        bytes = b;
        mem.assign(b + CANARY, fill);
        memset(mem.data() + b, 0x5c, CANARY);
    }
    bool intact() const
    {
        for (size_t i = 0; i < CANARY; i++)
            if (mem[bytes + i] != 0x5c) return false;
        return true;
    }
    template <class T> T *as() { return (T *)mem.data(); }
};

/*
 * msm.cuh's executor as loops over the thread index, in a random order per
 * launch: a kernel whose threads read what other threads of the same launch
 * write (in-place sums, two writers of a bucket) gives wrong results here
 * as it would on the GPU, instead of passing because the host went in order.
 */
struct host_exec {
    size_t launches = 0, threads = 0;
    std::vector<size_t> order;
    /* level 0 with the inlined addition (as the GPU runs G1 and BN254 G2)
     * or the called one, at random per launch: both must agree */
    template <class F> cz_status run(const op<F> &fn, size_t count)
    {
        if (fn.kind == OP_LEVEL0 && (cz_rng_u64(&g_rng) & 1)) return run_fn(level0_inlined(fn.l0), count);
        return run_fn(fn, count);
    }
    template <class Fn> cz_status run_fn(const Fn &fn, size_t count)
    {
        order.resize(count);
        for (size_t t = 0; t < count; t++) order[t] = t;
        for (size_t t = count; t > 1; t--) std::swap(order[t - 1], order[cz_rng_u64(&g_rng) % t]);
        for (size_t t = 0; t < count; t++) fn(order[t]);
        launches++;
        threads += count;
        return CZ_OK;
    }
    cz_status zero(void *p, size_t bytes)
    {
        memset(p, 0, bytes);
        return CZ_OK;
    }
    cz_status copy(void *dst, const void *src, size_t bytes)
    {
        memcpy(dst, src, bytes);
        return CZ_OK;
    }
    cz_status mark(int) { return CZ_OK; }
};

/* ---- conversions ---------------------------------------------------------------------------------- */

template <class T> static void to_jac(typename T::jac *r, const xyzz<typename T::F> &p)
{
    if (p.is_inf()) {
        T::set_inf(r);
        return;
    }
    typename T::cxyzz c;
    static_assert(sizeof c == sizeof p, "xyzz layout");
    memcpy(&c, &p, sizeof c);
    T::from_xyzz(r, &c);
}

template <class T> static xyzz<typename T::F> from_caff(const typename T::caff &a)
{
    affine<typename T::F> d;
    static_assert(sizeof d == sizeof a, "affine layout");
    memcpy(&d, &a, sizeof d);
    return xyzz<typename T::F>::from_affine(d);
}

template <class T> static bool xyzz_eq(const xyzz<typename T::F> &a, const xyzz<typename T::F> &b)
{
    typename T::jac x, y;
    to_jac<T>(&x, a);
    to_jac<T>(&y, b);
    return T::eq(&x, &y) != 0;
}

/* ---- the emulator ---------------------------------------------------------------------------------------- */

struct emu_info {
    int c, W, levels;
    size_t m, m1, chunks, launches;
    bool canaries_ok;
};

/* A block's table of multiples (msm.cuh table_fn) for the emulator: blk
 * the block's tab_n points (window 0), tab windows 1 .. W - 1 of them ((W -
 * 1) x tab_n points; or, a partial table, windows 1 .. wt - 1: 0 = all),
 * the MSM's bases are the block's from tab_first on. */
template <class F> struct emu_table {
    const affine<F> *blk, *tab;
    size_t tab_n, tab_first;
    int c, wt;
};

/*
 * sum s_i P_i the way cuda/msm.cu computes it, on the host. per_window: run
 * after_sort once per window (W = 1 on that window's slices, so the buckets
 * of large windows fit in memory); the GPU runs all windows at once, which
 * the default mode does here. tb: through a table of multiples (the shared
 * plan, as cuda/msm.cu runs it where table_pays; forced here).
 */
template <class T>
static cz_status emulate(const typename T::caff *bases, const uint8_t *scalars, size_t n, bool mont, const knobs &kn,
                         bool per_window, xyzz<typename T::F> *result, emu_info *info,
                         const emu_table<typename T::F> *tb = NULL)
{
    typedef typename T::F F;
    typedef xyzz<F> X;
    memset(info, 0, sizeof *info);
    info->canaries_ok = true;
    *result = X::inf();
    const affine<F> *dbases = (const affine<F> *)bases;
    size_t first;
    const size_t nc = chunk_points(n, true, kn, &first);
    if (per_window && nc < n) return CZ_ERR_INVALID_ARG; /* buckets of one window carried: not modelled */
    /* the buckets, carried from chunk to chunk (garbage until the first clears them) */
    guarded buckets;
    int c = 0;
    for (size_t off = 0, len = first; off < n; off += len, len = n - off < nc ? n - off : nc) {
        info->chunks++;
        /* k_classify + k_scan */
        std::vector<int> cls(len);
        size_t m = 0, m1 = 0;
        for (size_t i = 0; i < len; i++) {
            scalar s = load_scalar((const uint32_t *)(scalars + 32 * (off + i)));
            cls[i] = classify<typename T::FRP>(s, mont);
            if (cls[i] == CLS_BAD) return CZ_ERR_RANGE;
            m += cls[i] == CLS_OTHER;
            m1 += cls[i] == CLS_ONE;
        }
        /* the window: chosen at the first chunk for the call's estimated m */
        if (off == 0) {
            const size_t me = carry_estimate(m, len, n);
            c = tb ? tb->c : kn.window ? kn.window : choose_window(me > 0 ? me : 1, T::bits, T::mul_per_us);
        }
        plan p;
        if (!make_plan(&p, m, m1, c, T::bits, kn, tb != NULL, tb ? tb->wt : 0)) return CZ_ERR_INTERNAL;
        p.first = off == 0;
        p.last = off + len >= n;
        info->c = c;
        info->W = p.W;
        info->levels = p.levels;
        info->m += m;
        info->m1 += m1;
        const size_t W = (size_t)p.W;
        /* k_compact: entries in index order (keys/vals start as garbage; A E
         * of them: a partial table's last group padded) */
        guarded keys, vals, idx1;
        keys.init((size_t)p.A * p.E * 4, 0xa5);
        vals.init((size_t)p.A * p.E * 4, 0xa5);
        idx1.init(m1 * 4, 0xa5);
        size_t j = 0, j1 = 0;
        const uint32_t v0 = tb ? (uint32_t)(tb->tab_first + off) : 0, vstep = tb ? (uint32_t)tb->tab_n : 0;
        for (size_t i = 0; i < len; i++) {
            if (cls[i] == CLS_OTHER) {
                scalar s = load_scalar((const uint32_t *)(scalars + 32 * (off + i)));
                write_entries(canonical<typename T::FRP>(s, mont), v0 + (uint32_t)i, j++, p.c, p.W, m,
                              keys.as<uint32_t>(), vals.as<uint32_t>(), vstep, tb ? p.Wt : 0, p.A * p.Wt);
            } else if (cls[i] == CLS_ONE) {
                idx1.as<uint32_t>()[j1++] = (uint32_t)i;
            }
        }
        /* the sort, per bucket set (a window, or all of them when shared), ties in random order */
        {
            const size_t E = p.E;
            for (size_t w = 0; w < (size_t)p.A; w++) {
                uint32_t *k = keys.as<uint32_t>() + w * E, *v = vals.as<uint32_t>() + w * E;
                std::vector<std::pair<uint64_t, uint32_t>> e(E);
                for (size_t q = 0; q < E; q++)
                    e[q] = std::make_pair(((uint64_t)k[q] << 32) | (cz_rng_u64(&g_rng) & 0xffffffffu), v[q]);
                std::sort(e.begin(), e.end());
                for (size_t q = 0; q < E; q++) {
                    k[q] = (uint32_t)(e[q].first >> 32);
                    v[q] = e[q].second;
                }
            }
        }
        /* after_sort on exactly-sized buffers; garbage where the GPU's scratch may hold garbage */
        plan pr = p; /* the plan the buffers are sized for */
        size_t nwin = W;
        if (per_window && tb) return CZ_ERR_INVALID_ARG; /* one set already */
        if (per_window) pr.W = pr.A = 1;
        guarded pkey[2], pval[2], seg[2], ones[2], out, fresh;
        for (int q = 0; q < 2; q++) {
            size_t cap = piece_cap(pr, q);
            pkey[q].init(cap * 4, 0xa5);
            pval[q].init(cap * sizeof(X), 0xa5);
        }
        if (off == 0) buckets.init((size_t)pr.A * pr.nb * sizeof(X), 0xa5);
        fresh.init(p.first && p.last ? 0 : (size_t)pr.A * pr.nb * sizeof(X), 0xa5);
        seg[0].init((size_t)pr.A * pr.nseg * sizeof(X), 0xa5);
        seg[1].init(tree_tmp_cap(pr.A, pr.nseg) * sizeof(X), 0xa5);
        size_t g1 = (m1 + p.G - 1) / p.G;
        ones[0].init(g1 * sizeof(X), 0xa5);
        ones[1].init(tree_tmp_cap(1, g1) * sizeof(X), 0xa5);
        out.init(((size_t)pr.A + 1) * sizeof(X), 0xa5);
        std::vector<X> win(W + 1);
        host_exec ex;
        for (size_t w = 0; w < (per_window ? nwin : 1); w++) {
            bufs<F> b;
            b.bases = dbases + off;
            b.ebases = tb ? tb->blk : b.bases;
            b.etab = tb ? tb->tab : NULL;
            b.esplit = tb ? (uint32_t)tb->tab_n : SIGN;
            b.keys = keys.as<uint32_t>() + (per_window ? w * m : 0);
            b.vals = vals.as<uint32_t>() + (per_window ? w * m : 0);
            b.idx1 = idx1.as<uint32_t>();
            for (int q = 0; q < 2; q++) {
                b.pkey[q] = pkey[q].as<uint32_t>();
                b.pval[q] = pval[q].as<X>();
                b.seg[q] = seg[q].as<X>();
                b.ones[q] = ones[q].as<X>();
            }
            b.buckets = buckets.as<X>();
            b.fresh = p.first && p.last ? NULL : fresh.as<X>();
            b.out = out.as<X>();
            plan pw = pr;
            if (per_window && w > 0) pw.m1 = 0;
            cz_status st = after_sort<F>(ex, pw, b);
            if (st != CZ_OK) return st;
            if (per_window) {
                win[w] = out.as<X>()[0];
                if (w == 0) win[W] = out.as<X>()[1];
            } else {
                for (size_t q = 0; q <= (size_t)pr.A; q++) win[q] = out.as<X>()[q];
            }
        }
        bool ok = keys.intact() && vals.intact() && idx1.intact() && buckets.intact() && out.intact() &&
                  fresh.intact();
        for (int q = 0; q < 2; q++)
            ok = ok && pkey[q].intact() && pval[q].intact() && seg[q].intact() && ones[q].intact();
        info->canaries_ok &= ok;
        info->launches += ex.launches;
        *result = result->add(per_window ? combine_windows<F>(win.data(), p.W, p.c).add(win[W])
                                         : plan_result<F>(p, win.data()));
    }
    return CZ_OK;
}

/* ---- checks (instances and oracles: tests/msm_test_groups.h) ----------------------------------------------- */

/* emulate in both forms with knobs kn and compare with expect */
template <class T>
static void check(const inst<T> &I, const typename T::jac *expect, knobs kn, const char *what, bool per_window = false)
{
    for (int mont = 0; mont < 2; mont++) {
        xyzz<typename T::F> r;
        emu_info info;
        cz_status st = emulate<T>(I.bases.data(), I.scalars(mont), I.n, mont != 0, kn, per_window, &r, &info);
        typename T::jac R;
        to_jac<T>(&R, r);
        CHECK_MSG(st == CZ_OK && T::eq(&R, expect) && info.canaries_ok,
                  "%s %s n=%zu form=%s c=%d(W=%d) run=%zu chunk=%zu m=%zu m1=%zu levels=%d: status %s, canaries %s",
                  T::name(), what, I.n, mont ? "mont" : "canon", info.c, info.W, kn.run, kn.chunk, info.m, info.m1,
                  info.levels, cz_status_str(st), info.canaries_ok ? "ok" : "OVERWRITTEN");
    }
}

static knobs knob(int window = 0, size_t run = 0, size_t chunk = 0, size_t chunk_first = 0)
{
    knobs k;
    k.window = window;
    k.run = run;
    k.chunk = chunk;
    k.run_huge = 0;
    k.chunk_first = chunk_first;
    return k;
}

/* ---- digits ------------------------------------------------------------------------------------------------------ */

static void mpz_from_scalar(mpz_t r, const scalar &k)
{
    mpz_import(r, 8, -1, 4, 0, 0, k.w);
}

static scalar scalar_from_mpz(const mpz_t v)
{
    scalar k;
    memset(&k, 0, sizeof k);
    size_t cnt = 0;
    mpz_export(k.w, &cnt, -1, 4, 0, 0, v);
    return k;
}

static void test_digits(void)
{
    long iters = cz_test_iters(40);
    mpz_t k, sum, t, r;
    mpz_inits(k, sum, t, r, NULL);
    const int bitss[2] = {CZ_BN254_FR_BITS, CZ_BLS12_381_FR_BITS};
    for (int bi = 0; bi < 2; bi++) {
        int bits = bitss[bi];
        /* r of the field with these bits */
        scalar rs;
        for (int i = 0; i < 8; i++) rs.w[i] = bi ? bls12_381_fr_p::p(i) : bn254_fr_p::p(i);
        mpz_from_scalar(r, rs);
        for (int c = 2; c <= 24; c++) {
            int W = windows_of(c, bits);
            bool ok = W * c >= bits + 1 && (W - 1) * c < bits + 1;
            long bad = 0;
            for (long it = 0; it < iters + 12; it++) {
                /* random below r, then edges: 0, 1, 2, r-1, r-2, 2^(bits-1), patterns */
                if (it < iters) {
                    uint8_t buf[32];
                    cz_rng_bytes(&g_rng, buf, 32);
                    mpz_import(k, 32, -1, 1, 0, 0, buf);
                    mpz_mod(k, k, r);
                } else {
                    long e = it - iters;
                    switch (e) {
                    case 0: mpz_set_ui(k, 0); break;
                    case 1: mpz_set_ui(k, 1); break;
                    case 2: mpz_set_ui(k, 2); break;
                    case 3: mpz_sub_ui(k, r, 1); break;
                    case 4: mpz_sub_ui(k, r, 2); break;
                    case 5: mpz_set_ui(k, 0), mpz_setbit(k, bits - 1); break;
                    case 6: mpz_set_ui(k, 0), mpz_setbit(k, bits - 1), mpz_sub_ui(k, k, 1); break;
                    default: { /* window patterns: every digit +2^(c-1), -2^(c-1), all ones */
                        mpz_set_ui(k, 0);
                        for (int b = 0; b < bits - 1; b++) {
                            int pos = b % c;
                            int set = e == 7 ? pos < c - 1 : e == 8 ? pos == c - 1 : e == 9 ? 1 : (b / c) % 2 == 0;
                            if (set) mpz_setbit(k, b);
                        }
                        if (mpz_cmp(k, r) >= 0) mpz_mod(k, k, r);
                    }
                    }
                }
                scalar ks = scalar_from_mpz(k);
                mpz_set_ui(sum, 0);
                std::vector<uint32_t> keys(W), vals(W);
                write_entries(ks, 12345, 0, c, W, 1, keys.data(), vals.data());
                for (int w = 0; w < W; w++) {
                    int d = digit(ks, w, c);
                    if (d > (1 << (c - 1)) || d < -(1 << (c - 1))) bad++;
                    if (w == W - 1 && d < 0) bad++;
                    /* the entries agree with the digit */
                    if (d == 0 && !(keys[w] == 0 && vals[w] == SENT)) bad++;
                    if (d > 0 && !(keys[w] == (uint32_t)d - 1 && vals[w] == 12345)) bad++;
                    if (d < 0 && !(keys[w] == (uint32_t)(-d) - 1 && vals[w] == (12345u | SIGN))) bad++;
                    mpz_set_si(t, d);
                    mpz_mul_2exp(t, t, (mp_bitcnt_t)(w * c));
                    mpz_add(sum, sum, t);
                }
                if (mpz_cmp(sum, k) != 0) bad++;
            }
            CHECK_MSG(ok && bad == 0, "digits bits=%d c=%d W=%d: %ld bad", bits, c, W, bad);
        }
    }
    mpz_clears(k, sum, t, r, NULL);
}

/* ---- classify / canonical ---------------------------------------------------------------------------------------- */

template <class T> static void test_classify(void)
{
    typedef typename T::fr fr;
    typedef typename T::FRP FRP;
    const uint64_t *r = T::fr_modulus();
    auto sc = [](const uint64_t v[4]) {
        scalar s;
        for (int i = 0; i < 4; i++) s.w[2 * i] = (uint32_t)v[i], s.w[2 * i + 1] = (uint32_t)(v[i] >> 32);
        return s;
    };
    uint64_t zero[4] = {0, 0, 0, 0}, one[4] = {1, 0, 0, 0}, two[4] = {2, 0, 0, 0};
    uint64_t rm1[4] = {r[0] - 1, r[1], r[2], r[3]}, rr[4] = {r[0], r[1], r[2], r[3]};
    uint64_t rp1[4] = {r[0] + 1, r[1], r[2], r[3]}, top[4] = {~0ull, ~0ull, ~0ull, ~0ull};
    uint64_t hi[4] = {0, 0, 0, 1ull << 63};
    fr fone;
    T::fr_from_canonical(&fone, one);
    uint64_t R[4];
    memcpy(R, &fone, 32);
    for (int mont = 0; mont < 2; mont++) {
        CHECK(classify<FRP>(sc(zero), mont) == CLS_SKIP);
        CHECK(classify<FRP>(sc(one), mont) == (mont ? CLS_OTHER : CLS_ONE));
        CHECK(classify<FRP>(sc(R), mont) == (mont ? CLS_ONE : CLS_OTHER));
        CHECK(classify<FRP>(sc(two), mont) == CLS_OTHER);
        CHECK(classify<FRP>(sc(rm1), mont) == CLS_OTHER);
        CHECK(classify<FRP>(sc(rr), mont) == CLS_BAD);
        CHECK(classify<FRP>(sc(rp1), mont) == CLS_BAD);
        CHECK(classify<FRP>(sc(top), mont) == CLS_BAD);
        CHECK(classify<FRP>(sc(hi), mont) == CLS_BAD);
    }
    /* canonical() of Montgomery values is the CPU's to_canonical */
    long bad = 0;
    for (long it = 0; it < cz_test_iters(2000); it++) {
        fr a;
        if (it == 0)
            memset(&a, 0, sizeof a);
        else if (it == 1)
            a = fone;
        else if (it == 2)
            T::fr_neg(&a, &fone);
        else
            T::fr_random(&a, &g_rng);
        uint64_t c[4];
        T::fr_to_canonical(c, &a);
        uint64_t m[4];
        memcpy(m, &a, 32);
        scalar got = canonical<FRP>(sc(m), true), want = sc(c);
        if (memcmp(&got, &want, sizeof got) != 0) bad++;
        scalar same = canonical<FRP>(sc(c), false);
        if (memcmp(&same, &want, sizeof same) != 0) bad++;
    }
    CHECK_MSG(bad == 0, "%s canonical: %ld bad", T::name(), bad);
}

/* ---- the plan ------------------------------------------------------------------------------------------------------ */

static void test_plan(void)
{
    const int bitss[2] = {CZ_BN254_FR_BITS, CZ_BLS12_381_FR_BITS};
    const double rates[4] = {16800.0, 5600.0, 37500.0, 12500.0};
    for (int bi = 0; bi < 2; bi++) {
        for (int ri = 0; ri < 4; ri++) {
            int bits = bitss[bi];
            double rate = rates[ri];
            /* choose_window: in range, never decreasing with m (the scratch sizing relies on it) */
            int prev = 0, mono = 1, range = 1;
            std::vector<size_t> mv;
            for (int e = 0; e <= 31; e++)
                for (int k = -3; k <= 3; k++)
                    if ((1ll << e) + k * ((1ll << e) / 8) >= 1) mv.push_back((size_t)((1ll << e) + k * ((1ll << e) / 8)));
            std::sort(mv.begin(), mv.end());
            for (size_t mm : mv) {
                int c = choose_window(mm, bits, rate);
                range &= c >= C_MIN && c <= C_MAX;
                if (c < prev) mono = 0;
                prev = c;
            }
            for (size_t mm = 1; mm < 300000; mm += 1 + mm / 64) {
                int c1 = choose_window(mm, bits, rate), c2 = choose_window(mm + 1, bits, rate);
                if (c2 < c1) mono = 0;
            }
            CHECK_MSG(mono && range, "choose_window bits=%d rate=%.0f: monotone %d in range %d", bits, rate, mono,
                      range);
        }
    }
    printf("test_cuda_msm: windows chosen (BLS12-381 G1 / BN254 G1 / BLS12-381 G2): ");
    for (int e = 10; e <= 26; e += 2)
        printf("2^%d: %d/%d/%d  ", e, choose_window((size_t)1 << e, 255, 16800.0),
               choose_window((size_t)1 << e, 254, 37500.0), choose_window((size_t)1 << e, 255, 5600.0));
    printf("\n");
    /* make_plan: levels shrink to one thread, the segments tile the buckets */
    long bad = 0;
    const size_t ms[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 100, 1000, 4097, 65536, 1u << 20, (1u << 24) + 3, 1u << 30};
    const size_t runs[] = {0, 8, 9, 16, 33, 1000};
    for (size_t mi = 0; mi < CZ_ARRAY_LEN(ms); mi++) {
        for (size_t ri = 0; ri < CZ_ARRAY_LEN(runs); ri++) {
            for (int c = 2; c <= C_MAX; c++) {
                plan p;
                bool ok = make_plan(&p, ms[mi], 5, c, 255, knob(0, runs[ri]));
                if (c < 4) { /* more than MAX_WINDOWS windows */
                    bad += ok;
                    continue;
                }
                if (!ok) {
                    bad++;
                    continue;
                }
                bad += p.W * c < 256 || p.nb != ((size_t)1 << (c - 1));
                bad += p.S == 0 || (p.S & (p.S - 1)) || p.nb % p.S || p.nseg * p.S != p.nb;
                if (ms[mi] == 0) {
                    bad += p.levels != 0;
                    continue;
                }
                bad += p.levels < 1 || p.cnt[0] != ms[mi] || p.T[p.levels - 1] != 1;
                for (int k = 0; k < p.levels; k++) {
                    bad += p.T[k] != (p.cnt[k] + p.L[k] - 1) / p.L[k] || p.L[k] < 8;
                    if (k > 0) bad += p.cnt[k] != 2 * p.T[k - 1] || p.cnt[k] >= p.cnt[k - 1];
                }
            }
        }
    }
    plan p;
    bad += make_plan(&p, 100, 0, 12, 255, knob(0, 7)); /* run < 8 */
    bad += make_plan(&p, 100, 0, C_MAX + 1, 255, knob());
    CHECK_MSG(bad == 0, "make_plan: %ld bad", bad);
    /* the default level-0 run: the big one exactly from RUN_BIG_ENTRIES
     * entries on, the huge one (where asked for, as msm.cu does for G1) from
     * RUN_HUGE_ENTRIES; and the scratch sizing (msm.cu var_bytes_upto): for
     * a fixed c, no m <= hi needs more level pieces than hi or, below a run
     * switch, the largest m before it (run_switch_below) */
    long over = 0, runs_bad = 0;
    for (int huge = 0; huge < 2; huge++) {
        knobs kh = knob();
        kh.run_huge = huge ? RUN_HUGE : 0;
        for (int c = C_MIN; c <= C_MAX; c++) {
            const int W = windows_of(c, 255);
            const size_t small = (RUN_BIG_ENTRIES - 1) / (size_t)W, big = (RUN_HUGE_ENTRIES - 1) / (size_t)W;
            runs_bad += run_switch_below(0, W, kh) != small || run_switch_below(1, W, kh) != (huge ? big : 0);
            runs_bad += run_default(small, W, kh.run_huge) != RUN_SMALL ||
                        run_default(small + 1, W, kh.run_huge) != RUN_BIG ||
                        run_default(big, W, kh.run_huge) != RUN_BIG ||
                        run_default(big + 1, W, kh.run_huge) != (huge ? RUN_HUGE : RUN_BIG);
            const size_t his[] = {1000, small - 1, small, small + 1, small + 12345, big, big + 1, big + 777,
                                  (size_t)1 << 25};
            for (size_t hi : his) {
                plan ph;
                make_plan(&ph, hi, 0, c, 255, kh);
                size_t cap[2] = {piece_cap(ph, 0), piece_cap(ph, 1)};
                for (int i = 0; i < 2; i++) {
                    const size_t below = run_switch_below(i, W, kh);
                    if (below < 1 || below >= hi) continue;
                    plan ps;
                    make_plan(&ps, below, 0, c, 255, kh);
                    for (int q = 0; q < 2; q++) cap[q] = std::max(cap[q], piece_cap(ps, q));
                }
                std::vector<size_t> mv = {1, 2, hi};
                for (size_t j = 1; j < 64; j++) mv.push_back(hi / 64 * j + j);
                for (size_t d = 0; d < 3; d++) {
                    mv.push_back(small - 1 + d);
                    mv.push_back(big - 1 + d);
                }
                for (size_t m : mv) {
                    if (m < 1 || m > hi) continue;
                    plan pm;
                    make_plan(&pm, m, 0, c, 255, kh);
                    over += piece_cap(pm, 0) > cap[0] || piece_cap(pm, 1) > cap[1];
                }
            }
        }
    }
    CHECK_MSG(runs_bad == 0 && over == 0, "run_default: %ld bad; scratch sizing: %ld plans over it", runs_bad, over);
    /* tree_group: 4, 8 or 32; above 4 only with TREE_THREADS threads; a
     * tree's steps fit its two buffers (tmp[1] = tree_tmp_cap, tmp[0] = in) */
    long tree_bad = 0, trees = 0;
    for (size_t W : {(size_t)1, (size_t)13, (size_t)19, (size_t)64}) {
        for (size_t cnt = 1; cnt < ((size_t)1 << 26); cnt = cnt * 3 + 1) {
            size_t cap[2] = {W * cnt, tree_tmp_cap(W, cnt)}, c = cnt;
            for (int step = 0; c > 1; step++) {
                size_t G = tree_group(W, c), o = (c + G - 1) / G;
                tree_bad += (G != 4 && G != 8 && G != 32) || (G > 4 && W * o < TREE_THREADS);
                tree_bad += o > 1 && W * o > cap[(step + 1) % 2]; /* the last step writes out */
                c = o;
            }
            trees++;
        }
    }
    tree_bad += tree_group(1, (size_t)32 << 16) != 32 || tree_group(1, ((size_t)32 << 16) - 32) != 8 ||
                tree_group(1, 1000) != 4;
    CHECK_MSG(tree_bad == 0, "tree_group: %ld bad in %ld trees", tree_bad, trees);

    /* shared plans (a table of multiples): one set of W m entries, windows
     * up to TAB_C_MAX, at most TAB_MAX_ENTRIES entries; their scratch sizing
     * as above (msm.cu var_reserve sizes the shared plan up to the chunk) */
    long sh_bad = 0;
    for (int c = TAB_C_MIN; c <= TAB_C_MAX; c++) {
        const int W = windows_of(c, 255);
        for (size_t m : {(size_t)1, (size_t)1000, (size_t)1 << 20, (size_t)1 << 25}) {
            plan q;
            if (!make_plan(&q, m, 3, c, 255, knob(), true)) {
                sh_bad++;
                continue;
            }
            sh_bad += !q.shared || q.A != 1 || q.E != (size_t)W * m || q.cnt[0] != q.E || q.T[q.levels - 1] != 1;
            sh_bad += q.nseg * q.S != q.nb;
        }
        plan q;
        sh_bad += make_plan(&q, TAB_MAX_ENTRIES / (size_t)W + 1, 0, c, 255, knob(), true); /* too many entries */
        sh_bad += c > C_MAX && make_plan(&q, 100, 0, c, 255, knob()); /* only shared plans go past C_MAX */
        /* the sizing as above, with G1's huge tier too (a table's 2^24 points) */
        for (int huge = 0; huge < 2; huge++) {
            knobs kh = knob();
            kh.run_huge = huge ? RUN_HUGE : 0;
            const size_t hi = (size_t)1 << (huge ? 24 : 22);
            plan ph;
            make_plan(&ph, hi, 0, c, 255, kh, true);
            size_t cap[2] = {piece_cap(ph, 0), piece_cap(ph, 1)};
            for (int i = 0; i < 2; i++) {
                const size_t below = run_switch_below(i, W, kh);
                if (below < 1 || below >= hi) continue;
                plan ps;
                make_plan(&ps, below, 0, c, 255, kh, true);
                for (int q2 = 0; q2 < 2; q2++) cap[q2] = std::max(cap[q2], piece_cap(ps, q2));
            }
            std::vector<size_t> mv = {hi - 1, hi};
            for (size_t m = 1; m < hi; m = m * 2 + 1) mv.push_back(m);
            for (int i = 0; i < 2; i++)
                for (size_t d = 0; d < 3; d++) mv.push_back(run_switch_below(i, W, kh) - 1 + d);
            for (size_t m : mv) {
                if (m < 1 || m > hi) continue;
                plan pm;
                make_plan(&pm, m, 0, c, 255, kh, true);
                for (int q2 = 0; q2 < 2; q2++) sh_bad += piece_cap(pm, q2) > cap[q2];
            }
        }
    }
    /* table_window: in range, W n within TAB_MAX_ENTRIES; table_pays: never
     * for m = 0, for full-width 2^22 and 2^24 at the window it chose */
    for (double rate : {16800.0, 5600.0, 37500.0}) {
        for (int e = 4; e <= 30; e++) {
            size_t n = (size_t)1 << e;
            int tc = table_window(n, 255, rate);
            if (tc == 0) { /* only when no window fits */
                sh_bad += (size_t)windows_of(TAB_C_MAX, 255) * n <= TAB_MAX_ENTRIES;
                continue;
            }
            sh_bad += tc < TAB_C_MIN || tc > TAB_C_MAX || (size_t)windows_of(tc, 255) * n > TAB_MAX_ENTRIES;
            sh_bad += table_pays(0, tc, 255, rate);
            if (e == 22 || e == 24) sh_bad += !table_pays(n, tc, 255, rate);
        }
    }
    /* partial tables: wt windows kept, A = ceil(W / wt) sets of wt m
     * entries (A wt >= W > (A - 1) wt), wt >= W meaning the whole table */
    for (int c = TAB_C_MIN; c <= TAB_C_MAX; c++) {
        const int W = windows_of(c, 255);
        for (int wt = 1; wt <= W + 2; wt++) {
            plan q;
            const size_t m = 1000;
            if (!make_plan(&q, m, 0, c, 255, knob(), true, wt)) {
                sh_bad++;
                continue;
            }
            const int t = wt >= W ? W : wt;
            sh_bad += q.Wt != t || q.A != (W + t - 1) / t || q.E != (size_t)t * m || q.A * q.Wt < W ||
                      (q.A - 1) * q.Wt >= W || q.cnt[0] != q.E;
            sh_bad += table_windows(c, 255, wt) != t || table_sets(c, 255, wt) != q.A;
            /* a per-window plan ignores wt: one set per window */
            plan pw;
            if (c <= C_MAX) sh_bad += !make_plan(&pw, m, 0, c, 255, knob(), false, wt) || pw.A != W || pw.Wt != 1;
        }
        plan q;
        sh_bad += make_plan(&q, TAB_MAX_ENTRIES / 3 + 1, 0, c, 255, knob(), true, 3); /* 3 windows: too many entries */
    }
    /* table_plan: with no limit the whole table (table_window's); with maxw
     * windows at most maxw windows (never 1: that is the bases), the fewest
     * sets for the c chosen, and a cost never below the whole table's */
    for (double rate : {16800.0, 5600.0, 37500.0}) {
        for (int e : {16, 20, 22, 24, 26}) {
            const size_t n = (size_t)1 << e;
            int wt0 = -1;
            const int c0 = table_plan(n, 255, rate, 0, &wt0);
            sh_bad += c0 != table_window(n, 255, rate) || (c0 && wt0 != windows_of(c0, 255));
            for (int maxw = 1; maxw <= 14; maxw++) {
                int wt = -1;
                const int c = table_plan(n, 255, rate, maxw, &wt);
                if (maxw < 2) {
                    sh_bad += c != 0 || wt != 0;
                    continue;
                }
                const int W = windows_of(c, 255), A = (W + maxw - 1) / maxw;
                sh_bad += c < TAB_C_MIN || c > TAB_C_MAX || wt < 2 || wt > maxw || wt != (W + A - 1) / A;
                sh_bad += shared_cost(n, c, 255, rate, wt) < shared_cost(n, c0, 255, rate, wt0) * (1 - 1e-12);
            }
        }
    }
    /* the model: a partial table costs more than the whole one (more
     * reductions, padding); half of the 2^24 one (BLS12-381 G1) still pays
     * by the model's margin, half of the 2^26 one (11 windows: 12 with the
     * padding) no longer does */
    for (int e : {24, 26}) {
        const size_t n = (size_t)1 << e;
        const int c = table_window(n, 255, 16800.0), W = windows_of(c, 255);
        sh_bad += !(shared_cost(n, c, 255, 16800.0, (W + 1) / 2) > shared_cost(n, c, 255, 16800.0));
        sh_bad += table_pays(n, c, 255, 16800.0, (W + 1) / 2) != (e == 24);
        sh_bad += table_pays(n, c, 255, 16800.0, 1); /* one window: the per-window plan */
    }
    printf("test_cuda_msm: table windows (BLS12-381 G1 / G2 / BN254 G1): ");
    for (int e = 16; e <= 26; e += 2)
        printf("2^%d: %d/%d/%d  ", e, table_window((size_t)1 << e, 255, 16800.0),
               table_window((size_t)1 << e, 255, 5600.0), table_window((size_t)1 << e, 254, 37500.0));
    printf("\n");
    CHECK_MSG(sh_bad == 0, "shared plans / table windows: %ld bad", sh_bad);

    /* chunk_points: chunks that cover the call, the first no larger than
     * the others; uploaded calls from CARRY_SPLIT_MIN on in about
     * CARRY_PARTS chunks with a short first, aligned; a forced chunk kept */
    long ch_bad = 0;
    unsigned fast_div = 0;
    const size_t ns[] = {1,
                         1000,
                         CARRY_SPLIT_MIN - 1,
                         CARRY_SPLIT_MIN,
                         CARRY_SPLIT_MIN + 1,
                         (size_t)3 << 22,
                         (size_t)1 << 24,
                         ((size_t)1 << 24) + 12345,
                         (size_t)1 << 26,
                         (size_t)1 << 27,
                         ((size_t)1 << 27) + 7,
                         (size_t)1 << 31};
    for (size_t n : ns) {
        for (int up = 0; up < 2; up++) {
            for (size_t kc : {(size_t)0, (size_t)1000003, (size_t)0}) {
                /* (the last round: the cheaper groups' first_div) */
                const size_t div = kc == 0 && fast_div++ % 2 ? CARRY_FIRST_DIV_FAST : CARRY_FIRST_DIV;
                size_t f = 0;
                const size_t nc = chunk_points(n, up != 0, knob(0, 0, kc), &f, div);
                size_t chunks = 0, covered = 0, len = f;
                for (size_t off = 0; off < n; off += len, len = n - off < nc ? n - off : nc) {
                    chunks++;
                    covered += len;
                    ch_bad += len == 0 || len > nc;
                }
                ch_bad += covered != n || f > nc || nc > MAX_CHUNK || nc > n;
                if (kc) {
                    ch_bad += nc != (kc < n ? kc : n) || f != nc;
                } else if (up && n >= CARRY_SPLIT_MIN) {
                    /* (past CARRY_PARTS chunks of CHUNK_DEFAULT: more of it) */
                    const bool many = n > (CARRY_PARTS - 1) * CHUNK_DEFAULT;
                    ch_bad += (chunks > CARRY_PARTS && !(many && nc == CHUNK_DEFAULT)) || chunks < 2 ||
                              f % CARRY_ALIGN || nc % CARRY_ALIGN || f > nc / div + CARRY_ALIGN ||
                              (!many && f + CARRY_ALIGN < nc / div);
                } else {
                    ch_bad += f != nc || nc != (n < CHUNK_DEFAULT ? n : CHUNK_DEFAULT);
                }
            }
        }
    }
    size_t f = 0;
    knobs kf = knob(0, 0, 100, 7);
    ch_bad += chunk_points(1000, false, kf, &f) != 100 || f != 7;
    kf.chunk_first = 500; /* larger than a chunk: one chunk's */
    ch_bad += chunk_points(1000, false, kf, &f) != 100 || f != 100;
    /* a given first chunk of an uploaded call that splits: the rest in one chunk */
    const size_t n24 = (size_t)1 << 24;
    for (size_t f0 : {(size_t)1, n24 / 16, n24 / 3 + 5, n24 / 2}) {
        kf = knob(0, 0, 0, f0);
        const size_t nc = chunk_points(n24, true, kf, &f);
        ch_bad += f != f0 || nc < n24 - f0 || nc % CARRY_ALIGN || nc >= n24 - f0 + CARRY_ALIGN;
    }
    kf = knob(0, 0, 0, n24); /* the whole call: the default chunks, the first as long as the rest */
    const size_t nc24 = chunk_points(n24, true, kf, &f);
    ch_bad += nc24 >= n24 || f != nc24;
    CHECK_MSG(ch_bad == 0, "chunk_points: %ld bad", ch_bad);
}

/* ---- point helpers ------------------------------------------------------------------------------------------------ */

template <class T> static void test_point_helpers(void)
{
    typedef typename T::F F;
    typedef xyzz<F> X;
    typename T::jac P, Q;
    T::random(&P, &g_rng);
    typename T::caff a;
    T::batch_to_affine(&a, &P, 1);
    X p = from_caff<T>(a);
    /* mul_small against the CPU's mul */
    long bad = 0;
    const uint32_t ks[] = {0, 1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 1000, 65535, 1u << 19, (1u << 20) - 1, 0xffffffffu};
    for (size_t i = 0; i < CZ_ARRAY_LEN(ks); i++) {
        uint64_t k = ks[i];
        T::mul(&Q, &P, &k, 1);
        typename T::jac R;
        to_jac<T>(&R, mul_small(p, ks[i]));
        bad += !T::eq(&R, &Q);
    }
    typename T::jac R;
    to_jac<T>(&R, mul_small(X::inf(), 77));
    bad += !T::is_inf(&R);
    CHECK_MSG(bad == 0, "%s mul_small: %ld bad", T::name(), bad);

    /* combine_windows against sum_w 2^(wc) win_w (CPU mul by the power of two) */
    for (int c = 4; c <= 20; c += 4) {
        int W = windows_of(c, T::bits);
        std::vector<X> win(W);
        typename T::jac expect;
        T::set_inf(&expect);
        for (int w = 0; w < W; w++) {
            typename T::jac Pw;
            if (w % 5 == 3) {
                win[w] = X::inf();
                continue;
            }
            T::random(&Pw, &g_rng);
            typename T::caff aw;
            T::batch_to_affine(&aw, &Pw, 1);
            win[w] = from_caff<T>(aw);
            uint64_t k[5] = {0, 0, 0, 0, 0};
            int b = w * c;
            k[b / 64] = 1ull << (b % 64);
            typename T::jac t;
            T::mul(&t, &Pw, k, 5);
            T::add(&expect, &expect, &t);
        }
        to_jac<T>(&R, combine_windows<F>(win.data(), W, c));
        CHECK_MSG(T::eq(&R, &expect), "%s combine_windows c=%d", T::name(), c);
    }
}

/*
 * after_sort on synthetic sorted entries (one window): every bucket equals
 * the direct sum of its entries, the window sum is sum (k+1) B_k, the ones
 * sum is the sum of their bases. Key patterns stress the run boundaries.
 */
template <class T> static void test_levels(void)
{
    typedef typename T::F F;
    typedef xyzz<F> X;
    const size_t npts = 64;
    inst<T> I;
    I.init(npts);
    /* some bases at infinity, some repeated, some negated pairs */
    memset(&I.bases[5], 0, sizeof I.bases[5]);
    I.bases[7] = I.bases[6];
    T::affine_neg(&I.bases[9], &I.bases[8]);
    const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 257, 1000};
    const size_t runs[] = {8, 9, 16, 32};
    const int cs[] = {4, 6, 10};
    long bad = 0, canaries = 0, cases = 0;
    for (size_t si = 0; si < CZ_ARRAY_LEN(sizes); si++) {
        for (int pat = 0; pat < 6; pat++) {
            const size_t m = sizes[si];
            const int c = cs[(si + pat) % 3];
            const size_t run = runs[(si * 7 + pat) % 4];
            if (!g_big && m >= 257 && pat % 2) continue;
            plan p;
            if (!make_plan(&p, m, m % 5, c, T::bits, knob(c, run))) {
                bad++;
                continue;
            }
            p.W = p.A = 1; /* one window here */
            /* keys: 0 one bucket; 1 random; 2 runs of length run; 3 run +- 1; 4 long run in the middle;
             * 5 every key distinct, gaps */
            std::vector<uint32_t> keys(m), vals(m);
            for (size_t j = 0; j < m; j++) {
                uint32_t k;
                switch (pat) {
                case 0: k = (uint32_t)(p.nb - 1); break;
                case 1: k = (uint32_t)(cz_rng_u64(&g_rng) % p.nb); break;
                case 2: k = (uint32_t)((j / run) % p.nb); break;
                case 3: k = (uint32_t)((j / (run + (j % 2 ? 1 : -1) * 1)) % p.nb); break;
                case 4: k = j < m / 4 ? 0 : j < 3 * m / 4 ? 1 : (uint32_t)(p.nb - 1); break;
                default: k = (uint32_t)((j * 3) % p.nb); break;
                }
                keys[j] = k;
                uint32_t v = (uint32_t)(cz_rng_u64(&g_rng) % npts);
                uint64_t r = cz_rng_u64(&g_rng) % 8;
                vals[j] = r == 0 ? SENT : r < 3 ? (v | SIGN) : v;
            }
            std::sort(keys.begin(), keys.end());
            /* direct bucket sums and the expected window sum */
            std::vector<X> direct(p.nb, X::inf());
            for (size_t j = 0; j < m; j++) {
                if (vals[j] == SENT) continue;
                affine<F> P;
                memcpy(&P, &I.bases[vals[j] & ~SIGN], sizeof P);
                direct[keys[j]] = (vals[j] & SIGN) ? direct[keys[j]].sub_affine(P) : direct[keys[j]].add_affine(P);
            }
            X expect = X::inf();
            for (size_t k = 0; k < p.nb; k++) expect = expect.add(mul_small(direct[k], (uint32_t)(k + 1)));
            std::vector<uint32_t> idx1(p.m1);
            X ones = X::inf();
            for (size_t q = 0; q < p.m1; q++) {
                idx1[q] = (uint32_t)(cz_rng_u64(&g_rng) % npts);
                affine<F> P;
                memcpy(&P, &I.bases[idx1[q]], sizeof P);
                ones = ones.add_affine(P);
            }
            guarded pkey[2], pval[2], buckets, seg[2], on[2], out;
            for (int q = 0; q < 2; q++) {
                pkey[q].init(piece_cap(p, q) * 4, 0xa5);
                pval[q].init(piece_cap(p, q) * sizeof(X), 0xa5);
            }
            buckets.init(p.nb * sizeof(X), 0xa5);
            seg[0].init(p.nseg * sizeof(X), 0xa5);
            seg[1].init(tree_tmp_cap(1, p.nseg) * sizeof(X), 0xa5);
            size_t g1 = (p.m1 + p.G - 1) / p.G;
            on[0].init(g1 * sizeof(X), 0xa5);
            on[1].init(tree_tmp_cap(1, g1) * sizeof(X), 0xa5);
            out.init(2 * sizeof(X), 0xa5);
            bufs<F> b;
            b.bases = b.ebases = (const affine<F> *)I.bases.data();
            b.keys = keys.data();
            b.vals = vals.data();
            b.idx1 = idx1.data();
            for (int q = 0; q < 2; q++) {
                b.pkey[q] = pkey[q].as<uint32_t>();
                b.pval[q] = pval[q].as<X>();
                b.seg[q] = seg[q].as<X>();
                b.ones[q] = on[q].as<X>();
            }
            b.buckets = buckets.as<X>();
            b.fresh = NULL; /* one chunk */
            b.out = out.as<X>();
            host_exec ex;
            cases++;
            if (after_sort<F>(ex, p, b) != CZ_OK) {
                bad++;
                continue;
            }
            long bb = 0;
            for (size_t k = 0; k < p.nb; k++) bb += !xyzz_eq<T>(buckets.as<X>()[k], direct[k]);
            bb += !xyzz_eq<T>(out.as<X>()[0], expect);
            bb += !xyzz_eq<T>(out.as<X>()[1], ones);
            if (bb && bad < 5)
                fprintf(stderr, "%s levels: m=%zu pattern %d c=%d run=%zu levels=%d: %ld wrong\n", T::name(), m, pat,
                        c, run, p.levels, bb);
            bad += bb;
            bool ok = buckets.intact() && out.intact();
            for (int q = 0; q < 2; q++) ok = ok && pkey[q].intact() && pval[q].intact() && seg[q].intact() && on[q].intact();
            canaries += !ok;
        }
    }
    CHECK_MSG(bad == 0 && canaries == 0, "%s levels: %ld wrong, %ld overwrites in %ld cases", T::name(), bad, canaries,
              cases);
}

/* ---- whole MSMs through the emulator ------------------------------------------------------------------------------ */

template <class T> static void test_sizes(void)
{
    const size_t sizes[] = {0, 1, 2, 3, 5, 31, 100, 257, 1000, 1024};
    for (size_t si = 0; si < CZ_ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        if (!T::g1 && n > 257 && !g_big) continue;
        if (g_quick && n > 257) continue;
        inst<T> I;
        I.init(n);
        typename T::jac expect, nai;
        oracle<T>(I, &expect);
        if (n <= (T::g1 ? 100u : 31u)) {
            oracle_naive<T>(I, &nai);
            CHECK_MSG(T::eq(&expect, &nai), "%s oracles disagree at n=%zu", T::name(), n);
        }
        check<T>(I, &expect, knob(), "random");
        if (n == 1000) {
            check<T>(I, &expect, knob(0, 13), "random run 13");
            check<T>(I, &expect, knob(0, 0, 300), "random chunk 300");
        }
    }
}

/* every window the GPU can be given, on one instance with digit-extreme scalars */
template <class T> static void test_windows(void)
{
    size_t n = T::g1 ? 48 : 24;
    inst<T> I;
    I.init(n);
    int cmax = T::g1 ? C_MAX : (g_big ? 18 : 16);
    for (int c = C_FORCE_MIN; c <= cmax; c++) {
        if (g_quick && c % 4 != 0 && c != 5 && c != 13) continue; /* 4, 5, 8, 12, 13, 16, 20 */
        /* scalars whose digits in window c are +2^(c-1), -2^(c-1), carries; the rest random */
        for (size_t i = 0; i < n; i++) {
            if (i >= 16) {
                T::fr_random(&I.s[i], &g_rng);
                continue;
            }
            set_digit_extremes<T>(I, i, c);
        }
        I.sync();
        typename T::jac expect;
        oracle<T>(I, &expect);
        check<T>(I, &expect, knob(c), "window", c > 16);
        if (c == 12) check<T>(I, &expect, knob(c, 8, 7), "window run 8 chunk 7");
    }
}

template <class T> static void test_edge_scalars(void)
{
    typedef typename T::fr fr;
    size_t n = T::g1 ? (g_quick ? 100 : 300) : (g_quick ? 40 : 100);
    inst<T> I;
    I.init(n);
    typename T::jac expect, R;
    fr one, two, rm1, zero;
    memset(&zero, 0, sizeof zero);
    uint64_t c1[4] = {1, 0, 0, 0}, c2[4] = {2, 0, 0, 0};
    T::fr_from_canonical(&one, c1);
    T::fr_from_canonical(&two, c2);
    T::fr_neg(&rm1, &one);
    /* all zero */
    for (size_t i = 0; i < n; i++) I.s[i] = zero;
    I.sync();
    T::set_inf(&expect);
    check<T>(I, &expect, knob(), "all zero");
    /* most zero */
    for (size_t i = 0; i < n; i += 37) T::fr_random(&I.s[i], &g_rng);
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(), "most zero");
    /* all one, all two (one bucket), all r-1 */
    const fr *vals[3] = {&one, &two, &rm1};
    const char *names[3] = {"all one", "all two", "all r-1"};
    for (int v = 0; v < 3; v++) {
        for (size_t i = 0; i < n; i++) I.s[i] = *vals[v];
        I.sync();
        oracle<T>(I, &expect);
        check<T>(I, &expect, knob(), names[v]);
        if (v == 1) check<T>(I, &expect, knob(9, 8), "all two c=9 run 8");
    }
    /* mixed: 0, 1, 2, r-1, r-2, random (a witness-like mix) */
    for (size_t i = 0; i < n; i++) {
        switch (cz_rng_u64(&g_rng) % 6) {
        case 0: I.s[i] = zero; break;
        case 1: I.s[i] = one; break;
        case 2: I.s[i] = two; break;
        case 3: I.s[i] = rm1; break;
        case 4: T::fr_add(&I.s[i], &rm1, &rm1); break;
        default: T::fr_random(&I.s[i], &g_rng); break;
        }
    }
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(), "mixed small");
    check<T>(I, &expect, knob(0, 0, 64), "mixed small chunk 64");
    /* carried chunks (one bucket set through the call) where chunks have no
     * other scalars: the first (its plan from an estimate of 0: the
     * smallest window; it still clears the buckets), a middle one, the last
     * (it still reduces what the others left) */
    const size_t q = n / 4;
    for (size_t i = 0; i < n; i++) {
        const size_t part = i / q;
        if (part == 0 || part == 2)
            I.s[i] = i % 3 ? zero : one;
        else if (part >= 4)
            I.s[i] = zero;
        else
            T::fr_random(&I.s[i], &g_rng);
    }
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(0, 0, q), "chunks 1 and 3 without others");
    for (size_t i = 0; i < n; i++) {
        if (i / q >= 3)
            I.s[i] = i % 2 ? zero : one;
        else if (i / q != 1)
            T::fr_random(&I.s[i], &g_rng);
    }
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(0, 0, q), "last chunks without others");
    check<T>(I, &expect, knob(0, 8, q + 1), "last chunks without others run 8");
    check<T>(I, &expect, knob(0, 0, q + 3, q / 4 + 1), "a short first chunk");
    check<T>(I, &expect, knob(0, 0, q, 1), "a first chunk of one point");
    /* n = 1, 2, 3 with special scalars against the naive sum */
    for (size_t m = 1; m <= 3; m++) {
        inst<T> J;
        J.init(m);
        for (int v = 0; v < 4; v++) {
            for (size_t i = 0; i < m; i++) {
                int k = (int)((v + i) % 4);
                if (k < 3)
                    J.s[i] = *vals[k];
                else
                    J.s[i] = zero;
            }
            J.sync();
            oracle_naive<T>(J, &expect);
            check<T>(J, &expect, knob(), "tiny special");
        }
    }
    /* scalars >= r: CZ_ERR_RANGE in both forms; r - 1 accepted */
    inst<T> B;
    B.init(40);
    const uint64_t *r = T::fr_modulus();
    for (int kind = 0; kind < 3; kind++) {
        std::vector<uint8_t> sc(B.canon);
        for (int b = 0; b < 32; b++) {
            uint64_t limb = kind == 2 ? ~0ull : r[b / 8];
            sc[32 * 17 + b] = (uint8_t)(limb >> (8 * (b % 8)));
        }
        if (kind == 1) sc[32 * 17] += 1; /* r + 1 (r is odd: no carry) */
        for (int mont = 0; mont < 2; mont++) {
            xyzz<typename T::F> res;
            emu_info info;
            cz_status st = emulate<T>(B.bases.data(), sc.data(), B.n, mont != 0, knob(), false, &res, &info);
            CHECK_MSG(st == CZ_ERR_RANGE, "%s scalar >= r kind %d form %d: %s", T::name(), kind, mont,
                      cz_status_str(st));
        }
    }
    {
        std::vector<uint8_t> sc(B.canon);
        uint64_t v[4] = {r[0] - 1, r[1], r[2], r[3]};
        for (int b = 0; b < 32; b++) sc[32 * 17 + b] = (uint8_t)(v[b / 8] >> (8 * (b % 8)));
        xyzz<typename T::F> res;
        emu_info info;
        CHECK(emulate<T>(B.bases.data(), sc.data(), B.n, false, knob(), false, &res, &info) == CZ_OK);
        /* and the result is right: r - 1 = -1 */
        B.s[17] = rm1;
        B.sync();
        oracle<T>(B, &expect);
        to_jac<T>(&R, res);
        CHECK_MSG(T::eq(&R, &expect), "%s scalar r-1", T::name());
    }
}

template <class T> static void test_edge_bases(void)
{
    size_t n = T::g1 ? (g_quick ? 100 : 300) : (g_quick ? 40 : 100);
    inst<T> I;
    I.init(n);
    typename T::jac expect;
    /* repeated bases: 3 distinct points */
    for (size_t i = 3; i < n; i++) I.bases[i] = I.bases[i % 3];
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(), "repeated bases");
    /* ... with equal scalars: the same point into the same bucket again and again (doublings) */
    for (size_t i = 1; i < n; i++) I.s[i] = I.s[0];
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, knob(), "repeated bases equal scalars");
    check<T>(I, &expect, knob(10, 8), "repeated bases equal scalars c=10 run 8");
    /* P and -P with equal scalars: everything cancels */
    inst<T> J;
    J.init(n);
    for (size_t i = 0; i + 1 < n; i += 2) {
        T::affine_neg(&J.bases[i + 1], &J.bases[i]);
        J.s[i + 1] = J.s[i];
    }
    J.sync();
    oracle<T>(J, &expect);
    CHECK_MSG(n % 2 || T::is_inf(&expect), "%s P - P oracle", T::name());
    check<T>(J, &expect, knob(), "P and -P");
    /* P and -P with random scalars */
    for (size_t i = 0; i < n; i++) T::fr_random(&J.s[i], &g_rng);
    J.sync();
    oracle<T>(J, &expect);
    check<T>(J, &expect, knob(), "P and -P random");
    /* bases at infinity: some (with scalars 1 among them), then all */
    for (size_t i = 0; i < n; i += 3) memset(&J.bases[i], 0, sizeof J.bases[i]);
    for (size_t i = 0; i < n; i += 9) J.set_u64(i, 1);
    J.sync();
    oracle<T>(J, &expect);
    check<T>(J, &expect, knob(), "some infinity");
    for (size_t i = 0; i < n; i++) memset(&J.bases[i], 0, sizeof J.bases[i]);
    T::set_inf(&expect);
    check<T>(J, &expect, knob(), "all infinity");
}

/* ---- the table of multiples ------------------------------------------------------------------------------------ */

/*
 * table_fn against the CPU (window w of point i = 2^(c w) P_i, infinity and
 * its doublings included), built in pieces and runs of K that do not divide
 * the block; then MSMs over sub-ranges of the block through the table (the
 * shared plan, entries naming table points), chunked too, against the CPU.
 */
template <class T> static void test_table(void)
{
    typedef typename T::F F;
    const size_t nblk = T::g1 ? (g_quick ? 120 : 400) : (g_quick ? 40 : 100);
    inst<T> B;
    B.init(nblk);
    memset(&B.bases[3], 0, sizeof B.bases[3]); /* infinity */
    B.bases[7] = B.bases[5];                   /* repeated */
    T::affine_neg(&B.bases[8], &B.bases[5]);   /* P, -P */
    const int cs[] = {TAB_C_MIN, 11, 13};
    long bad = 0;
    for (int c : cs) {
        if (g_quick && c == 11) continue;
        const int W = windows_of(c, T::bits);
        std::vector<affine<F>> tab((size_t)(W - 1) * nblk);
        std::vector<xyzz<F>> acc(nblk);
        const affine<F> *src = (const affine<F> *)B.bases.data();
        const size_t piece = c == TAB_C_MIN ? nblk : nblk / 3 + 1, K = c == 13 ? 3 : TAB_K;
        host_exec ex;
        for (size_t lo = 0; lo < nblk; lo += piece) {
            const size_t hi = nblk - lo < piece ? nblk : lo + piece;
            for (int w = 1; w < W; w++) {
                table_fn<F> f = {src, tab.data(), acc.data(), nblk, lo, hi, K, c, w};
                ex.run(make_op(f), (hi - lo + K - 1) / K);
            }
        }
        for (int w = 1; w < W; w++) {
            for (size_t i = 0; i < nblk; i += (w % 5 == 1 ? 1 : 7)) {
                typename T::jac P, R, G;
                T::from_affine(&P, &B.bases[i]);
                uint64_t k[5] = {0, 0, 0, 0, 0};
                k[(c * w) / 64] = 1ull << ((c * w) % 64);
                T::mul(&R, &P, k, 5);
                typename T::caff a;
                memcpy(&a, &tab[(size_t)(w - 1) * nblk + i], sizeof a);
                T::from_affine(&G, &a);
                bad += !T::eq(&R, &G);
            }
        }
        CHECK_MSG(bad == 0, "%s table c=%d W=%d: %ld points wrong", T::name(), c, W, bad);
        /* MSMs through it (whole, wt = 0) and through partial tables of its
         * first wt windows (the windows past wt overwritten with other
         * points, so that reading one gives a wrong sum): the whole block,
         * and a sub-range chunked */
        const int wts[] = {0, 2, 3, (W + 1) / 2, W - 1};
        for (int wt : wts) {
        if (g_quick && (wt == 3 || wt == W - 1)) continue;
        std::vector<affine<F>> ptab(tab);
        if (wt > 0)
            for (size_t q = (size_t)(wt - 1) * nblk; q < (size_t)(W - 1) * nblk; q++) ptab[q] = tab[(q + 1) % nblk];
        for (int rg = 0; rg < 2; rg++) {
            const size_t first = rg ? 5 : 0, n = rg ? nblk - 9 : nblk;
            inst<T> I;
            I.n = n;
            I.bases.assign(B.bases.begin() + first, B.bases.begin() + first + n);
            I.s.resize(n);
            I.canon.resize(32 * n);
            for (size_t i = 0; i < n; i++) {
                T::fr_random(&I.s[i], &g_rng);
                if (i % 5 == 1) I.set_u64(i, i % 3); /* 0, 1, 2 */
            }
            I.s[n - 1] = I.s[n - 2];
            T::fr_neg(&I.s[n - 2], &I.s[n - 2]);
            I.sync();
            typename T::jac expect;
            oracle<T>(I, &expect);
            emu_table<F> tb = {src, ptab.data(), nblk, first, c, wt};
            for (int mont = 0; mont < 2; mont++) {
                xyzz<F> r;
                emu_info info;
                knobs kn = knob(0, rg ? 8 : 0, rg ? n / 3 : 0);
                cz_status st = emulate<T>(I.bases.data(), I.scalars(mont), n, mont != 0, kn, false, &r, &info, &tb);
                typename T::jac R;
                to_jac<T>(&R, r);
                CHECK_MSG(st == CZ_OK && T::eq(&R, &expect) && info.canaries_ok,
                          "%s table MSM c=%d wt=%d n=%zu first=%zu form=%d chunks=%zu: status %s, canaries %s",
                          T::name(), c, wt, n, first, mont, info.chunks, cz_status_str(st),
                          info.canaries_ok ? "ok" : "OVERWRITTEN");
            }
        }
        }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

template <class T> static void run_group(void)
{
    long before = cz_test_failed;
    double t0 = now_s();
    test_classify<T>();
    test_point_helpers<T>();
    test_levels<T>();
    double t1 = now_s();
    test_sizes<T>();
    double t2 = now_s();
    test_windows<T>();
    double t3 = now_s();
    test_edge_scalars<T>();
    test_edge_bases<T>();
    double t4 = now_s();
    test_table<T>();
    double t5 = now_s();
    printf("%s: %s (s: units %.1f, sizes %.1f, windows %.1f, edges %.1f, table %.1f)\n", T::name(),
           cz_test_failed == before ? "ok" : "FAILED", t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4);
    fflush(stdout);
}

int main(void)
{
    cz_test_seed(&g_rng, "test_cuda_msm");
    g_big = cz_test_iters(100) >= 50;
    g_quick = cz_test_iters(100) < 20;
    test_digits();
    test_plan();
    run_group<bn254_g1>();
    run_group<bls12_381_g1>();
    run_group<bn254_g2>();
    run_group<bls12_381_g2>();
    return cz_test_finish("test_cuda_msm");
}
