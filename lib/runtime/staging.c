/* Pinned staging for the host transfers of host-pointer calls on devices with their own memory.
 *
 * A write from pageable memory makes the driver copy through its own small pinned buffer, one
 * piece at a time (6.8 GB/s for an 8K RGB image on the H200 host). Instead the context keeps two
 * pinned buffers (CL_MEM_ALLOC_HOST_PTR, mapped once for their lifetime) and pipelines: while the
 * device copies one chunk by DMA, the host copies the next one into the other buffer, on several
 * threads (copier.c). Reads back go the same way: with one copying thread they were slower than
 * the driver's own read (8.3 vs 10.2 GB/s for 271 MB of points), with the copier's threads they
 * are twice as fast (H200, 8 threads: a dense 8K cloud 25.4 -> 13.3 ms host-to-host, 64 VGA
 * frames 23.5 -> 10.6 ms). Below 4 MiB the driver's path is as fast (a VGA gray image: 0.24 ms
 * either way) and keeps the staging buffers out of small calls; contexts sharing a device with
 * other callers (CLC_TRANSFERS_STAGED) stage from 64 KiB, because the driver's pageable path
 * serves one transfer at a time and they would wait on each other in it. The buffers are created
 * on the first staged transfer, so contexts on CPUs and integrated GPUs never hold them.
 *
 * The chunk size is timed per device (the tune family "staging": 8, 16 or 32 MiB on a 128 MiB
 * round trip, cached like the kernel variants): on the H200 host 32 MiB chunks were 5-20%
 * faster on the largest transfers than 8 MiB ones and slower on mid-sized ones, which is why a
 * transfer is also cut into at least four chunks (of at least MIN_CHUNK): with fewer, the first
 * and the last chunk, which overlap nothing, are most of it. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { MIN_CHUNK = 4 << 20, TUNE_BYTES = 128 << 20 };
enum { CHUNKS = 3 };
static const size_t chunk_mib[CHUNKS] = {8, 16, 32};
static const char *const chunk_names[CHUNKS] = {"8MiB", "16MiB", "32MiB"};

struct clc_staging {
    cl_mem buffer[2];
    void *host[2];
    cl_event busy[2];   /* the last transfer using each buffer, NULL when idle */
    clc_copier *copier; /* the threads that fill and empty the buffers; NULL for one */
    size_t capacity;    /* bytes each buffer holds */
    size_t chunk;       /* bytes a chunk at most, <= capacity */
};

/* Waits until slot s may be overwritten. */
static cl_int settle(clc_staging *s, int slot)
{
    if (!s->busy[slot])
        return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, &s->busy[slot]);
    clReleaseEvent(s->busy[slot]);
    s->busy[slot] = NULL;
    return err;
}

/* Unmaps and frees what exists of s, after anything still using it. */
static void staging_free(cl_command_queue queue, clc_staging *s)
{
    if (!s)
        return;
    for (int i = 0; i < 2; ++i) {
        settle(s, i);
        if (s->host[i])
            clEnqueueUnmapMemObject(queue, s->buffer[i], s->host[i], 0, NULL, NULL);
    }
    if (queue)
        clFinish(queue);
    for (int i = 0; i < 2; ++i)
        if (s->buffer[i])
            clReleaseMemObject(s->buffer[i]);
    clc__copier_destroy(s->copier);
    free(s);
}

/* Two pinned buffers of `capacity` bytes, mapped on `queue` for their lifetime. */
static cl_int staging_make(cl_context context, cl_command_queue queue, size_t capacity,
                           unsigned threads, clc_staging **out)
{
    clc_staging *s = calloc(1, sizeof *s);
    if (!s)
        return CL_OUT_OF_HOST_MEMORY;
    s->capacity = s->chunk = capacity;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 2 && err == CL_SUCCESS; ++i) {
        s->buffer[i] = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, capacity,
                                      NULL, &err);
        if (err == CL_SUCCESS)
            s->host[i] =
                clEnqueueMapBuffer(queue, s->buffer[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   capacity, 0, NULL, NULL, &err);
    }
    if (err != CL_SUCCESS) {
        staging_free(queue, s);
        return err;
    }
    s->copier = clc__copier_create(threads);
    *out = s;
    return CL_SUCCESS;
}

