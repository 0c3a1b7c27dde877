/* Reductions of arrays: sum, min, max, mean, argmin, argmax, with numpy's semantics. */
#ifndef CLCOMPUTE_REDUCE_H
#define CLCOMPUTE_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, as numpy names them (float32, ..., bool). Zero is no type. */
typedef enum clc_dtype {
    CLC_DTYPE_F32 = 1,
    CLC_DTYPE_F64 = 2, /* only on devices with double precision (clc_device_info.fp64) */
    CLC_DTYPE_I32 = 3,
    CLC_DTYPE_U32 = 4,
    CLC_DTYPE_U8 = 5,
    CLC_DTYPE_I64 = 6,
    CLC_DTYPE_U64 = 7,
    CLC_DTYPE_I16 = 8,
    CLC_DTYPE_U16 = 9,
    CLC_DTYPE_I8 = 10,
    CLC_DTYPE_F16 = 11, /* IEEE 754 half, computed in float: no device half support needed */
    CLC_DTYPE_BOOL = 12 /* one byte: 0 is false, anything else true (numpy writes 0 and 1) */
} clc_dtype;

typedef enum clc_reduce_op {
    CLC_REDUCE_SUM = 1,
    CLC_REDUCE_MIN = 2,
    CLC_REDUCE_MAX = 3,
    CLC_REDUCE_MEAN = 4,
    CLC_REDUCE_ARGMIN = 5,
    CLC_REDUCE_ARGMAX = 6
} clc_reduce_op;

/* Bytes per element of a type, 0 for an unknown one. */
CLC_API size_t clc_dtype_size(clc_dtype type);

/* numpy's name of a type ("float32", "int64", "bool"), NULL for an unknown one. */
CLC_API const char *clc_dtype_name(clc_dtype type);

/*
 * The result of a reduction, in the field of numpy's result type:
 * - f: F16, F32 and F64 sums, mins and maxes (rounded to the element type: a F16 or F32 result is
 *   exactly representable in it), and the mean of every type (a double; for F32 input rounded to
 *   float and for F16 to half, as numpy's float32 and float16 results);
 * - i: sums of signed integers and of BOOL (the count of true elements), all int64 as numpy's,
 *   wrapping as numpy's int64 does; mins and maxes of signed integers;
 * - u: sums of unsigned integers (uint64, wrapping), mins and maxes of unsigned integers and of
 *   BOOL (0 or 1);
 * - index: ARGMIN and ARGMAX, the first index of the extreme (of the first NaN if any), and the
 *   extreme itself in f, i or u.
 * Integer means are exact sums divided once: 64-bit elements are summed in 128 bits for them.
 */
typedef struct clc_reduce_result {
    double f;
    int64_t i;
    uint64_t u;
    uint64_t index;
} clc_reduce_result;

/*
 * Reduces `count` elements of host memory. Blocking; in place on host-unified devices. An array
 * larger than the device's largest buffer is reduced in pieces, with the same semantics.
 * Semantics: float sums are compensated, deterministic for a device and size, and at least as
 * accurate as numpy's pairwise sum; NaN propagates through MIN and MAX, and ARGMIN/ARGMAX return
 * the first NaN's index; ties return the first index; infinities follow IEEE arithmetic; the sum
 * of -0.0 alone is -0.0. An empty array is CLC_ERROR_INVALID_ARGUMENT, F64 on a device without
 * double precision CLC_ERROR_UNSUPPORTED.
 */
CLC_API clc_status clc_reduce(clc_context *ctx, clc_reduce_op op, clc_dtype type, const void *data,
                              size_t count, clc_reduce_result *result);

/* Bytes of a device-side result written by clc_reduce_enqueue. */
#define CLC_REDUCE_RESULT_BYTES 16

/*
 * The same on `count` elements of a device buffer from byte `offset` (a multiple of the element
 * size), enqueued without waiting. The result stays on the device, in the first
 * CLC_REDUCE_RESULT_BYTES of `result` (for chaining; its layout is for clc_reduce_decode, and for
 * MEAN it holds the sum). *event (optional) completes with it.
 */
CLC_API clc_status clc_reduce_enqueue(clc_context *ctx, clc_reduce_op op, clc_dtype type,
                                      cl_mem buffer, size_t offset, size_t count, cl_mem result,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event);

/* Turns the CLC_REDUCE_RESULT_BYTES read from a device-side result into a clc_reduce_result;
 * count is the number of elements reduced (for MEAN). */
CLC_API clc_status clc_reduce_decode(clc_reduce_op op, clc_dtype type, const void *bytes,
                                     size_t count, clc_reduce_result *result);

#ifdef __cplusplus
}
#endif

#endif
