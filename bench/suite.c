/* The benchmark suite's families, rows, timing helpers and first-call latency. */
#define _POSIX_C_SOURCE 200809L
#include "suite.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Each family's bench/suite_NAME.c defines bench_family_NAME. */
extern const bench_family bench_family_gray, bench_family_cloud, bench_family_reduce,
    bench_family_median;
const bench_family *const bench_families[] = {&bench_family_gray, &bench_family_cloud,
                                              &bench_family_reduce, &bench_family_median, NULL};

const bench_family *bench_family_find(const char *name, size_t len)
{
    for (size_t i = 0; bench_families[i]; ++i)
        if (strlen(bench_families[i]->name) == len &&
            strncmp(bench_families[i]->name, name, len) == 0)
            return bench_families[i];
    return NULL;
}

bench_row *bench_rows_add(bench_rows *rows)
{
    if (rows->count == rows->capacity) {
        const size_t capacity = rows->capacity ? 2 * rows->capacity : 32;
        bench_row *grown = realloc(rows->rows, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        rows->rows = grown, rows->capacity = capacity;
    }
    bench_row *row = &rows->rows[rows->count++];
    memset(row, 0, sizeof *row);
    return row;
}

void bench_rows_free(bench_rows *rows)
{
    free(rows->rows);
    rows->rows = NULL;
    rows->count = rows->capacity = 0;
}

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
    /* The busy copy of multi-pass rows: 0.3 ms at the device's copy bandwidth (read + write),
     * from 1 MiB to 256 MiB (0.13 ms on the H200, still beyond the host's time to enqueue the
     * passes) and the device's largest buffer. Without room for it, a marker opens the span as
     * before (the host's enqueue time then counts). */
    const double gbps = config->copy_gbps > 0 && config->copy_gbps < 1e6 ? config->copy_gbps : 1.0;
    size_t busy_bytes = (size_t)(gbps * 1e9 * 0.3e-3 / 2);
    const size_t busy_max = clc_context_device(ctx)->max_alloc_bytes;
    busy_bytes = busy_bytes < ((size_t)1 << 20) ? (size_t)1 << 20 : busy_bytes;
    busy_bytes = busy_bytes > ((size_t)256 << 20) ? (size_t)256 << 20 : busy_bytes;
    busy_bytes = busy_bytes > busy_max ? busy_max : busy_bytes;
    cl_mem busy[2] = {NULL, NULL};
    for (int i = 0; multi_pass && i < 2; ++i) {
        cl_int err = CL_SUCCESS;
        busy[i] =
            clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_READ_WRITE, busy_bytes, NULL, &err);
        if (err != CL_SUCCESS)
            busy[i] = NULL;
    }
    const int busy_copy = busy[0] && busy[1];
    clc_status st = CLC_SUCCESS;
    for (int r = -1; r < repeats && st == CLC_SUCCESS; ++r) {
        cl_event before = NULL, after = NULL;
        const double t0 = bench_now();
        cl_int err = CL_SUCCESS;
        if (multi_pass && busy_copy)
            err = clEnqueueCopyBuffer(q, busy[0], busy[1], 0, 0, busy_bytes, 0, NULL, &before);
        else if (multi_pass)
            err = clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
        if (err != CL_SUCCESS) {
            snprintf(row->status, sizeof row->status, "failed: the span's opening command: %s",
                     clc_status_string(err));
            st = (clc_status)err;
            break;
        }
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
    for (int i = 0; i < 2; ++i)
        if (busy[i])
            clReleaseMemObject(busy[i]);
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

int bench_first_call(const char *device, const bench_family *family, double *cold_ms,
                     double *warm_ms, char *error, size_t error_size)
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
        if (family->first_call(ctx) != CLC_SUCCESS) {
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
