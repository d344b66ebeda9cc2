/*
 * test_backend: the backend table (backend/backend.h) and the device-spec
 * parser (backend/devspec.h), without a GPU.
 *  - devspec: every form of the grammar against `present` GPUs (0, 1, 4),
 *    with and without a wanted count; every malformed spec refused with a
 *    message quoting it;
 *  - cz_backend_create: the CPU for "cpu" and for "auto" without a GPU, lists
 *    refused, a GPU asked for in a build or machine without one refused;
 *  - the fallback wrapper over a primary that fails on purpose: a device
 *    error reruns the step on the fallback with the result of the fallback
 *    and one warning on the logger naming the step and the cause; an input
 *    error is returned as it is, without a rerun or a warning; keep/drop,
 *    host allocator and memory query go to the primary; scratch_bytes is the
 *    larger of the two; name and kind are the primary's;
 *  - compute_h with c NULL (c = a o b, the backend's) on the CPU and through
 *    the fallback: the H step of a, b, a o b;
 *  - the CPU backend: options (window out of range refused), scratch_bytes
 *    covers what a domain not yet kept adds, and twiddle tables it keeps are
 *    reserved in the budget (and released at free), or not kept when they do
 *    not fit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/devspec.h"
#include "ec/ec.h"
#include "ntt/ntt.h"
#include "test_util.h"

/* ---- devspec ---- */

static int spec_is(const cz_devspec *d, const char *want)
{
    char buf[512] = "", one[32];
    for (int i = 0; i < d->n; i++) {
        if (i) strcat(buf, ",");
        strcat(buf, cz_devspec_entry_name(d, i, one, sizeof one));
    }
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "  devspec gave '%s', want '%s'\n", buf, want);
        return 0;
    }
    return 1;
}

