/* What the experiments share: a monotonic clock in seconds, and a comparison of doubles for
 * qsort (medians). Header-only: the experiments are built one file at a time. */
#ifndef CLC_EXPERIMENTS_TIMING_H
#define CLC_EXPERIMENTS_TIMING_H

#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
