/* Host side of depth to points: validate, plan the passes, enqueue. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/internal.h"

/* Everything worked out from the caller's arguments before anything is enqueued. */
/* The cloud parameters after defaults, as the kernels use them: reciprocals instead of
 * divisions, and for DEPTH_U16 the truncation as an integer limit on raw values. */
typedef struct clc_cloud_params {
    float inv_scale, trunc, inv_fx, inv_fy, cx, cy;
    unsigned raw_limit; /* raw u16 values >= this are at or beyond depth_trunc */
    unsigned stride;
    size_t sw, sh; /* sampled grid */
    clc_cloud_layout layout;
} clc_cloud_params;

static clc_cloud_params cloud_params(double scale, double trunc, const clc_intrinsics *k,
                                     unsigned stride, size_t width, size_t height,
                                     clc_cloud_layout layout)
{
    clc_cloud_params p;
    const float scale_f = (float)scale;
    /* Open3D tests its float depth against the double depth_trunc (`*p >= depth_trunc`), so a
     * float z is invalid when (double)z >= trunc: when z >= the smallest float not below trunc.
     * (float)trunc rounds to nearest, which is one float too low for a trunc like 0.7 (the
     * float 0.69999999 would have been dropped; Open3D keeps it). */
    float trunc_f = (float)trunc;
    if ((double)trunc_f < trunc) { /* the next float up: trunc_f is not negative (trunc > 0) */
        uint32_t bits;
        memcpy(&bits, &trunc_f, sizeof bits);
        ++bits;
        memcpy(&trunc_f, &bits, sizeof bits);
    }
    p.inv_scale = (float)(1.0 / scale);
    p.trunc = trunc_f;
    p.inv_fx = (float)(1.0 / k->fx);
    p.inv_fy = (float)(1.0 / k->fy);
    p.cx = (float)k->cx;
    p.cy = (float)k->cy;
    /* Smallest raw value whose depth (float raw / scale, as Open3D computes it) reaches the
     * truncation: z grows with raw, so a binary search over 1..65536 finds it. */
    unsigned lo = 1, hi = 65536;
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if ((float)mid / scale_f >= trunc_f)
            hi = mid;
        else
            lo = mid + 1;
    }
    p.raw_limit = lo;
    p.stride = stride;
    p.sw = (width - 1) / stride + 1;
    p.sh = (height - 1) / stride + 1;
    p.layout = layout;
    return p;
}

typedef struct cloud_plan {
    clc_cloud_params p;
    cl_uint n; /* sampled pixels */
    size_t depth_bytes, depth_pitch;
    size_t color_bytes, color_pitch; /* 0 without colour */
    int has_color;
    const char *options; /* build options: depth type, division rounding */
} cloud_plan;

/* The kernels multiply by float reciprocals: a value whose reciprocal is infinite or zero in
 * float (|v| under about 3e-39, or over about 1.4e45) would give infinite or zero coordinates. */
static int usable_divisor(double v)
{
    const float r = (float)(1.0 / v);
    return isfinite(v) && v != 0.0 && isfinite(r) && r != 0.0f;
}

/* A value the kernels hold as a float. */
static int float_finite(double v)
{
    return isfinite(v) && isfinite((float)v);
}

static clc_status plan_cloud(clc_context *ctx, const clc_image_desc *depth,
                             const clc_image_desc *color, const clc_intrinsics *k,
                             const clc_cloud_options *options, cloud_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (!depth || !k)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: depth description and intrinsics are required");
    if (depth->format != CLC_PIXEL_DEPTH_U16 && depth->format != CLC_PIXEL_DEPTH_F32)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: depth format %d is not DEPTH_U16 or DEPTH_F32",
                         (int)depth->format);
    clc_status st = clc_image_span(depth, &plan->depth_bytes);
    if (st != CLC_SUCCESS)
        return clc__fail(ctx, st, "depth to points: depth image: %s", clc__last_detail());
    const size_t bpp = clc_pixel_size(depth->format);
    plan->depth_pitch = depth->pitch ? depth->pitch : depth->width * bpp;
    if (plan->depth_pitch % bpp != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: depth pitch %zu is not a multiple of %zu",
                         plan->depth_pitch, bpp);
    if (color) {
        if (color->format != CLC_PIXEL_RGB8)
            return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                             "depth to points: colour format %d is not RGB8", (int)color->format);
        if (color->width != depth->width || color->height != depth->height)
            return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                             "depth to points: colour is %zu x %zu but depth is %zu x %zu",
                             color->width, color->height, depth->width, depth->height);
        st = clc_image_span(color, &plan->color_bytes);
        if (st != CLC_SUCCESS)
            return clc__fail(ctx, st, "depth to points: colour image: %s", clc__last_detail());
        plan->color_pitch = color->pitch ? color->pitch : color->width * 3;
        plan->has_color = 1;
    }
    if (!usable_divisor(k->fx) || !usable_divisor(k->fy) || !float_finite(k->cx) ||
        !float_finite(k->cy))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: intrinsics fx=%g fy=%g cx=%g cy=%g: fx and fy must be "
                         "finite and non-zero with a finite, non-zero float reciprocal (|f| "
                         "from about 3e-39 to 1.4e45), cx and cy finite as floats",
                         k->fx, k->fy, k->cx, k->cy);
    const double scale = options && options->depth_scale != 0.0 ? options->depth_scale : 1000.0;
    const double trunc = options && options->depth_trunc != 0.0 ? options->depth_trunc : 1000.0;
    const unsigned stride = options && options->stride ? options->stride : 1;
    const clc_cloud_layout layout = options ? options->layout : CLC_CLOUD_DENSE;
    if (!(scale > 0.0 && usable_divisor(scale)))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: depth_scale %g must be finite and positive, with a "
                         "finite float reciprocal",
                         scale);
    if (!(trunc > 0.0)) /* NaN fails this too; +infinity means no truncation */
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "depth to points: depth_trunc %g must be positive", trunc);
    if (layout != CLC_CLOUD_DENSE && layout != CLC_CLOUD_ORGANIZED)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "depth to points: unknown layout %d",
                         (int)layout);
    const size_t sw = (depth->width - 1) / stride + 1, sh = (depth->height - 1) / stride + 1;
    if (sw > UINT32_MAX / sh || depth->width > UINT32_MAX || depth->height > UINT32_MAX)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW,
                         "depth to points: %zu x %zu samples exceed 2^32 - 1", sw, sh);
    plan->n = (cl_uint)(sw * sh);
    plan->p = cloud_params(scale, trunc, k, stride, depth->width, depth->height, layout);
    return CLC_SUCCESS;
}

