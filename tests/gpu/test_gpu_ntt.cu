/*
 * GPU test (label gpu): cz_cuda_ntt and cz_cuda_compute_h on the GPU against
 * the CPU: ntt/ntt.h for the transforms, the CPU backend's compute_h for the
 * H step. Fresh random inputs (seed printed; CZ_TEST_SEED reproduces), both
 * curves, results compared byte for byte. Exits 77 (skipped) when there is
 * no GPU.
 *
 *  - forward, inverse, coset forward, coset inverse for 2^0..2^22 (2^24 with
 *    CZ_GPU_TEST_BIG=1), each in five modes of cuda/ntt.cu: the default pass
 *    kernel (above 2^11 out of place with the bit reversal in a pass), the
 *    simple per-level kernel (cz_cuda_opts ntt_simple), 2^4-element tiles
 *    (many passes, column tiles from 2^5 on), 2^12-element tiles (over 48 KiB
 *    of shared memory) and the default passes with the bit reversal's own
 *    kernel (ntt_rev_kernel); pageable host memory, and pinned memory at a
 *    few sizes;
 *  - compute_h for 2^0..2^22 (2^24 with BIG) in the same modes, against the
 *    CPU backend; from pageable, pinned and mixed host memory (chunked
 *    staging from 2^20 on); each also with c NULL (c = a o b formed on the
 *    device) against the CPU's H step of a, b, a o b, and the bytes
 *    uploaded (3 n or 2 n elements);
 *  - 2^24: inverse(forward(x)) = x and coset_inverse(coset_forward(x)) = x,
 *    plus two outputs of the forward transform checked by Horner's rule on
 *    the CPU (a wrong but invertible transform cannot pass);
 *  - the device-resident entry points cz_cuda_ntt_dev / cz_cuda_compute_h_dev
 *    (cuda/ntt.cuh) at 2^5 and 2^21, and their refusal of misaligned pointers;
 *  - errors: sizes above the 2-adicity (CZ_ERR_RANGE), bad arguments, an H
 *    step that cannot fit (BLS12-381 2^32: CZ_ERR_DEVICE_MEMORY), and the
 *    context still working afterwards; with BIG also BN254 at its limit 2^28
 *    (round trip, or CZ_ERR_DEVICE_MEMORY if the GPU is too small).
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda/cuda.h"
#include "cuda/ntt.cuh"
#include "ntt/ntt.h"
#include "test_util.h"
extern "C" {
#include "backend/backend.h"
}

typedef struct {
    uint64_t l[4];
} el; /* an element of either scalar field (32 bytes, Montgomery) */

static cz_rng rng;
static cz_cuda *gpu;
static cz_backend *cpu_be;
static int big;

/* ---- the two fields on the CPU ---- */

typedef struct {
    cz_curve curve;
    const char *name;
    unsigned s;
    void (*random)(el *, cz_rng *);
    void (*mul)(el *, const el *, const el *);
    void (*add)(el *, const el *, const el *);
    cz_status (*root)(el *, unsigned);
    cz_status (*create)(void **, unsigned);
    void (*destroy)(void *);
    cz_status (*op)(const void *, el *, int, unsigned);
} field_t;

#define FIELD_FNS(P, F)                                                                                                \
    static void P##_rnd(el *r, cz_rng *g) { F##_random((F *)r, g); }                                                   \
    static void P##_mul(el *r, const el *a, const el *b) { F##_mul((F *)r, (const F *)a, (const F *)b); }              \
    static void P##_add(el *r, const el *a, const el *b) { F##_add((F *)r, (const F *)a, (const F *)b); }              \
    static cz_status P##_root(el *r, unsigned k) { return P##_root_of_unity((F *)r, k); }                              \
    static cz_status P##_create(void **d, unsigned k) { return P##_domain_create((P##_domain **)d, k); }               \
    static void P##_destroy(void *d) { P##_domain_free((P##_domain *)d); }                                             \
    static cz_status P##_op(const void *dv, el *a, int op, unsigned k)                                                 \
    {                                                                                                                  \
        const P##_domain *d = (const P##_domain *)dv;                                                                  \
        F g;                                                                                                           \
        P##_coset_shift(&g, k);                                                                                        \
        switch (op) {                                                                                                  \
        case 0: return P##_forward(d, (F *)a, NULL);                                                                   \
        case 1: return P##_inverse(d, (F *)a, NULL);                                                                   \
        case 2: return P##_coset_forward(d, (F *)a, &g, NULL);                                                         \
        default: return P##_coset_inverse(d, (F *)a, &g, NULL);                                                        \
        }                                                                                                              \
    }
