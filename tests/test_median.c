/* Median filter: equal to the reference for every format, window, size from 1 x 1 and pitch;
 * OpenCV's known values; NaN ordered last; untouched padding and guards; the enqueue form at
 * offsets after an event; every misuse refused with nothing written. */
#include "fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/median.h"

#define GUARD FIXTURE_GUARD

static const clc_pixel_format formats[] = {CLC_PIXEL_GRAY8, CLC_PIXEL_DEPTH_U16, CLC_PIXEL_GRAY_F32,
                                           CLC_PIXEL_DEPTH_F32};

static uint32_t rng = 7;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

/* Values with many ties (depth images have runs of equal values and zeros), and for floats some
 * NaN and infinities; never -0.0, which the kernel orders before +0.0 but the reference, comparing
 * values, holds equal to it. */
static void fill(fixture_image *im, int with_nan)
{
    const size_t bpp = clc_pixel_size(im->desc.format);
    const size_t pitch = im->desc.pitch ? im->desc.pitch : im->desc.width * bpp;
    for (size_t y = 0; y < im->desc.height; ++y)
        for (size_t x = 0; x < im->desc.width; ++x) {
            uint8_t *p = im->data + y * pitch + x * bpp;
            const uint32_t r = next();
            if (im->desc.format == CLC_PIXEL_GRAY8) {
                *p = (uint8_t)r;
            } else if (im->desc.format == CLC_PIXEL_DEPTH_U16) {
                const uint16_t v = r % 5 == 0 ? 0 : (uint16_t)(400 + r % 40 * 97);
                memcpy(p, &v, 2);
            } else {
                float v = (float)(r % 2000) * 0.37f - 300.0f;
                if (with_nan && r % 11 == 0)
                    v = NAN;
                else if (with_nan && r % 37 == 0)
                    v = r & 256 ? INFINITY : -INFINITY;
                memcpy(p, &v, 4);
            }
        }
}

/* Pixels equal to the reference: bytes for integers, value (or both NaN) for floats; the pitch
 * padding of dst untouched. */
