/*
 * Fixed-base multiplication for every group: msm/fixed_base_tmpl_impl.h
 * instantiated once per group (contract and design in msm/fixed_base.h).
 */
#include "msm/fixed_base.h"

#include <stdlib.h>
#include <string.h>

#include "ec/ec_batch.h"
#include "util/common.h"

#define CZ_TMPL "msm/fixed_base_tmpl_impl.h"
#include "util/foreach_group.h"
