/* The selection grammar on made-up machines, and CLCOMPUTE_DEVICE on the real one. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static clc_device_info device(unsigned p, unsigned d, clc_device_type type, unsigned cus,
                              const char *platform, const char *name)
{
    clc_device_info info = {0};
    info.platform_index = p;
    info.device_index = d;
    info.type = type;
    info.compute_units = cus;
    info.platform_name = platform;
    info.name = name;
    info.available = 1;
    return info;
}

/* Platform 0: PoCL CPU; platform 1: two NVIDIA GPUs (the second larger); platform 2: an FPGA. */
static clc_device_info machine[4];

static int setup_machine(void **state)
{
    (void)state;
    machine[0] =
        device(0, 0, CLC_DEVICE_CPU, 16, "Portable Computing Language", "pthread-skylake-avx512");
    machine[1] = device(1, 0, CLC_DEVICE_GPU, 46, "NVIDIA CUDA", "NVIDIA GeForce RTX 3070");
    machine[2] = device(1, 1, CLC_DEVICE_GPU, 132, "NVIDIA CUDA", "NVIDIA H200");
    machine[3] = device(2, 0, CLC_DEVICE_ACCELERATOR, 4, "Intel(R) FPGA SDK", "fpga_emu");
    return 0;
}

static size_t pick(const clc_device_info *devices, size_t n, const char *selector)
{
    size_t index = 99;
    char reason[256];
    clc_status st =
        clc__select_among(devices, n, selector, "selector", &index, reason, sizeof reason);
    if (st != CLC_SUCCESS)
        fail_msg("selector \"%s\": %s (%s)", selector ? selector : "(null)", clc_status_string(st),
                 clc_last_error());
    assert_true(strlen(reason) > 0);
    return index;
}

static clc_status refuse(const clc_device_info *devices, size_t n, const char *selector)
{
    size_t index = 99;
    clc_status st = clc__select_among(devices, n, selector, "selector", &index, NULL, 0);
    assert_int_not_equal(st, CLC_SUCCESS);
    assert_int_equal(index, 99); /* nothing written on failure */
    return st;
}

static void default_prefers_the_gpu_with_most_compute_units(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, NULL), 2);
    assert_int_equal(pick(machine, 4, ""), 2);
    assert_int_equal(pick(machine, 4, "default"), 2);
}

static void default_falls_back_to_accelerator_then_cpu(void **state)
{
    (void)state;
    clc_device_info no_gpu[2] = {machine[0], machine[3]};
    assert_int_equal(pick(no_gpu, 2, NULL), 1);
    assert_int_equal(pick(machine, 1, NULL), 0);
}

static void ties_go_to_the_earliest_device(void **state)
{
    (void)state;
    clc_device_info twins[2] = {machine[2], machine[2]};
    twins[1].device_index = 2;
    assert_int_equal(pick(twins, 2, "gpu"), 0);
}

static void type_keywords_pick_that_type_case_insensitively(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, "cpu"), 0);
    assert_int_equal(pick(machine, 4, "GPU"), 2);
    assert_int_equal(pick(machine, 4, "Accelerator"), 3);
}

static void indices_pick_exactly_that_device(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, "1:0"), 1);
    assert_int_equal(pick(machine, 4, " 1:1 "), 2);
    assert_int_equal(pick(machine, 4, "0:0"), 0);
}

static void names_match_device_or_platform_substrings(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, "pthread"), 0);
    assert_int_equal(pick(machine, 4, "rtx"), 1);
    assert_int_equal(pick(machine, 4, "h200"), 2);
    /* Both NVIDIA GPUs match the platform name; the larger wins. */
    assert_int_equal(pick(machine, 4, "nvidia"), 2);
    assert_int_equal(pick(machine, 4, "portable"), 0);
    assert_int_equal(pick(machine, 4, "FPGA"), 3);
}