static void test_devspec(void)
{
    static const struct {
        const char *spec;
        int gpus, present;
        const char *want;
    } ok[] = {
        {"auto", 0, 0, "cpu"},          {NULL, 0, 0, "cpu"},
        {"", 0, 4, "cuda:0,cuda:1,cuda:2,cuda:3"},
        {"auto", 3, 0, "cpu,cpu,cpu"},  {"auto", 0, 1, "cuda:0"},
        {"auto", 2, 4, "cuda:0,cuda:1"}, {"cuda", 0, 0, "cuda:0"},
        {"cuda", 0, 4, "cuda:0,cuda:1,cuda:2,cuda:3"},
        {"cpu", 0, 4, "cpu"},           {"cpu", 5, 0, "cpu,cpu,cpu,cpu,cpu"},
        {"cuda:2", 0, 0, "cuda:2"},     {"cuda:3,1", 0, 4, "cuda:3,cuda:1"},
        {"cuda:0,5,7", 2, 8, "cuda:0,cuda:5"}, {"cuda:1023", 0, 0, "cuda:1023"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cz_devspec d;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = cz_devspec_parse(&d, ok[i].spec, ok[i].gpus, ok[i].present, 32, &err);
        CHECK_MSG(st == CZ_OK && spec_is(&d, ok[i].want), "'%s' gpus %d present %d: %s", ok[i].spec ? ok[i].spec : "(null)",
                  ok[i].gpus, ok[i].present, cz_error_msg(&err));
    }
    cz_devspec d;
    CHECK(cz_devspec_parse(&d, "auto", 0, 2, 32, NULL) == CZ_OK && d.is_auto);
    /* a GPU listed again: an entry per listing, numbered per GPU */
    CHECK(cz_devspec_parse(&d, "cuda:1,0,1,1", 0, 2, 32, NULL) == CZ_OK && spec_is(&d, "cuda:1,cuda:0,cuda:1,cuda:1") &&
          d.dev[0].slot == 0 && d.dev[1].slot == 0 && d.dev[2].slot == 1 && d.dev[3].slot == 2 &&
          cz_devspec_gpus(&d) == 2);
    CHECK(cz_devspec_parse(&d, "cuda:0,0", 1, 1, 32, NULL) == CZ_OK && d.n == 1 && cz_devspec_gpus(&d) == 1);
    CHECK(cz_devspec_parse(&d, "cpu", 3, 0, 32, NULL) == CZ_OK && cz_devspec_gpus(&d) == 0);
    CHECK(cz_devspec_parse(&d, "cuda:1", 0, 2, 32, NULL) == CZ_OK && !d.is_auto);
    /* lanes: each GPU listed once gets more entries; one listed twice keeps two */
    static const struct {
        const char *spec;
        int gpus, present, lanes, max;
        const char *want;
    } ln[] = {
        {"auto", 0, 2, 2, 32, "cuda:0,cuda:1,cuda:0,cuda:1"},
        {"cuda", 1, 4, 2, 32, "cuda:0,cuda:0"},
        {"cuda:1,0,0", 0, 2, 2, 32, "cuda:1,cuda:0,cuda:0,cuda:1"},
        {"cuda:3", 0, 4, 3, 32, "cuda:3,cuda:3,cuda:3"},
        {"cuda:3", 0, 4, 9, 32, "cuda:3,cuda:3,cuda:3,cuda:3"},
        {"cuda:0,1,2", 0, 3, 2, 4, "cuda:0,cuda:1,cuda:2,cuda:0"},
        {"cuda:0", 0, 1, 1, 32, "cuda:0"},
        {"cuda:0", 0, 1, 0, 32, "cuda:0"},
        {"cpu", 2, 0, 2, 32, "cpu,cpu"},
        {"auto", 0, 0, 2, 32, "cpu"},
    };
    for (size_t i = 0; i < sizeof ln / sizeof ln[0]; i++) {
        CHECK(cz_devspec_parse(&d, ln[i].spec, ln[i].gpus, ln[i].present, ln[i].max, NULL) == CZ_OK);
        cz_devspec_lanes(&d, ln[i].lanes, ln[i].max);
        CHECK_MSG(spec_is(&d, ln[i].want), "lanes %d of '%s'", ln[i].lanes, ln[i].spec);
        int slots_ok = 1;
        for (int a = 0; a < d.n; a++) {
            int before = 0;
            for (int b = 0; b < a; b++) before += d.dev[b].cuda && d.dev[a].cuda && d.dev[b].index == d.dev[a].index;
            slots_ok &= !d.dev[a].cuda || d.dev[a].slot == before;
        }
        CHECK_MSG(slots_ok, "slots of lanes %d of '%s'", ln[i].lanes, ln[i].spec);
    }
    CHECK(cz_devspec_parse(&d, "cuda", 0, 2, 32, NULL) == CZ_OK);
    cz_devspec_lanes(&d, 2, 32);
    CHECK(cz_devspec_gpus(&d) == 2 && d.n == 4);
    static const struct {
        const char *spec;
        int gpus, present;
        cz_status st;
        const char *words;
    } bad[] = {
        {"cuda:0,0,0,0,0", 0, 4, CZ_ERR_INVALID_ARG, "listed more than 4 times"},
        {"cuda:1,0,1,1,1,1", 0, 4, CZ_ERR_INVALID_ARG, "GPU 1 is listed more than 4 times"},
        {"cuda:", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"cuda:x", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"cuda:1,", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"cuda:-1", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"cuda:1024", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"cuda:0 ", 0, 4, CZ_ERR_INVALID_ARG, "GPU index"},
        {"gpu", 0, 4, CZ_ERR_INVALID_ARG, "expected auto, cpu, cuda"},
        {"CPU", 0, 4, CZ_ERR_INVALID_ARG, "expected auto, cpu, cuda"},
        {"cudax", 0, 4, CZ_ERR_INVALID_ARG, "expected auto, cpu, cuda"},
        {"auto", 5, 4, CZ_ERR_NO_DEVICE, "5 GPUs asked for, 4 present"},
        {"cuda", 2, 0, CZ_ERR_NO_DEVICE, "none present"},
        {"cuda:0,1", 3, 4, CZ_ERR_INVALID_ARG, "lists 2"},
        {"cpu", 33, 0, CZ_ERR_INVALID_ARG, "gpus 33"},
        {"cpu", -1, 0, CZ_ERR_INVALID_ARG, "gpus -1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_error err;
        cz_error_clear(&err);
        cz_status st = cz_devspec_parse(&d, bad[i].spec, bad[i].gpus, bad[i].present, 32, &err);
        CHECK_MSG(st == bad[i].st && strstr(cz_error_msg(&err), bad[i].words) && d.n == 0, "'%s': %s (%s)",
                  bad[i].spec, cz_status_str(st), cz_error_msg(&err));
        if (bad[i].st == CZ_ERR_INVALID_ARG && bad[i].gpus >= 0 && bad[i].gpus <= 32)
            CHECK_MSG(strstr(cz_error_msg(&err), bad[i].spec) != NULL, "'%s' not quoted: %s", bad[i].spec,
                      cz_error_msg(&err));
    }
    /* more GPUs listed than the maximum */
    char big[400] = "cuda:";
    for (int i = 0; i < 40; i++) snprintf(big + strlen(big), sizeof big - strlen(big), "%s%d", i ? "," : "", i);
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_devspec_parse(&d, big, 0, 40, 32, &err) == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), "more than 32"));
}

