/* What every kernel family needs to launch: checked buffers, kernels, arguments, work sizes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

clc_status clc__check_buffer(clc_context *ctx, cl_mem buffer, size_t offset, size_t bytes,
                             const char *what)
{
    if (!buffer)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    cl_context owner = NULL;
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return clc__cl_fail(ctx, err, "clGetMemObjectInfo");
    if (owner != ctx->context)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s belongs to another OpenCL context than the clc_context", what);
    if (offset > size || bytes > size - offset)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW,
                         "%s holds %zu bytes; the image needs %zu from offset %zu", what, size,
                         bytes, offset);
    return CLC_SUCCESS;
}

/* Kernels a context keeps: enough for every kernel of the families in use to be in use on a
 * few threads at once. A kernel made when the table is full takes the place of the idle one
 * taken longest ago, so that the kernels of the calls being made stay kept whatever came first;
 * with none idle it is made and released by its call alone. A kept kernel keeps its last
 * arguments until its next use: OpenCL does not have a kernel retain the buffers set as its
 * arguments, but a driver that did would keep a kept kernel's last buffers alive until then. */
#define KERNEL_SLOTS 64

clc_status clc__kernel_take(clc_context *ctx, const clc_embedded_source *source,
                            const char *options, const char *name, cl_kernel *kernel)
{
    *kernel = NULL;
    cl_program program = NULL;
    clc_status st = clc__program_get(ctx, source, options, &program);
    if (st != CLC_SUCCESS)
        return st;
    clc_mutex_lock(&ctx->kernel_lock);
    for (size_t i = 0; i < ctx->kernel_count; ++i) {
        clc_kernel_slot *k = &ctx->kernels[i];
        if (!k->busy && k->program == program && strcmp(k->name, name) == 0) {
            k->busy = 1;
            k->used = ++ctx->kernel_takes;
            *kernel = k->kernel;
            break;
        }
    }
    clc_mutex_unlock(&ctx->kernel_lock);
    if (*kernel)
        return CLC_SUCCESS;

    cl_int err = CL_SUCCESS;
    cl_kernel made = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) {
        char call[128];
        snprintf(call, sizeof call, "clCreateKernel(%s)", name);
        return clc__cl_fail(ctx, err, call);
    }
    char *copy = clc__strdup(name); /* without it the kernel is simply not kept */
    cl_kernel evicted = NULL;
    char *evicted_name = NULL;
    clc_mutex_lock(&ctx->kernel_lock);
    if (!ctx->kernels)
        ctx->kernels = calloc(KERNEL_SLOTS, sizeof *ctx->kernels);
    clc_kernel_slot *slot = NULL;
    if (copy && ctx->kernels && ctx->kernel_count < KERNEL_SLOTS) {
        slot = &ctx->kernels[ctx->kernel_count++];
    } else if (copy && ctx->kernels) {
        for (size_t i = 0; i < ctx->kernel_count; ++i)
            if (!ctx->kernels[i].busy && (!slot || ctx->kernels[i].used < slot->used))
                slot = &ctx->kernels[i];
        if (slot)
            evicted = slot->kernel, evicted_name = slot->name;
    }
    if (slot) {
        *slot = (clc_kernel_slot){program, copy, made, 1, ++ctx->kernel_takes};
        copy = NULL;
    }
    clc_mutex_unlock(&ctx->kernel_lock);
    if (evicted)
        clReleaseKernel(evicted);
    free(evicted_name);
    free(copy); /* not kept: released when given back */
    *kernel = made;
    return CLC_SUCCESS;
}

void clc__kernel_give(clc_context *ctx, cl_kernel *kernel)
{
    if (!*kernel)
        return;
    int kept = 0;
    clc_mutex_lock(&ctx->kernel_lock);
    for (size_t i = 0; i < ctx->kernel_count && !kept; ++i)
        if (ctx->kernels[i].kernel == *kernel)
            ctx->kernels[i].busy = 0, kept = 1;
    clc_mutex_unlock(&ctx->kernel_lock);
    if (!kept)
        clReleaseKernel(*kernel);
    *kernel = NULL;
}

void clc__kernels_release(clc_context *ctx)
{
    for (size_t i = 0; i < ctx->kernel_count; ++i) {
        clReleaseKernel(ctx->kernels[i].kernel);
        free(ctx->kernels[i].name);
    }
    free(ctx->kernels);
    ctx->kernels = NULL;
    ctx->kernel_count = 0;
}

