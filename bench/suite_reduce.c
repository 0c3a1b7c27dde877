/* Reductions: both stages on a device buffer (the one launch's own time, or from a busy copy's
 * end to the result where CLCOMPUTE_REDUCE_PASSES=2 makes them two launches), host-to-host through
 * clc_reduce, and numpy-style serial loops (pairwise float sum with 8 accumulators, as numpy's;
 * plain loops for the rest), which the result must match. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

/* numpy's pairwise_sum: blocks of 128 summed with 8 accumulators, halves recursively above; for
 * float and double as numpy has it for each. */
#define PAIRWISE(name, T)                                                                          \
    static T name(const T *x, size_t n)                                                            \
    {                                                                                              \
        if (n < 8) {                                                                               \
            T s = (T)-0.0;                                                                         \
            for (size_t i = 0; i < n; ++i)                                                         \
                s += x[i];                                                                         \
            return s;                                                                              \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8];                                                                                \
            for (int k = 0; k < 8; ++k)                                                            \
                r[k] = x[k];                                                                       \
            size_t i = 8;                                                                          \
            for (; i < n - n % 8; i += 8)                                                          \
                for (int k = 0; k < 8; ++k)                                                        \
                    r[k] += x[i + (size_t)k];                                                      \
            T s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));               \
            for (; i < n; ++i)                                                                     \
                s += x[i];                                                                         \
            return s;                                                                              \
        }                                                                                          \
        size_t half = n / 2;                                                                       \
        half -= half % 8;                                                                          \
        return name(x, half) + name(x + half, n - half);                                           \
    }
PAIRWISE(pairwise, float)
PAIRWISE(pairwise_d, double)
#undef PAIRWISE

typedef struct serial_result {
    double value;
    size_t index;
} serial_result;

