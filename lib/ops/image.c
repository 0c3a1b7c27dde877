/* Image descriptions: bytes per pixel and the memory an image spans, overflow-checked; and the
 * host-memory form shared by the image-to-image operations. */
#include <stdint.h>
#include <stdio.h>

#include "../runtime/internal.h"

size_t clc_pixel_size(clc_pixel_format format)
{
    switch (format) {
    case CLC_PIXEL_RGB8:
    case CLC_PIXEL_BGR8:
        return 3;
    case CLC_PIXEL_RGBA8:
    case CLC_PIXEL_BGRA8:
    case CLC_PIXEL_GRAY_F32:
    case CLC_PIXEL_DEPTH_F32:
        return 4;
    case CLC_PIXEL_DEPTH_U16:
        return 2;
    case CLC_PIXEL_GRAY8:
        return 1;
    }
    return 0;
}

clc_status clc_image_span(const clc_image_desc *desc, size_t *bytes)
{
    if (!desc || !bytes)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image description is NULL");
    size_t bpp = clc_pixel_size(desc->format);
    if (!bpp)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "unknown pixel format %d",
                         (int)desc->format);
    if (desc->width == 0 || desc->height == 0)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "image size %zu x %zu is empty",
                         desc->width, desc->height);
    if (desc->width > SIZE_MAX / bpp)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW, "a row of %zu pixels overflows size_t",
                         desc->width);
    size_t row = desc->width * bpp;
    size_t pitch = desc->pitch ? desc->pitch : row;
    if (pitch < row)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT,
                         "pitch %zu bytes is below one row of %zu pixels (%zu bytes)", pitch,
                         desc->width, row);
    if (desc->height - 1 > (SIZE_MAX - row) / pitch)
        return clc__fail(NULL, CLC_ERROR_SIZE_OVERFLOW,
                         "%zu rows of pitch %zu bytes overflow size_t", desc->height, pitch);
    *bytes = (desc->height - 1) * pitch + row;
    return CLC_SUCCESS;
}

/* The pixels of rows [r0, r1) of a device-side destination with pitch padding into host memory,
 * leaving the caller's padding bytes as they were. */
static cl_int read_rows(cl_command_queue queue, cl_mem buffer, const clc_image_desc *dst,
                        size_t pitch, void *host, size_t r0, size_t r1, cl_bool blocking,
                        cl_event *event)
{
    const size_t row = dst->width * clc_pixel_size(dst->format);
    const size_t origin[3] = {0, r0, 0}, region[3] = {row, r1 - r0, 1};
    return clEnqueueReadBufferRect(queue, buffer, blocking, origin, origin, region, pitch, 0, pitch,
                                   0, host, 0, NULL, event);
}

static int aligned16(uintptr_t a, size_t b)
{
    return ((a | b) & 15) == 0;
}

/* ---- banded host calls ---- */

/* The most bands a call is cut into (CLCOMPUTE_BANDS caps at this too). */
#define MAX_BANDS 64

/* Everything one banded call moves: the caller's memory, the device buffers, and how. */
typedef struct band_job {
    const char *src_data;
    size_t src_bytes, src_pitch;
    const clc_image_desc *dst;
    char *dst_data;
    size_t dst_bytes, dst_pitch;
    cl_mem src_buf, dst_buf;
    cl_command_queue down;      /* the second queue: results come back on it */
    int staged_up, staged_down; /* through the staging buffers, else the driver's own transfer */
    size_t bands;
    /* Each band's upload (a staged one's last two chunks), conversion and read-back where the
     * driver does it (a staged read-back waits for its chunks and reports their failures
     * itself): a command that failed on the device is found from its event once both queues
     * are drained, as clFinish does not say. */
    cl_event up[2 * MAX_BANDS], done[MAX_BANDS], back[MAX_BANDS]; /* up: two a band */
} band_job;

