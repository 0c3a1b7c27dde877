/* Host side of the reductions: validate, pick the shape, run the stages (one launch or two),
 * decode. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/internal.h"

/* How the kernel sees each type: in memory (S), computed in (T), its kind (1 float, 2 double,
 * 3 signed, 4 unsigned), what vector comparisons of T return, and how it is loaded (0 plain,
 * 1 half, 2 bool). */
typedef struct dtype_info {
    size_t size;
    const char *storage, *compute, *mask;
    int kind, load;
    const char *name; /* numpy's */
} dtype_info;

static const dtype_info *dtype_of(clc_dtype type)
{
    static const dtype_info table[] = {
        [CLC_DTYPE_F32] = {4, "float", "float", "int", 1, 0, "float32"},
        [CLC_DTYPE_F64] = {8, "double", "double", "long", 2, 0, "float64"},
        [CLC_DTYPE_I32] = {4, "int", "int", "int", 3, 0, "int32"},
        [CLC_DTYPE_U32] = {4, "uint", "uint", "int", 4, 0, "uint32"},
        [CLC_DTYPE_U8] = {1, "uchar", "uchar", "char", 4, 0, "uint8"},
        [CLC_DTYPE_I64] = {8, "long", "long", "long", 3, 0, "int64"},
        [CLC_DTYPE_U64] = {8, "ulong", "ulong", "long", 4, 0, "uint64"},
        [CLC_DTYPE_I16] = {2, "short", "short", "short", 3, 0, "int16"},
        [CLC_DTYPE_U16] = {2, "ushort", "ushort", "short", 4, 0, "uint16"},
        [CLC_DTYPE_I8] = {1, "char", "char", "char", 3, 0, "int8"},
        [CLC_DTYPE_F16] = {2, "half", "float", "int", 1, 1, "float16"},
        [CLC_DTYPE_BOOL] = {1, "uchar", "uchar", "char", 4, 2, "bool"},
    };
    const size_t t = (size_t)type;
    return t > 0 && t < sizeof table / sizeof table[0] ? &table[t] : NULL;
}

size_t clc_dtype_size(clc_dtype type)
{
    const dtype_info *d = dtype_of(type);
    return d ? d->size : 0;
}

const char *clc_dtype_name(clc_dtype type)
{
    const dtype_info *d = dtype_of(type);
    return d ? d->name : NULL;
}

static clc_status check_args(clc_context *ctx, clc_reduce_op op, clc_dtype type, size_t count,
                             const char *fn)
{
    if (op < CLC_REDUCE_SUM || op > CLC_REDUCE_ARGMAX)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: unknown operation %d", fn, (int)op);
    if (!clc_dtype_size(type))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: unknown element type %d", fn,
                         (int)type);
    if (count == 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: the array is empty; a reduction needs at least one element", fn);
    if (count > SIZE_MAX / clc_dtype_size(type))
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow size_t", fn,
                         count);
    if (type == CLC_DTYPE_F64 && ctx && !ctx->info.fp64)
        return clc__fail(ctx, CLC_ERROR_UNSUPPORTED,
                         "%s: device \"%s\" has no double precision for F64 input", fn,
                         ctx->info.name);
    return CLC_SUCCESS;
}

/* Bytes of the kernel's acc_t, what its local scratch takes an item: an accumulator and a 64-bit
 * index, 16 bytes, or 32 where the accumulator is 16 bytes and so aligned (a double sum with its
 * compensation, a 128-bit integer sum). The kernel is built with -DACC_BYTES and refuses to
 * compile where its sizeof(acc_t) differs. */
static size_t acc_bytes(clc_reduce_op op, const dtype_info *d)
{
    const int sum = op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN;
    return sum && (d->kind == 2 || (d->kind >= 3 && d->size == 8)) ? 32 : 16;
}

/* Build options of the program for a type and operation: MIN is ARGMIN without the index, MEAN
 * a SUM divided on the host, so three programs serve six operations. */
