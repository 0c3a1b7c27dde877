/* Reductions: every op and type against the reference for sizes 1..4097 and millions; float sums
 * within a bound tighter than numpy's pairwise sum; NaN, infinities, -0.0 and ties as numpy;
 * same bits run after run; device buffers and chaining; arrays in pieces; misuse refused. */
#include "fixture.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/reduce.h"
#include "internal.h"

static const clc_dtype types[] = {CLC_DTYPE_F32, CLC_DTYPE_F64, CLC_DTYPE_I32, CLC_DTYPE_U32,
                                  CLC_DTYPE_U8,  CLC_DTYPE_I64, CLC_DTYPE_U64, CLC_DTYPE_I16,
                                  CLC_DTYPE_U16, CLC_DTYPE_I8,  CLC_DTYPE_F16, CLC_DTYPE_BOOL};
#define NTYPES (sizeof types / sizeof types[0])

static int is_float(clc_dtype type)
{
    return type == CLC_DTYPE_F16 || type == CLC_DTYPE_F32 || type == CLC_DTYPE_F64;
}

/* Where numpy's result lands: signed sums and bool counts in i, other integers in u. */
static int in_i(clc_reduce_op op, clc_dtype type)
{
    const int sum = op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN;
    return type == CLC_DTYPE_I8 || type == CLC_DTYPE_I16 || type == CLC_DTYPE_I32 ||
           type == CLC_DTYPE_I64 || (sum && type == CLC_DTYPE_BOOL);
}
static const clc_reduce_op ops[] = {CLC_REDUCE_SUM,  CLC_REDUCE_MIN,    CLC_REDUCE_MAX,
                                    CLC_REDUCE_MEAN, CLC_REDUCE_ARGMIN, CLC_REDUCE_ARGMAX};

static uint32_t rng = 5;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng;
}

/* Random data of a type: floats of mixed sign and magnitude, integers over their whole range. */
static void *random_array(clc_dtype type, size_t n)
{
    void *p = malloc(n * clc_dtype_size(type) + 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = next();
        switch (type) {
        case CLC_DTYPE_F32:
            ((float *)p)[i] = ((float)(int32_t)r / 2147483648.0f) * powf(10.0f, (float)(r % 7));
            break;
        case CLC_DTYPE_F64:
            ((double *)p)[i] = ((double)(int32_t)r / 2147483648.0) * pow(10.0, (double)(r % 9));
            break;
        case CLC_DTYPE_I32:
            ((int32_t *)p)[i] = (int32_t)r;
            break;
        case CLC_DTYPE_U32:
            ((uint32_t *)p)[i] = r;
            break;
        case CLC_DTYPE_U8:
            ((uint8_t *)p)[i] = (uint8_t)(r >> 24);
            break;
        case CLC_DTYPE_I64:
        case CLC_DTYPE_U64: {
            const uint64_t v = (uint64_t)r << 32 | next();
            memcpy((uint64_t *)p + i, &v, 8);
            break;
        }
        case CLC_DTYPE_I16:
        case CLC_DTYPE_U16:
            ((uint16_t *)p)[i] = (uint16_t)(r >> 16);
            break;
        case CLC_DTYPE_I8:
            ((uint8_t *)p)[i] = (uint8_t)(r >> 24);
            break;
        case CLC_DTYPE_F16: {
            /* Sign, exponent 0 (subnormal, one in 16) or 5..20 (2^-10 .. 2^5), mantissa: sums of
             * thousands stay finite. */
            const unsigned e = (r >> 8) % 16 == 0 ? 0 : 5 + (r >> 12) % 16;
            ((uint16_t *)p)[i] = (uint16_t)((r & 0x8000u) | e << 10 | ((r >> 20) & 1023u));
            break;
        }
        case CLC_DTYPE_BOOL:
            /* Mostly 0 and 1, as numpy writes them; any other byte is true too. */
            ((uint8_t *)p)[i] = (r >> 24) < 200 ? (uint8_t)((r >> 8) & 1) : (uint8_t)(r >> 16);
            break;
        }
    }
    return p;
}

