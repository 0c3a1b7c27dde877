/* clcompute cloud DEPTH OUT.ply: a 16-bit depth image (and optional colour image) to a PLY cloud.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "image.h"
#include "intrinsics.h"
#include "pcd.h"
#include "plane.h"
#include "ply.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: clcompute cloud DEPTH OUT (--fx F --fy F --cx F --cy F | --intrinsics FILE)\n"
        "           [--depth-scale S] [--depth-trunc T] [--stride N] [--color IMAGE]\n"
        "           [--organized] [--ascii] [--allow-8bit] [--device SEL]\n"
        "       clcompute cloud DEPTH... -o OUTDIR (--intrinsics FILE | --fx ...) [--color DIR]\n"
        "           [--format ply|pcd] [batch options] [...]\n"
        "\n"
        "Depth image to point cloud, with Open3D's semantics (create_from_depth_image: same\n"
        "points, same order). DEPTH: a 16-bit single-channel PNG or PGM in sensor units, or a\n"
        ".npy array (height x width) of uint16 sensor units or float32 metres. OUT: .ply (PLY)\n"
        "or .pcd (PCL's PCD, colour packed as PCL packs it), binary unless --ascii.\n"
        "  --fx, --fy F       focal lengths in pixels (non-zero; a negative one mirrors that\n"
        "                     axis, as in Open3D)\n"
        "  --cx, --cy F       principal point in pixels (may be negative or past the image,\n"
        "                     as for a crop)\n"
        "  --intrinsics FILE  Open3D PinholeCameraIntrinsic JSON, or \"fx fy cx cy width\n"
        "                     height\" (then every DEPTH must have that size)\n"
        "  --depth-scale S    sensor units per metre (positive; default 1000; not for float32)\n"
        "  --depth-trunc T    points at or beyond T metres are dropped (positive, or inf for\n"
        "                     none; default 1000)\n"
        "  --stride N         every N-th pixel of every N-th row (1 to 65535; default 1)\n"
        "  --color IMAGE      an image of the same size colouring the points, read as imread\n"
        "                     reads it (16-bit samples: their high byte); with -o: a folder of\n"
        "                     images named as the depth files\n"
        "  --organized        one point per sampled pixel, NaN where invalid (a PCD keeps the\n"
        "                     grid: WIDTH x HEIGHT)\n"
        "  --ascii            text instead of binary\n"
        "  --allow-8bit       take an 8-bit DEPTH's values as sensor units\n"
        "  --device SEL       the device (clcompute devices --help)\n"
        "  -h, --help         this text\n"
        "With -o: every DEPTH (a folder means its .png, .pgm and .npy files) becomes\n"
        "OUTDIR/NAME.ply (or .pcd with --format pcd), as for clcompute gray "
        "-o.\n" CLI_BATCH_OPTIONS);
}

/* A depth frame: u16 sensor units or f32 metres, rows packed, in a per-thread buffer. */
typedef plane depth_frame;

/* Loads a depth frame: a 16-bit PNG or PGM (8-bit only when allowed, widened), or a .npy array
 * of uint16 or float32 (uint8 as 8-bit images). */
static int load_depth(const char *path, int allow_8bit, depth_frame *out)
{
    if (plane_read(path, "depth image", out) != 0)
        return -1;
    if (out->format == CLC_PIXEL_GRAY8 && !allow_8bit) {
        cli_error("depth image '%s' is 8-bit; depth sensors write 16-bit PNGs (pass "
                  "--allow-8bit to use its values as sensor units)",
                  path);
        return -1;
    }
    if (out->format == CLC_PIXEL_GRAY8) { /* widened in place, from the end */
        const size_t n = (size_t)out->width * (size_t)out->height;
        uint16_t *wide = img_buffer(IMG_SLOT_0, n * 2);
        if (!wide)
            return -1;
        const unsigned char *narrow = (const unsigned char *)wide;
        for (size_t i = n; i-- > 0;)
            wide[i] = narrow[i];
        out->values = wide;
        out->format = CLC_PIXEL_DEPTH_U16;
    }
    return 0;
}

/* What an output's name asks for: PLY or PCD. */
typedef enum cloud_format { CLOUD_UNKNOWN, CLOUD_PLY, CLOUD_PCD } cloud_format;

