/*
 * circuit/gadgets/boolean: bits in a constraint system (circuit/cs.h).
 *
 * DESIGN: a cz_bool is a constant, an allocated bit (a variable constrained
 * to 0 or 1: v * (1 - v) = 0, one constraint), or the negation of one (no
 * constraint: its linear combination is ONE - v). It carries its value, so
 * gadgets compute their witness as they go. Operations fold constants and
 * negations; each costs at most the constraints listed (0 when an operand
 * is constant):
 *   not 0, xor 1 ((2a) * b = a + b - c), and 1 (a * b = c),
 *   ch 1 (SHA-256's (a & b) ^ (~a & c): a * (b - c) = ch - c),
 *   maj 2 (bc = b & c, then a * (b + c - 2bc) = maj - bc),
 *   enforce_equal 1 ((a - b) * 1 = 0),
 *   bits of a field element: n allocations + 1 packing row, and for the
 *   strict range check (the bits < p) the comparison with p - 1 below.
 */
#ifndef CZ_CIRCUIT_GADGETS_BOOLEAN_H
#define CZ_CIRCUIT_GADGETS_BOOLEAN_H

#include "circuit/cs.h"

enum { CZ_BOOL_CONST = 0, CZ_BOOL_VAR = 1, CZ_BOOL_NOT = 2 };

typedef struct cz_bool {
    cz_var v;      /* VAR / NOT: the allocated bit */
    uint8_t kind;  /* CZ_BOOL_* */
    uint8_t value; /* the boolean's value (for NOT: 1 - value of v) */
} cz_bool;

static inline cz_bool cz_bool_const(int b)
{
    cz_bool r = {CZ_VAR_ONE, CZ_BOOL_CONST, (uint8_t)(b != 0)};
    return r;
}
static inline cz_bool cz_bool_not(cz_bool a)
{
    if (a.kind != CZ_BOOL_CONST) a.kind = a.kind == CZ_BOOL_VAR ? CZ_BOOL_NOT : CZ_BOOL_VAR;
    a.value ^= 1;
    return a;
}
/* A new bit of value b (0/1), with its booleanity constraint. */
cz_bool cz_bool_alloc(cz_cs *cs, int b);
/* The same as a public input. */
cz_bool cz_bool_alloc_input(cz_cs *cs, int b);
cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b);
cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b);
cz_bool cz_bool_or(cz_cs *cs, cz_bool a, cz_bool b);
cz_bool cz_bool_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);
cz_bool cz_bool_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);
void cz_bool_enforce_equal(cz_cs *cs, cz_bool a, cz_bool b);
/* lc += coef * a (coef NULL: 1) */
void cz_bool_lc_add(cz_cs *cs, cz_lc *lc, cz_bool a, const cz_fe *coef);

/* Bit decomposition of a variable x (value *xv): n bits, little-endian, with
 * sum 2^i bits_i = x (one constraint). n <= field bits; strict: when n is
 * the field's bit length, also prove the bits are < p (the unique
 * representation), comparing with p - 1 from the top bit down (about 2
 * constraints per bit). CZ_ERR_RANGE (sticky) for n out of range. */
void cz_bits_of(cz_cs *cs, cz_var x, const cz_fe *xv, unsigned n, int strict, cz_bool *bits);
/* The strict range check alone: the field's bit length of bits (little-
 * endian) represent an integer < p (about one constraint a bit). */
void cz_bits_enforce_below_p(cz_cs *cs, const cz_bool *bits);
/* The scalar field's bit length (254 BN254, 255 BLS12-381) and the bits a
 * packed public input carries (one less). */
unsigned cz_cs_field_bits(const cz_cs *cs);
unsigned cz_cs_capacity(const cz_cs *cs);

/* Packing of bits into public inputs: chunks of cz_cs_capacity(cs) bits,
 * each input = sum 2^i bits_i (little-endian within a chunk), one
 * constraint per input. Returns the number of inputs made. */
uint32_t cz_pack_inputs(cz_cs *cs, const cz_bool *bits, size_t n);
/* The values those inputs take (for a verifier's public.json): n bits into
 * out[0..ceil(n / capacity)). */
void cz_pack_values(const cz_cs *cs, const uint8_t *bits, size_t n, cz_fe *out);

#endif
