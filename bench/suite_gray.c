/* Gray conversion: kernel on device buffers (event profiling), host-to-host through clc_gray,
 * and the serial reference of lib/ref; results must equal the reference bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/gray.h"
#include "suite.h"

typedef struct gray_job {
    const clc_image_desc *src, *dst;
    cl_mem in, out;
} gray_job;

static clc_status enqueue_gray(clc_context *ctx, void *arg, cl_event *done)
{
    const gray_job *j = arg;
    return clc_gray_enqueue(ctx, j->src, j->in, 0, j->dst, j->out, 0, NULL, 0, NULL, done);
}

typedef struct gray_host {
    const clc_image_desc *src, *dst;
    const void *in;
    void *out;
} gray_host;

static clc_status gray_call(clc_context *ctx, void *arg)
{
    const gray_host *g = arg;
    return clc_gray(ctx, g->src, g->in, g->dst, g->out, NULL);
}

/* Kernel-only median on device buffers holding the input; -1 after filling why. */
static double kernel_seconds(clc_context *ctx, const bench_config *config,
                             const clc_image_desc *src, const uint8_t *in,
                             const clc_image_desc *dst, bench_row *row)
{
    gray_job j = {src, dst, NULL, NULL};
    j.in = bench_buffer(ctx, in, src->width * src->height * clc_pixel_size(src->format), row);
    j.out = j.in ? bench_buffer(ctx, NULL, dst->width * dst->height, row) : NULL;
    const double s = j.out ? bench_device_seconds(ctx, config, 0, enqueue_gray, &j, row) : -1.0;
    if (j.out)
        clReleaseMemObject(j.out);
    if (j.in)
        clReleaseMemObject(j.in);
    return s;
}

int bench_gray(clc_context *ctx, const bench_config *config, size_t w, size_t h,
               clc_pixel_format format, bench_row *row)
{
    const int repeats = config->repeats;
    const size_t bpp = clc_pixel_size(format);
    const size_t px = w * h;
    memset(row, 0, sizeof *row);
    row->kernel = "gray";
    snprintf(row->variant, sizeof row->variant, "%s", format == CLC_PIXEL_RGB8 ? "RGB8" : "BGRA8");
    snprintf(row->size, sizeof row->size, "%zux%zu", w, h);
    row->bytes = (double)px * (double)(bpp + 1);
    row->items = (double)px;
    const clc_device_info *d = clc_context_device(ctx);
    if (px * bpp > d->max_alloc_bytes) {
        snprintf(row->status, sizeof row->status,
                 "skipped: %zu MiB exceed the device's largest "
                 "buffer",
                 px * bpp >> 20);
        return 0;
    }
    const clc_image_desc src = {format, w, h, 0};
    const clc_image_desc dst = {CLC_PIXEL_GRAY8, w, h, 0};
    uint8_t *in = malloc(px * bpp), *out = malloc(px), *ref = malloc(px);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!in || !out || !ref || !t) {
        snprintf(row->status, sizeof row->status, "skipped: out of host memory");
        free(in), free(out), free(ref), free(t);
        return 0;
    }
    uint32_t seed = 12345;
    for (size_t i = 0; i < px * bpp; ++i) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (uint8_t)(seed >> 24);
    }
    for (int r = 0; r < repeats; ++r) {
        const double t0 = bench_now();
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        t[r] = bench_now() - t0;
    }
    row->serial_s = bench_median(t, (size_t)repeats);

    clc_status st = clc_gray(ctx, &src, in, &dst, out, NULL); /* warm-up: builds the kernel */
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        const double t0 = bench_now();
        st = clc_gray(ctx, &src, in, &dst, out, NULL);
        t[r] = bench_now() - t0;
    }
    row->h2h_s = bench_median(t, (size_t)repeats);
    int rc = 0;
    if (st != CLC_SUCCESS) {
        snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
        rc = 1;
    } else if (memcmp(out, ref, px) != 0) {
        snprintf(row->status, sizeof row->status, "failed: result differs from the reference");
        rc = 1;
    } else {
        row->device_s = kernel_seconds(ctx, config, &src, in, &dst, row);
        rc = row->device_s <= 0;
        /* The same call from and to pinned memory (clc_host_alloc), checked the same way. */
        gray_host g = {&src, &dst, bench_pinned(ctx, in, px * bpp), bench_pinned(ctx, NULL, px)};
        if (g.in && g.out) {
            const double s = bench_host_seconds(ctx, config, gray_call, &g);
            if (s > 0 && memcmp(g.out, ref, px) == 0)
                row->h2h_pinned_s = s;
        }
        clc_host_free(ctx, (void *)g.in);
        clc_host_free(ctx, g.out);
    }
    free(in), free(out), free(ref), free(t);
    return rc;
}

static int run(clc_context *ctx, const bench_config *config, bench_rows *rows)
{
    static const size_t full[][2] = {{640, 480}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    const size_t n = config->quick ? 2 : 4;
    int failed = 0;
    for (size_t i = 0; i <= n; ++i) { /* the largest once more as BGRA8 */
        bench_row *row = bench_rows_add(rows);
        const size_t s = i < n ? i : n - 1;
        failed |= !row || bench_gray(ctx, config, full[s][0], full[s][1],
                                     i < n ? CLC_PIXEL_RGB8 : CLC_PIXEL_BGRA8, row);
    }
    return failed;
}

static clc_status first_call(clc_context *ctx)
{
    enum { W = 64, H = 48 };
    static uint8_t in[W * H * 3], out[W * H];
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    return clc_gray(ctx, &src, in, &dst, out, NULL);
}

const bench_family bench_family_gray = {"gray", run, first_call};
