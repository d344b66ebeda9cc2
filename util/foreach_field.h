/*
 * Includes the template file named by CZ_TMPL once for every prime field
 * (Fq, then Fr, of every curve of CZ_CURVE_LIST),
 * with the parameters of util/foreach.h defined around each inclusion;
 * undefines CZ_TMPL. The rule for template files is in util/foreach.h.
 * No include guard: included once per template.
 */
#include "util/foreach.h"

#ifndef CZ_TMPL
#error "util/foreach_field.h: #define CZ_TMPL \"dir/x_tmpl.h\" first"
#endif
#ifdef CZ_EACH_I
#error "util/foreach_field.h: the for-each headers do not nest"
#endif

#define CZ_EACH_KIND 1
#define CZ_EACH_I 0
#include "util/foreach_slot.h"
#undef CZ_EACH_I
#define CZ_EACH_I 1
#include "util/foreach_slot.h"
#undef CZ_EACH_I
#define CZ_EACH_I 2
#include "util/foreach_slot.h"
#undef CZ_EACH_I
#define CZ_EACH_I 3
#include "util/foreach_slot.h"
#undef CZ_EACH_I
#undef CZ_EACH_KIND
#undef CZ_TMPL
