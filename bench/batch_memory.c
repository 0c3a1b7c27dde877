/* Batch throughput with the frames already in host memory, so that only the library's work is
 * timed (bench/batch.sh times the tool on files, where decoding and encoding dominate):
 *   blocking   one context, one blocking call after another (upload, kernel, read-back)
 *   batch N    clc_batch on the same device with N workers (1, 2, 4, 8: queues sharing one
 *              cl_context)
 *   pinned N   N workers (4 and 8), the frames in pinned memory of the device (clc_host_alloc
 *              on clc_batch_context): no staging copy, the bus's speed
 *   devices    clc_batch over every device of a list, default workers (4 a GPU, 2 a CPU), the
 *              frames in ordinary memory, then in pinned memory of the list's first device
 *              (the others read it as ordinary host memory: name the GPU first)
 * for 3840x2160 RGB8 -> GRAY8 and 640x480 depth (u16, 15% holes) -> dense points, the depth
 * frames once an item (clc_depth_to_points) and once G an item (clc_depth_to_points_many: one
 * upload, one launch and one count read for G frames; default 16, 0 leaves the row out). Every
 * output of every run is checked against the serial reference. Prints a Markdown table.
 *   clc_bench_batch [--device SEL] [--devices LIST] [--gray-frames N] [--cloud-frames N]
 *                   [--cloud-group G] [--repeats N] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "../lib/ref/cloud.h"
#include "../lib/ref/gray.h"
#include "suite.h"

enum { DISTINCT = 8 };

typedef struct work {
    int cloud;                   /* 0: gray, 1: cloud */
    size_t frames;               /* frames of one run */
    size_t group;                /* frames an item: 1, or G through clc_depth_to_points_many */
    unsigned char *packed;       /* group > 1: G frames back to back, frame j is in[j % DISTINCT] */
    clc_image_desc src, dst;     /* dst: GRAY8 for gray */
    unsigned char *in[DISTINCT]; /* frame i reads in[i % DISTINCT] */
    unsigned char *ref[DISTINCT]; /* the serial result of each distinct input */
    size_t ref_points[DISTINCT];  /* cloud: valid points of each */
    size_t out_bytes;             /* one frame's output */
    unsigned char *out;           /* frames * out_bytes */
    size_t *points;               /* cloud: points of each frame */
    clc_intrinsics k;
    clc_cloud_options options;
} work;

static clc_status one_frame(clc_context *ctx, size_t i, void *user)
{
    work *w = user;
    const unsigned char *in = w->in[i % DISTINCT];
    unsigned char *out = w->out + i * w->out_bytes;
    if (!w->cloud)
        return clc_gray(ctx, &w->src, in, &w->dst, out, NULL);
    return clc_depth_to_points(ctx, &w->src, in, NULL, NULL, &w->k, &w->options,
                               (float *)(void *)out, NULL, w->src.width * w->src.height,
                               &w->points[i]);
}

/* Item i: frames i * G to i * G + G - 1 (fewer in the last item) in one call. The packed input
 * serves every item, as G is a multiple of DISTINCT. */
static clc_status frame_group(clc_context *ctx, size_t i, void *user)
{
    work *w = user;
    const size_t first = i * w->group;
    const size_t n = w->frames - first < w->group ? w->frames - first : w->group;
    return clc_depth_to_points_many(ctx, n, &w->src, w->packed, 0, NULL, NULL, 0, &w->k,
                                    &w->options, (float *)(void *)(w->out + first * w->out_bytes),
                                    NULL, &w->points[first]);
}

/* 0 when every frame equals the serial result of its input. */
static int check(const work *w, const char *mode)
{
    for (size_t i = 0; i < w->frames; ++i) {
        const size_t d = i % DISTINCT;
        const size_t bytes = w->cloud ? w->ref_points[d] * 12 : w->out_bytes;
        if ((w->cloud && w->points[i] != w->ref_points[d]) ||
            memcmp(w->out + i * w->out_bytes, w->ref[d], bytes) != 0) {
            fprintf(stderr, "clc_bench_batch: %s, %s: frame %zu differs from the reference\n",
                    w->cloud ? "cloud" : "gray", mode, i);
            return -1;
        }
    }
    return 0;
}

