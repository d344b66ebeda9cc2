/* Out-of-line field functions: ff/fp_tmpl_impl.h instantiated per field. */
#include "ff/ff.h"

#define CZ_TMPL "ff/fp_tmpl_impl.h"
#include "util/foreach_field.h"
