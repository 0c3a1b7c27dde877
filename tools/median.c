/* clcompute median IN OUT: a median filter over a gray or depth image, as cv2.medianBlur. */
#include <stdio.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "image.h"
#include "plane.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: clcompute median IN OUT [--ksize 3|5] [--device SEL]\n"
        "       clcompute median IN... -o OUTDIR [--format png|pgm|npy] [batch options]\n"
        "\n"
        "Replaces each pixel by the median of the KSIZE x KSIZE window around it (borders\n"
        "replicated): the same values as OpenCV's cv2.medianBlur(IN, KSIZE), the usual clean-up\n"
        "of a depth camera's speckle before clcompute cloud. Zeros (no reading) count as\n"
        "values, as in OpenCV. IN: a one-channel PNG or PGM of 8 or 16 bits, or a 2-D .npy\n"
        "array of uint8, uint16 or float32 (NaN sorts after every number, as in numpy).\n"
        "OUT keeps IN's type, in the format its extension names: png or pgm (8 and 16 bits)\n"
        "or npy (any). Files appear whole or not at all.\n"
        "\n"
        "  --ksize N      window size: 3 or 5 (OpenCV's sizes for every depth); default 5\n"
        "  --device SEL   the device (clcompute devices --help)\n"
        "  -h, --help     this text\n"
        "With -o: every IN (a folder means its .png, .pgm and .npy files) becomes\n"
        "OUTDIR/NAME.png (or --format), as for clcompute gray -o.\n" CLI_BATCH_OPTIONS);
}

typedef struct median_job {
    unsigned ksize;
    const char *device; /* single-file mode: the context is made here */
} median_job;

static int convert_item(clc_context *ctx, const cli_item *in, const char *out, void *arg)
{
    const median_job *job = arg;
    plane p;
    if (plane_read(in->path, "image", &p) != 0)
        return -1;
    if (!plane_can_write(out, p.format)) {
        cli_error("'%s' is %s; it can be written as %s, not as '%s'", in->path,
                  p.format == CLC_PIXEL_DEPTH_F32 ? "float32" : "an image",
                  plane_writable(p.format), out);
        return -1;
    }
    const clc_image_desc desc = {p.format, (size_t)p.width, (size_t)p.height, 0};
    void *filtered =
        img_buffer(IMG_OUT_0, (size_t)p.width * (size_t)p.height * clc_pixel_size(p.format));
    if (!filtered)
        return -1;
    clc_context *own = NULL;
    if (!ctx && !(ctx = own = cli_context(job->device)))
        return -1;
    const unsigned long long t0 = cli_now_ns();
    const clc_status st = clc_median(ctx, &desc, p.values, &desc, filtered, job->ksize);
    cli_stage_add(CLI_STAGE_DEVICE, t0);
    clc_context_destroy(own);
    if (st != CLC_SUCCESS) {
        cli_error("'%s': %s", in->path, clc_last_error());
        return -1;
    }
    p.values = filtered;
    return plane_write(out, &p);
}

/* Batches: --format must be png, pgm or npy. */
static int format_ok(const char *ext, void *arg)
{
    (void)arg;
    if (strcmp(ext, ".png") == 0 || strcmp(ext, ".pgm") == 0 || strcmp(ext, ".npy") == 0)
        return 0;
    cli_error("--format '%s' is not one of png, pgm, npy", ext + 1);
    return -1;
}

/* Single-file mode: OUT's name must say a format planes are written in. */
static int check_output(const char *out, void *arg)
{
    (void)arg;
    if (plane_can_write(out, CLC_PIXEL_GRAY8) || plane_can_write(out, CLC_PIXEL_DEPTH_F32))
        return 0;
    cli_error("cannot write '%s': filtered images are written as png, pgm or npy", out);
    return -1;
}

/* The command's own option: --ksize. */
static int option(cli_args *a, void *arg)
{
    median_job *job = arg;
    if (!cli_is(a, "--ksize"))
        return 0;
    const char *text = cli_value(a);
    if (!text)
        return -1;
    /* One message for every other value, negative and non-numbers included. */
    if (strcmp(text, "3") != 0 && strcmp(text, "5") != 0) {
        cli_error("option --ksize takes 3 or 5 (OpenCV's sizes for every depth), not '%s'", text);
        return -1;
    }
    job->ksize = (unsigned)(text[0] - '0');
    return 1;
}

static int run(int argc, char **argv)
{
    cli_batch batch = {0};
    batch.accept = img_is_depth_name;
    batch.kind = "images";
    batch.extensions = IMG_DEPTH_EXTENSIONS;
    median_job job = {5, NULL};
    int rc = cli_files_parse(&batch, argc, argv, usage, option, &job);
    if (rc == CLI_ARGS_READ) {
        job.device = batch.devices; /* single-file mode makes its context there */
        rc = cli_files_run(&batch, "png", format_ok, check_output, convert_item, &job);
    }
    cli_batch_free(&batch);
    return rc;
}

const cli_subcommand cli_command_median = {
    "median",
    "  median IN OUT [--ksize 3|5]       median filter of a gray or depth image (OpenCV's)\n", run};
