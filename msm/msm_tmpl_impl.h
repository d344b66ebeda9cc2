/*
 * MSM implementation template (see msm/msm.h for the design and contract),
 * instantiated from msm/msm.c once per group by util/foreach_group.h, with
 *   CZ_EC     group prefix / Jacobian type (cz_bls12_381_g1, ...)
 *   CZ_EC_F   coordinate field (cz_bls12_381_fq, cz_bls12_381_fq2, ...)
 *   CZ_EC_FR  scalar field (cz_bls12_381_fr, cz_bn254_fr)
 * It relies on the group-independent helpers of msm/msm.c (msm_plan,
 * msm_digit, msm_load4, ...).
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EF(x) CZ_CAT(CZ_CAT(CZ_EC_F, _), x)
#define CZ_RF(x) CZ_CAT(CZ_CAT(CZ_EC_FR, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)
#define CZ_EC_X CZ_CAT(CZ_EC, _xyzz)
#define CZ_MS(x) CZ_CAT(CZ_CAT(CZ_EC, _msm_), x) /* static helpers of this group */
#define CZ_MSM_RBITS ((int)CZ_RF(BITS))

/* ---- sizes ---------------------------------------------------------------- */

static msm_sizes CZ_MS(sizes)(void)
{
    msm_sizes s = {sizeof(CZ_EC_A), sizeof(CZ_EC_X), sizeof(CZ_EC_F), CZ_EFN(batch_scratch_size)};
    return s;
}

/* ---- the per-call context ------------------------------------------------- */

typedef struct {
    /* the chunk */
    const CZ_EC_A *bases;
    const uint8_t *scalars;
    size_t n;
    cz_msm_scalar_form form;
    /* preparation: nranges ranges of range_len points */
    size_t nranges, range_len;
    uint8_t *cls;      /* per point: MSM_SKIP / MSM_ONE / MSM_OTHER / MSM_BAD */
    size_t *cnt;       /* per range: MSM_OTHER count, then output offset */
    CZ_EC_X *ones;     /* per range: sum of the bases with scalar 1 */
    uint64_t (*sc)[4]; /* compacted canonical scalars */
    uint32_t *idx;     /* compacted base indices */
    size_t m;          /* compacted count */
    /* bucket phase */
    msm_plan plan;
    CZ_EC_X *res; /* plan.windows * plan.splits task results */
    uint8_t *tscratch;
    size_t tstride;
    size_t batch; /* forced batch size, 0 = automatic */
} CZ_MS(ctx);

/* ---- step 1: preparation ---------------------------------------------------- */

static void CZ_MS(classify_task)(void *arg, size_t r, int thread)
{
    CZ_MS(ctx) *x = arg;
    size_t lo = r * x->range_len, hi = lo + x->range_len < x->n ? lo + x->range_len : x->n;
    const uint64_t *mod = CZ_RF(modulus);
    const uint64_t *one = x->form == CZ_MSM_MONTGOMERY ? CZ_RF(ONE).l : msm_one4;
    CZ_EC_X acc;
    CZ_EFN(xyzz_set_inf)(&acc);
    size_t cnt = 0;
    int bad = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t s[4];
        msm_load4(s, x->scalars + 32 * i);
        uint8_t k;
        if (cz_limbs_cmp(s, mod, 4) >= 0) {
            k = MSM_BAD;
            bad = 1;
        } else if (cz_limbs_is_zero(s, 4) || CZ_EFN(affine_is_inf)(&x->bases[i])) {
            k = MSM_SKIP;
        } else if (cz_limbs_eq(s, one, 4)) {
            k = MSM_ONE;
            CZ_EFN(xyzz_add_affine)(&acc, &acc, &x->bases[i]);
        } else {
            k = MSM_OTHER;
            cnt++;
        }
        x->cls[i] = k;
    }
    x->cnt[r] = bad ? SIZE_MAX : cnt;
    x->ones[r] = acc;
}

static void CZ_MS(compact_task)(void *arg, size_t r, int thread)
{
    CZ_MS(ctx) *x = arg;
    size_t lo = r * x->range_len, hi = lo + x->range_len < x->n ? lo + x->range_len : x->n;
    size_t o = x->cnt[r];
    for (size_t i = lo; i < hi; i++) {
        if (x->cls[i] != MSM_OTHER) continue;
        uint64_t s[4];
        msm_load4(s, x->scalars + 32 * i);
        if (x->form == CZ_MSM_MONTGOMERY) {
            CZ_EC_FR f;
            memcpy(f.l, s, sizeof s);
            CZ_RF(to_canonical)(x->sc[o], &f);
        } else {
            memcpy(x->sc[o], s, sizeof s);
        }
        x->idx[o] = (uint32_t)(i);
        o++;
    }
}

