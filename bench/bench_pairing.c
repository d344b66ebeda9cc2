/*
 * bench_pairing: one pairing, its Miller loop and final exponentiation,
 * and a 4-pair multi-pairing (the shape of a Groth16 check) per curve,
 * plus the Fq12 operations they are made of. Single thread; median of
 * several timed runs on CLOCK_MONOTONIC. Figures from a shared machine are
 * indicative.
 *
 * Usage: bench_pairing [--quick]
 *
 * (Kept to plain clock_gettime; move onto bench/bench.h once it is in the
 * tree.)
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ec/pairing.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

typedef void (*op_fn)(void *ctx);

/* median over `reps` runs of the time per call, each run at least min_ms */
static double time_op(op_fn fn, void *ctx, int reps, double min_ms)
{
    long iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) fn(ctx);
        double dt = now_ns() - t0;
        if (dt >= min_ms * 1e6 || iters > (1L << 30)) break;
        iters *= 2;
    }
    double v[32];
    if (reps > 32) reps = 32;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) fn(ctx);
        v[r] = (now_ns() - t0) / (double)iters;
    }
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[reps / 2];
}

#define BENCH_CURVE(C)                                                                             \
    typedef struct {                                                                               \
        C##_g1_affine p[4];                                                                        \
        C##_g2_affine q[4];                                                                        \
        C##_fq12 f, g, r;                                                                          \
    } C##_ctx;                                                                                     \
    static void C##_op_pairing(void *v)                                                            \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_pairing(&c->r, &c->p[0], &c->q[0]);                                                    \
        sink += c->r.c0.c0.c0.l[0];                                                                \
    }                                                                                              \
    static void C##_op_miller(void *v)                                                             \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_miller_loop(&c->r, c->p, c->q, 1);                                                     \
        sink += c->r.c0.c0.c0.l[0];                                                                \
    }                                                                                              \
    static void C##_op_final_exp(void *v)                                                          \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_final_exp(&c->r, &c->f);                                                               \
        sink += c->r.c0.c0.c0.l[0];                                                                \
    }                                                                                              \
    static void C##_op_multi4(void *v)                                                             \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_multi_pairing(&c->r, c->p, c->q, 4);                                                   \
        sink += c->r.c0.c0.c0.l[0];                                                                \
    }                                                                                              \
    static void C##_op_check4(void *v)                                                             \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        sink += (uint64_t)C##_pairing_check(c->p, c->q, 4);                                        \
    }                                                                                              \
    static void C##_op_mul(void *v)                                                                \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_fq12_mul(&c->f, &c->f, &c->g);                                                         \
    }                                                                                              \
    static void C##_op_sqr(void *v)                                                                \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_fq12_sqr(&c->f, &c->f);                                                                \
    }                                                                                              \
    static void C##_op_cyc_sqr(void *v)                                                            \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_fq12_cyclotomic_sqr(&c->g, &c->g);                                                     \
    }                                                                                              \
    static void C##_op_inv(void *v)                                                                \
    {                                                                                              \
        C##_ctx *c = v;                                                                            \
        C##_fq12_inv(&c->f, &c->f);                                                                \
    }                                                                                              \
    static void C##_bench(const char *name, cz_rng *rng, int reps, double min_ms)                  \
    {                                                                                              \
        static C##_ctx c;                                                                          \
        for (int i = 0; i < 4; i++) {                                                              \
            C##_g1 j;                                                                              \
            C##_g2 h;                                                                              \
            C##_g1_random(&j, rng);                                                                \
            C##_g1_to_affine(&c.p[i], &j);                                                         \
            C##_g2_random(&h, rng);                                                                \
            C##_g2_to_affine(&c.q[i], &h);                                                         \
        }                                                                                          \
        C##_fq12_random(&c.f, rng);                                                                \
        C##_pairing(&c.g, &c.p[0], &c.q[0]); /* cyclotomic */                                      \
        struct {                                                                                   \
            const char *what;                                                                      \
            op_fn fn;                                                                              \
        } ops[] = {                                                                                \
            {"pairing (1 pair)", C##_op_pairing},                                                  \
            {"  Miller loop", C##_op_miller},                                                      \
            {"  final exponentiation", C##_op_final_exp},                                          \
            {"multi-pairing (4 pairs)", C##_op_multi4},                                            \
            {"pairing_check (4 pairs)", C##_op_check4},                                            \
            {"Fq12 mul", C##_op_mul},                                                              \
            {"Fq12 sqr", C##_op_sqr},                                                              \
            {"Fq12 cyclotomic sqr", C##_op_cyc_sqr},                                               \
            {"Fq12 inv", C##_op_inv},                                                              \
        };                                                                                         \
        /* warm-up: let the clock settle before the first measurement */                          \
        for (double t0 = now_ns(); now_ns() - t0 < 300e6;) C##_op_pairing(&c);                     \
        printf("\n%s\n| operation | time |\n| --- | ---: |\n", name);                                \
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {                                  \
            double ns = time_op(ops[i].fn, &c, reps, min_ms);                                      \
            if (ns >= 1e6)                                                                         \
                printf("| %s | %.3f ms |\n", ops[i].what, ns * 1e-6);                              \
            else                                                                                   \
                printf("| %s | %.2f us |\n", ops[i].what, ns * 1e-3);                              \
        }                                                                                          \
    }

BENCH_CURVE(cz_bls12_381)
BENCH_CURVE(cz_bn254)

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int reps = quick ? 3 : 7;
    double min_ms = quick ? 20 : 200;
    cz_rng rng;
    cz_rng_seed(&rng, 1);
#if defined(CZ_ASM_X86_64)
    printf("bench_pairing: field arithmetic CZ_ASM_X86_64, 1 thread\n");
#else
    printf("bench_pairing: field arithmetic CZ_PORTABLE, 1 thread\n");
#endif
    cz_bls12_381_bench("BLS12-381", &rng, reps, min_ms);
    cz_bn254_bench("BN254", &rng, reps, min_ms);
    return 0;
}
