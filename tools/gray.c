/* clcompute gray IN OUT: an image (8-bit, or 16-bit narrowed as imread narrows it) to 8-bit gray,
 * written in the format OUT's name asks for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "image.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clcompute gray IN OUT [--weights bt601|bt709] [--device SEL]\n"
            "       clcompute gray IN... -o OUTDIR [--format EXT] [batch options] [--weights ...]\n"
            "\n"
            "Converts images to 8-bit gray, bit-exact with OpenCV's cvtColor(imread(IN)) (BT.601;\n"
            "bt709 on request). IN: PNG, JPEG, BMP, TGA, binary PGM/PPM (P5, P6) or GIF with\n"
            "gray, gray+alpha, RGB or RGBA pixels (alpha is ignored, as OpenCV does; 16-bit\n"
            "samples of PNG and PGM/PPM become 8-bit as imread makes them, v >> 8); JPEGs are\n"
            "decoded as OpenCV decodes them (libjpeg-turbo, EXIF orientation applied).\n"
            "OUT is written in the format its extension names (" IMG_WRITABLE_LIST ";\n"
            "PNG as OpenCV's imwrite writes it, JPEG at quality 95); anything else is refused\n"
            "before IN is read. Files appear whole or not at all.\n"
            "\n"
            "With -o: every IN (a folder means its image files, by extension; other files are\n"
            "skipped and listed) becomes OUTDIR/NAME.EXT (--format, in any case; default png),\n"
            "on every device of --device at once. Two inputs that would write one output\n"
            "(photo.jpg and photo.png) are refused before any work. A bad file is reported and\n"
            "skipped; the exit status is 1 if any failed, 130 after Ctrl-C (which stops after\n"
            "the files in progress; a second Ctrl-C stops at once, leaving no partial "
            "file).\n" CLI_BATCH_OPTIONS "\n"
            "  --device SEL   the device (clcompute devices --help); default: CLCOMPUTE_DEVICE,\n"
            "                 else the GPU with the most compute units, else the CPU\n"
            "  -h, --help     this text\n");
}

typedef struct gray_job {
    clc_gray_options options;
    img_format format;  /* of the outputs */
    const char *device; /* single-file mode: the context is made here */
} gray_job;

/* Converts one file; 0, or -1 after printing why. With ctx NULL (single-file mode) a context on
 * job->device is made only if the image has colour. */
static int convert_file(clc_context *ctx, const gray_job *job, const char *in, const char *out)
{
    img image;
    if (img_read(in, IMG_SLOT_0, 0, 0, &image) != 0)
        return -1;
    int rc = -1;
    clc_context *own = NULL;
    const size_t pixels = (size_t)image.width * (size_t)image.height;
    uint8_t *gray = img_buffer(IMG_OUT_0, pixels);
    if (!gray)
        return -1;
    if (image.channels <= 2) {
        /* Already gray: keep the gray channel, drop alpha. */
        for (size_t i = 0; i < pixels; ++i)
            gray[i] = image.pixels[i * (size_t)image.channels];
    } else {
        if (!ctx && !(ctx = own = cli_context(job->device)))
            goto done;
        const clc_image_desc src = {image.channels == 3 ? CLC_PIXEL_RGB8 : CLC_PIXEL_RGBA8,
                                    (size_t)image.width, (size_t)image.height, 0};
        const clc_image_desc dst = {CLC_PIXEL_GRAY8, (size_t)image.width, (size_t)image.height, 0};
        const unsigned long long t0 = cli_now_ns();
        const clc_status st = clc_gray(ctx, &src, image.pixels, &dst, gray, &job->options);
        cli_stage_add(CLI_STAGE_DEVICE, t0);
        if (st != CLC_SUCCESS) {
            cli_error("'%s': %s", in, clc_last_error());
            goto done;
        }
    }
    char error[512];
    if (img_write_gray(out, job->format, gray, image.width, image.height, error, sizeof error) !=
        0) {
        cli_error("%s", error);
        goto done;
    }
    rc = 0;
done:
    clc_context_destroy(own);
    return rc;
}

static int convert_item(clc_context *ctx, const cli_item *in, const char *out, void *job)
{
    return convert_file(ctx, job, in->path, out);
}

/* Batches: --format must name a format gray is written in. */
static int format_ok(const char *ext, void *arg)
{
    gray_job *job = arg;
    job->format = img_output_format(ext);
    if (job->format != IMG_UNKNOWN)
        return 0;
    cli_error("--format '%s' is not a format this tool writes (%s)", ext + 1, IMG_WRITABLE_LIST);
    return -1;
}

/* Single-file mode: OUT's name must say a format gray is written in. */
static int check_output(const char *out, void *arg)
{
    gray_job *job = arg;
    job->format = img_output_format(out);
    if (job->format != IMG_UNKNOWN)
        return 0;
    cli_error("cannot write '%s': its extension names no image format this tool writes (%s)", out,
              IMG_WRITABLE_LIST);
    return -1;
}

/* The command's own option: --weights. */
static int option(cli_args *a, void *arg)
{
    gray_job *job = arg;
    if (!cli_is(a, "--weights"))
        return 0;
    const char *w = cli_value(a);
    if (!w)
        return -1;
    /* Any case, as the Python package takes it (BT.709 is how standards write it). */
    if (strcasecmp(w, "bt601") == 0) {
        job->options.weights = CLC_GRAY_BT601;
    } else if (strcasecmp(w, "bt709") == 0) {
        job->options.weights = CLC_GRAY_BT709;
    } else {
        cli_error("unknown weights '%s' (bt601 or bt709)", w);
        return -1;
    }
    return 1;
}

static int run(int argc, char **argv)
{
    cli_batch batch = {0};
    batch.accept = img_is_image_name;
    batch.kind = "images";
    batch.extensions = IMG_IMAGE_EXTENSIONS;
    gray_job job = {{CLC_GRAY_BT601}, IMG_PNG, NULL};
    int rc = cli_files_parse(&batch, argc, argv, usage, option, &job);
    if (rc == CLI_ARGS_READ) {
        job.device = batch.devices; /* single-file mode makes its context there */
        rc = cli_files_run(&batch, "png", format_ok, check_output, convert_item, &job);
    }
    cli_batch_free(&batch);
    return rc;
}

const cli_subcommand cli_command_gray = {
    "gray",
    "  gray IN OUT [--weights bt601|bt709] [--device SEL]\n"
    "                                    convert an image to 8-bit gray (OpenCV's)\n"
    "  gray IN... -o OUTDIR [--device all]\n"
    "                                    many images, folders too, on every device\n",
    run};
