/* Contexts: creation, wrapping a caller's objects, and sharing one between threads. */
#include "fixture.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void creates_a_context_with_queue_and_reason(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    clc_context *ctx = fixture_context(&options);
    assert_non_null(clc_context_cl_context(ctx));
    assert_non_null(clc_context_cl_device(ctx));
    assert_non_null(clc_context_cl_queue(ctx));
    const clc_device_info *d = clc_context_device(ctx);
    assert_non_null(d);
    assert_ptr_equal(d->device, clc_context_cl_device(ctx));
    assert_true(strlen(clc_context_selection_reason(ctx)) > 0);
    assert_null(clc_context_cache_dir(ctx)); /* the options turned the cache off */
    clc_context_destroy(ctx);
}

static void profiling_option_sets_the_queue_property(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    options.profiling = 1;
    clc_context *ctx = fixture_context(&options);
    cl_command_queue_properties props = 0;
    assert_int_equal(clGetCommandQueueInfo(clc_context_cl_queue(ctx), CL_QUEUE_PROPERTIES,
                                           sizeof props, &props, NULL),
                     CL_SUCCESS);
    assert_true(props & CL_QUEUE_PROFILING_ENABLE);
    clc_context_destroy(ctx);
}

static void misuse_is_refused_without_touching_outputs(void **state)
{
    (void)state;
    assert_int_equal(clc_context_create(NULL, NULL), CLC_ERROR_INVALID_ARGUMENT);
    clc_context_options options = fixture_options();
    options.cache = (clc_cache_mode)7;
    clc_context *ctx = (clc_context *)&options;
    assert_int_equal(clc_context_create(&options, &ctx), CLC_ERROR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_non_null(strstr(clc_last_error(), "cache"));
    options = fixture_options();
    options.transfers = (clc_transfer_mode)2;
    assert_int_equal(clc_context_create(&options, &ctx), CLC_ERROR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_non_null(strstr(clc_last_error(), "transfers"));
    options = fixture_options();
    options.device = "doesnotexist";
    assert_int_equal(clc_context_create(&options, &ctx), CLC_ERROR_DEVICE_NOT_MATCHED);
    assert_null(ctx);
    assert_non_null(strstr(clc_last_error(), "doesnotexist"));

    /* A buffer past the device's limit is named as such, with the limit (checked here without
     * allocating gigabytes). */
    ctx = fixture_context(NULL);
    char limit[32];
    snprintf(limit, sizeof limit, "%llu bytes",
             (unsigned long long)clc_context_device(ctx)->max_alloc_bytes);
    assert_int_equal(clc__cl_fail(ctx, CL_INVALID_BUFFER_SIZE, "preparing the input"),
                     (clc_status)CL_INVALID_BUFFER_SIZE);
    assert_non_null(strstr(clc_last_error(), "largest buffer"));
    assert_non_null(strstr(clc_last_error(), limit));
    clc_context_destroy(ctx);

    clc_context_destroy(NULL);
    assert_null(clc_context_cl_context(NULL));
    assert_null(clc_context_cl_device(NULL));
    assert_null(clc_context_cl_queue(NULL));
    assert_null(clc_context_device(NULL));
    assert_null(clc_context_selection_reason(NULL));
    assert_int_equal(clc_context_cache_stats(NULL, NULL), CLC_ERROR_INVALID_ARGUMENT);
    char buf[4] = "xyz";
    assert_int_equal(clc_context_last_error(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

/* ---- interop ---- */

typedef struct own_objects {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
} own_objects;

static own_objects make_own(void)
{
    clc_context_options options = fixture_options();
    clc_context *probe = fixture_context(&options);
    own_objects o = {0};
    o.device = clc_context_cl_device(probe);
    cl_int err = CL_SUCCESS;
    o.context = clCreateContext(NULL, 1, &o.device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    o.queue = clCreateCommandQueue(o.context, o.device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    clc_context_destroy(probe); /* root device ids outlive the context */
    return o;
}

static void free_own(own_objects *o)
{
    clReleaseCommandQueue(o->queue);
    clReleaseContext(o->context);
}

static void wrap_uses_and_then_releases_the_callers_objects(void **state)
{
    (void)state;
    own_objects o = make_own();
    cl_uint context_refs = fixture_context_refcount(o.context);
    cl_uint queue_refs = fixture_queue_refcount(o.queue);

    clc_context *ctx = NULL;
    assert_int_equal(clc_context_wrap(o.context, o.device, o.queue, NULL, &ctx), CLC_SUCCESS);
    assert_ptr_equal(clc_context_cl_context(ctx), o.context);
    assert_ptr_equal(clc_context_cl_queue(ctx), o.queue);
    assert_ptr_equal(clc_context_cl_device(ctx), o.device);
    assert_true(fixture_context_refcount(o.context) > context_refs);
    assert_true(strstr(clc_context_selection_reason(ctx), "wrapped") != NULL);

    /* A program built through the wrapper runs on the caller's queue. */
    cl_program program = NULL;
    assert_int_equal(
        clc_program_build(ctx, "__kernel void k(__global int *p) { p[0] = 42; }", NULL, &program),
        CLC_SUCCESS);
    clReleaseProgram(program);

    clc_context_destroy(ctx);
    assert_int_equal(fixture_context_refcount(o.context), context_refs);
    assert_int_equal(fixture_queue_refcount(o.queue), queue_refs);
    free_own(&o);
}

static void wrap_without_queue_makes_its_own(void **state)
{
    (void)state;
    own_objects o = make_own();
    cl_uint context_refs = fixture_context_refcount(o.context);
    clc_context *ctx = NULL;
    assert_int_equal(clc_context_wrap(o.context, o.device, NULL, NULL, &ctx), CLC_SUCCESS);
    assert_non_null(clc_context_cl_queue(ctx));
    assert_ptr_not_equal(clc_context_cl_queue(ctx), o.queue);
    clc_context_destroy(ctx);
    assert_int_equal(fixture_context_refcount(o.context), context_refs);
    free_own(&o);
}

static void wrap_refuses_mismatched_objects(void **state)
{
    (void)state;
    own_objects a = make_own();
    own_objects b = make_own();
    clc_context *ctx = (clc_context *)&a;
    /* b's queue belongs to b's context. */
    assert_int_equal(clc_context_wrap(a.context, a.device, b.queue, NULL, &ctx),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_non_null(strstr(clc_last_error(), "queue"));
    assert_int_equal(clc_context_wrap(NULL, a.device, NULL, NULL, &ctx),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_wrap(a.context, NULL, NULL, NULL, &ctx),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_wrap(a.context, a.device, NULL, NULL, NULL),
                     CLC_ERROR_INVALID_ARGUMENT);
    free_own(&b);
    free_own(&a);
}

/* ---- threads ---- */

#define THREADS 8
#define ROUNDS 5

typedef struct worker {
    clc_context *ctx;
    int id;
    int failures;
    cl_program embedded;
    char message[512];
} worker;

static const char *const add_source =
    "__kernel void add(__global int *p, const int v) { p[get_global_id(0)] += v; }";

static int run_add(worker *w, int round)
{
    cl_program program = NULL;
    if (clc_program_build(w->ctx, add_source, NULL, &program) != CLC_SUCCESS) {
        snprintf(w->message, sizeof w->message, "build: %s", clc_last_error());
        return 1;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, "add", &err);
    enum { N = 1024 };
    int data[N];
    for (int i = 0; i < N; ++i)
        data[i] = i;
    cl_mem buf = NULL;
    if (err == CL_SUCCESS)
        buf = clCreateBuffer(clc_context_cl_context(w->ctx),
                             CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
    const int v = w->id * 100 + round;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof buf, &buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof v, &v);
    size_t global = N;
    cl_command_queue q = clc_context_cl_queue(w->ctx);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    int bad = err != CL_SUCCESS;
    for (int i = 0; i < N && !bad; ++i)
        bad = data[i] != i + v;
    if (bad)
        snprintf(w->message, sizeof w->message, "round %d: err %d or wrong data", round, err);
    if (buf)
        clReleaseMemObject(buf);
    if (kernel)
        clReleaseKernel(kernel);
    clReleaseProgram(program);
    return bad;
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < ROUNDS; ++round) {
        w->failures += run_add(w, round);
        cl_program p = NULL;
        if (clc__program_get(w->ctx, &clc__source_copy, NULL, &p) != CLC_SUCCESS)
            w->failures++;
        if (w->embedded && p != w->embedded)
            w->failures++;
        w->embedded = p;
    }
    return NULL;
}

static void eight_threads_share_one_context(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    clc_context *ctx = fixture_context(&options);
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int i = 0; i < THREADS; ++i) {
        workers[i] = (worker){.ctx = ctx, .id = i};
        assert_int_equal(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; ++i)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    for (int i = 0; i < THREADS; ++i) {
        if (workers[i].failures)
            fail_msg("thread %d: %d failures (%s)", i, workers[i].failures, workers[i].message);
        /* The embedded program was built once, for everyone. */
        assert_ptr_equal(workers[i].embedded, workers[0].embedded);
    }
    clc_context_destroy(ctx);
}

/* Pinned host memory: every host-pointer call takes it (any part of an allocation), with the
 * results of ordinary memory; freeing checks the pointer; the context frees what is left. */
static void pinned_memory_serves_every_host_call(void **state)
{
    (void)state;
    clc_context *ctx = fixture_context(NULL);
    enum { W = 61, H = 33, N = 100003 };
    unsigned char *rgb = NULL, *gray = NULL;
    float *data = NULL;
    assert_int_equal(clc_host_alloc(ctx, W * H * 3 + 5, (void **)&rgb), CLC_SUCCESS);
    assert_int_equal(clc_host_alloc(ctx, W * H, (void **)&gray), CLC_SUCCESS);
    assert_int_equal(clc_host_alloc(ctx, (N + 1) * sizeof *data, (void **)&data), CLC_SUCCESS);
    unsigned char *plain_rgb = malloc(W * H * 3), *plain_gray = malloc(W * H);
    assert_true(plain_rgb && plain_gray);
    for (size_t i = 0; i < W * H * 3; ++i)
        rgb[5 + i] = plain_rgb[i] = (unsigned char)(i * 31 + 7);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    assert_int_equal(clc_gray(ctx, &src, rgb + 5, &dst, gray, NULL), CLC_SUCCESS);
    assert_int_equal(clc_gray(ctx, &src, plain_rgb, &dst, plain_gray, NULL), CLC_SUCCESS);
    assert_memory_equal(gray, plain_gray, W * H);
    for (size_t i = 0; i <= N; ++i)
        data[i] = (float)(i % 1000) - 499.5f;
    clc_reduce_result pinned, plain;
    float *copy = malloc(N * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, data + 1, N * sizeof *copy);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, data + 1, N, &pinned),
                     CLC_SUCCESS);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, copy, N, &plain), CLC_SUCCESS);
    assert_memory_equal(&pinned.f, &plain.f, sizeof plain.f);
    /* Refused: a size of 0, a pointer that is not an allocation (nor one of its insides). */
    void *none = (void *)1;
    assert_int_equal(clc_host_alloc(ctx, 0, &none), CLC_ERROR_INVALID_ARGUMENT);
    assert_null(none);
    assert_int_equal(clc_host_free(ctx, plain_rgb), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_host_free(ctx, rgb + 5), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_host_free(ctx, NULL), CLC_SUCCESS);
    assert_int_equal(clc_host_free(ctx, rgb), CLC_SUCCESS);
    assert_int_equal(clc_host_free(ctx, rgb), CLC_ERROR_INVALID_ARGUMENT); /* twice */
    free(plain_rgb), free(plain_gray), free(copy);
    clc_context_destroy(ctx); /* gray and data are freed with it (valgrind and ASan check) */
}

/* clc_context_share: contexts over one OpenCL context and device (a queue per thread) know each
 * other's pinned memory, whichever allocated it; misuse is refused with nothing changed. */
static void peers_share_pinned_memory(void **state)
{
    (void)state;
    clc_context *owner = fixture_context(NULL), *a = NULL, *b = NULL, *stranger = NULL;
    cl_context cl = clc_context_cl_context(owner);
    cl_device_id dev = clc_context_cl_device(owner);
    assert_int_equal(clc_context_wrap(cl, dev, NULL, NULL, &a), CLC_SUCCESS);
    assert_int_equal(clc_context_wrap(cl, dev, NULL, NULL, &b), CLC_SUCCESS);
    own_objects o = make_own(); /* another OpenCL context */
    assert_int_equal(clc_context_wrap(o.context, o.device, NULL, NULL, &stranger), CLC_SUCCESS);

    assert_int_equal(clc_context_share(a, a), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_share(NULL, owner), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_share(a, NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_share(stranger, owner), CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "different OpenCL contexts"));
    assert_int_equal(clc_context_share(a, owner), CLC_SUCCESS);
    assert_int_equal(clc_context_share(a, owner), CLC_ERROR_INVALID_ARGUMENT); /* has a peer */
    assert_int_equal(clc_context_share(owner, a), CLC_ERROR_INVALID_ARGUMENT); /* a cycle */

    enum { W = 37, H = 21 };
    unsigned char *rgb = NULL, *gray = NULL, *own = NULL;
    assert_int_equal(clc_host_alloc(a, W * H * 3, (void **)&rgb), CLC_SUCCESS); /* the peer's */
    assert_int_equal(clc_host_alloc(owner, W * H, (void **)&gray), CLC_SUCCESS);
    assert_true(clc__host_pinned(owner, rgb, W * H * 3) && clc__host_pinned(a, gray, W * H));
    assert_false(clc__host_pinned(b, rgb, W * H * 3) || clc__host_pinned(b, gray, W * H));
    assert_int_equal(clc_host_alloc(b, 64, (void **)&own), CLC_SUCCESS);
    assert_int_equal(clc_context_share(b, owner), CLC_ERROR_INVALID_ARGUMENT); /* has memory */
    assert_non_null(strstr(clc_last_error(), "pinned memory of its own"));
    assert_int_equal(clc_host_free(b, own), CLC_SUCCESS);
    assert_int_equal(clc_context_share(b, a), CLC_SUCCESS); /* a peer of a peer: the same group */
    assert_true(clc__host_pinned(b, rgb, W * H * 3) && clc__host_pinned(b, gray, W * H));

    unsigned char *plain = malloc(W * H * 3), *expect = malloc(W * H);
    assert_true(plain && expect);
    for (size_t i = 0; i < W * H * 3; ++i)
        rgb[i] = plain[i] = (unsigned char)(i * 13 + 5);
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    assert_int_equal(clc_gray(b, &src, rgb, &dst, gray, NULL), CLC_SUCCESS);
    assert_int_equal(clc_gray(owner, &src, plain, &dst, expect, NULL), CLC_SUCCESS);
    assert_memory_equal(gray, expect, W * H);
    assert_int_equal(clc_host_free(owner, rgb), CLC_SUCCESS); /* freed through another member */
    assert_false(clc__host_pinned(a, rgb, W * H * 3));
    /* b joined through a, but its peer is the root: a may go first. */
    clc_context_destroy(a);
    assert_int_equal(clc_host_alloc(b, 64, (void **)&own), CLC_SUCCESS);
    assert_true(clc__host_pinned(owner, own, 64));
    assert_int_equal(clc_host_free(b, own), CLC_SUCCESS);
    free(plain), free(expect);
    clc_context_destroy(b), clc_context_destroy(stranger);
    free_own(&o);
    clc_context_destroy(owner); /* gray is freed with the owner (valgrind and ASan check) */
}

/* A context that stages every transfer from 64 KiB (CLC_TRANSFERS_STAGED, as batch workers and
 * the Python binding's per-thread lanes are made) gives what a default one gives: gray in and
 * out, a reduction in. On devices that share host memory both work in place. */
static void staged_transfers_give_the_same_results(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    options.transfers = CLC_TRANSFERS_STAGED;
    clc_context *staged = fixture_context(&options), *plain = fixture_context(NULL);
    enum { W = 641, H = 333, N = (1 << 20) + 3 };
    unsigned char *rgb = malloc(W * H * 3), *a = malloc(W * H), *b = malloc(W * H);
    float *data = malloc(N * sizeof *data);
    assert_true(rgb && a && b && data);
    for (size_t i = 0; i < W * H * 3; ++i)
        rgb[i] = (unsigned char)(i * 29 + 3);
    for (size_t i = 0; i < N; ++i)
        data[i] = (float)(i % 977) - 488.25f;
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    assert_int_equal(clc_gray(staged, &src, rgb, &dst, a, NULL), CLC_SUCCESS);
    assert_int_equal(clc_gray(plain, &src, rgb, &dst, b, NULL), CLC_SUCCESS);
    assert_memory_equal(a, b, W * H);
    clc_reduce_result x, y;
    assert_int_equal(clc_reduce(staged, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, N, &x), CLC_SUCCESS);
    assert_int_equal(clc_reduce(plain, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, N, &y), CLC_SUCCESS);
    assert_memory_equal(&x.f, &y.f, sizeof y.f);
    free(rgb), free(a), free(b), free(data);
    clc_context_destroy(staged);
    clc_context_destroy(plain);
}

/* A context whose host transfers are staged (as on a GPU with its own memory: the CPU device is
 * made to stage), caching in dir; `timed`: its staging timed even where the switches made it
 * fixed (CLCOMPUTE_STAGING=always does), moving 3 MiB + 5 a variant rather than 128 MiB. */
static clc_context *staging_context(const char *dir, int timed)
{
    clc_context_options options = fixture_options();
    options.cache = CLC_CACHE_ON;
    options.cache_dir = dir;
    clc_context *ctx = fixture_context(&options);
    ctx->staging_mode = CLC_STAGING_ALWAYS;
    if (timed)
        ctx->staging_fixed = 0;
    ctx->staging_probe = (3u << 20) + 5;
    return ctx;
}

/* The context's timed families, which must be staging alone, as clc_context_tuned lists them. */
static clc_tuned_choice staging_choice(clc_context *ctx)
{
    clc_tuned_choice c[2] = {{0}};
    size_t n = 0;
    assert_int_equal(clc_context_tuned(ctx, c, 2, &n), CLC_SUCCESS);
    assert_int_equal(n, 1);
    assert_string_equal(c[0].family, "staging");
    return c[0];
}

/* Staging chunks and threads are timed on the first staged transfer, stored, read back by the
 * next context, and scaled down for small transfers; the transfers stay exact. The context
 * reports the choice and where it came from. */
static void staging_is_timed_stored_and_reused(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("staging");
    clc_context *ctx = staging_context(dir, 1);
    size_t chunk = 0, small = 0, tiny = 0;
    unsigned threads = 0, again = 0;
    assert_int_equal(clc__staging_plan(ctx, 64u << 20, &chunk, &threads), CL_SUCCESS);
    assert_true(chunk == 16u << 20 || chunk == 32u << 20);
    assert_true(threads == 2 || threads == 4 || threads == 8 || threads == 16);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    assert_true(clc__staging_threads_fit(threads, cores));
    assert_int_equal(fixture_count_files(dir), 1); /* the choice; no program was built */
    char name[64];
    snprintf(name, sizeof name, "%zu MiB, %u threads", chunk >> 20, threads);
    clc_tuned_choice c = staging_choice(ctx);
    assert_string_equal(c.variant, name);
    assert_int_equal(c.source, CLC_TUNED_TIMED);
    /* Never a chunk larger than the transfer (in whole 64 KiB). */
    assert_int_equal(clc__staging_plan(ctx, 1, &tiny, &again), CL_SUCCESS);
    assert_int_equal(tiny, 65536);
    assert_int_equal(clc__staging_plan(ctx, (5u << 20) + 1, &small, &again), CL_SUCCESS);
    assert_int_equal(small, (5u << 20) + 65536);
    assert_int_equal(again, threads);

    /* Exact through the timed chunks: a sum of 40 MiB of float32 (two or three whole chunks and
     * a part), against the same sum in place. */
    enum { N = (10 << 20) + 7 };
    float *data = malloc(N * sizeof *data);
    assert_non_null(data);
    for (size_t i = 0; i < N; ++i)
        data[i] = (float)(i % 1013) * 0.25f - 100.0f;
    clc_context *plain = fixture_context(NULL);
    clc_reduce_result x, y;
    /* First a small transfer (buffers of 64 KiB), then the large one (they grow). */
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, 1001, &x), CLC_SUCCESS);
    assert_int_equal(clc_reduce(plain, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, 1001, &y), CLC_SUCCESS);
    assert_memory_equal(&x.f, &y.f, sizeof y.f);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, N, &x), CLC_SUCCESS);
    assert_int_equal(clc_reduce(plain, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, N, &y), CLC_SUCCESS);
    assert_memory_equal(&x.f, &y.f, sizeof y.f);
    clc_context_destroy(plain);
    clc_context_destroy(ctx);
    free(data);

    /* The next context reads the choice rather than timing again: its timing could not even
     * start (a probe larger than the device's largest buffer), and without a choice it would
     * take the untimed chunk. Its probe of 2^62 bytes shows the scaling: transfers as large use
     * whole chunks, a 16th of it a quarter chunk, a quarter of it half a chunk. */
    ctx = staging_context(dir, 1);
    ctx->staging_probe = (size_t)1 << 62;
    assert_int_equal(clc__staging_plan(ctx, (size_t)1 << 62, &small, &again), CL_SUCCESS);
    assert_int_equal(small, chunk);
    assert_int_equal(again, threads);
    c = staging_choice(ctx);
    assert_string_equal(c.variant, name);
    assert_int_equal(c.source, CLC_TUNED_STORED);
    assert_int_equal(clc__staging_plan(ctx, (size_t)1 << 58, &small, &again), CL_SUCCESS);
    assert_int_equal(small, chunk / 4);
    assert_int_equal(clc__staging_plan(ctx, (size_t)1 << 60, &small, &again), CL_SUCCESS);
    assert_int_equal(small, chunk / 2);
    assert_int_equal(clc__staging_plan(ctx, ((size_t)1 << 60) + ((size_t)1 << 50), &small, &again),
                     CL_SUCCESS);
    assert_int_equal(small, chunk / 2 + 65536); /* rounded up to whole 64 KiB */
    clc_context_destroy(ctx);
    /* Where timing cannot run and nothing is stored: the untimed chunk (8 MiB; an odd few KiB
     * under CLCOMPUTE_STAGING=always) for every transfer as large. */
    char *empty = fixture_temp_dir("staging-none");
    ctx = staging_context(empty, 1);
    ctx->staging_probe = (size_t)1 << 62;
    assert_int_equal(clc__staging_plan(ctx, 9u << 20, &tiny, &again), CL_SUCCESS);
    assert_int_equal(tiny, ctx->staging_chunk);
    assert_true(tiny == 8u << 20 || tiny == 4099);
    assert_int_equal(again, clc__copier_default_threads());
    assert_int_equal(fixture_count_files(empty), 0);
    c = staging_choice(ctx);
    assert_string_equal(c.variant, "default");
    assert_int_equal(c.source, CLC_TUNED_DEFAULT);
    clc_context_destroy(ctx);
    fixture_remove_dir(empty);
    free(empty);
    fixture_remove_dir(dir);
    free(dir);
}

