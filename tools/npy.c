/* .npy headers: the dict literal NumPy writes, read strictly, and written as numpy writes it. */
#include "npy.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(error, error_size, __VA_ARGS__);                                                  \
        return -1;                                                                                 \
    } while (0)

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        ++p;
    return p;
}

/* The end of the value starting at v: a quoted string, a parenthesised tuple or a bare word
 * (True, False); v itself when none starts there. NULL when a string or tuple is not closed. */
static const char *value_end(const char *v, const char *end)
{
    const char *e = v;
    if (e < end && *e == '(') {
        while (e < end && *e != ')')
            ++e;
        return e < end ? e + 1 : NULL;
    }
    if (e < end && (*e == '\'' || *e == '"')) {
        const char quote = *e++;
        while (e < end && *e != quote)
            ++e;
        return e < end ? e + 1 : NULL;
    }
    while (e < end && (isalnum((unsigned char)*e) || *e == '_'))
        ++e;
    return e;
}

clc_dtype npy_code_type(const char *code, size_t len)
{
    static const struct {
        const char *code;
        clc_dtype type;
    } known[] = {{"f4", CLC_DTYPE_F32},
                 {"f8", CLC_DTYPE_F64},
                 {"f2", CLC_DTYPE_F16},
                 {"i1", CLC_DTYPE_I8},
                 {"i2", CLC_DTYPE_I16},
                 {"i4", CLC_DTYPE_I32},
                 {"i8", CLC_DTYPE_I64},
                 {"u1", CLC_DTYPE_U8},
                 {"u2", CLC_DTYPE_U16},
                 {"u4", CLC_DTYPE_U32},
                 {"u8", CLC_DTYPE_U64},
                 {"b1", CLC_DTYPE_BOOL},
                 /* one-character codes, as np.dtype('d') (on 64-bit Linux: 'l' is 64 bits) */
                 {"e", CLC_DTYPE_F16},
                 {"f", CLC_DTYPE_F32},
                 {"d", CLC_DTYPE_F64},
                 {"?", CLC_DTYPE_BOOL},
                 {"b", CLC_DTYPE_I8},
                 {"B", CLC_DTYPE_U8},
                 {"h", CLC_DTYPE_I16},
                 {"H", CLC_DTYPE_U16},
                 {"i", CLC_DTYPE_I32},
                 {"I", CLC_DTYPE_U32},
                 {"l", CLC_DTYPE_I64},
                 {"L", CLC_DTYPE_U64},
                 {"q", CLC_DTYPE_I64},
                 {"Q", CLC_DTYPE_U64},
                 {"p", CLC_DTYPE_I64},
                 {"P", CLC_DTYPE_U64}};
    /* numpy reads no order character, '=' and '|' as the machine's order, which is
     * little-endian wherever this runs (x86-64, ARM64); '>' only means nothing for one byte */
    char order = 0;
    if (len > 0 && memchr("<>=|", *code, 4) != NULL)
        order = *code++, --len;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (strlen(known[i].code) == len && memcmp(code, known[i].code, len) == 0)
            return order == '>' && clc_dtype_size(known[i].type) != 1 ? (clc_dtype)0
                                                                      : known[i].type;
    return (clc_dtype)0;
}

/* Whether name (len bytes, not terminated) is n, in any case if any_case. */
static int same_name(const char *name, size_t len, const char *n, int any_case)
{
    return strlen(n) == len &&
           (any_case ? strncasecmp(name, n, len) == 0 : memcmp(name, n, len) == 0);
}

clc_dtype npy_name_type(const char *name, size_t len, int any_case)
{
    /* numpy's names (clc_dtype_name) and its aliases, as np.dtype takes them on 64-bit Linux
     * ('float' and 'int' are 64-bit there) */
    static const struct {
        const char *name;
        clc_dtype type;
    } aliases[] = {
        {"float", CLC_DTYPE_F64},     {"double", CLC_DTYPE_F64}, {"single", CLC_DTYPE_F32},
        {"half", CLC_DTYPE_F16},      {"int", CLC_DTYPE_I64},    {"uint", CLC_DTYPE_U64},
        {"int_", CLC_DTYPE_I64},      {"intp", CLC_DTYPE_I64},   {"uintp", CLC_DTYPE_U64},
        {"long", CLC_DTYPE_I64},      {"ulong", CLC_DTYPE_U64},  {"longlong", CLC_DTYPE_I64},
        {"ulonglong", CLC_DTYPE_U64}, {"intc", CLC_DTYPE_I32},   {"uintc", CLC_DTYPE_U32},
        {"short", CLC_DTYPE_I16},     {"ushort", CLC_DTYPE_U16}, {"byte", CLC_DTYPE_I8},
        {"ubyte", CLC_DTYPE_U8},      {"bool_", CLC_DTYPE_BOOL}};
    for (int t = 1; clc_dtype_name((clc_dtype)t); ++t)
        if (same_name(name, len, clc_dtype_name((clc_dtype)t), any_case))
            return (clc_dtype)t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; ++i)
        if (same_name(name, len, aliases[i].name, any_case))
            return aliases[i].type;
    return (clc_dtype)0;
}

