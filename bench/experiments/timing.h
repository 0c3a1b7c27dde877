/* What the experiments share: a monotonic clock in seconds, a comparison of doubles for qsort
 * (medians), CK(), which ends the program on a failed OpenCL call, profiling_queue(), read_text()
 * and built_program(). Header-only: the experiments are built one file at a time. */
#ifndef CLC_EXPERIMENTS_TIMING_H
#define CLC_EXPERIMENTS_TIMING_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* An OpenCL call that must succeed: a failure ends the experiment with its line. */
#define CK(x)                                                                                      \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_) {                                                                                  \
            fprintf(stderr, "%s:%d err %d\n", __FILE__, __LINE__, e_);                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The first device of the first platform whose name contains `platform`, its context and a
 * profiling queue; a failure ends the experiment. */
static inline cl_command_queue profiling_queue(const char *platform, cl_device_id *d,
                                               cl_context *ctx)
{
    cl_platform_id ps[8], p = 0;
    cl_uint np = 0;
    CK(clGetPlatformIDs(8, ps, &np));
    for (cl_uint i = 0; i < np && !p; ++i) {
        char name[256];
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, platform))
            p = ps[i];
    }
    if (!p) {
        fprintf(stderr, "no platform %s\n", platform);
        exit(1);
    }
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, d, NULL));
    cl_int err;
    *ctx = clCreateContext(NULL, 1, d, NULL, NULL, &err);
    CK(err);
    cl_command_queue q = clCreateCommandQueue(*ctx, *d, CL_QUEUE_PROFILING_ENABLE, &err);
    CK(err);
    return q;
}

/* A whole file as a string (a kernel's source); a failure ends the experiment. */
static inline char *read_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    long n = -1;
    if (fp && fseek(fp, 0, SEEK_END) == 0)
        n = ftell(fp);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s || fseek(fp, 0, SEEK_SET) != 0 || fread(s, 1, (size_t)n, fp) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    s[n] = 0;
    fclose(fp);
    return s;
}

/* A program of one source built for device d with `options`; a failed build ends the experiment
 * with the compiler's log. */
static inline cl_program built_program(cl_context ctx, cl_device_id d, const char *src,
                                       const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    if (clBuildProgram(p, 1, &d, options, NULL, NULL) != CL_SUCCESS) {
        char log[20000] = "";
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "%s\n", log);
        exit(1);
    }
    return p;
}

#endif
