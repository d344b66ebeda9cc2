/*
 * GPU MSM (cuda/msm.cu) against the CPU MSM (msm/msm.h): G1 and G2 of both
 * curves, both scalar forms, bases resident (cz_cuda_bases_pin), streamed
 * from pageable memory (through the staging buffers) and streamed from
 * pinned memory, scalars from pageable and pinned memory and resident (copied
 * at once, at the MSM's lookup, or behind a cz_cuda_compute_h's kernels:
 * cz_cuda_bases_pin_later), and the H step's result kept on the device.
 *
 * Inputs: random for n = 1 .. 2^20 and, G1, 2^21 + 2053 (2^24 with
 * CZ_GPU_TEST_BIG=1), tables up to 2^21 + 5 points (G1: two carried chunks),
 * a witness-like mix (mostly 0 and 1), the edge inputs of tests/test_msm.c
 * (n = 0..3, zero scalars, 1, 2, r - 1, repeated bases, equal scalars, P and
 * -P, bases at infinity, scalars >= r rejected with CZ_ERR_RANGE and the
 * result at infinity), forced windows 4..20 (cz_cuda_opts msm_window), level
 * run lengths (msm_run) and chunking (msm_chunk, resident bases included).
 *
 * Needs a GPU: without one it prints "no GPU: skipped" and exits with 77.
 */
#include <string.h>

#include <thread>
#include <vector>

#include <cuda_runtime.h>

#pragma nv_diag_suppress 550 /* ff/mont_x86_64.h's asm outputs look unused to the CUDA front end */
#include "cuda/cuda.h"
#include "ec/ec.h"
#include "msm/msm.h"
#include "test_util.h"
#include "msm_test_groups.h"
#pragma nv_diag_default 550

#define GROUP(NAME, CURVE, G1, BITS)                                                                                 \
    struct NAME : cpu_##NAME {                                                                                       \
        static constexpr bool g1 = G1;                                                                               \
        static constexpr int bits = BITS;                                                                            \
        static constexpr cz_curve curve_id = CURVE;                                                                  \
        static cz_status gpu(cz_cuda *ctx, jac *out, const void *b, const void *s, size_t n, cz_msm_scalar_form f,   \
                             cz_error *err)                                                                          \
        {                                                                                                            \
            return G1 ? cz_cuda_msm_g1(ctx, CURVE, out, b, s, n, f, err)                                             \
                      : cz_cuda_msm_g2(ctx, CURVE, out, b, s, n, f, err);                                            \
        }                                                                                                            \
    };

GROUP(bls12_381_g1, CZ_CURVE_BLS12_381, true, CZ_BLS12_381_FR_BITS)
GROUP(bls12_381_g2, CZ_CURVE_BLS12_381, false, CZ_BLS12_381_FR_BITS)
GROUP(bn254_g1, CZ_CURVE_BN254, true, CZ_BN254_FR_BITS)
GROUP(bn254_g2, CZ_CURVE_BN254, false, CZ_BN254_FR_BITS)
#undef GROUP

static cz_cuda *g_ctx;
static int g_big;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a pinned host copy of a buffer (freed by the destructor) */
struct pinned {
    void *p = NULL;
    bool make(const void *src, size_t bytes)
    {
        if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
            (void)cudaGetLastError();
            p = NULL;
            return false;
        }
        memcpy(p, src, bytes);
        return true;
    }
    ~pinned()
    {
        if (p) cudaFreeHost(p);
    }
};

/* how the bases and scalars reach the GPU */
enum { B_RESIDENT = 1, B_PAGEABLE = 2, B_PINNED = 4, B_ALL = 7 };
/* S_RESIDENT: cz_cuda_bases_pin on the scalars; S_LATER: cz_cuda_bases_pin_later
 * (copied when the MSM looks them up); S_LATER_H: the same with a
 * cz_cuda_compute_h (pageable a, b, c: the staging buffers in use) between
 * them, which makes the copy behind its kernels */
enum { S_PAGEABLE = 1, S_PINNED = 2, S_RESIDENT = 3, S_LATER = 4, S_LATER_H = 5 };
static const char *smode_name(int s)
{
    return s == S_PINNED ? "pinned" : s == S_RESIDENT ? "resident" : s == S_LATER ? "resident-later"
           : s == S_LATER_H                        ? "resident-later-after-H"
                                                   : "pageable";
}

/* a cz_cuda_compute_h of 2^16 random rows (its result is not looked at:
 * test_gpu_ntt checks it) */
template <class T> static bool some_h_step(void)
{
    const unsigned k = 16;
    std::vector<uint8_t> abc(3 * 32 * ((size_t)1 << k));
    CHECK(cz_rng_bytes(&g_rng, abc.data(), abc.size()) == CZ_OK);
    for (size_t i = 0; i < abc.size() / 32; i++) abc[32 * i + 31] = 0; /* below r */
    cz_error err;
    cz_error_clear(&err);
    uint8_t *a = abc.data(), *b = a + 32 * ((size_t)1 << k), *c = b + 32 * ((size_t)1 << k);
    cz_status st = cz_cuda_compute_h(g_ctx, T::curve_id, k, a, b, c, &err);
    CHECK_MSG(st == CZ_OK, "%s: compute_h: %s", T::name(), cz_error_msg(&err));
    return st == CZ_OK;
}
enum { F_CANON = 1, F_MONT = 2, F_BOTH = 3 };

