/* Batches: device lists, sub-devices, results identical to one call at a time for 1, 2 and 3
 * participating devices, a failing item in the middle, cancellation, and misuse. */
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"
#include "../lib/ref/gray.h"
#include "internal.h"

enum { ITEMS = 40 };

/* The selector of the device the tests run on. */
static const char *device(void)
{
    const char *env = getenv("CLCOMPUTE_DEVICE");
    return env && *env ? env : "default";
}

static void lists_of_selectors(void **state)
{
    (void)state;
    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    size_t idx[8], n = 0, one = 0;
    assert_int_equal(clc_device_select(list, device(), &one, NULL, 0), CLC_SUCCESS);
    assert_int_equal(clc_device_select_many(list, "all", idx, 8, &n), CLC_SUCCESS);
    assert_true(n >= 1);
    char twice[600];
    snprintf(twice, sizeof twice, "%s, %s", device(), device());
    assert_int_equal(clc_device_select_many(list, twice, idx, 8, &n), CLC_SUCCESS);
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], one);
    assert_int_equal(idx[1], one);
    assert_int_equal(clc_device_select_many(list, twice, idx, 1, &n), CLC_ERROR_SIZE_OVERFLOW);
    assert_int_equal(n, 2);
    assert_int_equal(clc_device_select_many(list, "cpu,,gpu", idx, 8, &n),
                     CLC_ERROR_INVALID_SELECTOR);
    assert_int_equal(clc_device_select_many(list, "default,no-such-device", idx, 8, &n),
                     CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_non_null(strstr(clc_last_error(), "no-such-device"));
    assert_int_equal(clc_device_select_many(NULL, "all", idx, 8, &n), CLC_ERROR_INVALID_ARGUMENT);
    clc_device_list_destroy(list);
}

/* Inputs and outputs of the items: even items are gray conversions, odd ones dense clouds, of
 * sizes that differ from item to item. */
typedef struct items {
    clc_image_desc desc[ITEMS];
    unsigned char *in[ITEMS];
    void *out[ITEMS];
    size_t points[ITEMS];
    int bad; /* item whose description is made invalid, or -1 */
} items;

static const clc_intrinsics k = {100.0, 100.0, 20.0, 15.0};

static void items_make(items *it)
{
    uint32_t seed = 5;
    it->bad = -1;
    for (size_t i = 0; i < ITEMS; ++i) {
        const size_t w = 31 + 7 * i, h = 9 + i % 13;
        const int gray = i % 2 == 0;
        it->desc[i] = (clc_image_desc){gray ? CLC_PIXEL_RGB8 : CLC_PIXEL_DEPTH_U16, w, h, 0};
        const size_t bytes = w * h * (gray ? 3 : 2);
        it->in[i] = malloc(bytes);
        it->out[i] = malloc(gray ? w * h : w * h * 12);
        assert_non_null(it->in[i]);
        assert_non_null(it->out[i]);
        for (size_t b = 0; b < bytes; ++b) {
            seed = seed * 1664525u + 1013904223u;
            it->in[i][b] = (unsigned char)(seed >> 24);
        }
    }
}

static void items_free(items *it)
{
    for (size_t i = 0; i < ITEMS; ++i)
        free(it->in[i]), free(it->out[i]);
}

static clc_status job(clc_context *ctx, size_t i, void *user)
{
    items *it = user;
    clc_image_desc d = it->desc[i];
    if ((int)i == it->bad)
        d.width = 0;
    if (d.format == CLC_PIXEL_RGB8) {
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, d.width, d.height, 0};
        return clc_gray(ctx, &d, it->in[i], &dst, it->out[i], NULL);
    }
    return clc_depth_to_points(ctx, &d, it->in[i], NULL, NULL, &k, NULL, it->out[i], NULL,
                               d.width * d.height, &it->points[i]);
}

