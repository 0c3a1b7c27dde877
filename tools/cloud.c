/* clcompute cloud DEPTH OUT.ply: a 16-bit depth PNG (and optional colour image) to a PLY cloud. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb/stb_image.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "ply.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: clcompute cloud DEPTH OUT.ply --fx F --fy F --cx F --cy F\n"
        "           [--depth-scale S] [--depth-trunc T] [--stride N] [--color IMAGE]\n"
        "           [--organized] [--ascii] [--allow-8bit] [--device SEL]\n"
        "       clcompute cloud DEPTH... -o OUTDIR (--intrinsics FILE | --fx ...) [--color DIR]\n"
        "           [batch options] [...]\n"
        "  DEPTH: 16-bit single-channel PNG in sensor units (S per metre, default 1000);\n"
        "  points at or beyond T metres (default 1000) are dropped. --color: an 8-bit\n"
        "  image of the same size whose pixels colour the points. --organized keeps one\n"
        "  point per sampled pixel (NaN where invalid). OUT is binary PLY unless --ascii.\n"
        "  --intrinsics: Open3D PinholeCameraIntrinsic JSON, or \"fx fy cx cy width height\".\n"
        "  With -o: every DEPTH (a folder means its files) becomes OUTDIR/NAME.ply, as for\n"
        "  clcompute gray -o; --color FOLDER colours each with the image of the same "
        "NAME.\n" CLI_BATCH_OPTIONS);
}

static int parse_double(const char *flag, const char *text, double *value)
{
    char *end = NULL;
    errno = 0;
    *value = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(*value)) {
        fprintf(stderr, "clcompute cloud: %s needs a finite number, not '%s'\n", flag, text);
        return -1;
    }
    return 0;
}

static int check_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "clcompute cloud: cannot read '%s': %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "clcompute cloud: '%s' is a directory, not an image\n", path);
        return -1;
    }
    return 0;
}

/* Loads the depth image as 16-bit values; 8-bit files only when allowed. */
static uint16_t *load_depth(const char *path, int allow_8bit, int *w, int *h)
{
    if (check_file(path) != 0)
        return NULL;
    int channels = 0;
    if (!stbi_info(path, w, h, &channels)) {
        fprintf(stderr, "clcompute cloud: '%s' is not an image stb can decode (%s)\n", path,
                stbi_failure_reason());
        return NULL;
    }
    if (channels != 1) {
        fprintf(stderr, "clcompute cloud: depth image '%s' has %d channels; it needs one\n", path,
                channels);
        return NULL;
    }
    if (stbi_is_16_bit(path)) {
        uint16_t *values = stbi_load_16(path, w, h, &channels, 1);
        if (!values)
            fprintf(stderr,
                    "clcompute cloud: '%s' is not an image stb can decode (truncated or corrupt; "
                    "stb says: %s)\n",
                    path, stbi_failure_reason());
        return values;
    }
    if (!allow_8bit) {
        fprintf(stderr,
                "clcompute cloud: depth image '%s' is 8-bit; depth sensors write 16-bit PNGs "
                "(pass --allow-8bit to use its values as sensor units)\n",
                path);
        return NULL;
    }
    unsigned char *bytes = stbi_load(path, w, h, &channels, 1);
    if (!bytes) {
        fprintf(stderr,
                "clcompute cloud: '%s' is not an image stb can decode (truncated or corrupt; "
                "stb says: %s)\n",
                path, stbi_failure_reason());
        return NULL;
    }
    uint16_t *wide = malloc((size_t)*w * (size_t)*h * sizeof *wide);
    if (!wide)
        fprintf(stderr, "clcompute cloud: out of memory\n");
    if (wide)
        for (size_t i = 0; i < (size_t)*w * (size_t)*h; ++i)
            wide[i] = bytes[i];
    stbi_image_free(bytes);
    return wide;
}

static int write_ply(FILE *out, void *arg)
{
    return ply_write(out, arg);
}

