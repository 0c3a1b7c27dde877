/* Serial reference of the reductions: long double sums of floats (the tests' error bounds are
 * measured against it), exact integer sums, and plain scans with numpy's NaN and tie rules. */
#include <math.h>
#include <string.h>

#include "reduce.h"

static int is_float(clc_dtype type)
{
    return type == CLC_DTYPE_F16 || type == CLC_DTYPE_F32 || type == CLC_DTYPE_F64;
}

static int is_signed(clc_dtype type)
{
    return type == CLC_DTYPE_I8 || type == CLC_DTYPE_I16 || type == CLC_DTYPE_I32 ||
           type == CLC_DTYPE_I64;
}

/* An IEEE half from its bits, by its definition. */
static long double half_value(uint16_t h)
{
    const int exponent = (h >> 10) & 31, mantissa = h & 1023;
    long double v;
    /* Products with powers of two, exact in long double: ldexpl took a tenth of test_reduce. */
    if (exponent == 31)
        v = mantissa ? NAN : INFINITY;
    else if (exponent == 0)
        v = (long double)mantissa * 0x1p-24L;
    else
        v = (long double)(1024 + mantissa) * (long double)(1u << exponent) * 0x1p-25L;
    return h & 0x8000 ? -v : v;
}

/* A float rounded to the nearest half (ties to even), by the bits: independent of the library's
 * own rounding, which goes through frexp. */
static double float_to_half_value(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t sign = x & 0x80000000u, a = x & 0x7fffffffu;
    uint16_t h;
    if (a >= 0x7f800000u) {
        h = a > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (a >= 0x477ff000u) { /* 65520 and up: infinity */
        h = 0x7c00;
    } else if (a < 0x38800000u) { /* below 2^-14: a subnormal half (or zero) */
        /* a = M * 2^(E - 150) is M >> (126 - E) steps of 2^-24, rounded to nearest even. */
        const int e = (int)(a >> 23), exponent = e ? e : 1;
        const uint32_t m = (a & 0x7fffffu) | (e ? 0x800000u : 0);
        const int shift = 126 - exponent;
        if (shift >= 32) {
            h = 0;
        } else {
            const uint32_t q = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
            h = (uint16_t)(q + (rest > half || (rest == half && (q & 1))));
        }
    } else {
        const uint32_t m = a & 0x7fffffu, rest = m & 0x1fffu;
        uint32_t q = ((a >> 23) - 112) << 10 | m >> 13;
        q += rest > 0x1000u || (rest == 0x1000u && (q & 1));
        h = (uint16_t)q;
    }
    return (double)half_value((uint16_t)(h | (sign >> 16)));
}

static long double float_element(clc_dtype type, const unsigned char *p)
{
    if (type == CLC_DTYPE_F16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return half_value(h);
    }
    if (type == CLC_DTYPE_F32) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    double v;
    memcpy(&v, p, 8);
    return v;
}

static int64_t signed_element(clc_dtype type, const unsigned char *p)
{
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    switch (type) {
    case CLC_DTYPE_I8:
        memcpy(&i8, p, 1);
        return i8;
    case CLC_DTYPE_I16:
        memcpy(&i16, p, 2);
        return i16;
    case CLC_DTYPE_I32:
        memcpy(&i32, p, 4);
        return i32;
    default:
        memcpy(&i64, p, 8);
        return i64;
    }
}

/* Unsigned types and bool (0 or 1). */
static uint64_t unsigned_element(clc_dtype type, const unsigned char *p)
{
    if (type == CLC_DTYPE_BOOL)
        return *p != 0;
    uint64_t v = 0;
    memcpy(&v, p, clc_dtype_size(type)); /* little-endian host */
    return v;
}

/* The element as a long double, for float scans and means. */
static long double element(clc_dtype type, const unsigned char *p)
{
    if (is_float(type))
        return float_element(type, p);
    if (is_signed(type))
        return (long double)signed_element(type, p);
    return (long double)unsigned_element(type, p);
}

static void put_value(clc_dtype type, const unsigned char *p, clc_reduce_result *out)
{
    if (is_float(type))
        out->f = (double)float_element(type, p);
    else if (is_signed(type))
        out->i = signed_element(type, p);
    else
        out->u = unsigned_element(type, p);
}

void clc__ref_reduce(clc_reduce_op op, clc_dtype type, const void *data, size_t count,
                     clc_reduce_result *out, long double *abs_sum)
{
    memset(out, 0, sizeof *out);
    const unsigned char *bytes = data;
    const size_t size = clc_dtype_size(type);
    if (op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN) {
        long double s = 0.0L, a = 0.0L; /* from 0.0, as numpy's: sum([-0.0]) is 0.0 */
        uint64_t wrapped = 0; /* integer sums wrap at 64 bits, as numpy's int64 and uint64 */
        for (size_t i = 0; i < count; ++i) {
            const unsigned char *p = bytes + i * size;
            const long double v = element(type, p);
            s += v;
            a += fabsl(v);
            wrapped += is_signed(type)  ? (uint64_t)signed_element(type, p)
                       : is_float(type) ? 0
                                        : unsigned_element(type, p);
        }
        if (abs_sum)
            *abs_sum = a;
        if (is_signed(type) || type == CLC_DTYPE_BOOL)
            memcpy(&out->i, &wrapped, 8);
        else
            out->u = wrapped;
        out->f = (double)(op == CLC_REDUCE_MEAN ? s / (long double)count : s);
        if (type == CLC_DTYPE_F32)
            out->f = (double)(float)out->f;
        if (type == CLC_DTYPE_F16)
            out->f = float_to_half_value((float)out->f);
        return;
    }
    const int want_min = op == CLC_REDUCE_MIN || op == CLC_REDUCE_ARGMIN;
    size_t best = 0;
    if (is_float(type)) {
        long double bv = count ? float_element(type, bytes) : 0.0L;
        for (size_t i = 1; i < count && !isnan(bv); ++i) {
            const long double v = float_element(type, bytes + i * size);
            if (isnan(v) || (want_min ? v < bv : v > bv))
                best = i, bv = v;
        }
    } else if (is_signed(type)) {
        int64_t bv = count ? signed_element(type, bytes) : 0;
        for (size_t i = 1; i < count; ++i) {
            const int64_t v = signed_element(type, bytes + i * size);
            if (want_min ? v < bv : v > bv)
                best = i, bv = v;
        }
    } else {
        uint64_t bv = count ? unsigned_element(type, bytes) : 0;
        for (size_t i = 1; i < count; ++i) {
            const uint64_t v = unsigned_element(type, bytes + i * size);
            if (want_min ? v < bv : v > bv)
                best = i, bv = v;
        }
    }
    out->index = best;
    put_value(type, bytes + best * size, out);
}