static void test_create(void)
{
    cz_backend *be = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_backend_create(&be, "cpu", NULL, &err) == CZ_OK && be && be->kind == CZ_BACKEND_CPU);
    CHECK(be && strncmp(be->name, "cpu (", 5) == 0);
    cz_backend_free(be);
    if (cz_backend_gpu_count() == 0) {
        CHECK(cz_backend_create(&be, "auto", NULL, &err) == CZ_OK && be && be->kind == CZ_BACKEND_CPU);
        cz_backend_free(be);
        be = NULL;
        cz_error_clear(&err);
        cz_status st = cz_backend_create(&be, "cuda", NULL, &err);
        CHECK_MSG((st == CZ_ERR_UNSUPPORTED || st == CZ_ERR_NO_DEVICE) && be == NULL, "cuda without a GPU: %s (%s)",
                  cz_status_str(st), cz_error_msg(&err));
        cz_error_clear(&err);
        st = cz_backend_create(&be, "cuda:3", NULL, &err);
        CHECK(st != CZ_OK && be == NULL);
    }
    cz_error_clear(&err);
    CHECK(cz_backend_create(&be, "cuda:0,1", NULL, &err) == CZ_ERR_INVALID_ARG && be == NULL &&
          strstr(cz_error_msg(&err), "one device"));
    cz_error_clear(&err);
    CHECK(cz_backend_create(&be, "tpu", NULL, &err) == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), "tpu"));
    cz_backend_opts o;
    memset(&o, 0, sizeof o);
    o.msm_window = 40;
    cz_error_clear(&err);
    CHECK(cz_backend_cpu_create(&be, &o, &err) == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), "window 40"));
    o.msm_window = 1;
    CHECK(cz_backend_cpu_create(&be, &o, NULL) == CZ_ERR_INVALID_ARG);
}

/* ---- the words of the GPU MSM's table settings ---- */

typedef struct {
    const char *text;
    int value; /* -1: refused */
} word_case;

/* parse(text) against each case: the value, or CZ_ERR_INVALID_ARG with a
 * message containing `expected` */
static void check_words(cz_status (*parse)(const char *, int *, cz_error *), const char *what, const word_case *cases,
                        size_t n, const char *expected)
{
    for (size_t i = 0; i < n; i++) {
        int v = 7;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = parse(cases[i].text, &v, &err);
        const char *t = cases[i].text ? cases[i].text : "(null)";
        if (cases[i].value < 0)
            CHECK_MSG(st == CZ_ERR_INVALID_ARG && strstr(cz_error_msg(&err), expected), "%s '%s' accepted (%d)", what,
                      t, v);
        else
            CHECK_MSG(st == CZ_OK && v == cases[i].value, "%s '%s': %d", what, t, v);
    }
}

