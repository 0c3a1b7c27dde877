/* Reduction throughput: device time (device buffer, both stages, event timestamps) and
 * host-to-host time (clc_reduce on host memory), against the device's copy bandwidth and a
 * numpy-style serial C loop (pairwise float sum with 8 accumulators, as numpy's; plain loops
 * for the rest), compiled -O3 -march=native.
 *   clc_bench_reduce [--repeats N] [--sizes M,M,...]   (sizes in millions of elements)
 * GB/s count the bytes read. Prints a Markdown table. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* numpy's pairwise_sum: blocks of 128 summed with 8 accumulators, halves recursively above. */
static float pairwise(const float *x, size_t n)
{
    if (n < 8) {
        float s = -0.0f;
        for (size_t i = 0; i < n; ++i)
            s += x[i];
        return s;
    }
    if (n <= 128) {
        float r[8];
        for (int k = 0; k < 8; ++k)
            r[k] = x[k];
        size_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int k = 0; k < 8; ++k)
                r[k] += x[i + (size_t)k];
        float s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            s += x[i];
        return s;
    }
    size_t half = n / 2;
    half -= half % 8;
    return pairwise(x, half) + pairwise(x + half, n - half);
}

typedef struct serial_result {
    double value;
    size_t index;
} serial_result;

static serial_result serial(clc_reduce_op op, clc_dtype type, const void *data, size_t n)
{
    serial_result r = {0, 0};
    if (type == CLC_DTYPE_F32 && op == CLC_REDUCE_SUM) {
        r.value = pairwise(data, n);
    } else if (type == CLC_DTYPE_F32) {
        const float *x = data;
        float best = x[0];
        for (size_t i = 1; i < n && !isnan(best); ++i)
            if (isnan(x[i]) || x[i] > best)
                best = x[i], r.index = i;
        r.value = best;
    } else if (type == CLC_DTYPE_I32) {
        const int32_t *x = data;
        int64_t s = 0;
        for (size_t i = 0; i < n; ++i)
            s += x[i];
        r.value = (double)s;
    } else {
        const uint8_t *x = data;
        uint64_t s = 0;
        for (size_t i = 0; i < n; ++i)
            s += x[i];
        r.value = (double)s;
    }
    return r;
}

typedef struct bench_case {
    const char *name;
    clc_reduce_op op;
    clc_dtype type;
} bench_case;

static const bench_case cases[] = {{"sum f32", CLC_REDUCE_SUM, CLC_DTYPE_F32},
                                   {"argmax f32", CLC_REDUCE_ARGMAX, CLC_DTYPE_F32},
                                   {"sum i32", CLC_REDUCE_SUM, CLC_DTYPE_I32},
                                   {"sum u8", CLC_REDUCE_SUM, CLC_DTYPE_U8}};

static double device_seconds(clc_context *ctx, const bench_case *c, cl_mem in, cl_mem out, size_t n,
                             int repeats, double *t)
{
    cl_command_queue q = clc_context_cl_queue(ctx);
    for (int r = -1; r < repeats; ++r) {
        cl_event before = NULL, after = NULL;
        const double t0 = bench_now();
        clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
        if (clc_reduce_enqueue(ctx, c->op, c->type, in, 0, n, out, 0, NULL, &after) !=
            CLC_SUCCESS) {
            if (before)
                clReleaseEvent(before);
            return -1.0;
        }
        clFinish(q);
        double s = bench_now() - t0;
        cl_ulong b = 0, e = 0;
        if (clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) ==
                CL_SUCCESS &&
            clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) ==
                CL_SUCCESS &&
            e > b)
            s = (double)(e - b) * 1e-9;
        if (r >= 0)
            t[r] = s;
        clReleaseEvent(before);
        clReleaseEvent(after);
    }
    return bench_median(t, (size_t)repeats);
}

