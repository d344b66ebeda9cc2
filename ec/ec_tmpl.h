/*
 * Short-Weierstrass group template for y^2 = x^3 + b (a = 0), instantiated
 * from ec/ec.h once per group by util/foreach_group.h, with
 *   CZ_EC     the group's prefix, also its Jacobian type (e.g. cz_bls12_381_g1)
 *   CZ_EC_F   the coordinate field (cz_bls12_381_fq, or cz_bls12_381_fq2 for G2)
 *   CZ_EC_FR  the scalar field (cz_bls12_381_fr)
 *
 * Three representations:
 *   CZ_EC_affine  (x, y); the point at infinity is x = y = 0, which is not on
 *                 the curve (b != 0). This is byte-for-byte the snarkjs zkey
 *                 encoding ("LEM affine", all-zero = infinity), so mapped zkey
 *                 sections can be used as arrays of affine points directly.
 *   CZ_EC         Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity Z = 0.
 *   CZ_EC_xyzz    extended Jacobian (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ,
 *                 ZZ^3 = ZZZ^2; infinity ZZ = 0. Cheapest mixed additions:
 *                 the bucket type of Pippenger.
 *
 * Every addition handles doubling and infinity operands (no exceptional
 * cases for callers). Aliasing of outputs and inputs is allowed. The point
 * formulas are out of line (ec/ec_tmpl_impl.h): a call is noise next to the
 * 8-16 field products of one addition, and it keeps builds fast.
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EF(x) CZ_CAT(CZ_CAT(CZ_EC_F, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)
#define CZ_EC_X CZ_CAT(CZ_EC, _xyzz)

typedef struct {
    CZ_EC_F x, y;
} CZ_EC_A;

typedef struct {
    CZ_EC_F X, Y, Z;
} CZ_EC;

typedef struct {
    CZ_EC_F X, Y, ZZ, ZZZ;
} CZ_EC_X;

/* ---- affine ---- */
CZ_INLINE int CZ_EFN(affine_is_inf)(const CZ_EC_A *p) { return CZ_EF(is_zero)(&p->x) & CZ_EF(is_zero)(&p->y); }
CZ_INLINE void CZ_EFN(affine_set_inf)(CZ_EC_A *p)
{
    CZ_EF(set_zero)(&p->x);
    CZ_EF(set_zero)(&p->y);
}
CZ_INLINE void CZ_EFN(affine_neg)(CZ_EC_A *r, const CZ_EC_A *p)
{
    r->x = p->x;
    CZ_EF(neg)(&r->y, &p->y); /* -0 = 0 keeps infinity */
}
CZ_INLINE int CZ_EFN(affine_eq)(const CZ_EC_A *a, const CZ_EC_A *b)
{
    return CZ_EF(eq)(&a->x, &b->x) & CZ_EF(eq)(&a->y, &b->y);
}

/* ---- Jacobian ---- */
CZ_INLINE void CZ_EFN(set_inf)(CZ_EC *p)
{
    CZ_EF(set_one)(&p->X);
    CZ_EF(set_one)(&p->Y);
    CZ_EF(set_zero)(&p->Z);
}
CZ_INLINE int CZ_EFN(is_inf)(const CZ_EC *p) { return CZ_EF(is_zero)(&p->Z); }
CZ_INLINE void CZ_EFN(from_affine)(CZ_EC *r, const CZ_EC_A *a)
{
    if (CZ_EFN(affine_is_inf)(a)) {
        CZ_EFN(set_inf)(r);
        return;
    }
    r->X = a->x;
    r->Y = a->y;
    CZ_EF(set_one)(&r->Z);
}
CZ_INLINE void CZ_EFN(neg)(CZ_EC *r, const CZ_EC *p)
{
    r->X = p->X;
    CZ_EF(neg)(&r->Y, &p->Y);
    r->Z = p->Z;
}

/* r = 2p (dbl-2009-l, 2M + 5S) */
void CZ_EFN(dbl)(CZ_EC *r, const CZ_EC *p);
/* r = p + q, q affine (madd-2007-bl, 7M + 4S) */
void CZ_EFN(add_affine)(CZ_EC *r, const CZ_EC *p, const CZ_EC_A *q);
/* r = p + q (add-2007-bl, 11M + 5S) */
void CZ_EFN(add)(CZ_EC *r, const CZ_EC *p, const CZ_EC *q);

