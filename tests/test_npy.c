/* The .npy header parser: every header NumPy writes is read; every malformed one is refused with
 * a message, never read past its end. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/npy.h"

/* A version-1 file: magic, header padded to 64 bytes as NumPy pads it, then `data` bytes. */
static unsigned char *make(const char *dict, size_t data, size_t *size)
{
    size_t len = strlen(dict) + 1; /* + '\n' */
    size_t total = 10 + len;
    total = (total + 63) / 64 * 64;
    const size_t header_len = total - 10;
    unsigned char *f = calloc(total + data + 1, 1);
    assert_non_null(f);
    memcpy(f, "\x93NUMPY\x01\x00", 8);
    f[8] = (unsigned char)(header_len & 0xff);
    f[9] = (unsigned char)(header_len >> 8);
    memset(f + 10, ' ', header_len);
    memcpy(f + 10, dict, strlen(dict));
    f[total - 1] = '\n';
    *size = total + data;
    return f;
}

static npy_info parse_ok(const char *dict, size_t data)
{
    size_t size = 0;
    unsigned char *f = make(dict, data, &size);
    npy_info info;
    char error[256] = "";
    if (npy_parse(f, size, &info, error, sizeof error) != 0)
        fail_msg("%s: %s", dict, error);
    assert_int_equal(info.data_offset % 64, 0);
    free(f);
    return info;
}

static void refused(const char *dict, size_t data, const char *expect)
{
    size_t size = 0;
    unsigned char *f = make(dict, data, &size);
    npy_info info;
    char error[256] = "";
    assert_int_equal(npy_parse(f, size, &info, error, sizeof error), -1);
    if (!strstr(error, expect))
        fail_msg("%s: message '%s' lacks '%s'", dict, error, expect);
    free(f);
}

static void headers_numpy_writes_are_read(void **state)
{
    (void)state;
    npy_info i = parse_ok("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 5), }", 120);
    assert_int_equal(i.type, CLC_DTYPE_F32);
    assert_int_equal(i.count, 30);
    i = parse_ok("{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }", 56);
    assert_int_equal(i.type, CLC_DTYPE_F64);
    assert_int_equal(i.count, 7);
    i = parse_ok("{'descr': '|u1', 'fortran_order': False, 'shape': (1000,), }", 1000);
    assert_int_equal(i.type, CLC_DTYPE_U8);
    i = parse_ok("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", 4);
    assert_int_equal(i.type, CLC_DTYPE_I32);
    assert_int_equal(i.count, 1); /* a 0-d array holds one element */
    i = parse_ok("{'descr': '<u4', 'fortran_order': False, 'shape': (0,), }", 0);
    assert_int_equal(i.count, 0);
    /* Key order and spacing are free. */
    i = parse_ok("{ \"shape\" : ( 4 , 2 ) , \"fortran_order\":False,\"descr\":\"<f4\" }", 32);
    assert_int_equal(i.count, 8);
    assert_int_equal(i.ndim, 2);
    assert_int_equal(i.shape[0], 4);
    assert_int_equal(i.shape[1], 2);
    assert_int_equal(i.fortran_order, 0);
}

/* numpy's default integer (int64) and every other numeric dtype but complex; Fortran order is
 * read and said. */
static void every_numeric_dtype_and_fortran_order_are_read(void **state)
{
    (void)state;
    static const struct {
        const char *descr;
        clc_dtype type;
    } cases[] = {{"<i8", CLC_DTYPE_I64}, {"<u8", CLC_DTYPE_U64}, {"<i2", CLC_DTYPE_I16},
                 {"<u2", CLC_DTYPE_U16}, {"|i1", CLC_DTYPE_I8},  {"<f2", CLC_DTYPE_F16},
                 {"|b1", CLC_DTYPE_BOOL}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (10,), }",
                 cases[c].descr);
        const npy_info i = parse_ok(dict, 10 * clc_dtype_size(cases[c].type));
        assert_int_equal(i.type, cases[c].type);
        assert_int_equal(i.count, 10);
    }
    const npy_info f = parse_ok("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24);
    assert_int_equal(f.fortran_order, 1);
    assert_int_equal(f.ndim, 2);
    assert_int_equal(f.shape[1], 3);
}

static void version_2_headers_are_read(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *v1 =
        make("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12, &size);
    /* Same header with a 4-byte length: shift by two bytes and fix the prefix. */
    unsigned char *v2 = calloc(size + 2, 1);
    assert_non_null(v2);
    memcpy(v2, "\x93NUMPY\x02\x00", 8);
    const size_t header_len = (size_t)v1[8] | (size_t)v1[9] << 8;
    v2[8] = v1[8], v2[9] = v1[9], v2[10] = 0, v2[11] = 0;
    memcpy(v2 + 12, v1 + 10, size - 10);
    npy_info info;
    char error[256];
    assert_int_equal(npy_parse(v2, size + 2, &info, error, sizeof error), 0);
    assert_int_equal(info.count, 3);
    assert_int_equal(info.data_offset, 12 + header_len);
    free(v1);
    free(v2);
}

static void malformed_headers_are_refused(void **state)
{
    (void)state;
    refused("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", 12, "big-endian");
    refused("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", 24, "unsupported dtype");
    refused("{'descr': '<m8', 'fortran_order': False, 'shape': (3,), }", 24, "unsupported dtype");
    refused("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 16, "holds 16 bytes");
    refused("{'descr': '|i2', 'fortran_order': False, 'shape': (3,), }", 6, "byte order");
    refused("{'descr': '|f4', 'fortran_order': False, 'shape': (3,), }", 12, "byte order");
    refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 12, "descr");
    refused("{'fortran_order': False, 'shape': (3,), }", 12, "no 'descr'");
    refused("{'descr': '<f4', 'shape': (3,), }", 12, "no 'fortran_order'");
    refused("{'descr': '<f4', 'fortran_order': False, }", 12, "no 'shape'");
    refused("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,), }", 12, "neither");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", 12, "non-negative");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3 4,), }", 12, "malformed");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': [3], }", 12, "not a tuple");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 12,
            "overflows");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", 12,
            "overflows");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12, "holds 12 bytes");
    refused("'descr': '<f4', 'fortran_order': False, 'shape': (3,)", 12, "not a dict");
    refused("{'descr': '<f4, 'fortran_order': False, 'shape': (3,), }", 12, "");
}

static void broken_prefixes_are_refused(void **state)
{
    (void)state;
    npy_info info;
    char error[256];
    const unsigned char bad_magic[16] = "\x93NUMPX\x01\x00\x06\x00{}    ";
    assert_int_equal(npy_parse(bad_magic, sizeof bad_magic, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "magic"));
    const unsigned char short_file[5] = "\x93NUM";
    assert_int_equal(npy_parse(short_file, sizeof short_file, &info, error, sizeof error), -1);
    const unsigned char version9[16] = "\x93NUMPY\x09\x00\x06\x00{}    ";
    assert_int_equal(npy_parse(version9, sizeof version9, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "version"));
    /* A header length past the end of the file. */
    const unsigned char long_header[16] = "\x93NUMPY\x01\x00\xff\x7f{}    ";
    assert_int_equal(npy_parse(long_header, sizeof long_header, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "truncated"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headers_numpy_writes_are_read),
        cmocka_unit_test(every_numeric_dtype_and_fortran_order_are_read),
        cmocka_unit_test(version_2_headers_are_read),
        cmocka_unit_test(malformed_headers_are_refused),
        cmocka_unit_test(broken_prefixes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