clc_status clc_cloud_grid_size(const clc_image_desc *depth, const clc_cloud_options *options,
                               size_t *points)
{
    if (!points)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_cloud_grid_size: points is NULL");
    const clc_intrinsics unit = {1.0, 1.0, 0.0, 0.0};
    cloud_plan plan;
    clc_status st = plan_cloud(NULL, depth, NULL, &unit, options, &plan);
    if (st == CLC_SUCCESS)
        *points = plan.n;
    return st;
}

static const char *build_options(clc_pixel_format format)
{
    return format == CLC_PIXEL_DEPTH_U16 ? "-DDEPTH_U16" : "-DDEPTH_F32";
}

/* The frame arguments every cloud kernel starts with (FRAME_PARAMS in cl/cloud.cl). */
typedef struct frame_args {
    cl_mem depth, color;
    cl_ulong depth_offset, depth_pitch, depth_frame, color_offset, color_pitch, color_frame;
    cl_uint sw, sh, stride, raw_limit, has_color;
    float inv_scale, trunc, inv_fx, inv_fy, cx, cy;
} frame_args;
#define FRAME_ARG_COUNT 19

static void frame_arg_list(const frame_args *f, clc_arg *a)
{
    const clc_arg list[FRAME_ARG_COUNT] = {
        CLC_ARG(f->depth),        CLC_ARG(f->depth_offset), CLC_ARG(f->depth_pitch),
        CLC_ARG(f->depth_frame),  CLC_ARG(f->sw),           CLC_ARG(f->sh),
        CLC_ARG(f->stride),       CLC_ARG(f->inv_scale),    CLC_ARG(f->raw_limit),
        CLC_ARG(f->trunc),        CLC_ARG(f->inv_fx),       CLC_ARG(f->inv_fy),
        CLC_ARG(f->cx),           CLC_ARG(f->cy),           CLC_ARG(f->color),
        CLC_ARG(f->color_offset), CLC_ARG(f->color_pitch),  CLC_ARG(f->color_frame),
        CLC_ARG(f->has_color)};
    memcpy(a, list, sizeof list);
}

/* Largest power of two <= n (the local reductions halve). */
static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

typedef struct cloud_kernel {
    cl_kernel kernel;
    const char *name;
} cloud_kernel;

static clc_status make_kernel(clc_context *ctx, const char *options, const char *name,
                              cloud_kernel *k)
{
    k->name = name;
    return clc__kernel_take(ctx, &clc__source_cloud, options, name, &k->kernel);
}

/* Sets the frame, then `extra` arguments, and enqueues over `dims` dimensions. */
static clc_status run(clc_context *ctx, cl_command_queue queue, cloud_kernel *k,
                      const frame_args *frame, const clc_arg *extra, size_t extra_count,
                      cl_uint dims, const size_t *global, const size_t *local, cl_uint num_events,
                      const cl_event *wait_list, cl_event *event)
{
    clc_arg args[FRAME_ARG_COUNT + 7];
    size_t count = 0;
    if (frame) {
        frame_arg_list(frame, args);
        count = FRAME_ARG_COUNT;
    }
    memcpy(args + count, extra, extra_count * sizeof *extra);
    clc_status st = clc__set_args(ctx, k->kernel, k->name, args, count + extra_count);
    if (st != CLC_SUCCESS)
        return st;
    cl_int err = clEnqueueNDRangeKernel(queue, k->kernel, dims, NULL, global, local, num_events,
                                        wait_list, event);
    if (err != CL_SUCCESS) {
        char call[96];
        snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s)", k->name);
        return clc__cl_fail(ctx, err, call);
    }
    return CLC_SUCCESS;
}

/* Work shape. Tiles are runs of whole sampled rows, at most MAX_TILES a frame (so that a tile
 * sums few counts for its offset). GPUs: a tile is walked by a work-group of up to MAX_LOCAL
 * items as one run of samples, in rounds of CLOUD_PLANES (cl/cloud.cl's PLANES) samples an
 * item; tiles are sized so that all frames together give about GROUPS_A_UNIT work-groups a
 * compute unit. Measured on the H200 (docs/perf/h200-cloud-tiles.md): 64 VGA frames 2.6x faster
 * than with a row a tile and 256 items, 128 items 4-12% faster than 256 on large work and level
 * on small. 40 work-groups a unit rather than 32 give 64 VGA frames tiles of 6 rows, not 8:
 * the passes 3% faster on two H200s and an H100 (docs/perf/h200-session5.md, run 6;
 * docs/perf/nvidia-session9.md); 16 1080p frames get 4 rows, not 5, level; lone frames keep
 * theirs (their tiles are bounded below). Organized clouds are one sample an item. CPU devices: a
 * few long items (work-groups of one), about eight a core, so there are no barriers and PoCL's
 * per-group cost is negligible. The frames are the last dimension of every launch. */
enum {
    MAX_TILES = 512,
    MAX_LOCAL = 128,
    GROUPS_A_UNIT = 40,
    TILE_ROUNDS = 2,
    CLOUD_PLANES = 6, /* PLANES */
    COUNT_TILES = 4,
    COUNT_ITEMS = 32,
    COUNT_GROUPS_A_UNIT = 8
};