FIELD_FNS(cz_bn254_ntt, cz_bn254_fr)
FIELD_FNS(cz_bls12_381_ntt, cz_bls12_381_fr)

static const field_t FIELDS[2] = {
    {CZ_CURVE_BN254, "bn254", CZ_BN254_FR_S, cz_bn254_ntt_rnd, cz_bn254_ntt_mul, cz_bn254_ntt_add,
     cz_bn254_ntt_root, cz_bn254_ntt_create, cz_bn254_ntt_destroy, cz_bn254_ntt_op},
    {CZ_CURVE_BLS12_381, "bls12_381", CZ_BLS12_381_FR_S, cz_bls12_381_ntt_rnd, cz_bls12_381_ntt_mul,
     cz_bls12_381_ntt_add, cz_bls12_381_ntt_root, cz_bls12_381_ntt_create, cz_bls12_381_ntt_destroy,
     cz_bls12_381_ntt_op},
};

/* n random elements: uniform for small n; for large n random integers below
 * 2^253 (< r for both fields, so valid Montgomery residues) for speed. */
static void fill(const field_t *f, el *a, size_t n)
{
    if (n <= ((size_t)1 << 16)) {
        for (size_t i = 0; i < n; i++)
            f->random(&a[i], &rng);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 4; j++)
            a[i].l[j] = cz_rng_u64(&rng);
        a[i].l[3] &= ((uint64_t)1 << 61) - 1;
    }
}

/* ---- modes of cuda/ntt.cu (environment knobs, read per call) ---- */

typedef struct {
    const char *name, *ntt, *tile, *cols;
    int rev_kernel;
} mode_t_;
static const mode_t_ MODES[] = {
    {"passes", NULL, NULL, NULL, 0},
    {"simple", "simple", NULL, NULL, 0},
    {"2^4 tiles", NULL, "4", "1", 0},
    {"2^12 tiles", NULL, "12", "3", 0},
    {"passes, bit reversal kernel", NULL, NULL, NULL, 1},
};
enum { NMODES = sizeof MODES / sizeof MODES[0] };

static void set_mode(int m)
{
    cz_cuda_opts o;
    memset(&o, 0, sizeof o);
    o.ntt_simple = MODES[m].ntt != NULL;
    o.ntt_tile = MODES[m].tile ? atoi(MODES[m].tile) : 0;
    o.ntt_cols = MODES[m].cols ? atoi(MODES[m].cols) : 0;
    o.ntt_rev_kernel = MODES[m].rev_kernel;
    cz_error e;
    cz_error_clear(&e);
    CHECK_MSG(cz_cuda_set_opts(gpu, &o, &e) == CZ_OK, "cz_cuda_set_opts: %s", cz_error_msg(&e));
}

static const char *OP_NAME[4] = {"forward", "inverse", "coset forward", "coset inverse"};

/* A host buffer of n elements, pinned (cudaHostAlloc) or pageable. */
struct hbuf {
    el *p;
    int pinned;
    hbuf(size_t n, int pin) : p(NULL), pinned(pin)
    {
        if (pin) {
            if (cudaHostAlloc((void **)&p, n * sizeof(el), cudaHostAllocDefault) != cudaSuccess) {
                (void)cudaGetLastError();
                p = NULL;
            }
        } else {
            p = (el *)malloc(n * sizeof(el));
        }
    }
    ~hbuf()
    {
        if (pinned)
            cudaFreeHost(p);
        else
            free(p);
    }
};

