/* Uses the installed library: pick a device, build a kernel through the cache. */
#include <stdio.h>

#include <clcompute/clcompute.h>

int main(void)
{
    clc_context *ctx = NULL;
    if (clc_context_create(NULL, &ctx) != CLC_SUCCESS) {
        fprintf(stderr, "consumer: %s\n", clc_last_error());
        return 1;
    }
    cl_program program = NULL;
    clc_status st =
        clc_program_build(ctx, "__kernel void k(__global int *p) { *p = 1; }", NULL, &program);
    if (st == CLC_SUCCESS)
        clReleaseProgram(program);
    printf("consumer: clcompute %s on %s: %s\n", CLC_VERSION_STRING, clc_context_device(ctx)->name,
           clc_status_string(st));
    clc_context_destroy(ctx);
    return st == CLC_SUCCESS ? 0 : 1;
}