/* Every item against the serial references (what one call at a time gives, bit for bit). */
static void items_check(const items *it)
{
    for (size_t i = 0; i < ITEMS; ++i) {
        const clc_image_desc *d = &it->desc[i];
        const size_t px = d->width * d->height;
        if (d->format == CLC_PIXEL_RGB8) {
            const clc_image_desc dst = {CLC_PIXEL_GRAY8, d->width, d->height, 0};
            unsigned char *ref = malloc(px);
            clc__ref_gray(d, it->in[i], &dst, ref, CLC_GRAY_BT601);
            if (memcmp(ref, it->out[i], px) != 0)
                fail_msg("item %zu (gray) differs", i);
            free(ref);
        } else {
            const clc_ref_cloud p =
                clc__ref_cloud_params(1000.0, 1000.0, &k, 1, d->width, d->height, CLC_CLOUD_DENSE);
            float *ref = malloc((px + 1) * 12);
            const size_t n = clc__ref_depth_to_points(d, it->in[i], NULL, NULL, &p, ref, NULL);
            if (n != it->points[i] || memcmp(ref, it->out[i], n * 12) != 0)
                fail_msg("item %zu (cloud) differs", i);
            free(ref);
        }
    }
}

/* A batch of `participants` devices: sub-devices of a CPU where it can be split, else the test
 * device named several times. */
static clc_batch *batch_of(unsigned participants, unsigned workers)
{
    clc_batch_options o = {0};
    char names[900] = "";
    clc_context *probe = fixture_context(NULL);
    const clc_device_info *d = clc_context_device(probe);
    const int split = participants > 1 && d->type == CLC_DEVICE_CPU &&
                      d->compute_units >= participants && participants == 2;
    clc_context_destroy(probe);
    if (split) {
        snprintf(names, sizeof names, "%s", device());
        o.cpu_partitions = participants;
    } else {
        for (unsigned i = 0; i < participants; ++i)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "",
                     device());
    }
    o.devices = names;
    o.workers_per_device = workers;
    o.cache = CLC_CACHE_OFF;
    clc_batch *b = NULL;
    if (clc_batch_create(&o, &b) != CLC_SUCCESS)
        fail_msg("clc_batch_create(%s, %u partitions): %s", names, o.cpu_partitions,
                 clc_last_error());
    assert_int_equal(clc_batch_device_count(b), participants);
    return b;
}

static void same_results_on_one_two_and_three_devices(void **state)
{
    (void)state;
    for (unsigned participants = 1; participants <= 3; ++participants) {
        for (unsigned workers = 1; workers <= 2; ++workers) {
            items it;
            items_make(&it);
            clc_batch *b = batch_of(participants, workers);
            clc_status statuses[ITEMS];
            assert_int_equal(clc_batch_run(b, ITEMS, job, &it, statuses, NULL, NULL), CLC_SUCCESS);
            size_t total = 0;
            for (size_t d = 0; d < clc_batch_device_count(b); ++d) {
                assert_non_null(clc_batch_device(b, d));
                assert_int_equal(clc_batch_workers(b, d), workers);
                total += clc_batch_items_done(b, d);
            }
            assert_int_equal(clc_batch_workers(b, participants), 0);
            assert_int_equal(clc_batch_workers(NULL, 0), 0);
            assert_int_equal(total, ITEMS);
            for (size_t i = 0; i < ITEMS; ++i)
                assert_int_equal(statuses[i], CLC_SUCCESS);
            items_check(&it);
            clc_batch_destroy(b);
            items_free(&it);
        }
    }
}

/* "all": every device of the machine at once; on a host with a GPU and PoCL this is the real
 * multi-device path (two drivers, two kinds of device), in CI the one CPU. */
