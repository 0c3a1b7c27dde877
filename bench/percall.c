/* The fixed cost of one call: clc_reduce on one float, clc_gray on one pixel, medians of many
 * calls, in microseconds of the calling thread's CPU time. The Python binding's overhead is
 * measured against these (bench/python_peers.py).
 *
 *   clc_bench_percall [CALLS]        device from CLCOMPUTE_DEVICE
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <clcompute/clcompute.h>

/* The calling thread's CPU time: what the call itself costs this thread, without the waits for
 * the device's threads, whose scheduling makes wall times wander on a shared machine. */
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 20000;
    double *t = malloc(sizeof *t * (size_t)(calls > 0 ? calls : 1));
    clc_context *ctx = NULL;
    if (!t || calls <= 0 || clc_context_create(NULL, &ctx) != CLC_SUCCESS) {
        fprintf(stderr, "clc_bench_percall: %s\n",
                t && calls > 0 ? clc_last_error() : "usage: clc_bench_percall [CALLS > 0]");
        free(t);
        return 1;
    }
    float x = 1.0f;
    unsigned char rgb[3] = {1, 2, 3}, gray = 0;
    const clc_image_desc src = {CLC_PIXEL_RGB8, 1, 1, 0}, dst = {CLC_PIXEL_GRAY8, 1, 1, 0};
    clc_reduce_result r;
    int rc = 0;
    for (int which = 0; which < 2 && rc == 0; ++which) {
        for (int i = -100; i < calls && rc == 0; ++i) { /* 100 warm-up calls */
            const double t0 = now_us();
            rc = which ? clc_gray(ctx, &src, rgb, &dst, &gray, NULL) != CLC_SUCCESS
                       : clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, &x, 1, &r) != CLC_SUCCESS;
            if (i >= 0)
                t[i] = now_us() - t0;
        }
        qsort(t, (size_t)calls, sizeof *t, compare);
        printf("%s %.2f us of this thread's CPU (median of %d calls on %s)\n",
               which ? "gray_1px" : "sum_1", t[calls / 2], calls, clc_context_device(ctx)->name);
    }
    if (rc)
        fprintf(stderr, "clc_bench_percall: %s\n", clc_last_error());
    clc_context_destroy(ctx);
    free(t);
    return rc;
}
