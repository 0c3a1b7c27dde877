#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fixture_temp_dir(const char *tag)
{
    const char *base = getenv("CLC_TEST_TMPDIR");
    char *path = malloc(4096);
    assert_non_null(path);
    snprintf(path, 4096, "%s/%s-XXXXXX", base && *base ? base : "/tmp", tag);
    assert_non_null(mkdtemp(path));
    return path;
}

void fixture_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            fixture_remove_dir(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int fixture_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

clc_context_options fixture_options(void)
{
    clc_context_options options = {0};
    options.cache = CLC_CACHE_OFF;
    return options;
}

clc_context *fixture_context(const clc_context_options *options)
{
    clc_context *ctx = NULL;
    clc_status st = clc_context_create(options, &ctx);
    if (st != CLC_SUCCESS)
        fail_msg("clc_context_create: %s (%s)", clc_status_string(st), clc_last_error());
    return ctx;
}

cl_uint fixture_context_refcount(cl_context context)
{
    cl_uint n = 0;
    assert_int_equal(clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

cl_uint fixture_queue_refcount(cl_command_queue queue)
{
    cl_uint n = 0;
    assert_int_equal(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

int fixture_setup_context(void **state)
{
    /* The disk cache in the directory ctest sets for the test tree (CLCOMPUTE_CACHE_DIR;
     * CLCOMPUTE_CACHE=0 turns it off): each test case makes a context, and building every
     * program from source and timing every variant again in each (PoCL runs clang's preprocessor
     * on every build) took a quarter of the kernel tests' time. A fresh tree's first test of a
     * family still builds and times; the tests of building and timing themselves take
     * fixture_setup_uncached_context, or contexts of their own. */
    clc_context_options options = fixture_options();
    const char *cache_dir = getenv("CLCOMPUTE_CACHE_DIR");
    if (cache_dir && *cache_dir) {
        options.cache = CLC_CACHE_AUTO;
        options.cache_dir = cache_dir;
    }
    *state = fixture_context(&options);
    return 0;
}

int fixture_setup_uncached_context(void **state)
{
    const clc_context_options options = fixture_options();
    *state = fixture_context(&options);
    return 0;
}

int fixture_teardown_context(void **state)
{
    clc_context_destroy(*state);
    return 0;
}

int fixture_run_value(clc_context *ctx, cl_program program)
{
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, "value", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem out =
        clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_WRITE_ONLY, sizeof(int), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
    size_t one = 1;
    cl_command_queue q = clc_context_cl_queue(ctx);
    assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &one, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
    int v = -1;
    assert_int_equal(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL),
                     CL_SUCCESS);
    clReleaseMemObject(out);
    clReleaseKernel(kernel);
    return v;
}

clc_reduce_result fixture_reduce_on_device(clc_context *ctx, clc_reduce_op op, clc_dtype type,
                                           cl_mem buffer, size_t offset, size_t count,
                                           cl_mem result)
{
    cl_event done = NULL;
    if (clc_reduce_enqueue(ctx, op, type, buffer, offset, count, result, 0, NULL, &done) !=
        CLC_SUCCESS)
        fail_msg("clc_reduce_enqueue(op %d, type %d, offset %zu, %zu elements): %s", op, type,
                 offset, count, clc_last_error());
    unsigned char words[CLC_REDUCE_RESULT_BYTES];
    assert_int_equal(clEnqueueReadBuffer(clc_context_cl_queue(ctx), result, CL_TRUE, 0,
                                         sizeof words, words, 1, &done, NULL),
                     CL_SUCCESS);
    clReleaseEvent(done);
    clc_reduce_result got;
    assert_int_equal(clc_reduce_decode(op, type, words, count, &got), 0);
    return got;
}

fixture_image fixture_image_new(clc_pixel_format format, size_t w, size_t h, size_t extra_pitch)
{
    fixture_image im;
    im.desc =
        (clc_image_desc){format, w, h, extra_pitch ? w * clc_pixel_size(format) + extra_pitch : 0};
    assert_int_equal(clc_image_span(&im.desc, &im.span), CLC_SUCCESS);
    im.block = malloc(im.span + 2 * FIXTURE_GUARD_BYTES);
    assert_non_null(im.block);
    memset(im.block, FIXTURE_GUARD, im.span + 2 * FIXTURE_GUARD_BYTES);
    im.data = im.block + FIXTURE_GUARD_BYTES;
    return im;
}

void fixture_image_free(fixture_image *im)
{
    free(im->block);
    im->block = im->data = NULL;
}

void fixture_assert_guards(const fixture_image *im)
{
    for (size_t i = 0; i < FIXTURE_GUARD_BYTES; ++i) {
        assert_int_equal(im->block[i], FIXTURE_GUARD);
        assert_int_equal(im->data[im->span + i], FIXTURE_GUARD);
    }
}

void fixture_assert_padding(const fixture_image *im)
{
    const size_t row = im->desc.width * clc_pixel_size(im->desc.format);
    const size_t pitch = im->desc.pitch ? im->desc.pitch : row;
    for (size_t y = 0; y + 1 < im->desc.height; ++y)
        for (size_t x = row; x < pitch; ++x)
            assert_int_equal(im->data[y * pitch + x], FIXTURE_GUARD);
}
