/* Gray conversion: bit-exact with the reference (and OpenCV's known values) for every format,
 * weight set, width 1..67 and pitch; untouched padding; every misuse refused. */
#include "fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/gray.h"
#include "internal.h"

#define GUARD FIXTURE_GUARD

static const clc_pixel_format formats[] = {CLC_PIXEL_RGB8, CLC_PIXEL_BGR8, CLC_PIXEL_RGBA8,
                                           CLC_PIXEL_BGRA8};
static const clc_gray_weights weight_sets[] = {CLC_GRAY_BT601, CLC_GRAY_BT709};

static uint32_t rng = 1;
static uint8_t next_byte(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (uint8_t)(rng >> 24);
}

static void image_fill_random(fixture_image *im)
{
    for (size_t i = 0; i < im->span; ++i)
        im->data[i] = next_byte();
}

static void assert_same_pixels(const fixture_image *a, const fixture_image *b, double tolerance)
{
    const size_t pitch_a =
        a->desc.pitch ? a->desc.pitch : a->desc.width * clc_pixel_size(a->desc.format);
    const size_t pitch_b =
        b->desc.pitch ? b->desc.pitch : b->desc.width * clc_pixel_size(b->desc.format);
    for (size_t y = 0; y < a->desc.height; ++y) {
        const uint8_t *ra = a->data + y * pitch_a, *rb = b->data + y * pitch_b;
        for (size_t x = 0; x < a->desc.width; ++x) {
            if (a->desc.format == CLC_PIXEL_GRAY8) {
                if (ra[x] != rb[x])
                    fail_msg("pixel (%zu, %zu) of %zux%zu: %u, reference %u", x, y, a->desc.width,
                             a->desc.height, ra[x], rb[x]);
            } else {
                float fa, fb;
                memcpy(&fa, ra + 4 * x, 4);
                memcpy(&fb, rb + 4 * x, 4);
                if (!(fabs((double)fa - (double)fb) <= tolerance))
                    fail_msg("pixel (%zu, %zu): %.9g, reference %.9g", x, y, (double)fa,
                             (double)fb);
            }
        }
    }
}

/* Converts with clc_gray and with the reference; both outputs must agree and keep guards. */
static void check_host(clc_context *ctx, fixture_image *src, clc_pixel_format out_format,
                       size_t out_extra_pitch, clc_gray_weights weights)
{
    fixture_image out =
        fixture_image_new(out_format, src->desc.width, src->desc.height, out_extra_pitch);
    fixture_image ref =
        fixture_image_new(out_format, src->desc.width, src->desc.height, out_extra_pitch);
    clc_gray_options options = {weights};
    clc_status st = clc_gray(ctx, &src->desc, src->data, &out.desc, out.data, &options);
    if (st != CLC_SUCCESS)
        fail_msg("clc_gray: %s", clc_last_error());
    clc__ref_gray(&src->desc, src->data, &ref.desc, ref.data, weights);
    assert_same_pixels(&out, &ref, 1e-6);
    fixture_assert_guards(&out);
    fixture_assert_padding(&out);
    fixture_image_free(&out);
    fixture_image_free(&ref);
}

static void every_width_format_pitch_and_weight_matches_the_reference(void **state)
{
    clc_context *ctx = *state;
    const size_t extra_pitches[] = {0, 1, 3, 16, 17};
    for (size_t f = 0; f < 4; ++f)
        for (size_t w = 1; w <= 67; ++w)
            for (size_t p = 0; p < sizeof extra_pitches / sizeof extra_pitches[0]; ++p) {
                fixture_image src = fixture_image_new(formats[f], w, 3, extra_pitches[p]);
                image_fill_random(&src);
                check_host(ctx, &src, CLC_PIXEL_GRAY8, extra_pitches[(p + 2) % 5],
                           weight_sets[(w + p) % 2]);
                fixture_image_free(&src);
            }
}

static void float_output_matches_the_reference(void **state)
{
    clc_context *ctx = *state;
    for (size_t f = 0; f < 4; ++f)
        for (size_t w = 1; w <= 67; w += 3) {
            fixture_image src = fixture_image_new(formats[f], w, 4, w % 2 ? 5 : 0);
            image_fill_random(&src);
            check_host(ctx, &src, CLC_PIXEL_GRAY_F32, w % 3 ? 8 : 0, weight_sets[w % 2]);
            fixture_image_free(&src);
        }
}

