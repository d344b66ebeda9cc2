/*
 * circuit/gadgets/sha256: SHA-256 (FIPS 180-4) in a constraint system.
 *
 * DESIGN: bits are given and returned in SHA-256's order (bit 0 is the most
 * significant bit of byte 0). The compression function follows the
 * standard over cz_u32 words: message schedule sigma0/sigma1 (xor of
 * rotations and a shift), 64 rounds with Sigma0/Sigma1, ch (1 constraint a
 * bit) and maj (2 a bit); the round's additions are two cz_u32_addmany:
 * new_e = d + h + S1 + ch + K + W and new_a = h + S1 + ch + K + W + S0 + maj
 * (each one packing row, so the shared terms cost nothing twice). The IV
 * and the round constants are constants: rounds that see only constants
 * fold. Padding is constant for a given length: cz_sha256 hashes any bit
 * string (a whole number of bytes, or not) with its padding.
 * Constraint counts are in docs/CIRCUITS.md.
 */
#ifndef CZ_CIRCUIT_GADGETS_SHA256_H
#define CZ_CIRCUIT_GADGETS_SHA256_H

#include "circuit/gadgets/uint32.h"

/* The initial hash value H(0) as constants. */
void cz_sha256_iv(cz_u32 state[8]);
/* state = compress(state, block), block: 512 bits. */
void cz_sha256_compress(cz_cs *cs, cz_u32 state[8], const cz_bool *block);
/* out[256] = SHA-256 of the nbits bits (with the standard padding). */
void cz_sha256(cz_cs *cs, const cz_bool *bits, size_t nbits, cz_bool *out);
/* Compressions cz_sha256 runs for nbits bits. */
static inline size_t cz_sha256_blocks(size_t nbits) { return (nbits + 1 + 64 + 511) / 512; }

#endif
