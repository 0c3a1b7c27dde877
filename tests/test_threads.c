/* Eight threads share one context and run every kernel family at once, many times, each result
 * checked against the serial reference: the program registry, variant timing, pinned staging
 * and the shared queue must hold under contention. Workers record failures; the main thread
 * asserts (cmocka's assertions must not run on other threads). */
#include "fixture.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/cloud.h"
#include "../lib/ref/gray.h"
#include "../lib/ref/reduce.h"

enum { THREADS = 8, ITERATIONS = 30 };

typedef struct worker {
    clc_context *ctx;
    unsigned id;
    int calls;
    char failure[256]; /* first failure, empty when none */
} worker;

static void fail_once(worker *w, const char *what, const char *detail)
{
    if (!w->failure[0])
        snprintf(w->failure, sizeof w->failure, "thread %u: %s: %s", w->id, what, detail);
}

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

static void gray_once(worker *w, size_t width, size_t height, uint32_t *seed)
{
    const clc_image_desc src = {CLC_PIXEL_RGB8, width, height, 0};
    const clc_image_desc dst = {CLC_PIXEL_GRAY8, width, height, 0};
    uint8_t *in = calloc(width * height, 3), *out = malloc(width * height);
    uint8_t *ref = malloc(width * height);
    if (!in || !out || !ref) {
        fail_once(w, "gray", "out of memory");
    } else {
        for (size_t i = 0; i < width * height * 3; ++i)
            in[i] = (uint8_t)next(seed);
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        if (clc_gray(w->ctx, &src, in, &dst, out, NULL) != CLC_SUCCESS)
            fail_once(w, "clc_gray", clc_last_error());
        else if (memcmp(out, ref, width * height) != 0)
            fail_once(w, "gray", "result differs from the reference");
        ++w->calls;
    }
    free(in), free(out), free(ref);
}

static void cloud_once(worker *w, size_t width, size_t height, uint32_t *seed)
{
    const size_t n = width * height;
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, width, height, 0};
    const clc_intrinsics k = {300.0, 310.0, width / 2.0, height / 2.0};
    clc_cloud_options options = {0};
    options.depth_trunc = 3.0;
    const clc_ref_cloud p =
        clc__ref_cloud_params(1000.0, 3.0, &k, 1, width, height, CLC_CLOUD_DENSE);
    uint16_t *depth = malloc(n * 2);
    float *out = malloc(n * 12), *ref = malloc((n + 1) * 12); /* the reference may scratch one */
    if (!depth || !out || !ref) {
        fail_once(w, "cloud", "out of memory");
    } else {
        for (size_t i = 0; i < n; ++i)
            depth[i] = (uint16_t)(next(seed) % 4000);
        const size_t want = clc__ref_depth_to_points(&desc, depth, NULL, NULL, &p, ref, NULL);
        size_t count = 0;
        if (clc_depth_to_points(w->ctx, &desc, depth, NULL, NULL, &k, &options, out, NULL, n,
                                &count) != CLC_SUCCESS)
            fail_once(w, "clc_depth_to_points", clc_last_error());
        else if (count != want)
            fail_once(w, "cloud", "point count differs from the reference");
        else
            for (size_t i = 0; i < 3 * want; ++i)
                if (fabsf(out[i] - ref[i]) > 1e-5f * fabsf(ref[i])) {
                    fail_once(w, "cloud", "a point differs from the reference");
                    break;
                }
        ++w->calls;
    }
    free(depth), free(out), free(ref);
}

static void reduce_once(worker *w, size_t n, uint32_t *seed)
{
    int32_t *x = malloc(n * sizeof *x);
    if (!x) {
        fail_once(w, "reduce", "out of memory");
        return;
    }
    for (size_t i = 0; i < n; ++i)
        x[i] = (int32_t)next(seed) - (1 << 23);
    static const clc_reduce_op ops[] = {CLC_REDUCE_SUM, CLC_REDUCE_ARGMAX};
    for (size_t o = 0; o < 2; ++o) {
        clc_reduce_result got, want;
        clc__ref_reduce(ops[o], CLC_DTYPE_I32, x, n, &want, NULL);
        if (clc_reduce(w->ctx, ops[o], CLC_DTYPE_I32, x, n, &got) != CLC_SUCCESS)
            fail_once(w, "clc_reduce", clc_last_error());
        else if (got.i != want.i || (ops[o] == CLC_REDUCE_ARGMAX && got.index != want.index))
            fail_once(w, "reduce", "result differs from the reference");
        ++w->calls;
    }
    free(x);
}