static void every_device_of_the_machine(void **state)
{
    (void)state;
    clc_device_list *list = NULL;
    assert_int_equal(clc_devices_query(&list), CLC_SUCCESS);
    const size_t available = clc_device_list_count(list);
    clc_device_list_destroy(list);
    clc_batch_options o = {0};
    o.devices = "all";
    o.cache = CLC_CACHE_OFF;
    clc_batch *b = NULL;
    if (clc_batch_create(&o, &b) != CLC_SUCCESS)
        fail_msg("clc_batch_create(all): %s", clc_last_error());
    assert_int_equal(clc_batch_device_count(b), available);
    for (int round = 0; round < 2; ++round) {
        items it;
        items_make(&it);
        assert_int_equal(clc_batch_run(b, ITEMS, job, &it, NULL, NULL, NULL), CLC_SUCCESS);
        size_t total = 0;
        for (size_t d = 0; d < clc_batch_device_count(b); ++d) {
            /* The default: 4 workers on a device of its own memory, 2 on one sharing the host's. */
            assert_int_equal(clc_batch_workers(b, d),
                             clc_batch_device(b, d)->unified_memory ? 2 : 4);
            total += clc_batch_items_done(b, d);
            print_message("round %d: %zu items on %s\n", round, clc_batch_items_done(b, d),
                          clc_batch_device(b, d)->name);
        }
        assert_int_equal(total, ITEMS);
        items_check(&it);
        items_free(&it);
    }
    clc_batch_destroy(b);
}

static void a_bad_item_fails_alone(void **state)
{
    (void)state;
    items it;
    items_make(&it);
    it.bad = 17;
    clc_batch *b = batch_of(2, 2);
    clc_status statuses[ITEMS];
    assert_int_equal(clc_batch_run(b, ITEMS, job, &it, statuses, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "item 17"));
    for (size_t i = 0; i < ITEMS; ++i)
        assert_int_equal(statuses[i], i == 17 ? CLC_ERROR_INVALID_ARGUMENT : CLC_SUCCESS);
    clc_batch_destroy(b);
    items_free(&it);
}

typedef struct cancel_state {
    clc_batch *batch;
    size_t calls, last_done;
} cancel_state;

static void cancel_after_five(size_t done, size_t failed, size_t count, void *user)
{
    cancel_state *c = user;
    (void)failed;
    ++c->calls;
    /* One call at a time, in order: done only grows. */
    if (done <= c->last_done || done > count)
        c->last_done = (size_t)-1;
    else
        c->last_done = done;
    if (done == 5)
        clc_batch_cancel(c->batch);
}

static void cancellation_stops_after_the_items_in_progress(void **state)
{
    (void)state;
    items it;
    items_make(&it);
    clc_batch *b = batch_of(1, 2);
    cancel_state c = {b, 0, 0};
    clc_status statuses[ITEMS];
    assert_int_equal(clc_batch_run(b, ITEMS, job, &it, statuses, cancel_after_five, &c),
                     CLC_ERROR_CANCELLED);
    assert_true(c.last_done != (size_t)-1);
    size_t ok = 0, cancelled = 0;
    for (size_t i = 0; i < ITEMS; ++i) {
        ok += statuses[i] == CLC_SUCCESS;
        cancelled += statuses[i] == CLC_ERROR_CANCELLED;
    }
    assert_int_equal(ok + cancelled, ITEMS);
    assert_true(ok >= 5 && ok <= 5 + 2); /* at most one more item a worker was in progress */
    assert_int_equal(ok, c.calls);
    /* The next run starts afresh and completes. */
    assert_int_equal(clc_batch_run(b, ITEMS, job, &it, statuses, NULL, NULL), CLC_SUCCESS);
    items_check(&it);
    clc_batch_destroy(b);
    items_free(&it);
}

/* A job that runs its own batch again: refused while the run is in progress. */
typedef struct nested {
    clc_batch *batch;
    clc_status inner[3];
    char why[3][200]; /* the worker thread's message */
} nested;

static clc_status run_again(clc_context *ctx, size_t item, void *user)
{
    (void)ctx;
    nested *n = user;
    n->inner[item] = clc_batch_run(n->batch, 1, run_again, user, NULL, NULL, NULL);
    snprintf(n->why[item], sizeof n->why[item], "%s", clc_last_error());
    return CLC_SUCCESS;
}

