/* Stands in for Apple's framework header: proves the public headers take this path under
 * __APPLE__ and never include <CL/cl.h> themselves. */
#define CLC_TEST_APPLE_OPENCL_H 1
#include <CL/cl.h>
