/* Image files: the whole file read once into a per-thread buffer, its format told by its first
 * bytes, decoded by the library the field uses for it into per-thread buffers reused from file to
 * file; gray written in the format the output's name asks for. */
#include "image.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <spng.h>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include <turbojpeg.h>

#include "cli.h"

/* Decoded images above this are refused before any allocation: a header can claim anything. */
#define MAX_DECODED ((size_t)1 << 32)

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

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? dot + 1 : "";
}

img_format img_format_of_name(const char *path)
{
    const char *ext = extension(path);
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; ++i)
        if (strcasecmp(ext, extensions[i].ext) == 0)
            return extensions[i].format;
    return IMG_UNKNOWN;
}

img_format img_output_format(const char *path)
{
    const img_format f = img_format_of_name(path);
    /* Gray is written as PGM: a .ppm name would promise colour. */
    if (f == IMG_PNM && strcasecmp(extension(path), "ppm") == 0)
        return IMG_UNKNOWN;
    return f == IMG_GIF ? IMG_UNKNOWN : f;
}

int img_is_image_name(const char *path)
{
    return img_format_of_name(path) != IMG_UNKNOWN;
}

int img_is_depth_name(const char *path)
{
    const img_format f = img_format_of_name(path);
    return f == IMG_PNG || f == IMG_PNM || strcasecmp(extension(path), "npy") == 0;
}

/* ---- per-thread buffers ---- */

typedef struct buffer {
    unsigned char *data;
    size_t capacity;
} buffer;

typedef struct scratch {
    buffer slots[IMG_SLOTS];
    buffer file, turn, encoded; /* file bytes; an image being reoriented; a compressed output */
    tjhandle decoder, encoder;
} scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
    scratch *s = p;
    for (int i = 0; i < IMG_SLOTS; ++i)
        free(s->slots[i].data);
    free(s->file.data);
    free(s->turn.data);
    tjFree(s->encoded.data);
    if (s->decoder)
        tjDestroy(s->decoder);
    if (s->encoder)
        tjDestroy(s->encoder);
    free(s);
}

static void scratch_key_make(void)
{
    pthread_key_create(&scratch_key, scratch_free);
}

/* This thread's buffers (freed when it ends); NULL when out of memory. */
static scratch *this_thread(void)
{
    pthread_once(&scratch_once, scratch_key_make);
    scratch *s = pthread_getspecific(scratch_key);
    if (!s && (s = calloc(1, sizeof *s)) != NULL && pthread_setspecific(scratch_key, s) != 0) {
        free(s);
        s = NULL;
    }
    return s;
}

static unsigned char *grow(buffer *b, size_t bytes)
{
    if (bytes > b->capacity) {
        unsigned char *data = realloc(b->data, bytes);
        if (!data)
            return NULL;
        b->data = data;
        b->capacity = bytes;
    }
    return b->data;
}

void *img_buffer(int slot, size_t bytes)
{
    scratch *s = this_thread();
    unsigned char *p = s ? grow(&s->slots[slot], bytes ? bytes : 1) : NULL;
    if (!p)
        cli_error("out of memory for %zu bytes", bytes);
    return p;
}

/* ---- reading ---- */

static const unsigned char *read_file(const char *path, size_t *size);

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

const unsigned char *img_read_file(const char *path, size_t *size)
{
    const unsigned long long t0 = cli_now_ns();
    const unsigned char *data = read_file(path, size);
    cli_stage_add(CLI_STAGE_READ, t0);
    return data;
}

static const unsigned char *read_file(const char *path, size_t *size)
{
    scratch *s = this_thread();
    struct stat st;
    FILE *f = NULL;
    if (!s) {
        cli_error("out of memory");
        return NULL;
    }
    if (stat(path, &st) != 0 || !(f = fopen(path, "rb"))) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("'%s' is a directory, not a file to read", path);
        fclose(f);
        return NULL;
    }
    /* No image this tool reads is 2 GiB or larger (the decoders take int sizes): such a file is
     * refused unread, and a pipe or device is read no further. A .npy array (its magic first)
     * may be larger: its reader takes sizes as size_t. */
    const unsigned char *head = grow(&s->file, 16);
    size_t n = head ? fread(s->file.data, 1, 6, f) : 0;
    const int npy = n == 6 && memcmp(s->file.data, "\x93NUMPY", 6) == 0;
    const size_t most = npy ? SIZE_MAX / 2 : (size_t)INT32_MAX;
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > most) {
        fclose(f);
        cli_error("'%s' is 2 GiB or larger; not an image this tool reads", path);
        return NULL;
    }
    /* Read to the end rather than trusting st_size: a pipe or FIFO has none. */
    size_t want = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16;
    int failed = !head ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
    for (int more = !failed && n == 6; more;) { /* else it ended within its first bytes */
        if (!grow(&s->file, want)) {
            failed = ENOMEM;
            break;
        }
        n += fread(s->file.data + n, 1, s->file.capacity - n, f);
        if (ferror(f)) {
            failed = errno ? errno : EIO;
            break;
        }
        more = n == s->file.capacity && n <= most;
        want = s->file.capacity * 2 < most + 1 ? s->file.capacity * 2 : most + 1;
    }
    fclose(f);
    if (!failed && n > most) {
        cli_error("'%s' is 2 GiB or larger; not an image this tool reads", path);
        return NULL;
    }
    if (failed) {
        cli_error("cannot read '%s': %s", path, strerror(failed));
        return NULL;
    }
    *size = n;
    return s->file.data;
}