static const char *bmode_name(int b) { return b == B_RESIDENT ? "resident" : b == B_PAGEABLE ? "streamed" : "streamed-pinned"; }

/* the GPU MSM of I in the given modes == expect */
template <class T>
static void check(const inst<T> &I, const typename T::jac *expect, const char *what, int bmodes = B_ALL,
                  int forms = F_BOTH, int smode = S_PAGEABLE)
{
    const size_t bbytes = I.n * sizeof(typename T::caff);
    for (int bm = 1; bm <= 4; bm <<= 1) {
        if (!(bmodes & bm)) continue;
        const void *bases = I.bases.data();
        pinned pb;
        if (bm == B_PINNED) {
            if (!pb.make(I.bases.data(), bbytes)) {
                CHECK_MSG(0, "%s: cudaHostAlloc of %zu bytes", T::name(), bbytes);
                continue;
            }
            bases = pb.p;
        }
        if (bm == B_RESIDENT && I.n) {
            cz_error err;
            cz_error_clear(&err);
            cz_status st = cz_cuda_bases_pin(g_ctx, bases, bbytes, &err);
            CHECK_MSG(st == CZ_OK, "%s: bases_pin of %zu bytes: %s", T::name(), bbytes, cz_error_msg(&err));
            if (st != CZ_OK) continue;
        }
        for (int f = 1; f <= 2; f <<= 1) {
            if (!(forms & f)) continue;
            const bool mont = f == F_MONT;
            const void *sc = I.scalars(mont);
            pinned ps;
            if (smode == S_PINNED) {
                if (!ps.make(sc, 32 * I.n)) {
                    CHECK_MSG(0, "%s: cudaHostAlloc of scalars", T::name());
                    continue;
                }
                sc = ps.p;
            }
            bool sres = false;
            if (smode >= S_RESIDENT && I.n) {
                cz_error perr;
                cz_error_clear(&perr);
                sres = (smode == S_RESIDENT ? cz_cuda_bases_pin(g_ctx, sc, 32 * I.n, &perr)
                                            : cz_cuda_bases_pin_later(g_ctx, sc, 32 * I.n, &perr)) == CZ_OK;
                CHECK_MSG(sres, "%s: bases_pin of the scalars: %s", T::name(), cz_error_msg(&perr));
                if (!sres) continue;
                if (smode == S_LATER_H && !some_h_step<T>()) {
                    cz_cuda_bases_release(g_ctx, sc);
                    continue;
                }
            }
            typename T::jac R;
            cz_error err;
            cz_error_clear(&err);
            cz_status st = T::gpu(g_ctx, &R, bases, sc, I.n, mont ? CZ_MSM_MONTGOMERY : CZ_MSM_CANONICAL, &err);
            CHECK_MSG(st == CZ_OK && T::eq(&R, expect), "%s %s n=%zu bases %s scalars %s form %s: %s%s", T::name(),
                      what, I.n, bmode_name(bm),
                      smode_name(smode), mont ? "mont" : "canon",
                      st == CZ_OK ? "wrong result" : "error: ", st == CZ_OK ? "" : cz_error_msg(&err));
            if (sres) cz_cuda_bases_release(g_ctx, sc);
        }
        if (bm == B_RESIDENT && I.n) cz_cuda_bases_release(g_ctx, bases);
    }
}

/* ---- tests ----------------------------------------------------------------------------------- */

template <class T> static void test_random_sizes(void)
{
    std::vector<size_t> sizes = {1, 2, 3, 7, 100, 1000, 4097, (1u << 14) + 3, 1u << 16, 1u << 18, 1u << 20};
    /* G1: past the size from which uploaded scalars split into carried
     * chunks where a table exists (cuda/msm.cuh chunk_points; test_table) */
    if (T::g1) sizes.push_back((1u << 21) + 2053);
    for (size_t n : sizes) {
        double t0 = now_s();
        inst<T> I;
        I.init(n);
        typename T::jac expect;
        oracle<T>(I, &expect);
        if (n <= 7) {
            typename T::jac nai;
            oracle_naive<T>(I, &nai);
            CHECK_MSG(T::eq(&expect, &nai), "%s oracles disagree at n=%zu", T::name(), n);
        }
        double t1 = now_s();
        if (n <= (1u << 16)) {
            check<T>(I, &expect, "random", B_ALL, F_BOTH, S_PAGEABLE);
            check<T>(I, &expect, "random", B_RESIDENT | B_PINNED, F_MONT, S_PINNED);
            check<T>(I, &expect, "random", B_RESIDENT | B_PAGEABLE, F_BOTH, S_RESIDENT);
            check<T>(I, &expect, "random", B_RESIDENT, F_MONT, S_LATER);
            check<T>(I, &expect, "random", B_RESIDENT | B_PAGEABLE, F_CANON, S_LATER_H);
        } else {
            check<T>(I, &expect, "random", B_RESIDENT, F_MONT, S_LATER_H);
            check<T>(I, &expect, "random", B_RESIDENT, F_MONT, S_RESIDENT);
            check<T>(I, &expect, "random", B_RESIDENT, F_MONT, S_PINNED);
            check<T>(I, &expect, "random", B_PAGEABLE, F_CANON, S_PAGEABLE);
            check<T>(I, &expect, "random", B_PINNED, F_CANON, S_PINNED);
        }
        printf("  %s n=%zu: inputs+CPU %.2f s, GPU checks %.2f s\n", T::name(), n, t1 - t0, now_s() - t1);
        fflush(stdout);
    }
}