static void test_table_words(void)
{
    static const word_case modes[] = {{NULL, 0},   {"", 0},     {"auto", 0}, {"off", 1},
                                      {"eager", 2}, {"Auto", -1}, {"of", -1},  {"offf", -1}};
    check_words(cz_backend_msm_table_parse, "mode", modes, sizeof modes / sizeof modes[0],
                "expected auto, off or eager");
    static const word_case ws[] = {{NULL, 0},  {"", 0},   {"whole", 0}, {"fit", 64},   {"2", 2},   {"11", 11},
                                   {"64", 64}, {"1", -1}, {"0", -1},    {"65", -1},    {"640", -1}, {"-2", -1},
                                   {"+2", -1}, {" 2", -1}, {"2 ", -1},  {"x", -1},     {"fits", -1}, {"Whole", -1},
                                   {"99999999999999999999", -1}};
    check_words(cz_backend_msm_table_windows_parse, "windows", ws, sizeof ws / sizeof ws[0],
                "expected whole, fit or a number");
}

/* ---- the fallback wrapper ---- */

typedef struct {
    cz_backend *cpu;      /* does the work when it does not fail */
    cz_status fail_with;  /* every operation fails with this (CZ_OK: none) */
    int calls, keeps, drops, clobber, marks;
} failing;

static cz_status f_compute_h(cz_backend *be, cz_curve curve, unsigned log_n, void *a, void *b, void *c,
                             cz_backend_h_stats *stats, cz_error *err)
{
    failing *f = be->ctx;
    f->calls++;
    if (f->fail_with != CZ_OK) {
        if (stats) {
            stats->h2d_bytes = 123;
            stats->h2d_s = 1;
        }
        return cz_error_set(err, f->fail_with, "the primary failed on purpose");
    }
    return f->cpu->ops->compute_h(f->cpu, curve, log_n, a, b, c, stats, err);
}

static cz_status f_msm(cz_backend *be, int g2, cz_curve curve, void *out, const void *bases, const void *scalars,
                       size_t n, cz_msm_scalar_form form, cz_error *err)
{
    failing *f = be->ctx;
    f->calls++;
    if (f->fail_with != CZ_OK) return cz_error_set(err, f->fail_with, "the primary failed on purpose");
    return g2 ? f->cpu->ops->msm_g2(f->cpu, curve, out, bases, scalars, n, form, err)
              : f->cpu->ops->msm_g1(f->cpu, curve, out, bases, scalars, n, form, err);
}
static cz_status f_msm_g1(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                          cz_msm_scalar_form form, cz_error *err)
{
    return f_msm(be, 0, curve, out, bases, scalars, n, form, err);
}
static cz_status f_msm_g2(cz_backend *be, cz_curve curve, void *out, const void *bases, const void *scalars, size_t n,
                          cz_msm_scalar_form form, cz_error *err)
{
    return f_msm(be, 1, curve, out, bases, scalars, n, form, err);
}
static cz_status f_keep(cz_backend *be, const void *bases, size_t bytes, cz_error *err)
{
    (void)bases;
    (void)bytes;
    (void)err;
    ((failing *)be->ctx)->keeps++;
    return CZ_OK;
}
static void f_drop(cz_backend *be, const void *bases)
{
    (void)bases;
    ((failing *)be->ctx)->drops++;
}
static cz_status f_mem(cz_backend *be, cz_backend_mem *out, cz_error *err)
{
    failing *f = be->ctx;
    (void)err;
    memset(out, 0, sizeof *out);
    out->total = 1000;
    out->free = 600;
    out->resident = 300;
    out->asked = f->marks ? 0 : 200;
    return CZ_OK;
}
static void f_mark(cz_backend *be)
{
    failing *f = be->ctx;
    f->marks++;
}
static size_t f_scratch(cz_backend *be, cz_curve curve, unsigned log_n, size_t n)
{
    (void)be;
    (void)curve;
    (void)log_n;
    (void)n;
    return 7;
}
static void f_free(cz_backend *be)
{
    failing *f = be->ctx;
    cz_backend_free(f->cpu);
    free(be);
}
static const cz_backend_ops failing_ops = {
    /* .compute_h      = */ f_compute_h,
    /* .msm_g1         = */ f_msm_g1,
    /* .msm_g2         = */ f_msm_g2,
    /* .keep_bases     = */ f_keep,
    /* .drop_bases     = */ f_drop,
    /* .host_allocator = */ NULL,
    /* .mem_info       = */ f_mem,
    /* .mem_mark       = */ f_mark,
    /* .scratch_bytes  = */ f_scratch,
    /* .free           = */ f_free,
};