static void a_second_run_at_once_is_refused(void **state)
{
    (void)state;
    clc_batch *b = batch_of(1, 2);
    nested n = {b, {CLC_SUCCESS, CLC_SUCCESS, CLC_SUCCESS}, {""}};
    assert_int_equal(clc_batch_run(b, 3, run_again, &n, NULL, NULL, NULL), CLC_SUCCESS);
    for (size_t i = 0; i < 3; ++i) {
        assert_int_equal(n.inner[i], CLC_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(n.why[i], "running already"));
    }
    /* The refusal leaves the batch as it was: the next run completes. */
    items it;
    items_make(&it);
    assert_int_equal(clc_batch_run(b, ITEMS, job, &it, NULL, NULL, NULL), CLC_SUCCESS);
    items_check(&it);
    items_free(&it);
    clc_batch_destroy(b);
}

/* Pinned memory on a batch's device: every worker of the device reads it without staging, the
 * results those of ordinary memory; the batch frees what is left. */
typedef struct pinned_job {
    const float *data; /* pinned: ITEMS rows of 1000 */
    clc_reduce_result results[ITEMS];
} pinned_job;

static clc_status sum_row(clc_context *ctx, size_t item, void *user)
{
    pinned_job *j = user;
    if (!clc__host_pinned(ctx, j->data + 1000 * item, 1000 * sizeof(float)))
        return CLC_ERROR_INVALID_ARGUMENT; /* a worker that does not see the allocation */
    return clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, j->data + 1000 * item, 1000,
                      &j->results[item]);
}

static void pinned_memory_serves_every_worker(void **state)
{
    (void)state;
    clc_batch *b = batch_of(1, 3);
    clc_context *device0 = clc_batch_context(b, 0);
    assert_non_null(device0);
    assert_null(clc_batch_context(b, 1));
    float *data = NULL;
    assert_int_equal(clc_host_alloc(device0, ITEMS * 1000 * sizeof *data, (void **)&data),
                     CLC_SUCCESS);
    for (size_t i = 0; i < ITEMS * 1000; ++i)
        data[i] = (float)(i % 977) * 0.5f;
    pinned_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->data = data;
    assert_int_equal(clc_batch_run(b, ITEMS, sum_row, j, NULL, NULL, NULL), CLC_SUCCESS);
    clc_context *ctx = fixture_context(NULL);
    for (size_t i = 0; i < ITEMS; ++i) {
        clc_reduce_result want;
        assert_int_equal(
            clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, data + 1000 * i, 1000, &want),
            CLC_SUCCESS);
        assert_memory_equal(&j->results[i].f, &want.f, sizeof want.f);
    }
    clc_context_destroy(ctx);
    free(j);
    clc_batch_destroy(b); /* frees `data` with the device's contexts */
}

static void misuse_is_refused(void **state)
{
    (void)state;
    assert_int_equal(clc_batch_create(NULL, NULL), CLC_ERROR_INVALID_ARGUMENT);
    clc_batch *b = NULL;
    clc_batch_options o = {0};
    o.devices = "no-such-device";
    assert_int_equal(clc_batch_create(&o, &b), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_null(b);
    o.devices = NULL;
    o.cpu_partitions = 1000;
    assert_int_equal(clc_batch_create(&o, &b), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_batch_run(NULL, 1, job, NULL, NULL, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_batch_device_count(NULL), 0);
    assert_null(clc_batch_device(NULL, 0));
    clc_batch_cancel(NULL);
    clc_batch_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_of_selectors),
        cmocka_unit_test(same_results_on_one_two_and_three_devices),
        cmocka_unit_test(every_device_of_the_machine),
        cmocka_unit_test(a_bad_item_fails_alone),
        cmocka_unit_test(cancellation_stops_after_the_items_in_progress),
        cmocka_unit_test(a_second_run_at_once_is_refused),
        cmocka_unit_test(pinned_memory_serves_every_worker),
        cmocka_unit_test(misuse_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
