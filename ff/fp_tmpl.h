/*
 * Prime-field template: instantiated from ff/ff.h once per field by
 * util/foreach_field.h, with
 *   CZ_FP    the field's name, also its type   (e.g. cz_bn254_fr)
 *   CZ_FP_C  the prefix of its constants        (e.g. CZ_BN254_FR, ff/ff_consts.inc)
 *   CZ_FP_N  the number of 64-bit limbs         (4 or 6)
 *
 * Representation: Montgomery form x*R mod p with R = 2^(64*N), little-endian
 * limbs, always fully reduced to [0, p). For N = 6 (BLS12-381 Fq) and N = 4
 * this is also exactly snarkjs's "Montgomery LE" byte encoding of an element
 * (R = 2^(8*n8)), so zkey point bytes map 1:1 onto this struct on
 * little-endian hosts.
 *
 * All functions accept aliased arguments (r may be a or b).
 */
#define CZ_FN(x) CZ_CAT(CZ_CAT(CZ_FP, _), x)
#define CZ_FK(x) CZ_CAT(CZ_CAT(CZ_FP_C, _), x)

typedef struct {
    uint64_t l[CZ_FP_N];
} CZ_FP;

static const uint64_t CZ_FN(modulus)[CZ_FP_N] = CZ_FK(P);
static const uint64_t CZ_FN(pinv) = CZ_FK(PINV);
static const uint64_t CZ_FN(r2_limbs)[CZ_FP_N] = CZ_FK(R2);
static const CZ_FP CZ_FN(ONE) = {CZ_FK(R)};
static const CZ_FP CZ_FN(ZERO) = {{0}};

enum { CZ_FN(LIMBS) = CZ_FP_N, CZ_FN(BYTES) = 8 * CZ_FP_N, CZ_FN(BITS) = CZ_FK(BITS) };

CZ_INLINE void CZ_FN(set_zero)(CZ_FP *r) { *r = CZ_FN(ZERO); }
CZ_INLINE void CZ_FN(set_one)(CZ_FP *r) { *r = CZ_FN(ONE); }
CZ_INLINE int CZ_FN(is_zero)(const CZ_FP *a) { return cz_limbs_is_zero(a->l, CZ_FP_N); }
CZ_INLINE int CZ_FN(is_one)(const CZ_FP *a) { return cz_limbs_eq(a->l, CZ_FN(ONE).l, CZ_FP_N); }
CZ_INLINE int CZ_FN(eq)(const CZ_FP *a, const CZ_FP *b) { return cz_limbs_eq(a->l, b->l, CZ_FP_N); }

CZ_INLINE void CZ_FN(add)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b)
{
    cz_mont_add(r->l, a->l, b->l, CZ_FN(modulus), CZ_FP_N);
}
CZ_INLINE void CZ_FN(sub)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b)
{
    cz_mont_sub(r->l, a->l, b->l, CZ_FN(modulus), CZ_FP_N);
}
CZ_INLINE void CZ_FN(neg)(CZ_FP *r, const CZ_FP *a) { cz_mont_neg(r->l, a->l, CZ_FN(modulus), CZ_FP_N); }
CZ_INLINE void CZ_FN(dbl)(CZ_FP *r, const CZ_FP *a) { cz_mont_dbl(r->l, a->l, CZ_FN(modulus), CZ_FP_N); }
CZ_INLINE void CZ_FN(half)(CZ_FP *r, const CZ_FP *a) { cz_mont_half(r->l, a->l, CZ_FN(modulus), CZ_FP_N); }
/* Products are out of line (ff/ff.c): one copy per field keeps the point
 * formulas that call them small to compile; a call costs a few cycles next
 * to the 30-100 of the product. */
void CZ_FN(mul)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b);
void CZ_FN(sqr)(CZ_FP *r, const CZ_FP *a);
/* The same product and square inlined at the call site (no call, no
 * argument shuffling): for the few hot loops where a product costs ~25-50
 * cycles and the call around it a noticeable share (ec/ec_batch_tmpl_impl.h). */