/* EXIF orientation (1 to 8) of a JPEG, 1 when it has none: the APP1 "Exif" segment's TIFF IFD0
 * entry 0x0112, read with every offset checked. */
static int exif_orientation(const unsigned char *b, size_t n)
{
    size_t p = 2;
    while (p + 4 <= n && b[p] == 0xFF) {
        const unsigned marker = b[p + 1];
        if (marker == 0xDA || marker == 0xD9) /* start of scan, end of image */
            break;
        const size_t len = (size_t)b[p + 2] << 8 | b[p + 3];
        if (len < 2 || p + 2 + len > n)
            break;
        const unsigned char *seg = b + p + 4;
        const size_t slen = len - 2;
        if (marker == 0xE1 && slen >= 14 && memcmp(seg, "Exif\0\0", 6) == 0) {
            const unsigned char *t = seg + 6;
            const size_t tlen = slen - 6;
            const int le = t[0] == 'I' && t[1] == 'I';
            if (!le && !(t[0] == 'M' && t[1] == 'M'))
                return 1;
#define U16(q) (le ? (unsigned)(q)[0] | (unsigned)(q)[1] << 8 : (unsigned)(q)[0] << 8 | (q)[1])
#define U32(q)                                                                                     \
    (le ? (size_t)U16(q) | (size_t)U16((q) + 2) << 16 : (size_t)U16(q) << 16 | U16((q) + 2))
            const size_t ifd = U32(t + 4);
            if (ifd + 2 > tlen)
                return 1;
            const unsigned entries = U16(t + ifd);
            for (unsigned e = 0; e < entries; ++e) {
                const size_t at = ifd + 2 + 12 * (size_t)e;
                if (at + 12 > tlen)
                    return 1;
                if (U16(t + at) == 0x0112 && U16(t + at + 2) == 3) {
                    const unsigned v = U16(t + at + 8);
                    return v >= 1 && v <= 8 ? (int)v : 1;
                }
            }
#undef U16
#undef U32
            return 1;
        }
        p += 2 + len;
    }
    return 1;
}

/* Applies EXIF orientation o to an image in slot's buffer, as OpenCV's imread does: a transpose
 * for 5 to 8, then a horizontal flip for 2 and 6, both flips for 3 and 7, a vertical one for 4
 * and 8. */
static int orient(scratch *s, int slot, img *im, int o)
{
    if (o == 1)
        return 0;
    const size_t px = (size_t)im->channels * (size_t)(im->bits / 8);
    const size_t bytes = (size_t)im->width * (size_t)im->height * px;
    if (!grow(&s->turn, bytes)) {
        cli_error("out of memory");
        return -1;
    }
    const int w = o >= 5 ? im->height : im->width, h = o >= 5 ? im->width : im->height;
    const int hflip = o == 2 || o == 3 || o == 6 || o == 7, vflip = o == 3 || o == 4 || o >= 7;
    for (int y = 0; y < h; ++y) {
        const int v = vflip ? h - 1 - y : y;
        for (int x = 0; x < w; ++x) {
            const int u = hflip ? w - 1 - x : x;
            /* (u, v) in the transposed image is (v, u) in the decoded one. */
            const size_t from = o >= 5 ? (size_t)u * (size_t)im->width + (size_t)v
                                       : (size_t)v * (size_t)im->width + (size_t)u;
            memcpy(s->turn.data + ((size_t)y * (size_t)w + (size_t)x) * px, im->pixels + from * px,
                   px);
        }
    }
    /* The slot takes the turned image; its old buffer becomes the next turn's. */
    buffer t = s->turn;
    s->turn = s->slots[slot];
    s->slots[slot] = t;
    im->pixels = t.data;
    im->width = w;
    im->height = h;
    return 0;
}

