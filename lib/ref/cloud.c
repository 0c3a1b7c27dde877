/* Serial reference of depth to points: Open3D's loop, in float as the kernel computes. */
#include <math.h>
#include <string.h>

#include "ref.h"

clc_cloud_params clc__cloud_params(double scale, double trunc, const clc_intrinsics *k,
                                   unsigned stride, size_t width, size_t height,
                                   clc_cloud_layout layout)
{
    clc_cloud_params p;
    const float scale_f = (float)scale, trunc_f = (float)trunc;
    p.inv_scale = (float)(1.0 / scale);
    p.trunc = trunc_f;
    p.inv_fx = (float)(1.0 / k->fx);
    p.inv_fy = (float)(1.0 / k->fy);
    p.cx = (float)k->cx;
    p.cy = (float)k->cy;
    /* Smallest raw value whose depth (float raw / scale, as Open3D computes it) reaches the
     * truncation: z grows with raw, so a binary search over 1..65536 finds it. */
    unsigned lo = 1, hi = 65536;
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if ((float)mid / scale_f >= trunc_f)
            hi = mid;
        else
            lo = mid + 1;
    }
    p.raw_limit = lo;
    p.stride = stride;
    p.sw = (width - 1) / stride + 1;
    p.sh = (height - 1) / stride + 1;
    p.layout = layout;
    return p;
}

/* Depth in metres of pixel (u, v) and its validity, as cl/cloud.cl computes them. */
static float depth_at(const clc_image_desc *depth, const void *data, size_t u, size_t v,
                      const clc_cloud_params *params, int *valid)
{
    const size_t bpp = clc_pixel_size(depth->format);
    const size_t pitch = depth->pitch ? depth->pitch : depth->width * bpp;
    const unsigned char *p = (const unsigned char *)data + v * pitch + u * bpp;
    if (depth->format == CLC_PIXEL_DEPTH_U16) {
        uint16_t raw;
        memcpy(&raw, p, sizeof raw);
        *valid = raw != 0 && raw < params->raw_limit;
        return (float)raw * params->inv_scale;
    }
    float z;
    memcpy(&z, p, sizeof z);
    *valid = z > 0.0f && z < params->trunc;
    return z;
}

size_t clc__ref_depth_to_points(const clc_image_desc *depth, const void *depth_data,
                                const clc_image_desc *color, const void *color_data,
                                const clc_cloud_params *params, float *points,
                                unsigned char *colors)
{
    const size_t color_pitch = color ? (color->pitch ? color->pitch : color->width * 3) : 0;
    const int organized = params->layout == CLC_CLOUD_ORGANIZED;
    size_t at = 0;
    for (size_t j = 0; j < params->sh; ++j) {
        const size_t v = j * params->stride;
        for (size_t k = 0; k < params->sw; ++k) {
            const size_t u = k * params->stride;
            int valid;
            const float z = depth_at(depth, depth_data, u, v, params, &valid);
            if (!valid && !organized)
                continue;
            float *p = points + 3 * at;
            if (valid) {
                p[0] = ((float)u - params->cx) * z * params->inv_fx;
                p[1] = ((float)v - params->cy) * z * params->inv_fy;
                p[2] = z;
            } else {
                p[0] = p[1] = p[2] = NAN;
            }
            if (colors && color_data) {
                const unsigned char *c =
                    (const unsigned char *)color_data + v * color_pitch + u * 3;
                for (int ch = 0; ch < 3; ++ch)
                    colors[3 * at + (size_t)ch] = valid ? c[ch] : 0;
            }
            ++at;
        }
    }
    return at;
}
