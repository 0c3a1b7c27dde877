/* Host side of the gray conversion: validate, choose the kernel shape, enqueue. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/internal.h"

/* Everything the kernel needs, worked out once from the caller's arguments. */
typedef struct gray_plan {
    size_t src_bytes, dst_bytes;
    size_t src_pitch, dst_pitch;
    cl_uint w0, w1, w2; /* weights by channel position */
    const char *kernel_name;
    const char *options;
} gray_plan;

static int is_color(clc_pixel_format f)
{
    return f == CLC_PIXEL_RGB8 || f == CLC_PIXEL_BGR8 || f == CLC_PIXEL_RGBA8 ||
           f == CLC_PIXEL_BGRA8;
}

static clc_status plan_gray(clc_context *ctx, const clc_image_desc *src, const clc_image_desc *dst,
                            const clc_gray_options *options, gray_plan *plan)
{
    if (!src || !dst)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "gray: image description is NULL");
    if (!is_color(src->format))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "gray: source format %d is not RGB8, BGR8, RGBA8 or BGRA8",
                         (int)src->format);
    if (dst->format != CLC_PIXEL_GRAY8 && dst->format != CLC_PIXEL_GRAY_F32)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "gray: destination format %d is not GRAY8 or GRAY_F32", (int)dst->format);
    /* Each image on its own first, so that an empty one is called empty, not a mismatch. */
    clc_status st = clc_image_span(src, &plan->src_bytes);
    if (st != CLC_SUCCESS)
        return clc__fail(ctx, st, "gray: source: %s", clc__last_detail());
    st = clc_image_span(dst, &plan->dst_bytes);
    if (st != CLC_SUCCESS)
        return clc__fail(ctx, st, "gray: destination: %s", clc__last_detail());
    if (src->width != dst->width || src->height != dst->height)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "gray: source is %zu x %zu but destination is %zu x %zu", src->width,
                         src->height, dst->width, dst->height);
    clc_gray_weights weights = options ? options->weights : CLC_GRAY_BT601;
    if (weights != CLC_GRAY_BT601 && weights != CLC_GRAY_BT709)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "gray: unknown weights %d", (int)weights);
    if (src->width > UINT32_MAX || src->height > UINT32_MAX)
        return clc__fail(ctx, CLC_ERROR_SIZE_OVERFLOW, "gray: %zu x %zu exceeds 2^32 - 1 a side",
                         src->width, src->height);
    plan->src_pitch = src->pitch ? src->pitch : src->width * clc_pixel_size(src->format);
    plan->dst_pitch = dst->pitch ? dst->pitch : dst->width * clc_pixel_size(dst->format);
    if (dst->format == CLC_PIXEL_GRAY_F32 && plan->dst_pitch % 4 != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "gray: a float destination needs a pitch that is a multiple of 4, "
                         "not %zu",
                         plan->dst_pitch);

    /* OpenCV's fixed-point weights for R, G and B (15 fractional bits, sum 32768): BT.601 as
     * cvtColor's RGB2GRAY, BT.709 rounded the same way. */
    static const uint32_t table[2][3] = {{9798, 19235, 3735}, {6966, 23436, 2366}};
    const uint32_t *rgb = table[weights == CLC_GRAY_BT709];
    const int bgr = src->format == CLC_PIXEL_BGR8 || src->format == CLC_PIXEL_BGRA8;
    plan->w0 = bgr ? rgb[2] : rgb[0];
    plan->w1 = rgb[1];
    plan->w2 = bgr ? rgb[0] : rgb[2];
    plan->kernel_name = dst->format == CLC_PIXEL_GRAY8 ? "gray_u8" : "gray_f32";
    plan->options = clc_pixel_size(src->format) == 3 ? "-DCHANNELS=3" : "-DCHANNELS=4";
    return CLC_SUCCESS;
}

/* The kernel's three block paths (cl/gray.cl). */
enum { PATH_BYTES = 0, PATH_VECTORS = 1, PATH_WORDS = 2 };

