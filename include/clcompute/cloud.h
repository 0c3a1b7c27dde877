/* Depth images to point clouds, with the semantics of Open3D's create_from_depth_image. */
#ifndef CLCOMPUTE_CLOUD_H
#define CLCOMPUTE_CLOUD_H

#include <stddef.h>

#include "clcompute/image.h"
#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pinhole camera intrinsics in pixels: x = (u - cx) * z / fx, y = (v - cy) * z / fy. fx and fy
 * must be finite and non-zero, cx and cy finite. */
typedef struct clc_intrinsics {
    double fx, fy, cx, cy;
} clc_intrinsics;

/* Which points are written. */
typedef enum clc_cloud_layout {
    CLC_CLOUD_DENSE = 0,    /* valid points only, in row-major pixel order */
    CLC_CLOUD_ORGANIZED = 1 /* one point per sampled pixel, NaN x, y, z where invalid */
} clc_cloud_layout;

/* Options; a zero-initialised struct (or NULL) means Open3D's defaults. */
typedef struct clc_cloud_options {
    double depth_scale;      /* DEPTH_U16 units per metre; 0 means 1000. Ignored for DEPTH_F32 */
    double depth_trunc;      /* metres; points at or beyond are invalid; 0 means 1000; may be
                                +infinity */
    unsigned stride;         /* sample pixels whose u and v are multiples of it; 0 means 1 */
    clc_cloud_layout layout; /* CLC_CLOUD_DENSE by default */
} clc_cloud_options;

/*
 * Number of sampled pixels, ceil(width / stride) * ceil(height / stride): the number of points
 * of an organized cloud and the most a dense one can have.
 */
CLC_API clc_status clc_cloud_grid_size(const clc_image_desc *depth,
                                       const clc_cloud_options *options, size_t *points);

/*
 * Converts a depth image (DEPTH_U16 or DEPTH_F32) in host memory to points. A pixel is valid when
 * its depth z (raw / depth_scale for u16, metres for f32) is finite and 0 < z < depth_trunc.
 * Writes packed float x, y, z (12 bytes a point) to `points` and, when a colour image is given
 * (RGB8, same size as the depth; both NULL for none), r, g, b (3 bytes a point) to `colors`
 * (0, 0, 0 for invalid organized points). *count receives the number of points written.
 * `capacity` is the number of points the arrays hold: when the result needs more, the call
 * returns CLC_ERROR_SIZE_OVERFLOW, sets *count to the number needed and writes nothing, so
 * calling with capacity 0 asks for the count. Blocking; in place on host-unified devices.
 */
CLC_API clc_status clc_depth_to_points(clc_context *ctx, const clc_image_desc *depth,
                                       const void *depth_data, const clc_image_desc *color,
                                       const void *color_data, const clc_intrinsics *intrinsics,
                                       const clc_cloud_options *options, float *points,
                                       unsigned char *colors, size_t capacity, size_t *count);

/*
 * The same between device buffers, enqueued without waiting. `points` (and `colors`, when a
 * colour image is given) must hold clc_cloud_grid_size points from offset 0. For a dense cloud
 * the number of points is written as a cl_uint at offset 0 of `count` (which may be NULL for an
 * organized cloud). *event (optional) completes when everything is written.
 */
CLC_API clc_status clc_depth_to_points_enqueue(
    clc_context *ctx, const clc_image_desc *depth, cl_mem depth_buffer, size_t depth_offset,
    const clc_image_desc *color, cl_mem color_buffer, size_t color_offset,
    const clc_intrinsics *intrinsics, const clc_cloud_options *options, cl_mem points,
    cl_mem colors, cl_mem count, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event);

/*
 * Many frames of one size at once, in one or two launches for the whole set (one for organized
 * clouds, and for dense ones where the device's tuned shape does them in one pass):
 * the way to convert a stream of small frames (a 640x480 frame alone is launch-bound on a GPU).
 * Frame f's depth is at depth_data + f * depth_frame_bytes (0: the frames are packed, one span
 * apart, as a numpy array of shape (frames, height, width)), its colour likewise. Frame f's
 * points go to points + f * grid * 3 (grid: clc_cloud_grid_size), its colours to
 * colors + f * grid * 3, and counts[f] receives the number of points of frame f (the grid for
 * an organized cloud): each frame is exactly what clc_depth_to_points gives for it, and the
 * point and colour slots of a dense frame past its count are left as they were. points and
 * colors must hold frames * grid points. Blocking.
 */
CLC_API clc_status clc_depth_to_points_many(clc_context *ctx, size_t frames,
                                            const clc_image_desc *depth, const void *depth_data,
                                            size_t depth_frame_bytes, const clc_image_desc *color,
                                            const void *color_data, size_t color_frame_bytes,
                                            const clc_intrinsics *intrinsics,
                                            const clc_cloud_options *options, float *points,
                                            unsigned char *colors, size_t *counts);

/*
 * The same between device buffers, enqueued without waiting: frame f's depth at depth_offset +
 * f * depth_frame_bytes (0: packed), its points from f * grid, and for a dense cloud its count as
 * the cl_uint at index f of `counts` (which may be NULL for organized clouds). *event
 * (optional) completes when everything is written.
 */
CLC_API clc_status clc_depth_to_points_many_enqueue(
    clc_context *ctx, size_t frames, const clc_image_desc *depth, cl_mem depth_buffer,
    size_t depth_offset, size_t depth_frame_bytes, const clc_image_desc *color, cl_mem color_buffer,
    size_t color_offset, size_t color_frame_bytes, const clc_intrinsics *intrinsics,
    const clc_cloud_options *options, cl_mem points, cl_mem colors, cl_mem counts,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
