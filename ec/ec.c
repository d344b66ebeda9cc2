/* Out-of-line group functions, instantiated per group, and the per-curve
 * group tables. */
#include "ec/ec.h"

#include "ec/ec_consts.inc"

#define CZ_TMPL "ec/ec_tmpl_impl.h"
#include "util/foreach_group.h"

#define CZ_EC_G1_ROW_(ID, SYM, ...) &SYM##_g1_group,
#define CZ_EC_G2_ROW_(ID, SYM, ...) &SYM##_g2_group,
static const cz_group *const cz_ec_g1_tab_[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_EC_G1_ROW_)};
static const cz_group *const cz_ec_g2_tab_[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_EC_G2_ROW_)};

const cz_group *cz_group_g1(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : cz_ec_g1_tab_[i];
}

const cz_group *cz_group_g2(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : cz_ec_g2_tab_[i];
}
