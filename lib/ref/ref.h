/* Plain serial C references of every kernel: the tests' oracle and the benchmark's baseline.
 * Written for clarity and for what a good C compiler makes of a simple loop. */
#ifndef CLCOMPUTE_REF_H
#define CLCOMPUTE_REF_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/cloud.h"
#include "clcompute/image.h"
#include "clcompute/reduce.h"

/* The fixed-point weights of clc_gray_weights for R, G, B (sum 32768). */
void clc__gray_weights(clc_gray_weights weights, uint32_t rgb[3]);

/* Gray conversion with the semantics of clc_gray; the descriptions must already be valid. */
void clc__ref_gray(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                   void *dst_data, clc_gray_weights weights);

/* The cloud parameters after defaults, as the kernel uses them: reciprocals instead of
 * divisions, and for DEPTH_U16 the truncation as an integer limit on raw values. */
typedef struct clc_cloud_params {
    float inv_scale, trunc, inv_fx, inv_fy, cx, cy;
    unsigned raw_limit; /* raw u16 values >= this are at or beyond depth_trunc */
    unsigned stride;
    size_t sw, sh; /* sampled grid */
    clc_cloud_layout layout;
} clc_cloud_params;

/* Derives the parameters from validated inputs (defaults already applied). */
clc_cloud_params clc__cloud_params(double scale, double trunc, const clc_intrinsics *k,
                                   unsigned stride, size_t width, size_t height,
                                   clc_cloud_layout layout);

/* Depth to points with the semantics of clc_depth_to_points, into arrays of sw * sh points
 * (colors may be NULL; the slot after the last point may be scratched); returns the number of
 * points. Inputs must already be valid. */
size_t clc__ref_depth_to_points(const clc_image_desc *depth, const void *depth_data,
                                const clc_image_desc *color, const void *color_data,
                                const clc_cloud_params *params, float *points,
                                unsigned char *colors);

/* A reduction with the semantics of clc_reduce: sums in long double (the float results rounded
 * once to their type), and, when abs_sum is not NULL, the sum of absolute values there (the scale
 * of a float sum's error bound). */
void clc__ref_reduce(clc_reduce_op op, clc_dtype type, const void *data, size_t count,
                     clc_reduce_result *out, long double *abs_sum);

#endif
