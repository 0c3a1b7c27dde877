/* Depth to points throughput: device time (device buffers, all passes, event timestamps) and
 * host-to-host time (clc_depth_to_points on host memory), against the device's copy bandwidth
 * and the serial C reference (-O3 -march=native). Results are checked against the reference.
 *   clc_bench_cloud [--repeats N] [--organized] [--sizes WxH,...]
 * Bytes counted: 2 read a pixel plus 12 written a point. Prints a Markdown table. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/ref.h"
#include "timing.h"

static const bench_size default_sizes[] = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};

static int run(clc_context *ctx, bench_size sz, clc_cloud_layout layout, int repeats,
               double copy_gbps)
{
    const size_t px = sz.w * sz.h;
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, sz.w, sz.h, 0};
    const clc_intrinsics k = {525.0, 525.0, (double)sz.w / 2 - 0.5, (double)sz.h / 2 - 0.5};
    clc_cloud_options options = {0};
    options.layout = layout;
    options.depth_trunc = 4.0;
    const clc_cloud_params p = clc__cloud_params(1000.0, 4.0, &k, 1, sz.w, sz.h, layout);
    uint16_t *depth = malloc(px * 2);
    float *ref = malloc(px * 12), *out = malloc(px * 12);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!depth || !ref || !out || !t) {
        printf("| %zux%zu | skipped: out of host memory |\n", sz.w, sz.h);
        free(depth), free(ref), free(out), free(t);
        return 0;
    }
    /* A smooth surface with 15% holes: typical of a structured-light sensor. */
    uint32_t seed = 7;
    for (size_t i = 0; i < px; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const size_t u = i % sz.w, v = i / sz.w;
        depth[i] = (seed >> 24) < 38 ? 0 : (uint16_t)(800 + (u * 7 + v * 3) % 4000);
    }
    size_t n = 0;
    for (int r = 0; r < repeats; ++r) {
        double t0 = bench_now();
        n = clc__ref_depth_to_points(&desc, depth, NULL, NULL, &p, ref, NULL);
        t[r] = bench_now() - t0;
    }
    const double ref_s = bench_median(t, (size_t)repeats);

    int rc = 0;
    size_t count = 0;
    clc_status st =
        clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, px, &count);
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        double t0 = bench_now();
        st =
            clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, px, &count);
        t[r] = bench_now() - t0;
    }
    const double h2h_s = bench_median(t, (size_t)repeats);
    if (st == CLC_SUCCESS && count != n) {
        fprintf(stderr, "bench cloud: %zu points, reference %zu\n", count, n);
        rc = 1;
    }
    for (size_t i = 0; st == CLC_SUCCESS && rc == 0 && i < 3 * n; ++i) {
        if (!(isnan(out[i]) && isnan(ref[i])) && fabsf(out[i] - ref[i]) > 1e-5f * fabsf(ref[i])) {
            fprintf(stderr, "bench cloud: value %zu is %g, reference %g\n", i, (double)out[i],
                    (double)ref[i]);
            rc = 1;
        }
    }

    /* Device only: all passes from enqueue to finish, on device buffers. */
    double dev_s = -1.0;
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, px * 2, depth, &err);
    cl_mem b =
        err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, px * 12, NULL, &err) : NULL;
    cl_mem c = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_WRITE, 4, NULL, &err) : NULL;
    if (err == CL_SUCCESS && st == CLC_SUCCESS) {
        for (int r = -1; r < repeats && st == CLC_SUCCESS; ++r) {
            /* Device time: from a marker's completion (the queue is idle, so that is when the
             * first pass starts) to the last pass's end; wall time where markers carry no
             * timestamps. */
            cl_event before = NULL, after = NULL;
            double t0 = bench_now();
            clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
            st = clc_depth_to_points_enqueue(ctx, &desc, a, 0, NULL, NULL, 0, &k, &options, b, NULL,
                                             c, 0, NULL, &after);
            clFinish(q);
            double wall = bench_now() - t0;
            cl_ulong t_begin = 0, t_end = 0;
            if (before && after &&
                clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof t_begin, &t_begin,
                                        NULL) == CL_SUCCESS &&
                clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof t_end, &t_end,
                                        NULL) == CL_SUCCESS &&
                t_end > t_begin)
                wall = (double)(t_end - t_begin) * 1e-9;
            if (r >= 0)
                t[r] = wall;
            if (before)
                clReleaseEvent(before);
            if (after)
                clReleaseEvent(after);
        }
        dev_s = bench_median(t, (size_t)repeats);
    }
    if (c)
        clReleaseMemObject(c);
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);

    if (st != CLC_SUCCESS) {
        printf("| %zux%zu | failed: %s |\n", sz.w, sz.h, clc_last_error());
        rc = 1;
    } else {
        const double bytes = 2.0 * (double)px + 12.0 * (double)n;
        printf("| %zux%zu | %zu | %.3f | %.1f | %.0f%% | %.3f | %.1f | %.0f | %.3f | %.2fx | "
               "%.2fx |\n",
               sz.w, sz.h, n, dev_s * 1e3, bytes / dev_s * 1e-9,
               100.0 * bytes / dev_s * 1e-9 / copy_gbps, h2h_s * 1e3, bytes / h2h_s * 1e-9,
               (double)n / h2h_s * 1e-6, ref_s * 1e3, ref_s / dev_s, ref_s / h2h_s);
    }
    fflush(stdout);
    free(depth), free(ref), free(out), free(t);
    return rc;
}

int main(int argc, char **argv)
{
    int repeats = 20;
    clc_cloud_layout layout = CLC_CLOUD_DENSE;
    bench_size sizes[BENCH_MAX_SIZES];
    size_t nsizes = sizeof default_sizes / sizeof default_sizes[0];
    memcpy(sizes, default_sizes, sizeof default_sizes);
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--organized") == 0) {
            layout = CLC_CLOUD_ORGANIZED;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = bench_parse_sizes(argv[++i], sizes);
        } else {
            fprintf(stderr,
                    "usage: clc_bench_cloud [--repeats N] [--organized] [--sizes WxH,...]\n");
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;
    double copy_gbps = 0.0;
    clc_context *ctx = bench_open("clc_bench_cloud", &copy_gbps);
    if (!ctx)
        return 1;
    printf("%s cloud from DEPTH_U16, 85%% valid; median of %d\n\n",
           layout == CLC_CLOUD_DENSE ? "dense" : "organized", repeats);
    printf("| size | points | device ms | device GB/s | of copy | host-to-host ms | h2h GB/s | "
           "h2h Mpoints/s | serial C ms | device vs C | h2h vs C |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = 0;
    for (size_t i = 0; i < nsizes; ++i)
        rc |= run(ctx, sizes[i], layout, repeats, copy_gbps);
    clc_context_destroy(ctx);
    return rc;
}
