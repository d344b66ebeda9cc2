/*
 * io/wtns: circom/snarkjs witness files (.wtns, version 2).
 *
 * DESIGN: section 1 = u32 n8 | n8 bytes prime (= r, standard LE) | u32 count;
 * section 2 = count values, standard (not Montgomery) little-endian. The curve
 * is read from the prime. Values are read (io/binfile: pread) into one
 * aligned array, validated (< r) and converted to Montgomery form there, in
 * parallel.
 */
#ifndef CZ_IO_WTNS_H
#define CZ_IO_WTNS_H

#include "cuzk/curve.h"
#include "util/alloc.h"
#include "util/error.h"

typedef struct cz_wtns {
    cz_curve curve;
    uint32_t n;   /* values, w[0] = 1 */
    void *values; /* n scalar-field elements (cz_bn254_fr / cz_bls12_381_fr), Montgomery */
    const cz_allocator *alloc;
} cz_wtns;

/* Loads and validates path. On failure w is left empty (nothing to free). */
cz_status cz_wtns_load(cz_wtns *w, const char *path, const cz_allocator *alloc, cz_error *err);
cz_status cz_wtns_load_mem(cz_wtns *w, const void *data, size_t len, const char *name, const cz_allocator *alloc,
                           cz_error *err);
void cz_wtns_free(cz_wtns *w);
/* The header of path (curve, value count), checked as cz_wtns_load checks
 * it (section 2 holds count values), without reading the values. */
cz_status cz_wtns_probe(const char *path, cz_curve *curve, uint32_t *n, cz_error *err);

#endif