static cloud_format cloud_format_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return !dot                           ? CLOUD_UNKNOWN
           : strcasecmp(dot, ".ply") == 0 ? CLOUD_PLY
           : strcasecmp(dot, ".pcd") == 0 ? CLOUD_PCD
                                          : CLOUD_UNKNOWN;
}

typedef struct cloud_out {
    cloud_format format;
    ply_cloud ply;
    pcd_cloud pcd;
} cloud_out;

static int write_cloud(FILE *out, void *arg)
{
    const cloud_out *c = arg;
    return c->format == CLOUD_PCD ? pcd_write(out, &c->pcd) : ply_write(out, &c->ply);
}

/* Everything a conversion needs besides its files. */
typedef struct cloud_job {
    clc_intrinsics k;
    int width, height; /* from an intrinsics file: the size every depth image must have; 0: any */
    clc_cloud_options options;
    int ascii, allow_8bit, quiet;
    const char *device; /* single-file mode: the context is made here */
    /* Batch mode with --color FOLDER: its images sorted by name without extension, so that each
     * depth file finds the colour image of the same name (depth/000123.png, color/000123.jpg). */
    const cli_batch *colors;
} cloud_job;

/* Converts one depth image (and colour image); 0, or -1 after printing why. */
static int convert_depth(clc_context *ctx, const cloud_job *job, const char *depth_path,
                         const char *color_path, const char *out_path)
{
    int rc = -1;
    const unsigned char *rgb = NULL;
    clc_context *own = NULL;
    depth_frame depth;
    if (load_depth(depth_path, job->allow_8bit, &depth) != 0)
        return -1;
    const int w = depth.width, h = depth.height;
    if (job->width && (w != job->width || h != job->height)) {
        cli_error("'%s' is %d x %d; the intrinsics are for %d x %d", depth_path, w, h, job->width,
                  job->height);
        return -1;
    }
    if (depth.format == CLC_PIXEL_DEPTH_F32 && job->options.depth_scale != 0) {
        cli_error("'%s' holds float32 depth in metres; --depth-scale is for 16-bit sensor units",
                  depth_path);
        return -1;
    }
    if (color_path) {
        img color;
        if (img_read(color_path, IMG_SLOT_1, 3, 0, &color) != 0)
            return -1;
        rgb = color.pixels;
        if (color.width != w || color.height != h) {
            cli_error("colour image '%s' is %d x %d but depth is %d x %d", color_path, color.width,
                      color.height, w, h);
            return -1;
        }
    }
    const clc_image_desc ddesc = {depth.format, (size_t)w, (size_t)h, 0};
    const clc_image_desc cdesc = {CLC_PIXEL_RGB8, (size_t)w, (size_t)h, 0};
    size_t grid = 0, count = 0;
    if (clc_cloud_grid_size(&ddesc, &job->options, &grid) != CLC_SUCCESS) {
        cli_error("%s", clc_last_error());
        return -1;
    }
    float *points = img_buffer(IMG_OUT_0, grid * 12);
    unsigned char *colors = rgb ? img_buffer(IMG_OUT_1, grid * 3) : NULL;
    if (!points || (rgb && !colors))
        return -1;
    if (!ctx) {
        clc_context_options copts = {0};
        copts.device = job->device;
        if (clc_context_create(&copts, &own) != CLC_SUCCESS) {
            cli_error("%s", clc_last_error());
            return -1;
        }
        ctx = own;
    }
    const unsigned long long t0 = cli_now_ns();
    const clc_status st = clc_depth_to_points(ctx, &ddesc, depth.values, rgb ? &cdesc : NULL, rgb,
                                              &job->k, &job->options, points, colors, grid, &count);
    cli_stage_add(CLI_STAGE_DEVICE, t0);
    if (st != CLC_SUCCESS) {
        cli_error("'%s': %s", depth_path, clc_last_error());
        goto done;
    }
    const int organized = job->options.layout == CLC_CLOUD_ORGANIZED;
    const size_t stride = job->options.stride ? job->options.stride : 1;
    cloud_out cloud = {cloud_format_of(out_path),
                       {points, colors, count, job->ascii},
                       {points, colors, count, organized ? ((size_t)w + stride - 1) / stride : 0,
                        organized ? ((size_t)h + stride - 1) / stride : 0, job->ascii}};
    char error[512];
    if (cli_write_atomic(out_path, write_cloud, &cloud, error, sizeof error) != 0) {
        cli_error("%s", error);
        goto done;
    }
    if (!job->quiet)
        printf("%zu point%s written to %s\n", count, count == 1 ? "" : "s", out_path);
    rc = 0;
done:
    clc_context_destroy(own);
    return rc;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const cli_item *)a)->rel, ((const cli_item *)b)->rel);
}

