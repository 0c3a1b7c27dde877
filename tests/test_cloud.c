/* Depth to points: organized and dense match the serial reference (order included) for both
 * depth types, strides 1-4, odd sizes, colour, edge depths; overflow writes nothing; misuse is
 * refused. */
#include "fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"

#define GUARD 0xA5

static uint32_t rng = 99;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

typedef struct frame {
    clc_image_desc depth, color;
    unsigned char *depth_data, *color_data;
    size_t depth_bytes, color_bytes;
} frame;

/* A depth image with a mix of valid, zero, too-far and (for f32) NaN/Inf/negative values, and
 * a random colour image; `pad` extra bytes a row. */
static frame frame_new(clc_pixel_format format, size_t w, size_t h, size_t pad)
{
    frame f;
    const size_t bpp = clc_pixel_size(format);
    f.depth = (clc_image_desc){format, w, h, pad ? w * bpp + pad * bpp : 0};
    f.color = (clc_image_desc){CLC_PIXEL_RGB8, w, h, pad ? w * 3 + pad : 0};
    assert_int_equal(clc_image_span(&f.depth, &f.depth_bytes), CLC_SUCCESS);
    assert_int_equal(clc_image_span(&f.color, &f.color_bytes), CLC_SUCCESS);
    f.depth_data = malloc(f.depth_bytes);
    f.color_data = malloc(f.color_bytes);
    assert_non_null(f.depth_data);
    assert_non_null(f.color_data);
    for (size_t i = 0; i < f.color_bytes; ++i)
        f.color_data[i] = (unsigned char)next();
    const size_t pitch = f.depth.pitch ? f.depth.pitch : w * bpp;
    for (size_t v = 0; v < h; ++v)
        for (size_t u = 0; u < w; ++u) {
            unsigned char *p = f.depth_data + v * pitch + u * bpp;
            const uint32_t r = next() % 16;
            if (format == CLC_PIXEL_DEPTH_U16) {
                /* 0 is invalid; above 5000 is beyond a 5 m truncation. */
                uint16_t d = r < 3 ? 0 : (uint16_t)(next() % 6000);
                memcpy(p, &d, sizeof d);
            } else {
                float z = r == 0   ? NAN
                          : r == 1 ? INFINITY
                          : r == 2 ? -1.5f
                          : r == 3 ? 0.0f
                          : r == 4 ? -INFINITY
                                   : (float)(next() % 6000) / 1000.0f;
                memcpy(p, &z, sizeof z);
            }
        }
    return f;
}

static void frame_free(frame *f)
{
    free(f->depth_data);
    free(f->color_data);
}

static const clc_intrinsics K = {525.0, 523.5, 319.5, 239.5};

static clc_ref_cloud params_of(const clc_image_desc *depth, const clc_cloud_options *o)
{
    return clc__ref_cloud_params(o->depth_scale ? o->depth_scale : 1000.0,
                                 o->depth_trunc ? o->depth_trunc : 1000.0, &K,
                                 o->stride ? o->stride : 1, depth->width, depth->height, o->layout);
}

static int same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabsf(a - b) <= 1e-6f * fmaxf(1.0f, fabsf(b));
}

static void assert_same_cloud(const float *got, const float *want, const unsigned char *got_c,
                              const unsigned char *want_c, size_t n)
{
    for (size_t i = 0; i < 3 * n; ++i)
        if (!same_float(got[i], want[i]))
            fail_msg("point %zu coordinate %zu: %.9g, reference %.9g", i / 3, i % 3, (double)got[i],
                     (double)want[i]);
    if (got_c)
        for (size_t i = 0; i < 3 * n; ++i)
            if (got_c[i] != want_c[i])
                fail_msg("colour of point %zu: %u, reference %u", i / 3, got_c[i], want_c[i]);
}

/* Runs clc_depth_to_points and the reference on f; checks points, colours and guards. */
static void check(clc_context *ctx, frame *f, const clc_cloud_options *o, int with_color)
{
    const clc_ref_cloud p = params_of(&f->depth, o);
    const size_t grid = p.sw * p.sh;
    float *want = malloc(grid * 12 + 1), *got = malloc(grid * 12 + 64);
    unsigned char *want_c = malloc(grid * 3 + 1), *got_c = malloc(grid * 3 + 64);
    assert_true(want && got && want_c && got_c);
    memset(got, GUARD, grid * 12 + 64);
    memset(got_c, GUARD, grid * 3 + 64);
    const size_t n =
        clc__ref_depth_to_points(&f->depth, f->depth_data, with_color ? &f->color : NULL,
                                 with_color ? f->color_data : NULL, &p, want, want_c);
    size_t count = 12345;
    clc_status st = clc_depth_to_points(
        ctx, &f->depth, f->depth_data, with_color ? &f->color : NULL,
        with_color ? f->color_data : NULL, &K, o, got, with_color ? got_c : NULL, grid, &count);
    if (st != CLC_SUCCESS)
        fail_msg("clc_depth_to_points: %s", clc_last_error());
    assert_int_equal(count, n);
    assert_same_cloud(got, want, with_color ? got_c : NULL, want_c, n);
    /* Nothing past the last point is written. */
    const unsigned char *tail = (const unsigned char *)got + n * 12;
    for (size_t i = 0; i < (grid - n) * 12 + 64; ++i)
        assert_int_equal(tail[i], GUARD);
    if (with_color)
        for (size_t i = n * 3; i < grid * 3 + 64; ++i)
            assert_int_equal(got_c[i], GUARD);
    free(want), free(got), free(want_c), free(got_c);
}

