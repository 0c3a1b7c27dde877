/* Contexts: the chosen device, its cl_context and queue, and what is built for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static clc_context *context_alloc(void)
{
    clc_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    clc_mutex *const locks[] = {&ctx->lock,       &ctx->build_lock,  &ctx->staging_lock,
                                &ctx->tune_lock,  &ctx->pinned_lock, &ctx->pool_lock,
                                &ctx->kernel_lock};
    for (size_t i = 0; i < sizeof locks / sizeof locks[0]; ++i) {
        if (clc_mutex_init(locks[i]) != 0) {
            while (i-- > 0)
                clc_mutex_destroy(locks[i]);
            free(ctx);
            return NULL;
        }
    }
    clc__switches_read(ctx);
    /* CLCOMPUTE_STAGING=0 sends host transfers straight from the caller's (pageable) memory,
     * to compare the two; "all" stages them from 64 KiB (CLC_TRANSFERS_STAGED); "always" copies
     * through staging even on unified-memory devices, in chunks of an odd small size, so that
     * CPU-only CI runs every path of it. */
    const clc_switch_value *sw = ctx->switches; /* malformed ones count as unset here */
    ctx->staging_mode = sw[CLC_SW_STAGING].value == 0   ? CLC_STAGING_OFF
                        : sw[CLC_SW_STAGING].value == 1 ? CLC_STAGING_ALWAYS
                        : sw[CLC_SW_STAGING].value == 2 ? CLC_STAGING_SHARED
                                                        : CLC_STAGING_AUTO;
    /* The staging chunk and the threads copying it (copier.c) are timed per device on the first
     * staged transfer (staging.c); CLCOMPUTE_STAGING_CHUNK=BYTES and CLCOMPUTE_STAGING_THREADS=N
     * set them instead, to measure, and what either leaves unset takes the untimed default. */
    ctx->staging_chunk = sw[CLC_SW_STAGING_CHUNK].value > 0 ? (size_t)sw[CLC_SW_STAGING_CHUNK].value
                         : ctx->staging_mode == CLC_STAGING_ALWAYS ? 4099
                                                                   : (size_t)8 << 20;
    ctx->staging_threads = sw[CLC_SW_STAGING_THREADS].value > 0
                               ? (unsigned)sw[CLC_SW_STAGING_THREADS].value
                               : clc__copier_default_threads();
    ctx->staging_fixed = sw[CLC_SW_STAGING_CHUNK].value > 0 ||
                         sw[CLC_SW_STAGING_THREADS].value > 0 ||
                         ctx->staging_mode == CLC_STAGING_ALWAYS;
    /* CLCOMPUTE_POISON=0..255: the differential check for kernels reading unwritten memory
     * (docs/reliability.md); results must not change with the byte. */
    ctx->poison = sw[CLC_SW_POISON].value >= 0 ? sw[CLC_SW_POISON].value : -1;
    return ctx;
}

/* Releases whatever part of a context exists; every failure path of create and wrap ends here. */
static void context_free(clc_context *ctx)
{
    clc__kernels_release(ctx);
    clc__programs_release(ctx);
    if (ctx->queue)
        clc__pinned_release_all(ctx);
    clc__staging_release(ctx);
    clc__pool_release(ctx);
    clc__release_mem(&ctx->cloud_sync);
    clc__release_mem(&ctx->reduce_sync);
    if (ctx->side_queue)
        clReleaseCommandQueue(ctx->side_queue);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->device)
        clReleaseDevice(ctx->device);
    if (ctx->context)
        clReleaseContext(ctx->context);
    clc__device_info_clear(&ctx->info);
    free(ctx->reason);
    free(ctx->cache_dir);
    free(ctx->last_error);
    free(ctx->tuned);
    clc_mutex_destroy(&ctx->tune_lock);
    clc_mutex_destroy(&ctx->staging_lock);
    clc_mutex_destroy(&ctx->pinned_lock);
    clc_mutex_destroy(&ctx->pool_lock);
    clc_mutex_destroy(&ctx->build_lock);
    clc_mutex_destroy(&ctx->kernel_lock);
    clc_mutex_destroy(&ctx->lock);
    free(ctx);
}

static cl_command_queue_properties queue_properties(const clc_context_options *options)
{
    return options && options->profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
}

static clc_status check_options(const clc_context_options *options)
{
    if (options && (options->cache < CLC_CACHE_AUTO || options->cache > CLC_CACHE_OFF))
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_options.cache is %d; use CLC_CACHE_AUTO, _ON or _OFF",
                         (int)options->cache);
    if (options &&
        (options->transfers < CLC_TRANSFERS_AUTO || options->transfers > CLC_TRANSFERS_STAGED))
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_options.transfers is %d; use CLC_TRANSFERS_AUTO or _STAGED",
                         (int)options->transfers);
    return CLC_SUCCESS;
}

