#define _POSIX_C_SOURCE 200809L
/* Experiment (not built by CMake): times cloud_count and cloud_dense (or cloud_onepass) of a
 * cloud.cl variant alone, with event timestamps, and checks every point against a serial
 * reference. Used for docs/perf/h200-cloud-tiles.md, h200-cloud-onepass.md and h200-session4.md.
 *   cc -O2 -std=c11 -o cloud_passes cloud_passes.c -lOpenCL -lm
 *   ./cloud_passes FILE.cl PLATFORM-SUBSTRING W H FRAMES LOCAL TILE-ROWS REPEATS GROUPS [one]
 * "one": the one-pass kernel instead of the two passes; OPTS in the environment adds build
 * options to -DDEPTH_U16; PER=N (a power of two dividing LOCAL) gives the count's work-groups N
 * tiles each, where the count takes that argument (cl/cloud.cl since 2026-12-05); BUSY=1 in the
 * environment also prints where the passes fall behind a busy 256 MiB copy (times relative to its
 * end). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
static double ev_ms(cl_event a, cl_event b)
{
    cl_ulong s, e;
    CK(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, 8, &s, NULL));
    CK(clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, 8, &e, NULL));
    return (e - s) * 1e-6;
}
/* The kernels' frame arguments (FRAME_PARAMS of cl/cloud.cl), in order. */
typedef struct frame_args {
    cl_mem depth;
    cl_ulong doff, dpitch, dframe;
    cl_uint sw, sh, stride;
    float inv_scale;
    cl_uint raw_limit;
    float trunc, inv_fx, inv_fy, cx, cy;
    cl_ulong coff, cpitch, cframe;
    cl_uint has_color;
} frame_args;

/* Sets them from argument 0 on; returns the next argument's index. */
static int set_frame(cl_kernel k, const frame_args *f)
{
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof f->depth, &f->depth},
                {8, &f->doff},
                {8, &f->dpitch},
                {8, &f->dframe},
                {4, &f->sw},
                {4, &f->sh},
                {4, &f->stride},
                {4, &f->inv_scale},
                {4, &f->raw_limit},
                {4, &f->trunc},
                {4, &f->inv_fx},
                {4, &f->inv_fy},
                {4, &f->cx},
                {4, &f->cy},
                {sizeof f->depth, &f->depth},
                {8, &f->coff},
                {8, &f->cpitch},
                {8, &f->cframe},
                {4, &f->has_color}};
    int a = 0;
    for (; a < (int)(sizeof args / sizeof *args); ++a)
        CK(clSetKernelArg(k, (cl_uint)a, args[a].size, args[a].value));
    return a;
}

