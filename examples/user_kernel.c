/* Your own kernel, built through the library's disk cache: the first process compiles it and
 * stores the binary, later ones load it (keyed by device, driver, source and options, so any
 * change rebuilds). Build options pass compile-time constants, as here the scale.
 *
 *   user_kernel [SELECTOR]
 *
 * Run it twice: the second run reports a cache hit. */
#include <stdio.h>

#include <clcompute/clcompute.h>

static const char *const source =
    "__kernel void saxpy(const float a, __global const float *x, __global float *y)\n"
    "{\n"
    "    const size_t i = get_global_id(0);\n"
    "    y[i] = SCALE * a * x[i] + y[i];\n"
    "}\n";

enum { N = 1024 };

int main(int argc, char **argv)
{
    clc_context_options options = {0};
    options.device = argc > 1 ? argv[1] : NULL;
    options.cache = CLC_CACHE_ON; /* on unless CLCOMPUTE_CACHE=0 anyway; here it is insisted on */
    clc_context *ctx = NULL;
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    cl_mem x = NULL, y = NULL;
    float hx[N], hy[N];
    for (int i = 0; i < N; ++i)
        hx[i] = (float)i, hy[i] = 1.0f;
    int rc = 1;
    cl_int err = CL_SUCCESS;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS ||
        clc_program_build(ctx, source, "-DSCALE=2.0f", &program) != CLC_SUCCESS) {
        fprintf(stderr, "user_kernel: %s\n", clc_last_error());
        goto done;
    }
    clc_cache_stats stats;
    if (clc_context_cache_stats(ctx, &stats) == CLC_SUCCESS)
        printf("program %s (cache: %s)\n", stats.hits ? "loaded from the disk cache" : "compiled",
               clc_context_cache_dir(ctx) ? clc_context_cache_dir(ctx) : "off");
    cl_context cl = clc_context_cl_context(ctx);
    kernel = clCreateKernel(program, "saxpy", &err);
    if (err == CL_SUCCESS)
        x = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hx, hx, &err);
    if (err == CL_SUCCESS)
        y = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof hy, hy, &err);
    const float a = 0.5f;
    const size_t global = N;
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof a, &a}, {sizeof x, &x}, {sizeof y, &y}};
    for (cl_uint i = 0; i < 3 && err == CL_SUCCESS; ++i)
        err = clSetKernelArg(kernel, i, args[i].size, args[i].value);
    cl_command_queue q = clc_context_cl_queue(ctx);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(q, y, CL_TRUE, 0, sizeof hy, hy, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "user_kernel: OpenCL error %d (%s)\n", err, clc_status_string(err));
        goto done;
    }
    rc = 0;
    for (int i = 0; i < N; ++i) /* 2 * 0.5 * i + 1 */
        if (hy[i] != (float)i + 1.0f)
            rc = 1;
    printf("y = 2 * 0.5 * x + y: %s\n", rc ? "WRONG" : "correct");
done:
    if (y)
        clReleaseMemObject(y);
    if (x)
        clReleaseMemObject(x);
    if (kernel)
        clReleaseKernel(kernel);
    if (program)
        clReleaseProgram(program);
    clc_context_destroy(ctx);
    return rc;
}
