/* Serial reference of depth to points: Open3D's loop, in float as the kernel computes. */
#include <math.h>
#include <string.h>

#include "ref.h"

static float depth_at(const clc_image_desc *depth, const void *data, size_t u, size_t v,
                      float scale) {
    const size_t bpp = clc_pixel_size(depth->format);
    const size_t pitch = depth->pitch ? depth->pitch : depth->width * bpp;
    const unsigned char *p = (const unsigned char *)data + v * pitch + u * bpp;
    if (depth->format == CLC_PIXEL_DEPTH_U16) {
        uint16_t raw;
        memcpy(&raw, p, sizeof raw);
        return (float)raw / scale;
    }
    float z;
    memcpy(&z, p, sizeof z);
    return z;
}

size_t clc__ref_depth_to_points(const clc_image_desc *depth, const void *depth_data,
                                const clc_image_desc *color, const void *color_data,
                                const clc_cloud_params *params, float *points,
                                unsigned char *colors) {
    const size_t color_pitch = color ? (color->pitch ? color->pitch : color->width * 3) : 0;
    const int organized = params->layout == CLC_CLOUD_ORGANIZED;
    size_t at = 0;
    for (size_t j = 0; j < params->sh; ++j) {
        const size_t v = j * params->stride;
        for (size_t k = 0; k < params->sw; ++k) {
            const size_t u = k * params->stride;
            const float z = depth_at(depth, depth_data, u, v, params->scale);
            const int valid = z > 0.0f && z < params->trunc;
            if (!valid && !organized)
                continue;
            float *p = points + 3 * at;
            if (valid) {
                p[0] = ((float)u - params->cx) * z / params->fx;
                p[1] = ((float)v - params->cy) * z / params->fy;
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
