/* The field tables of ff/ff.h: a row per field (ff/ff_table_tmpl_impl.h),
 * looked up by the curve. */
#include "ff/ff.h"

#define CZ_TMPL "ff/ff_table_tmpl_impl.h"
#include "util/foreach_field.h"

#define CZ_FF_FQ_ROW_(ID, VALUE, SYM, ...) &SYM##_fq_field_,
#define CZ_FF_FR_ROW_(ID, VALUE, SYM, ...) &SYM##_fr_field_,
static const cz_field *const fq_tab[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_FF_FQ_ROW_)};
static const cz_field *const fr_tab[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_FF_FR_ROW_)};

const cz_field *cz_field_fq(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : fq_tab[i];
}

const cz_field *cz_field_fr(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : fr_tab[i];
}
