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
 * on the first staged transfer, so contexts on CPUs and integrated GPUs never hold them. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Chunks are 8 MiB (ctx->staging_chunk): large enough that a DMA's fixed cost is small beside
 * it (0.2 ms of PCIe 5 at 50 GB/s), small enough that the first and last chunk, which do not
 * overlap, cost little. */

struct clc_staging {
    cl_mem buffer[2];
    void *host[2];
    cl_event busy[2];   /* the last transfer using each buffer, NULL when idle */
    clc_copier *copier; /* the threads that fill and empty the buffers; NULL for one */
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

void clc__staging_release(clc_context *ctx)
{
    clc_staging *s = ctx->staging;
    if (!s)
        return;
    for (int i = 0; i < 2; ++i) {
        settle(s, i);
        if (s->host[i])
            clEnqueueUnmapMemObject(ctx->queue, s->buffer[i], s->host[i], 0, NULL, NULL);
    }
    if (ctx->queue)
        clFinish(ctx->queue);
    for (int i = 0; i < 2; ++i)
        if (s->buffer[i])
            clReleaseMemObject(s->buffer[i]);
    clc__copier_destroy(s->copier);
    free(s);
    ctx->staging = NULL;
}

/* The staging buffers, created on first use; called with staging_lock held. */
static cl_int staging_get(clc_context *ctx, clc_staging **out)
{
    if (ctx->staging) {
        *out = ctx->staging;
        return CL_SUCCESS;
    }
    clc_staging *s = calloc(1, sizeof *s);
    if (!s)
        return CL_OUT_OF_HOST_MEMORY;
    ctx->staging = s;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 2 && err == CL_SUCCESS; ++i) {
        s->buffer[i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                      ctx->staging_chunk, NULL, &err);
        if (err == CL_SUCCESS)
            s->host[i] =
                clEnqueueMapBuffer(ctx->queue, s->buffer[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   ctx->staging_chunk, 0, NULL, NULL, &err);
    }
    if (err != CL_SUCCESS) {
        clc__staging_release(ctx);
        return err;
    }
    s->copier = clc__copier_create(ctx->staging_threads);
    *out = s;
    return CL_SUCCESS;
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

/* Bytes in chunk j of a transfer of `bytes`: a whole chunk, or the rest. */
static size_t chunk_bytes(const clc_context *ctx, size_t bytes, size_t j)
{
    const size_t off = j * ctx->staging_chunk;
    return bytes - off < ctx->staging_chunk ? bytes - off : ctx->staging_chunk;
}

cl_int clc__staged_write(clc_context *ctx, cl_mem dst, const void *src, size_t bytes)
{
    const size_t CHUNK = ctx->staging_chunk;
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, &s);
    for (size_t off = 0, i = 0; err == CL_SUCCESS && off < bytes; off += CHUNK, ++i) {
        const int slot = (int)(i % 2);
        const size_t len = chunk_bytes(ctx, bytes, i);
        err = settle(s, slot);
        if (err != CL_SUCCESS)
            break;
        clc__copier_memcpy(s->copier, s->host[slot], (const unsigned char *)src + off, len);
        err = clEnqueueWriteBuffer(ctx->queue, dst, CL_FALSE, off, len, s->host[slot], 0, NULL,
                                   &s->busy[slot]);
    }
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}

/* Reads chunk j of src into its slot, without waiting. */
static cl_int read_chunk(clc_context *ctx, clc_staging *s, cl_mem src, size_t bytes, size_t j)
{
    const int slot = (int)(j % 2);
    cl_int err = settle(s, slot);
    if (err == CL_SUCCESS)
        err =
            clEnqueueReadBuffer(ctx->queue, src, CL_FALSE, j * ctx->staging_chunk,
                                chunk_bytes(ctx, bytes, j), s->host[slot], 0, NULL, &s->busy[slot]);
    return err;
}

cl_int clc__staged_read(clc_context *ctx, cl_mem src, void *dst, size_t bytes)
{
    const size_t CHUNK = ctx->staging_chunk, n = (bytes + CHUNK - 1) / CHUNK;
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, &s);
    if (err == CL_SUCCESS && n > 0)
        err = read_chunk(ctx, s, src, bytes, 0);
    for (size_t i = 0; err == CL_SUCCESS && i < n; ++i) {
        if (i + 1 < n) /* its slot held chunk i - 1, already copied out */
            err = read_chunk(ctx, s, src, bytes, i + 1);
        if (err == CL_SUCCESS)
            err = settle(s, (int)(i % 2));
        if (err == CL_SUCCESS)
            clc__copier_memcpy(s->copier, (unsigned char *)dst + i * CHUNK, s->host[i % 2],
                               chunk_bytes(ctx, bytes, i));
    }
    if (err != CL_SUCCESS && s) /* nothing may still be writing into the slots */
        for (int i = 0; i < 2; ++i)
            settle(s, i);
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}