typedef struct cloud_shape {
    cl_command_queue queue; /* where the passes run */
    size_t frames;
    size_t local;       /* items a work-group in the dense passes */
    cl_uint tile_rows;  /* sampled rows a dense tile */
    cl_uint groups;     /* dense tiles a frame */
    cl_uint count_per;  /* tiles a work-group of the count pass */
    cl_uint cols, rows; /* organized: samples an item in x and y */
    size_t organized_global[3], organized_local[3];
    int onepass; /* dense in one launch (cloud_onepass) */
    cl_mem sync; /* its state: NULL for the context's */
} cloud_shape;

static clc_status shape_for(clc_context *ctx, const cloud_plan *plan, cloud_kernel *any,
                            int items_shape, size_t frames, cloud_shape *s)
{
    const cl_uint sw = (cl_uint)plan->p.sw, sh = (cl_uint)plan->p.sh;
    s->frames = frames;
    if (items_shape) {
        const cl_uint items = ctx->info.compute_units ? 8 * ctx->info.compute_units : 16;
        s->local = 1;
        s->tile_rows = (sh + items - 1) / items;
        s->groups = (sh + s->tile_rows - 1) / s->tile_rows;
        s->cols = sw;
        s->rows = s->tile_rows;
        s->organized_local[0] = s->organized_local[1] = 1;
        s->organized_global[0] = 1;
        s->organized_global[1] = s->groups;
        s->count_per = 1;
    } else {
        size_t local = 0;
        clc_status st = clc__local_size(ctx, any->kernel, MAX_LOCAL, &local);
        if (st != CLC_SUCCESS)
            return st;
        s->local = pow2_floor(local);
        /* Enough tiles in all to fill the device several times over, each at least TILE_ROUNDS
         * rounds of the write pass (fewer leave its items idle), at most MAX_TILES a frame. */
        const size_t want = (ctx->info.compute_units ? ctx->info.compute_units : 1) * GROUPS_A_UNIT;
        size_t tile = (size_t)sw * sh * frames / want;
        if (tile < TILE_ROUNDS * CLOUD_PLANES * s->local)
            tile = TILE_ROUNDS * CLOUD_PLANES * s->local;
        size_t rows = (tile + sw - 1) / sw;
        if (rows < (sh + MAX_TILES - 1) / MAX_TILES)
            rows = (sh + MAX_TILES - 1) / MAX_TILES;
        s->tile_rows = (cl_uint)(rows < sh ? rows : sh);
        s->groups = (sh + s->tile_rows - 1) / s->tile_rows;
        /* The count's work-groups take up to COUNT_TILES tiles (of one frame: no more than it
         * has), at least COUNT_ITEMS items a tile, while all frames still give
         * COUNT_GROUPS_A_UNIT work-groups a unit. */
        const size_t units = ctx->info.compute_units ? ctx->info.compute_units : 1;
        s->count_per = 1;
        while (s->count_per * 2 <= COUNT_TILES && s->count_per * 2 <= s->groups &&
               s->local / (s->count_per * 2) >= COUNT_ITEMS &&
               s->groups * frames / (s->count_per * 2) >= units * COUNT_GROUPS_A_UNIT)
            s->count_per *= 2;
        s->cols = s->rows = 1;
        s->organized_local[0] = s->local;
        s->organized_local[1] = 1;
        s->organized_global[0] = (sw + s->local - 1) / s->local * s->local;
        s->organized_global[1] = sh;
    }
    s->organized_local[2] = 1;
    s->organized_global[2] = frames;
    return CLC_SUCCESS;
}

/* The most samples (all frames) converted in one pass; more go in two. The one pass saves a
 * launch and its gap, which is what a small conversion on an idle device waits on (H200, a
 * 640x480 frame: 17.6 us against 28); queued behind other work the two passes cost the same
 * there, and on large work they are faster (8K: 0.203 ms against 0.232, each tile of the one
 * pass waits on the tiles before it). Below 2^30 too, which the tile states hold. */
enum { ONEPASS_MAX_SAMPLES = 1 << 22 };

static const clc_tune_family tune_family; /* below: the shapes timed on first use */
enum { SHAPE_ITEMS, SHAPE_GROUPS, SHAPE_ONEPASS };
static const char *const shape_names[] = {"items", "groups", "onepass"};

/* The shape for this device (SHAPE_*): tuned (the device type's default when tuning is off),
 * unless CLCOMPUTE_CLOUD_SHAPE forces one, so that CPU-only CI covers all three. */
static clc_status choose_shape(clc_context *ctx, int *shape)
{
    const int forced = clc__switch(ctx, CLC_SW_CLOUD_SHAPE, shape);
    if (forced < 0)
        return CLC_ERROR_INVALID_ARGUMENT;
    if (!forced)
        *shape = clc__tune(ctx, &tune_family,
                           ctx->info.type == CLC_DEVICE_CPU ? SHAPE_ITEMS : SHAPE_GROUPS);
    return CLC_SUCCESS;
}

/* The shape of a conversion on `queue`; the work-group limit comes from one of its kernels.
 * One pass only up to ONEPASS_MAX_SAMPLES, and where the caller needs no count before the
 * points (the caller passes kind SHAPE_GROUPS then). */