/* Everything a conversion needs besides its files. */
typedef struct cloud_job {
    clc_intrinsics k;
    int width, height; /* from an intrinsics file: the size every depth image must have; 0: any */
    clc_cloud_options options;
    int ascii, allow_8bit, quiet;
    const char *device; /* single-file mode: the context is made here */
    /* Batch mode with --color FOLDER: its files sorted by name without extension, so that each
     * depth file finds the colour image of the same name (depth/000123.png, color/000123.jpg). */
    const char **color_files;
    size_t color_count;
} cloud_job;

/* Converts one depth image (and colour image); 0, or -1 after printing why. */
static int convert_depth(clc_context *ctx, const cloud_job *job, const char *depth_path,
                         const char *color_path, const char *out_path)
{
    int rc = -1, w = 0, h = 0;
    unsigned char *rgb = NULL;
    float *points = NULL;
    unsigned char *colors = NULL;
    clc_context *own = NULL;
    uint16_t *depth = load_depth(depth_path, job->allow_8bit, &w, &h);
    if (!depth)
        goto done;
    if (job->width && (w != job->width || h != job->height)) {
        fprintf(stderr, "clcompute cloud: '%s' is %d x %d; the intrinsics are for %d x %d\n",
                depth_path, w, h, job->width, job->height);
        goto done;
    }
    if (color_path) {
        int cw = 0, ch = 0, cc = 0;
        if (check_file(color_path) != 0)
            goto done;
        rgb = stbi_load(color_path, &cw, &ch, &cc, 3);
        if (!rgb) {
            fprintf(stderr, "clcompute cloud: '%s' is not an image stb can decode (%s)\n",
                    color_path, stbi_failure_reason());
            goto done;
        }
        if (cw != w || ch != h) {
            fprintf(stderr, "clcompute cloud: colour image is %d x %d but depth is %d x %d\n", cw,
                    ch, w, h);
            goto done;
        }
    }
    const clc_image_desc ddesc = {CLC_PIXEL_DEPTH_U16, (size_t)w, (size_t)h, 0};
    const clc_image_desc cdesc = {CLC_PIXEL_RGB8, (size_t)w, (size_t)h, 0};
    size_t grid = 0, count = 0;
    if (clc_cloud_grid_size(&ddesc, &job->options, &grid) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute cloud: %s\n", clc_last_error());
        goto done;
    }
    points = malloc(grid * 12);
    colors = rgb ? malloc(grid * 3) : NULL;
    if (!points || (rgb && !colors)) {
        fprintf(stderr, "clcompute cloud: out of memory for %zu points\n", grid);
        goto done;
    }
    if (!ctx) {
        clc_context_options copts = {0};
        copts.device = job->device;
        if (clc_context_create(&copts, &own) != CLC_SUCCESS) {
            fprintf(stderr, "clcompute cloud: %s\n", clc_last_error());
            goto done;
        }
        ctx = own;
    }
    if (clc_depth_to_points(ctx, &ddesc, depth, rgb ? &cdesc : NULL, rgb, &job->k, &job->options,
                            points, colors, grid, &count) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute cloud: '%s': %s\n", depth_path, clc_last_error());
        goto done;
    }
    ply_cloud cloud = {points, colors, count, job->ascii};
    char error[512];
    if (cli_write_atomic(out_path, write_ply, &cloud, error, sizeof error) != 0) {
        fprintf(stderr, "clcompute cloud: %s\n", error);
        goto done;
    }
    if (!job->quiet)
        printf("%zu points written to %s\n", count, out_path);
    rc = 0;
done:
    clc_context_destroy(own);
    free(points);
    free(colors);
    stbi_image_free(rgb);
    free(depth);
    return rc;
}

/* Camera intrinsics from a file: Open3D's PinholeCameraIntrinsic JSON ("width", "height" and a
 * column-major "intrinsic_matrix" [fx, 0, 0, 0, fy, 0, cx, cy, 1]), or plain text
 * "fx fy cx cy width height". 0, or -1 after printing why. */