static int has_fp64(clc_context *ctx)
{
    return clc_context_device(ctx)->fp64;
}

/* One reduction against the reference: exact for integers and comparisons, within the bound
 * for float sums and means. */
/* got against the long-double reference over data[0..n). */
static void check_result(clc_reduce_op op, clc_dtype type, const void *data, size_t n,
                         clc_reduce_result got)
{
    clc_reduce_result want;
    long double abs_sum = 0;
    clc__ref_reduce(op, type, data, n, &want,
                    op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN ? &abs_sum : NULL);
    const int floating = is_float(type);
    if (op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN) {
        if (floating || op == CLC_REDUCE_MEAN) {
            /* numpy's pairwise sum guarantees about eps * log2(n) * sum|x|; we hold eps * sum|x|
             * plus the final rounding to the type (half: from a float sum, as numpy's). */
            const double eps = type == CLC_DTYPE_F64 ? DBL_EPSILON : FLT_EPSILON;
            const double last = type == CLC_DTYPE_F16 ? 1.0 / 1024 : eps;
            double bound = (double)abs_sum * (floating ? eps : DBL_EPSILON) + fabs(want.f) * last +
                           (type == CLC_DTYPE_F16 ? 0x1p-24 : 0.0);
            if (op == CLC_REDUCE_MEAN)
                bound /= (double)n;
            if (!(got.f == want.f || fabs(got.f - want.f) <= bound))
                fail_msg("op %d type %d n %zu: %.17g, reference %.17g, bound %.3g", op, type, n,
                         got.f, want.f, bound);
        } else if (in_i(op, type)) {
            assert_int_equal(got.i, want.i);
        } else {
            assert_int_equal(got.u, want.u);
        }
        return;
    }
    if (got.index != want.index)
        fail_msg("op %d type %d n %zu: index %llu, reference %llu", op, type, n,
                 (unsigned long long)got.index, (unsigned long long)want.index);
    if (floating)
        assert_true(got.f == want.f || (isnan(got.f) && isnan(want.f)));
    else if (in_i(op, type))
        assert_int_equal(got.i, want.i);
    else
        assert_int_equal(got.u, want.u);
}

static void check(clc_context *ctx, clc_reduce_op op, clc_dtype type, const void *data, size_t n)
{
    clc_reduce_result got;
    clc_status st = clc_reduce(ctx, op, type, data, n, &got);
    if (st != CLC_SUCCESS)
        fail_msg("clc_reduce(op %d, type %d, n %zu): %s", op, type, n, clc_last_error());
    check_result(op, type, data, n, got);
}

static void every_op_and_type_matches_reference_for_sizes_1_to_4097(void **state)
{
    clc_context *ctx = *state;
    for (size_t t = 0; t < NTYPES; ++t) {
        if (types[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        for (size_t n = 1; n <= 4097; ++n) {
            void *data = random_array(types[t], n);
            for (size_t o = 0; o < 6; ++o)
                check(ctx, ops[o], types[t], data, n);
            free(data);
        }
    }
}

static void millions_of_elements_match_reference(void **state)
{
    clc_context *ctx = *state;
    const size_t n = 3000017;
    for (size_t t = 0; t < NTYPES; ++t) {
        if (types[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        void *data = random_array(types[t], n);
        for (size_t o = 0; o < 6; ++o)
            check(ctx, ops[o], types[t], data, n);
        free(data);
    }
}

static void float_sum_is_accurate_where_naive_float_is_not(void **state)
{
    clc_context *ctx = *state;
    /* 0.1f ten million times: a naive float loop ends near 1.09e6; the true value is 999999.98. */
    const size_t n = 10000000;
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; ++i)
        x[i] = 0.1f;
    clc_reduce_result r;
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, n, &r), CLC_SUCCESS);
    const double exact = (double)n * (double)0.1f;
    assert_true(fabs(r.f - exact) <= exact * FLT_EPSILON);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_F32, x, n, &r), CLC_SUCCESS);
    assert_true(r.f == (double)0.1f);
    free(x);
}

