/* Device buffers kept between host-pointer calls.
 *
 * A host-pointer call on a device with its own memory makes a device buffer for its input and
 * one for its output, and released them at its end. On NVIDIA's driver the memory behind a
 * buffer is allocated on first use and freed on release, and a free waits for the whole device:
 * four batch workers converting 4K frames from pinned memory ran one call after another (1132
 * frames/s, the rate of one worker's calls back to back) although each worker has a queue of its
 * own. So a call hands its buffers back here once it has finished with them, and the next call
 * of the same kind takes them again, as CuPy's and PyTorch's memory pools do. The pool is small
 * (POOL_SLOTS buffers, at most POOL_MOST bytes or a 16th of the device's memory, the oldest
 * dropped first), belongs to one context, is emptied when the context is destroyed, and when an
 * allocation finds the device out of memory (clc__pool_drain: the contexts of a batch or of
 * Python's lanes each keep a pool). Only device-allocated buffers whose last command has
 * finished (clc__pool_give's caller has waited on the queue) and that nothing else holds come
 * back: a buffer taken again is idle whatever queue uses it next. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

enum { POOL_SLOTS = 8 };
#define POOL_MOST ((size_t)512 << 20)

struct clc_pool {
    cl_mem buffer[POOL_SLOTS]; /* NULL: slot empty */
    cl_mem_flags flags[POOL_SLOTS];
    size_t bytes[POOL_SLOTS];
    uint64_t age[POOL_SLOTS]; /* when given back */
    uint64_t clock;
};

static size_t pool_limit(const clc_context *ctx)
{
    const uint64_t sixteenth = ctx->info.global_mem_bytes / 16;
    return sixteenth < POOL_MOST ? (size_t)sixteenth : POOL_MOST;
}

cl_mem clc__pool_take(clc_context *ctx, cl_mem_flags flags, size_t bytes)
{
    cl_mem m = NULL;
    clc_mutex_lock(&ctx->pool_lock);
    clc_pool *p = ctx->pool;
    int best = -1;
    /* The smallest that holds `bytes`, and not more than twice as large: a much larger buffer
     * would keep memory from a later call that needs it. */
    for (int i = 0; p && i < POOL_SLOTS; ++i)
        if (p->buffer[i] && p->flags[i] == flags && p->bytes[i] >= bytes &&
            p->bytes[i] / 2 <= bytes && (best < 0 || p->bytes[i] < p->bytes[best]))
            best = i;
    if (best >= 0) {
        m = p->buffer[best];
        p->buffer[best] = NULL;
    }
    clc_mutex_unlock(&ctx->pool_lock);
    return m;
}

void clc__pool_give(clc_context *ctx, cl_mem *m)
{
    if (!*m)
        return;
    /* What it is, from the buffer itself: one taken from the pool may be larger than its call
     * asked for. The caller's own memory (CL_MEM_USE_HOST_PTR) is never kept, nor a buffer
     * another holder retains (a caller's, passed through). */
    cl_mem_flags flags = 0;
    size_t bytes = 0;
    cl_uint holders = 0;
    const int keep =
        clGetMemObjectInfo(*m, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS &&
        clGetMemObjectInfo(*m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS &&
        clGetMemObjectInfo(*m, CL_MEM_REFERENCE_COUNT, sizeof holders, &holders, NULL) ==
            CL_SUCCESS &&
        holders == 1 && !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR));
    cl_mem dropped[POOL_SLOTS + 1];
    int drops = 0;
    clc_mutex_lock(&ctx->pool_lock);
    if (!ctx->pool)
        ctx->pool = calloc(1, sizeof *ctx->pool);
    clc_pool *p = ctx->pool;
    const size_t limit = pool_limit(ctx);
    if (!keep || !p || bytes > limit) {
        dropped[drops++] = *m;
    } else {
        /* Room: the oldest go until the new one fits in slots and bytes. */
        for (;;) {
            size_t held = 0;
            int oldest = -1, empty = -1;
            for (int i = 0; i < POOL_SLOTS; ++i) {
                if (!p->buffer[i])
                    empty = i;
                else {
                    held += p->bytes[i];
                    if (oldest < 0 || p->age[i] < p->age[oldest])
                        oldest = i;
                }
            }
            if (empty >= 0 && held + bytes <= limit) {
                p->buffer[empty] = *m;
                p->flags[empty] = flags;
                p->bytes[empty] = bytes;
                p->age[empty] = ++p->clock;
                break;
            }
            dropped[drops++] = p->buffer[oldest];
            p->buffer[oldest] = NULL;
        }
    }
    clc_mutex_unlock(&ctx->pool_lock);
    /* Released outside the lock: a release may wait for the device. */
    for (int i = 0; i < drops; ++i)
        clReleaseMemObject(dropped[i]);
    *m = NULL;
}

int clc__pool_drain(clc_context *ctx)
{
    cl_mem dropped[POOL_SLOTS];
    int drops = 0;
    clc_mutex_lock(&ctx->pool_lock);
    for (int i = 0; ctx->pool && i < POOL_SLOTS; ++i)
        if (ctx->pool->buffer[i]) {
            dropped[drops++] = ctx->pool->buffer[i];
            ctx->pool->buffer[i] = NULL;
        }
    clc_mutex_unlock(&ctx->pool_lock);
    for (int i = 0; i < drops; ++i)
        clReleaseMemObject(dropped[i]);
    return drops;
}

void clc__pool_release(clc_context *ctx)
{
    clc__pool_drain(ctx);
    free(ctx->pool);
    ctx->pool = NULL;
}