static void matches_reference_for_types_layouts_strides_and_sizes(void **state)
{
    clc_context *ctx = *state;
    const size_t sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {64, 48}, {161, 121}};
    const clc_pixel_format formats[] = {CLC_PIXEL_DEPTH_U16, CLC_PIXEL_DEPTH_F32};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (size_t f = 0; f < 2; ++f)
            for (unsigned stride = 1; stride <= 4; ++stride)
                for (int layout = 0; layout < 2; ++layout) {
                    frame fr = frame_new(formats[f], sizes[s][0], sizes[s][1], stride % 2);
                    clc_cloud_options o = {0};
                    o.depth_trunc = 5.0;
                    o.stride = stride;
                    o.layout = (clc_cloud_layout)layout;
                    check(ctx, &fr, &o, (int)((s + stride) % 2));
                    frame_free(&fr);
                }
}

static void large_frame_matches_reference(void **state)
{
    clc_context *ctx = *state;
    frame fr = frame_new(CLC_PIXEL_DEPTH_U16, 640, 480, 0);
    clc_cloud_options o = {0};
    check(ctx, &fr, &o, 1);
    o.layout = CLC_CLOUD_ORGANIZED;
    check(ctx, &fr, &o, 0);
    frame_free(&fr);
    /* Rows longer than one round of the work-group path (6 x 256 samples). */
    fr = frame_new(CLC_PIXEL_DEPTH_U16, 3203, 5, 1);
    o.layout = CLC_CLOUD_DENSE;
    o.depth_trunc = 5.0;
    check(ctx, &fr, &o, 1);
    frame_free(&fr);
}

/* A row wider than 2^28 samples, valid only around column 2^28: the columns there are not exact
 * as floats, and each x must come from the column rounded once, as in the reference. Compared
 * bit for bit. Dense only: the organized cloud of such a row would take 3 GiB. */
static void columns_past_float_precision_round_once(void **state)
{
    clc_context *ctx = *state;
    const size_t base = (size_t)1 << 28, width = base + 64, valid = 48;
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, width, 1, 0};
    if (clc_context_device(ctx)->max_alloc_bytes < width * 2)
        skip();
    uint16_t *d = calloc(width, 2);
    float got[3 * 48 + 3], want[3 * 48 + 3];
    assert_non_null(d);
    for (size_t i = 0; i < valid; ++i)
        d[base + i] = (uint16_t)(1000 + i);
    const clc_cloud_options o = {0};
    const clc_ref_cloud p = params_of(&desc, &o);
    size_t count = 0;
    if (clc_depth_to_points(ctx, &desc, d, NULL, NULL, &K, &o, got, NULL, valid, &count) !=
        CLC_SUCCESS)
        fail_msg("clc_depth_to_points: %s", clc_last_error());
    assert_int_equal(count, valid);
    assert_int_equal(clc__ref_depth_to_points(&desc, d, NULL, NULL, &p, want, NULL), valid);
    for (size_t i = 0; i < 3 * valid; ++i)
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0)
            fail_msg("point %zu (column %zu) coordinate %zu: %.9g, reference %.9g", i / 3,
                     base + i / 3, i % 3, (double)got[i], (double)want[i]);
    free(d);
}