/* ---- transforms against ntt/ntt.h ---- */

static void test_ops(const field_t *f)
{
    const unsigned kmax = big ? 24 : 22;
    for (unsigned k = 0; k <= kmax; k++) {
        const size_t n = (size_t)1 << k;
        void *d = NULL;
        CHECK(f->create(&d, k) == CZ_OK);
        std::vector<el> in(n), want(n), got(n);
        fill(f, in.data(), n);
        for (int op = 0; op < 4; op++) {
            want = in;
            CHECK(f->op(d, want.data(), op, k) == CZ_OK);
            for (int m = 0; m < NMODES; m++) {
                set_mode(m);
                got = in;
                cz_error err;
                cz_error_clear(&err);
                cz_status st = cz_cuda_ntt(gpu, f->curve, k, got.data(), op & 1, op >> 1, &err);
                CHECK_MSG(st == CZ_OK, "%s %s 2^%u (%s): %s", f->name, OP_NAME[op], k, MODES[m].name,
                          cz_error_msg(&err));
                CHECK_MSG(memcmp(got.data(), want.data(), n * sizeof(el)) == 0, "%s %s 2^%u (%s) differs from the CPU",
                          f->name, OP_NAME[op], k, MODES[m].name);
            }
            set_mode(0);
            /* from pinned memory */
            if (k == 12 || k == 20 || k == kmax) {
                hbuf h(n, 1);
                CHECK(h.p != NULL);
                if (h.p) {
                    memcpy(h.p, in.data(), n * sizeof(el));
                    cz_error err;
                    cz_error_clear(&err);
                    CHECK(cz_cuda_ntt(gpu, f->curve, k, h.p, op & 1, op >> 1, &err) == CZ_OK);
                    CHECK_MSG(memcmp(h.p, want.data(), n * sizeof(el)) == 0, "%s %s 2^%u from pinned memory", f->name,
                              OP_NAME[op], k);
                }
            }
        }
        f->destroy(d);
    }
}

/* ---- the H step against the CPU backend ---- */

/* c NULL: c = a o b formed on the device (backend.h); what crossed the bus
 * (cz_cuda_last_upload) is a, b (and c where given) */
static void run_h(const field_t *f, unsigned k, const el *a, const el *b, const el *c, const el *want, int pa,
                  int pb, int pc, const char *what)
{
    const size_t n = (size_t)1 << k;
    hbuf x(n, pa), y(n, pb), z(c ? n : 0, pc);
    CHECK(x.p && y.p && (z.p || !c));
    if (!x.p || !y.p || (!z.p && c)) return;
    memcpy(x.p, a, n * sizeof(el));
    memcpy(y.p, b, n * sizeof(el));
    if (c) memcpy(z.p, c, n * sizeof(el));
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_cuda_compute_h(gpu, f->curve, k, x.p, y.p, c ? z.p : NULL, &err);
    CHECK_MSG(st == CZ_OK, "%s H step 2^%u (%s%s): %s", f->name, k, what, c ? "" : ", c = a o b", cz_error_msg(&err));
    CHECK_MSG(memcmp(x.p, want, n * sizeof(el)) == 0, "%s H step 2^%u (%s%s) differs from the CPU backend", f->name,
              k, what, c ? "" : ", c = a o b");
    uint64_t up = 0;
    double up_s = 0;
    cz_cuda_last_upload(gpu, &up, &up_s);
    CHECK_MSG(up == (c ? 3 : 2) * n * sizeof(el), "%s H step 2^%u (%s): %llu bytes uploaded", f->name, k, what,
              (unsigned long long)up);
}

