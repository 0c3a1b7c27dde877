/* Every kernel and variant once, on small inputs with odd sizes and pitches, results checked
 * against the serial references. Small enough to run under oclgrind, which interprets kernels
 * and reports out-of-bounds accesses, uninitialised reads and data races (tests/oclgrind.cmake);
 * it runs on every CI device too. */
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"
#include "../lib/ref/gray.h"
#include "../lib/ref/reduce.h"
#include "internal.h"

static uint32_t seed = 99;

static uint8_t byte(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (uint8_t)(seed >> 24);
}

/* Gray in every shape and block path, on rows that allow the vector paths and on rows that do not
 * (odd pitch), with guard bytes in the destination's padding left untouched. */
static void gray_every_variant(void **state)
{
    clc_context *ctx = *state;
    static const char *const shapes[] = {"rows", "blocks"};
    static const char *const paths[] = {"bytes", "vectors", "words"};
    static const size_t widths[] = {37, 37}, src_pitches[] = {112, 115}, dst_pitches[] = {48, 41};
    for (size_t c = 0; c < 2; ++c) {
        const size_t w = widths[c], h = 5;
        const clc_image_desc src = {CLC_PIXEL_RGB8, w, h, src_pitches[c]};
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, w, h, dst_pitches[c]};
        uint8_t *in = malloc(src.pitch * h), *out = malloc(dst.pitch * h);
        uint8_t *ref = malloc(dst.pitch * h);
        assert_non_null(in), assert_non_null(out), assert_non_null(ref);
        for (size_t i = 0; i < src.pitch * h; ++i)
            in[i] = byte();
        memset(ref, 0xA5, dst.pitch * h);
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        for (size_t s = 0; s < 2; ++s)
            for (size_t p = 0; p < 3; ++p) {
                clc__switch_set(ctx, CLC_SW_GRAY_SHAPE, shapes[s]);
                clc__switch_set(ctx, CLC_SW_GRAY_PATH, paths[p]);
                memset(out, 0xA5, dst.pitch * h);
                if (clc_gray(ctx, &src, in, &dst, out, NULL) != CLC_SUCCESS)
                    fail_msg("%s/%s: %s", shapes[s], paths[p], clc_last_error());
                if (memcmp(out, ref, dst.pitch * h) != 0)
                    fail_msg("gray %s/%s pitch %zu differs", shapes[s], paths[p], src.pitch);
            }
        free(in), free(out), free(ref);
    }
    clc__switch_set(ctx, CLC_SW_GRAY_SHAPE, getenv("CLCOMPUTE_GRAY_SHAPE"));
    clc__switch_set(ctx, CLC_SW_GRAY_PATH, getenv("CLCOMPUTE_GRAY_PATH"));
}

/* n depth samples, about 16% of them holes, the same in u16 (millimetres) and f32 (metres), and
 * a colour each. */
static void depth_frames(uint16_t *depth16, float *depth32, uint8_t *color, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        depth16[i] = byte() < 40 ? 0 : (uint16_t)(500 + byte() * 8);
        depth32[i] = depth16[i] * 0.001f;
        color[3 * i] = byte(), color[3 * i + 1] = byte(), color[3 * i + 2] = byte();
    }
}

/* Depth to points: every shape, dense and organized, u16 and f32, strides 1 and 2, with colour;
 * one frame, and two different taller ones (three tiles or more on GPUs, so that the one-pass
 * shape looks back) in one call of the many form, the only one the one-pass shape takes. */
