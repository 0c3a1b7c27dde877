/* A pipeline on device buffers: colour -> gray -> 3x3 median -> mean brightness, each step an
 * _enqueue call waiting on the previous one's event, nothing crossing to the host but the image
 * going in and 16 bytes coming out.
 *
 *   enqueue_chain [SELECTOR]
 *
 * The _enqueue forms return at once; the events order the steps (on the context's in-order
 * queue they would run in order anyway, but events also let other queues and the caller wait on
 * a step). */
#include <stdio.h>
#include <stdlib.h>

#include <clcompute/clcompute.h>

enum { W = 1920, H = 1080 };

int main(int argc, char **argv)
{
    unsigned char *rgb = malloc((size_t)W * H * 3);
    if (!rgb)
        return 1;
    for (size_t i = 0; i < (size_t)W * H * 3; ++i)
        rgb[i] = (unsigned char)(i % 3 == 1 ? 200 : 40); /* greenish */
    clc_context_options options = {0};
    options.device = argc > 1 ? argv[1] : NULL;
    clc_context *ctx = NULL;
    cl_mem in = NULL, gray = NULL, smooth = NULL, result = NULL;
    cl_event written = NULL, grayed = NULL, filtered = NULL, reduced = NULL;
    cl_int err = CL_SUCCESS;
    int rc = 1;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS)
        goto done;
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    const clc_image_desc color = {CLC_PIXEL_RGB8, W, H, 0}, mono = {CLC_PIXEL_GRAY8, W, H, 0};
    in = clCreateBuffer(cl, CL_MEM_READ_ONLY, (size_t)W * H * 3, NULL, &err);
    if (err == CL_SUCCESS)
        gray = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)W * H, NULL, &err);
    if (err == CL_SUCCESS)
        smooth = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)W * H, NULL, &err);
    if (err == CL_SUCCESS)
        result = clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(q, in, CL_FALSE, 0, (size_t)W * H * 3, rgb, 0, NULL, &written);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "enqueue_chain: OpenCL error %d (%s)\n", err, clc_status_string(err));
        goto done;
    }
    unsigned char bytes[CLC_REDUCE_RESULT_BYTES];
    clc_reduce_result mean;
    if (clc_gray_enqueue(ctx, &color, in, 0, &mono, gray, 0, NULL, 1, &written, &grayed) !=
            CLC_SUCCESS ||
        clc_median_enqueue(ctx, &mono, gray, 0, &mono, smooth, 0, 3, 1, &grayed, &filtered) !=
            CLC_SUCCESS ||
        clc_reduce_enqueue(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_U8, smooth, 0, (size_t)W * H, result, 1,
                           &filtered, &reduced) != CLC_SUCCESS)
        goto done;
    err = clEnqueueReadBuffer(q, result, CL_TRUE, 0, sizeof bytes, bytes, 1, &reduced, NULL);
    if (err != CL_SUCCESS || clc_reduce_decode(CLC_REDUCE_MEAN, CLC_DTYPE_U8, bytes, (size_t)W * H,
                                               &mean) != CLC_SUCCESS)
        goto done;
    /* OpenCV's BT.601 gray of (40, 200, 40): (40*9798 + 200*19235 + 40*3735 + 16384) >> 15 = 134 */
    printf("mean gray after a 3x3 median: %.3f\n", mean.f);
    rc = mean.f == 134.0 ? 0 : 1;
done:
    if (rc && err == CL_SUCCESS)
        fprintf(stderr, "enqueue_chain: %s\n", clc_last_error());
    cl_event events[] = {written, grayed, filtered, reduced};
    for (size_t i = 0; i < 4; ++i)
        if (events[i])
            clReleaseEvent(events[i]);
    cl_mem buffers[] = {in, gray, smooth, result};
    for (size_t i = 0; i < 4; ++i)
        if (buffers[i])
            clReleaseMemObject(buffers[i]);
    clc_context_destroy(ctx);
    free(rgb);
    return rc;
}
