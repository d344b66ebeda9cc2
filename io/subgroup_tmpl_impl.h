/*
 * The subgroup checks of io/subgroup.h for one group, instantiated from
 * io/subgroup.c by util/foreach_group.h (CZ_EC, CZ_EC_C). The group's test
 * parameters are CZ_EC_C_SUBGROUP_BASE (the smallest prime of its cofactor;
 * 0 for cofactor 1) and CZ_EC_C_SUBGROUP_DIGITS (the digits of the most
 * buckets), defined in io/subgroup.c.
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define SG_FN(x) CZ_CAT(CZ_CAT(CZ_EC, _sg_), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)
#define CZ_EC_X CZ_CAT(CZ_EC, _xyzz)
#define SG_BASE CZ_CAT(CZ_EC_C, _SUBGROUP_BASE)
#define SG_DIGITS CZ_CAT(CZ_EC_C, _SUBGROUP_DIGITS)

static int SG_FN(point_ok)(const void *p)
{
    return CZ_EFN(affine_in_subgroup)((const CZ_EC_A *)p);
}

#if SG_BASE > 0
/* buckets [lo, hi) of task k: every point whose bucket index falls there */
typedef struct {
    const CZ_EC_A *pts;
    const uint16_t *coef;
    uint64_t n;
    CZ_EC_X *bk;
    uint64_t nb, ntasks;
} SG_FN(bucket_ctx);

static void SG_FN(bucket_task)(void *arg, size_t k, int thread)
{
    SG_FN(bucket_ctx) *c = arg;
    (void)thread;
    const uint64_t lo = c->nb * k / c->ntasks, hi = c->nb * (k + 1) / c->ntasks;
    for (uint64_t j = lo; j < hi; j++)
        CZ_EFN(xyzz_set_inf)(&c->bk[j]);
    for (uint64_t i = 0; i < c->n; i++) {
        const uint64_t j = c->coef[i];
        if (j >= lo && j < hi && j != 0) CZ_EFN(xyzz_add_affine)(&c->bk[j], &c->bk[j], &c->pts[i]);
    }
}

/* t holds L x H points (index lo + L hi); low: out[lo] = sum over hi, else
 * out[hi] = sum over lo */
typedef struct {
    const CZ_EC_X *t;
    CZ_EC_X *out;
    uint64_t L, H;
    int low;
} SG_FN(contract_ctx);

static void SG_FN(contract_range)(void *arg, size_t b, size_t e, int thread)
{
    SG_FN(contract_ctx) *c = arg;
    (void)thread;
    for (size_t o = b; o < e; o++) {
        CZ_EC_X acc;
        CZ_EFN(xyzz_set_inf)(&acc);
        if (c->low)
            for (uint64_t hi = 0; hi < c->H; hi++)
                CZ_EFN(xyzz_add)(&acc, &acc, &c->t[o + c->L * hi]);
        else
            for (uint64_t lo = 0; lo < c->L; lo++)
                CZ_EFN(xyzz_add)(&acc, &acc, &c->t[lo + c->L * o]);
        c->out[o] = acc;
    }
}

/* t: base^k buckets over k digit positions; out[p * base + d] = the sum of
 * the buckets whose digit p is d, for p < k, d < base */
static cz_status SG_FN(marginals)(const CZ_EC_X *t, uint64_t base, uint32_t k, CZ_EC_X *out)
{
    if (k == 1) {
        memcpy(out, t, base * sizeof *out);
        return CZ_OK;
    }
    const uint32_t a = k / 2;
    uint64_t L = 1, H = 1;
    for (uint32_t i = 0; i < a; i++)
        L *= base;
    for (uint32_t i = a; i < k; i++)
        H *= base;
    CZ_EC_X *tl = malloc(L * sizeof *tl), *th = malloc(H * sizeof *th);
    cz_status st = CZ_ERR_NO_MEMORY;
    if (tl && th) {
        SG_FN(contract_ctx) cl = {t, tl, L, H, 1}, ch = {t, th, L, H, 0};
        cz_parallel_for(cz_pool_default(), (size_t)L, 16, SG_FN(contract_range), &cl);
        cz_parallel_for(cz_pool_default(), (size_t)H, 16, SG_FN(contract_range), &ch);
        st = SG_FN(marginals)(tl, base, a, out);
        if (st == CZ_OK) st = SG_FN(marginals)(th, base, k - a, out + (uint64_t)a * base);
    }
    free(tl);
    free(th);
    return st;
}

