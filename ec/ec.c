/* Out-of-line group functions, instantiated per group. */
#include "ec/ec.h"

#include "ec/ec_consts.inc"

#define CZ_TMPL "ec/ec_tmpl_impl.h"
#include "util/foreach_group.h"
