/*
 * test_cuda_ntt: the GPU NTT's maths on the host (label cpu: no GPU needed).
 *
 * cuda/ntt.cuh holds everything the NTT kernels compute as __host__
 * __device__ functions, plus the order of the steps (run_op, run_h_array)
 * that cuda/ntt.cu drives with kernels. This test drives the same functions
 * with host loops that emulate the kernels -- per-level kernel: one call per
 * butterfly; pass kernel: block by block, the threads of a block one after
 * the other inside each __syncthreads phase, with the shared tile filled with
 * garbage first -- and checks, for both scalar fields:
 *  - the plan: passes cover the k levels exactly once, tiles within limits,
 *    for every k <= 32 and every tile / column size;
 *  - race freedom and coverage of the pass kernel's index maps: loads and
 *    stores touch every element exactly once over the grid, each level's
 *    butterflies partition the tile, partners are 2^b apart in the array;
 *  - the twiddle tables (tab_entry from the host-computed power tables)
 *    against powers computed independently with the CPU field (pow of
 *    ntt/ntt.h's roots), every entry for small k, samples up to k = s;
 *  - cz_cuda_ntt's four operations, emulated with the simple path and with
 *    the pass path under several plans (tiny tiles force many passes with
 *    column tiles at small sizes), byte-identical to ntt/ntt.h for random
 *    inputs, 2^0..2^12 (2^16 with the default plan), one and two
 *    quadruples per thread, in place with the bit reversal's kernel and
 *    out of place with the bit reversal in a pass (CZ_CUDA_NTT_FUSED_REV;
 *    each block index taken once);
 *  - the H step (run_h_array x 3 + pointwise) byte-identical to the CPU
 *    backend's compute_h, in two passes or fused, with the switches of
 *    ntt.cuh (H_SCALE_B, H_PW) on and off, the pointwise pass counted where
 *    it applies; and run_h_step (the order cuda/ntt.cu runs it in) with c
 *    given and with c = a o b formed (b first, copied into c's array, then
 *    c = a o c): the CPU's H step of a, b, c and of a, b, a o b, the arrays'
 *    order of arrival, the copy and the product counted;
 *  - the host bit reversal against cz_ntt_bitrev_index, and the tiled one of
 *    the pass path (k_bitrev_tiles, blocks in a random order) against the
 *    element-wise one.
 * CZ_TEST_SCALE < 0.5 (sanitizer runs) lowers the sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utility>
#include <vector>

#include "cuda/ntt.cuh"
#include "cuda_test_util.h"
#include "test_util.h"
extern "C" {
#include "backend/backend.h"
}

namespace nt = cz_dev::ntt;
using cz_dev::bls12_381_fr;
using cz_dev::bn254_fr;

static cz_rng rng;

/* ---- the plan ---- */

/* Whether two plans have the same passes. */
static bool same_plan(const nt::plan_t &a, const nt::plan_t &b)
{
    bool same = a.k == b.k && a.npass == b.npass;
    for (unsigned j = 0; same && j < a.npass; j++)
        same = a.p[j].b0 == b.p[j].b0 && a.p[j].t == b.p[j].t && a.p[j].c == b.p[j].c;
    return same;
}