static int read_intrinsics(const char *path, cloud_job *job)
{
    FILE *f = fopen(path, "rb");
    char text[4096];
    const size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    if (!f || n == 0) {
        fprintf(stderr, "clcompute cloud: cannot read intrinsics '%s'\n", path);
        return -1;
    }
    text[n] = '\0';
    double m[9], fx = 0, fy = 0, cx = 0, cy = 0;
    int w = 0, h = 0, ok = 0;
    const char *matrix = strstr(text, "\"intrinsic_matrix\"");
    if (matrix) {
        const char *p = strchr(matrix, '[');
        int got = 0;
        while (p && got < 9) {
            char *end = NULL;
            m[got] = strtod(p + 1, &end);
            if (end == p + 1)
                break;
            ++got;
            p = strchr(end, ',');
        }
        const char *wp = strstr(text, "\"width\""), *hp = strstr(text, "\"height\"");
        ok = got == 9 && wp && hp && sscanf(strchr(wp, ':') + 1, "%d", &w) == 1 &&
             sscanf(strchr(hp, ':') + 1, "%d", &h) == 1;
        fx = m[0], fy = m[4], cx = m[6], cy = m[7];
    } else {
        ok = sscanf(text, "%lf %lf %lf %lf %d %d", &fx, &fy, &cx, &cy, &w, &h) == 6;
    }
    if (!ok || w <= 0 || h <= 0 || !isfinite(fx) || !isfinite(fy) || !isfinite(cx) ||
        !isfinite(cy) || fx == 0 || fy == 0) {
        fprintf(stderr,
                "clcompute cloud: '%s' is neither Open3D intrinsics JSON nor \"fx fy cx cy width "
                "height\" with non-zero focal lengths and a positive size\n",
                path);
        return -1;
    }
    job->k = (clc_intrinsics){fx, fy, cx, cy};
    job->width = w;
    job->height = h;
    return 0;
}

static int stem_compare(const char *a, const char *b)
{
    const char *sa = NULL, *sb = NULL;
    const size_t na = cli_stem(a, &sa), nb = cli_stem(b, &sb);
    const int c = memcmp(sa, sb, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

static int by_stem(const void *a, const void *b)
{
    return stem_compare(*(const char *const *)a, *(const char *const *)b);
}

static int convert_one(clc_context *ctx, const char *in, const char *out, void *arg)
{
    const cloud_job *job = arg;
    if (!job->color_files)
        return convert_depth(ctx, job, in, NULL, out);
    const char *const *color =
        bsearch(&in, job->color_files, job->color_count, sizeof *job->color_files, by_stem);
    if (!color) {
        const char *s = NULL;
        const int n = (int)cli_stem(in, &s);
        fprintf(stderr, "clcompute cloud: no colour image named '%.*s' for '%s'\n", n, s, in);
        return -1;
    }
    return convert_depth(ctx, job, in, *color, out);
}

/* --color FOLDER in batch mode: its files, sorted by stem; two with one stem are ambiguous. */
static int index_colors(cloud_job *job, cli_batch *colors, const char *folder)
{
    struct stat st;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "clcompute cloud: with -o, --color takes a folder of colour images named as "
                "the depth files; '%s' is not a folder\n",
                folder);
        return -1;
    }
    if (cli_batch_add(colors, folder) != 0)
        return -1;
    qsort(colors->inputs, colors->count, sizeof *colors->inputs, by_stem);
    for (size_t i = 1; i < colors->count; ++i) {
        if (stem_compare(colors->inputs[i - 1], colors->inputs[i]) == 0) {
            fprintf(stderr,
                    "clcompute cloud: '%s' and '%s' have the same name; which colours "
                    "the depth file of that name is ambiguous\n",
                    colors->inputs[i - 1], colors->inputs[i]);
            return -1;
        }
    }
    job->color_files = (const char **)colors->inputs;
    job->color_count = colors->count;
    return 0;
}

