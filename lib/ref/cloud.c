/* Serial reference of depth to points: Open3D's loop, in float as the kernel computes. */
#include <math.h>
#include <string.h>

#include "cloud.h"

clc_ref_cloud clc__ref_cloud_params(double scale, double trunc, const clc_intrinsics *k,
                                    unsigned stride, size_t width, size_t height,
                                    clc_cloud_layout layout)
{
    clc_ref_cloud p;
    p.scale = (float)scale;
    p.inv_scale = (float)(1.0 / scale);
    p.trunc = trunc;
    p.inv_fx = (float)(1.0 / k->fx);
    p.inv_fy = (float)(1.0 / k->fy);
    p.cx = (float)k->cx;
    p.cy = (float)k->cy;
    p.stride = stride;
    p.sw = (width - 1) / stride + 1;
    p.sh = (height - 1) / stride + 1;
    p.layout = layout;
    return p;
}

/* Depth in metres of sample k of a row and its validity, as cl/cloud.cl computes them. */
static inline float depth_at(const unsigned char *row, int u16, size_t u,
                             const clc_ref_cloud *params, int *valid)
{
    if (u16) {
        uint16_t raw;
        memcpy(&raw, row + 2 * u, sizeof raw);
        /* Open3D's test, by division, against the double trunc: the library decides it with an
         * integer limit. */
        const float z_open3d = (float)raw / params->scale;
        *valid = z_open3d > 0.0f && (double)z_open3d < params->trunc;
        return (float)raw * params->inv_scale;
    }
    float z;
    memcpy(&z, row + 4 * u, sizeof z);
    *valid = z > 0.0f && (double)z < params->trunc;
    return z;
}

/* Every sample is written at `at`, which advances only past valid ones in a dense cloud: no
 * branch on validity, so holes cost no mispredictions. The slot after the last point may hold
 * a rejected sample, which the arrays of sw * sh points have room for. */
size_t clc__ref_depth_to_points(const clc_image_desc *depth, const void *depth_data,
                                const clc_image_desc *color, const void *color_data,
                                const clc_ref_cloud *params, float *points, unsigned char *colors)
{
    const int u16 = depth->format == CLC_PIXEL_DEPTH_U16;
    const size_t depth_pitch =
        depth->pitch ? depth->pitch : depth->width * clc_pixel_size(depth->format);
    const size_t color_pitch = color ? (color->pitch ? color->pitch : color->width * 3) : 0;
    const size_t grid = params->sw * params->sh;
    const int organized = params->layout == CLC_CLOUD_ORGANIZED;
    const int with_color = colors && color_data;
    size_t at = 0;
    for (size_t j = 0; j < params->sh; ++j) {
        const size_t v = j * params->stride;
        const unsigned char *row = (const unsigned char *)depth_data + v * depth_pitch;
        const unsigned char *crow =
            with_color ? (const unsigned char *)color_data + v * color_pitch : NULL;
        for (size_t k = 0; k < params->sw && at < grid; ++k) {
            const size_t u = k * params->stride;
            int valid;
            const float z = depth_at(row, u16, u, params, &valid);
            float *p = points + 3 * at;
            p[0] = valid ? ((float)u - params->cx) * z * params->inv_fx : NAN;
            p[1] = valid ? ((float)v - params->cy) * z * params->inv_fy : NAN;
            p[2] = valid ? z : NAN;
            if (with_color)
                for (int ch = 0; ch < 3; ++ch)
                    colors[3 * at + (size_t)ch] = valid ? crow[3 * u + (size_t)ch] : 0;
            at += organized ? 1 : (size_t)valid;
        }
    }
    return at;
}
