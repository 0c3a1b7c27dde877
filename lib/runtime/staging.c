/* Pinned staging for the host transfers of host-pointer calls on devices with their own memory.
 *
 * A write from pageable memory makes the driver copy through its own small pinned buffer, one
 * piece at a time (6.8 GB/s for an 8K RGB image on the H200 host). Instead the context keeps two
 * pinned buffers (CL_MEM_ALLOC_HOST_PTR, mapped once for their lifetime) and pipelines: while the
 * device copies one chunk by DMA, the host copies the next one into the other buffer, on several
 * threads (copier.c). Reads back go the same way: with one copying thread they were slower than
 * the driver's own read (8.3 vs 10.2 GB/s for 271 MB of points), with the copier's threads they
 * are twice as fast (H200, 8 threads: a dense 8K cloud 25.4 -> 13.3 ms host-to-host, 64 VGA
 * frames 23.5 -> 10.6 ms). Below 4 MiB the driver's path is as fast (a VGA gray image: 0.24 ms
 * either way) and keeps the staging buffers out of small calls; contexts sharing a device with
 * other callers (CLC_TRANSFERS_STAGED) stage from 64 KiB, because the driver's pageable path
 * serves one transfer at a time and they would wait on each other in it. The buffers are created
 * on the first staged transfer, so contexts on CPUs and integrated GPUs never hold them. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* How large a chunk is, and how many threads copy it, is timed per device (below): on the H200
 * host one copier thread manages 10 GB/s into pinned memory and each DMA costs about 80 us
 * besides its bytes, so a 1 GiB upload took 52 ms in 4 MiB chunks, 33 in 8 and 24-25 in 32
 * (docs/perf/h200-session5.md). A transfer of B bytes then pays, besides its bytes, one chunk's
 * copy before the DMAs start and a DMA's fixed cost per chunk: least when the chunk grows as
 * sqrt(B). So the chunk timed on a transfer of TUNE_BYTES serves transfers of that size and
 * larger (as the largest chunk: the gain beyond it was small, 24-25 ms for 1 GiB in 32 or 64 MiB
 * chunks, and the buffers stay bounded), and smaller ones take chunks smaller by that root. */
#define TUNE_BYTES ((size_t)128 << 20)

static size_t staging_reference(const clc_context *ctx)
{
    return ctx->staging_probe ? ctx->staging_probe : TUNE_BYTES;
}

struct clc_staging {
    cl_mem buffer[2];
    void *host[2];
    cl_event busy[2]; /* the last transfer using each buffer, NULL when idle */
    unsigned own;     /* the slots whose busy event the transfer in progress enqueued, a bit each */
    int next;         /* the slot an upload starts in: the one its predecessor wrote less lately */
    size_t capacity;  /* the largest chunk */
    size_t allocated; /* bytes each buffer holds: at least the largest chunk used so far */
    size_t reference; /* transfers this large or larger use whole chunks; 0: all do (untimed) */
    unsigned threads; /* threads copying a chunk (the copier may have more: tuning) */
    clc_copier *copier; /* the threads that fill and empty the buffers; NULL for one */
};

/* Waits until slot s may be overwritten. A chunk of an earlier transfer that failed on the
 * device is not this transfer's failure: the call that made that transfer holds the event
 * (clc__staged_write hands out the chunks it leaves in flight) and reports it once it has finished
 * its queue; to this transfer the slot is only free again. Reporting it here too named the
 * failure twice, the second time under another call's name (another thread's, whose upload
 * reached the slot before the owner checked it). A wait that fails otherwise fails the transfer. */
static cl_int settle(clc_staging *s, int slot)
{
    if (!s->busy[slot])
        return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, &s->busy[slot]), status = CL_COMPLETE;
    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST && !(s->own >> slot & 1u) &&
        clGetEventInfo(s->busy[slot], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                       NULL) == CL_SUCCESS &&
        status < 0)
        err = CL_SUCCESS;
    clReleaseEvent(s->busy[slot]);
    s->busy[slot] = NULL;
    s->own &= ~(1u << slot);
    return err;
}

