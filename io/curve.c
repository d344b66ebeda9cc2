/* The curve info table and the curve names, rows of CZ_CURVE_LIST. */
#include <string.h>
#include <strings.h>

#include "cuzk/curve.h"
#include "ec/ec.h"
#include "ff/ff.h"
#include "ntt/ntt.h"

#define CZ_CURVE_INFO_ROW_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR)                                        \
    {CZ_CURVE_##ID, CZ_CURVE_IDX_##ID, NAME, SNARKJS, ALIAS, NQ, NR, 8 * NQ, 8 * NR, CONST##_FR_S, 16 * NQ, 32 * NQ},
static const cz_curve_info curve_info[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_CURVE_INFO_ROW_)};
#undef CZ_CURVE_INFO_ROW_

/* the in-memory affine types are what the table says */
#define CZ_CURVE_SIZE_CHECK_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR)                                      \
    _Static_assert(sizeof(SYM##_g1_affine) == 16 * NQ && sizeof(SYM##_g2_affine) == 32 * NQ &&                         \
                       sizeof(SYM##_fr) == 8 * NR && CONST##_FR_S == SYM##_ntt_MAX_LOG,                                \
                   #ID ": sizes");
CZ_CURVE_LIST(CZ_CURVE_SIZE_CHECK_)
#undef CZ_CURVE_SIZE_CHECK_

const cz_curve_info *cz_curve_info_get(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : &curve_info[i];
}

const char *cz_curve_name(cz_curve c)
{
    const cz_curve_info *ci = cz_curve_info_get(c);
    return ci ? ci->name : "none";
}

const char *cz_curve_snarkjs_name(cz_curve c)
{
    const cz_curve_info *ci = cz_curve_info_get(c);
    return ci ? ci->snarkjs_name : "none";
}

cz_curve cz_curve_parse(const char *s)
{
    if (!s) return CZ_CURVE_NONE;
    for (int i = 0; i < CZ_CURVE_COUNT; i++) {
        const cz_curve_info *ci = &curve_info[i];
        if (!strcasecmp(s, ci->name) || !strcasecmp(s, ci->snarkjs_name) || !strcasecmp(s, ci->alias))
            return ci->curve;
    }
    return CZ_CURVE_NONE;
}

static int limbs_match(const uint8_t *le, uint32_t n8, const cz_field *f)
{
    if (n8 != f->bytes) return 0;
    for (int i = 0; i < f->limbs; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | le[8 * i + k];
        if (v != f->modulus[i]) return 0;
    }
    return 1;
}

cz_curve cz_curve_from_r(const uint8_t *le, uint32_t n8)
{
    for (int i = 0; i < CZ_CURVE_COUNT; i++)
        if (limbs_match(le, n8, cz_field_fr(curve_info[i].curve))) return curve_info[i].curve;
    return CZ_CURVE_NONE;
}

cz_curve cz_curve_from_q(const uint8_t *le, uint32_t n8)
{
    for (int i = 0; i < CZ_CURVE_COUNT; i++)
        if (limbs_match(le, n8, cz_field_fq(curve_info[i].curve))) return curve_info[i].curve;
    return CZ_CURVE_NONE;
}