static int too_large(const char *path, size_t w, size_t h, size_t px)
{
    if (w && h && px && w <= MAX_DECODED / h / px)
        return 0;
    if (!w || !h)
        cli_error("'%s' declares %zu x %zu pixels: a truncated or corrupt header", path, w, h);
    else
        cli_error("'%s' declares %zu x %zu pixels; too large an image (or a corrupt header)", path,
                  w, h);
    return 1;
}

static int decode_jpeg(scratch *s, int slot, const char *path, const unsigned char *data,
                       size_t size, int want, img *out)
{
    if (!s->decoder && !(s->decoder = tjInitDecompress())) {
        cli_error("libjpeg-turbo: %s", tjGetErrorStr2(NULL));
        return -1;
    }
    int w = 0, h = 0, sub = 0, space = 0;
    if (tjDecompressHeader3(s->decoder, data, (unsigned long)size, &w, &h, &sub, &space) != 0) {
        cli_error("'%s' is a truncated or corrupt JPEG file (libjpeg-turbo says: %s)", path,
                  tjGetErrorStr2(s->decoder));
        return -1;
    }
    const int cmyk = space == TJCS_CMYK || space == TJCS_YCCK;
    /* A gray JPEG stays gray unless RGB is asked for: OpenCV's BGR copy of it has three equal
     * channels, which convert back to the same gray. CMYK (and Adobe's YCCK) becomes RGB. */
    const int channels = want ? want : space == TJCS_GRAY ? 1 : 3;
    if (cmyk && channels != 3) {
        cli_error("'%s' is a CMYK JPEG; it is read as colour, not as one channel", path);
        return -1;
    }
    if (too_large(path, (size_t)w, (size_t)h, (size_t)(cmyk ? 4 : channels)))
        return -1;
    unsigned char *pixels =
        grow(&s->slots[slot], (size_t)w * (size_t)h * (size_t)(cmyk ? 4 : channels));
    if (!pixels) {
        cli_error("out of memory for %d x %d pixels", w, h);
        return -1;
    }
    /* Flags 0: the accurate integer IDCT and smooth upsampling, libjpeg's defaults, which
     * OpenCV's imread keeps. A warning (a truncated file) is a failure here, not a gray band. */
    if (tjDecompress2(s->decoder, data, (unsigned long)size, pixels, w, 0, h,
                      cmyk            ? TJPF_CMYK
                      : channels == 1 ? TJPF_GRAY
                                      : TJPF_RGB,
                      TJFLAG_STOPONWARNING) != 0) {
        cli_error("'%s' is a truncated or corrupt JPEG file (libjpeg-turbo says: %s)", path,
                  tjGetErrorStr2(s->decoder));
        return -1;
    }
    if (cmyk) /* in place: pixel i's three bytes end before its four begin */
        for (size_t i = 0, n = (size_t)w * (size_t)h; i < n; ++i) {
            /* OpenCV's imread (icvCvt_CMYK2BGR_8u_C4C3R): inverted (Adobe) CMYK as JPEGs hold
             * it, each ink scaled by K with a shift, not a division by 255. */
            const unsigned char *q = pixels + 4 * i;
            const int k = q[3];
            const int r = k - ((255 - q[0]) * k >> 8), g = k - ((255 - q[1]) * k >> 8),
                      b = k - ((255 - q[2]) * k >> 8);
            pixels[3 * i] = (unsigned char)r;
            pixels[3 * i + 1] = (unsigned char)g;
            pixels[3 * i + 2] = (unsigned char)b;
        }
    *out = (img){pixels, w, h, channels, 8};
    return orient(s, slot, out, exif_orientation(data, size));
}

/* A 16-bit image (samples in host byte order, the file's channels) in `slot` made 8-bit in place
 * as OpenCV's imread makes it for an 8-bit result: each sample's high byte (v >> 8, whatever a
 * PGM/PPM's maxval), alpha dropped; gray stays gray unless `want` is 3 (RGB), and gray + alpha
 * stays two channels, as the 8-bit decoders leave them. Gray to RGB grows the slot (3 bytes a
 * pixel from 2) and is then done from the last pixel back, so that no write lands on a sample not
 * yet read; every other result is no larger than its input and is done from the first. 0, or -1
 * after a message. */
