/*
 * bench_msm: multi-scalar multiplication, G1 and G2 of BLS12-381 and BN254,
 * on all cores (or --threads), random bases and random full-width scalars
 * (Montgomery form, as a prover's witness arrives; --form=canon for
 * canonical). Prints ms per MSM and microseconds per point per core
 * (time x threads / n): the figure public CPU MSMs are compared by
 * (blst / gnark-crypto: roughly 2-4 us per point per core for BLS12-381 G1
 * at 2^20). Every timed result is checked against (sum s_i k_i) G, the bases
 * being built as P_i = k_i G.
 *
 * --tune sweeps the window and the bucket method at one size to calibrate
 * the cost model of msm/msm.c, marking the plan it picks.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "ec/ec.h"
#include "msm/msm.h"

typedef struct {
    const char *name, *curve, *grp;
    size_t aff, jac;
    int g2;
    void (*add)(void *, const void *, const void *);
    void (*from_affine)(void *, const void *);
    cz_status (*batch_to_affine)(void *, const void *, size_t);
    int (*eq)(const void *, const void *);
    void (*mul_fr)(void *, const void *, const void *);
    const void *(*generator)(void);
    cz_status (*msm)(void *, const void *, const uint8_t *, size_t, const cz_msm_opts *);
    size_t (*scratch_size)(size_t, int);
    void (*fr_random)(void *, cz_rng *);
    void (*fr_add)(void *, const void *, const void *);
    void (*fr_mul)(void *, const void *, const void *);
    void (*fr_to_canonical)(uint64_t *, const void *);
    const char *field;
    size_t fsize;
    void (*fmul)(void *, const void *, const void *); /* coordinate field product */
} group_t;

typedef void (*f_ppp)(void *, const void *, const void *);
typedef void (*f_pp)(void *, const void *);

#define GROUP(G, FR, F, CURVE, GRP, IS_G2)                                                                             \
    {                                                                                                                  \
#G, CURVE, GRP, sizeof(G##_affine), sizeof(G), IS_G2, (f_ppp)G##_add, (f_pp)G##_from_affine,                   \
            (cz_status(*)(void *, const void *, size_t))G##_batch_to_affine,                                           \
            (int (*)(const void *, const void *))G##_eq, (f_ppp)G##_mul_fr, (const void *(*)(void))G##_generator,      \
            (cz_status(*)(void *, const void *, const uint8_t *, size_t, const cz_msm_opts *))G##_msm,                 \
            G##_msm_scratch_size, (void (*)(void *, cz_rng *))FR##_random, (f_ppp)FR##_add, (f_ppp)FR##_mul,           \
            (void (*)(uint64_t *, const void *))FR##_to_canonical, #F, sizeof(F), (f_ppp)F##_mul                       \
    }

static const group_t groups[] = {
    GROUP(cz_bls12_381_g1, cz_bls12_381_fr, cz_bls12_381_fq, "bls12_381", "g1", 0),
    GROUP(cz_bn254_g1, cz_bn254_fr, cz_bn254_fq, "bn254", "g1", 0),
    GROUP(cz_bls12_381_g2, cz_bls12_381_fr, cz_bls12_381_fq2, "bls12_381", "g2", 1),
    GROUP(cz_bn254_g2, cz_bn254_fr, cz_bn254_fq2, "bn254", "g2", 1),
};

typedef struct {
    uint64_t l[4];
} fr_t;

/* inputs of one group: bases P_i = k_i G (random walk), scalars */
typedef struct {
    const group_t *g;
    size_t n;
    uint8_t *bases;
    fr_t *k, *s;
    uint8_t *canon;
} inputs_t;