static void nan_infinity_and_negative_zero_follow_numpy(void **state)
{
    clc_context *ctx = *state;
    clc_reduce_result r;
    const float nan_at_3[6] = {5, 1, 7, NAN, 0, NAN};
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MIN, CLC_DTYPE_F32, nan_at_3, 6, &r), 0);
    assert_true(isnan(r.f));
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MAX, CLC_DTYPE_F32, nan_at_3, 6, &r), 0);
    assert_true(isnan(r.f));
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMIN, CLC_DTYPE_F32, nan_at_3, 6, &r), 0);
    assert_int_equal(r.index, 3);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, nan_at_3, 6, &r), 0);
    assert_int_equal(r.index, 3);
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, nan_at_3, 6, &r), 0);
    assert_true(isnan(r.f));
    const float inf[4] = {1, INFINITY, 2, 3};
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, inf, 4, &r), 0);
    assert_true(isinf(r.f) && r.f > 0);
    const float both[3] = {INFINITY, 1, -INFINITY};
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, both, 3, &r), 0);
    assert_true(isnan(r.f));
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, inf, 4, &r), 0);
    assert_int_equal(r.index, 1);
    const float nz[2] = {-0.0f, -0.0f};
    /* numpy's sums start from 0.0 (np.sum([-0.0, -0.0]) is 0.0); the minimum keeps the sign. */
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, nz, 2, &r), 0);
    assert_true(r.f == 0.0 && !signbit(r.f));
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_F32, nz, 2, &r), 0);
    assert_true(r.f == 0.0 && !signbit(r.f));
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MIN, CLC_DTYPE_F32, nz, 2, &r), 0);
    assert_true(r.f == 0.0 && signbit(r.f));
    if (has_fp64(ctx)) {
        const double nzd[3] = {-0.0, -0.0, -0.0};
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F64, nzd, 3, &r), 0);
        assert_true(r.f == 0.0 && !signbit(r.f));
    }
    const float mixed[2] = {0.0f, -0.0f};
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_MIN, CLC_DTYPE_F32, mixed, 2, &r), 0);
    assert_int_equal(r.index, 0); /* equal values: the first */
    if (has_fp64(ctx)) {
        const double dn[3] = {1.0, 2.0, NAN};
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMIN, CLC_DTYPE_F64, dn, 3, &r), 0);
        assert_int_equal(r.index, 2);
    }
}

/* Element `at` of a float32, float64 or float16 array: v, or for float16 the bits `half`. */
static void put_float(clc_dtype type, unsigned char *p, size_t at, double v, uint16_t half)
{
    if (type == CLC_DTYPE_F32)
        ((float *)p)[at] = (float)v;
    else if (type == CLC_DTYPE_F64)
        ((double *)p)[at] = v;
    else
        ((uint16_t *)p)[at] = half;
}

/* argmin/argmax return the first NaN, at any step of a lane, in either shape: on a million
 * elements each GPU lane folds many steps and each CPU chunk many vectors. Early NaNs must hold
 * against the later elements of their lane, which beat every number before them (the first of
 * two NaNs wins); a lone late NaN must replace the number its lane holds. */
