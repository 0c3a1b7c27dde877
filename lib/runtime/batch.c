/* Batches across devices: workers (a queue and a thread each) take the next item as they become
 * free, so the split follows each device's speed without measuring it first. The workers of one
 * device share its cl_context, so on a GPU their queues are streams of one device context and one
 * item's upload and download overlap another's kernel; separate contexts would be time-sliced. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct batch_worker {
    clc_context *ctx;
    size_t device; /* index into the batch's devices */
    struct clc_batch *batch;
} batch_worker;

struct clc_batch {
    batch_worker *workers;
    size_t worker_count;
    size_t device_count;
    size_t *first_worker;      /* per device: its first worker, whose context describes it */
    size_t *done;              /* per device: items completed in the last run */
    cl_device_id *sub_devices; /* created by partitioning, released with the batch */
    size_t sub_device_count;
    atomic_int cancelled;
    atomic_int running; /* a run is in progress: a second one at once is refused */

    /* One run's state. */
    atomic_size_t next;
    size_t count;
    clc_batch_job job;
    void *user;
    clc_status *statuses;
    clc_batch_progress progress;
    void *progress_user;
    clc_mutex lock; /* guards done, completed, failed, first_failure and progress calls */
    size_t completed, failed, first_failure;
    clc_status first_status;
};

void clc_batch_destroy(clc_batch *b)
{
    if (!b)
        return;
    for (size_t i = b->worker_count; i-- > 0;) /* each device's first worker last: the others
                                                * refer to it for variant choices */
        clc_context_destroy(b->workers[i].ctx);
    for (size_t i = 0; i < b->sub_device_count; ++i)
        clReleaseDevice(b->sub_devices[i]);
    clc_mutex_destroy(&b->lock);
    free(b->workers);
    free(b->first_worker);
    free(b->done);
    free(b->sub_devices);
    free(b);
}

/* A cl_context of its own for `device`, and the device as that context names it: for a
 * sub-device PoCL 3.1 reports another handle than clCreateSubDevices returned, and the context's
 * own is the one it accepts. */
static clc_status device_context(cl_platform_id platform, cl_device_id device, cl_context *cl,
                                 cl_device_id *own)
{
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err = CL_SUCCESS;
    *cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return clc__cl_fail(NULL, err, "clCreateContext(batch device)");
    err = clGetContextInfo(*cl, CL_CONTEXT_DEVICES, sizeof *own, own, NULL);
    if (err != CL_SUCCESS) {
        clReleaseContext(*cl);
        *cl = NULL;
        return clc__cl_fail(NULL, err, "clGetContextInfo(batch device)");
    }
    return CLC_SUCCESS;
}

/* A worker: the device's shared cl_context wrapped with a queue of its own. */
static clc_status worker_context(cl_context cl, cl_device_id own, const clc_batch_options *o,
                                 unsigned per_device, clc_context **ctx)
{
    clc_context_options options = {0};
    options.cache = o ? o->cache : CLC_CACHE_AUTO;
    options.cache_dir = o ? o->cache_dir : NULL;
    /* On a device with its own memory, the driver moves pageable memory through a pinned
     * buffer of its own, one transfer at a time: workers of one device then wait on each other
     * (H200: 4 workers 618 gray 4K frames/s, 1449 depth frames/s against 248 and 1958 blocking).
     * Each stages its uploads and read-backs through its own pinned buffers instead (789 and
     * 2446). A lone worker keeps the default rule. */
    options.transfers = per_device > 1 ? CLC_TRANSFERS_STAGED : CLC_TRANSFERS_AUTO;
    return clc_context_wrap(cl, own, NULL, &options, ctx);
}

/* The devices one selected device stands for: itself, or its equal partitions. */
static clc_status expand(clc_batch *b, const clc_device_info *d, unsigned partitions,
                         cl_device_id *out, size_t *n)
{
    *n = 1;
    out[0] = d->device;
    if (partitions < 2 || d->type != CLC_DEVICE_CPU)
        return CLC_SUCCESS;
    const cl_uint units = d->compute_units / partitions;
    if (units == 0)
        return clc__fail(NULL, CLC_ERROR_UNSUPPORTED,
                         "cannot split \"%s\" (%u compute units) into %u sub-devices", d->name,
                         d->compute_units, partitions);
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                  (cl_device_partition_property)units, 0};
    cl_uint made = 0;
    cl_int err = clCreateSubDevices(d->device, props, partitions, out, &made);
    if (err != CL_SUCCESS)
        return clc__cl_fail(NULL, err, "clCreateSubDevices");
    cl_device_id *grown = realloc(b->sub_devices, (b->sub_device_count + made) * sizeof *grown);
    if (!grown) {
        for (cl_uint i = 0; i < made; ++i)
            clReleaseDevice(out[i]);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_batch_create");
    }
    memcpy(grown + b->sub_device_count, out, made * sizeof *out);
    b->sub_devices = grown;
    b->sub_device_count += made;
    *n = made;
    return CLC_SUCCESS;
}

