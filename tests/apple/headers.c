#include <clcompute/clcompute.h>

#ifndef CLC_TEST_APPLE_OPENCL_H
#error "under __APPLE__ the public headers must include <OpenCL/opencl.h>"
#endif
#if CL_TARGET_OPENCL_VERSION != 120
#error "CL_TARGET_OPENCL_VERSION must be 120"
#endif

int main(void)
{
    return clc_status_string(CLC_SUCCESS) != 0 ? 0 : 1;
}
