/*
 * ec/ec_serde: byte encodings of affine G1/G2 points.
 *
 * DESIGN: three encodings, each with an encoder (total: every valid affine
 * point, infinity included, has exactly one encoding) and a strict decoder
 * (every byte string is either rejected with a cz_status or decodes to a
 * point whose re-encoding is the same bytes).
 *
 * 1. BLS12-381, the zcash / bellperson / IETF encoding (what Filecoin and
 *    Zcash proofs and keys use):
 *      G1 compressed 48 bytes  = x                  (big-endian)
 *      G1 uncompressed 96      = x || y
 *      G2 compressed 96        = x.c1 || x.c0
 *      G2 uncompressed 192     = x.c1 || x.c0 || y.c1 || y.c0
 *    The three top bits of byte 0 are flags: 0x80 compressed, 0x40
 *    infinity, 0x20 sign (set when y is the lexicographically largest of
 *    y, -y; for Fq2 the sign of c1, or of c0 when c1 = 0; compressed form
 *    only). Infinity is 0xc0 00.. (compressed) and 0x40 00.. (uncompressed).
 *
 * 2. BN254, the gnark-crypto encoding (ecc/bn254/marshal.go), whose
 *    uncompressed form is also Ethereum's EIP-196/197 precompile layout:
 *      G1 compressed 32 bytes  = x                  (big-endian)
 *      G1 uncompressed 64      = x || y
 *      G2 compressed 64        = x.c1 || x.c0
 *      G2 uncompressed 128     = x.c1 || x.c0 || y.c1 || y.c0
 *    q < 2^254 leaves two spare bits at the top of byte 0:
 *      00 uncompressed (infinity = 64/128 zero bytes), 10 compressed with
 *      the lexicographically smallest y, 11 compressed with the largest y,
 *      01 compressed infinity (0x40 00..). Same sign rule as above.
 *
 * 3. snarkjs "LEM" (all four groups): x || y, each coordinate in Montgomery
 *    form (value * 2^(64*limbs) mod q), little-endian, Fq2 as c0 || c1;
 *    all-zero is infinity. This is how .zkey proving keys store points, and
 *    byte-for-byte the in-memory <g>_affine on little-endian hosts (so a
 *    mapped zkey section can be checked in place with <g>_affine_validate).
 *      sizes: BLS12-381 G1 96, G2 192; BN254 G1 64, G2 128.
 *
 * Decoders check, in this order, and return the first failure:
 *   CZ_ERR_ENCODING        flag bits: compression flag that does not match
 *                          the length, infinity with any other bit or byte
 *                          set, sign flag on an uncompressed/infinity point
 *   CZ_ERR_RANGE           a coordinate (component) >= q
 *   CZ_ERR_NOT_ON_CURVE    the point does not satisfy the curve equation
 *                          (this includes an uncompressed zcash (0, 0)
 *                          without the infinity flag); for compressed input:
 *                          x^3 + b has no square root (no point has that x)
 *   CZ_ERR_NOT_IN_SUBGROUP on the curve, outside the order-r subgroup
 *                          (skipped with CZ_EC_DECODE_TRUSTED)
 * On any error *r is left untouched. Decoders never read past the fixed
 * size of their encoding and never crash on any input.
 *
 * Encoders require a valid point (on the curve, the <g>_affine invariant);
 * they do not check it.
 */
#ifndef CZ_EC_EC_SERDE_H
#define CZ_EC_EC_SERDE_H

#include <stdint.h>

#include "ec/ec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decoder flags; 0 = full validation. CZ_EC_DECODE_TRUSTED skips the
 * subgroup check (input from a trusted source, e.g. a proving key whose hash
 * was verified); the curve equation and all encoding checks stay. */
#define CZ_EC_DECODE_TRUSTED 1u

/* Per group <g>: sizes <g>_COMPRESSED_SIZE, <g>_UNCOMPRESSED_SIZE,
 * <g>_LEM_SIZE in bytes, the encoders and decoders (ec/ec_serde_tmpl.h). */
#define CZ_TMPL "ec/ec_serde_tmpl.h"
#include "util/foreach_group.h"

#ifdef __cplusplus
}
#endif

#endif