/* ---- point helpers ----------------------------------------------------------- */

/* dst = neg ? -p : p */
static inline void CZ_MS(signed_copy)(CZ_EC_A *dst, const CZ_EC_A *p, int neg)
{
    dst->x = p->x;
    if (neg)
        CZ_EF(neg)(&dst->y, &p->y);
    else
        dst->y = p->y;
}

/* r = k p for a small k >= 1 (double-and-add) */
static void CZ_MS(mul_small)(CZ_EC_X *r, const CZ_EC_X *p, size_t k)
{
    CZ_EC_X acc = *p;
    int top = 63;
    while (!((k >> top) & 1))
        top--;
    for (int b = top - 1; b >= 0; b--) {
        CZ_EFN(xyzz_dbl)(&acc, &acc);
        if ((k >> b) & 1) CZ_EFN(xyzz_add)(&acc, &acc, p);
    }
    *r = acc;
}

/*
 * sum_{k < nb} (k + 1) B_k by running sums: run = sum_{j >= k} B_j, and the
 * total adds run once per k. While buckets are empty run stays the same, so
 * a gap of g empty buckets adds g run at once (log g doublings instead of g
 * additions): sparse bucket sets (small inputs, large windows) cost by their
 * filled buckets. Dense ones cost one mixed and one full addition per bucket.
 */
#define CZ_MSM_REDUCE(NAME, BT, IS_EMPTY, ADD_TO_RUN)                                                                  \
    static void CZ_MS(NAME)(CZ_EC_X * out, const BT *b, size_t nb)                                                     \
    {                                                                                                                  \
        CZ_EC_X run, tot, t;                                                                                           \
        CZ_EFN(xyzz_set_inf)(&run);                                                                                    \
        CZ_EFN(xyzz_set_inf)(&tot);                                                                                    \
        size_t pending = 0; /* steps of the current run not yet in tot */                                              \
        for (size_t k = nb; k-- > 0;) {                                                                                \
            if (IS_EMPTY(&b[k])) {                                                                                     \
                pending += pending > 0;                                                                                \
                continue;                                                                                              \
            }                                                                                                          \
            if (pending == 1) {                                                                                        \
                CZ_EFN(xyzz_add)(&tot, &tot, &run);                                                                    \
            } else if (pending > 1) {                                                                                  \
                CZ_MS(mul_small)(&t, &run, pending);                                                                   \
                CZ_EFN(xyzz_add)(&tot, &tot, &t);                                                                      \
            }                                                                                                          \
            ADD_TO_RUN(&run, &run, &b[k]);                                                                             \
            pending = 1;                                                                                               \
        }                                                                                                              \
        if (pending == 1) {                                                                                            \
            CZ_EFN(xyzz_add)(&tot, &tot, &run);                                                                        \
        } else if (pending > 1) {                                                                                      \
            CZ_MS(mul_small)(&t, &run, pending);                                                                       \
            CZ_EFN(xyzz_add)(&tot, &tot, &t);                                                                          \
        }                                                                                                              \
        *out = tot;                                                                                                    \
    }

CZ_MSM_REDUCE(reduce_affine, CZ_EC_A, CZ_EFN(affine_is_inf), CZ_EFN(xyzz_add_affine))
CZ_MSM_REDUCE(reduce_xyzz, CZ_EC_X, CZ_EFN(xyzz_is_inf), CZ_EFN(xyzz_add))
#undef CZ_MSM_REDUCE

/* ---- step 4a: batch-affine buckets ----------------------------------------- */

typedef struct {
    CZ_EC_A *bk;       /* buckets, affine, all-zero = empty */
    uint64_t *mark;    /* bit per bucket: queued in the current batch */
    uint32_t *slot;    /* per bucket: deferred entry + 1 awaiting a partner, else 0 */
    uint32_t *bidx;    /* batch: bucket of each queued addition */
    CZ_EC_A *q;        /* batch: the signed point to add */
    size_t k, bs;      /* queued, capacity */
    uint32_t *dkey;    /* deferred: bucket */
    CZ_EC_A *dpt;      /* deferred: signed point */
    uint32_t *pa, *pb; /* pairs of deferred entries */
    size_t nd, dcap;   /* deferred count, capacity */
    void *core;        /* ec_batch scratch for max(bs, dcap) pairs */
} CZ_MS(bstate);

