/*
 * Point encodings, instantiated from ec/ec_serde.c once per group by
 * util/foreach_group.h (CZ_EC, CZ_EC_F, CZ_EC_FQ, CZ_EC_DEG, CZ_G_C), with
 *   CZ_SD_CB     bytes of one big-endian coordinate: CZ_EC_DEG x |Fq|
 *                (BLS12-381 48, 96; BN254 32, 64)
 *   CZ_SD_ZCASH  1: zcash flag bits, 0: gnark flag bits: the curve's
 *                CONST_SERDE_ZCASH (ec/ec_serde.c)
 * See ec/ec_serde.h for the formats and the contract.
 */
#define CZ_EFN(x) CZ_CAT(CZ_CAT(CZ_EC, _), x)
#define CZ_EF(x) CZ_CAT(CZ_CAT(CZ_EC_F, _), x)
#define CZ_BF(x) CZ_CAT(CZ_CAT(CZ_EC_FQ, _), x)
#define CZ_EC_A CZ_CAT(CZ_EC, _affine)
#define CZ_SD_CB (CZ_EC_DEG * CZ_BF(BYTES))
#define CZ_SD_ZCASH CZ_CAT(CZ_G_C, _SERDE_ZCASH)

/* ---- coordinates: big-endian (Fq2 as c1 || c0), Montgomery LE (Fq2 as
 * c0 || c1), range of the stored limbs ---- */
#if CZ_EC_DEG == 1
static void CZ_EFN(sd_put_)(uint8_t *out, const CZ_EC_F *a) { CZ_BF(to_bytes_be)(out, a); }
static cz_status CZ_EFN(sd_get_)(CZ_EC_F *r, const uint8_t *in) { return CZ_BF(from_bytes_be)(r, in); }
static void CZ_EFN(sd_lem_put_)(uint8_t *out, const CZ_EC_F *a) { CZ_BF(to_mont_bytes_le)(out, a); }
static cz_status CZ_EFN(sd_lem_get_)(CZ_EC_F *r, const uint8_t *in) { return CZ_BF(from_mont_bytes_le)(r, in); }
static int CZ_EFN(sd_in_range_)(const CZ_EC_F *a) { return CZ_BF(limbs_in_range)(a->l); }
#else
static void CZ_EFN(sd_put_)(uint8_t *out, const CZ_EC_F *a)
{
    CZ_BF(to_bytes_be)(out, &a->c1);
    CZ_BF(to_bytes_be)(out + CZ_BF(BYTES), &a->c0);
}
static cz_status CZ_EFN(sd_get_)(CZ_EC_F *r, const uint8_t *in)
{
    CZ_EC_F t;
    if (CZ_BF(from_bytes_be)(&t.c1, in) != CZ_OK) return CZ_ERR_RANGE;
    if (CZ_BF(from_bytes_be)(&t.c0, in + CZ_BF(BYTES)) != CZ_OK) return CZ_ERR_RANGE;
    *r = t;
    return CZ_OK;
}
static void CZ_EFN(sd_lem_put_)(uint8_t *out, const CZ_EC_F *a)
{
    CZ_BF(to_mont_bytes_le)(out, &a->c0);
    CZ_BF(to_mont_bytes_le)(out + CZ_BF(BYTES), &a->c1);
}
static cz_status CZ_EFN(sd_lem_get_)(CZ_EC_F *r, const uint8_t *in)
{
    CZ_EC_F t;
    if (CZ_BF(from_mont_bytes_le)(&t.c0, in) != CZ_OK) return CZ_ERR_RANGE;
    if (CZ_BF(from_mont_bytes_le)(&t.c1, in + CZ_BF(BYTES)) != CZ_OK) return CZ_ERR_RANGE;
    *r = t;
    return CZ_OK;
}
static int CZ_EFN(sd_in_range_)(const CZ_EC_F *a)
{
    return CZ_BF(limbs_in_range)(a->c0.l) && CZ_BF(limbs_in_range)(a->c1.l);
}
#endif

/* The subgroup check of a decoded point unless trusted. */
static cz_status CZ_EFN(sd_subgroup_)(const CZ_EC_A *p, unsigned flags)
{
    if (flags & CZ_EC_DECODE_TRUSTED) return CZ_OK;
    return CZ_EFN(affine_in_subgroup)(p) ? CZ_OK : CZ_ERR_NOT_IN_SUBGROUP;
}

static int CZ_EFN(sd_all_zero_)(const uint8_t *in, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= in[i];
    return acc == 0;
}

void CZ_EFN(to_compressed)(uint8_t *out, const CZ_EC_A *p)
{
    if (CZ_EFN(affine_is_inf)(p)) {
        memset(out, 0, CZ_SD_CB);
        out[0] = CZ_SD_ZCASH ? 0xc0 : 0x40;
        return;
    }
    CZ_EFN(sd_put_)(out, &p->x);
    int big = CZ_EF(is_lex_largest)(&p->y);
#if CZ_SD_ZCASH
    out[0] |= (uint8_t)(0x80 | (big ? 0x20 : 0));
#else
    out[0] |= (uint8_t)(big ? 0xc0 : 0x80);
#endif
}

void CZ_EFN(to_uncompressed)(uint8_t *out, const CZ_EC_A *p)
{
    if (CZ_EFN(affine_is_inf)(p)) {
        memset(out, 0, 2 * CZ_SD_CB);
        out[0] = CZ_SD_ZCASH ? 0x40 : 0x00;
        return;
    }
    CZ_EFN(sd_put_)(out, &p->x);
    CZ_EFN(sd_put_)(out + CZ_SD_CB, &p->y);
}

