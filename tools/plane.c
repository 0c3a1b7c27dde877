/* One-channel images from and to PNG, PGM and .npy files. */
#include "plane.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "image.h"
#include "npy.h"

static int read_npy(const char *path, const char *what, const unsigned char *file, size_t size,
                    plane *out)
{
    npy_info info;
    char error[256];
    if (npy_parse(file, size, &info, error, sizeof error) != 0) {
        cli_error("'%s': %s", path, error);
        return -1;
    }
    const int dims = info.ndim == 3 && info.shape[2] == 1 ? 2 : info.ndim;
    const int typed =
        info.type == CLC_DTYPE_U8 || info.type == CLC_DTYPE_U16 || info.type == CLC_DTYPE_F32;
    if (dims != 2 || !typed) {
        cli_error("%s '%s' is %s with %d dimension%s; it must be a 2-D uint8, uint16 or float32 "
                  "array, height x width",
                  what, path, clc_dtype_name(info.type), info.ndim, info.ndim == 1 ? "" : "s");
        return -1;
    }
    if (info.shape[0] == 0 || info.shape[1] == 0 || info.shape[0] > INT32_MAX ||
        info.shape[1] > INT32_MAX) {
        cli_error("%s '%s' is %zu x %zu: %s", what, path, info.shape[0], info.shape[1],
                  info.shape[0] && info.shape[1] ? "too large" : "empty");
        return -1;
    }
    const size_t h = info.shape[0], w = info.shape[1], esize = clc_dtype_size(info.type);
    unsigned char *values = img_buffer(IMG_SLOT_0, w * h * esize);
    if (!values)
        return -1;
    const unsigned char *data = file + info.data_offset;
    if (!info.fortran_order) {
        memcpy(values, data, w * h * esize);
    } else { /* column-major in the file: element (y, x) at x * h + y */
        for (size_t y = 0; y < h; ++y)
            for (size_t x = 0; x < w; ++x)
                memcpy(values + (y * w + x) * esize, data + (x * h + y) * esize, esize);
    }
    const clc_pixel_format f = info.type == CLC_DTYPE_U8    ? CLC_PIXEL_GRAY8
                               : info.type == CLC_DTYPE_U16 ? CLC_PIXEL_DEPTH_U16
                                                            : CLC_PIXEL_DEPTH_F32;
    *out = (plane){values, f, (int)w, (int)h};
    return 0;
}

int plane_read(const char *path, const char *what, plane *out)
{
    size_t size = 0;
    const unsigned char *file = img_read_file(path, &size);
    if (!file)
        return -1;
    if (npy_is_npy(file, size))
        return read_npy(path, what, file, size, out);
    img image;
    if (img_decode(path, file, size, IMG_SLOT_0, 0, 1, &image) != 0)
        return -1;
    if (image.channels != 1) {
        /* clcompute gray takes colour of 8 and 16 bits (narrowed as imread narrows it). */
        cli_error("%s '%s' is %s; it needs one channel (gray or depth)%s", what, path,
                  image.channels == 2 ? "gray with alpha"
                  : image.bits == 16  ? "a 16-bit colour image"
                                      : "a colour image",
                  image.channels == 2 ? "" : ": clcompute gray converts it");
        return -1;
    }
    *out = (plane){image.pixels, image.bits == 16 ? CLC_PIXEL_DEPTH_U16 : CLC_PIXEL_GRAY8,
                   image.width, image.height};
    return 0;
}

static int is_npy_name(const char *path)
{
    const size_t n = strlen(path);
    return n > 4 && (strcmp(path + n - 4, ".npy") == 0 || strcmp(path + n - 4, ".NPY") == 0);
}

const char *plane_writable(clc_pixel_format format)
{
    return format == CLC_PIXEL_DEPTH_F32 || format == CLC_PIXEL_GRAY_F32 ? "npy" : "png, pgm, npy";
}

int plane_can_write(const char *path, clc_pixel_format format)
{
    if (is_npy_name(path))
        return 1;
    const img_format f = img_format_of_name(path);
    return clc_pixel_size(format) <= 2 && (f == IMG_PNG || f == IMG_PNM);
}

typedef struct npy_job {
    const plane *p;
} npy_job;

static int write_npy(FILE *out, void *arg)
{
    const plane *p = ((const npy_job *)arg)->p;
    const char *descr = p->format == CLC_PIXEL_GRAY8       ? "|u1"
                        : p->format == CLC_PIXEL_DEPTH_U16 ? "<u2"
                                                           : "<f4";
    char header[128];
    const int n = npy_header(header, sizeof header, descr, (size_t)p->height, (size_t)p->width);
    const size_t bytes = (size_t)p->width * (size_t)p->height * clc_pixel_size(p->format);
    return n > 0 && fwrite(header, 1, (size_t)n, out) == (size_t)n &&
                   fwrite(p->values, 1, bytes, out) == bytes
               ? 0
               : -1;
}

int plane_write(const char *path, const plane *p)
{
    char error[512];
    int rc;
    if (is_npy_name(path)) {
        npy_job j = {p};
        rc = cli_write_atomic(path, write_npy, &j, error, sizeof error);
    } else if (!plane_can_write(path, p->format)) {
        cli_error("cannot write '%s': this image is written as %s", path,
                  plane_writable(p->format));
        return -1;
    } else if (p->format == CLC_PIXEL_GRAY8) {
        rc = img_write_gray(path, img_format_of_name(path), p->values, p->width, p->height, error,
                            sizeof error);
    } else {
        rc = img_write_gray16(path, img_format_of_name(path), p->values, p->width, p->height, error,
                              sizeof error);
    }
    if (rc != 0)
        cli_error("%s", error);
    return rc;
}
