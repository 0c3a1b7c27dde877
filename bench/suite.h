/* The benchmark suite behind `clcompute bench`: one measurement per kernel, variant and size,
 * each compared with the serial C reference and checked against it. Uses the public API only,
 * plus the references of lib/ref and numpy-style loops for the reductions. */
#ifndef CLCOMPUTE_BENCH_SUITE_H
#define CLCOMPUTE_BENCH_SUITE_H

#include <stddef.h>

#include <clcompute/clcompute.h>

/* One line of results. Times are medians in seconds; 0 means "not measured". */
typedef struct bench_row {
    const char *kernel;  /* "gray", "cloud", "reduce" */
    char variant[32];    /* "RGB8", "dense", "sum f32" */
    char size[32];       /* "3840x2160", "64Mi" */
    double bytes;        /* bytes a call reads plus writes, as each kernel documents */
    double items;        /* pixels or elements of a call */
    double frames;       /* frames of a call, for a frames/s column (0: not a frame rate) */
    double device_s;     /* on device buffers, from event timestamps */
    double h2h_s;        /* the host-pointer call, transfers included */
    double h2h_pinned_s; /* the same from and to clc_host_alloc memory (0: not measured) */
    double serial_s;     /* serial C reference */
    char status[200];    /* "" when measured and checked, else "skipped: ..." or "failed: ..." */
} bench_row;

typedef struct bench_config {
    int repeats;      /* timed runs after a warm-up; the median is kept */
    int quick;        /* small sizes only */
    double copy_gbps; /* the device's copy bandwidth (sizes the busy copy of multi-pass rows) */
} bench_config;

/* The rows of a run, as many as the families add. */
typedef struct bench_rows {
    bench_row *rows;
    size_t count, capacity;
} bench_rows;

/* A new, zeroed row at the end; NULL when memory runs out. Earlier rows may move. */
bench_row *bench_rows_add(bench_rows *rows);
void bench_rows_free(bench_rows *rows);

/* A kernel family of the suite: what `clcompute bench --kernels NAME` runs. Each lives in its
 * bench/suite_NAME.c; the table in suite.c lists them (docs/adding-a-kernel.md). */
typedef struct bench_family {
    const char *name;
    /* Appends the family's rows (small sizes only with config->quick); non-zero when a row
     * failed or none could be added. */
    int (*run)(clc_context *ctx, const bench_config *config, bench_rows *rows);
    /* One small call: what a program's first call of the family compiles or loads. */
    clc_status (*first_call)(clc_context *ctx);
} bench_family;

/* Every family, in the order of the tables; NULL-terminated. */
extern const bench_family *const bench_families[];
/* The family named by the len bytes at name, or NULL. */
const bench_family *bench_family_find(const char *name, size_t len);

/* Wall-clock seconds. */
double bench_now(void);

/* Median of v[0..n) (sorts v). */
double bench_median(double *v, size_t n);

/* One enqueue of the operation being timed; the event of its last command in *done. */
typedef clc_status (*bench_enqueue)(clc_context *ctx, void *arg, cl_event *done);

/* Median device time of `enqueue` over config->repeats runs after a warm-up, from event
 * timestamps: from the event's own start for one kernel, or, for calls of several passes
 * (multi_pass), from the end of a buffer copy enqueued just before that keeps the device busy
 * for about 0.3 ms, so that every pass is queued when the first may start: the device's time
 * with the gaps between passes, not the host's time to enqueue them. Wall time where events
 * carry no timestamps. -1 after filling row->status. */
double bench_device_seconds(clc_context *ctx, const bench_config *config, int multi_pass,
                            bench_enqueue enqueue, void *arg, bench_row *row);

/* A copy of data (or zeros when data is NULL) in clc_host_alloc memory, NULL when there is none
 * to have; freed with clc_host_free. */
void *bench_pinned(clc_context *ctx, const void *data, size_t bytes);

/* Median seconds of `call` over config->repeats runs after a warm-up; -1 when a run fails. */
typedef clc_status (*bench_call)(clc_context *ctx, void *arg);
double bench_host_seconds(clc_context *ctx, const bench_config *config, bench_call call, void *arg);

/* A device buffer of `bytes`, holding a copy of data unless it is NULL; NULL after writing why
 * in row->status. */
cl_mem bench_buffer(clc_context *ctx, const void *data, size_t bytes, bench_row *row);

/* RGB8 or BGRA8 to GRAY8, w x h. Bytes: the input pixel plus one output byte. */
int bench_gray(clc_context *ctx, const bench_config *config, size_t w, size_t h,
               clc_pixel_format format, bench_row *row);

/* `frames` DEPTH_U16 frames of w x h (85% valid) to points, in one call (the many form when
 * frames > 1). Bytes: 2 read a pixel plus 12 written a point. */
int bench_cloud(clc_context *ctx, const bench_config *config, size_t w, size_t h,
                clc_cloud_layout layout, size_t frames, bench_row *row);

/* Reduction of n random elements. Bytes: the input. */
int bench_reduce(clc_context *ctx, const bench_config *config, clc_reduce_op op, clc_dtype type,
                 size_t n, bench_row *row);

/* First call of a kernel family in a new context, with an empty disk cache (cold) and with the
 * entry the cold run stored (warm), in milliseconds; context creation is not counted. The cache
 * lives in a temporary directory removed afterwards. Returns 0 on success. */
int bench_first_call(const char *device, const bench_family *family, double *cold_ms,
                     double *warm_ms, char *error, size_t error_size);

#endif
