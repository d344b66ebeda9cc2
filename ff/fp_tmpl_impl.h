/*
 * Out-of-line part of the prime-field template (see ff/fp_tmpl.h); included
 * by ff/ff.c once per field with the same CZ_FP / CZ_FP_C / CZ_FP_N.
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

/* Shift right by one bit, n limbs. */
static inline void CZ_FN(shr1_)(uint64_t *a)
{
    for (int i = 0; i < CZ_FP_N - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[CZ_FP_N - 1] >>= 1;
}

static inline int CZ_FN(limbs_is_one_)(const uint64_t *a)
{
    uint64_t acc = a[0] ^ 1;
    for (int i = 1; i < CZ_FP_N; i++) acc |= a[i];
    return acc == 0;
}

cz_status CZ_FN(inv)(CZ_FP *r, const CZ_FP *a)
{
    if (CZ_FN(is_zero)(a)) {
        CZ_FN(set_zero)(r);
        return CZ_ERR_DIV_BY_ZERO;
    }
    /*
     * Binary extended Euclid on the integer A = a*R (the stored limbs).
     * Invariants: x1*A = u and x2*A = v (mod p). Starting from x1 = R^2 instead
     * of 1 makes the result R^2 / (a*R) = a^-1 * R, the Montgomery form of
     * 1/a, with no conversion afterwards.
     */
    uint64_t u[CZ_FP_N], v[CZ_FP_N], x1[CZ_FP_N], x2[CZ_FP_N] = {0};
    const uint64_t *p = CZ_FN(modulus);
    for (int i = 0; i < CZ_FP_N; i++) {
        u[i] = a->l[i];
        v[i] = p[i];
        x1[i] = CZ_FN(r2_limbs)[i];
    }
    while (!CZ_FN(limbs_is_one_)(u) && !CZ_FN(limbs_is_one_)(v)) {
        while (!(u[0] & 1)) {
            CZ_FN(shr1_)(u);
            cz_mont_half(x1, x1, p, CZ_FP_N);
        }
        while (!(v[0] & 1)) {
            CZ_FN(shr1_)(v);
            cz_mont_half(x2, x2, p, CZ_FP_N);
        }
        if (cz_limbs_cmp(u, v, CZ_FP_N) >= 0) {
            uint64_t b = 0;
            for (int i = 0; i < CZ_FP_N; i++) b = cz_sbb(&u[i], u[i], v[i], b);
            cz_mont_sub(x1, x1, x2, p, CZ_FP_N);
        } else {
            uint64_t b = 0;
            for (int i = 0; i < CZ_FP_N; i++) b = cz_sbb(&v[i], v[i], u[i], b);
            cz_mont_sub(x2, x2, x1, p, CZ_FP_N);
        }
    }
    const uint64_t *x = CZ_FN(limbs_is_one_)(u) ? x1 : x2;
    for (int i = 0; i < CZ_FP_N; i++) r->l[i] = x[i];
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