/* I's scalars as a Groth16-witness-like mix: 50% 0, 44% 1, 3% small
 * values, 3% random */
template <class T> static void witness_mix(inst<T> &I)
{
    for (size_t i = 0; i < I.n; i++) {
        uint64_t r = cz_rng_u64(&g_rng) % 100;
        if (r < 50)
            I.set_u64(i, 0);
        else if (r < 94)
            I.set_u64(i, 1);
        else if (r < 97)
            I.set_u64(i, 2 + cz_rng_u64(&g_rng) % 1000);
        else
            T::fr_random(&I.s[i], &g_rng);
    }
    I.sync();
}

template <class T> static void test_witness_like(size_t n)
{
    inst<T> I;
    I.init(n);
    witness_mix<T>(I);
    typename T::jac expect;
    oracle<T>(I, &expect);
    check<T>(I, &expect, "witness-like", B_RESIDENT | B_PAGEABLE, F_BOTH, S_PINNED);
    check<T>(I, &expect, "witness-like", B_RESIDENT, F_MONT, S_RESIDENT);
    check<T>(I, &expect, "witness-like", B_RESIDENT, F_MONT, S_LATER_H);
}

/* the kernels' tuning knobs (cz_cuda_opts), one at a time; 0: automatic */
enum knob { K_WINDOW, K_RUN, K_CHUNK, K_TABLE, K_TABLE_W, K_L1 };
static void set_knob(knob k, long v)
{
    static cz_cuda_opts o;
    if (k == K_WINDOW) o.msm_window = (int)v;
    if (k == K_RUN) o.msm_run = (size_t)v;
    if (k == K_CHUNK) o.msm_chunk = (size_t)v;
    if (k == K_TABLE) o.msm_table = (int)v;
    if (k == K_TABLE_W) o.msm_table_windows = (int)v;
    if (k == K_L1) o.msm_l1 = (int)v;
    cz_error e;
    cz_error_clear(&e);
    CHECK_MSG(cz_cuda_set_opts(g_ctx, &o, &e) == CZ_OK, "cz_cuda_set_opts: %s", cz_error_msg(&e));
}

template <class T> static void test_knobs(void)
{
    size_t n = T::g1 ? 4096 + 77 : 1024 + 5;
    inst<T> I;
    I.init(n);
    /* some zeros and ones mixed in */
    for (size_t i = 0; i < n; i += 7) I.set_u64(i, 0);
    for (size_t i = 3; i < n; i += 11) I.set_u64(i, 1);
    I.sync();
    typename T::jac expect;
    oracle<T>(I, &expect);
    for (int c = 4; c <= 20; c += (c < 12 ? 1 : 2)) {
        set_knob(K_WINDOW, c);
        char what[64];
        snprintf(what, sizeof what, "window %d", c);
        check<T>(I, &expect, what, c % 2 ? B_PAGEABLE : B_RESIDENT, c % 3 ? F_MONT : F_CANON);
    }
    set_knob(K_WINDOW, 0);
    set_knob(K_RUN, 8);
    check<T>(I, &expect, "run 8", B_RESIDENT, F_BOTH);
    set_knob(K_RUN, 1000);
    check<T>(I, &expect, "run 1000", B_PAGEABLE, F_MONT);
    set_knob(K_RUN, 0);
    /* the level-0 kernels' L1 split (a hint: the same results), then back */
    set_knob(K_L1, CZ_CUDA_L1_MAX);
    check<T>(I, &expect, "L1 max", B_RESIDENT | B_PAGEABLE, F_MONT);
    set_knob(K_L1, CZ_CUDA_L1_MIN);
    check<T>(I, &expect, "L1 min", B_RESIDENT, F_CANON);
    set_knob(K_L1, CZ_CUDA_L1_DEFAULT);
    check<T>(I, &expect, "L1 default again", B_PAGEABLE, F_MONT);
    set_knob(K_CHUNK, 1000);
    check<T>(I, &expect, "chunk 1000", B_ALL, F_BOTH);
    check<T>(I, &expect, "chunk 1000", B_RESIDENT | B_PAGEABLE, F_MONT, S_RESIDENT);
    {
        /* scalars inside a larger resident buffer (the prover's C MSM reads
         * the witness from index n_public + 1 of the resident copy) */
        const size_t skip = 3;
        std::vector<uint8_t> big(32 * (I.n + skip));
        memcpy(big.data() + 32 * skip, I.scalars(true), 32 * I.n);
        cz_error e;
        cz_error_clear(&e);
        cz_status ps = cz_cuda_bases_pin(g_ctx, big.data(), big.size(), &e);
        CHECK_MSG(ps == CZ_OK, "%s: bases_pin of a scalar buffer: %s", T::name(), cz_error_msg(&e));
        if (ps == CZ_OK) {
            typename T::jac R;
            cz_status st = T::gpu(g_ctx, &R, I.bases.data(), big.data() + 32 * skip, I.n, CZ_MSM_MONTGOMERY, &e);
            CHECK_MSG(st == CZ_OK && T::eq(&R, &expect), "%s: scalars at offset %zu of a resident buffer: %s",
                      T::name(), skip, st == CZ_OK ? "wrong result" : cz_error_msg(&e));
            cz_cuda_bases_release(g_ctx, big.data());
        }
    }
    set_knob(K_CHUNK, 1);
    inst<T> J;
    J.init(5);
    typename T::jac ej;
    oracle<T>(J, &ej);
    check<T>(J, &ej, "chunk 1", B_ALL, F_BOTH);
    set_knob(K_CHUNK, 0);
}

