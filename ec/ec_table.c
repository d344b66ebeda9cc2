/* The group tables of ec/ec.h: a row per group (ec/ec_table_tmpl_impl.h),
 * looked up by the curve. */
#include "ec/ec.h"

#define CZ_TMPL "ec/ec_table_tmpl_impl.h"
#include "util/foreach_group.h"

#define CZ_EC_G1_ROW_(ID, VALUE, SYM, ...) &SYM##_g1_group_,
#define CZ_EC_G2_ROW_(ID, VALUE, SYM, ...) &SYM##_g2_group_,
static const cz_group *const g1_tab[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_EC_G1_ROW_)};
static const cz_group *const g2_tab[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_EC_G2_ROW_)};

const cz_group *cz_group_g1(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : g1_tab[i];
}

const cz_group *cz_group_g2(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : g2_tab[i];
}