/* Variants: a work shape (whole rows an item in work-groups of one, or one 16-pixel block an item
 * in work-groups of 128) and the block path used on 16-byte aligned rows (unaligned rows always
 * take the byte path). Measured at 3840x2160: rows+vectors 1.8 ms vs blocks 2.5 to 4.5 ms on a
 * 2-core PoCL; blocks+words 3.6 TB/s vs 3.3 TB/s for blocks+vectors on the H200, where rows
 * are 40x slower. */
enum { ROWS_VECTORS, ROWS_WORDS, BLOCKS_WORDS, BLOCKS_VECTORS, VARIANTS };
static const char *const variant_names[VARIANTS] = {"rows-vectors", "rows-words", "blocks-words",
                                                    "blocks-vectors"};

static int variant_rows(int v)
{
    return v == ROWS_VECTORS || v == ROWS_WORDS;
}

static const clc_tune_family tune_family; /* below: gray's variants timed on first use */

/* The variant for this call: tuned per device (the device type's default when tuning is off),
 * then CLCOMPUTE_GRAY_SHAPE (rows, blocks) and CLCOMPUTE_GRAY_PATH (bytes, vectors, words)
 * override their half, for tests and measurements. Sets *path for rows of the given alignment. */
static clc_status choose_variant(clc_context *ctx, int aligned, int *variant, cl_uint *path)
{
    int shape = 0, force = 0; /* shape: 0 rows, 1 blocks; force: 0 bytes, 1 vectors, 2 words */
    const int has_shape = clc__switch(ctx, CLC_SW_GRAY_SHAPE, &shape);
    const int has_force = clc__switch(ctx, CLC_SW_GRAY_PATH, &force);
    if (has_shape < 0 || has_force < 0)
        return CLC_ERROR_INVALID_ARGUMENT;
    const int fallback = ctx->info.type == CLC_DEVICE_CPU ? ROWS_VECTORS : BLOCKS_WORDS;
    int rows = variant_rows(fallback);
    int words = fallback == BLOCKS_WORDS;
    if (!(has_shape && has_force)) {
        const int v = clc__tune(ctx, &tune_family, fallback);
        rows = variant_rows(v);
        words = v == ROWS_WORDS || v == BLOCKS_WORDS;
    }
    if (has_shape)
        rows = shape == 0;
    const int words_ok = aligned && ctx->info.little_endian;
    *path = !aligned ? PATH_BYTES : words && words_ok ? PATH_WORDS : PATH_VECTORS;
    if (has_force) {
        *path = force == 0   ? PATH_BYTES
                : force == 1 ? (aligned ? PATH_VECTORS : PATH_BYTES)
                             : (words_ok ? PATH_WORDS : PATH_BYTES);
        words = *path == PATH_WORDS;
    }
    *variant = rows ? (words ? ROWS_WORDS : ROWS_VECTORS) : (words ? BLOCKS_WORDS : BLOCKS_VECTORS);
    return CLC_SUCCESS;
}