static clc_status plan_shape(clc_context *ctx, cl_command_queue queue, const cloud_plan *plan,
                             const char *opts, int kind, size_t frames, cloud_shape *shape)
{
    cloud_kernel probe = {0};
    const int dense = plan->p.layout == CLC_CLOUD_DENSE;
    /* The one pass's own kernel sets the work-group limit when it may run (it can be lower than
     * the dense pass's; the shape then serves the two passes too). */
    const int onepass =
        dense && kind == SHAPE_ONEPASS && plan->p.sw * plan->p.sh * frames <= ONEPASS_MAX_SAMPLES;
    clc_status st = make_kernel(ctx, opts,
                                onepass ? "cloud_onepass"
                                : dense ? "cloud_dense"
                                        : "cloud_organized",
                                &probe);
    if (st != CLC_SUCCESS)
        return st;
    st = shape_for(ctx, plan, &probe, kind == SHAPE_ITEMS, frames, shape);
    shape->queue = queue;
    shape->sync = NULL;
    shape->onepass = st == CLC_SUCCESS && onepass && shape->groups * frames < UINT32_MAX - 2;
    clc__kernel_give(ctx, &probe.kernel);
    return st;
}

/* Scratch of a dense conversion: tile counts, and the frames' totals (the caller's buffer, or
 * the library's own). */
typedef struct dense_scratch {
    cl_mem counts, totals;
} dense_scratch;

/* Releases what exists and forgets it, so that a second call (a failed scratch_create, then the
 * caller's cleanup) releases nothing twice; idle: no command uses them any more (they may be
 * kept for the next call, clc__host_release). */
static void scratch_release(clc_context *ctx, dense_scratch *s, int idle)
{
    clc__host_release(ctx, &s->counts, idle);
    clc__host_release(ctx, &s->totals, idle);
}

static clc_status scratch_create(clc_context *ctx, const cloud_shape *shape, cl_mem totals,
                                 dense_scratch *s)
{
    cl_int err = CL_SUCCESS;
    s->counts =
        clc__scratch(ctx, CL_MEM_READ_WRITE, shape->frames * shape->groups * sizeof(cl_uint), &err);
    if (err == CL_SUCCESS && !totals)
        s->totals = clc__scratch(ctx, CL_MEM_READ_WRITE, shape->frames * sizeof(cl_uint), &err);
    else if (err == CL_SUCCESS && (err = clRetainMemObject(totals)) == CL_SUCCESS)
        s->totals = totals;
    if (err != CL_SUCCESS) {
        scratch_release(ctx, s, 0);
        return clc__cl_fail(ctx, err, "clCreateBuffer(cloud scratch)");
    }
    return CLC_SUCCESS;
}

/* Pass 1: the tile counts of every frame. */
static clc_status enqueue_count(clc_context *ctx, const char *options, const frame_args *frame,
                                const cloud_shape *shape, const dense_scratch *scratch,
                                cl_uint num_events, const cl_event *wait_list)
{
    cloud_kernel count = {0};
    clc_status st = make_kernel(ctx, options, "cloud_count", &count);
    if (st == CLC_SUCCESS) {
        const clc_arg extra[] = {CLC_ARG(scratch->counts),
                                 CLC_ARG(shape->tile_rows),
                                 CLC_ARG(shape->groups),
                                 CLC_ARG(shape->count_per),
                                 {shape->local * sizeof(cl_uint), NULL}};
        const size_t per = shape->count_per;
        const size_t global[2] = {(shape->groups + per - 1) / per * shape->local, shape->frames};
        const size_t local[2] = {shape->local, 1};
        st = run(ctx, shape->queue, &count, frame, extra, 5, 2, global, local, num_events,
                 wait_list, NULL);
    }
    clc__kernel_give(ctx, &count.kernel);
    return st;
}

/* Pass 2 (offsets from the counts, then the points), or the organized kernel. */
static clc_status enqueue_write(clc_context *ctx, const char *options, const frame_args *frame,
                                const cloud_shape *shape, const dense_scratch *scratch,
                                cl_mem points, cl_mem colors, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event)
{
    const int dense = scratch != NULL;
    cloud_kernel k = {0};
    clc_status st = make_kernel(ctx, options, dense ? "cloud_dense" : "cloud_organized", &k);
    if (st != CLC_SUCCESS)
        return st;
    /* Without colour the kernel never touches `colors`; any buffer will do as the argument. */
    cl_mem color_out = colors ? colors : points;
    if (dense) {
        const clc_arg extra[] = {
            CLC_ARG(scratch->counts),  CLC_ARG(scratch->totals),
            CLC_ARG(points),           CLC_ARG(color_out),
            CLC_ARG(shape->tile_rows), {2 * shape->local * sizeof(cl_ulong), NULL}};
        const size_t global[2] = {shape->groups * shape->local, shape->frames};
        const size_t local[2] = {shape->local, 1};
        st = run(ctx, shape->queue, &k, frame, extra, 6, 2, global, local, num_events, wait_list,
                 event);
    } else {
        const clc_arg extra[] = {CLC_ARG(points), CLC_ARG(color_out), CLC_ARG(shape->cols),
                                 CLC_ARG(shape->rows)};
        st = run(ctx, shape->queue, &k, frame, extra, 4, 3, shape->organized_global,
                 shape->organized_local, num_events, wait_list, event);
    }
    clc__kernel_give(ctx, &k.kernel);
    return st;
}

/* The dense cloud in one launch, totals into `totals`. */
static clc_status enqueue_onepass(clc_context *ctx, const char *options, const frame_args *frame,
                                  const cloud_shape *shape, cl_mem totals, cl_mem points,
                                  cl_mem colors, cl_uint num_events, const cl_event *wait_list,
                                  cl_event *event)
{
    const size_t groups = shape->groups * shape->frames;
    cl_mem sync = NULL;
    cloud_kernel k = {0};
    clc_status st = CLC_SUCCESS;
    cl_int err = CL_SUCCESS;
    if (shape->sync) { /* the tuner's own */
        if ((err = clRetainMemObject(shape->sync)) == CL_SUCCESS)
            sync = shape->sync;
        else
            st = clc__cl_fail(ctx, err, "clRetainMemObject(cloud one-pass state)");
    } else if (shape->queue != ctx->queue) {
        /* The context's state is safe only where launches follow one another: its queue. */
        st = clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                       "cloud one pass: the context's state on another queue");
    } else {
        st = clc__onepass_state(ctx, &ctx->cloud_sync, &ctx->cloud_sync_words, 2 + groups,
                                "cloud one-pass state", &sync);
    }
    if (st == CLC_SUCCESS)
        st = make_kernel(ctx, options, "cloud_onepass", &k);
    if (st == CLC_SUCCESS) {
        const clc_arg extra[] = {CLC_ARG(sync),
                                 CLC_ARG(totals),
                                 CLC_ARG(points),
                                 CLC_ARG(colors),
                                 CLC_ARG(shape->tile_rows),
                                 CLC_ARG(shape->groups),
                                 {2 * shape->local * sizeof(cl_ulong), NULL}};
        const size_t global = groups * shape->local;
        st = run(ctx, shape->queue, &k, frame, extra, 7, 1, &global, &shape->local, num_events,
                 wait_list, event);
    }
    clc__kernel_give(ctx, &k.kernel);
    clc__release_mem(&sync);
    return st;
}

