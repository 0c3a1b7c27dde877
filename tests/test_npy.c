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

typedef struct descr_case {
    const char *descr;
    clc_dtype type;
} descr_case;

/* A header of ten elements of `descr` reads as `type`. */
static void read_as(const char *descr, clc_dtype type)
{
    char dict[128];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (10,), }", descr);
    const npy_info i = parse_ok(dict, 10 * clc_dtype_size(type));
    if (i.type != type)
        fail_msg("'%s' read as type %d, not %d", descr, (int)i.type, (int)type);
    assert_int_equal(i.count, 10);
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
    static const descr_case cases[] = {{"<i8", CLC_DTYPE_I64}, {"<u8", CLC_DTYPE_U64},
                                       {"<i2", CLC_DTYPE_I16}, {"<u2", CLC_DTYPE_U16},
                                       {"|i1", CLC_DTYPE_I8},  {"<f2", CLC_DTYPE_F16},
                                       {"|b1", CLC_DTYPE_BOOL}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        read_as(cases[c].descr, cases[c].type);
    const npy_info f = parse_ok("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24);
    assert_int_equal(f.fortran_order, 1);
    assert_int_equal(f.ndim, 2);
    assert_int_equal(f.shape[1], 3);
}

/* What np.load reads beyond what np.save writes: numpy takes a 'descr' as np.dtype does, so a
 * type code with no byte order, '=' or '|' (both the machine's order) and numpy's names. */
static void descrs_numpy_reads_are_read(void **state)
{
    (void)state;
    static const descr_case cases[] = {
        {"u1", CLC_DTYPE_U8},      {"b1", CLC_DTYPE_BOOL},      {"i8", CLC_DTYPE_I64},
        {"f4", CLC_DTYPE_F32},     {"=f8", CLC_DTYPE_F64},      {"|i2", CLC_DTYPE_I16},
        {"|f4", CLC_DTYPE_F32},    {"=u4", CLC_DTYPE_U32},      {"float32", CLC_DTYPE_F32},
        {"int64", CLC_DTYPE_I64},  {"bool", CLC_DTYPE_BOOL},    {"float16", CLC_DTYPE_F16},
        {"uint16", CLC_DTYPE_U16}, {"float64", CLC_DTYPE_F64},  {"int8", CLC_DTYPE_I8},
        {"float", CLC_DTYPE_F64},  {"int", CLC_DTYPE_I64},      {"single", CLC_DTYPE_F32},
        {"d", CLC_DTYPE_F64},      {"<f", CLC_DTYPE_F32},       {"?", CLC_DTYPE_BOOL},
        {"|b", CLC_DTYPE_I8},      {"B", CLC_DTYPE_U8},         {"=H", CLC_DTYPE_U16},
        {"l", CLC_DTYPE_I64},      {"e", CLC_DTYPE_F16},        {">u1", CLC_DTYPE_U8},
        {">b1", CLC_DTYPE_BOOL},   {"intc", CLC_DTYPE_I32},     {"uint", CLC_DTYPE_U64},
        {"ushort", CLC_DTYPE_U16}, {"longlong", CLC_DTYPE_I64}, {"bool_", CLC_DTYPE_BOOL}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        read_as(cases[c].descr, cases[c].type);
    assert_int_equal(npy_code_type("<f4", 3), CLC_DTYPE_F32);
    assert_int_equal(npy_code_type("u1", 2), CLC_DTYPE_U8);
    assert_int_equal(npy_code_type(">f4", 3), 0);
    assert_int_equal(npy_code_type("i8", 1), CLC_DTYPE_I32); /* the length is the caller's */
    assert_int_equal(npy_code_type(">u1", 3), CLC_DTYPE_U8); /* one byte has no order */
    assert_int_equal(npy_code_type("<", 1), 0);
    assert_int_equal(npy_code_type("", 0), 0);
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
    refused("{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }", 6, "big-endian");
    refused("{'descr': '<f4x', 'fortran_order': False, 'shape': (3,), }", 12, "unsupported dtype");
    refused("{'descr': 'float128', 'fortran_order': False, 'shape': (3,), }", 48,
            "unsupported dtype");
    refused("{'descr': '<', 'fortran_order': False, 'shape': (3,), }", 12, "unsupported dtype '<'");
    refused("{'descr': '', 'fortran_order': False, 'shape': (3,), }", 12, "unsupported dtype ''");
    refused("{'descr': '>d', 'fortran_order': False, 'shape': (3,), }", 24, "big-endian");
    refused("{'descr': 'g', 'fortran_order': False, 'shape': (3,), }", 48, "extended precision");
    refused("{'descr': 'Float32', 'fortran_order': False, 'shape': (3,), }", 12,
            "unsupported dtype"); /* numpy's names are case-sensitive */
    refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 12,
            "structured dtypes");
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

/* numpy reads the header as a Python dict literal and then wants exactly 'descr',
 * 'fortran_order' and 'shape'. A reader that searched for each key took the first of two
 * 'descr's (Python keeps the last), ignored other keys and read past junk after the '}'. */
static void headers_numpy_would_not_read_are_refused(void **state)
{
    (void)state;
    refused("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 24,
            "gives 'descr' twice");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (6,), }", 24,
            "gives 'shape' twice");
    refused("{'descr': '<f4', 'fortran_order': True, 'fortran_order': False, 'shape': (3,), }", 12,
            "gives 'fortran_order' twice");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1, }", 12,
            "the key 'extra'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'Descr': '<f8', }", 12,
            "the key 'Descr'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } junk", 12,
            "'j' (byte 68) after the dict's closing '}'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }}", 12, "after the dict");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} {}", 12, "after the dict");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } # comment", 12,
            "after the dict");
    /* Separators as Python's grammar has them: one comma between entries, a colon after keys. */
    refused("{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}", 12, "malformed after");
    refused("{'descr': '<f4', 'fortran_order': False,, 'shape': (3,)}", 12, "quoted key");
    refused("{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}", 12, "':' expected");
    refused("{descr: '<f4', 'fortran_order': False, 'shape': (3,)}", 12, "quoted key");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", 12, "malformed after");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), ", 12, "quoted key");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3", 12, "not closed");
    refused("{'descr': '<f4', 'fortran_order': False, 'sha", 12, "not closed");
    /* (3) is the integer 3 in Python; numpy refuses it as a shape. */
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", 12, "not a tuple");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", 12, "','");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,,), }", 12, "','");
    refused("{}", 12, "no 'descr'");
    /* Junk in the padding after the dict, where numpy writes spaces and a final newline. */
    size_t size = 0;
    unsigned char *f = make("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12, &size);
    f[100] = 'x';
    npy_info info;
    char error[256] = "";
    assert_int_equal(npy_parse(f, size, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "'x' (byte 100) after the dict"));
    f[100] = '\0';
    assert_int_equal(npy_parse(f, size, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "'?' (byte 100) after the dict"));
    free(f);
}