/* Enqueues the kernel on `queue` with buffers already checked, in the given shape and path. */
static clc_status enqueue_variant(clc_context *ctx, cl_command_queue queue, const gray_plan *plan,
                                  const clc_image_desc *src, cl_mem src_buf, size_t src_offset,
                                  cl_mem dst_buf, size_t dst_offset, int rows, cl_uint path,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    cl_kernel kernel = NULL;
    clc_status st =
        clc__kernel_take(ctx, &clc__source_gray, plan->options, plan->kernel_name, &kernel);
    if (st != CLC_SUCCESS)
        return st;

    const cl_uint width = (cl_uint)src->width, height = (cl_uint)src->height;
    const cl_uint blocks = (width + 15) / 16;
    cl_uint blocks_per_item = 1, rows_per_item = 1;
    size_t local[2] = {1, 1}, global[2];
    if (rows) {
        /* Whole rows a work-item, about eight items a compute unit, work-groups of one: PoCL runs
         * each work-group as one task, so fewer, longer items keep its scheduling cost below a
         * percent of the work. */
        const cl_uint items = ctx->info.compute_units ? 8 * ctx->info.compute_units : 16;
        blocks_per_item = blocks;
        rows_per_item = (height + items - 1) / items;
        global[0] = 1;
        global[1] = (height + rows_per_item - 1) / rows_per_item;
    } else {
        /* One block of 16 pixels an item, rows in y, groups of 128 in x (64 to 512 measured
         * within 3% of each other on the H200; 128 was best or tied). */
        st = clc__local_size(ctx, kernel, 128, &local[0]);
        if (st != CLC_SUCCESS)
            goto done;
        global[0] = (blocks + local[0] - 1) / local[0] * local[0];
        global[1] = height;
    }

    const cl_ulong so = src_offset, sp = plan->src_pitch, dof = dst_offset, dp = plan->dst_pitch;
    const clc_arg args[] = {CLC_ARG(src_buf),         CLC_ARG(so),           CLC_ARG(sp),
                            CLC_ARG(dst_buf),         CLC_ARG(dof),          CLC_ARG(dp),
                            CLC_ARG(width),           CLC_ARG(height),       CLC_ARG(plan->w0),
                            CLC_ARG(plan->w1),        CLC_ARG(plan->w2),     CLC_ARG(path),
                            CLC_ARG(blocks_per_item), CLC_ARG(rows_per_item)};
    st = clc__set_args(ctx, kernel, plan->kernel_name, args, sizeof args / sizeof args[0]);
    if (st != CLC_SUCCESS)
        goto done;
    cl_int err =
        clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, num_events, wait_list, event);
    if (err != CL_SUCCESS)
        st = clc__cl_fail(ctx, err, "clEnqueueNDRangeKernel(gray)");
done:
    clc__kernel_give(ctx, &kernel);
    return st;
}

/* Enqueues the conversion on the context's queue; `aligned` promises 16-byte aligned rows. */
static clc_status launch(clc_context *ctx, const gray_plan *plan, const clc_image_desc *src,
                         cl_mem src_buf, size_t src_offset, cl_mem dst_buf, size_t dst_offset,
                         int aligned, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event)
{
    int variant = 0;
    cl_uint path = PATH_BYTES;
    clc_status st = choose_variant(ctx, aligned, &variant, &path);
    if (st != CLC_SUCCESS)
        return st;
    return enqueue_variant(ctx, ctx->queue, plan, src, src_buf, src_offset, dst_buf, dst_offset,
                           variant_rows(variant), path, num_events, wait_list, event);
}

/* Tuning input: a 1920x1080 RGB8 frame to GRAY8 in device buffers, large enough that a variant's
 * per-item cost shows and small enough to time in milliseconds on two CPU cores. */
typedef struct tune_input {
    gray_plan plan;
    clc_image_desc src;
    cl_mem src_buf, dst_buf;
} tune_input;

static void tune_teardown(void *arg)
{
    tune_input *t = arg;
    clc__release_mem(&t->src_buf);
    clc__release_mem(&t->dst_buf);
    free(t);
}

static clc_status tune_setup(clc_context *ctx, void **arg)
{
    tune_input *t = calloc(1, sizeof *t);
    if (!t)
        return CLC_ERROR_OUT_OF_HOST_MEMORY;
    const size_t w = ctx->tune_quick ? CLC__QUICK_WIDTH : 1920,
                 h = ctx->tune_quick ? CLC__QUICK_HEIGHT : 1080;
    const clc_image_desc src = {CLC_PIXEL_RGB8, w, h, 0}, dst = {CLC_PIXEL_GRAY8, w, h, 0};
    t->src = src;
    clc_status st = plan_gray(ctx, &src, &dst, NULL, &t->plan);
    cl_int err = CL_SUCCESS;
    if (st == CLC_SUCCESS)
        t->src_buf = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, t->plan.src_bytes, NULL, &err);
    if (st == CLC_SUCCESS && err == CL_SUCCESS)
        t->dst_buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, t->plan.dst_bytes, NULL, &err);
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
    const int words = variant == ROWS_WORDS || variant == BLOCKS_WORDS;
    if (words && !ctx->info.little_endian)
        return CLC_ERROR_UNSUPPORTED;
    return enqueue_variant(ctx, queue, &t->plan, &t->src, t->src_buf, 0, t->dst_buf, 0,
                           variant_rows(variant), words ? PATH_WORDS : PATH_VECTORS, 0, NULL, NULL);
}