static void extremes_and_opencv_reference_values(void **state)
{
    clc_context *ctx = *state;
    /* OpenCV's cvtColor(RGB2GRAY) gives red 76, green 150, blue 29 (BT.601). */
    static const uint8_t rgb[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255};
    static const uint8_t bt601[] = {76, 150, 29, 0, 255};
    static const uint8_t bt709[] = {54, 182, 18, 0, 255};
    clc_image_desc src = {CLC_PIXEL_RGB8, 5, 1, 0}, dst = {CLC_PIXEL_GRAY8, 5, 1, 0};
    uint8_t out[5];
    assert_int_equal(clc_gray(ctx, &src, rgb, &dst, out, NULL), CLC_SUCCESS);
    assert_memory_equal(out, bt601, 5);
    clc_gray_options options = {CLC_GRAY_BT709};
    assert_int_equal(clc_gray(ctx, &src, rgb, &dst, out, &options), CLC_SUCCESS);
    assert_memory_equal(out, bt709, 5);

    for (int value = 0; value <= 255; value += 255) {
        for (size_t f = 0; f < 4; ++f) {
            fixture_image im = fixture_image_new(formats[f], 53, 7, 0);
            memset(im.data, value, im.span);
            fixture_image g = fixture_image_new(CLC_PIXEL_GRAY8, 53, 7, 0);
            assert_int_equal(clc_gray(ctx, &im.desc, im.data, &g.desc, g.data, NULL), CLC_SUCCESS);
            for (size_t i = 0; i < g.span; ++i)
                assert_int_equal(g.data[i], value);
            fixture_image fl = fixture_image_new(CLC_PIXEL_GRAY_F32, 53, 7, 0);
            assert_int_equal(clc_gray(ctx, &im.desc, im.data, &fl.desc, fl.data, NULL),
                             CLC_SUCCESS);
            for (size_t i = 0; i < 53 * 7; ++i) {
                float v;
                memcpy(&v, fl.data + 4 * i, 4);
                assert_true(v == (value ? 1.0f : 0.0f));
            }
            fixture_image_free(&im);
            fixture_image_free(&g);
            fixture_image_free(&fl);
        }
    }
}

static void large_image_matches_the_reference(void **state)
{
    clc_context *ctx = *state;
    fixture_image src = fixture_image_new(CLC_PIXEL_BGR8, 1923, 1081, 0);
    image_fill_random(&src);
    check_host(ctx, &src, CLC_PIXEL_GRAY8, 0, CLC_GRAY_BT601);
    fixture_image_free(&src);
}

/* Source, destination or both in clc_host_alloc memory, which devices with their own memory read
 * and write by DMA where ordinary memory goes through the staging buffers (or the driver's own
 * copy): every pairing, packed and padded, in bands too (gray_banded runs this with
 * CLCOMPUTE_STAGING=always and CLCOMPUTE_BANDS=3). The destination's padding must survive. */
static void pinned_memory_matches_the_reference(void **state)
{
    clc_context *ctx = *state;
    const size_t w = 97, h = 53;
    for (int pairing = 0; pairing < 4; ++pairing) {
        const int src_pinned = pairing & 1, dst_pinned = pairing >> 1;
        const size_t sp = w * 3 + (size_t)(pairing % 3) * 7, dp = w + (pairing == 3 ? 11 : 0);
        const size_t src_bytes = (h - 1) * sp + w * 3, dst_bytes = (h - 1) * dp + w;
        const clc_image_desc sd = {CLC_PIXEL_RGB8, w, h, sp}, dd = {CLC_PIXEL_GRAY8, w, h, dp};
        unsigned char *src = NULL, *dst = NULL, *ref = malloc(dst_bytes);
        assert_non_null(ref);
        if (src_pinned)
            assert_int_equal(clc_host_alloc(ctx, src_bytes, (void **)&src), CLC_SUCCESS);
        else
            assert_non_null(src = malloc(src_bytes));
        if (dst_pinned)
            assert_int_equal(clc_host_alloc(ctx, dst_bytes, (void **)&dst), CLC_SUCCESS);
        else
            assert_non_null(dst = malloc(dst_bytes));
        for (size_t i = 0; i < src_bytes; ++i)
            src[i] = (unsigned char)(i * 131 + (size_t)pairing);
        memset(dst, 0xEE, dst_bytes);
        memset(ref, 0xEE, dst_bytes);
        clc__ref_gray(&sd, src, &dd, ref, CLC_GRAY_BT601);
        if (clc_gray(ctx, &sd, src, &dd, dst, NULL) != CLC_SUCCESS)
            fail_msg("clc_gray, pairing %d: %s", pairing, clc_last_error());
        assert_memory_equal(dst, ref, dst_bytes); /* pixels and padding */
        if (src_pinned)
            assert_int_equal(clc_host_free(ctx, src), CLC_SUCCESS);
        else
            free(src);
        if (dst_pinned)
            assert_int_equal(clc_host_free(ctx, dst), CLC_SUCCESS);
        else
            free(dst);
        free(ref);
    }
}