static void CZ_MS(flush_batch)(CZ_MS(bstate) * st)
{
    if (st->k == 0) return;
    CZ_EFN(batch_acc_affine)(st->bk, st->bidx, st->q, NULL, st->k, st->core);
    for (size_t i = 0; i < st->k; i++)
        st->mark[st->bidx[i] >> 6] &= ~((uint64_t)1 << (st->bidx[i] & 63));
    st->k = 0;
}

/*
 * Adds the deferred points to their buckets. They were deferred because their
 * bucket was queued already, so many may share a bucket (all of them, for
 * degenerate inputs): first a pairwise tree sums the points of each bucket
 * (rounds of disjoint pairs, each round one batch), then the survivors, one
 * per bucket, go into the buckets in one more batch.
 */
static void CZ_MS(flush_deferred)(CZ_MS(bstate) * st)
{
    CZ_MS(flush_batch)(st);
    if (st->nd == 0) return;
    for (;;) {
        size_t np = 0;
        for (size_t e = 0; e < st->nd; e++) {
            uint32_t b = st->dkey[e];
            if (st->slot[b] == 0) {
                st->slot[b] = (uint32_t)e + 1;
            } else {
                st->pa[np] = st->slot[b] - 1;
                st->pb[np] = (uint32_t)e;
                np++;
                st->slot[b] = 0;
            }
        }
        for (size_t e = 0; e < st->nd; e++)
            st->slot[st->dkey[e]] = 0;
        if (np == 0) break;
        CZ_EFN(batch_acc_affine)(st->dpt, st->pa, st->dpt, st->pb, np, st->core);
        /* drop the absorbed entries (pb), keeping order */
        for (size_t i = 0; i < np; i++)
            st->dkey[st->pb[i]] = UINT32_MAX;
        size_t o = 0;
        for (size_t e = 0; e < st->nd; e++) {
            if (st->dkey[e] == UINT32_MAX) continue;
            if (o != e) {
                st->dkey[o] = st->dkey[e];
                st->dpt[o] = st->dpt[e];
            }
            o++;
        }
        st->nd = o;
    }
    CZ_EFN(batch_acc_affine)(st->bk, st->dkey, st->dpt, NULL, st->nd, st->core);
    st->nd = 0;
}

static void CZ_MS(bucket_batch)(CZ_MS(ctx) * x, size_t w, size_t lo, size_t hi, size_t nbw, uint8_t *ts, CZ_EC_X *out)
{
    const msm_plan *p = &x->plan;
    size_t nb = (size_t)1 << (p->c - 1);
    msm_batch_layout L = msm_batch_layout_of(CZ_MS(sizes)(), p->c, x->batch);
    CZ_MS(bstate) st;
    st.bk = (CZ_EC_A *)(ts + L.bk);
    st.mark = (uint64_t *)(ts + L.mark);
    st.slot = (uint32_t *)(ts + L.slot);
    st.bidx = (uint32_t *)(ts + L.bidx);
    st.q = (CZ_EC_A *)(ts + L.q);
    st.dkey = (uint32_t *)(ts + L.dkey);
    st.dpt = (CZ_EC_A *)(ts + L.dpt);
    st.pa = (uint32_t *)(ts + L.pa);
    st.pb = (uint32_t *)(ts + L.pb);
    st.core = ts + L.core;
    st.bs = L.bs;
    st.dcap = L.dcap;
    st.k = st.nd = 0;
    /* every task starts from nothing: no bucket queued or awaiting a
     * partner, all buckets empty (the scratch may hold anything) */
    memset(st.mark, 0, (nbw + 63) / 64 * 8);
    memset(st.slot, 0, nbw * sizeof(uint32_t));
    memset(st.bk, 0, nbw * sizeof(CZ_EC_A));
    (void)nb;

    msm_digit_reader dr = msm_digit_reader_of((int)w, p->c);
    const CZ_EC_A *bases = x->bases;
    for (size_t j = lo; j < hi; j++) {
        /* the buckets are read at random: fetch a few points ahead */
        if (j + MSM_PREFETCH < hi) {
            int dp = msm_digit(&dr, x->sc[j + MSM_PREFETCH]);
            if (dp) MSM_PREFETCH_ADDR(&st.bk[(dp < 0 ? -dp : dp) - 1]);
            MSM_PREFETCH_ADDR(&bases[x->idx[j + MSM_PREFETCH]]);
        }
        int d = msm_digit(&dr, x->sc[j]);
        if (d == 0) continue;
        uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1;
        const CZ_EC_A *P = &bases[x->idx[j]];
        if ((st.mark[b >> 6] >> (b & 63)) & 1) {
            st.dkey[st.nd] = b;
            CZ_MS(signed_copy)(&st.dpt[st.nd], P, d < 0);
            if (++st.nd == st.dcap) CZ_MS(flush_deferred)(&st);
            continue;
        }
        CZ_EC_A *B = &st.bk[b];
        if (CZ_EFN(affine_is_inf)(B)) {
            CZ_MS(signed_copy)(B, P, d < 0);
            continue;
        }
        st.mark[b >> 6] |= (uint64_t)1 << (b & 63);
        st.bidx[st.k] = b;
        CZ_MS(signed_copy)(&st.q[st.k], P, d < 0);
        if (++st.k == st.bs) CZ_MS(flush_batch)(&st);
    }
    CZ_MS(flush_deferred)(&st);
    CZ_MS(reduce_affine)(out, st.bk, nbw);
}

