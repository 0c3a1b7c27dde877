/* The PLY writer round-trips: what it writes parses back, header and values, in both formats. */
#include "fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/pcd.h"
#include "../tools/ply.h"

/* A deliberately independent reader for the subset we write. Returns the vertex count, or -1. */
static long parse(FILE *f, int *ascii, int *colored, float *points, unsigned char *colors)
{
    char line[256];
    long count = -1;
    *ascii = -1;
    *colored = 0;
    if (!fgets(line, sizeof line, f) || strcmp(line, "ply\n") != 0)
        return -1;
    while (fgets(line, sizeof line, f) && strcmp(line, "end_header\n") != 0) {
        if (strcmp(line, "format ascii 1.0\n") == 0)
            *ascii = 1;
        else if (strcmp(line, "format binary_little_endian 1.0\n") == 0)
            *ascii = 0;
        else if (sscanf(line, "element vertex %ld", &count) == 1)
            continue;
        else if (strcmp(line, "property uchar red\n") == 0)
            *colored = 1;
    }
    if (*ascii < 0 || count < 0)
        return -1;
    for (long i = 0; i < count; ++i) {
        if (*ascii) {
            char x[64], y[64], z[64];
            unsigned r = 0, g = 0, b = 0;
            if (fscanf(f, "%63s %63s %63s", x, y, z) != 3 ||
                (*colored && fscanf(f, "%u %u %u", &r, &g, &b) != 3))
                return -1;
            points[3 * i] = strtof(x, NULL);
            points[3 * i + 1] = strtof(y, NULL);
            points[3 * i + 2] = strtof(z, NULL);
            if (*colored) {
                colors[3 * i] = (unsigned char)r;
                colors[3 * i + 1] = (unsigned char)g;
                colors[3 * i + 2] = (unsigned char)b;
            }
        } else {
            unsigned char rec[15];
            const size_t n = *colored ? 15 : 12;
            if (fread(rec, 1, n, f) != n)
                return -1;
            for (int k = 0; k < 3; ++k) {
                uint32_t bits = (uint32_t)rec[4 * k] | (uint32_t)rec[4 * k + 1] << 8 |
                                (uint32_t)rec[4 * k + 2] << 16 | (uint32_t)rec[4 * k + 3] << 24;
                memcpy(&points[3 * i + k], &bits, 4);
            }
            if (*colored)
                memcpy(colors + 3 * i, rec + 12, 3);
        }
    }
    return fgetc(f) == EOF || *ascii ? count : -1;
}

static void round_trip(int ascii, int with_colors)
{
    enum { N = 100 };
    float pts[3 * N];
    unsigned char cols[3 * N];
    for (int i = 0; i < 3 * N; ++i) {
        pts[i] = (float)(i * 0.731 - 40.0) / 3.0f;
        cols[i] = (unsigned char)(i * 37);
    }
    pts[7] = NAN; /* organized clouds carry NaN points */
    pts[8] = -0.0f;
    pts[9] = 1e-30f;
    FILE *f = tmpfile();
    assert_non_null(f);
    ply_cloud cloud = {pts, with_colors ? cols : NULL, N, ascii};
    assert_int_equal(ply_write(f, &cloud), 0);
    rewind(f);
    float back[3 * N];
    unsigned char back_c[3 * N];
    int got_ascii = -1, got_colored = -1;
    assert_int_equal(parse(f, &got_ascii, &got_colored, back, back_c), N);
    assert_int_equal(got_ascii, ascii);
    assert_int_equal(got_colored, with_colors);
    for (int i = 0; i < 3 * N; ++i) {
        if (isnan(pts[i]))
            assert_true(isnan(back[i]));
        else
            assert_true(back[i] == pts[i]); /* %.9g round-trips floats exactly */
    }
    if (with_colors)
        assert_memory_equal(back_c, cols, sizeof cols);
    fclose(f);
}

static void binary_round_trips(void **state)
{
    (void)state;
    round_trip(0, 0);
    round_trip(0, 1);
}