/* Unmaps and releases the buffers, once nothing uses them. */
static void buffers_drop(clc_staging *s, cl_command_queue queue)
{
    for (int i = 0; i < 2; ++i)
        settle(s, i);
    if (!s->buffer[0] && !s->buffer[1])
        return;
    for (int i = 0; i < 2; ++i)
        if (s->host[i])
            clEnqueueUnmapMemObject(queue, s->buffer[i], s->host[i], 0, NULL, NULL);
    clFinish(queue);
    for (int i = 0; i < 2; ++i) {
        if (s->buffer[i])
            clReleaseMemObject(s->buffer[i]);
        s->buffer[i] = NULL, s->host[i] = NULL;
    }
    s->allocated = 0;
}

/* Two pinned buffers of `bytes`, mapped on `queue` for their lifetime (none after a failure). */
static cl_int buffers_make(clc_context *ctx, cl_command_queue queue, clc_staging *s, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 2 && err == CL_SUCCESS; ++i) {
        s->buffer[i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                      bytes, NULL, &err);
        if (err == CL_SUCCESS)
            s->host[i] =
                clEnqueueMapBuffer(queue, s->buffer[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   bytes, 0, NULL, NULL, &err);
    }
    if (err != CL_SUCCESS)
        buffers_drop(s, queue);
    else
        s->allocated = bytes;
    return err;
}

/* Buffers for chunks of *chunk bytes. They are made as large as the chunks in use rather than the
 * largest chunk, so that a context moving only small frames (a batch worker's 4K image takes
 * 14 MiB chunks) holds only what they need; a larger chunk replaces them with buffers at least
 * twice as large (up to the capacity), so that sizes creeping up do not re-pin every time. When
 * the larger ones cannot be had, buffers of the old size serve, *chunk lowered to it. */
static cl_int buffers_fit(clc_context *ctx, cl_command_queue queue, clc_staging *s, size_t *chunk)
{
    if (*chunk <= s->allocated)
        return CL_SUCCESS;
    const size_t old = s->allocated, twice = 2 * old < s->capacity ? 2 * old : s->capacity;
    /* The old buffers go once nothing uses them; a wait that fails (other than on an earlier
     * transfer's failure, which its call reports) fails this transfer rather than pass unseen. */
    for (int i = 0; i < 2; ++i) {
        const cl_int err = settle(s, i);
        if (err != CL_SUCCESS)
            return err;
    }
    buffers_drop(s, queue);
    cl_int err = buffers_make(ctx, queue, s, *chunk > twice ? *chunk : twice);
    if (err != CL_SUCCESS && old > 0 && buffers_make(ctx, queue, s, old) == CL_SUCCESS)
        *chunk = old, err = CL_SUCCESS;
    return err;
}

static void staging_free(clc_staging *s, cl_command_queue queue)
{
    if (!s)
        return;
    buffers_drop(s, queue);
    clc__copier_destroy(s->copier);
    free(s);
}

/* Staging in chunks of up to `capacity` bytes copied by `threads` threads (the buffers come with
 * the first transfer). */
static cl_int staging_make(size_t capacity, unsigned threads, clc_staging **out)
{
    clc_staging *s = calloc(1, sizeof *s);
    if (!s)
        return CL_OUT_OF_HOST_MEMORY;
    s->capacity = capacity;
    s->threads = threads;
    s->copier = clc__copier_create(threads);
    *out = s;
    return CL_SUCCESS;
}

/* The chunk for a transfer of `bytes`: the capacity, or on a tuned context the capacity scaled
 * by sqrt(bytes / reference), in whole 64 KiB; never more than the transfer (in whole 64 KiB),
 * which would only pin memory nothing uses. */