/* ---- step 4b: XYZZ buckets ---------------------------------------------------- */

static void CZ_MS(bucket_xyzz)(CZ_MS(ctx) * x, size_t w, size_t lo, size_t hi, size_t nbw, uint8_t *ts, CZ_EC_X *out)
{
    CZ_EC_X *bk = (CZ_EC_X *)ts;
    memset(bk, 0, nbw * sizeof(CZ_EC_X)); /* ZZ = 0: infinity */
    msm_digit_reader dr = msm_digit_reader_of((int)w, x->plan.c);
    for (size_t j = lo; j < hi; j++) {
        if (j + MSM_PREFETCH < hi) {
            int dp = msm_digit(&dr, x->sc[j + MSM_PREFETCH]);
            if (dp) MSM_PREFETCH_ADDR(&bk[(dp < 0 ? -dp : dp) - 1]);
            MSM_PREFETCH_ADDR(&x->bases[x->idx[j + MSM_PREFETCH]]);
        }
        int d = msm_digit(&dr, x->sc[j]);
        if (d == 0) continue;
        const CZ_EC_A *P = &x->bases[x->idx[j]];
        if (d > 0)
            CZ_EFN(xyzz_add_affine)(&bk[d - 1], &bk[d - 1], P);
        else
            CZ_EFN(xyzz_sub_affine)(&bk[-d - 1], &bk[-d - 1], P);
    }
    CZ_MS(reduce_xyzz)(out, bk, nbw);
}

/* ---- step 3: the Pippenger tasks -------------------------------------------- */

static void CZ_MS(pippenger_task)(void *arg, size_t t, int thread)
{
    CZ_MS(ctx) *x = arg;
    const msm_plan *p = &x->plan;
    size_t w = t / (size_t)p->splits, s = t % (size_t)p->splits;
    size_t lo = x->m * s / (size_t)p->splits, hi = x->m * (s + 1) / (size_t)p->splits;
    size_t nbw = msm_window_buckets(p, (int)w, CZ_MSM_RBITS);
    uint8_t *ts = x->tscratch + (size_t)thread * x->tstride;
    if (p->method == CZ_MSM_PIPPENGER_BATCH)
        CZ_MS(bucket_batch)(x, w, lo, hi, nbw, ts, &x->res[t]);
    else
        CZ_MS(bucket_xyzz)(x, w, lo, hi, nbw, ts, &x->res[t]);
}

/* ---- Straus, for small inputs ------------------------------------------------- */

