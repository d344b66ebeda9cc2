/* libFuzzer target: the .r1cs reader on arbitrary bytes must return a status,
 * never crash, leak or read out of bounds. Build: cmake -DCZ_BUILD_FUZZ=ON
 * with clang; run: fuzz/run.sh r1cs [seconds]. */
#include <stddef.h>
#include <stdint.h>

#include "io/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_error err;
    cz_error_clear(&err);
    cz_r1cs r;
    if (cz_r1cs_load_mem(&r, data, size, "fuzz.r1cs", 0, NULL, &err) == CZ_OK) cz_r1cs_free(&r);
    return 0;
}
