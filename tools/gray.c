/* clcompute gray IN OUT: any 8-bit image stb reads, converted to an 8-bit gray PNG. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <clcompute/clcompute.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: clcompute gray IN OUT.png [--weights bt601|bt709] [--device SEL]\n"
                 "  IN: PNG, JPEG, BMP, TGA, PNM... with 8-bit gray, gray+alpha, RGB or RGBA\n"
                 "  pixels; alpha is ignored as OpenCV does. OUT is written as 8-bit gray PNG.\n");
}

typedef struct png {
    const uint8_t *pixels;
    int width, height;
} png;

static void write_to_file(void *context, void *data, int size)
{
    FILE *f = context;
    if (size > 0)
        fwrite(data, 1, (size_t)size, f);
}

static int write_png(FILE *out, void *arg)
{
    const png *p = arg;
    return stbi_write_png_to_func(write_to_file, out, p->width, p->height, 1, p->pixels, p->width)
               ? 0
               : -1;
}

/* Loads an 8-bit image; *channels is what the file holds (1 gray, 2 gray+alpha, 3, 4). */
static uint8_t *load_image(const char *path, int *w, int *h, int *channels)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "clcompute gray: cannot read '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "clcompute gray: '%s' is a directory, not an image\n", path);
        return NULL;
    }
    if (stbi_is_16_bit(path)) {
        fprintf(stderr,
                "clcompute gray: '%s' has 16-bit channels; only 8-bit images are "
                "converted\n",
                path);
        return NULL;
    }
    uint8_t *pixels = stbi_load(path, w, h, channels, 0);
    if (!pixels)
        fprintf(stderr,
                "clcompute gray: '%s' is not an image stb can decode (unknown format, truncated "
                "or corrupt; stb says: %s)\n",
                path, stbi_failure_reason());
    return pixels;
}

int cmd_gray(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *device = NULL;
    clc_gray_options options = {CLC_GRAY_BT601};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--weights") == 0 && i + 1 < argc) {
            const char *w = argv[++i];
            if (strcmp(w, "bt601") == 0) {
                options.weights = CLC_GRAY_BT601;
            } else if (strcmp(w, "bt709") == 0) {
                options.weights = CLC_GRAY_BT709;
            } else {
                fprintf(stderr, "clcompute gray: unknown weights '%s' (bt601 or bt709)\n", w);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "clcompute gray: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            fprintf(stderr, "clcompute gray: unexpected argument '%s'\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (!in || !out) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    int w = 0, h = 0, channels = 0;
    uint8_t *pixels = load_image(in, &w, &h, &channels);
    if (!pixels)
        return CLI_EXIT_FAILURE;

    int rc = CLI_EXIT_FAILURE;
    uint8_t *gray = malloc((size_t)w * (size_t)h);
    clc_context *ctx = NULL;
    if (!gray) {
        fprintf(stderr, "clcompute gray: out of memory for %d x %d pixels\n", w, h);
        goto done;
    }
    if (channels <= 2) {
        /* Already gray: keep the gray channel, drop alpha. */
        for (size_t i = 0; i < (size_t)w * (size_t)h; ++i)
            gray[i] = pixels[i * (size_t)channels];
    } else {
        clc_context_options copts = {0};
        copts.device = device;
        if (clc_context_create(&copts, &ctx) != CLC_SUCCESS) {
            fprintf(stderr, "clcompute gray: %s\n", clc_last_error());
            goto done;
        }
        const clc_image_desc src = {channels == 3 ? CLC_PIXEL_RGB8 : CLC_PIXEL_RGBA8, (size_t)w,
                                    (size_t)h, 0};
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, (size_t)w, (size_t)h, 0};
        if (clc_gray(ctx, &src, pixels, &dst, gray, &options) != CLC_SUCCESS) {
            fprintf(stderr, "clcompute gray: %s\n", clc_last_error());
            goto done;
        }
    }
    png image = {gray, w, h};
    char error[512];
    if (cli_write_atomic(out, write_png, &image, error, sizeof error) != 0) {
        fprintf(stderr, "clcompute gray: %s\n", error);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    clc_context_destroy(ctx);
    free(gray);
    stbi_image_free(pixels);
    return rc;
}
