/* PLY writer. Binary files are little-endian by the format's own declaration, so values are
 * laid out byte by byte rather than copied from host memory; records go out in blocks. */
#include "ply.h"

#include <stdint.h>
#include <string.h>

#include "pointio.h"

int ply_write(FILE *out, const ply_cloud *cloud)
{
    fprintf(out,
            "ply\nformat %s 1.0\ncomment written by clcompute\nelement vertex %zu\n"
            "property float x\nproperty float y\nproperty float z\n",
            cloud->ascii ? "ascii" : "binary_little_endian", cloud->count);
    if (cloud->colors)
        fprintf(out, "property uchar red\nproperty uchar green\nproperty uchar blue\n");
    fprintf(out, "end_header\n");
    if (!cloud->ascii)
        return points_write_binary(out, cloud->points, cloud->colors, cloud->count,
                                   POINTS_COLOR_BYTES);
    return points_write_ascii(out, cloud->points, cloud->colors, cloud->count, POINTS_COLOR_BYTES);
}