static void cloud_every_variant(void **state)
{
    clc_context *ctx = *state;
    enum { W = 23, H = 11, TH = 160 };
    static const char *const shapes[] = {"items", "groups", "onepass"};
    uint16_t depth16[W * H];
    float depth32[W * H];
    uint8_t color[W * H * 3];
    static uint16_t tall16[2 * W * TH];
    static float tall32[2 * W * TH];
    static uint8_t tall_color[2 * W * TH * 3];
    depth_frames(depth16, depth32, color, W * H);
    depth_frames(tall16, tall32, tall_color, 2 * W * TH);
    const clc_intrinsics k = {20.0, 21.0, 11.0, 5.0};
    const clc_image_desc cdesc = {CLC_PIXEL_RGB8, W, H, 0};
    for (size_t s = 0; s < 3; ++s)
        for (int f32 = 0; f32 < 2; ++f32)
            for (int organized = 0; organized < 2; ++organized)
                for (unsigned stride = 1; stride <= 2; ++stride) {
                    clc__switch_set(ctx, CLC_SW_CLOUD_SHAPE, shapes[s]);
                    const clc_image_desc desc = {f32 ? CLC_PIXEL_DEPTH_F32 : CLC_PIXEL_DEPTH_U16, W,
                                                 H, 0};
                    clc_cloud_options o = {0};
                    o.stride = stride;
                    o.depth_trunc = 1.5;
                    o.layout = organized ? CLC_CLOUD_ORGANIZED : CLC_CLOUD_DENSE;
                    const clc_ref_cloud p =
                        clc__ref_cloud_params(1000.0, 1.5, &k, stride, W, H, o.layout);
                    float points[(W * H + 1) * 3], ref[(W * H + 1) * 3];
                    uint8_t colors[(W * H + 1) * 3], ref_colors[(W * H + 1) * 3];
                    const void *d = f32 ? (const void *)depth32 : (const void *)depth16;
                    const size_t want =
                        clc__ref_depth_to_points(&desc, d, &cdesc, color, &p, ref, ref_colors);
                    size_t count = 0;
                    if (clc_depth_to_points(ctx, &desc, d, &cdesc, color, &k, &o, points, colors,
                                            W * H, &count) != CLC_SUCCESS)
                        fail_msg("cloud: %s", clc_last_error());
                    assert_int_equal(count, want);
                    for (size_t i = 0; i < 3 * want; ++i) {
                        assert_true((isnan(points[i]) && isnan(ref[i])) ||
                                    fabsf(points[i] - ref[i]) <= 1e-5f * fabsf(ref[i]));
                        assert_int_equal(colors[i], ref_colors[i]);
                    }
                    /* Two different tall frames in one call: each as the reference has it. */
                    static float points2[2 * W * TH * 3], ref2[W * TH * 3];
                    static uint8_t colors2[2 * W * TH * 3], ref_colors2[W * TH * 3];
                    const clc_image_desc tdesc = {desc.format, W, TH, 0};
                    const clc_image_desc tcdesc = {CLC_PIXEL_RGB8, W, TH, 0};
                    const clc_ref_cloud tp =
                        clc__ref_cloud_params(1000.0, 1.5, &k, stride, W, TH, o.layout);
                    const unsigned char *td =
                        f32 ? (const unsigned char *)tall32 : (const unsigned char *)tall16;
                    const size_t frame_bytes = (size_t)W * TH * (f32 ? 4 : 2);
                    size_t counts[2] = {0, 0};
                    if (clc_depth_to_points_many(ctx, 2, &tdesc, td, 0, &tcdesc, tall_color, 0, &k,
                                                 &o, points2, colors2, counts) != CLC_SUCCESS)
                        fail_msg("cloud, two frames: %s", clc_last_error());
                    for (size_t f = 0; f < 2; ++f) { /* frame f's points from f * tp.sw * tp.sh */
                        const size_t n = clc__ref_depth_to_points(
                            &tdesc, td + f * frame_bytes, &tcdesc, tall_color + f * W * TH * 3, &tp,
                            ref2, ref_colors2);
                        assert_int_equal(counts[f], n);
                        const float *got = points2 + f * tp.sw * tp.sh * 3;
                        const uint8_t *got_colors = colors2 + f * tp.sw * tp.sh * 3;
                        for (size_t i = 0; i < 3 * n; ++i) {
                            assert_true((isnan(got[i]) && isnan(ref2[i])) ||
                                        fabsf(got[i] - ref2[i]) <= 1e-5f * fabsf(ref2[i]));
                            assert_int_equal(got_colors[i], ref_colors2[i]);
                        }
                    }
                }
    clc__switch_set(ctx, CLC_SW_CLOUD_SHAPE, getenv("CLCOMPUTE_CLOUD_SHAPE"));
}

/* Reductions: every type and op, both shapes in one launch and in two, on a device buffer at an
 * odd element offset. */
