/* Timing helpers shared by the benchmarks. */
#ifndef CLCOMPUTE_BENCH_TIMING_H
#define CLCOMPUTE_BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

#include <clcompute/clcompute.h>

static inline double bench_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Seconds between a profiled event's start and end; negative on failure. */
static inline double bench_event_seconds(cl_event e)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return -1.0;
    return (double)(t1 - t0) * 1e-9;
}

#endif