typedef struct {
    uint16_t *coef;
    uint64_t seed, nb;
} SG_FN(coef_ctx);

static void SG_FN(coef_range)(void *arg, size_t b, size_t e, int thread)
{
    SG_FN(coef_ctx) *c = arg;
    (void)thread;
    for (size_t i = b; i < e; i++)
        c->coef[i] = (uint16_t)(sg_mix(c->seed + (uint64_t)i * SG_GOLDEN) % c->nb);
}

/* the combination test of n points with m digits of base `base` (at most
 * SG_BASE: the digits must not reach the smallest prime of the cofactor) */
static cz_status SG_FN(combine)(const void *pts, uint64_t n, uint64_t base, uint32_t m, uint64_t seed, int *bad)
{
    _Static_assert((uint64_t)SG_BASE > 1, "a cofactor prime");
    uint64_t nb = 1;
    for (uint32_t i = 0; i < m; i++)
        nb *= base;
    *bad = 0;
    uint16_t *coef = malloc((size_t)n * sizeof *coef);
    CZ_EC_X *bk = malloc((size_t)nb * sizeof *bk), *marg = malloc((size_t)m * base * sizeof *marg);
    cz_status st = CZ_ERR_NO_MEMORY;
    if (!coef || !bk || !marg) goto out;
    if (base < 2 || base > SG_BASE || nb > 65536) {
        st = CZ_ERR_INVALID_ARG;
        goto out;
    }
    cz_pool *pool = cz_pool_default();
    SG_FN(coef_ctx) cc = {coef, seed, nb};
    cz_parallel_for(pool, (size_t)n, 1 << 14, SG_FN(coef_range), &cc);
    uint64_t ntasks = 2 * (uint64_t)cz_pool_threads(pool);
    if (ntasks > nb) ntasks = nb;
    SG_FN(bucket_ctx) bc = {(const CZ_EC_A *)pts, coef, n, bk, nb, ntasks};
    cz_pool_run(pool, (size_t)ntasks, SG_FN(bucket_task), &bc);
    if ((st = SG_FN(marginals)(bk, base, m, marg)) != CZ_OK) goto out;
    for (uint32_t p = 0; p < m && !*bad; p++) {
        /* S_p = sum_d d * marg[p][d], by running sums from the top digit */
        CZ_EC_X run, acc;
        CZ_EFN(xyzz_set_inf)(&run);
        CZ_EFN(xyzz_set_inf)(&acc);
        for (uint64_t d = base - 1; d >= 1; d--) {
            CZ_EFN(xyzz_add)(&run, &run, &marg[p * base + d]);
            CZ_EFN(xyzz_add)(&acc, &acc, &run);
        }
        CZ_EC s;
        CZ_EFN(from_xyzz)(&s, &acc);
        if (!CZ_EFN(in_subgroup)(&s)) *bad = 1;
    }
out:
    free(coef);
    free(bk);
    free(marg);
    return st;
}
#define SG_COMBINE_ SG_FN(combine)
#else
#define SG_COMBINE_ NULL
#endif

static const sg_row SG_FN(row_) = {
    /* .base               = */ SG_BASE,
    /* .digits             = */ SG_DIGITS,
    /* .affine_bytes       = */ sizeof(CZ_EC_A),
    /* .point_ok           = */ SG_FN(point_ok),
    /* .combine            = */ SG_COMBINE_,
};

#undef SG_COMBINE_
#undef CZ_EFN
#undef SG_FN
#undef CZ_EC_A
#undef CZ_EC_X
#undef SG_BASE
#undef SG_DIGITS
