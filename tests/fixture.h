/* What every test executable shares: cmocka, the public API, and helpers for temp dirs. */
#ifndef CLCOMPUTE_TEST_FIXTURE_H
#define CLCOMPUTE_TEST_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <clcompute/clcompute.h>

/* A host image inside FIXTURE_GUARD_BYTES of guard on each side, every byte (pitch padding
 * included) starting as FIXTURE_GUARD, so that writes outside the pixels show. */
#define FIXTURE_GUARD 0xA5
#define FIXTURE_GUARD_BYTES 64
typedef struct fixture_image {
    clc_image_desc desc;
    size_t span;
    uint8_t *block; /* guard | span | guard */
    uint8_t *data;  /* 16-byte aligned, as malloc gives */
} fixture_image;
/* extra_pitch: bytes of padding a row (0: packed rows, pitch 0). */
fixture_image fixture_image_new(clc_pixel_format format, size_t w, size_t h, size_t extra_pitch);
void fixture_image_free(fixture_image *im);
/* The guards before and after the span, and the padding between rows, are untouched. */
void fixture_assert_guards(const fixture_image *im);
void fixture_assert_padding(const fixture_image *im);

/* A fresh empty directory under the build tree's test area; the caller frees the string. */
char *fixture_temp_dir(const char *tag);

/* rm -r of a directory made by fixture_temp_dir. */
void fixture_remove_dir(const char *dir);

/* Files in an existing directory, hidden ones (and . and ..) not counted. */
int fixture_count_files(const char *dir);

/* Options for a context on the device tests run on (CLCOMPUTE_DEVICE, else the default), with
 * the disk cache off unless a test turns it on. */
clc_context_options fixture_options(void);

/* Creates a context or fails the test with the library's message. */
clc_context *fixture_context(const clc_context_options *options);

/* cmocka setup and teardown that put a fixture_context in *state: with the test tree's disk
 * cache (CLCOMPUTE_CACHE_DIR, as ctest sets it), or with the cache off (uncached: the context
 * builds every program from source and times every variant itself). */
int fixture_setup_context(void **state);
int fixture_setup_uncached_context(void **state);
int fixture_teardown_context(void **state);
#define FIXTURE_TEST(test)                                                                         \
    cmocka_unit_test_setup_teardown(test, fixture_setup_context, fixture_teardown_context)
#define FIXTURE_TEST_UNCACHED(test)                                                                \
    cmocka_unit_test_setup_teardown(test, fixture_setup_uncached_context, fixture_teardown_context)

/* Runs kernel "value" (one work-item writing one int) of program and returns what it wrote. */
int fixture_run_value(clc_context *ctx, cl_program program);

/* clc_reduce_enqueue of op over count elements of buffer from byte offset into result, then the
 * result's read-back and clc_reduce_decode; fails the test with the library's message. */
clc_reduce_result fixture_reduce_on_device(clc_context *ctx, clc_reduce_op op, clc_dtype type,
                                           cl_mem buffer, size_t offset, size_t count,
                                           cl_mem result);

/* Reads an OpenCL object's reference count, for checking that wrap/destroy balance. */
cl_uint fixture_context_refcount(cl_context context);
cl_uint fixture_queue_refcount(cl_command_queue queue);

#endif