/* The disk cache is a convenience: a missing HOME or an odd directory only turns it off. A
 * malformed CLCOMPUTE_CACHE is a mistake, though (read as "on", CLCOMPUTE_CACHE=off would keep
 * the cache on without a word), and refuses the context where it is read: a context with
 * CLC_CACHE_ON or _OFF does not read it. */
static clc_status setup_cache(clc_context *ctx, const clc_context_options *options)
{
    const clc_cache_mode mode = options ? options->cache : CLC_CACHE_AUTO;
    int on = 1;
    if (mode == CLC_CACHE_AUTO && clc__switch(ctx, CLC_SW_CACHE, &on) < 0)
        return CLC_ERROR_INVALID_ARGUMENT;
    ctx->cache_dir = clc__cache_dir_resolve(mode, !on, options ? options->cache_dir : NULL);
    return CLC_SUCCESS;
}

/* The last steps of create and wrap: a queue when the context has none yet, the disk cache, and
 * the hand-over. On failure everything the context holds is released. */
static clc_status complete(clc_context *ctx, const clc_context_options *options, clc_context **out)
{
    /* The switches that shape the whole context are refused here when malformed, with their
     * name: counted as unset, a measurement with CLCOMPUTE_STAGING_CHUNK=32M would silently
     * measure the default, and CLCOMPUTE_TUNE=no would time every variant. */
    static const clc_switch whole[] = {CLC_SW_STAGING,       CLC_SW_STAGING_THREADS,
                                       CLC_SW_STAGING_CHUNK, CLC_SW_POISON,
                                       CLC_SW_TUNE,          CLC_SW_BANDS};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; ++i) {
        int value = 0;
        if (clc__switch(ctx, whole[i], &value) < 0) { /* the message is the thread's now */
            context_free(ctx);
            return CLC_ERROR_INVALID_ARGUMENT;
        }
    }
    if (setup_cache(ctx, options) != CLC_SUCCESS) {
        context_free(ctx);
        return CLC_ERROR_INVALID_ARGUMENT;
    }
    if (!ctx->queue) {
        cl_int err = CL_SUCCESS;
        ctx->queue =
            clCreateCommandQueue(ctx->context, ctx->device, queue_properties(options), &err);
        if (err != CL_SUCCESS) {
            ctx->queue = NULL;
            context_free(ctx);
            return clc__cl_fail(NULL, err, "clCreateCommandQueue");
        }
    }
    /* The environment (read when the context was made) wins over the option, to measure. */
    if (options && options->transfers == CLC_TRANSFERS_STAGED &&
        ctx->staging_mode == CLC_STAGING_AUTO)
        ctx->staging_mode = CLC_STAGING_SHARED;
    *out = ctx;
    return CLC_SUCCESS;
}

clc_status clc_context_create(const clc_context_options *options, clc_context **out)
{
    if (!out)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_context_create: ctx is NULL");
    *out = NULL;
    clc_status st = check_options(options);
    if (st != CLC_SUCCESS)
        return st;

    clc_device_list *list = NULL;
    st = clc_devices_query(&list);
    if (st != CLC_SUCCESS)
        return st;
    size_t index = 0;
    char reason[512];
    st = clc_device_select(list, options ? options->device : NULL, &index, reason, sizeof reason);
    if (st != CLC_SUCCESS) {
        clc_device_list_destroy(list);
        return st;
    }
    const clc_device_info *chosen = clc_device_list_get(list, index);

    clc_context *ctx = context_alloc();
    if (!ctx) {
        clc_device_list_destroy(list);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_context_create");
    }
    st = clc__device_info_fill(chosen->platform, chosen->device, chosen->platform_index,
                               chosen->device_index, &ctx->info);
    clc_device_list_destroy(list);
    ctx->reason = clc__strdup(reason);
    if (st != CLC_SUCCESS || !ctx->reason) {
        context_free(ctx);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_context_create");
    }

    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->info.platform,
                                     0};
    ctx->context = clCreateContext(props, 1, &ctx->info.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        ctx->context = NULL;
        context_free(ctx);
        return clc__cl_fail(NULL, err, "clCreateContext");
    }
    /* Root devices need no retain, but holding one keeps wrap and create symmetric. */
    err = clRetainDevice(ctx->info.device);
    if (err != CL_SUCCESS) {
        context_free(ctx);
        return clc__cl_fail(NULL, err, "clRetainDevice");
    }
    ctx->device = ctx->info.device;
    return complete(ctx, options, out);
}

/* Where the wrapped device sits in discovery's order, so messages and the cache key agree with
 * what clc_devices_query shows; unknown positions stay at UINT_MAX-like markers. */
static void locate(cl_device_id device, unsigned *platform_index, unsigned *device_index)
{
    *platform_index = *device_index = (unsigned)-1;
    clc_device_list *list = NULL;
    if (clc_devices_query(&list) != CLC_SUCCESS)
        return;
    for (size_t i = 0; i < clc_device_list_count(list); ++i) {
        const clc_device_info *d = clc_device_list_get(list, i);
        if (d->device == device) {
            *platform_index = d->platform_index;
            *device_index = d->device_index;
        }
    }
    clc_device_list_destroy(list);
}

