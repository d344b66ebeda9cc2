/*
 * One slot of the for-each headers (see util/foreach.h): entry CZ_EACH_I of
 * CZ_CURVE_LIST, if the list has one, as CZ_EACH_KIND asks: 0 the curve,
 * 1 its fields Fq and Fr, 2 its groups G1 and G2. No include guard: included
 * once per slot.
 */
#if CZ_EACH_I < CZ_CURVE_COUNT
#define CZ_G CZ_CURVE_AT_SYM(CZ_EACH_I)
#define CZ_G_C CZ_CURVE_AT_CONST(CZ_EACH_I)
#define CZ_G_CURVE CZ_CURVE_AT_ENUM(CZ_EACH_I)
#define CZ_G_FQ_N CZ_CURVE_AT_FQ_N(CZ_EACH_I)
#define CZ_G_FR_N CZ_CURVE_AT_FR_N(CZ_EACH_I)

#if CZ_EACH_KIND == 0
#include CZ_TMPL

#elif CZ_EACH_KIND == 1
#define CZ_FP CZ_CAT(CZ_G, _fq)
#define CZ_FP_C CZ_CAT(CZ_G_C, _FQ)
#define CZ_FP_N CZ_G_FQ_N
#include CZ_TMPL
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N
#define CZ_FP CZ_CAT(CZ_G, _fr)
#define CZ_FP_C CZ_CAT(CZ_G_C, _FR)
#define CZ_FP_N CZ_G_FR_N
#include CZ_TMPL
#undef CZ_FP
#undef CZ_FP_C
#undef CZ_FP_N

#elif CZ_EACH_KIND == 2
#define CZ_EC_FQ CZ_CAT(CZ_G, _fq)
#define CZ_EC_FR CZ_CAT(CZ_G, _fr)
#define CZ_EC CZ_CAT(CZ_G, _g1)
#define CZ_EC_C CZ_CAT(CZ_G_C, _G1)
#define CZ_EC_F CZ_CAT(CZ_G, _fq)
#define CZ_EC_DEG 1
#include CZ_TMPL
#undef CZ_EC
#undef CZ_EC_C
#undef CZ_EC_F
#undef CZ_EC_DEG
#define CZ_EC CZ_CAT(CZ_G, _g2)
#define CZ_EC_C CZ_CAT(CZ_G_C, _G2)
#define CZ_EC_F CZ_CAT(CZ_G, _fq2)
#define CZ_EC_DEG 2
#include CZ_TMPL
#undef CZ_EC
#undef CZ_EC_C
#undef CZ_EC_F
#undef CZ_EC_DEG
#undef CZ_EC_FQ
#undef CZ_EC_FR

#else
#error "util/foreach_slot.h: CZ_EACH_KIND must be 0, 1 or 2"
#endif

#undef CZ_G
#undef CZ_G_C
#undef CZ_G_CURVE
#undef CZ_G_FQ_N
#undef CZ_G_FR_N
#endif