static void reduce_every_variant(void **state)
{
    clc_context *ctx = *state;
    static const char *const shapes[] = {"items", "groups"};
    static const clc_dtype types[] = {CLC_DTYPE_F32, CLC_DTYPE_I32, CLC_DTYPE_U32, CLC_DTYPE_U8,
                                      CLC_DTYPE_F64};
    static const clc_reduce_op ops[] = {CLC_REDUCE_SUM, CLC_REDUCE_MIN, CLC_REDUCE_MAX,
                                        CLC_REDUCE_ARGMIN, CLC_REDUCE_ARGMAX};
    const size_t n = 1031, first = 3;
    const clc_device_info *d = clc_context_device(ctx);
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_ONLY, (n + first) * 8, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem res = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (size_t s = 0; s < 4; ++s) {
        clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, shapes[s % 2]);
        clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, s < 2 ? "1" : "2");
        for (size_t t = 0; t < 5; ++t) {
            if (types[t] == CLC_DTYPE_F64 && !d->fp64)
                continue;
            const size_t esize = clc_dtype_size(types[t]), count = n;
            /* Small multiples of 1/4: every order of summation gives the exact sum. */
            unsigned char data[(1031 + 3) * 8];
            for (size_t i = 0; i < n + first; ++i) {
                const int v = (int)byte() - 128;
                if (types[t] == CLC_DTYPE_F32)
                    ((float *)(void *)data)[i] = (float)v * 0.25f;
                else if (types[t] == CLC_DTYPE_F64)
                    ((double *)(void *)data)[i] = (double)v * 0.25;
                else if (types[t] == CLC_DTYPE_U8)
                    data[i] = (unsigned char)v;
                else
                    ((int32_t *)(void *)data)[i] = v * 1000003;
            }
            assert_int_equal(clEnqueueWriteBuffer(clc_context_cl_queue(ctx), buf, CL_TRUE, 0,
                                                  (n + first) * esize, data, 0, NULL, NULL),
                             CL_SUCCESS);
            for (size_t o = 0; o < 5; ++o) {
                /* A result the kernel did not write fails the checks below. */
                const cl_uchar ones = 0xff;
                assert_int_equal(clEnqueueFillBuffer(clc_context_cl_queue(ctx), res, &ones, 1, 0,
                                                     CLC_REDUCE_RESULT_BYTES, 0, NULL, NULL),
                                 CL_SUCCESS);
                const clc_reduce_result got =
                    fixture_reduce_on_device(ctx, ops[o], types[t], buf, first * esize, count, res);
                clc_reduce_result want;
                clc__ref_reduce(ops[o], types[t], data + first * esize, count, &want, NULL);
                assert_int_equal(got.index, want.index);
                if (types[t] == CLC_DTYPE_F32 || types[t] == CLC_DTYPE_F64)
                    assert_true(got.f == want.f); /* small exact values: every order agrees */
                else
                    assert_int_equal(got.u, want.u);
            }
        }
    }
    clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, getenv("CLCOMPUTE_REDUCE_SHAPE"));
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, getenv("CLCOMPUTE_REDUCE_PASSES"));
    clReleaseMemObject(res);
    clReleaseMemObject(buf);
}

/* n floats of many magnitudes and both signs, whose sums round differently in every order, and
 * a device buffer holding them (*buf). */
static float *random_floats(clc_context *ctx, size_t n, cl_mem *buf)
{
    float *data = malloc(n * sizeof *data);
    assert_non_null(data);
    for (size_t i = 0; i < n; ++i)
        data[i] = ((float)byte() - 127.5f) / (float)(1 + byte());
    cl_int err = CL_SUCCESS;
    *buf = clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          n * sizeof *data, data, &err);
    assert_int_equal(err, CL_SUCCESS);
    return data;
}

/* A float32 sum of many work-groups (each with many items on the GPU shape), whose partials
 * round differently in every order: one launch gives the very bits of two, on both shapes, as
 * stage 2 then runs work-groups of stage 1's size and combines in the same order. Two sizes:
 * the GPU shape's work-groups of 512, and of 1024 (32 loads an item of 2048 a compute unit). */
static void reduce_one_launch_as_two_of(clc_context *ctx, size_t n);

static void reduce_one_launch_as_two(void **state)
{
    clc_context *ctx = *state;
    reduce_one_launch_as_two_of(ctx, 300007);
    reduce_one_launch_as_two_of(ctx, (size_t)32 * 2048 * 4 * ctx->info.compute_units + 7);
}

