/* libFuzzer target: ply_write with options and values from arbitrary bytes (count, ASCII or
 * binary, colours or not, any float bit pattern: NaN, infinities, denormals). The file must hold
 * exactly the header it declares and one record a point. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int ascii = data[0] & 1, with_colors = (data[0] >> 1) & 1;
    const size_t per_point = 12 + (with_colors ? 3 : 0);
    const size_t count = (size - 1) / per_point;
    float *points = malloc(count * 12 + 1);
    unsigned char *colors = malloc(count * 3 + 1);
    if (!points || !colors) {
        free(points), free(colors);
        return 0;
    }
    for (size_t i = 0; i < count; ++i) {
        memcpy(points + 3 * i, data + 1 + i * per_point, 12);
        if (with_colors)
            memcpy(colors + 3 * i, data + 1 + i * per_point + 12, 3);
    }
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out) {
        free(points), free(colors);
        return 0;
    }
    const ply_cloud cloud = {points, with_colors ? colors : NULL, count, ascii};
    if (ply_write(out, &cloud) != 0)
        __builtin_trap();
    fclose(out);
    const char *end = strstr(text, "end_header\n");
    size_t declared = 0;
    const char *vertex = strstr(text, "element vertex ");
    if (!end || !vertex || sscanf(vertex, "element vertex %zu", &declared) != 1 ||
        declared != count)
        __builtin_trap();
    const size_t body = length - (size_t)(end + strlen("end_header\n") - text);
    if (!ascii && body != count * per_point)
        __builtin_trap();
    if (ascii) {
        size_t lines = 0;
        for (size_t i = (size_t)(end - text) + strlen("end_header\n"); i < length; ++i)
            lines += text[i] == '\n';
        if (lines != count)
            __builtin_trap();
    }
    free(text), free(points), free(colors);
    return 0;
}
