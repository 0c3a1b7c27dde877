/* Timing helpers and the first-call latency of the benchmark suite. */
#define _POSIX_C_SOURCE 200809L
#include "suite.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Device seconds from before's end (or after's start without before) to after's end; wall time
 * since t0 when the events carry no timestamps. */
static double span_seconds(cl_event before, cl_event after, double t0)
{
    const double wall = bench_now() - t0;
    cl_ulong b = 0, e = 0;
    if (after &&
        clGetEventProfilingInfo(before ? before : after,
                                before ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
                                sizeof b, &b, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL) ==
            CL_SUCCESS &&
        e > b)
        return (double)(e - b) * 1e-9;
    return wall;
}

double bench_device_seconds(clc_context *ctx, const bench_config *config, int multi_pass,
                            bench_enqueue enqueue, void *arg, bench_row *row)
{
    const int repeats = config->repeats;
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!t) {
        snprintf(row->status, sizeof row->status, "skipped: out of host memory");
        return -1.0;
    }
    cl_command_queue q = clc_context_cl_queue(ctx);
    clc_status st = CLC_SUCCESS;
    for (int r = -1; r < repeats && st == CLC_SUCCESS; ++r) {
        cl_event before = NULL, after = NULL;
        const double t0 = bench_now();
        if (multi_pass)
            clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
        st = enqueue(ctx, arg, &after);
        if (st == CLC_SUCCESS) {
            clFinish(q);
            if (r >= 0)
                t[r] = span_seconds(before, after, t0);
        } else {
            snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
        }
        if (before)
            clReleaseEvent(before);
        if (after)
            clReleaseEvent(after);
    }
    const double median = st == CLC_SUCCESS ? bench_median(t, (size_t)repeats) : -1.0;
    free(t);
    return median;
}

cl_mem bench_buffer(clc_context *ctx, const void *data, size_t bytes, bench_row *row)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(clc_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)(uintptr_t)data, &err);
    if (err != CL_SUCCESS)
        snprintf(row->status, sizeof row->status, "failed: clCreateBuffer of %zu bytes: %s", bytes,
                 clc_status_string(err));
    return err == CL_SUCCESS ? m : NULL;
}

/* One small call of a kernel family: what a program's first call compiles or loads. */
static clc_status first_call(clc_context *ctx, const char *kernel)
{
    enum { W = 64, H = 48 };
    static uint8_t in[W * H * 3];
    static float points[W * H * 3];
    uint8_t out[W * H];
    if (strcmp(kernel, "gray") == 0) {
        const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
        return clc_gray(ctx, &src, in, &dst, out, NULL);
    }
    if (strcmp(kernel, "cloud") == 0) {
        const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, W, H, 0};
        const clc_intrinsics k = {50.0, 50.0, W / 2.0, H / 2.0};
        size_t count = 0;
        return clc_depth_to_points(ctx, &depth, in, NULL, NULL, &k, NULL, points, NULL, W * H,
                                   &count);
    }
    clc_reduce_result r;
    return clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, points, W * H, &r);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0)
                remove_tree(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int bench_first_call(const char *device, const char *kernel, double *cold_ms, double *warm_ms,
                     char *error, size_t error_size)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/clcompute-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(error, error_size, "cannot create a temporary cache directory under %s",
                 tmp && *tmp ? tmp : "/tmp");
        return -1;
    }
    clc_context_options options = {0};
    options.device = device;
    options.cache = CLC_CACHE_ON;
    options.cache_dir = dir;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; ++pass) {
        clc_context *ctx = NULL;
        if (clc_context_create(&options, &ctx) != CLC_SUCCESS) {
            snprintf(error, error_size, "%s", clc_last_error());
            rc = -1;
            break;
        }
        const double t0 = bench_now();
        if (first_call(ctx, kernel) != CLC_SUCCESS) {
            snprintf(error, error_size, "%s", clc_last_error());
            rc = -1;
        }
        const double ms = (bench_now() - t0) * 1e3;
        clc_cache_stats stats;
        if (rc == 0 && clc_context_cache_stats(ctx, &stats) == CLC_SUCCESS &&
            (pass == 0 ? stats.stored == 0 : stats.hits == 0)) {
            snprintf(error, error_size, "the %s run %s", pass == 0 ? "cold" : "warm",
                     pass == 0 ? "stored no cache entry" : "found no cache entry");
            rc = -1;
        }
        *(pass == 0 ? cold_ms : warm_ms) = ms;
        clc_context_destroy(ctx);
    }
    remove_tree(dir);
    return rc;
}

void *bench_pinned(clc_context *ctx, const void *data, size_t bytes)
{
    void *p = NULL;
    if (clc_host_alloc(ctx, bytes, &p) != CLC_SUCCESS)
        return NULL;
    if (data)
        memcpy(p, data, bytes);
    else
        memset(p, 0, bytes);
    return p;
}

double bench_host_seconds(clc_context *ctx, const bench_config *config, bench_call call, void *arg)
{
    double *t = malloc((size_t)config->repeats * sizeof *t);
    clc_status st = t ? call(ctx, arg) : CLC_ERROR_OUT_OF_HOST_MEMORY; /* warm-up */
    for (int r = 0; r < config->repeats && st == CLC_SUCCESS; ++r) {
        const double t0 = bench_now();
        st = call(ctx, arg);
        t[r] = bench_now() - t0;
    }
    const double s = st == CLC_SUCCESS ? bench_median(t, (size_t)config->repeats) : -1.0;
    free(t);
    return s;
}
