#define _POSIX_C_SOURCE 200809L
/* Experiment (not built by CMake): the GPU reduction's launch shape and loop against each other,
 * f32 sum and argmax of 256 Mi elements on a device buffer, raw OpenCL, event timestamps: stage 1
 * alone and the span from stage 1's start to stage 2's end, medians of REPEATS with the variants
 * interleaved run by run. Variants are builds of cl/reduce.cl patched by reduce_variants.patch
 * (-DUNROLL=8: eight loads in flight an item instead of four; -DCONTIG=1: each work-group a
 * contiguous range of the array instead of a grid-wide stride), work-groups a compute unit, and
 * one launch instead of two (-DONEPASS: reduce_onepass, the last work-group to finish combines
 * the partials, which travel through 32-bit atomics).
 * Every result is checked: the sum against a double sum, argmax exactly. From the repository root:
 *   patch -o /tmp/reduce_variants.cl cl/reduce.cl bench/experiments/reduce_variants.patch
 *   cc -O2 -std=c11 -o reduce_shapes bench/experiments/reduce_shapes.c -lOpenCL -lm
 *   ./reduce_shapes /tmp/reduce_variants.cl PLATFORM-SUBSTRING [REPEATS] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

typedef struct variant {
    const char *name, *opts;
    int groups_a_cu, local, onepass;
} variant;

static const variant variants[] = {
    {"current (stride, 4 loads, 8 wg/CU, 256)", "", 8, 256, 0},
    {"stride, 8 loads", "-DUNROLL=8", 8, 256, 0},
    {"contiguous, 4 loads", "-DCONTIG=1", 8, 256, 0},
    {"contiguous, 8 loads", "-DCONTIG=1 -DUNROLL=8", 8, 256, 0},
    {"stride, 4 loads, 4 wg/CU, 512", "", 4, 512, 0},
    {"stride, 4 loads, 16 wg/CU (2 waves)", "", 16, 256, 0},
    {"contiguous, 4 loads, 32 wg/CU", "-DCONTIG=1", 32, 256, 0},
    {"one launch (stride, 4 loads, 8 wg/CU)", "", 8, 256, 1},
    {"one launch, 8 loads", "-DUNROLL=8", 8, 256, 1},
    {"one launch, 4 wg/CU, 512", "", 4, 512, 1},
    {"one launch, 4 wg/CU, 512, 8 loads", "-DUNROLL=8", 4, 512, 1},
    {"one launch, 2 wg/CU, 1024", "", 2, 1024, 1},
};
enum { NV = sizeof variants / sizeof variants[0] };

static double ev(cl_event a, cl_event b)
{
    cl_ulong s, e;
    CK(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, 8, &s, NULL));
    CK(clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, 8, &e, NULL));
    return (double)(e - s) * 1e-6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: reduce_shapes FILE.cl PLATFORM [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 3 ? atoi(argv[3]) : 31;
    char *src = read_text(argv[1]);
    cl_device_id d;
    cl_context c;
    cl_command_queue q = profiling_queue(argv[2], &d, &c);
    cl_uint cus = 0;
    CK(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    char dname[256];
    CK(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dname, dname, NULL));
    const size_t n = (size_t)256 << 20;
    float *h = malloc(n * sizeof *h);
    unsigned s = 3;
    double ref = 0.0;
    size_t best = 0;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        h[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
        ref += h[i];
        if (h[i] > h[best])
            best = i;
    }
    cl_int err;
    cl_mem x = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    CK(err);
    cl_mem partials = clCreateBuffer(c, CL_MEM_READ_WRITE, 16 * 64 * (size_t)cus, NULL, &err);
    CK(err);
    cl_mem result = clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &err);
    CK(err);
    /* one-launch variants: a count and four words a work-group, zero before the first launch */
    const size_t sync_words = 1 + 4 * 64 * (size_t)cus;
    cl_uint *zeros = calloc(sync_words, 4);
    cl_mem sync =
        clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * sync_words, zeros, &err);
    CK(err);
    free(zeros);
    printf("%s, %u compute units; 256 Mi float32, median of %d, ms\n\n", dname, cus, repeats);
    printf("| op | variant | stage 1 | span | GB/s (span) | checked |\n| --- | --- | --- | --- | "
           "--- | "
           "--- |\n");
    for (int op = 0; op < 2; ++op) {
        cl_kernel k1[NV], k2[NV];
        for (int v = 0; v < NV; ++v) {
            char opts[256];
            snprintf(opts, sizeof opts,
                     "-DS=float -DT=float -DKIND=1 -DMASK=int -DLOAD=0 -DWIDE=0 -DOP=%d -DVW=4 "
                     "-DITEMS=0 %s",
                     op ? 5 : 1, variants[v].opts);
            cl_program p = built_program(c, d, src, opts);
            k1[v] =
                clCreateKernel(p, variants[v].onepass ? "reduce_onepass" : "reduce_stage1", &err);
            CK(err);
            k2[v] = clCreateKernel(p, "reduce_stage2", &err);
            CK(err);
            clReleaseProgram(p);
        }
        double *t1 = calloc((size_t)NV * repeats, sizeof *t1);
        double *ts = calloc((size_t)NV * repeats, sizeof *ts);
        int bad[NV] = {0};
        for (int r = -2; r < repeats; ++r)
            for (int v = 0; v < NV; ++v) {
                const size_t local = (size_t)variants[v].local;
                const cl_uint groups = (cl_uint)variants[v].groups_a_cu * cus;
                const size_t global = groups * local, local2 = 256;
                const cl_ulong off = 0, nn = n;
                CK(clSetKernelArg(k1[v], 0, sizeof x, &x));
                CK(clSetKernelArg(k1[v], 1, 8, &off));
                CK(clSetKernelArg(k1[v], 2, 8, &nn));
                if (variants[v].onepass) {
                    CK(clSetKernelArg(k1[v], 3, sizeof sync, &sync));
                    CK(clSetKernelArg(k1[v], 4, sizeof result, &result));
                    CK(clSetKernelArg(k1[v], 5, 32 * local, NULL));
                } else {
                    CK(clSetKernelArg(k1[v], 3, sizeof partials, &partials));
                    CK(clSetKernelArg(k1[v], 4, 32 * local, NULL));
                }
                CK(clSetKernelArg(k2[v], 0, sizeof partials, &partials));
                CK(clSetKernelArg(k2[v], 1, 4, &groups));
                CK(clSetKernelArg(k2[v], 2, sizeof result, &result));
                CK(clSetKernelArg(k2[v], 3, 32 * local2, NULL));
                cl_event e1, e2;
                /* a stale result (a one-launch variant whose count was not reset) fails the check
                 */
                const cl_uchar ones = 0xff;
                CK(clEnqueueFillBuffer(q, result, &ones, 1, 0, 16, 0, NULL, NULL));
                CK(clEnqueueNDRangeKernel(q, k1[v], 1, NULL, &global, &local, 0, NULL, &e1));
                if (variants[v].onepass) {
                    e2 = e1;
                    CK(clRetainEvent(e2));
                } else {
                    CK(clEnqueueNDRangeKernel(q, k2[v], 1, NULL, &local2, &local2, 0, NULL, &e2));
                }
                cl_ulong out[2];
                CK(clEnqueueReadBuffer(q, result, CL_TRUE, 0, 16, out, 0, NULL, NULL));
                if (op == 0) {
                    float f[2];
                    memcpy(f, out, 8);
                    /* the value is the sum less its compensation (clc_reduce_decode); two
                     * units in the last place of the float result */
                    if (fabs(((double)f[0] - f[1]) - ref) > 2.5e-4)
                        bad[v]++;
                } else if (out[1] != best) {
                    bad[v]++;
                }
                if (r >= 0) {
                    t1[v * repeats + r] = ev(e1, e1);
                    ts[v * repeats + r] = ev(e1, e2);
                }
                clReleaseEvent(e1);
                clReleaseEvent(e2);
            }
        for (int v = 0; v < NV; ++v) {
            qsort(t1 + v * repeats, (size_t)repeats, sizeof *t1, cmpd);
            qsort(ts + v * repeats, (size_t)repeats, sizeof *ts, cmpd);
            const double m1 = t1[v * repeats + repeats / 2], ms = ts[v * repeats + repeats / 2];
            printf("| %s | %s | %.4f | %.4f | %.1f | %s |\n", op ? "argmax" : "sum",
                   variants[v].name, m1, ms, n * 4 / ms * 1e-6, bad[v] ? "WRONG" : "equal");
            clReleaseKernel(k1[v]);
            clReleaseKernel(k2[v]);
        }
        free(t1);
        free(ts);
    }
    printf("\nreference: sum %.6f (double), argmax %zu\n", ref, best);
    return 0;
}
