/* One-channel images ("planes") in files: gray and depth, as PNG or PGM (8 or 16 bits) or as a
 * 2-D .npy array (uint8, uint16 or float32). What the depth commands read and write. */
#ifndef CLCOMPUTE_TOOL_PLANE_H
#define CLCOMPUTE_TOOL_PLANE_H

#include <clcompute/image.h>

typedef struct plane {
    const void *values;      /* rows packed, host byte order; in a per-thread buffer */
    clc_pixel_format format; /* GRAY8 (8-bit), DEPTH_U16 (16-bit) or DEPTH_F32 (float32) */
    int width, height;
} plane;

/* Reads a one-channel PNG or PGM (8 or 16 bits) or a .npy array of height x width (or
 * height x width x 1; C or Fortran order) of uint8, uint16 or float32 into this thread's
 * IMG_SLOT_0 buffer. `what` names the plane in messages ("depth image"). 0, or -1 after printing
 * why. */
int plane_read(const char *path, const char *what, plane *out);

/* The output formats a plane of `format` is written in, for messages: "png, pgm, npy" or "npy". */
const char *plane_writable(clc_pixel_format format);

/* Whether path names a format plane_write writes for `format` (by extension). */
int plane_can_write(const char *path, clc_pixel_format format);

/* Writes a plane whole or not at all, in the format path's extension names: PNG or PGM for 8 and
 * 16 bits, .npy for every format (float32 only there). 0, or -1 after printing why. */
int plane_write(const char *path, const plane *p);

#endif