/* A malformed switch that shapes the whole context refuses the context, naming it and its
 * value: counted as unset, a measurement would silently measure the default. */
static void malformed_context_switches_are_refused(void **state)
{
    (void)state;
    const char *const cases[][3] = {
        {"CLCOMPUTE_STAGING_CHUNK", "32M", "a number from 1024 to 1073741824"},
        {"CLCOMPUTE_STAGING_CHUNK", "512", "a number from 1024"},
        {"CLCOMPUTE_STAGING_THREADS", "0", "a number from 1 to 64"},
        {"CLCOMPUTE_STAGING", "sometimes", "0 or always or all"},
        {"CLCOMPUTE_POISON", "256", "a number from 0 to 255"},
        {"CLCOMPUTE_BANDS", "0", "a number from 1 to 64"},
        {"CLCOMPUTE_BANDS", "4 bands", "a number from 1 to 64"},
        /* Taken as unset, "yes" or "off" timed anyway, and a mistyped CLCOMPUTE_CACHE=off left
         * the disk cache on. */
        {"CLCOMPUTE_TUNE", "yes", "use 0 or 1 or again"},
        {"CLCOMPUTE_TUNE", "off", "use 0 or 1 or again"},
        {"CLCOMPUTE_TUNE", " 0", "use 0 or 1 or again"},
        {"CLCOMPUTE_CACHE", "off", "use 0 or 1"},
        {"CLCOMPUTE_CACHE", "no", "use 0 or 1"},
        {"CLCOMPUTE_CACHE", "00", "use 0 or 1"},
        {"CLCOMPUTE_CACHE", "true", "use 0 or 1"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        setenv(cases[i][0], cases[i][1], 1);
        clc_context_options options = fixture_options();
        options.cache = CLC_CACHE_AUTO;             /* where CLCOMPUTE_CACHE is read */
        clc_context *ctx = (clc_context *)&options; /* must come back NULL */
        const clc_status st = clc_context_create(&options, &ctx);
        unsetenv(cases[i][0]);
        assert_int_equal(st, CLC_ERROR_INVALID_ARGUMENT);
        assert_null(ctx);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "%s is \"%s\"", cases[i][0], cases[i][1]);
        assert_non_null(strstr(clc_last_error(), quoted));
        assert_non_null(strstr(clc_last_error(), cases[i][2]));
    }
}

