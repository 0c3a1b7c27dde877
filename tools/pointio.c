/* Point records in blocks: built in a buffer of a few hundred kilobytes, then one fwrite. */
#include "pointio.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { BLOCK = 1 << 18 };

static void put_u32_le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t float_bits(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

static float packed_rgb(const unsigned char *c)
{
    const uint32_t bits = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int points_write_binary(FILE *out, const float *points, const unsigned char *colors, size_t count,
                        points_color how)
{
    const size_t record = 12 + (colors ? (how == POINTS_COLOR_BYTES ? 3 : 4) : 0);
    unsigned char block[BLOCK];
    const size_t per_block = BLOCK / record;
    for (size_t first = 0; first < count; first += per_block) {
        const size_t n = count - first < per_block ? count - first : per_block;
        unsigned char *r = block;
        for (size_t i = first; i < first + n; ++i, r += record) {
            for (int k = 0; k < 3; ++k)
                put_u32_le(r + 4 * k, float_bits(points[3 * i + (size_t)k]));
            if (colors && how == POINTS_COLOR_BYTES)
                memcpy(r + 12, colors + 3 * i, 3);
            else if (colors)
                put_u32_le(r + 12, float_bits(packed_rgb(colors + 3 * i)));
        }
        if (fwrite(block, record, n, out) != n)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}

/* "%.9g", but NaN as "nan" whatever its sign (PCL and Open3D read that). */
static int put_float(char *p, size_t room, float v)
{
    return isnan(v) ? snprintf(p, room, "nan") : snprintf(p, room, "%.9g", (double)v);
}

int points_write_ascii(FILE *out, const float *points, const unsigned char *colors, size_t count,
                       points_color how)
{
    char block[BLOCK];
    size_t used = 0;
    for (size_t i = 0; i < count; ++i) {
        if (BLOCK - used < 128) {
            if (fwrite(block, 1, used, out) != used)
                return -1;
            used = 0;
        }
        for (int k = 0; k < 3; ++k) {
            if (k)
                block[used++] = ' ';
            used += (size_t)put_float(block + used, BLOCK - used, points[3 * i + (size_t)k]);
        }
        if (colors && how == POINTS_COLOR_BYTES) {
            const unsigned char *c = colors + 3 * i;
            used += (size_t)snprintf(block + used, BLOCK - used, " %u %u %u", c[0], c[1], c[2]);
        } else if (colors) {
            block[used++] = ' ';
            used += (size_t)put_float(block + used, BLOCK - used, packed_rgb(colors + 3 * i));
        }
        block[used++] = '\n';
    }
    if (used && fwrite(block, 1, used, out) != used)
        return -1;
    return ferror(out) ? -1 : 0;
}