void clc__staging_release(clc_context *ctx)
{
    staging_free(ctx->queue, ctx->staging);
    ctx->staging = NULL;
}

size_t clc__staging_chunk_for(size_t chunk, size_t bytes)
{
    if (chunk <= MIN_CHUNK)
        return chunk;
    const size_t mib = (size_t)1 << 20, quarter = (bytes / 4 + mib - 1) / mib * mib;
    const size_t c = quarter < MIN_CHUNK ? MIN_CHUNK : quarter;
    return c < chunk ? c : chunk;
}

static size_t chunk_for(const clc_staging *s, size_t bytes)
{
    return clc__staging_chunk_for(s->chunk, bytes);
}

/* Bytes in chunk j of a transfer of `bytes` in chunks of `chunk`: a whole chunk, or the rest. */
static size_t chunk_bytes(size_t chunk, size_t bytes, size_t j)
{
    const size_t off = j * chunk;
    return bytes - off < chunk ? bytes - off : chunk;
}

static cl_int pipe_write(cl_command_queue queue, clc_staging *s, cl_mem dst, const void *src,
                         size_t bytes)
{
    const size_t chunk = chunk_for(s, bytes);
    cl_int err = CL_SUCCESS;
    for (size_t off = 0, i = 0; err == CL_SUCCESS && off < bytes; off += chunk, ++i) {
        const int slot = (int)(i % 2);
        const size_t len = chunk_bytes(chunk, bytes, i);
        err = settle(s, slot);
        if (err != CL_SUCCESS)
            break;
        clc__copier_memcpy(s->copier, s->host[slot], (const unsigned char *)src + off, len);
        err = clEnqueueWriteBuffer(queue, dst, CL_FALSE, off, len, s->host[slot], 0, NULL,
                                   &s->busy[slot]);
    }
    return err;
}

/* Reads chunk j of src into its slot, without waiting. */
static cl_int read_chunk(cl_command_queue queue, clc_staging *s, cl_mem src, size_t chunk,
                         size_t bytes, size_t j)
{
    const int slot = (int)(j % 2);
    cl_int err = settle(s, slot);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, src, CL_FALSE, j * chunk, chunk_bytes(chunk, bytes, j),
                                  s->host[slot], 0, NULL, &s->busy[slot]);
    return err;
}

static cl_int pipe_read(cl_command_queue queue, clc_staging *s, cl_mem src, void *dst, size_t bytes)
{
    const size_t chunk = chunk_for(s, bytes), n = (bytes + chunk - 1) / chunk;
    cl_int err = n > 0 ? read_chunk(queue, s, src, chunk, bytes, 0) : CL_SUCCESS;
    for (size_t i = 0; err == CL_SUCCESS && i < n; ++i) {
        if (i + 1 < n) /* its slot held chunk i - 1, already copied out */
            err = read_chunk(queue, s, src, chunk, bytes, i + 1);
        if (err == CL_SUCCESS)
            err = settle(s, (int)(i % 2));
        if (err == CL_SUCCESS)
            clc__copier_memcpy(s->copier, (unsigned char *)dst + i * chunk, s->host[i % 2],
                               chunk_bytes(chunk, bytes, i));
    }
    if (err != CL_SUCCESS) /* nothing may still be writing into the slots */
        for (int i = 0; i < 2; ++i)
            settle(s, i);
    return err;
}

/* Tuning: the same round trip (staged upload, then staged read-back) of TUNE_BYTES from ordinary
 * memory in each chunk size, through one pair of buffers of the largest, made and mapped on the
 * tuning queue by its first run (the warm-up round, which also takes the page faults of the
 * host arrays). */
typedef struct tune_input {
    cl_context context;
    cl_command_queue queue; /* where the buffers were mapped */
    unsigned threads;
    clc_staging *staging;
    cl_mem device;
    unsigned char *src, *dst;
} tune_input;

