/* Image descriptions: bytes per pixel and the memory an image spans, overflow-checked. */
#include <stdint.h>

#include "../runtime/internal.h"

size_t clc_pixel_size(clc_pixel_format format)
{
    switch (format) {
    case CLC_PIXEL_RGB8:
    case CLC_PIXEL_BGR8:
        return 3;
    case CLC_PIXEL_RGBA8:
    case CLC_PIXEL_BGRA8:
    case CLC_PIXEL_GRAY_F32:
    case CLC_PIXEL_DEPTH_F32:
        return 4;
    case CLC_PIXEL_DEPTH_U16:
        return 2;
    case CLC_PIXEL_GRAY8:
        return 1;
    }
    return 0;
}

clc_status clc_image_span(const clc_image_desc *desc, size_t *bytes)
{
    if (!desc || !bytes)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image description is NULL");
    size_t bpp = clc_pixel_size(desc->format);
    if (!bpp)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "unknown pixel format %d",
                         (int)desc->format);
    if (desc->width == 0 || desc->height == 0)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image size %zu x %zu is empty",
                         desc->width, desc->height);
    if (desc->width > SIZE_MAX / bpp)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW, "a row of %zu pixels overflows size_t",
                         desc->width);
    size_t row = desc->width * bpp;
    size_t pitch = desc->pitch ? desc->pitch : row;
    if (pitch < row)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "pitch %zu bytes is below one row of %zu pixels (%zu bytes)", pitch,
                         desc->width, row);
    if (desc->height - 1 > (SIZE_MAX - row) / pitch)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW,
                         "%zu rows of pitch %zu bytes overflow size_t", desc->height, pitch);
    *bytes = (desc->height - 1) * pitch + row;
    return CLC_SUCCESS;
}
