/* Timing helpers shared by the benchmarks. */
#ifndef CLCOMPUTE_BENCH_TIMING_H
#define CLCOMPUTE_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Frame sizes a benchmark runs, from its defaults or "--sizes WxH,WxH". */
typedef struct bench_size {
    size_t w, h;
} bench_size;
#define BENCH_MAX_SIZES 16

/* Parses "WxH,WxH,..." into sizes; returns how many were read. */
static inline size_t bench_parse_sizes(char *text, bench_size *sizes)
{
    size_t n = 0;
    for (char *tok = strtok(text, ","); tok && n < BENCH_MAX_SIZES; tok = strtok(NULL, ","))
        if (sscanf(tok, "%zux%zu", &sizes[n].w, &sizes[n].h) == 2)
            ++n;
    return n;
}

/* Opens a profiling context on the selected device, measures its copy bandwidth (256 MiB or the
 * largest allocation) and prints both. Returns NULL after printing why on failure. */
static inline clc_context *bench_open(const char *name, double *copy_gbps)
{
    clc_context_options options = {0};
    options.profiling = 1;
    clc_context *ctx = NULL;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS) {
        fprintf(stderr, "%s: %s\n", name, clc_last_error());
        return NULL;
    }
    const clc_device_info *d = clc_context_device(ctx);
    size_t bytes = (size_t)256 << 20;
    while (bytes > d->max_alloc_bytes)
        bytes /= 2;
    if (clc_measure_copy_bandwidth(ctx, bytes, 20, copy_gbps) != CLC_SUCCESS) {
        fprintf(stderr, "%s: %s\n", name, clc_last_error());
        clc_context_destroy(ctx);
        return NULL;
    }
    printf("device: %s (%s, driver %s), %u compute units\n", d->name, d->platform_name,
           d->driver_version, d->compute_units);
    printf("copy bandwidth: %.1f GB/s (float4 copy of %zu MiB, read + write)\n", *copy_gbps,
           bytes >> 20);
    return ctx;
}

#endif
