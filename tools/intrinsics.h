/* Camera intrinsics files, for clcompute cloud --intrinsics. */
#ifndef CLCOMPUTE_TOOL_INTRINSICS_H
#define CLCOMPUTE_TOOL_INTRINSICS_H

#include <clcompute/clcompute.h>

/* Camera intrinsics from a file: Open3D's PinholeCameraIntrinsic JSON ("width", "height" and a
 * column-major "intrinsic_matrix" [fx, 0, 0, 0, fy, 0, cx, cy, 1]), read as Python's json reads
 * it and refused where it would be read otherwise, or plain text "fx fy cx cy width height".
 * 0, or -1 after printing why. */
int intrinsics_read(const char *path, clc_intrinsics *k, int *width, int *height);

#endif
