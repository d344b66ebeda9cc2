/*
 * Out-of-line part of the NTT template (see ntt/ntt_tmpl.h and the DESIGN
 * paragraph of ntt/ntt.h), instantiated from ntt/ntt.c once per curve by
 * util/foreach_curve.h, with the same CZ_NTT / CZ_NTT_F / CZ_NTT_C.
 *
 * The two kernels, for a root sigma (the domain's omega, or omega^-1) and a
 * coset factor h (1 for plain transforms):
 *
 *   nr(sigma, h) = P * DFT_sigma * diag(h^j)     natural in, bit-reversed out
 *   rn(sigma, h) = diag(h^j) * DFT_sigma * P     bit-reversed in, natural out
 *
 * where P is the bit-reversal permutation. nr runs Cooley-Tukey levels
 * l = 0..k-1, rn runs Gentleman-Sande levels l = k-1..0; at level l, block b
 * (2^l blocks of n/2^l points) both use the one twiddle
 *
 *   T(l, b) = gamma_l * BR[b],  gamma_l = h^(n / 2^(l+1)),
 *   BR[b]   = sigma_(2^(l+1))^(bitrev_l(b))   (independent of n),
 *
 * and rn(sigma^-1, h^-1) * nr(sigma, h) = n * I. (nr reduces the polynomial
 * modulo x^n - h^n, splitting x^(2m) - z into (x^m - sqrt z)(x^m + sqrt z);
 * T(l, b) is that square root.) BR is multiplicative over disjoint bits,
 * BR[x | y] = BR[x] * BR[y], which is what keeps the tables small: row r of
 * the split (the subtree at level k1, block r) needs
 *   T(k1 + j, (r << j) | b) = c_{r,j} * BR[b],  c_{r,j} = gamma_(k1+j) * BR[r << j],
 * with c_{r,j-1} = c_{r,j}^2, so a row needs BR[r << (k2-1)] (the table hit)
 * and k2 squarings, then one product per block.
 */
#define CZ_NTT CZ_CAT(CZ_G, _ntt)
#define CZ_NTT_F CZ_CAT(CZ_G, _fr)
#define CZ_NTT_C CZ_CAT(CZ_G_C, _FR)
#if CZ_G_FR_N != 4
#error "ntt/ntt_tmpl_impl.h: the butterflies are written for 4-limb scalar fields"
#endif
#define CZ_NN(x) CZ_CAT(CZ_CAT(CZ_NTT, _), x)
#define CZ_NF(x) CZ_CAT(CZ_CAT(CZ_NTT_F, _), x)
#define CZ_NK(x) CZ_CAT(CZ_CAT(CZ_NTT_C, _), x)
#define NT_E CZ_NTT_F
/* inlined Montgomery product (the ff/ one is out of line) */
#define NT_MUL(r, a, b) cz_mont_mul((r)->l, (a)->l, (b)->l, CZ_NF(modulus), CZ_NF(pinv), 4)
#define NT_SQR(r, a) cz_mont_sqr((r)->l, (a)->l, CZ_NF(modulus), CZ_NF(pinv), 4)
#define NT_ADD(r, a, b) cz_ntt_add4_((r)->l, (a)->l, (b)->l, CZ_NF(modulus))
#define NT_SUB(r, a, b) cz_ntt_sub4_((r)->l, (a)->l, (b)->l, CZ_NF(modulus))

struct CZ_NN(domain) {
    unsigned k;      /* n = 2^k */
    unsigned k1, k2; /* split: column levels, row levels; k1 = 0: direct */
    size_t n;
    NT_E omega, omega_inv, n_inv;
    NT_E *lo[2];  /* BR tables: [0] for omega, [1] for omega^-1; lo_len entries */
    NT_E *hit[2]; /* row factors BR[r << (k2-1)], r < 2^k1 (split only) */
    size_t lo_len, hit_len;
    size_t bytes;
};

/* Twiddles of one kernel run: T(l, b) = c[l] * lo[b] at local level l. */
typedef struct {
    const NT_E *lo;
    const NT_E *scale; /* rn only: multiply the outputs of local level 0 by it */
    NT_E c[CZ_NN(MAX_LOG) + 1];
    unsigned char c_one[CZ_NN(MAX_LOG) + 1];
} CZ_NN(tw_);

