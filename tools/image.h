/* Image files for the tool: which formats a name asks for, reading with a message that names the
 * file and its format, writing 8-bit gray in the format the output's name asks for. */
#ifndef CLCOMPUTE_TOOL_IMAGE_H
#define CLCOMPUTE_TOOL_IMAGE_H

#include <stddef.h>

typedef enum img_format {
    IMG_UNKNOWN = 0,
    IMG_PNG,
    IMG_JPEG,
    IMG_BMP,
    IMG_TGA,
    IMG_PNM, /* PGM (gray) and PPM (colour) */
    IMG_GIF
} img_format;

/* "PNG", "JPEG", ... */
const char *img_format_name(img_format format);

/* The format a file name's extension names (case-insensitive): .png, .jpg/.jpeg, .bmp, .tga,
 * .pgm/.ppm/.pnm, .gif; IMG_UNKNOWN for anything else. */
img_format img_format_of_name(const char *path);

/* The formats an image may be written in (gray, 8 bits): PNG, JPEG, BMP, TGA, PGM. */
int img_writable(img_format format);
#define IMG_WRITABLE_LIST "png, jpg, jpeg, bmp, tga, pgm"

/* Whether a folder entry is an image by its name (a readable format), or a depth image (PNG or
 * PGM). Folder scans use these; files named on the command line are read whatever their name. */
int img_is_image_name(const char *path);
int img_is_depth_name(const char *path);
#define IMG_IMAGE_EXTENSIONS "png, jpg, jpeg, bmp, tga, pgm, ppm, pnm, gif"
#define IMG_DEPTH_EXTENSIONS "png, pgm, pnm"

typedef struct img {
    unsigned char *pixels; /* rows packed; 16-bit samples in host byte order */
    int width, height;
    int channels; /* 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA */
    int bits;     /* 8 or 16 */
} img;

/* Reads and decodes an image file. want_channels 0 keeps the file's channels, else converts to
 * that many; 16-bit files are read as 16 bits with allow16, else refused. 0, or -1 after printing
 * why, naming the file and, for a file that is not whole, its format. */
int img_read(const char *path, int want_channels, int allow16, img *out);
void img_free(img *image);

/* Writes 8-bit gray pixels (rows packed) to path in `format`, whole or not at all; 0, or -1 with
 * the reason in error. */
int img_write_gray(const char *path, img_format format, const unsigned char *pixels, int width,
                   int height, char *error, size_t error_size);

#endif
