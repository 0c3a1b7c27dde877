#define _POSIX_C_SOURCE 200809L
/* Experiment (not built by CMake): the GPU reduction's launch shape and loop against each other,
 * f32 sum and argmax of 256 Mi elements on a device buffer, raw OpenCL, event timestamps: stage 1
 * alone and the span from stage 1's start to stage 2's end, medians of REPEATS with the variants
 * interleaved run by run. Variants are builds of cl/reduce.cl patched by reduce_variants.patch
 * (-DTILE=1: each work-group loads tiles of 4 l quads, CUB's striped loads; -DTILE=2: a warp
 * loads 128 quads in a row; -DOLD_SYNC=1: the one launch's count without its dependency on the
 * exchanges), work-groups a compute unit, and one launch instead of two (reduce_onepass: the
 * last work-group to finish combines the partials, which travel through 32-bit atomics).
 * Every result is checked: the sum against a double sum, argmax exactly. From the repository root:
 *   patch -o /tmp/reduce_variants.cl cl/reduce.cl bench/experiments/reduce_variants.patch
 *   cc -O2 -std=c11 -o reduce_shapes bench/experiments/reduce_shapes.c -lOpenCL -lm
 *   ./reduce_shapes /tmp/reduce_variants.cl PLATFORM-SUBSTRING [REPEATS] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

typedef struct variant {
    const char *name, *opts;
    int groups_a_cu, local, onepass;
} variant;

static const variant variants[] = {
    {"one launch, 4 wg/CU, 512", "", 4, 512, 1},
    {"one launch, 2 wg/CU, 1024", "", 2, 1024, 1},
    {"one launch, 2 wg/CU, 512", "", 2, 512, 1},
    {"one launch, 8 wg/CU, 256", "", 8, 256, 1},
    {"one launch, 4 wg/CU, 256", "", 4, 256, 1},
    {"one launch, 1 wg/CU, 512", "", 1, 512, 1},
    {"two launches, 4 wg/CU, 512", "", 4, 512, 0},
    {"one launch, 2 wg/CU, 1024, tiles", "-DTILE=1", 2, 1024, 1},
    {"one launch, 8 wg/CU, 256, tiles", "-DTILE=1", 8, 256, 1},
    {"one launch, 2 wg/CU, 1024, tiles 32-bit", "-DTILE=3", 2, 1024, 1},
    {"one launch, 2 wg/CU, 1024, even share 32-bit", "-DTILE=4", 2, 1024, 1},
    {"one launch, 4 wg/CU, 512, even share 32-bit", "-DTILE=4", 4, 512, 1},
    {"one launch, 8 wg/CU, 256, even share 32-bit", "-DTILE=4", 8, 256, 1},
};
enum { NV = sizeof variants / sizeof variants[0] };

static double ev(cl_event a, cl_event b)
{
    cl_ulong s, e;
    CK(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, 8, &s, NULL));
    CK(clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, 8, &e, NULL));
    return (double)(e - s) * 1e-6;
}

typedef struct bufs {
    cl_mem x, partials, result, sync;
    cl_uint cus;
    cl_ulong n;
} bufs;

/* Enqueues one reduction of variant v: stage 1 (or the one launch) and stage 2; *e1 and *e2
 * (when not NULL) get the first and last command's events. */
