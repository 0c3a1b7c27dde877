/* A colour image file to gray: read a binary PPM (P6, 8-bit), convert with clc_gray, write a PGM.
 *
 *   gray_file IN.ppm OUT.pgm [SELECTOR]
 *
 * The library never touches files; this example reads and writes the simplest image format by
 * hand (the clcompute tool does PNG, JPEG and more with libspng and libjpeg-turbo). The PGM is
 * written beside OUT and renamed over it, so it appears whole or not at all, and never over IN.
 * Files through POSIX (stat, mkstemp). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clcompute/clcompute.h>

/* The next number of a PPM header, skipping white space and # comments; 0 when there is none. */
static unsigned header_number(FILE *f)
{
    int c;
    while ((c = fgetc(f)) == '#' || (c != EOF && (c == ' ' || c == '\t' || c == '\r' || c == '\n')))
        if (c == '#')
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
    unsigned long n = 0;
    for (; c >= '0' && c <= '9' && n < 100000; c = fgetc(f))
        n = n * 10 + (unsigned)(c - '0');
    return c == EOF || n >= 100000 ? 0 : (unsigned)n; /* the one white space after it is read */
}

/* The pixels of a binary 8-bit PPM, or NULL after a message. */
static unsigned char *read_ppm(const char *path, size_t *w, size_t *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    unsigned char *rgb = NULL;
    const int magic = fgetc(f) == 'P' && fgetc(f) == '6';
    const unsigned width = magic ? header_number(f) : 0, height = magic ? header_number(f) : 0;
    const unsigned maxval = width && height ? header_number(f) : 0;
    if (!width || !height || maxval != 255) {
        fprintf(stderr, "%s: not a binary 8-bit PPM (P6, sides 1 to 99999, maxval 255)\n", path);
    } else if (!(rgb = malloc((size_t)width * height * 3))) {
        fprintf(stderr, "%s: no memory for %u x %u pixels\n", path, width, height);
    } else if (fread(rgb, 3, (size_t)width * height, f) != (size_t)width * height) {
        fprintf(stderr, "%s: truncated\n", path);
        free(rgb);
        rgb = NULL;
    }
    fclose(f);
    *w = width, *h = height;
    return rgb;
}

/* Whether two paths name one file, under any of its names (./x, a link, a hard link). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Where `path` writes: itself, or the file a link leads to; NULL after a message for a folder, a
 * device or a FIFO (the rename would put a plain file in its place), a link to nothing, or a new
 * file in a folder that is not there. */
static char *output_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) { /* a name too long, a folder it may not search */
            perror(path);
            return NULL;
        }
        char *copy = strdup(path);
        if (!copy) {
            fprintf(stderr, "gray_file: out of memory\n");
            return NULL;
        }
        char *slash = strrchr(copy, '/');
        if (slash)
            *slash = '\0';
        const char *folder = !slash ? "." : slash == copy ? "/" : copy;
        if (stat(folder, &st) != 0) {
            fprintf(stderr, "gray_file: cannot write %s: %s: %s\n", path, folder, strerror(errno));
        } else if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "gray_file: cannot write %s: %s is not a folder\n", path, folder);
        } else {
            if (slash)
                *slash = '/';
            return copy;
        }
        free(copy);
        return NULL;
    }
    const int found = stat(path, &st) == 0;
    if (!found && errno != ENOENT) { /* a loop of links, a folder it may not search */
        perror(path);
        return NULL;
    }
    if (!found || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "gray_file: cannot write %s: %s\n", path,
                found ? "it exists and is not a regular file" : "a link that leads to no file");
        return NULL;
    }
    char *target = realpath(path, NULL);
    if (!target)
        perror(path);
    return target;
}

/* The PGM written to a new file beside `target` (output_target's), then renamed over it: a failed
 * write (a full disk) leaves no partial file and an existing one as it was. */
static int write_pgm(const char *path, const char *target, const unsigned char *gray, size_t w,
                     size_t h)
{
    /* The new file gets an existing one's mode, else what fopen would have given it (mkstemp
     * makes it 0600). */
    struct stat old;
    const mode_t mask = umask(0);
    umask(mask);
    const mode_t mode = stat(target, &old) == 0 ? old.st_mode & 07777 : 0666 & ~mask;
    char *tmp = malloc(strlen(target) + sizeof ".XXXXXX");
    int fd = -1;
    if (tmp) {
        strcpy(tmp, target);
        strcat(tmp, ".XXXXXX");
        fd = mkstemp(tmp);
    }
    FILE *out = fd >= 0 && fchmod(fd, mode) == 0 ? fdopen(fd, "wb") : NULL;
    int failed = !out || fprintf(out, "P5\n%zu %zu\n255\n", w, h) < 0 ||
                 fwrite(gray, 1, w * h, out) != w * h;
    if (out ? fclose(out) != 0 : fd >= 0 && close(fd) != 0)
        failed = 1;
    if (!failed && rename(tmp, target) != 0)
        failed = 1;
    if (failed)
        perror(path);
    if (failed && fd >= 0)
        remove(tmp);
    free(tmp);
    return failed ? -1 : 0;
}

/* It writes PGM only: under another name (out.png) the bytes would lie about their format. */
static int pgm_name(const char *path)
{
    const size_t n = strlen(path);
    if (n >= 4 && strcasecmp(path + n - 4, ".pgm") == 0)
        return 1;
    fprintf(stderr, "gray_file: %s: the output is a PGM; name it .pgm\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: gray_file IN.ppm OUT.pgm [SELECTOR]\n");
        return 2;
    }
    if (same_file(argv[1], argv[2])) {
        fprintf(stderr, "gray_file: %s is the input itself, which would be lost\n", argv[2]);
        return 2;
    }
    /* The output is judged before any work, so that a name it cannot take costs nothing. */
    if (!pgm_name(argv[2]))
        return 2;
    char *target = output_target(argv[2]);
    if (target && !pgm_name(target)) { /* a link named .pgm to another kind of file */
        free(target);
        return 2;
    }
    size_t w = 0, h = 0;
    unsigned char *rgb = target ? read_ppm(argv[1], &w, &h) : NULL,
                  *gray = rgb ? malloc(w * h) : NULL;
    if (!gray) {
        free(rgb), free(target);
        return 1;
    }
    clc_context_options options = {0};
    options.device = argc > 3 ? argv[3] : NULL;
    clc_context *ctx = NULL;
    const clc_image_desc src = {CLC_PIXEL_RGB8, w, h, 0}, dst = {CLC_PIXEL_GRAY8, w, h, 0};
    int rc = 1;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS ||
        clc_gray(ctx, &src, rgb, &dst, gray, NULL) != CLC_SUCCESS)
        fprintf(stderr, "gray_file: %s\n", clc_last_error());
    else if (write_pgm(argv[2], target, gray, w, h) == 0)
        rc = 0;
    if (rc == 0)
        printf("%s: %zu x %zu, gray on %s\n", argv[2], w, h, clc_context_device(ctx)->name);
    clc_context_destroy(ctx);
    free(rgb), free(gray), free(target);
    return rc;
}