static size_t chunk_for(const clc_staging *s, size_t bytes)
{
    const size_t whole = bytes > SIZE_MAX - 0xFFFF ? bytes : (bytes + 0xFFFF) & ~(size_t)0xFFFF;
    if (!s->reference || bytes >= s->reference)
        return s->capacity < whole ? s->capacity : whole;
    /* In 64 KiB units u (at most 512 for the tuned 32 MiB), the least c with c^2 >= u^2 * bytes /
     * reference, without libm. */
    const uint64_t u = s->capacity >> 16;
    const double want = (double)(u * u) * ((double)bytes / (double)s->reference);
    uint64_t c = 1;
    while (c < u && (double)(c * c) < want)
        ++c;
    const size_t chunk = (size_t)c << 16;
    return chunk < whole ? chunk : whole;
}

/* Bytes in chunk j of a transfer of `bytes` in chunks of `chunk`: a whole chunk, or the rest. */
static size_t chunk_bytes(size_t chunk, size_t bytes, size_t j)
{
    const size_t off = j * chunk;
    return bytes - off < chunk ? bytes - off : chunk;
}

/* dst[at..at + bytes) = src through s: the host copies chunk i into one buffer while the
 * device reads chunk i - 1 from the other. Returns when src may be reused, s->own marking the
 * slots whose chunks may still be in flight. It starts in the slot the previous upload did not
 * write last, so that its first copy (a cloud's colour after its depth) need not wait for that
 * upload's last DMA. */
static cl_int write_through(clc_context *ctx, cl_command_queue queue, clc_staging *s, cl_mem dst,
                            size_t at, const void *src, size_t bytes)
{
    size_t chunk = chunk_for(s, bytes);
    s->own = 0;
    cl_int err = buffers_fit(ctx, queue, s, &chunk);
    const int first = s->next;
    for (size_t off = 0, i = 0; err == CL_SUCCESS && off < bytes; off += chunk, ++i) {
        const int slot = (first + (int)(i % 2)) % 2;
        const size_t len = chunk_bytes(chunk, bytes, i);
        err = settle(s, slot);
        if (err != CL_SUCCESS)
            break;
        clc__copier_memcpy(s->copier, s->threads, s->host[slot], (const unsigned char *)src + off,
                           len);
        err = clEnqueueWriteBuffer(queue, dst, CL_FALSE, at + off, len, s->host[slot], 0, NULL,
                                   &s->busy[slot]);
        if (err == CL_SUCCESS) {
            s->own |= 1u << slot;
            s->next = 1 - slot;
        }
    }
    return err;
}

/* Reads chunk j of the bytes of src from `at` into its slot, without waiting. */
static cl_int read_chunk(cl_command_queue queue, clc_staging *s, cl_mem src, size_t at,
                         size_t chunk, size_t bytes, size_t j)
{
    const int slot = (int)(j % 2);
    cl_int err = settle(s, slot);
    if (err == CL_SUCCESS)
        err =
            clEnqueueReadBuffer(queue, src, CL_FALSE, at + j * chunk, chunk_bytes(chunk, bytes, j),
                                s->host[slot], 0, NULL, &s->busy[slot]);
    if (err == CL_SUCCESS)
        s->own |= 1u << slot;
    return err;
}

/* Copies out of a chunk holding src[c0..c1) the bytes of the parts there, part p's from
 * src[p.at..) to dst + p.at, as one job of the copier's threads (in rounds of up to PIECES
 * parts); *next is the first part not yet copied out whole. */
enum { PIECES = 32 };
static void copy_parts(clc_staging *s, const unsigned char *slot, size_t c0, size_t c1,
                       unsigned char *dst, const clc_part *parts, size_t n, size_t *next)
{
    clc_piece pieces[PIECES];
    size_t count = 0;
    for (size_t k = *next; k < n && parts[k].at < c1; ++k) {
        const size_t end = parts[k].at + parts[k].bytes;
        const size_t lo = parts[k].at > c0 ? parts[k].at : c0, hi = end < c1 ? end : c1;
        if (lo < hi)
            pieces[count++] = (clc_piece){dst + lo, slot + (lo - c0), hi - lo};
        if (count == PIECES) {
            clc__copier_copy(s->copier, s->threads, pieces, count);
            count = 0;
        }
        if (end <= c1)
            *next = k + 1;
    }
    clc__copier_copy(s->copier, s->threads, pieces, count);
}

