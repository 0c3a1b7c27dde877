/* Host side of the copy kernel: the device's measured memory bandwidth. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/internal.h"

#define MIN_BYTES ((size_t)1 << 20)
#define DEFAULT_REPEATS 10u

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static clc_status event_seconds(clc_context *ctx, cl_event event, double *seconds)
{
    cl_ulong start = 0, end = 0;
    cl_int err =
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (err != CL_SUCCESS)
        return clc__cl_fail(ctx, err, "clGetEventProfilingInfo");
    *seconds = (double)(end - start) * 1e-9;
    return CLC_SUCCESS;
}

clc_status clc_measure_copy_bandwidth(clc_context *ctx, size_t bytes, unsigned repeats,
                                      double *gbps)
{
    if (!ctx || !gbps)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_measure_copy_bandwidth: ctx and gbps must not be NULL");
    *gbps = 0.0;
    bytes &= ~(size_t)15;
    if (bytes < MIN_BYTES)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_measure_copy_bandwidth: %zu bytes is below the 1 MiB minimum", bytes);
    if ((uint64_t)bytes > ctx->info.max_alloc_bytes || bytes / 16 > 0xffffffffu ||
        2 * (uint64_t)bytes > ctx->info.global_mem_bytes)
        return clc__fail(ctx, CLC_ERROR_UNSUPPORTED,
                         "clc_measure_copy_bandwidth: two buffers of %zu bytes do not fit device "
                         "\"%s\" (largest allocation %llu, memory %llu bytes)",
                         bytes, ctx->info.name, (unsigned long long)ctx->info.max_alloc_bytes,
                         (unsigned long long)ctx->info.global_mem_bytes);
    repeats = repeats ? repeats : DEFAULT_REPEATS;

    cl_program program = NULL;
    clc_status st = clc__program_get(ctx, &clc__source_copy, NULL, &program);
    if (st != CLC_SUCCESS)
        return st;

    cl_int err = CL_SUCCESS;
    cl_kernel kernel = NULL;
    cl_command_queue queue = NULL;
    cl_mem src = NULL, dst = NULL;
    double *times = calloc(repeats, sizeof *times);
    const cl_uint n = (cl_uint)(bytes / 16);
    const size_t global = n;
    const float zero = 0.0f;
    if (!times) {
        st = clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_measure_copy_bandwidth");
        goto done;
    }
    kernel = clCreateKernel(program, "copy_f4", &err);
    if (err != CL_SUCCESS) {
        kernel = NULL;
        st = clc__cl_fail(ctx, err, "clCreateKernel(copy_f4)");
        goto done;
    }
    /* A private queue: the context's may lack profiling, and timing must not wait on the
     * caller's own work. */
    queue = clCreateCommandQueue(ctx->context, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        queue = NULL;
        st = clc__cl_fail(ctx, err, "clCreateCommandQueue");
        goto done;
    }
    src = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        dst = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "clCreateBuffer");
        goto done;
    }
    /* Touch the source so that lazily allocating drivers have real pages behind it. */
    err = clEnqueueFillBuffer(queue, src, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof src, &src);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof dst, &dst);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, sizeof n, &n);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "copy_f4 setup");
        goto done;
    }
    for (unsigned r = 0; r <= repeats && st == CLC_SUCCESS; ++r) {
        cl_event event = NULL;
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, &event);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &event);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(copy_f4)");
        else if (r > 0) /* the first run warms caches and lazy compilation */
            st = event_seconds(ctx, event, &times[r - 1]);
        if (event)
            clReleaseEvent(event);
    }
    if (st == CLC_SUCCESS) {
        qsort(times, repeats, sizeof *times, compare_double);
        double median =
            repeats % 2 ? times[repeats / 2] : 0.5 * (times[repeats / 2 - 1] + times[repeats / 2]);
        if (median <= 0.0)
            st = clc__fail(ctx, CLC_ERROR_UNSUPPORTED,
                           "clc_measure_copy_bandwidth: the device reported a zero duration");
        else
            *gbps = 2.0 * (double)bytes / median * 1e-9;
    }
done:
    if (dst)
        clReleaseMemObject(dst);
    if (src)
        clReleaseMemObject(src);
    if (queue)
        clReleaseCommandQueue(queue);
    if (kernel)
        clReleaseKernel(kernel);
    free(times);
    return st;
}