/* The documented values, and unset or empty (the default), still make a context: timing on, off
 * or again, the disk cache on or off. A context that says CLC_CACHE_ON or _OFF does not read
 * CLCOMPUTE_CACHE, so a malformed one does not refuse it. */
static void documented_tune_and_cache_values_are_taken(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("env-values");
    const char *const tune[] = {NULL, "", "0", "1", "again"};
    for (size_t i = 0; i < sizeof tune / sizeof tune[0]; ++i) {
        if (tune[i])
            setenv("CLCOMPUTE_TUNE", tune[i], 1);
        clc_context_options options = fixture_options();
        clc_context *ctx = NULL;
        const clc_status st = clc_context_create(&options, &ctx);
        unsetenv("CLCOMPUTE_TUNE");
        assert_int_equal(st, CLC_SUCCESS);
        assert_int_equal(ctx->switches[CLC_SW_TUNE].value, !tune[i] || !*tune[i] ? CLC_SWITCH_UNSET
                                                           : strcmp(tune[i], "again") == 0
                                                               ? 2
                                                               : tune[i][0] - '0');
        clc_context_destroy(ctx);
    }
    const struct {
        const char *value;
        clc_cache_mode mode;
        int on;
    } cache[] = {{NULL, CLC_CACHE_AUTO, 1}, {"", CLC_CACHE_AUTO, 1}, {"1", CLC_CACHE_AUTO, 1},
                 {"0", CLC_CACHE_AUTO, 0},  {"0", CLC_CACHE_ON, 1},  {"off", CLC_CACHE_ON, 1},
                 {"off", CLC_CACHE_OFF, 0}, {"1", CLC_CACHE_OFF, 0}};
    for (size_t i = 0; i < sizeof cache / sizeof cache[0]; ++i) {
        if (cache[i].value)
            setenv("CLCOMPUTE_CACHE", cache[i].value, 1);
        clc_context_options options = fixture_options();
        options.cache = cache[i].mode;
        options.cache_dir = dir;
        clc_context *ctx = NULL;
        const clc_status st = clc_context_create(&options, &ctx);
        unsetenv("CLCOMPUTE_CACHE");
        if (st != CLC_SUCCESS)
            fail_msg("CLCOMPUTE_CACHE=%s, mode %d: %s", cache[i].value ? cache[i].value : "(unset)",
                     (int)cache[i].mode, clc_last_error());
        if (cache[i].on)
            assert_string_equal(clc_context_cache_dir(ctx), dir);
        else
            assert_null(clc_context_cache_dir(ctx));
        clc_context_destroy(ctx);
    }
    fixture_remove_dir(dir);
    free(dir);
}