static int narrow(scratch *s, int slot, const char *path, img *im, int want)
{
    const size_t from = (size_t)im->channels;
    const size_t to = want == 3 ? 3 : from == 4 ? 3 : from;
    const size_t count = (size_t)im->width * (size_t)im->height;
    const int back = to > 2 * from;
    if (back) {
        if (too_large(path, (size_t)im->width, (size_t)im->height, to))
            return -1;
        if (!(im->pixels = grow(&s->slots[slot], count * to))) {
            cli_error("out of memory for %d x %d pixels", im->width, im->height);
            return -1;
        }
    }
    const uint16_t *in = (const uint16_t *)(void *)im->pixels;
    for (size_t n = 0; n < count; ++n) {
        const size_t i = back ? count - 1 - n : n;
        uint16_t v[3];
        for (size_t c = 0; c < to; ++c)
            v[c] = in[i * from + (from < 3 && to == 3 ? 0 : c)];
        for (size_t c = 0; c < to; ++c)
            im->pixels[i * to + c] = (unsigned char)(v[c] >> 8);
    }
    im->channels = (int)to;
    im->bits = 8;
    return 0;
}

/* Whether the chunks, walked from the signature, reach a whole IEND. libspng accepts a file cut
 * inside IEND's CRC, which libpng (imread) refuses; IEND is empty, so its 12 bytes are fixed.
 * The chunks before it have passed libspng's checks by now. */
static int whole_iend(const unsigned char *b, size_t n)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    size_t p = 8;
    while (p <= n && n - p >= 12) {
        if (memcmp(b + p + 4, "IEND", 4) == 0)
            return memcmp(b + p, iend, sizeof iend) == 0;
        const size_t length =
            (size_t)b[p] << 24 | (size_t)b[p + 1] << 16 | (size_t)b[p + 2] << 8 | b[p + 3];
        if (length > n - p - 12)
            return 0;
        p += 12 + length;
    }
    return 0;
}

static int decode_png(scratch *s, int slot, const char *path, const unsigned char *data,
                      size_t size, int want, img *out)
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    int rc = -1, err = 0;
    if (!ctx) {
        cli_error("out of memory");
        return -1;
    }
    spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_ERROR);
    if ((err = spng_set_png_buffer(ctx, data, size)) != 0 || (err = spng_get_ihdr(ctx, &ihdr))) {
        cli_error("'%s' is a truncated or corrupt PNG file (libspng says: %s)", path,
                  spng_strerror(err));
        goto done;
    }
    const int wide = ihdr.bit_depth == 16;
    const int gray = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE ||
                     ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
    /* What OpenCV's imread gives, alpha aside: gray stays gray (alpha dropped), anything else
     * becomes RGB (palettes expanded, alpha dropped); 16-bit is decoded as it is (decode()
     * narrows it where 8 bits are wanted). */
    int fmt, channels;
    if (wide) {
        fmt = SPNG_FMT_PNG;
        channels = gray ? (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE ? 1 : 2)
                        : (ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR ? 3 : 4);
    } else if (want == 3) {
        fmt = SPNG_FMT_RGB8, channels = 3;
    } else if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE) {
        /* G8 expands 1, 2 and 4-bit gray; 8-bit gray is the file's own format. */
        fmt = ihdr.bit_depth < 8 ? SPNG_FMT_G8 : SPNG_FMT_PNG, channels = 1;
    } else if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA) {
        fmt = SPNG_FMT_PNG, channels = 2; /* 8-bit gray + alpha: libspng 0.7 has no GA8 */
    } else {
        fmt = SPNG_FMT_RGB8, channels = 3;
    }
    size_t bytes = 0;
    if (too_large(path, ihdr.width, ihdr.height, (size_t)channels * (wide ? 2 : 1)))
        goto done;
    if ((err = spng_decoded_image_size(ctx, fmt, &bytes)) != 0) {
        cli_error("'%s': libspng cannot decode this PNG as needed (%s)", path, spng_strerror(err));
        goto done;
    }
    unsigned char *pixels = grow(&s->slots[slot], bytes);
    if (!pixels) {
        cli_error("out of memory for %u x %u pixels", ihdr.width, ihdr.height);
        goto done;
    }
    /* The chunks after the image too, up to IEND: libspng stops reading once the pixels are
     * inflated, so a bad CRC of the last IDAT would pass unseen, where libpng (OpenCV's imread)
     * refuses it. */
    if ((err = spng_decode_image(ctx, pixels, bytes, fmt, 0)) != 0 ||
        (err = spng_decode_chunks(ctx)) != 0) {
        cli_error("'%s' is a truncated or corrupt PNG file (libspng says: %s)", path,
                  spng_strerror(err));
        goto done;
    }
    if (!whole_iend(data, size)) {
        cli_error("'%s' is a truncated or corrupt PNG file (its IEND chunk is cut or damaged)",
                  path);
        goto done;
    }
    *out = (img){pixels, (int)ihdr.width, (int)ihdr.height, channels, wide ? 16 : 8};
    rc = 0;
