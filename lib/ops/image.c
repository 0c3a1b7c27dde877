/* Image descriptions: bytes per pixel and the memory an image spans, overflow-checked; and the
 * host-memory form shared by the image-to-image operations. */
#include <stdint.h>
#include <stdio.h>

#include "../runtime/internal.h"

size_t clc_pixel_size(clc_pixel_format format)
{
    switch (format) {
    case CLC_PIXEL_RGB8:
    case CLC_PIXEL_BGR8:
        return 3;
    case CLC_PIXEL_RGBA8:
    case CLC_PIXEL_BGRA8:
    case CLC_PIXEL_GRAY_F32:
    case CLC_PIXEL_DEPTH_F32:
        return 4;
    case CLC_PIXEL_DEPTH_U16:
        return 2;
    case CLC_PIXEL_GRAY8:
        return 1;
    }
    return 0;
}

clc_status clc_image_span(const clc_image_desc *desc, size_t *bytes)
{
    if (!desc || !bytes)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image description is NULL");
    size_t bpp = clc_pixel_size(desc->format);
    if (!bpp)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "unknown pixel format %d",
                         (int)desc->format);
    if (desc->width == 0 || desc->height == 0)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image size %zu x %zu is empty",
                         desc->width, desc->height);
    if (desc->width > SIZE_MAX / bpp)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW, "a row of %zu pixels overflows size_t",
                         desc->width);
    size_t row = desc->width * bpp;
    size_t pitch = desc->pitch ? desc->pitch : row;
    if (pitch < row)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "pitch %zu bytes is below one row of %zu pixels (%zu bytes)", pitch,
                         desc->width, row);
    if (desc->height - 1 > (SIZE_MAX - row) / pitch)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW,
                         "%zu rows of pitch %zu bytes overflow size_t", desc->height, pitch);
    *bytes = (desc->height - 1) * pitch + row;
    return CLC_SUCCESS;
}

/* The pixels of each row of a device-side destination with pitch padding into host memory,
 * leaving the caller's padding bytes as they were. */
static cl_int read_rows(cl_command_queue queue, cl_mem buffer, const clc_image_desc *dst,
                        size_t pitch, void *host)
{
    const size_t row = dst->width * clc_pixel_size(dst->format);
    const size_t origin[3] = {0, 0, 0}, region[3] = {row, dst->height, 1};
    return clEnqueueReadBufferRect(queue, buffer, CL_TRUE, origin, origin, region, pitch, 0, pitch,
                                   0, host, 0, NULL, NULL);
}

static int aligned16(uintptr_t a, size_t b)
{
    return ((a | b) & 15) == 0;
}

clc_status clc__image_host_call(clc_context *ctx, const char *what, const void *src_data,
                                size_t src_bytes, size_t src_pitch, const clc_image_desc *dst,
                                void *dst_data, size_t dst_bytes, size_t dst_pitch,
                                clc_image_launch launch, const void *plan)
{
    /* Devices that share host memory work on the caller's memory in place; others get device
     * buffers and explicit copies. */
    const int in_place = clc__host_in_place(ctx);
    /* A device-side destination holds whole rows: some drivers (NVIDIA) bound-check a rectangle
     * read by height * pitch, not by the last byte it touches. */
    const size_t padding = dst_pitch - dst->width * clc_pixel_size(dst->format);
    if (!in_place && dst_bytes > SIZE_MAX - padding)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "clc_%s: destination too large", what);
    char call[96];
    const size_t dst_alloc = in_place ? dst_bytes : dst_bytes + padding;
    cl_int err = CL_SUCCESS;
    cl_mem src_buf = clc__host_input(ctx, src_data, src_bytes, &err);
    if (err != CL_SUCCESS) {
        snprintf(call, sizeof call, "preparing the %s source", what);
        return clc__cl_fail(ctx, err, call);
    }
    cl_mem dst_buf = clc__host_output(ctx, dst_data, dst_alloc, &err);
    if (err != CL_SUCCESS) {
        clFinish(ctx->queue); /* the source's upload may still read the caller's memory */
        clReleaseMemObject(src_buf);
        snprintf(call, sizeof call, "clCreateBuffer(%s destination)", what);
        return clc__cl_fail(ctx, err, call);
    }
    int aligned = aligned16(0, src_pitch) && aligned16(0, dst_pitch);
    if (in_place)
        aligned = aligned && aligned16((uintptr_t)src_data, 0) && aligned16((uintptr_t)dst_data, 0);
    clc_status st = launch(ctx, plan, src_buf, dst_buf, aligned);
    if (st == CLC_SUCCESS) {
        /* Off the device only the pixels of each row come back, never the pitch padding. */
        const int dense = padding == 0 || dst->height == 1;
        err = in_place || dense ? clc__host_sync(ctx, dst_buf, dst_data, dst_bytes)
                                : read_rows(ctx->queue, dst_buf, dst, dst_pitch, dst_data);
        if (err != CL_SUCCESS) {
            snprintf(call, sizeof call, "reading the %s destination back", what);
            st = clc__cl_fail(ctx, err, call);
        }
    }
    /* The caller's memory must not be in use once we return, whatever happened. */
    err = clFinish(ctx->queue);
    if (err != CL_SUCCESS && st == CLC_SUCCESS)
        st = clc__cl_fail(ctx, err, "clFinish");
    clc__host_release(ctx, &dst_buf, err == CL_SUCCESS);
    clc__host_release(ctx, &src_buf, err == CL_SUCCESS);
    return st;
}