/* Every pass of a checked conversion in `shape`: the organized kernel, the one-pass dense
 * kernel, or count and write. Enqueued commands keep their buffers alive, so the scratch
 * references go at once. */
static clc_status enqueue_all(clc_context *ctx, const char *opts, const frame_args *frame,
                              const cloud_shape *shape, int dense, cl_mem points, cl_mem colors,
                              cl_mem count, cl_uint num_events, const cl_event *wait_list,
                              cl_event *event)
{
    if (!dense)
        return enqueue_write(ctx, opts, frame, shape, NULL, points, colors, num_events, wait_list,
                             event);
    if (shape->onepass && count)
        return enqueue_onepass(ctx, opts, frame, shape, count, points, colors ? colors : points,
                               num_events, wait_list, event);
    dense_scratch scratch = {0};
    clc_status st = scratch_create(ctx, shape, count, &scratch);
    if (st == CLC_SUCCESS)
        st = enqueue_count(ctx, opts, frame, shape, &scratch, num_events, wait_list);
    if (st == CLC_SUCCESS)
        st = enqueue_write(ctx, opts, frame, shape, &scratch, points, colors, 0, NULL, event);
    scratch_release(ctx, &scratch, 0);
    return st;
}

static frame_args frame_from(const cloud_plan *plan, cl_mem depth, size_t depth_offset,
                             size_t depth_frame, cl_mem color, size_t color_offset,
                             size_t color_frame)
{
    frame_args f;
    memset(&f, 0, sizeof f);
    f.depth = depth;
    /* Without colour the kernel never reads `color`; the depth buffer stands in. */
    f.color = color ? color : depth;
    f.depth_offset = depth_offset;
    f.depth_pitch = plan->depth_pitch;
    f.depth_frame = depth_frame;
    f.color_offset = color_offset;
    f.color_pitch = plan->color_pitch;
    f.color_frame = color_frame;
    f.sw = (cl_uint)plan->p.sw;
    f.sh = (cl_uint)plan->p.sh;
    f.stride = plan->p.stride;
    f.has_color = (cl_uint)plan->has_color;
    f.inv_scale = plan->p.inv_scale;
    f.raw_limit = plan->p.raw_limit;
    f.trunc = plan->p.trunc;
    f.inv_fx = plan->p.inv_fx;
    f.inv_fy = plan->p.inv_fy;
    f.cx = plan->p.cx;
    f.cy = plan->p.cy;
    return f;
}

/* Tuning input: a dense 640x480 u16 frame, the common sensor size, 85% valid. */
typedef struct tune_input {
    cloud_plan plan;
    cl_mem depth, points, count;
    cl_mem sync; /* the one-pass state of the timing runs, apart from the context's */
} tune_input;

static void tune_teardown(void *arg)
{
    tune_input *t = arg;
    clc__release_mem(&t->depth);
    clc__release_mem(&t->points);
    clc__release_mem(&t->count);
    clc__release_mem(&t->sync);
    free(t);
}

static clc_status tune_setup(clc_context *ctx, void **arg)
{
    const size_t W = ctx->tune_quick ? CLC__QUICK_WIDTH : 640,
                 H = ctx->tune_quick ? CLC__QUICK_HEIGHT : 480;
    tune_input *t = calloc(1, sizeof *t);
    uint16_t *depth = malloc((size_t)W * H * sizeof *depth);
    if (!t || !depth) {
        free(t);
        free(depth);
        return CLC_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < (size_t)W * H; ++i)
        depth[i] = (uint16_t)(i * 2654435761u >> 24 < 38 ? 0 : 800 + i % 3000);
    const clc_image_desc desc = {CLC_PIXEL_DEPTH_U16, W, H, 0};
    const clc_intrinsics k = {525.0, 525.0, W / 2 - 0.5, H / 2 - 0.5};
    clc_status st = plan_cloud(ctx, &desc, NULL, &k, NULL, &t->plan);
    cl_int err = CL_SUCCESS;
    if (st == CLC_SUCCESS)
        t->depth = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  sizeof(uint16_t) * W * H, depth, &err);
    if (st == CLC_SUCCESS && err == CL_SUCCESS)
        t->points = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, 12 * W * H, NULL, &err);
    if (st == CLC_SUCCESS && err == CL_SUCCESS)
        t->count = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    if (st == CLC_SUCCESS && err == CL_SUCCESS) /* one frame: at most MAX_TILES tiles */
        t->sync = clc__zeroed_state(ctx, 2 + MAX_TILES, &err);
    free(depth);
    if (st != CLC_SUCCESS || err != CL_SUCCESS) {
        tune_teardown(t);
        return st != CLC_SUCCESS ? st : (clc_status)err;
    }
    *arg = t;
    return CLC_SUCCESS;
}

