/* Serial reference of the gray conversion. */
#include "gray.h"

/* OpenCV's fixed-point weights (imgproc/src/color.hpp: R2Y, G2Y, B2Y with 15 fractional bits):
 * written out here from OpenCV, apart from the library's own table, which they check. */
static void weights_of(clc_gray_weights weights, uint32_t rgb[3])
{
    if (weights == CLC_GRAY_BT709) {
        rgb[0] = 6966;
        rgb[1] = 23436;
        rgb[2] = 2366;
    } else {
        rgb[0] = 9798;
        rgb[1] = 19235;
        rgb[2] = 3735;
    }
}

/* bpp is a literal at each call, so the compiler specialises and vectorises each loop. */
static inline void row_u8(const uint8_t *s, uint8_t *d, size_t n, size_t bpp, uint32_t w0,
                          uint32_t w1, uint32_t w2)
{
    for (size_t x = 0; x < n; ++x, s += bpp)
        d[x] = (uint8_t)((s[0] * w0 + s[1] * w1 + s[2] * w2 + 16384u) >> 15);
}

static inline void row_f32(const uint8_t *s, float *d, size_t n, size_t bpp, uint32_t w0,
                           uint32_t w1, uint32_t w2)
{
    for (size_t x = 0; x < n; ++x, s += bpp)
        d[x] = (float)(s[0] * w0 + s[1] * w1 + s[2] * w2) * (1.0f / 8355840.0f);
}

void clc__ref_gray(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                   void *dst_data, clc_gray_weights weights)
{
    uint32_t w[3];
    weights_of(weights, w);
    const size_t bpp = clc_pixel_size(src->format);
    const int bgr = src->format == CLC_PIXEL_BGR8 || src->format == CLC_PIXEL_BGRA8;
    const uint32_t w0 = bgr ? w[2] : w[0], w1 = w[1], w2 = bgr ? w[0] : w[2];
    const size_t src_pitch = src->pitch ? src->pitch : src->width * bpp;
    const size_t dst_pitch = dst->pitch ? dst->pitch : src->width * clc_pixel_size(dst->format);
    const size_t n = src->width;
    for (size_t y = 0; y < src->height; ++y) {
        const uint8_t *s = (const uint8_t *)src_data + y * src_pitch;
        uint8_t *d = (uint8_t *)dst_data + y * dst_pitch;
        if (dst->format == CLC_PIXEL_GRAY8 && bpp == 3)
            row_u8(s, d, n, 3, w0, w1, w2);
        else if (dst->format == CLC_PIXEL_GRAY8)
            row_u8(s, d, n, 4, w0, w1, w2);
        else if (bpp == 3)
            row_f32(s, (float *)(void *)d, n, 3, w0, w1, w2);
        else
            row_f32(s, (float *)(void *)d, n, 4, w0, w1, w2);
    }
}
