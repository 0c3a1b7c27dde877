/* Program builds: from source or from the disk cache, once per context for embedded kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void count(clc_context *ctx, uint64_t *counter)
{
    clc_mutex_lock(&ctx->lock);
    ++*counter;
    clc_mutex_unlock(&ctx->lock);
}

/* The compiler's log for the device, or a note when it has none. Heap string. */
static char *build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size <= 1)
        return clc__strdup("(the compiler left no log)");
    char *log = calloc(size + 1, 1);
    if (log &&
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
        log[0] = '\0';
    return log;
}

/* A binary the driver accepted before may still fail to load (driver update under the same
 * version string, a truncated write the checksum missed): the caller then rebuilds. */
static cl_program load_binary(clc_context *ctx, const unsigned char *binary, size_t size,
                              const char *options)
{
    cl_int err = CL_SUCCESS, binary_status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, &binary,
                                                   &binary_status, &err);
    if (err != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (program)
            clReleaseProgram(program);
        return NULL;
    }
    if (clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

/* The device binary of a built program (malloc'd), or NULL when the driver offers none. */
static unsigned char *program_binary(cl_program program, size_t *size)
{
    size_t sz = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, NULL) != CL_SUCCESS ||
        sz == 0)
        return NULL;
    unsigned char *bin = malloc(sz);
    if (bin &&
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    *size = sz;
    return bin;
}

static cl_program try_cache(clc_context *ctx, const char *key, const char *options)
{
    unsigned char *binary = NULL;
    size_t size = 0;
    char why[1024];
    int found = clc__cache_load(ctx->cache_dir, key, &binary, &size, why, sizeof why);
    cl_program program = found == 1 ? load_binary(ctx, binary, size, options) : NULL;
    free(binary);
    /* Not a failure: the program is built from source instead, and the caller can read why. */
    if (found == -2)
        clc__note(ctx, "disk cache: %s; the program is built from source", why);
    if (program)
        count(ctx, &ctx->stats.hits);
    else if (found != 0)
        count(ctx, &ctx->stats.rejected);
    return program;
}

static void store(clc_context *ctx, const char *key, cl_program program)
{
    size_t size = 0;
    unsigned char *binary = program_binary(program, &size);
    int ok = binary && clc__cache_store(ctx->cache_dir, key, binary, size, NULL, 0) == 0;
    free(binary);
    count(ctx, ok ? &ctx->stats.stored : &ctx->stats.store_failures);
}

clc_status clc__program_build(clc_context *ctx, const char *source, size_t length,
                              const char *source_hash, const char *options, int quiet,
                              cl_program *out)
{
    options = options ? options : "";
    char *key = ctx->cache_dir ? clc__cache_key(ctx, source_hash, options) : NULL;
    cl_program program = key ? try_cache(ctx, key, options) : NULL;
    if (program) {
        free(key);
        *out = program;
        return CLC_SUCCESS;
    }
    count(ctx, &ctx->stats.misses);

    cl_int err = CL_SUCCESS;
    program = clCreateProgramWithSource(ctx->context, 1, &source, &length, &err);
    if (err != CL_SUCCESS) {
        free(key);
        return clc__cl_fail(ctx, err, "clCreateProgramWithSource");
    }
    /* -w (OpenCL's own option) for the library's sources: PoCL's compiler writes "N warnings
     * generated." to the process's stderr, besides the build log, and the library never prints.
     * Their warnings are clang's notes that 16-lane vector arguments change the ABI on CPUs
     * without AVX-512, which cannot matter within one program. Errors still fail the build with
     * their log. Not in the cache key: the code is the same. A user's program (clc_program_build)
     * is built with the user's options alone: its warnings and -Werror are theirs. */
    char *quieted = quiet ? malloc(strlen(options) + 4) : NULL;
    if (quiet && !quieted) {
        free(key);
        clReleaseProgram(program);
        return clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "building a program: out of memory");
    }
    if (quieted) {
        strcpy(quieted, "-w ");
        strcat(quieted, options);
    }
    err = clBuildProgram(program, 1, &ctx->device, quieted ? quieted : options, NULL, NULL);
    free(quieted);
    if (err != CL_SUCCESS) {
        char *log = build_log(program, ctx->device);
        clc_status st = clc__fail(
            ctx,
            err == CL_BUILD_PROGRAM_FAILURE ? CLC_ERROR_BUILD_PROGRAM_FAILURE : (clc_status)err,
            "clBuildProgram failed (%s) for device \"%s\" (%s) with options \"%s\"; build log:\n%s",
            clc_status_string(err), ctx->info.name, ctx->info.platform_name, options,
            log ? log : "(out of memory reading the log)");
        free(log);
        free(key);
        clReleaseProgram(program);
        return st;
    }
    if (key)
        store(ctx, key, program);
    free(key);
    *out = program;
    return CLC_SUCCESS;
}

clc_status clc_program_build(clc_context *ctx, const char *source, const char *options,
                             cl_program *program)
{
    if (!program)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "clc_program_build: program is NULL");
    *program = NULL;
    if (!ctx || !source || !*source)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_program_build: context and a non-empty source are required");
    size_t length = strlen(source);
    /* User sources get their identity hash here; embedded ones bring theirs from the build. */
    char hash[32];
    snprintf(hash, sizeof hash, "fnv1a64:%016llx",
             (unsigned long long)clc__fnv1a64(source, length, CLC_FNV1A64_SEED));
    return clc__program_build(ctx, source, length, hash, options, 0, program);
}

clc_status clc__program_get(clc_context *ctx, const clc_embedded_source *source,
                            const char *options, cl_program *out)
{
    options = options ? options : "";
    /* Held across the build so that threads asking for the same program at once build it once;
     * a separate lock from ctx->lock, which the build itself takes for stats and errors. */
    clc_mutex_lock(&ctx->build_lock);
    for (size_t i = 0; i < ctx->program_count; ++i) {
        clc_program_entry *e = &ctx->programs[i];
        if (e->source == source && strcmp(e->options, options) == 0) {
            *out = e->program;
            clc_mutex_unlock(&ctx->build_lock);
            return CLC_SUCCESS;
        }
    }
    clc_status st = CLC_SUCCESS;
    char *opts = clc__strdup(options);
    if (opts && ctx->program_count == ctx->program_capacity) {
        size_t cap = ctx->program_capacity ? 2 * ctx->program_capacity : 8;
        clc_program_entry *grown = realloc(ctx->programs, cap * sizeof *grown);
        if (grown) {
            ctx->programs = grown;
            ctx->program_capacity = cap;
        }
    }
    if (!opts || ctx->program_count == ctx->program_capacity) {
        st = clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "program registry");
    } else {
        cl_program program = NULL;
        st = clc__program_build(ctx, source->text, source->length, source->hash, options, 1,
                                &program);
        if (st == CLC_SUCCESS) {
            ctx->programs[ctx->program_count++] = (clc_program_entry){source, opts, program};
            opts = NULL;
            *out = program;
        }
    }
    clc_mutex_unlock(&ctx->build_lock);
    free(opts);
    return st;
}

void clc__programs_release(clc_context *ctx)
{
    for (size_t i = 0; i < ctx->program_count; ++i) {
        clReleaseProgram(ctx->programs[i].program);
        free(ctx->programs[i].options);
    }
    free(ctx->programs);
    ctx->programs = NULL;
    ctx->program_count = ctx->program_capacity = 0;
}
