/* Per-device kernel variants, chosen by timing them.
 *
 * No single kernel shape wins everywhere: on a 2-core PoCL whole rows a work-item win, on a
 * 16-core PoCL and on GPUs work-groups of small blocks do, by factors of 2 to 40. So the first
 * call of a kernel family on a device times each variant briefly on a synthetic input, on a queue
 * of its own (the caller's queue may hold work waiting on events only the caller will set), and
 * keeps the fastest: in the context, and in the disk cache beside the compiled programs, under a
 * key that adds the family to the program's (library version, device, driver, source, options),
 * so a new driver or kernel source is timed again. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int clc__tune_choose(const uint64_t *ns, const int *ok, int count)
{
    int choice = -1;
    for (int v = 0; v < count; ++v)
        if (ok[v] && (choice < 0 || ns[v] < ns[choice]))
            choice = v;
    return choice;
}

/* A timed batch of `batch` runs of a variant, enqueued back to back and waited for once: 0 with
 * the time of one run in *ns, -1 when it cannot run (after waiting for the runs it enqueued, so
 * that they are not counted in the next variant's time). */
static int time_variant(clc_context *ctx, cl_command_queue queue, int variant, clc_tune_run run,
                        void *arg, unsigned batch, uint64_t *ns)
{
    const uint64_t t0 = clc__now_ns();
    for (unsigned i = 0; i < batch; ++i)
        if (run(ctx, queue, variant, arg) != CLC_SUCCESS) {
            clFinish(queue);
            return -1;
        }
    if (clFinish(queue) != CL_SUCCESS)
        return -1;
    *ns = (clc__now_ns() - t0) / batch;
    return 0;
}

unsigned clc__tune_batch(uint64_t ns)
{
    /* Batches of about 1 ms: one run of gray on the H200 takes 9-40 us, its enqueue and wait
     * 20-50 us with jitter of the same size, so single runs could rank the variants by noise. */
    const uint64_t target = 1000000u, most = 64u;
    const uint64_t fit = ns ? (target + ns / 2) / ns : most;
    return fit < 1 ? 1u : fit > most ? (unsigned)most : (unsigned)fit;
}

void clc__tune_batches(const uint64_t *ns, const int *ok, int count, unsigned *batch)
{
    uint64_t least = UINT64_MAX;
    for (int v = 0; v < count; ++v)
        if (ok[v] && ns[v] < least)
            least = ns[v];
    const unsigned common = least == UINT64_MAX ? 1u : clc__tune_batch(least);
    for (int v = 0; v < count; ++v) {
        /* A variant 10 times slower than the fastest or more takes fewer runs, so that one
         * batch of it stays near 10 ms: it cannot win, and a round stays short. */
        const unsigned most = clc__tune_batch(ns[v] / 10u);
        batch[v] = common < most ? common : most;
    }
}

/* The fastest variant, or -1 when none ran. The variants take turns, round after round, and
 * each keeps its fastest time: a burst of load from elsewhere then slows one round of every
 * variant rather than every round of one, and noise only ever adds. Round 0 is a warm-up
 * (PoCL compiles a kernel per work-group size on its first launch). In a batched family round 1
 * times single runs, and the rounds after it batches of as many runs as make about 1 ms of the
 * fastest variant's (clc__tune_batches): every variant that could win runs in batches of one
 * size, so each shares a launch's fixed cost alike. */
static int fastest(clc_context *ctx, cl_command_queue queue, const clc_tune_family *family,
                   void *arg)
{
    const int count = family->count;
    uint64_t *best = malloc((size_t)count * sizeof *best);
    int *ok = malloc((size_t)count * sizeof *ok);
    unsigned *batch = malloc((size_t)count * sizeof *batch);
    if (!best || !ok || !batch) {
        free(best), free(ok), free(batch);
        return -1;
    }
    for (int v = 0; v < count; ++v)
        ok[v] = 1, best[v] = UINT64_MAX, batch[v] = 1;
    const int rounds = ctx->tune_quick ? 3 : 6;
    for (int round = 0; round < rounds; ++round) {
        for (int v = 0; v < count; ++v) {
            uint64_t t = 0;
            if (!ok[v])
                continue;
            if (time_variant(ctx, queue, v, family->run, arg, batch[v], &t) != 0)
                ok[v] = 0;
            else if (round > 0 && t < best[v])
                best[v] = t;
        }
        if (round == 1 && family->batched) {
            clc__tune_batches(best, ok, count, batch);
            for (int v = 0; v < count && ctx->tune_quick; ++v)
                batch[v] = batch[v] < 2 ? batch[v] : 2;
        }
    }
    const int choice = clc__tune_choose(best, ok, count);
    free(best), free(ok), free(batch);
    return choice;
}

