/* Names and descriptions of every status: the library's own and OpenCL's. */
#include <stddef.h>

#include "internal.h"

typedef struct status_entry {
    int code;
    const char *name;
    const char *description;
} status_entry;

/* OpenCL 1.0-3.0 core codes and the ICD loader's, so a passed-through code is always named. */
static const status_entry table[] = {
    {CLC_SUCCESS, "CLC_SUCCESS", "success"},
    {CLC_ERROR_INVALID_ARGUMENT, "CLC_ERROR_INVALID_ARGUMENT",
     "an argument is NULL, zero, out of range or an unknown value"},
    {CLC_ERROR_NO_PLATFORM, "CLC_ERROR_NO_PLATFORM",
     "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)"},
    {CLC_ERROR_NO_DEVICE, "CLC_ERROR_NO_DEVICE", "OpenCL platforms exist but offer no device"},
    {CLC_ERROR_DEVICE_NOT_MATCHED, "CLC_ERROR_DEVICE_NOT_MATCHED",
     "the device selector matched no device"},
    {CLC_ERROR_INVALID_SELECTOR, "CLC_ERROR_INVALID_SELECTOR",
     "the device selector could not be parsed"},
    {CLC_ERROR_UNSUPPORTED, "CLC_ERROR_UNSUPPORTED",
     "the device does not support what the call needs"},
    {CLC_ERROR_IO, "CLC_ERROR_IO", "a file could not be read or written"},
    {CLC_ERROR_SIZE_OVERFLOW, "CLC_ERROR_SIZE_OVERFLOW",
     "a size is too large to represent or a buffer is too small"},
    {CLC_ERROR_CANCELLED, "CLC_ERROR_CANCELLED", "the work was cancelled before it ran"},
    {-1, "CL_DEVICE_NOT_FOUND", "OpenCL: no device of the requested type"},
    {-2, "CL_DEVICE_NOT_AVAILABLE", "OpenCL: device not available"},
    {-3, "CL_COMPILER_NOT_AVAILABLE", "OpenCL: no compiler for this device"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE", "OpenCL: could not allocate device memory"},
    {-5, "CL_OUT_OF_RESOURCES", "OpenCL: the device ran out of resources"},
    {-6, "CL_OUT_OF_HOST_MEMORY", "out of host memory"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE", "OpenCL: profiling information not available"},
    {-8, "CL_MEM_COPY_OVERLAP", "OpenCL: source and destination of a copy overlap"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH", "OpenCL: image formats differ"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED", "OpenCL: image format not supported"},
    {-11, "CL_BUILD_PROGRAM_FAILURE", "OpenCL: the program failed to build (see the build log)"},
    {-12, "CL_MAP_FAILURE", "OpenCL: a buffer could not be mapped"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET", "OpenCL: misaligned sub-buffer offset"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
     "OpenCL: an event in the wait list failed"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE", "OpenCL: the program failed to compile"},
    {-16, "CL_LINKER_NOT_AVAILABLE", "OpenCL: no linker for this device"},
    {-17, "CL_LINK_PROGRAM_FAILURE", "OpenCL: the program failed to link"},
    {-18, "CL_DEVICE_PARTITION_FAILED", "OpenCL: device partition failed"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", "OpenCL: kernel argument info not available"},
    {-30, "CL_INVALID_VALUE", "OpenCL: invalid value"},
    {-31, "CL_INVALID_DEVICE_TYPE", "OpenCL: invalid device type"},
    {-32, "CL_INVALID_PLATFORM", "OpenCL: invalid platform"},
    {-33, "CL_INVALID_DEVICE", "OpenCL: invalid device"},
    {-34, "CL_INVALID_CONTEXT", "OpenCL: invalid context"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES", "OpenCL: invalid queue properties"},
    {-36, "CL_INVALID_COMMAND_QUEUE", "OpenCL: invalid command queue"},
    {-37, "CL_INVALID_HOST_PTR", "OpenCL: invalid host pointer"},
    {-38, "CL_INVALID_MEM_OBJECT", "OpenCL: invalid memory object"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", "OpenCL: invalid image format descriptor"},
    {-40, "CL_INVALID_IMAGE_SIZE", "OpenCL: invalid image size"},
    {-41, "CL_INVALID_SAMPLER", "OpenCL: invalid sampler"},
    {-42, "CL_INVALID_BINARY", "OpenCL: invalid program binary"},
    {-43, "CL_INVALID_BUILD_OPTIONS", "OpenCL: invalid build options"},
    {-44, "CL_INVALID_PROGRAM", "OpenCL: invalid program"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE", "OpenCL: program not built for this device"},
    {-46, "CL_INVALID_KERNEL_NAME", "OpenCL: no kernel of that name in the program"},
    {-47, "CL_INVALID_KERNEL_DEFINITION", "OpenCL: invalid kernel definition"},
    {-48, "CL_INVALID_KERNEL", "OpenCL: invalid kernel"},
    {-49, "CL_INVALID_ARG_INDEX", "OpenCL: invalid kernel argument index"},
    {-50, "CL_INVALID_ARG_VALUE", "OpenCL: invalid kernel argument value"},
    {-51, "CL_INVALID_ARG_SIZE", "OpenCL: invalid kernel argument size"},
    {-52, "CL_INVALID_KERNEL_ARGS", "OpenCL: kernel arguments not all set"},
    {-53, "CL_INVALID_WORK_DIMENSION", "OpenCL: invalid work dimension"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE", "OpenCL: invalid work-group size"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE", "OpenCL: invalid work-item size"},
    {-56, "CL_INVALID_GLOBAL_OFFSET", "OpenCL: invalid global offset"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST", "OpenCL: invalid event wait list"},
    {-58, "CL_INVALID_EVENT", "OpenCL: invalid event"},
    {-59, "CL_INVALID_OPERATION", "OpenCL: invalid operation"},
    {-60, "CL_INVALID_GL_OBJECT", "OpenCL: invalid GL object"},
    {-61, "CL_INVALID_BUFFER_SIZE", "OpenCL: invalid buffer size"},
    {-62, "CL_INVALID_MIP_LEVEL", "OpenCL: invalid mip level"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE", "OpenCL: invalid global work size"},
    {-64, "CL_INVALID_PROPERTY", "OpenCL: invalid property"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR", "OpenCL: invalid image descriptor"},
    {-66, "CL_INVALID_COMPILER_OPTIONS", "OpenCL: invalid compiler options"},
    {-67, "CL_INVALID_LINKER_OPTIONS", "OpenCL: invalid linker options"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT", "OpenCL: invalid device partition count"},
    {-69, "CL_INVALID_PIPE_SIZE", "OpenCL: invalid pipe size"},
    {-70, "CL_INVALID_DEVICE_QUEUE", "OpenCL: invalid device queue"},
    {-71, "CL_INVALID_SPEC_ID", "OpenCL: invalid specialization constant id"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED", "OpenCL: a size restriction was exceeded"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR", "ICD loader: no OpenCL platform found"},
};

static const status_entry *find(int code)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        if (table[i].code == code)
            return &table[i];
    }
    return NULL;
}

const char *clc_status_string(int status)
{
    const status_entry *e = find(status);
    return e ? e->name : "CLC_UNKNOWN_STATUS";
}

const char *clc_status_description(int status)
{
    const status_entry *e = find(status);
    return e ? e->description : "unknown status code";
}

const char *clc__cl_error_name(cl_int err)
{
    const status_entry *e = err < 0 && err > -2000 ? find(err) : NULL;
    return e ? e->name : NULL;
}
