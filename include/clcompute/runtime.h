/* Device discovery and selection, contexts, run-time program builds and the last-error message. */
#ifndef CLCOMPUTE_RUNTIME_H
#define CLCOMPUTE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/opencl.h"
#include "clcompute/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Discovery
 * ------------------------------------------------------------------------------------------- */

typedef enum clc_device_type {
    CLC_DEVICE_OTHER = 0, /* custom devices, or a type the library does not know */
    CLC_DEVICE_CPU = 1,
    CLC_DEVICE_GPU = 2,
    CLC_DEVICE_ACCELERATOR = 3
} clc_device_type;

/* What the library knows of one device. Strings belong to the list (or context) it came from and
 * live as long as it does; they are never NULL (empty when the driver does not say). */
typedef struct clc_device_info {
    unsigned platform_index; /* position of the platform in the ICD loader's order */
    unsigned device_index;   /* position of the device within its platform */
    cl_platform_id platform;
    cl_device_id device;
    const char *platform_name;
    const char *platform_vendor;
    const char *platform_version; /* "OpenCL 3.0 PoCL 3.1 ..." */
    const char *name;
    const char *vendor;
    const char *driver_version;
    const char *device_version;   /* "OpenCL 3.0 CUDA" */
    const char *opencl_c_version; /* "OpenCL C 1.2 ..." */
    clc_device_type type;
    cl_uint vendor_id;
    cl_uint compute_units;
    cl_uint max_clock_mhz;
    uint64_t global_mem_bytes;
    uint64_t local_mem_bytes;
    uint64_t max_alloc_bytes;
    size_t max_work_group_size;
    int unified_memory; /* 1 when the device shares memory with the host (CPUs, integrated GPUs) */
    int fp64;           /* 1 when the device supports double precision */
    int available;      /* 0 when the driver reports the device unavailable; never selected */
    int little_endian;  /* 1 for little-endian devices (all current GPUs and CPUs) */
    /* Where the device sits on the PCI bus, "domain:bus:device.function" in hex
     * ("0000:3b:00.0"), when the driver says (cl_khr_pci_bus_info, NVIDIA's and AMD's
     * attribute queries); "" otherwise (CPUs). Every process of a node sees the same. */
    const char *pci_bus;
} clc_device_info;

/* An immutable snapshot of every platform and device. */
typedef struct clc_device_list clc_device_list;

/*
 * Lists every device of every platform. A platform that fails to answer is skipped and counted
 * (clc_device_list_skipped_platforms). With no platform at all (the ICD loader's
 * CL_PLATFORM_NOT_FOUND_KHR included) returns CLC_ERROR_NO_PLATFORM; with platforms but no device,
 * CLC_ERROR_NO_DEVICE. On failure *list is NULL and clc_last_error() says why.
 */
CLC_API clc_status clc_devices_query(clc_device_list **list);

/* Releases a list from clc_devices_query. NULL is allowed. */
CLC_API void clc_device_list_destroy(clc_device_list *list);

/* Number of devices in the list. */
CLC_API size_t clc_device_list_count(const clc_device_list *list);

/* The index-th device, or NULL when index is out of range. */
CLC_API const clc_device_info *clc_device_list_get(const clc_device_list *list, size_t index);

/* Number of platforms that failed to answer and were skipped. */
CLC_API size_t clc_device_list_skipped_platforms(const clc_device_list *list);

/* "CPU", "GPU", "accelerator" or "other". */
CLC_API const char *clc_device_type_string(clc_device_type type);

