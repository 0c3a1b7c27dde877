/* Depth to points: all passes on device buffers (from a marker to the last pass), host-to-host
 * through clc_depth_to_points, and the serial reference of lib/ref, which it must match. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"
#include "suite.h"

typedef struct cloud_job {
    const clc_image_desc *desc;
    const clc_intrinsics *k;
    const clc_cloud_options *options;
    size_t frames;
    cl_mem depth, points, count;
} cloud_job;

static clc_status enqueue_cloud(clc_context *ctx, void *arg, cl_event *done)
{
    const cloud_job *j = arg;
    return clc_depth_to_points_many_enqueue(ctx, j->frames, j->desc, j->depth, 0, 0, NULL, NULL, 0,
                                            0, j->k, j->options, j->points, NULL, j->count, 0, NULL,
                                            done);
}

/* Device-time median of the enqueue form (all passes, all frames); -1 after filling
 * row->status. */
static double device_seconds(clc_context *ctx, const bench_config *config,
                             const clc_image_desc *desc, size_t frames, const uint16_t *depth,
                             const clc_intrinsics *k, const clc_cloud_options *options,
                             bench_row *row)
{
    const size_t px = desc->width * desc->height * frames;
    cloud_job j = {desc, k, options, frames, NULL, NULL, NULL};
    j.depth = bench_buffer(ctx, depth, px * 2, row);
    j.points = j.depth ? bench_buffer(ctx, NULL, px * 12, row) : NULL;
    j.count = j.points ? bench_buffer(ctx, NULL, 4 * frames, row) : NULL;
    const double s = j.count ? bench_device_seconds(ctx, config, 1, enqueue_cloud, &j, row) : -1.0;
    cl_mem all[] = {j.count, j.points, j.depth};
    for (int i = 0; i < 3; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    return s;
}

int bench_cloud(clc_context *ctx, const bench_config *config, size_t w, size_t h,
                clc_cloud_layout layout, size_t frames, bench_row *row)
{
    const int repeats = config->repeats;
    const size_t frame_px = w * h, px = frame_px * frames;
    memset(row, 0, sizeof *row);
    row->kernel = "cloud";
    snprintf(row->variant, sizeof row->variant, "%s u16%s",
             layout == CLC_CLOUD_DENSE ? "dense" : "organized", frames > 1 ? " many" : "");
    if (frames > 1)
        snprintf(row->size, sizeof row->size, "%zu x %zux%zu", frames, w, h);
    else
        snprintf(row->size, sizeof row->size, "%zux%zu", w, h);
    row->items = (double)px;
    row->frames = (double)frames;
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
    const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 4.0, &k, 1, w, h, layout);
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
        const size_t u = i % w, v = i / w % h;
        depth[i] = (seed >> 24) < 38 ? 0 : (uint16_t)(800 + (u * 7 + v * 3 + i / frame_px) % 4000);
    }
    /* The reference, frame by frame, into the same layout as the many form's (frame f's points
     * from f * w * h). */
    size_t *n = malloc(frames * sizeof *n), *count = malloc(frames * sizeof *count), total = 0;
    for (int r = 0; r < repeats && n; ++r) {
        const double t0 = bench_now();
        for (size_t f = 0; f < frames; ++f)
            n[f] = clc__ref_depth_to_points(&desc, depth + f * frame_px, NULL, NULL, &p,
                                            ref + 3 * f * frame_px, NULL);
        t[r] = bench_now() - t0;
    }
    row->serial_s = bench_median(t, (size_t)repeats);
    for (size_t f = 0; n && f < frames; ++f)
        total += n[f];
    row->bytes = 2.0 * (double)px + 12.0 * (double)total;

    clc_status st = n && count ? CLC_SUCCESS : CLC_ERROR_OUT_OF_HOST_MEMORY;
    for (int r = -1; r < repeats && st == CLC_SUCCESS; ++r) { /* run -1 warms up */
        const double t0 = bench_now();
        if (frames == 1)
            st = clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, px,
                                     count);
        else
            st = clc_depth_to_points_many(ctx, frames, &desc, depth, 0, NULL, NULL, 0, &k, &options,
                                          out, NULL, count);
        if (r >= 0)
            t[r] = bench_now() - t0;
    }
    row->h2h_s = bench_median(t, (size_t)repeats);
    int rc = 1;
    size_t wrong = frames;
    for (size_t f = 0; st == CLC_SUCCESS && f < frames && wrong == frames; ++f)
        if (count[f] != n[f])
            wrong = f;
    if (st != CLC_SUCCESS) {
        snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
    } else if (wrong < frames) {
        snprintf(row->status, sizeof row->status,
                 "failed: frame %zu has %zu points, the "
                 "reference %zu",
                 wrong, count[wrong], n[wrong]);
    } else {
        size_t bad = SIZE_MAX;
        for (size_t f = 0; f < frames && bad == SIZE_MAX; ++f)
            for (size_t i = 3 * f * frame_px; i < 3 * (f * frame_px + n[f]) && bad == SIZE_MAX; ++i)
                if (!(isnan(out[i]) && isnan(ref[i])) &&
                    fabsf(out[i] - ref[i]) > 1e-5f * fabsf(ref[i]))
                    bad = i;
        if (bad != SIZE_MAX) {
            snprintf(row->status, sizeof row->status, "failed: value %zu is %g, reference %g", bad,
                     (double)out[bad], (double)ref[bad]);
        } else {
            row->device_s = device_seconds(ctx, config, &desc, frames, depth, &k, &options, row);
            rc = row->device_s <= 0;
        }
    }
    free(depth), free(ref), free(out), free(t), free(n), free(count);
    return rc;
}

static int run(clc_context *ctx, const bench_config *config, bench_rows *rows)
{
    static const struct {
        size_t w, h;
        clc_cloud_layout layout;
        size_t frames; /* > 1: one call of the many form */
        int full_only;
    } cases[] = {
        {640, 480, CLC_CLOUD_DENSE, 1, 0},
        {1280, 720, CLC_CLOUD_DENSE, 1, 1},
        {1920, 1080, CLC_CLOUD_DENSE, 1, 0},
        {7680, 4320, CLC_CLOUD_DENSE, 1, 1},
        {1920, 1080, CLC_CLOUD_ORGANIZED, 1, 0},
        /* A stream of sensor frames in one call: what a single small frame cannot show. */
        {640, 480, CLC_CLOUD_DENSE, 64, 0},
        {1920, 1080, CLC_CLOUD_DENSE, 16, 1},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (config->quick && cases[i].full_only)
            continue;
        const size_t frames = config->quick && cases[i].frames > 1 ? 8 : cases[i].frames;
        bench_row *row = bench_rows_add(rows);
        failed |=
            !row || bench_cloud(ctx, config, cases[i].w, cases[i].h, cases[i].layout, frames, row);
    }
    return failed;
}

static clc_status first_call(clc_context *ctx)
{
    enum { W = 64, H = 48 };
    static uint16_t depth[W * H];
    static float points[W * H * 3];
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {50.0, 50.0, W / 2.0, H / 2.0};
    size_t count = 0;
    return clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, NULL, points, NULL, W * H,
                               &count);
}

const bench_family bench_family_cloud = {"cloud", run, first_call};
