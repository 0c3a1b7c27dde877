/* clcompute cloud DEPTH OUT.ply: a 16-bit depth image (and optional colour image) to a PLY cloud.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "image.h"
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
        "  --color IMAGE      an 8-bit image of the same size colouring the points (with -o: a\n"
        "                     folder of images named as the depth files)\n"
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

/* Intrinsics JSON is read as Python's json module reads it (RFC 8259, without its NaN and
 * Infinity), so that a file is taken only where Python and Open3D would take it too, and read as
 * they read it. A key given twice is refused although both keep the last: a reader that searched
 * for keys here once took the first, and a file that says two things is better fixed than read. */
typedef struct json_text {
    const char *path;
    char *start, *p, *end; /* *end is '\0', for strtod */
} json_text;

#define INTRINSICS_MAX_BYTES (64 * 1024) /* Open3D writes a few hundred */
#define INTRINSICS_MAX_KEYS 64
#define JSON_MAX_DEPTH 64

static void json_fail(const json_text *j, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Says what is wrong and where, as line and column (1-based) of j->p. */
static void json_fail(const json_text *j, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line = 1, column = 1;
    for (const char *q = j->start; q < j->p; ++q, ++column)
        if (*q == '\n')
            ++line, column = 0;
    cli_error("intrinsics '%s', line %d column %d: %s", j->path, line, column, what);
}

static void json_space(json_text *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        ++j->p;
}

/* What is at j->p, for messages: a character, or the end of the file. */
static const char *json_here(const json_text *j, char buf[16])
{
    if (j->p >= j->end)
        return "the end of the file";
    const unsigned char c = (unsigned char)*j->p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static int json_hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        const unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                  : 16u;
        if (d == 16)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* A string at j->p, decoded in place (escapes are never shorter than what they stand for) as
 * UTF-8, so that keys spelt differently ("w\u0069dth") compare as Python compares them. */
static int json_string(json_text *j, char **out, size_t *len)
{
    char *w = ++j->p; /* past the opening quote */
    *out = w;
    for (;;) {
        if (j->p >= j->end) {
            json_fail(j, "a string is not closed");
            return -1;
        }
        const unsigned char c = (unsigned char)*j->p;
        if (c == '"')
            break;
        if (c < 0x20) {
            json_fail(j, "control character 0x%02x in a string", c);
            return -1;
        }
        if (c != '\\') {
            *w++ = *j->p++;
            continue;
        }
        if (j->end - j->p < 2) {
            json_fail(j, "a string is not closed");
            return -1;
        }
        const char e = j->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple) {
            *w++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            j->p += 2;
            continue;
        }
        unsigned u = 0, low = 0;
        if (e != 'u' || j->end - j->p < 6 || json_hex4(j->p + 2, &u) != 0) {
            json_fail(j, "invalid escape in a string");
            return -1;
        }
        j->p += 6;
        if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
            json_hex4(j->p + 2, &low) == 0 && low >= 0xdc00 && low < 0xe000) {
            u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
            j->p += 6;
        }
        if (u < 0x80) {
            *w++ = (char)u;
        } else if (u < 0x800) {
            *w++ = (char)(0xc0 | u >> 6), *w++ = (char)(0x80 | (u & 0x3f));
        } else if (u < 0x10000) {
            *w++ = (char)(0xe0 | u >> 12), *w++ = (char)(0x80 | (u >> 6 & 0x3f));
            *w++ = (char)(0x80 | (u & 0x3f));
        } else {
            *w++ = (char)(0xf0 | u >> 18), *w++ = (char)(0x80 | (u >> 12 & 0x3f));
            *w++ = (char)(0x80 | (u >> 6 & 0x3f)), *w++ = (char)(0x80 | (u & 0x3f));
        }
    }
    *len = (size_t)(w - *out);
    ++j->p;
    return 0;
}

/* A number at j->p as JSON spells one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (no '+',
 * no leading zeros, no '5.' or '.5', no NaN or Infinity). *integer: no fraction or exponent.
 * *text and *text_len: the number as written, for messages. -1, having said nothing, if none is
 * there. */