/* The parts (ascending, apart) of src to the same offsets of dst, after the commands already on
 * queue, the other way round: the device writes the span from the first part's start to the last
 * one's end a chunk at a time, and the host copies the parts of chunk i out while chunk i + 1
 * comes. The gaps cross the bus but are never written to dst. Blocking. */
static cl_int read_through(clc_context *ctx, cl_command_queue queue, clc_staging *s, cl_mem src,
                           void *dst, const clc_part *parts, size_t parts_n)
{
    const size_t base = parts_n ? parts[0].at : 0;
    const size_t bytes = parts_n ? parts[parts_n - 1].at + parts[parts_n - 1].bytes - base : 0;
    if (!bytes)
        return CL_SUCCESS;
    size_t chunk = chunk_for(s, bytes), next_part = 0;
    s->own = 0;
    cl_int err = buffers_fit(ctx, queue, s, &chunk);
    const size_t n = (bytes + chunk - 1) / chunk;
    if (err == CL_SUCCESS)
        err = read_chunk(queue, s, src, base, chunk, bytes, 0);
    for (size_t i = 0; err == CL_SUCCESS && i < n; ++i) {
        if (i + 1 < n) /* its slot held chunk i - 1, already copied out */
            err = read_chunk(queue, s, src, base, chunk, bytes, i + 1);
        if (err == CL_SUCCESS)
            err = settle(s, (int)(i % 2));
        if (err == CL_SUCCESS)
            copy_parts(s, s->host[i % 2], base + i * chunk,
                       base + i * chunk + chunk_bytes(chunk, bytes, i), dst, parts, parts_n,
                       &next_part);
    }
    if (err != CL_SUCCESS) /* nothing may still be writing into the slots */
        for (int i = 0; i < 2; ++i)
            settle(s, i);
    return err;
}

/* ---- timing chunk sizes and thread counts (a family of tune.c) ---- */

/* The candidates: chunks of 16 and 32 MiB (8 MiB was never the fastest for 128 MiB on the H200
 * host, and smaller transfers take smaller chunks anyway), each copied by 2, 4, 8 or 16 threads,
 * of which only counts from a quarter of the host's cores to all of them run (2 on hosts of one
 * or two cores, 16 on hosts of more than 64): more threads than cores only wait on each other, and
 * fewer than a quarter were never the fastest on the H200 host. Six variants there, timed in about
 * a second. Names are what the disk cache stores. */
static const size_t tune_chunk_mib[] = {16, 32};
static const unsigned tune_threads[] = {2, 4, 8, 16};
#define TUNE_THREADS (sizeof tune_threads / sizeof tune_threads[0])
#define TUNE_VARIANTS ((int)(sizeof tune_chunk_mib / sizeof tune_chunk_mib[0] * TUNE_THREADS))
static const char *const tune_names[TUNE_VARIANTS] = {
    "16 MiB, 2 threads", "16 MiB, 4 threads", "16 MiB, 8 threads", "16 MiB, 16 threads",
    "32 MiB, 2 threads", "32 MiB, 4 threads", "32 MiB, 8 threads", "32 MiB, 16 threads"};

static size_t variant_chunk(int v)
{
    return tune_chunk_mib[(size_t)v / TUNE_THREADS] << 20;
}

static unsigned variant_threads(int v)
{
    return tune_threads[(size_t)v % TUNE_THREADS];
}

/* The most copy threads worth running on a host of `cores`: one a core, and 2 on one core too. */
static long most_threads(long cores)
{
    return cores > 2 ? cores : 2;
}

int clc__staging_threads_fit(unsigned threads, long cores)
{
    return threads <= most_threads(cores) && (4 * (long)threads >= cores || threads == 16);
}