static int make_inputs(inputs_t *in, const group_t *g, size_t n, cz_rng *rng)
{
    memset(in, 0, sizeof *in);
    in->g = g;
    in->n = n;
    in->bases = malloc(n * g->aff);
    in->k = malloc(n * sizeof(fr_t));
    in->s = malloc(n * sizeof(fr_t));
    in->canon = malloc(n * 32);
    uint8_t *jac = malloc(n * g->jac);
    if (!in->bases || !in->k || !in->s || !in->canon || !jac) {
        free(jac);
        return 0;
    }
    uint8_t G[512], step[16][512], P[512];
    fr_t e[16], k;
    g->from_affine(G, g->generator());
    for (int j = 0; j < 16; j++) {
        g->fr_random(&e[j], rng);
        g->mul_fr(step[j], G, &e[j]);
    }
    g->fr_random(&k, rng);
    g->mul_fr(P, G, &k);
    for (size_t i = 0; i < n; i++) {
        memcpy(jac + i * g->jac, P, g->jac);
        in->k[i] = k;
        int j = (int)(cz_rng_u64(rng) & 15);
        g->add(P, P, step[j]);
        g->fr_add(&k, &k, &e[j]);
    }
    cz_status st = g->batch_to_affine(in->bases, jac, n);
    free(jac);
    if (st != CZ_OK) return 0;
    for (size_t i = 0; i < n; i++) {
        g->fr_random(&in->s[i], rng);
        uint64_t c[4];
        g->fr_to_canonical(c, &in->s[i]);
        memcpy(in->canon + 32 * i, c, 32); /* little-endian host */
    }
    return 1;
}

static void free_inputs(inputs_t *in)
{
    free(in->bases);
    free(in->k);
    free(in->s);
    free(in->canon);
}

/* (sum_{i<n} s_i k_i) G == R */
static int verify(const inputs_t *in, size_t n, const void *R)
{
    const group_t *g = in->g;
    fr_t acc = {{0}}, t;
    for (size_t i = 0; i < n; i++) {
        g->fr_mul(&t, &in->s[i], &in->k[i]);
        g->fr_add(&acc, &acc, &t);
    }
    uint8_t G[512], E[512];
    g->from_affine(G, g->generator());
    g->mul_fr(E, G, &acc);
    return g->eq(E, R);
}

/* coordinate-field product throughput: 8 independent chains */
typedef struct {
    const group_t *g;
    uint8_t a[8][96], b[96];
} fmul_ctx;

static void run_fmul(void *arg, uint64_t iters)
{
    fmul_ctx *c = arg;
    for (uint64_t i = 0; i < iters; i++)
        for (int j = 0; j < 8; j++)
            c->g->fmul(c->a[j], c->a[j], c->b);
    cz_bench_escape(c->a);
}

/* ns per product, seeded with coordinates of the bases (valid elements) */
static double field_mul_ns(cz_bench *b, const inputs_t *in)
{
    fmul_ctx c;
    c.g = in->g;
    for (int j = 0; j < 8; j++)
        memcpy(c.a[j], in->bases + (size_t)j * in->g->aff, in->g->fsize);
    memcpy(c.b, in->bases + 8 * in->g->aff + in->g->fsize, in->g->fsize); /* a y coordinate */
    return cz_bench_time(b, run_fmul, &c) / 8.0;
}

typedef struct {
    const inputs_t *in;
    size_t n;
    cz_msm_opts opts;
    const uint8_t *scalars;
    uint8_t R[512];
    cz_status st;
} run_ctx;

static void run_msm(void *arg, uint64_t iters)
{
    run_ctx *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        c->st = c->in->g->msm(c->R, c->in->bases, c->scalars, c->n, &c->opts);
        cz_bench_escape(c->R);
    }
}

static const char *method_name(cz_msm_method m)
{
    static const char *nm[] = {"-", "straus", "xyzz", "batch"};
    return (unsigned)m < 4 ? nm[m] : "?";
}

/* times one configuration; returns ns per MSM, or -1 on a failure */
static double time_one(cz_bench *b, run_ctx *c, cz_msm_info *info)
{
    c->opts.info = info;
    int saved = b->repeats;
    if (c->n >= ((size_t)1 << 17) && b->repeats > 3) b->repeats = 3;
    double ns = cz_bench_time(b, run_msm, c);
    b->repeats = saved;
    if (c->st != CZ_OK) {
        fprintf(stderr, "%s n=%zu: %s\n", c->in->g->name, c->n, cz_status_str(c->st));
        return -1;
    }
    if (!verify(c->in, c->n, c->R)) {
        fprintf(stderr, "%s n=%zu: WRONG RESULT\n", c->in->g->name, c->n);
        return -1;
    }
    return ns;
}

