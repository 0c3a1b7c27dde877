/* Gray conversion throughput: kernel-only (event profiling, device buffers) and host-to-host
 * (clc_gray on host memory), against the device's copy bandwidth and the serial C reference
 * (compiled -O3 -march=native). Results are checked bit-exact against the reference.
 *   clc_bench_gray [--repeats N] [--format rgb|bgra] [--sizes WxH,...]
 * The device comes from CLCOMPUTE_DEVICE. Prints a Markdown table. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/ref/ref.h"
#include "timing.h"

static const bench_size default_sizes[] = {{640, 480}, {1920, 1080}, {3840, 2160}, {7680, 4320}};

static int run(clc_context *ctx, bench_size sz, clc_pixel_format format, int repeats,
               double copy_gbps)
{
    const size_t bpp = clc_pixel_size(format);
    const size_t px = sz.w * sz.h;
    clc_image_desc src = {format, sz.w, sz.h, 0};
    clc_image_desc dst = {CLC_PIXEL_GRAY8, sz.w, sz.h, 0};
    uint8_t *in = malloc(px * bpp), *out = malloc(px), *ref = malloc(px);
    double *t = malloc((size_t)repeats * sizeof *t);
    if (!in || !out || !ref || !t) {
        printf("| %zux%zu | skipped: out of host memory |\n", sz.w, sz.h);
        free(in), free(out), free(ref), free(t);
        return 0;
    }
    uint32_t seed = 12345;
    for (size_t i = 0; i < px * bpp; ++i) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (uint8_t)(seed >> 24);
    }

    for (int r = 0; r < repeats; ++r) {
        double t0 = bench_now();
        clc__ref_gray(&src, in, &dst, ref, CLC_GRAY_BT601);
        t[r] = bench_now() - t0;
    }
    const double ref_s = bench_median(t, (size_t)repeats);

    int rc = 0;
    clc_status st = clc_gray(ctx, &src, in, &dst, out, NULL); /* warm-up: builds the kernel */
    for (int r = 0; r < repeats && st == CLC_SUCCESS; ++r) {
        double t0 = bench_now();
        st = clc_gray(ctx, &src, in, &dst, out, NULL);
        t[r] = bench_now() - t0;
    }
    const double h2h_s = bench_median(t, (size_t)repeats);
    if (st == CLC_SUCCESS && memcmp(out, ref, px) != 0) {
        fprintf(stderr, "bench gray: %zux%zu result differs from the reference\n", sz.w, sz.h);
        rc = 1;
    }

    /* Kernel only: device buffers, profiled events. */
    double kernel_s = -1.0;
    cl_int err = CL_SUCCESS;
    cl_context cl = clc_context_cl_context(ctx);
    cl_mem a = st == CLC_SUCCESS
                   ? clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, px * bpp, in, &err)
                   : NULL;
    cl_mem b =
        err == CL_SUCCESS && a ? clCreateBuffer(cl, CL_MEM_WRITE_ONLY, px, NULL, &err) : NULL;
    if (a && b) {
        for (int r = -1; r < repeats && st == CLC_SUCCESS; ++r) {
            cl_event e = NULL;
            st = clc_gray_enqueue(ctx, &src, a, 0, &dst, b, 0, NULL, 0, NULL, &e);
            if (st == CLC_SUCCESS) {
                clWaitForEvents(1, &e);
                if (r >= 0)
                    t[r] = bench_event_seconds(e);
                clReleaseEvent(e);
            }
        }
        kernel_s = st == CLC_SUCCESS ? bench_median(t, (size_t)repeats) : -1.0;
    }
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);

    if (st != CLC_SUCCESS) {
        printf("| %zux%zu | failed: %s |\n", sz.w, sz.h, clc_last_error());
        rc = 1;
    } else {
        const double bytes = (double)px * (double)(bpp + 1);
        printf("| %zux%zu | %.3f | %.1f | %.0f%% | %.3f | %.1f | %.3f | %.1f | %.2fx | %.2fx |\n",
               sz.w, sz.h, kernel_s * 1e3, bytes / kernel_s * 1e-9,
               100.0 * bytes / kernel_s * 1e-9 / copy_gbps, h2h_s * 1e3, bytes / h2h_s * 1e-9,
               ref_s * 1e3, bytes / ref_s * 1e-9, ref_s / kernel_s, ref_s / h2h_s);
    }
    fflush(stdout);
    free(in), free(out), free(ref), free(t);
    return rc;
}

int main(int argc, char **argv)
{
    int repeats = 20;
    clc_pixel_format format = CLC_PIXEL_RGB8;
    bench_size sizes[BENCH_MAX_SIZES];
    size_t nsizes = sizeof default_sizes / sizeof default_sizes[0];
    memcpy(sizes, default_sizes, sizeof default_sizes);
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            ++i;
            format = strcmp(argv[i], "bgra") == 0 ? CLC_PIXEL_BGRA8 : CLC_PIXEL_RGB8;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = bench_parse_sizes(argv[++i], sizes);
        } else {
            fprintf(stderr, "usage: clc_bench_gray [--repeats N] [--format rgb|bgra] "
                            "[--sizes WxH,...]\n");
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;

    double copy_gbps = 0.0;
    clc_context *ctx = bench_open("clc_bench_gray", &copy_gbps);
    if (!ctx)
        return 1;
    printf("format %s -> GRAY8, bytes per pixel counted: %zu; median of %d\n\n",
           format == CLC_PIXEL_RGB8 ? "RGB8" : "BGRA8", clc_pixel_size(format) + 1, repeats);
    printf("| size | kernel ms | kernel GB/s | of copy | host-to-host ms | h2h GB/s | serial C ms "
           "| serial GB/s | kernel vs C | h2h vs C |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = 0;
    for (size_t i = 0; i < nsizes; ++i)
        rc |= run(ctx, sizes[i], format, repeats, copy_gbps);
    clc_context_destroy(ctx);
    return rc;
}