/* The thread counts timed: a quarter of the host's cores to all of them; at least 2; 16 on the
 * largest hosts. */
static void staging_candidates_suit_the_host(void **state)
{
    (void)state;
    const struct {
        long cores;
        int fits[4]; /* 2, 4, 8, 16 threads */
    } hosts[] = {{1, {1, 0, 0, 0}},  {2, {1, 0, 0, 0}},  {4, {1, 1, 0, 0}},
                 {16, {0, 1, 1, 1}}, {32, {0, 0, 1, 1}}, {128, {0, 0, 0, 1}}};
    const unsigned threads[4] = {2, 4, 8, 16};
    for (size_t h = 0; h < sizeof hosts / sizeof hosts[0]; ++h)
        for (int t = 0; t < 4; ++t)
            assert_int_equal(clc__staging_threads_fit(threads[t], hosts[h].cores),
                             hosts[h].fits[t]);
}

/* CLCOMPUTE_STAGING_CHUNK or CLCOMPUTE_STAGING_THREADS, either alone: no timing, and every
 * transfer as large uses the chunk as given (the other the untimed default). */
static void staging_switches_are_not_timed(void **state)
{
    (void)state;
    const char *const names[2] = {"CLCOMPUTE_STAGING_CHUNK", "CLCOMPUTE_STAGING_THREADS"};
    const char *const values[2] = {"3000000", "3"};
    for (int k = 0; k < 2; ++k) {
        char *dir = fixture_temp_dir("staging-set");
        setenv(names[k], values[k], 1);
        clc_context *ctx = staging_context(dir, 0); /* timing left as the switch made it */
        unsetenv(names[k]);
        size_t chunk = 0;
        unsigned threads = 0;
        assert_int_equal(clc__staging_plan(ctx, 10000000, &chunk, &threads), CL_SUCCESS);
        /* the untimed chunk: 8 MiB, or an odd few KiB where CLCOMPUTE_STAGING=always */
        assert_int_equal(chunk, k == 0 ? 3000000 : ctx->staging_chunk);
        assert_true(k == 0 || chunk == 8u << 20 || chunk == 4099);
        assert_int_equal(threads, k == 0 ? clc__copier_default_threads() : 3);
        assert_int_equal(fixture_count_files(dir), 0);
        clc_context_destroy(ctx);
        fixture_remove_dir(dir);
        free(dir);
    }
}

