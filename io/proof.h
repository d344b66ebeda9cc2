/*
 * io/proof: Groth16 proofs and verifying keys in the snarkjs JSON formats
 * (proof.json, public.json, verification_key.json), and the bellperson
 * 192-byte binary proof for BLS12-381.
 *
 * DESIGN: cz_proof and cz_vkey hold points in the curve's ec *_affine types
 * (storage sized for BLS12-381, the larger curve; all-zero = infinity).
 * Readers accept exactly what `snarkjs groth16 verify` accepts: decimal
 * strings, points as [x, y, z] with z = 1 (affine), z = 0 (infinity) or any
 * other z (Jacobian), G2 coordinates as [c0, c1]; each coordinate < q, each
 * point on the curve, and — stricter than snarkjs — proof points in the
 * prime-order subgroup. Public signals must be < r and, as snarkjs requires,
 * strings (a bare JSON number is refused); nPublic must be a plain integer.
 * A key repeated in any object is refused (io/json.h), so that no file reads
 * differently here and in snarkjs. Writers produce the same JSON shape
 * snarkjs writes, through util/atomic_file (no partial files).
 *
 * Size limits on reading (checked before the first byte is read):
 * proof.json CZ_PROOF_JSON_MAX; public.json and the IC of a verification
 * key at most CZ_JSON_MAX_PUBLIC signals, with the files at most
 * CZ_PUBLIC_JSON_MAX and CZ_VKEY_JSON_MAX bytes (generous allowances per
 * signal: snarkjs writes ~82 bytes per public signal and ~270 (BN254) to
 * ~370 (BLS12-381) per IC point).
 */
#ifndef CZ_IO_PROOF_H
#define CZ_IO_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"
#include "util/error.h"

#define CZ_JSON_MAX_PUBLIC ((size_t)1 << 16)                                  /* public signals */
#define CZ_PROOF_JSON_MAX ((size_t)1 << 20)                                   /* 1 MiB */
#define CZ_PUBLIC_JSON_MAX (((size_t)64 << 10) + 128 * CZ_JSON_MAX_PUBLIC)    /* 8 MiB + 64 KiB */
#define CZ_VKEY_JSON_MAX (((size_t)1 << 20) + 512 * (CZ_JSON_MAX_PUBLIC + 1)) /* 33 MiB */

typedef struct cz_proof {
    cz_curve curve;
    uint64_t a[12]; /* G1 affine */
    uint64_t b[24]; /* G2 affine */
    uint64_t c[12]; /* G1 affine */
} cz_proof;

typedef struct cz_vkey {
    cz_curve curve;
    uint32_t n_public;
    uint64_t alpha1[12];
    uint64_t beta2[24], gamma2[24], delta2[24];
    uint64_t *ic; /* n_public + 1 G1 affine points, malloc'ed (12 words each slot) */
} cz_vkey;

void cz_vkey_free(cz_vkey *vk);

/* proof.json */
cz_status cz_proof_write_json(const char *path, const cz_proof *p, cz_error *err);
cz_status cz_proof_read_json(cz_proof *p, cz_curve curve, const char *path, cz_error *err);
/* public.json: n values, scalar-field elements in Montgomery form
 * (32 bytes each). */
cz_status cz_public_write_json(const char *path, cz_curve curve, const void *values, size_t n, cz_error *err);
/* Reads public.json; *values is malloc'ed (32 bytes each, Montgomery). */
cz_status cz_public_read_json(void **values, size_t *n, cz_curve curve, const char *path, cz_error *err);
/* verification_key.json. alphabeta is e(alpha1, beta2) in the curve's Fq12
 * type (12 Fq coefficients in tower order), written as vk_alphabeta_12. */
cz_status cz_vkey_write_json(const char *path, const cz_vkey *vk, const void *alphabeta, cz_error *err);
cz_status cz_vkey_read_json(cz_vkey *vk, const char *path, cz_error *err);
/* The same texts the writers write, into malloc'ed strings (the daemon's
 * results and answers). */
cz_status cz_proof_format_json(const cz_proof *p, char **out, cz_error *err);
cz_status cz_public_format_json(cz_curve curve, const void *values, size_t n, char **out, cz_error *err);
cz_status cz_vkey_format_json(const cz_vkey *vk, const void *alphabeta, char **out, cz_error *err);

/* bellperson/zcash binary proof (BLS12-381 only): A (48) || B (96) || C (48),
 * compressed, in the zcash encoding of ec/ec_serde.h (big-endian x, flag
 * bits 0x80 compressed, 0x40 infinity, 0x20 sign of y). */
#define CZ_PROOF_BIN_BYTES 192

/* Encodes p; CZ_ERR_UNSUPPORTED (with a message naming the curve) unless p
 * is a BLS12-381 proof. p's points must be valid (as the prover and the
 * readers make them). */
cz_status cz_proof_to_bellperson(uint8_t out[CZ_PROOF_BIN_BYTES], const cz_proof *p, cz_error *err);
/* Decodes a binary proof with every check of ec/ec_serde.h (flag bits,
 * coordinates < q, on the curve, in the prime-order subgroup); on failure
 * the status of the first bad point and a message naming it and its byte
 * offset (0, 48 or 144), *p unchanged. */
cz_status cz_proof_from_bellperson(cz_proof *p, const uint8_t in[CZ_PROOF_BIN_BYTES], cz_error *err);
/* Writes the binary proof of p to path through util/atomic_file (the file
 * appears whole or not at all). */
cz_status cz_proof_write_bin(const char *path, const cz_proof *p, cz_error *err);

#endif