static void assert_matches(const fixture_image *got, const fixture_image *want)
{
    const size_t bpp = clc_pixel_size(got->desc.format), w = got->desc.width;
    const size_t pitch = got->desc.pitch ? got->desc.pitch : w * bpp;
    for (size_t y = 0; y < got->desc.height; ++y) {
        const uint8_t *g = got->data + y * pitch, *r = want->data + y * pitch;
        if (bpp == 4) {
            for (size_t x = 0; x < w; ++x) {
                float a, b;
                memcpy(&a, g + 4 * x, 4), memcpy(&b, r + 4 * x, 4);
                if (!((isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0))
                    fail_msg("pixel (%zu, %zu): %g, reference %g", x, y, (double)a, (double)b);
            }
        } else if (memcmp(g, r, w * bpp) != 0) {
            fail_msg("row %zu of %zu x %zu differs", y, w, got->desc.height);
        }
        for (size_t i = w * bpp; i < pitch && y + 1 < got->desc.height; ++i)
            assert_int_equal(g[i], GUARD);
    }
    fixture_assert_guards(got);
}

static void equals_reference_everywhere(void **state)
{
    clc_context *ctx = *state;
    static const size_t sizes[][2] = {{1, 1}, {1, 9}, {13, 1}, {2, 2}, {5, 5}, {37, 23}, {64, 17}};
    for (size_t f = 0; f < 4; ++f)
        for (unsigned k = 3; k <= 5; k += 2)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
                for (size_t extra = 0; extra <= 8; extra += 8) {
                    const size_t w = sizes[s][0], h = sizes[s][1];
                    fixture_image src = fixture_image_new(formats[f], w, h, extra);
                    fixture_image dst = fixture_image_new(formats[f], w, h, extra);
                    fixture_image ref = fixture_image_new(formats[f], w, h, extra);
                    fill(&src, 1);
                    clc__ref_median(&src.desc, src.data, &ref.desc, ref.data, k);
                    if (clc_median(ctx, &src.desc, src.data, &dst.desc, dst.data, k) != CLC_SUCCESS)
                        fail_msg("%s", clc_last_error());
                    assert_matches(&dst, &ref);
                    fixture_assert_guards(&src);
                    fixture_image_free(&src), fixture_image_free(&dst), fixture_image_free(&ref);
                }
}

/* Values worked out by hand and by cv2.medianBlur (OpenCV 4.6) on the same arrays. */
static void known_values(void **state)
{
    clc_context *ctx = *state;
    /* 3x3 of a 4x3 u8 image: border replicated. cv2.medianBlur(np.array([[1,9,2,8],[7,3,6,4],
     * [5,0,5,0]], np.uint8), 3) */
    const uint8_t in[12] = {1, 9, 2, 8, 7, 3, 6, 4, 5, 0, 5, 0};
    const uint8_t want[12] = {3, 3, 6, 6, 5, 5, 4, 4, 5, 5, 3, 4};
    uint8_t out[12];
    const clc_image_desc d8 = {CLC_PIXEL_GRAY8, 4, 3, 0};
    assert_int_equal(clc_median(ctx, &d8, in, &d8, out, 3), CLC_SUCCESS);
    assert_memory_equal(out, want, 12);
    /* A speckle: one zero ("no reading") in a flat depth patch disappears; a 1-pixel image is
     * itself. */
    uint16_t depth[25], clean[25];
    for (int i = 0; i < 25; ++i)
        depth[i] = 1500;
    depth[12] = 0;
    const clc_image_desc d16 = {CLC_PIXEL_DEPTH_U16, 5, 5, 0};
    assert_int_equal(clc_median(ctx, &d16, depth, &d16, clean, 5), CLC_SUCCESS);
    for (int i = 0; i < 25; ++i)
        assert_int_equal(clean[i], 1500);
    /* NaN sorts last: a window of five NaN and four numbers has a NaN median, of four NaN and
     * five numbers the largest number. */
    float f[9] = {NAN, NAN, NAN, NAN, NAN, 1, 2, 3, 4}, g[9];
    const clc_image_desc square = {CLC_PIXEL_DEPTH_F32, 3, 3, 0};
    assert_int_equal(clc_median(ctx, &square, f, &square, g, 3), CLC_SUCCESS);
    assert_true(isnan(g[4]));
    f[4] = 5;
    assert_int_equal(clc_median(ctx, &square, f, &square, g, 3), CLC_SUCCESS);
    /* Centre window of the replicated 3x3: rows {N,N,N},{N,5,1},{2,3,4}: 4 NaN, 5 numbers. */
    assert_true(g[4] == 5.0f);
}

/* The enqueue form on device buffers at offsets, after a user event, with the event out. */
static void enqueue_on_buffers(void **state)
{
    clc_context *ctx = *state;
    enum { W = 33, H = 19, OFF = 64 };
    fixture_image src = fixture_image_new(CLC_PIXEL_DEPTH_U16, W, H, 6);
    fixture_image ref = fixture_image_new(CLC_PIXEL_DEPTH_U16, W, H, 6);
    fill(&src, 0);
    clc__ref_median(&src.desc, src.data, &ref.desc, ref.data, 5);
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    cl_int err = CL_SUCCESS;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE, OFF + src.span, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, OFF + src.span, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueWriteBuffer(q, in, CL_TRUE, OFF, src.span, src.data, 0, NULL, NULL),
                     CL_SUCCESS);
    cl_event gate = clCreateUserEvent(cl, &err), done = NULL;
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(
        clc_median_enqueue(ctx, &src.desc, in, OFF, &src.desc, out, OFF, 5, 1, &gate, &done),
        CLC_SUCCESS);
    assert_non_null(done);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    fixture_image got = fixture_image_new(CLC_PIXEL_DEPTH_U16, W, H, 6);
    memcpy(got.data, src.data, src.span); /* padding as the source's: GUARD */
    const size_t row = W * 2, origin[3] = {0, 0, 0}, region[3] = {row, H, 1};
    const size_t at[3] = {OFF, 0, 0};
    assert_int_equal(clEnqueueReadBufferRect(q, out, CL_TRUE, at, origin, region, src.desc.pitch, 0,
                                             src.desc.pitch, 0, got.data, 1, &done, NULL),
                     CL_SUCCESS);
    assert_matches(&got, &ref);
    /* One buffer, source and destination apart: allowed; overlapping: refused. */
    assert_int_equal(clc_median_enqueue(ctx, &src.desc, in, 0, &src.desc, in, 0, 3, 0, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    clReleaseEvent(done), clReleaseEvent(gate);
    clReleaseMemObject(in), clReleaseMemObject(out);
    fixture_image_free(&src), fixture_image_free(&ref), fixture_image_free(&got);
}

static void misuse_is_refused_and_nothing_written(void **state)
{
    clc_context *ctx = *state;
    uint16_t in[64] = {1}, out[64];
    memset(out, GUARD, sizeof out);
    const clc_image_desc d = {CLC_PIXEL_DEPTH_U16, 8, 8, 0};
    const clc_image_desc d8 = {CLC_PIXEL_GRAY8, 8, 8, 0};
    const clc_image_desc rgb = {CLC_PIXEL_RGB8, 8, 8, 0};
    const clc_image_desc small = {CLC_PIXEL_DEPTH_U16, 8, 7, 0};
    const clc_image_desc odd_pitch = {CLC_PIXEL_DEPTH_U16, 7, 8, 15};
    struct {
        const clc_image_desc *src, *dst;
        const void *in;
        void *out;
        unsigned k;
        const char *says;
    } cases[] = {
        {&d, &d, in, out, 4, "window size 4"},
        {&d, &d, in, out, 7, "window size 7"},
        {&d, &d, in, out, 0, "window size 0"},
        {&d, &d8, in, out, 3, "differs from the source"},
        {&d, &small, in, out, 3, "differs from the source"},
        {&rgb, &rgb, in, out, 3, "is not GRAY8"},
        {&odd_pitch, &odd_pitch, in, out, 3, "multiples of the pixel"},
        {NULL, &d, in, out, 3, "NULL"},
        {&d, &d, NULL, out, 3, "NULL"},
        {&d, &d, in, in, 3, "overlap"},
        {&d, &d, in, (uint8_t *)in + 2, 3, "overlap"},
        {&d, &d, (uint8_t *)in + 1, out, 3, "not aligned"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        assert_int_equal(
            clc_median(ctx, cases[i].src, cases[i].in, cases[i].dst, cases[i].out, cases[i].k),
            CLC_ERROR_INVALID_ARGUMENT);
        if (!strstr(clc_last_error(), cases[i].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, clc_last_error(), cases[i].says);
        for (size_t b = 0; b < sizeof out; ++b)
            assert_int_equal(((uint8_t *)out)[b], GUARD);
    }
    assert_int_equal(clc_median(NULL, &d, in, &d, out, 3), CLC_ERROR_INVALID_ARGUMENT);
    cl_event e = (cl_event)(uintptr_t)1;
    assert_int_equal(clc_median_enqueue(ctx, &d, NULL, 0, &d, NULL, 0, 3, 0, NULL, &e),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_null(e);
    assert_int_equal(clc_median_enqueue(ctx, &d, NULL, 0, &d, NULL, 0, 3, 1, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(equals_reference_everywhere),
        FIXTURE_TEST(known_values),
        FIXTURE_TEST(enqueue_on_buffers),
        FIXTURE_TEST(misuse_is_refused_and_nothing_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
