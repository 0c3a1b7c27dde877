/* Status codes returned by every libclcompute call. */
#ifndef CLCOMPUTE_STATUS_H
#define CLCOMPUTE_STATUS_H

#include "clcompute/opencl.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One status type for the whole library. Values between -1 and -999 are OpenCL error codes
 * passed through unchanged (CL_OUT_OF_RESOURCES is -5 here too); the library's own failures use
 * the range -2000..-2099, away from OpenCL's and from the ICD loader's (-1001..-1099).
 * A detailed message for the last failure is kept as well: see clc_last_error() and
 * clc_context_last_error() in runtime.h.
 */
typedef enum clc_status {
    CLC_SUCCESS = 0,

    /* OpenCL codes that the library itself returns for its own checks. */
    CLC_ERROR_OUT_OF_RESOURCES = CL_OUT_OF_RESOURCES,
    CLC_ERROR_OUT_OF_HOST_MEMORY = CL_OUT_OF_HOST_MEMORY,
    CLC_ERROR_BUILD_PROGRAM_FAILURE = CL_BUILD_PROGRAM_FAILURE,

    /* An argument is NULL, zero, out of range or an unknown enum value, or a handle is used as
     * its documentation forbids (a batch run while it runs). */
    CLC_ERROR_INVALID_ARGUMENT = -2001,
    /* The ICD loader found no OpenCL platform (or every platform failed to answer). */
    CLC_ERROR_NO_PLATFORM = -2002,
    /* Platforms exist but none has a usable device. */
    CLC_ERROR_NO_DEVICE = -2003,
    /* A device selector is well formed but matched no device. Never silently replaced. */
    CLC_ERROR_DEVICE_NOT_MATCHED = -2004,
    /* A device selector could not be parsed (empty, or a malformed "P:D"). */
    CLC_ERROR_INVALID_SELECTOR = -2005,
    /* The device lacks something the call needs (fp64, an image format, ...). */
    CLC_ERROR_UNSUPPORTED = -2006,
    /* A file could not be read or written. */
    CLC_ERROR_IO = -2007,
    /* A size computation would overflow size_t, or a buffer is too small for the result. */
    CLC_ERROR_SIZE_OVERFLOW = -2008,
    /* The work was cancelled (clc_batch_cancel) before it ran. */
    CLC_ERROR_CANCELLED = -2009
} clc_status;

/*
 * The status' symbolic name: "CLC_SUCCESS", "CLC_ERROR_NO_PLATFORM", "CL_OUT_OF_RESOURCES",
 * "CL_PLATFORM_NOT_FOUND_KHR", ... An unknown value gives "CLC_UNKNOWN_STATUS". The string is
 * static; never NULL.
 */
CLC_API const char *clc_status_string(int status);

/* A one-line English description of the status, static, never NULL. */
CLC_API const char *clc_status_description(int status);

#ifdef __cplusplus
}
#endif

#endif
