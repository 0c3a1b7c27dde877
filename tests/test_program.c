/* Run-time program builds: options, compile errors with their log, embedded kernels. */
#include "fixture.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const value_source = "__kernel void value(__global int *out) { *out = VALUE; }";

static void build_options_reach_the_compiler(void **state)
{
    clc_context *ctx = *state;
    cl_program a = NULL, b = NULL;
    assert_int_equal(clc_program_build(ctx, value_source, "-DVALUE=7", &a), CLC_SUCCESS);
    assert_int_equal(clc_program_build(ctx, value_source, "-DVALUE=-3", &b), CLC_SUCCESS);
    assert_int_equal(fixture_run_value(ctx, a), 7);
    assert_int_equal(fixture_run_value(ctx, b), -3);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

/* A user's program is built with the user's options alone: the -w the library adds to its own
 * sources would hide the user's warnings and turn their -Werror off. */
static void user_options_are_passed_as_given(void **state)
{
    clc_context *ctx = *state;
    cl_program p = NULL;
    assert_int_equal(clc_program_build(ctx, value_source, "-DVALUE=5 -Werror", &p), CLC_SUCCESS);
    char used[256] = "";
    assert_int_equal(clGetProgramBuildInfo(p, clc_context_cl_device(ctx), CL_PROGRAM_BUILD_OPTIONS,
                                           sizeof used, used, NULL),
                     CL_SUCCESS);
    assert_string_equal(used, "-DVALUE=5 -Werror");
    assert_int_equal(fixture_run_value(ctx, p), 5);
    clReleaseProgram(p);
}

static void compile_error_returns_the_build_log(void **state)
{
    clc_context *ctx = *state;
    cl_program program = (cl_program)ctx; /* must be reset to NULL */
    clc_status st =
        clc_program_build(ctx, "__kernel void broken(__global int *p) { p[0] = undeclared_thing; }",
                          "-DMARK=1", &program);
    assert_int_equal(st, CLC_ERROR_BUILD_PROGRAM_FAILURE);
    assert_null(program);

    const char *msg = clc_last_error();
    assert_non_null(strstr(msg, "CL_BUILD_PROGRAM_FAILURE"));
    assert_non_null(strstr(msg, clc_context_device(ctx)->name));
    assert_non_null(strstr(msg, "-DMARK=1"));
    assert_non_null(strstr(msg, "undeclared_thing")); /* from the compiler's own log */

    size_t n = clc_context_last_error(ctx, NULL, 0);
    assert_true(n > 0);
    char *full = malloc(n + 1);
    assert_non_null(full);
    assert_int_equal(clc_context_last_error(ctx, full, n + 1), n);
    assert_non_null(strstr(full, "undeclared_thing"));
    /* A small buffer gets a terminated prefix. */
    char small[8];
    assert_int_equal(clc_context_last_error(ctx, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, full, sizeof small - 1);
    free(full);
}

static void misuse_is_refused(void **state)
{
    clc_context *ctx = *state;
    cl_program program = NULL;
    assert_int_equal(clc_program_build(NULL, value_source, NULL, &program),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_program_build(ctx, NULL, NULL, &program), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_program_build(ctx, "", NULL, &program), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_program_build(ctx, value_source, NULL, NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_null(program);
}

static void embedded_programs_are_built_once_per_context(void **state)
{
    clc_context *ctx = *state;
    clc_cache_stats before, after;
    assert_int_equal(clc_context_cache_stats(ctx, &before), CLC_SUCCESS);
    cl_program first = NULL, again = NULL;
    assert_int_equal(clc__program_get(ctx, &clc__source_copy, NULL, &first), CLC_SUCCESS);
    assert_int_equal(clc__program_get(ctx, &clc__source_copy, "", &again), CLC_SUCCESS);
    assert_ptr_equal(first, again);
    assert_int_equal(clc_context_cache_stats(ctx, &after), CLC_SUCCESS);
    assert_int_equal(after.misses, before.misses + 1);
}

static void embedded_source_carries_its_build_time_hash(void **state)
{
    (void)state;
    assert_string_equal(clc__source_copy.name, "copy");
    assert_int_equal(strlen(clc__source_copy.text), clc__source_copy.length);
    assert_non_null(strstr(clc__source_copy.text, "__kernel void copy_f4"));
    assert_int_equal(strncmp(clc__source_copy.hash, "sha256:", 7), 0);
    assert_int_equal(strlen(clc__source_copy.hash), 7 + 64);
    /* Every cl/ file is in the generated table, once, in name order, each with its own hash. */
    assert_true(CLC_SOURCE_COUNT >= 4);
    for (size_t i = 0; i < CLC_SOURCE_COUNT; ++i) {
        const clc_embedded_source *s = clc__sources[i];
        assert_int_equal(strlen(s->text), s->length);
        assert_int_equal(strlen(s->hash), 7 + 64);
        assert_non_null(strstr(s->text, "__kernel"));
        if (i > 0) {
            assert_true(strcmp(clc__sources[i - 1]->name, s->name) < 0);
            assert_string_not_equal(clc__sources[i - 1]->hash, s->hash);
        }
    }
}

static void copy_bandwidth_is_measured(void **state)
{
    clc_context *ctx = *state;
    double gbps = -1.0;
    assert_int_equal(clc_measure_copy_bandwidth(ctx, (size_t)4 << 20, 3, &gbps), CLC_SUCCESS);
    /* A rate, not a speed limit: valgrind on a loaded machine may be very slow. */
    assert_true(gbps > 0.0 && gbps < 1e9);
    assert_int_equal(clc_measure_copy_bandwidth(ctx, 1000, 3, &gbps), CLC_ERROR_INVALID_ARGUMENT);
    assert_true(gbps == 0.0);
    assert_int_equal(clc_measure_copy_bandwidth(ctx, SIZE_MAX, 3, &gbps), CLC_ERROR_UNSUPPORTED);
    assert_int_equal(clc_measure_copy_bandwidth(ctx, (size_t)4 << 20, 3, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    /* Uncached contexts: building from source is what these tests check. */
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST_UNCACHED(build_options_reach_the_compiler),
        FIXTURE_TEST_UNCACHED(user_options_are_passed_as_given),
        FIXTURE_TEST_UNCACHED(compile_error_returns_the_build_log),
        FIXTURE_TEST_UNCACHED(misuse_is_refused),
        FIXTURE_TEST_UNCACHED(embedded_programs_are_built_once_per_context),
        cmocka_unit_test(embedded_source_carries_its_build_time_hash),
        FIXTURE_TEST_UNCACHED(copy_bandwidth_is_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