cz_status CZ_EFN(from_compressed)(CZ_EC_A *r, const uint8_t *in, unsigned flags)
{
    uint8_t buf[CZ_SD_CB];
    int want_big;
#if CZ_SD_ZCASH
    uint8_t f = in[0] & 0xe0;
    if (!(f & 0x80)) return CZ_ERR_ENCODING; /* uncompressed flag on a compressed length */
    if (f & 0x40) {                          /* infinity: exactly 0xc0 00 .. 00 */
        if (f & 0x20 || (in[0] & 0x1f) || !CZ_EFN(sd_all_zero_)(in + 1, CZ_SD_CB - 1)) return CZ_ERR_ENCODING;
        CZ_EFN(affine_set_inf)(r);
        return CZ_OK;
    }
    want_big = (f & 0x20) != 0;
    memcpy(buf, in, CZ_SD_CB);
    buf[0] &= 0x1f;
#else
    uint8_t f = in[0] & 0xc0;
    if (f == 0x00) return CZ_ERR_ENCODING; /* the uncompressed marker */
    if (f == 0x40) {                       /* infinity: exactly 0x40 00 .. 00 */
        if ((in[0] & 0x3f) || !CZ_EFN(sd_all_zero_)(in + 1, CZ_SD_CB - 1)) return CZ_ERR_ENCODING;
        CZ_EFN(affine_set_inf)(r);
        return CZ_OK;
    }
    want_big = f == 0xc0;
    memcpy(buf, in, CZ_SD_CB);
    buf[0] &= 0x3f;
#endif
    CZ_EC_A p;
    if (CZ_EFN(sd_get_)(&p.x, buf) != CZ_OK) return CZ_ERR_RANGE;
    /* y^2 = x^3 + b */
    CZ_EC_F y2;
    CZ_EF(sqr)(&y2, &p.x);
    CZ_EF(mul)(&y2, &y2, &p.x);
    CZ_EF(add)(&y2, &y2, CZ_EFN(b)());
    if (CZ_EF(sqrt)(&p.y, &y2) != CZ_OK) return CZ_ERR_NOT_ON_CURVE;
    /* y != 0 here (no point of order 2 on these curves), so y and -y differ in sign */
    if (CZ_EF(is_lex_largest)(&p.y) != want_big) CZ_EF(neg)(&p.y, &p.y);
    cz_status st = CZ_EFN(sd_subgroup_)(&p, flags);
    if (st != CZ_OK) return st;
    *r = p;
    return CZ_OK;
}

cz_status CZ_EFN(from_uncompressed)(CZ_EC_A *r, const uint8_t *in, unsigned flags)
{
#if CZ_SD_ZCASH
    uint8_t f = in[0] & 0xe0;
    if (f & 0x80) return CZ_ERR_ENCODING; /* compressed flag on an uncompressed length */
    if (f & 0x20) return CZ_ERR_ENCODING; /* sign flag only in compressed form */
    if (f & 0x40) {                       /* infinity: exactly 0x40 00 .. 00 */
        if ((in[0] & 0x1f) || !CZ_EFN(sd_all_zero_)(in + 1, 2 * CZ_SD_CB - 1)) return CZ_ERR_ENCODING;
        CZ_EFN(affine_set_inf)(r);
        return CZ_OK;
    }
#else
    if (in[0] & 0xc0) return CZ_ERR_ENCODING; /* any compressed marker */
    if (CZ_EFN(sd_all_zero_)(in, 2 * CZ_SD_CB)) {
        CZ_EFN(affine_set_inf)(r);
        return CZ_OK;
    }
#endif
    /* the flag bits are all zero here: the bytes are the plain coordinates */
    CZ_EC_A p;
    if (CZ_EFN(sd_get_)(&p.x, in) != CZ_OK || CZ_EFN(sd_get_)(&p.y, in + CZ_SD_CB) != CZ_OK) return CZ_ERR_RANGE;
    /* (0, 0) is our in-memory infinity but, without the flag, not a point */
    if (CZ_EFN(affine_is_inf)(&p) || !CZ_EFN(affine_is_on_curve)(&p)) return CZ_ERR_NOT_ON_CURVE;
    cz_status st = CZ_EFN(sd_subgroup_)(&p, flags);
    if (st != CZ_OK) return st;
    *r = p;
    return CZ_OK;
}

void CZ_EFN(to_lem)(uint8_t *out, const CZ_EC_A *p)
{
    CZ_EFN(sd_lem_put_)(out, &p->x);
    CZ_EFN(sd_lem_put_)(out + sizeof(CZ_EC_F), &p->y);
}

cz_status CZ_EFN(affine_validate)(const CZ_EC_A *p, unsigned flags)
{
    if (!CZ_EFN(sd_in_range_)(&p->x) || !CZ_EFN(sd_in_range_)(&p->y)) return CZ_ERR_RANGE;
    if (CZ_EFN(affine_is_inf)(p)) return CZ_OK;
    if (!CZ_EFN(affine_is_on_curve)(p)) return CZ_ERR_NOT_ON_CURVE;
    return CZ_EFN(sd_subgroup_)(p, flags);
}

cz_status CZ_EFN(from_lem)(CZ_EC_A *r, const uint8_t *in, unsigned flags)
{
    CZ_EC_A p;
    if (CZ_EFN(sd_lem_get_)(&p.x, in) != CZ_OK || CZ_EFN(sd_lem_get_)(&p.y, in + sizeof(CZ_EC_F)) != CZ_OK)
        return CZ_ERR_RANGE;
    cz_status st = CZ_EFN(affine_validate)(&p, flags);
    if (st != CZ_OK) return st;
    *r = p;
    return CZ_OK;
}

#undef CZ_EFN
#undef CZ_EF
#undef CZ_BF
#undef CZ_EC_A
#undef CZ_SD_CB
#undef CZ_SD_ZCASH
