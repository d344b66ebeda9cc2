/*
 * bench_ff: nanoseconds per operation of the four prime fields.
 *
 * DESIGN: for each field it times mul, sqr, add, sub as dependent chains
 * (x = x*y, x = x^2, ...: the latency a formula sees) and mul, sqr also as
 * 8 independent chains (the throughput a batch sees), once through the
 * build's arithmetic path (the x86-64 mulx/adcx/adox kernels in a default
 * x86-64 build, portable C with -DCZ_PORTABLE=ON) and once through the
 * portable C kernels (cz_mont_mul_c / cz_mont_sqr_c, compiled in every
 * build), so one run shows the speedup of the fast path. The slow
 * operations (inv, inv_ct = a^(p-2), sqrt) cycle over 256 random inputs so
 * that a variable-time algorithm is not timed on one lucky value.
 *
 * Flags: see --help (common harness flags only).
 */
#include "bench.h"
#include "ff/ff.h"
#include "ff/tower.h"

#define NSLOW 256

#define CZ_BENCH_FIELD(F, N)                                                                       \
    typedef struct {                                                                               \
        F x, y;                                                                                    \
        F v[NSLOW];                                                                                \
    } F##_ctx;                                                                                     \
    static void F##_b_mul(void *c, uint64_t n)                                                     \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_mul(&k->x, &k->x, &k->y);                             \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_mul_c(void *c, uint64_t n)                                                   \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_mul_portable(&k->x, &k->x, &k->y);                    \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_sqr(void *c, uint64_t n)                                                     \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_sqr(&k->x, &k->x);                                    \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_sqr_c(void *c, uint64_t n)                                                   \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) cz_mont_sqr_c(k->x.l, k->x.l, F##_modulus, F##_pinv, N);  \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    /* throughput: 8 independent chains, one iteration = 8 operations */                      \
    static void F##_b_mul8(void *c, uint64_t n)                                                    \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F##_mul(&k->v[j], &k->v[j], &k->y);                       \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F##_b_mul8_c(void *c, uint64_t n)                                                  \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F##_mul_portable(&k->v[j], &k->v[j], &k->y);              \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F##_b_sqr8(void *c, uint64_t n)                                                    \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F##_sqr(&k->v[j], &k->v[j]);                               \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F##_b_sqr8_c(void *c, uint64_t n)                                                  \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) cz_mont_sqr_c(k->v[j].l, k->v[j].l, F##_modulus, F##_pinv, N); \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F##_b_add(void *c, uint64_t n)                                                     \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_add(&k->x, &k->x, &k->y);                             \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_sub(void *c, uint64_t n)                                                     \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_sub(&k->x, &k->x, &k->y);                             \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_inv(void *c, uint64_t n)                                                     \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) (void)F##_inv(&k->x, &k->v[i % NSLOW]);                   \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_inv_ct(void *c, uint64_t n)                                                  \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        for (uint64_t i = 0; i < n; i++) F##_inv_ct(&k->x, &k->v[i % NSLOW]);                      \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_b_sqrt(void *c, uint64_t n)                                                    \
    {                                                                                              \
        F##_ctx *k = (F##_ctx *)c;                                                                 \
        F t;                                                                                       \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            F##_sqr(&t, &k->v[i % NSLOW]); /* a square: sqrt takes its full path */               \
            (void)F##_sqrt(&k->x, &t);                                                             \
        }                                                                                          \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F##_bench(cz_bench *b, cz_bench_table *prod, cz_bench_table *thr, cz_bench_table *slow, \
                          cz_rng *rng)                                                             \
    {                                                                                              \
        static F##_ctx k;                                                                          \
        F##_random(&k.x, rng);                                                                     \
        F##_random(&k.y, rng);                                                                     \
        for (int i = 0; i < NSLOW; i++) F##_random(&k.v[i], rng);                                  \
        double m8 = cz_bench_time(b, F##_b_mul8, &k) / 8, m8c = cz_bench_time(b, F##_b_mul8_c, &k) / 8; \
        double s8 = cz_bench_time(b, F##_b_sqr8, &k) / 8, s8c = cz_bench_time(b, F##_b_sqr8_c, &k) / 8; \
        cz_bench_table_addf(thr, "%s|%.2f|%.2f|%.2fx|%.2f|%.2f|%.2fx", #F, m8, m8c, m8c / m8, s8, s8c,  \
                            s8c / s8);                                                             \
        for (int i = 0; i < NSLOW; i++) {                                                          \
            do F##_random(&k.v[i], rng);                                                           \
            while (F##_is_zero(&k.v[i]));                                                          \
        }                                                                                          \
        double mul = cz_bench_time(b, F##_b_mul, &k), mul_c = cz_bench_time(b, F##_b_mul_c, &k);   \
        double sqr = cz_bench_time(b, F##_b_sqr, &k), sqr_c = cz_bench_time(b, F##_b_sqr_c, &k);   \
        double add = cz_bench_time(b, F##_b_add, &k), sub = cz_bench_time(b, F##_b_sub, &k);       \
        cz_bench_table_addf(prod, "%s|%.2f|%.2f|%.2fx|%.2f|%.2f|%.2fx|%.2f|%.2f", #F, mul, mul_c,     \
                            mul_c / mul, sqr, sqr_c, sqr_c / sqr, add, sub);                       \
        double inv = cz_bench_time(b, F##_b_inv, &k), inv_ct = cz_bench_time(b, F##_b_inv_ct, &k); \
        double sqrt_ = cz_bench_time(b, F##_b_sqrt, &k) - sqr;                                     \
        cz_bench_table_addf(slow, "%s|%.0f|%.1f|%.0f|%.1f|%.0f", #F, inv, inv / mul, inv_ct,         \
                            inv_ct / inv, sqrt_);                                                  \
    }

CZ_BENCH_FIELD(cz_bls12_381_fq, 6)
CZ_BENCH_FIELD(cz_bls12_381_fr, 4)
CZ_BENCH_FIELD(cz_bn254_fq, 4)
CZ_BENCH_FIELD(cz_bn254_fr, 4)

/* Fq2: mul and sqr as a dependent chain and as 8 independent chains; the
 * ratio to the base field's product (throughput) shows the overhead of the
 * extension arithmetic over its 3 (mul) resp. 2 (sqr) base products. */
#define CZ_BENCH_FQ2(F2, F)                                                                        \
    typedef struct {                                                                               \
        F2 x, y, v[8];                                                                             \
        F bx, by, bv[8];                                                                           \
    } F2##_ctx;                                                                                    \
    static void F2##_b_mul(void *c, uint64_t n)                                                    \
    {                                                                                              \
        F2##_ctx *k = (F2##_ctx *)c;                                                               \
        for (uint64_t i = 0; i < n; i++) F2##_mul(&k->x, &k->x, &k->y);                            \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F2##_b_sqr(void *c, uint64_t n)                                                    \
    {                                                                                              \
        F2##_ctx *k = (F2##_ctx *)c;                                                               \
        for (uint64_t i = 0; i < n; i++) F2##_sqr(&k->x, &k->x);                                   \
        cz_bench_escape(&k->x);                                                                    \
    }                                                                                              \
    static void F2##_b_mul8(void *c, uint64_t n)                                                   \
    {                                                                                              \
        F2##_ctx *k = (F2##_ctx *)c;                                                               \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F2##_mul(&k->v[j], &k->v[j], &k->y);                      \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F2##_b_sqr8(void *c, uint64_t n)                                                   \
    {                                                                                              \
        F2##_ctx *k = (F2##_ctx *)c;                                                               \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F2##_sqr(&k->v[j], &k->v[j]);                              \
        cz_bench_escape(k->v);                                                                     \
    }                                                                                              \
    static void F2##_b_base8(void *c, uint64_t n)                                                  \
    {                                                                                              \
        F2##_ctx *k = (F2##_ctx *)c;                                                               \
        for (uint64_t i = 0; i < n; i++)                                                           \
            for (int j = 0; j < 8; j++) F##_mul(&k->bv[j], &k->bv[j], &k->by);                    \
        cz_bench_escape(k->bv);                                                                    \
    }                                                                                              \
    static void F2##_bench(cz_bench *b, cz_bench_table *t, cz_rng *rng)                            \
    {                                                                                              \
        static F2##_ctx k;                                                                         \
        F2##_random(&k.x, rng);                                                                    \
        F2##_random(&k.y, rng);                                                                    \
        F##_random(&k.by, rng);                                                                    \
        for (int i = 0; i < 8; i++) {                                                              \
            F2##_random(&k.v[i], rng);                                                             \
            F##_random(&k.bv[i], rng);                                                             \
        }                                                                                          \
        double base = cz_bench_time(b, F2##_b_base8, &k) / 8;                                      \
        double mul = cz_bench_time(b, F2##_b_mul, &k), sqr = cz_bench_time(b, F2##_b_sqr, &k);     \
        double m8 = cz_bench_time(b, F2##_b_mul8, &k) / 8, s8 = cz_bench_time(b, F2##_b_sqr8, &k) / 8; \
        cz_bench_table_addf(t, "%s|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f|%.2f", #F2, mul, sqr, m8, s8, base,  \
                            m8 / base, s8 / base);                                                 \
    }

CZ_BENCH_FQ2(cz_bls12_381_fq2, cz_bls12_381_fq)
CZ_BENCH_FQ2(cz_bn254_fq2, cz_bn254_fq)

int main(int argc, char **argv)
{
    cz_bench b;
    static const char *const own[] = {"--fq2-only", NULL};
    int rc = cz_bench_init(&b, "bench_ff", argc, argv, own, "  --fq2-only     only the Fq2 table\n");
    if (rc >= 0) return rc;
#if defined(CZ_ASM_X86_64)
    const char *path = "x86-64 mulx/adcx/adox (CZ_ASM_X86_64)";
#else
    const char *path = "portable C (CZ_PORTABLE)";
#endif
    cz_bench_note(&b, "Field arithmetic, ns per operation (%s of %d runs of >= %g ms). "
                      "\"C\": the portable kernels, built in every configuration; C/x: speedup of "
                      "this build's path over them. Build path: %s.",
                  b.best ? "fastest" : "median", b.repeats, b.min_ms, path);
    cz_rng rng;
    cz_rng_seed(&rng, 42);
    cz_bench_table prod, thr, slow, ext;
    cz_bench_table_init(&prod, "Latency: dependent chains x = x op y (ns/op)",
                        "field|mul|mul C|C/mul|sqr|sqr C|C/sqr|add|sub");
    cz_bench_table_init(&thr, "Throughput: 8 independent chains (ns/op)",
                        "field|mul|mul C|C/mul|sqr|sqr C|C/sqr");
    cz_bench_table_init(&slow, "Inversion and square root (ns/op, 256 cycling random inputs)",
                        "field|inv|inv/mul|inv_ct (a^(p-2))|inv_ct/inv|sqrt");
    cz_bench_table_init(&ext, "Fq2 (u^2 = -1): latency (dependent chain) and throughput (8 chains), ns/op; "
                              "base = the base field's product, 8 chains",
                        "field|mul|sqr|mul x8|sqr x8|base mul x8|mul/base|sqr/base");
    if (!cz_bench_has(&b, "--fq2-only")) {
        cz_bls12_381_fq_bench(&b, &prod, &thr, &slow, &rng);
        cz_bls12_381_fr_bench(&b, &prod, &thr, &slow, &rng);
        cz_bn254_fq_bench(&b, &prod, &thr, &slow, &rng);
        cz_bn254_fr_bench(&b, &prod, &thr, &slow, &rng);
        cz_bench_table_print(&b, &prod);
        cz_bench_table_print(&b, &thr);
        cz_bench_table_print(&b, &slow);
    }
    cz_bls12_381_fq2_bench(&b, &ext, &rng);
    cz_bn254_fq2_bench(&b, &ext, &rng);
    cz_bench_table_print(&b, &ext);
    return cz_bench_finish(&b);
}