static void test_plan(void)
{
    for (unsigned tile = 1; tile <= nt::MAX_TILE_LOG; tile++)
        for (unsigned cols = 0; cols < tile; cols++)
            for (unsigned k = 0; k <= 32; k++) {
                nt::plan_t pl;
                nt::make_plan(&pl, k, tile, cols);
                unsigned b = 0;
                int ok = pl.k == k && pl.npass <= nt::MAX_PASSES;
                for (unsigned i = 0; ok && i < pl.npass; i++) {
                    const nt::pass_t &p = pl.p[i];
                    ok = p.b0 == b && p.t >= 1 && p.c <= p.b0 && p.t + p.c <= tile && (p.b0 > 0 || p.c == 0) &&
                         (p.b0 == 0 || (p.c >= cols && p.t + p.c == tile));
                    b += p.t;
                }
                ok = ok && b == k;
                CHECK_MSG(ok, "plan k=%u tile=%u cols=%u", k, tile, cols);
            }
    /* arguments out of range: the plan of the clamped ones (tile in [1,
     * MAX_TILE_LOG], cols < tile), both the fewest and the even form */
    const unsigned bad[][4] = {{0, 0, 1, 0}, {0, 5, 1, 0}, {13, 2, 12, 2}, {40, 3, 12, 3}, {10, 10, 10, 9},
                               {11, 30, 11, 10}, {20, 20, 12, 11}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (unsigned k = 0; k <= 32; k++) {
            nt::plan_t pl, ref, few, fref;
            nt::make_plan(&pl, k, bad[i][0], bad[i][1]);
            nt::make_plan(&ref, k, bad[i][2], bad[i][3]);
            nt::make_plan_fewest(&few, k, bad[i][0], bad[i][1]);
            nt::make_plan_fewest(&fref, k, bad[i][2], bad[i][3]);
            CHECK_MSG(same_plan(pl, ref) && same_plan(few, fref), "plan k=%u tile=%u cols=%u: not the plan of tile=%u cols=%u", k, bad[i][0], bad[i][1],
                      bad[i][2], bad[i][3]);
        }
    /* 2^11 tiles: 2^20 in two passes, 2^24 .. 2^27 in three */
    const unsigned want[][2] = {{10, 1}, {11, 1}, {12, 2}, {20, 2}, {21, 3}, {24, 3}, {26, 3}, {27, 3}, {28, 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nt::plan_t pl;
        nt::make_plan(&pl, want[i][0], 11, 2);
        CHECK_MSG(pl.npass == want[i][1], "plan of 2^%u: %u passes", want[i][0], pl.npass);
    }
    /* the even plan (CZ_CUDA_NTT_PLAN_EVEN): never more passes than the
     * fewest, every pass even (odd k: but one) where the fewest allow it */
    for (unsigned tile = 2; tile <= nt::MAX_TILE_LOG; tile++)
        for (unsigned cols = 0; cols < tile; cols++)
            for (unsigned k = 1; k <= 32; k++) {
                nt::plan_t pl, few;
                nt::make_plan(&pl, k, tile, cols);
                nt::make_plan_fewest(&few, k, tile, cols);
                unsigned odd = 0;
                for (unsigned i = 0; i < pl.npass; i++) odd += pl.p[i].t & 1;
                CHECK_MSG(pl.npass <= few.npass, "even plan k=%u tile=%u cols=%u: %u passes", k, tile, cols, pl.npass);
                /* enough room for even passes: cap0 + (passes - 1) cap >= k */
                const unsigned t0 = (k < tile ? k : tile) - (((k < tile ? k : tile) ^ k) & 1);
                const bool room = t0 > 0 && (tile - cols) / 2 > 0 &&
                                  1 + (k - t0 + 2 * ((tile - cols) / 2) - 1) / (2 * ((tile - cols) / 2)) <= few.npass;
                if (CZ_CUDA_NTT_PLAN_EVEN && few.npass >= 2 && room)
                    CHECK_MSG(odd == (k & 1), "even plan k=%u tile=%u cols=%u: %u odd passes", k, tile, cols, odd);
            }
    /* the default plan (cuda/ntt.cu, no tile option): 2^10 tiles, 2^11 where they save a pass */
    const unsigned dflt[][5] = {
        /* k, passes, levels of each (ascending bits) */
        {24, 3, 10, 8, 6}, {22, 3, 10, 6, 6}, {20, 2, 11, 9, 0}, {19, 2, 11, 8, 0}, {26, 3, 10, 8, 8},
        {18, 2, 10, 8, 0}, {11, 1, 11, 0, 0}, {10, 1, 10, 0, 0},
    };
    for (size_t i = 0; CZ_CUDA_NTT_PLAN_EVEN && i < sizeof dflt / sizeof dflt[0]; i++) {
        nt::plan_t pl;
        nt::make_default_plan(&pl, dflt[i][0], nt::MAX_TILE_LOG, 2);
        int ok = pl.npass == dflt[i][1];
        for (unsigned j = 0; ok && j < pl.npass; j++) ok = pl.p[j].t == dflt[i][2 + j];
        CHECK_MSG(ok, "default plan of 2^%u: %u passes, the first of %u levels", dflt[i][0], pl.npass, pl.p[0].t);
    }
}

/* ---- index maps of the pass kernel ---- */

static void test_pass_indices(void)
{
    const unsigned kmax = cz_test_iters(10) >= 5 ? 12 : 9;
    for (unsigned tile = 1; tile <= 6; tile++)
        for (unsigned cols = 0; cols < tile; cols++)
            for (unsigned k = 1; k <= kmax; k++) {
                nt::plan_t pl;
                nt::make_plan(&pl, k, tile, cols);
                const uint64_t n = (uint64_t)1 << k;
                int ok = 1;
                for (unsigned pi = 0; pi < pl.npass && ok; pi++) {
                    nt::pass_args<bn254_fr> a;
                    memset(&a, 0, sizeof a);
                    a.b0 = pl.p[pi].b0;
                    a.t = pl.p[pi].t;
                    a.c = pl.p[pi].c;
                    const uint32_t E = nt::pass_elems(a);
                    std::vector<int> seen(n, 0);
                    for (uint64_t blk = 0; blk < n / E; blk++) {
                        for (uint32_t e = 0; e < E; e++) {
                            uint64_t g = nt::pass_gidx(a, blk, e);
                            if (g >= n || seen[g]++) ok = 0;
                        }
                        for (unsigned bb = 0; bb < a.t && ok; bb++) {
                            std::vector<int> touched(E, 0);
                            for (uint32_t q = 0; q < E / 2; q++) {
                                uint32_t e0, e1, r;
                                nt::pass_pair(a.c, bb, q, &e0, &e1, &r);
                                if (e0 >= E || e1 >= E || touched[e0]++ || touched[e1]++) {
                                    ok = 0;
                                    break;
                                }
                                const uint64_t g0 = nt::pass_gidx(a, blk, e0), g1 = nt::pass_gidx(a, blk, e1);
                                const unsigned b = a.b0 + bb;
                                if (g1 != g0 + ((uint64_t)1 << b) || ((g0 >> b) & 1) || (r != (e0 >> a.c))) ok = 0;
                            }
                        }
                    }
                    for (uint64_t i = 0; i < n; i++)
                        if (seen[i] != 1) ok = 0;
                }
                CHECK_MSG(ok, "pass indices k=%u tile=%u cols=%u", k, tile, cols);
            }
}

/* pass_swizzle (CZ_CUDA_NTT_SWIZZLE) permutes every tile size's elements
 * within their 32 (so a tile of E elements keeps its E slots) */
static void test_swizzle(void)
{
    int ok = 1;
    for (unsigned lg = 0; lg <= nt::MAX_TILE_LOG + 1 && ok; lg++) {
        const uint32_t E = 1u << lg;
        std::vector<int> seen(E, 0);
        for (uint32_t e = 0; e < E; e++) {
            const uint32_t s = nt::pass_swizzle(e);
            if (s >= E || (s >> 5) != (e >> 5) || seen[s]++) ok = 0;
        }
        CHECK_MSG(ok, "pass_swizzle is not a permutation of a tile of 2^%u", lg);
    }
}

static void test_bitrev(void)
{
    int ok = 1;
    for (unsigned k = 0; k <= 40; k++)
        for (int i = 0; i < 50; i++) {
            uint64_t x = k ? cz_rng_u64(&rng) & (((uint64_t)1 << k) - 1) : 0;
            if (nt::bitrev(x, k) != cz_ntt_bitrev_index((size_t)x, k)) ok = 0;
        }
    CHECK(ok);
}

/* ---- per-field tests ---- */

/* The host executor: emulates the kernels of cuda/ntt.cu. */
template <class F> struct host_exec {
    long launches;
    bool simple; /* as cuda/ntt.cu's gpu_exec: the element-wise bit reversal on the simple path */
    int ilp;     /* 2: pass_step's two quadruples per thread (CZ_NTT_PASS_ILP), with half the
                  * kernel's threads so that every tile size takes that path */
    cz_status level(F *x, const nt::tw_t<F> &tw, unsigned b, bool dit)
    {
        launches++;
        const uint64_t nbf = (uint64_t)1 << (tw.k - 1);
        for (uint64_t q = 0; q < nbf; q++)
            if (dit)
                nt::level_bf<F, true>(x, tw, b, q);
            else
                nt::level_bf<F, false>(x, tw, b, q);
        return CZ_OK;
    }
    cz_status pass(F *x, const nt::tw_t<F> &tw, const nt::pass_t &p, bool dit) { return run_pass(x, tw, NULL, p, dit); }
    /* run_h_step's (cuda/ntt.cu h_exec): arrays of n elements; the order
     * they arrive in, the copies, products and pointwise steps */
    uint64_t n = 0;
    std::vector<int> arrivals;
    long copies = 0, products = 0, pointwises = 0;
    cz_status arrive(int i)
    {
        arrivals.push_back(i);
        return CZ_OK;
    }
    cz_status copy(F *dst, const F *src)
    {
        copies++;
        memcpy(dst, src, n * sizeof(F));
        return CZ_OK;
    }
    cz_status product(F *c, const F *a, const F *b)
    {
        launches++;
        products++;
        for (uint64_t i = 0; i < n; i++) nt::product(c, a, b, i);
        return CZ_OK;
    }
    cz_status pointwise(F *a, const F *b, const F *c)
    {
        launches++;
        pointwises++;
        for (uint64_t i = 0; i < n; i++) nt::pointwise(a, b, c, i);
        return CZ_OK;
    }
    /* out of place with the bit reversal where rev says (ntt.cuh run_op, CZ_CUDA_NTT_FUSED_REV) */
    long revs = 0;
    cz_status pass_io(F *src, F *dst, const nt::tw_t<F> &tw, const nt::pass_t &p, bool dit, unsigned rev)
    {
        if (rev != nt::REV_NONE) revs++;
        return run_pass(src, tw, NULL, p, dit, dst, rev);
    }
    long joints = 0, joints_odd = 0; /* fused passes through the joint step (ntt.cuh h_joint); of them, odd t */
    /* the H step's fused pass (cuda/ntt.cu k_pass_h): DIF steps with tw, then DIT ones with tw2 */
    cz_status pass_h(F *x, const nt::tw_t<F> &tw, const nt::tw_t<F> &tw2, const nt::pass_t &p)
    {
        return run_pass(x, tw, &tw2, p, false);
    }
    /* the H step's last pass of c with the pointwise step (k_pass<F, true, true>) */
    F *pw_a = NULL;
    const F *pw_b = NULL;
    long pws = 0;
    cz_status pass_pw(F *x, const nt::tw_t<F> &tw, const nt::pass_t &p, F *pa, const F *pb)
    {
        pw_a = pa;
        pw_b = pb;
        pws++;
        cz_status st = run_pass(x, tw, NULL, p, true);
        pw_a = NULL;
        pw_b = NULL;
        return st;
    }
    void steps(const nt::pass_args<F> &a, uint32_t *sh, uint64_t blk, uint32_t thr, bool dit, unsigned first = 0,
               unsigned end = ~0u)
    {
        for (unsigned st = first; st < nt::pass_steps(a.t) && st < end; st++)
            for (uint32_t t = thr; t-- > 0;) /* any order within a phase */
                if (ilp == 2 && dit)
                    nt::pass_step<F, true, 2>(a, sh, blk, st, t, thr);
                else if (ilp == 2)
                    nt::pass_step<F, false, 2>(a, sh, blk, st, t, thr);
                else if (dit)
                    nt::pass_step<F, true>(a, sh, blk, st, t, thr);
                else
                    nt::pass_step<F, false>(a, sh, blk, st, t, thr);
    }
    cz_status run_pass(F *x, const nt::tw_t<F> &tw, const nt::tw_t<F> *tw2, const nt::pass_t &p, bool dit,
                       F *y = NULL, unsigned rev = nt::REV_NONE)
    {
        launches++;
        nt::pass_args<F> a = nt::pass_args_of(x, tw, p, y, rev);
        nt::pass_args<F> a2 = a;
        if (tw2) a2.tw = *tw2;
        const uint32_t E = nt::pass_elems(a);
        uint32_t thr = nt::pass_threads(E);
        if (ilp == 2 && thr > 1) thr /= 2;
        const uint64_t blocks = ((uint64_t)1 << tw.k) / E;
        std::vector<uint32_t> sh((size_t)E * F::N);
        std::vector<int> seen(rev != nt::REV_NONE ? blocks : 0, 0);
        for (uint64_t bi = 0; bi < blocks; bi++) {
            const uint64_t blk = nt::pass_block(a, bi); /* (k_pass: blockIdx.x -> its tile) */
            if (rev != nt::REV_NONE) {
                if (blk >= blocks || seen[blk]++) return CZ_ERR_INTERNAL;
            } else if (blk != bi) {
                return CZ_ERR_INTERNAL;
            }
            for (size_t i = 0; i < sh.size(); i++)
                sh[i] = 0xa5a5a5a5u ^ (uint32_t)i; /* stale shared memory */
            for (uint32_t t = 0; t < thr; t++)
                nt::pass_load(a, sh.data(), blk, t, thr);
            if (tw2 && nt::h_joint(a.tw, a.b0, a.t, a.c)) { /* k_pass_h's joint step */
                joints++;
                joints_odd += a.t & 1;
                steps(a, sh.data(), blk, thr, false, 0, nt::pass_steps(a.t) - 1);
                for (uint32_t t = thr; t-- > 0;)
                    nt::pass_step_joint(a, a2, sh.data(), t, thr);
                steps(a2, sh.data(), blk, thr, true, 1);
            } else {
                steps(a, sh.data(), blk, thr, tw2 ? false : dit);
                if (tw2) steps(a2, sh.data(), blk, thr, true);
            }
            for (uint32_t t = 0; t < thr; t++)
                if (pw_a)
                    nt::pass_store_pw(a2, sh.data(), blk, t, thr, pw_a, pw_b);
                else
                    nt::pass_store(a2, sh.data(), blk, t, thr);
        }
        return CZ_OK;
    }
    cz_status bitrev(F *x, unsigned k)
    {
        launches++;
        if (!simple && nt::bitrev_tiled(k)) {
            bitrev_tiles(x, k);
            return CZ_OK;
        }
        for (uint64_t i = 0; i < ((uint64_t)1 << k); i++)
            nt::bitrev_swap(x, k, i);
        return CZ_OK;
    }
    /* k_bitrev_tiles: blocks in a random order (they must not depend on
     * each other), stale shared memory, threads in any order per phase */
    static void bitrev_tiles(F *x, unsigned k)
    {
        const uint64_t nb = nt::bitrev_tile_blocks(k);
        const uint32_t thr = 256;
        std::vector<uint64_t> order(nb);
        for (uint64_t b = 0; b < nb; b++) order[b] = b;
        for (uint64_t b = nb; b > 1; b--) std::swap(order[b - 1], order[cz_rng_u64(&rng) % b]);
        std::vector<uint32_t> sh(2 * F::N * nt::BR_PLANE);
        for (uint64_t blk : order) {
            for (size_t i = 0; i < sh.size(); i++) sh[i] = 0x5a5a5a5au ^ (uint32_t)(i * 2654435761u);
            bool act = true;
            for (uint32_t t = thr; t-- > 0;) act = nt::bitrev_tile_load(x, k, blk, sh.data(), t, thr) && act;
            if (!act) continue;
            for (uint32_t t = 0; t < thr; t++) nt::bitrev_tile_store(x, k, blk, sh.data(), t, thr);
        }
    }
};

/* The CPU side of one field. */
template <class F> struct cpu;
template <> struct cpu<bn254_fr> {
    typedef cz_bn254_fr C;
    typedef cz_bn254_ntt_domain D;
    static const cz_curve curve = CZ_CURVE_BN254;
    static const char *name() { return "bn254"; }
    static void random(C *r) { cz_bn254_fr_random(r, &rng); }
    static void mul(C *r, const C *a, const C *b) { cz_bn254_fr_mul(r, a, b); }
    static void pow(C *r, const C *a, uint64_t e) { cz_bn254_fr_pow_u64(r, a, e); }
    static int eq(const C *a, const C *b) { return cz_bn254_fr_eq(a, b); }
    static cz_status inv(C *r, const C *a) { return cz_bn254_fr_inv(r, a); }
    static cz_status root(C *r, unsigned k) { return cz_bn254_ntt_root_of_unity(r, k); }
    static cz_status shift(C *r, unsigned k) { return cz_bn254_ntt_coset_shift(r, k); }
    static cz_status create(D **d, unsigned k) { return cz_bn254_ntt_domain_create(d, k); }
    static void destroy(D *d) { cz_bn254_ntt_domain_free(d); }
    static cz_status op(const D *d, C *a, int op, unsigned k)
    {
        C g;
        cz_bn254_ntt_coset_shift(&g, k);
        switch (op) {
        case 0: return cz_bn254_ntt_forward(d, a, NULL);
        case 1: return cz_bn254_ntt_inverse(d, a, NULL);
        case 2: return cz_bn254_ntt_coset_forward(d, a, &g, NULL);
        default: return cz_bn254_ntt_coset_inverse(d, a, &g, NULL);
        }
    }
};
template <> struct cpu<bls12_381_fr> {
    typedef cz_bls12_381_fr C;
    typedef cz_bls12_381_ntt_domain D;
    static const cz_curve curve = CZ_CURVE_BLS12_381;
    static const char *name() { return "bls12_381"; }
    static void random(C *r) { cz_bls12_381_fr_random(r, &rng); }
    static void mul(C *r, const C *a, const C *b) { cz_bls12_381_fr_mul(r, a, b); }
    static void pow(C *r, const C *a, uint64_t e) { cz_bls12_381_fr_pow_u64(r, a, e); }
    static int eq(const C *a, const C *b) { return cz_bls12_381_fr_eq(a, b); }
    static cz_status inv(C *r, const C *a) { return cz_bls12_381_fr_inv(r, a); }
    static cz_status root(C *r, unsigned k) { return cz_bls12_381_ntt_root_of_unity(r, k); }
    static cz_status shift(C *r, unsigned k) { return cz_bls12_381_ntt_coset_shift(r, k); }
    static cz_status create(D **d, unsigned k) { return cz_bls12_381_ntt_domain_create(d, k); }
    static void destroy(D *d) { cz_bls12_381_ntt_domain_free(d); }
    static cz_status op(const D *d, C *a, int op, unsigned k)
    {
        C g;
        cz_bls12_381_ntt_coset_shift(&g, k);
        switch (op) {
        case 0: return cz_bls12_381_ntt_forward(d, a, NULL);
        case 1: return cz_bls12_381_ntt_inverse(d, a, NULL);
        case 2: return cz_bls12_381_ntt_coset_forward(d, a, &g, NULL);
        default: return cz_bls12_381_ntt_coset_inverse(d, a, &g, NULL);
        }
    }
};

/* A twiddle table of kind `kind` for 2^k built on the host exactly as
 * k_table builds it on the device. */
template <class F> static std::vector<F> host_table(int kind, unsigned k, nt::tab_consts<F> *tc)
{
    const unsigned m = nt::seed_m(k);
    std::vector<F> hi((size_t)1 << (k - 1 - m)), lo((size_t)1 << m);
    cz_status st = nt::host_tab_consts<F>(kind, k, tc, hi.data(), lo.data());
    CHECK(st == CZ_OK);
    std::vector<F> tab(nt::tab_entries(kind, k));
    for (uint64_t x = 0; x < tab.size(); x++)
        tab[x] = nt::tab_entry(hi.data(), lo.data(), m, tc->c, nt::tab_is_coset(kind), k, x);
    return tab;
}

/* tw(b, j) computed independently: c^(2^(k-1-b)) * w_(b+1)^j, w = ntt/ntt.h's
 * root of order 2^(b+1) (inverted for the inverse kinds). */
template <class F> static F expect_tw(int kind, unsigned k, unsigned b, uint64_t j)
{
    typedef cpu<F> P;
    typename P::C w, c, t;
    P::root(&w, b + 1);
    if (nt::tab_is_inverse(kind)) P::inv(&w, &w);
    P::pow(&t, &w, j);
    if (nt::tab_is_coset(kind)) {
        P::shift(&c, k);
        if (kind == nt::TAB_COSET_INV) P::inv(&c, &c);
        typename P::C g = c;
        for (unsigned i = 0; i + 1 + b < k; i++)
            P::mul(&g, &g, &g);
        P::mul(&t, &t, &g);
    }
    return nt::to_dev<F>(t);
}

template <class F> static void test_tables(void)
{
    typedef cpu<F> P;
    const unsigned S = nt::host_field<F>::S;
    const unsigned kfull = cz_test_iters(10) >= 5 ? 11 : 8;
    for (int kind = 0; kind < nt::TAB_KINDS; kind++) {
        /* every entry for small k */
        for (unsigned k = 1; k <= kfull; k++) {
            nt::tab_consts<F> tc = nt::tab_consts<F>();
            std::vector<F> tab = host_table<F>(kind, k, &tc);
            int ok = 1;
            if (nt::tab_is_coset(kind)) {
                for (unsigned b = 1; b < k; b++)
                    for (uint64_t j = 0; j < ((uint64_t)1 << b); j++)
                        if (tab[((uint64_t)1 << b) | j] != expect_tw<F>(kind, k, b, j)) ok = 0;
            } else {
                for (unsigned b = 1; b < k; b++)
                    for (uint64_t j = 0; j < ((uint64_t)1 << b); j++)
                        if (tab[j << (k - 1 - b)] != expect_tw<F>(kind, k, b, j)) ok = 0;
            }
            /* level 0: gamma_0 */
            if (tc.gamma0 != expect_tw<F>(kind, k, 0, 0)) ok = 0;
            CHECK_MSG(ok, "%s table kind %d of 2^%u", P::name(), kind, k);
        }
        /* samples for large k, from the full-size power tables */
        const unsigned kmax = cz_test_iters(10) >= 5 ? S : 20;
        for (unsigned k = kfull + 1; k <= kmax; k += 3) {
            const unsigned m = nt::seed_m(k);
            std::vector<F> hi((size_t)1 << (k - 1 - m)), lo((size_t)1 << m);
            nt::tab_consts<F> tc = nt::tab_consts<F>();
            CHECK(nt::host_tab_consts<F>(kind, k, &tc, hi.data(), lo.data()) == CZ_OK);
            int ok = tc.gamma0 == expect_tw<F>(kind, k, 0, 0);
            const int coset = nt::tab_is_coset(kind);
            for (int s = 0; s < 12; s++) {
                unsigned b = 1 + (unsigned)(cz_rng_u64(&rng) % (k - 1));
                if (s == 0) b = k - 1;
                uint64_t j = cz_rng_u64(&rng) & (((uint64_t)1 << b) - 1);
                if (s == 1) j = ((uint64_t)1 << b) - 1;
                uint64_t x = coset ? (((uint64_t)1 << b) | j) : (j << (k - 1 - b));
                F got = nt::tab_entry(hi.data(), lo.data(), m, tc.c, coset, k, x);
                if (got != expect_tw<F>(kind, k, b, j)) ok = 0;
            }
            CHECK_MSG(ok, "%s table kind %d of 2^%u (samples)", P::name(), kind, k);
        }
    }
    /* sizes beyond the 2-adicity have no constants */
    nt::tab_consts<F> tc = nt::tab_consts<F>();
    CHECK(nt::host_tab_consts<F>(nt::TAB_FWD, S + 1, &tc, NULL, NULL) == CZ_ERR_RANGE);
    CHECK(nt::host_tab_consts<F>(nt::TAB_FWD, 0, &tc, NULL, NULL) == CZ_ERR_RANGE);
    /* 1/2^k */
    for (unsigned k = 0; k <= S; k += 7) {
        F r = nt::host_inv_n<F>(k), two = F::one() + F::one(), p = F::one();
        for (unsigned i = 0; i < k; i++)
            p = p * two;
        CHECK(r * p == F::one());
    }
}

/* plans the emulation runs with (tile, cols); the first one is the default
 * (tile 0: nt::make_default_plan, tiles of 2^10 or 2^11) */
static const unsigned PLANS[][2] = {{0, 2}, {11, 2}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 3}};
enum { NPLANS = sizeof PLANS / sizeof PLANS[0] };
static void plan_of(nt::plan_t *pl, int v, unsigned k)
{
    if (PLANS[v][0] == 0)
        nt::make_default_plan(pl, k, nt::MAX_TILE_LOG, PLANS[v][1]);
    else
        nt::make_plan(pl, k, PLANS[v][0], PLANS[v][1]);
}

template <class F> static std::vector<F> random_vec(size_t n)
{
    std::vector<F> v(n);
    for (size_t i = 0; i < n; i++) {
        typename cpu<F>::C c;
        cpu<F>::random(&c);
        v[i] = nt::to_dev<F>(c);
    }
    return v;
}

static const char *OP_NAME[4] = {"forward", "inverse", "coset forward", "coset inverse"};

template <class F> static void test_ops(void)
{
    typedef cpu<F> P;
    const unsigned kmax = cz_test_iters(10) >= 5 ? 12 : 8, kbig = cz_test_iters(10) >= 5 ? 16 : 0;
    long nfused = 0; /* runs with the bit reversal in a pass */
    for (unsigned k = 0; k <= (kbig ? kbig : kmax); k++) {
        const size_t n = (size_t)1 << k;
        typename P::D *d = NULL;
        CHECK(P::create(&d, k) == CZ_OK);
        std::vector<F> in = random_vec<F>(n);
        for (int op = 0; op < 4; op++) {
            std::vector<F> want = in;
            CHECK(P::op(d, (typename P::C *)want.data(), op, k) == CZ_OK);
            const int kind = nt::op_tab(op);
            nt::tab_consts<F> tc = nt::tab_consts<F>();
            std::vector<F> tab = k ? host_table<F>(kind, k, &tc) : std::vector<F>(1);
            nt::tw_t<F> tw = k ? nt::make_tw<F>(tab.data(), kind, k, nt::op_scale(op), tc) : nt::tw_t<F>();
            tw.k = k;
            /* simple path, then the pass path under each plan (only the
             * default one above 2^kmax) */
            for (int v = -1; v < NPLANS; v++) {
                if (k > kmax && v != 0) continue;
                /* il: quadruples per thread; fr: the bit reversal in a pass
                 * (out of place through a scratch, CZ_CUDA_NTT_FUSED_REV) */
                for (int il = 1; il <= (v >= 0 ? 2 : 1); il++)
                    for (int fr = 0; fr <= (v >= 0 ? 1 : 0); fr++) {
                        host_exec<F> ex = {0, v < 0, il};
                        nt::plan_t pl;
                        if (v >= 0) plan_of(&pl, v, k);
                        std::vector<F> got = in, scratch = random_vec<F>(fr ? n : 0);
                        cz_status st = nt::run_op(ex, got.data(), op, tw, v >= 0 ? &pl : NULL,
                                                  fr ? scratch.data() : NULL, fr != 0);
                        CHECK(st == CZ_OK);
                        CHECK_MSG(memcmp(got.data(), want.data(), n * sizeof(F)) == 0, "%s %s 2^%u, %s%s%s", P::name(),
                                  OP_NAME[op], k, v < 0 ? "simple" : "passes",
                                  il == 2 ? " (two quadruples per thread)" : "", fr ? " (bit reversal in a pass)" : "");
                        const bool fused = fr && nt::rev_fusable(&pl);
                        if (v < 0 && k > 0) CHECK(ex.launches == (long)k + 1);
                        if (v >= 0 && k > 0) CHECK(ex.launches == (long)pl.npass + (fused ? 0 : 1));
                        CHECK(ex.revs == (fused ? 1 : 0));
                        if (fused) nfused++;
                    }
            }
        }
        P::destroy(d);
    }
    CHECK(nfused > 0);
}

template <class F> static void test_compute_h(void)
{
    typedef cpu<F> P;
    cz_backend *be = NULL;
    CHECK(cz_backend_cpu_create(&be, NULL, NULL) == CZ_OK);
    if (!be) return;
    const unsigned kmax = cz_test_iters(10) >= 5 ? 12 : 7;
    long njoint = 0, njoint_odd = 0; /* fused passes through the joint step; of them, odd passes (ntt.cuh pass_step) */
    for (unsigned k = 0; k <= kmax; k++) {
        const size_t n = (size_t)1 << k;
        std::vector<F> a = random_vec<F>(n), b = random_vec<F>(n), c = random_vec<F>(n);
        std::vector<F> wa = a, wb = b, wc = c;
        cz_error err;
        cz_error_clear(&err);
        CHECK(be->ops->compute_h(be, P::curve, k, wa.data(), wb.data(), wc.data(), NULL, &err) == CZ_OK);
        nt::tw_t<F> ti = nt::tw_t<F>(), tcs = nt::tw_t<F>();
        std::vector<F> tab_i(1), tab_c(1);
        if (k) {
            nt::tab_consts<F> ci = nt::tab_consts<F>(), cc = nt::tab_consts<F>();
            tab_i = host_table<F>(nt::TAB_INV, k, &ci);
            tab_c = host_table<F>(nt::TAB_COSET_FWD, k, &cc);
            ti = nt::make_tw<F>(tab_i.data(), nt::TAB_INV, k, 1, ci);
            tcs = nt::make_tw<F>(tab_c.data(), nt::TAB_COSET_FWD, k, 0, cc);
        }
        ti.k = tcs.k = k;
        /* the switches of the H step, each combination: fused pass
         * (CZ_CUDA_NTT_H_FUSE), a unscaled and b by 1/n^2
         * (CZ_CUDA_NTT_H_SCALE_B), the pointwise step in c's last pass
         * (CZ_CUDA_NTT_H_PW) */
        for (int v = -1; v < NPLANS; v++)
            for (int bits = 0; bits < 8; bits++) {
                const int var[3] = {bits & 1, (bits >> 1) & 1, (bits >> 2) & 1};
                const int fuse = var[0];
                if (v < 0 && (fuse || var[2])) continue;
                std::vector<F> x[3] = {a, b, c};
                /* every other plan with two quadruples per thread */
                host_exec<F> ex = {0, false, 1 + (v & 1)};
                nt::plan_t pl;
                if (v >= 0) plan_of(&pl, v, k);
                const bool pw = var[2] && nt::h_pw_ok(v >= 0 ? &pl : NULL, fuse != 0);
                for (int i = 0; i < 3; i++)
                    CHECK(nt::run_h_array(ex, x[i].data(), nt::h_tw_inv(ti, i, var[1] != 0), tcs, v >= 0 ? &pl : NULL,
                                          fuse != 0, pw && i == 2 ? x[0].data() : NULL,
                                          pw && i == 2 ? x[1].data() : NULL) == CZ_OK);
                if (pw) {
                    CHECK(ex.pws == 1);
                } else {
                    CHECK(ex.pws == 0 && (!var[2] || k == 0 || pl.npass == 1)); /* (fused and one pass: the kernel) */
                    for (size_t i = 0; i < n; i++)
                        nt::pointwise(x[0].data(), x[1].data(), x[2].data(), i);
                }
                CHECK_MSG(memcmp(x[0].data(), wa.data(), n * sizeof(F)) == 0, "%s H step 2^%u, %s%s%s", P::name(), k,
                          v < 0 ? "simple" : fuse ? "passes, fused" : "passes", var[1] ? ", a unscaled and b by 1/n^2" : "",
                          pw ? ", pointwise in c's last pass" : "");
                if (k > 0) CHECK(ex.launches == 3 * (v < 0 ? 2 * (long)k : 2 * (long)pl.npass - fuse));
                njoint += ex.joints;
                njoint_odd += ex.joints_odd;
            }
        /* run_h_step, the order cuda/ntt.cu's compute_h_t runs: with c given,
         * and with c formed from a and b (b arrives first, is copied into c's
         * array, then c = a o c), against the CPU backend's H step of a, b, c
         * and of a, b, a o b */
        std::vector<F> wab_a = a, wab_b = b, wab_c(n);
        for (size_t i = 0; i < n; i++) wab_c[i] = a[i] * b[i];
        CHECK(be->ops->compute_h(be, P::curve, k, wab_a.data(), wab_b.data(), wab_c.data(), NULL, &err) == CZ_OK);
        for (int v = -1; v < NPLANS; v++)
            for (int form_c = 0; form_c < 2; form_c++) {
                std::vector<F> x[3] = {a, b, form_c ? random_vec<F>(n) : c}; /* (formed: c's array holds garbage) */
                F *const xp[3] = {x[0].data(), x[1].data(), x[2].data()};
                host_exec<F> ex = {0, false, 1 + (v & 1)};
                ex.n = n;
                nt::plan_t pl;
                if (v >= 0) plan_of(&pl, v, k);
                CHECK(nt::run_h_step(ex, xp, ti, tcs, v >= 0 ? &pl : NULL, k, form_c != 0) == CZ_OK);
                CHECK_MSG(memcmp(x[0].data(), (form_c ? wab_a : wa).data(), n * sizeof(F)) == 0,
                          "%s run_h_step 2^%u, plan %d%s", P::name(), k, v, form_c ? ", c = a o b formed" : "");
                const std::vector<int> order = form_c ? std::vector<int>{1, 0} : std::vector<int>{0, 1, 2};
                CHECK(ex.arrivals == order && ex.copies == form_c && ex.products == form_c);
                const bool pw = CZ_CUDA_NTT_H_PW && nt::h_pw_ok(v >= 0 ? &pl : NULL, CZ_CUDA_NTT_H_FUSE);
                CHECK(ex.pws == (pw ? 1 : 0) && ex.pointwises == (pw ? 0 : 1));
            }
    }
    CHECK(njoint > 0 || !CZ_CUDA_NTT_H_JOINT);
    CHECK(njoint_odd > 0 || !CZ_CUDA_NTT_H_JOINT);
    cz_backend_free(be);
}

/* The butterflies against the textbook formulas on random elements. */
template <class F> static void test_butterflies(void)
{
    std::vector<F> r = random_vec<F>(6);
    nt::tw_t<F> tw = nt::tw_t<F>();
    tw.s = r[4];
    tw.tw0 = r[5];
    for (int mode = 0; mode < 3; mode++) {
        tw.lvl0 = mode;
        F u = r[0], v = r[1];
        nt::bf_dif0(u, v, tw);
        F eu = r[0] + r[1], ev = r[0] - r[1];
        if (mode == 2) eu = eu * tw.s;
        if (mode) ev = ev * tw.tw0;
        CHECK(u == eu && v == ev);
        u = r[0];
        v = r[1];
        nt::bf_dit0(u, v, tw);
        F a = mode == 2 ? r[0] * tw.s : r[0], t = mode ? r[1] * tw.tw0 : r[1];
        CHECK(u == a + t && v == a - t);
    }
    /* the lazy butterflies: inputs in [0, 2p) (x or x + p), outputs below 2p
     * with the residues of the reduced ones; 256 random draws plus p - 1 */
    for (int rep = 0; rep < 256; rep++) {
        std::vector<F> q = random_vec<F>(6);
        if (rep == 0) q[0] = q[1] = -F::one();
        nt::tw_t<F> tl = nt::tw_t<F>();
        tl.s = q[4];
        tl.tw0 = q[5];
        for (int mode = 0; mode < 3; mode++) {
            tl.lvl0 = mode;
            for (int lift = 0; lift < 4; lift++) {
                const F u0 = (lift & 1) ? cz_test_plus_p(q[0]) : q[0], v0 = (lift & 2) ? cz_test_plus_p(q[1]) : q[1];
                long bad = 0;
                for (int kind = 0; kind < 4; kind++) {
                    if (mode > 0 && kind >= 2) continue; /* the level-0 forms only vary with lvl0 */
                    F u = u0, v = v0, eu = q[0], ev = q[1];
                    switch (kind) {
                    case 0: nt::bf_dif0_lazy(u, v, tl); nt::bf_dif0(eu, ev, tl); break;
                    case 1: nt::bf_dit0_lazy(u, v, tl); nt::bf_dit0(eu, ev, tl); break;
                    case 2: nt::bf_dif_lazy(u, v, q[2]); nt::bf_dif(eu, ev, q[2]); break;
                    default: nt::bf_dit_lazy(u, v, q[2]); nt::bf_dit(eu, ev, q[2]); break;
                    }
                    bad += cz_test_lazy_bad(u, eu) + cz_test_lazy_bad(v, ev);
                }
                CHECK_MSG(bad == 0, "lazy butterflies, draw %d, lvl0 %d, lift %d", rep, mode, lift);
            }
        }
    }
    F u = r[0], v = r[1];
    nt::bf_dif(u, v, r[2]);
    CHECK(u == r[0] + r[1] && v == (r[0] - r[1]) * r[2]);
    u = r[0];
    v = r[1];
    nt::bf_dit(u, v, r[2]);
    CHECK(u == r[0] + r[1] * r[2] && v == r[0] - r[1] * r[2]);
    /* pointwise: a b - c */
    std::vector<F> a(1, r[0]), b(1, r[1]), c(1, r[2]);
    nt::pointwise(a.data(), b.data(), c.data(), 0);
    CHECK(a[0] == r[0] * r[1] - r[2]);
}

/* The tiled bit reversal equals the element-wise one, for every k up to 16
 * (the tiles start at k = 8); both are their own inverse. */
template <class F> static void test_bitrev_tiles(void)
{
    const unsigned kmax = cz_test_iters(10) >= 5 ? 16 : 11;
    for (unsigned k = 0; k <= kmax; k++) {
        const size_t n = (size_t)1 << k;
        std::vector<F> in = random_vec<F>(n), a = in, b = in;
        host_exec<F> sw = {0, true}, ti = {0, false};
        CHECK(sw.bitrev(a.data(), k) == CZ_OK && ti.bitrev(b.data(), k) == CZ_OK);
        CHECK_MSG(memcmp(a.data(), b.data(), n * sizeof(F)) == 0, "tiled bit reversal 2^%u", k);
        CHECK(ti.bitrev(b.data(), k) == CZ_OK);
        CHECK_MSG(memcmp(b.data(), in.data(), n * sizeof(F)) == 0, "tiled bit reversal twice 2^%u", k);
    }
}

template <class F> static void test_field(void)
{
    test_butterflies<F>();
    test_bitrev_tiles<F>();
    test_tables<F>();
    test_ops<F>();
    test_compute_h<F>();
}

int main(void)
{
    cz_test_seed(&rng, "test_cuda_ntt");
    test_plan();
    test_pass_indices();
    test_swizzle();
    test_bitrev();
    test_field<bn254_fr>();
    test_field<bls12_381_fr>();
    return cz_test_finish("test_cuda_ntt");
}
