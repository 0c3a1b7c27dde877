/* Lists every platform and device with the properties selection and users care about. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The ICD loader's code for "no platform" (cl_khr_icd); not in every header set. */
#define CLC_PLATFORM_NOT_FOUND_KHR (-1001)

struct clc_device_list {
    clc_device_info *devices;
    size_t count;
    size_t skipped_platforms;
};

/* Drivers pad some strings with spaces (Intel) or embed extra NULs; keep the visible text. */
static void trim_right(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        s[--n] = '\0';
}

static char *platform_string(cl_platform_id platform, cl_platform_info param)
{
    size_t size = 0;
    if (clGetPlatformInfo(platform, param, 0, NULL, &size) != CL_SUCCESS)
        return clc__strdup("");
    char *s = calloc(size + 1, 1);
    if (s && clGetPlatformInfo(platform, param, size, s, NULL) != CL_SUCCESS)
        s[0] = '\0';
    if (s)
        trim_right(s);
    return s;
}

static char *device_string(cl_device_id device, cl_device_info param)
{
    size_t size = 0;
    if (clGetDeviceInfo(device, param, 0, NULL, &size) != CL_SUCCESS)
        return clc__strdup("");
    char *s = calloc(size + 1, 1);
    if (s && clGetDeviceInfo(device, param, size, s, NULL) != CL_SUCCESS)
        s[0] = '\0';
    if (s)
        trim_right(s);
    return s;
}

/* Scalars a driver fails to report stay zero: discovery describes, it does not judge. */
#define DEVICE_SCALAR(device, param, var)                                                          \
    do {                                                                                           \
        if (clGetDeviceInfo((device), (param), sizeof(var), &(var), NULL) != CL_SUCCESS)           \
            memset(&(var), 0, sizeof(var));                                                        \
    } while (0)

void clc__device_info_clear(clc_device_info *info)
{
    free((char *)info->platform_name);
    free((char *)info->platform_vendor);
    free((char *)info->platform_version);
    free((char *)info->name);
    free((char *)info->vendor);
    free((char *)info->driver_version);
    free((char *)info->device_version);
    free((char *)info->opencl_c_version);
    free((char *)info->pci_bus);
    memset(info, 0, sizeof *info);
}

/* The device's PCI address, "dddd:bb:dd.f", from whichever query its driver answers; "" when
 * none does. The vendor queries' codes are in cl_ext.h, which not every header set has. */
