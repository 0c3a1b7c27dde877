/* Median filter: kernel on device buffers (event profiling), host-to-host through clc_median and
 * from pinned memory, and the serial reference of lib/ref; results must equal the reference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/median.h"
#include "suite.h"

typedef struct median_call {
    const clc_image_desc *desc;
    unsigned ksize;
    const void *in;
    void *out;
    cl_mem in_buf, out_buf;
} median_call;

static clc_status enqueue(clc_context *ctx, void *arg, cl_event *done)
{
    const median_call *m = arg;
    return clc_median_enqueue(ctx, m->desc, m->in_buf, 0, m->desc, m->out_buf, 0, m->ksize, 0, NULL,
                              done);
}

static clc_status host_call(clc_context *ctx, void *arg)
{
    const median_call *m = arg;
    return clc_median(ctx, m->desc, m->in, m->desc, m->out, m->ksize);
}

static clc_status serial_call(clc_context *ctx, void *arg)
{
    (void)ctx;
    const median_call *m = arg;
    clc__ref_median(m->desc, m->in, m->desc, m->out, m->ksize);
    return CLC_SUCCESS;
}

/* One row: w x h of `format` with a ksize window. Bytes: a pixel read and one written (the
 * window's other reads come from caches). */
static int bench_median_row(clc_context *ctx, const bench_config *config, size_t w, size_t h,
                            clc_pixel_format format, unsigned ksize, bench_row *row)
{
    const size_t bpp = clc_pixel_size(format), bytes = w * h * bpp;
    row->kernel = "median";
    snprintf(row->variant, sizeof row->variant, "%ux%u %s", ksize, ksize,
             format == CLC_PIXEL_DEPTH_U16 ? "u16"
             : format == CLC_PIXEL_GRAY8   ? "u8"
                                           : "f32");
    snprintf(row->size, sizeof row->size, "%zux%zu", w, h);
    row->bytes = 2.0 * (double)bytes;
    row->items = (double)(w * h);
    const clc_image_desc desc = {format, w, h, 0};
    uint8_t *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
    if (!in || !out || !ref) {
        snprintf(row->status, sizeof row->status, "skipped: out of host memory");
        free(in), free(out), free(ref);
        return 0;
    }
    /* Depth-like: smooth ramps with 10% dropouts (zeros), so windows hold ties and outliers. */
    uint32_t seed = 777;
    for (size_t i = 0; i < w * h; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const unsigned v = seed % 10 == 0 ? 0 : 500 + (unsigned)(i % w) + (seed >> 28);
        if (format == CLC_PIXEL_DEPTH_U16) {
            const uint16_t u = (uint16_t)v;
            memcpy(in + 2 * i, &u, 2);
        } else if (format == CLC_PIXEL_GRAY8) {
            in[i] = (uint8_t)v;
        } else {
            const float f = (float)v * 0.001f;
            memcpy(in + 4 * i, &f, 4);
        }
    }
    median_call m = {&desc, ksize, in, ref, NULL, NULL};
    row->serial_s = bench_host_seconds(ctx, config, serial_call, &m);
    m.out = out;
    row->h2h_s = bench_host_seconds(ctx, config, host_call, &m);
    int rc = 0;
    if (row->h2h_s < 0) {
        snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
        rc = 1;
    } else if (memcmp(out, ref, bytes) != 0) {
        snprintf(row->status, sizeof row->status, "failed: differs from the serial reference");
        rc = 1;
    } else {
        m.in_buf = bench_buffer(ctx, in, bytes, row);
        m.out_buf = m.in_buf ? bench_buffer(ctx, NULL, bytes, row) : NULL;
        row->device_s = m.out_buf ? bench_device_seconds(ctx, config, 0, enqueue, &m, row) : -1.0;
        rc = row->device_s <= 0;
        if (m.out_buf)
            clReleaseMemObject(m.out_buf);
        if (m.in_buf)
            clReleaseMemObject(m.in_buf);
        /* The same call from and to pinned memory (clc_host_alloc), checked the same way. */
        median_call p = {&desc, ksize, bench_pinned(ctx, in, bytes), bench_pinned(ctx, NULL, bytes),
                         NULL,  NULL};
        if (p.in && p.out) {
            const double s = bench_host_seconds(ctx, config, host_call, &p);
            if (s > 0 && memcmp(p.out, ref, bytes) == 0)
                row->h2h_pinned_s = s;
        }
        clc_host_free(ctx, (void *)p.in);
        clc_host_free(ctx, p.out);
    }
    free(in), free(out), free(ref);
    return rc;
}

static int run(clc_context *ctx, const bench_config *config, bench_rows *rows)
{
    static const struct {
        size_t w, h;
        clc_pixel_format format;
        unsigned ksize;
        int full_only;
    } cases[] = {
        {640, 480, CLC_PIXEL_DEPTH_U16, 5, 0},   {1280, 720, CLC_PIXEL_DEPTH_U16, 5, 1},
        {1920, 1080, CLC_PIXEL_DEPTH_U16, 3, 0}, {1920, 1080, CLC_PIXEL_DEPTH_U16, 5, 0},
        {3840, 2160, CLC_PIXEL_DEPTH_U16, 5, 1}, {1920, 1080, CLC_PIXEL_GRAY8, 5, 1},
        {1920, 1080, CLC_PIXEL_DEPTH_F32, 5, 1},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (config->quick && cases[i].full_only)
            continue;
        bench_row *row = bench_rows_add(rows);
        failed |= !row || bench_median_row(ctx, config, cases[i].w, cases[i].h, cases[i].format,
                                           cases[i].ksize, row);
    }
    return failed;
}

static clc_status first_call(clc_context *ctx)
{
    enum { W = 64, H = 48 };
    static uint16_t in[W * H], out[W * H];
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    return clc_median(ctx, &desc, in, &desc, out, 5);
}

const bench_family bench_family_median = {"median", run, first_call};