static int context_has_device(cl_context context, cl_device_id device)
{
    size_t size = 0;
    if (clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size) != CL_SUCCESS || !size)
        return 0;
    cl_device_id *ids = malloc(size);
    int found = 0;
    if (ids && clGetContextInfo(context, CL_CONTEXT_DEVICES, size, ids, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < size / sizeof *ids; ++i)
            found |= ids[i] == device;
    }
    free(ids);
    return found;
}

clc_status clc_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue,
                            const clc_context_options *options, clc_context **out)
{
    if (!out)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_context_wrap: ctx is NULL");
    *out = NULL;
    if (!context || !device)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_wrap: context and device must not be NULL");
    clc_status st = check_options(options);
    if (st != CLC_SUCCESS)
        return st;
    if (!context_has_device(context, device))
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_wrap: the device does not belong to the context");
    if (queue) {
        cl_context qc = NULL;
        cl_device_id qd = NULL;
        cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL);
        if (err == CL_SUCCESS)
            err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL);
        if (err != CL_SUCCESS)
            return clc__cl_fail(NULL, err, "clGetCommandQueueInfo");
        if (qc != context || qd != device)
            return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                             "clc_context_wrap: the queue belongs to another context or device");
        /* Multi-pass operations rely on commands running in the order they were enqueued. */
        cl_command_queue_properties props = 0;
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        if (err != CL_SUCCESS)
            return clc__cl_fail(NULL, err, "clGetCommandQueueInfo");
        if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
            return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                             "clc_context_wrap: the queue is out-of-order; wrap an in-order one");
    }
    cl_platform_id platform = NULL;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err != CL_SUCCESS)
        return clc__cl_fail(NULL, err, "clGetDeviceInfo(CL_DEVICE_PLATFORM)");

    clc_context *ctx = context_alloc();
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_context_wrap");
    unsigned pi = 0, di = 0;
    locate(device, &pi, &di);
    st = clc__device_info_fill(platform, device, pi, di, &ctx->info);
    ctx->reason = clc__strdup("wrapped: the caller's own context, device and queue");
    if (st != CLC_SUCCESS || !ctx->reason) {
        context_free(ctx);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_context_wrap");
    }
    /* Each retain is recorded in ctx only once it succeeded, so context_free releases exactly
     * what was taken. */
    if ((err = clRetainContext(context)) != CL_SUCCESS) {
        context_free(ctx);
        return clc__cl_fail(NULL, err, "clRetainContext");
    }
    ctx->context = context;
    if ((err = clRetainDevice(device)) != CL_SUCCESS) {
        context_free(ctx);
        return clc__cl_fail(NULL, err, "clRetainDevice");
    }
    ctx->device = device;
    if (queue) {
        if ((err = clRetainCommandQueue(queue)) != CL_SUCCESS) {
            context_free(ctx);
            return clc__cl_fail(NULL, err, "clRetainCommandQueue");
        }
        ctx->queue = queue;
    }
    return complete(ctx, options, out);
}

void clc_context_destroy(clc_context *ctx)
{
    if (!ctx)
        return;
    /* Work the caller enqueued through our queue may still read buffers it owns. */
    if (ctx->queue)
        clFinish(ctx->queue);
    context_free(ctx);
}

cl_int clc__side_queue(clc_context *ctx, cl_command_queue *queue)
{
    cl_int err = CL_SUCCESS;
    clc_mutex_lock(&ctx->lock);
    if (!ctx->side_queue) {
        /* Profiling as the main queue has it, so that timed runs see the same driver paths. */
        cl_command_queue_properties props = 0;
        err = clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
        if (err == CL_SUCCESS)
            ctx->side_queue = clCreateCommandQueue(ctx->context, ctx->device,
                                                   props & CL_QUEUE_PROFILING_ENABLE, &err);
        if (err != CL_SUCCESS)
            ctx->side_queue = NULL;
    }
    *queue = ctx->side_queue;
    clc_mutex_unlock(&ctx->lock);
    return err;
}

cl_context clc_context_cl_context(const clc_context *ctx)
{
    return ctx ? ctx->context : NULL;
}

cl_device_id clc_context_cl_device(const clc_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

cl_command_queue clc_context_cl_queue(const clc_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}

const clc_device_info *clc_context_device(const clc_context *ctx)
{
    return ctx ? &ctx->info : NULL;
}

const char *clc_context_selection_reason(const clc_context *ctx)
{
    return ctx ? ctx->reason : NULL;
}

const char *clc_context_cache_dir(const clc_context *ctx)
{
    return ctx ? ctx->cache_dir : NULL;
}

clc_status clc_context_cache_stats(clc_context *ctx, clc_cache_stats *stats)
{
    if (!ctx || !stats)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_cache_stats: ctx and stats must not be NULL");
    clc_mutex_lock(&ctx->lock);
    *stats = ctx->stats;
    clc_mutex_unlock(&ctx->lock);
    return CLC_SUCCESS;
}
