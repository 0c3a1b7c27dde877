/* Every status has a name and a description; OpenCL's codes are named as OpenCL names them. */
#include "fixture.h"

#include <string.h>

static const int library_statuses[] = {
    CLC_SUCCESS,
    CLC_ERROR_OUT_OF_RESOURCES,
    CLC_ERROR_OUT_OF_HOST_MEMORY,
    CLC_ERROR_BUILD_PROGRAM_FAILURE,
    CLC_ERROR_INVALID_ARGUMENT,
    CLC_ERROR_NO_PLATFORM,
    CLC_ERROR_NO_DEVICE,
    CLC_ERROR_DEVICE_NOT_MATCHED,
    CLC_ERROR_INVALID_SELECTOR,
    CLC_ERROR_UNSUPPORTED,
    CLC_ERROR_IO,
    CLC_ERROR_SIZE_OVERFLOW,
    CLC_ERROR_CANCELLED,
};
#define COUNT (sizeof library_statuses / sizeof library_statuses[0])

static void every_library_status_has_a_distinct_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT; ++i) {
        const char *name = clc_status_string(library_statuses[i]);
        assert_string_not_equal(name, "CLC_UNKNOWN_STATUS");
        for (size_t j = 0; j < i; ++j)
            assert_string_not_equal(name, clc_status_string(library_statuses[j]));
    }
}

static void every_library_status_has_a_description(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT; ++i) {
        const char *text = clc_status_description(library_statuses[i]);
        assert_string_not_equal(text, "unknown status code");
        assert_true(strlen(text) > 5);
    }
}

static void opencl_codes_keep_their_opencl_names(void **state)
{
    (void)state;
    assert_string_equal(clc_status_string(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    assert_string_equal(clc_status_string(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
    assert_string_equal(clc_status_string(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
    assert_string_equal(clc_status_string(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    assert_int_equal(CLC_ERROR_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

static void every_opencl_1_2_error_code_is_named(void **state)
{
    (void)state;
    for (int code = -1; code >= -19; --code)
        assert_string_not_equal(clc_status_string(code), "CLC_UNKNOWN_STATUS");
    for (int code = -30; code >= -68; --code)
        assert_string_not_equal(clc_status_string(code), "CLC_UNKNOWN_STATUS");
}

static void unknown_codes_say_so(void **state)
{
    (void)state;
    assert_string_equal(clc_status_string(12345), "CLC_UNKNOWN_STATUS");
    assert_string_equal(clc_status_string(-25), "CLC_UNKNOWN_STATUS");
    assert_string_equal(clc_status_description(-2099), "unknown status code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_library_status_has_a_distinct_name),
        cmocka_unit_test(every_library_status_has_a_description),
        cmocka_unit_test(opencl_codes_keep_their_opencl_names),
        cmocka_unit_test(every_opencl_1_2_error_code_is_named),
        cmocka_unit_test(unknown_codes_say_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
