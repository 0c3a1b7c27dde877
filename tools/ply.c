/* PLY writer. Binary files are little-endian by the format's own declaration, so values are
 * laid out byte by byte rather than copied from host memory. */
#include "ply.h"

#include <stdint.h>
#include <string.h>

static void put_float_le(unsigned char *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(bits >> (8 * i));
}

int ply_write(FILE *out, const ply_cloud *cloud)
{
    fprintf(out,
            "ply\nformat %s 1.0\ncomment written by clcompute\nelement vertex %zu\n"
            "property float x\nproperty float y\nproperty float z\n",
            cloud->ascii ? "ascii" : "binary_little_endian", cloud->count);
    if (cloud->colors)
        fprintf(out, "property uchar red\nproperty uchar green\nproperty uchar blue\n");
    fprintf(out, "end_header\n");

    const size_t stride = cloud->colors ? 15 : 12;
    unsigned char record[15];
    for (size_t i = 0; i < cloud->count; ++i) {
        const float *p = cloud->points + 3 * i;
        const unsigned char *c = cloud->colors ? cloud->colors + 3 * i : NULL;
        if (cloud->ascii) {
            fprintf(out, "%.9g %.9g %.9g", (double)p[0], (double)p[1], (double)p[2]);
            if (c)
                fprintf(out, " %u %u %u", c[0], c[1], c[2]);
            fputc('\n', out);
        } else {
            for (int k = 0; k < 3; ++k)
                put_float_le(record + 4 * k, p[k]);
            if (c)
                memcpy(record + 12, c, 3);
            if (fwrite(record, 1, stride, out) != stride)
                return -1;
        }
    }
    return ferror(out) ? -1 : 0;
}