static void build_options(clc_reduce_op op, clc_dtype type, int items, size_t acc, char *buf,
                          size_t size)
{
    const dtype_info *d = dtype_of(type);
    const int kernel_op = op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN     ? 1
                          : op == CLC_REDUCE_MIN || op == CLC_REDUCE_ARGMIN ? 4
                                                                            : 5;
    snprintf(buf, size,
             "-DS=%s -DT=%s -DKIND=%d -DMASK=%s -DLOAD=%d -DWIDE=%d -DOP=%d -DVW=%zu -DITEMS=%d "
             "-DACC_BYTES=%zu",
             d->storage, d->compute, d->kind, d->mask, d->load, d->kind >= 3 && d->size == 8,
             kernel_op, 16 / d->size, items, acc);
}

static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* The program ctx's reductions of a type and operation use: whether it takes the CPU shape
 * (*items = 1, when items is not NULL) or the GPU one, its local scratch bytes an item (*acc) and
 * its build options; 0 when the shape's switch is invalid (its message set).
 * CLCOMPUTE_REDUCE_SHAPE=groups or items forces a shape, so CPU-only CI covers both. */
static int program_for(clc_context *ctx, clc_reduce_op op, clc_dtype type, int *items, size_t *acc,
                       char options[192])
{
    int force = 0; /* 0 items, 1 groups */
    const int forced = clc__switch(ctx, CLC_SW_REDUCE_SHAPE, &force);
    const int chunks = forced ? force == 0 : ctx->info.type == CLC_DEVICE_CPU;
    if (items)
        *items = chunks;
    *acc = acc_bytes(op, dtype_of(type));
    build_options(op, type, chunks, *acc, options, 192);
    return forced >= 0;
}