static void enqueue(cl_command_queue q, const variant *var, cl_kernel k1, cl_kernel k2,
                    const bufs *b, cl_event *e1, cl_event *e2)
{
    const size_t local = (size_t)var->local;
    const cl_uint groups = (cl_uint)var->groups_a_cu * b->cus;
    const size_t global = groups * local, local2 = 256;
    const cl_ulong off = 0;
    CK(clSetKernelArg(k1, 0, sizeof b->x, &b->x));
    CK(clSetKernelArg(k1, 1, 8, &off));
    CK(clSetKernelArg(k1, 2, 8, &b->n));
    if (var->onepass) {
        CK(clSetKernelArg(k1, 3, sizeof b->sync, &b->sync));
        CK(clSetKernelArg(k1, 4, sizeof b->result, &b->result));
        CK(clSetKernelArg(k1, 5, 16 * local, NULL));
    } else {
        CK(clSetKernelArg(k1, 3, sizeof b->partials, &b->partials));
        CK(clSetKernelArg(k1, 4, 16 * local, NULL));
    }
    CK(clSetKernelArg(k2, 0, sizeof b->partials, &b->partials));
    CK(clSetKernelArg(k2, 1, 4, &groups));
    CK(clSetKernelArg(k2, 2, sizeof b->result, &b->result));
    CK(clSetKernelArg(k2, 3, 16 * local2, NULL));
    CK(clEnqueueNDRangeKernel(q, k1, 1, NULL, &global, &local, 0, NULL, e1));
    if (var->onepass) {
        if (e2) {
            *e2 = *e1;
            CK(clRetainEvent(*e2));
        }
    } else {
        CK(clEnqueueNDRangeKernel(q, k2, 1, NULL, &local2, &local2, 0, NULL, e2));
    }
}

/* One run's 16-byte result, the result buffer poisoned first: a stale result (a one-launch
 * variant whose count was not reset) fails the checks. */