/* At most 40 characters of a value in a message. */
#define SHOWN(len) ((int)((len) < 40 ? (len) : 40))

static int parse_descr(const char *v, const char *e, clc_dtype *type, char *error,
                       size_t error_size)
{
    if (e - v < 2 || (*v != '\'' && *v != '"'))
        FAIL("'descr' is not a string");
    const char *text = v + 1;
    const size_t len = (size_t)(e - v) - 2;
    if ((*type = npy_code_type(text, len)) != 0 || (*type = npy_name_type(text, len, 0)) != 0)
        return 0;
    if (len > 0 && *text == '>')
        FAIL("big-endian data ('%.*s') is not supported; convert with "
             "array.astype(array.dtype.newbyteorder('<'))",
             SHOWN(len), text);
    /* '<f16', 'g' and 'float128' are numpy's long double */
    const char *code = text + (len > 0 && memchr("<=|", *text, 3) != NULL);
    const size_t code_len = len - (size_t)(code - text);
    int extended =
        (code_len >= 3 && *code == 'f' && strspn(code + 1, "0123456789") == code_len - 1) ||
        (code_len == 1 && *code == 'g');
    static const char *const long_names[] = {"float96", "float128", "longdouble", "longfloat"};
    for (size_t i = 0; i < sizeof long_names / sizeof long_names[0]; ++i)
        extended |= strlen(long_names[i]) == len && memcmp(text, long_names[i], len) == 0;
    if (extended)
        FAIL("unsupported dtype '%.*s': extended precision (numpy's longdouble) is not reduced; "
             "float16, float32 and float64 are",
             SHOWN(len), text);
    FAIL("unsupported dtype '%.*s' (every numeric dtype but complex is: float16/32/64, "
         "int8/16/32/64, uint8/16/32/64, bool)",
         SHOWN(len), text);
}

static int parse_shape(const char *v, const char *e, npy_info *info, char *error, size_t error_size)
{
    info->ndim = 0;
    if (e - v < 2 || *v != '(' || e[-1] != ')')
        FAIL("'shape' is not a tuple");
    size_t product = 1;
    const char *p = v + 1;
    const char *last = e - 1;
    int comma = 0; /* whether the last dimension was followed by a comma */
    for (;;) {
        p = skip_space(p, last);
        if (p >= last)
            break;
        if (!isdigit((unsigned char)*p))
            FAIL("'shape' holds '%c', not a non-negative integer", *p);
        size_t d = 0;
        while (p < last && isdigit((unsigned char)*p)) {
            const size_t digit = (size_t)(*p - '0');
            if (d > (SIZE_MAX - digit) / 10)
                FAIL("a dimension of 'shape' overflows");
            d = d * 10 + digit;
            ++p;
        }
        if (d != 0 && product > SIZE_MAX / d)
            FAIL("the product of 'shape' overflows");
        if (info->ndim == NPY_MAX_DIMS)
            FAIL("'shape' has more than %d dimensions", NPY_MAX_DIMS);
        info->shape[info->ndim++] = d;
        product *= d;
        p = skip_space(p, last);
        comma = p < last && *p == ',';
        if (comma)
            ++p;
        else if (p < last)
            FAIL("'shape' is malformed near '%c'", *p);
    }
    /* Python reads (5) as the integer 5, and numpy refuses it: a 1-d shape is written (5,). */
    if (info->ndim == 1 && !comma)
        FAIL("'shape' is (%zu), an integer in Python, not a tuple; numpy writes (%zu,)",
             info->shape[0], info->shape[0]);
    info->count = product;
    return 0;
}

static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

int npy_is_npy(const unsigned char *file, size_t size)
{
    return size >= 6 && memcmp(file, magic, 6) == 0;
}

