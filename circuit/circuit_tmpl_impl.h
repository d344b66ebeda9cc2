/*
 * Per-curve circuit code (the SpMV and the constraint check), included by
 * circuit/circuit.c with
 *   CZ_G        the curve prefix (cz_bn254, cz_bls12_381)
 * Types: CZ_G_fr.
 */
#define GN(x) CZ_CAT(CZ_CAT(CZ_G, _), x) /* static helpers of this curve */
#define FR CZ_CAT(CZ_G, _fr)
#define FRF(x) CZ_CAT(CZ_CAT(CZ_G, _fr_), x)

static inline void GN(row_dot)(FR *out, const cz_csr *m, uint32_t row, const FR *w)
{
    FR acc, t;
    FRF(set_zero)(&acc);
    const FR *val = m->val;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        FRF(mul)(&t, &val[k], &w[m->col[k]]);
        FRF(add)(&acc, &acc, &t);
    }
    *out = acc;
}

/* ---- a = A.w, b = B.w, c = a o b ---- */
typedef struct {
    const cz_zkey *zk;
    const FR *w;
    FR *a, *b, *c;
} GN(abc_ctx);

static void GN(abc_range)(void *arg, size_t lo, size_t hi, int thread)
{
    GN(abc_ctx) *x = arg;
    (void)thread;
    for (size_t i = lo; i < hi; i++) {
        GN(row_dot)(&x->a[i], &x->zk->A, (uint32_t)i, x->w);
        GN(row_dot)(&x->b[i], &x->zk->B, (uint32_t)i, x->w);
        if (x->c) FRF(mul)(&x->c[i], &x->a[i], &x->b[i]);
    }
}

static void GN(abc)(const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c, cz_pool *pool)
{
    GN(abc_ctx) x = {zk, w->values, a, b, c};
    cz_parallel_for(pool ? pool : cz_pool_default(), zk->domain_size, 1024, GN(abc_range), &x);
}

/* ---- r1cs check ---- */
typedef struct {
    const cz_r1cs *r;
    const FR *w;
    uint64_t bad;
} GN(check_ctx);

static void GN(check_range)(void *arg, size_t lo, size_t hi, int thread)
{
    GN(check_ctx) *x = arg;
    (void)thread;
    for (size_t i = lo; i < hi; i++) {
        FR a, b, c;
        GN(row_dot)(&a, &x->r->A, (uint32_t)i, x->w);
        GN(row_dot)(&b, &x->r->B, (uint32_t)i, x->w);
        GN(row_dot)(&c, &x->r->C, (uint32_t)i, x->w);
        FRF(mul)(&a, &a, &b);
        if (!FRF(eq)(&a, &c)) {
            uint64_t cur = __atomic_load_n(&x->bad, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(&x->bad, &cur, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            }
            return;
        }
    }
}

static uint64_t GN(r1cs_first_bad)(const cz_r1cs *r, const cz_wtns *w)
{
    GN(check_ctx) x = {r, w->values, UINT64_MAX};
    cz_parallel_for(cz_pool_default(), r->n_constraints, 1024, GN(check_range), &x);
    return x.bad;
}

#undef GN
#undef FR
#undef FRF
