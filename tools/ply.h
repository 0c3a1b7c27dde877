/* PLY point-cloud writer: what Open3D, MeshLab and CloudCompare read. */
#ifndef CLCOMPUTE_TOOL_PLY_H
#define CLCOMPUTE_TOOL_PLY_H

#include <stddef.h>
#include <stdio.h>

typedef struct ply_cloud {
    const float *points;         /* count * 3 floats: x, y, z */
    const unsigned char *colors; /* count * 3 bytes: red, green, blue; NULL for none */
    size_t count;
    int ascii; /* 0: binary_little_endian 1.0, whatever the host's byte order */
} ply_cloud;

/* Writes the whole file to out; 0 on success, -1 on a write error. */
int ply_write(FILE *out, const ply_cloud *cloud);

#endif
