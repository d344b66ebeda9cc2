/*
 * Fixed-base multiplication (see msm/fixed_base.h), instantiated from
 * msm/fixed_base.c once per group by util/foreach_group.h; from CZ_EC,
 * CZ_EC_F, CZ_EC_FR:
 *   CZ_FB_G   the group prefix (cz_bn254_g1, ...)
 *   CZ_FB_F   its coordinate field (cz_bn254_fq, cz_bn254_fq2, ...)
 *   CZ_FB_FR  its scalar field (cz_bn254_fr, cz_bls12_381_fr)
 *   CZ_FB_BITS  bits of the scalar field's modulus
 */
#define CZ_FB_G CZ_EC
#define CZ_FB_F CZ_EC_F
#define CZ_FB_FR CZ_EC_FR
#define CZ_FB_BITS CZ_CAT(CZ_EC_FR, _BITS)
#define FB(x) CZ_CAT(CZ_CAT(CZ_FB_G, _), x)
#define FF(x) CZ_CAT(CZ_CAT(CZ_FB_F, _), x)
#define FR(x) CZ_CAT(CZ_CAT(CZ_FB_FR, _), x)
#define FB_A CZ_CAT(CZ_FB_G, _affine)
#define FB_T CZ_CAT(CZ_FB_G, _fb)

struct FB_T {
    int w;       /* window bits */
    int nwin;    /* W = ceil((bits + 1) / w) */
    size_t half; /* 2^(w-1) entries per window */
    FB_A *table; /* nwin x half: T[k][m] = (m + 1) 2^(w k) P */
};

static int FB(fb_nwin)(int w)
{
    return (CZ_FB_BITS + 1 + w - 1) / w;
}

size_t FB(fb_table_bytes_for)(int w)
{
    if (w < 2 || w > CZ_FB_MAX_WINDOW) return 0;
    return (size_t)FB(fb_nwin)(w) * ((size_t)1 << (w - 1)) * sizeof(FB_A);
}