/* w[i] for i = 0..s (inverse = 0) or their inverses (inverse = 1) */
static void CZ_NN(root_chain_)(NT_E *w, int inverse)
{
    const NT_E root = {CZ_NK(ROOT)};
    w[CZ_NN(MAX_LOG)] = root;
    if (inverse) (void)CZ_NF(inv)(&w[CZ_NN(MAX_LOG)], &root);
    for (int i = CZ_NN(MAX_LOG); i > 0; i--)
        NT_SQR(&w[i - 1], &w[i]);
}

cz_status CZ_NN(root_of_unity)(NT_E *r, unsigned k)
{
    if (!r) return CZ_ERR_INVALID_ARG;
    if (k > CZ_NN(MAX_LOG)) return CZ_ERR_RANGE;
    NT_E w[CZ_NN(MAX_LOG) + 1];
    CZ_NN(root_chain_)(w, 0);
    *r = w[k];
    return CZ_OK;
}

cz_status CZ_NN(coset_shift)(NT_E *g, unsigned k)
{
    if (!g) return CZ_ERR_INVALID_ARG;
    if (k > CZ_NN(MAX_LOG)) return CZ_ERR_RANGE;
    if (k == CZ_NN(MAX_LOG)) {
        CZ_NF(from_u64)(g, (uint64_t)CZ_NK(NQR) * CZ_NK(NQR));
        return CZ_OK;
    }
    return CZ_NN(root_of_unity)(g, k + 1);
}

/* ---- layout ---- */

static void CZ_NN(layout_)(unsigned k, unsigned *k1, unsigned *k2, size_t *lo_len, size_t *hit_len)
{
    if (k <= CZ_NTT_DIRECT_MAX_LOG) {
        *k1 = 0;
        *k2 = k;
        *hit_len = 0;
    } else {
        *k1 = k / 2;
        *k2 = k - *k1;
        *hit_len = (size_t)1 << *k1;
    }
    /* the direct kernel needs BR[0..n/2), the split rows BR[0..n2/2) */
    *lo_len = k == 0 ? 1 : k <= CZ_NTT_DIRECT1_MAX_LOG ? (size_t)1 << (k - 1) : (size_t)1 << (*k2 - 1);
}

static size_t CZ_NN(bytes_)(size_t lo_len, size_t hit_len)
{
    return cz_ntt_round64_(sizeof(struct CZ_NN(domain))) + 2 * (lo_len + hit_len) * sizeof(NT_E);
}

size_t CZ_NN(domain_bytes_for)(unsigned k)
{
    if (k > CZ_NN(MAX_LOG)) return 0;
    unsigned k1, k2;
    size_t lo_len, hit_len;
    CZ_NN(layout_)(k, &k1, &k2, &lo_len, &hit_len);
    return CZ_NN(bytes_)(lo_len, hit_len);
}

/* Column batch width: adjacent columns gathered together (at least one
 * 64-byte line per row), the batch kept near L2-sized, and enough batches
 * for the threads. */
static size_t CZ_NN(col_width_)(unsigned k1, unsigned k2, int threads)
{
    size_t n1 = (size_t)1 << k1, n2 = (size_t)1 << k2, b = 16;
    while (b > 2 && (n1 * b > CZ_NTT_COL_ELEMS || n2 / b < (size_t)4 * (size_t)threads))
        b >>= 1;
    return b;
}

size_t CZ_NN(scratch_bytes)(unsigned k, int threads)
{
    if (k > CZ_NN(MAX_LOG)) return 0;
    if (threads < 1) threads = 1;
    unsigned k1, k2;
    size_t lo_len, hit_len;
    CZ_NN(layout_)(k, &k1, &k2, &lo_len, &hit_len);
    if (!k1 || (threads == 1 && k <= CZ_NTT_DIRECT1_MAX_LOG)) return 0;
    return (size_t)threads * ((size_t)1 << k1) * CZ_NN(col_width_)(k1, k2, threads) * sizeof(NT_E);
}