static clc_status tune_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    tune_input *t = arg;
    const char *opts = build_options(CLC_PIXEL_DEPTH_U16);
    const frame_args frame = frame_from(&t->plan, t->depth, 0, 0, NULL, 0, 0);
    cloud_shape shape;
    clc_status st = plan_shape(ctx, queue, &t->plan, opts, variant, 1, &shape);
    shape.sync = t->sync;
    if (st == CLC_SUCCESS)
        st = enqueue_all(ctx, opts, &frame, &shape, 1, t->points, NULL, t->count, 0, NULL, NULL);
    return st;
}

static const clc_tune_family tune_family = {
    "cloud", &clc__source_cloud, "-DDEPTH_U16", shape_names, 3, tune_setup, tune_run, tune_teardown,
    0 /* shapes differ in launches: single runs, a lone call's cost */};

/* The bytes between frames: as given, or a frame's span when 0 (frames packed). NULL-safe. */
static size_t frame_step(size_t given, size_t span)
{
    return given ? given : span;
}

clc_status clc_depth_to_points_many_enqueue(
    clc_context *ctx, size_t frames, const clc_image_desc *depth, cl_mem depth_buffer,
    size_t depth_offset, size_t depth_frame_bytes, const clc_image_desc *color, cl_mem color_buffer,
    size_t color_offset, size_t color_frame_bytes, const clc_intrinsics *intrinsics,
    const clc_cloud_options *options, cl_mem points, cl_mem colors, cl_mem counts,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    static const char fn[] = "clc_depth_to_points_many_enqueue";
    if (event)
        *event = NULL;
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    if ((num_events_in_wait_list > 0) != (event_wait_list != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: wait list and its count disagree",
                         fn);
    if (frames == 0 || frames > UINT32_MAX)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: %zu frames; from 1 to 2^32 - 1 are converted", fn, frames);
    cloud_plan plan;
    clc_status st = plan_cloud(ctx, depth, color, intrinsics, options, &plan);
    if (st != CLC_SUCCESS)
        return st;
    const size_t bpp = clc_pixel_size(depth->format);
    const int dense = plan.p.layout == CLC_CLOUD_DENSE;
    const size_t depth_step = frame_step(depth_frame_bytes, plan.depth_bytes);
    const size_t color_step = plan.has_color ? frame_step(color_frame_bytes, plan.color_bytes) : 0;
    if (depth_offset % bpp != 0 || depth_step % bpp != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: depth offset %zu and frame step %zu must be multiples of %zu", fn,
                         depth_offset, depth_step, bpp);
    if (depth_step < plan.depth_bytes || (plan.has_color && color_step < plan.color_bytes))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: frames %zu (colour %zu) bytes apart overlap: a frame spans %zu "
                         "(%zu)",
                         fn, depth_step, color_step, plan.depth_bytes, plan.color_bytes);
    if (plan.has_color != (color_buffer != NULL) || plan.has_color != (colors != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: a colour image needs its description, its buffer and a colour "
                         "output, and no colour needs none of them",
                         fn);
    if (dense && !counts)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s: a dense cloud needs a count buffer",
                         fn);
    /* Every span below: (frames - 1) steps, then one frame; none may overflow size_t. */
    const size_t last = frames - 1;
    if (last > (SIZE_MAX - plan.depth_bytes) / depth_step ||
        (plan.has_color && last > (SIZE_MAX - plan.color_bytes) / color_step) ||
        frames > SIZE_MAX / 12 / plan.n)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "%s: %zu frames overflow size_t", fn,
                         frames);
    st = clc__check_buffer(ctx, depth_buffer, depth_offset, last * depth_step + plan.depth_bytes,
                           "depth buffer");
    if (st == CLC_SUCCESS && plan.has_color)
        st = clc__check_buffer(ctx, color_buffer, color_offset,
                               last * color_step + plan.color_bytes, "colour buffer");
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, points, 0, frames * plan.n * 12, "points buffer");
    if (st == CLC_SUCCESS && plan.has_color)
        st = clc__check_buffer(ctx, colors, 0, frames * plan.n * 3, "colours buffer");
    if (st == CLC_SUCCESS && counts)
        st = clc__check_buffer(ctx, counts, 0, frames * sizeof(cl_uint), "count buffer");
    if (st != CLC_SUCCESS)
        return st;

    const char *opts = build_options(depth->format);
    const frame_args frame = frame_from(&plan, depth_buffer, depth_offset, depth_step, color_buffer,
                                        color_offset, color_step);
    int kind = 0;
    cloud_shape shape;
    st = choose_shape(ctx, &kind);
    if (st == CLC_SUCCESS)
        st = plan_shape(ctx, ctx->queue, &plan, opts, kind, frames, &shape);
    if (st != CLC_SUCCESS)
        return st;
    return enqueue_all(ctx, opts, &frame, &shape, dense, points, colors, counts,
                       num_events_in_wait_list, event_wait_list, event);
}

clc_status clc_depth_to_points_enqueue(clc_context *ctx, const clc_image_desc *depth,
                                       cl_mem depth_buffer, size_t depth_offset,
                                       const clc_image_desc *color, cl_mem color_buffer,
                                       size_t color_offset, const clc_intrinsics *intrinsics,
                                       const clc_cloud_options *options, cl_mem points,
                                       cl_mem colors, cl_mem count, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event)
{
    return clc_depth_to_points_many_enqueue(ctx, 1, depth, depth_buffer, depth_offset, 0, color,
                                            color_buffer, color_offset, 0, intrinsics, options,
                                            points, colors, count, num_events_in_wait_list,
                                            event_wait_list, event);
}

/* Host memory in and out of the conversion: in place on host-unified devices, copies elsewhere.
 * Output buffers are created only once the number of points is known to fit. */
typedef struct host_io {
    cl_mem depth, color, points, colors;
    cl_event up[4]; /* the inputs' staged chunks still in flight (clc__host_input) */
} host_io;

