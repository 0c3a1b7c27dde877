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
    fprintf(out,
            "usage: clcompute gray IN OUT.png [--weights bt601|bt709] [--device SEL]\n"
            "       clcompute gray IN... -o OUTDIR [batch options] [--weights ...]\n"
            "  IN: PNG, JPEG, BMP, TGA, PNM... with 8-bit gray, gray+alpha, RGB or RGBA\n"
            "  pixels; alpha is ignored as OpenCV does. OUT is written as 8-bit gray PNG.\n"
            "  With -o: every IN (a folder means its files) becomes OUTDIR/NAME.png, on every\n"
            "  device of LIST at once (\"gpu,cpu\", \"all\"); a bad file is reported and\n"
            "  skipped, the exit status is 1 if any failed; Ctrl-C stops after the files in\n"
            "  progress and never leaves a partial file.\n" CLI_BATCH_OPTIONS);
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

/* Converts one file; 0, or -1 after printing why. With ctx NULL (single-file mode) a context on
 * `device` is made only if the image has colour. */
static int convert_file(clc_context *ctx, const char *device, const char *in, const char *out,
                        const clc_gray_options *options)
{
    int w = 0, h = 0, channels = 0;
    uint8_t *pixels = load_image(in, &w, &h, &channels);
    if (!pixels)
        return -1;
    int rc = -1;
    clc_context *own = NULL;
    uint8_t *gray = malloc((size_t)w * (size_t)h);
    if (!gray) {
        fprintf(stderr, "clcompute gray: out of memory for %d x %d pixels\n", w, h);
        goto done;
    }
    if (channels <= 2) {
        /* Already gray: keep the gray channel, drop alpha. */
        for (size_t i = 0; i < (size_t)w * (size_t)h; ++i)
            gray[i] = pixels[i * (size_t)channels];
    } else {
        if (!ctx) {
            clc_context_options copts = {0};
            copts.device = device;
            if (clc_context_create(&copts, &own) != CLC_SUCCESS) {
                fprintf(stderr, "clcompute gray: %s\n", clc_last_error());
                goto done;
            }
            ctx = own;
        }
        const clc_image_desc src = {channels == 3 ? CLC_PIXEL_RGB8 : CLC_PIXEL_RGBA8, (size_t)w,
                                    (size_t)h, 0};
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, (size_t)w, (size_t)h, 0};
        if (clc_gray(ctx, &src, pixels, &dst, gray, options) != CLC_SUCCESS) {
            fprintf(stderr, "clcompute gray: '%s': %s\n", in, clc_last_error());
            goto done;
        }
    }
    png image = {gray, w, h};
    char error[512];
    if (cli_write_atomic(out, write_png, &image, error, sizeof error) != 0) {
        fprintf(stderr, "clcompute gray: %s\n", error);
        goto done;
    }
    rc = 0;
done:
    clc_context_destroy(own);
    free(gray);
    stbi_image_free(pixels);
    return rc;
}

static int convert_one(clc_context *ctx, const char *in, const char *out, void *options)
{
    return convert_file(ctx, NULL, in, out, options);
}

int cmd_gray(int argc, char **argv)
{
    const char *device = NULL;
    cli_batch batch = {0};
    int rc = CLI_EXIT_USAGE, opt = 0;
    clc_gray_options options = {CLC_GRAY_BT601};
    for (int i = 1; i < argc; ++i) {
        const int value = i + 1 < argc;
        if (strcmp(argv[i], "--weights") == 0 && value) {
            const char *w = argv[++i];
            if (strcmp(w, "bt601") == 0) {
                options.weights = CLC_GRAY_BT601;
            } else if (strcmp(w, "bt709") == 0) {
                options.weights = CLC_GRAY_BT709;
            } else {
                fprintf(stderr, "clcompute gray: unknown weights '%s' (bt601 or bt709)\n", w);
                goto done;
            }
        } else if (strcmp(argv[i], "--device") == 0 && value) {
            device = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && value) {
            batch.outdir = argv[++i];
        } else if ((opt = cli_batch_option(&batch, argc, argv, &i)) != 0) {
            if (opt < 0)
                goto done;
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto done;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "clcompute gray: unknown option '%s'\n", argv[i]);
            usage(stderr);
            goto done;
        } else if (cli_batch_path(&batch, argv[i]) != 0) {
            goto done;
        }
    }
    if (cli_batch_path(&batch, NULL) != 0)
        goto done;
    if (batch.outdir) {
        batch.devices = device;
        rc = cli_batch_run(&batch, ".png", convert_one, &options);
    } else if (batch.nsingle == 2 && batch.count == 0) {
        rc = convert_file(NULL, device, batch.single[0], batch.single[1], &options) == 0
                 ? CLI_EXIT_OK
                 : CLI_EXIT_FAILURE;
    } else {
        fprintf(stderr, "clcompute gray: give IN OUT, or inputs and -o OUTDIR\n");
        usage(stderr);
    }
done:
    cli_batch_free(&batch);
    return rc;
}
