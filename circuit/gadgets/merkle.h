/*
 * circuit/gadgets/merkle: Merkle inclusion paths over SHA-256, in a
 * constraint system (the Poseidon one is circuit/examples/poseidon_merkle.c).
 *
 * DESIGN: a node is 256 bits in SHA-256's order (bit 0 = the top bit of
 * byte 0, as circuit/gadgets/sha256.h gives and takes them); a parent is
 * H(left || right), H one of
 *   CZ_MERKLE_SHA256           SHA-256 of the 64 bytes, padded (2
 *                              compressions; Filecoin's Sha256Hasher
 *                              without its Fr32 truncation of the top bits);
 *   CZ_MERKLE_SHA256_COMPRESS  the compression function alone on the 512
 *                              bits from the IV (1 compression; Zcash
 *                              Sprout's MerkleCRH: a fixed-length input
 *                              needs no length padding).
 * A path is given from the leaf's level up: depth siblings and depth index
 * bits (bit i = 1: at level i the current node is the right child, the
 * sibling the left). The ordered pair is a conditional swap of the bits
 * (l = cur + bit (sib - cur), r = sib - bit (sib - cur): 2 constraints a
 * bit pair, l and r allocated without booleanity rows, which they inherit
 * from cur, sib and the boolean index bit; 0 when the index bit is a
 * constant). Siblings and index bits are the caller's (allocated bits,
 * booleanity-checked). Constraint counts are in docs/CIRCUITS.md.
 */
#ifndef CZ_CIRCUIT_GADGETS_MERKLE_H
#define CZ_CIRCUIT_GADGETS_MERKLE_H

#include <stdint.h>

#include "circuit/gadgets/boolean.h"

typedef enum cz_merkle_hash {
    CZ_MERKLE_SHA256 = 0,
    CZ_MERKLE_SHA256_COMPRESS = 1,
} cz_merkle_hash;

/* out[256] = H(left[256] || right[256]). */
void cz_merkle_node(cz_cs *cs, cz_merkle_hash h, const cz_bool *left, const cz_bool *right, cz_bool *out);
/* (l, r) = bit ? (b, a) : (a, b), n bits each. */
void cz_merkle_swap(cz_cs *cs, cz_bool bit, const cz_bool *a, const cz_bool *b, unsigned n, cz_bool *l, cz_bool *r);
/* root[256] of the path: leaf[256], path[depth * 256] (level 0 first),
 * index[depth]. */
void cz_merkle_root(cz_cs *cs, cz_merkle_hash h, const cz_bool *leaf, const cz_bool *path, const cz_bool *index,
                    unsigned depth, cz_bool *root);

/* The same outside a circuit, on bytes. */
void cz_merkle_node_native(cz_merkle_hash h, const uint8_t left[32], const uint8_t right[32], uint8_t out[32]);
/* index bit i: (index >> i) & 1 */
void cz_merkle_root_native(cz_merkle_hash h, const uint8_t leaf[32], const uint8_t *path, uint64_t index,
                           unsigned depth, uint8_t root[32]);

#endif