int FB(fb_auto_window)(size_t n_hint)
{
    /* cost in point additions: the outputs (W - 1 each) plus building the
     * table (about 2 additions' worth per entry: Jacobian running sums and
     * their normalisation) */
    double n = n_hint ? (double)n_hint : 1.0;
    int best = 2;
    double best_cost = -1;
    for (int w = 2; w <= CZ_FB_MAX_WINDOW; w++) {
        if (FB(fb_table_bytes_for)(w) > CZ_FB_MAX_TABLE) break;
        int W = FB(fb_nwin)(w);
        double cost = n * (W - 1) + 2.0 * W * (double)((size_t)1 << (w - 1));
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

int FB(fb_window)(const FB_T *t)
{
    return t->w;
}
size_t FB(fb_table_bytes)(const FB_T *t)
{
    return t ? (size_t)t->nwin * t->half * sizeof(FB_A) : 0;
}

void FB(fb_free)(FB_T *t)
{
    if (!t) return;
    free(t->table);
    free(t);
}

/* ---- table build ---- */

enum { FB(BUILD_RANGE) = 4096 };

typedef struct {
    FB_T *t;
    const FB_A *bk; /* 2^(w k) P for each window, affine */
    size_t ranges;  /* tasks per window */
    int failed;
} FB(build_ctx);

static void FB(build_task)(void *arg, size_t idx, int thread)
{
    FB(build_ctx) *c = arg;
    (void)thread;
    size_t k = idx / c->ranges, r = idx % c->ranges;
    size_t m0 = r * FB(BUILD_RANGE), m1 = m0 + FB(BUILD_RANGE);
    if (m1 > c->t->half) m1 = c->t->half;
    if (m0 >= m1) return;
    CZ_FB_G *J = malloc((m1 - m0) * sizeof(CZ_FB_G));
    if (!J) {
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    CZ_FB_G base, s;
    FB(from_affine)(&base, &c->bk[k]);
    uint64_t first = (uint64_t)m0 + 1;
    FB(mul)(&s, &base, &first, 1);
    for (size_t m = m0; m < m1; m++) {
        J[m - m0] = s;
        FB(add_affine)(&s, &s, &c->bk[k]);
    }
    if (FB(batch_to_affine)(c->t->table + k * c->t->half + m0, J, m1 - m0) != CZ_OK)
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    free(J);
}

cz_status FB(fb_create)(FB_T **out, const FB_A *base, size_t n_hint, int window, cz_pool *pool)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (!base || window < 0 || window == 1 || window > CZ_FB_MAX_WINDOW) return CZ_ERR_INVALID_ARG;
    if (!pool) pool = cz_pool_default();
    int w = window ? window : FB(fb_auto_window)(n_hint);
    FB_T *t = calloc(1, sizeof *t);
    if (!t) return CZ_ERR_NO_MEMORY;
    t->w = w;
    t->nwin = FB(fb_nwin)(w);
    t->half = (size_t)1 << (w - 1);
    t->table = malloc(FB(fb_table_bytes_for)(w));
    FB_A *bk = malloc((size_t)t->nwin * sizeof(FB_A));
    CZ_FB_G *bj = malloc((size_t)t->nwin * sizeof(CZ_FB_G));
    if (!t->table || !bk || !bj) {
        free(bk);
        free(bj);
        FB(fb_free)(t);
        return CZ_ERR_NO_MEMORY;
    }
    /* window bases 2^(w k) P: w doublings apart */
    FB(from_affine)(&bj[0], base);
    for (int k = 1; k < t->nwin; k++) {
        bj[k] = bj[k - 1];
        for (int i = 0; i < w; i++)
            FB(dbl)(&bj[k], &bj[k]);
    }
    cz_status st = FB(batch_to_affine)(bk, bj, (size_t)t->nwin);
    free(bj);
    if (st != CZ_OK) {
        free(bk);
        FB(fb_free)(t);
        return st;
    }
    FB(build_ctx) c = {t, bk, (t->half + FB(BUILD_RANGE) - 1) / FB(BUILD_RANGE), 0};
    cz_pool_run(pool, (size_t)t->nwin * c.ranges, FB(build_task), &c);
    free(bk);
    if (c.failed) {
        FB(fb_free)(t);
        return CZ_ERR_NO_MEMORY;
    }
    *out = t;
    return CZ_OK;
}

/* ---- multiplication ---- */

/* w <= 18 bits of l starting at bit pos (zero beyond the 4 limbs) */
static inline uint32_t FB(bits_at)(const uint64_t l[4], unsigned pos, unsigned w)
{
    unsigned li = pos >> 6, sh = pos & 63;
    if (li >= 4) return 0;
    uint64_t v = l[li] >> sh;
    if (sh + w > 64 && li + 1 < 4) v |= l[li + 1] << (64 - sh);
    return (uint32_t)(v & (((uint64_t)1 << w) - 1));
}

typedef struct {
    const FB_T *t;
    FB_A *out;
    const uint8_t *scalars;
    size_t n;
    int montgomery;
    uint8_t *scratch; /* per thread */
    size_t scratch_per_thread;
    uint64_t bad; /* smallest out-of-range scalar index, or UINT64_MAX */
} FB(mul_ctx);

static size_t FB(mul_scratch)(const FB_T *t)
{
    size_t b = CZ_FB_BLOCK;
    size_t s = (size_t)t->nwin * b * sizeof(int32_t); /* digits, window-major */
    s += b * sizeof(uint32_t);                        /* accumulator indices */
    s = (s + 63) & ~(size_t)63;
    s += b * sizeof(FB_A); /* gathered entries */
    s += (FB(batch_scratch_size)(b) + 63) & ~(size_t)63;
    return s;
}

static void FB(mul_block)(void *arg, size_t blk, int thread)
{
    FB(mul_ctx) *c = arg;
    const FB_T *t = c->t;
    size_t i0 = blk * CZ_FB_BLOCK, nb = c->n - i0;
    if (nb > CZ_FB_BLOCK) nb = CZ_FB_BLOCK;
    uint8_t *scr = c->scratch + (size_t)thread * c->scratch_per_thread;
    int32_t *dig = (int32_t *)scr;
    uint32_t *ai = (uint32_t *)(dig + (size_t)t->nwin * CZ_FB_BLOCK);
    FB_A *q = (FB_A *)(scr + (((size_t)t->nwin * CZ_FB_BLOCK * sizeof(int32_t) + CZ_FB_BLOCK * sizeof(uint32_t) + 63) &
                              ~(size_t)63));
    void *bscr = (uint8_t *)q + CZ_FB_BLOCK * sizeof(FB_A);
    FB_A *acc = c->out + i0;
    const unsigned w = (unsigned)t->w;
    const int32_t half = (int32_t)t->half;

    /* signed digits of every scalar of the block */
    for (size_t i = 0; i < nb; i++) {
        const uint8_t *sp = c->scalars + 32 * (i0 + i);
        uint64_t l[4];
        memcpy(l, sp, 32);
        if (!FR(limbs_in_range)(l)) {
            uint64_t idx = i0 + i, cur = __atomic_load_n(&c->bad, __ATOMIC_RELAXED);
            while (idx < cur &&
                   !__atomic_compare_exchange_n(&c->bad, &cur, idx, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            memset(l, 0, sizeof l);
        } else if (c->montgomery) {
            CZ_FB_FR e;
            memcpy(e.l, l, 32);
            FR(to_canonical)(l, &e);
        }
        int32_t carry = 0;
        for (int k = 0; k < t->nwin; k++) {
            int32_t v = (int32_t)FB(bits_at)(l, (unsigned)k * w, w) + carry;
            carry = v > half;
            dig[(size_t)k * CZ_FB_BLOCK + i] = v - (carry << w);
        }
        CZ_VERIFY_CHECK(carry == 0);
        FB(affine_set_inf)(&acc[i]);
    }
    /* window by window: gather +-T[k][|d| - 1], add into the accumulators */
    for (int k = 0; k < t->nwin; k++) {
        const int32_t *dk = dig + (size_t)k * CZ_FB_BLOCK;
        const FB_A *tk = t->table + (size_t)k * t->half;
        size_t m = 0;
        for (size_t i = 0; i < nb; i++) {
            int32_t d = dk[i];
            if (i + 8 < nb && dk[i + 8]) {
                int32_t dn = dk[i + 8];
                __builtin_prefetch(&tk[(dn < 0 ? -dn : dn) - 1]);
            }
            if (!d) continue;
            if (d > 0) {
                q[m] = tk[d - 1];
            } else {
                FB(affine_neg)(&q[m], &tk[-d - 1]);
            }
            ai[m++] = (uint32_t)i;
        }
        if (m) FB(batch_acc_affine)(acc, ai, q, NULL, m, bscr);
    }
}

cz_status FB(fb_mul)(const FB_T *t, FB_A *out, const uint8_t *scalars, size_t n, cz_msm_scalar_form form, cz_pool *pool)
{
    if (n == 0) return CZ_OK;
    if (!t || !out || !scalars || (form != CZ_MSM_CANONICAL && form != CZ_MSM_MONTGOMERY)) return CZ_ERR_INVALID_ARG;
    if (!pool) pool = cz_pool_default();
    size_t nblocks = (n + CZ_FB_BLOCK - 1) / CZ_FB_BLOCK;
    FB(mul_ctx) c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.out = out;
    c.scalars = scalars;
    c.n = n;
    c.montgomery = form == CZ_MSM_MONTGOMERY;
    c.scratch_per_thread = FB(mul_scratch)(t);
    c.bad = UINT64_MAX;
    /* thread indices run up to the pool's size even when fewer blocks exist */
    size_t nthr = (size_t)cz_pool_threads(pool);
    c.scratch = aligned_alloc(64, nthr * c.scratch_per_thread);
    if (!c.scratch) return CZ_ERR_NO_MEMORY;
    cz_pool_run(pool, nblocks, FB(mul_block), &c);
    free(c.scratch);
    return c.bad == UINT64_MAX ? CZ_OK : CZ_ERR_RANGE;
}

#undef CZ_FB_G
#undef CZ_FB_F
#undef CZ_FB_FR
#undef CZ_FB_BITS
#undef FB
#undef FF
#undef FR
#undef FB_A
#undef FB_T
