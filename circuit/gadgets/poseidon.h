/*
 * circuit/gadgets/poseidon: the Poseidon hash with circomlib's parameters on
 * BN254 (x^5 S-box, 8 full rounds, partial rounds 56, 57, 56, 60, 60, 63, 64,
 * 63, 60, 66, 60, 65, 70, 60, 64, 68 for t = 2..17; state [0, inputs...],
 * output state[0]), bit for bit circomlib's Poseidon(n).
 *
 * DESIGN: the constants are not copied from anywhere: they are generated
 * the way circomlib's were (the header of its poseidon_constants_old.circom:
 * the reference generate_parameters_grain.sage of the Poseidon authors,
 * arguments 1 0 254 t 8 R_P p): an 80-bit Grain LFSR seeded with the field
 * type (1), the S-box (0), n = 254, t, R_F = 8 and R_P (2, 4, 12, 12, 10, 10
 * bits, MSB first, then 30 ones), 160 bits discarded, output bits
 * self-shrunk (a pair (1, b) gives b, a pair (0, b) nothing); round
 * constants are n-bit integers MSB first, resampled while >= p; the MDS
 * matrix is the Cauchy matrix M[i][j] = 1 / (x_i + y_j) of 2t further n-bit
 * samples reduced mod p. tests/test_poseidon checks them against the tables
 * of circomlib's poseidon_constants_old.circom and the hash against circom's
 * witness of Poseidon(n).
 *
 * Round: add constants, S-box (all t cells in full rounds, cell 0 in
 * partial rounds), mix new[i] = sum_j M[i][j] old[j]. In the constraint
 * system the linear layers are free (the state is kept as linear
 * combinations, merged by variable); each S-box is 3 constraints (x^2, x^4,
 * x^5): 3 (8 t + R_P) in all, 243 for t = 3.
 */
#ifndef CZ_CIRCUIT_GADGETS_POSEIDON_H
#define CZ_CIRCUIT_GADGETS_POSEIDON_H

#include "circuit/cs.h"
#include "ff/ff.h"

#define CZ_POSEIDON_MAX_INPUTS 16

typedef struct cz_poseidon_params {
    unsigned t, rf, rp;
    cz_bn254_fr *c; /* (rf + rp) t round constants */
    cz_bn254_fr *m; /* t x t, row-major */
} cz_poseidon_params;

/* The parameters for n inputs (1..16), generated once and kept; NULL when
 * out of memory or n out of range. Thread-safe. */
const cz_poseidon_params *cz_poseidon_params_get(unsigned n);

/* Native: out = Poseidon(in[0..n)). CZ_ERR_INVALID_ARG for n out of range. */
cz_status cz_poseidon_bn254(cz_bn254_fr *out, const cz_bn254_fr *in, unsigned n);

/* In a BN254 cs: the hash of n linear combinations (with their values
 * vals); *out is a new variable holding the hash (its value in *out_val).
 * Failures (another curve, n) go into the cs's status. */
cz_var cz_poseidon_gadget(cz_cs *cs, const cz_lc *in, const cz_fe *vals, unsigned n, cz_fe *out_val);

#endif