/* Rows [*r0, *r1) of band k: the rows split as evenly as whole rows allow. */
static void band_rows(const band_job *j, size_t k, size_t *r0, size_t *r1)
{
    const uint64_t h = j->dst->height;
    *r0 = (size_t)(h * k / j->bands);
    *r1 = (size_t)(h * (k + 1) / j->bands);
}

/* Byte range [*at, *at + *len) of rows [r0, r1) of an image of `height` rows whose last row ends
 * at `bytes` (no padding after it). */
static void band_span(size_t r0, size_t r1, size_t height, size_t pitch, size_t bytes, size_t *at,
                      size_t *len)
{
    *at = r0 * pitch;
    *len = (r1 == height ? bytes : r1 * pitch) - *at;
}

static cl_int band_upload(clc_context *ctx, band_job *j, size_t k)
{
    size_t r0 = 0, r1 = 0, at = 0, len = 0;
    band_rows(j, k, &r0, &r1);
    band_span(r0, r1, j->dst->height, j->src_pitch, j->src_bytes, &at, &len);
    return j->staged_up ? clc__staged_write(ctx, ctx->queue, j->src_buf, at, j->src_data + at, len,
                                            &j->up[2 * k])
                        : clEnqueueWriteBuffer(ctx->queue, j->src_buf, CL_FALSE, at, len,
                                               j->src_data + at, 0, NULL, &j->up[2 * k]);
}

/* Band k back into the caller's memory on the second queue, after its conversion. */
static cl_int band_download(clc_context *ctx, band_job *j, size_t k)
{
    cl_int err = clEnqueueBarrierWithWaitList(j->down, 1, &j->done[k], NULL);
    if (err != CL_SUCCESS)
        return err;
    size_t r0 = 0, r1 = 0;
    band_rows(j, k, &r0, &r1);
    const clc_image_desc *dst = j->dst;
    const size_t row = dst->width * clc_pixel_size(dst->format);
    if (j->dst_pitch != row) /* only the pixels of each row, never the padding */
        return read_rows(j->down, j->dst_buf, dst, j->dst_pitch, j->dst_data, r0, r1, CL_FALSE,
                         &j->back[k]);
    size_t at = 0, len = 0;
    band_span(r0, r1, dst->height, j->dst_pitch, j->dst_bytes, &at, &len);
    return j->staged_down
               ? clc__staged_read(ctx, j->down, j->dst_buf, j->dst_data, &(clc_part){at, len}, 1)
               : clEnqueueReadBuffer(j->down, j->dst_buf, CL_FALSE, at, len, j->dst_data + at, 0,
                                     NULL, &j->back[k]);
}

/* Uploads, launches and downloads band by band. Downloads trail the uploads by one band where the
 * host copies the uploads through the staging buffers (it cannot enqueue ahead of its own
 * copying), else by all of them: the uploads and launches are then all enqueued at once. The
 * main queue is flushed after each launch: the second queue waits on its events, and a wait on
 * an event of a queue not yet flushed may never end (OpenCL 1.2, 5.13). */
static clc_status run_bands(clc_context *ctx, const char *what, band_job *j,
                            clc_image_launch_rows launch_rows, const void *plan, int aligned)
{
    const size_t ahead = j->staged_up ? 1 : j->bands;
    clc_status st = CLC_SUCCESS;
    cl_int err = CL_SUCCESS;
    for (size_t k = 0; k < j->bands + ahead && st == CLC_SUCCESS; ++k) {
        if (k < j->bands) {
            size_t r0 = 0, r1 = 0;
            band_rows(j, k, &r0, &r1);
            if ((err = band_upload(ctx, j, k)) != CL_SUCCESS) {
                st = clc__cl_fail(ctx, err, "uploading a band of rows");
                break;
            }
            st = launch_rows(ctx, plan, j->src_buf, j->dst_buf, aligned, r0, r1 - r0, &j->done[k]);
            if (st == CLC_SUCCESS && (err = clFlush(ctx->queue)) != CL_SUCCESS)
                st = clc__cl_fail(ctx, err, "clFlush");
        }
        if (st == CLC_SUCCESS && k >= ahead &&
            (err = band_download(ctx, j, k - ahead)) != CL_SUCCESS) {
            char call[96];
            snprintf(call, sizeof call, "reading the %s destination back", what);
            st = clc__cl_fail(ctx, err, call);
        }
    }
    return st;
}

