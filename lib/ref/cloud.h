/* The serial C reference of depth to points: the tests' oracle and the benchmark's baseline.
 * Built into the clc_ref static library for tests and benchmarks only; never part of
 * libclcompute (docs/adding-a-kernel.md). */
#ifndef CLCOMPUTE_REF_CLOUD_H
#define CLCOMPUTE_REF_CLOUD_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/cloud.h"

/* The reference's own reading of the cloud options, with Open3D's rules: z = raw / scale (in
 * float) for u16, valid when 0 < z and (double)z < trunc (Open3D compares its float depth with
 * the double depth_trunc); coordinates with the float reciprocals of the focal lengths and of
 * the scale, as the kernels compute them. Derived here independently of the library's planning,
 * which it checks. */
typedef struct clc_ref_cloud {
    float scale, inv_scale, inv_fx, inv_fy, cx, cy;
    double trunc;
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

#endif