static void test_h(const field_t *f)
{
    const unsigned kmax = big ? 24 : 22;
    for (unsigned k = 0; k <= kmax; k++) {
        const size_t n = (size_t)1 << k;
        std::vector<el> a(n), b(n), c(n);
        fill(f, a.data(), n);
        fill(f, b.data(), n);
        fill(f, c.data(), n);
        std::vector<el> want = a, wb = b, wc = c;
        cz_error err;
        cz_error_clear(&err);
        CHECK(cpu_be->ops->compute_h(cpu_be, f->curve, k, want.data(), wb.data(), wc.data(), NULL, &err) == CZ_OK);
        /* c = a o b: the CPU backend's with c given (test_backend: its own
         * c NULL path gives the same) */
        std::vector<el> want_ab = a, wb2 = b, wab(n);
        for (size_t i = 0; i < n; i++) f->mul(&wab[i], &a[i], &b[i]);
        CHECK(cpu_be->ops->compute_h(cpu_be, f->curve, k, want_ab.data(), wb2.data(), wab.data(), NULL, &err) == CZ_OK);
        for (int m = 0; m < NMODES; m++) {
            set_mode(m);
            run_h(f, k, a.data(), b.data(), c.data(), want.data(), 0, 0, 0, MODES[m].name);
            run_h(f, k, a.data(), b.data(), NULL, want_ab.data(), 0, 0, 0, MODES[m].name);
        }
        set_mode(0);
        if (k == 10 || k == 20 || k == kmax) {
            run_h(f, k, a.data(), b.data(), c.data(), want.data(), 1, 1, 1, "pinned");
            run_h(f, k, a.data(), b.data(), c.data(), want.data(), 1, 0, 1, "pinned a, c");
            run_h(f, k, a.data(), b.data(), c.data(), want.data(), 0, 1, 0, "pinned b");
            run_h(f, k, a.data(), b.data(), NULL, want_ab.data(), 1, 1, 0, "pinned");
            run_h(f, k, a.data(), b.data(), NULL, want_ab.data(), 0, 1, 0, "pinned b");
        }
    }
}

/* ---- 2^24: round trips and Horner spot checks ---- */

static void test_big_roundtrip(const field_t *f, unsigned k)
{
    const size_t n = (size_t)1 << k;
    std::vector<el> x(n), y;
    fill(f, x.data(), n);
    for (int coset = 0; coset < 2; coset++) {
        y = x;
        cz_error err;
        cz_error_clear(&err);
        cz_status st = cz_cuda_ntt(gpu, f->curve, k, y.data(), 0, coset, &err);
        if (st == CZ_ERR_DEVICE_MEMORY && k > 24) {
            printf("%s 2^%u: does not fit on this GPU (%s)\n", f->name, k, cz_error_msg(&err));
            return;
        }
        CHECK_MSG(st == CZ_OK, "%s 2^%u forward: %s", f->name, k, cz_error_msg(&err));
        if (!coset && k <= 24) {
            /* out[i] = sum_j x_j w^(ij) at i = 1 and a random i, by Horner */
            el w, wi, acc;
            CHECK(f->root(&w, k) == CZ_OK);
            size_t idx[2] = {1, (size_t)(cz_rng_u64(&rng) & (n - 1))};
            for (int t = 0; t < 2; t++) {
                /* wi = w^idx */
                el one, p;
                memset(&one, 0, sizeof one);
                f->root(&one, 0); /* w[0] = 1 */
                wi = one;
                p = w;
                for (size_t e = idx[t]; e; e >>= 1) {
                    if (e & 1) f->mul(&wi, &wi, &p);
                    f->mul(&p, &p, &p);
                }
                acc = x[n - 1];
                for (size_t j = n - 1; j-- > 0;) {
                    f->mul(&acc, &acc, &wi);
                    f->add(&acc, &acc, &x[j]);
                }
                CHECK_MSG(memcmp(&acc, &y[idx[t]], sizeof acc) == 0, "%s 2^%u forward: output %zu != Horner", f->name,
                          k, idx[t]);
            }
        }
        cz_error_clear(&err);
        st = cz_cuda_ntt(gpu, f->curve, k, y.data(), 1, coset, &err);
        CHECK_MSG(st == CZ_OK, "%s 2^%u inverse: %s", f->name, k, cz_error_msg(&err));
        CHECK_MSG(memcmp(x.data(), y.data(), n * sizeof(el)) == 0, "%s 2^%u: %s round trip is not the identity",
                  f->name, k, coset ? "coset" : "plain");
    }
}