static int json_number(json_text *j, double *value, int *integer, const char **text, int *text_len)
{
    char *q = j->p;
    if (q < j->end && *q == '-')
        ++q;
    if (q >= j->end || !isdigit((unsigned char)*q))
        return -1;
    if (*q == '0') {
        if (++q < j->end && isdigit((unsigned char)*q))
            return -1; /* 037: Python's json refuses it, JavaScript once read it as octal */
    } else {
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    *integer = 1;
    if (q < j->end && *q == '.') {
        *integer = 0;
        if (++q >= j->end || !isdigit((unsigned char)*q))
            return -1;
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        *integer = 0;
        if (++q < j->end && (*q == '+' || *q == '-'))
            ++q;
        if (q >= j->end || !isdigit((unsigned char)*q))
            return -1;
        while (q < j->end && isdigit((unsigned char)*q))
            ++q;
    }
    /* strtod would read on where JSON stops ("0x10" as hex), so it sees only the number. */
    const char saved = *q;
    *q = '\0';
    *value = strtod(j->p, NULL);
    *q = saved;
    *text = j->p;
    *text_len = (int)(q - j->p);
    j->p = q;
    return 0;
}

/* Any value, read to its end and dropped: those of keys Open3D does not read. */
static int json_skip(json_text *j, int depth)
{
    char buf[16];
    json_space(j);
    if (depth > JSON_MAX_DEPTH) {
        json_fail(j, "nested more than %d deep", JSON_MAX_DEPTH);
        return -1;
    }
    if (j->p < j->end && *j->p == '"') {
        char *s;
        size_t n;
        return json_string(j, &s, &n);
    }
    if (j->p < j->end && (*j->p == '{' || *j->p == '[')) {
        const char close = *j->p == '{' ? '}' : ']';
        ++j->p;
        json_space(j);
        if (j->p < j->end && *j->p == close) {
            ++j->p;
            return 0;
        }
        for (;;) {
            if (close == '}') {
                json_space(j);
                char *s;
                size_t n;
                if (j->p >= j->end || *j->p != '"') {
                    json_fail(j, "a key (a string) expected, not %s", json_here(j, buf));
                    return -1;
                }
                if (json_string(j, &s, &n) != 0)
                    return -1;
                json_space(j);
                if (j->p >= j->end || *j->p != ':') {
                    json_fail(j, "':' expected, not %s", json_here(j, buf));
                    return -1;
                }
                ++j->p;
            }
            if (json_skip(j, depth + 1) != 0)
                return -1;
            json_space(j);
            if (j->p < j->end && *j->p == close) {
                ++j->p;
                return 0;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or '%c' expected, not %s", close, json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    static const char *const words[3] = {"true", "false", "null"};
    for (int i = 0; i < 3; ++i) {
        const size_t n = strlen(words[i]);
        if ((size_t)(j->end - j->p) >= n && memcmp(j->p, words[i], n) == 0) {
            j->p += n;
            return 0;
        }
    }
    double v;
    int integer, len;
    const char *text;
    if (json_number(j, &v, &integer, &text, &len) != 0) {
        json_fail(j, "a value expected, not %s", json_here(j, buf));
        return -1;
    }
    return 0;
}

/* "intrinsic_matrix": exactly nine numbers, column by column. */
static int json_matrix(json_text *j, double m[9])
{
    char buf[16];
    json_space(j);
    if (j->p >= j->end || *j->p != '[') {
        json_fail(j, "\"intrinsic_matrix\" is not a list of nine numbers");
        return -1;
    }
    ++j->p;
    json_space(j);
    int count = 0;
    if (j->p < j->end && *j->p == ']') {
        ++j->p;
    } else {
        for (;;) {
            json_space(j);
            double v;
            int integer, len;
            const char *text;
            if (json_number(j, &v, &integer, &text, &len) != 0) {
                json_fail(j, "element %d of \"intrinsic_matrix\" is not a JSON number", count + 1);
                return -1;
            }
            if (count < 9)
                m[count] = v;
            ++count;
            json_space(j);
            if (j->p < j->end && *j->p == ']') {
                ++j->p;
                break;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or ']' expected in \"intrinsic_matrix\", not %s",
                          json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    if (count != 9) {
        json_fail(j,
                  "\"intrinsic_matrix\" has %d number%s; it must have 9 (the 3 x 3 matrix, "
                  "column by column)",
                  count, count == 1 ? "" : "s");
        return -1;
    }
    return 0;
}

/* "width" or "height": a whole number of pixels. */
static int json_size(json_text *j, const char *key, long long *out)
{
    json_space(j);
    double v;
    int integer, len;
    const char *text;
    char *at = j->p;
    if (json_number(j, &v, &integer, &text, &len) != 0) {
        json_fail(j, "\"%s\" is not a JSON number", key);
        return -1;
    }
    if (!integer || v < 1 || v > INT_MAX) {
        j->p = at;
        json_fail(j, "\"%s\" is %.*s; it must be a whole number of pixels from 1 to %d", key,
                  len > 40 ? 40 : len, text, INT_MAX);
        return -1;
    }
    *out = (long long)v;
    return 0;
}

/* Open3D's PinholeCameraIntrinsic JSON, as o3d.io.write_pinhole_camera_intrinsic writes it:
 * {"width": W, "height": H, "intrinsic_matrix": [9 numbers]}, keys in any order. Keys it does
 * not read are skipped, as Open3D skips them. */
static int json_intrinsics(json_text *j, double m[9], long long *w, long long *h)
{
    char buf[16];
    static const char *const wanted[3] = {"width", "height", "intrinsic_matrix"};
    int found[3] = {0, 0, 0};
    struct {
        const char *s;
        size_t n;
    } keys[INTRINSICS_MAX_KEYS];
    int nkeys = 0;
    ++j->p; /* '{' */
    json_space(j);
    if (j->p < j->end && *j->p == '}')
        ++j->p;
    else {
        for (;;) {
            json_space(j);
            char *key;
            size_t n;
            char *at = j->p;
            if (j->p >= j->end || *j->p != '"') {
                json_fail(j, "a key (a string) expected, not %s", json_here(j, buf));
                return -1;
            }
            if (json_string(j, &key, &n) != 0)
                return -1;
            for (int i = 0; i < nkeys; ++i) {
                if (keys[i].n == n && memcmp(keys[i].s, key, n) == 0) {
                    j->p = at;
                    json_fail(j,
                              "the key \"%.*s\" is given twice; Python's json and Open3D "
                              "would take the last, so which is meant is unclear",
                              (int)(n > 60 ? 60 : n), key);
                    return -1;
                }
            }
            if (nkeys == INTRINSICS_MAX_KEYS) {
                j->p = at;
                json_fail(j, "more than %d keys", INTRINSICS_MAX_KEYS);
                return -1;
            }
            keys[nkeys].s = key, keys[nkeys].n = n, ++nkeys;
            json_space(j);
            if (j->p >= j->end || *j->p != ':') {
                json_fail(j, "':' expected after a key, not %s", json_here(j, buf));
                return -1;
            }
            ++j->p;
            int k = 0;
            while (k < 3 && !(strlen(wanted[k]) == n && memcmp(wanted[k], key, n) == 0))
                ++k;
            const int rc = k == 0   ? json_size(j, "width", w)
                           : k == 1 ? json_size(j, "height", h)
                           : k == 2 ? json_matrix(j, m)
                                    : json_skip(j, 1);
            if (rc != 0)
                return -1;
            if (k < 3)
                found[k] = 1;
            json_space(j);
            if (j->p < j->end && *j->p == '}') {
                ++j->p;
                break;
            }
            if (j->p >= j->end || *j->p != ',') {
                json_fail(j, "',' or '}' expected, not %s", json_here(j, buf));
                return -1;
            }
            ++j->p;
        }
    }
    json_space(j);
    if (j->p < j->end) {
        json_fail(j, "%s after the closing '}'", json_here(j, buf));
        return -1;
    }
    int parameters = 0; /* PinholeCameraParameters keeps the intrinsics under "intrinsic" */
    for (int i = 0; i < nkeys; ++i)
        parameters |= keys[i].n == 9 && memcmp(keys[i].s, "intrinsic", 9) == 0;
    for (int k = 0; k < 3; ++k) {
        if (!found[k]) {
            cli_error("intrinsics '%s' has no \"%s\"; Open3D's PinholeCameraIntrinsic JSON has "
                      "\"width\", \"height\" and \"intrinsic_matrix\"%s",
                      j->path, wanted[k],
                      parameters ? " (this looks like PinholeCameraParameters: save its "
                                   ".intrinsic with o3d.io.write_pinhole_camera_intrinsic)"
                                 : "");
            return -1;
        }
    }
    return 0;
}

/* "fx fy cx cy width height", separated by white space, nothing else. */
static int text_intrinsics(char *text, const char *end, double k[4], long long *w, long long *h)
{
    char *p = text;
    for (int i = 0; i < 6; ++i) {
        char *e = NULL;
        errno = 0;
        if (i < 4)
            k[i] = strtod(p, &e);
        else
            *(i == 4 ? w : h) = strtoll(p, &e, 10);
        if (e == p || (i >= 4 && errno == ERANGE))
            return -1;
        if (e < end && !isspace((unsigned char)*e))
            return -1; /* "37.5" as a width, "1,2", "1-2" */
        p = e;
    }
    while (p < end && isspace((unsigned char)*p))
        ++p;
    return p == end ? 0 : -1; /* a NUL byte is not the end of the file */
}

/* Camera intrinsics from a file: Open3D's PinholeCameraIntrinsic JSON ("width", "height" and a
 * column-major "intrinsic_matrix" [fx, 0, 0, 0, fy, 0, cx, cy, 1]), or plain text
 * "fx fy cx cy width height". 0, or -1 after printing why. */
static int read_intrinsics(const char *path, cloud_job *job)
{
    struct stat st;
    FILE *f = NULL;
    if (stat(path, &st) != 0 || (S_ISREG(st.st_mode) && !(f = fopen(path, "rb")))) {
        cli_error("cannot read intrinsics '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!f) {
        cli_error("cannot read intrinsics '%s': not a regular file", path);
        return -1;
    }
    char *text = malloc(INTRINSICS_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        cli_error("cannot read intrinsics '%s': out of memory", path);
        return -1;
    }
    const size_t n = fread(text, 1, INTRINSICS_MAX_BYTES + 1, f);
    const int failed = ferror(f);
    fclose(f);
    int rc = -1;
    if (failed) {
        cli_error("cannot read intrinsics '%s': a read error", path);
        goto done;
    }
    if (n == 0) {
        cli_error("cannot read intrinsics '%s': the file is empty", path);
        goto done;
    }
    if (n > INTRINSICS_MAX_BYTES) {
        cli_error("intrinsics '%s' is larger than %d KiB; an intrinsics file is a few hundred "
                  "bytes",
                  path, INTRINSICS_MAX_BYTES / 1024);
        goto done;
    }
    text[n] = '\0';
    json_text j = {path, text, text, text + n};
    if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        j.p += 3; /* a UTF-8 byte order mark, as some Windows editors write */
    json_space(&j);
    double m[9] = {0}, fx, fy, cx, cy;
    long long w = 0, h = 0;
    if (j.p < j.end && *j.p == '{') {
        if (json_intrinsics(&j, m, &w, &h) != 0)
            goto done;
        fx = m[0], fy = m[4], cx = m[6], cy = m[7];
    } else {
        double k[4];
        if (text_intrinsics(j.p, j.end, k, &w, &h) != 0) {
            cli_error("'%s' is neither Open3D intrinsics JSON (\"intrinsic_matrix\", \"width\", "
                      "\"height\") nor the six numbers \"fx fy cx cy width height\"",
                      path);
            goto done;
        }
        fx = k[0], fy = k[1], cx = k[2], cy = k[3];
    }
    if (w <= 0 || h <= 0 || w > INT_MAX || h > INT_MAX || !isfinite(fx) || !isfinite(fy) ||
        !isfinite(cx) || !isfinite(cy) || fx == 0 || fy == 0) {
        cli_error("intrinsics '%s': fx %g, fy %g, cx %g, cy %g, %lld x %lld; the focal lengths "
                  "must be finite and non-zero, the principal point finite and the width and "
                  "height from 1 to %d",
                  path, fx, fy, cx, cy, w, h, INT_MAX);
        goto done;
    }
    job->k = (clc_intrinsics){fx, fy, cx, cy};
    job->width = (int)w;
    job->height = (int)h;
    rc = 0;
done:
    free(text);
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
 * --recursive); two with one name are ambiguous. */
static int index_colors(cloud_job *job, cli_batch *colors, const char *folder, int recursive)
{
    struct stat st;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("with -o, --color takes a folder of colour images named as the depth files; "
                  "'%s' is not a folder",
                  folder);
        return -1;
    }
    colors->accept = img_is_image_name;
    colors->kind = "images";
    colors->extensions = IMG_IMAGE_EXTENSIONS;
    colors->recursive = recursive;
    colors->quiet = 1;
    if (cli_batch_path(colors, folder) != 0 || cli_batch_expand(colors) != 0)
        return -1;
    qsort(colors->items, colors->count, sizeof *colors->items, by_rel);
    for (size_t i = 1; i < colors->count; ++i) {
        if (strcmp(colors->items[i - 1].rel, colors->items[i].rel) == 0) {
            cli_error("'%s' and '%s' have the same name; which colours the depth file of that "
                      "name is ambiguous",
                      colors->items[i - 1].path, colors->items[i].path);
            return -1;
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
        if (read_intrinsics(intrinsics, &job) != 0)
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
        if (color_path && index_colors(&job, &colors, color_path, batch.recursive) != 0) {
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
        job.quiet = 1; /* the progress line speaks for the batch */
        const char *ext = !batch.format || strcasecmp(batch.format, "ply") == 0 ? ".ply"
                          : strcasecmp(batch.format, "pcd") == 0                ? ".pcd"
                                                                                : NULL;
        if (!ext) {
            cli_error("--format '%s' is not a point cloud format this tool writes (ply, pcd)",
                      batch.format);
            goto done;
        }
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
    "  cloud DEPTH... -o OUTDIR --intrinsics FILE [--color DIR]\n"
    "                                    many depth images, folders too\n",
    run};
