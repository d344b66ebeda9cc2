/*
 * Random numbers.
 *
 * DESIGN: one small generator type with two modes. cz_rng_seed() gives a
 * deterministic stream (xoshiro256**) for tests, benchmarks and reproducible
 * development keys; cz_rng_os() draws every byte from the OS CSPRNG
 * (getrandom), which is what proof blinding and toxic waste must use.
 * Nothing in cuzk uses rand().
 *
 * Secret randomness never comes from a fallback: when getrandom() refuses
 * (a seccomp filter, an old kernel: ENOSYS, EPERM, ...) an OS generator
 * yields zeros and remembers the failure; every caller that draws secrets
 * checks cz_rng_status() before using what it drew and fails with
 * CZ_ERR_RANDOM. cz_rng_bytes() and cz_os_random() return the status
 * directly.
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
    int os;    /* 1: every byte from getrandom() */
    int error; /* OS mode: 0, or the errno of the first draw that failed (-1: cz_rng_os_set_failing) */
} cz_rng;

/* Deterministic generator from a 64-bit seed (splitmix64-expanded). */
void cz_rng_seed(cz_rng *r, uint64_t seed);
/* Generator backed by the OS CSPRNG. Draws one probe byte: CZ_ERR_RANDOM
 * when the OS refuses (the generator then yields zeros, its status stays
 * CZ_ERR_RANDOM), else CZ_OK. */
cz_status cz_rng_os(cz_rng *r);
/* Fill buf with n random bytes: CZ_OK, or for the OS mode CZ_ERR_RANDOM
 * when getrandom() refuses (EINTR is retried), buf then zeroed. */
cz_status cz_rng_bytes(cz_rng *r, void *buf, size_t n);
/* The next 64 bits. OS mode: 0 once a draw has failed (never a substitute
 * stream): check cz_rng_status() before using the values. */
uint64_t cz_rng_u64(cz_rng *r);
/* CZ_OK, or CZ_ERR_RANDOM when an OS draw of r has failed since cz_rng_os();
 * seeded generators are always CZ_OK. */
cz_status cz_rng_status(const cz_rng *r);
/* Secure random bytes straight from the OS CSPRNG: CZ_OK or CZ_ERR_RANDOM
 * (buf zeroed). errno_out (may be NULL): the errno of the failure. */
cz_status cz_os_random(void *buf, size_t n);
cz_status cz_os_random_errno(void *buf, size_t n, int *errno_out);

/* A process-wide test setting: on (1), every OS draw fails as it would
 * under a filter that refuses getrandom() (the errno reported is ENOSYS).
 * For tests of the callers' error paths (cuzk maps CZ_RNG_FAIL=1 onto it);
 * the library reads no environment variable. */
void cz_rng_os_set_failing(int on);

#ifdef __cplusplus
}
#endif

#endif
