/* Library-internal declarations shared by lib/runtime and lib/ops. Never installed. */
#ifndef CLCOMPUTE_INTERNAL_H
#define CLCOMPUTE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "clcompute/clcompute.h"
#include "lock.h"

/* Kernel sources turned into C arrays by cmake/embed_cl.cmake; hash is the SHA-256 of the file
 * computed at build time, which keys the disk cache. */
typedef struct clc_embedded_source {
    const char *name; /* file name without ".cl" */
    const char *text; /* NUL-terminated */
    size_t length;
    const char *hash;
} clc_embedded_source;

/* Defined in the generated kernels.c, one per cl/NAME.cl. */
extern const clc_embedded_source clc__source_copy;
extern const clc_embedded_source clc__source_cloud;
extern const clc_embedded_source clc__source_gray;
extern const clc_embedded_source clc__source_reduce;

typedef struct clc_program_entry {
    const clc_embedded_source *source;
    char *options;
    cl_program program;
} clc_program_entry;

/* Testing and measuring switches from the environment (switches.c). */
typedef enum clc_switch {
    CLC_SW_STAGING,
    CLC_SW_STAGING_THREADS,
    CLC_SW_POISON,
    CLC_SW_TUNE,
    CLC_SW_GRAY_SHAPE,
    CLC_SW_GRAY_PATH,
    CLC_SW_CLOUD_SHAPE,
    CLC_SW_REDUCE_SHAPE,
    CLC_SWITCHES
} clc_switch;
enum { CLC_SWITCH_UNSET = -1, CLC_SWITCH_INVALID = -2 };
typedef struct clc_switch_value {
    int value; /* CLC_SWITCH_UNSET, CLC_SWITCH_INVALID, the choice's index or the number */
    char text[32];
} clc_switch_value;

typedef struct clc_staging clc_staging;
typedef struct clc_pinned clc_pinned;
typedef struct clc_tune_family clc_tune_family;

struct clc_context {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    clc_device_info info; /* strings owned, freed with clc__device_info_clear */
    char *reason;
    char *cache_dir; /* NULL: disk cache off */

    clc_mutex lock; /* guards last_error and stats */
    char *last_error;
    clc_cache_stats stats;

    clc_switch_value switches[CLC_SWITCHES]; /* read when the context is made */

    clc_mutex pinned_lock; /* guards pinned */
    clc_pinned *pinned;    /* clc_host_alloc's allocations (of the device's first batch worker
                              for the other workers: see pinned.c) */

    clc_mutex staging_lock;   /* guards staging */
    clc_staging *staging;     /* pinned buffers for host transfers, made on first need */
    int staging_mode;         /* CLC_STAGING_*: CLCOMPUTE_STAGING at creation, or set by a batch */
    size_t staging_chunk;     /* bytes a staging buffer holds */
    unsigned staging_threads; /* host threads copying each chunk (CLCOMPUTE_STAGING_THREADS) */
    int poison; /* CLCOMPUTE_POISON at creation: -1, or the byte scratch buffers start as */

    clc_mutex tune_lock; /* guards tuned; held while a family is being timed */
    struct {
        const clc_tune_family *family;
        int variant;
    } tuned[4]; /* the variant each kernel family uses on this device */
    size_t tuned_count;
    /* A batch worker: the context of its device's first worker, which times and remembers the
     * variants for all of them, so that the workers starting together do not each time the
     * kernels while the others load the device (and store whichever finished last). */
    struct clc_context *tune_peer;

    clc_mutex build_lock; /* guards the registry of embedded programs */
    clc_program_entry *programs;
    size_t program_count;
    size_t program_capacity;
};

/* ---- errors (error.c) ---- */

/* Records a formatted message for the calling thread and, when ctx is not NULL, for ctx; returns
 * status so that failure paths read `return clc__fail(...)`. */