/* ---------------------------------------------------------------------------------------------
 * Selection
 *
 * One grammar for the API, the tool's --device and the environment variable CLCOMPUTE_DEVICE,
 * case-insensitive. A term is one of:
 *   gpu | cpu | accelerator   the device of that type with the most compute units
 *   P:D                       device D of platform P (indices as in clc_devices_query)
 *   default                   the default rule below, ignoring CLCOMPUTE_DEVICE
 *   all                       every available device (where one device is wanted: the default)
 *   localrank                 the GPU of this process's rank on its node: the local rank (from
 *                             OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID or
 *                             LOCAL_RANK) modulo the node's GPUs ordered by PCI bus (CPUs when
 *                             there is no GPU); an error when no local rank is set
 *   pocl | nvidia | intel | amd | apple
 *                             that vendor's platform ("pocl": "Portable Computing Language")
 *   anything else             a substring of the platform or device name ("h200", "pthread");
 *                             among several matches the default rule picks
 * Terms combine:
 *   A/B/C   alternatives: the first that matches anything ("gpu/cpu": the GPU if there is
 *           one, else the CPU)
 *   X,Y     a list: every part must match, and each names its device(s) ("gpu,cpu": both;
 *           a device named twice takes part twice); where one device is wanted, the first
 * Default rule: the GPU with the most compute units, else an accelerator, else the CPU; the
 * earliest device wins a tie. A selector (or a part of a list) that matches nothing is
 * CLC_ERROR_DEVICE_NOT_MATCHED, never a silent fallback: "/" is the one way to ask for one;
 * "0:", ":1" and empty parts are CLC_ERROR_INVALID_SELECTOR. Unavailable devices are never
 * picked.
 * ------------------------------------------------------------------------------------------- */

/* The environment variable read when no selector is given. */
#define CLC_DEVICE_ENV "CLCOMPUTE_DEVICE"

/*
 * Picks one device of the list. selector may be NULL or empty: then CLCOMPUTE_DEVICE is used when
 * set and non-empty, else the default rule. On success *index is the device's position in the
 * list and, when reason is not NULL, a sentence saying why it was chosen is written there
 * (truncated to reason_size, always terminated).
 */
CLC_API clc_status clc_device_select(const clc_device_list *list, const char *selector,
                                     size_t *index, char *reason, size_t reason_size);

/*
 * Every device a selector names, in order: "gpu,cpu", "0:0,1:0", "all", "gpu/cpu" (grammar
 * above; a device may be named twice, and then takes part twice). selectors NULL or empty:
 * CLCOMPUTE_DEVICE, else the default device. Writes up to capacity list positions to indices and
 * the number named to *count; CLC_ERROR_SIZE_OVERFLOW when they do not fit (*count still says
 * how many).
 */
CLC_API clc_status clc_device_select_many(const clc_device_list *list, const char *selectors,
                                          size_t *indices, size_t capacity, size_t *count);

/* ---------------------------------------------------------------------------------------------
 * Context
 *
 * A clc_context owns (or wraps) one cl_context, one device and one in-order command queue, plus
 * the programs built for it. Thread safety: every clc_ call that takes a context may be made from
 * several threads at once on the same context; the library serialises its own bookkeeping
 * (program cache, last error) with a lock inside the context, and OpenCL's own calls are
 * thread-safe. Only clc_context_destroy must not race with any other use of the context.
 * Contexts may be created from several threads at once: device discovery takes a process-wide
 * lock (drivers set themselves up on the first query, not always safely from two threads).
 * ------------------------------------------------------------------------------------------- */

typedef struct clc_context clc_context;

/* Whether compiled programs are kept on disk between processes. */
typedef enum clc_cache_mode {
    CLC_CACHE_AUTO = 0, /* on, unless the environment variable CLCOMPUTE_CACHE is "0"; a value
                           other than "0", "1" or "" makes clc_context_create fail */
    CLC_CACHE_ON = 1,   /* on, whatever the environment says */
    CLC_CACHE_OFF = 2   /* off */
} clc_cache_mode;

/* How host-pointer calls move the caller's memory across a bus, on devices with memory of their
 * own (CPUs and integrated GPUs work on the caller's memory in place, whatever this says). */
typedef enum clc_transfer_mode {
    /* Transfers of 4 MiB or more go through the context's own pinned staging buffers, copied by
     * several host threads while the DMA of the previous chunk runs; smaller ones through the
     * driver. */
    CLC_TRANSFERS_AUTO = 0,
    /* From 64 KiB up through the staging buffers: for contexts that share a device with others
     * calling at the same time (a context per thread; the batch API's workers do this), as the
     * driver's own path for pageable memory moves one transfer at a time. */
    CLC_TRANSFERS_STAGED = 1
} clc_transfer_mode;

