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
    fprintf(out,
            "usage: clcompute cloud DEPTH OUT.ply --fx F --fy F --cx F --cy F\n"
            "           [--depth-scale S] [--depth-trunc T] [--stride N] [--color IMAGE]\n"
            "           [--organized] [--ascii] [--allow-8bit] [--device SEL]\n"
            "  DEPTH: 16-bit single-channel PNG in sensor units (S per metre, default 1000);\n"
            "  points at or beyond T metres (default 1000) are dropped. --color: an 8-bit\n"
            "  image of the same size whose pixels colour the points. --organized keeps one\n"
            "  point per sampled pixel (NaN where invalid). OUT is binary PLY unless --ascii.\n");
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

int cmd_cloud(int argc, char **argv)
{
    const char *depth_path = NULL, *out_path = NULL, *color_path = NULL, *device = NULL;
    double k[4] = {NAN, NAN, NAN, NAN};
    static const char *const k_flags[4] = {"--fx", "--fy", "--cx", "--cy"};
    clc_cloud_options options = {0};
    int ascii = 0, allow_8bit = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        int matched = 0;
        for (int j = 0; j < 4; ++j) {
            if (strcmp(a, k_flags[j]) == 0 && has_value) {
                if (parse_double(a, argv[++i], &k[j]) != 0)
                    return CLI_EXIT_USAGE;
                matched = 1;
            }
        }
        if (matched)
            continue;
        if (strcmp(a, "--depth-scale") == 0 && has_value) {
            if (parse_double(a, argv[++i], &options.depth_scale) != 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(a, "--depth-trunc") == 0 && has_value) {
            if (parse_double(a, argv[++i], &options.depth_trunc) != 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(a, "--stride") == 0 && has_value) {
            char *end = NULL;
            const long s = strtol(argv[++i], &end, 10);
            if (*end != '\0' || s < 1 || s > 65535) {
                fprintf(stderr, "clcompute cloud: --stride needs an integer from 1 to 65535\n");
                return CLI_EXIT_USAGE;
            }
            options.stride = (unsigned)s;
        } else if (strcmp(a, "--color") == 0 && has_value) {
            color_path = argv[++i];
        } else if (strcmp(a, "--device") == 0 && has_value) {
            device = argv[++i];
        } else if (strcmp(a, "--organized") == 0) {
            options.layout = CLC_CLOUD_ORGANIZED;
        } else if (strcmp(a, "--ascii") == 0) {
            ascii = 1;
        } else if (strcmp(a, "--allow-8bit") == 0) {
            allow_8bit = 1;
        } else if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "clcompute cloud: unknown option '%s'\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (!depth_path) {
            depth_path = a;
        } else if (!out_path) {
            out_path = a;
        } else {
            fprintf(stderr, "clcompute cloud: unexpected argument '%s'\n", a);
            return CLI_EXIT_USAGE;
        }
    }
    if (!depth_path || !out_path) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    for (int j = 0; j < 4; ++j) {
        if (isnan(k[j])) {
            fprintf(stderr, "clcompute cloud: %s is required\n", k_flags[j]);
            return CLI_EXIT_USAGE;
        }
    }

    int rc = CLI_EXIT_FAILURE, w = 0, h = 0;
    unsigned char *rgb = NULL;
    float *points = NULL;
    unsigned char *colors = NULL;
    clc_context *ctx = NULL;
    uint16_t *depth = load_depth(depth_path, allow_8bit, &w, &h);
    if (!depth)
        goto done;
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
    const clc_intrinsics intrinsics = {k[0], k[1], k[2], k[3]};
    size_t grid = 0, count = 0;
    if (clc_cloud_grid_size(&ddesc, &options, &grid) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute cloud: %s\n", clc_last_error());
        goto done;
    }
    points = malloc(grid * 12);
    colors = rgb ? malloc(grid * 3) : NULL;
    if (!points || (rgb && !colors)) {
        fprintf(stderr, "clcompute cloud: out of memory for %zu points\n", grid);
        goto done;
    }
    clc_context_options copts = {0};
    copts.device = device;
    if (clc_context_create(&copts, &ctx) != CLC_SUCCESS ||
        clc_depth_to_points(ctx, &ddesc, depth, rgb ? &cdesc : NULL, rgb, &intrinsics, &options,
                            points, colors, grid, &count) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute cloud: %s\n", clc_last_error());
        goto done;
    }
    ply_cloud cloud = {points, colors, count, ascii};
    char error[512];
    if (cli_write_atomic(out_path, write_ply, &cloud, error, sizeof error) != 0) {
        fprintf(stderr, "clcompute cloud: %s\n", error);
        goto done;
    }
    printf("%zu points written to %s\n", count, out_path);
    rc = CLI_EXIT_OK;
done:
    clc_context_destroy(ctx);
    free(points);
    free(colors);
    stbi_image_free(rgb);
    free(depth);
    return rc;
}