/* sum over one group of at most MSM_STRAUS_GROUP points, into *out */
static void CZ_MS(straus_group)(CZ_MS(ctx) * x, size_t lo, size_t hi, CZ_EC_X (*tab)[8], CZ_EC_X *out)
{
    /* tab[j][k] = (k + 1) P_j */
    for (size_t j = lo; j < hi; j++) {
        const CZ_EC_A *P = &x->bases[x->idx[j]];
        CZ_EC_X *T = tab[j - lo];
        CZ_EFN(xyzz_set_inf)(&T[0]);
        CZ_EFN(xyzz_add_affine)(&T[0], &T[0], P);
        CZ_EFN(xyzz_dbl_affine)(&T[1], P);
        CZ_EFN(xyzz_add_affine)(&T[2], &T[1], P);
        CZ_EFN(xyzz_dbl)(&T[3], &T[1]);
        CZ_EFN(xyzz_add_affine)(&T[4], &T[3], P);
        CZ_EFN(xyzz_dbl)(&T[5], &T[2]);
        CZ_EFN(xyzz_add_affine)(&T[6], &T[5], P);
        CZ_EFN(xyzz_dbl)(&T[7], &T[3]);
    }
    CZ_EC_X acc, neg;
    CZ_EFN(xyzz_set_inf)(&acc);
    for (int w = msm_windows(4, CZ_MSM_RBITS); w-- > 0;) {
        for (int i = 0; i < 4; i++)
            CZ_EFN(xyzz_dbl)(&acc, &acc);
        msm_digit_reader dr = msm_digit_reader_of(w, 4);
        for (size_t j = lo; j < hi; j++) {
            int d = msm_digit(&dr, x->sc[j]);
            if (d > 0) {
                CZ_EFN(xyzz_add)(&acc, &acc, &tab[j - lo][d - 1]);
            } else if (d < 0) {
                neg = tab[j - lo][-d - 1];
                CZ_EF(neg)(&neg.Y, &neg.Y);
                CZ_EFN(xyzz_add)(&acc, &acc, &neg);
            }
        }
    }
    CZ_EFN(xyzz_add)(out, out, &acc);
}

static void CZ_MS(straus_task)(void *arg, size_t t, int thread)
{
    CZ_MS(ctx) *x = arg;
    const msm_plan *p = &x->plan;
    size_t lo = x->m * t / (size_t)p->splits, hi = x->m * (t + 1) / (size_t)p->splits;
    CZ_EC_X(*tab)[8] = (CZ_EC_X(*)[8])(x->tscratch + (size_t)thread * x->tstride);
    CZ_EFN(xyzz_set_inf)(&x->res[t]);
    for (size_t g = lo; g < hi; g += MSM_STRAUS_GROUP)
        CZ_MS(straus_group)(x, g, hi - g < MSM_STRAUS_GROUP ? hi : g + MSM_STRAUS_GROUP, tab, &x->res[t]);
}

/* ---- scratch ------------------------------------------------------------------ */

static size_t CZ_MS(scratch)(size_t n, int threads, const cz_msm_opts *o, msm_scratch_layout *lay)
{
    if (threads <= 0) threads = cz_get_threads();
    size_t chunk = o && o->chunk ? o->chunk : CZ_MSM_CHUNK;
    size_t nc = n < chunk ? n : chunk;
    return msm_scratch_layout_of(lay, CZ_MS(sizes)(), nc, threads, o, CZ_MSM_RBITS);
}

size_t CZ_EFN(msm_scratch_size_opts)(size_t n, int threads, const cz_msm_opts *opts)
{
    msm_scratch_layout lay;
    return CZ_MS(scratch)(n, threads, opts, &lay);
}

size_t CZ_EFN(msm_scratch_size)(size_t n, int threads)
{
    return CZ_EFN(msm_scratch_size_opts)(n, threads, NULL);
}

/* ---- the call ----------------------------------------------------------------- */