/* Options for clc_context_create. A zero-initialised struct (or NULL) means all defaults. */
typedef struct clc_context_options {
    /* Device selector (grammar above). NULL or "": CLCOMPUTE_DEVICE, then the default rule. */
    const char *device;
    /* Disk cache of compiled programs. */
    clc_cache_mode cache;
    /* Cache directory. NULL: $CLCOMPUTE_CACHE_DIR, else $XDG_CACHE_HOME/clcompute, else
     * $HOME/.cache/clcompute. An unusable directory means "no cache", never an error. */
    const char *cache_dir;
    /* Non-zero: the queue records event timestamps (CL_QUEUE_PROFILING_ENABLE). */
    int profiling;
    /* How host memory crosses the bus; CLCOMPUTE_STAGING overrides it (docs/guide.md). */
    clc_transfer_mode transfers;
} clc_context_options;

/* Creates a context on the selected device. On failure *ctx is NULL and clc_last_error() says
 * why, naming the selector when it matched nothing. */
CLC_API clc_status clc_context_create(const clc_context_options *options, clc_context **ctx);

/*
 * Wraps objects the caller already has (interop with other OpenCL code). The context retains
 * them and releases them in clc_context_destroy; the caller keeps its own references. queue may
 * be NULL: an in-order queue is then created on device. device must belong to context, and queue
 * (when given) to both and be in-order. options may be NULL; its device field is ignored.
 */
CLC_API clc_status clc_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue,
                                    const clc_context_options *options, clc_context **ctx);

/*
 * Makes ctx a peer of owner, a context on the same OpenCL context and device (for instance
 * clc_context_wrap of owner's clc_context_cl_context and clc_context_cl_device: a second queue
 * for another thread): memory from clc_host_alloc on either is then pinned memory to both, and
 * the kernel variants timed for owner serve both. A group of peers has one root (owner, or the
 * context owner was made a peer of): it holds the group's pinned memory (allocations and frees
 * through any member wait for the root's queue) and must be destroyed last. Call it before ctx
 * is used, and not on a batch's contexts. CLC_ERROR_INVALID_ARGUMENT for ctx == owner, contexts
 * on different OpenCL contexts or devices, and a ctx that already has pinned memory of its own
 * or a peer.
 */
CLC_API clc_status clc_context_share(clc_context *ctx, clc_context *owner);

/* Waits for the queue to finish, then releases everything the context owns, the device buffers
 * it keeps between host-pointer calls included (up to eight, at most 512 MiB or a 16th of the
 * device's memory; dropped early when an allocation finds the device full). NULL is allowed. */
CLC_API void clc_context_destroy(clc_context *ctx);

/* The OpenCL objects behind the context, borrowed: retain them to keep them past its life. */
CLC_API cl_context clc_context_cl_context(const clc_context *ctx);
CLC_API cl_device_id clc_context_cl_device(const clc_context *ctx);
CLC_API cl_command_queue clc_context_cl_queue(const clc_context *ctx);

/* What the library knows of the context's device; owned by the context. */
CLC_API const clc_device_info *clc_context_device(const clc_context *ctx);

/* Why this device was chosen ("CLCOMPUTE_DEVICE=\"cpu\": the CPU with the most compute units"),
 * owned by the context. */
CLC_API const char *clc_context_selection_reason(const clc_context *ctx);

/* The cache directory in use, or NULL when the disk cache is off. Owned by the context. */
CLC_API const char *clc_context_cache_dir(const clc_context *ctx);

/* ---------------------------------------------------------------------------------------------
 * Programs
 * ------------------------------------------------------------------------------------------- */

/*
 * Builds an OpenCL C program for the context's device, through the disk cache when it is on
 * (keyed by device, driver, source and options, so any change rebuilds). options may be NULL.
 * On success *program is a new reference the caller releases with clReleaseProgram. A compile
 * error returns CLC_ERROR_BUILD_PROGRAM_FAILURE and the last-error message carries the device,
 * the options and the compiler's log.
 */
CLC_API clc_status clc_program_build(clc_context *ctx, const char *source, const char *options,
                                     cl_program *program);

/* Counters of the disk cache, for this context since its creation. */
typedef struct clc_cache_stats {
    uint64_t hits;     /* programs loaded from a cache entry */
    uint64_t misses;   /* programs compiled from source (no entry, or cache off) */
    uint64_t rejected; /* entries found but ignored: corrupt, truncated, foreign or unloadable */
    uint64_t stored;   /* entries written */
    uint64_t store_failures; /* entries that could not be written (read-only or full disk) */
} clc_cache_stats;