static char *pci_bus(cl_device_id device)
{
    enum {
        PCI_BUS_INFO_KHR = 0x410F,
        PCI_BUS_ID_NV = 0x4008,
        PCI_SLOT_ID_NV = 0x4009,
        PCI_DOMAIN_ID_NV = 0x400A,
        TOPOLOGY_AMD = 0x4037
    };
    char *extensions = device_string(device, CL_DEVICE_EXTENSIONS);
    unsigned domain = 0, bus = 0, dev = 0, function = 0;
    int known = 0;
    if (extensions && strstr(extensions, "cl_khr_pci_bus_info")) {
        cl_uint v[4];
        if (clGetDeviceInfo(device, PCI_BUS_INFO_KHR, sizeof v, v, NULL) == CL_SUCCESS)
            domain = v[0], bus = v[1], dev = v[2], function = v[3], known = 1;
    }
    if (!known && extensions && strstr(extensions, "cl_nv_device_attribute_query")) {
        cl_uint b = 0, slot = 0, d = 0;
        if (clGetDeviceInfo(device, PCI_BUS_ID_NV, sizeof b, &b, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(device, PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) == CL_SUCCESS) {
            if (clGetDeviceInfo(device, PCI_DOMAIN_ID_NV, sizeof d, &d, NULL) != CL_SUCCESS)
                d = 0;
            domain = d, bus = b, dev = slot >> 3, function = slot & 7, known = 1;
        }
    }
    if (!known && extensions && strstr(extensions, "cl_amd_device_attribute_query")) {
        /* cl_device_topology_amd: a type word (1: PCIe), then bytes ending bus, device,
         * function. */
        unsigned char t[24] = {0};
        if (clGetDeviceInfo(device, TOPOLOGY_AMD, sizeof t, t, NULL) == CL_SUCCESS && t[0] == 1)
            bus = t[21], dev = t[22], function = t[23], known = 1;
    }
    free(extensions);
    return known ? clc__asprintf("%04x:%02x:%02x.%x", domain, bus, dev, function) : clc__strdup("");
}

clc_status clc__device_info_fill(cl_platform_id platform, cl_device_id device,
                                 unsigned platform_index, unsigned device_index,
                                 clc_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->platform_index = platform_index;
    info->device_index = device_index;
    info->platform = platform;
    info->device = device;
    info->platform_name = platform_string(platform, CL_PLATFORM_NAME);
    info->platform_vendor = platform_string(platform, CL_PLATFORM_VENDOR);
    info->platform_version = platform_string(platform, CL_PLATFORM_VERSION);
    info->name = device_string(device, CL_DEVICE_NAME);
    info->vendor = device_string(device, CL_DEVICE_VENDOR);
    info->driver_version = device_string(device, CL_DRIVER_VERSION);
    info->device_version = device_string(device, CL_DEVICE_VERSION);
    info->opencl_c_version = device_string(device, CL_DEVICE_OPENCL_C_VERSION);
    info->pci_bus = pci_bus(device);
    if (!info->platform_name || !info->platform_vendor || !info->platform_version || !info->name ||
        !info->vendor || !info->driver_version || !info->device_version ||
        !info->opencl_c_version || !info->pci_bus) {
        clc__device_info_clear(info);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "device strings");
    }

    cl_device_type type = 0;
    cl_ulong global_mem = 0, local_mem = 0, max_alloc = 0;
    cl_bool unified = CL_FALSE, available = CL_FALSE, little = CL_FALSE;
    cl_device_fp_config fp64 = 0;
    DEVICE_SCALAR(device, CL_DEVICE_TYPE, type);
    DEVICE_SCALAR(device, CL_DEVICE_VENDOR_ID, info->vendor_id);
    DEVICE_SCALAR(device, CL_DEVICE_MAX_COMPUTE_UNITS, info->compute_units);
    DEVICE_SCALAR(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, info->max_clock_mhz);
    DEVICE_SCALAR(device, CL_DEVICE_GLOBAL_MEM_SIZE, global_mem);
    DEVICE_SCALAR(device, CL_DEVICE_LOCAL_MEM_SIZE, local_mem);
    DEVICE_SCALAR(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
    DEVICE_SCALAR(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, info->max_work_group_size);
    DEVICE_SCALAR(device, CL_DEVICE_HOST_UNIFIED_MEMORY, unified);
    DEVICE_SCALAR(device, CL_DEVICE_AVAILABLE, available);
    DEVICE_SCALAR(device, CL_DEVICE_ENDIAN_LITTLE, little);
    DEVICE_SCALAR(device, CL_DEVICE_DOUBLE_FP_CONFIG, fp64);

    if (type & CL_DEVICE_TYPE_GPU)
        info->type = CLC_DEVICE_GPU;
    else if (type & CL_DEVICE_TYPE_ACCELERATOR)
        info->type = CLC_DEVICE_ACCELERATOR;
    else if (type & CL_DEVICE_TYPE_CPU)
        info->type = CLC_DEVICE_CPU;
    else
        info->type = CLC_DEVICE_OTHER;
    info->global_mem_bytes = global_mem;
    info->local_mem_bytes = local_mem;
    info->max_alloc_bytes = max_alloc;
    /* CL_DEVICE_HOST_UNIFIED_MEMORY is deprecated after 1.2 but still answered; CPU devices share
     * host memory by construction even where a driver leaves it unset. */
    info->unified_memory = unified == CL_TRUE || info->type == CLC_DEVICE_CPU;
    info->available = available == CL_TRUE;
    info->little_endian = little == CL_TRUE;
    info->fp64 = fp64 != 0;
    return CLC_SUCCESS;
}

/* Appends the devices of one platform; a platform that errors adds nothing and reports it. */
static clc_status add_platform(clc_device_list *list, cl_platform_id platform, unsigned index)
{
    cl_uint n = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0))
        return CLC_SUCCESS;
    if (err != CL_SUCCESS)
        return (clc_status)err;
    cl_device_id *ids = malloc(n * sizeof *ids);
    clc_device_info *grown = realloc(list->devices, (list->count + n) * sizeof *grown);
    if (grown)
        list->devices = grown;
    if (!ids || !grown) {
        free(ids);
        return CLC_ERROR_OUT_OF_HOST_MEMORY;
    }
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    if (err != CL_SUCCESS) {
        free(ids);
        return (clc_status)err;
    }
    clc_status st = CLC_SUCCESS;
    for (cl_uint d = 0; d < n && st == CLC_SUCCESS; ++d) {
        st = clc__device_info_fill(platform, ids[d], index, d, &list->devices[list->count]);
        if (st == CLC_SUCCESS)
            list->count++;
    }
    free(ids);
    return st;
}