static void reduce_one_launch_as_two_of(clc_context *ctx, size_t n)
{
    static const char *const shapes[] = {"items", "groups"};
    cl_mem buf = NULL;
    float *data = random_floats(ctx, n, &buf);
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    cl_mem res = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clc_reduce_result want;
    clc__ref_reduce(CLC_REDUCE_SUM, CLC_DTYPE_F32, data, n, &want, NULL);
    for (size_t s = 0; s < 2; ++s) {
        clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, shapes[s]);
        unsigned char words[2][CLC_REDUCE_RESULT_BYTES];
        for (int passes = 1; passes <= 2; ++passes) {
            clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, passes == 1 ? "1" : "2");
            const cl_uchar ones = 0xff;
            assert_int_equal(
                clEnqueueFillBuffer(q, res, &ones, 1, 0, CLC_REDUCE_RESULT_BYTES, 0, NULL, NULL),
                CL_SUCCESS);
            cl_event done = NULL;
            assert_int_equal(clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, buf, 0, n, res,
                                                0, NULL, &done),
                             CLC_SUCCESS);
            assert_int_equal(clEnqueueReadBuffer(q, res, CL_TRUE, 0, CLC_REDUCE_RESULT_BYTES,
                                                 words[passes - 1], 1, &done, NULL),
                             CL_SUCCESS);
            clReleaseEvent(done);
            clc_reduce_result got;
            assert_int_equal(
                clc_reduce_decode(CLC_REDUCE_SUM, CLC_DTYPE_F32, words[passes - 1], n, &got),
                CLC_SUCCESS);
            /* Kahan-compensated: within a few units in the last place of float. */
            assert_true(fabs(got.f - want.f) <= 4e-7 * (fabs(want.f) + 1.0) * 8);
        }
        assert_memory_equal(words[0], words[1], CLC_REDUCE_RESULT_BYTES);
    }
    clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, getenv("CLCOMPUTE_REDUCE_SHAPE"));
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, getenv("CLCOMPUTE_REDUCE_PASSES"));
    clReleaseMemObject(res);
    clReleaseMemObject(buf);
    free(data);
}

/* One-launch reductions enqueued back to back with no wait between them, each over another
 * prefix of one array (on a GPU alternating sum and argmax): each result has the bits of the same
 * reduction run alone, so no launch read a partial or a count the launch before it left. */
static void reduce_one_launch_back_to_back(void **state)
{
    clc_context *ctx = *state;
    enum { RUNS = 16 };
    const int gpu = ctx->info.type == CLC_DEVICE_GPU;
    const int runs = gpu ? RUNS : 4;
    static const char *const shapes[] = {"items", "groups"};
    /* Hundreds of work-groups and 16 runs on a GPU, where launches overlap; fewer elsewhere, and
     * sums alone (a CPU runs launches one after the other). */
    const size_t n = gpu ? 300007 : 8209;
    cl_mem buf = NULL;
    float *data = random_floats(ctx, n, &buf);
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    cl_mem res[RUNS];
    for (int k = 0; k < runs; ++k) {
        res[k] = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
    }
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, "1");
    for (size_t s = 0; s < 2; ++s) {
        clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, shapes[s]);
        unsigned char alone[RUNS][CLC_REDUCE_RESULT_BYTES], together[RUNS][CLC_REDUCE_RESULT_BYTES];
        for (int pass = 0; pass < 2; ++pass) {
            const cl_uchar ones = 0xff;
            for (int k = 0; k < runs; ++k)
                assert_int_equal(clEnqueueFillBuffer(q, res[k], &ones, 1, 0,
                                                     CLC_REDUCE_RESULT_BYTES, 0, NULL, NULL),
                                 CL_SUCCESS);
            for (int k = 0; k < runs; ++k) {
                const clc_reduce_op op = gpu && k % 2 ? CLC_REDUCE_ARGMAX : CLC_REDUCE_SUM;
                assert_int_equal(clc_reduce_enqueue(ctx, op, CLC_DTYPE_F32, buf, 0,
                                                    n - 97 * (size_t)k, res[k], 0, NULL, NULL),
                                 CLC_SUCCESS);
                if (pass == 0) /* alone: each read before the next reduction is enqueued */
                    assert_int_equal(clEnqueueReadBuffer(q, res[k], CL_TRUE, 0,
                                                         CLC_REDUCE_RESULT_BYTES, alone[k], 0, NULL,
                                                         NULL),
                                     CL_SUCCESS);
            }
            for (int k = 0; pass == 1 && k < runs; ++k)
                assert_int_equal(clEnqueueReadBuffer(q, res[k], CL_TRUE, 0, CLC_REDUCE_RESULT_BYTES,
                                                     together[k], 0, NULL, NULL),
                                 CL_SUCCESS);
        }
        for (int k = 0; k < runs; ++k) {
            if (memcmp(alone[k], together[k], CLC_REDUCE_RESULT_BYTES) != 0)
                fail_msg("shape %s, run %d of %d back to back differs from the run alone",
                         shapes[s], k, runs);
            clc_reduce_result got, want;
            const clc_reduce_op op = gpu && k % 2 ? CLC_REDUCE_ARGMAX : CLC_REDUCE_SUM;
            const size_t count = n - 97 * (size_t)k;
            assert_int_equal(clc_reduce_decode(op, CLC_DTYPE_F32, alone[k], count, &got),
                             CLC_SUCCESS);
            clc__ref_reduce(op, CLC_DTYPE_F32, data, count, &want, NULL);
            if (op == CLC_REDUCE_ARGMAX)
                assert_int_equal(got.index, want.index);
            else
                assert_true(fabs(got.f - want.f) <= 4e-7 * (fabs(want.f) + 1.0) * 8);
        }
    }
    clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, getenv("CLCOMPUTE_REDUCE_SHAPE"));
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, getenv("CLCOMPUTE_REDUCE_PASSES"));
    for (int k = 0; k < runs; ++k)
        clReleaseMemObject(res[k]);
    clReleaseMemObject(buf);
    free(data);
}

