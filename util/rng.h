/*
 * Random numbers.
 *
 * DESIGN: one small generator type with two modes. cz_rng_seed() gives a
 * deterministic stream (xoshiro256**) for tests, benchmarks and reproducible
 * development keys; cz_rng_os() draws every byte from the OS CSPRNG
 * (getrandom), which is what proof blinding must use. Nothing in cuzk uses
 * rand().
 */
#ifndef CZ_UTIL_RNG_H
#define CZ_UTIL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cz_rng {
    uint64_t s[4];
    int os; /* 1: every byte from getrandom() */
} cz_rng;

/* Deterministic generator from a 64-bit seed (splitmix64-expanded). */
void cz_rng_seed(cz_rng *r, uint64_t seed);
/* Generator backed by the OS CSPRNG. */
void cz_rng_os(cz_rng *r);
/* Fill buf with n random bytes. Aborts nothing: for the OS mode a failing
 * getrandom() (which Linux does not do after boot) is retried; returns
 * CZ_ERR_IO only if the kernel refuses the call entirely. */
cz_status cz_rng_bytes(cz_rng *r, void *buf, size_t n);
uint64_t cz_rng_u64(cz_rng *r);
/* Secure random bytes straight from the OS CSPRNG. */
cz_status cz_os_random(void *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