static void *work(void *arg)
{
    worker *w = arg;
    uint32_t seed = 17 + w->id;
    for (int it = 0; it < ITERATIONS && !w->failure[0]; ++it) {
        /* Odd sizes that differ between threads and iterations. */
        const size_t width = 61 + 17 * w->id + (size_t)it, height = 37 + 5 * (size_t)it;
        switch ((w->id + (unsigned)it) % 3) {
        case 0:
            gray_once(w, width, height, &seed);
            break;
        case 1:
            cloud_once(w, width, height, &seed);
            break;
        default:
            reduce_once(w, 1000 + 4099 * w->id + 31 * (size_t)it, &seed);
        }
    }
    return NULL;
}

/* All threads leave at once, when the last arrives or the gate is opened (a thread not made). A
 * mutex and a condition rather than pthread_barrier_t, which macOS lacks. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    unsigned waiting, open;
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void gate_wait(void)
{
    pthread_mutex_lock(&gate.lock);
    if (++gate.waiting == THREADS)
        gate.open = 1;
    pthread_cond_broadcast(&gate.opened);
    while (!gate.open)
        pthread_cond_wait(&gate.opened, &gate.lock);
    pthread_mutex_unlock(&gate.lock);
}

static void gate_open(void)
{
    pthread_mutex_lock(&gate.lock);
    gate.open = 1;
    pthread_cond_broadcast(&gate.opened);
    pthread_mutex_unlock(&gate.lock);
}

/* Runs fn on THREADS workers (each given ctx, which may be NULL), joins every one, and only then
 * asserts: a failed assertion jumps out of the test, which must not happen while threads still
 * write into `workers`. A worker that cannot be made opens the gate, so none waits for it. The
 * calls of all workers together. */
static int run_workers(void *(*fn)(void *), clc_context *ctx)
{
    pthread_t threads[THREADS];
    worker workers[THREADS];
    unsigned made = 0;
    for (; made < THREADS; ++made) {
        memset(&workers[made], 0, sizeof workers[made]);
        workers[made].ctx = ctx;
        workers[made].id = made;
        if (pthread_create(&threads[made], NULL, fn, &workers[made]) != 0)
            break;
    }
    if (made < THREADS)
        gate_open();
    for (unsigned t = 0; t < made; ++t)
        pthread_join(threads[t], NULL);
    assert_int_equal(made, THREADS);
    int calls = 0;
    for (unsigned t = 0; t < THREADS; ++t) {
        if (workers[t].failure[0])
            fail_msg("%s", workers[t].failure);
        calls += workers[t].calls;
    }
    return calls;
}

/* The first OpenCL calls of the process from eight threads at once, each discovering the devices
 * and making a context: drivers set themselves up on the first query, which PoCL 3.1 did not
 * survive from two threads at once (a crash, or no device) before queries took a lock. Must run
 * before anything else in this process touches OpenCL. */
static void *first_contexts(void *arg)
{
    worker *w = arg;
    gate_wait();
    clc_device_list *list = NULL;
    if (clc_devices_query(&list) != CLC_SUCCESS)
        fail_once(w, "clc_devices_query", clc_last_error());
    clc_device_list_destroy(list);
    if (clc_context_create(NULL, &w->ctx) != CLC_SUCCESS) {
        fail_once(w, "clc_context_create", clc_last_error());
        return NULL;
    }
    uint32_t seed = 7 + w->id;
    gray_once(w, 33, 17, &seed);
    clc_context_destroy(w->ctx);
    return NULL;
}

static void first_queries_from_eight_threads_at_once(void **state)
{
    (void)state;
    assert_int_equal(run_workers(first_contexts, NULL), THREADS); /* a gray call each */
}

static void eight_threads_share_one_context(void **state)
{
    assert_true(run_workers(work, *state) >= THREADS * ITERATIONS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_queries_from_eight_threads_at_once), /* first: see there */
        /* Uncached: its eight threads build the programs and time the variants at once. */
        FIXTURE_TEST_UNCACHED(eight_threads_share_one_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