int cmd_cloud(int argc, char **argv)
{
    const char *color_path = NULL, *intrinsics = NULL;
    int rc = CLI_EXIT_USAGE, opt = 0;
    double k[4] = {NAN, NAN, NAN, NAN};
    static const char *const k_flags[4] = {"--fx", "--fy", "--cx", "--cy"};
    cloud_job job = {0};
    cli_batch batch = {0}, colors = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        int matched = 0;
        for (int j = 0; j < 4; ++j) {
            if (strcmp(a, k_flags[j]) == 0 && has_value) {
                if (parse_double(a, argv[++i], &k[j]) != 0)
                    goto done;
                matched = 1;
            }
        }
        if (matched)
            continue;
        if (strcmp(a, "--depth-scale") == 0 && has_value) {
            if (parse_double(a, argv[++i], &job.options.depth_scale) != 0)
                goto done;
        } else if (strcmp(a, "--depth-trunc") == 0 && has_value) {
            if (parse_double(a, argv[++i], &job.options.depth_trunc) != 0)
                goto done;
        } else if (strcmp(a, "--stride") == 0 && has_value) {
            char *end = NULL;
            const long s = strtol(argv[++i], &end, 10);
            if (*end != '\0' || s < 1 || s > 65535) {
                fprintf(stderr, "clcompute cloud: --stride needs an integer from 1 to 65535\n");
                goto done;
            }
            job.options.stride = (unsigned)s;
        } else if (strcmp(a, "--color") == 0 && has_value) {
            color_path = argv[++i];
        } else if (strcmp(a, "--intrinsics") == 0 && has_value) {
            intrinsics = argv[++i];
        } else if (strcmp(a, "--device") == 0 && has_value) {
            job.device = argv[++i];
        } else if (strcmp(a, "-o") == 0 && has_value) {
            batch.outdir = argv[++i];
        } else if ((opt = cli_batch_option(&batch, argc, argv, &i)) != 0) {
            if (opt < 0)
                goto done;
            job.quiet = batch.quiet;
        } else if (strcmp(a, "--organized") == 0) {
            job.options.layout = CLC_CLOUD_ORGANIZED;
        } else if (strcmp(a, "--ascii") == 0) {
            job.ascii = 1;
        } else if (strcmp(a, "--allow-8bit") == 0) {
            job.allow_8bit = 1;
        } else if (strcmp(a, "--help") == 0) {
            usage(stdout);
            rc = CLI_EXIT_OK;
            goto done;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "clcompute cloud: unknown option '%s'\n", a);
            usage(stderr);
            goto done;
        } else if (cli_batch_path(&batch, a) != 0) {
            goto done;
        }
    }
    if (cli_batch_path(&batch, NULL) != 0)
        goto done;
    if (intrinsics) {
        if (read_intrinsics(intrinsics, &job) != 0)
            goto done;
    } else {
        for (int j = 0; j < 4; ++j) {
            if (isnan(k[j])) {
                fprintf(stderr, "clcompute cloud: %s (or --intrinsics FILE) is required\n",
                        k_flags[j]);
                goto done;
            }
        }
        job.k = (clc_intrinsics){k[0], k[1], k[2], k[3]};
    }
    if (batch.outdir) {
        if (color_path && index_colors(&job, &colors, color_path) != 0) {
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        batch.devices = job.device;
        job.quiet = 1; /* the progress line speaks for the batch */
        rc = cli_batch_run(&batch, ".ply", convert_one, &job);
    } else if (batch.nsingle == 2 && batch.count == 0) {
        rc = convert_depth(NULL, &job, batch.single[0], color_path, batch.single[1]) == 0
                 ? CLI_EXIT_OK
                 : CLI_EXIT_FAILURE;
    } else {
        usage(stderr);
    }
done:
    cli_batch_free(&batch);
    cli_batch_free(&colors);
    return rc;
}