/* The operation in bands of rows (clc__image_host_call, on a device with its own memory): band k
 * converts while k + 1 uploads and k - 1 comes back on the context's second queue. `j` holds the
 * caller's memory and the band count; `padding`: of the destination's pitch; `aligned`: the
 * pitches allow the 16-byte paths. */
static clc_status banded_call(clc_context *ctx, const char *what, band_job *j, size_t padding,
                              int aligned, clc_image_launch_rows launch_rows, const void *plan)
{
    j->staged_up = clc__staging_wanted(ctx, j->src_data, j->src_bytes);
    j->staged_down = clc__staging_wanted(ctx, j->dst_data, j->dst_bytes);
    cl_int err = clc__side_queue(ctx, &j->down);
    if (err == CL_SUCCESS)
        j->src_buf = clc__scratch(ctx, CL_MEM_READ_ONLY, j->src_bytes, &err);
    if (err == CL_SUCCESS)
        j->dst_buf = clc__scratch(ctx, CL_MEM_WRITE_ONLY, j->dst_bytes + padding, &err);
    if (err != CL_SUCCESS) {
        clc__release_mem(&j->src_buf);
        char call[96];
        snprintf(call, sizeof call, "preparing the %s bands", what);
        return clc__cl_fail(ctx, err, call);
    }
    clc_status st = run_bands(ctx, what, j, launch_rows, plan, aligned);
    /* Both queues drained whatever happened, the main one (with the uploads, checked there)
     * first, as the second waits on it: the caller's memory must be free on return. */
    int idle = 0;
    st = clc__host_finish(ctx, st, j->up, 2 * MAX_BANDS, what, &idle);
    err = clFinish(j->down);
    if (err != CL_SUCCESS) {
        idle = 0;
        if (st == CLC_SUCCESS)
            st = clc__cl_fail(ctx, err, "clFinish");
    }
    const cl_int done = clc__events_settle(j->done, MAX_BANDS);
    const cl_int back = clc__events_settle(j->back, MAX_BANDS);
    const cl_int failed = done != CL_SUCCESS ? done : back;
    if (failed != CL_SUCCESS && st == CLC_SUCCESS) {
        char call[96];
        snprintf(call, sizeof call, "a band of the %s call on the device", what);
        st = clc__cl_fail(ctx, failed, call);
    }
    clc__host_release(ctx, &j->dst_buf, idle);
    clc__host_release(ctx, &j->src_buf, idle);
    return st;
}

/* Upload bytes a band should move at least (below, its launch and waits cost more than the
 * overlap gains), and the most bands chosen without CLCOMPUTE_BANDS. */
#define BAND_BYTES ((size_t)10 << 20)
#define AUTO_BANDS 4

/* How many bands a call from host memory on a device with its own memory runs in. Their gain is
 * the read-back hidden behind the upload, where the device's copy engines overlap the two
 * directions. From clc_host_alloc memory on both sides the transfers are DMA alone, and on an
 * H100 bands won from 4K RGB8 up (0.65 -> 0.60 ms with 2; 8K 2.50 -> 2.14 ms with 4) and lost
 * below (1080p 0.19 -> 0.20 ms with 2). From ordinary memory the host's staging copies bound
 * the call and bands lost at every size (8K 4.4 -> 5.3-9.5 ms): none. */
static int bands_for(clc_context *ctx, const void *src_data, size_t src_bytes, const void *dst_data,
                     size_t dst_bytes)
{
    int bands = 1;
    if (clc__switch(ctx, CLC_SW_BANDS, &bands) > 0)
        return bands;
    if (!clc__host_pinned(ctx, src_data, src_bytes) || !clc__host_pinned(ctx, dst_data, dst_bytes))
        return 1;
    const size_t n = src_bytes / BAND_BYTES;
    return n < 1 ? 1 : n > AUTO_BANDS ? AUTO_BANDS : (int)n;
}

