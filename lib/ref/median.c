/* Serial median filter: gather each window (border replicated), insertion-sort it, take the
 * middle. A different algorithm from the kernel's compare-exchange passes, so that the two
 * check each other. */
#include "median.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Numpy's order: numbers ascending, NaN last. */
static int before(double a, double b)
{
    return a < b || (isnan(b) && !isnan(a));
}

static double load(const unsigned char *row, size_t x, clc_pixel_format f)
{
    switch (f) {
    case CLC_PIXEL_GRAY8:
        return row[x];
    case CLC_PIXEL_DEPTH_U16: {
        uint16_t v;
        memcpy(&v, row + 2 * x, 2);
        return v;
    }
    default: {
        float v;
        memcpy(&v, row + 4 * x, 4);
        return v;
    }
    }
}

static void store(unsigned char *row, size_t x, clc_pixel_format f, double v)
{
    if (f == CLC_PIXEL_GRAY8) {
        row[x] = (unsigned char)v;
    } else if (f == CLC_PIXEL_DEPTH_U16) {
        const uint16_t u = (uint16_t)v;
        memcpy(row + 2 * x, &u, 2);
    } else {
        const float g = (float)v; /* exact: every value came from a float */
        memcpy(row + 4 * x, &g, 4);
    }
}

static size_t clamp(long v, size_t n)
{
    return v < 0 ? 0 : (size_t)v >= n ? n - 1 : (size_t)v;
}

void clc__ref_median(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                     void *dst_data, unsigned ksize)
{
    const size_t bpp = clc_pixel_size(src->format), w = src->width, h = src->height;
    const size_t sp = src->pitch ? src->pitch : w * bpp, dp = dst->pitch ? dst->pitch : w * bpp;
    const long r = (long)ksize / 2;
    double window[25];
    for (size_t y = 0; y < h; ++y)
        for (size_t x = 0; x < w; ++x) {
            size_t n = 0;
            for (long dy = -r; dy <= r; ++dy) {
                const unsigned char *row =
                    (const unsigned char *)src_data + clamp((long)y + dy, h) * sp;
                for (long dx = -r; dx <= r; ++dx) {
                    const double v = load(row, clamp((long)x + dx, w), src->format);
                    size_t i = n++;
                    for (; i > 0 && before(v, window[i - 1]); --i)
                        window[i] = window[i - 1];
                    window[i] = v;
                }
            }
            store((unsigned char *)dst_data + y * dp, x, dst->format, window[n / 2]);
        }
}
