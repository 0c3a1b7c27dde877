/* Experiment (not built by CMake): A/B of cloud.cl variants in one process on PoCL's CPU
 * device, so that every variant meets the same machine (a shared 2-core VM changes speed from one
 * process to the next). Builds each file, converts one frame with the CPU shape (work-groups of
 * one, 16 tiles of whole rows), the variants interleaved, and prints each one's median write pass
 * (event timestamps) and whether its points and colours equal the first file's. Used for
 * docs/perf/pocl2-session6.md.
 *   cc -O2 -std=c11 -o cloud_ab cloud_ab.c -lOpenCL
 *   ./cloud_ab W H dense|organized COLOUR(0|1) STRIDE F32(0|1) REPEATS FILE.cl... */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timing.h"
static double evms(cl_event e)
{
    cl_ulong s, t;
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &s, NULL);
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &t, NULL);
    return (t - s) * 1e-6;
}
int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: W H dense|organized COLOR STRIDE(1|2) F32(0|1) REPS files...\n");
        return 2;
    }
    cl_uint W = atoi(argv[1]), H = atoi(argv[2]);
    int organized = !strcmp(argv[3], "organized");
    cl_uint has_color = atoi(argv[4]);
    cl_uint stride = atoi(argv[5]);
    int f32 = atoi(argv[6]);
    int reps = atoi(argv[7]);
    int nv = argc - 8;
    cl_device_id d;
    cl_context ctx;
    cl_command_queue q = profiling_queue("Portable", &d, &ctx);
    cl_int err;
    cl_uint sw = (W + stride - 1) / stride, sh = (H + stride - 1) / stride;
    size_t px = (size_t)W * H, spx = (size_t)sw * sh;
    cl_uint items = 16, tile = (sh + items - 1) / items, groups = (sh + tile - 1) / tile;
    size_t bpp = f32 ? 4 : 2;
    void *depth = malloc(px * bpp);
    uint8_t *color = malloc(px * 3);
    uint32_t seed = 7;
    for (size_t i = 0; i < px; i++) {
        seed = seed * 1664525u + 1013904223u;
        size_t u = i % W, v = i / W;
        uint16_t r = (seed >> 24) < 38 ? 0 : (uint16_t)(800 + (u * 7 + v * 3) % 4000);
        if (f32)
            ((float *)depth)[i] = r / 1000.0f;
        else
            ((uint16_t *)depth)[i] = r;
        color[3 * i] = seed;
        color[3 * i + 1] = seed >> 8;
        color[3 * i + 2] = seed >> 16;
    }
    cl_mem dbuf =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, px * bpp, depth, &err);
    CK(err);
    cl_mem cbufin =
        clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, px * 3, color, &err);
    CK(err);
    cl_mem counts = clCreateBuffer(ctx, CL_MEM_READ_WRITE, groups * 4, NULL, &err);
    CK(err);
    cl_mem totals = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
    CK(err);
    cl_mem pts[16], cls[16];
    cl_kernel kc[16], kw[16];
    float inv_scale = (float)(1.0 / 1000.0), trunc = 4.0f, fx = 525, cx = W / 2.0f - 0.5f,
          cy = H / 2.0f - 0.5f, inv_fx = (float)(1.0 / fx), inv_fy = inv_fx;
    cl_uint raw_limit = 4000;
    cl_ulong doff = 0, dpitch = W * bpp, dframe = px * bpp, coff = 0, cpitch = W * 3,
             cframe = px * 3;
    for (int v = 0; v < nv; v++) {
        char *src = read_text(argv[8 + v]);
        cl_program pr = built_program(ctx, d, src, f32 ? "-DDEPTH_F32" : "-DDEPTH_U16");
        kc[v] = clCreateKernel(pr, "cloud_count", &err);
        CK(err);
        kw[v] = clCreateKernel(pr, organized ? "cloud_organized" : "cloud_dense", &err);
        CK(err);
        pts[v] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, spx * 12 + 64, NULL, &err);
        CK(err);
        cls[v] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, spx * 3 + 64, NULL, &err);
        CK(err);
        const void *fa[] = {&dbuf,      &doff,      &dpitch, &dframe, &sw,       &sh, &stride,
                            &inv_scale, &raw_limit, &trunc,  &inv_fx, &inv_fy,   &cx, &cy,
                            &cbufin,    &coff,      &cpitch, &cframe, &has_color};
        size_t fs[] = {sizeof(cl_mem), 8, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                       sizeof(cl_mem), 8, 8, 8, 4};
        for (int k = 0; k < 2; k++) {
            cl_kernel K = k ? kw[v] : kc[v];
            int a = 0;
            for (; a < 19; a++)
                CK(clSetKernelArg(K, a, fs[a], fa[a]));
            if (!k) {
                cl_uint nargs = 0;
                const cl_uint one = 1;
                CK(clGetKernelInfo(K, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
                CK(clSetKernelArg(K, a++, sizeof counts, &counts));
                CK(clSetKernelArg(K, a++, 4, &tile));
                if (nargs == 24) { /* tiles a frame, tiles a work-group (since 2026-12-05) */
                    CK(clSetKernelArg(K, a++, 4, &groups));
                    CK(clSetKernelArg(K, a++, 4, &one));
                }
                CK(clSetKernelArg(K, a++, 16, NULL));
            } else if (!organized) {
                CK(clSetKernelArg(K, a++, sizeof counts, &counts));
                CK(clSetKernelArg(K, a++, sizeof totals, &totals));
                CK(clSetKernelArg(K, a++, sizeof(cl_mem), &pts[v]));
                CK(clSetKernelArg(K, a++, sizeof(cl_mem), &cls[v]));
                CK(clSetKernelArg(K, a++, 4, &tile));
                CK(clSetKernelArg(K, a++, 16, NULL));
            } else {
                CK(clSetKernelArg(K, a++, sizeof(cl_mem), &pts[v]));
                CK(clSetKernelArg(K, a++, sizeof(cl_mem), &cls[v]));
                CK(clSetKernelArg(K, a++, 4, &sw));
                CK(clSetKernelArg(K, a++, 4, &tile));
            }
        }
    }
    double *t = malloc(sizeof(double) * nv * reps);
    size_t g2[2] = {groups, 1}, l2[2] = {1, 1}, g3[3] = {1, groups, 1}, l3[3] = {1, 1, 1};
    for (int r = -2; r < reps; r++)
        for (int v = 0; v < nv; v++) {
            cl_event e1, e2;
            if (!organized) {
                CK(clEnqueueNDRangeKernel(q, kc[v], 2, NULL, g2, l2, 0, NULL, &e1));
                CK(clEnqueueNDRangeKernel(q, kw[v], 2, NULL, g2, l2, 0, NULL, &e2));
            } else {
                CK(clEnqueueNDRangeKernel(q, kw[v], 3, NULL, g3, l3, 0, NULL, &e2));
                e1 = e2;
                clRetainEvent(e1);
            }
            CK(clFinish(q));
            if (r >= 0)
                t[v * reps + r] = evms(e2);
            clReleaseEvent(e1);
            clReleaseEvent(e2);
        }
    cl_uint total = 0;
    if (!organized)
        CK(clEnqueueReadBuffer(q, totals, CL_TRUE, 0, 4, &total, 0, NULL, NULL));
    else
        total = spx;
    float *p0 = malloc(spx * 12), *pv = malloc(spx * 12);
    uint8_t *c0 = malloc(spx * 3), *cv = malloc(spx * 3);
    CK(clEnqueueReadBuffer(q, pts[0], CL_TRUE, 0, total * 12, p0, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(q, cls[0], CL_TRUE, 0, total * 3, c0, 0, NULL, NULL));
    for (int v = 0; v < nv; v++) {
        qsort(t + v * reps, reps, 8, cmpd);
        CK(clEnqueueReadBuffer(q, pts[v], CL_TRUE, 0, total * 12, pv, 0, NULL, NULL));
        CK(clEnqueueReadBuffer(q, cls[v], CL_TRUE, 0, total * 3, cv, 0, NULL, NULL));
        int same = !memcmp(p0, pv, total * 12) && (!has_color || !memcmp(c0, cv, total * 3));
        printf("%-28s %s %ux%u colour %u stride %u %s: write pass median %.4f ms (p25 %.4f)  %s\n",
               argv[8 + v], organized ? "organized" : "dense", W, H, has_color, stride,
               f32 ? "f32" : "u16", t[v * reps + reps / 2], t[v * reps + reps / 4],
               same ? "same as first" : "DIFFERS from first");
    }
    return 0;
}