/* The stored choice for key, or -1. */
static int load_choice(const clc_context *ctx, const char *key, const clc_tune_family *family)
{
    unsigned char *payload = NULL;
    size_t size = 0;
    if (!ctx->cache_dir || clc__cache_load(ctx->cache_dir, key, &payload, &size, NULL, 0) != 1)
        return -1;
    int found = -1;
    for (int v = 0; v < family->count && found < 0; ++v)
        if (strlen(family->names[v]) == size && memcmp(payload, family->names[v], size) == 0)
            found = v;
    free(payload);
    return found;
}

int clc__tune(clc_context *ctx, const clc_tune_family *family, int fallback)
{
    if (family->count < 1)
        return fallback;
    ctx = clc__peer_root(ctx);
    clc_mutex_lock(&ctx->tune_lock);
    for (size_t i = 0; i < ctx->tuned_count; ++i) {
        if (ctx->tuned[i].family == family) {
            const int v = ctx->tuned[i].variant;
            clc_mutex_unlock(&ctx->tune_lock);
            return v;
        }
    }
    /* CLCOMPUTE_TUNE: 0 off, 1 (or unset) on, 2 "again": time even where a choice is stored. */
    const int mode = ctx->switches[CLC_SW_TUNE].value;
    int choice = -1;
    clc_tuned_source source = CLC_TUNED_DEFAULT;
    if (mode != 0) {
        char *base = clc__cache_key(ctx, family->source->hash, family->options);
        /* Choices timed in batches are stored under a key of their own, so that a choice timed
         * by single runs (before 2026-12-05) is timed again. */
        char *key = base ? clc__asprintf("%stune: %s%s\n", base, family->name,
                                         family->batched ? " (batches)" : "")
                         : NULL;
        free(base);
        if (key && mode != 2 && (choice = load_choice(ctx, key, family)) >= 0)
            source = CLC_TUNED_STORED;
        if (key && choice < 0) {
            /* Tuning is an optimisation: when it cannot run (no memory for its input, no second
             * queue), the device-type default serves, and nothing is stored. */
            cl_int err = CL_SUCCESS;
            cl_command_queue queue = clCreateCommandQueue(ctx->context, ctx->device, 0, &err);
            void *arg = NULL;
            if (err == CL_SUCCESS && family->setup(ctx, &arg) == CLC_SUCCESS) {
                choice = fastest(ctx, queue, family, arg);
                family->teardown(arg);
            }
            if (err == CL_SUCCESS)
                clReleaseCommandQueue(queue);
            if (choice >= 0) {
                source = CLC_TUNED_TIMED;
                if (ctx->cache_dir)
                    clc__cache_store(ctx->cache_dir, key,
                                     (const unsigned char *)family->names[choice],
                                     strlen(family->names[choice]), NULL, 0);
            }
        }
        free(key);
    }
    const int variant = choice >= 0 ? choice : fallback;
    /* Remembered for the context's life; where even that allocation fails, the next call reads
     * the choice from the disk cache again, the same choice more slowly. */
    if (ctx->tuned_count == ctx->tuned_capacity) {
        const size_t capacity = ctx->tuned_capacity ? 2 * ctx->tuned_capacity : 4;
        clc_tuned *grown = realloc(ctx->tuned, capacity * sizeof *grown);
        if (grown)
            ctx->tuned = grown, ctx->tuned_capacity = capacity;
    }
    if (ctx->tuned_count < ctx->tuned_capacity)
        ctx->tuned[ctx->tuned_count++] = (clc_tuned){family, variant, source};
    clc_mutex_unlock(&ctx->tune_lock);
    return variant;
}

clc_status clc_context_tuned(clc_context *ctx, clc_tuned_choice *choices, size_t capacity,
                             size_t *count)
{
    if (!ctx || !count || (!choices && capacity))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_context_tuned: ctx and count must not be NULL, nor choices when "
                         "capacity is not 0");
    clc_context *owner = clc__peer_root(ctx);
    clc_mutex_lock(&owner->tune_lock);
    for (size_t i = 0; i < owner->tuned_count && i < capacity; ++i) {
        const clc_tuned *t = &owner->tuned[i];
        choices[i] = (clc_tuned_choice){
            t->family->name, t->variant >= 0 ? t->family->names[t->variant] : "default", t->source};
    }
    *count = owner->tuned_count;
    clc_mutex_unlock(&owner->tune_lock);
    return CLC_SUCCESS;
}

uint64_t clc__now_ns(void)
{
    /* Monotonic: a wall clock can step (NTP, the user) between two readings, and as a double of
     * seconds since 1970 it cannot tell apart times closer than a quarter of a microsecond. */
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
#endif
        timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