enum { MAX_DEVICES = 64, MAX_PARTITIONS = 64, MAX_WORKERS = 64 };

/* Default workers a device. With its own memory (a discrete GPU) four: one frame's upload,
 * another's read-back and others' kernels overlap (H200, frames in host memory: gray 4K 250
 * blocking, 420-441 frames/s with two workers, 789-855 with four; depth 640x480 1690-1904,
 * 2060-2114, 2096-2446). Sharing host memory (CPUs) two: there is no transfer to hide, only the
 * caller's work between calls, and more would compete for the same cores. */
enum { DEFAULT_WORKERS_OWN_MEMORY = 4, DEFAULT_WORKERS_SHARED_MEMORY = 2 };

clc_status clc_batch_create(const clc_batch_options *options, clc_batch **out)
{
    if (!out)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_batch_create: batch is NULL");
    *out = NULL;
    const unsigned partitions = options ? options->cpu_partitions : 0;
    /* 0: chosen per device below. */
    const unsigned asked = options ? options->workers_per_device : 0;
    if (partitions > MAX_PARTITIONS || asked > MAX_WORKERS)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_batch_create: %u partitions and %u workers a device; at most %d "
                         "and %d",
                         partitions, asked, MAX_PARTITIONS, MAX_WORKERS);
    clc_device_list *list = NULL;
    clc_status st = clc_devices_query(&list);
    if (st != CLC_SUCCESS)
        return st;
    size_t chosen[MAX_DEVICES], n = 0;
    st = clc_device_select_many(list, options ? options->devices : NULL, chosen, MAX_DEVICES, &n);
    clc_batch *b = st == CLC_SUCCESS ? calloc(1, sizeof *b) : NULL;
    if (st == CLC_SUCCESS && (!b || clc_mutex_init(&b->lock) != 0)) {
        free(b);
        b = NULL;
        st = clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_batch_create");
    }
    const size_t most = n * (partitions > 1 ? partitions : 1);
    if (st == CLC_SUCCESS) {
        /* Room for the larger default, whichever devices take part. */
        b->workers =
            calloc(most * (asked ? asked : DEFAULT_WORKERS_OWN_MEMORY), sizeof *b->workers);
        b->first_worker = calloc(most, sizeof *b->first_worker);
        b->done = calloc(most, sizeof *b->done);
        if (!b->workers || !b->first_worker || !b->done)
            st = clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_batch_create");
    }
    for (size_t i = 0; i < n && st == CLC_SUCCESS; ++i) {
        const clc_device_info *d = clc_device_list_get(list, chosen[i]);
        const unsigned per_device = asked               ? asked
                                    : d->unified_memory ? DEFAULT_WORKERS_SHARED_MEMORY
                                                        : DEFAULT_WORKERS_OWN_MEMORY;
        cl_device_id devices[MAX_PARTITIONS];
        size_t parts = 0;
        st = expand(b, d, partitions, devices, &parts);
        for (size_t p = 0; p < parts && st == CLC_SUCCESS; ++p) {
            cl_context cl = NULL;
            cl_device_id own = NULL;
            st = device_context(d->platform, devices[p], &cl, &own);
            b->first_worker[b->device_count] = b->worker_count;
            for (unsigned w = 0; w < per_device && st == CLC_SUCCESS; ++w) {
                batch_worker *worker = &b->workers[b->worker_count];
                st = worker_context(cl, own, options, per_device, &worker->ctx);
                if (st == CLC_SUCCESS && w > 0)
                    worker->ctx->tune_peer = b->workers[b->first_worker[b->device_count]].ctx;
                if (st == CLC_SUCCESS) {
                    worker->device = b->device_count;
                    worker->batch = b;
                    ++b->worker_count;
                }
            }
            if (cl)
                clReleaseContext(cl); /* each wrapped worker holds its own reference */
            ++b->device_count;
        }
    }
    clc_device_list_destroy(list);
    if (st != CLC_SUCCESS) {
        clc_batch_destroy(b);
        return st;
    }
    *out = b;
    return CLC_SUCCESS;
}

