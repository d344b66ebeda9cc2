/* libFuzzer target: the .wtns reader on arbitrary bytes must return a status,
 * never crash, leak or read out of bounds. Build: cmake -DCZ_BUILD_FUZZ=ON
 * with clang; run: fuzz/run.sh wtns [seconds]. */
#include <stddef.h>
#include <stdint.h>

#include "io/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_error err;
    cz_error_clear(&err);
    cz_wtns w;
    if (cz_wtns_load_mem(&w, data, size, "fuzz.wtns", NULL, &err) == CZ_OK) cz_wtns_free(&w);
    return 0;
}