done:
    spng_ctx_free(ctx);
    return rc;
}

/* A PNM header number: whitespace and comments skipped. */
static int pnm_number(const unsigned char *b, size_t n, size_t *p, unsigned long *v)
{
    for (;;) {
        while (*p < n && (b[*p] == ' ' || b[*p] == '\t' || b[*p] == '\r' || b[*p] == '\n'))
            ++*p;
        if (*p < n && b[*p] == '#') {
            while (*p < n && b[*p] != '\n')
                ++*p;
            continue;
        }
        break;
    }
    if (*p >= n || b[*p] < '0' || b[*p] > '9')
        return -1;
    *v = 0;
    while (*p < n && b[*p] >= '0' && b[*p] <= '9') {
        if (*v > 100000000)
            return -1;
        *v = *v * 10 + (unsigned long)(b[*p] - '0');
        ++*p;
    }
    return 0;
}

/* Binary PGM (P5) and PPM (P6), 8 or 16 bits (big-endian in the file, as the format says). */
static int decode_pnm(scratch *s, int slot, const char *path, const unsigned char *b, size_t n,
                      int want, img *out)
{
    size_t p = 2;
    unsigned long w = 0, h = 0, maxval = 0;
    if (b[1] != '5' && b[1] != '6') { /* sniff() saw P1 to P6 */
        cli_error("'%s' is a P%c file (%s); this tool reads binary PGM/PPM (P5, P6)", path, b[1],
                  b[1] == '1' || b[1] == '4' ? "a PBM bitmap" : "ASCII PGM/PPM");
        return -1;
    }
    if (pnm_number(b, n, &p, &w) || pnm_number(b, n, &p, &h) || pnm_number(b, n, &p, &maxval) ||
        p >= n) {
        cli_error("'%s' is a truncated or corrupt PGM/PPM file: its header does not give width, "
                  "height and maxval, or gives one too large to read",
                  path);
        return -1;
    }
    if (w == 0 || h == 0 || maxval == 0 || maxval > 65535) {
        cli_error("'%s' is a corrupt PGM/PPM file: %lu x %lu pixels, maxval %lu (maxval must be 1 "
                  "to 65535, the sizes at least 1)",
                  path, w, h, maxval);
        return -1;
    }
    ++p; /* the single whitespace byte after maxval */
    /* 16-bit samples stay 16-bit, the file's channels (decode() narrows them where 8 bits are
     * wanted); 8-bit gray becomes RGB where RGB is wanted. */
    const int channels = b[1] == '5' ? 1 : 3, wide = maxval > 255;
    const int out_channels = want == 3 && !wide ? 3 : channels;
    const size_t sample = wide ? 2 : 1, out_px = (size_t)out_channels * sample;
    if (too_large(path, w, h, out_px))
        return -1;
    const size_t count = (size_t)w * h * (size_t)channels;
    if (n - p < count * sample) {
        cli_error("'%s' is a truncated or corrupt PGM/PPM file (%zu bytes of pixels, %zu needed)",
                  path, n - p, count * sample);
        return -1;
    }
    unsigned char *pixels = grow(&s->slots[slot], (size_t)w * h * out_px);
    if (!pixels) {
        cli_error("out of memory for %lu x %lu pixels", w, h);
        return -1;
    }
    /* Values are taken as they are, whatever maxval says (the format calls them fractions of
     * it): depth's are sensor units, and OpenCV's imread, whose results gray matches, reads an
     * 8-bit file's bytes unscaled too. */
    for (size_t i = 0; i < count; ++i) {
        const unsigned v = wide ? (unsigned)b[p + 2 * i] << 8 | b[p + 2 * i + 1] : b[p + i];
        if (v > maxval) {
            cli_error("'%s' is a corrupt PGM/PPM file: a value of %u above its maxval %lu", path, v,
                      maxval);
            return -1;
        }
        if (wide) {
            ((uint16_t *)(void *)pixels)[i] = (uint16_t)v;
        } else {
            const unsigned char c = (unsigned char)v;
            if (out_channels == channels)
                pixels[i] = c;
            else
                pixels[3 * i] = pixels[3 * i + 1] = pixels[3 * i + 2] = c;
        }
    }
    *out = (img){pixels, (int)w, (int)h, out_channels, wide ? 16 : 8};
    return 0;
}

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

/* Whether a BMP, TGA or GIF holds all the bytes its header announces. stb reads zeros past the
 * end of its input rather than failing, so a cut file would decode to garbage with success. */
