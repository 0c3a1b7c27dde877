/* PCD writer (PCL's point cloud format, version 0.7): what PCL, Open3D and CloudCompare read. */
#ifndef CLCOMPUTE_TOOL_PCD_H
#define CLCOMPUTE_TOOL_PCD_H

#include <stddef.h>
#include <stdio.h>

typedef struct pcd_cloud {
    const float *points;         /* count * 3 floats: x, y, z */
    const unsigned char *colors; /* count * 3 bytes: red, green, blue; NULL for none */
    size_t count;
    size_t width, height; /* an organized cloud's grid (width * height == count); 0: a list */
    int ascii;            /* 0: DATA binary (little-endian) */
} pcd_cloud;

/* Writes the whole file to out: fields x y z (F 4) and, with colours, rgb (F 4, packed as PCL
 * packs it); 0 on success, -1 on a write error. */
int pcd_write(FILE *out, const pcd_cloud *cloud);

#endif