static int run(clc_context *ctx, const bench_case *c, size_t n, int repeats, double copy_gbps)
{
    const size_t esize = clc_dtype_size(c->type);
    const size_t bytes = n * esize;
    const clc_device_info *d = clc_context_device(ctx);
    if (bytes > d->max_alloc_bytes || bytes > d->global_mem_bytes / 2) {
        printf("| %s | %zuM | skipped: %zu MiB do not fit the device |\n", c->name, n >> 20,
               bytes >> 20);
        return 0;
    }
    unsigned char *data = malloc(bytes);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!data || !t) {
        printf("| %s | %zuM | skipped: out of host memory |\n", c->name, n >> 20);
        free(data), free(t);
        return 0;
    }
    uint32_t seed = 3;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        if (c->type == CLC_DTYPE_F32)
            ((float *)data)[i] = (float)(seed >> 8) * (1.0f / 16777216.0f) - 0.5f;
        else if (c->type == CLC_DTYPE_I32)
            ((int32_t *)data)[i] = (int32_t)seed;
        else
            data[i] = (uint8_t)(seed >> 24);
    }
    serial_result want = {0, 0};
    for (int r = 0; r < repeats; ++r) {
        const double t0 = bench_now();
        want = serial(c->op, c->type, data, n);
        t[r] = bench_now() - t0;
    }
    const double serial_s = bench_median(t, (size_t)repeats);

    clc_reduce_result got;
    clc_status st = clc_reduce(ctx, c->op, c->type, data, n, &got);
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        const double t0 = bench_now();
        st = clc_reduce(ctx, c->op, c->type, data, n, &got);
        t[r] = bench_now() - t0;
    }
    const double h2h_s = bench_median(t, (size_t)repeats);
    int rc = 0;
    const double value = c->type == CLC_DTYPE_F32   ? got.f
                         : c->type == CLC_DTYPE_I32 ? (double)got.i
                                                    : (double)got.u;
    if (st == CLC_SUCCESS &&
        (c->op == CLC_REDUCE_ARGMAX ? got.index != want.index
                                    : fabs(value - want.value) > 1e-3 * fabs(want.value) + 1e-3)) {
        fprintf(stderr, "bench reduce %s: %.9g, serial %.9g\n", c->name, value, want.value);
        rc = 1;
    }

    double dev_s = -1.0;
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
    cl_mem out = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, 16, NULL, &err) : NULL;
    if (err == CL_SUCCESS && st == CLC_SUCCESS)
        dev_s = device_seconds(ctx, c, in, out, n, repeats, t);
    if (out)
        clReleaseMemObject(out);
    if (in)
        clReleaseMemObject(in);
    if (st != CLC_SUCCESS || dev_s <= 0) {
        printf("| %s | %zuM | failed: %s |\n", c->name, n >> 20, clc_last_error());
        rc = 1;
    } else {
        printf("| %s | %zuM | %.3f | %.1f | %.0f%% | %.3f | %.1f | %.3f | %.1f | %.2fx | %.2fx |\n",
               c->name, n >> 20, dev_s * 1e3, (double)bytes / dev_s * 1e-9,
               100.0 * (double)bytes / dev_s * 1e-9 / copy_gbps, h2h_s * 1e3,
               (double)bytes / h2h_s * 1e-9, serial_s * 1e3, (double)bytes / serial_s * 1e-9,
               serial_s / dev_s, serial_s / h2h_s);
    }
    fflush(stdout);
    free(data), free(t);
    return rc;
}

int main(int argc, char **argv)
{
    int repeats = 10;
    size_t sizes[BENCH_MAX_SIZES] = {1, 16, 64, 256};
    size_t nsizes = 4;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *tok = strtok(argv[++i], ","); tok && nsizes < BENCH_MAX_SIZES;
                 tok = strtok(NULL, ","))
                sizes[nsizes++] = strtoul(tok, NULL, 10);
        } else {
            fprintf(stderr, "usage: clc_bench_reduce [--repeats N] [--sizes M,M,...]\n");
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;
    double copy_gbps = 0.0;
    clc_context *ctx = bench_open("clc_bench_reduce", &copy_gbps);
    if (!ctx)
        return 1;
    printf("sizes in Mi elements; GB/s count bytes read; median of %d\n\n", repeats);
    printf("| op | size | device ms | device GB/s | of copy | host-to-host ms | h2h GB/s | "
           "serial C ms | serial GB/s | device vs C | h2h vs C |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t s = 0; s < nsizes; ++s)
            rc |= run(ctx, &cases[c], sizes[s] << 20, repeats, copy_gbps);
    clc_context_destroy(ctx);
    return rc;
}