static int convert_item(clc_context *ctx, const cli_item *in, const char *out, void *arg)
{
    const cloud_job *job = arg;
    if (!job->colors)
        return convert_depth(ctx, job, in->path, NULL, out);
    const cli_item *color = bsearch(in, job->colors->items, job->colors->count, sizeof *in, by_rel);
    if (!color) {
        cli_error("no colour image named '%s' for '%s'", in->rel, in->path);
        return -1;
    }
    return convert_depth(ctx, job, in->path, color->path, out);
}

/* --color FOLDER in batch mode: its images, by name without extension (and subfolder with
 * --recursive); two with one name are ambiguous. CLI_EXIT_USAGE for a path that is not a folder
 * (a usage error, as a single-file OUT that is a folder), CLI_EXIT_FAILURE for one that cannot
 * be read, 0 when indexed. */
static int index_colors(cloud_job *job, cli_batch *colors, const char *folder, int recursive)
{
    struct stat st;
    if (stat(folder, &st) != 0) {
        cli_error("cannot read the --color folder '%s': %s", folder, strerror(errno));
        return CLI_EXIT_FAILURE;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("with -o, --color takes a folder of colour images named as the depth files; "
                  "'%s' is not a folder",
                  folder);
        return CLI_EXIT_USAGE;
    }
    colors->accept = img_is_image_name;
    colors->kind = "images";
    colors->extensions = IMG_IMAGE_EXTENSIONS;
    colors->recursive = recursive;
    colors->quiet = 1;
    if (cli_batch_path(colors, folder) != 0 || cli_batch_expand(colors) != 0)
        return CLI_EXIT_FAILURE;
    qsort(colors->items, colors->count, sizeof *colors->items, by_rel);
    for (size_t i = 1; i < colors->count; ++i) {
        if (strcmp(colors->items[i - 1].rel, colors->items[i].rel) == 0) {
            cli_error("'%s' and '%s' have the same name; which colours the depth file of that "
                      "name is ambiguous",
                      colors->items[i - 1].path, colors->items[i].path);
            return CLI_EXIT_FAILURE;
        }
    }
    job->colors = colors;
    return 0;
}

/* The output's name says its format: PLY or PCD, what is written. */
static int check_output(const char *path)
{
    if (cloud_format_of(path) != CLOUD_UNKNOWN)
        return 0;
    cli_error("cannot write '%s': point clouds are written as PLY or PCD, so OUT must end in .ply "
              "or .pcd",
              path);
    return -1;
}

/* What the command line gives besides the shared options. */
typedef struct cloud_args {
    cloud_job *job;
    const char *color_path, *intrinsics;
    double k[4]; /* NaN: not given */
} cloud_args;

static const char *const k_flags[4] = {"--fx", "--fy", "--cx", "--cy"};

/* The command's own options. */
static int option(cli_args *a, void *arg)
{
    cloud_args *c = arg;
    cloud_job *job = c->job;
    static const int k_rules[4] = {CLI_NONZERO, CLI_NONZERO, CLI_FINITE, CLI_FINITE};
    for (int j = 0; j < 4; ++j)
        if (cli_is(a, k_flags[j]))
            return cli_number(a, k_rules[j], &c->k[j]) != 0 ? -1 : 1;
    if (cli_is(a, "--depth-scale"))
        return cli_number(a, CLI_POSITIVE, &job->options.depth_scale) != 0 ? -1 : 1;
    if (cli_is(a, "--depth-trunc"))
        return cli_number(a, CLI_POSITIVE_INF, &job->options.depth_trunc) != 0 ? -1 : 1;
    if (cli_is(a, "--stride"))
        return cli_whole(a, 1, 65535, &job->options.stride) != 0 ? -1 : 1;
    if (cli_is(a, "--color"))
        return (c->color_path = cli_value(a)) ? 1 : -1;
    if (cli_is(a, "--intrinsics"))
        return (c->intrinsics = cli_value(a)) ? 1 : -1;
    if (!cli_is(a, "--organized") && !cli_is(a, "--ascii") && !cli_is(a, "--allow-8bit"))
        return 0;
    if (cli_flag(a) != 0)
        return -1;
    if (cli_is(a, "--organized"))
        job->options.layout = CLC_CLOUD_ORGANIZED;
    else if (cli_is(a, "--ascii"))
        job->ascii = 1;
    else
        job->allow_8bit = 1;
    return 1;
}