static int whole(img_format format, const unsigned char *b, size_t n)
{
    if (format == IMG_GIF) /* the trailer byte ends every GIF */
        return n > 13 && b[n - 1] == 0x3B;
    if (format == IMG_BMP) {
        if (n < 54)
            return 0;
        const uint32_t offset = le32(b + 10), header = le32(b + 14);
        if (header < 40) { /* OS/2 1.x: 16-bit width, height, planes, bits; no compression */
            const size_t row = ((size_t)le16(b + 18) * le16(b + 24) + 31) / 32 * 4;
            return n >= (size_t)offset && n - offset >= row * le16(b + 20);
        }
        const int32_t w = (int32_t)le32(b + 18), h = (int32_t)le32(b + 22);
        const unsigned bits = le16(b + 28), compression = (unsigned)le32(b + 30);
        if (compression == 1 || compression == 2) /* RLE: its own end marker */
            return n >= (size_t)offset + 2 && b[n - 2] == 0 && b[n - 1] == 1;
        const uint64_t row = ((uint64_t)(w < 0 ? -(int64_t)w : w) * bits + 31) / 32 * 4;
        const uint64_t rows = (uint64_t)(h < 0 ? -(int64_t)h : h);
        return (uint64_t)n >= offset && (uint64_t)n - offset >= row * rows;
    }
    /* TGA: an 18-byte header, an ID, a colour map, then the pixels, run-length or not. */
    if (n < 18)
        return 0;
    const size_t id = b[0], map = b[1] ? (size_t)le16(b + 5) * ((b[7] + 7u) / 8u) : 0;
    const size_t w = le16(b + 12), h = le16(b + 14), px = (b[16] + 7u) / 8u, type = b[2];
    size_t p = 18 + id + map, left = w * h;
    if (type >= 1 && type <= 3)
        return p <= n && n - p >= left * px;
    while (left > 0 && p < n) { /* packets: a count, then one pixel repeated or `count` pixels */
        const size_t count = (b[p] & 0x7Fu) + 1u, bytes = b[p] & 0x80 ? px : count * px;
        p += 1 + bytes;
        left -= count < left ? count : left;
    }
    return left == 0 && p <= n;
}

/* BMP, TGA and GIF: stb decodes, the slot keeps a copy. */
static int decode_stb(scratch *s, int slot, const char *path, img_format format,
                      const unsigned char *data, size_t size, int want, img *out)
{
    if (!whole(format, data, size)) {
        cli_error("'%s' is a truncated or corrupt %s file (shorter than its header says)", path,
                  img_format_name(format));
        return -1;
    }
    int w = 0, h = 0, channels = 0;
    unsigned char *pixels = stbi_load_from_memory(data, (int)size, &w, &h, &channels, want);
    if (!pixels) {
        cli_error("'%s' is a truncated or corrupt %s file (stb says: %s)", path,
                  img_format_name(format), stbi_failure_reason());
        return -1;
    }
    channels = want ? want : channels;
    if (too_large(path, (size_t)w, (size_t)h, (size_t)channels)) { /* stb takes 0 x 0 */
        stbi_image_free(pixels);
        return -1;
    }
    const size_t bytes = (size_t)w * (size_t)h * (size_t)channels;
    unsigned char *copy = grow(&s->slots[slot], bytes);
    if (copy)
        memcpy(copy, pixels, bytes);
    stbi_image_free(pixels);
    if (!copy) {
        cli_error("out of memory for %d x %d pixels", w, h);
        return -1;
    }
    *out = (img){copy, w, h, channels, 8};
    return 0;
}

static int decode(scratch *s, const char *path, const unsigned char *data, size_t size, int slot,
                  int want_channels, int allow16, img *out);

int img_read(const char *path, int slot, int want_channels, int allow16, img *out)
{
    memset(out, 0, sizeof *out);
    size_t size = 0;
    const unsigned char *data = img_read_file(path, &size);
    return data ? img_decode(path, data, size, slot, want_channels, allow16, out) : -1;
}

int img_decode(const char *path, const unsigned char *data, size_t size, int slot,
               int want_channels, int allow16, img *out)
{
    memset(out, 0, sizeof *out);
    scratch *s = this_thread();
    if (!s)
        return -1;
    const unsigned long long t0 = cli_now_ns();
    const int rc = decode(s, path, data, size, slot, want_channels, allow16, out);
    cli_stage_add(CLI_STAGE_DECODE, t0);
    return rc;
}

