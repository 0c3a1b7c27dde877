/* Host memory the device reaches at the bus's full speed: clc_host_alloc.
 *
 * A transfer from ordinary (pageable) host memory goes through a pinned bounce buffer, the
 * driver's or the library's staging (lib/runtime/staging.c), at the speed of a host memcpy
 * (10 GB/s a thread on the H200 host, against 53-55 GB/s of PCIe). Memory the driver has pinned
 * itself is read and written by DMA directly. So an allocation here is a CL_MEM_ALLOC_HOST_PTR
 * buffer, mapped once for its lifetime: the mapped pointer is what the caller gets, the buffer
 * itself is never given to a kernel (a mapped buffer may not be), and the host-pointer calls
 * recognise the pointer and transfer to and from it without staging. On devices that share host
 * memory the same pointer is used in place, as any other host memory is. The registry belongs
 * to the end of the ctx->tune_peer chain: the device's first batch worker for the others, the
 * owner for contexts made peers by clc_context_share; so every context of such a group
 * recognises what any of them allocated. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

struct clc_pinned {
    void *ptr;
    size_t bytes;
    cl_mem buffer;
    struct clc_pinned *next;
};

clc_context *clc__peer_root(clc_context *ctx)
{
    while (ctx->tune_peer)
        ctx = ctx->tune_peer;
    return ctx;
}

clc_status clc_context_share(clc_context *ctx, clc_context *owner)
{
    if (!ctx || !owner || ctx == owner)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_share: two different contexts are required");
    if (ctx->context != owner->context || ctx->device != owner->device)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_share: the contexts are on different OpenCL contexts or "
                         "devices (wrap the owner's clc_context_cl_context and "
                         "clc_context_cl_device)");
    /* The group's root, so that only its lifetime matters, however the peers were joined. */
    clc_context *root = clc__peer_root(owner);
    if (root == ctx)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_share: owner is already a peer of ctx");
    clc_mutex_lock(&ctx->pinned_lock); /* against a clc_host_alloc on ctx meanwhile */
    const int has_memory = ctx->pinned != NULL, has_peer = ctx->tune_peer != NULL;
    if (!has_memory && !has_peer)
        ctx->tune_peer = root;
    clc_mutex_unlock(&ctx->pinned_lock);
    if (has_memory || has_peer)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "clc_context_share: ctx already has %s",
                         has_memory ? "pinned memory of its own" : "a peer");
    return CLC_SUCCESS;
}

clc_status clc_host_alloc(clc_context *ctx, size_t bytes, void **ptr)
{
    if (ptr)
        *ptr = NULL;
    if (!ctx || !ptr || bytes == 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_host_alloc: a context, a size above 0 and a place for the pointer "
                         "are required");
    clc_context *owner = clc__peer_root(ctx);
    clc_pinned *p = calloc(1, sizeof *p);
    if (!p)
        return clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_host_alloc");
    cl_int err = CL_SUCCESS;
    p->buffer = clCreateBuffer(owner->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                               NULL, &err);
    if (err == CL_SUCCESS)
        p->ptr = clEnqueueMapBuffer(owner->queue, p->buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                    bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        if (p->buffer)
            clReleaseMemObject(p->buffer);
        free(p);
        return clc__cl_fail(ctx, err, "clc_host_alloc: a pinned buffer");
    }
    p->bytes = bytes;
    clc_mutex_lock(&owner->pinned_lock);
    p->next = owner->pinned;
    owner->pinned = p;
    clc_mutex_unlock(&owner->pinned_lock);
    *ptr = p->ptr;
    return CLC_SUCCESS;
}

/* Unmaps and releases one allocation, taken out of the registry by the caller. */
static void release(clc_context *owner, clc_pinned *p)
{
    clEnqueueUnmapMemObject(owner->queue, p->buffer, p->ptr, 0, NULL, NULL);
    clFinish(owner->queue);
    clReleaseMemObject(p->buffer);
    free(p);
}

clc_status clc_host_free(clc_context *ctx, void *ptr)
{
    if (!ptr)
        return CLC_SUCCESS;
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_host_free: ctx is NULL");
    clc_context *owner = clc__peer_root(ctx);
    clc_mutex_lock(&owner->pinned_lock);
    clc_pinned **at = &owner->pinned;
    while (*at && (*at)->ptr != ptr)
        at = &(*at)->next;
    clc_pinned *p = *at;
    if (p)
        *at = p->next;
    clc_mutex_unlock(&owner->pinned_lock);
    if (!p)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_host_free: %p is not memory clc_host_alloc gave on this context's "
                         "device",
                         ptr);
    release(owner, p);
    return CLC_SUCCESS;
}

int clc__host_pinned(clc_context *ctx, const void *data, size_t bytes)
{
    clc_context *owner = clc__peer_root(ctx);
    const uintptr_t a = (uintptr_t)data;
    int found = 0;
    clc_mutex_lock(&owner->pinned_lock);
    for (const clc_pinned *p = owner->pinned; p && !found; p = p->next) {
        const uintptr_t b = (uintptr_t)p->ptr;
        found = a >= b && a - b <= p->bytes && bytes <= p->bytes - (a - b);
    }
    clc_mutex_unlock(&owner->pinned_lock);
    return found;
}

void clc__pinned_release_all(clc_context *ctx)
{
    while (ctx->pinned) {
        clc_pinned *p = ctx->pinned;
        ctx->pinned = p->next;
        release(ctx, p);
    }
}
