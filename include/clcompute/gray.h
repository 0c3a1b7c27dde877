/* Colour images to gray, bit-exact with OpenCV's cvtColor. */
#ifndef CLCOMPUTE_GRAY_H
#define CLCOMPUTE_GRAY_H

#include "clcompute/image.h"
#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Luma weights. Both are the fixed-point weights OpenCV uses, so 8-bit output is bit-exact with
 * cv::cvtColor: BT.601 Y = (R*9798 + G*19235 + B*3735 + 16384) >> 15;
 * BT.709 Y = (R*6966 + G*23436 + B*2366 + 16384) >> 15. */
typedef enum clc_gray_weights {
    CLC_GRAY_BT601 = 0, /* default: what OpenCV's COLOR_*2GRAY uses */
    CLC_GRAY_BT709 = 1
} clc_gray_weights;

/* Options for the gray conversions; zero-initialised (or NULL) means BT.601. */
typedef struct clc_gray_options {
    clc_gray_weights weights;
} clc_gray_options;

/*
 * Converts an RGB8, BGR8, RGBA8 or BGRA8 image in host memory to GRAY8 or GRAY_F32 (values in
 * [0, 1]: the unrounded weighted sum divided by 255 << 15, so round(255 * f) is the 8-bit
 * result) in host memory. Sizes must match. Blocking. On devices that share host memory the
 * caller's memory is used in place, without copies. Only the pixels of each destination row are
 * written, never the padding of a pitch; on any error nothing is written.
 */
CLC_API clc_status clc_gray(clc_context *ctx, const clc_image_desc *src, const void *src_data,
                            const clc_image_desc *dst, void *dst_data,
                            const clc_gray_options *options);

/*
 * The same conversion between device buffers of ctx's context, starting at byte offsets in
 * them. Enqueues on the context's queue after the given events and returns without waiting;
 * *event (when event is not NULL) completes with the conversion, and the caller releases it.
 */
CLC_API clc_status clc_gray_enqueue(clc_context *ctx, const clc_image_desc *src, cl_mem src_buffer,
                                    size_t src_offset, const clc_image_desc *dst, cl_mem dst_buffer,
                                    size_t dst_offset, const clc_gray_options *options,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
