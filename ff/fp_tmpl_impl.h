/*
 * Out-of-line part of the prime-field template (see ff/fp_tmpl.h),
 * instantiated from ff/ff.c once per field by util/foreach_field.h with the
 * same CZ_FP / CZ_FP_C / CZ_FP_N.
 */
#define CZ_FN(x) CZ_CAT(CZ_CAT(CZ_FP, _), x)
#define CZ_FK(x) CZ_CAT(CZ_CAT(CZ_FP_C, _), x)

static const uint64_t CZ_FN(pm1h_)[CZ_FP_N] = CZ_FK(PM1H);
static const uint64_t CZ_FN(t_)[CZ_FP_N] = CZ_FK(T);
static const uint64_t CZ_FN(tp1h_)[CZ_FP_N] = CZ_FK(TP1H);
static const uint64_t CZ_FN(pm2_)[CZ_FP_N] = CZ_FK(PM2);
static const CZ_FP CZ_FN(root_) = {CZ_FK(ROOT)};

void CZ_FN(mul)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b)
{
    cz_mont_mul(r->l, a->l, b->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}

void CZ_FN(sqr)(CZ_FP *r, const CZ_FP *a)
{
    cz_mont_sqr(r->l, a->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}

void CZ_FN(pow)(CZ_FP *r, const CZ_FP *a, const uint64_t *e, size_t ne)
{
    CZ_FP acc = CZ_FN(ONE), base = *a;
    size_t top = ne * 64;
    while (top > 0 && !((e[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        CZ_FN(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) CZ_FN(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

void CZ_FN(pow_u64)(CZ_FP *r, const CZ_FP *a, uint64_t e) { CZ_FN(pow)(r, a, &e, 1); }

void CZ_FN(inv_ct)(CZ_FP *r, const CZ_FP *a)
{
    /* fixed exponent p-2: the sequence of squarings and products does not
     * depend on a */
    CZ_FN(pow)(r, a, CZ_FN(pm2_), CZ_FP_N);
}

/*
 * Inversion: Bernstein-Yang "safegcd" divsteps, variable time, in batches of
 * 62 (the structure of Wuille's variable-time variant of the algorithm).
 *
 * The state is f, g (f odd, starting at f = p, g = x) and d, e with
 * d*x = f*c, e*x = g*c (mod p). One batch looks only at the low 62 bits of f
 * and g and yields an integer matrix T = [u v; q r] with |u|+|v|, |q|+|r| <=
 * 2^62 that applies 62 divsteps at once: (f, g) <- T (f, g) / 2^62 exactly,
 * and (d, e) <- T (d, e) / 2^62 mod p, where the division is made exact by
 * adding a multiple of p chosen from p^-1 mod 2^62. When g reaches 0, f is
 * +-gcd(p, x) = +-1, so x^-1 = +-d / c. Starting from c = R^2 mod p and
 * x = a*R (the stored limbs of a in Montgomery form) gives d = +-R/a, which
 * is 1/a in Montgomery form, with no conversion.
 *
 * Numbers are held in "signed-62" limbs: N+1 int64 limbs of 62 bits, the
 * lower ones in [0, 2^62), the top one signed, so that limb products fit
 * an __int128 with room for the sums and the division by 2^62 is a shift by
 * one limb. d and e stay in (-2p, p); f and g in [-p, p], and as they shrink
 * the loop drops their top limbs (the variable-time gain).
 */
#ifndef CZ_FP_DIVSTEPS_DEFINED_
#define CZ_FP_DIVSTEPS_DEFINED_
#define CZ_S62_MASK ((int64_t)0x3fffffffffffffff)
typedef __int128 cz_i128;
typedef struct {
    int64_t u, v, q, r;
} cz_divsteps_mat;

/*
 * 62 divsteps on the low bits of f (odd) and g, eta = -delta. Returns the new
 * eta and the transition matrix scaled by 2^62. A run of divsteps that only
 * halves g (or adds f, then halves) is done at once: zeros of g are shifted
 * out with one ctz, and up to 6 low bits of g are cancelled by adding w*f
 * with w = -g/f mod 2^k, k at most eta+1 (the steps before the next swap).
 */
static int64_t cz_divsteps62_var(int64_t eta, uint64_t f, uint64_t g, cz_divsteps_mat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1; /* wrap-around arithmetic = int64 */
    int i = 62;                          /* steps left */
    for (;;) {
        int z = __builtin_ctzll(g | (~(uint64_t)0 << i));
        g >>= z;
        u <<= z;
        v <<= z;
        eta -= z;
        i -= z;
        if (i == 0) break;
        /* delta > 0: swap, (f, g) <- (g, -f). Taken in almost every pass
         * (eta hovers around 0), so the branch predicts well; a branch-free
         * swap measured slower. */
        if (eta < 0) {
            uint64_t x;
            eta = -eta;
            x = f, f = g, g = (uint64_t)0 - x;
            x = u, u = q, q = (uint64_t)0 - x;
            x = v, v = r, r = (uint64_t)0 - x;
        }
        int k = eta + 1 < i ? (int)eta + 1 : i;
        uint64_t mask = (~(uint64_t)0 >> (64 - k)) & 63;
        /* f(f^2 - 2) = -1/f mod 64 for odd f */
        uint64_t w = (g * f * (f * f - 2)) & mask;
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}
#endif

enum { CZ_FN(S62_) = CZ_FP_N + 1 }; /* signed-62 limbs: 62(N+1) > 64N + 1 */

/* 64-bit limbs (a < 2^(64N)) -> signed-62 limbs */
static void CZ_FN(to_s62_)(int64_t *out, const uint64_t *in)
{
    for (int k = 0; k < CZ_FN(S62_); k++) {
        int bit = 62 * k, w = bit / 64, sh = bit % 64;
        uint64_t x = w < CZ_FP_N ? in[w] >> sh : 0;
        if (sh > 2 && w + 1 < CZ_FP_N) x |= in[w + 1] << (64 - sh);
        out[k] = (int64_t)(x & (uint64_t)CZ_S62_MASK);
    }
}

/* signed-62 limbs, normalised, of a value in [0, 2^(64N)) -> 64-bit limbs */
static void CZ_FN(from_s62_)(uint64_t *out, const int64_t *in)
{
    cz_u128 acc = 0;
    int nbits = 0, j = 0;
    for (int k = 0; k < CZ_FN(S62_) && j < CZ_FP_N; k++) {
        acc |= (cz_u128)(uint64_t)in[k] << nbits;
        nbits += 62;
        if (nbits >= 64) {
            out[j++] = (uint64_t)acc;
            acc >>= 64;
            nbits -= 64;
        }
    }
    while (j < CZ_FP_N) {
        out[j++] = (uint64_t)acc;
        acc >>= 64;
    }
}

/* (d, e) <- T (d, e) / 2^62 mod p; in and out in (-2p, p) */
static void CZ_FN(update_de_)(int64_t *d, int64_t *e, const cz_divsteps_mat *t, const int64_t *p62,
                              uint64_t pinv62)
{
    const int L = CZ_FN(S62_);
    const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
    /* adding p*[d<0] and p*[e<0] brings d, e into (-p, p); the subtracted
     * multiple of p below is in [0, 2^62), so the result is in (-2p, p) */
    const int64_t sd = d[L - 1] < 0 ? -1 : 0, se = e[L - 1] < 0 ? -1 : 0;
    int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    cz_i128 cd = (cz_i128)u * d[0] + (cz_i128)v * e[0];
    cz_i128 ce = (cz_i128)q * d[0] + (cz_i128)r * e[0];
    md -= (int64_t)((pinv62 * (uint64_t)cd + (uint64_t)md) & (uint64_t)CZ_S62_MASK);
    me -= (int64_t)((pinv62 * (uint64_t)ce + (uint64_t)me) & (uint64_t)CZ_S62_MASK);
    cd += (cz_i128)p62[0] * md; /* the low 62 bits are now 0 */
    ce += (cz_i128)p62[0] * me;
    cd >>= 62;
    ce >>= 62;
    for (int k = 1; k < L; k++) {
        cd += (cz_i128)u * d[k] + (cz_i128)v * e[k] + (cz_i128)p62[k] * md;
        ce += (cz_i128)q * d[k] + (cz_i128)r * e[k] + (cz_i128)p62[k] * me;
        d[k - 1] = (int64_t)cd & CZ_S62_MASK;
        e[k - 1] = (int64_t)ce & CZ_S62_MASK;
        cd >>= 62;
        ce >>= 62;
    }
    d[L - 1] = (int64_t)cd;
    e[L - 1] = (int64_t)ce;
}

/* (f, g) <- T (f, g) / 2^62 (exact), on the len low limbs */
static void CZ_FN(update_fg_)(int64_t *f, int64_t *g, int len, const cz_divsteps_mat *t)
{
    const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
    cz_i128 cf = (cz_i128)u * f[0] + (cz_i128)v * g[0];
    cz_i128 cg = (cz_i128)q * f[0] + (cz_i128)r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (int k = 1; k < len; k++) {
        cf += (cz_i128)u * f[k] + (cz_i128)v * g[k];
        cg += (cz_i128)q * f[k] + (cz_i128)r * g[k];
        f[k - 1] = (int64_t)cf & CZ_S62_MASK;
        g[k - 1] = (int64_t)cg & CZ_S62_MASK;
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
}

/* d <- d + s*p (s = +-1), limbs normalised */
static void CZ_FN(s62_add_p_)(int64_t *d, const int64_t *p62, int64_t s)
{
    const int L = CZ_FN(S62_);
    cz_i128 c = 0;
    for (int k = 0; k < L - 1; k++) {
        c += (cz_i128)d[k] + (cz_i128)s * p62[k];
        d[k] = (int64_t)c & CZ_S62_MASK;
        c >>= 62;
    }
    d[L - 1] = (int64_t)(c + d[L - 1] + (cz_i128)s * p62[L - 1]);
}

cz_status CZ_FN(inv)(CZ_FP *r, const CZ_FP *a)
{
    if (CZ_FN(is_zero)(a)) {
        CZ_FN(set_zero)(r);
        return CZ_ERR_DIV_BY_ZERO;
    }
    const int L = CZ_FN(S62_);
    int64_t f[CZ_FN(S62_)], g[CZ_FN(S62_)], d[CZ_FN(S62_)] = {0}, e[CZ_FN(S62_)], p62[CZ_FN(S62_)];
    CZ_FN(to_s62_)(p62, CZ_FN(modulus));
    CZ_FN(to_s62_)(g, a->l);
    CZ_FN(to_s62_)(e, CZ_FN(r2_limbs));
    for (int k = 0; k < L; k++) f[k] = p62[k];
    /* p^-1 mod 2^62 from pinv = -p^-1 mod 2^64 */
    const uint64_t pinv62 = ((uint64_t)0 - CZ_FN(pinv)) & (uint64_t)CZ_S62_MASK;
    int64_t eta = -1;
    int len = L;
    /* a 384-bit input needs fewer than 1200 divsteps (Bernstein-Yang bound
     * for the variable-time loop is well below); 64 batches is a safety net */
    for (int it = 0;; it++) {
        if (it == 64) {
            CZ_FN(set_zero)(r);
            return CZ_ERR_INTERNAL;
        }
        cz_divsteps_mat t;
        eta = cz_divsteps62_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
        CZ_FN(update_de_)(d, e, &t, p62, pinv62);
        CZ_FN(update_fg_)(f, g, len, &t);
        if (g[0] == 0) {
            int64_t rest = 0;
            for (int k = 1; k < len; k++) rest |= g[k];
            if (rest == 0) break;
        }
        /* drop the top limbs of f and g when both are 0 or -1 */
        const int64_t fn = f[len - 1], gn = g[len - 1];
        if (len > 1 && ((fn ^ (fn >> 63)) | (gn ^ (gn >> 63))) == 0) {
            f[len - 2] = (int64_t)((uint64_t)f[len - 2] | ((uint64_t)fn << 62));
            g[len - 2] = (int64_t)((uint64_t)g[len - 2] | ((uint64_t)gn << 62));
            len--;
        }
    }
    CZ_VERIFY_CHECK(f[len - 1] == 1 || f[len - 1] == -1);
    /* d = +-1/a: negate for f = -1, then bring (-2p, 2p) into [0, p) */
    if (f[len - 1] < 0) {
        cz_i128 c = 0;
        for (int k = 0; k < L - 1; k++) {
            c -= d[k];
            d[k] = (int64_t)c & CZ_S62_MASK;
            c >>= 62;
        }
        d[L - 1] = (int64_t)(c - d[L - 1]);
    }
    while (d[L - 1] < 0) CZ_FN(s62_add_p_)(d, p62, 1);
    for (;;) {
        int64_t t[CZ_FN(S62_)];
        for (int k = 0; k < L; k++) t[k] = d[k];
        CZ_FN(s62_add_p_)(t, p62, -1);
        if (t[L - 1] < 0) break;
        for (int k = 0; k < L; k++) d[k] = t[k];
    }
    CZ_FN(from_s62_)(r->l, d);
    return CZ_OK;
}

void CZ_FN(batch_inv)(CZ_FP *out, const CZ_FP *in, size_t n, CZ_FP *scratch)
{
    if (n == 0) return;
    /* scratch[i] = product of the non-zero in[0..i] */
    CZ_FP acc = CZ_FN(ONE);
    for (size_t i = 0; i < n; i++) {
        if (!CZ_FN(is_zero)(&in[i])) CZ_FN(mul)(&acc, &acc, &in[i]);
        scratch[i] = acc;
    }
    CZ_FP inv;
    (void)CZ_FN(inv)(&inv, &acc); /* acc is never zero */
    for (size_t i = n; i-- > 0;) {
        if (CZ_FN(is_zero)(&in[i])) {
            CZ_FN(set_zero)(&out[i]);
            continue;
        }
        CZ_FP t;
        if (i > 0)
            CZ_FN(mul)(&t, &inv, &scratch[i - 1]);
        else
            t = inv;
        CZ_FN(mul)(&inv, &inv, &in[i]); /* in[i] may alias out[i]: read first */
        out[i] = t;
    }
}

int CZ_FN(legendre)(const CZ_FP *a)
{
    if (CZ_FN(is_zero)(a)) return 0;
    CZ_FP t;
    CZ_FN(pow)(&t, a, CZ_FN(pm1h_), CZ_FP_N);
    return CZ_FN(is_one)(&t) ? 1 : -1;
}

cz_status CZ_FN(sqrt)(CZ_FP *r, const CZ_FP *a)
{
    if (CZ_FN(is_zero)(a)) {
        CZ_FN(set_zero)(r);
        return CZ_OK;
    }
    /* Tonelli-Shanks with p - 1 = 2^S * T and c = NQR^T of order 2^S */
    CZ_FP x, b, c = CZ_FN(root_), t;
    int m = CZ_FK(S);
    CZ_FN(pow)(&x, a, CZ_FN(tp1h_), CZ_FP_N); /* a^((T+1)/2) */
    CZ_FN(pow)(&b, a, CZ_FN(t_), CZ_FP_N);    /* a^T */
    while (!CZ_FN(is_one)(&b)) {
        int i = 0;
        t = b;
        while (!CZ_FN(is_one)(&t)) {
            CZ_FN(sqr)(&t, &t);
            if (++i == m) return CZ_ERR_NOT_SQUARE;
        }
        t = c;
        for (int j = 0; j < m - i - 1; j++) CZ_FN(sqr)(&t, &t);
        CZ_FN(mul)(&x, &x, &t);
        CZ_FN(sqr)(&c, &t);
        CZ_FN(mul)(&b, &b, &c);
        m = i;
    }
    *r = x;
    return CZ_OK;
}

int CZ_FN(is_lex_largest)(const CZ_FP *a)
{
    uint64_t c[CZ_FP_N];
    CZ_FN(to_canonical)(c, a);
    return cz_limbs_cmp(c, CZ_FN(pm1h_), CZ_FP_N) > 0;
}

static void CZ_FN(limbs_from_le_)(uint64_t *l, const uint8_t *in)
{
    for (int i = 0; i < CZ_FP_N; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | in[8 * i + k];
        l[i] = v;
    }
}

static void CZ_FN(limbs_to_le_)(uint8_t *out, const uint64_t *l)
{
    for (int i = 0; i < CZ_FP_N; i++)
        for (int k = 0; k < 8; k++) out[8 * i + k] = (uint8_t)(l[i] >> (8 * k));
}

cz_status CZ_FN(from_bytes_le)(CZ_FP *r, const uint8_t *in)
{
    uint64_t l[CZ_FP_N];
    CZ_FN(limbs_from_le_)(l, in);
    if (!CZ_FN(limbs_in_range)(l)) return CZ_ERR_RANGE;
    CZ_FN(from_canonical)(r, l);
    return CZ_OK;
}

cz_status CZ_FN(from_bytes_be)(CZ_FP *r, const uint8_t *in)
{
    uint8_t le[8 * CZ_FP_N];
    for (int i = 0; i < 8 * CZ_FP_N; i++) le[i] = in[8 * CZ_FP_N - 1 - i];
    return CZ_FN(from_bytes_le)(r, le);
}

void CZ_FN(to_bytes_le)(uint8_t *out, const CZ_FP *a)
{
    uint64_t l[CZ_FP_N];
    CZ_FN(to_canonical)(l, a);
    CZ_FN(limbs_to_le_)(out, l);
}

void CZ_FN(to_bytes_be)(uint8_t *out, const CZ_FP *a)
{
    uint8_t le[8 * CZ_FP_N];
    CZ_FN(to_bytes_le)(le, a);
    for (int i = 0; i < 8 * CZ_FP_N; i++) out[i] = le[8 * CZ_FP_N - 1 - i];
}

cz_status CZ_FN(from_mont_bytes_le)(CZ_FP *r, const uint8_t *in)
{
    uint64_t l[CZ_FP_N];
    CZ_FN(limbs_from_le_)(l, in);
    if (!CZ_FN(limbs_in_range)(l)) return CZ_ERR_RANGE;
    for (int i = 0; i < CZ_FP_N; i++) r->l[i] = l[i];
    return CZ_OK;
}

void CZ_FN(to_mont_bytes_le)(uint8_t *out, const CZ_FP *a) { CZ_FN(limbs_to_le_)(out, a->l); }

void CZ_FN(from_bytes_le_wide)(CZ_FP *r, const uint8_t *in, size_t len)
{
    /* Horner in base 2^64 from the most significant chunk down */
    CZ_FP acc = CZ_FN(ZERO), base, chunk;
    uint64_t two64[CZ_FP_N] = {0};
    two64[1] = 1;
    CZ_FN(from_canonical)(&base, two64);
    size_t nchunks = (len + 7) / 8;
    for (size_t c = nchunks; c-- > 0;) {
        uint64_t v = 0;
        for (size_t k = 8; k-- > 0;) {
            size_t idx = 8 * c + k;
            v = (v << 8) | (idx < len ? in[idx] : 0);
        }
        CZ_FN(mul)(&acc, &acc, &base);
        CZ_FN(from_u64)(&chunk, v);
        CZ_FN(add)(&acc, &acc, &chunk);
    }
    *r = acc;
}

void CZ_FN(random)(CZ_FP *r, cz_rng *rng)
{
    /* A uniform integer below p is a uniform Montgomery representative. */
    const int top_bits = CZ_FK(BITS) - 64 * (CZ_FP_N - 1);
    const uint64_t mask = top_bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << top_bits) - 1);
    uint64_t l[CZ_FP_N];
    do {
        for (int i = 0; i < CZ_FP_N; i++) l[i] = cz_rng_u64(rng);
        l[CZ_FP_N - 1] &= mask;
    } while (!CZ_FN(limbs_in_range)(l));
    for (int i = 0; i < CZ_FP_N; i++) r->l[i] = l[i];
}

size_t CZ_FN(to_dec)(char *buf, size_t cap, const CZ_FP *a)
{
    uint64_t l[CZ_FP_N];
    CZ_FN(to_canonical)(l, a);
    char tmp[CZ_FP_DEC_MAX];
    size_t n = 0;
    /* repeated division by 10^19 */
    const uint64_t base = 10000000000000000000ULL;
    do {
        cz_u128 rem = 0;
        for (int i = CZ_FP_N - 1; i >= 0; i--) {
            cz_u128 cur = (rem << 64) | l[i];
            l[i] = (uint64_t)(cur / base);
            rem = cur % base;
        }
        uint64_t chunk = (uint64_t)rem;
        int last = cz_limbs_is_zero(l, CZ_FP_N);
        for (int d = 0; d < 19; d++) {
            tmp[n++] = (char)('0' + chunk % 10);
            chunk /= 10;
            if (last && chunk == 0) break;
        }
    } while (!cz_limbs_is_zero(l, CZ_FP_N));
    if (cap == 0) return n;
    size_t w = n < cap - 1 ? n : cap - 1;
    for (size_t i = 0; i < w; i++) buf[i] = tmp[n - 1 - i];
    buf[w] = '\0';
    return n;
}

cz_status CZ_FN(from_dec)(CZ_FP *r, const char *s, size_t len)
{
    if (len == 0) return CZ_ERR_ENCODING;
    uint64_t l[CZ_FP_N + 1] = {0};
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return CZ_ERR_ENCODING;
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (int k = 0; k <= CZ_FP_N; k++) {
            cz_u128 cur = (cz_u128)l[k] * 10 + carry;
            l[k] = (uint64_t)cur;
            carry = (uint64_t)(cur >> 64);
        }
        if (carry || l[CZ_FP_N]) return CZ_ERR_RANGE;
    }
    if (!CZ_FN(limbs_in_range)(l)) return CZ_ERR_RANGE;
    CZ_FN(from_canonical)(r, l);
    return CZ_OK;
}

#undef CZ_FN
#undef CZ_FK
