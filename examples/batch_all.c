/* Many items on every device at once: clc_batch gives each device several workers (each a
 * context with its own queue and thread), and each worker takes the next item when it is free,
 * so a fast GPU and a slow CPU share the work by their speeds.
 *
 *   batch_all [DEVICES]       default "all"; e.g. "gpu,cpu", "nvidia"
 *
 * The items are 64 synthetic 640x480 colour frames converted to gray; each result is checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcompute/clcompute.h>

enum { W = 640, H = 480, FRAMES = 64 };

typedef struct frames {
    unsigned char *rgb, *gray; /* FRAMES frames each */
} frames;

/* One item: runs on a worker's thread with that worker's context. */
static clc_status convert(clc_context *ctx, size_t item, void *user)
{
    frames *f = user;
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    return clc_gray(ctx, &src, f->rgb + item * W * H * 3, &dst, f->gray + item * W * H, NULL);
}

int main(int argc, char **argv)
{
    frames f = {malloc((size_t)FRAMES * W * H * 3), malloc((size_t)FRAMES * W * H)};
    if (!f.rgb || !f.gray)
        return 1;
    for (size_t i = 0; i < (size_t)FRAMES * W * H; ++i) /* frame k is gray level k */
        memset(f.rgb + 3 * i, (int)(i / (W * H)), 3);
    clc_batch_options options = {0};
    options.devices = argc > 1 ? argv[1] : "all";
    clc_batch *batch = NULL;
    int rc = 1;
    if (clc_batch_create(&options, &batch) != CLC_SUCCESS ||
        clc_batch_run(batch, FRAMES, convert, &f, NULL, NULL, NULL) != CLC_SUCCESS) {
        fprintf(stderr, "batch_all: %s\n", clc_last_error());
    } else {
        rc = 0;
        for (size_t k = 0; k < FRAMES; ++k) /* gray of (k, k, k) is k */
            if (f.gray[k * W * H] != k || f.gray[(k + 1) * W * H - 1] != k)
                rc = 1;
        for (size_t d = 0; d < clc_batch_device_count(batch); ++d)
            printf("%s: %zu frames\n", clc_batch_device(batch, d)->name,
                   clc_batch_items_done(batch, d));
        if (rc)
            fprintf(stderr, "batch_all: a frame came out wrong\n");
    }
    clc_batch_destroy(batch);
    free(f.rgb), free(f.gray);
    return rc;
}