int npy_parse(const unsigned char *file, size_t size, npy_info *info, char *error,
              size_t error_size)
{
    memset(info, 0, sizeof *info);
    if (size < 6 || memcmp(file, magic, 6) != 0)
        FAIL("not a .npy file (no \\x93NUMPY magic)");
    if (size < 10)
        FAIL("truncated .npy header: %zu bytes, the magic and no header length", size);
    /* numpy reads versions 1.0, 2.0 and 3.0 and refuses any other minor version. */
    const unsigned major = file[6];
    if (file[7] != 0)
        FAIL(".npy format version %u.%u is not supported", major, (unsigned)file[7]);
    size_t header_len, prefix;
    if (major == 1) {
        header_len = (size_t)file[8] | (size_t)file[9] << 8;
        prefix = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12)
            FAIL("truncated .npy header");
        header_len = (size_t)file[8] | (size_t)file[9] << 8 | (size_t)file[10] << 16 |
                     (size_t)file[11] << 24;
        prefix = 12;
    } else {
        FAIL(".npy format version %u is not supported", major);
    }
    if (header_len > size - prefix)
        FAIL("truncated .npy header: %zu bytes announced, %zu present", header_len, size - prefix);
    const char *h = (const char *)file + prefix;
    const char *end = h + header_len;
    const char *p = skip_space(h, end);
    if (p >= end || *p != '{')
        FAIL("the .npy header is not a dict");
    ++p;
    /* numpy reads the header as a Python dict literal and then requires exactly these three keys;
     * a key given twice is refused too (Python would keep the last, a reader that searches keeps
     * the first: refusing says the file is wrong instead of picking one). */
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    int seen[3] = {0, 0, 0};
    for (;;) {
        p = skip_space(p, end);
        if (p < end && *p == '}')
            break;
        if (p >= end || (*p != '\'' && *p != '"'))
            FAIL("the .npy header is not a dict: a quoted key or '}' expected at byte %zu",
                 (size_t)(p - (const char *)file));
        const char *key = p + 1;
        const char *key_end = value_end(p, end);
        if (!key_end)
            FAIL("the .npy header is not a dict: a key is not closed");
        const size_t key_len = (size_t)(key_end - key) - 1;
        int k = 0;
        while (k < 3 && !(strlen(keys[k]) == key_len && memcmp(keys[k], key, key_len) == 0))
            ++k;
        if (k == 3)
            FAIL("the .npy header has the key '%.*s'; numpy's headers have only 'descr', "
                 "'fortran_order' and 'shape'",
                 (int)(key_len > 40 ? 40 : key_len), key);
        if (seen[k]++)
            FAIL("the .npy header gives '%s' twice", keys[k]);
        p = skip_space(key_end, end);
        if (p >= end || *p != ':')
            FAIL("the .npy header is not a dict: ':' expected after '%s'", keys[k]);
        const char *v = skip_space(p + 1, end);
        const char *e = value_end(v, end);
        if (!e)
            FAIL("the value of '%s' in the .npy header is not closed", keys[k]);
        if (k == 0 && v < end && *v == '[')
            FAIL("structured dtypes (records) are not supported; save one field, "
                 "np.save(path, a['name'])");
        if (k == 0) {
            if (parse_descr(v, e, &info->type, error, error_size) != 0)
                return -1;
        } else if (k == 1) {
            info->fortran_order = (size_t)(e - v) == 4 && memcmp(v, "True", 4) == 0;
            if (!info->fortran_order && ((size_t)(e - v) != 5 || memcmp(v, "False", 5) != 0))
                FAIL("'fortran_order' is neither True nor False");
        } else if (parse_shape(v, e, info, error, error_size) != 0) {
            return -1;
        }
        p = skip_space(e, end);
        if (p < end && *p == ',')
            ++p;
        else if (p >= end || *p != '}')
            FAIL("the .npy header is malformed after the value of '%s'", keys[k]);
    }
    /* After the dict numpy pads with spaces and a newline; anything else is not a dict literal. */
    const char *rest = skip_space(p + 1, end);
    if (rest < end)
        FAIL("the .npy header has '%c' (byte %zu) after the dict's closing '}'",
             isprint((unsigned char)*rest) ? *rest : '?', (size_t)(rest - (const char *)file));
    for (int k = 0; k < 3; ++k)
        if (!seen[k])
            FAIL("the .npy header has no '%s'", keys[k]);
    info->data_offset = prefix + header_len;
    const size_t esize = clc_dtype_size(info->type);
    if (info->count > (size - info->data_offset) / esize)
        FAIL("the file holds %zu bytes of data; the shape needs %zu elements of %zu bytes",
             size - info->data_offset, info->count, esize);
    return 0;
}

int npy_header(char *out, size_t size, const char *descr, size_t rows, size_t cols)
{
    /* Version 1.0: magic, version, a 2-byte little-endian length, then the dict padded with
     * spaces and a newline to a multiple of 64 bytes, as numpy writes it. */
    char dict[96];
    const int n = snprintf(dict, sizeof dict,
                           "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }", descr,
                           rows, cols);
    if (n < 0 || (size_t)n >= sizeof dict)
        return -1;
    const size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, len = total - 10;
    if (total > size || len > 65535)
        return -1;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(len & 255), out[9] = (char)(len >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', len - (size_t)n - 1);
    out[total - 1] = '\n';
    return (int)total;
}
