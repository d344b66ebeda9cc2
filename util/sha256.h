/*
 * util/sha256: SHA-256 (FIPS 180-4) on bytes, native, for the circuits'
 * witness computations (circuit/examples) and the pre-compiled evaluator's
 * file keys. The core library needs no crypto library; tests compare this
 * with libcrypto and the FIPS vectors.
 */
#ifndef CZ_UTIL_SHA256_H
#define CZ_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct cz_sha256_ctx {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    uint8_t buf[64];
    size_t nbuf;
} cz_sha256_ctx;

/* FIPS 180-4's round constants and initial hash value (the circuit gadget
 * uses the same tables) */
extern const uint32_t cz_sha256_K[64];
extern const uint32_t cz_sha256_IV[8];

void cz_sha256_init(cz_sha256_ctx *c);
void cz_sha256_update(cz_sha256_ctx *c, const void *data, size_t len);
void cz_sha256_final(cz_sha256_ctx *c, uint8_t out[32]);
void cz_sha256_bytes(uint8_t out[32], const void *data, size_t len);
/* The compression function alone: h = compress(h, block). */
void cz_sha256_block(uint32_t h[8], const uint8_t block[64]);

#endif