/* ---- the device-resident entry points (cuda/ntt.cuh) ---- */

static void test_dev_api(const field_t *f, unsigned k)
{
    const size_t n = (size_t)1 << k, bytes = n * sizeof(el);
    std::vector<el> a(n), b(n), c(n), x(n);
    fill(f, a.data(), n);
    fill(f, b.data(), n);
    fill(f, c.data(), n);
    void *d[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int i = 0; i < 3; i++)
        ok = ok && cudaMalloc(&d[i], bytes) == cudaSuccess;
    CHECK(ok);
    cz_error err;
    if (ok) {
        /* coset forward of a, against ntt/ntt.h */
        std::vector<el> want = a;
        void *dom = NULL;
        CHECK(f->create(&dom, k) == CZ_OK);
        CHECK(f->op(dom, want.data(), 2, k) == CZ_OK);
        f->destroy(dom);
        cz_error_clear(&err);
        /* (a pageable cudaMemcpy may return before its DMA is done, and the
         * context's streams do not wait for the legacy stream: synchronise) */
        CHECK(cudaMemcpy(d[0], a.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK_MSG(cz_cuda_ntt_dev(gpu, f->curve, k, d[0], 0, 1, &err) == CZ_OK, "%s", cz_error_msg(&err));
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(cudaMemcpy(x.data(), d[0], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(x.data(), want.data(), bytes) == 0, "%s cz_cuda_ntt_dev 2^%u", f->name, k);
        /* the H step on device arrays, against the CPU backend */
        want = a;
        std::vector<el> wb = b, wc = c;
        cz_error_clear(&err);
        CHECK(cpu_be->ops->compute_h(cpu_be, f->curve, k, want.data(), wb.data(), wc.data(), NULL, &err) == CZ_OK);
        const el *src[3] = {a.data(), b.data(), c.data()};
        for (int i = 0; i < 3; i++)
            CHECK(cudaMemcpy(d[i], src[i], bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        cz_error_clear(&err);
        CHECK_MSG(cz_cuda_compute_h_dev(gpu, f->curve, k, d[0], d[1], d[2], &err) == CZ_OK, "%s",
                  cz_error_msg(&err));
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(cudaMemcpy(x.data(), d[0], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(x.data(), want.data(), bytes) == 0, "%s cz_cuda_compute_h_dev 2^%u", f->name, k);
        /* misaligned device pointers are refused */
        cz_error_clear(&err);
        CHECK(cz_cuda_ntt_dev(gpu, f->curve, k, (char *)d[0] + 8, 0, 0, &err) == CZ_ERR_INVALID_ARG);
        cz_error_clear(&err);
        CHECK(cz_cuda_compute_h_dev(gpu, f->curve, k, d[0], (char *)d[1] + 4, d[2], &err) == CZ_ERR_INVALID_ARG);
    }
    for (int i = 0; i < 3; i++)
        if (d[i]) cudaFree(d[i]);
}

/* ---- errors ---- */

static void test_errors(const field_t *f)
{
    el buf[4];
    memset(buf, 0, sizeof buf);
    cz_error err;
    cz_error_clear(&err);
    CHECK(cz_cuda_ntt(gpu, f->curve, f->s + 1, buf, 0, 0, &err) == CZ_ERR_RANGE);
    cz_error_clear(&err);
    CHECK(cz_cuda_ntt(gpu, f->curve, f->s + 1, buf, 1, 1, &err) == CZ_ERR_RANGE);
    cz_error_clear(&err);
    CHECK(cz_cuda_compute_h(gpu, f->curve, f->s + 1, buf, buf + 1, buf + 2, &err) == CZ_ERR_RANGE);
    cz_error_clear(&err);
    CHECK(cz_cuda_ntt(gpu, CZ_CURVE_NONE, 2, buf, 0, 0, &err) == CZ_ERR_INVALID_ARG);
    /* a curve value past the list is no curve either (never another curve's code) */
    for (int bad : {CZ_CURVE_COUNT + 1, 99, -1}) {
        cz_error_clear(&err);
        CHECK(cz_cuda_ntt(gpu, (cz_curve)bad, 2, buf, 0, 0, &err) == CZ_ERR_INVALID_ARG &&
              strstr(cz_error_msg(&err), "unknown curve"));
        cz_error_clear(&err);
        CHECK(cz_cuda_compute_h(gpu, (cz_curve)bad, 2, buf, buf + 1, buf + 2, &err) == CZ_ERR_INVALID_ARG);
        cz_error_clear(&err);
        CHECK(cz_cuda_ntt_prepare(gpu, (cz_curve)bad, 2, 1, 0, 0, &err) == CZ_ERR_INVALID_ARG);
    }
    cz_error_clear(&err);
    CHECK(cz_cuda_ntt(gpu, f->curve, 2, NULL, 0, 0, &err) == CZ_ERR_INVALID_ARG);
    cz_error_clear(&err);
    CHECK(cz_cuda_compute_h(gpu, f->curve, 2, buf, NULL, buf, &err) == CZ_ERR_INVALID_ARG);
    if (f->curve == CZ_CURVE_BLS12_381) {
        /* 3 x 2^32 x 32 bytes = 384 GiB: the scratch cannot be had (the host
         * arrays are never read: the allocation comes first) */
        cz_error_clear(&err);
        cz_status st = cz_cuda_compute_h(gpu, f->curve, 32, buf, buf + 1, buf + 2, &err);
        CHECK_MSG(st == CZ_ERR_DEVICE_MEMORY, "BLS12-381 H step of 2^32: %s", cz_error_msg(&err));
    }
    /* still usable: a small transform against the CPU */
    std::vector<el> x(64), want;
    fill(f, x.data(), 64);
    want = x;
    void *d = NULL;
    CHECK(f->create(&d, 6) == CZ_OK);
    CHECK(f->op(d, want.data(), 2, 6) == CZ_OK);
    f->destroy(d);
    cz_error_clear(&err);
    CHECK(cz_cuda_ntt(gpu, f->curve, 6, x.data(), 0, 1, &err) == CZ_OK);
    CHECK(memcmp(x.data(), want.data(), sizeof(el) * 64) == 0);
}

int main(void)
{
    cz_error err;
    cz_error_clear(&err);
    cz_status st = cz_cuda_open(&gpu, 0, &err);
    if (st == CZ_ERR_NO_DEVICE) {
        printf("test_gpu_ntt: no GPU: skipped (%s)\n", cz_error_msg(&err));
        return 77;
    }
    if (st != CZ_OK) {
        fprintf(stderr, "test_gpu_ntt: cz_cuda_open: %s\n", cz_error_msg(&err));
        return 1;
    }
    printf("test_gpu_ntt: %s\n", cz_cuda_name(gpu));
    cz_test_seed(&rng, "test_gpu_ntt");
    const char *b = getenv("CZ_GPU_TEST_BIG");
    big = b && atoi(b) > 0;
    if (cz_backend_cpu_create(&cpu_be, NULL, NULL) != CZ_OK) {
        fprintf(stderr, "test_gpu_ntt: no CPU backend\n");
        cz_cuda_close(gpu);
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        const field_t *f = &FIELDS[i];
        test_errors(f);
        test_ops(f);
        test_h(f);
        test_dev_api(f, 5);
        test_dev_api(f, 21);
        test_big_roundtrip(f, 24);
        printf("test_gpu_ntt: %s done (%ld failures so far)\n", f->name, cz_test_failed);
    }
    if (big) test_big_roundtrip(&FIELDS[0], CZ_BN254_FR_S);
    cz_backend_free(cpu_be);
    cz_cuda_close(gpu);
    return cz_test_finish("test_gpu_ntt");
}