clc_status clc_reduce_enqueue(clc_context *ctx, clc_reduce_op op, clc_dtype type, cl_mem buffer,
                              size_t offset, size_t count, cl_mem result,
                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                              cl_event *event)
{
    if (event)
        *event = NULL;
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_reduce_enqueue: ctx is NULL");
    clc_status st = check_args(ctx, op, type, count, "clc_reduce_enqueue");
    if (st != CLC_SUCCESS)
        return st;
    if ((num_events_in_wait_list > 0) != (event_wait_list != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_reduce_enqueue: wait list and its count disagree");
    const size_t esize = clc_dtype_size(type);
    if (offset % esize != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_reduce_enqueue: offset %zu is not a multiple of %zu", offset, esize);
    st = clc__check_buffer(ctx, buffer, offset, count * esize, "input buffer");
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, result, 0, CLC_REDUCE_RESULT_BYTES, "result buffer");
    if (st != CLC_SUCCESS)
        return st;

    /* Shape, fixed per device and size so that results are reproducible: CPU devices take a
     * few contiguous chunks (work-groups of one, about eight a core, no barriers); GPUs take
     * 1024 or 2048 items a compute unit (below), striding over the array. The
     * kernel is built for one shape (-DITEMS): the chunk path's 64 lanes of float sums would
     * otherwise count in a GPU build's registers, though it never runs there. */
    size_t local = 1, groups;
    const size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
    int items;
    size_t acc;
    char options[192];
    if (!program_for(ctx, op, type, &items, &acc, options))
        return CLC_ERROR_INVALID_ARGUMENT;

    /* Both stages in one launch (reduce_onepass) unless CLCOMPUTE_REDUCE_PASSES=2 asks for
     * two: the second launch and the gap before it cost more than the one pass's atomics (H100,
     * 256 Mi float32, span of the stages: sum 0.3545 -> 0.3508 ms, argmax 0.3672 -> 0.3649;
     * docs/perf/h100-session17.md). On PoCL both measure alike. */
    int passes = 1;
    const int forced_passes = clc__switch(ctx, CLC_SW_REDUCE_PASSES, &passes);
    if (forced_passes < 0)
        return CLC_ERROR_INVALID_ARGUMENT;
    const int onepass = passes == 1;

    cl_kernel k1 = NULL, k2 = NULL;
    cl_mem input = NULL, partials = NULL;
    cl_int err = CL_SUCCESS;
    st = clc__kernel_take(ctx, &clc__source_reduce, options,
                          onepass ? "reduce_onepass" : "reduce_stage1", &k1);
    if (st == CLC_SUCCESS && !onepass)
        st = clc__kernel_take(ctx, &clc__source_reduce, options, "reduce_stage2", &k2);
    if (st != CLC_SUCCESS)
        goto done;

    if (items) {
        groups = 8 * cus;
    } else {
        /* Every work-group in the first wave, and as few of them as that allows, so that the
         * last one has few partials to combine: a second wave's start costs more than the
         * combining. OpenCL cannot tell how many items are resident (registers), so the counts
         * are fixed per kind of operation, measured on an H100 (one launch, 256 Mi float32,
         * docs/perf/h100-session18.md): comparisons keep a best value and its step a lane, 48
         * registers an item, so 1024 items a compute unit are resident, in two work-groups of
         * 512 (argmax 0.3632 -> 0.3570 ms, max 0.3629 -> 0.3562 against four of 512, which ran
         * in two waves); a float sum takes 32, so 2048 are, in two of 1024 (0.3469 -> 0.3451
         * against four of 512). Sums take 1024 only where an item then makes 32 loads or more:
         * on smaller arrays more, smaller work-groups finish sooner (1 Mi float32 0.009 ms in
         * four of 512, 0.010-0.011 in two of 1024). The scratch takes local x acc_bytes of local
         * memory, within the device's. */
        const int compares = op != CLC_REDUCE_SUM && op != CLC_REDUCE_MEAN;
        const size_t per_unit = compares ? 1024 : 2048;
        size_t want = compares ? 512 : 1024;
        if (!compares && count / (16 / clc_dtype_size(type)) < 32 * per_unit * cus)
            want = 512;
        while (want > 64 && want * acc + 64 > ctx->info.local_mem_bytes)
            want /= 2;
        st = clc__local_size(ctx, k1, want, &local);
        if (st != CLC_SUCCESS)
            goto done;
        local = pow2_floor(local);
        groups = (local < per_unit ? per_unit / local : 1) * cus;
        const size_t needed = (count + local * 16 - 1) / (local * 16);
        if (needed < groups)
            groups = needed;
        /* An item counts its steps in 32 bits (min, max, argmin, argmax): enough items that
         * none takes 2^31 of them, whatever the device's memory. */
        const size_t most = (size_t)UINT32_MAX / 2;
        if (count / (groups * local) >= most)
            groups = count / (local * most) + 1;
    }
    if (groups > count)
        groups = count;
    if (groups == 0)
        groups = 1;
    size_t local2 = 1;
    if (!items && !onepass) {
        /* Stage 2 in work-groups as large as stage 1's where it can: the one launch combines
         * the partials in those, and float sums then give the same bits either way. */
        st = clc__local_size(ctx, k2, local, &local2);
        if (st != CLC_SUCCESS)
            goto done;
        local2 = pow2_floor(local2);
    }

    /* The offset goes to the kernel, which aligns its vector loads itself: a sub-buffer would
     * need the device's base alignment, and a copy would cost a pass over the input. */
    input = buffer;
    err = clRetainMemObject(buffer);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "preparing the reduction input");
        goto done;
    }
    const cl_ulong n = count;
    const cl_ulong first = offset / esize;
    const size_t global1 = groups * local;
    if (onepass) {
        /* A count and four words a work-group (cl/reduce.cl); ctx's queue runs it. */
        st = clc__onepass_state(ctx, &ctx->reduce_sync, &ctx->reduce_sync_words, 1 + 4 * groups,
                                "reduction one-pass state", &partials);
        const clc_arg a[] = {CLC_ARG(input),    CLC_ARG(first),  CLC_ARG(n),
                             CLC_ARG(partials), CLC_ARG(result), {local * acc, NULL}};
        if (st == CLC_SUCCESS)
            st = clc__set_args(ctx, k1, "reduce_onepass", a, 6);
        if (st == CLC_SUCCESS &&
            (err = clEnqueueNDRangeKernel(ctx->queue, k1, 1, NULL, &global1, &local,
                                          num_events_in_wait_list, event_wait_list, event)) !=
                CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(reduce)");
        goto done;
    }
    partials = clc__scratch(ctx, CL_MEM_READ_WRITE, groups * 16, &err);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "clCreateBuffer(reduction partials)");
        goto done;
    }
    const cl_uint ngroups = (cl_uint)groups;
    const clc_arg a1[] = {
        CLC_ARG(input), CLC_ARG(first), CLC_ARG(n), CLC_ARG(partials), {local * acc, NULL}};
    const clc_arg a2[] = {
        CLC_ARG(partials), CLC_ARG(ngroups), CLC_ARG(result), {local2 * acc, NULL}};
    st = clc__set_args(ctx, k1, "reduce_stage1", a1, 5);
    if (st == CLC_SUCCESS)
        st = clc__set_args(ctx, k2, "reduce_stage2", a2, 4);
    if (st != CLC_SUCCESS)
        goto done;
    err = clEnqueueNDRangeKernel(ctx->queue, k1, 1, NULL, &global1, &local, num_events_in_wait_list,
                                 event_wait_list, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(ctx->queue, k2, 1, NULL, &local2, &local2, 0, NULL, event);
    if (err != CL_SUCCESS)
        st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(reduce)");
done:
    /* Enqueued commands keep what they use alive. */
    if (partials)
        clReleaseMemObject(partials);
    if (input)
        clReleaseMemObject(input);
    clc__kernel_give(ctx, &k1);
    clc__kernel_give(ctx, &k2);
    return st;
}

