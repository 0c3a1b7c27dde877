/* Host side of the median filter: validate, pick the program for the pixel type and window,
 * enqueue. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../runtime/internal.h"

typedef struct median_plan {
    const clc_image_desc *src;
    size_t src_bytes, dst_bytes, src_pitch, dst_pitch, value; /* value: bytes a pixel */
    size_t lanes;                                             /* pixels a work-item */
    char options[48];
} median_plan;

static clc_status plan_median(clc_context *ctx, const char *what, const clc_image_desc *src,
                              const clc_image_desc *dst, unsigned ksize, median_plan *plan)
{
    if (!src || !dst)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: image description is NULL", what);
    const char *type = src->format == CLC_PIXEL_GRAY8       ? "uchar"
                       : src->format == CLC_PIXEL_DEPTH_U16 ? "ushort"
                       : src->format == CLC_PIXEL_GRAY_F32 || src->format == CLC_PIXEL_DEPTH_F32
                           ? "float"
                           : NULL;
    if (!type)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: format %d is not GRAY8, DEPTH_U16, GRAY_F32 or DEPTH_F32", what,
                         (int)src->format);
    /* Each image on its own first, so that an empty one is called empty, not a mismatch. */
    clc_status st = clc_image_span(src, &plan->src_bytes);
    if (st != CLC_SUCCESS)
        return clc__fail(ctx, st, "%s: source: %s", what, clc__last_detail());
    if (dst->format != src->format || dst->width != src->width || dst->height != src->height)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: the destination (format %d, %zu x %zu) differs from the source "
                         "(format %d, %zu x %zu)",
                         what, (int)dst->format, dst->width, dst->height, (int)src->format,
                         src->width, src->height);
    if (ksize != 3 && ksize != 5)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: window size %u; 3 and 5 are supported (OpenCV's sizes for every "
                         "depth)",
                         what, ksize);
    st = clc_image_span(dst, &plan->dst_bytes);
    if (st != CLC_SUCCESS)
        return clc__fail(ctx, st, "%s: destination: %s", what, clc__last_detail());
    if (src->width > INT_MAX || src->height > INT_MAX)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "%s: %zu x %zu exceeds 2^31 - 1 a side",
                         what, src->width, src->height);
    plan->src = src;
    plan->value = clc_pixel_size(src->format);
    plan->src_pitch = src->pitch ? src->pitch : src->width * plan->value;
    plan->dst_pitch = dst->pitch ? dst->pitch : dst->width * plan->value;
    if (plan->src_pitch % plan->value || plan->dst_pitch % plan->value)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: pitches %zu and %zu must be multiples of the pixel's %zu bytes", what,
                         plan->src_pitch, plan->dst_pitch, plan->value);
    /* A 16-byte vector of pixels a work-item (cl/median.cl). */
    plan->lanes = 16 / plan->value;
    snprintf(plan->options, sizeof plan->options, "-DT=%s -DK=%u -DVEC=%zu%s", type, ksize,
             plan->lanes, strcmp(type, "float") == 0 ? " -DIS_FLOAT" : "");
    return CLC_SUCCESS;
}