static int want(const char *flag, const char *v)
{
    return !flag || !*flag || strcmp(flag, "all") == 0 || strcmp(flag, v) == 0;
}

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--curve",  "--group",   "--min",   "--g1-max",      "--g2-max",
                                      "--step",   "--threads", "--form",  "--tune",        "--log2n",
                                      "--method", "--window",  "--batch", "--batch-sweep", NULL};
    int rc = cz_bench_init(&b, "bench_msm", argc, argv, own,
                           "  --curve=bls12_381|bn254|all   (default all)\n"
                           "  --group=g1|g2|all             (default all)\n"
                           "  --min=K --g1-max=K --g2-max=K sizes 2^min..2^max (default 10, 20, 18)\n"
                           "  --step=K                      log2 step between sizes (default 2)\n"
                           "  --threads=N                   threads (default: all online CPUs)\n"
                           "  --form=mont|canon             scalar form (default mont)\n"
                           "  --method=auto|straus|xyzz|batch --window=C  force a plan\n"
                           "  --batch=B                     force additions per inversion\n"
                           "  --tune --log2n=K              sweep window and method at 2^K\n"
                           "  --batch-sweep --log2n=K       sweep the batch size at 2^K (auto window)\n");
    if (rc >= 0) return rc;
    long kmin = cz_bench_opt_long(&b, "--min", 10);
    long g1max = cz_bench_opt_long(&b, "--g1-max", b.quick ? 14 : 20);
    long g2max = cz_bench_opt_long(&b, "--g2-max", b.quick ? 12 : 18);
    long step = cz_bench_opt_long(&b, "--step", 2);
    if (step < 1) step = 1;
    int threads = (int)cz_bench_opt_long(&b, "--threads", 0);
    if (threads <= 0) threads = cz_cpu_count();
    cz_set_threads(threads);
    cz_pool *pool = cz_pool_default();
    threads = cz_pool_threads(pool);
    const char *form = cz_bench_opt_str(&b, "--form");
    int mont = !form || strcmp(form, "canon") != 0;
    const char *curve = cz_bench_opt_str(&b, "--curve"), *grp = cz_bench_opt_str(&b, "--group");
    const char *meth = cz_bench_opt_str(&b, "--method");
    cz_msm_method fm = CZ_MSM_AUTO;
    if (meth && strcmp(meth, "straus") == 0) fm = CZ_MSM_STRAUS;
    if (meth && strcmp(meth, "xyzz") == 0) fm = CZ_MSM_PIPPENGER_XYZZ;
    if (meth && strcmp(meth, "batch") == 0) fm = CZ_MSM_PIPPENGER_BATCH;
    int fw = (int)cz_bench_opt_long(&b, "--window", 0);
    int tune = cz_bench_has(&b, "--tune"), bsweep = cz_bench_has(&b, "--batch-sweep");
    size_t fbatch = (size_t)cz_bench_opt_long(&b, "--batch", 0);
    if (bsweep) tune = 1;
    long tk = cz_bench_opt_long(&b, "--log2n", 16);

    cz_bench_note(&b,
                  "Random bases and full-width random scalars (%s form), %d threads. "
                  "us/pt/core = time x threads / n. Results checked against (sum s_i k_i) G.",
                  mont ? "Montgomery" : "canonical", threads);
    cz_rng rng;
    cz_rng_seed(&rng, 12345);
    int failed = 0;
    for (size_t gi = 0; gi < CZ_ARRAY_LEN(groups); gi++) {
        const group_t *g = &groups[gi];
        if (!want(curve, g->curve) || !want(grp, g->grp)) continue;
        long kmax = tune ? tk : g->g2 ? g2max : g1max;
        long k0 = tune ? tk : kmin;
        if (kmax < k0) continue;
        inputs_t in;
        if (!make_inputs(&in, g, (size_t)1 << kmax, &rng)) {
            fprintf(stderr, "%s: cannot make inputs\n", g->name);
            failed = 1;
            continue;
        }
        run_ctx c;
        memset(&c, 0, sizeof c);
        c.in = &in;
        c.scalars = mont ? (const uint8_t *)in.s : in.canon;
        c.opts.form = mont ? CZ_MSM_MONTGOMERY : CZ_MSM_CANONICAL;
        c.opts.pool = pool;
        c.opts.batch = fbatch;
        cz_bench_table t;
        char title[160];
        double mul_ns = field_mul_ns(&b, &in);
        if (!tune) {
            snprintf(title, sizeof title, "%s, %d threads (%s product: %.1f ns; M/pt/core = us/pt/core in products)",
                     g->name, threads, g->field, mul_ns);
            cz_bench_table_init(&t, title, "n|plan|ms|us/pt/core|M/pt/core|ns/pt|scratch MiB");
            for (long k = k0; k <= kmax; k += step) {
                c.n = (size_t)1 << k;
                c.opts.method = fm;
                c.opts.window = fw;
                cz_msm_info info;
                double ns = time_one(&b, &c, &info);
                if (ns < 0) {
                    failed = 1;
                    continue;
                }
                char plan[64];
                snprintf(plan, sizeof plan, "%s c=%d x%d", method_name(info.method), info.window, info.splits);
                double ppc = ns * threads / (double)c.n; /* ns per point per core */
                cz_bench_table_addf(&t, "2^%ld|%s|%.2f|%.3f|%.0f|%.1f|%.1f", k, plan, ns * 1e-6, ppc * 1e-3,
                                    ppc / mul_ns, ns / (double)c.n, (double)g->scratch_size(c.n, threads) / (1 << 20));
            }
        } else {
            c.n = (size_t)1 << tk;
            cz_msm_info auto_info;
            c.opts.method = CZ_MSM_AUTO;
            c.opts.window = 0;
            double ns_auto = time_one(&b, &c, &auto_info);
            snprintf(title, sizeof title,
                     "%s, n = 2^%ld, %d threads: window sweep (auto: %s c=%d x%d, %.2f ms; %s product %.1f ns)",
                     g->name, tk, threads, method_name(auto_info.method), auto_info.window, auto_info.splits,
                     ns_auto * 1e-6, g->field, mul_ns);
            cz_bench_table_init(&t, title, "method|c|splits|batch|ms|us/pt/core");
            for (size_t bs = 16; bsweep && bs <= 4096; bs *= 2) {
                c.opts.method = CZ_MSM_PIPPENGER_BATCH;
                c.opts.window = auto_info.window;
                c.opts.batch = bs;
                cz_msm_info info;
                double ns = time_one(&b, &c, &info);
                if (ns < 0) {
                    failed = 1;
                    continue;
                }
                cz_bench_table_addf(&t, "%s|%d|%d|%zu|%.2f|%.3f", method_name(info.method), info.window, info.splits,
                                    bs, ns * 1e-6, ns * 1e-3 * threads / (double)c.n);
            }
            for (int m = CZ_MSM_PIPPENGER_XYZZ; m <= CZ_MSM_PIPPENGER_BATCH && !bsweep; m++) {
                if (fm != CZ_MSM_AUTO && fm != (cz_msm_method)m) continue;
                for (int cw = 6; cw <= CZ_MSM_MAX_WINDOW; cw++) {
                    if (fw && cw != fw) continue;
                    c.opts.method = (cz_msm_method)m;
                    c.opts.window = cw;
                    cz_msm_info info;
                    double ns = time_one(&b, &c, &info);
                    if (ns < 0) {
                        failed = 1;
                        continue;
                    }
                    cz_bench_table_addf(&t, "%s|%d|%d|%s|%.2f|%.3f", method_name(info.method), cw, info.splits,
                                        fbatch ? "forced" : "auto", ns * 1e-6, ns * 1e-3 * threads / (double)c.n);
                }
            }
        }
        cz_bench_table_print(&b, &t);
        free_inputs(&in);
    }
    int frc = cz_bench_finish(&b);
    return failed ? 1 : frc;
}