static int run(int argc, char **argv)
{
    int rc = CLI_EXIT_USAGE;
    cloud_job job = {0};
    cloud_args args = {&job, NULL, NULL, {NAN, NAN, NAN, NAN}};
    cli_batch batch = {0}, colors = {0};
    batch.accept = img_is_depth_name;
    batch.kind = "depth images";
    batch.extensions = IMG_DEPTH_EXTENSIONS;
    const int parsed = cli_files_parse(&batch, argc, argv, usage, option, &args);
    if (parsed != CLI_ARGS_READ) {
        rc = parsed;
        goto done;
    }
    const char *color_path = args.color_path, *intrinsics = args.intrinsics;
    double *k = args.k;
    job.device = batch.devices; /* single-file mode makes its context there */
    job.quiet = batch.quiet;
    if (!batch.outdir && batch.npaths != 2) {
        cli_error("give DEPTH OUT.ply, or depth images and -o OUTDIR (see clcompute cloud "
                  "--help)");
        goto done;
    }
    if (!batch.outdir && check_output(batch.paths[1]) != 0)
        goto done;
    if (!batch.outdir && batch.format) {
        cli_error("--format is for batches (-o OUTDIR); OUT's extension names its format");
        goto done;
    }
    if (intrinsics) {
        for (int j = 0; j < 4; ++j) {
            if (!isnan(k[j])) {
                cli_error("%s and --intrinsics both give the intrinsics; give one", k_flags[j]);
                goto done;
            }
        }
        if (intrinsics_read(intrinsics, &job.k, &job.width, &job.height) != 0)
            goto done;
    } else {
        for (int j = 0; j < 4; ++j) {
            if (isnan(k[j])) {
                cli_error("%s (or --intrinsics FILE) is required", k_flags[j]);
                goto done;
            }
        }
        job.k = (clc_intrinsics){k[0], k[1], k[2], k[3]};
    }
    if (batch.outdir) {
        /* "ply" or ".ply", in any case, as the other tools' --format */
        const char *f = cli_format_name(&batch, "ply");
        const char *ext = strcasecmp(f, "ply") == 0   ? ".ply"
                          : strcasecmp(f, "pcd") == 0 ? ".pcd"
                                                      : NULL;
        if (!ext) {
            cli_error("--format '%s' is not a point cloud format this tool writes (ply, pcd)",
                      batch.format);
            goto done;
        }
        const int indexed =
            color_path ? index_colors(&job, &colors, color_path, batch.recursive) : CLI_EXIT_OK;
        if (indexed != CLI_EXIT_OK) {
            rc = indexed;
            goto done;
        }
        job.quiet = 1; /* the progress line speaks for the batch */
        rc = cli_batch_run(&batch, ext, convert_item, &job);
    } else {
        if (cli_batch_single(&batch) != 0)
            goto done;
        if (cli_interrupt_begin(NULL, NULL) != 0) {
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        rc = convert_depth(NULL, &job, batch.paths[0], color_path, batch.paths[1]) == 0
                 ? CLI_EXIT_OK
                 : CLI_EXIT_FAILURE;
        cli_interrupt_end();
    }
done:
    cli_batch_free(&batch);
    cli_batch_free(&colors);
    return rc;
}

const cli_subcommand cli_command_cloud = {
    "cloud",
    "  cloud DEPTH OUT.ply --fx F --fy F --cx F --cy F [...]\n"
    "                                    depth image to point cloud (Open3D's)\n"
    "  cloud DEPTH... -o OUTDIR (--intrinsics FILE | --fx ...) [--color DIR]\n"
    "                                    many depth images, folders too\n",
    run};
