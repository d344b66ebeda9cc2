/*
 * util/foreach: template files instantiated once per curve, field or group
 * of CZ_CURVE_LIST (include/cuzk/curve.h).
 *
 * DESIGN: per-curve code is written once, as a template file, and stamped
 * out for every entry of the curve list. #include cannot sit inside a
 * macro, so three for-each headers do the stamping:
 *
 *     #define CZ_TMPL "ec/ec_tmpl.h"
 *     #include "util/foreach_group.h"
 *
 * includes CZ_TMPL once per instance, with the parameters below defined
 * around each inclusion, and undefines CZ_TMPL at the end.
 *
 *   util/foreach_curve.h   once per curve:
 *       CZ_G          symbol prefix          cz_bn254
 *       CZ_G_C        constant prefix        CZ_BN254
 *       CZ_G_CURVE    the cz_curve value     CZ_CURVE_BN254
 *       CZ_G_FQ_N, CZ_G_FR_N  64-bit limbs of Fq and Fr
 *   util/foreach_field.h   per curve Fq, then Fr; the CZ_G* above and
 *       CZ_FP         the field              cz_bn254_fq
 *       CZ_FP_C       its constant prefix    CZ_BN254_FQ (ff/ff_consts.inc)
 *       CZ_FP_N       64-bit limbs           4
 *   util/foreach_group.h   per curve G1, then G2; the CZ_G* above and
 *       CZ_EC         the group              cz_bn254_g1
 *       CZ_EC_C       its constant prefix    CZ_BN254_G1 (ec/ec_consts.inc)
 *       CZ_EC_F       coordinate field       cz_bn254_fq (G2: cz_bn254_fq2)
 *       CZ_EC_FQ      base prime field       cz_bn254_fq
 *       CZ_EC_FR      scalar field           cz_bn254_fr
 *       CZ_EC_DEG     1 for G1, 2 for G2 (the degree of CZ_EC_F over Fq)
 *
 * TEMPLATE FILES, one rule for all of them: X_tmpl.h holds the
 * per-instance declarations (types, inline functions, prototypes) and is
 * instantiated from the header X.h; X_tmpl_impl.h holds the per-instance
 * definitions and is instantiated exactly once, from X.c. Templates are
 * included only through the for-each headers, and #undef every helper
 * macro they define.
 *
 * These headers and CZ_CURVE_LIST are the only places that enumerate the
 * curves; they name none themselves: slot i takes entry i of the list
 * (CZ_CURVE_AT_* below). There are CZ_EACH_SLOTS slots, checked against
 * CZ_CURVE_COUNT at compile time. Dispatch tables are rows of the list too
 * (CZ_CURVE_LIST(ROW) in list order, indexed by cz_curve_index).
 *
 * Adding a curve: its entry in CZ_CURVE_LIST; its constants, from the
 * generators of tools/ (ff/ff_consts.inc, ff/tower_consts.inc,
 * ec/ec_consts.inc, ec/ec_endo_consts.inc); the per-curve facts that the
 * templates read by constant prefix: CONST_FQ2_XI (tools/gen_tower_consts.py),
 * CONST_SERDE_ZCASH (ec/ec_serde.c), CONST_PAIRING_* (ec/pairing.c) and
 * CONST_GPU_FQ_MUL_PER_US (cuda/msm.cu); and the maths that is written per
 * curve, not templated: the final exponentiation (ec/pairing.c) and the
 * subgroup checks (ec/ec_subgroup.c). The compiler names whatever is
 * missing.
 */
#ifndef CZ_UTIL_FOREACH_H
#define CZ_UTIL_FOREACH_H

#include "cuzk/curve.h"
#include "util/common.h"

/* Columns of entry i of CZ_CURVE_LIST (i a literal or a macro of one). */
#define CZ_CURVE_AT_ID(i) CZ_EACH_COL_(CZ_EACH_ID_, i)
#define CZ_CURVE_AT_SYM(i) CZ_EACH_COL_(CZ_EACH_SYM_, i)
#define CZ_CURVE_AT_CONST(i) CZ_EACH_COL_(CZ_EACH_CONST_, i)
#define CZ_CURVE_AT_FQ_N(i) CZ_EACH_COL_(CZ_EACH_FQ_N_, i)
#define CZ_CURVE_AT_FR_N(i) CZ_EACH_COL_(CZ_EACH_FR_N_, i)
#define CZ_CURVE_AT_ENUM(i) CZ_CAT(CZ_CURVE_, CZ_CURVE_AT_ID(i))

/* the list as "(entry 0), (entry 1), ..., ~", entry i picked from it */
#define CZ_EACH_ROW_(...) (__VA_ARGS__),
#define CZ_EACH_ROWS_ CZ_CURVE_LIST(CZ_EACH_ROW_) ~
#define CZ_EACH_SEL_(i, ...) CZ_CAT(CZ_EACH_PICK_, i)(__VA_ARGS__)
#define CZ_EACH_PICK_0(a, ...) a
#define CZ_EACH_PICK_1(a, b, ...) b
#define CZ_EACH_PICK_2(a, b, c, ...) c
#define CZ_EACH_PICK_3(a, b, c, d, ...) d
#define CZ_EACH_SLOTS 4
#define CZ_EACH_APPLY_(f, args) f args
#define CZ_EACH_COL_(f, i) CZ_EACH_APPLY_(f, CZ_EACH_SEL_(i, CZ_EACH_ROWS_))
#define CZ_EACH_ID_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR) ID
#define CZ_EACH_SYM_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR) SYM
#define CZ_EACH_CONST_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR) CONST
#define CZ_EACH_FQ_N_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR) NQ
#define CZ_EACH_FR_N_(ID, VALUE, SYM, CONST, SHORT, NAME, SNARKJS, ALIAS, NQ, NR) NR

/* the slots cover the list: CZ_CURVE_COUNT (which #if sees) is its length */
#ifdef __cplusplus
static_assert(CZ_CURVE_IDX_END_ == CZ_CURVE_COUNT, "CZ_CURVE_COUNT counts CZ_CURVE_LIST");
#else
_Static_assert(CZ_CURVE_IDX_END_ == CZ_CURVE_COUNT, "CZ_CURVE_COUNT counts CZ_CURVE_LIST");
#endif
#if CZ_CURVE_COUNT > CZ_EACH_SLOTS
#error "CZ_CURVE_LIST is longer than the slots of util/foreach_slot.h: add CZ_EACH_PICK_n and a slot"
#endif

#endif