/* Copies the context's cache counters into *stats. */
CLC_API clc_status clc_context_cache_stats(clc_context *ctx, clc_cache_stats *stats);

/* Where a context's variant of a timed family came from. */
typedef enum clc_tuned_source {
    /* Timed by this context (or the one it shares), then stored in the disk cache where the
     * cache is on and writable. */
    CLC_TUNED_TIMED = 0,
    /* Read from the disk cache: timed earlier, by another context of this or another process. */
    CLC_TUNED_STORED = 1,
    /* Not timed: CLCOMPUTE_TUNE=0, or no variant could run. */
    CLC_TUNED_DEFAULT = 2
} clc_tuned_source;

/* One family's choice. Strings are the library's, valid for the life of the process. */
typedef struct clc_tuned_choice {
    const char *family;  /* "gray", "cloud", "staging" */
    const char *variant; /* as the disk cache stores it; "default" for an unnamed default */
    clc_tuned_source source;
} clc_tuned_choice;

/*
 * The variants the context has chosen so far, one for each family that times its variants, in
 * the order of their first calls (a family is timed on its first call on a device, then its
 * choice is stored; CLCOMPUTE_TUNE=again times again). Copies up to `capacity` of them into
 * choices (NULL when capacity is 0) and sets *count to how many there are. A context that shares
 * another's (clc_context_share) reports the other's. For measurements: a choice timed while the
 * machine was busy stays until it is timed again. The switches that force a variant win over
 * this list: where they force part of one (CLCOMPUTE_GRAY_SHAPE alone), the listed choice is not
 * all of what runs; where they fix all of it (CLCOMPUTE_CLOUD_SHAPE; CLCOMPUTE_STAGING_CHUNK,
 * _THREADS or CLCOMPUTE_STAGING=always), the family is not timed and not listed.
 */
CLC_API clc_status clc_context_tuned(clc_context *ctx, clc_tuned_choice *choices, size_t capacity,
                                     size_t *count);

/*
 * Host memory the context's device reads and writes at the bus's full speed: pinned (page-locked)
 * memory the driver moves by DMA, where ordinary memory goes through a bounce buffer at the speed
 * of a host memcpy (on the H200 host 53-55 GB/s against 9-16). Give the host-pointer calls
 * (clc_gray, clc_depth_to_points, clc_depth_to_points_many, clc_reduce) arrays from here and
 * their transfers copy nothing through the CPU; any part of an allocation may be passed. On
 * devices that share host memory (CPUs) it is used in place like any other memory. Pinned memory
 * is a scarce system resource: allocate buffers to reuse, not one per call. Memory allocated on
 * a batch's device context (clc_batch_context) is recognised by every worker of that device.
 * Freed by clc_host_free, or with the context. CLC_ERROR_INVALID_ARGUMENT for a zero size.
 */
CLC_API clc_status clc_host_alloc(clc_context *ctx, size_t bytes, void **ptr);

/* Frees memory from clc_host_alloc on the same context (or device of a batch). NULL is allowed;
 * another pointer is CLC_ERROR_INVALID_ARGUMENT. */
CLC_API clc_status clc_host_free(clc_context *ctx, void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Errors. The library never prints and never aborts: every failure returns a status and leaves a
 * detailed message (the failing OpenCL call and its code name, the selector, the build log).
 * ------------------------------------------------------------------------------------------- */

/* The message of the calling thread's last failed clc_ call, or "" when none failed. The string
 * is thread-local and valid until this thread's next failing call; long build logs are cut. A
 * call that succeeded despite something worth knowing leaves a message starting "note: " (a disk
 * cache entry not used, and why). */
CLC_API const char *clc_last_error(void);

/*
 * Copies the message of the last failed call on ctx (from any thread) into buf, complete with
 * build logs, cut to size and always terminated when size > 0. Returns the full length, so a
 * caller can size a buffer: clc_context_last_error(ctx, NULL, 0) + 1 bytes.
 */
CLC_API size_t clc_context_last_error(clc_context *ctx, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