/*
 * Tables of multiples (cz_cuda_opts msm_table): the bases of a block pinned
 * once; EAGER builds the block's table after the first call that would use
 * one (its VRAM shows in cz_cuda_bases_resident), later calls go through it
 * (the shared plan) and must still equal the CPU: full-width, digit
 * extremes, r - 1, witness-like mixes, sub-ranges of the block, chunks
 * (the table's index of a chunk's points), both forms; AUTO builds on the
 * second such call only; releasing the bases frees the table. tw > 0:
 * partial tables (cz_cuda_opts msm_table_windows): each table keeps at most
 * tw windows (its VRAM shows that), one bucket set per group of windows.
 */
template <class T> static void test_table(int tw)
{
    /* (G1's largest: two carried chunks through the table, cuda/msm.cu split) */
    const size_t sizes[] = {1000, 4097, (1u << 16) + 3, tw ? (1u << 18) : T::g1 ? (1u << 21) + 5 : (1u << 18)};
    set_knob(K_TABLE_W, tw);
    for (size_t n : sizes) {
        inst<T> B;
        B.init(n);
        memset(&B.bases[3], 0, sizeof B.bases[3]); /* infinity */
        B.bases[7] = B.bases[5];                   /* repeated */
        T::affine_neg(&B.bases[8], &B.bases[5]);   /* P, -P */
        const size_t bbytes = n * sizeof(typename T::caff);
        cz_error err;
        cz_error_clear(&err);
        if (cz_cuda_bases_pin(g_ctx, B.bases.data(), bbytes, &err) != CZ_OK) {
            CHECK_MSG(0, "%s: bases_pin: %s", T::name(), cz_error_msg(&err));
            continue;
        }
        const size_t res0 = cz_cuda_bases_resident(g_ctx);
        set_knob(K_TABLE, n == 4097 ? CZ_CUDA_TABLE_AUTO : CZ_CUDA_TABLE_EAGER);
        /* call k on the scalars of I over bases + first */
        auto run = [&](inst<T> &I, size_t first, const char *what, int k) {
            typename T::jac expect, R;
            oracle<T>(I, &expect);
            for (int mont = 0; mont < 2; mont++) {
                cz_error e;
                cz_error_clear(&e);
                cz_status st = T::gpu(g_ctx, &R, B.bases.data() + first, I.scalars(mont != 0), I.n,
                                      mont ? CZ_MSM_MONTGOMERY : CZ_MSM_CANONICAL, &e);
                CHECK_MSG(st == CZ_OK && T::eq(&R, &expect),
                          "%s table n=%zu windows<=%d %s (call %d, first %zu, form %d): %s", T::name(), n, tw, what, k,
                          first, mont, st == CZ_OK ? "wrong result" : cz_error_msg(&e));
            }
        };
        inst<T> I;
        I.n = n;
        I.bases = B.bases;
        I.s.resize(n);
        I.canon.resize(32 * n);
        for (size_t i = 0; i < n; i++) T::fr_random(&I.s[i], &g_rng);
        I.sync();
        run(I, 0, "full-width", 1);
        const size_t res1 = cz_cuda_bases_resident(g_ctx);
        run(I, 0, "full-width", 2);
        const size_t res2 = cz_cuda_bases_resident(g_ctx);
        /* EAGER: built after the first call; AUTO: after the second (the
         * two forms of one run count as two calls) */
        CHECK_MSG(res2 > res0 && (n == 4097 || res1 > res0), "%s table n=%zu: resident %zu -> %zu -> %zu bytes",
                  T::name(), n, res0, res1, res2);
        /* a table holds whole windows past the block's own (window 0 is
         * the block: cuda/msm.cuh table_fn); a partial one 2 to tw windows,
         * so 1 to tw - 1 of the block's bytes */
        CHECK_MSG(res2 > res0 && (res2 - res0) % bbytes == 0, "%s table n=%zu: %zu bytes of table for %zu of bases",
                  T::name(), n, res2 - res0, bbytes);
        if (tw)
            CHECK_MSG((res2 - res0) / bbytes >= 1 && (res2 - res0) / bbytes <= (size_t)tw - 1,
                      "%s table n=%zu windows<=%d: %zu bytes of table for %zu bytes of bases", T::name(), n, tw,
                      res2 - res0, bbytes);
        /* digit extremes at the windows a table may have, and r - 1 */
        for (int c : {16, 20, 22}) {
            for (size_t i = 0; i < n; i++) set_digit_extremes<T>(I, i, c);
            uint64_t one[4] = {1, 0, 0, 0};
            typename T::fr f1;
            T::fr_from_canonical(&f1, one);
            T::fr_neg(&I.s[n / 2], &f1); /* r - 1 */
            I.sync();
            char what[32];
            snprintf(what, sizeof what, "digit extremes c=%d", c);
            run(I, 0, what, 3);
        }
        /* witness-like: mostly 0 and 1 (the plan may leave the table) */
        witness_mix<T>(I);
        run(I, 0, "witness-like", 4);
        /* a sub-range of the block, whole and in chunks */
        {
            const size_t first = 9, len = n - 9 - 5;
            inst<T> J;
            J.n = len;
            J.bases.assign(B.bases.begin() + first, B.bases.begin() + first + len);
            J.s.resize(len);
            J.canon.resize(32 * len);
            for (size_t i = 0; i < len; i++) T::fr_random(&J.s[i], &g_rng);
            J.sync();
            run(J, first, "sub-range", 5);
            set_knob(K_CHUNK, (long)(len / 3 + 1));
            run(J, first, "sub-range in 3 chunks", 6);
            set_knob(K_CHUNK, 0);
        }
        cz_cuda_bases_release(g_ctx, B.bases.data());
        CHECK_MSG(cz_cuda_bases_resident(g_ctx) == res0 - bbytes, "%s table n=%zu: %zu bytes left resident", T::name(),
                  n, cz_cuda_bases_resident(g_ctx));
    }
    set_knob(K_TABLE, CZ_CUDA_TABLE_AUTO);
    set_knob(K_TABLE_W, 0);
}