static int decode(scratch *s, const char *path, const unsigned char *data, size_t size, int slot,
                  int want_channels, int allow16, img *out)
{
    const img_format format = sniff(data, size, path);
    if (size == 0) {
        cli_error("'%s' is empty, not an image", path);
        return -1;
    }
    if (size > INT32_MAX) {
        cli_error("'%s' is larger than 2 GiB; not an image this tool reads", path);
        return -1;
    }
    switch (format) {
    case IMG_JPEG:
        return decode_jpeg(s, slot, path, data, size, want_channels, out);
    case IMG_PNG:
    case IMG_PNM: {
        /* Their 16-bit files come back as 16 bits: kept for allow16 (depth), else narrowed here,
         * once for both, as imread narrows them. */
        const int rc = format == IMG_PNG
                           ? decode_png(s, slot, path, data, size, want_channels, out)
                           : decode_pnm(s, slot, path, data, size, want_channels, out);
        if (rc != 0 || out->bits != 16 || (allow16 && want_channels != 3))
            return rc;
        return narrow(s, slot, path, out, want_channels);
    }
    case IMG_BMP:
    case IMG_TGA:
    case IMG_GIF:
        return decode_stb(s, slot, path, format, data, size, want_channels, out);
    default:
        cli_error("'%s' is not an image this tool reads (PNG, JPEG, BMP, TGA, PGM/PPM, GIF)", path);
        return -1;
    }
}

/* ---- writing ---- */

typedef struct encoded {
    const unsigned char *data;
    size_t size;
} encoded;

static int write_encoded(FILE *out, void *arg)
{
    const encoded *e = arg;
    return fwrite(e->data, 1, e->size, out) == e->size ? 0 : -1;
}

typedef struct raw_gray {
    img_format format;
    const unsigned char *pixels;
    int width, height;
    int bits; /* 8, or 16 (host byte order) for PGM */
} raw_gray;

static void to_file(void *context, void *data, int size)
{
    if (size > 0)
        fwrite(data, 1, (size_t)size, context);
}

static int write_raw(FILE *out, void *arg)
{
    const raw_gray *j = arg;
    const size_t bytes = (size_t)j->width * (size_t)j->height;
    switch (j->format) {
    case IMG_BMP: {
        /* 8 bits a pixel with a gray palette, rows bottom-up and padded to 4 bytes. */
        const size_t row = ((size_t)j->width + 3) / 4 * 4, offset = 14 + 40 + 1024;
        unsigned char h[14 + 40 + 1024] = {'B', 'M'};
        const uint64_t total = offset + row * (uint64_t)j->height;
        if (total > UINT32_MAX)
            return -1;
        for (int i = 0; i < 4; ++i) {
            h[2 + i] = (unsigned char)(total >> (8 * i));
            h[10 + i] = (unsigned char)(offset >> (8 * i));
            h[18 + i] = (unsigned char)((uint32_t)j->width >> (8 * i));
            h[22 + i] = (unsigned char)((uint32_t)j->height >> (8 * i));
            h[34 + i] = (unsigned char)((row * (uint64_t)j->height) >> (8 * i));
        }
        h[14] = 40, h[26] = 1, h[28] = 8, h[47] = 1; /* header size, planes, bits, 256 colours */
        for (int c = 0; c < 256; ++c)
            h[54 + 4 * c] = h[55 + 4 * c] = h[56 + 4 * c] = (unsigned char)c;
        static const unsigned char pad[3] = {0, 0, 0};
        if (fwrite(h, 1, sizeof h, out) != sizeof h)
            return -1;
        for (int y = j->height - 1; y >= 0; --y)
            if (fwrite(j->pixels + (size_t)y * (size_t)j->width, 1, (size_t)j->width, out) !=
                    (size_t)j->width ||
                fwrite(pad, 1, row - (size_t)j->width, out) != row - (size_t)j->width)
                return -1;
        return 0;
    }
    case IMG_TGA:
        return stbi_write_tga_to_func(to_file, out, j->width, j->height, 1, j->pixels) ? 0 : -1;
    default: /* PGM: 16-bit samples big-endian, as the format says */
        fprintf(out, "P5\n%d %d\n%d\n", j->width, j->height, j->bits == 16 ? 65535 : 255);
        if (j->bits == 8)
            return fwrite(j->pixels, 1, bytes, out) == bytes ? 0 : -1;
        for (size_t i = 0; i < bytes; ++i) {
            uint16_t v;
            memcpy(&v, j->pixels + 2 * i, 2);
            if (putc(v >> 8, out) == EOF || putc(v & 255, out) == EOF)
                return -1;
        }
        return 0;
    }
}