static const clc_tune_family tune_family = {"gray",        &clc__source_gray, "-DCHANNELS=3",
                                            variant_names, VARIANTS,          tune_setup,
                                            tune_run,      tune_teardown,     1};

static int aligned16(size_t a, size_t b, size_t c, size_t d)
{
    return ((a | b | c | d) & 15) == 0;
}

clc_status clc_gray_enqueue(clc_context *ctx, const clc_image_desc *src, cl_mem src_buffer,
                            size_t src_offset, const clc_image_desc *dst, cl_mem dst_buffer,
                            size_t dst_offset, const clc_gray_options *options,
                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event)
{
    if (event)
        *event = NULL;
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_gray_enqueue: ctx is NULL");
    if ((num_events_in_wait_list > 0) != (event_wait_list != NULL))
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_gray_enqueue: wait list and its count disagree");
    gray_plan plan;
    clc_status st = plan_gray(ctx, src, dst, options, &plan);
    if (st == CLC_SUCCESS && dst->format == CLC_PIXEL_GRAY_F32 && dst_offset % 4 != 0)
        st = clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                       "clc_gray_enqueue: a float destination needs an offset that is a "
                       "multiple of 4, not %zu",
                       dst_offset);
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, src_buffer, src_offset, plan.src_bytes, "source buffer");
    if (st == CLC_SUCCESS)
        st = clc__check_buffer(ctx, dst_buffer, dst_offset, plan.dst_bytes, "destination buffer");
    if (st != CLC_SUCCESS)
        return st;
    const int aligned = aligned16(src_offset, plan.src_pitch, dst_offset, plan.dst_pitch);
    return launch(ctx, &plan, src, src_buffer, src_offset, dst_buffer, dst_offset, aligned,
                  num_events_in_wait_list, event_wait_list, event);
}

/* clc_gray's launch: the plan's source description travels with it. */
typedef struct gray_host {
    const gray_plan *plan;
    const clc_image_desc *src;
} gray_host;

static clc_status host_launch(clc_context *ctx, const void *arg, cl_mem src, cl_mem dst,
                              int aligned)
{
    const gray_host *h = arg;
    return launch(ctx, h->plan, h->src, src, 0, dst, 0, aligned, 0, NULL, NULL);
}

/* One band of rows of clc_gray: the rows' offsets into the same buffers, on the context's queue. */
static clc_status host_launch_rows(clc_context *ctx, const void *arg, cl_mem src, cl_mem dst,
                                   int aligned, size_t row0, size_t rows, cl_event *event)
{
    const gray_host *h = arg;
    clc_image_desc band = *h->src;
    band.height = rows;
    return launch(ctx, h->plan, &band, src, row0 * h->plan->src_pitch, dst,
                  row0 * h->plan->dst_pitch, aligned, 0, NULL, event);
}

clc_status clc_gray(clc_context *ctx, const clc_image_desc *src, const void *src_data,
                    const clc_image_desc *dst, void *dst_data, const clc_gray_options *options)
{
    if (!ctx)
        return clc__fail(NULL, CLC_ERROR_INVALID_ARGUMENT, "clc_gray: ctx is NULL");
    if (!src_data || !dst_data)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "clc_gray: %s is NULL",
                         src_data ? "dst_data" : "src_data");
    gray_plan plan;
    clc_status st = plan_gray(ctx, src, dst, options, &plan);
    if (st != CLC_SUCCESS)
        return st;
    if (dst->format == CLC_PIXEL_GRAY_F32 && (uintptr_t)dst_data % 4 != 0)
        return clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT,
                         "clc_gray: float destination memory is not 4-byte aligned");

    const gray_host h = {&plan, src};
    return clc__image_host_call(ctx, "gray", src_data, plan.src_bytes, plan.src_pitch, dst,
                                dst_data, plan.dst_bytes, plan.dst_pitch, host_launch,
                                host_launch_rows, &h);
}