cz_status CZ_NN(domain_create)(CZ_NN(domain) * *out, unsigned k)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (k > CZ_NN(MAX_LOG)) return CZ_ERR_RANGE;
    unsigned k1, k2;
    size_t lo_len, hit_len;
    CZ_NN(layout_)(k, &k1, &k2, &lo_len, &hit_len);
    size_t bytes = CZ_NN(bytes_)(lo_len, hit_len);
    CZ_NN(domain) *d = cz_ntt_alloc_(bytes);
    if (!d) return CZ_ERR_NO_MEMORY;
    memset(d, 0, sizeof(*d));
    d->k = k;
    d->k1 = k1;
    d->k2 = k2;
    d->n = (size_t)1 << k;
    d->lo_len = lo_len;
    d->hit_len = hit_len;
    d->bytes = bytes;
    NT_E *tab = (NT_E *)((char *)d + cz_ntt_round64_(sizeof(*d)));
    d->lo[0] = tab;
    d->lo[1] = tab + lo_len;
    d->hit[0] = hit_len ? tab + 2 * lo_len : NULL;
    d->hit[1] = hit_len ? tab + 2 * lo_len + hit_len : NULL;

    NT_E w[2][CZ_NN(MAX_LOG) + 1];
    CZ_NN(root_chain_)(w[0], 0);
    CZ_NN(root_chain_)(w[1], 1);
    d->omega = w[0][k];
    d->omega_inv = w[1][k];
    NT_E nn;
    CZ_NF(from_u64)(&nn, 1);
    for (unsigned i = 0; i < k; i++)
        CZ_NF(dbl)(&nn, &nn);
    (void)CZ_NF(inv)(&d->n_inv, &nn);

    for (int dir = 0; dir < 2; dir++) {
        /* BR[2^t + b] = BR[b] * BR[2^t], BR[2^t] = w[t+2] */
        NT_E *lo = d->lo[dir];
        lo[0] = CZ_NF(ONE);
        for (unsigned t = 0; ((size_t)1 << t) < lo_len; t++) {
            size_t h = (size_t)1 << t;
            for (size_t b = 0; b < h; b++)
                NT_MUL(&lo[h + b], &lo[b], &w[dir][t + 2]);
        }
        /* hit[r] = BR[r << (k2-1)]; BR[2^(t+k2-1)] = w[t+k2+1] */
        NT_E *hit = d->hit[dir];
        if (hit) {
            hit[0] = CZ_NF(ONE);
            for (unsigned t = 0; t < k1; t++) {
                size_t h = (size_t)1 << t;
                for (size_t r = 0; r < h; r++)
                    NT_MUL(&hit[h + r], &hit[r], &w[dir][t + k2 + 1]);
            }
        }
    }
    *out = d;
    return CZ_OK;
}

void CZ_NN(domain_free)(CZ_NN(domain) * d)
{
    cz_ntt_free_(d);
}
size_t CZ_NN(domain_bytes)(const CZ_NN(domain) * d)
{
    return d ? d->bytes : 0;
}
unsigned CZ_NN(domain_log_size)(const CZ_NN(domain) * d)
{
    return d ? d->k : 0;
}
size_t CZ_NN(domain_size)(const CZ_NN(domain) * d)
{
    return d ? d->n : 0;
}
void CZ_NN(domain_omega)(const CZ_NN(domain) * d, NT_E *omega, NT_E *omega_inv)
{
    if (omega) *omega = d->omega;
    if (omega_inv) *omega_inv = d->omega_inv;
}

/* ---- butterflies ---- */

/* T(l, b) into *tmp, or NULL when it is one */
static inline const NT_E *CZ_NN(twid_)(const CZ_NN(tw_) * t, unsigned l, size_t b, NT_E *tmp)
{
    if (t->c_one[l]) return b ? &t->lo[b] : NULL;
    if (!b) return &t->c[l];
    NT_MUL(tmp, &t->c[l], &t->lo[b]);
    return tmp;
}

