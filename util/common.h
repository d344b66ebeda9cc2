/* Small shared helpers: token pasting, attributes, checks. */
#ifndef CZ_UTIL_COMMON_H
#define CZ_UTIL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define CZ_CAT2_(a, b) a##b
#define CZ_CAT(a, b) CZ_CAT2_(a, b)
#define CZ_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Debug invariants, free in release: compiled only with CZ_VERIFY. */
#ifdef CZ_VERIFY
#include <stdio.h>
#include <stdlib.h>
#define CZ_VERIFY_CHECK(cond)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CZ_VERIFY_CHECK(%s) failed\n", __FILE__, __LINE__, #cond);     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)
#else
#define CZ_VERIFY_CHECK(cond) ((void)0)
#endif

#endif