typedef struct tune_input {
    size_t bytes;        /* what each run moves each way: TUNE_BYTES, less in tests */
    unsigned char *host; /* `bytes` of ordinary memory, written up and read back */
    cl_mem device;
    clc_staging *staging; /* made on the tuning queue by the first run: the largest candidate */
    cl_command_queue queue;
    long cores;
} tune_input;

static void tune_teardown(void *arg)
{
    tune_input *t = arg;
    if (t->staging)
        staging_free(t->staging, t->queue);
    clc__release_mem(&t->device);
    free(t->host);
    free(t);
}

static clc_status tune_setup(clc_context *ctx, void **arg)
{
    /* A device that cannot hold the probe in one buffer is not timed (nor its host copy made). */
    if (staging_reference(ctx) > ctx->info.max_alloc_bytes)
        return CLC_ERROR_UNSUPPORTED;
    tune_input *t = calloc(1, sizeof *t);
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    if (t && (t->host = malloc(t->bytes = staging_reference(ctx))) != NULL) {
        /* Touched, so that no run pays the first use of its pages. */
        memset(t->host, 0x5A, t->bytes);
        t->device = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, t->bytes, NULL, &err);
    }
    if (err != CL_SUCCESS) {
        if (t)
            tune_teardown(t);
        return (clc_status)err;
    }
    t->cores = clc__host_cores();
    *arg = t;
    return CLC_SUCCESS;
}

/* One upload and one read-back of t->bytes through variant v's chunk and threads. */
static clc_status tune_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    tune_input *t = arg;
    if (!clc__staging_threads_fit(variant_threads(variant), t->cores))
        return CLC_ERROR_UNSUPPORTED;
    cl_int err = CL_SUCCESS;
    if (!t->staging) {
        /* A copier of as many threads as the most any variant here uses: a copy wakes all of
         * its threads, so more would tax the variants of fewer. */
        unsigned most = 2;
        for (size_t i = 0; i < TUNE_THREADS; ++i)
            if (clc__staging_threads_fit(tune_threads[i], t->cores) && tune_threads[i] > most)
                most = tune_threads[i];
        t->queue = queue;
        err = staging_make(variant_chunk(TUNE_VARIANTS - 1), most, &t->staging);
    }
    if (err == CL_SUCCESS) {
        /* The largest buffers from the start: no variant's time includes making them. */
        size_t largest = variant_chunk(TUNE_VARIANTS - 1);
        t->staging->capacity = largest;
        err = buffers_fit(ctx, queue, t->staging, &largest);
        t->staging->capacity = variant_chunk(variant);
        t->staging->threads = variant_threads(variant);
    }
    if (err == CL_SUCCESS)
        err = write_through(ctx, queue, t->staging, t->device, 0, t->host, t->bytes);
    if (err == CL_SUCCESS)
        err = read_through(ctx, queue, t->staging, t->device, t->host, &(clc_part){0, t->bytes}, 1);
    return err == CL_SUCCESS ? CLC_SUCCESS : (clc_status)err;
}

/* No kernel: the version names the scheme, so a new one is timed again. */
static const clc_embedded_source tune_scheme = {"staging", "", 0, "staging-chunks-1"};
static const clc_tune_family tune_family = {"staging",  &tune_scheme,  NULL,
                                            tune_names, TUNE_VARIANTS, tune_setup,
                                            tune_run,   tune_teardown, 0};

void clc__staging_release(clc_context *ctx)
{
    if (!ctx->staging)
        return;
    staging_free(ctx->staging, ctx->queue);
    ctx->staging = NULL;
}

/* The staging buffers, created on first use: with the chunk and threads that CLCOMPUTE_STAGING_
 * CHUNK and _THREADS set, else those timed for the device (stored in the disk cache), else 8 MiB
 * and the copier's default. Called with staging_lock held. */