static void all_invalid_and_all_valid_images(void **state)
{
    clc_context *ctx = *state;
    frame fr = frame_new(CLC_PIXEL_DEPTH_U16, 50, 30, 0);
    memset(fr.depth_data, 0, fr.depth_bytes);
    float pts[50 * 30 * 3];
    size_t count = 99;
    clc_cloud_options o = {0};
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, pts,
                                         NULL, 1500, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 0);
    o.layout = CLC_CLOUD_ORGANIZED;
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, pts,
                                         NULL, 1500, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 1500);
    for (size_t i = 0; i < 4500; ++i)
        assert_true(isnan(pts[i]));
    for (size_t i = 0; i < 1500; ++i) {
        uint16_t d = (uint16_t)(1 + i);
        memcpy(fr.depth_data + 2 * i, &d, 2);
    }
    o.layout = CLC_CLOUD_DENSE;
    check(ctx, &fr, &o, 1);
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, pts,
                                         NULL, 1500, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 1500);
    frame_free(&fr);
    /* All valid, rows a multiple of 16 samples: on CPUs a tile's points (and colours) are written
     * in whole blocks of 16 while more than 16 of its slots are left, each store one value long
     * (the next slot's first); a block allowed one slot later would put that value on the next
     * tile's first point (written by another thread, before or after) or past the last point
     * (the guard). Repeated, with and without colour, as the order of tiles on threads varies. */
    fr = frame_new(CLC_PIXEL_DEPTH_U16, 64, 96, 0);
    for (size_t i = 0; i < 64 * 96; ++i) {
        const uint16_t d = (uint16_t)(500 + i % 4000);
        memcpy(fr.depth_data + 2 * i, &d, 2);
    }
    for (int layout = 0; layout < 2; ++layout)
        for (int r = 0; r < 8; ++r) {
            o.layout = (clc_cloud_layout)layout;
            check(ctx, &fr, &o, r % 2);
        }
    frame_free(&fr);
}

