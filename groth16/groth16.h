/*
 * groth16: the prover, the verifier and the verifying key, for both curves,
 * in the snarkjs conventions (docs/FORMATS.md, the .zkey and the proof).
 *
 * DESIGN: proving is three stages so the engine can pipeline them:
 *   1. synthesis (CPU, the circuit/ layer): a = A.w, b = B.w over the
 *      zkey's CSR matrices (parallel over rows), written into caller
 *      buffers (cz_circuit_abc, or a cz_synth);
 *   2. device work through a backend: h from a, b and c = a o b (formed by
 *      the backend: on a GPU c never crosses the bus; 3 inverse NTTs, 3
 *      coset NTTs, pointwise), the G1 MSMs A, B1, C, H and the G2 MSM B;
 *   3. finalize (CPU): blinding with r, s from the OS CSPRNG, assembly
 *      pi_a = A + alpha1 + r delta1, pi_b = B + beta2 + s delta2,
 *      pi_c = C + H + s pi_a + r (B1 + beta1 + s delta1) - r s delta1, and a
 *      pairing check of the proof against the key's verifying key.
 * cz_groth16_prove runs all three. Because C is not stored in a zkey, an
 * unsatisfied witness is caught by that final verification (CZ_ERR_VERIFY,
 * reported as "witness does not satisfy the circuit"); with the circuit's
 * .r1cs, cz_r1cs_check (circuit/) names the first unsatisfied constraint.
 */
#ifndef CZ_GROTH16_GROTH16_H
#define CZ_GROTH16_GROTH16_H

#include "backend/backend.h"
#include "circuit/circuit.h"
#include "io/proof.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"

typedef struct cz_prove_timings {
    double synth;   /* a, b */
    double h;       /* NTTs + pointwise */
    double h2d;     /* of which: a, b (c where given) to the device (device-timed; 0 on the CPU) */
    uint64_t h2d_bytes;
    double msm_a, msm_b1, msm_b2, msm_c, msm_h;
    double finalize; /* blinding, assembly */
    double verify;
    double total;
} cz_prove_timings;

typedef struct cz_prove_opts {
    cz_backend *backend;        /* NULL: a CPU backend on the default pool */
    const cz_allocator *alloc;  /* working buffers a, b, c of cz_groth16_prove (NULL: heap) */
    int skip_verify;            /* 1: do not verify the proof before returning */
    /* 1: leave the key's point sections resident on the device after the
     * proof (the caller drops them with backend->ops->drop_bases before it
     * frees the key); 0: uploaded for this proof and dropped at its end */
    int keep_resident;
    /* Fixed blinding (32-byte little-endian canonical scalars < r) for tests
     * that compare proofs coordinate by coordinate. NULL: uniform from the OS
     * CSPRNG, as zero knowledge requires. */
    const uint8_t *fixed_r, *fixed_s;
} cz_prove_opts;

/* Drops the device copies of the key's point sections that proofs with
 * keep_resident left on the backend (before the key is freed). */
void cz_groth16_drop_resident(cz_backend *be, const cz_zkey *zk);

/* Checks that the witness fits the key (curve, length). */
cz_status cz_groth16_check_inputs(const cz_zkey *zk, const cz_wtns *w, const char *zkey_name, const char *wtns_name,
                                  cz_error *err);

/* What stage 2 hands to stage 3: the five MSM results (Jacobian points of
 * the key's curve, in the layouts of ec/ec.h), before blinding. */
typedef struct cz_groth16_partial {
    cz_curve curve;
    uint64_t a[18], b1[18], c[18], h[18]; /* G1 */
    uint64_t b2[36];                      /* G2 */
} cz_groth16_partial;

/* Stage 2: the H step and the MSMs on opts->backend, from a, b, c
 * (clobbered; c may be NULL: c = a o b, formed by the backend, backend.h
 * compute_h). The engine's GPU worker runs this. */
cz_status cz_groth16_device(cz_groth16_partial *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                            const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err);

/* Stage 3: blinding, assembly and (unless opts->skip_verify) the pairing
 * check against the key's verifying key; CZ_ERR_UNSATISFIED when the proof
 * does not verify. CPU only. */
cz_status cz_groth16_finalize(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, const cz_groth16_partial *p,
                              const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err);

/* Stages 2 and 3 from a, b, c (clobbered; c may be NULL, as for cz_groth16_device). */
cz_status cz_groth16_prove_abc(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, void *a, void *b, void *c,
                               const cz_prove_opts *opts, cz_prove_timings *t, cz_error *err);

/* All stages. t may be NULL. */
cz_status cz_groth16_prove(cz_proof *out, const cz_zkey *zk, const cz_wtns *w, const cz_prove_opts *opts,
                           cz_prove_timings *t, cz_error *err);

/* Verifying key of a proving key (IC copied; free with cz_vkey_free). */
cz_status cz_vkey_from_zkey(cz_vkey *vk, const cz_zkey *zk);
/* e(alpha1, beta2) in the curve's Fq12 type, as snarkjs writes
 * vk_alphabeta_12 (out holds 12 x 6 words). */
cz_status cz_groth16_alphabeta(uint64_t out[72], const cz_vkey *vk);

/* CZ_OK if the proof verifies for these public signals (npub Montgomery
 * scalars), CZ_ERR_VERIFY if not, other codes for malformed input. The
 * proof's points must be on the curve and in the subgroup (the JSON reader
 * checks; this function checks again). */
cz_status cz_groth16_verify(const cz_vkey *vk, const void *pub, size_t npub, const cz_proof *p, cz_error *err);

#endif
