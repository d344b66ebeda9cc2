/* libFuzzer target: the JSON reader and the proof / public / vkey readers
 * built on it, on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/json.h"
#include "io/proof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_error err;
    cz_error_clear(&err);
    cz_json_doc *doc;
    cz_json *root;
    if (cz_json_parse(&doc, &root, (const char *)data, size, "fuzz.json", &err) == CZ_OK) cz_json_free(doc);
    /* the typed readers take paths: go through a private temporary file */
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/cz_fuzz_json_%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    cz_vkey vk;
    cz_error_clear(&err);
    if (cz_vkey_read_json(&vk, path, &err) == CZ_OK) cz_vkey_free(&vk);
    cz_proof pr;
    cz_error_clear(&err);
    (void)cz_proof_read_json(&pr, (size & 1) ? CZ_CURVE_BN254 : CZ_CURVE_BLS12_381, path, &err);
    void *vals;
    size_t n;
    cz_error_clear(&err);
    if (cz_public_read_json(&vals, &n, CZ_CURVE_BN254, path, &err) == CZ_OK) free(vals);
    return 0;
}
