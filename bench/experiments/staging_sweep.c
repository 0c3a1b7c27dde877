#define _POSIX_C_SOURCE 200809L
/* Experiment (not built by CMake): host-to-host time of staged transfers against the staging
 * chunk and the copier's thread count (CLCOMPUTE_STAGING_CHUNK, CLCOMPUTE_STAGING_THREADS, read
 * when a context is made, so one context per setting). Rows: f32 sum of 1 GiB and of 64 MiB
 * from ordinary memory (upload only), 7680x4320 RGB gray (upload 100 MB, read back 33 MB); and
 * what one 1 GiB device buffer costs to create, touch and release (the buffer pool keeps at most
 * 512 MiB). Best and median of REPS after two warm-ups, settings taking turns round after round.
 * A chunk of 0 is the library's own timed choice (from an empty cache in the first round).
 *   cc -O2 -std=c11 -Iinclude -IBUILD/generated -o staging_sweep staging_sweep.c -LBUILD \
 *      -lclcompute -lOpenCL -Wl,-rpath,BUILD
 *   CLCOMPUTE_DEVICE=nvidia ./staging_sweep ROUNDS REPS "4 8 16 32" "4 8 16" */
#define CL_TARGET_OPENCL_VERSION 120
#include <clcompute/clcompute.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

enum { JOBS = 3, MAXSET = 64 };
static const char *job_name[JOBS] = {"sum 1 GiB", "sum 64 MiB", "gray 8K"};

static int run_job(clc_context *ctx, int job, float *f, unsigned char *rgb, unsigned char *gray)
{
    clc_reduce_result r;
    if (job == 0)
        return clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, f, (size_t)256 << 20, &r);
    if (job == 1)
        return clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, f, (size_t)16 << 20, &r);
    clc_image_desc s = {CLC_PIXEL_RGB8, 7680, 4320, 7680 * 3};
    clc_image_desc d = {CLC_PIXEL_GRAY8, 7680, 4320, 7680};
    return clc_gray(ctx, &s, rgb, &d, gray, NULL);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 3, reps = argc > 2 ? atoi(argv[2]) : 5;
    const char *chunks = argc > 3 ? argv[3] : "4 8 16 32";
    const char *threads = argc > 4 ? argv[4] : "4 8 16";
    int cs[16], tl[16], nc = 0, nt = 0, cl[MAXSET], th[MAXSET], sets = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", chunks);
    for (char *c = strtok(buf, " "); c && nc < 16; c = strtok(NULL, " "))
        cs[nc++] = atoi(c);
    snprintf(buf, sizeof buf, "%s", threads);
    for (char *c = strtok(buf, " "); c && nt < 16; c = strtok(NULL, " "))
        tl[nt++] = atoi(c);
    for (int i = 0; i < nc; ++i) /* the cross product, chunk-major */
        for (int j = 0; j < nt && sets < MAXSET; ++j)
            cl[sets] = cs[i], th[sets] = tl[j], ++sets;

    const size_t n = (size_t)256 << 20;
    float *f = malloc(n * 4);
    unsigned char *rgb = malloc((size_t)7680 * 4320 * 3), *gray = malloc((size_t)7680 * 4320);
    for (size_t i = 0; i < n; ++i)
        f[i] = (float)(i & 1023);
    for (size_t i = 0; i < (size_t)7680 * 4320 * 3; ++i)
        rgb[i] = (unsigned char)(i * 7);
    memset(gray, 0, (size_t)7680 * 4320);

    double *t = calloc((size_t)sets * JOBS * rounds * reps, sizeof *t);
    char fresh[64] = "";
    for (int r = 0; r < rounds; ++r) {
        for (int s = 0; s < sets; ++s) {
            if (cl[s] > 0) {
                snprintf(buf, sizeof buf, "%d", cl[s] << 20);
                setenv("CLCOMPUTE_STAGING_CHUNK", buf, 1);
                snprintf(buf, sizeof buf, "%d", th[s]);
                setenv("CLCOMPUTE_STAGING_THREADS", buf, 1);
            } else { /* timed by the library, from an empty cache in the first round */
                unsetenv("CLCOMPUTE_STAGING_CHUNK");
                unsetenv("CLCOMPUTE_STAGING_THREADS");
                if (r == 0) {
                    snprintf(fresh, sizeof fresh, "/tmp/staging-sweep-XXXXXX");
                    if (mkdtemp(fresh))
                        setenv("CLCOMPUTE_CACHE_DIR", fresh, 1);
                }
            }
            clc_context *ctx;
            if (clc_context_create(NULL, &ctx)) {
                fprintf(stderr, "%s\n", clc_last_error());
                return 1;
            }
            for (int j = 0; j < JOBS; ++j) {
                for (int w = 0; w < 2; ++w) {
                    const double t0 = now();
                    if (run_job(ctx, j, f, rgb, gray)) {
                        fprintf(stderr, "%s\n", clc_last_error());
                        return 1;
                    }
                    if (cl[s] == 0 && j == 0 && w == 0)
                        printf("round %d, timed staging: first 1 GiB sum of a new context %.1f ms "
                               "(%s cache)\n",
                               r, (now() - t0) * 1e3, r == 0 ? "empty" : "filled");
                }
                for (int k = 0; k < reps; ++k) {
                    const double t0 = now();
                    run_job(ctx, j, f, rgb, gray);
                    t[(((size_t)s * JOBS + j) * rounds + r) * reps + k] = (now() - t0) * 1e3;
                }
            }
            clc_context_destroy(ctx);
        }
    }
    printf("| chunk MiB | threads | %s best / median ms | %s | %s |\n| --- | --- | --- | --- | --- "
           "|\n",
           job_name[0], job_name[1], job_name[2]);
    for (int s = 0; s < sets; ++s) {
        printf("| %d | %d |", cl[s], th[s]);
        for (int j = 0; j < JOBS; ++j) {
            double *v = t + ((size_t)s * JOBS + j) * rounds * reps;
            qsort(v, (size_t)rounds * reps, sizeof *v, cmpd);
            printf(" %.2f / %.2f |", v[0], v[rounds * reps / 2]);
        }
        printf("\n");
    }

    /* A 1 GiB device buffer: create, first write, release (what a call above the pool pays). */
    clc_context *ctx;
    clc_context_create(NULL, &ctx);
    cl_context c = clc_context_cl_context(ctx);
    cl_command_queue q = clc_context_cl_queue(ctx);
    double a[9];
    for (int k = 0; k < 9; ++k) {
        const double t0 = now();
        cl_int err;
        cl_mem m = clCreateBuffer(c, CL_MEM_READ_ONLY, n * 4, NULL, &err);
        clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4096, f, 0, NULL, NULL);
        clReleaseMemObject(m);
        clFinish(q);
        a[k] = (now() - t0) * 1e3;
    }
    qsort(a, 9, sizeof *a, cmpd);
    printf("\n1 GiB device buffer create + 4 KiB write + release: best %.2f, median %.2f ms\n",
           a[0], a[4]);
    clc_context_destroy(ctx);
    if (fresh[0]) { /* the timed set's fresh cache directory, of no use after the run */
        char cmd[96];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", fresh);
    }
    return 0;
}