/*
 * Two contexts on the GPU at once (the engine's `cuda:0,0`, mem/resident.h):
 * both pin the same bases (one copy kept, counted once), run MSMs on two
 * threads at the same time on their own scalars, resident and streamed,
 * while one of them builds the block's table (EAGER: the first call that
 * claims it; the other goes on without until it is published), one of them
 * with its scalars resident too, and a release by one leaves the other's
 * copy in place. Every result against the CPU.
 */
struct lane_job {
    cz_cuda *ctx;
    int calls;
    int fails;
    char first_err[256];
};

template <class T> static void test_lanes(void)
{
    const size_t n = T::g1 ? (1u << 17) + 5 : (1u << 15) + 5;
    cz_error err;
    cz_error_clear(&err);
    cz_cuda *ctx2 = NULL;
    if (cz_cuda_open(&ctx2, 0, &err) != CZ_OK) {
        CHECK_MSG(0, "%s lanes: a second context: %s", T::name(), cz_error_msg(&err));
        return;
    }
    cz_cuda_opts o;
    memset(&o, 0, sizeof o);
    o.msm_table = CZ_CUDA_TABLE_EAGER;
    CHECK(cz_cuda_set_opts(ctx2, &o, &err) == CZ_OK);
    set_knob(K_TABLE, CZ_CUDA_TABLE_EAGER);
    inst<T> B;
    B.init(n);
    const size_t bbytes = n * sizeof(typename T::caff);
    const size_t res0 = cz_cuda_bases_resident(g_ctx);
    CHECK(cz_cuda_bases_resident(ctx2) == res0); /* one store per GPU */
    size_t f0 = 0, f1 = 0, tot = 0;
    CHECK(cz_cuda_bases_pin_later(g_ctx, B.bases.data(), bbytes, &err) == CZ_OK);
    CHECK(cudaMemGetInfo(&f0, &tot) == cudaSuccess);
    CHECK(cz_cuda_bases_pin_later(ctx2, B.bases.data(), bbytes, &err) == CZ_OK);
    CHECK(cudaMemGetInfo(&f1, &tot) == cudaSuccess);
    /* the second pin joined the first: no second copy taken (separate contexts took one) */
    CHECK_MSG(f0 >= f1 && f0 - f1 < bbytes / 2, "%s lanes: the second pin took %lld bytes of VRAM for %zu of bases",
              T::name(), (long long)f0 - (long long)f1, bbytes);
    CHECK_MSG(cz_cuda_bases_resident(g_ctx) == res0 + bbytes && cz_cuda_bases_resident(ctx2) == res0 + bbytes,
              "%s lanes: %zu bytes resident for %zu of bases", T::name(), cz_cuda_bases_resident(g_ctx) - res0,
              bbytes);
    /* each lane's calls: its own scalars, expected results from the CPU */
    const int calls = 6;
    std::vector<inst<T>> S(2 * calls);
    std::vector<typename T::jac> expect(2 * calls), got(2 * calls);
    for (int i = 0; i < 2 * calls; i++) {
        S[i].n = n;
        S[i].bases = B.bases;
        S[i].s.resize(n);
        S[i].canon.resize(32 * n);
        for (size_t j = 0; j < n; j++) T::fr_random(&S[i].s[j], &g_rng);
        if (i % 3 == 2) witness_mix<T>(S[i]);
        S[i].sync();
        oracle<T>(S[i], &expect[i]);
    }
    /* lane 2 keeps its first call's scalars resident */
    CHECK(cz_cuda_bases_pin(ctx2, S[1].canon.data(), 32 * n, &err) == CZ_OK);
    lane_job job[2] = {{g_ctx, 0, 0, ""}, {ctx2, 0, 0, ""}};
    auto work = [&](int l) {
        for (int k = 0; k < calls; k++) {
            const int i = 2 * k + l;
            cz_error e;
            cz_error_clear(&e);
            /* call 3 streams its bases (another host copy): the chunked path beside the other's resident one */
            const void *bases = (k == 3) ? (const void *)S[i].bases.data() : (const void *)B.bases.data();
            cz_status st = T::gpu(job[l].ctx, &got[i], bases, S[i].canon.data(), n, CZ_MSM_CANONICAL, &e);
            job[l].calls++;
            if (st != CZ_OK || !T::eq(&got[i], &expect[i])) {
                if (!job[l].fails++)
                    snprintf(job[l].first_err, sizeof job[l].first_err, "call %d: %s", k,
                             st == CZ_OK ? "wrong result" : cz_error_msg(&e));
            }
        }
    };
    std::thread t1(work, 0), t2(work, 1);
    t1.join();
    t2.join();
    for (int l = 0; l < 2; l++)
        CHECK_MSG(job[l].fails == 0 && job[l].calls == calls, "%s lanes: context %d: %d of %d calls failed (%s)",
                  T::name(), l + 1, job[l].fails, job[l].calls, job[l].first_err);
    /* a table was built (EAGER) */
    const size_t res1 = cz_cuda_bases_resident(g_ctx);
    CHECK_MSG(res1 > res0 + bbytes + 32 * n, "%s lanes: resident %zu bytes after the calls", T::name(), res1 - res0);
    /* lane 2 lets go of the bases: lane 1 still has them (no upload: resident bytes unchanged) */
    cz_cuda_bases_release(ctx2, S[1].canon.data());
    cz_cuda_bases_release(ctx2, B.bases.data());
    CHECK_MSG(cz_cuda_bases_resident(g_ctx) == res1 - 32 * n, "%s lanes: %zu bytes resident after the release",
              T::name(), cz_cuda_bases_resident(g_ctx) - res0);
    typename T::jac R;
    cz_status st = T::gpu(g_ctx, &R, B.bases.data(), S[0].canon.data(), n, CZ_MSM_CANONICAL, &err);
    CHECK_MSG(st == CZ_OK && T::eq(&R, &expect[0]), "%s lanes: after the other's release: %s", T::name(),
              st == CZ_OK ? "wrong result" : cz_error_msg(&err));
    cz_cuda_close(ctx2); /* closing a lane keeps the other's blocks */
    CHECK(cz_cuda_bases_resident(g_ctx) == res1 - 32 * n);
    cz_cuda_bases_release(g_ctx, B.bases.data());
    CHECK_MSG(cz_cuda_bases_resident(g_ctx) == res0, "%s lanes: %zu bytes left resident", T::name(),
              cz_cuda_bases_resident(g_ctx) - res0);
    set_knob(K_TABLE, CZ_CUDA_TABLE_AUTO);
}