static int make_work(work *w, int cloud, size_t frames, size_t group)
{
    memset(w, 0, sizeof *w);
    w->cloud = cloud;
    w->frames = frames;
    w->group = group;
    w->k = (clc_intrinsics){525.0, 525.0, 319.5, 239.5};
    w->options.depth_trunc = 4.0; /* as bench/batch.sh gives the tool */
    if (cloud) {
        w->src = (clc_image_desc){CLC_PIXEL_DEPTH_U16, 640, 480, 0};
        w->out_bytes = 640 * 480 * 12;
    } else {
        w->src = (clc_image_desc){CLC_PIXEL_RGB8, 3840, 2160, 0};
        w->dst = (clc_image_desc){CLC_PIXEL_GRAY8, 3840, 2160, 0};
        w->out_bytes = 3840 * 2160;
    }
    const size_t px = w->src.width * w->src.height;
    const size_t in_bytes = px * clc_pixel_size(w->src.format);
    w->out = malloc(frames * w->out_bytes);
    w->points = calloc(frames, sizeof *w->points);
    if (!w->out || !w->points)
        return -1;
    uint32_t seed = 2026;
    const clc_ref_cloud p = clc__ref_cloud_params(1000.0, 4.0, &w->k, 1, 640, 480, CLC_CLOUD_DENSE);
    for (size_t d = 0; d < DISTINCT; ++d) {
        w->in[d] = malloc(in_bytes);
        w->ref[d] = malloc(w->out_bytes + 12); /* the reference may scratch one point more */
        if (!w->in[d] || !w->ref[d])
            return -1;
        for (size_t i = 0; i < px; ++i) {
            seed = seed * 1664525u + 1013904223u;
            if (cloud) {
                const size_t u = i % 640, v = i / 640;
                const uint16_t z = (uint16_t)(800 + 3 * u + 2 * v + 50 * d);
                ((uint16_t *)(void *)w->in[d])[i] = (seed >> 24) < 38 ? 0 : z; /* 15% holes */
            } else {
                w->in[d][3 * i] = (unsigned char)(seed >> 24);
                w->in[d][3 * i + 1] = (unsigned char)(seed >> 16);
                w->in[d][3 * i + 2] = (unsigned char)(seed >> 8);
            }
        }
        if (cloud)
            w->ref_points[d] = clc__ref_depth_to_points(&w->src, w->in[d], NULL, NULL, &p,
                                                        (float *)(void *)w->ref[d], NULL);
        else
            clc__ref_gray(&w->src, w->in[d], &w->dst, w->ref[d], CLC_GRAY_BT601);
    }
    if (group > 1) {
        w->packed = malloc(group * in_bytes);
        if (!w->packed)
            return -1;
        for (size_t j = 0; j < group; ++j)
            memcpy(w->packed + j * in_bytes, w->in[j % DISTINCT], in_bytes);
    }
    return 0;
}

static void free_work(work *w)
{
    for (size_t d = 0; d < DISTINCT; ++d)
        free(w->in[d]), free(w->ref[d]);
    free(w->out);
    free(w->points);
    free(w->packed);
}

/* Median frames/s of `repeats` runs of every frame, after a warm-up (kernel build, tuning) over
 * a few; batch NULL: one blocking call after another on ctx. -1 on failure. */
static double frames_per_second(work *w, clc_context *ctx, clc_batch *batch, int repeats,
                                const char *mode)
{
    double rate[16];
    for (int r = -1; r < repeats; ++r) {
        const size_t all = w->frames;
        if (r < 0) /* the warm-up: two distinct sets, or one item */
            w->frames = w->group > 2 * DISTINCT ? w->group : 2 * DISTINCT;
        const size_t n = w->frames, items = (n + w->group - 1) / w->group;
        const clc_batch_job job = w->group > 1 ? frame_group : one_frame;
        memset(w->out, 0, n * w->out_bytes); /* pages resident, old results gone */
        const double t0 = bench_now();
        clc_status st = CLC_SUCCESS;
        if (batch)
            st = clc_batch_run(batch, items, job, w, NULL, NULL, NULL);
        else
            for (size_t i = 0; i < items && st == CLC_SUCCESS; ++i)
                st = job(ctx, i, w);
        w->frames = all;
        const double t = bench_now() - t0;
        if (st != CLC_SUCCESS) {
            fprintf(stderr, "clc_bench_batch: %s: %s\n", mode, clc_last_error());
            return -1.0;
        }
        if (r >= 0) {
            rate[r] = (double)n / t;
            if (check(w, mode) != 0)
                return -1.0;
        }
    }
    return bench_median(rate, (size_t)repeats);
}

/* Frames/s of `w` with its inputs and outputs moved into pinned memory of the batch's first
 * device (clc_host_alloc on clc_batch_context), which every worker of that device reads and
 * writes without a staging copy; -1 on failure. */
