#define _POSIX_C_SOURCE 200809L
/* Experiment (not built by CMake): A/B of reduction kernels between two builds of the library.
 * Wall time of one clc_reduce_enqueue + clFinish on a device-resident 256 Mi float32 array (and
 * u8 and f64 of the same bytes), median of 21 after two warm-ups; enqueue and launch gaps are
 * included, so compare builds with it, and CuPy with `clcompute bench`'s device column. Used for
 * docs/perf/h200-session4.md (CLCOMPUTE_DEVICE=nvidia).
 *   cc -O2 -std=c11 -Iinclude -IBUILD/generated -o reduce_ab reduce_ab.c -LBUILD -lclcompute \
 *      -lOpenCL -Wl,-rpath,BUILD
 *   ./reduce_ab TAG */
#define CL_TARGET_OPENCL_VERSION 120
#include <clcompute/clcompute.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timing.h"
int main(int argc, char **argv)
{
    const char *tag = argc > 1 ? argv[1] : "";
    clc_context *ctx;
    if (clc_context_create(NULL, &ctx)) {
        fprintf(stderr, "%s\n", clc_last_error());
        return 1;
    }
    cl_context c = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    const size_t n = (size_t)256 << 20;
    float *h = malloc(n * 4);
    unsigned s = 3;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        h[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (h[i] > h[best])
            best = i;
    cl_int err;
    cl_mem in = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    cl_mem out = clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &err);
    if (!in || !out) {
        fprintf(stderr, "clCreateBuffer: %d\n", err);
        return 1;
    }
    const struct {
        const char *name;
        clc_reduce_op op;
        clc_dtype t;
        size_t count;
    } jobs[] = {{"sum f32", CLC_REDUCE_SUM, CLC_DTYPE_F32, n},
                {"max f32", CLC_REDUCE_MAX, CLC_DTYPE_F32, n},
                {"argmax f32", CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, n},
                {"argmin f32", CLC_REDUCE_ARGMIN, CLC_DTYPE_F32, n},
                {"argmax i32", CLC_REDUCE_ARGMAX, CLC_DTYPE_I32, n},
                {"argmax u8", CLC_REDUCE_ARGMAX, CLC_DTYPE_U8, 4 * n},
                {"argmax f64", CLC_REDUCE_ARGMAX, CLC_DTYPE_F64, n / 2}};
    for (size_t j = 0; j < sizeof jobs / sizeof *jobs; ++j) {
        double w[21];
        for (int r = -2; r < 21; ++r) {
            const double w1 = now();
            if (clc_reduce_enqueue(ctx, jobs[j].op, jobs[j].t, in, 0, jobs[j].count, out, 0, NULL,
                                   NULL) ||
                clFinish(q)) {
                fprintf(stderr, "%s\n", clc_last_error());
                return 1;
            }
            if (r >= 0)
                w[r] = (now() - w1) * 1e3;
        }
        unsigned char raw[16];
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, 16, raw, 0, NULL, NULL);
        clc_reduce_result res;
        clc_reduce_decode(jobs[j].op, jobs[j].t, raw, jobs[j].count, &res);
        qsort(w, 21, sizeof *w, cmpd);
        const double bytes = (double)n * 4;
        printf("%-6s %-11s wall %.4f ms (%.0f GB/s) index %llu%s\n", tag, jobs[j].name, w[10],
               bytes / w[10] * 1e-6, (unsigned long long)res.index,
               j == 2 ? (res.index == best ? " (right)" : " (WRONG)") : "");
    }
    clc_context_destroy(ctx);
    return 0;
}
