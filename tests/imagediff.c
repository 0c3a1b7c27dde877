/* Test helper: compares two images pixel by pixel after decoding them with stb.
 *   imagediff A B            A and B have the same size, channels and pixels
 *   imagediff --gray-of IN G G is the BT.601 gray of IN, as decoded by stb (alpha ignored)
 * Exit 0 when they agree, 1 when not (with the first difference), 2 on unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

static unsigned char *load(const char *path, int *w, int *h, int *c)
{
    unsigned char *p = stbi_load(path, w, h, c, 0);
    if (!p)
        fprintf(stderr, "imagediff: cannot read %s: %s\n", path, stbi_failure_reason());
    return p;
}

int main(int argc, char **argv)
{
    int gray_of = argc == 4 && strcmp(argv[1], "--gray-of") == 0;
    if (argc != 3 && !gray_of) {
        fprintf(stderr, "usage: imagediff A B | imagediff --gray-of IN GRAY\n");
        return 2;
    }
    int wa, ha, ca, wb, hb, cb;
    unsigned char *a = load(argv[1 + gray_of], &wa, &ha, &ca);
    unsigned char *b = load(argv[2 + gray_of], &wb, &hb, &cb);
    if (!a || !b)
        return 2;
    int rc = 0;
    if (wa != wb || ha != hb || (gray_of ? cb != 1 : ca != cb)) {
        fprintf(stderr, "imagediff: %dx%dx%d vs %dx%dx%d\n", wa, ha, ca, wb, hb, cb);
        rc = 1;
    }
    for (long i = 0; rc == 0 && i < (long)wa * ha; ++i) {
        const unsigned char *p = a + i * ca;
        if (gray_of) {
            unsigned want =
                ca <= 2 ? p[0] : (p[0] * 9798u + p[1] * 19235u + p[2] * 3735u + 16384u) >> 15;
            if (b[i] != want) {
                fprintf(stderr, "imagediff: pixel %ld is %u, want %u\n", i, b[i], want);
                rc = 1;
            }
        } else if (memcmp(p, b + i * cb, (size_t)ca) != 0) {
            fprintf(stderr, "imagediff: pixel %ld differs\n", i);
            rc = 1;
        }
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return rc;
}