/* x rounded to the nearest IEEE half (ties to even), as a double: numpy's float16 results. By
 * plain arithmetic on powers of two, which are exact, so the library needs no libm. */
static double round_to_half(double x)
{
    const double a = x < 0 ? -x : x;
    if (a != a || a == 0.0 || a > DBL_MAX)
        return x;
    if (a >= 65520.0) /* halfway between the largest half (65504) and 2^16 rounds up: infinity */
        return x < 0 ? -INFINITY : INFINITY;
    /* A half has 11 significant bits down to 2^-14, then a fixed step of 2^-24 (subnormals):
     * the step is 2^-24 below 2^-13, else 2^(e - 10) for a in [2^e, 2^(e+1)). */
    double step = 1.0 / 16777216.0;
    while (a >= step * 2048.0)
        step *= 2.0;
    const double units = a / step; /* exact: a power-of-two divisor, under 2^11 units */
    double r = (double)(long long)units;
    const double frac = units - r;
    if (frac > 0.5 || (frac == 0.5 && ((long long)r & 1)))
        r += 1.0;
    return x < 0 ? -(r * step) : r * step;
}

clc_status clc_reduce_decode(clc_reduce_op op, clc_dtype type, const void *bytes, size_t count,
                             clc_reduce_result *result)
{
    if (!bytes || !result)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_reduce_decode: NULL argument");
    clc_status st = check_args(NULL, op, type, count, "clc_reduce_decode");
    if (st != CLC_SUCCESS)
        return st;
    const dtype_info *d = dtype_of(type);
    const unsigned char *b = bytes;
    memset(result, 0, sizeof *result);
    const int sum = op == CLC_REDUCE_SUM || op == CLC_REDUCE_MEAN;
    const int mean = op == CLC_REDUCE_MEAN;
    if (!sum)
        memcpy(&result->index, b + 8, 8);
    if (d->kind == 1) {
        float v[2];
        memcpy(v, b, sizeof v);
        /* A sum carries its Kahan compensation: the value is s - c; + 0.0 as numpy's sums start
         * from 0.0, so that negative zeros alone sum to 0.0, not -0.0 (every other value is
         * unchanged). */
        double f = sum ? ((double)v[0] - (double)v[1]) + 0.0 : (double)v[0];
        if (mean)
            f /= (double)count;
        /* Through float for half too: numpy sums and divides float16 in float32. */
        result->f = (double)(float)f;
        if (type == CLC_DTYPE_F16)
            result->f = round_to_half(result->f);
    } else if (d->kind == 2) {
        double v[2];
        memcpy(v, b, sum ? 16 : 8);
        double f = sum ? (v[0] - v[1]) + 0.0 : v[0]; /* + 0.0: as above */
        result->f = mean ? f / (double)count : f;
    } else if (sum) {
        /* 64 bits (the low word of a 128-bit sum for 64-bit elements), wrapping as numpy's. */
        uint64_t lo = 0, hi = 0;
        memcpy(&lo, b, 8);
        if (d->size == 8)
            memcpy(&hi, b + 8, 8);
        const int is_signed = d->kind == 3 || type == CLC_DTYPE_BOOL;
        if (is_signed)
            result->i = (int64_t)lo;
        else
            result->u = lo;
        if (mean) {
            /* The exact sum, divided once: hi:lo in 128 bits where there is a high word. */
            long double s = (long double)lo;
            if (d->size == 8)
                s += (d->kind == 3 ? (long double)(int64_t)hi : (long double)hi) *
                     18446744073709551616.0L; /* 2^64 */
            else if (is_signed)
                s = (long double)(int64_t)lo;
            result->f = (double)(s / (long double)count);
        }
    } else {
        /* The extreme itself, in the element's own size at the start of the word. */
        int8_t i8;
        int16_t i16;
        int32_t i32;
        switch (d->kind == 3 ? d->size : 0) {
        case 1:
            memcpy(&i8, b, 1);
            result->i = i8;
            break;
        case 2:
            memcpy(&i16, b, 2);
            result->i = i16;
            break;
        case 4:
            memcpy(&i32, b, 4);
            result->i = i32;
            break;
        case 8:
            memcpy(&result->i, b, 8);
            break;
        default: /* unsigned and bool: zero-extended */
            memcpy(&result->u, b, d->size);
            break;
        }
    }
    return CLC_SUCCESS;
}

