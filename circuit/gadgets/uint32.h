/*
 * circuit/gadgets/uint32: 32-bit words as 32 cz_bool (little-endian: b[0]
 * is the least significant bit), the operations of SHA-256.
 *
 * DESIGN: rotations and shifts only renumber bits (0 constraints; shifted-in
 * bits are constant 0). xor is 32 cz_bool_xor (fewer where a bit is
 * constant). Modular addition of k words is one packing row: the operands'
 * weighted bits (constants folded into one ONE coefficient) equal the
 * weighted bits of a freshly allocated sum of as many bits as the largest
 * possible sum needs (32 + ceil(log2 k) for k variable words), each
 * booleanity-checked; the low 32 bits are the result. Cost: that many bits
 * + 1 constraints (0 when every operand is constant).
 */
#ifndef CZ_CIRCUIT_GADGETS_UINT32_H
#define CZ_CIRCUIT_GADGETS_UINT32_H

#include "circuit/gadgets/boolean.h"

typedef struct cz_u32 {
    cz_bool b[32];
    uint32_t value;
} cz_u32;

cz_u32 cz_u32_const(uint32_t v);
/* 32 allocated bits (32 booleanity constraints). */
cz_u32 cz_u32_alloc(cz_cs *cs, uint32_t v);
/* From 32 bits given most significant first (SHA-256's order). */
cz_u32 cz_u32_from_be_bits(const cz_bool *bits);
void cz_u32_to_be_bits(const cz_u32 *x, cz_bool *bits);
cz_u32 cz_u32_rotr(const cz_u32 *x, unsigned n);
cz_u32 cz_u32_shr(const cz_u32 *x, unsigned n);
cz_u32 cz_u32_xor(cz_cs *cs, const cz_u32 *a, const cz_u32 *b);
/* (a + b + ...) mod 2^32 of k operands (1 <= k <= 16). */
cz_u32 cz_u32_addmany(cz_cs *cs, const cz_u32 *const *ops, unsigned k);

#endif
