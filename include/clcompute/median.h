/* Median filtering of one-channel images, as OpenCV's medianBlur: the usual clean-up of a depth
 * camera's speckle before depth -> points. */
#ifndef CLCOMPUTE_MEDIAN_H
#define CLCOMPUTE_MEDIAN_H

#include <stddef.h>

#include "clcompute/image.h"
#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Replaces each pixel of a GRAY8, DEPTH_U16, GRAY_F32 or DEPTH_F32 image by the median of the
 * ksize x ksize window around it (ksize 3 or 5), the border replicated: cv::medianBlur's result,
 * the same value at every pixel (bit for bit but for the sign of a zero where -0.0 and +0.0 meet
 * in a window: -0.0 sorts first here, OpenCV holds them equal); NaN, which OpenCV leaves open,
 * sorts after every number, as in numpy. A depth image's zeros ("no reading") are values like any
 * other, as in OpenCV. src and dst have the same format and size and must not overlap. Host memory,
 * blocking; on devices that share host memory the caller's memory is used in place. Only the pixels
 * of each destination row are written; on any error nothing is.
 */
CLC_API clc_status clc_median(clc_context *ctx, const clc_image_desc *src, const void *src_data,
                              const clc_image_desc *dst, void *dst_data, unsigned ksize);

/*
 * The same between device buffers of ctx's context (distinct, or ranges that do not overlap),
 * from byte offsets in them; enqueued after the given events without waiting. *event (optional)
 * completes with the filter; the caller releases it.
 */
CLC_API clc_status clc_median_enqueue(clc_context *ctx, const clc_image_desc *src,
                                      cl_mem src_buffer, size_t src_offset,
                                      const clc_image_desc *dst, cl_mem dst_buffer,
                                      size_t dst_offset, unsigned ksize,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