static void the_first_nan_wins_at_any_step(void **state)
{
    clc_context *ctx = *state;
    const size_t n = (size_t)1 << 20, first = 1001, second = 700001, late = n - 1000;
    const clc_dtype kinds[3] = {CLC_DTYPE_F32, CLC_DTYPE_F64, CLC_DTYPE_F16};
    for (size_t t = 0; t < 3; ++t) {
        if (kinds[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        for (int up = 0; up < 2; ++up) /* after `first`, values above (max) or below all before */
            for (int lone = 0; lone < 2; ++lone) {
                unsigned char *p = malloc(n * clc_dtype_size(kinds[t]));
                assert_non_null(p);
                for (size_t i = 0; i < n; ++i) {
                    /* half: 0x3c00 is 1.0; from 0x4000 (2.0) up, from 0xc000 (-2.0) down, all
                     * finite */
                    const double v = i <= first ? (double)(i % 7) : (up ? 1.0 : -1.0) * (double)i;
                    const uint16_t h =
                        (uint16_t)(i <= first ? 0x3c00 : (up ? 0x4000 : 0xc000) + (i % 0x3b00));
                    put_float(kinds[t], p, i, v, h);
                }
                if (lone) {
                    put_float(kinds[t], p, late, NAN, 0x7e00);
                } else {
                    put_float(kinds[t], p, first, NAN, 0x7e00);
                    put_float(kinds[t], p, second, NAN, 0x7e00);
                }
                const size_t want = lone ? late : first;
                const clc_reduce_op op = up ? CLC_REDUCE_ARGMAX : CLC_REDUCE_ARGMIN;
                clc_reduce_result r;
                assert_int_equal(clc_reduce(ctx, op, kinds[t], p, n, &r), CLC_SUCCESS);
                if (r.index != want || !isnan(r.f))
                    fail_msg("type %d op %d: index %llu value %g, want the NaN at %zu", kinds[t],
                             op, (unsigned long long)r.index, r.f, want);
                check(ctx, up ? CLC_REDUCE_MAX : CLC_REDUCE_MIN, kinds[t], p, n);
                free(p);
            }
    }
}

static void ties_return_the_first_index(void **state)
{
    clc_context *ctx = *state;
    /* The extreme value at several places, far apart, so different items find it. */
    const size_t n = 100000;
    for (size_t t = 0; t < NTYPES; ++t) {
        if (types[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        unsigned char *p = calloc(n, clc_dtype_size(types[t]));
        assert_non_null(p);
        const size_t es = clc_dtype_size(types[t]);
        const size_t at[3] = {77777, 4242, 99999};
        for (size_t k = 0; k < 3; ++k) {
            unsigned char one[8] = {0};
            if (types[t] == CLC_DTYPE_F32) {
                float v = 9.0f;
                memcpy(one, &v, 4);
            } else if (types[t] == CLC_DTYPE_F64) {
                double v = 9.0;
                memcpy(one, &v, 8);
            } else if (types[t] == CLC_DTYPE_F16) {
                const uint16_t v = 0x4880; /* 9.0 */
                memcpy(one, &v, 2);
            } else {
                one[0] = 9;
            }
            memcpy(p + at[k] * es, one, es);
        }
        clc_reduce_result r;
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMAX, types[t], p, n, &r), 0);
        assert_int_equal(r.index, 4242);
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_ARGMIN, types[t], p, n, &r), 0);
        assert_int_equal(r.index, 0);
        free(p);
    }
}

static clc_reduce_result reduced(clc_context *ctx, clc_reduce_op op, clc_dtype type,
                                 const void *data, size_t n)
{
    clc_reduce_result r;
    if (clc_reduce(ctx, op, type, data, n, &r) != CLC_SUCCESS)
        fail_msg("op %d type %d: %s", op, type, clc_last_error());
    return r;
}

/* numpy's int64 and uint64 sums wrap; its means do not (ours are exact). */
static void integer_sums_wrap_as_numpy_and_means_do_not(void **state)
{
    clc_context *ctx = *state;
    const int64_t big[3] = {INT64_MAX, 1, INT64_MAX};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I64, big, 2).i, INT64_MIN);
    /* (2^63 - 1) * 2 + 1 over 3, exactly: numpy says 6.148914691236517e+18. */
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_I64, big, 3).f == 6148914691236517205.0);
    const int64_t neg[2] = {INT64_MIN, -1};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I64, neg, 2).i, INT64_MAX);
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_I64, neg, 2).f == -4611686018427387904.5);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MIN, CLC_DTYPE_I64, neg, 2).i, INT64_MIN);
    const uint64_t u[2] = {UINT64_MAX, 2};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U64, u, 2).u, 1);
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_U64, u, 2).f == 9223372036854775808.5);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MAX, CLC_DTYPE_U64, u, 2).u, UINT64_MAX);
    const int8_t i8[3] = {-128, -1, 127};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I8, i8, 2).i, -129);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MIN, CLC_DTYPE_I8, i8, 3).i, -128);
    assert_int_equal(reduced(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_I8, i8, 3).index, 2);
    const int16_t i16[2] = {-32768, -32768};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_I16, i16, 2).i, -65536);
    const uint16_t u16[2] = {65535, 65535};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_U16, u16, 2).u, 131070);
}