/* A half's value, for the serial loop (as numpy converts each element to float). */
static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
    uint32_t bits;
    if (e == 31)
        bits = sign | 0x7f800000u | m << 13;
    else if (e)
        bits = sign | (e + 112) << 23 | m << 13;
    else if (!m)
        bits = sign;
    else {
        float f = (float)m * (1.0f / 16777216.0f);
        memcpy(&bits, &f, 4);
        bits |= sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* The benchmark's cases only: f32 sum and argmax, f64, integer and bool sums, f16 sum. */
static serial_result serial(clc_reduce_op op, clc_dtype type, const void *data, size_t n)
{
    serial_result r = {0, 0};
    if (type == CLC_DTYPE_F32 && op == CLC_REDUCE_SUM) {
        r.value = pairwise(data, n);
    } else if (type == CLC_DTYPE_F64 && op == CLC_REDUCE_SUM) {
        r.value = pairwise_d(data, n);
    } else if (type == CLC_DTYPE_F32) {
        const float *x = data;
        float best = x[0];
        for (size_t i = 1; i < n && !isnan(best); ++i)
            if (isnan(x[i]) || x[i] > best)
                best = x[i], r.index = i;
        r.value = best;
    } else if (type == CLC_DTYPE_F16) {
        const uint16_t *x = data;
        float s = 0.0f, block[128];
        for (size_t i = 0; i < n; i += 128) {
            const size_t m = n - i < 128 ? n - i : 128;
            for (size_t k = 0; k < m; ++k)
                block[k] = half_to_float(x[i + k]);
            s += pairwise(block, m);
        }
        r.value = s;
    } else if (type == CLC_DTYPE_I32) {
        const int32_t *x = data;
        int64_t s = 0;
        for (size_t i = 0; i < n; ++i)
            s += x[i];
        r.value = (double)s;
    } else if (type == CLC_DTYPE_I64) {
        const int64_t *x = data;
        uint64_t s = 0; /* wrapping, as numpy's */
        for (size_t i = 0; i < n; ++i)
            s += (uint64_t)x[i];
        int64_t v;
        memcpy(&v, &s, 8);
        r.value = (double)v;
    } else if (type == CLC_DTYPE_BOOL) {
        const uint8_t *x = data;
        uint64_t s = 0;
        for (size_t i = 0; i < n; ++i)
            s += x[i] != 0;
        r.value = (double)s;
    } else {
        const uint8_t *x = data;
        uint64_t s = 0;
        for (size_t i = 0; i < n; ++i)
            s += x[i];
        r.value = (double)s;
    }
    return r;
}

typedef struct reduce_job {
    clc_reduce_op op;
    clc_dtype type;
    size_t n;
    cl_mem in, out;
} reduce_job;

static clc_status enqueue_reduce(clc_context *ctx, void *arg, cl_event *done)
{
    const reduce_job *j = arg;
    return clc_reduce_enqueue(ctx, j->op, j->type, j->in, 0, j->n, j->out, 0, NULL, done);
}

typedef struct reduce_host {
    clc_reduce_op op;
    clc_dtype type;
    const void *data;
    size_t n;
    clc_reduce_result result;
} reduce_host;

static clc_status reduce_call(clc_context *ctx, void *arg)
{
    reduce_host *h = arg;
    return clc_reduce(ctx, h->op, h->type, h->data, h->n, &h->result);
}

/* Device-time median of both stages on a device buffer; -1 after filling row->status. */
static double device_seconds(clc_context *ctx, const bench_config *config, clc_reduce_op op,
                             clc_dtype type, const void *data, size_t n, bench_row *row)
{
    reduce_job j = {op, type, n, NULL, NULL};
    j.in = bench_buffer(ctx, data, n * clc_dtype_size(type), row);
    j.out = j.in ? bench_buffer(ctx, NULL, CLC_REDUCE_RESULT_BYTES, row) : NULL;
    /* The library's switch, read as the context reads it (a number, strtol base 0), so that
     * two launches are timed as two (docs/guide.md). */
    const char *passes = getenv("CLCOMPUTE_REDUCE_PASSES");
    const int two = passes && strtol(passes, NULL, 0) == 2;
    const double s = j.out ? bench_device_seconds(ctx, config, two, enqueue_reduce, &j, row) : -1.0;
    if (j.out)
        clReleaseMemObject(j.out);
    if (j.in)
        clReleaseMemObject(j.in);
    return s;
}

int bench_reduce(clc_context *ctx, const bench_config *config, clc_reduce_op op, clc_dtype type,
                 size_t n, bench_row *row)
{
    const int repeats = config->repeats;
    const size_t esize = clc_dtype_size(type);
    const size_t bytes = n * esize;
    memset(row, 0, sizeof *row);
    row->kernel = "reduce";
    snprintf(row->variant, sizeof row->variant, "%s %s", op == CLC_REDUCE_SUM ? "sum" : "argmax",
             clc_dtype_name(type));
    if (n % (1u << 20) == 0)
        snprintf(row->size, sizeof row->size, "%zuMi", n >> 20);
    else
        snprintf(row->size, sizeof row->size, "%zu", n);
    row->bytes = (double)bytes;
    row->items = (double)n;
    const clc_device_info *d = clc_context_device(ctx);
    if (type == CLC_DTYPE_F64 && !d->fp64) {
        snprintf(row->status, sizeof row->status, "skipped: no double precision on the device");
        return 0;
    }
    if (bytes > d->max_alloc_bytes || bytes > d->global_mem_bytes / 2) {
        snprintf(row->status, sizeof row->status, "skipped: %zu MiB do not fit the device",
                 bytes >> 20);
        return 0;
    }
    unsigned char *data = malloc(bytes);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!data || !t) {
        snprintf(row->status, sizeof row->status, "skipped: out of host memory");
        free(data), free(t);
        return 0;
    }
    uint32_t seed = 3;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        if (type == CLC_DTYPE_F32)
            ((float *)data)[i] = (float)(seed >> 8) * (1.0f / 16777216.0f) - 0.5f;
        else if (type == CLC_DTYPE_F64)
            ((double *)data)[i] = (double)(seed >> 8) * (1.0 / 16777216.0) - 0.5;
        else if (type == CLC_DTYPE_I32)
            ((int32_t *)data)[i] = (int32_t)seed;
        else if (type == CLC_DTYPE_I64)
            ((int64_t *)data)[i] = (int64_t)seed << 31;
        else if (type == CLC_DTYPE_F16) /* in (-0.5, 0.5): exponents 0 to 13, either sign */
            ((uint16_t *)data)[i] = (uint16_t)((seed >> 16) % (14u << 10) | (seed & 0x8000u));
        else if (type == CLC_DTYPE_BOOL)
            data[i] = (uint8_t)(seed >> 31);
        else
            data[i] = (uint8_t)(seed >> 24);
    }
    serial_result want = {0, 0};
    for (int r = 0; r < repeats; ++r) {
        const double t0 = bench_now();
        want = serial(op, type, data, n);
        t[r] = bench_now() - t0;
    }
    row->serial_s = bench_median(t, (size_t)repeats);

    clc_reduce_result got;
    clc_status st = clc_reduce(ctx, op, type, data, n, &got);
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        const double t0 = bench_now();
        st = clc_reduce(ctx, op, type, data, n, &got);
        t[r] = bench_now() - t0;
    }
    row->h2h_s = bench_median(t, (size_t)repeats);
    const int is_signed = type == CLC_DTYPE_I32 || type == CLC_DTYPE_I64 || type == CLC_DTYPE_BOOL;
    const double value = type == CLC_DTYPE_F32 || type == CLC_DTYPE_F64 || type == CLC_DTYPE_F16
                             ? got.f
                         : is_signed ? (double)got.i
                                     : (double)got.u;
    /* Half sums are rounded to half at the end: 2^-11 relative, against the serial float sum;
     * double sums are held to double's precision. */
    const double tolerance = type == CLC_DTYPE_F16   ? 1.0 / 1024
                             : type == CLC_DTYPE_F64 ? 1e-9
                                                     : 1e-3;
    int rc = 1;
    if (st != CLC_SUCCESS) {
        snprintf(row->status, sizeof row->status, "failed: %s", clc_last_error());
    } else if (op == CLC_REDUCE_ARGMAX
                   ? got.index != want.index
                   : fabs(value - want.value) > tolerance * (fabs(want.value) + 1)) {
        snprintf(row->status, sizeof row->status,
                 "failed: %.9g at %zu, the serial loop %.9g at %zu", value, got.index, want.value,
                 want.index);
    } else {
        row->device_s = device_seconds(ctx, config, op, type, data, n, row);
        rc = row->device_s <= 0;
        /* The same call on pinned memory (clc_host_alloc): the same result, bit for bit. */
        reduce_host h = {op, type, bench_pinned(ctx, data, bytes), n, {0, 0, 0, 0}};
        if (h.data) {
            const double s = bench_host_seconds(ctx, config, reduce_call, &h);
            if (s > 0 && memcmp(&h.result, &got, sizeof got) == 0)
                row->h2h_pinned_s = s;
        }
        clc_host_free(ctx, (void *)h.data);
    }
    free(data), free(t);
    return rc;
}