/* Cooley-Tukey: (u, v) -> (u + t v, u - t v) on cnt pairs x0[i], x1[i] */
static inline void CZ_NN(ct_)(NT_E *restrict x0, NT_E *restrict x1, size_t cnt, const NT_E *tp)
{
    if (!tp) {
        for (size_t i = 0; i < cnt; i++) {
            NT_E u = x0[i], v = x1[i];
            NT_ADD(&x0[i], &u, &v);
            NT_SUB(&x1[i], &u, &v);
        }
        return;
    }
    const NT_E t = *tp;
    for (size_t i = 0; i < cnt; i++) {
        NT_E u = x0[i], v;
        NT_MUL(&v, &t, &x1[i]);
        NT_ADD(&x0[i], &u, &v);
        NT_SUB(&x1[i], &u, &v);
    }
}

/* Gentleman-Sande: (u, v) -> (u + v, (u - v) t) */
static inline void CZ_NN(gs_)(NT_E *restrict x0, NT_E *restrict x1, size_t cnt, const NT_E *tp)
{
    if (!tp) {
        for (size_t i = 0; i < cnt; i++) {
            NT_E u = x0[i], v = x1[i];
            NT_ADD(&x0[i], &u, &v);
            NT_SUB(&x1[i], &u, &v);
        }
        return;
    }
    const NT_E t = *tp;
    for (size_t i = 0; i < cnt; i++) {
        NT_E u = x0[i], v = x1[i], d;
        NT_ADD(&x0[i], &u, &v);
        NT_SUB(&d, &u, &v);
        NT_MUL(&x1[i], &d, &t);
    }
}

/* Gentleman-Sande with the outputs scaled by s: ((u + v) s, (u - v) t s) */
static void CZ_NN(gs_scaled_)(NT_E *restrict x0, NT_E *restrict x1, size_t cnt, const NT_E *tp, const NT_E *s)
{
    NT_E ts = *s;
    if (tp) NT_MUL(&ts, tp, s);
    const NT_E sc = *s;
    for (size_t i = 0; i < cnt; i++) {
        NT_E u = x0[i], v = x1[i], a, d;
        NT_ADD(&a, &u, &v);
        NT_SUB(&d, &u, &v);
        NT_MUL(&x0[i], &a, &sc);
        NT_MUL(&x1[i], &d, &ts);
    }
}

/*
 * The kernels on one subtree: x holds 2^(j-lvl) points of W elements (point p
 * at x[p*W .. p*W+W)), the block blk of local level lvl of a j-level run.
 * Depth first above the leaf size, so the lower levels run in cache.
 */
static void CZ_NN(nr_node_)(NT_E *x, unsigned j, unsigned lvl, size_t blk, size_t W, const CZ_NN(tw_) * t)
{
    if (lvl >= j) return;
    size_t m = (size_t)1 << (j - lvl);
    NT_E tmp;
    if (m * W > CZ_NTT_LEAF_ELEMS) {
        size_t h = (m >> 1) * W;
        CZ_NN(ct_)(x, x + h, h, CZ_NN(twid_)(t, lvl, blk, &tmp));
        CZ_NN(nr_node_)(x, j, lvl + 1, 2 * blk, W, t);
        CZ_NN(nr_node_)(x + h, j, lvl + 1, 2 * blk + 1, W, t);
        return;
    }
    for (unsigned d = 0; lvl + d < j; d++) {
        size_t nb = (size_t)1 << d, h = (m >> (d + 1)) * W;
        for (size_t e = 0; e < nb; e++)
            CZ_NN(ct_)(x + 2 * e * h, x + 2 * e * h + h, h, CZ_NN(twid_)(t, lvl + d, (blk << d) + e, &tmp));
    }
}

static inline void CZ_NN(gs_level_)(NT_E *x, size_t h, unsigned l, size_t b, const CZ_NN(tw_) * t)
{
    NT_E tmp;
    const NT_E *tp = CZ_NN(twid_)(t, l, b, &tmp);
    if (l == 0 && t->scale)
        CZ_NN(gs_scaled_)(x, x + h, h, tp, t->scale);
    else
        CZ_NN(gs_)(x, x + h, h, tp);
}