/* clc_devices_query under its lock (*out is NULL on entry). */
static clc_status query(clc_device_list **out)
{
    cl_uint nplatforms = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &nplatforms);
    if (err == CLC_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && nplatforms == 0))
        return clc__fail(NULL, CLC_ERROR_NO_PLATFORM,
                         "the OpenCL ICD loader found no platform (clGetPlatformIDs returned %d); "
                         "install a driver, e.g. pocl-opencl-icd for the CPU",
                         (int)err);
    if (err != CL_SUCCESS)
        return clc__cl_fail(NULL, err, "clGetPlatformIDs");

    cl_platform_id *platforms = malloc(nplatforms * sizeof *platforms);
    clc_device_list *list = calloc(1, sizeof *list);
    if (!platforms || !list) {
        free(platforms);
        free(list);
        return clc__fail(NULL, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_devices_query");
    }
    clc_status st = CLC_SUCCESS;
    err = clGetPlatformIDs(nplatforms, platforms, NULL);
    if (err != CL_SUCCESS) {
        st = clc__cl_fail(NULL, err, "clGetPlatformIDs");
        goto fail;
    }
    for (cl_uint p = 0; p < nplatforms; ++p) {
        size_t before = list->count;
        st = add_platform(list, platforms[p], p);
        if (st == CLC_ERROR_OUT_OF_HOST_MEMORY) {
            clc__fail(NULL, st, "clc_devices_query");
            goto fail;
        }
        if (st != CLC_SUCCESS) {
            /* A broken driver must not hide the working ones. */
            while (list->count > before)
                clc__device_info_clear(&list->devices[--list->count]);
            list->skipped_platforms++;
            st = CLC_SUCCESS;
        }
    }
    if (list->count == 0) {
        st = list->skipped_platforms == nplatforms
                 ? clc__fail(NULL, CLC_ERROR_NO_PLATFORM,
                             "all %u OpenCL platform(s) failed to answer", (unsigned)nplatforms)
                 : clc__fail(NULL, CLC_ERROR_NO_DEVICE,
                             "%u OpenCL platform(s) found but none offers a device (PoCL "
                             "offers none when it cannot make its kernel cache folder: "
                             "POCL_CACHE_DIR, else XDG_CACHE_HOME or ~/.cache, must be "
                             "writable)",
                             (unsigned)nplatforms);
        goto fail;
    }
    free(platforms);
    *out = list;
    return CLC_SUCCESS;

fail:
    free(platforms);
    clc_device_list_destroy(list);
    return st;
}

/* The process's one lock beyond the handles' own: drivers set themselves up on the first query
 * of their devices, and PoCL's setup is not safe from two threads at once (PoCL 3.1: a crash, or
 * no device, in nearly every process whose first two queries met). A query is rare and short. */
static clc_mutex query_lock = CLC_MUTEX_INITIALIZER;

clc_status clc_devices_query(clc_device_list **out)
{
    if (!out)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_devices_query: list is NULL");
    *out = NULL;
    clc_mutex_lock(&query_lock);
    const clc_status st = query(out);
    clc_mutex_unlock(&query_lock);
    return st;
}

void clc_device_list_destroy(clc_device_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; ++i)
        clc__device_info_clear(&list->devices[i]);
    free(list->devices);
    free(list);
}

size_t clc_device_list_count(const clc_device_list *list)
{
    return list ? list->count : 0;
}

const clc_device_info *clc_device_list_get(const clc_device_list *list, size_t index)
{
    return list && index < list->count ? &list->devices[index] : NULL;
}

size_t clc_device_list_skipped_platforms(const clc_device_list *list)
{
    return list ? list->skipped_platforms : 0;
}

const char *clc_device_type_string(clc_device_type type)
{
    switch (type) {
    case CLC_DEVICE_CPU:
        return "CPU";
    case CLC_DEVICE_GPU:
        return "GPU";
    case CLC_DEVICE_ACCELERATOR:
        return "accelerator";
    case CLC_DEVICE_OTHER:
        break;
    }
    return "other";
}
