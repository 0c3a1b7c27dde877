/* The last-error messages: one per thread, one per context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Thread-local so that threads sharing a context each see their own failure; the context's copy
 * keeps the full text (build logs can be long), this one is cut to a fixed size to avoid a heap
 * allocation that would outlive the thread. */
#define THREAD_MESSAGE_SIZE 8192
static _Thread_local char thread_message[THREAD_MESSAGE_SIZE];

const char *clc_last_error(void)
{
    return thread_message;
}

const char *clc__last_detail(void)
{
    /* "CLC_ERROR_X: detail": the detail, for a message that wraps another in its own words. */
    const char *sep = strncmp(thread_message, "CLC_", 4) == 0 ? strstr(thread_message, ": ") : NULL;
    return sep ? sep + 2 : thread_message;
}

static void record(clc_context *ctx, char *message)
{
    const char *text = message ? message : "out of host memory while formatting an error";
    size_t n = strlen(text);
    if (n >= THREAD_MESSAGE_SIZE) {
        static const char cut[] = "... [cut; clc_context_last_error has the whole text]";
        size_t keep = THREAD_MESSAGE_SIZE - sizeof cut;
        memcpy(thread_message, text, keep);
        memcpy(thread_message + keep, cut, sizeof cut);
    } else {
        memcpy(thread_message, text, n + 1);
    }
    if (ctx && message) {
        clc_mutex_lock(&ctx->lock);
        free(ctx->last_error);
        ctx->last_error = message;
        clc_mutex_unlock(&ctx->lock);
    } else {
        free(message);
    }
}

clc_status clc__fail(clc_context *ctx, clc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = clc__vasprintf(fmt, ap);
    va_end(ap);
    char *message = detail ? clc__asprintf("%s: %s", clc_status_string(status), detail) : NULL;
    free(detail);
    record(ctx, message);
    return status;
}

void clc__note(clc_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = clc__vasprintf(fmt, ap);
    va_end(ap);
    record(ctx, detail ? clc__asprintf("note: %s", detail) : NULL);
    free(detail);
}

clc_status clc__cl_fail(clc_context *ctx, cl_int err, const char *call)
{
    const char *name = clc__cl_error_name(err);
    /* The one failure a caller can mend by cutting the work: say so, with the limit. */
    char hint[160] = "";
    if (err == CL_INVALID_BUFFER_SIZE && ctx)
        snprintf(hint, sizeof hint,
                 ": more than the device's largest buffer (%llu bytes, "
                 "CL_DEVICE_MAX_MEM_ALLOC_SIZE); split the work",
                 (unsigned long long)ctx->info.max_alloc_bytes);
    record(ctx, name ? clc__asprintf("%s failed: %s (%d)%s", call, name, (int)err, hint)
                     : clc__asprintf("%s failed: OpenCL error %d%s", call, (int)err, hint));
    return (clc_status)err;
}

size_t clc_context_last_error(clc_context *ctx, char *buf, size_t size)
{
    if (!ctx) {
        if (buf && size)
            buf[0] = '\0';
        return 0;
    }
    clc_mutex_lock(&ctx->lock);
    const char *text = ctx->last_error ? ctx->last_error : "";
    size_t n = strlen(text);
    if (buf && size) {
        size_t keep = n < size ? n : size - 1;
        memcpy(buf, text, keep);
        buf[keep] = '\0';
    }
    clc_mutex_unlock(&ctx->lock);
    return n;
}