template <class T> static void test_edge_scalars(void)
{
    typedef typename T::fr fr;
    size_t n = 700;
    inst<T> I;
    I.init(n);
    typename T::jac expect, R;
    fr one, two, rm1, zero;
    memset(&zero, 0, sizeof zero);
    uint64_t c1[4] = {1, 0, 0, 0}, c2[4] = {2, 0, 0, 0};
    T::fr_from_canonical(&one, c1);
    T::fr_from_canonical(&two, c2);
    T::fr_neg(&rm1, &one);
    for (size_t i = 0; i < n; i++) I.s[i] = zero;
    I.sync();
    T::set_inf(&expect);
    check<T>(I, &expect, "all zero");
    for (size_t i = 0; i < n; i += 37) T::fr_random(&I.s[i], &g_rng);
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, "most zero");
    const fr *vals[3] = {&one, &two, &rm1};
    const char *names[3] = {"all one", "all two", "all r-1"};
    for (int v = 0; v < 3; v++) {
        for (size_t i = 0; i < n; i++) I.s[i] = *vals[v];
        I.sync();
        oracle<T>(I, &expect);
        check<T>(I, &expect, names[v]);
    }
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
    check<T>(I, &expect, "mixed small");
    for (size_t m = 1; m <= 3; m++) {
        inst<T> J;
        J.init(m);
        for (int v = 0; v < 4; v++) {
            for (size_t i = 0; i < m; i++) {
                int k = (int)((v + i) % 4);
                J.s[i] = k < 3 ? *vals[k] : zero;
            }
            J.sync();
            oracle_naive<T>(J, &expect);
            check<T>(J, &expect, "tiny special");
        }
    }
    /* scalars >= r: CZ_ERR_RANGE, result infinity, context still usable */
    inst<T> B;
    B.init(300);
    const uint64_t *r = T::fr_modulus();
    for (int kind = 0; kind < 3; kind++) {
        std::vector<uint8_t> sc(B.canon);
        for (int b = 0; b < 32; b++) sc[32 * 217 + b] = (uint8_t)((kind == 2 ? ~0ull : r[b / 8]) >> (8 * (b % 8)));
        if (kind == 1) sc[32 * 217] += 1; /* r + 1 */
        for (int mont = 0; mont < 2; mont++) {
            cz_error err;
            cz_error_clear(&err);
            T::random(&R, &g_rng);
            cz_status st = T::gpu(g_ctx, &R, B.bases.data(), sc.data(), B.n,
                                  mont ? CZ_MSM_MONTGOMERY : CZ_MSM_CANONICAL, &err);
            CHECK_MSG(st == CZ_ERR_RANGE && T::is_inf(&R), "%s scalar >= r kind %d form %d: %s (%s)", T::name(), kind,
                      mont, cz_status_str(st), cz_error_msg(&err));
        }
    }
    B.s[217] = rm1;
    B.sync();
    oracle<T>(B, &expect);
    check<T>(B, &expect, "r-1 after errors", B_PAGEABLE | B_RESIDENT, F_BOTH);
    /* the least bad index where the bad scalars lie in later upload pieces
     * (2^16 + 5 scalars: two pieces of 1 MiB and a tail) and in later chunks
     * (a chunk of 1000 points: the fourth and sixth chunks), from pinned and
     * pageable memory */
    inst<T> Q;
    Q.init(((size_t)1 << 16) + 5);
    const size_t bad[2] = {((size_t)1 << 15) + 3001, ((size_t)1 << 16) + 2};
    for (int chunked = 0; chunked < 2; chunked++) {
        if (chunked) set_knob(K_CHUNK, 1000);
        for (int pin = 0; pin < 2; pin++) {
            std::vector<uint8_t> sc(Q.canon);
            for (size_t k = 0; k < 2; k++)
                for (int b = 0; b < 32; b++) sc[32 * bad[k] + b] = 0xff;
            pinned ps;
            const void *src = sc.data();
            if (pin) {
                if (!ps.make(sc.data(), sc.size())) {
                    CHECK_MSG(0, "%s: cudaHostAlloc of scalars", T::name());
                    continue;
                }
                src = ps.p;
            }
            cz_error err;
            cz_error_clear(&err);
            cz_status st = T::gpu(g_ctx, &R, Q.bases.data(), src, Q.n, CZ_MSM_CANONICAL, &err);
            char want[64];
            snprintf(want, sizeof want, "scalar %zu is not below r", bad[0]);
            CHECK_MSG(st == CZ_ERR_RANGE && T::is_inf(&R) && strstr(cz_error_msg(&err), want),
                      "%s bad scalars at %zu, %zu (chunked %d, pinned %d): %s (%s)", T::name(), bad[0], bad[1],
                      chunked, pin, cz_status_str(st), cz_error_msg(&err));
        }
        oracle<T>(Q, &expect);
        check<T>(Q, &expect, chunked ? "2^16+5 after errors, chunk 1000" : "2^16+5 after errors", B_PAGEABLE,
                 F_CANON, S_PINNED);
        if (chunked) set_knob(K_CHUNK, 0);
    }
}