/* bool as numpy: sum counts the true elements (int64), min and max are logical, mean is the
 * fraction; any non-zero byte is true. */
static void bool_counts_and_compares_logically(void **state)
{
    clc_context *ctx = *state;
    const unsigned char b[5] = {0, 1, 2, 255, 0};
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_BOOL, b, 5).i, 3);
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_BOOL, b, 5).f == 0.6);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MIN, CLC_DTYPE_BOOL, b, 5).u, 0);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MAX, CLC_DTYPE_BOOL, b, 5).u, 1);
    assert_int_equal(reduced(ctx, CLC_REDUCE_MAX, CLC_DTYPE_BOOL, b + 2, 2).u, 1); /* 2, 255 */
    assert_int_equal(reduced(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_BOOL, b, 5).index, 1);
    assert_int_equal(reduced(ctx, CLC_REDUCE_ARGMIN, CLC_DTYPE_BOOL, b + 1, 4).index, 3);
    /* Many bytes of 255: a byte sum would say 255 times too much. */
    unsigned char *many = malloc(100003);
    assert_non_null(many);
    memset(many, 255, 100003);
    assert_int_equal(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_BOOL, many, 100003).i, 100003);
    free(many);
}

/* float16 as numpy: computed in float32, the result rounded to half (overflowing to infinity);
 * NaN propagates. */
static void half_is_computed_in_float_and_rounded_to_half(void **state)
{
    clc_context *ctx = *state;
    const uint16_t top[2] = {0x7bff, 0x7bff}; /* 65504, the largest half */
    assert_true(isinf(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F16, top, 2).f));
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_F16, top, 2).f == 65504.0);
    assert_true(reduced(ctx, CLC_REDUCE_MAX, CLC_DTYPE_F16, top, 2).f == 65504.0);
    uint16_t *ones = malloc(10001 * 2);
    assert_non_null(ones);
    for (size_t i = 0; i < 10001; ++i)
        ones[i] = 0x3c00; /* 1.0 */
    /* 10001 is no half: numpy says 10000.0 (ties to even at a step of 8). */
    assert_true(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F16, ones, 10001).f == 10000.0);
    assert_true(reduced(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_F16, ones, 10001).f == 1.0);
    free(ones);
    const uint16_t nan_at_1[3] = {0x3c00, 0x7e00, 0xfc00}; /* 1, NaN, -inf */
    assert_int_equal(reduced(ctx, CLC_REDUCE_ARGMIN, CLC_DTYPE_F16, nan_at_1, 3).index, 1);
    assert_true(isnan(reduced(ctx, CLC_REDUCE_MAX, CLC_DTYPE_F16, nan_at_1, 3).f));
    assert_true(reduced(ctx, CLC_REDUCE_MIN, CLC_DTYPE_F16, nan_at_1 + 2, 1).f == -INFINITY);
    const uint16_t tiny[2] = {0x0001, 0x0001}; /* the smallest subnormal, 2^-24 */
    assert_true(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F16, tiny, 2).f == 0x1p-23);
    /* Halves of 0.1 and 0.2 add up to 0.2999267578125, halfway between two halves: ties go to
     * the even one, 0.2998046875, as numpy's np.float16(0.1) + np.float16(0.2). */
    const uint16_t tenths[2] = {0x2e66, 0x3266};
    assert_true(reduced(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F16, tenths, 2).f == 0.2998046875);
}

static void results_are_the_same_bits_run_after_run(void **state)
{
    clc_context *ctx = *state;
    const size_t n = 1000003;
    float *x = random_array(CLC_DTYPE_F32, n);
    clc_reduce_result first;
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, n, &first), 0);
    for (int run = 0; run < 10; ++run) {
        clc_reduce_result again;
        assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, n, &again), 0);
        assert_memory_equal(&again.f, &first.f, sizeof first.f);
    }
    free(x);
}