/* PNG as OpenCV's imwrite writes it by default: sub filter, zlib level 1, run-length strategy
 * (fast, and the same bytes of image data as OpenCV's). */
static int encode_png(const unsigned char *pixels, int w, int h, int bits, void **png, size_t *size,
                      char *error, size_t error_size)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    int err = ctx ? 0 : SPNG_EMEM;
    struct spng_ihdr ihdr = {
        (uint32_t)w, (uint32_t)h, (uint8_t)bits, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, 0};
    if (!err)
        err = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (!err)
        err = spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_SUB);
    if (!err)
        err = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, 1);
    if (!err)
        err = spng_set_option(ctx, SPNG_IMG_COMPRESSION_STRATEGY, 3 /* Z_RLE */);
    if (!err)
        err = spng_set_ihdr(ctx, &ihdr);
    if (!err)
        err = spng_encode_image(ctx, pixels, (size_t)w * (size_t)h * (size_t)(bits / 8),
                                SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE); /* host byte order */
    *png = err ? NULL : spng_get_png_buffer(ctx, size, &err);
    if (err)
        snprintf(error, error_size, "libspng cannot encode the PNG: %s", spng_strerror(err));
    spng_ctx_free(ctx);
    return err ? -1 : 0;
}

/* Encodes (timed as the encode stage) and writes a gray PNG of 8 or 16 bits. */
static int write_png(const char *path, const unsigned char *pixels, int width, int height, int bits,
                     char *error, size_t error_size)
{
    const unsigned long long t0 = cli_now_ns();
    void *png = NULL;
    size_t size = 0;
    const int encoded_ok = encode_png(pixels, width, height, bits, &png, &size, error, error_size);
    cli_stage_add(CLI_STAGE_ENCODE, t0);
    if (encoded_ok != 0)
        return -1;
    encoded e = {png, size};
    const int rc = cli_write_atomic(path, write_encoded, &e, error, error_size);
    free(png);
    return rc;
}

int img_write_gray16(const char *path, img_format format, const uint16_t *pixels, int width,
                     int height, char *error, size_t error_size)
{
    if (format != IMG_PNG && format != IMG_PNM) {
        snprintf(error, error_size, "cannot write '%s': 16-bit images are written as %s", path,
                 IMG_WRITABLE16_LIST);
        return -1;
    }
    const unsigned char *bytes = (const unsigned char *)pixels;
    if (format == IMG_PNG)
        return write_png(path, bytes, width, height, 16, error, error_size);
    raw_gray j = {format, bytes, width, height, 16};
    return cli_write_atomic(path, write_raw, &j, error, error_size);
}

int img_write_gray(const char *path, img_format format, const unsigned char *pixels, int width,
                   int height, char *error, size_t error_size)
{
    if (format == IMG_UNKNOWN || format == IMG_GIF) {
        snprintf(error, error_size, "cannot write '%s': no image format this tool writes (%s)",
                 path, IMG_WRITABLE_LIST);
        return -1;
    }
    if (format == IMG_PNG)
        return write_png(path, pixels, width, height, 8, error, error_size);
    const unsigned long long t0 = cli_now_ns();
    if (format == IMG_JPEG) {
        scratch *s = this_thread();
        if (!s || (!s->encoder && !(s->encoder = tjInitCompress()))) {
            snprintf(error, error_size, "libjpeg-turbo: %s", tjGetErrorStr2(NULL));
            return -1;
        }
        /* Quality 95, OpenCV's imwrite default; the buffer is kept for the next file. */
        unsigned long size = tjBufSize(width, height, TJSAMP_GRAY);
        if (size > s->encoded.capacity) {
            tjFree(s->encoded.data);
            s->encoded.data = tjAlloc((int)size);
            s->encoded.capacity = s->encoded.data ? size : 0;
        }
        size = s->encoded.capacity;
        const int failed = !s->encoded.data || tjCompress2(s->encoder, pixels, width, 0, height,
                                                           TJPF_GRAY, &s->encoded.data, &size,
                                                           TJSAMP_GRAY, 95, TJFLAG_NOREALLOC) != 0;
        cli_stage_add(CLI_STAGE_ENCODE, t0);
        if (failed) {
            snprintf(error, error_size, "libjpeg-turbo cannot encode '%s': %s", path,
                     tjGetErrorStr2(s->encoder));
            return -1;
        }
        encoded e = {s->encoded.data, size};
        return cli_write_atomic(path, write_encoded, &e, error, error_size);
    }
    raw_gray j = {format, pixels, width, height, 8};
    return cli_write_atomic(path, write_raw, &j, error, error_size);
}