/* count elements of host memory reduced into the kernel's result words. */
static clc_status reduce_piece(clc_context *ctx, clc_reduce_op op, clc_dtype type, const void *data,
                               size_t count, unsigned char words[CLC_REDUCE_RESULT_BYTES])
{
    const size_t bytes = count * clc_dtype_size(type);
    cl_int err = CL_SUCCESS;
    cl_event up[2];
    cl_mem input = clc__host_input(ctx, data, bytes, up, &err);
    if (err != CL_SUCCESS)
        return clc__cl_fail(ctx, err, "preparing the reduction input");
    cl_mem out = clc__scratch(ctx, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, &err);
    if (err != CL_SUCCESS) {
        /* The input's upload may still read the caller's memory: finished first. */
        int idle;
        const clc_status failed =
            clc__host_finish(ctx, clc__cl_fail(ctx, err, "clCreateBuffer(reduction result)"), up, 2,
                             "reduction", &idle);
        clReleaseMemObject(input);
        return failed;
    }
    clc_status st = clc_reduce_enqueue(ctx, op, type, input, 0, count, out, 0, NULL, NULL);
    if (st == CLC_SUCCESS) {
        err = clEnqueueReadBuffer(ctx->queue, out, CL_TRUE, 0, CLC_REDUCE_RESULT_BYTES, words, 0,
                                  NULL, NULL);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueReadBuffer(reduction result)");
    }
    /* The caller's memory must not be in use once we return, whatever happened. */
    int idle = 0;
    st = clc__host_finish(ctx, st, up, 2, "reduction", &idle);
    clc__host_release(ctx, &out, idle);
    clc__host_release(ctx, &input, idle);
    return st;
}

/* The result words of `pieces` consecutive pieces (indices already counted from the array's
 * start) combined in order into words[0..16): by the kernel's stage 2 in a work-group of one, so
 * that float sums keep their compensation, 64-bit sums their 128 bits, and ties and NaN go to
 * the earlier piece, exactly as within one piece. */