static cl_int staging_get(clc_context *ctx, clc_staging **out)
{
    if (!ctx->staging) {
        size_t capacity = ctx->staging_chunk, reference = 0;
        unsigned threads = ctx->staging_threads;
        if (!ctx->staging_fixed) {
            const int v = clc__tune(ctx, &tune_family, -1);
            if (v >= 0) {
                /* A choice stored by a host of more cores (a shared cache directory) is held to
                 * this host's. */
                const long cores = clc__host_cores();
                capacity = variant_chunk(v), threads = variant_threads(v);
                if (cores > 0 && threads > most_threads(cores))
                    threads = (unsigned)most_threads(cores);
                reference = staging_reference(ctx);
            }
        }
        cl_int err = staging_make(capacity, threads, &ctx->staging);
        if (err != CL_SUCCESS)
            return err;
        ctx->staging->reference = reference;
    }
    *out = ctx->staging;
    return CL_SUCCESS;
}

int clc__host_in_place(const clc_context *ctx)
{
    return ctx->info.unified_memory && ctx->staging_mode != CLC_STAGING_ALWAYS;
}

int clc__staging_wanted(clc_context *ctx, const void *data, size_t bytes)
{
    if (clc__host_in_place(ctx) || clc__host_pinned(ctx, data, bytes))
        return 0;
    switch (ctx->staging_mode) {
    case CLC_STAGING_AUTO:
        return bytes >= (size_t)4 << 20;
    case CLC_STAGING_ALWAYS:
        return 1;
    case CLC_STAGING_SHARED:
        return bytes >= (size_t)64 << 10;
    default:
        return 0;
    }
}

cl_int clc__staged_write(clc_context *ctx, cl_command_queue queue, cl_mem dst, size_t at,
                         const void *src, size_t bytes, cl_event last[2])
{
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, &s);
    if (err == CL_SUCCESS)
        err = write_through(ctx, queue, s, dst, at, src, bytes);
    /* The chunks still in flight are the last two this transfer wrote, its own slots (the earlier
     * ones were waited for); a slot it left alone may hold an earlier transfer's event. */
    const unsigned wrote = err == CL_SUCCESS ? s->own : 0;
    for (int i = 0; i < 2; ++i) {
        last[i] = NULL;
        if (err != CL_SUCCESS || !(wrote >> i & 1u))
            continue;
        if (clRetainEvent(s->busy[i]) == CL_SUCCESS)
            last[i] = s->busy[i];
        else /* an event not handed out is checked here, as settle leaves it to its owner */
            err = settle(s, i);
    }
    for (int i = 0; err != CL_SUCCESS && i < 2; ++i)
        if (last[i]) {
            clReleaseEvent(last[i]);
            last[i] = NULL;
        }
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}

void clc__staging_forget(clc_context *ctx, const cl_event *events, size_t n)
{
    clc_mutex_lock(&ctx->staging_lock);
    for (int slot = 0; ctx->staging && slot < 2; ++slot)
        for (size_t k = 0; k < n && ctx->staging->busy[slot]; ++k)
            if (events[k] == ctx->staging->busy[slot]) {
                clReleaseEvent(ctx->staging->busy[slot]);
                ctx->staging->busy[slot] = NULL;
            }
    clc_mutex_unlock(&ctx->staging_lock);
}

cl_int clc__staged_read(clc_context *ctx, cl_command_queue queue, cl_mem src, void *dst,
                        const clc_part *parts, size_t n)
{
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, &s);
    if (err == CL_SUCCESS)
        err = read_through(ctx, queue, s, src, dst, parts, n);
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}

cl_int clc__staging_plan(clc_context *ctx, size_t bytes, size_t *chunk, unsigned *threads)
{
    clc_mutex_lock(&ctx->staging_lock);
    clc_staging *s = NULL;
    cl_int err = staging_get(ctx, &s);
    if (err == CL_SUCCESS)
        *chunk = chunk_for(s, bytes), *threads = s->threads;
    clc_mutex_unlock(&ctx->staging_lock);
    return err;
}