/* One chunk: acc += sum over the chunk. */
static cz_status CZ_MS(chunk)(CZ_MS(ctx) * x, cz_pool *pool, int threads, const msm_scratch_layout *lay,
                              const cz_msm_opts *o, CZ_EC_X *acc)
{
    /* 1. classify, sum the 1-scalars, compact the rest */
    x->nranges = lay->nranges;
    x->range_len = (x->n + x->nranges - 1) / x->nranges;
    if (x->range_len == 0) x->range_len = 1;
    x->nranges = (x->n + x->range_len - 1) / x->range_len;
    cz_pool_run(pool, x->nranges, CZ_MS(classify_task), x);
    size_t m = 0;
    for (size_t r = 0; r < x->nranges; r++) {
        size_t c = x->cnt[r];
        if (c == SIZE_MAX) return CZ_ERR_RANGE;
        x->cnt[r] = m;
        m += c;
        CZ_EFN(xyzz_add)(acc, acc, &x->ones[r]);
    }
    x->m = m;
    if (o->info) o->info->points += m;
    if (m == 0) return CZ_OK;
    cz_pool_run(pool, x->nranges, CZ_MS(compact_task), x);

    /* 2-4. plan and run the bucket (or Straus) tasks */
    cz_status st = msm_plan_for(&x->plan, m, threads, o, CZ_MSM_RBITS, CZ_MS(sizes)(), lay);
    if (st != CZ_OK) return st;
    if (o->info && o->info->method == CZ_MSM_AUTO) {
        o->info->method = x->plan.method;
        o->info->window = x->plan.c;
        o->info->windows = x->plan.windows;
        o->info->splits = x->plan.splits;
    }
    size_t ntasks = (size_t)x->plan.windows * (size_t)x->plan.splits;
    if (x->plan.method == CZ_MSM_STRAUS) {
        cz_pool_run(pool, ntasks, CZ_MS(straus_task), x);
        for (size_t t = 0; t < ntasks; t++)
            CZ_EFN(xyzz_add)(acc, acc, &x->res[t]);
        return CZ_OK;
    }
    cz_pool_run(pool, ntasks, CZ_MS(pippenger_task), x);

    /* 5. windows, top first: sum = 2^c sum + window */
    CZ_EC_X sum;
    CZ_EFN(xyzz_set_inf)(&sum);
    for (int w = x->plan.windows; w-- > 0;) {
        for (int i = 0; i < x->plan.c; i++)
            CZ_EFN(xyzz_dbl)(&sum, &sum);
        for (int s = 0; s < x->plan.splits; s++)
            CZ_EFN(xyzz_add)(&sum, &sum, &x->res[(size_t)w * (size_t)x->plan.splits + (size_t)s]);
    }
    CZ_EFN(xyzz_add)(acc, acc, &sum);
    return CZ_OK;
}

cz_status CZ_EFN(msm)(CZ_EC *r, const CZ_EC_A *bases, const uint8_t *scalars, size_t n, const cz_msm_opts *opts)
{
    if (!r) return CZ_ERR_INVALID_ARG;
    CZ_EFN(set_inf)(r);
    cz_msm_opts dflt = {0};
    const cz_msm_opts *o = opts ? opts : &dflt;
    if (o->info) memset(o->info, 0, sizeof *o->info);
    if (n == 0) return CZ_OK;
    if (!bases || !scalars) return CZ_ERR_INVALID_ARG;
    if (o->form != CZ_MSM_CANONICAL && o->form != CZ_MSM_MONTGOMERY) return CZ_ERR_INVALID_ARG;
    cz_pool *pool = o->pool ? o->pool : cz_pool_default();
    int threads = cz_pool_threads(pool);

    msm_scratch_layout lay;
    size_t need = CZ_MS(scratch)(n, threads, o, &lay);
    if (lay.invalid) return CZ_ERR_INVALID_ARG;
    uint8_t *mem;
    void *own = NULL;
    if (o->scratch) {
        if (o->scratch_len < need) return CZ_ERR_INVALID_ARG;
        mem = o->scratch;
    } else {
        own = malloc(need);
        if (!own) return CZ_ERR_NO_MEMORY;
        mem = own;
    }
    mem = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63); /* the layout reserves 64 bytes for this */

    CZ_MS(ctx) x;
    memset(&x, 0, sizeof x);
    x.form = o->form;
    x.batch = o->batch;
    x.cls = mem + lay.cls;
    x.cnt = (size_t *)(mem + lay.cnt);
    x.ones = (CZ_EC_X *)(mem + lay.ones);
    x.sc = (uint64_t(*)[4])(mem + lay.sc);
    x.idx = (uint32_t *)(mem + lay.idx);
    x.res = (CZ_EC_X *)(mem + lay.res);
    x.tscratch = mem + lay.threads;
    x.tstride = lay.tstride;

    if (o->info) {
        o->info->threads = threads;
        o->info->chunks = (n + lay.chunk - 1) / lay.chunk;
    }
    CZ_EC_X acc;
    CZ_EFN(xyzz_set_inf)(&acc);
    cz_status st = CZ_OK;
    for (size_t base = 0; base < n && st == CZ_OK; base += lay.chunk) {
        x.bases = bases + base;
        x.scalars = scalars + 32 * base;
        x.n = n - base < lay.chunk ? n - base : lay.chunk;
        st = CZ_MS(chunk)(&x, pool, threads, &lay, o, &acc);
    }
    free(own);
    if (st == CZ_OK) CZ_EFN(from_xyzz)(r, &acc);
    return st;
}

#undef CZ_EFN
#undef CZ_EF
#undef CZ_RF
#undef CZ_EC_A
#undef CZ_EC_X
#undef CZ_MS
#undef CZ_MSM_RBITS
