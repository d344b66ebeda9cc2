/*
 * Minimal test harness shared by all test binaries: CHECK() counts passes and
 * failures, prints the first failures with file:line, and cz_test_finish()
 * prints the "N passed, N failed" line and returns the exit status.
 *
 * Random inputs come from a seeded generator; the seed is printed and can be
 * fixed with CZ_TEST_SEED=... to reproduce a failure. CZ_TEST_SCALE=k scales
 * iteration counts (e.g. 0.1 for a quick sanitizer run).
 */
#ifndef CZ_TEST_UTIL_H
#define CZ_TEST_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/rng.h"

static long cz_test_passed = 0, cz_test_failed = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            cz_test_passed++;                                                                      \
        } else {                                                                                   \
            if (cz_test_failed++ < 20) fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (cond) {                                                                                \
            cz_test_passed++;                                                                      \
        } else {                                                                                   \
            if (cz_test_failed++ < 20) {                                                           \
                fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Seeds rng from CZ_TEST_SEED or the clock and prints the seed. */
static inline uint64_t cz_test_seed(cz_rng *rng, const char *name)
{
    const char *env = getenv("CZ_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    printf("%s: seed %" PRIu64 " (CZ_TEST_SEED to reproduce)\n", name, seed);
    cz_rng_seed(rng, seed);
    return seed;
}

/* Iteration count n scaled by CZ_TEST_SCALE (at least 1). */
static inline long cz_test_iters(long n)
{
    const char *env = getenv("CZ_TEST_SCALE");
    double s = env ? atof(env) : 1.0;
    long k = (long)(n * s);
    return k < 1 ? 1 : k;
}

static inline int cz_test_finish(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, cz_test_passed, cz_test_failed);
    return cz_test_failed ? 1 : 0;
}

#endif