static clc_status combine_pieces(clc_context *ctx, clc_reduce_op op, clc_dtype type,
                                 unsigned char *words, size_t pieces)
{
    size_t acc;
    char options[192];
    if (!program_for(ctx, op, type, NULL, &acc, options))
        return CLC_ERROR_INVALID_ARGUMENT;
    cl_kernel k = NULL;
    cl_mem in = NULL, out = NULL;
    cl_int err = CL_SUCCESS;
    clc_status st = clc__kernel_take(ctx, &clc__source_reduce, options, "reduce_stage2", &k);
    if (st != CLC_SUCCESS)
        goto done;
    in = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        pieces * CLC_REDUCE_RESULT_BYTES, words, &err);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "clCreateBuffer(reduction pieces)");
        in = NULL;
        goto done;
    }
    out = clc__scratch(ctx, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, &err);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "clCreateBuffer(reduction result)");
        goto done;
    }
    const cl_uint n = (cl_uint)pieces;
    const size_t one = 1;
    const clc_arg a[] = {CLC_ARG(in), CLC_ARG(n), CLC_ARG(out), {acc, NULL}};
    st = clc__set_args(ctx, k, "reduce_stage2", a, 4);
    if (st != CLC_SUCCESS)
        goto done;
    err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &one, &one, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(reduce pieces)");
        goto done;
    }
    err = clEnqueueReadBuffer(ctx->queue, out, CL_TRUE, 0, CLC_REDUCE_RESULT_BYTES, words, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS)
        st = clc__cl_fail(ctx, err, "clEnqueueReadBuffer(reduction result)");
done: /* the upload was a copy at creation and the read blocks: nothing here uses `words` */
    clc__release_mem(&out);
    clc__release_mem(&in);
    clc__kernel_give(ctx, &k);
    return st;
}

clc_status clc_reduce(clc_context *ctx, clc_reduce_op op, clc_dtype type, const void *data,
                      size_t count, clc_reduce_result *result)
{
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_reduce: ctx is NULL");
    if (!data || !result)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_reduce: data and result must not be NULL");
    clc_status st = check_args(ctx, op, type, count, "clc_reduce");
    if (st != CLC_SUCCESS)
        return st;
    const size_t esize = clc_dtype_size(type);
    if ((uintptr_t)data % esize != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_reduce: data is not aligned to its %zu-byte elements", esize);
    /* An array larger than the device's largest buffer goes in pieces of at most that many
     * bytes (CLCOMPUTE_REDUCE_PIECE, for tests, makes them smaller), each reduced as an array of
     * its own and their results combined in order: what numpy users expect of any array that
     * fits in memory. Pieces are whole 16-byte groups, so each keeps the array's alignment and
     * the result is fixed by the device, the size and the alignment, as for one piece. */
    uint64_t limit = ctx->info.max_alloc_bytes;
    int forced = 0;
    const int piece_switch = clc__switch(ctx, CLC_SW_REDUCE_PIECE, &forced);
    if (piece_switch < 0)
        return CLC_ERROR_INVALID_ARGUMENT;
    if (piece_switch && (uint64_t)forced < limit)
        limit = (uint64_t)forced;
    if (limit > SIZE_MAX)
        limit = SIZE_MAX;
    const size_t piece = (size_t)(limit < 16 ? 16 : limit / 16 * 16) / esize;
    const size_t pieces = (count - 1) / piece + 1;
    if (pieces > UINT32_MAX)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_reduce: %zu elements make more than 2^32 pieces", count);
    unsigned char one[CLC_REDUCE_RESULT_BYTES];
    unsigned char *words = one;
    if (pieces > 1 && !(words = malloc(pieces * CLC_REDUCE_RESULT_BYTES)))
        return clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY,
                         "clc_reduce: no host memory for %zu pieces' results", pieces);
    const int indexed = op != CLC_REDUCE_SUM && op != CLC_REDUCE_MEAN;
    for (size_t p = 0; p < pieces && st == CLC_SUCCESS; ++p) {
        const size_t at = p * piece, n = count - at < piece ? count - at : piece;
        unsigned char *w = words + p * CLC_REDUCE_RESULT_BYTES;
        st = reduce_piece(ctx, op, type, (const unsigned char *)data + at * esize, n, w);
        if (st == CLC_SUCCESS && indexed && p > 0) {
            /* The second word is the index within the piece (cl/reduce.cl, store). */
            uint64_t index;
            memcpy(&index, w + 8, 8);
            index += at;
            memcpy(w + 8, &index, 8);
        }
    }
    if (st == CLC_SUCCESS && pieces > 1)
        st = combine_pieces(ctx, op, type, words, pieces);
    if (st == CLC_SUCCESS)
        st = clc_reduce_decode(op, type, words, count, result);
    if (words != one)
        free(words);
    return st;
}