static void device_buffers_at_offsets_and_chained_results(void **state)
{
    clc_context *ctx = *state;
    const size_t n = 50001;
    int32_t *x = random_array(CLC_DTYPE_I32, n + 7);
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (n + 7) * 4, x, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem res = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    const size_t offsets[] = {0, 4, 28};
    for (size_t o = 0; o < 3; ++o)
        for (size_t k = 0; k < 6; ++k) {
            const clc_reduce_result got =
                fixture_reduce_on_device(ctx, ops[k], CLC_DTYPE_I32, buf, offsets[o], n, res);
            clc_reduce_result want;
            clc__ref_reduce(ops[k], CLC_DTYPE_I32, x + offsets[o] / 4, n, &want, NULL);
            if (ops[k] == CLC_REDUCE_MEAN)
                assert_true(fabs(got.f - want.f) <= fabs(want.f) * 1e-12);
            else
                assert_int_equal(got.i, want.i);
            if (ops[k] >= CLC_REDUCE_ARGMIN)
                assert_int_equal(got.index, want.index);
        }
    clReleaseMemObject(res);
    clReleaseMemObject(buf);
    free(x);
}

/* The GPU shape loads aligned 16-byte vectors and folds the elements before the first boundary
 * apart: every element offset within 16 bytes, for every type and op, on a device buffer. */
static void every_alignment_of_a_device_buffer(void **state)
{
    clc_context *ctx = *state;
    const size_t n = 300007;
    cl_context cl = clc_context_cl_context(ctx);
    cl_int err = CL_SUCCESS;
    cl_mem res = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (size_t t = 0; t < NTYPES; ++t) {
        if (types[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        const size_t esize = clc_dtype_size(types[t]), lanes = 16 / esize;
        unsigned char *x = random_array(types[t], n + lanes);
        cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    (n + lanes) * esize, x, &err);
        assert_int_equal(err, CL_SUCCESS);
        for (size_t first = 0; first < lanes; ++first)
            for (size_t o = 0; o < 6; ++o) {
                const clc_reduce_result got =
                    fixture_reduce_on_device(ctx, ops[o], types[t], buf, first * esize, n, res);
                check_result(ops[o], types[t], x + first * esize, n, got);
            }
        clReleaseMemObject(buf);
        free(x);
    }
    clReleaseMemObject(res);
}

/* Arrays larger than the device's largest buffer go in pieces, combined in order
 * (CLCOMPUTE_REDUCE_PIECE makes them 4 KiB here): every op and type against the reference, over
 * sizes ending inside and at the edge of a piece, from an aligned and a misaligned start (each
 * piece then has a head); the extreme, ties and NaN in later pieces; the switch checked. */
static void arrays_larger_than_a_buffer_go_in_pieces(void **state)
{
    clc_context *ctx = *state;
    clc__switch_set(ctx, CLC_SW_REDUCE_PIECE, "4096");
    for (size_t t = 0; t < NTYPES; ++t) {
        if (types[t] == CLC_DTYPE_F64 && !has_fp64(ctx))
            continue;
        const size_t es = clc_dtype_size(types[t]), per = 4096 / es;
        const size_t sizes[] = {per + 1, 3 * per, 3 * per + 5, 7 * per / 2};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            unsigned char *data = random_array(types[t], sizes[k] + 1);
            for (size_t skip = 0; skip < 2; ++skip)
                for (size_t o = 0; o < 6; ++o)
                    check(ctx, ops[o], types[t], data + skip * es, sizes[k]);
            free(data);
        }
    }
    /* float32, four pieces of 1024: the maximum in pieces 1 and 2 (the first wins), a NaN in
     * pieces 2 and 3 (the first wins), a minimum only in the last. */
    enum { N = 4000 };
    float *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < N; ++i)
        x[i] = (float)(i % 100);
    x[1500] = x[2500] = 1000.0f;
    x[3999] = -5.0f;
    clc_reduce_result r = reduced(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, x, N);
    assert_true(r.index == 1500 && r.f == 1000.0);
    r = reduced(ctx, CLC_REDUCE_ARGMIN, CLC_DTYPE_F32, x, N);
    assert_true(r.index == 3999 && r.f == -5.0);
    x[2100] = x[3100] = NAN;
    r = reduced(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, x, N);
    assert_true(r.index == 2100 && isnan(r.f));
    r = reduced(ctx, CLC_REDUCE_MIN, CLC_DTYPE_F32, x, N);
    assert_true(isnan(r.f));
    free(x);
    /* Under 16 bytes a piece is refused, naming the switch. */
    clc__switch_set(ctx, CLC_SW_REDUCE_PIECE, "8");
    float four[4] = {1, 2, 3, 4};
    assert_int_equal(clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, four, 4, &r),
                     CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "CLCOMPUTE_REDUCE_PIECE"));
    clc__switch_set(ctx, CLC_SW_REDUCE_PIECE, getenv("CLCOMPUTE_REDUCE_PIECE"));
}