static void truncation_edge_is_invalid_and_scale_applies(void **state)
{
    clc_context *ctx = *state;
    /* raw 3000 at 1000 units per metre is exactly the 3 m truncation: invalid, as in Open3D. */
    const uint16_t raw[4] = {2999, 3000, 3001, 1};
    clc_image_desc d = {CLC_PIXEL_DEPTH_U16, 4, 1, 0};
    clc_cloud_options o = {0};
    o.depth_trunc = 3.0;
    float pts[12];
    size_t count = 0;
    assert_int_equal(clc_depth_to_points(ctx, &d, raw, NULL, NULL, &K, &o, pts, NULL, 4, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 2);
    assert_true(same_float(pts[2], 2.999f));
    assert_true(same_float(pts[5], 0.001f));
    /* A truncation float cannot hold (0.7): Open3D compares the float depth with the double
     * trunc, so raw 700 (the float 0.69999999) is kept, and so is that float as metres; the
     * next float up (0.70000005) is not. */
    const uint16_t raw7[3] = {699, 700, 701};
    clc_image_desc d3 = {CLC_PIXEL_DEPTH_U16, 3, 1, 0};
    o.depth_trunc = 0.7;
    assert_int_equal(clc_depth_to_points(ctx, &d3, raw7, NULL, NULL, &K, &o, pts, NULL, 4, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 2);
    assert_true(same_float(pts[5], 0.7f));
    const float z7[3] = {0.7f, 0.700000048f, 0.69f};
    clc_image_desc d3f = {CLC_PIXEL_DEPTH_F32, 3, 1, 0};
    assert_int_equal(clc_depth_to_points(ctx, &d3f, z7, NULL, NULL, &K, &o, pts, NULL, 4, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 2);
    assert_true(pts[2] == 0.7f && pts[5] == 0.69f);
    o.depth_trunc = 3.0;
    /* depth_scale 5000 (TUM datasets): raw 3000 is 0.6 m. */
    o.depth_scale = 5000.0;
    assert_int_equal(clc_depth_to_points(ctx, &d, raw, NULL, NULL, &K, &o, pts, NULL, 4, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 4);
    assert_true(same_float(pts[5], 0.6f));
    /* Float depth is metres and ignores depth_scale; NaN, infinities, 0 and negatives are
     * invalid; trunc may be +infinity. */
    const float z[6] = {NAN, INFINITY, -INFINITY, 0.0f, -2.0f, 1e30f};
    clc_image_desc df = {CLC_PIXEL_DEPTH_F32, 6, 1, 0};
    o.depth_trunc = INFINITY;
    float out[18];
    assert_int_equal(clc_depth_to_points(ctx, &df, z, NULL, NULL, &K, &o, out, NULL, 6, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, 1);
    assert_true(out[2] == 1e30f);
    /* x, y follow the pinhole model. */
    const float one[1] = {2.0f};
    clc_image_desc d1 = {CLC_PIXEL_DEPTH_F32, 1, 1, 0};
    assert_int_equal(clc_depth_to_points(ctx, &d1, one, NULL, NULL, &K, NULL, out, NULL, 1, &count),
                     CLC_SUCCESS);
    assert_true(same_float(out[0], (0.0f - 319.5f) * 2.0f / 525.0f));
    assert_true(same_float(out[1], (0.0f - 239.5f) * 2.0f / 523.5f));
}

/* The truncation edge (raw 2999, 3000, 3001 at a 3 m truncation), 0 and 65535 in every lane of
 * the count's loads: rows of 64 samples (every run of a tile on a 16-byte boundary: the GPU count
 * reads a uint4 of 8 samples) and of 37 (runs at any 2-byte offset: vload8), with the pattern
 * shifted by a row so that each value meets each lane. */
static void truncation_edge_in_every_lane(void **state)
{
    clc_context *ctx = *state;
    static const uint16_t values[] = {0, 1, 2999, 3000, 3001, 65535, 3000, 2999, 1500};
    const size_t nv = sizeof values / sizeof values[0];
    const size_t widths[] = {64, 37};
    for (size_t w = 0; w < 2; ++w) {
        frame fr = frame_new(CLC_PIXEL_DEPTH_U16, widths[w], 96, 0);
        uint16_t *d = (uint16_t *)(void *)fr.depth_data;
        for (size_t v = 0; v < 96; ++v)
            for (size_t u = 0; u < widths[w]; ++u)
                d[v * widths[w] + u] = values[(u + v) % nv];
        clc_cloud_options o = {0};
        o.depth_trunc = 3.0;
        check(ctx, &fr, &o, (int)w);
        frame_free(&fr);
    }
}

static void too_small_capacity_writes_nothing_and_reports_the_count(void **state)
{
    clc_context *ctx = *state;
    frame fr = frame_new(CLC_PIXEL_DEPTH_U16, 40, 20, 0);
    clc_cloud_options o = {0};
    o.depth_trunc = 5.0;
    const clc_ref_cloud p = params_of(&fr.depth, &o);
    float *want = malloc(800 * 12);
    assert_non_null(want);
    const size_t n = clc__ref_depth_to_points(&fr.depth, fr.depth_data, NULL, NULL, &p, want, NULL);
    assert_true(n > 10 && n < 800);
    float pts[800 * 3];
    unsigned char cols[800 * 3];
    memset(pts, GUARD, sizeof pts);
    memset(cols, GUARD, sizeof cols);
    size_t count = 0;
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, &fr.color, fr.color_data,
                                         &K, &o, pts, cols, n - 1, &count),
                     CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(count, n);
    for (size_t i = 0; i < sizeof pts; ++i)
        assert_int_equal(((unsigned char *)pts)[i], GUARD);
    for (size_t i = 0; i < sizeof cols; ++i)
        assert_int_equal(cols[i], GUARD);
    /* Capacity 0 asks for the count. */
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, NULL,
                                         NULL, 0, &count),
                     CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(count, n);
    /* Exactly n fits. */
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, pts,
                                         NULL, n, &count),
                     CLC_SUCCESS);
    assert_int_equal(count, n);
    assert_same_cloud(pts, want, NULL, NULL, n);
    assert_int_equal(((unsigned char *)pts)[n * 12], GUARD);
    /* Organized needs every sample. */
    o.layout = CLC_CLOUD_ORGANIZED;
    assert_int_equal(clc_depth_to_points(ctx, &fr.depth, fr.depth_data, NULL, NULL, &K, &o, pts,
                                         NULL, 799, &count),
                     CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(count, 800);
    free(want);
    frame_free(&fr);
}

static cl_mem device_copy(clc_context *ctx, const void *data, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(clc_context_cl_context(ctx),
                              CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)(uintptr_t)data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

static void device_buffers_match_reference(void **state)
{
    clc_context *ctx = *state;
    for (int layout = 0; layout < 2; ++layout)
        for (unsigned stride = 1; stride <= 3; stride += 2) {
            frame fr = frame_new(CLC_PIXEL_DEPTH_U16, 97, 61, 1);
            clc_cloud_options o = {0};
            o.depth_trunc = 5.0;
            o.stride = stride;
            o.layout = (clc_cloud_layout)layout;
            const clc_ref_cloud p = params_of(&fr.depth, &o);
            const size_t grid = p.sw * p.sh;
            float *want = malloc(grid * 12);
            unsigned char *want_c = malloc(grid * 3);
            const size_t n = clc__ref_depth_to_points(&fr.depth, fr.depth_data, &fr.color,
                                                      fr.color_data, &p, want, want_c);
            /* Inputs at offsets inside larger buffers. */
            unsigned char *dblock = malloc(fr.depth_bytes + 6),
                          *cblock = malloc(fr.color_bytes + 5);
            memcpy(dblock + 6, fr.depth_data, fr.depth_bytes);
            memcpy(cblock + 5, fr.color_data, fr.color_bytes);
            cl_mem depth = device_copy(ctx, dblock, fr.depth_bytes + 6);
            cl_mem color = device_copy(ctx, cblock, fr.color_bytes + 5);
            cl_mem points = device_copy(ctx, NULL, grid * 12);
            cl_mem colors = device_copy(ctx, NULL, grid * 3);
            cl_mem count = device_copy(ctx, NULL, sizeof(cl_uint));
            size_t got_grid = 0;
            assert_int_equal(clc_cloud_grid_size(&fr.depth, &o, &got_grid), CLC_SUCCESS);
            assert_int_equal(got_grid, grid);
            cl_event done = NULL;
            clc_status st =
                clc_depth_to_points_enqueue(ctx, &fr.depth, depth, 6, &fr.color, color, 5, &K, &o,
                                            points, colors, count, 0, NULL, &done);
            if (st != CLC_SUCCESS)
                fail_msg("enqueue: %s", clc_last_error());
            assert_non_null(done);
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            cl_command_queue q = clc_context_cl_queue(ctx);
            cl_uint n_dev = 0;
            if (layout == CLC_CLOUD_DENSE) {
                assert_int_equal(
                    clEnqueueReadBuffer(q, count, CL_TRUE, 0, sizeof n_dev, &n_dev, 0, NULL, NULL),
                    CL_SUCCESS);
                assert_int_equal(n_dev, n);
            }
            float *got = malloc(grid * 12);
            unsigned char *got_c = malloc(grid * 3);
            assert_int_equal(
                clEnqueueReadBuffer(q, points, CL_TRUE, 0, grid * 12, got, 0, NULL, NULL),
                CL_SUCCESS);
            assert_int_equal(
                clEnqueueReadBuffer(q, colors, CL_TRUE, 0, grid * 3, got_c, 0, NULL, NULL),
                CL_SUCCESS);
            assert_same_cloud(got, want, got_c, want_c, n);
            clReleaseMemObject(depth), clReleaseMemObject(color), clReleaseMemObject(points);
            clReleaseMemObject(colors), clReleaseMemObject(count);
            free(want), free(want_c), free(got), free(got_c), free(dblock), free(cblock);
            frame_free(&fr);
        }
}

/* One frame of a many-frames call (its points and colours from the start of its slots, `count`
 * points) against a single call on `fr`: the same count, points and colours, and past the count
 * the slots still hold 0xA5 (the many-frames tests fill them with it). Returns the count. */
static size_t assert_frame_as_single(clc_context *ctx, const frame *fr, const clc_cloud_options *o,
                                     size_t grid, const float *pts, const unsigned char *cols,
                                     size_t count)
{
    float *want = malloc(grid * 12);
    unsigned char *want_c = malloc(grid * 3);
    assert_true(want && want_c);
    size_t n = 0;
    assert_int_equal(clc_depth_to_points(ctx, &fr->depth, fr->depth_data, &fr->color,
                                         fr->color_data, &K, o, want, want_c, grid, &n),
                     CLC_SUCCESS);
    assert_int_equal(count, n);
    assert_memory_equal(pts, want, n * 12);
    assert_memory_equal(cols, want_c, n * 3);
    for (size_t b = n * 12; b < grid * 12; ++b)
        assert_int_equal(((const unsigned char *)pts)[b], 0xA5);
    for (size_t b = n * 3; b < grid * 3; ++b)
        assert_int_equal(cols[b], 0xA5);
    free(want), free(want_c);
    return n;
}

/* Many frames in one call: frame f is exactly what a single call gives for it (points, order,
 * colours, count), for both layouts and depth types, with a stride, an empty frame among them,
 * and frames further apart than their span; a dense frame's slots past its count are untouched. */
static void many_frames_equal_single_calls(void **state)
{
    clc_context *ctx = *state;
    enum { FRAMES = 5, W = 53, H = 31, GAP = 24 };
    for (int fmt = 0; fmt < 2; ++fmt) {
        const clc_pixel_format format = fmt ? CLC_PIXEL_DEPTH_F32 : CLC_PIXEL_DEPTH_U16;
        frame one[FRAMES];
        for (int f = 0; f < FRAMES; ++f)
            one[f] = frame_new(format, W, H, 0);
        /* no valid point at all, in the first frame (the read-back starts further on) and in
         * one between */
        memset(one[0].depth_data, 0, one[0].depth_bytes);
        memset(one[2].depth_data, 0, one[2].depth_bytes);
        const size_t dstep = one[0].depth_bytes + GAP, cstep = one[0].color_bytes + GAP;
        unsigned char *depth = malloc(FRAMES * dstep), *color = malloc(FRAMES * cstep);
        assert_true(depth && color);
        for (int f = 0; f < FRAMES; ++f) {
            memcpy(depth + f * dstep, one[f].depth_data, one[f].depth_bytes);
            memcpy(color + f * cstep, one[f].color_data, one[f].color_bytes);
        }
        for (int layout = 0; layout < 2; ++layout)
            for (unsigned stride = 1; stride <= 2; ++stride) {
                clc_cloud_options o = {0};
                o.depth_trunc = 5.0, o.stride = stride, o.layout = (clc_cloud_layout)layout;
                size_t grid = 0;
                assert_int_equal(clc_cloud_grid_size(&one[0].depth, &o, &grid), CLC_SUCCESS);
                float *pts = malloc(FRAMES * grid * 12), *want = malloc(grid * 12);
                unsigned char *cols = malloc(FRAMES * grid * 3), *want_c = malloc(grid * 3);
                assert_true(pts && want && cols && want_c);
                /* Past its count a dense frame's slots are left as they were. */
                memset(pts, 0xA5, FRAMES * grid * 12);
                memset(cols, 0xA5, FRAMES * grid * 3);
                size_t counts[FRAMES];
                if (clc_depth_to_points_many(ctx, FRAMES, &one[0].depth, depth, dstep,
                                             &one[0].color, color, cstep, &K, &o, pts, cols,
                                             counts) != CLC_SUCCESS)
                    fail_msg("clc_depth_to_points_many: %s", clc_last_error());
                for (int f = 0; f < FRAMES; ++f) {
                    const size_t n = assert_frame_as_single(
                        ctx, &one[f], &o, grid, pts + f * grid * 3, cols + f * grid * 3, counts[f]);
                    if ((f == 0 || f == 2) && layout == CLC_CLOUD_DENSE)
                        assert_int_equal(n, 0);
                }
                /* Packed frames (step 0) and no colour. */
                unsigned char *packed = malloc(FRAMES * one[0].depth_bytes);
                assert_non_null(packed);
                for (int f = 0; f < FRAMES; ++f)
                    memcpy(packed + f * one[0].depth_bytes, one[f].depth_data, one[f].depth_bytes);
                assert_int_equal(clc_depth_to_points_many(ctx, FRAMES, &one[0].depth, packed, 0,
                                                          NULL, NULL, 0, &K, &o, pts, NULL, counts),
                                 CLC_SUCCESS);
                size_t n = 0;
                assert_int_equal(clc_depth_to_points(ctx, &one[4].depth, one[4].depth_data, NULL,
                                                     NULL, &K, &o, want, NULL, grid, &n),
                                 CLC_SUCCESS);
                assert_int_equal(counts[4], n);
                assert_memory_equal(pts + 4 * grid * 3, want, n * 12);
                free(packed);
                free(pts), free(want), free(cols), free(want_c);
            }
        free(depth), free(color);
        for (int f = 0; f < FRAMES; ++f)
            frame_free(&one[f]);
    }
}

/* Many frames from and into clc_host_alloc memory, which devices with their own memory read and
 * write without staging (a read a frame, not waited for one by one): each frame as a single call
 * gives it, the slots past its count untouched, the last frame empty. */
static void many_frames_in_pinned_memory(void **state)
{
    clc_context *ctx = *state;
    enum { FRAMES = 4, W = 45, H = 23 };
    frame one[FRAMES];
    for (int f = 0; f < FRAMES; ++f)
        one[f] = frame_new(CLC_PIXEL_DEPTH_U16, W, H, 0);
    memset(one[FRAMES - 1].depth_data, 0, one[FRAMES - 1].depth_bytes); /* the last one empty */
    const size_t span = one[0].depth_bytes, grid = W * H;
    unsigned char *depth = NULL, *colors = NULL;
    float *points = NULL;
    assert_int_equal(clc_host_alloc(ctx, FRAMES * span, (void **)&depth), CLC_SUCCESS);
    assert_int_equal(clc_host_alloc(ctx, FRAMES * grid * 12, (void **)&points), CLC_SUCCESS);
    assert_int_equal(clc_host_alloc(ctx, FRAMES * grid * 3, (void **)&colors), CLC_SUCCESS);
    unsigned char *color = malloc(FRAMES * one[0].color_bytes);
    assert_non_null(color);
    for (int f = 0; f < FRAMES; ++f) {
        memcpy(depth + f * span, one[f].depth_data, span);
        memcpy(color + f * one[0].color_bytes, one[f].color_data, one[0].color_bytes);
    }
    memset(points, 0xA5, FRAMES * grid * 12);
    memset(colors, 0xA5, FRAMES * grid * 3);
    clc_cloud_options o = {0};
    o.depth_trunc = 5.0;
    size_t counts[FRAMES];
    if (clc_depth_to_points_many(ctx, FRAMES, &one[0].depth, depth, 0, &one[0].color, color, 0, &K,
                                 &o, points, colors, counts) != CLC_SUCCESS)
        fail_msg("clc_depth_to_points_many: %s", clc_last_error());
    for (int f = 0; f < FRAMES; ++f) {
        const size_t n = assert_frame_as_single(ctx, &one[f], &o, grid, points + f * grid * 3,
                                                colors + f * grid * 3, counts[f]);
        assert_true(f == FRAMES - 1 ? n == 0 : n > 0 && n < grid);
    }
    clc_host_free(ctx, depth), clc_host_free(ctx, points), clc_host_free(ctx, colors);
    free(color);
    for (int f = 0; f < FRAMES; ++f)
        frame_free(&one[f]);
}

/* The enqueue form on device buffers: counts land in the count buffer, frame by frame; misuse
 * is refused before anything is enqueued. */
static void many_frames_on_device_buffers(void **state)
{
    clc_context *ctx = *state;
    enum { FRAMES = 3, W = 40, H = 20 };
    frame one[FRAMES];
    for (int f = 0; f < FRAMES; ++f)
        one[f] = frame_new(CLC_PIXEL_DEPTH_U16, W, H, 0);
    const size_t span = one[0].depth_bytes, grid = W * H;
    unsigned char *depth = malloc(FRAMES * span + 8);
    assert_non_null(depth);
    for (int f = 0; f < FRAMES; ++f)
        memcpy(depth + 8 + f * span, one[f].depth_data, span);
    cl_context cl = clc_context_cl_context(ctx);
    cl_int err = CL_SUCCESS;
    cl_mem din =
        clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, FRAMES * span + 8, depth, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem pout = clCreateBuffer(cl, CL_MEM_READ_WRITE, FRAMES * grid * 12, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, FRAMES * sizeof(cl_uint), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clc_cloud_options o = {0};
    o.depth_trunc = 5.0;
    cl_event done = NULL;
    if (clc_depth_to_points_many_enqueue(ctx, FRAMES, &one[0].depth, din, 8, 0, NULL, NULL, 0, 0,
                                         &K, &o, pout, NULL, cnt, 0, NULL, &done) != CLC_SUCCESS)
        fail_msg("many_enqueue: %s", clc_last_error());
    assert_non_null(done);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    cl_uint counts[FRAMES];
    float *pts = malloc(FRAMES * grid * 12), *want = malloc(grid * 12);
    assert_true(pts && want);
    cl_command_queue q = clc_context_cl_queue(ctx);
    assert_int_equal(clEnqueueReadBuffer(q, cnt, CL_TRUE, 0, sizeof counts, counts, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(
        clEnqueueReadBuffer(q, pout, CL_TRUE, 0, FRAMES * grid * 12, pts, 0, NULL, NULL),
        CL_SUCCESS);
    for (int f = 0; f < FRAMES; ++f) {
        size_t n = 0;
        assert_int_equal(clc_depth_to_points(ctx, &one[f].depth, one[f].depth_data, NULL, NULL, &K,
                                             &o, want, NULL, grid, &n),
                         CLC_SUCCESS);
        assert_int_equal(counts[f], n);
        assert_memory_equal(pts + f * grid * 3, want, n * 12);
    }
    /* Refused: no frames, frames that overlap, buffers too small for the set, no counts. */
    assert_int_equal(clc_depth_to_points_many_enqueue(ctx, 0, &one[0].depth, din, 0, 0, NULL, NULL,
                                                      0, 0, &K, &o, pout, NULL, cnt, 0, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_depth_to_points_many_enqueue(ctx, FRAMES, &one[0].depth, din, 0, span - 2,
                                                      NULL, NULL, 0, 0, &K, &o, pout, NULL, cnt, 0,
                                                      NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_depth_to_points_many_enqueue(ctx, FRAMES + 1, &one[0].depth, din, 0, 0,
                                                      NULL, NULL, 0, 0, &K, &o, pout, NULL, cnt, 0,
                                                      NULL, NULL),
                     CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(clc_depth_to_points_many_enqueue(ctx, FRAMES, &one[0].depth, din, 0, 0, NULL,
                                                      NULL, 0, 0, &K, &o, pout, NULL, NULL, 0, NULL,
                                                      NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    size_t counts_host[FRAMES];
    assert_int_equal(clc_depth_to_points_many(ctx, FRAMES, &one[0].depth, NULL, 0, NULL, NULL, 0,
                                              &K, &o, pts, NULL, counts_host),
                     CLC_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(din), clReleaseMemObject(pout), clReleaseMemObject(cnt);
    free(depth), free(pts), free(want);
    for (int f = 0; f < FRAMES; ++f)
        frame_free(&one[f]);
}

static void misuse_is_refused(void **state)
{
    clc_context *ctx = *state;
    uint16_t d[4] = {1000, 1000, 1000, 1000};
    float pts[12];
    unsigned char rgb[12];
    size_t count = 0;
    clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, 2, 2, 0};
    clc_image_desc color = {CLC_PIXEL_RGB8, 2, 2, 0};
    clc_cloud_options o = {0};
    clc_intrinsics k = K;

#define REFUSED(expected, call)                                                                    \
    do {                                                                                           \
        assert_int_equal((call), (expected));                                                      \
        assert_true(strlen(clc_last_error()) > 0);                                                 \
    } while (0)
#define CALL(ctxp, dp, cp, cdata, kp, op, out, cols, cap)                                          \
    clc_depth_to_points(ctxp, dp, d, cp, cdata, kp, op, out, cols, cap, &count)

    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(NULL, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points(ctx, &depth, d, NULL, NULL, &k, &o, pts, NULL, 4, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points(ctx, &depth, NULL, NULL, NULL, &k, &o, pts, NULL, 4, &count));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, NULL, NULL, NULL, &k, &o, pts, NULL, 4));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, NULL, &o, pts, NULL, 4));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, NULL, NULL, 4));
    clc_image_desc bad = depth;
    bad.format = CLC_PIXEL_GRAY8;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &bad, NULL, NULL, &k, &o, pts, NULL, 4));
    bad = depth, bad.pitch = 5; /* odd: not a multiple of 2 */
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &bad, NULL, NULL, &k, &o, pts, NULL, 4));
    bad = depth, bad.width = 0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &bad, NULL, NULL, &k, &o, pts, NULL, 4));
    bad = depth, bad.width = SIZE_MAX / 2, bad.height = 3;
    REFUSED(CLC_ERROR_SIZE_OVERFLOW, CALL(ctx, &bad, NULL, NULL, &k, &o, pts, NULL, 4));
    /* 1e-40's reciprocal overflows a float (every coordinate infinite), 1e46's is 0. */
    const double bad_focal[] = {0.0, NAN, INFINITY, -INFINITY, 1e-40, -1e-40, 1e46};
    for (size_t i = 0; i < sizeof bad_focal / sizeof bad_focal[0]; ++i) {
        k = K, k.fx = bad_focal[i];
        REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
        k = K, k.fy = bad_focal[i];
        REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    }
    k = K, k.cx = NAN;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    k = K;
    o.depth_scale = -1.0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.depth_scale = NAN;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.depth_scale = 1e-40;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.depth_scale = 0;
    k = K, k.cx = 1e300;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    k = K;
    o.depth_scale = 0, o.depth_trunc = -1.0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.depth_trunc = NAN;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.depth_trunc = 0, o.layout = (clc_cloud_layout)7;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4));
    o.layout = CLC_CLOUD_DENSE;
    /* Colour: wrong size, wrong format, missing pieces. */
    clc_image_desc c2 = color;
    c2.width = 3;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, &c2, rgb, &k, &o, pts, rgb, 4));
    c2 = color, c2.format = CLC_PIXEL_BGRA8;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, &c2, rgb, &k, &o, pts, rgb, 4));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, &color, NULL, &k, &o, pts, rgb, 4));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, CALL(ctx, &depth, &color, rgb, &k, &o, pts, NULL, 4));
    /* Nothing was written by any of these. */
    assert_int_equal(CALL(ctx, &depth, NULL, NULL, &k, &o, pts, NULL, 4), CLC_SUCCESS);
    assert_int_equal(count, 4);

    /* Device-buffer form. */
    cl_mem db = device_copy(ctx, d, sizeof d), pb = device_copy(ctx, NULL, 48);
    cl_mem cb = device_copy(ctx, NULL, 4);
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points_enqueue(ctx, &depth, db, 0, NULL, NULL, 0, &k, &o, pb, NULL, NULL,
                                        0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points_enqueue(ctx, &depth, db, 1, NULL, NULL, 0, &k, &o, pb, NULL, cb, 0,
                                        NULL, NULL));
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_depth_to_points_enqueue(ctx, &depth, db, 2, NULL, NULL, 0, &k, &o, pb, NULL, cb, 0,
                                        NULL, NULL));
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_depth_to_points_enqueue(ctx, &depth, db, 0, NULL, NULL, 0, &k, &o, cb, NULL, cb, 0,
                                        NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points_enqueue(ctx, &depth, db, 0, &color, NULL, 0, &k, &o, pb, NULL, cb,
                                        0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_depth_to_points_enqueue(ctx, &depth, db, 0, NULL, NULL, 0, &k, &o, pb, NULL, cb, 1,
                                        NULL, NULL));
    clReleaseMemObject(db), clReleaseMemObject(pb), clReleaseMemObject(cb);
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_cloud_grid_size(&depth, &o, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(matches_reference_for_types_layouts_strides_and_sizes),
        FIXTURE_TEST(large_frame_matches_reference),
        FIXTURE_TEST(columns_past_float_precision_round_once),
        FIXTURE_TEST(all_invalid_and_all_valid_images),
        FIXTURE_TEST(truncation_edge_is_invalid_and_scale_applies),
        FIXTURE_TEST(truncation_edge_in_every_lane),
        FIXTURE_TEST(too_small_capacity_writes_nothing_and_reports_the_count),
        FIXTURE_TEST(device_buffers_match_reference),
        FIXTURE_TEST(many_frames_equal_single_calls),
        FIXTURE_TEST(many_frames_in_pinned_memory),
        FIXTURE_TEST(many_frames_on_device_buffers),
        FIXTURE_TEST(misuse_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