typedef struct {
    int lines;
    cz_log_level level;
    char last[1024];
} log_sink;

static void sink(void *ctx, cz_log_level level, const char *component, const char *msg)
{
    log_sink *s = ctx;
    s->lines++;
    s->level = level;
    snprintf(s->last, sizeof s->last, "%s: %s", component, msg);
}

static void test_fallback(cz_rng *rng)
{
    static failing f;
    memset(&f, 0, sizeof f);
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_backend_cpu_create(&f.cpu, NULL, &err) == CZ_OK);
    cz_backend *prim = calloc(1, sizeof *prim), *cpu = NULL, *fb = NULL;
    prim->ops = &failing_ops;
    prim->ctx = &f;
    prim->kind = CZ_BACKEND_CUDA;
    prim->gpu = 3;
    snprintf(prim->name, sizeof prim->name, "pretend:3");
    CHECK(cz_backend_cpu_create(&cpu, NULL, &err) == CZ_OK);
    log_sink ls;
    memset(&ls, 0, sizeof ls);
    cz_logger lg = {sink, &ls, CZ_LOG_WARN};
    CHECK(cz_backend_fallback_create(&fb, prim, cpu, &lg, &err) == CZ_OK && fb);
    if (!fb) return;
    CHECK(fb->kind == CZ_BACKEND_CUDA && fb->gpu == 3 && strcmp(fb->name, "pretend:3") == 0);

    /* inputs: 2^6 random scalars, the H step on the CPU as the reference */
    enum { LOG = 6, N = 1 << LOG };
    cz_bn254_fr a[N], b[N], c[N], a2[N], b2[N], c2[N];
    for (int i = 0; i < N; i++) {
        cz_bn254_fr_random(&a[i], rng);
        cz_bn254_fr_random(&b[i], rng);
        cz_bn254_fr_random(&c[i], rng);
    }
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    memcpy(c2, c, sizeof c);
    CHECK(cpu->ops->compute_h(cpu, CZ_CURVE_BN254, LOG, a2, b2, c2, NULL, &err) == CZ_OK);
    cz_bn254_fr want[N];
    memcpy(want, a2, sizeof want);

    /* the primary works: its result, no warning */
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    memcpy(c2, c, sizeof c);
    cz_backend_h_stats hs;
    CHECK(fb->ops->compute_h(fb, CZ_CURVE_BN254, LOG, a2, b2, c2, &hs, &err) == CZ_OK);
    CHECK(memcmp(a2, want, sizeof want) == 0 && f.calls == 1 && ls.lines == 0);

    /* a device error: rerun on the CPU, the same result, one warning */
    f.fail_with = CZ_ERR_CUDA;
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    memcpy(c2, c, sizeof c);
    cz_error_clear(&err);
    CHECK(fb->ops->compute_h(fb, CZ_CURVE_BN254, LOG, a2, b2, c2, &hs, &err) == CZ_OK);
    CHECK(memcmp(a2, want, sizeof want) == 0 && f.calls == 2);
    CHECK(hs.h2d_bytes == 0 && hs.h2d_s == 0); /* the CPU moved nothing */
    CHECK_MSG(ls.lines == 1 && ls.level == CZ_LOG_WARN && strstr(ls.last, "the H step") &&
                  strstr(ls.last, "pretend:3") && strstr(ls.last, "failed on purpose") && strstr(ls.last, "CPU"),
              "warning: %s", ls.last);

    /* c NULL (backend.h: c = a o b, the backend's): the CPU's result is the
     * H step of a, b, a o b; so is the fallback's after a device error, from
     * the untouched a, b */
    for (int i = 0; i < N; i++) cz_bn254_fr_mul(&c2[i], &a[i], &b[i]);
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    CHECK(cpu->ops->compute_h(cpu, CZ_CURVE_BN254, LOG, a2, b2, c2, NULL, &err) == CZ_OK);
    cz_bn254_fr want_ab[N];
    memcpy(want_ab, a2, sizeof want_ab);
    CHECK(memcmp(want_ab, want, sizeof want) != 0); /* (another c) */
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    CHECK(cpu->ops->compute_h(cpu, CZ_CURVE_BN254, LOG, a2, b2, NULL, NULL, &err) == CZ_OK);
    CHECK(memcmp(a2, want_ab, sizeof want_ab) == 0);
    memcpy(a2, a, sizeof a);
    memcpy(b2, b, sizeof b);
    CHECK(fb->ops->compute_h(fb, CZ_CURVE_BN254, LOG, a2, b2, NULL, &hs, &err) == CZ_OK);
    CHECK(memcmp(a2, want_ab, sizeof want_ab) == 0 && f.calls == 3 && ls.lines == 2);

    /* MSMs: G1 and G2 against the CPU */
    cz_bn254_g1_affine g1[N];
    cz_bn254_g2_affine g2[N];
    cz_bn254_g1 gen1, t1;
    cz_bn254_g2 gen2, t2;
    cz_bn254_g1_from_affine(&gen1, cz_bn254_g1_generator());
    cz_bn254_g2_from_affine(&gen2, cz_bn254_g2_generator());
    for (int i = 0; i < N; i++) {
        cz_bn254_g1_mul_fr(&t1, &gen1, &b[i]);
        cz_bn254_g1_to_affine(&g1[i], &t1);
        cz_bn254_g2_mul_fr(&t2, &gen2, &b[i]);
        cz_bn254_g2_to_affine(&g2[i], &t2);
    }
    cz_bn254_g1 r1, w1;
    cz_bn254_g2 r2, w2;
    CHECK(cpu->ops->msm_g1(cpu, CZ_CURVE_BN254, &w1, g1, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_OK);
    CHECK(cpu->ops->msm_g2(cpu, CZ_CURVE_BN254, &w2, g2, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_OK);
    CHECK(fb->ops->msm_g1(fb, CZ_CURVE_BN254, &r1, g1, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_OK);
    CHECK(fb->ops->msm_g2(fb, CZ_CURVE_BN254, &r2, g2, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_OK);
    CHECK(cz_bn254_g1_eq(&r1, &w1) && cz_bn254_g2_eq(&r2, &w2));
    CHECK(ls.lines == 4 && strstr(ls.last, "a G2 MSM"));
    f.fail_with = CZ_ERR_DEVICE_MEMORY;
    CHECK(fb->ops->msm_g1(fb, CZ_CURVE_BN254, &r1, g1, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_OK &&
          cz_bn254_g1_eq(&r1, &w1) && ls.lines == 5);

    /* an input error is the caller's: returned, no rerun, no warning */
    f.fail_with = CZ_ERR_RANGE;
    int calls = f.calls;
    cz_error_clear(&err);
    CHECK(fb->ops->msm_g1(fb, CZ_CURVE_BN254, &r1, g1, a, N, CZ_MSM_MONTGOMERY, &err) == CZ_ERR_RANGE);
    CHECK(strstr(cz_error_msg(&err), "failed on purpose") && f.calls == calls + 1 && ls.lines == 5);

    /* the primary's: keep/drop, memory; scratch: the larger */
    CHECK(fb->ops->keep_bases(fb, g1, sizeof g1, &err) == CZ_OK && f.keeps == 1);
    fb->ops->drop_bases(fb, g1);
    CHECK(f.drops == 1);
    cz_backend_mem m;
    CHECK(fb->ops->mem_info(fb, &m, &err) == CZ_OK && m.total == 1000 && m.free == 600 && m.resident == 300 &&
          m.asked == 200);
    fb->ops->mem_mark(fb);
    CHECK(f.marks == 1 && fb->ops->mem_info(fb, &m, &err) == CZ_OK && m.asked == 0);
    CHECK(fb->ops->host_allocator(fb) == NULL);
    size_t cs = cz_backend_scratch_bytes(cpu, CZ_CURVE_BN254, 10, 1000);
    CHECK(cs > 7 && cz_backend_scratch_bytes(fb, CZ_CURVE_BN254, 10, 1000) == cs);
    cz_backend_free(fb);

    /* NULL members are refused, the others freed */
    cz_backend *c2b = NULL;
    CHECK(cz_backend_cpu_create(&c2b, NULL, NULL) == CZ_OK);
    CHECK(cz_backend_fallback_create(&fb, NULL, c2b, NULL, &err) == CZ_ERR_INVALID_ARG && fb == NULL);
}

/* the CPU backend's kept twiddle tables in the budget */
static void test_cpu_budget(cz_rng *rng)
{
    cz_budget *b = NULL;
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_budget_create(&b, (size_t)64 << 20, 0, &err) == CZ_OK);
    cz_backend_opts o;
    memset(&o, 0, sizeof o);
    o.budget = b;
    cz_backend *be = NULL;
    CHECK(cz_backend_cpu_create(&be, &o, &err) == CZ_OK);
    if (!be) return;
    enum { LOG = 10, N = 1 << LOG };
    size_t dom = cz_bls12_381_ntt_domain_bytes_for(LOG);
    size_t before = cz_backend_scratch_bytes(be, CZ_CURVE_BLS12_381, LOG, N);
    static cz_bls12_381_fr a[N], bb[N], c[N];
    for (int i = 0; i < N; i++) {
        cz_bls12_381_fr_random(&a[i], rng);
        cz_bls12_381_fr_random(&bb[i], rng);
        cz_bls12_381_fr_random(&c[i], rng);
    }
    CHECK(be->ops->compute_h(be, CZ_CURVE_BLS12_381, LOG, a, bb, c, NULL, &err) == CZ_OK);
    cz_budget_stats s;
    cz_budget_stats_get(b, &s);
    CHECK_MSG(s.by[CZ_MEM_SCRATCH] == dom, "scratch %zu, domain %zu", s.by[CZ_MEM_SCRATCH], dom);
    size_t after = cz_backend_scratch_bytes(be, CZ_CURVE_BLS12_381, LOG, N);
    CHECK(before == after + dom); /* kept: no longer part of a proof's scratch */
    cz_backend_free(be);
    cz_budget_stats_get(b, &s);
    CHECK(s.used == 0);
    /* a budget without room: the table is built for the call only */
    CHECK(cz_budget_reserve(b, CZ_MEM_WORKSET, ((size_t)64 << 20) - dom / 2, 0, NULL, &err) == CZ_OK);
    CHECK(cz_backend_cpu_create(&be, &o, &err) == CZ_OK);
    CHECK(be->ops->compute_h(be, CZ_CURVE_BLS12_381, LOG, a, bb, c, NULL, &err) == CZ_OK);
    cz_budget_stats_get(b, &s);
    CHECK(s.by[CZ_MEM_SCRATCH] == 0 && cz_backend_scratch_bytes(be, CZ_CURVE_BLS12_381, LOG, N) == before);
    /* an unknown curve is refused, not run as another curve */
    cz_error_clear(&err);
    CHECK(be->ops->compute_h(be, (cz_curve)7, LOG, a, bb, c, NULL, &err) == CZ_ERR_INVALID_ARG);
    cz_bls12_381_g1 r;
    CHECK(be->ops->msm_g1(be, (cz_curve)7, &r, a, a, 1, CZ_MSM_MONTGOMERY, &err) == CZ_ERR_INVALID_ARG);
    cz_backend_free(be);
    cz_budget_release(b, CZ_MEM_WORKSET, ((size_t)64 << 20) - dom / 2);
    cz_budget_free(b);
}

int main(void)
{
    cz_rng rng;
    cz_test_seed(&rng, "test_backend");
    test_devspec();
    test_create();
    test_table_words();
    test_fallback(&rng);
    test_cpu_budget(&rng);
    return cz_test_finish("test_backend");
}