static void misuse_is_refused(void **state)
{
    clc_context *ctx = *state;
    float x[4] = {1, 2, 3, 4};
    clc_reduce_result r;
#define REFUSED(expected, call)                                                                    \
    do {                                                                                           \
        assert_int_equal((call), (expected));                                                      \
        assert_true(strlen(clc_last_error()) > 0);                                                 \
    } while (0)
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(NULL, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, 4, &r));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, NULL, 4, &r));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, 4, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, 0, &r));
    assert_non_null(strstr(clc_last_error(), "empty"));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, (clc_reduce_op)0, CLC_DTYPE_F32, x, 4, &r));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, (clc_reduce_op)9, CLC_DTYPE_F32, x, 4, &r));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, CLC_REDUCE_SUM, (clc_dtype)0, x, 4, &r));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, (char *)x + 1, 2, &r));
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, SIZE_MAX / 2, &r));
    cl_int err = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_READ_WRITE, 64, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    REFUSED(CLC_ERROR_SIZE_OVERFLOW,
            clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, buf, 0, 17, buf, 0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, buf, 2, 4, buf, 0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, buf, 0, 4, NULL, 0, NULL, NULL));
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce_enqueue(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, buf, 0, 4, buf, 1, NULL, NULL));
    clReleaseMemObject(buf);
    unsigned char words[16] = {0};
    REFUSED(CLC_ERROR_INVALID_ARGUMENT,
            clc_reduce_decode(CLC_REDUCE_SUM, CLC_DTYPE_F32, words, 0, &r));
    assert_int_equal(clc_dtype_size(CLC_DTYPE_U8), 1);
    assert_int_equal(clc_dtype_size((clc_dtype)42), 0);
    assert_int_equal(clc_dtype_size(CLC_DTYPE_I64), 8);
    assert_int_equal(clc_dtype_size(CLC_DTYPE_F16), 2);
    assert_int_equal(clc_dtype_size(CLC_DTYPE_BOOL), 1);
    REFUSED(CLC_ERROR_INVALID_ARGUMENT, clc_reduce(ctx, CLC_REDUCE_SUM, (clc_dtype)13, x, 4, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(every_op_and_type_matches_reference_for_sizes_1_to_4097),
        FIXTURE_TEST(millions_of_elements_match_reference),
        FIXTURE_TEST(float_sum_is_accurate_where_naive_float_is_not),
        FIXTURE_TEST(nan_infinity_and_negative_zero_follow_numpy),
        FIXTURE_TEST(the_first_nan_wins_at_any_step),
        FIXTURE_TEST(ties_return_the_first_index),
        FIXTURE_TEST(integer_sums_wrap_as_numpy_and_means_do_not),
        FIXTURE_TEST(bool_counts_and_compares_logically),
        FIXTURE_TEST(half_is_computed_in_float_and_rounded_to_half),
        FIXTURE_TEST(results_are_the_same_bits_run_after_run),
        FIXTURE_TEST(device_buffers_at_offsets_and_chained_results),
        FIXTURE_TEST(every_alignment_of_a_device_buffer),
        FIXTURE_TEST(arrays_larger_than_a_buffer_go_in_pieces),
        FIXTURE_TEST(misuse_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
