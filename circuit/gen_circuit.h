/*
 * circuit/gen_circuit: satisfiable synthetic circuits of any size (.r1cs and
 * .wtns), for benchmarks and tests of the prover and the engine.
 *
 * DESIGN: the constraints are cut into blocks of about 4096 (the block size
 * is a constant of each profile, so the output depends only on the options,
 * never on the thread count). Every block draws from its own generator,
 * cz_rng_seed(f(seed, block)), defines its own wires and computes their
 * witness values. Blocks are processed in groups of 32 in parallel on the pool;
 * a block may read the witness of earlier groups and of its own earlier
 * constraints, never of a block of the same group. Each block encodes its
 * constraints straight into a byte buffer; while the pool computes group g,
 * one of its tasks streams the buffers of group g-1, in order, to the .r1cs
 * (io/r1cs_write). Memory: the witness (32 bytes per wire, Montgomery form),
 * three bitmaps of the wires (coverage statistics) and two groups of block
 * buffers (~30-70 MiB); never the constraint list. The .wtns is written from
 * the witness at the end. Both files are atomic (temporary + rename); on an
 * error neither is left behind.
 *
 * Coefficients are drawn as canonical integers, written as they are, and used
 * in the witness arithmetic through Montgomery products of a canonical by a
 * Montgomery operand (c * wR * R^-1 = c*w), so no coefficient is converted.
 * No wire occurs twice in one linear combination (snarkjs would keep only the
 * last term).
 *
 * Wire order is circom's: 0 = ONE, outputs, public inputs, private inputs,
 * internal wires. Every constraint below defines one new wire unless stated.
 * Shapes (N = --constraints, K = --public):
 *
 * chain (K default 1, 1 <= K <= N): the circuit of tests/fixtures mul_chain,
 *   c_0 = in*in, c_i = c_{i-1} * (c_{i-1} + in) + i, with one private input
 *   `in` (random, full width) and the last K chain values c_{N-K..N-1} as the
 *   public outputs (wires 1..K; the chain's other values are internal wires).
 *     row 0:   A = {in}           B = {in}        C = {c_0}
 *     row i:   A = {c_{i-1}, in}  B = {c_{i-1}}   C = {c_i, ONE * -i}
 *   nWires = N + 2; nnz A = 2N-1, B = N, C = 2N-1 (exactly mul_chain's for
 *   N = 1021). Witness: full-width values. The witness is computed in one
 *   sequential pass before the blocks, which then only encode.
 *
 * dense (K default 4; K = 0 allowed): 1 public output (wire 1) when K >= 1,
 *   K-1 public inputs, 8 private inputs, all random full-width values. Row i
 *   defines out_i = (A.w) * (B.w): A and B have 1..4 terms each (uniform,
 *   independently), each term a random full-width coefficient times a wire.
 *   The first term of A reads out_{i-1}, the first of B out_{i-2} (when that
 *   row is in the same block), so every output is read in A and in B; every
 *   other wire is random: with probability 1/2 an output of an earlier row of
 *   the same block, otherwise any of ONE, the inputs and the outputs of
 *   earlier groups (no repeats in a combination). C = {out_i}. The last row
 *   defines the public output. nWires = N + K + 8 + 1 - (K >= 1); nnz A ~ B ~
 *   2.5N, C = N; ~99.98% of the private wires in A and in B, all in C but the
 *   8 inputs; almost no witness value is 0 or 1.
 *
 * filecoin (K default 300; N >= K + 34 when K > 0): mimics a Filecoin PoRep
 *   partition: K public inputs, no outputs, no private inputs. The first
 *   N - K rows are gadgets of 34 rows over one 32-bit word (blocks of 120
 *   gadgets):
 *     rows 0-7    8 "checked" bits s_j, booleanity s*(s-1) = 0:
 *                 A = {s}, B = {s, ONE * -1}, C = {} (random bits)
 *     rows 8-31   24 derived bits t_k from the previous bit a = t_{k-1}
 *                 (s_7 for k = 8) and a random checked bit b (b != a):
 *                 k % 3 == 2: AND  A = {a}, B = {b}, C = {t_k}
 *                 otherwise:  XOR  A = {a * 2}, B = {b}, C = {a, b, t_k * -1}
 *     row 32      packing x = sum 2^i bit_i of the 32 bits:
 *                 A = {bit_i * 2^i}, B = {ONE}, C = {x}
 *     row 33      hash-like product of full-width values, z = (c*z' + x) * x
 *                 with z' the previous gadget's z and c a random coefficient:
 *                 A = {z' * c, x}, B = {x}, C = {z}; every 10th gadget (and
 *                 the first of a block) restarts: A = {x}, B = {x}, z = x^2.
 *   then K rows "inputize" 32-bit words spread over the circuit:
 *     A = {pub_j}, B = {ONE}, C = {x_g} (no new wire; pub_j = x_g).
 *   nWires = N + 1. Of the private wires: 32/34 = 94% are bits (0/1), all
 *   appear in A except the z that no later gadget reads (1 in 340: ~99.7% in
 *   A), 9/34 = 26.5% appear in B (the checked bits and x). Per row nnz A ~ 1.94,
 *   B ~ 1.24, C ~ 1.71.
 *
 * File sizes: .r1cs = 100 + section 2 + 12 + 8 nWires bytes, with section 2 of
 * 12 + 36 x (terms) bytes per row: ~228 B/row dense, 192 chain, ~188
 * filecoin; .wtns = 76 + 32 nWires bytes.
 */
