/* Experiment (not built by CMake): where the fixed cost of a small host-memory gray call goes on
 * PoCL's CPU device. One process alternates, call by call: clc_gray itself; the same steps in raw
 * OpenCL (two CL_MEM_USE_HOST_PTR buffers, arguments, launch, non-blocking map and unmap of the
 * output, one clFinish) with a new kernel a call and with one kernel kept; buffers kept too, with
 * and without the map; the serial loop; a read of the output into its own host memory instead of
 * the map; a blocking map. Each result is checked. Prints medians and quartiles in microseconds.
 * Used for docs/perf/pocl2-session7.md.
 *   cc -O3 -march=native -std=c11 -I include -I build/include -o gray_call gray_call.c \
 *      -L build -lclcompute -lOpenCL -Wl,-rpath,$PWD/build
 *   POCL_AFFINITY=1 ./gray_call   (run from the repository root: it reads cl/gray.cl) */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"
#include <clcompute/clcompute.h>
#include <stdint.h>
enum { W = 640, H = 480, N = 1501, K = 8 };
static double t[K][N];
static void serial(const unsigned char *s, unsigned char *d)
{
    for (int i = 0; i < W * H; ++i) {
        const unsigned r = s[3 * i], g = s[3 * i + 1], b = s[3 * i + 2];
        d[i] = (unsigned char)((r * 9798u + g * 19235u + b * 3735u + 16384u) >> 15);
    }
}
int main(void)
{
    unsigned char *src = aligned_alloc(64, W * H * 3), *dst = aligned_alloc(64, W * H),
                  *ref = malloc(W * H);
    for (int i = 0; i < W * H * 3; ++i)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    serial(src, ref);
    clc_context *cc = NULL;
    clc_context_options o = {0};
    if (clc_context_create(&o, &cc)) {
        fprintf(stderr, "ctx\n");
        return 1;
    }
    cl_device_id d;
    cl_context ctx;
    cl_command_queue q = profiling_queue("Portable", &d, &ctx);
    char *srcs = read_text("cl/gray.cl");
    cl_int err;
    cl_program p = built_program(ctx, d, srcs, "-DCHANNELS=3");
    cl_kernel kk = clCreateKernel(p, "gray_u8", &err);
    CK(err);
    clc_image_desc sd = {CLC_PIXEL_RGB8, W, H, 0}, dd = {CLC_PIXEL_GRAY8, W, H, 0};
    cl_uint w = W, h = H, w0 = 9798, w1 = 19235, w2 = 3735, path = 1, bpi = (W + 15) / 16,
            rpi = (H + 15) / 16;
    cl_ulong z = 0, sp = W * 3, dp = W;
    size_t gl[2] = {1, (H + rpi - 1) / rpi}, lo[2] = {1, 1};
    cl_mem ps = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, W * H * 3, src, &err);
    cl_mem pd = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, W * H, dst, &err);
#define ARGS(k, a, b)                                                                              \
    do {                                                                                           \
        clSetKernelArg(k, 0, sizeof(cl_mem), &a);                                                  \
        clSetKernelArg(k, 1, 8, &z);                                                               \
        clSetKernelArg(k, 2, 8, &sp);                                                              \
        clSetKernelArg(k, 3, sizeof(cl_mem), &b);                                                  \
        clSetKernelArg(k, 4, 8, &z);                                                               \
        clSetKernelArg(k, 5, 8, &dp);                                                              \
        clSetKernelArg(k, 6, 4, &w);                                                               \
        clSetKernelArg(k, 7, 4, &h);                                                               \
        clSetKernelArg(k, 8, 4, &w0);                                                              \
        clSetKernelArg(k, 9, 4, &w1);                                                              \
        clSetKernelArg(k, 10, 4, &w2);                                                             \
        clSetKernelArg(k, 11, 4, &path);                                                           \
        clSetKernelArg(k, 12, 4, &bpi);                                                            \
        clSetKernelArg(k, 13, 4, &rpi);                                                            \
    } while (0)
    const char *names[K] = {"clc_gray",
                            "raw full (new kernel)",
                            "raw full (kept kernel)",
                            "raw kept bufs map+finish",
                            "raw kept bufs finish only",
                            "serial",
                            "kept kernel, read into self",
                            "kept kernel, blocking map"};
    for (int it = -50; it < N; ++it) {
        for (int v = 0; v < K; ++v) {
            memset(dst, 0, W * H);
            double t0 = now();
            if (v == 0) {
                if (clc_gray(cc, &sd, src, &dd, dst, NULL))
                    return 1;
            } else if (v == 1 || v == 2 || v == 6 || v == 7) {
                /* Fresh buffers a call; the output made visible by a non-blocking map (1, 2), a
                 * read into its own memory (6) or a blocking map (7). */
                cl_kernel k = v == 1 ? clCreateKernel(p, "gray_u8", &err) : kk;
                cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, W * H * 3,
                                          src, &err);
                cl_mem b =
                    clCreateBuffer(ctx, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, W * H, dst, &err);
                ARGS(k, a, b);
                CK(clEnqueueNDRangeKernel(q, k, 2, NULL, gl, lo, 0, NULL, NULL));
                if (v == 6) {
                    CK(clEnqueueReadBuffer(q, b, CL_FALSE, 0, W * H, dst, 0, NULL, NULL));
                } else {
                    void *m = clEnqueueMapBuffer(q, b, v == 7 ? CL_TRUE : CL_FALSE, CL_MAP_READ, 0,
                                                 W * H, 0, NULL, NULL, &err);
                    clEnqueueUnmapMemObject(q, b, m, 0, NULL, NULL);
                }
                CK(clFinish(q));
                clReleaseMemObject(a);
                clReleaseMemObject(b);
                if (v == 1)
                    clReleaseKernel(k);
            } else if (v == 3 || v == 4) {
                ARGS(kk, ps, pd);
                CK(clEnqueueNDRangeKernel(q, kk, 2, NULL, gl, lo, 0, NULL, NULL));
                if (v == 3) {
                    void *m = clEnqueueMapBuffer(q, pd, CL_FALSE, CL_MAP_READ, 0, W * H, 0, NULL,
                                                 NULL, &err);
                    clEnqueueUnmapMemObject(q, pd, m, 0, NULL, NULL);
                }
                CK(clFinish(q));
            } else
                serial(src, dst);
            double t1 = now();
            if (memcmp(dst, ref, W * H)) {
                fprintf(stderr, "mismatch %d\n", v);
                return 1;
            }
            if (it >= 0)
                t[v][it] = (t1 - t0) * 1e6;
        }
    }
    for (int v = 0; v < K; ++v) {
        qsort(t[v], N, sizeof(double), cmpd);
        printf("%-28s median %6.1f us  p25 %6.1f  p75 %6.1f\n", names[v], t[v][N / 2], t[v][N / 4],
               t[v][3 * N / 4]);
    }
    return 0;
}