template <class T> static void test_edge_bases(void)
{
    size_t n = 900;
    inst<T> I;
    I.init(n);
    typename T::jac expect;
    for (size_t i = 3; i < n; i++) I.bases[i] = I.bases[i % 3];
    oracle<T>(I, &expect);
    check<T>(I, &expect, "repeated bases");
    for (size_t i = 1; i < n; i++) I.s[i] = I.s[0];
    I.sync();
    oracle<T>(I, &expect);
    check<T>(I, &expect, "repeated bases equal scalars");
    inst<T> J;
    J.init(n);
    for (size_t i = 0; i + 1 < n; i += 2) {
        T::affine_neg(&J.bases[i + 1], &J.bases[i]);
        J.s[i + 1] = J.s[i];
    }
    J.sync();
    oracle<T>(J, &expect);
    CHECK_MSG(T::is_inf(&expect), "%s P - P oracle", T::name());
    check<T>(J, &expect, "P and -P");
    for (size_t i = 0; i < n; i++) T::fr_random(&J.s[i], &g_rng);
    J.sync();
    oracle<T>(J, &expect);
    check<T>(J, &expect, "P and -P random");
    for (size_t i = 0; i < n; i += 3) memset(&J.bases[i], 0, sizeof J.bases[i]);
    for (size_t i = 0; i < n; i += 9) J.set_u64(i, 1);
    J.sync();
    oracle<T>(J, &expect);
    check<T>(J, &expect, "some infinity");
    for (size_t i = 0; i < n; i++) memset(&J.bases[i], 0, sizeof J.bases[i]);
    T::set_inf(&expect);
    check<T>(J, &expect, "all infinity");
}

template <class T> static void test_api(void)
{
    typename T::jac R;
    cz_error err;
    cz_error_clear(&err);
    T::random(&R, &g_rng);
    CHECK(T::gpu(g_ctx, &R, NULL, NULL, 0, CZ_MSM_CANONICAL, &err) == CZ_OK && T::is_inf(&R));
    inst<T> I;
    I.init(10);
    CHECK(T::gpu(g_ctx, &R, NULL, I.canon.data(), 10, CZ_MSM_CANONICAL, &err) == CZ_ERR_INVALID_ARG);
    CHECK(T::gpu(g_ctx, &R, I.bases.data(), NULL, 10, CZ_MSM_CANONICAL, &err) == CZ_ERR_INVALID_ARG);
    CHECK(T::gpu(g_ctx, NULL, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) == CZ_ERR_INVALID_ARG);
    CHECK(T::gpu(NULL, &R, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) == CZ_ERR_INVALID_ARG);
    CHECK(T::gpu(g_ctx, &R, I.bases.data(), I.canon.data(), 10, (cz_msm_scalar_form)7, &err) == CZ_ERR_INVALID_ARG);
    {
        /* an L1 split out of range is refused, naming the knob */
        cz_cuda_opts o;
        memset(&o, 0, sizeof o);
        o.msm_l1 = 3;
        cz_error_clear(&err);
        CHECK(cz_cuda_set_opts(g_ctx, &o, &err) == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), "L1 split"));
    }
    CHECK(cz_cuda_msm_g1(g_ctx, CZ_CURVE_NONE, &R, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) ==
          CZ_ERR_INVALID_ARG);
    /* a curve value past the list is no curve either (never another curve's code) */
    for (int bad : {CZ_CURVE_COUNT + 1, 99, -1}) {
        cz_error_clear(&err);
        CHECK(cz_cuda_msm_g1(g_ctx, (cz_curve)bad, &R, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) ==
                  CZ_ERR_INVALID_ARG &&
              strstr(cz_error_msg(&err), "unknown curve"));
        cz_error_clear(&err);
        CHECK(cz_cuda_msm_g2(g_ctx, (cz_curve)bad, &R, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) ==
              CZ_ERR_INVALID_ARG);
    }
    /* the same call twice: the same point */
    typename T::jac A, B;
    CHECK(T::gpu(g_ctx, &A, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) == CZ_OK);
    CHECK(T::gpu(g_ctx, &B, I.bases.data(), I.canon.data(), 10, CZ_MSM_CANONICAL, &err) == CZ_OK);
    CHECK(T::eq(&A, &B));
}

