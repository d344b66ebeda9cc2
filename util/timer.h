/* Monotonic wall-clock seconds, for stage timings and progress. */
#ifndef CZ_UTIL_TIMER_H
#define CZ_UTIL_TIMER_H

#include <time.h>

static inline double cz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
