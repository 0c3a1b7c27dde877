/* Plain serial C references of every kernel: the tests' oracle and the benchmark's baseline.
 * Written for clarity and for what a good C compiler makes of a simple loop. Built into the
 * clc_ref static library for tests and benchmarks only; never part of libclcompute. */
#ifndef CLCOMPUTE_REF_H
#define CLCOMPUTE_REF_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/cloud.h"
#include "clcompute/image.h"
#include "clcompute/reduce.h"

/* Gray conversion with the semantics of clc_gray; the descriptions must already be valid. */
void clc__ref_gray(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                   void *dst_data, clc_gray_weights weights);

/* The reference's own reading of the cloud options, with Open3D's rules: z = raw / scale (in
 * float) for u16, valid when 0 < z < trunc; coordinates with the float reciprocals of the focal
 * lengths and of the scale, as the kernels compute them. Derived here independently of the
 * library's planning, which it checks. */
typedef struct clc_ref_cloud {
    float scale, inv_scale, trunc, inv_fx, inv_fy, cx, cy;
    unsigned stride;
    size_t sw, sh; /* sampled grid */
    clc_cloud_layout layout;
} clc_ref_cloud;

clc_ref_cloud clc__ref_cloud_params(double scale, double trunc, const clc_intrinsics *k,
                                    unsigned stride, size_t width, size_t height,
                                    clc_cloud_layout layout);

/* Depth to points with the semantics of clc_depth_to_points, into arrays of sw * sh points
 * (colors may be NULL; the slot after the last point may be scratched); returns the number of
 * points. Inputs must already be valid. */
size_t clc__ref_depth_to_points(const clc_image_desc *depth, const void *depth_data,
                                const clc_image_desc *color, const void *color_data,
                                const clc_ref_cloud *params, float *points, unsigned char *colors);

/* A reduction with the semantics of clc_reduce: sums in long double (the float results rounded
 * once to their type), and, when abs_sum is not NULL, the sum of absolute values there (the scale
 * of a float sum's error bound). */
void clc__ref_reduce(clc_reduce_op op, clc_dtype type, const void *data, size_t count,
                     clc_reduce_result *out, long double *abs_sum);

#endif