static void CZ_NN(rn_node_)(NT_E *x, unsigned j, unsigned lvl, size_t blk, size_t W, const CZ_NN(tw_) * t)
{
    if (lvl >= j) return;
    size_t m = (size_t)1 << (j - lvl);
    if (m * W > CZ_NTT_LEAF_ELEMS) {
        size_t h = (m >> 1) * W;
        CZ_NN(rn_node_)(x, j, lvl + 1, 2 * blk, W, t);
        CZ_NN(rn_node_)(x + h, j, lvl + 1, 2 * blk + 1, W, t);
        CZ_NN(gs_level_)(x, h, lvl, blk, t);
        return;
    }
    for (unsigned d = j - lvl; d-- > 0;) {
        size_t nb = (size_t)1 << d, h = (m >> (d + 1)) * W;
        for (size_t e = 0; e < nb; e++)
            CZ_NN(gs_level_)(x + 2 * e * h, h, lvl + d, (blk << d) + e, t);
    }
}

/* ---- bit reversal ---- */

typedef struct {
    NT_E *a;
    unsigned k, mb; /* mb: middle bits */
} CZ_NN(brctx_);

#define NT_BR_Q 4 /* tiles of 2^Q x 2^Q elements */

static void CZ_NN(bitrev_range_)(void *arg, size_t begin, size_t end, int thread)
{
    (void)thread;
    const CZ_NN(brctx_) *c = arg;
    enum { Q = NT_BR_Q, T = 1 << NT_BR_Q };
    NT_E buf1[T * T], buf2[T * T];
    NT_E *a = c->a;
    const unsigned hs = c->k - Q; /* shift of the top Q bits */
    for (size_t m = begin; m < end; m++) {
        size_t mr = cz_ntt_bitrev_index(m, c->mb);
        if (mr < m) continue;
        for (size_t r = 0; r < T; r++) {
            memcpy(&buf1[r * T], &a[(r << hs) | (m << Q)], T * sizeof(NT_E));
            if (mr != m) memcpy(&buf2[r * T], &a[(r << hs) | (mr << Q)], T * sizeof(NT_E));
        }
        const NT_E *src1 = mr != m ? buf2 : buf1;
        for (size_t r = 0; r < T; r++) {
            NT_E *row = &a[(r << hs) | (m << Q)];
            size_t rr = cz_ntt_bitrev_index(r, Q);
            for (size_t q = 0; q < T; q++)
                row[q] = src1[cz_ntt_bitrev_index(q, Q) * T + rr];
            if (mr != m) {
                NT_E *row2 = &a[(r << hs) | (mr << Q)];
                for (size_t q = 0; q < T; q++)
                    row2[q] = buf1[cz_ntt_bitrev_index(q, Q) * T + rr];
            }
        }
    }
}