size_t clc_batch_device_count(const clc_batch *b)
{
    return b ? b->device_count : 0;
}

const clc_device_info *clc_batch_device(const clc_batch *b, size_t device)
{
    if (!b || device >= b->device_count)
        return NULL;
    return clc_context_device(b->workers[b->first_worker[device]].ctx);
}

clc_context *clc_batch_context(const clc_batch *b, size_t device)
{
    if (!b || device >= b->device_count)
        return NULL;
    return b->workers[b->first_worker[device]].ctx;
}

size_t clc_batch_workers(const clc_batch *b, size_t device)
{
    if (!b || device >= b->device_count)
        return 0;
    const size_t end = device + 1 < b->device_count ? b->first_worker[device + 1] : b->worker_count;
    return end - b->first_worker[device];
}

size_t clc_batch_items_done(const clc_batch *b, size_t device)
{
    return b && device < b->device_count ? b->done[device] : 0;
}

void clc_batch_cancel(clc_batch *b)
{
    if (b)
        atomic_store(&b->cancelled, 1);
}

static void *work(void *arg)
{
    batch_worker *w = arg;
    clc_batch *b = w->batch;
    while (!atomic_load(&b->cancelled)) {
        const size_t item = atomic_fetch_add(&b->next, 1);
        if (item >= b->count)
            break;
        const clc_status st = b->job(w->ctx, item, b->user);
        if (b->statuses)
            b->statuses[item] = st;
        clc_mutex_lock(&b->lock);
        ++b->done[w->device];
        ++b->completed;
        if (st != CLC_SUCCESS) {
            ++b->failed;
            if (item < b->first_failure) {
                b->first_failure = item;
                b->first_status = st;
            }
        }
        if (b->progress)
            b->progress(b->completed, b->failed, b->count, b->progress_user);
        clc_mutex_unlock(&b->lock);
    }
    return NULL;
}

static clc_status run(clc_batch *b, size_t count, clc_batch_job job, void *user,
                      clc_status *statuses, clc_batch_progress progress, void *progress_user);

clc_status clc_batch_run(clc_batch *b, size_t count, clc_batch_job job, void *user,
                         clc_status *statuses, clc_batch_progress progress, void *progress_user)
{
    if (!b || !job)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_batch_run: batch and job must not be NULL");
    /* The run's state is the batch's: a second run at once (another thread, or a job) would
     * take the first one's items and statuses. */
    int idle = 0;
    if (!atomic_compare_exchange_strong(&b->running, &idle, 1))
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_batch_run: the batch is running already (from another thread or "
                         "a job): a batch runs one set of items at a time");
    const clc_status st = run(b, count, job, user, statuses, progress, progress_user);
    atomic_store(&b->running, 0);
    return st;
}

static clc_status run(clc_batch *b, size_t count, clc_batch_job job, void *user,
                      clc_status *statuses, clc_batch_progress progress, void *progress_user)
{
    atomic_store(&b->cancelled, 0);
    atomic_store(&b->next, 0);
    b->count = count;
    b->job = job;
    b->user = user;
    b->statuses = statuses;
    b->progress = progress;
    b->progress_user = progress_user;
    b->completed = b->failed = 0;
    b->first_failure = count;
    b->first_status = CLC_SUCCESS;
    memset(b->done, 0, b->device_count * sizeof *b->done);
    if (statuses)
        for (size_t i = 0; i < count; ++i)
            statuses[i] = CLC_ERROR_CANCELLED;

    pthread_t *threads = calloc(b->worker_count, sizeof *threads);
    if (!threads)
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_batch_run");
    size_t started = 0;
    for (; started < b->worker_count; ++started)
        if (pthread_create(&threads[started], NULL, work, &b->workers[started]) != 0)
            break;
    if (started == 0) /* no thread at all: run on this one */
        work(&b->workers[0]);
    for (size_t i = 0; i < started; ++i)
        pthread_join(threads[i], NULL);
    free(threads);

    if (b->completed < count)
        return clc__fail(NULL, CLC_ERROR_CANCELLED, "batch cancelled after %zu of %zu items",
                         b->completed, count);
    if (b->failed)
        return clc__fail(NULL, b->first_status,
                         "batch: %zu of %zu items failed; the first, item %zu: %s", b->failed,
                         count, b->first_failure, clc_status_string(b->first_status));
    return CLC_SUCCESS;
}