static double pinned_rate(work *w, clc_batch *b, int repeats, const char *mode)
{
    clc_context *ctx = clc_batch_context(b, 0);
    const size_t in_bytes = w->src.width * w->src.height * clc_pixel_size(w->src.format);
    work p = *w;
    int ok = clc_host_alloc(ctx, w->frames * w->out_bytes, (void **)&p.out) == CLC_SUCCESS;
    p.packed = NULL;
    if (ok && w->group > 1) {
        ok = clc_host_alloc(ctx, w->group * in_bytes, (void **)&p.packed) == CLC_SUCCESS;
        if (ok)
            memcpy(p.packed, w->packed, w->group * in_bytes);
    }
    for (size_t d = 0; d < DISTINCT; ++d) { /* a group reads only the packed frames */
        p.in[d] = NULL;
        if (!ok || w->group > 1)
            continue;
        if (clc_host_alloc(ctx, in_bytes, (void **)&p.in[d]) == CLC_SUCCESS)
            memcpy(p.in[d], w->in[d], in_bytes);
        else
            ok = 0;
    }
    double r = -1.0;
    if (ok)
        r = frames_per_second(&p, NULL, b, repeats, mode);
    else
        fprintf(stderr, "clc_bench_batch: %s: %s\n", mode, clc_last_error());
    for (size_t d = 0; d < DISTINCT; ++d)
        clc_host_free(ctx, p.in[d]);
    clc_host_free(ctx, p.out);
    clc_host_free(ctx, p.packed);
    return r;
}

static double batch_rate(work *w, const char *devices, unsigned workers, int repeats,
                         const char *mode, size_t *device_count, int pinned)
{
    clc_batch_options o = {0};
    o.devices = devices;
    o.workers_per_device = workers;
    clc_batch *b = NULL;
    if (clc_batch_create(&o, &b) != CLC_SUCCESS) {
        fprintf(stderr, "clc_bench_batch: %s: %s\n", mode, clc_last_error());
        return -1.0;
    }
    const double r =
        pinned ? pinned_rate(w, b, repeats, mode) : frames_per_second(w, NULL, b, repeats, mode);
    if (device_count)
        *device_count = clc_batch_device_count(b);
    clc_batch_destroy(b);
    return r;
}