cz_status CZ_NN(bit_reverse)(NT_E *a, unsigned k, cz_pool *pool)
{
    if (!a || k > 63) return CZ_ERR_INVALID_ARG;
    size_t n = (size_t)1 << k;
    if (k < 2 * NT_BR_Q + 2) {
        for (size_t i = 0; i < n; i++) {
            size_t j = cz_ntt_bitrev_index(i, k);
            if (i < j) {
                NT_E t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        return CZ_OK;
    }
    CZ_NN(brctx_) c = {a, k, k - 2 * NT_BR_Q};
    if (!pool) pool = cz_pool_default();
    cz_parallel_for(pool, (size_t)1 << c.mb, 16, CZ_NN(bitrev_range_), &c);
    return CZ_OK;
}

/* ---- the split passes ---- */

typedef struct {
    const CZ_NN(domain) * d;
    NT_E *a;
    NT_E *scratch; /* threads * n1 * W */
    size_t W;
    int rn;
    CZ_NN(tw_) tw; /* c[l] = gamma_l for l < k1 */
} CZ_NN(colctx_);

static void CZ_NN(col_task_)(void *arg, size_t idx, int thread)
{
    const CZ_NN(colctx_) *c = arg;
    const size_t n1 = (size_t)1 << c->d->k1, n2 = (size_t)1 << c->d->k2, W = c->W;
    NT_E *s = c->scratch + (size_t)thread * n1 * W;
    NT_E *a = c->a + idx * W;
    for (size_t r = 0; r < n1; r++)
        memcpy(&s[r * W], &a[r * n2], W * sizeof(NT_E));
    if (c->rn)
        CZ_NN(rn_node_)(s, c->d->k1, 0, 0, W, &c->tw);
    else
        CZ_NN(nr_node_)(s, c->d->k1, 0, 0, W, &c->tw);
    for (size_t r = 0; r < n1; r++)
        memcpy(&a[r * n2], &s[r * W], W * sizeof(NT_E));
}

typedef struct {
    const CZ_NN(domain) * d;
    NT_E *a;
    int rn, dir;
    int h_one;
    NT_E h;
} CZ_NN(rowctx_);

static void CZ_NN(row_task_)(void *arg, size_t r, int thread)
{
    (void)thread;
    const CZ_NN(rowctx_) *c = arg;
    const CZ_NN(domain) *d = c->d;
    CZ_NN(tw_) tw;
    tw.lo = d->lo[c->dir];
    tw.scale = NULL;
    /* c_{r,k2-1} = h * BR[r << (k2-1)], c_{r,j-1} = c_{r,j}^2 */
    NT_E f = d->hit[c->dir][r];
    if (!c->h_one) NT_MUL(&f, &f, &c->h);
    for (unsigned j = d->k2; j-- > 0;) {
        tw.c[j] = f;
        tw.c_one[j] = (unsigned char)CZ_NF(is_one)(&f);
        if (j) NT_SQR(&f, &f);
    }
    NT_E *x = c->a + r * ((size_t)1 << d->k2);
    if (c->rn)
        CZ_NN(rn_node_)(x, d->k2, 0, 0, 1, &tw);
    else
        CZ_NN(nr_node_)(x, d->k2, 0, 0, 1, &tw);
}

/*
 * One transform: optional bit reversal before (pre) and after (post), then
 * nr or rn with root table dir (0: omega, 1: omega^-1), coset factor h
 * (NULL: 1) and optional 1/n scaling (rn only).
 */
static cz_status CZ_NN(run_)(const CZ_NN(domain) * d, NT_E *a, int rn, int dir, const NT_E *h, int scale, int pre,
                             int post, cz_pool *pool)
{
    if (!d || !a) return CZ_ERR_INVALID_ARG;
    const unsigned k = d->k;
    if (k == 0) return CZ_OK;
    if (!pool) pool = cz_pool_default();
    const int h_one = !h || CZ_NF(is_one)(h);
    NT_E gamma[CZ_NN(MAX_LOG) + 1];
    if (!h_one) {
        gamma[k - 1] = *h;
        for (unsigned l = k - 1; l > 0; l--)
            NT_SQR(&gamma[l - 1], &gamma[l]);
    }

    const int threads = cz_pool_threads(pool);
    if (!d->k1 || (threads == 1 && k <= CZ_NTT_DIRECT1_MAX_LOG)) {
        if (pre) CZ_NN(bit_reverse)(a, k, pool);
        CZ_NN(tw_) tw;
        tw.lo = d->lo[dir];
        tw.scale = scale ? &d->n_inv : NULL;
        for (unsigned l = 0; l < k; l++) {
            tw.c[l] = h_one ? CZ_NF(ONE) : gamma[l];
            tw.c_one[l] = (unsigned char)h_one;
        }
        if (rn)
            CZ_NN(rn_node_)(a, k, 0, 0, 1, &tw);
        else
            CZ_NN(nr_node_)(a, k, 0, 0, 1, &tw);
        if (post) CZ_NN(bit_reverse)(a, k, pool);
        return CZ_OK;
    }

    const size_t n1 = (size_t)1 << d->k1, n2 = (size_t)1 << d->k2;
    CZ_NN(colctx_) cc;
    cc.d = d;
    cc.a = a;
    cc.W = CZ_NN(col_width_)(d->k1, d->k2, threads);
    cc.rn = rn;
    cc.scratch = cz_ntt_alloc_((size_t)threads * n1 * cc.W * sizeof(NT_E));
    if (!cc.scratch) return CZ_ERR_NO_MEMORY;
    cc.tw.lo = d->lo[dir];
    cc.tw.scale = scale ? &d->n_inv : NULL;
    for (unsigned l = 0; l < d->k1; l++) {
        cc.tw.c[l] = h_one ? CZ_NF(ONE) : gamma[l];
        cc.tw.c_one[l] = (unsigned char)h_one;
    }
    CZ_NN(rowctx_) rc;
    rc.d = d;
    rc.a = a;
    rc.rn = rn;
    rc.dir = dir;
    rc.h_one = h_one;
    rc.h = h_one ? CZ_NF(ONE) : *h;

    if (pre) CZ_NN(bit_reverse)(a, k, pool);
    if (!rn) {
        cz_pool_run(pool, n2 / cc.W, CZ_NN(col_task_), &cc);
        cz_pool_run(pool, n1, CZ_NN(row_task_), &rc);
    } else {
        cz_pool_run(pool, n1, CZ_NN(row_task_), &rc);
        cz_pool_run(pool, n2 / cc.W, CZ_NN(col_task_), &cc);
    }
    if (post) CZ_NN(bit_reverse)(a, k, pool);
    cz_ntt_free_(cc.scratch);
    return CZ_OK;
}

/* ---- public transforms ---- */

cz_status CZ_NN(forward)(const CZ_NN(domain) * d, NT_E *a, cz_pool *pool)
{
    return CZ_NN(run_)(d, a, 0, 0, NULL, 0, 0, 1, pool);
}

cz_status CZ_NN(forward_to_bitrev)(const CZ_NN(domain) * d, NT_E *a, cz_pool *pool)
{
    return CZ_NN(run_)(d, a, 0, 0, NULL, 0, 0, 0, pool);
}

/* inverse = (1/n) rn(omega^-1, 1) P */
cz_status CZ_NN(inverse)(const CZ_NN(domain) * d, NT_E *a, cz_pool *pool)
{
    return CZ_NN(run_)(d, a, 1, 1, NULL, 1, 1, 0, pool);
}

cz_status CZ_NN(inverse_from_bitrev)(const CZ_NN(domain) * d, NT_E *a, cz_pool *pool)
{
    return CZ_NN(run_)(d, a, 1, 1, NULL, 1, 0, 0, pool);
}

/* coset forward = P nr(omega, g) */
cz_status CZ_NN(coset_forward)(const CZ_NN(domain) * d, NT_E *a, const NT_E *g, cz_pool *pool)
{
    if (!g || CZ_NF(is_zero)(g)) return CZ_ERR_INVALID_ARG;
    return CZ_NN(run_)(d, a, 0, 0, g, 0, 0, 1, pool);
}

cz_status CZ_NN(coset_forward_to_bitrev)(const CZ_NN(domain) * d, NT_E *a, const NT_E *g, cz_pool *pool)
{
    if (!g || CZ_NF(is_zero)(g)) return CZ_ERR_INVALID_ARG;
    return CZ_NN(run_)(d, a, 0, 0, g, 0, 0, 0, pool);
}

/* coset inverse = (1/n) rn(omega^-1, g^-1) P = diag(g^-j) * inverse */
cz_status CZ_NN(coset_inverse)(const CZ_NN(domain) * d, NT_E *a, const NT_E *g, cz_pool *pool)
{
    NT_E gi;
    if (!g || CZ_NF(inv)(&gi, g) != CZ_OK) return CZ_ERR_INVALID_ARG;
    return CZ_NN(run_)(d, a, 1, 1, &gi, 1, 1, 0, pool);
}

cz_status CZ_NN(coset_inverse_from_bitrev)(const CZ_NN(domain) * d, NT_E *a, const NT_E *g, cz_pool *pool)
{
    NT_E gi;
    if (!g || CZ_NF(inv)(&gi, g) != CZ_OK) return CZ_ERR_INVALID_ARG;
    return CZ_NN(run_)(d, a, 1, 1, &gi, 1, 0, 0, pool);
}

#undef NT_BR_Q
#undef NT_MUL
#undef NT_SQR
#undef NT_ADD
#undef NT_SUB
#undef NT_E
#undef CZ_NTT
#undef CZ_NTT_F
#undef CZ_NTT_C
#undef CZ_NN
#undef CZ_NF
#undef CZ_NK
