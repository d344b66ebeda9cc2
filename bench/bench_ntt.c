/*
 * bench_ntt: NTT times for both scalar fields.
 *
 * DESIGN: for each field and each size 2^k (k = 16..22 by default, 24 with
 * --big) it times forward, inverse and coset forward (natural order in and
 * out, the snarkjs coset shift) and forward_to_bitrev (no final
 * permutation), on a pool of all cores and on a pool of one thread. Each
 * transform runs in place on the same random array (the data changes from
 * run to run, the work does not). Reported: ms per transform and ns per
 * butterfly, i.e. time / (n/2 * log2 n), on one thread this is the cost of
 * one butterfly; on T threads multiply by T for the per-core cost.
 *
 * Flags (besides the harness's): --min=K, --max=K (sizes), --big (adds
 * 2^24), --field=bn254|bls12_381 (default both), --threads=N (size of the
 * "all cores" pool; default all online CPUs).
 */
#include <stdlib.h>

#include "bench.h"
#include "ntt/ntt.h"

typedef enum { OP_FWD, OP_INV, OP_COSET, OP_FWD_BR, OP_COUNT } op_t;
static const char *const OP_NAME[OP_COUNT] = {"forward", "inverse", "coset forward", "forward_to_bitrev"};

#define BENCH_FIELD(F, P)                                                                                              \
    typedef struct {                                                                                                   \
        const P##_domain *d;                                                                                           \
        F *a;                                                                                                          \
        F g;                                                                                                           \
        cz_pool *pool;                                                                                                 \
        op_t op;                                                                                                       \
        cz_status st;                                                                                                  \
    } P##_ctx;                                                                                                         \
    static void P##_run(void *c, uint64_t iters)                                                                       \
    {                                                                                                                  \
        P##_ctx *x = (P##_ctx *)c;                                                                                     \
        for (uint64_t i = 0; i < iters; i++) {                                                                         \
            switch (x->op) {                                                                                           \
            case OP_FWD: x->st |= P##_forward(x->d, x->a, x->pool); break;                                             \
            case OP_INV: x->st |= P##_inverse(x->d, x->a, x->pool); break;                                             \
            case OP_COSET: x->st |= P##_coset_forward(x->d, x->a, &x->g, x->pool); break;                              \
            default: x->st |= P##_forward_to_bitrev(x->d, x->a, x->pool); break;                                       \
            }                                                                                                          \
        }                                                                                                              \
        cz_bench_escape(x->a);                                                                                         \
    }                                                                                                                  \
    /* reference: product throughput, 8 independent chains */                                                          \
    static void P##_mul8(void *c, uint64_t iters)                                                                      \
    {                                                                                                                  \
        F *x = (F *)c;                                                                                                 \
        for (uint64_t i = 0; i < iters; i++)                                                                           \
            for (int j = 0; j < 8; j++)                                                                                \
                F##_mul(&x[j], &x[j], &x[8]);                                                                          \
        cz_bench_escape(x);                                                                                            \
    }                                                                                                                  \
    static double P##_mul_ns(cz_bench *b)                                                                              \
    {                                                                                                                  \
        cz_rng rng;                                                                                                    \
        cz_rng_seed(&rng, 9);                                                                                          \
        F x[9];                                                                                                        \
        for (int j = 0; j < 9; j++)                                                                                    \
            F##_random(&x[j], &rng);                                                                                   \
        return cz_bench_time(b, P##_mul8, x) / 8;                                                                      \
    }                                                                                                                  \
    static int P##_bench(cz_bench *b, cz_bench_table *t, unsigned kmin, unsigned kmax, cz_pool *all, cz_pool *one)     \
    {                                                                                                                  \
        cz_rng rng;                                                                                                    \
        cz_rng_seed(&rng, 7);                                                                                          \
        for (unsigned k = kmin; k <= kmax; k += (k < 22 ? 1 : 2)) {                                                    \
            size_t n = (size_t)1 << k;                                                                                 \
            P##_domain *d = NULL;                                                                                      \
            if (P##_domain_create(&d, k) != CZ_OK) return 1;                                                           \
            F *a = (F *)malloc(n * sizeof(F));                                                                         \
            if (!a) return 1;                                                                                          \
            for (size_t i = 0; i < n; i++)                                                                             \
                F##_random(&a[i], &rng);                                                                               \
            P##_ctx x = {d, a, {{0}}, NULL, OP_FWD, CZ_OK};                                                            \
            P##_coset_shift(&x.g, k);                                                                                  \
            double bf = (double)(n / 2) * (double)k;                                                                   \
            for (int op = 0; op < OP_COUNT; op++) {                                                                    \
                x.op = (op_t)op;                                                                                       \
                x.pool = all;                                                                                          \
                double ns_all = cz_bench_time(b, P##_run, &x);                                                         \
                x.pool = one;                                                                                          \
                double ns_one = cz_bench_time(b, P##_run, &x);                                                         \
                cz_bench_table_addf(t, "%s|2^%u|%s|%.2f|%.2f|%.2f|%.2f|%.2fx", #F, k, OP_NAME[op], ns_all * 1e-6,      \
                                    ns_all / bf, ns_one * 1e-6, ns_one / bf, ns_one / ns_all);                         \
            }                                                                                                          \
            if (x.st != CZ_OK) {                                                                                       \
                fprintf(stderr, "bench_ntt: %s\n", cz_status_str(x.st));                                               \
                return 1;                                                                                              \
            }                                                                                                          \
            free(a);                                                                                                   \
            P##_domain_free(d);                                                                                        \
        }                                                                                                              \
        return 0;                                                                                                      \
    }

BENCH_FIELD(cz_bn254_fr, cz_bn254_ntt)
BENCH_FIELD(cz_bls12_381_fr, cz_bls12_381_ntt)

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--min", "--max", "--big", "--field", "--threads", NULL};
    int rc = cz_bench_init(&b, "bench_ntt", argc, argv, own,
                           "  --min=K        smallest size 2^K (default 16)\n"
                           "  --max=K        largest size 2^K (default 22; 24 with --big)\n"
                           "  --big          include 2^24\n"
                           "  --field=F      bn254 or bls12_381 (default both)\n"
                           "  --threads=N    threads of the all-cores pool (default: online CPUs)\n");
    if (rc >= 0) return rc;
    unsigned kmin = (unsigned)cz_bench_opt_long(&b, "--min", 16);
    unsigned kmax = (unsigned)cz_bench_opt_long(&b, "--max", cz_bench_has(&b, "--big") ? 24 : 22);
    if (b.quick && !cz_bench_has(&b, "--max")) kmax = kmin + 2;
    const char *field = cz_bench_opt_str(&b, "--field");
    int threads = (int)cz_bench_opt_long(&b, "--threads", cz_cpu_count());
    cz_pool *all = cz_pool_create(threads), *one = cz_pool_create(1);
    if (!all || !one) return 1;
#if defined(CZ_ASM_X86_64)
    const char *path = "x86-64 asm field products (CZ_ASM_X86_64)";
#else
    const char *path = "portable C field products (CZ_PORTABLE)";
#endif
    cz_bench_note(&b,
                  "NTT of n = 2^k Montgomery-form elements in place, natural order in and out "
                  "unless noted; coset = the snarkjs shift w[k+1]. ms per transform (median of %d "
                  "runs of >= %.0f ms) and ns per butterfly = time / (n/2 * k). \"all\" = a pool of "
                  "%d threads, \"1\" = one thread. Build: %s.",
                  b.repeats, b.min_ms, cz_pool_threads(all), path);
    cz_bench_table m;
    cz_bench_table_init(&m, "Reference: field product throughput (8 independent chains, out-of-line ff mul)",
                        "field|ns per mul");
    if (!field || strcmp(field, "bn254") == 0) cz_bench_table_addf(&m, "cz_bn254_fr|%.2f", cz_bn254_ntt_mul_ns(&b));
    if (!field || strcmp(field, "bls12_381") == 0)
        cz_bench_table_addf(&m, "cz_bls12_381_fr|%.2f", cz_bls12_381_ntt_mul_ns(&b));
    cz_bench_table_print(&b, &m);
    cz_bench_table t;
    cz_bench_table_init(&t, "NTT times", "field|n|transform|ms (all)|ns/bfly (all)|ms (1)|ns/bfly (1)|speedup");
    rc = 0;
    if (!field || strcmp(field, "bn254") == 0) rc |= cz_bn254_ntt_bench(&b, &t, kmin, kmax, all, one);
    if (!field || strcmp(field, "bls12_381") == 0) rc |= cz_bls12_381_ntt_bench(&b, &t, kmin, kmax, all, one);
    cz_bench_table_print(&b, &t);
    cz_pool_free(all);
    cz_pool_free(one);
    if (rc) return rc;
    return cz_bench_finish(&b);
}
