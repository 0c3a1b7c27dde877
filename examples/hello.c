/* Hello, OpenCL, through libclcompute: pick a device, build a kernel, run it, check the result.
 *
 *   hello                 the default device (or CLCOMPUTE_DEVICE)
 *   hello SELECTOR        e.g. "cpu", "gpu", "0:0", "nvidia"
 *
 * The kernel is user code, as in any OpenCL program; the library picks the device, owns the
 * context and queue, caches the compiled program on disk and explains every failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include <clcompute/clcompute.h>

static const char *const source =
    "__kernel void square(__global const int *in, __global int *out)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * in[i];\n"
    "}\n";

#define N 16

int main(int argc, char **argv)
{
    clc_context_options options = {0};
    options.device = argc > 1 ? argv[1] : NULL;
    clc_context *ctx = NULL;
    clc_status st = clc_context_create(&options, &ctx);
    if (st != CLC_SUCCESS) {
        fprintf(stderr, "hello: %s\n", clc_last_error());
        return 1;
    }
    const clc_device_info *device = clc_context_device(ctx);
    printf("device: %s (%s)\nchosen: %s\n", device->name, device->platform_name,
           clc_context_selection_reason(ctx));

    cl_program program = NULL;
    cl_kernel kernel = NULL;
    cl_mem in = NULL, out = NULL;
    int input[N], output[N] = {0}, rc = 1;
    for (int i = 0; i < N; ++i)
        input[i] = i;

    st = clc_program_build(ctx, source, NULL, &program);
    if (st != CLC_SUCCESS) {
        fprintf(stderr, "hello: %s\n", clc_last_error());
        goto done;
    }
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_command_queue queue = clc_context_cl_queue(ctx);
    kernel = clCreateKernel(program, "square", &err);
    if (err == CL_SUCCESS)
        in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof input, input, &err);
    if (err == CL_SUCCESS)
        out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, sizeof output, NULL, &err);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof in, &in);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof out, &out);
    size_t global = N;
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof output, output, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "hello: OpenCL call failed: %s\n", clc_status_string(err));
        goto done;
    }

    rc = 0;
    printf("squares:");
    for (int i = 0; i < N; ++i) {
        printf(" %d", output[i]);
        if (output[i] != input[i] * input[i])
            rc = 1;
    }
    printf("\n%s\n", rc == 0 ? "hello: OK" : "hello: WRONG RESULT");

done:
    if (out)
        clReleaseMemObject(out);
    if (in)
        clReleaseMemObject(in);
    if (kernel)
        clReleaseKernel(kernel);
    if (program)
        clReleaseProgram(program);
    clc_context_destroy(ctx);
    return rc;
}
