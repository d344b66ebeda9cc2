/*
 * io/wtns_write: writes circom/snarkjs witness files (.wtns, version 2).
 *
 * DESIGN: the layout read by io/wtns and snarkjs (docs/FORMATS.md
 * §2):
 *   "wtns" u32 2 u32 2
 *   u32 1 u64 40     u32 n8 = 32, r (32 bytes LE), u32 nWitness
 *   u32 2 u64 32n    n values, canonical (not Montgomery) little-endian
 * Section sizes are full u64 (circom_runtime's writer is right only below
 * 2^32 bytes). The values are converted in chunks, in parallel on the pool,
 * and written through util/atomic_file: the file appears whole or not at all.
 */
#ifndef CZ_IO_WTNS_WRITE_H
#define CZ_IO_WTNS_WRITE_H

#include <stdint.h>

#include "cuzk/curve.h"
#include "util/error.h"
#include "util/thread.h"

/* Bytes of a .wtns file of n values. */
static inline uint64_t cz_wtns_file_size(uint32_t n)
{
    return 76 + (uint64_t)32 * n;
}

/* Writes n values (n >= 1; values[0] should be 1) to path. montgomery: 1 when
 * values are scalar-field elements (cz_bn254_fr / cz_bls12_381_fr, Montgomery
 * form), 0 when they are 32-byte canonical little-endian integers. Every value
 * is checked < r (CZ_ERR_RANGE names the first bad index; no file is left).
 * pool NULL: the default pool. */
cz_status cz_wtns_write(const char *path, cz_curve curve, const void *values, uint32_t n, int montgomery, cz_pool *pool,
                        cz_error *err);

#endif