static int run(clc_context *ctx, const bench_config *config, bench_rows *rows)
{
    static const struct {
        clc_reduce_op op;
        clc_dtype type;
    } cases[] = {{CLC_REDUCE_SUM, CLC_DTYPE_F32}, {CLC_REDUCE_ARGMAX, CLC_DTYPE_F32},
                 {CLC_REDUCE_SUM, CLC_DTYPE_F64}, {CLC_REDUCE_SUM, CLC_DTYPE_I32},
                 {CLC_REDUCE_SUM, CLC_DTYPE_U8},  {CLC_REDUCE_SUM, CLC_DTYPE_I64},
                 {CLC_REDUCE_SUM, CLC_DTYPE_F16}, {CLC_REDUCE_SUM, CLC_DTYPE_BOOL}};
    static const size_t mebi[] = {1, 16, 64, 256};
    const size_t nsizes = config->quick ? 1 : 4;
    int failed = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (size_t s = 0; s < nsizes; ++s) {
            bench_row *row = bench_rows_add(rows);
            failed |=
                !row || bench_reduce(ctx, config, cases[c].op, cases[c].type, mebi[s] << 20, row);
        }
    return failed;
}

static clc_status first_call(clc_context *ctx)
{
    static float data[64 * 48];
    clc_reduce_result r;
    return clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, data, 64 * 48, &r);
}

const bench_family bench_family_reduce = {"reduce", run, first_call};