static void tune_teardown(void *arg)
{
    tune_input *t = arg;
    staging_free(t->queue, t->staging);
    clc__release_mem(&t->device);
    free(t->src);
    free(t->dst);
    free(t);
}

static clc_status tune_setup(clc_context *ctx, void **arg)
{
    tune_input *t = calloc(1, sizeof *t);
    if (!t)
        return CLC_ERROR_OUT_OF_HOST_MEMORY;
    t->context = ctx->context;
    t->threads = ctx->staging_threads;
    t->src = calloc(1, TUNE_BYTES);
    t->dst = calloc(1, TUNE_BYTES);
    cl_int err = t->src && t->dst ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS)
        t->device = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, TUNE_BYTES, NULL, &err);
    if (err != CL_SUCCESS) {
        tune_teardown(t);
        return (clc_status)err;
    }
    *arg = t;
    return CLC_SUCCESS;
}

static clc_status tune_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    (void)ctx;
    tune_input *t = arg;
    cl_int err = CL_SUCCESS;
    if (!t->staging) {
        t->queue = queue;
        err = staging_make(t->context, queue, chunk_mib[CHUNKS - 1] << 20, t->threads, &t->staging);
    }
    if (err == CL_SUCCESS) {
        t->staging->chunk = chunk_mib[variant] << 20;
        err = pipe_write(queue, t->staging, t->device, t->src, TUNE_BYTES);
    }
    if (err == CL_SUCCESS)
        err = pipe_read(queue, t->staging, t->device, t->dst, TUNE_BYTES);
    return (clc_status)err;
}

const clc_tune_family clc__staging_tune_family = {
    "staging", &clc__source_copy, "staging", chunk_names,
    CHUNKS,    tune_setup,        tune_run,  tune_teardown};

/* The context's staging buffers, made on first use in the device's timed chunk size; called
 * with staging_lock held, the chunk already chosen (outside the lock: tuning takes its own). */
static cl_int staging_get(clc_context *ctx, size_t chunk, clc_staging **out)
{
    cl_int err = CL_SUCCESS;
    if (!ctx->staging)
        err = staging_make(ctx->context, ctx->queue, chunk, ctx->staging_threads, &ctx->staging);
    *out = ctx->staging;
    return err;
}

/* The chunk size of ctx's staging: fixed where ctx->staging_chunk says so (the tests' odd size),
 * else the device's timed choice (8 MiB when tuning is off). */
static size_t chosen_chunk(clc_context *ctx)
{
    if (ctx->staging_chunk)
        return ctx->staging_chunk;
    return chunk_mib[clc__tune(ctx, &clc__staging_tune_family, 0)] << 20;
}

int clc__host_in_place(const clc_context *ctx)
{
    return ctx->info.unified_memory && ctx->staging_mode != CLC_STAGING_ALWAYS;
}

int clc__staging_wanted(clc_context *ctx, const void *data, size_t bytes)
{
    if (clc__host_in_place(ctx) || clc__host_pinned(ctx, data, bytes))
        return 0;
    switch (ctx->staging_mode) {
    case CLC_STAGING_AUTO:
        return bytes >= (size_t)4 << 20;
    case CLC_STAGING_ALWAYS:
        return 1;
    case CLC_STAGING_SHARED:
        return bytes >= (size_t)64 << 10;
    default:
        return 0;
    }
}

cl_int clc__staged_write(clc_context *ctx, cl_mem dst, const void *src, size_t bytes)
{
    const size_t chunk = chosen_chunk(ctx);
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, chunk, &s);
    if (err == CL_SUCCESS)
        err = pipe_write(ctx->queue, s, dst, src, bytes);
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}

cl_int clc__staged_read(clc_context *ctx, cl_mem src, void *dst, size_t bytes)
{
    const size_t chunk = chosen_chunk(ctx);
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, chunk, &s);
    if (err == CL_SUCCESS)
        err = pipe_read(ctx->queue, s, src, dst, bytes);
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}
