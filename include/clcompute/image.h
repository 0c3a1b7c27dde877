/* Images in host or device memory: pixel formats and the description every image operation takes.
 */
#ifndef CLCOMPUTE_IMAGE_H
#define CLCOMPUTE_IMAGE_H

#include <stddef.h>

#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pixel layouts, 8 bits a channel unless named otherwise. Zero is deliberately no format, so a
 * zero-initialised description is refused rather than guessed. */
typedef enum clc_pixel_format {
    CLC_PIXEL_RGB8 = 1,
    CLC_PIXEL_BGR8 = 2,  /* OpenCV's default channel order */
    CLC_PIXEL_RGBA8 = 3, /* alpha is ignored by conversions, as in OpenCV */
    CLC_PIXEL_BGRA8 = 4,
    CLC_PIXEL_GRAY8 = 5,
    CLC_PIXEL_GRAY_F32 = 6,  /* one float a pixel, native byte order */
    CLC_PIXEL_DEPTH_U16 = 7, /* depth in sensor units (see clc_cloud_options.depth_scale) */
    CLC_PIXEL_DEPTH_F32 = 8  /* depth in metres */
} clc_pixel_format;

/* Shape of an image: rows of width pixels, `pitch` bytes apart (any value from
 * width * bytes-per-pixel up; 0 means exactly that). Formats with 2- or 4-byte values (depth,
 * float) need pitches, pointers and buffer offsets that are multiples of that size. */
typedef struct clc_image_desc {
    clc_pixel_format format;
    size_t width;
    size_t height;
    size_t pitch;
} clc_image_desc;

/* Bytes per pixel of a format, 0 for an unknown one. */
CLC_API size_t clc_pixel_size(clc_pixel_format format);

/*
 * Bytes an image spans in memory: (height - 1) * pitch + width * bytes-per-pixel, the last row
 * needing no padding. CLC_ERROR_INVALID_ARGUMENT for a zero size, an unknown format or a pitch
 * below one row; CLC_ERROR_SIZE_OVERFLOW when the product does not fit size_t.
 */
CLC_API clc_status clc_image_span(const clc_image_desc *desc, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
