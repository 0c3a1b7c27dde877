/* Discovery describes every device with sane properties; the list API refuses misuse. */
#include "fixture.h"

#include <stdlib.h>
#include <string.h>

static void lists_at_least_one_device_with_its_properties(void **state)
{
    (void)state;
    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    assert_non_null(list);
    assert_true(clc_device_list_count(list) >= 1);
    for (size_t i = 0; i < clc_device_list_count(list); ++i) {
        const clc_device_info *d = clc_device_list_get(list, i);
        assert_non_null(d);
        assert_non_null(d->platform);
        assert_non_null(d->device);
        assert_true(strlen(d->name) > 0);
        assert_true(strlen(d->platform_name) > 0);
        assert_true(strncmp(d->device_version, "OpenCL ", 7) == 0);
        assert_true(strncmp(d->opencl_c_version, "OpenCL C ", 9) == 0);
        assert_true(d->compute_units >= 1);
        assert_true(d->global_mem_bytes > 0);
        assert_true(d->max_alloc_bytes > 0 && d->max_alloc_bytes <= d->global_mem_bytes);
        assert_true(d->max_work_group_size >= 1);
        assert_true(d->type >= CLC_DEVICE_OTHER && d->type <= CLC_DEVICE_ACCELERATOR);
        if (d->type == CLC_DEVICE_CPU)
            assert_true(d->unified_memory);
    }
    clc_device_list_destroy(list);
}

static void devices_are_in_platform_then_device_order(void **state)
{
    (void)state;
    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    for (size_t i = 1; i < clc_device_list_count(list); ++i) {
        const clc_device_info *a = clc_device_list_get(list, i - 1);
        const clc_device_info *b = clc_device_list_get(list, i);
        assert_true(
            a->platform_index < b->platform_index ||
            (a->platform_index == b->platform_index && a->device_index + 1 == b->device_index));
    }
    clc_device_list_destroy(list);
}

/* CI (CI=true) runs on PoCL with no GPU: its CPU device must be found there. */
static void pocl_cpu_device_is_listed_in_ci(void **state)
{
    (void)state;
    const char *ci = getenv("CI");
    if (!ci || strcmp(ci, "true") != 0)
        skip();
    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    int found = 0;
    for (size_t i = 0; i < clc_device_list_count(list); ++i) {
        const clc_device_info *d = clc_device_list_get(list, i);
        found |= d->type == CLC_DEVICE_CPU && strstr(d->platform_name, "Portable") != NULL;
    }
    assert_true(found);
    clc_device_list_destroy(list);
}

static void list_accessors_refuse_misuse(void **state)
{
    (void)state;
    assert_int_equal(clc_devices_query(NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_true(strstr(clc_last_error(), "NULL") != NULL);
    assert_int_equal(clc_device_list_count(NULL), 0);
    assert_null(clc_device_list_get(NULL, 0));
    assert_int_equal(clc_device_list_skipped_platforms(NULL), 0);
    clc_device_list_destroy(NULL);

    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    assert_null(clc_device_list_get(list, clc_device_list_count(list)));
    assert_null(clc_device_list_get(list, (size_t)-1));
    clc_device_list_destroy(list);
}

static void device_types_have_names(void **state)
{
    (void)state;
    assert_string_equal(clc_device_type_string(CLC_DEVICE_CPU), "CPU");
    assert_string_equal(clc_device_type_string(CLC_DEVICE_GPU), "GPU");
    assert_string_equal(clc_device_type_string(CLC_DEVICE_ACCELERATOR), "accelerator");
    assert_string_equal(clc_device_type_string(CLC_DEVICE_OTHER), "other");
    assert_string_equal(clc_device_type_string((clc_device_type)42), "other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_at_least_one_device_with_its_properties),
        cmocka_unit_test(devices_are_in_platform_then_device_order),
        cmocka_unit_test(pocl_cpu_device_is_listed_in_ci),
        cmocka_unit_test(list_accessors_refuse_misuse),
        cmocka_unit_test(device_types_have_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