/* Bands (lib/ops/image.c) are chosen for images from clc_host_alloc memory on both sides, on a
 * device with its own memory (the staged runs force one on a CPU), from 20 MiB of source up, or
 * wherever CLCOMPUTE_BANDS asks. They run on the context's second queue, which exists only
 * once a call has needed it. */
static void large_pinned_images_run_in_bands(void **state)
{
    (void)state;
    const clc_context_options options = fixture_options();
    clc_context *ctx = fixture_context(&options);
    int forced = 1;
    const int asked = clc__switch(ctx, CLC_SW_BANDS, &forced) > 0;
    const int own_memory = !clc__host_in_place(ctx);
    const size_t sizes[][2] = {{1000, 1000}, {4000, 3000}}; /* 3 MB and 36 MB of RGB8 */
    for (int big = 0; big < 2; ++big) {
        const size_t w = sizes[big][0], h = sizes[big][1];
        const clc_image_desc sd = {CLC_PIXEL_RGB8, w, h, 0}, dd = {CLC_PIXEL_GRAY8, w, h, 0};
        unsigned char *src = NULL, *dst = NULL, *ref = malloc(w * h);
        assert_non_null(ref);
        assert_int_equal(clc_host_alloc(ctx, w * h * 3, (void **)&src), CLC_SUCCESS);
        assert_int_equal(clc_host_alloc(ctx, w * h, (void **)&dst), CLC_SUCCESS);
        for (size_t i = 0; i < w * h * 3; ++i)
            src[i] = (unsigned char)(i * 131 + i / 7);
        memset(dst, 0xEE, w * h);
        clc__ref_gray(&sd, src, &dd, ref, CLC_GRAY_BT601);
        if (clc_gray(ctx, &sd, src, &dd, dst, NULL) != CLC_SUCCESS)
            fail_msg("clc_gray %zux%zu: %s", w, h, clc_last_error());
        assert_memory_equal(dst, ref, w * h);
        const int expected = own_memory && (asked ? forced > 1 : big);
        if ((ctx->side_queue != NULL) != expected)
            fail_msg("%zux%zu from pinned memory: bands %s, expected %s", w, h,
                     ctx->side_queue ? "ran" : "did not run", expected ? "them" : "none");
        assert_int_equal(clc_host_free(ctx, src), CLC_SUCCESS);
        assert_int_equal(clc_host_free(ctx, dst), CLC_SUCCESS);
        free(ref);
    }
    clc_context_destroy(ctx);
}

/* ---- device buffers ---- */