/* A malformed switch is an error naming it, from the call that would follow it; the context's
 * switches were read when it was made, so the environment of the moment does not matter. */
static void malformed_switches_are_errors(void **state)
{
    clc_context *ctx = *state;
    const clc_image_desc src = {CLC_PIXEL_RGB8, 4, 2, 0}, dst = {CLC_PIXEL_GRAY8, 4, 2, 0};
    uint8_t in[24] = {0}, out[8];
    clc__switch_set(ctx, CLC_SW_GRAY_PATH, "diagonal");
    assert_int_equal(clc_gray(ctx, &src, in, &dst, out, NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "CLCOMPUTE_GRAY_PATH is \"diagonal\""));
    assert_non_null(strstr(clc_last_error(), "bytes or vectors or words"));
    clc__switch_set(ctx, CLC_SW_GRAY_PATH, getenv("CLCOMPUTE_GRAY_PATH"));

    const clc_image_desc depth = {CLC_PIXEL_DEPTH_U16, 4, 2, 0};
    const clc_intrinsics k = {2.0, 2.0, 2.0, 1.0};
    uint16_t d[8] = {1000, 1000};
    float points[8 * 3];
    size_t count = 0;
    clc__switch_set(ctx, CLC_SW_CLOUD_SHAPE, "Groups");
    assert_int_equal(
        clc_depth_to_points(ctx, &depth, d, NULL, NULL, &k, NULL, points, NULL, 8, &count),
        CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "CLCOMPUTE_CLOUD_SHAPE"));
    clc__switch_set(ctx, CLC_SW_CLOUD_SHAPE, getenv("CLCOMPUTE_CLOUD_SHAPE"));
    assert_int_equal(
        clc_depth_to_points(ctx, &depth, d, NULL, NULL, &k, NULL, points, NULL, 8, &count),
        CLC_SUCCESS);
    assert_int_equal(count, 2);

    clc_reduce_result r;
    const char *env = getenv("CLCOMPUTE_REDUCE_SHAPE");
    char *saved = env ? strdup(env) : NULL;
    setenv("CLCOMPUTE_REDUCE_SHAPE", "nonsense", 1); /* read at creation only */
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U16, d, 8, &r), CLC_SUCCESS);
    assert_int_equal(r.u, 2000);
    if (saved)
        setenv("CLCOMPUTE_REDUCE_SHAPE", saved, 1);
    else
        unsetenv("CLCOMPUTE_REDUCE_SHAPE");
    clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, "9");
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U16, d, 8, &r),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "use items or groups"));
    clc__switch_set(ctx, CLC_SW_REDUCE_SHAPE, saved);
    free(saved);
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, "3");
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U16, d, 8, &r),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "CLCOMPUTE_REDUCE_PASSES is \"3\""));
    assert_non_null(strstr(clc_last_error(), "a number from 1 to 2"));
    clc__switch_set(ctx, CLC_SW_REDUCE_PASSES, getenv("CLCOMPUTE_REDUCE_PASSES"));
}

static void copy_kernel(void **state)
{
    double gbps = 0.0;
    assert_int_equal(clc_measure_copy_bandwidth(*state, (size_t)1 << 20, 1, &gbps), CLC_SUCCESS);
    assert_true(gbps > 0.0);
}

/* Optional arguments: a name pattern of the tests to run ("cloud*"), for tools that can check
 * only some kernels, and one of tests to skip. */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    if (argc > 2)
        cmocka_set_skip_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(gray_every_variant),
        FIXTURE_TEST(cloud_every_variant),
        FIXTURE_TEST(reduce_every_variant),
        FIXTURE_TEST(reduce_one_launch_as_two),
        FIXTURE_TEST(reduce_one_launch_back_to_back),
        FIXTURE_TEST(malformed_switches_are_errors),
        FIXTURE_TEST(copy_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
