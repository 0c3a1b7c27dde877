/* Serial reference of the reductions: long double sums (the tests' error bounds are measured
 * against it) and plain scans with numpy's NaN and tie rules. */
#include <math.h>
#include <string.h>

#include "ref.h"

static long double element(clc_dtype type, const void *data, size_t i)
{
    const unsigned char *p = (const unsigned char *)data + i * clc_dtype_size(type);
    switch (type) {
    case CLC_DTYPE_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case CLC_DTYPE_F64: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    case CLC_DTYPE_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case CLC_DTYPE_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case CLC_DTYPE_U8:
        return *p;
    }
    return 0;
}

void clc__ref_reduce(clc_reduce_op op, clc_dtype type, const void *data, size_t count,
                     clc_reduce_result *out, long double *abs_sum)
{
    memset(out, 0, sizeof *out);
    const int is_float = type == CLC_DTYPE_F32 || type == CLC_DTYPE_F64;
    if (op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN) {
        long double s = is_float ? -0.0L : 0.0L, a = 0.0L;
        int64_t si = 0;
        uint64_t su = 0;
        for (size_t i = 0; i < count; ++i) {
            const long double v = element(type, data, i);
            s += v;
            a += fabsl(v);
            si += (int64_t)(type == CLC_DTYPE_I32 ? v : 0);
            su += (uint64_t)(type == CLC_DTYPE_U32 || type == CLC_DTYPE_U8 ? v : 0);
        }
        if (abs_sum)
            *abs_sum = a;
        out->i = si;
        out->u = su;
        out->f = (double)s;
        if (op == CLC_REDUCE_MEAN)
            out->f = (double)(s / (long double)count);
        if (type == CLC_DTYPE_F32)
            out->f = (double)(float)out->f;
        return;
    }
    const int want_min = op == CLC_REDUCE_MIN || op == CLC_REDUCE_ARGMIN;
    size_t best = 0;
    long double bv = element(type, data, 0);
    for (size_t i = 1; i < count && !isnan(bv); ++i) {
        const long double v = element(type, data, i);
        if (isnan(v) || (want_min ? v < bv : v > bv)) {
            best = i;
            bv = v;
        }
    }
    out->index = best;
    out->f = (double)bv;
    out->i = (int64_t)(type == CLC_DTYPE_I32 ? bv : 0);
    out->u = (uint64_t)(type == CLC_DTYPE_U32 || type == CLC_DTYPE_U8 ? bv : 0);
}