static void a_selector_that_matches_nothing_is_an_error_naming_it(void **state)
{
    (void)state;
    assert_int_equal(refuse(machine, 4, "doesnotexist"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_non_null(strstr(clc_last_error(), "doesnotexist"));
    /* The message lists what exists, so the user can correct it. */
    assert_non_null(strstr(clc_last_error(), "NVIDIA H200"));
    assert_int_equal(refuse(machine, 4, "7:0"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(machine, 4, "0:1"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(machine, 1, "gpu"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(machine, 1, "accelerator"), CLC_ERROR_DEVICE_NOT_MATCHED);
}

static void malformed_selectors_are_refused(void **state)
{
    (void)state;
    assert_int_equal(refuse(machine, 4, "   "), CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(refuse(machine, 4, "99999999999999999999999:0"), CLC_ERROR_INVALID_SELECTOR);
    char long_selector[400];
    memset(long_selector, 'x', sizeof long_selector - 1);
    long_selector[sizeof long_selector - 1] = '\0';
    assert_int_equal(refuse(machine, 4, long_selector), CLC_ERROR_INVALID_SELECTOR);
}

/* "A/B": the first alternative that matches anything; each alternative still strict. */
static void alternatives_take_the_first_that_matches(void **state)
{
    (void)state;
    clc_device_info cpu_only[1] = {machine[0]};
    assert_int_equal(pick(cpu_only, 1, "gpu/cpu"), 0);
    assert_int_equal(pick(machine, 4, "gpu/cpu"), 2);
    assert_int_equal(pick(machine, 4, "accelerator / gpu"), 3);
    assert_int_equal(pick(cpu_only, 1, "h200/rtx/pthread"), 0);
    char reason[256];
    size_t index = 99;
    assert_int_equal(
        clc__select_among(cpu_only, 1, "gpu/cpu", "selector", &index, reason, sizeof reason),
        CLC_SUCCESS);
    assert_non_null(strstr(reason, "\"cpu\" of \"gpu/cpu\""));
    assert_int_equal(refuse(cpu_only, 1, "gpu/accelerator"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_non_null(strstr(clc_last_error(), "gpu/accelerator"));
    assert_int_equal(refuse(machine, 4, "gpu/"), CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(refuse(machine, 4, "gpu/0:"), CLC_ERROR_INVALID_SELECTOR);
}

/* Where one device is wanted, a list gives its first (every part must still match), and "all"
 * the default rule's device. */
static void one_device_from_a_list_or_all(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, "cpu,gpu"), 0);
    assert_int_equal(pick(machine, 4, "all"), 2);
    assert_int_equal(pick(machine, 1, "ALL"), 0);
    assert_int_equal(refuse(machine, 1, "cpu,gpu"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(machine, 4, "cpu,"), CLC_ERROR_INVALID_SELECTOR);
    /* Every part is checked before any is matched: a mistake after a part that matches nothing
     * is named as the mistake. */
    assert_int_equal(refuse(machine, 1, "gpu,"), CLC_ERROR_INVALID_SELECTOR);
    assert_non_null(strstr(clc_last_error(), "empty part"));
    assert_int_equal(refuse(machine, 1, "gpu,0:"), CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(refuse(machine, 1, "gpu,0:99999999999999999999999"),
                     CLC_ERROR_INVALID_SELECTOR);
    assert_non_null(strstr(clc_last_error(), "out of range"));
}

static void vendor_short_names_match_their_platform(void **state)
{
    (void)state;
    assert_int_equal(pick(machine, 4, "pocl"), 0);
    assert_int_equal(pick(machine, 4, "PoCL"), 0);
    assert_int_equal(pick(machine, 4, "intel"), 3);
    assert_int_equal(pick(machine, 4, "nvidia"), 2);
    assert_int_equal(refuse(machine, 4, "amd"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(machine, 4, "apple"), CLC_ERROR_DEVICE_NOT_MATCHED);
}

static void index_selectors_are_two_numbers(void **state)
{
    (void)state;
    assert_int_equal(refuse(machine, 4, "0:"), CLC_ERROR_INVALID_SELECTOR);
    assert_non_null(strstr(clc_last_error(), "malformed"));
    assert_int_equal(refuse(machine, 4, ":1"), CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(refuse(machine, 4, "1:x"), CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(refuse(machine, 4, "1:0:0"), CLC_ERROR_INVALID_SELECTOR);
    /* A name with colons (AMD's "gfx90a:sramecc+:xnack-") is still a name. */
    clc_device_info amd[2] = {machine[0], device(3, 0, CLC_DEVICE_GPU, 110,
                                                 "AMD Accelerated "
                                                 "Parallel Processing",
                                                 "gfx90a:sramecc+:xnack-")};
    assert_int_equal(pick(amd, 2, "gfx90a:sramecc"), 1);
    assert_int_equal(pick(amd, 2, "amd"), 1);
}

/* Lists of many: every part's devices in order, "all" expanded, alternatives resolved. */
static void lists_name_every_part(void **state)
{
    (void)state;
    size_t idx[8], n = 0;
    assert_int_equal(clc__select_many_among(machine, 4, "all", "selector", idx, 8, &n),
                     CLC_SUCCESS);
    assert_int_equal(n, 4);
    assert_int_equal(clc__select_many_among(machine, 4, "gpu/cpu,cpu", "selector", idx, 8, &n),
                     CLC_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], 2);
    assert_int_equal(idx[1], 0);
    assert_int_equal(clc__select_many_among(machine, 1, "gpu/cpu,all", "selector", idx, 8, &n),
                     CLC_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 0);
    assert_int_equal(clc__select_many_among(machine, 1, "gpu/all", "selector", idx, 8, &n),
                     CLC_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(clc__select_many_among(machine, 1, "gpu,cpu", "selector", idx, 8, &n),
                     CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(clc__select_many_among(machine, 4, "all", "selector", idx, 2, &n),
                     CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(n, 4);
}

/* "localrank": the rank modulo the GPUs in PCI bus order (not list order), CPUs without a GPU;
 * refused without a rank in the environment. */
static void local_rank_spreads_ranks_over_gpus_by_bus(void **state)
{
    (void)state;
    clc_device_info node[4] = {machine[0], machine[1], machine[2], machine[1]};
    node[1].pci_bus = "0000:b1:00.0";
    node[2].pci_bus = "0000:3b:00.0";
    node[3].pci_bus = "0000:5e:00.0";
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "SLURM_LOCALID", "LOCAL_RANK"};
    for (size_t v = 0; v < 4; ++v)
        unsetenv(vars[v]);
    assert_int_equal(refuse(node, 4, "localrank"), CLC_ERROR_INVALID_SELECTOR);
    assert_non_null(strstr(clc_last_error(), "SLURM_LOCALID"));
    const size_t by_bus[3] = {2, 3, 1}; /* 3b, 5e, b1 */
    for (int rank = 0; rank < 6; ++rank) {
        char text[8];
        snprintf(text, sizeof text, "%d", rank);
        setenv(vars[rank % 4], text, 1);
        assert_int_equal(pick(node, 4, "localrank"), by_bus[rank % 3]);
        unsetenv(vars[rank % 4]);
    }
    setenv("SLURM_LOCALID", "1", 1);
    assert_int_equal(pick(machine, 1, "LocalRank"), 0); /* no GPU: the CPU */
    clc_device_info two_cpus[2] = {machine[0], machine[0]};
    assert_int_equal(pick(two_cpus, 2, "localrank"), 1);
    assert_int_equal(pick(node, 4, "localrank/cpu"), 3);
    setenv("SLURM_LOCALID", "x1", 1);
    assert_int_equal(refuse(node, 4, "localrank"), CLC_ERROR_INVALID_SELECTOR);
    unsetenv("SLURM_LOCALID");
}

static void unavailable_devices_are_never_picked(void **state)
{
    (void)state;
    clc_device_info devices[2] = {machine[0], machine[2]};
    devices[1].available = 0;
    assert_int_equal(pick(devices, 2, NULL), 0);
    assert_int_equal(refuse(devices, 2, "h200"), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_int_equal(refuse(devices, 2, "1:1"), CLC_ERROR_DEVICE_NOT_MATCHED);
    devices[0].available = 0;
    assert_int_equal(refuse(devices, 2, NULL), CLC_ERROR_NO_DEVICE);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    size_t index = 0;
    assert_int_equal(clc__select_among(NULL, 0, "cpu", "selector", &index, NULL, 0),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc__select_among(machine, 4, "cpu", "selector", NULL, NULL, 0),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_device_select(NULL, "cpu", &index, NULL, 0), CLC_ERROR_INVALID_ARGUMENT);
}

/* ---- the real machine and the environment variable ---- */

typedef struct real {
    clc_device_list *list;
    char *saved_env;
} real;

static int setup_real(void **state)
{
    real *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(clc_devices_query(&r->list), CLC_SUCCESS);
    const char *env = getenv(CLC_DEVICE_ENV);
    r->saved_env = env ? strdup(env) : NULL;
    *state = r;
    return 0;
}

static int teardown_real(void **state)
{
    real *r = *state;
    if (r->saved_env)
        setenv(CLC_DEVICE_ENV, r->saved_env, 1);
    else
        unsetenv(CLC_DEVICE_ENV);
    free(r->saved_env);
    clc_device_list_destroy(r->list);
    free(r);
    return 0;
}

/* The device every test suite can count on: the first one of the list, by its indices. */
static void first_device_selector(const clc_device_list *list, char *buf, size_t size)
{
    const clc_device_info *d = clc_device_list_get(list, 0);
    snprintf(buf, size, "%u:%u", d->platform_index, d->device_index);
}

static void environment_variable_is_used_when_no_selector_is_given(void **state)
{
    real *r = *state;
    char sel[32];
    first_device_selector(r->list, sel, sizeof sel);
    setenv(CLC_DEVICE_ENV, sel, 1);
    size_t index = 99;
    char reason[256];
    assert_int_equal(clc_device_select(r->list, NULL, &index, reason, sizeof reason), CLC_SUCCESS);
    assert_int_equal(index, 0);
    assert_non_null(strstr(reason, CLC_DEVICE_ENV));
}

static void explicit_selector_wins_over_the_environment(void **state)
{
    real *r = *state;
    setenv(CLC_DEVICE_ENV, "doesnotexist", 1);
    char sel[32];
    first_device_selector(r->list, sel, sizeof sel);
    size_t index = 99;
    assert_int_equal(clc_device_select(r->list, sel, &index, NULL, 0), CLC_SUCCESS);
    assert_int_equal(index, 0);
    assert_int_equal(clc_device_select(r->list, "default", &index, NULL, 0), CLC_SUCCESS);
}

static void environment_variable_that_matches_nothing_fails_context_creation(void **state)
{
    (void)state;
    setenv(CLC_DEVICE_ENV, "doesnotexist", 1);
    clc_context *ctx = (clc_context *)&ctx; /* must be overwritten with NULL */
    assert_int_equal(clc_context_create(NULL, &ctx), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_null(ctx);
    assert_non_null(strstr(clc_last_error(), CLC_DEVICE_ENV));
    assert_non_null(strstr(clc_last_error(), "doesnotexist"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(default_prefers_the_gpu_with_most_compute_units, setup_machine),
        cmocka_unit_test_setup(default_falls_back_to_accelerator_then_cpu, setup_machine),
        cmocka_unit_test_setup(ties_go_to_the_earliest_device, setup_machine),
        cmocka_unit_test_setup(type_keywords_pick_that_type_case_insensitively, setup_machine),
        cmocka_unit_test_setup(indices_pick_exactly_that_device, setup_machine),
        cmocka_unit_test_setup(names_match_device_or_platform_substrings, setup_machine),
        cmocka_unit_test_setup(a_selector_that_matches_nothing_is_an_error_naming_it,
                               setup_machine),
        cmocka_unit_test_setup(malformed_selectors_are_refused, setup_machine),
        cmocka_unit_test_setup(alternatives_take_the_first_that_matches, setup_machine),
        cmocka_unit_test_setup(one_device_from_a_list_or_all, setup_machine),
        cmocka_unit_test_setup(vendor_short_names_match_their_platform, setup_machine),
        cmocka_unit_test_setup(index_selectors_are_two_numbers, setup_machine),
        cmocka_unit_test_setup(lists_name_every_part, setup_machine),
        cmocka_unit_test_setup(local_rank_spreads_ranks_over_gpus_by_bus, setup_machine),
        cmocka_unit_test_setup(unavailable_devices_are_never_picked, setup_machine),
        cmocka_unit_test_setup(null_arguments_are_refused, setup_machine),
        cmocka_unit_test_setup_teardown(environment_variable_is_used_when_no_selector_is_given,
                                        setup_real, teardown_real),
        cmocka_unit_test_setup_teardown(explicit_selector_wins_over_the_environment, setup_real,
                                        teardown_real),
        cmocka_unit_test_setup_teardown(
            environment_variable_that_matches_nothing_fails_context_creation, setup_real,
            teardown_real),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
