/* Depth to points: all passes on device buffers (from a marker to the last pass), host-to-host
 * through clc_depth_to_points, and the serial reference of lib/ref, which it must match. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/ref.h"
#include "suite.h"

typedef struct cloud_job {
    const clc_image_desc *desc;
    const clc_intrinsics *k;
    const clc_cloud_options *options;
    cl_mem depth, points, count;
} cloud_job;

static clc_status enqueue_cloud(clc_context *ctx, void *arg, cl_event *done)
{
    const cloud_job *j = arg;
    return clc_depth_to_points_enqueue(ctx, j->desc, j->depth, 0, NULL, NULL, 0, j->k, j->options,
                                       j->points, NULL, j->count, 0, NULL, done);
}

/* Device-time median of the enqueue form (all passes); -1 after filling row->status. */
static double device_seconds(clc_context *ctx, const bench_config *config,
                             const clc_image_desc *desc, const uint16_t *depth,
                             const clc_intrinsics *k, const clc_cloud_options *options,
                             bench_row *row)
{
    const size_t px = desc->width * desc->height;
    cloud_job j = {desc, k, options, NULL, NULL, NULL};
    j.depth = bench_buffer(ctx, depth, px * 2, row);
    j.points = j.depth ? bench_buffer(ctx, NULL, px * 12, row) : NULL;
    j.count = j.points ? bench_buffer(ctx, NULL, 4, row) : NULL;
    const double s = j.count ? bench_device_seconds(ctx, config, 1, enqueue_cloud, &j, row) : -1.0;
    cl_mem all[] = {j.count, j.points, j.depth};
    for (int i = 0; i < 3; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    return s;
}

int bench_cloud(clc_context *ctx, const bench_config *config, size_t w, size_t h,
                clc_cloud_layout layout, bench_row *row)
{
    const int repeats = config->repeats;
    const size_t px = w * h;
    memset(row, 0, sizeof *row);
    row->kernel = "cloud";
    snprintf(row->variant, sizeof row->variant, "%s u16",
             layout == CLC_CLOUD_DENSE ? "dense" : "organized");
    snprintf(row->size, sizeof row->size, "%zux%zu", w, h);
    row->items = (double)px;
    if (px * 12 > clc_context_device(ctx)->max_alloc_bytes) {
        snprintf(row->status, sizeof row->status,
                 "skipped: %zu MiB of points exceed the device's largest buffer", px * 12 >> 20);
        return 0;
    }
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, w, h, 0};
    const clc_intrinsics k = {525.0, 525.0, (double)w / 2 - 0.5, (double)h / 2 - 0.5};
    clc_cloud_options options = {0};
    options.layout = layout;
    options.depth_trunc = 4.0;
    const clc_cloud_params p = clc__cloud_params(1000.0, 4.0, &k, 1, w, h, layout);
    uint16_t *depth = malloc(px * 2);
    float *ref = malloc(px * 12), *out = malloc(px * 12);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!depth || !ref || !out || !t) {
        snprintf(row->status, sizeof row->status, "skipped: out of host memory");
        free(depth), free(ref), free(out), free(t);
        return 0;
    }
    /* A smooth surface with 15% holes: typical of a structured-light sensor. */
    uint32_t seed = 7;
    for (size_t i = 0; i < px; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const size_t u = i % w, v = i / w;
        depth[i] = (seed >> 24) < 38 ? 0 : (uint16_t)(800 + (u * 7 + v * 3) % 4000);
    }
    size_t n = 0;
    for (int r = 0; r < repeats; ++r) {
        const double t0 = bench_now();
        n = clc__ref_depth_to_points(&desc, depth, NULL, NULL, &p, ref, NULL);
        t[r] = bench_now() - t0;
    }
    row->serial_s = bench_median(t, (size_t)repeats);
    row->bytes = 2.0 * (double)px + 12.0 * (double)n;

    size_t count = 0;
    clc_status st =
        clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, px, &count);
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        const double t0 = bench_now();
        st =
            clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, px, &count);
        t[r] = bench_now() - t0;
    }
    row->h2h_s = bench_median(t, (size_t)repeats);
    int rc = 1;
    if (st != CLC_SUCCESS) {
        snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
    } else if (count != n) {
        snprintf(row->status, sizeof row->status, "failed: %zu points, the reference %zu", count,
                 n);
    } else {
        size_t bad = 3 * n;
        for (size_t i = 0; i < 3 * n && bad == 3 * n; ++i)
            if (!(isnan(out[i]) && isnan(ref[i])) && fabsf(out[i] - ref[i]) > 1e-5f * fabsf(ref[i]))
                bad = i;
        if (bad < 3 * n) {
            snprintf(row->status, sizeof row->status, "failed: value %zu is %g, reference %g", bad,
                     (double)out[bad], (double)ref[bad]);
        } else {
            row->device_s = device_seconds(ctx, config, &desc, depth, &k, &options, row);
            rc = row->device_s <= 0;
        }
    }
    free(depth), free(ref), free(out), free(t);
    return rc;
}
