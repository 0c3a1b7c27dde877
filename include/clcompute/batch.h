/* Batches: many items processed by one or more devices at once. */
#ifndef CLCOMPUTE_BATCH_H
#define CLCOMPUTE_BATCH_H

#include <stddef.h>

#include "clcompute/runtime.h"
#include "clcompute/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options for clc_batch_create. A zero-initialised struct (or NULL) means all defaults. */
typedef struct clc_batch_options {
    /* Devices, as for clc_device_select_many. */
    const char *devices;
    /* More than 1: each CPU device is split into this many sub-devices (clCreateSubDevices,
     * equally), each taking part on its own, so a one-CPU machine runs the multi-device path. */
    unsigned cpu_partitions;
    /* Workers per device, each a clc_context with its own queue and thread, all sharing the
     * device's cl_context, so that one item's transfers overlap another's kernel and the
     * caller's work between calls. 0: 4 on devices with their own memory (discrete GPUs), 2 on
     * devices sharing host memory (CPUs). At most 64. */
    unsigned workers_per_device;
    /* Disk cache of the workers' contexts, as in clc_context_options. */
    clc_cache_mode cache;
    const char *cache_dir;
} clc_batch_options;

/* One or more devices, each with its workers. */
typedef struct clc_batch clc_batch;

/* Creates the workers' contexts on every selected device (and sub-device). */
CLC_API clc_status clc_batch_create(const clc_batch_options *options, clc_batch **batch);

/* Releases every context. NULL is allowed. Must not race with clc_batch_run. */
CLC_API void clc_batch_destroy(clc_batch *batch);

/* Devices (or sub-devices) taking part, and what the library knows of each. */
CLC_API size_t clc_batch_device_count(const clc_batch *batch);
CLC_API const clc_device_info *clc_batch_device(const clc_batch *batch, size_t device);

/* The work for item `item`, run on a worker's context (for example clc_gray on that item's
 * image, reading and writing its files too). Called from the workers' threads, each item once. */
typedef clc_status (*clc_batch_job)(clc_context *ctx, size_t item, void *user);

/* Told after each item, from a worker's thread, one call at a time. */
typedef void (*clc_batch_progress)(size_t done, size_t failed, size_t count, void *user);

/*
 * Runs job for items 0..count-1 on every worker: each takes the next item when it is free, so the
 * split follows each device's speed. A failed item does not stop the others. statuses, when not
 * NULL, receives each item's status (CLC_ERROR_CANCELLED for items never started). Returns
 * CLC_SUCCESS when every item succeeded, CLC_ERROR_CANCELLED after clc_batch_cancel, else the
 * status of the first failed item (by index). One run at a time: a call while the batch runs
 * (from another thread, or from a job) is refused with CLC_ERROR_INVALID_ARGUMENT.
 */
CLC_API clc_status clc_batch_run(clc_batch *batch, size_t count, clc_batch_job job, void *user,
                                 clc_status *statuses, clc_batch_progress progress,
                                 void *progress_user);

/* Stops a running batch after the items in progress: safe from a signal handler or any thread.
 * The next clc_batch_run starts afresh. */
CLC_API void clc_batch_cancel(clc_batch *batch);

/* The context of device `device`'s first worker, for clc_host_alloc: memory allocated there is
 * recognised by every worker of that device. Valid until clc_batch_destroy; do not destroy it. */
CLC_API clc_context *clc_batch_context(const clc_batch *batch, size_t device);

/* Workers (threads, each with a context and queue) of device `device`; 0 past the last device.
 * A caller splitting work into items can size them by it: a few items a worker keeps every
 * device busy to the end. */
CLC_API size_t clc_batch_workers(const clc_batch *batch, size_t device);

/* Items device `device` completed (successfully or not) in the last run. */
CLC_API size_t clc_batch_items_done(const clc_batch *batch, size_t device);

#ifdef __cplusplus
}
#endif

#endif
