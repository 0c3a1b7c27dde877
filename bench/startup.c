/* First-kernel latency of one process: create a context, build the copy kernel (from the disk
 * cache when warm), run it once. bench/startup.sh runs it cold and warm in fresh processes. */
#include <stdio.h>
#include <time.h>

#include <clcompute/clcompute.h>

static double now_ms(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(void)
{
    double t0 = now_ms();
    clc_context *ctx = NULL;
    if (clc_context_create(NULL, &ctx) != CLC_SUCCESS) {
        fprintf(stderr, "startup: %s\n", clc_last_error());
        return 1;
    }
    double t1 = now_ms();
    double gbps = 0.0;
    if (clc_measure_copy_bandwidth(ctx, (size_t)1 << 20, 1, &gbps) != CLC_SUCCESS) {
        fprintf(stderr, "startup: %s\n", clc_last_error());
        clc_context_destroy(ctx);
        return 1;
    }
    double t2 = now_ms();
    clc_cache_stats stats;
    clc_context_cache_stats(ctx, &stats);
    printf("context_ms=%.2f first_kernel_ms=%.2f total_ms=%.2f cache_hits=%llu cache_misses=%llu "
           "device=\"%s\"\n",
           t1 - t0, t2 - t1, t2 - t0, (unsigned long long)stats.hits,
           (unsigned long long)stats.misses, clc_context_device(ctx)->name);
    clc_context_destroy(ctx);
    return 0;
}