int main(int argc, char **argv)
{
    if (argc < 10) {
        fprintf(stderr, "usage: file platform w h frames local tile reps groups\n");
        return 2;
    }
    const char *file = argv[1], *plat = argv[2];
    cl_uint sw = atoi(argv[3]), sh = atoi(argv[4]), frames = atoi(argv[5]);
    size_t local = atoi(argv[6]);
    cl_uint tile = atoi(argv[7]);
    int reps = atoi(argv[8]);
    cl_uint groups = atoi(argv[9]);
    char *src = read_text(file);
    cl_device_id d;
    cl_context ctx;
    cl_command_queue q = profiling_queue(plat, &d, &ctx);
    cl_int err;
    char opts[512];
    snprintf(opts, sizeof opts, "-DDEPTH_U16 %s", getenv("OPTS") ? getenv("OPTS") : "");
    cl_program prog = built_program(ctx, d, src, opts);
    int onepass = 0;
    cl_kernel kc = clCreateKernel(prog, "cloud_count", &err);
    CK(err);
    cl_kernel kd = clCreateKernel(prog, "cloud_dense", &err);
    CK(err);
    size_t px = (size_t)sw * sh * frames, fpx = (size_t)sw * sh;
    uint16_t *depth = malloc(px * 2);
    uint32_t seed = 7;
    for (size_t i = 0; i < px; ++i) {
        seed = seed * 1664525u + 1013904223u;
        size_t u = i % sw, v = i / sw % sh;
        depth[i] = (seed >> 24) < 38 ? 0 : (uint16_t)(800 + (u * 7 + v * 3 + i / fpx) % 4000);
    }
    float inv_scale = (float)(1.0 / 1000.0), trunc = 4.0f, fx = 525, cx = sw / 2.0f - 0.5f,
          cy = sh / 2.0f - 0.5f;
    float inv_fx = (float)(1.0 / fx), inv_fy = inv_fx;
    cl_uint raw_limit = 4000, stride = 1, has_color = 0;
    cl_ulong doff = 0, dpitch = sw * 2, dframe = fpx * 2, coff = 0, cpitch = 0, cframe = 0;
    cl_mem dbuf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, px * 2, depth, &err);
    CK(err);
    const frame_args fa = {dbuf,  doff,   dpitch, dframe, sw, sh,   stride, inv_scale, raw_limit,
                           trunc, inv_fx, inv_fy, cx,     cy, coff, cpitch, cframe,    has_color};
    cl_mem pbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, px * 12, NULL, &err);
    CK(err);
    cl_mem cbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)groups * frames * 4, NULL, &err);
    CK(err);
    cl_mem tbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, frames * 4, NULL, &err);
    CK(err);
    cl_uint count_args = 0, per = getenv("PER") ? (cl_uint)atoi(getenv("PER")) : 1;
    CK(clGetKernelInfo(kc, CL_KERNEL_NUM_ARGS, sizeof count_args, &count_args, NULL));
    const int count_per = count_args == 24; /* tiles and per after tile_rows */
    if (!count_per)
        per = 1;
    cl_kernel ks[2] = {kc, kd};
    for (int w = 0; w < 2; ++w) {
        cl_kernel k = ks[w];
        int a = 0;
        a = set_frame(k, &fa);
        CK(clSetKernelArg(k, a++, sizeof cbuf, &cbuf));
        if (w == 1) {
            CK(clSetKernelArg(k, a++, sizeof tbuf, &tbuf));
            CK(clSetKernelArg(k, a++, sizeof pbuf, &pbuf));
            CK(clSetKernelArg(k, a++, sizeof pbuf, &pbuf));
        }
        CK(clSetKernelArg(k, a++, 4, &tile));
        if (w == 0 && count_per) {
            CK(clSetKernelArg(k, a++, 4, &groups));
            CK(clSetKernelArg(k, a++, 4, &per));
        }
        CK(clSetKernelArg(k, a++, local * 16, NULL));
    }
    size_t global[2] = {groups * local, frames}, loc[2] = {local, 1};
    size_t cglobal[2] = {(groups + per - 1) / per * local, frames};
    if (argc > 10) { /* one pass */
        cl_kernel k1 = clCreateKernel(prog, "cloud_onepass", &err);
        CK(err);
        cl_mem sync =
            clCreateBuffer(ctx, CL_MEM_READ_WRITE, (2 + (size_t)groups * frames) * 4, NULL, &err);
        CK(err);
        cl_uint zero = 0;
        CK(clEnqueueFillBuffer(q, sync, &zero, 4, 0, (2 + (size_t)groups * frames) * 4, 0, NULL,
                               NULL));
        int a = 0;
        cl_kernel k = k1;
        a = set_frame(k, &fa);
        CK(clSetKernelArg(k, a++, sizeof sync, &sync));
        CK(clSetKernelArg(k, a++, sizeof tbuf, &tbuf));
        CK(clSetKernelArg(k, a++, sizeof pbuf, &pbuf));
        CK(clSetKernelArg(k, a++, sizeof pbuf, &pbuf));
        CK(clSetKernelArg(k, a++, 4, &tile));
        CK(clSetKernelArg(k, a++, 4, &groups));
        CK(clSetKernelArg(k, a++, local * 16, NULL));
        kc = kd = k1;
        global[0] = (size_t)groups * frames * local;
        global[1] = 1;
        onepass = 1;
    }
    double *tc = malloc(reps * 8), *td = malloc(reps * 8), *ts = malloc(reps * 8);
    for (int r = -2; r < reps; ++r) {
        cl_event e1, e2;
        CK(clEnqueueNDRangeKernel(q, kc, 2, NULL, onepass ? global : cglobal, loc, 0, NULL, &e1));
        if (onepass) {
            e2 = e1;
            clRetainEvent(e1);
        } else
            CK(clEnqueueNDRangeKernel(q, kd, 2, NULL, global, loc, 0, NULL, &e2));
        CK(clFinish(q));
        if (r >= 0) {
            tc[r] = ev_ms(e1, e1);
            td[r] = ev_ms(e2, e2);
            ts[r] = ev_ms(e1, e2);
        }
        clReleaseEvent(e1);
        clReleaseEvent(e2);
    }
    if (getenv("BUSY")) { /* a busy copy first, as the bench does: where do the passes fall? */
        size_t bb = (size_t)256 << 20;
        cl_mem b0 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bb, NULL, &err);
        CK(err);
        cl_mem b1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bb, NULL, &err);
        CK(err);
        for (int r = 0; r < 5; ++r) {
            cl_event ec, e1, e2;
            cl_ulong ce, s1, x1, s2, x2;
            CK(clEnqueueCopyBuffer(q, b0, b1, 0, 0, bb, 0, NULL, &ec));
            CK(clEnqueueNDRangeKernel(q, kc, 2, NULL, onepass ? global : cglobal, loc, 0, NULL,
                                      &e1));
            if (onepass) {
                e2 = e1;
                clRetainEvent(e1);
            } else
                CK(clEnqueueNDRangeKernel(q, kd, 2, NULL, global, loc, 0, NULL, &e2));
            CK(clFinish(q));
            clGetEventProfilingInfo(ec, CL_PROFILING_COMMAND_END, 8, &ce, NULL);
            clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_START, 8, &s1, NULL);
            clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_END, 8, &x1, NULL);
            clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_START, 8, &s2, NULL);
            clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_END, 8, &x2, NULL);
            printf("busy: relative to the copy's end (us): first start %+.1f end %+.1f, last start "
                   "%+.1f end %+.1f\n",
                   ((double)s1 - ce) * 1e-3, ((double)x1 - ce) * 1e-3, ((double)s2 - ce) * 1e-3,
                   ((double)x2 - ce) * 1e-3);
            clReleaseEvent(ec);
            clReleaseEvent(e1);
            clReleaseEvent(e2);
        }
    }
    /* Back to back: many conversions queued, wall per conversion from first start to last end. */
    cl_event first = 0, last = 0;
    for (int r = 0; r < 50; ++r) {
        cl_event e1, e2;
        CK(clEnqueueNDRangeKernel(q, kc, 2, NULL, onepass ? global : cglobal, loc, 0, NULL, &e1));
        if (onepass) {
            e2 = e1;
            clRetainEvent(e1);
        } else
            CK(clEnqueueNDRangeKernel(q, kd, 2, NULL, global, loc, 0, NULL, &e2));
        if (r == 0)
            first = e1;
        else
            clReleaseEvent(e1);
        if (r == 49)
            last = e2;
        else
            clReleaseEvent(e2);
    }
    CK(clFinish(q));
    double b2b = ev_ms(first, last) / 50;
    qsort(tc, reps, 8, cmpd);
    qsort(td, reps, 8, cmpd);
    qsort(ts, reps, 8, cmpd);
    /* Check against a serial reference. */
    float *pts = malloc(px * 12);
    cl_uint *tot = malloc(frames * 4);
    CK(clEnqueueReadBuffer(q, pbuf, CL_TRUE, 0, px * 12, pts, 0, NULL, NULL));
    CK(clEnqueueReadBuffer(q, tbuf, CL_TRUE, 0, frames * 4, tot, 0, NULL, NULL));
    size_t bad = 0, badcount = 0, total = 0;
    for (size_t f = 0; f < frames; ++f) {
        size_t at = 0;
        for (size_t j = 0; j < sh; ++j)
            for (size_t k = 0; k < sw; ++k) {
                uint16_t raw = depth[f * fpx + j * sw + k];
                if (raw == 0 || raw >= raw_limit)
                    continue;
                float z = (float)raw * inv_scale;
                float x = ((float)k - cx) * z * inv_fx, y = ((float)j - cy) * z * inv_fy;
                const float *o = pts + 3 * (f * fpx + at);
                if (memcmp(&o[0], &x, 4) || memcmp(&o[1], &y, 4) || memcmp(&o[2], &z, 4))
                    bad++;
                at++;
            }
        if (tot[f] != at)
            badcount++;
        total += at;
    }
    double bytes = 2.0 * px + 12.0 * total;
    printf("%s [%s] %ux%u x%u local %zu tile %u groups %u per %u: count %.4f dense %.4f span %.4f "
           "ms (%.0f "
           "GB/s, %.0f frames/s); back-to-back %.4f ms (%.0f GB/s, %.0f frames/s); wrong points "
           "%zu, wrong totals %zu\n",
           file, opts, sw, sh, frames, local, tile, groups, per, tc[reps / 2], td[reps / 2],
           ts[reps / 2], bytes / ts[reps / 2] * 1e-6, frames / ts[reps / 2] * 1e3, b2b,
           bytes / b2b * 1e-6, frames / b2b * 1e3, bad, badcount);
    return bad || badcount;
}
