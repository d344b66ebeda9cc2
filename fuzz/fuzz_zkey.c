/* libFuzzer target: the .zkey reader on arbitrary bytes must return a status,
 * never crash, leak or read out of bounds. Build: cmake -DCZ_BUILD_FUZZ=ON
 * with clang; run: fuzz/run.sh zkey [seconds]. */
#include <stddef.h>
#include <stdint.h>

#include "io/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_error err;
    cz_error_clear(&err);
    cz_zkey z;
    if (cz_zkey_load_mem(&z, data, size, "fuzz.zkey", NULL, &err) == CZ_OK) cz_zkey_free(&z);
    return 0;
}
