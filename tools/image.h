/* Image files for the tool: which formats a name asks for, reading with a message that names the
 * file and its format, writing 8-bit gray in the format the output's name asks for.
 *
 * JPEG goes through libjpeg-turbo (TurboJPEG) with the settings OpenCV's imread uses (accurate
 * integer IDCT, smooth chroma upsampling, the EXIF orientation applied), so that a decoded photo
 * is OpenCV's bit for bit; PNG through libspng, written with OpenCV's imwrite defaults (sub
 * filter, zlib level 1, run-length strategy); PGM/PPM by hand (8 and 16 bits); BMP, TGA and GIF
 * through stb. Files are read whole into a buffer of the calling thread that is reused from one
 * file to the next, and decoded from there into per-thread buffers reused the same way. */
#ifndef CLCOMPUTE_TOOL_IMAGE_H
#define CLCOMPUTE_TOOL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

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

/* The format an output's name asks for, among those gray (8 bits, one channel) is written in:
 * PNG, JPEG, BMP (8-bit palette), TGA, PGM (.pgm, .pnm); IMG_UNKNOWN for any other name. */
img_format img_output_format(const char *path);
#define IMG_WRITABLE_LIST "png, jpg, jpeg, bmp, tga, pgm, pnm"

/* Whether a folder entry is an image by its name (a readable format), or a depth image (PNG, PGM
 * or .npy). Folder scans use these; files named on the command line are read whatever their
 * name. */
int img_is_image_name(const char *path);
int img_is_depth_name(const char *path);
#define IMG_IMAGE_EXTENSIONS "png, jpg, jpeg, bmp, tga, pgm, ppm, pnm, gif"
#define IMG_DEPTH_EXTENSIONS "png, pgm, pnm, npy"

/* Per-thread buffers, kept from one file to the next: reading uses IMG_SLOT_0 and IMG_SLOT_1
 * for pixels (two images of one item at once: depth and colour), the rest are for callers. */
enum { IMG_SLOT_0, IMG_SLOT_1, IMG_OUT_0, IMG_OUT_1, IMG_OUT_2, IMG_SLOTS };
/* A buffer of at least `bytes` of this thread's slot, its contents kept only up to the next call
 * for the same slot; NULL after a message when out of memory. */
void *img_buffer(int slot, size_t bytes);

typedef struct img {
    unsigned char *pixels; /* rows packed; 16-bit samples in host byte order. Borrowed */
    int width, height;
    int channels; /* 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA */
    int bits;     /* 8 or 16 */
} img;

/* Reads and decodes an image file into this thread's `slot`. want_channels 0 keeps the file's
 * channels, 3 converts to 8-bit RGB; 16-bit files are read as 16 bits with allow16 (and
 * want_channels 0), else made 8-bit as OpenCV's imread makes them (each sample's high byte). The
 * pixels stay valid until the next read into the same slot on this thread. 0, or -1 after
 * printing why, naming the file and, for a file that is not whole, its format. */
int img_read(const char *path, int slot, int want_channels, int allow16, img *out);

/* The whole file in this thread's file buffer (valid until the next read on this thread); NULL
 * after a message. Files of more than 2 GiB are refused, before reading when their size is
 * known. */
const unsigned char *img_read_file(const char *path, size_t *size);

/* img_read on a file already read with img_read_file (data, size): the same, without reading it
 * again. */
int img_decode(const char *path, const unsigned char *data, size_t size, int slot,
               int want_channels, int allow16, img *out);

/* Writes 8-bit gray pixels (rows packed) to path in `format`, whole or not at all; 0, or -1 with
 * the reason in error. */
int img_write_gray(const char *path, img_format format, const unsigned char *pixels, int width,
                   int height, char *error, size_t error_size);
/* The same for 16-bit gray (depth images: samples in host byte order), as PNG or PGM. */
int img_write_gray16(const char *path, img_format format, const uint16_t *pixels, int width,
                     int height, char *error, size_t error_size);
#define IMG_WRITABLE16_LIST "png, pgm, pnm"

#endif