static cl_mem device_copy(clc_context *ctx, const void *data, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              bytes, (void *)(uintptr_t)data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

static void device_buffers_at_any_offset_match_the_reference(void **state)
{
    clc_context *ctx = *state;
    const size_t offsets[][2] = {{0, 0}, {1, 3}, {16, 32}, {5, 0}, {48, 7}};
    for (size_t f = 0; f < 4; ++f)
        for (size_t o = 0; o < 5; ++o)
            for (size_t w = 13; w <= 67; w += 27) {
                const size_t so = offsets[o][0], doff = offsets[o][1];
                fixture_image src = fixture_image_new(formats[f], w, 5, o % 2 ? 7 : 0);
                image_fill_random(&src);
                fixture_image ref = fixture_image_new(CLC_PIXEL_GRAY8, w, 5, o % 3 ? 0 : 9);
                clc__ref_gray(&src.desc, src.data, &ref.desc, ref.data, CLC_GRAY_BT601);

                uint8_t *src_block = malloc(so + src.span);
                assert_non_null(src_block);
                memcpy(src_block + so, src.data, src.span);
                cl_mem a = device_copy(ctx, src_block, so + src.span);
                uint8_t *dst_block = malloc(doff + ref.span + FIXTURE_GUARD_BYTES);
                assert_non_null(dst_block);
                memset(dst_block, GUARD, doff + ref.span + FIXTURE_GUARD_BYTES);
                cl_mem b = device_copy(ctx, dst_block, doff + ref.span + FIXTURE_GUARD_BYTES);

                cl_event done = NULL;
                clc_status st = clc_gray_enqueue(ctx, &src.desc, a, so, &ref.desc, b, doff, NULL, 0,
                                                 NULL, &done);
                if (st != CLC_SUCCESS)
                    fail_msg("clc_gray_enqueue: %s", clc_last_error());
                assert_non_null(done);
                assert_int_equal(clEnqueueReadBuffer(clc_context_cl_queue(ctx), b, CL_TRUE, 0,
                                                     doff + ref.span + FIXTURE_GUARD_BYTES,
                                                     dst_block, 1, &done, NULL),
                                 CL_SUCCESS);
                clReleaseEvent(done);
                for (size_t i = 0; i < doff; ++i)
                    assert_int_equal(dst_block[i], GUARD);
                for (size_t i = 0; i < FIXTURE_GUARD_BYTES; ++i)
                    assert_int_equal(dst_block[doff + ref.span + i], GUARD);
                fixture_image got = ref;
                got.data = dst_block + doff;
                fixture_image want = ref;
                assert_same_pixels(&got, &want, 0.0);
                /* Row padding in the device buffer is untouched too. */
                const size_t pitch = ref.desc.pitch ? ref.desc.pitch : w;
                for (size_t y = 0; y + 1 < 5; ++y)
                    for (size_t x = w; x < pitch; ++x)
                        assert_int_equal(got.data[y * pitch + x], GUARD);

                clReleaseMemObject(a);
                clReleaseMemObject(b);
                free(src_block);
                free(dst_block);
                fixture_image_free(&src);
                fixture_image_free(&ref);
            }
}

static void enqueue_waits_for_its_event_list(void **state)
{
    clc_context *ctx = *state;
    fixture_image src = fixture_image_new(CLC_PIXEL_RGB8, 40, 4, 0);
    image_fill_random(&src);
    fixture_image ref = fixture_image_new(CLC_PIXEL_GRAY8, 40, 4, 0);
    clc__ref_gray(&src.desc, src.data, &ref.desc, ref.data, CLC_GRAY_BT601);
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(clc_context_cl_context(ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem a = device_copy(ctx, src.data, src.span);
    uint8_t out[160];
    memset(out, 0, sizeof out);
    cl_mem b = device_copy(ctx, out, sizeof out);
    cl_event done = NULL;
    assert_int_equal(clc_gray_enqueue(ctx, &src.desc, a, 0, &ref.desc, b, 0, NULL, 1, &gate, &done),
                     CLC_SUCCESS);
    cl_int status = 0;
    assert_int_equal(
        clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
        CL_SUCCESS);
    assert_true(status != CL_COMPLETE); /* held back by the user event */
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(clc_context_cl_queue(ctx), b, CL_TRUE, 0, sizeof out, out,
                                         1, &done, NULL),
                     CL_SUCCESS);
    assert_memory_equal(out, ref.data, sizeof out);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    fixture_image_free(&src);
    fixture_image_free(&ref);
}

/* ---- misuse ---- */

static void argument_errors_are_refused_and_nothing_is_written(void **state)
{
    clc_context *ctx = *state;
    uint8_t in[64 * 3];
    memset(in, 7, sizeof in);
    uint8_t out[64];
    memset(out, GUARD, sizeof out);
    const clc_image_desc rgb = {CLC_PIXEL_RGB8, 8, 8, 0}, gray = {CLC_PIXEL_GRAY8, 8, 8, 0};
    clc_image_desc bad;

#define REFUSED(expected, call)                                                                    \
    do {                                                                                           \
        assert_int_equal((call), (expected));                                                      \
        assert_true(strlen(clc_last_error()) > 0);                                                 \
    } while (0)

    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(NULL, &rgb, in, &gray, out, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, NULL, in, &gray, out, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, NULL, &gray, out, NULL));
    assert_non_null(strstr(clc_last_error(), "src_data is NULL"));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &gray, NULL, NULL));
    assert_non_null(strstr(clc_last_error(), "dst_data is NULL"));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, NULL, out, NULL));
    bad = rgb, bad.width = 0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    assert_non_null(strstr(clc_last_error(), "source: image size 0 x")); /* not a mismatch */
    bad = rgb, bad.height = 0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    bad = rgb, bad.pitch = 23; /* one row is 24 bytes */
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    bad = gray, bad.pitch = 7;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &bad, out, NULL));
    bad = rgb, bad.format = (clc_pixel_format)0;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    bad = rgb, bad.format = (clc_pixel_format)99;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    bad = rgb, bad.format = CLC_PIXEL_GRAY8;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &bad, in, &gray, out, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &rgb, out, NULL));
    bad = gray, bad.width = 9;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &bad, out, NULL));
    clc_gray_options weird = {(clc_gray_weights)5};
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &gray, out, &weird));
    /* Sizes whose products overflow size_t. */
    bad = rgb, bad.width = SIZE_MAX / 2;
    clc_image_desc bad_gray = gray;
    bad_gray.width = bad.width;
    REFUSED(CLC_ERROR_SIZE_OVERFLOW, clc_gray(ctx, &bad, in, &bad_gray, out, NULL));
    bad = rgb, bad.height = SIZE_MAX / 8, bad.pitch = 64;
    bad_gray = gray;
    bad_gray.height = bad.height;
    REFUSED(CLC_ERROR_SIZE_OVERFLOW, clc_gray(ctx, &bad, in, &bad_gray, out, NULL));
    /* Float output rows must be 4-byte aligned. */
    clc_image_desc f32 = {CLC_PIXEL_GRAY_F32, 8, 8, 34};
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_gray(ctx, &rgb, in, &f32, out, NULL));

    for (size_t i = 0; i < sizeof out; ++i)
        assert_int_equal(out[i], GUARD);
}