clc_status clc__local_size(clc_context *ctx, cl_kernel kernel, size_t want, size_t *local)
{
    size_t limit = 0, multiple = 0;
    cl_int err = clGetKernelWorkGroupInfo(kernel, ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof limit, &limit, NULL);
    if (err == CL_SUCCESS)
        err = clGetKernelWorkGroupInfo(kernel, ctx->device,
                                       CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                       sizeof multiple, &multiple, NULL);
    if (err != CL_SUCCESS)
        return clc__cl_fail(ctx, err, "clGetKernelWorkGroupInfo");
    size_t n = want < limit ? want : limit;
    if (multiple > 1 && n >= multiple)
        n -= n % multiple;
    *local = n ? n : 1;
    return CLC_SUCCESS;
}

clc_status clc__set_args(clc_context *ctx, cl_kernel kernel, const char *kernel_name,
                         const clc_arg *args, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        cl_int err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            char call[128];
            snprintf(call, sizeof call, "clSetKernelArg(%s, %zu)", kernel_name, i);
            return clc__cl_fail(ctx, err, call);
        }
    }
    return CLC_SUCCESS;
}

cl_mem clc__host_input(clc_context *ctx, const void *data, size_t bytes, cl_event uploads[2],
                       cl_int *err)
{
    uploads[0] = uploads[1] = NULL;
    const int in_place = clc__host_in_place(ctx);
    cl_mem m = clc__create_buffer(ctx, CL_MEM_READ_ONLY | (in_place ? CL_MEM_USE_HOST_PTR : 0),
                                  bytes, in_place ? (void *)(uintptr_t)data : NULL, err);
    if (*err != CL_SUCCESS)
        return NULL;
    if (!in_place) {
        *err = clc__staging_wanted(ctx, data, bytes)
                   ? clc__staged_write(ctx, ctx->queue, m, 0, data, bytes, uploads)
                   : clEnqueueWriteBuffer(ctx->queue, m, CL_FALSE, 0, bytes, data, 0, NULL, NULL);
        if (*err != CL_SUCCESS) {
            clReleaseMemObject(m);
            return NULL;
        }
    }
    return m;
}

cl_int clc__events_settle(cl_event *events, size_t n)
{
    cl_int failed = CL_SUCCESS;
    for (size_t k = 0; k < n; ++k) {
        if (!events[k])
            continue;
        cl_int status = CL_COMPLETE;
        const cl_int err = clGetEventInfo(events[k], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                          sizeof status, &status, NULL);
        if (failed == CL_SUCCESS && (err != CL_SUCCESS || status < 0))
            failed = err != CL_SUCCESS ? err : status;
        clReleaseEvent(events[k]);
        events[k] = NULL;
    }
    return failed;
}

clc_status clc__host_finish(clc_context *ctx, clc_status st, cl_event *uploads, size_t n,
                            const char *what, int *idle)
{
    const cl_int err = clFinish(ctx->queue);
    *idle = err == CL_SUCCESS;
    if (err != CL_SUCCESS && st == CLC_SUCCESS)
        st = clc__cl_fail(ctx, err, "clFinish");
    if (*idle)
        clc__staging_forget(ctx, uploads, n);
    const cl_int failed = clc__events_settle(uploads, n);
    if (failed != CL_SUCCESS && st == CLC_SUCCESS) {
        char call[96];
        snprintf(call, sizeof call, "uploading the %s input", what);
        st = clc__cl_fail(ctx, failed, call);
    }
    return st;
}

cl_mem clc__host_output(clc_context *ctx, void *data, size_t bytes, cl_int *err)
{
    if (!clc__host_in_place(ctx))
        return clc__scratch(ctx, CL_MEM_WRITE_ONLY, bytes, err);
    cl_mem m =
        clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, data, err);
    return *err == CL_SUCCESS ? m : NULL;
}

cl_mem clc__scratch(clc_context *ctx, cl_mem_flags flags, size_t bytes, cl_int *err)
{
    cl_mem m = clc__create_buffer(ctx, flags, bytes, NULL, err);
    if (*err != CL_SUCCESS)
        return NULL;
    if (ctx->poison >= 0) {
        /* Finished here, as the buffer may next be used on another queue (variant timing). */
        const cl_uchar byte = (cl_uchar)ctx->poison;
        *err = clEnqueueFillBuffer(ctx->queue, m, &byte, 1, 0, bytes, 0, NULL, NULL);
        if (*err == CL_SUCCESS)
            *err = clFinish(ctx->queue);
        if (*err != CL_SUCCESS) {
            clReleaseMemObject(m);
            return NULL;
        }
    }
    return m;
}