/* idle: the queue has finished every command on them (they may be kept for the next call). */
static void host_io_release(clc_context *ctx, host_io *io, int idle)
{
    clc__host_release(ctx, &io->depth, idle);
    clc__host_release(ctx, &io->color, idle);
    clc__host_release(ctx, &io->points, idle);
    clc__host_release(ctx, &io->colors, idle);
}

/* Sum of the tile counts of a frame, read back: the size of a dense cloud before it is written. */
static clc_status counted_total(clc_context *ctx, const cloud_shape *shape,
                                const dense_scratch *scratch, size_t *total)
{
    cl_uint *counts = malloc(shape->groups * sizeof *counts);
    if (!counts)
        return clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "clc_depth_to_points");
    const cl_int err = clEnqueueReadBuffer(ctx->queue, scratch->counts, CL_TRUE, 0,
                                           shape->groups * sizeof *counts, counts, 0, NULL, NULL);
    *total = 0;
    for (cl_uint g = 0; err == CL_SUCCESS && g < shape->groups; ++g)
        *total += counts[g];
    free(counts);
    return err == CL_SUCCESS ? CLC_SUCCESS : clc__cl_fail(ctx, err, "clEnqueueReadBuffer(counts)");
}

clc_status clc_depth_to_points(clc_context *ctx, const clc_image_desc *depth,
                               const void *depth_data, const clc_image_desc *color,
                               const void *color_data, const clc_intrinsics *intrinsics,
                               const clc_cloud_options *options, float *points,
                               unsigned char *colors, size_t capacity, size_t *count)
{
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_depth_to_points: ctx is NULL");
    if (!count)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "clc_depth_to_points: count is NULL");
    *count = 0;
    if (!depth_data || (capacity > 0 && !points))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_depth_to_points: depth data and points must not be NULL");
    if ((color != NULL) != (color_data != NULL) ||
        (color != NULL && capacity > 0 && colors == NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_depth_to_points: a colour image needs its description, its data and "
                         "a colours array");
    cloud_plan plan;
    clc_status st = plan_cloud(ctx, depth, color, intrinsics, options, &plan);
    if (st != CLC_SUCCESS)
        return st;
    const size_t bpp = clc_pixel_size(depth->format);
    if ((uintptr_t)depth_data % bpp != 0 || (uintptr_t)points % sizeof(float) != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_depth_to_points: depth or points memory is misaligned for its type");
    const int dense = plan.p.layout == CLC_CLOUD_DENSE;
    if (!dense && capacity < plan.n) {
        *count = plan.n;
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW,
                         "clc_depth_to_points: an organized cloud has %u points; capacity is %zu",
                         (unsigned)plan.n, capacity);
    }

    const char *opts = build_options(depth->format);
    host_io io = {0};
    dense_scratch scratch = {0};
    cloud_shape shape;
    cl_int err = CL_SUCCESS;
    int kind = 0;
    st = choose_shape(ctx, &kind);
    /* The count comes first here (it sizes the output buffers): two passes. */
    if (st == CLC_SUCCESS)
        st = plan_shape(ctx, ctx->queue, &plan, opts, kind == SHAPE_ONEPASS ? SHAPE_GROUPS : kind,
                        1, &shape);
    if (st != CLC_SUCCESS)
        return st;

    io.depth = clc__host_input(ctx, depth_data, plan.depth_bytes, io.up, &err);
    if (err == CL_SUCCESS && plan.has_color)
        io.color = clc__host_input(ctx, color_data, plan.color_bytes, io.up + 2, &err);
    if (err != CL_SUCCESS) {
        /* The depth's upload may still read the caller's memory: finished first. */
        int idle;
        const clc_status failed = clc__host_finish(
            ctx, clc__cl_fail(ctx, err, "clCreateBuffer(cloud input)"), io.up, 4, "cloud", &idle);
        host_io_release(ctx, &io, idle);
        return failed;
    }
    const frame_args frame = frame_from(&plan, io.depth, 0, 0, io.color, 0, 0);

    /* How many points will be written, and may they be? A dense cloud whose worst case does
     * not fit the caller's arrays is counted first, so that nothing is written on overflow. */
    size_t total = plan.n;
    if (dense) {
        st = scratch_create(ctx, &shape, NULL, &scratch);
        if (st == CLC_SUCCESS)
            st = enqueue_count(ctx, opts, &frame, &shape, &scratch, 0, NULL);
        if (st == CLC_SUCCESS && capacity < plan.n) {
            st = counted_total(ctx, &shape, &scratch, &total);
            if (st == CLC_SUCCESS && total > capacity)
                st = clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW,
                               "clc_depth_to_points: %zu valid points; capacity is %zu", total,
                               capacity);
        }
    }
    /* Output buffers cover what may be written: every sample, or the counted total. */
    const size_t room = total < capacity ? total : capacity;
    if (st == CLC_SUCCESS && room > 0) {
        io.points = clc__host_output(ctx, points, room * 12, &err);
        if (err == CL_SUCCESS && plan.has_color)
            io.colors = clc__host_output(ctx, colors, room * 3, &err);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clCreateBuffer(cloud output)");
        if (st == CLC_SUCCESS)
            st = enqueue_write(ctx, opts, &frame, &shape, dense ? &scratch : NULL, io.points,
                               io.colors, 0, NULL, NULL);
    }
    if (st == CLC_SUCCESS && dense && capacity >= plan.n) {
        cl_uint n = 0;
        err = clEnqueueReadBuffer(ctx->queue, scratch.totals, CL_TRUE, 0, sizeof n, &n, 0, NULL,
                                  NULL);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueReadBuffer(cloud count)");
        total = n;
    }
    if (st == CLC_SUCCESS && total > 0) {
        err = clc__host_sync(ctx, io.points, points, &(clc_part){0, total * 12}, 1);
        if (err == CL_SUCCESS && plan.has_color)
            err = clc__host_sync(ctx, io.colors, colors, &(clc_part){0, total * 3}, 1);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "reading the cloud back");
    }
    /* The caller's memory must not be in use once we return, whatever happened. */
    int idle = 0;
    st = clc__host_finish(ctx, st, io.up, 4, "cloud", &idle);
    *count = total;
    scratch_release(ctx, &scratch, idle);
    host_io_release(ctx, &io, idle);
    if (st != CLC_SUCCESS && st != CLC_ERROR_SIZE_OVERFLOW)
        *count = 0;
    return st;
}

