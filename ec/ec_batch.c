/* Batch-affine addition (ec/ec_batch.h), instantiated per group. */
#include "ec/ec_batch.h"

#include <stdlib.h>
#include <string.h>

#define CZ_TMPL "ec/ec_batch_tmpl_impl.h"
#include "util/foreach_group.h"