template <class T> static void test_big(void)
{
    size_t n = (size_t)1 << 24;
    double t0 = now_s();
    inst<T> I;
    I.init(n);
    typename T::jac expect;
    oracle<T>(I, &expect);
    double t1 = now_s();
    check<T>(I, &expect, "big", B_RESIDENT | B_PINNED, F_MONT, S_PINNED);
    check<T>(I, &expect, "big", B_PAGEABLE, F_CANON, S_PAGEABLE);
    printf("  %s n=2^24: inputs+CPU %.1f s, GPU checks %.1f s\n", T::name(), t1 - t0, now_s() - t1);
    test_witness_like<T>(n);
}

/*
 * The H step's result kept on the device (cz_cuda_bases_fill, as the prover
 * keeps its array a over compute_h): a block kept over exactly a receives h
 * on the GPU and the MSM over a reads that copy: the host a is zeroed after
 * the H step (against the keep contract, on purpose) and the GPU MSM must
 * still equal the CPU MSM of the h that came down. A block over part of a
 * is dropped as stale.
 */
template <class T> static void test_h_kept(void) /* G1 only */
{
    for (unsigned k : {1u, 10u, 16u}) {
        const size_t n = (size_t)1 << k, bbytes = n * sizeof(typename T::caff);
        inst<T> I;
        I.init(n);
        std::vector<uint8_t> abc(3 * 32 * n);
        CHECK(cz_rng_bytes(&g_rng, abc.data(), abc.size()) == CZ_OK);
        for (size_t i = 0; i < abc.size() / 32; i++) abc[32 * i + 31] = 0; /* below r */
        uint8_t *a = abc.data(), *b = a + 32 * n, *c = b + 32 * n;
        cz_error err;
        cz_error_clear(&err);
        const size_t before = cz_cuda_bases_resident(g_ctx);
        bool ok = cz_cuda_bases_pin(g_ctx, I.bases.data(), bbytes, &err) == CZ_OK &&
                  cz_cuda_bases_pin_later(g_ctx, a, 32 * n, &err) == CZ_OK &&
                  (n < 4 || cz_cuda_bases_pin_later(g_ctx, a + 32, 32 * (n / 2), &err) == CZ_OK);
        CHECK_MSG(ok, "%s h kept 2^%u: pin: %s", T::name(), k, cz_error_msg(&err));
        if (ok) {
            cz_status st = cz_cuda_compute_h(g_ctx, T::curve_id, k, a, b, c, &err);
            CHECK_MSG(st == CZ_OK, "%s h kept 2^%u: compute_h: %s", T::name(), k, cz_error_msg(&err));
            CHECK_MSG(cz_cuda_bases_resident(g_ctx) == before + bbytes + 32 * n,
                      "%s h kept 2^%u: %zu bytes resident, expected %zu (the partial block dropped)", T::name(), k,
                      cz_cuda_bases_resident(g_ctx), before + bbytes + 32 * n);
            memcpy(I.s.data(), a, 32 * n);
            typename T::jac expect, R;
            oracle<T>(I, &expect);
            memset(a, 0, 32 * n); /* only the device copy still holds h */
            st = T::gpu(g_ctx, &R, I.bases.data(), a, n, CZ_MSM_MONTGOMERY, &err);
            CHECK_MSG(st == CZ_OK && T::eq(&R, &expect), "%s h kept 2^%u: %s", T::name(), k,
                      st == CZ_OK ? "wrong result" : cz_error_msg(&err));
        }
        cz_cuda_bases_release(g_ctx, a);
        cz_cuda_bases_release(g_ctx, a + 32);
        cz_cuda_bases_release(g_ctx, I.bases.data());
    }
}

template <class T> static void run_group(void)
{
    long before = cz_test_failed;
    double t0 = now_s();
    test_api<T>();
    test_edge_scalars<T>();
    test_edge_bases<T>();
    test_knobs<T>();
    if constexpr (T::g1) test_h_kept<T>();
    test_table<T>(0);
    test_table<T>(6);
    test_lanes<T>();
    test_random_sizes<T>();
    test_witness_like<T>(T::g1 ? ((size_t)1 << 21) + 3 : ((size_t)1 << 18));
    if (g_big && T::g1) test_big<T>();
    printf("%s: %s (%.1f s)\n", T::name(), cz_test_failed == before ? "ok" : "FAILED", now_s() - t0);
    fflush(stdout);
}

int main(void)
{
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_cuda_open(&g_ctx, 0, &err);
    if (st == CZ_ERR_NO_DEVICE) {
        printf("no GPU: skipped\n");
        return 77;
    }
    if (st != CZ_OK) {
        fprintf(stderr, "cz_cuda_open: %s\n", cz_error_msg(&err));
        return 1;
    }
    printf("test_gpu_msm: %s\n", cz_cuda_name(g_ctx));
    cz_test_seed(&g_rng, "test_gpu_msm");
    const char *big = getenv("CZ_GPU_TEST_BIG");
    g_big = big && atoi(big) > 0;
    run_group<bn254_g1>();
    run_group<bls12_381_g1>();
    run_group<bn254_g2>();
    run_group<bls12_381_g2>();
    cz_cuda_close(g_ctx);
    return cz_test_finish("test_gpu_msm");
}
