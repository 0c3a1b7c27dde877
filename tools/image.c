/* Image files through stb: the whole file read once, its format told by its first bytes, decoded
 * from memory; gray written in the format the output's name asks for. */
#include "image.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "cli.h"

static const struct {
    const char *ext;
    img_format format;
} extensions[] = {{"png", IMG_PNG}, {"jpg", IMG_JPEG}, {"jpeg", IMG_JPEG},
                  {"bmp", IMG_BMP}, {"tga", IMG_TGA},  {"pgm", IMG_PNM},
                  {"ppm", IMG_PNM}, {"pnm", IMG_PNM},  {"gif", IMG_GIF}};

const char *img_format_name(img_format format)
{
    static const char *const names[] = {"unknown", "PNG", "JPEG", "BMP", "TGA", "PGM/PPM", "GIF"};
    return names[format];
}

img_format img_format_of_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot)
        return IMG_UNKNOWN;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; ++i)
        if (strcasecmp(dot + 1, extensions[i].ext) == 0)
            return extensions[i].format;
    return IMG_UNKNOWN;
}

int img_writable(img_format format)
{
    return format == IMG_PNG || format == IMG_JPEG || format == IMG_BMP || format == IMG_TGA ||
           format == IMG_PNM;
}

int img_is_image_name(const char *path)
{
    return img_format_of_name(path) != IMG_UNKNOWN;
}

int img_is_depth_name(const char *path)
{
    const img_format f = img_format_of_name(path);
    return f == IMG_PNG || f == IMG_PNM;
}

/* The format the first bytes say; TGA has no signature, so its name decides. */
static img_format sniff(const unsigned char *b, size_t n, const char *path)
{
    if (n >= 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0)
        return IMG_PNG;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        return IMG_JPEG;
    if (n >= 2 && b[0] == 'B' && b[1] == 'M')
        return IMG_BMP;
    if (n >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6')
        return IMG_PNM;
    if (n >= 4 && memcmp(b, "GIF8", 4) == 0)
        return IMG_GIF;
    return img_format_of_name(path) == IMG_TGA ? IMG_TGA : IMG_UNKNOWN;
}

/* The whole file; NULL after a message. */
static unsigned char *read_whole(const char *path, size_t *size)
{
    struct stat st;
    FILE *f = NULL;
    if (stat(path, &st) != 0 || !(f = fopen(path, "rb"))) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("'%s' is a directory, not an image", path);
        fclose(f);
        return NULL;
    }
    /* Read to the end rather than trusting st_size: a pipe or FIFO has none. */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16, n = 0;
    unsigned char *data = malloc(cap);
    while (data) {
        n += fread(data + n, 1, cap - n, f);
        if (n < cap || ferror(f))
            break;
        unsigned char *grown = realloc(data, cap * 2);
        if (!grown) {
            free(data);
            data = NULL;
            break;
        }
        data = grown;
        cap *= 2;
    }
    const int failed = !data || ferror(f);
    const int read_errno = errno;
    fclose(f);
    if (failed) {
        cli_error("cannot read '%s': %s", path, data ? strerror(read_errno) : "out of memory");
        free(data);
        return NULL;
    }
    *size = n;
    return data;
}

int img_read(const char *path, int want_channels, int allow16, img *out)
{
    memset(out, 0, sizeof *out);
    size_t size = 0;
    unsigned char *data = read_whole(path, &size);
    if (!data)
        return -1;
    int rc = -1;
    const img_format format = sniff(data, size, path);
    if (size == 0) {
        cli_error("'%s' is empty, not an image", path);
    } else if (size > INT32_MAX) {
        cli_error("'%s' is larger than 2 GiB; not an image this tool reads", path);
    } else if (format == IMG_UNKNOWN) {
        cli_error("'%s' is not an image this tool reads (PNG, JPEG, BMP, TGA, PGM/PPM, GIF)", path);
    } else {
        const int n = (int)size;
        const int wide = stbi_is_16_bit_from_memory(data, n);
        if (wide && !allow16) {
            cli_error("'%s' has 16-bit channels; only 8-bit images are converted", path);
        } else {
            void *pixels =
                wide ? (void *)stbi_load_16_from_memory(data, n, &out->width, &out->height,
                                                        &out->channels, want_channels)
                     : (void *)stbi_load_from_memory(data, n, &out->width, &out->height,
                                                     &out->channels, want_channels);
            if (!pixels) {
                cli_error("'%s' is a truncated or corrupt %s file (stb says: %s)", path,
                          img_format_name(format), stbi_failure_reason());
            } else {
                out->pixels = pixels;
                out->bits = wide ? 16 : 8;
                if (want_channels)
                    out->channels = want_channels;
                rc = 0;
            }
        }
    }
    free(data);
    return rc;
}

void img_free(img *image)
{
    stbi_image_free(image->pixels);
    memset(image, 0, sizeof *image);
}

typedef struct gray_job {
    img_format format;
    const unsigned char *pixels;
    int width, height;
} gray_job;

static void to_file(void *context, void *data, int size)
{
    if (size > 0)
        fwrite(data, 1, (size_t)size, context);
}

static int write_gray(FILE *out, void *arg)
{
    const gray_job *j = arg;
    switch (j->format) {
    case IMG_PNG:
        return stbi_write_png_to_func(to_file, out, j->width, j->height, 1, j->pixels, j->width)
                   ? 0
                   : -1;
    case IMG_JPEG: /* quality 95, OpenCV's imwrite default */
        return stbi_write_jpg_to_func(to_file, out, j->width, j->height, 1, j->pixels, 95) ? 0 : -1;
    case IMG_BMP:
        return stbi_write_bmp_to_func(to_file, out, j->width, j->height, 1, j->pixels) ? 0 : -1;
    case IMG_TGA:
        return stbi_write_tga_to_func(to_file, out, j->width, j->height, 1, j->pixels) ? 0 : -1;
    case IMG_PNM:
        fprintf(out, "P5\n%d %d\n255\n", j->width, j->height);
        return fwrite(j->pixels, 1, (size_t)j->width * (size_t)j->height, out) ==
                       (size_t)j->width * (size_t)j->height
                   ? 0
                   : -1;
    default:
        return -1;
    }
}

int img_write_gray(const char *path, img_format format, const unsigned char *pixels, int width,
                   int height, char *error, size_t error_size)
{
    if (!img_writable(format)) {
        snprintf(error, error_size, "cannot write '%s': no image format this tool writes (%s)",
                 path, IMG_WRITABLE_LIST);
        return -1;
    }
    gray_job j = {format, pixels, width, height};
    return cli_write_atomic(path, write_gray, &j, error, error_size);
}
