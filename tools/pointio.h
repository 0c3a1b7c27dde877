/* The point records PLY and PCD files share: x, y, z as little-endian float32, then an optional
 * colour, written in blocks (a frame is a few calls to fwrite, not one a point). */
#ifndef CLCOMPUTE_TOOL_POINTIO_H
#define CLCOMPUTE_TOOL_POINTIO_H

#include <stddef.h>
#include <stdio.h>

/* How a colour follows the coordinates: three bytes red, green, blue (PLY), or PCL's packed
 * float "rgb" (the bits of (r << 16) | (g << 8) | b as a little-endian float32). */
typedef enum points_color { POINTS_COLOR_BYTES, POINTS_COLOR_PCL_RGB } points_color;

/* count records; colors (count * 3 bytes) may be NULL. 0, or -1 on a write error. */
int points_write_binary(FILE *out, const float *points, const unsigned char *colors, size_t count,
                        points_color how);
/* The same as text: "%.9g" coordinates (exact when read back; NaN as "nan"), colours as three
 * integers or the packed float. */
int points_write_ascii(FILE *out, const float *points, const unsigned char *colors, size_t count,
                       points_color how);

#endif