/* The staging copier: copies split over threads are memcpy, for odd sizes and thread counts,
 * small copies included, on all of a copier's threads or fewer; one thread (NULL) is memcpy
 * too. */
static void copies_over_threads_are_exact(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 1000, (1u << 20) - 1, 1u << 20, (5u << 20) + 13};
    const unsigned threads[] = {1, 2, 3, 8};
    unsigned char *src = malloc((5u << 20) + 128), *dst = malloc((5u << 20) + 128);
    assert_true(src && dst);
    for (size_t i = 0; i < (5u << 20) + 128; ++i)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        clc_copier *c = clc__copier_create(threads[t]);
        assert_true((c == NULL) == (threads[t] < 2));
        for (int round = 0; round < 3; ++round) /* the threads take job after job */
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
                memset(dst, 0xA5, sizes[k] + 64);
                /* all of its threads, or fewer (staging tuning times fewer) */
                clc__copier_memcpy(c, round == 2 ? 2 : threads[t], dst + 3, src + 7, sizes[k]);
                assert_memory_equal(dst + 3, src + 7, sizes[k]);
                assert_int_equal(dst[2], 0xA5);
                assert_int_equal(dst[3 + sizes[k]], 0xA5);
            }
        clc__copier_destroy(c);
    }
    free(src), free(dst);
}