static void ascii_round_trips(void **state)
{
    (void)state;
    round_trip(1, 0);
    round_trip(1, 1);
}

static void empty_cloud_is_a_valid_file(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    ply_cloud cloud = {NULL, NULL, 0, 0};
    assert_int_equal(ply_write(f, &cloud), 0);
    rewind(f);
    int a, c;
    assert_int_equal(parse(f, &a, &c, NULL, NULL), 0);
    fclose(f);
}

/* More points than one write block: the blocks join without a seam. */
static void large_clouds_cross_blocks(void **state)
{
    (void)state;
    enum { N = 70001 };
    float *pts = malloc(3 * N * sizeof *pts), *back = malloc(3 * N * sizeof *back);
    unsigned char *cols = malloc(3 * N), *back_c = malloc(3 * N);
    assert_true(pts && back && cols && back_c);
    for (int i = 0; i < 3 * N; ++i) {
        pts[i] = (float)i * 0.25f - 7.0f;
        cols[i] = (unsigned char)(i * 13);
    }
    for (int ascii = 0; ascii < 2; ++ascii) {
        FILE *f = tmpfile();
        assert_non_null(f);
        ply_cloud cloud = {pts, cols, N, ascii};
        assert_int_equal(ply_write(f, &cloud), 0);
        rewind(f);
        int a = -1, c = -1;
        assert_int_equal(parse(f, &a, &c, back, back_c), N);
        assert_memory_equal(back, pts, 3 * N * sizeof *pts);
        assert_memory_equal(back_c, cols, 3 * N);
        fclose(f);
    }
    free(pts), free(back), free(cols), free(back_c);
}

/* PCD as PCL lays it out: the header, then x y z rgb as little-endian float32, rgb holding the
 * bits of (r << 16) | (g << 8) | b; ASCII prints the same floats exactly. */
static void pcd_is_pcl_layout(void **state)
{
    (void)state;
    const float pts[6] = {1.5f, -2.0f, 3.25f, NAN, NAN, NAN};
    const unsigned char cols[6] = {255, 128, 1, 0, 0, 0};
    FILE *f = tmpfile();
    assert_non_null(f);
    pcd_cloud cloud = {pts, cols, 2, 2, 1, 0};
    assert_int_equal(pcd_write(f, &cloud), 0);
    rewind(f);
    char text[1024];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    assert_non_null(strstr(text, "\nFIELDS x y z rgb\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\n"
                                 "WIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\n"
                                 "DATA binary\n"));
    const char *data = strstr(text, "DATA binary\n") + 12;
    assert_int_equal((size_t)(text + n - data), 32);
    const unsigned char first[16] = {
        0, 0, 0xc0, 0x3f, 0,    0,    0,    0xc0,
        0, 0, 0x50, 0x40, 0x01, 0x80, 0xff, 0x00}; /* 1.5, -2, 3.25, rgb 0xff8001 */
    assert_memory_equal(data, first, 16);
    fclose(f);

    f = tmpfile();
    assert_non_null(f);
    cloud.ascii = 1;
    assert_int_equal(pcd_write(f, &cloud), 0);
    rewind(f);
    const size_t m = fread(text, 1, sizeof text - 1, f);
    text[m] = '\0';
    const char *body = strstr(text, "DATA ascii\n");
    assert_non_null(body);
    float x, y, z, rgb;
    assert_int_equal(sscanf(body + 11, "%f %f %f %f", &x, &y, &z, &rgb), 4);
    uint32_t bits;
    memcpy(&bits, &rgb, 4);
    assert_true(x == 1.5f && y == -2.0f && z == 3.25f);
    assert_int_equal(bits, 0xff8001);
    assert_non_null(strstr(body, "\nnan nan nan "));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binary_round_trips),          cmocka_unit_test(ascii_round_trips),
        cmocka_unit_test(empty_cloud_is_a_valid_file), cmocka_unit_test(large_clouds_cross_blocks),
        cmocka_unit_test(pcd_is_pcl_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
