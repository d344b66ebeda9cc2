/*
 * groth16/setup: single-party Groth16 setup producing snarkjs proving keys
 * (.zkey) for DEVELOPMENT AND TESTING ONLY. Whoever runs it (and, with a
 * seed, anyone who knows the seed) knows the toxic waste tau, alpha, beta,
 * delta and can forge proofs for the circuit. Real deployments need a
 * multi-party ceremony (snarkjs powersoftau + zkey contribute).
 *
 * DESIGN: since the toxic waste is known, every key point is a known scalar
 * times the generator, so no powers-of-tau file is needed: each scalar is
 * computed directly and all points come from one fixed-base table per group
 * (msm/fixed_base). The key is the one `snarkjs groth16 setup` would write for
 * a powers-of-tau file with these tau, alpha, beta and delta = 1, followed by
 * a contribution of delta (docs/FORMATS.md, the .zkey):
 *
 *   domain n: the smallest power of two > nConstraints + nPublic; omega =
 *   the snarkjs root w[log n] (ntt/ntt.h);
 *   L_c(tau) = (tau^n - 1)/n * omega^c / (tau - omega^c) (Lagrange basis at
 *   tau, batch inversions over ranges);
 *   A_j, B_j, C_j = sum_c {a,b,c}_{c,j} L_c(tau) over the r1cs rows, plus
 *   A_s += L_{nConstraints+s}(tau) for s = 0..nPublic (the public-input rows);
 *   computed per variable range in parallel (each task scans the CSR rows
 *   and keeps the entries of its own variables: no per-thread copies of the
 *   nVars-long arrays, no transposition);
 *   section 3 IC_j = (beta A_j + alpha B_j + C_j) G1 (gamma = 1: gamma_2 is
 *   the G2 generator), j <= nPublic; section 8 C_j = the same / delta,
 *   j > nPublic; sections 5, 6, 7: A_j G1, B_j G1, B_j G2; section 9
 *   H_i = L^S_{x_i}(tau) / delta, the Lagrange basis of S = <omega> u
 *   g<omega> at the coset points x_i = g omega^i with g the prover's coset
 *   shift (ntt coset_shift: omega_2n, so these are the odd-index Lagrange
 *   polynomials of the 2n domain; 25 for n = 2^s);
 *   section 4: the r1cs A and B terms in row order (A before B within a
 *   row, r1cs term order), then the nPublic+1 public-input A rows;
 *   header: alpha1, beta1, beta2, gamma2 = G2 generator, delta1, delta2;
 *   section 10: a circuit-hash field holding an ASCII marker (snarkjs's
 *   hash commits to powers-of-tau points that do not exist here) and one
 *   contribution (deltaAfter = delta1) whose name field says the key is an
 *   insecure development key. Its proof of knowledge is not valid, so
 *   `snarkjs zkey verify` rejects the key (it needs a ptau file anyway).
 *
 * Streaming: the scalars of the A, B, C arrays (3 x nVars x 32 bytes) are
 * the only large arrays: the Lagrange values are made per block of 2^18 rows
 * and consumed at once. Points are computed in chunks that a writer thread
 * puts to disk while the next chunk is computed (io/zkey_write: sizes known
 * up front, preallocated, atomic rename at the end). Peak memory is about
 * the r1cs + 3 x nVars x 32 bytes + the two fixed-base tables (tens of MiB)
 * + two chunks of points (cz_setup_stats.work_bytes reports it).
 *
 * Toxic waste: tau, alpha, beta, delta uniform in Fr from the OS CSPRNG, or
 * from cz_rng_seed(seed) (reproducible keys: the same r1cs and seed give a
 * byte-identical file on any thread count). tau is redrawn while tau^n = 1 or
 * tau^n = g^n (tau on the domain or its coset), the others while 0. The
 * values are wiped from memory when the setup returns.
 */
#ifndef CZ_GROTH16_SETUP_H
#define CZ_GROTH16_SETUP_H

#include <stdint.h>

#include "io/r1cs.h"
#include "util/thread.h"

/* Called on the caller's thread after each chunk: stage is a short name
 * ("evaluate", "tables", "IC", "coefficients", "A", "B1", "B2",
 * "C", "H", "sync"), done/total count that stage's items. */
typedef void (*cz_setup_progress_fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);

typedef struct cz_setup_opts {
    int use_seed; /* 1: toxic waste from cz_rng_seed(seed); 0: OS CSPRNG */
    uint64_t seed;
    /* Tests: fixed toxic waste as 32-byte little-endian canonical scalars
     * (each NULL = drawn as above). A fixed tau on the domain or its coset, or a
     * fixed zero, is CZ_ERR_INVALID_ARG. */
    const uint8_t *tau, *alpha, *beta, *delta;
    cz_pool *pool; /* NULL: the default pool */
    cz_setup_progress_fn progress;
    void *progress_ctx;
    size_t chunk;     /* points per chunk (0: automatic) */
    size_t row_block; /* rows per block of Lagrange values (0: 2^18) */
    int window;       /* fixed-base window bits (0: automatic) */
} cz_setup_opts;

typedef struct cz_setup_stats {
    cz_curve curve;
    uint32_t n_vars, n_public, domain_size, log_domain;
    uint64_t n_coef;
    uint64_t file_bytes; /* size of the written key */
    uint64_t work_bytes; /* memory the setup held at its peak, beside the r1cs */
    int window_g1, window_g2;
    /* seconds */
    double t_lagrange, t_eval, t_tables; /* Lagrange values, A/B/C evaluations, tables */
    double t_sections[11];               /* per section id (computing + waiting for the writer) */
    double t_sync;                       /* final fsync + rename */
    double t_total;
} cz_setup_stats;

/* log2 of the snarkjs domain for a circuit: the smallest k with
 * 2^k > n_constraints + n_public. */
unsigned cz_groth16_domain_log(uint64_t n_constraints, uint64_t n_public);

/* Writes a development proving key for the circuit r (loaded with its
 * matrices) to zkey_path. o and st may be NULL. Returns CZ_OK;
 * CZ_ERR_INVALID_ARG (r without matrices, a bad fixed scalar),
 * CZ_ERR_RANGE (a domain larger than the curve's 2-adicity allows, more than
 * 2^32 - 1 coefficients), CZ_ERR_NO_MEMORY, CZ_ERR_IO (the output cannot be
 * written; nothing is left behind). */
cz_status cz_groth16_setup_dev(const cz_r1cs *r, const char *zkey_path, const cz_setup_opts *o, cz_setup_stats *st,
                               cz_error *err);

/* The toxic waste a setup with options o uses for a domain of 2^log_n on
 * curve c, as 32-byte little-endian canonical scalars (for tests of the key
 * maths; a seeded setup is reproducible). */
cz_status cz_groth16_setup_toxic(cz_curve c, unsigned log_n, const cz_setup_opts *o, uint8_t tau[32], uint8_t alpha[32],
                                 uint8_t beta[32], uint8_t delta[32], cz_error *err);

#endif