clc_status clc_depth_to_points_many(clc_context *ctx, size_t frames, const clc_image_desc *depth,
                                    const void *depth_data, size_t depth_frame_bytes,
                                    const clc_image_desc *color, const void *color_data,
                                    size_t color_frame_bytes, const clc_intrinsics *intrinsics,
                                    const clc_cloud_options *options, float *points,
                                    unsigned char *colors, size_t *counts)
{
    static const char fn[] = "clc_depth_to_points_many";
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    if (!depth_data || !points || !counts || (color != NULL) != (color_data != NULL) ||
        (color != NULL) != (colors != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: depth data, points and counts must not be NULL, and a colour image "
                         "needs its description, its data and a colours array",
                         fn);
    cloud_plan plan;
    clc_status st = plan_cloud(ctx, depth, color, intrinsics, options, &plan);
    if (st != CLC_SUCCESS)
        return st;
    if (frames == 0 || frames > UINT32_MAX)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: %zu frames; from 1 to 2^32 - 1 are converted", fn, frames);
    const size_t depth_step = frame_step(depth_frame_bytes, plan.depth_bytes);
    const size_t color_step = plan.has_color ? frame_step(color_frame_bytes, plan.color_bytes) : 0;
    const size_t last = frames - 1;
    if (last > (SIZE_MAX - plan.depth_bytes) / depth_step ||
        (plan.has_color && last > (SIZE_MAX - plan.color_bytes) / color_step) ||
        frames > SIZE_MAX / 12 / plan.n)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "%s: %zu frames overflow size_t", fn,
                         frames);
    const size_t bpp = clc_pixel_size(depth->format);
    if ((uintptr_t)depth_data % bpp != 0 || depth_step % bpp != 0 ||
        (uintptr_t)points % sizeof(float) != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "%s: depth or points memory is misaligned for its type", fn);
    const size_t depth_bytes = last * depth_step + plan.depth_bytes;
    const size_t color_bytes = plan.has_color ? last * color_step + plan.color_bytes : 0;
    const size_t out = frames * plan.n;
    host_io io = {0};
    cl_mem totals = NULL;
    cl_int err = CL_SUCCESS;
    io.depth = clc__host_input(ctx, depth_data, depth_bytes, io.up, &err);
    if (err == CL_SUCCESS && plan.has_color)
        io.color = clc__host_input(ctx, color_data, color_bytes, io.up + 2, &err);
    if (err == CL_SUCCESS)
        io.points = clc__host_output(ctx, points, out * 12, &err);
    if (err == CL_SUCCESS && plan.has_color)
        io.colors = clc__host_output(ctx, colors, out * 3, &err);
    if (err == CL_SUCCESS)
        totals = clc__scratch(ctx, CL_MEM_READ_WRITE, frames * sizeof(cl_uint), &err);
    if (err != CL_SUCCESS)
        st = clc__cl_fail(ctx, err, "clCreateBuffer(cloud frames)");
    if (st == CLC_SUCCESS)
        st = clc_depth_to_points_many_enqueue(ctx, frames, depth, io.depth, 0, depth_step, color,
                                              io.color, 0, color_step, intrinsics, options,
                                              io.points, io.colors, totals, 0, NULL, NULL);
    cl_uint *n =
        st == CLC_SUCCESS && plan.p.layout == CLC_CLOUD_DENSE ? malloc(frames * sizeof *n) : NULL;
    if (st == CLC_SUCCESS && plan.p.layout == CLC_CLOUD_DENSE && !n)
        st = clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "%s", fn);
    if (st == CLC_SUCCESS && n) {
        err = clEnqueueReadBuffer(ctx->queue, totals, CL_TRUE, 0, frames * sizeof *n, n, 0, NULL,
                                  NULL);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "clEnqueueReadBuffer(cloud counts)");
    }
    /* Frame f's points start at f * grid; of a dense frame only its valid points are read back
     * (a 640x480 frame with 15% holes: 3.1 of 3.7 MB), which is what many small frames wait on:
     * into pinned memory they alone cross the bus; staged, the span crosses it in large chunks and
     * the host copies out only them. */
    const size_t parts_n = n ? frames : 1;
    clc_part *parts = st == CLC_SUCCESS ? malloc(parts_n * sizeof *parts) : NULL;
    if (st == CLC_SUCCESS && !parts)
        st = clc__fail(ctx, CLC_ERROR_OUT_OF_HOST_MEMORY, "%s", fn);
    for (int rgb = 0; rgb < 1 + plan.has_color && st == CLC_SUCCESS; ++rgb) {
        const size_t size = rgb ? 3 : 12; /* bytes a point */
        for (size_t f = 0; f < parts_n; ++f)
            parts[f] = n ? (clc_part){f * plan.n * size, n[f] * size} : (clc_part){0, out * size};
        err = clc__host_sync(ctx, rgb ? io.colors : io.points, rgb ? (void *)colors : points, parts,
                             parts_n);
        if (err != CL_SUCCESS)
            st = clc__cl_fail(ctx, err, "reading the clouds back");
    }
    free(parts);
    int idle = 0;
    st = clc__host_finish(ctx, st, io.up, 4, "cloud", &idle);
    for (size_t f = 0; f < frames; ++f)
        counts[f] = st != CLC_SUCCESS ? 0 : n ? n[f] : plan.n;
    free(n);
    clc__host_release(ctx, &totals, idle);
    host_io_release(ctx, &io, idle);
    return st;
}
