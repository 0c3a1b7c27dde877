/* Depth image to points with the size asked first: a call with capacity 0 returns
 * CLC_ERROR_SIZE_OVERFLOW and the number of points, which sizes the arrays of the real call.
 *
 *   depth_points [SELECTOR]
 *
 * The frame is synthetic (a tilted plane 1 to 2 m away with a hole), 640x480 with the
 * intrinsics of a typical depth camera, in millimetres as such cameras give it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clcompute/clcompute.h>

enum { W = 640, H = 480 };

int main(int argc, char **argv)
{
    uint16_t *depth = malloc(sizeof *depth * W * H);
    if (!depth)
        return 1;
    for (int v = 0; v < H; ++v)
        for (int u = 0; u < W; ++u) {
            const int hole = (u - 320) * (u - 320) + (v - 240) * (v - 240) < 50 * 50;
            depth[v * W + u] = hole ? 0 : (uint16_t)(1000 + u + v); /* mm; 0 is "no reading" */
        }
    clc_context_options options = {0};
    options.device = argc > 1 ? argv[1] : NULL;
    clc_context *ctx = NULL;
    float *points = NULL;
    int rc = 1;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS)
        goto done;
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {525.0, 525.0, 319.5, 239.5}; /* fx, fy, cx, cy */
    clc_cloud_options o = {0};
    o.depth_scale = 1000.0; /* units per metre */
    o.depth_trunc = 3.0;    /* metres */
    size_t count = 0;
    clc_status st =
        clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &o, NULL, NULL, 0, &count);
    if (st != CLC_ERROR_SIZE_OVERFLOW) /* capacity 0: "how many?" */
        goto done;
    printf("%zu of %d pixels give points\n", count, W * H);
    if (!(points = malloc(count * 3 * sizeof *points)))
        goto done;
    if (clc_depth_to_points(ctx, &desc, depth, NULL, NULL, &k, &o, points, NULL, count, &count) !=
        CLC_SUCCESS)
        goto done;
    printf("first point (%.4f, %.4f, %.4f) m, last (%.4f, %.4f, %.4f) m\n", points[0], points[1],
           points[2], points[3 * count - 3], points[3 * count - 2], points[3 * count - 1]);
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "depth_points: %s\n", clc_last_error());
    clc_context_destroy(ctx);
    free(points), free(depth);
    return rc;
}