/* Several pieces copied as one job: each lands exactly, whatever slices cut it, and the gaps
 * between them are untouched; an empty piece is allowed. */
static void pieces_over_threads_are_exact(void **state)
{
    (void)state;
    enum { BIG = 3u << 20 };
    const size_t sizes[] = {BIG / 3 + 5, 0, 17, BIG / 2 - 1, 1000, BIG / 7};
    enum { N = sizeof sizes / sizeof sizes[0], GAP = 100 };
    unsigned char *src = malloc(2 * BIG), *dst = malloc(2 * BIG);
    assert_true(src && dst);
    for (size_t i = 0; i < 2 * BIG; ++i)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    for (unsigned threads = 1; threads <= 5; threads += 2) {
        clc_copier *c = clc__copier_create(threads);
        memset(dst, 0xA5, 2 * BIG);
        clc_piece pieces[N];
        size_t at = 0;
        for (size_t k = 0; k < N; ++k) { /* piece k: src and dst offsets differ, gaps after */
            pieces[k] = (clc_piece){dst + at + GAP, src + at + 7 * k, sizes[k]};
            at += sizes[k] + GAP;
        }
        clc__copier_copy(c, threads, pieces, N);
        at = 0;
        for (size_t k = 0; k < N; ++k) {
            assert_memory_equal(dst + at + GAP, src + at + 7 * k, sizes[k]);
            for (size_t g = 0; g < GAP; ++g)
                assert_int_equal(dst[at + g], 0xA5);
            at += sizes[k] + GAP;
        }
        assert_int_equal(dst[at + GAP], 0xA5);
        clc__copier_destroy(c);
    }
    free(src), free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creates_a_context_with_queue_and_reason),
        cmocka_unit_test(profiling_option_sets_the_queue_property),
        cmocka_unit_test(misuse_is_refused_without_touching_outputs),
        cmocka_unit_test(wrap_uses_and_then_releases_the_callers_objects),
        cmocka_unit_test(wrap_without_queue_makes_its_own),
        cmocka_unit_test(wrap_refuses_mismatched_objects),
        cmocka_unit_test(eight_threads_share_one_context),
        cmocka_unit_test(pinned_memory_serves_every_host_call),
        cmocka_unit_test(peers_share_pinned_memory),
        cmocka_unit_test(staged_transfers_give_the_same_results),
        cmocka_unit_test(copies_over_threads_are_exact),
        cmocka_unit_test(pieces_over_threads_are_exact),
        cmocka_unit_test(staging_is_timed_stored_and_reused),
        cmocka_unit_test(staging_switches_are_not_timed),
        cmocka_unit_test(staging_candidates_suit_the_host),
        cmocka_unit_test(malformed_context_switches_are_refused),
        cmocka_unit_test(documented_tune_and_cache_values_are_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