clc_status clc__fail(clc_context *ctx, clc_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records a message that is not a failure (a disk cache entry ignored, say) the same way, for
 * clc_last_error and clc_context_last_error to tell; the call that records it succeeds. */
void clc__note(clc_context *ctx, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Records "CALL failed: CL_NAME (code)" (plus an optional detail) and returns err as a status. */
clc_status clc__cl_fail(clc_context *ctx, cl_int err, const char *call);

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or NULL when unknown. */
const char *clc__cl_error_name(cl_int err);

/* ---- strings (strings.c) ---- */

char *clc__strdup(const char *s);
/* printf into a new heap string; NULL when out of memory. */
char *clc__asprintf(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *clc__vasprintf(const char *fmt, va_list ap);
/* Case-insensitive substring test (ASCII). */
int clc__contains_nocase(const char *haystack, const char *needle);
int clc__equals_nocase(const char *a, const char *b);

/* ---- hashing (hash.c) ---- */

uint64_t clc__fnv1a64(const void *data, size_t size, uint64_t seed);
#define CLC_FNV1A64_SEED 0xcbf29ce484222325ull

/* ---- discovery (discovery.c) ---- */

/* Fills *info for one device; strings are heap copies released by clc__device_info_clear. */
clc_status clc__device_info_fill(cl_platform_id platform, cl_device_id device,
                                 unsigned platform_index, unsigned device_index,
                                 clc_device_info *info);
void clc__device_info_clear(clc_device_info *info);

/* ---- selection (select.c) ---- */

/* The selection rule on a plain array, so that tests can feed made-up devices. `origin` names
 * where the selector came from ("CLCOMPUTE_DEVICE", "selector") for the reason and the error. */
clc_status clc__select_among(const clc_device_info *devices, size_t count, const char *selector,
                             const char *origin, size_t *index, char *reason, size_t reason_size);
/* clc_device_select_many on a plain array. */
clc_status clc__select_many_among(const clc_device_info *devices, size_t count,
                                  const char *selectors, const char *origin, size_t *indices,
                                  size_t capacity, size_t *found);

/* ---- programs (program.c) ---- */

/* The context's program built from an embedded source with the given options (NULL = ""),
 * built on first use and kept for the life of the context. Borrowed: do not release. */
clc_status clc__program_get(clc_context *ctx, const clc_embedded_source *source,
                            const char *options, cl_program *program);

/* Builds (or loads from the disk cache) a program whose source has the given identity hash. */
clc_status clc__program_build(clc_context *ctx, const char *source, size_t length,
                              const char *source_hash, const char *options, cl_program *program);

void clc__programs_release(clc_context *ctx);

/* ---- buffers and work sizes (launch.c) ---- */

/* Checks that buffer belongs to ctx's context and holds `bytes` from `offset`; `what` names it
 * in the message ("source buffer"). */
clc_status clc__check_buffer(clc_context *ctx, cl_mem buffer, size_t offset, size_t bytes,
                             const char *what);

/* A kernel from an embedded program, created for this call (cl_kernel argument state must not be
 * shared between threads). */
clc_status clc__kernel_create(clc_context *ctx, const clc_embedded_source *source,
                              const char *options, const char *name, cl_kernel *kernel);

/* The one-dimensional work-group size for kernel on ctx's device: `want` capped by the
 * kernel's own limit and rounded down to its preferred multiple. */
clc_status clc__local_size(clc_context *ctx, cl_kernel kernel, size_t want, size_t *local);

typedef struct clc_arg {
    size_t size;
    const void *value;
} clc_arg;
#define CLC_ARG(x)                                                                                 \
    {                                                                                              \
        sizeof(x), &(x)                                                                            \
    }

/* Host memory as a buffer: on devices that share host memory the caller's memory itself
 * (CL_MEM_USE_HOST_PTR, no copy); elsewhere a device buffer, filled by a non-blocking write for
 * an input. NULL with *err set on failure. */
cl_mem clc__host_input(clc_context *ctx, const void *data, size_t bytes, cl_int *err);
cl_mem clc__host_output(clc_context *ctx, void *data, size_t bytes, cl_int *err);

/* A device buffer for the library's own use (scratch, results copied back later). Under
 * CLCOMPUTE_POISON=N (tests) it starts filled with byte N, finished before return, so that a
 * kernel reading memory nobody wrote gives results that depend on N. NULL with *err on failure. */
cl_mem clc__scratch(clc_context *ctx, cl_mem_flags flags, size_t bytes, cl_int *err);

/* Releases *m if it is set and clears it, so that cleanup paths may run more than once. */
void clc__release_mem(cl_mem *m);

/* Makes the first `bytes` of an output buffer from clc__host_output visible in `data`: a map
 * and unmap in place, a blocking read otherwise. */
cl_int clc__host_sync(clc_context *ctx, cl_mem buffer, void *data, size_t bytes);

/* ---- per-device variants (tune.c) ---- */

/* A kernel family whose variants are timed on first use. setup makes a synthetic input (in
 * *arg), run enqueues variant v on `queue` without waiting, teardown frees the input. */
struct clc_tune_family {
    const char *name;                  /* "gray"; part of the stored key */
    const clc_embedded_source *source; /* the program whose cache key the choice extends */
    const char *options;
    const char *const *names; /* variant names, as stored */
    int count;                /* 1 to CLC_TUNE_MAX_VARIANTS */
    clc_status (*setup)(clc_context *ctx, void **arg);
    clc_status (*run)(clc_context *ctx, cl_command_queue queue, int variant, void *arg);
    void (*teardown)(void *arg);
};
#define CLC_TUNE_MAX_VARIANTS 8
typedef clc_status (*clc_tune_run)(clc_context *ctx, cl_command_queue queue, int variant,
                                   void *arg);

/* The variant of `family` on ctx's device: remembered by ctx, else stored in the disk cache,
 * else timed now (and stored). `fallback` when CLCOMPUTE_TUNE=0 or timing is impossible. */
int clc__tune(clc_context *ctx, const clc_tune_family *family, int fallback);

/* The variant with the least time among those that ran (ok[v]), or -1 when none did. A time of
 * 0 (faster than the clock can tell) is a time like any other, and the best one: which variants
 * ran is kept apart from how long they took. Ties go to the earlier variant. */
int clc__tune_choose(const uint64_t *ns, const int *ok, int count);

/* Nanoseconds of a monotonic clock, for intervals. */
uint64_t clc__now_ns(void);

/* ---- pinned staging (staging.c) ---- */

enum {
    CLC_STAGING_OFF = 0,    /* CLCOMPUTE_STAGING=0: every transfer left to the driver */
    CLC_STAGING_AUTO = 1,   /* uploads of two chunks or more staged, read-backs not */
    CLC_STAGING_ALWAYS = 2, /* CLCOMPUTE_STAGING=always: everything, in small odd chunks (tests) */
    CLC_STAGING_WORKER = 3  /* a batch worker: uploads and read-backs from 64 KiB up */
};

/* Whether host memory is used in place (unified-memory devices) rather than copied. */
int clc__host_in_place(const clc_context *ctx);
/* Whether a transfer of `bytes` from or to `data` (to the device, or back with `read`) goes
 * through the context's pinned staging buffers, as ctx->staging_mode says, on devices with their
 * own memory: never for memory from clc_host_alloc, which the device reaches directly. */
int clc__staging_wanted(clc_context *ctx, const void *data, size_t bytes, int read);

/* ---- switches (switches.c) ---- */

/* Reads every switch from the environment into ctx (context creation). */
void clc__switches_read(clc_context *ctx);
/* Sets one as the environment would (NULL or "": unset); for tests. Staging, its threads and
 * poison take effect only when read at creation. */
void clc__switch_set(clc_context *ctx, clc_switch s, const char *text);
/* 1 with *value (the choice's index in the switch's list, or the number) when set, 0 when
 * unset, -1 after recording CLC_ERROR_INVALID_ARGUMENT on ctx when malformed. */
int clc__switch(clc_context *ctx, clc_switch s, int *value);

/* ---- host copies on several threads (copier.c) ---- */

typedef struct clc_copier clc_copier;
/* `threads` threads in all (the caller's and threads - 1 helpers); NULL for fewer than 2 or when
 * out of memory (then copies are plain memcpy). */
/* The thread count when CLCOMPUTE_STAGING_THREADS is unset, from the host's cores. */
unsigned clc__copier_default_threads(void);
clc_copier *clc__copier_create(unsigned threads);
void clc__copier_destroy(clc_copier *c);
/* memcpy, split over the threads; c may be NULL. One copy at a time a copier. */
void clc__copier_memcpy(clc_copier *c, void *dst, const void *src, size_t bytes);

/* ---- pinned host memory (pinned.c) ---- */

/* Whether [data, data + bytes) lies in one clc_host_alloc allocation of the context's device. */
int clc__host_pinned(clc_context *ctx, const void *data, size_t bytes);
/* Frees what clc_host_alloc gave and the caller did not free (context destruction). */
void clc__pinned_release_all(clc_context *ctx);
/* dst[0..bytes) = src, pipelined through the staging buffers; returns when src may be reused. */
cl_int clc__staged_write(clc_context *ctx, cl_mem dst, const void *src, size_t bytes);
/* dst = src[0..bytes) after the commands already on the queue, pipelined the other way: the
 * host copies one chunk out while the next one's DMA runs. Blocking. */
cl_int clc__staged_read(clc_context *ctx, cl_mem src, void *dst, size_t bytes);
/* Unmaps and releases the staging buffers, if any. */
void clc__staging_release(clc_context *ctx);

/* Sets kernel arguments 0..count-1; the message names the kernel and argument that failed. */
clc_status clc__set_args(clc_context *ctx, cl_kernel kernel, const char *kernel_name,
                         const clc_arg *args, size_t count);

/* ---- disk cache (cache.c) ---- */

/* Resolves the cache directory from an explicit path or the environment; NULL when the cache is
 * off or no directory can be named. Creates nothing. */
char *clc__cache_dir_resolve(clc_cache_mode mode, const char *explicit_dir);

/* The full key text of a program for this context. */
char *clc__cache_key(const clc_context *ctx, const char *source_hash, const char *options);

/* Looks up an entry; 1 with *binary (malloc'd) on a valid hit, 0 when absent, -1 when an entry
 * exists but is corrupt, truncated or belongs to another key, -2 when the directory or the entry
 * is not to be trusted: owned by another user, writable by group or others, or (the entry) a
 * symbolic link or not a regular file. Program binaries may carry native code the driver loads
 * into the process, so only what this user alone could have written is read. why (may be NULL)
 * receives the reason for -2, else "". */
int clc__cache_load(const char *dir, const char *key, unsigned char **binary, size_t *size,
                    char *why, size_t why_size);

/* Writes an entry atomically (temporary file, then rename), readable and writable by this user
 * only; 0 on success, -1 on failure with the reason in why (may be NULL). Creates the directory
 * (0700) when missing; writes nothing into a directory clc__cache_load would not trust. */
int clc__cache_store(const char *dir, const char *key, const unsigned char *binary, size_t size,
                     char *why, size_t why_size);

/* The entry's path for a key (heap string). */
char *clc__cache_entry_path(const char *dir, const char *key);

/* Entry layout, little-endian: magic[8] | u32 format | u32 key_len | u64 payload_len |
 * u64 payload_fnv1a64 | key | payload. */
#define CLC_CACHE_MAGIC "CLCPROG\x1a"
#define CLC_CACHE_FORMAT 1u
#define CLC_CACHE_HEADER_SIZE 32u

#endif