#ifndef CZ_CIRCUIT_GEN_CIRCUIT_H
#define CZ_CIRCUIT_GEN_CIRCUIT_H

#include <stdint.h>

#include "cuzk/curve.h"
#include "util/error.h"
#include "util/thread.h"

typedef enum cz_gen_profile {
    CZ_GEN_NONE = 0,
    CZ_GEN_CHAIN = 1,
    CZ_GEN_DENSE = 2,
    CZ_GEN_FILECOIN = 3,
} cz_gen_profile;

/* n_public: the profile's default */
#define CZ_GEN_PUBLIC_DEFAULT UINT32_MAX

typedef struct cz_gen_opts {
    cz_curve curve;
    cz_gen_profile profile;
    uint64_t n_constraints; /* 1 .. 2^32 - 1 (profile minimums above) */
    uint32_t n_public;      /* public signals (outputs + inputs), or CZ_GEN_PUBLIC_DEFAULT */
    uint64_t seed;
    cz_pool *pool; /* NULL: cz_pool_default() */
    /* Called on the calling thread after each group of blocks and at each
     * phase ("constraints", "witness"); may be NULL. */
    void (*progress)(void *ctx, const char *phase, uint64_t done, uint64_t total);
    void *progress_ctx;
} cz_gen_opts;

typedef struct cz_gen_stats {
    uint64_t n_constraints, n_wires;
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_private;   /* n_wires - 1 - public signals */
    uint64_t nnz[3];      /* terms of A, B, C */
    uint64_t cols[3];     /* distinct wires in A, B, C */
    uint64_t prv_cols[3]; /* distinct private wires in A, B, C */
    uint64_t zeros, ones; /* witness values equal to 0 / 1 (all wires) */
    double share01;       /* (zeros + ones) / n_wires */
    uint64_t r1cs_bytes, wtns_bytes;
    double seconds;         /* whole call */
    double seconds_witness; /* of which: writing the .wtns */
} cz_gen_stats;

/* "chain" / "dense" / "filecoin" (CZ_GEN_NONE otherwise) and back. */
cz_gen_profile cz_gen_profile_parse(const char *name);
const char *cz_gen_profile_name(cz_gen_profile p);

/* The public-signal count a profile uses when n_public is
 * CZ_GEN_PUBLIC_DEFAULT. */
uint32_t cz_gen_default_public(cz_gen_profile p);

/* Checks the options and fills the counts of stats (constraints, wires,
 * public/private, exact file sizes) without generating anything.
 * CZ_ERR_INVALID_ARG with a message for options out of range. */
cz_status cz_gen_plan(const cz_gen_opts *o, cz_gen_stats *stats, cz_error *err);

/* Generates the circuit and its witness into r1cs_path and wtns_path. stats
 * may be NULL. Errors: CZ_ERR_INVALID_ARG (options), CZ_ERR_NO_MEMORY,
 * CZ_ERR_IO (an output cannot be written; nothing is left behind). */
cz_status cz_gen_circuit(const cz_gen_opts *o, const char *r1cs_path, const char *wtns_path, cz_gen_stats *stats,
                         cz_error *err);

#endif