static clc_status launch(clc_context *ctx, const median_plan *plan, cl_mem src, size_t src_offset,
                         cl_mem dst, size_t dst_offset, cl_uint num_events,
                         const cl_event *wait_list, cl_event *event)
{
    cl_kernel kernel = NULL;
    clc_status st = clc__kernel_take(ctx, &clc__source_median, plan->options, "median", &kernel);
    if (st != CLC_SUCCESS)
        return st;
    /* Rows of up to 256 items: wide enough that PoCL's cost per work-group stays small, the
     * window's rows shared through the caches on GPUs. Each item makes plan->lanes pixels. */
    size_t local[2] = {1, 1};
    st = clc__local_size(ctx, kernel, 256, &local[0]);
    if (st == CLC_SUCCESS) {
        const cl_uint width = (cl_uint)plan->src->width, height = (cl_uint)plan->src->height;
        const size_t items = (width + plan->lanes - 1) / plan->lanes;
        const size_t global[2] = {(items + local[0] - 1) / local[0] * local[0], height};
        const cl_ulong so = src_offset, sp = plan->src_pitch, dof = dst_offset,
                       dp = plan->dst_pitch;
        const clc_arg args[] = {CLC_ARG(src), CLC_ARG(so), CLC_ARG(sp),    CLC_ARG(dst),
                                CLC_ARG(dof), CLC_ARG(dp), CLC_ARG(width), CLC_ARG(height)};
        st = clc__set_args(ctx, kernel, "median", args, sizeof args / sizeof args[0]);
        if (st == CLC_SUCCESS) {
            const cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 2, NULL, global, local,
                                                      num_events, wait_list, event);
            if (err != CL_SUCCESS)
                st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(median)");
        }
    }
    clc__kernel_give(ctx, &kernel);
    return st;
}

/* Whether [a, a + an) and [b, b + bn) share a byte. */
static int overlap(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

clc_status clc_median_enqueue(clc_context *ctx, const clc_image_desc *src, cl_mem src_buffer,
                              size_t src_offset, const clc_image_desc *dst, cl_mem dst_buffer,
                              size_t dst_offset, unsigned ksize, cl_uint num_events_in_wait_list,
                              const cl_event *event_wait_list, cl_event *event)
{
    static const char what[] = "clc_median_enqueue";
    if (event)
        *event = NULL;
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", what);
    if ((num_events_in_wait_list > 0) != (event_wait_list != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: wait list and its count disagree",
                         what);
    median_plan plan;
    clc_status st = plan_median(ctx, what, src, dst, ksize, &plan);
    if (st == CLC_SUCCESS && (src_offset % plan.value || dst_offset % plan.value))
        st = clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                       "%s: offsets %zu and %zu must be multiples of the pixel's %zu bytes", what,
                       src_offset, dst_offset, plan.value);
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, src_buffer, src_offset, plan.src_bytes, "source buffer");
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, dst_buffer, dst_offset, plan.dst_bytes, "destination buffer");
    if (st == CLC_SUCCESS && src_buffer == dst_buffer &&
        overlap(src_offset, plan.src_bytes, dst_offset, plan.dst_bytes))
        st = clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                       "%s: source and destination overlap in one buffer", what);
    if (st != CLC_SUCCESS)
        return st;
    return launch(ctx, &plan, src_buffer, src_offset, dst_buffer, dst_offset,
                  num_events_in_wait_list, event_wait_list, event);
}

static clc_status host_launch(clc_context *ctx, const void *plan, cl_mem src, cl_mem dst,
                              int aligned)
{
    (void)aligned; /* one path for every alignment */
    return launch(ctx, plan, src, 0, dst, 0, 0, NULL, NULL);
}

clc_status clc_median(clc_context *ctx, const clc_image_desc *src, const void *src_data,
                      const clc_image_desc *dst, void *dst_data, unsigned ksize)
{
    static const char what[] = "clc_median";
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", what);
    if (!src_data || !dst_data)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what,
                         src_data ? "dst_data" : "src_data");
    median_plan plan;
    clc_status st = plan_median(ctx, what, src, dst, ksize, &plan);
    if (st != CLC_SUCCESS)
        return st;
    if ((uintptr_t)src_data % plan.value || (uintptr_t)dst_data % plan.value)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: image memory is not aligned to the pixel's %zu bytes", what,
                         plan.value);
    if (overlap((uintptr_t)src_data, plan.src_bytes, (uintptr_t)dst_data, plan.dst_bytes))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: source and destination memory overlap (the filter reads "
                         "neighbours it would already have replaced)",
                         what);
    return clc__image_host_call(ctx, "median", src_data, plan.src_bytes, plan.src_pitch, dst,
                                dst_data, plan.dst_bytes, plan.dst_pitch, host_launch, NULL,
                                &plan); /* a window spans rows: no bands */
}