void clc__release_mem(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

cl_mem clc__zeroed_state(clc_context *ctx, size_t words, cl_int *err)
{
    cl_uint *zeros = calloc(words, sizeof *zeros);
    if (!zeros) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    cl_mem m = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              words * sizeof *zeros, zeros, err);
    free(zeros);
    return *err == CL_SUCCESS ? m : NULL;
}

clc_status clc__onepass_state(clc_context *ctx, cl_mem *state, size_t *state_words, size_t words,
                              const char *what, cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    clc_mutex_lock(&ctx->lock);
    if (*state_words < words) {
        size_t want = *state_words ? 2 * *state_words : 4096;
        want = want < words ? words : want;
        cl_mem m = clc__zeroed_state(ctx, want, &err);
        if (err == CL_SUCCESS) {
            clc__release_mem(state);
            *state = m;
            *state_words = want;
        }
    }
    if (err == CL_SUCCESS && (err = clRetainMemObject(*state)) == CL_SUCCESS)
        *out = *state;
    clc_mutex_unlock(&ctx->lock);
    return err == CL_SUCCESS ? CLC_SUCCESS : clc__cl_fail(ctx, err, what);
}

cl_mem clc__create_buffer(clc_context *ctx, cl_mem_flags flags, size_t bytes, void *host,
                          cl_int *err)
{
    cl_mem m = host ? NULL : clc__pool_take(ctx, flags, bytes);
    *err = CL_SUCCESS;
    if (m)
        return m;
    m = clCreateBuffer(ctx->context, flags, bytes, host, err);
    if ((*err == CL_MEM_OBJECT_ALLOCATION_FAILURE || *err == CL_OUT_OF_RESOURCES ||
         *err == CL_OUT_OF_HOST_MEMORY) &&
        clc__pool_drain(ctx) > 0)
        m = clCreateBuffer(ctx->context, flags, bytes, host, err);
    return m;
}

void clc__host_release(clc_context *ctx, cl_mem *m, int idle)
{
    if (idle)
        clc__pool_give(ctx, m);
    else
        clc__release_mem(m);
}

cl_int clc__host_sync(clc_context *ctx, cl_mem buffer, void *data, const clc_part *parts, size_t n)
{
    while (n > 0 && parts[n - 1].bytes == 0)
        --n;
    size_t first = 0;
    while (first < n && parts[first].bytes == 0)
        ++first;
    if (first == n)
        return CL_SUCCESS;
    const size_t base = parts[first].at, span = parts[n - 1].at + parts[n - 1].bytes - base;
    unsigned char *host = (unsigned char *)data;
    cl_int err = CL_SUCCESS;
    if (!clc__host_in_place(ctx)) {
        if (clc__staging_wanted(ctx, host + base, span))
            return clc__staged_read(ctx, ctx->queue, buffer, host, parts + first, n - first);
        /* Enqueued without waiting, so that the parts (the frames of clc_depth_to_points_many)
         * follow one another on the bus without a round trip to the host between them; then one
         * wait for all, and each read's own status, as a read that fails on the device says so
         * only there. */
        cl_event *done = calloc(n - first, sizeof *done);
        if (!done)
            return CL_OUT_OF_HOST_MEMORY;
        size_t made = 0;
        for (size_t k = first; k < n && err == CL_SUCCESS; ++k)
            if (parts[k].bytes) {
                err = clEnqueueReadBuffer(ctx->queue, buffer, CL_FALSE, parts[k].at, parts[k].bytes,
                                          host + parts[k].at, 0, NULL, &done[made]);
                made += err == CL_SUCCESS;
            }
        const cl_int waited = made ? clWaitForEvents((cl_uint)made, done) : CL_SUCCESS;
        const cl_int status = clc__events_settle(done, made);
        free(done);
        return err != CL_SUCCESS ? err : status != CL_SUCCESS ? status : waited;
    }
    /* Mapping is what makes a device's writes visible in host memory it was given. Neither map
     * nor unmap is waited for here: the caller's one clFinish covers kernel, map and unmap, and
     * on PoCL every wait puts the calling thread to sleep and wakes it again, which cost 40 to
     * 100 us of a 640x480 gray call (120-200 us with a blocking map, 80-90 without). */
    void *p = clEnqueueMapBuffer(ctx->queue, buffer, CL_FALSE, CL_MAP_READ, base, span, 0, NULL,
                                 NULL, &err);
    if (err == CL_SUCCESS)
        err = clEnqueueUnmapMemObject(ctx->queue, buffer, p, 0, NULL, NULL);
    return err;
}