CZ_INLINE void CZ_FN(mul_inl)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b)
{
    cz_mont_mul(r->l, a->l, b->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}
CZ_INLINE void CZ_FN(sqr_inl)(CZ_FP *r, const CZ_FP *a)
{
    cz_mont_sqr(r->l, a->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}
/* Portable-path product, kept callable in every build so tests can compare. */
CZ_INLINE void CZ_FN(mul_portable)(CZ_FP *r, const CZ_FP *a, const CZ_FP *b)
{
    cz_mont_mul_c(r->l, a->l, b->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}
/* r = 3a, 4a, 8a: cheap multiples used by point formulas */
CZ_INLINE void CZ_FN(mul3)(CZ_FP *r, const CZ_FP *a)
{
    CZ_FP t;
    CZ_FN(dbl)(&t, a);
    CZ_FN(add)(r, &t, a);
}
CZ_INLINE void CZ_FN(mul4)(CZ_FP *r, const CZ_FP *a)
{
    CZ_FN(dbl)(r, a);
    CZ_FN(dbl)(r, r);
}
CZ_INLINE void CZ_FN(mul8)(CZ_FP *r, const CZ_FP *a)
{
    CZ_FN(mul4)(r, a);
    CZ_FN(dbl)(r, r);
}

/* Canonical integer limbs (a < p, any value) -> Montgomery form. */
CZ_INLINE void CZ_FN(from_canonical)(CZ_FP *r, const uint64_t a[CZ_FP_N])
{
    cz_mont_mul(r->l, a, CZ_FN(r2_limbs), CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}
/* Montgomery form -> canonical integer limbs in [0, p). */
CZ_INLINE void CZ_FN(to_canonical)(uint64_t r[CZ_FP_N], const CZ_FP *a)
{
    cz_mont_redc_c(r, a->l, CZ_FN(modulus), CZ_FN(pinv), CZ_FP_N);
}
CZ_INLINE void CZ_FN(from_u64)(CZ_FP *r, uint64_t v)
{
    uint64_t t[CZ_FP_N] = {v};
    CZ_FN(from_canonical)(r, t);
}
/* 1 if the canonical limbs are < p */
CZ_INLINE int CZ_FN(limbs_in_range)(const uint64_t a[CZ_FP_N])
{
    return cz_limbs_cmp(a, CZ_FN(modulus), CZ_FP_N) < 0;
}

/* ---- out-of-line functions (ff/ff.c) ---- */

/* r = a^e, e given as ne little-endian 64-bit limbs (any size, not reduced). */
void CZ_FN(pow)(CZ_FP *r, const CZ_FP *a, const uint64_t *e, size_t ne);
void CZ_FN(pow_u64)(CZ_FP *r, const CZ_FP *a, uint64_t e);
/* r = 1/a. Returns CZ_ERR_DIV_BY_ZERO (and r = 0) when a = 0. Not constant time. */
cz_status CZ_FN(inv)(CZ_FP *r, const CZ_FP *a);
/* Constant-time r = a^(p-2) (0 for a = 0). For secret values. */
void CZ_FN(inv_ct)(CZ_FP *r, const CZ_FP *a);
/* out[i] = 1/in[i] for n elements with one inversion; zeros map to zero.
 * out may equal in. scratch holds n elements (caller allocates). */
void CZ_FN(batch_inv)(CZ_FP *out, const CZ_FP *in, size_t n, CZ_FP *scratch);
/* Legendre symbol: 0 for a = 0, 1 for a non-zero square, -1 otherwise. */
int CZ_FN(legendre)(const CZ_FP *a);
/* r = a square root of a (Tonelli-Shanks); CZ_ERR_NOT_SQUARE if none.
 * Which root is returned is unspecified; callers normalise the sign. */
cz_status CZ_FN(sqrt)(CZ_FP *r, const CZ_FP *a);
/* 1 if the canonical value of a is > (p-1)/2 ("lexicographically largest",
 * the sign convention of the zcash BLS12-381 encoding). */
int CZ_FN(is_lex_largest)(const CZ_FP *a);

/* Canonical big/little-endian bytes (BYTES long) <-> element.
 * from_* return CZ_ERR_RANGE (r untouched) when the integer is >= p. */
cz_status CZ_FN(from_bytes_le)(CZ_FP *r, const uint8_t *in);
cz_status CZ_FN(from_bytes_be)(CZ_FP *r, const uint8_t *in);
void CZ_FN(to_bytes_le)(uint8_t *out, const CZ_FP *a);
void CZ_FN(to_bytes_be)(uint8_t *out, const CZ_FP *a);
/* Montgomery-form little-endian bytes (the snarkjs "LEM" encoding, BYTES long,
 * value x*R). Returns CZ_ERR_RANGE when the stored integer is >= p. */
cz_status CZ_FN(from_mont_bytes_le)(CZ_FP *r, const uint8_t *in);
void CZ_FN(to_mont_bytes_le)(uint8_t *out, const CZ_FP *a);
/* Reduce an arbitrary little-endian byte string of length len mod p. */
void CZ_FN(from_bytes_le_wide)(CZ_FP *r, const uint8_t *in, size_t len);
/* Uniformly random element (rejection sampling). */
void CZ_FN(random)(CZ_FP *r, cz_rng *rng);
/* Decimal text of the canonical value into buf (at least CZ_FP_DEC_MAX
 * bytes); returns the length. */
size_t CZ_FN(to_dec)(char *buf, size_t cap, const CZ_FP *a);
/* Parse a decimal string (digits only, no sign). CZ_ERR_ENCODING for a bad
 * character or an empty string, CZ_ERR_RANGE when the value is >= p. */
cz_status CZ_FN(from_dec)(CZ_FP *r, const char *s, size_t len);

#undef CZ_FN
#undef CZ_FK