/* The headers np.save writes, byte for byte (numpy 2.4, format versions 1.0, 2.0 and 3.0 differ
 * only in the length field), and the spacing Python allows inside a dict literal. */
static void headers_np_save_writes_are_read_byte_for_byte(void **state)
{
    (void)state;
    static const struct {
        const char *dict;
        size_t count, ndim;
        int fortran;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 1, 0, 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 5, 1, 0},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 12, 2, 0},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", 12, 2, 1},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)}", 12, 2, 0},
        {"{'descr':'<f4','fortran_order':False,'shape':(3,4,)}", 12, 2, 0},
        {"\t{ 'shape' : ( 3 , 4 , ) ,\n 'descr' : \"<f4\" , 'fortran_order' : False ,\n}\r\t", 12,
         2, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int version = 1; version <= 3; ++version) {
            const size_t prefix = version == 1 ? 10 : 12;
            size_t len = prefix + strlen(cases[c].dict) + 1;
            len = (len + 63) / 64 * 64;
            unsigned char *f = calloc(len + 48, 1);
            assert_non_null(f);
            memcpy(f, "\x93NUMPY", 6);
            f[6] = (unsigned char)version;
            f[8] = (unsigned char)(len - prefix);
            memset(f + prefix, ' ', len - prefix);
            memcpy(f + prefix, cases[c].dict, strlen(cases[c].dict));
            f[len - 1] = '\n';
            npy_info info;
            char error[256] = "";
            if (npy_parse(f, len + 48, &info, error, sizeof error) != 0)
                fail_msg("version %d, %s: %s", version, cases[c].dict, error);
            assert_int_equal(info.data_offset, len);
            assert_int_equal(info.count, cases[c].count);
            assert_int_equal(info.ndim, cases[c].ndim);
            assert_int_equal(info.fortran_order, cases[c].fortran);
            free(f);
        }
    }
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
    /* numpy refuses minor versions other than 0. */
    const unsigned char version11[16] = "\x93NUMPY\x01\x01\x06\x00{}    ";
    assert_int_equal(npy_parse(version11, sizeof version11, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "version 1.1"));
    /* The magic and the version, then nothing: truncated, not "no magic". */
    const unsigned char magic_only[8] = "\x93NUMPY\x01";
    assert_int_equal(npy_parse(magic_only, sizeof magic_only, &info, error, sizeof error), -1);
    assert_non_null(strstr(error, "truncated"));
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
        cmocka_unit_test(descrs_numpy_reads_are_read),
        cmocka_unit_test(version_2_headers_are_read),
        cmocka_unit_test(malformed_headers_are_refused),
        cmocka_unit_test(headers_numpy_would_not_read_are_refused),
        cmocka_unit_test(headers_np_save_writes_are_read_byte_for_byte),
        cmocka_unit_test(broken_prefixes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