clc_status clc__image_host_call(clc_context *ctx, const char *what, const void *src_data,
                                size_t src_bytes, size_t src_pitch, const clc_image_desc *dst,
                                void *dst_data, size_t dst_bytes, size_t dst_pitch,
                                clc_image_launch launch, clc_image_launch_rows launch_rows,
                                const void *plan)
{
    /* Devices that share host memory work on the caller's memory in place; others get device
     * buffers and explicit copies. */
    const int in_place = clc__host_in_place(ctx);
    /* A device-side destination holds whole rows: some drivers (NVIDIA) bound-check a rectangle
     * read by height * pitch, not by the last byte it touches. */
    const size_t padding = dst_pitch - dst->width * clc_pixel_size(dst->format);
    if (!in_place && dst_bytes > SIZE_MAX - padding)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "clc_%s: destination too large", what);
    int aligned = aligned16(0, src_pitch) && aligned16(0, dst_pitch);
    const int bands = launch_rows && !in_place && dst->height > 1
                          ? bands_for(ctx, src_data, src_bytes, dst_data, dst_bytes)
                          : 1;
    if (bands > 1) {
        band_job j = {.src_data = src_data,
                      .src_bytes = src_bytes,
                      .src_pitch = src_pitch,
                      .dst = dst,
                      .dst_data = dst_data,
                      .dst_bytes = dst_bytes,
                      .dst_pitch = dst_pitch,
                      .bands = (size_t)bands < dst->height ? (size_t)bands : dst->height};
        return banded_call(ctx, what, &j, padding, aligned, launch_rows, plan);
    }
    char call[96];
    const size_t dst_alloc = in_place ? dst_bytes : dst_bytes + padding;
    cl_int err = CL_SUCCESS;
    cl_event up[2];
    cl_mem src_buf = clc__host_input(ctx, src_data, src_bytes, up, &err);
    if (err != CL_SUCCESS) {
        snprintf(call, sizeof call, "preparing the %s source", what);
        return clc__cl_fail(ctx, err, call);
    }
    cl_mem dst_buf = clc__host_output(ctx, dst_data, dst_alloc, &err);
    if (err != CL_SUCCESS) {
        /* The source's upload may still read the caller's memory: finished first. */
        int idle;
        snprintf(call, sizeof call, "clCreateBuffer(%s destination)", what);
        const clc_status failed =
            clc__host_finish(ctx, clc__cl_fail(ctx, err, call), up, 2, what, &idle);
        clReleaseMemObject(src_buf);
        return failed;
    }
    if (in_place)
        aligned = aligned && aligned16((uintptr_t)src_data, 0) && aligned16((uintptr_t)dst_data, 0);
    clc_status st = launch(ctx, plan, src_buf, dst_buf, aligned);
    if (st == CLC_SUCCESS) {
        /* Off the device only the pixels of each row come back, never the pitch padding. */
        const int dense = padding == 0 || dst->height == 1;
        err = in_place || dense
                  ? clc__host_sync(ctx, dst_buf, dst_data, &(clc_part){0, dst_bytes}, 1)
                  : read_rows(ctx->queue, dst_buf, dst, dst_pitch, dst_data, 0, dst->height,
                              CL_TRUE, NULL);
        if (err != CL_SUCCESS) {
            snprintf(call, sizeof call, "reading the %s destination back", what);
            st = clc__cl_fail(ctx, err, call);
        }
    }
    /* The caller's memory must not be in use once we return, whatever happened. */
    int idle = 0;
    st = clc__host_finish(ctx, st, up, 2, what, &idle);
    clc__host_release(ctx, &dst_buf, idle);
    clc__host_release(ctx, &src_buf, idle);
    return st;
}
