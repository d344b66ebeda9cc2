/* Out-of-line field functions: ff/fp_tmpl_impl.h instantiated per field,
 * and the per-curve field tables. */
#include "ff/ff.h"

#define CZ_TMPL "ff/fp_tmpl_impl.h"
#include "util/foreach_field.h"

#define CZ_FF_FQ_ROW_(ID, SYM, ...) &SYM##_fq_field,
#define CZ_FF_FR_ROW_(ID, SYM, ...) &SYM##_fr_field,
static const cz_field *const cz_ff_fq_tab_[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_FF_FQ_ROW_)};
static const cz_field *const cz_ff_fr_tab_[CZ_CURVE_COUNT] = {CZ_CURVE_LIST(CZ_FF_FR_ROW_)};

const cz_field *cz_field_fq(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : cz_ff_fq_tab_[i];
}

const cz_field *cz_field_fr(cz_curve c)
{
    int i = cz_curve_index(c);
    return i < 0 ? NULL : cz_ff_fr_tab_[i];
}