static void device_argument_errors_are_refused(void **state)
{
    clc_context *ctx = *state;
    const clc_image_desc rgb = {CLC_PIXEL_RGB8, 8, 8, 0}, gray = {CLC_PIXEL_GRAY8, 8, 8, 0};
    uint8_t zeros[256] = {0};
    cl_mem a = device_copy(ctx, zeros, 192), b = device_copy(ctx, zeros, 64);
    cl_event e = (cl_event)a; /* must come back NULL */
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_gray_enqueue(ctx, &rgb, NULL, 0, &gray, b, 0, NULL, 0, NULL, &e));
    assert_null(e);
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_gray_enqueue(ctx, &rgb, a, 1, &gray, b, 0, NULL, 0, NULL, NULL));
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_gray_enqueue(ctx, &rgb, a, 0, &gray, b, 65, NULL, 0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_gray_enqueue(ctx, &rgb, a, 0, &gray, b, 0, NULL, 1, NULL, NULL));
    cl_event dummy = NULL;
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_gray_enqueue(ctx, &rgb, a, 0, &gray, b, 0, NULL, 0, &dummy, NULL));
    clc_image_desc f32 = {CLC_PIXEL_GRAY_F32, 4, 4, 0};
    clc_image_desc small = {CLC_PIXEL_RGB8, 4, 4, 0};
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_gray_enqueue(ctx, &small, a, 0, &f32, b, 2, NULL, 0, NULL, NULL));

    /* A buffer of another context. */
    cl_device_id device = clc_context_cl_device(ctx);
    cl_int err = CL_SUCCESS;
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 256, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_gray_enqueue(ctx, &rgb, foreign, 0, &gray, b, 0, NULL, 0, NULL, NULL));
    assert_non_null(strstr(clc_last_error(), "another OpenCL context"));
    clReleaseMemObject(foreign);
    clReleaseContext(other);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

static void image_span_is_checked(void **state)
{
    (void)state;
    size_t bytes = 0;
    clc_image_desc d = {CLC_PIXEL_RGBA8, 10, 3, 48};
    assert_int_equal(clc_image_span(&d, &bytes), CLC_SUCCESS);
    assert_int_equal(bytes, 2 * 48 + 40);
    d.pitch = 0;
    assert_int_equal(clc_image_span(&d, &bytes), CLC_SUCCESS);
    assert_int_equal(bytes, 120);
    assert_int_equal(clc_image_span(NULL, &bytes), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_image_span(&d, NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_pixel_size(CLC_PIXEL_RGB8), 3);
    assert_int_equal(clc_pixel_size(CLC_PIXEL_GRAY_F32), 4);
    assert_int_equal(clc_pixel_size((clc_pixel_format)0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(every_width_format_pitch_and_weight_matches_the_reference),
        FIXTURE_TEST(float_output_matches_the_reference),
        FIXTURE_TEST(extremes_and_opencv_reference_values),
        FIXTURE_TEST(large_image_matches_the_reference),
        FIXTURE_TEST(pinned_memory_matches_the_reference),
        cmocka_unit_test(large_pinned_images_run_in_bands),
        FIXTURE_TEST(device_buffers_at_any_offset_match_the_reference),
        FIXTURE_TEST(enqueue_waits_for_its_event_list),
        FIXTURE_TEST(argument_errors_are_refused_and_nothing_is_written),
        FIXTURE_TEST(device_argument_errors_are_refused),
        cmocka_unit_test(image_span_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
