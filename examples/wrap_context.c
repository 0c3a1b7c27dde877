/* An application that already has its OpenCL context and queue (from its own code or another
 * library) hands them to libclcompute with clc_context_wrap and keeps ownership: the library
 * retains what it uses and releases exactly that in clc_context_destroy.
 *
 *   wrap_context
 *
 * Plain OpenCL picks the first device of the first platform here; the library's kernels then run
 * on the application's queue, on the application's buffers. */
#include <stdio.h>

#include <clcompute/clcompute.h>

enum { N = 4096 };

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: %s (no arguments: the first device of the first platform)\n",
                argv[0]);
        return 2;
    }
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "wrap_context: no OpenCL device (%s)\n", clc_status_string(err));
        return 1;
    }
    cl_context cl = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(cl, device, 0, &err) : NULL;
    float data[N];
    for (int i = 0; i < N; ++i)
        data[i] = (float)(i % 64);
    cl_mem buffer = err == CL_SUCCESS ? clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                       sizeof data, data, &err)
                                      : NULL;
    cl_mem result = err == CL_SUCCESS
                        ? clCreateBuffer(cl, CL_MEM_READ_WRITE, CLC_REDUCE_RESULT_BYTES, NULL, &err)
                        : NULL;
    int rc = 1;
    clc_context *ctx = NULL;
    unsigned char bytes[CLC_REDUCE_RESULT_BYTES];
    clc_reduce_result max;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "wrap_context: OpenCL setup failed (%s)\n", clc_status_string(err));
    } else if (clc_context_wrap(cl, device, queue, NULL, &ctx) != CLC_SUCCESS ||
               clc_reduce_enqueue(ctx, CLC_REDUCE_MAX, CLC_DTYPE_F32, buffer, 0, N, result, 0, NULL,
                                  NULL) != CLC_SUCCESS) {
        fprintf(stderr, "wrap_context: %s\n", clc_last_error());
    } else if ((err = clEnqueueReadBuffer(queue, result, CL_TRUE, 0, sizeof bytes, bytes, 0, NULL,
                                          NULL)) != CL_SUCCESS ||
               clc_reduce_decode(CLC_REDUCE_MAX, CLC_DTYPE_F32, bytes, N, &max) != CLC_SUCCESS) {
        fprintf(stderr, "wrap_context: reading the result failed\n");
    } else {
        printf("max on the application's queue (%s): %.1f\n", clc_context_device(ctx)->name, max.f);
        rc = max.f == 63.0 ? 0 : 1;
    }
    clc_context_destroy(ctx); /* the application's objects stay valid */
    if (result)
        clReleaseMemObject(result);
    if (buffer)
        clReleaseMemObject(buffer);
    if (queue)
        clReleaseCommandQueue(queue);
    if (cl)
        clReleaseContext(cl);
    return rc;
}