/* ---- XYZZ ---- */
CZ_INLINE void CZ_EFN(xyzz_set_inf)(CZ_EC_X *p)
{
    CZ_EF(set_one)(&p->X);
    CZ_EF(set_one)(&p->Y);
    CZ_EF(set_zero)(&p->ZZ);
    CZ_EF(set_zero)(&p->ZZZ);
}
CZ_INLINE int CZ_EFN(xyzz_is_inf)(const CZ_EC_X *p) { return CZ_EF(is_zero)(&p->ZZ); }

/* r = 2q, q affine (mdbl-2008-s-1) */
void CZ_EFN(xyzz_dbl_affine)(CZ_EC_X *r, const CZ_EC_A *q);
/* r = 2p (dbl-2008-s-1, 6M + 4S) */
void CZ_EFN(xyzz_dbl)(CZ_EC_X *r, const CZ_EC_X *p);
/* r = p + q, q affine (madd-2008-s, 8M + 2S) */
void CZ_EFN(xyzz_add_affine)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_A *q);
/* r = p - q, q affine */
void CZ_EFN(xyzz_sub_affine)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_A *q);
/* r = p + q (add-2008-s, 12M + 2S) */
void CZ_EFN(xyzz_add)(CZ_EC_X *r, const CZ_EC_X *p, const CZ_EC_X *q);
/* Jacobian from XYZZ without inversion: (X*ZZ^2, Y*ZZZ^2, ZZZ) */
void CZ_EFN(from_xyzz)(CZ_EC *r, const CZ_EC_X *p);

/* ---- out-of-line (ec/ec.c) ---- */
/* The standard generator (affine). */
const CZ_EC_A *CZ_EFN(generator)(void);
/* The curve coefficient b. */
const CZ_EC_F *CZ_EFN(b)(void);
/* Affine from Jacobian (one inversion); infinity -> (0, 0). */
void CZ_EFN(to_affine)(CZ_EC_A *r, const CZ_EC *p);
/* Affine from n Jacobian points with one shared inversion. r may not alias
 * p. Returns CZ_ERR_NO_MEMORY if scratch cannot be allocated. */
cz_status CZ_EFN(batch_to_affine)(CZ_EC_A *r, const CZ_EC *p, size_t n);
/* Projective equality (both may be any representation of a point). */
int CZ_EFN(eq)(const CZ_EC *p, const CZ_EC *q);
/* Curve equation (infinity counts as on the curve). */
int CZ_EFN(affine_is_on_curve)(const CZ_EC_A *p);
int CZ_EFN(is_on_curve)(const CZ_EC *p);
/* r = k*p, k given as nk little-endian 64-bit limbs (any integer).
 * Variable time: do not use on secret scalars (see mul_ct). */
void CZ_EFN(mul)(CZ_EC *r, const CZ_EC *p, const uint64_t *k, size_t nk);
/* r = k*p with k a scalar-field element (Montgomery); variable time. */
void CZ_EFN(mul_fr)(CZ_EC *r, const CZ_EC *p, const CZ_EC_FR *k);
/* r = k*p in constant time with respect to k (fixed window, full-table
 * scans): for blinding scalars. */
void CZ_EFN(mul_fr_ct)(CZ_EC *r, const CZ_EC *p, const CZ_EC_FR *k);
/* 1 if p is on the curve and lies in the order-r subgroup (infinity: 1).
 * in_subgroup is the fast endomorphism test of ec/ec_subgroup.c; the _slow
 * variant multiplies by r (a full 255-bit scalar multiplication) and is
 * kept as the reference the tests compare against. */
int CZ_EFN(affine_in_subgroup)(const CZ_EC_A *p);
int CZ_EFN(in_subgroup)(const CZ_EC *p);
int CZ_EFN(in_subgroup_slow)(const CZ_EC *p);
/* Random point of the prime-order subgroup (k*G for random k). */
void CZ_EFN(random)(CZ_EC *r, cz_rng *rng);

#undef CZ_EFN
#undef CZ_EF
#undef CZ_EC_A
#undef CZ_EC_X