/* One table row: frames/s (and GB/s moved between host and device) of every mode. */
static int row(work *w, const char *device, const char *devices, int repeats)
{
    clc_context_options co = {0};
    co.device = device;
    clc_context *ctx = NULL;
    if (clc_context_create(&co, &ctx) != CLC_SUCCESS) {
        fprintf(stderr, "clc_bench_batch: %s\n", clc_last_error());
        return -1;
    }
    const double blocking = frames_per_second(w, ctx, NULL, repeats, "blocking");
    clc_context_destroy(ctx);
    static const unsigned workers[] = {1, 2, 4, 8};
    double rate[4], pinned[2], best = 0.0; /* the best batch, which may lose to blocking */
    int ok = blocking > 0;
    for (int i = 0; i < 4; ++i) {
        char mode[48];
        snprintf(mode, sizeof mode, "batch, %u workers", workers[i]);
        rate[i] = batch_rate(w, device, workers[i], repeats, mode, NULL, 0);
        ok = ok && rate[i] > 0;
        best = rate[i] > best ? rate[i] : best;
    }
    for (int i = 0; i < 2; ++i) {
        char mode[48];
        snprintf(mode, sizeof mode, "batch, %u workers, pinned", workers[2 + i]);
        pinned[i] = batch_rate(w, device, workers[2 + i], repeats, mode, NULL, 1);
        ok = ok && pinned[i] > 0;
    }
    size_t n = 0;
    const double all = batch_rate(w, devices, 0, repeats, "devices", &n, 0);
    const double all_pinned = batch_rate(w, devices, 0, repeats, "devices, pinned", NULL, 1);
    if (!ok || all <= 0 || all_pinned <= 0)
        return -1;
    /* The bytes that cross: a dense cloud reads back its valid points only. */
    double out = (double)w->out_bytes;
    if (w->cloud) {
        out = 0.0;
        for (size_t d = 0; d < DISTINCT; ++d)
            out += (double)w->ref_points[d] * 12.0 / DISTINCT;
    }
    const double gb =
        1e-9 * ((double)(w->src.width * w->src.height * clc_pixel_size(w->src.format)) + out);
    char what[80];
    if (!w->cloud)
        snprintf(what, sizeof what, "3840x2160 RGB8 -> gray");
    else if (w->group > 1)
        snprintf(what, sizeof what, "640x480 depth -> dense points, %zu an item", w->group);
    else
        snprintf(what, sizeof what, "640x480 depth -> dense points");
    printf("| %zu %s | %.1f (%.1f GB/s) |", w->frames, what, blocking, blocking * gb);
    for (int i = 0; i < 4; ++i)
        printf(" %.1f (%.1f GB/s) |", rate[i], rate[i] * gb);
    for (int i = 0; i < 2; ++i)
        printf(" %.1f (%.1f GB/s) |", pinned[i], pinned[i] * gb);
    printf(" %.1f (%zu devices) | %.1f | %.2fx |\n", all, n, all_pinned, best / blocking);
    return 0;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *devices = "all";
    size_t gray_frames = 200, cloud_frames = 512, cloud_group = 16, repeats = 3;
    static const char usage[] =
        "usage: clc_bench_batch [--device SEL] [--devices LIST] [--gray-frames N]\n"
        "           [--cloud-frames N] [--cloud-group G] [--repeats N]\n"
        "  --device SEL      the device of the one-device columns (clcompute devices --help)\n"
        "  --devices LIST    the devices of the two \"devices\" columns (default all; name\n"
        "                    the GPU first: the second has the frames in its pinned memory)\n"
        "  --gray-frames N   4K frames a run (default 200, at least 16)\n"
        "  --cloud-frames N  640x480 depth frames a run (default 512, at least 16)\n"
        "  --cloud-group G   depth frames an item of the grouped row, a multiple of 8 up to\n"
        "                    --cloud-frames (default 16; 0 leaves the row out)\n"
        "  --repeats N       runs a measurement, 1 to 16 (default 3)\n";
    for (int i = 1; i < argc; ++i) {
        const char *opt = argv[i];
        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        size_t *number = strcmp(opt, "--gray-frames") == 0    ? &gray_frames
                         : strcmp(opt, "--cloud-frames") == 0 ? &cloud_frames
                         : strcmp(opt, "--cloud-group") == 0  ? &cloud_group
                         : strcmp(opt, "--repeats") == 0      ? &repeats
                                                              : NULL;
        const int text = strcmp(opt, "--device") == 0 || strcmp(opt, "--devices") == 0;
        if ((!number && !text) || i + 1 >= argc) {
            fprintf(stderr, "clc_bench_batch: %s %s\n%s", opt,
                    number || text ? "needs a value" : "is not an option", usage);
            return 2;
        }
        const char *value = argv[++i];
        if (text) {
            *(strcmp(opt, "--device") == 0 ? &device : &devices) = value;
            continue;
        }
        char *end = NULL;
        const unsigned long long v = strtoull(value, &end, 10);
        if (value[0] < '0' || value[0] > '9' || *end || v > SIZE_MAX / 2) {
            fprintf(stderr, "clc_bench_batch: %s wants a whole number, not '%s'\n", opt, value);
            return 2;
        }
        *number = (size_t)v;
    }
    const char *wrong = repeats < 1 || repeats > 16 ? "--repeats is 1 to 16"
                        : gray_frames < 2 * DISTINCT || cloud_frames < 2 * DISTINCT
                            ? "--gray-frames and --cloud-frames are at least 16"
                        : cloud_group % DISTINCT > 0 ? "--cloud-group is a multiple of 8 (or 0)"
                        : cloud_group > cloud_frames ? "--cloud-group is at most --cloud-frames"
                                                     : NULL;
    if (wrong) {
        fprintf(stderr, "clc_bench_batch: %s\n", wrong);
        return 2;
    }
    printf("frames in host memory (ordinary, and pinned where said); device \"%s\", devices "
           "\"%s\"; median of %d runs; GB/s: "
           "input plus output bytes (a dense cloud's valid points)\n\n",
           device ? device : "default", devices, (int)repeats);
    printf("| work | blocking, frames/s | batch 1 worker | batch 2 workers | batch 4 workers | "
           "batch 8 workers | 4 workers, frames in pinned memory | 8 workers, pinned | "
           "devices, default workers | devices, pinned in the first's memory | best batch vs "
           "blocking |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = 0;
    /* gray; depth a frame an item; depth cloud_group frames an item */
    for (int kind = 0; kind < (cloud_group ? 3 : 2) && rc == 0; ++kind) {
        work w;
        if (make_work(&w, kind > 0, kind ? cloud_frames : gray_frames,
                      kind == 2 ? cloud_group : 1) != 0) {
            fprintf(stderr, "clc_bench_batch: out of host memory\n");
            rc = 1;
        } else if (row(&w, device, devices, (int)repeats) != 0) {
            rc = 1;
        }
        free_work(&w);
    }
    return rc;
}
