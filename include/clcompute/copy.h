/* The device's own memory limit: every kernel's throughput is compared with it. */
#ifndef CLCOMPUTE_COPY_H
#define CLCOMPUTE_COPY_H

#include <stddef.h>

#include "clcompute/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Measures device-memory copy bandwidth with a float4 copy kernel between two buffers of `bytes`
 * each (rounded down to 16 bytes; at least 1 MiB, choose several times the device's caches).
 * Runs the kernel once to warm up, then `repeats` times (0 means 10), timed with event
 * profiling on a private queue; *gbps is the median in 1e9 bytes per second counting bytes read
 * plus bytes written. Blocking. CLC_ERROR_UNSUPPORTED when the device cannot allocate that much.
 */
CLC_API clc_status clc_measure_copy_bandwidth(clc_context *ctx, size_t bytes, unsigned repeats,
                                              double *gbps);

#ifdef __cplusplus
}
#endif

#endif