static void run_once(cl_command_queue q, const variant *var, cl_kernel k1, cl_kernel k2,
                     const bufs *b, cl_ulong out[2], double *t1, double *ts)
{
    const cl_uchar ones = 0xff;
    CK(clEnqueueFillBuffer(q, b->result, &ones, 1, 0, 16, 0, NULL, NULL));
    cl_event e1, e2;
    enqueue(q, var, k1, k2, b, &e1, &e2);
    CK(clEnqueueReadBuffer(q, b->result, CL_TRUE, 0, 16, out, 0, NULL, NULL));
    if (t1)
        *t1 = ev(e1, e1);
    if (ts)
        *ts = ev(e1, e2);
    clReleaseEvent(e1);
    clReleaseEvent(e2);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: reduce_shapes FILE.cl PLATFORM [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 3 ? atoi(argv[3]) : 31;
    enum { B2B_ROUNDS = 7 };
    /* SHAPES_B2B and SHAPES_MI make a quick run on a CPU possible */
    const int B2B = getenv("SHAPES_B2B") ? atoi(getenv("SHAPES_B2B")) : 50;
    char *src = read_text(argv[1]);
    cl_device_id d;
    cl_context c;
    cl_command_queue q = profiling_queue(argv[2], &d, &c);
    bufs b = {0};
    CK(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof b.cus, &b.cus, NULL));
    char dname[256], vendor[256];
    CK(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dname, dname, NULL));
    CK(clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL));
    const int nvidia = strstr(vendor, "NVIDIA") != NULL;
    const size_t n = (size_t)(getenv("SHAPES_MI") ? atoi(getenv("SHAPES_MI")) : 256) << 20;
    b.n = n;
    float *h = malloc(n * sizeof *h);
    unsigned s = 3;
    double ref = 0.0;
    size_t best = 0;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        h[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
        ref += h[i];
        if (h[i] > h[best])
            best = i;
    }
    cl_int err;
    b.x = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, h, &err);
    CK(err);
    b.partials = clCreateBuffer(c, CL_MEM_READ_WRITE, 16 * 64 * (size_t)b.cus, NULL, &err);
    CK(err);
    b.result = clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &err);
    CK(err);
    /* one-launch variants: a count and four words a work-group, zero before the first launch */
    const size_t sync_words = 1 + 4 * 64 * (size_t)b.cus;
    cl_uint *zeros = calloc(sync_words, 4);
    b.sync =
        clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * sync_words, zeros, &err);
    CK(err);
    free(zeros);
    printf("%s, %u compute units; %zu Mi float32, median of %d, ms; back to back: %d "
           "reductions enqueued in a row, first start to last end / %d, median of %d\n\n",
           dname, b.cus, n >> 20, repeats, B2B, B2B, B2B_ROUNDS);
    printf("| op | variant | regs | stage 1 | span | GB/s (span) | back to back | GB/s | checked "
           "| inf, NaN |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    static const int kernel_op[3] = {1, 3, 5};
    static const char *const op_name[3] = {"sum", "max", "argmax"};
    /* SHAPES_OPS=sum,argmax: those operations only; SHAPES_VARIANTS=1,9: those variants only
     * (indices in variants[]; the first is the non-finite runs' reference) */
    const char *only = getenv("SHAPES_OPS");
    int use[NV], first = -1;
    for (int v = 0; v < NV; ++v) {
        use[v] = 1;
        const char *list = getenv("SHAPES_VARIANTS");
        if (list) {
            use[v] = 0;
            for (const char *at = list; at && *at;
                 at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL)
                use[v] |= atoi(at) == v;
        }
        if (use[v] && first < 0)
            first = v;
    }
    for (int op = 0; op < 3; ++op) {
        if (only && !strstr(only, op_name[op]))
            continue;
        cl_kernel k1[NV], k2[NV];
        char regs[NV][16];
        for (int v = 0; v < NV; ++v) {
            if (!use[v])
                continue;
            char opts[256];
            /* NVIDIA's own options (cl_nv_compiler_options) only where the vendor is NVIDIA */
            const char *vo = variants[v].opts;
            if (!nvidia && strstr(vo, "-cl-nv-"))
                vo = "";
            snprintf(opts, sizeof opts,
                     "-DS=float -DT=float -DKIND=1 -DMASK=int -DLOAD=0 -DWIDE=0 -DOP=%d -DVW=4 "
                     "-DITEMS=0 -DACC_BYTES=16 %s%s",
                     kernel_op[op], vo, nvidia ? " -cl-nv-verbose" : "");
            cl_program p = built_program(c, d, src, opts);
            k1[v] =
                clCreateKernel(p, variants[v].onepass ? "reduce_onepass" : "reduce_stage1", &err);
            CK(err);
            k2[v] = clCreateKernel(p, "reduce_stage2", &err);
            CK(err);
            /* NVIDIA's log has a "Used N registers" line a kernel, in no documented order: the
             * most of them is what bounds the items a compute unit */
            snprintf(regs[v], sizeof regs[v], "-");
            static char log[1 << 16];
            if (nvidia && clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log,
                                                NULL) == CL_SUCCESS) {
                int most = -1;
                for (const char *at = log; (at = strstr(at, "Used ")) != NULL; at += 5) {
                    const int r = atoi(at + 5);
                    most = r > most ? r : most;
                }
                if (most >= 0)
                    snprintf(regs[v], sizeof regs[v], "%d", most);
                if (v == 0 && op == 0 && getenv("SHAPES_LOG"))
                    fprintf(stderr, "%s\n", log);
            }
            /* SHAPES_PTX=DIR: each build's binary (PTX on NVIDIA) as DIR/<op>_<variant>.ptx */
            if (getenv("SHAPES_PTX")) {
                size_t size = 0;
                if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) ==
                        CL_SUCCESS &&
                    size > 0) {
                    unsigned char *bin = malloc(size);
                    char path[512];
                    snprintf(path, sizeof path, "%s/%s_%d.ptx", getenv("SHAPES_PTX"), op_name[op],
                             v);
                    FILE *f = fopen(path, "wb");
                    if (bin && f &&
                        clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) ==
                            CL_SUCCESS)
                        fwrite(bin, 1, size, f);
                    if (f)
                        fclose(f);
                    free(bin);
                }
            }
            clReleaseProgram(p);
        }
        double *t1 = calloc((size_t)NV * repeats, sizeof *t1);
        double *ts = calloc((size_t)NV * repeats, sizeof *ts);
        double bb[NV][B2B_ROUNDS];
        int bad[NV] = {0};
        for (int r = -2; r < repeats; ++r)
            for (int v = 0; v < NV; ++v) {
                if (!use[v])
                    continue;
                cl_ulong out[2];
                double a1, as;
                run_once(q, &variants[v], k1[v], k2[v], &b, out, &a1, &as);
                if (op == 0) {
                    float f[2];
                    memcpy(f, out, 8);
                    /* the value is the sum less its compensation (clc_reduce_decode); two
                     * units in the last place of the float result */
                    if (fabs(((double)f[0] - f[1]) - ref) > 2.5e-4)
                        bad[v]++;
                } else if (op == 1) {
                    float f;
                    memcpy(&f, out, 4);
                    if (f != h[best])
                        bad[v]++;
                } else if (out[1] != best) {
                    bad[v]++;
                }
                if (r >= 0) {
                    t1[v * repeats + r] = a1;
                    ts[v * repeats + r] = as;
                }
            }
        /* back to back, rounds interleaved across the variants */
        for (int r = 0; r < B2B_ROUNDS; ++r)
            for (int v = 0; v < NV; ++v) {
                if (!use[v])
                    continue;
                cl_event first = NULL, last = NULL;
                for (int k = 0; k < B2B; ++k) {
                    cl_event e1, e2;
                    enqueue(q, &variants[v], k1[v], k2[v], &b, &e1, &e2);
                    if (k == 0)
                        first = e1;
                    else
                        clReleaseEvent(e1);
                    if (last)
                        clReleaseEvent(last);
                    last = e2;
                }
                CK(clFinish(q));
                bb[v][r] = ev(first, last) / B2B;
                clReleaseEvent(first);
                clReleaseEvent(last);
            }
        /* the same bits with an infinity, then a NaN, in the data: the lean variants' second
         * pass; compared with variant 0 (a sum's value, an argmax's index) */
        char nonfinite[NV][16];
        for (int v = 0; v < NV; ++v)
            snprintf(nonfinite[v], sizeof nonfinite[v], "equal");
        const float specials[2] = {INFINITY, NAN};
        const size_t at = n / 3 + 7;
        for (int k = 0; k < 2; ++k) {
            CK(clEnqueueWriteBuffer(q, b.x, CL_TRUE, at * 4, 4, &specials[k], 0, NULL, NULL));
            cl_ulong want[2];
            for (int v = 0; v < NV; ++v) {
                if (!use[v])
                    continue;
                cl_ulong out[2];
                run_once(q, &variants[v], k1[v], k2[v], &b, out, NULL, NULL);
                if (v == first)
                    memcpy(want, out, sizeof want);
                float fo, fw;
                memcpy(&fo, out, 4);
                memcpy(&fw, want, 4);
                const int same = op == 2 ? out[1] == want[1] && out[1] == at
                                         : (isnan(fo) && isnan(fw)) || (isinf(fo) && fo == fw);
                if (!same && !strstr(variants[v].opts, "PLAIN"))
                    snprintf(nonfinite[v], sizeof nonfinite[v], "DIFFER");
            }
            CK(clEnqueueWriteBuffer(q, b.x, CL_TRUE, at * 4, 4, &h[at], 0, NULL, NULL));
        }
        for (int v = 0; v < NV; ++v) {
            if (!use[v])
                continue;
            qsort(t1 + v * repeats, (size_t)repeats, sizeof *t1, cmpd);
            qsort(ts + v * repeats, (size_t)repeats, sizeof *ts, cmpd);
            qsort(bb[v], B2B_ROUNDS, sizeof bb[v][0], cmpd);
            const double m1 = t1[v * repeats + repeats / 2], ms = ts[v * repeats + repeats / 2];
            const double mb = bb[v][B2B_ROUNDS / 2];
            printf("| %s | %s | %s | %.4f | %.4f | %.1f | %.4f | %.1f | %s | %s |\n", op_name[op],
                   variants[v].name, regs[v], m1, ms, n * 4 / ms * 1e-6, mb, n * 4 / mb * 1e-6,
                   strstr(variants[v].opts, "PLAIN") && op == 0 ? "-"
                   : bad[v]                                     ? "WRONG"
                                                                : "equal",
                   strstr(variants[v].opts, "PLAIN") ? "-" : nonfinite[v]);
            clReleaseKernel(k1[v]);
            clReleaseKernel(k2[v]);
        }
        free(t1);
        free(ts);
    }
    printf("\nreference: sum %.6f (double), argmax %zu\n", ref, best);
    return 0;
}
