/* clcompute bench: the selected device's copy bandwidth, then every kernel at several sizes against
 * it and against the serial C reference; a Markdown table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clcompute/clcompute.h>

#include "../bench/suite.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clcompute bench [--kernels gray,cloud,reduce] [--quick] [--repeats N]\n"
            "           [--json] [--device SEL]\n"
            "\n"
            "Measures the device's copy bandwidth (float4 copy kernel; 256 MiB buffers, 64 MiB\n"
            "with --quick), the first call of each kernel with a cold and a warm program cache,\n"
            "then each kernel and size: device time (event timestamps), host-to-host time, GB/s,\n"
            "percent of copy bandwidth and speed-up over the serial C reference, whose result\n"
            "each run must match. Medians of N runs (default 11; 3 with --quick) after a\n"
            "warm-up. On CPUs, sizes that fit the caches can pass 100%% of copy bandwidth, which\n"
            "is measured on buffers that do not. Exit status 1 when a row failed.\n"
            "  --kernels LIST  which kernels (default all three)\n"
            "  --quick         small sizes only\n"
            "  --repeats N     runs a measurement (1 to 1000)\n"
            "  --json          JSON instead of a Markdown table\n"
            "  --device SEL    the device (clcompute devices --help)\n"
            "  -h, --help      this text\n");
}

typedef struct first_call {
    const char *kernel;
    double cold_ms, warm_ms;
    char error[200];
} first_call;

/* The bus between host and device, both ways, from pinned (clc_host_alloc) and from pageable
 * (malloc) memory, GB/s; all 0 for a device that shares host memory (no bus to cross). */
typedef struct bus {
    double pinned_up, pinned_down, pageable_up, pageable_down;
} bus;

typedef struct report {
    const clc_device_info *device;
    double copy_gbps;
    size_t copy_bytes;
    bus pcie;
    int repeats;
    first_call first[3];
    size_t nfirst;
    bench_row *rows;
    size_t nrows;
} report;

static const char *const kernel_names[] = {"gray", "cloud", "reduce"};

/* Best of five blocking transfers of `bytes` between host memory `host` and a device buffer. */
static double transfer_gbps(clc_context *ctx, cl_mem buffer, void *host, size_t bytes, int down)
{
    cl_command_queue q = clc_context_cl_queue(ctx);
    double best = 0;
    for (int r = 0; r < 6; ++r) {
        const double t0 = bench_now();
        const cl_int err =
            down ? clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                 : clEnqueueWriteBuffer(q, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        const double t = bench_now() - t0;
        if (err != CL_SUCCESS)
            return 0;
        if (r > 0 && (best == 0 || bytes / t * 1e-9 > best)) /* run 0 warms up */
            best = bytes / t * 1e-9;
    }
    return best;
}

static void measure_bus(clc_context *ctx, size_t bytes, bus *b)
{
    memset(b, 0, sizeof *b);
    if (clc_context_device(ctx)->unified_memory)
        return;
    cl_int err = CL_SUCCESS;
    cl_mem buffer =
        clCreateBuffer(clc_context_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL, &err);
    void *pinned = NULL, *pageable = malloc(bytes);
    if (err == CL_SUCCESS && pageable && clc_host_alloc(ctx, bytes, &pinned) == CLC_SUCCESS) {
        memset(pageable, 1, bytes); /* pages that exist */
        memset(pinned, 1, bytes);
        b->pinned_up = transfer_gbps(ctx, buffer, pinned, bytes, 0);
        b->pinned_down = transfer_gbps(ctx, buffer, pinned, bytes, 1);
        b->pageable_up = transfer_gbps(ctx, buffer, pageable, bytes, 0);
        b->pageable_down = transfer_gbps(ctx, buffer, pageable, bytes, 1);
    }
    clc_host_free(ctx, pinned);
    free(pageable);
    if (err == CL_SUCCESS)
        clReleaseMemObject(buffer);
}

/* Parses "gray,reduce" into flags; 0 on an unknown name. */
static int parse_kernels(const char *text, int *want)
{
    for (int k = 0; k < 3; ++k)
        want[k] = 0;
    for (const char *p = text;;) {
        const size_t len = strcspn(p, ",");
        int found = 0;
        for (int k = 0; k < 3; ++k)
            if (len == strlen(kernel_names[k]) && strncmp(p, kernel_names[k], len) == 0)
                want[k] = found = 1;
        if (!found) {
            cli_error("unknown kernel '%.*s' in --kernels '%s' (gray, cloud, reduce)", (int)len, p,
                      text);
            return 0;
        }
        if (!p[len])
            return 1;
        p += len + 1;
    }
}

/* Runs every case of the selected kernels; returns the number of rows written to rows. */
static size_t run_cases(clc_context *ctx, const bench_config *config, const int *want, int quick,
                        bench_row *rows, size_t capacity, int *failed)
{
    static const size_t gray_full[][2] = {{640, 480}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    static const size_t cloud_full[][2] = {{640, 480}, {1280, 720}, {1920, 1080}, {7680, 4320}};
    static const size_t quick_sizes[][2] = {{640, 480}, {1920, 1080}};
    static const size_t reduce_full[] = {1, 16, 64, 256}, reduce_quick[] = {1};
    static const struct {
        clc_reduce_op op;
        clc_dtype type;
    } reductions[] = {{CLC_REDUCE_SUM, CLC_DTYPE_F32}, {CLC_REDUCE_ARGMAX, CLC_DTYPE_F32},
                      {CLC_REDUCE_SUM, CLC_DTYPE_I32}, {CLC_REDUCE_SUM, CLC_DTYPE_U8},
                      {CLC_REDUCE_SUM, CLC_DTYPE_I64}, {CLC_REDUCE_SUM, CLC_DTYPE_F16},
                      {CLC_REDUCE_SUM, CLC_DTYPE_BOOL}};
    const size_t(*images)[2] = quick ? quick_sizes : gray_full;
    const size_t nimages = quick ? 2 : 4;
    const size_t nreductions = sizeof reductions / sizeof reductions[0];
    if (2 * (nimages + 1) + 2 + nreductions * 4 > capacity) {
        cli_error("more cases than rows (%zu)", capacity);
        *failed = 1;
        return 0;
    }
    size_t n = 0;
    if (want[0]) {
        for (size_t i = 0; i < nimages; ++i)
            *failed |=
                bench_gray(ctx, config, images[i][0], images[i][1], CLC_PIXEL_RGB8, &rows[n++]);
        *failed |= bench_gray(ctx, config, images[nimages - 1][0], images[nimages - 1][1],
                              CLC_PIXEL_BGRA8, &rows[n++]);
    }
    if (want[1]) {
        const size_t(*clouds)[2] = quick ? quick_sizes : cloud_full;
        for (size_t i = 0; i < nimages; ++i)
            *failed |= bench_cloud(ctx, config, clouds[i][0], clouds[i][1], CLC_CLOUD_DENSE, 1,
                                   &rows[n++]);
        *failed |= bench_cloud(ctx, config, 1920, 1080, CLC_CLOUD_ORGANIZED, 1, &rows[n++]);
        /* A stream of sensor frames in one call: what a single small frame cannot show. */
        *failed |= bench_cloud(ctx, config, 640, 480, CLC_CLOUD_DENSE, quick ? 8 : 64, &rows[n++]);
        if (!quick)
            *failed |= bench_cloud(ctx, config, 1920, 1080, CLC_CLOUD_DENSE, 16, &rows[n++]);
    }
    if (want[2]) {
        const size_t *sizes = quick ? reduce_quick : reduce_full;
        const size_t nsizes = quick ? 1 : 4;
        for (size_t c = 0; c < nreductions; ++c)
            for (size_t s = 0; s < nsizes; ++s)
                *failed |= bench_reduce(ctx, config, reductions[c].op, reductions[c].type,
                                        sizes[s] << 20, &rows[n++]);
    }
    return n;
}

static void print_markdown(const report *r)
{
    const clc_device_info *d = r->device;
    printf("device: %s (%s, driver %s), %u compute units\n", d->name, d->platform_name,
           d->driver_version, d->compute_units);
    printf("copy bandwidth: %.1f GB/s (float4 copy of %zu MiB, read + write)\n", r->copy_gbps,
           r->copy_bytes >> 20);
    for (size_t i = 0; i < r->nfirst; ++i) {
        const first_call *f = &r->first[i];
        if (f->error[0])
            printf("first %s call: failed: %s\n", f->kernel, f->error);
        else
            printf("first %s call in a new context: %.1f ms with an empty cache, %.1f ms cached\n",
                   f->kernel, f->cold_ms, f->warm_ms);
    }
    const bus *p = &r->pcie;
    if (p->pinned_up > 0)
        printf("PCIe (%zu MiB, best of 5): pinned %.1f GB/s to the device, %.1f back; pageable "
               "%.1f and %.1f (the driver's own path)\n",
               r->copy_bytes >> 20, p->pinned_up, p->pinned_down, p->pageable_up, p->pageable_down);
    else
        printf("host memory: shared with the device (no bus to cross)\n");
    printf("median of %d runs after a warm-up; h2h of bus: host-to-host GB/s against pinned "
           "PCIe to the device\n\n",
           r->repeats);
    printf("| kernel | variant | size | device ms | device GB/s | of copy | host-to-host ms | "
           "h2h GB/s | h2h of bus | h2h pinned ms | pinned of bus | serial C ms | device vs C | "
           "h2h vs C | frames/s (device) |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
           "--- |\n");
    for (size_t i = 0; i < r->nrows; ++i) {
        const bench_row *w = &r->rows[i];
        if (w->status[0]) {
            printf("| %s | %s | %s | %s |\n", w->kernel, w->variant, w->size, w->status);
            continue;
        }
        const double dev = w->bytes / w->device_s * 1e-9, h2h = w->bytes / w->h2h_s * 1e-9;
        char of_bus[16] = "", pinned[16] = "", pinned_of_bus[16] = "";
        if (p->pinned_up > 0)
            snprintf(of_bus, sizeof of_bus, "%.0f%%", 100.0 * h2h / p->pinned_up);
        if (w->h2h_pinned_s > 0)
            snprintf(pinned, sizeof pinned, "%.3f", w->h2h_pinned_s * 1e3);
        if (w->h2h_pinned_s > 0 && p->pinned_up > 0)
            snprintf(pinned_of_bus, sizeof pinned_of_bus, "%.0f%%",
                     100.0 * w->bytes / w->h2h_pinned_s * 1e-9 / p->pinned_up);
        printf("| %s | %s | %s | %.3f | %.1f | %.0f%% | %.3f | %.1f | %s | %s | %s | %.3f | %.1fx "
               "| %.2fx |",
               w->kernel, w->variant, w->size, w->device_s * 1e3, dev, 100.0 * dev / r->copy_gbps,
               w->h2h_s * 1e3, h2h, of_bus, pinned, pinned_of_bus, w->serial_s * 1e3,
               w->serial_s / w->device_s, w->serial_s / w->h2h_s);
        if (strcmp(w->kernel, "cloud") == 0)
            printf(" %.0f |\n", (w->frames > 0 ? w->frames : 1) / w->device_s);
        else
            printf(" |\n");
    }
}

/* A number, or null when it was not measured. */
static void json_number(const char *key, double v, int last)
{
    if (v > 0 && v == (double)(long long)v && v < 9e15) /* counts: whole, not rounded */
        printf("\"%s\": %lld%s", key, (long long)v, last ? "" : ", ");
    else if (v > 0)
        printf("\"%s\": %.6g%s", key, v, last ? "" : ", ");
    else
        printf("\"%s\": null%s", key, last ? "" : ", ");
}

static void print_json(const report *r)
{
    const clc_device_info *d = r->device;
    char date[16];
    const time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    printf("{\n  \"version\": \"%s\",\n  \"date\": \"%s\",\n  \"device\": {\"name\": ",
           CLC_VERSION_STRING, date);
    cli_json_string(stdout, d->name);
    printf(", \"platform\": ");
    cli_json_string(stdout, d->platform_name);
    printf(", \"driver\": ");
    cli_json_string(stdout, d->driver_version);
    printf(", \"type\": \"%s\", \"compute_units\": %u, \"unified_memory\": %s},\n",
           clc_device_type_string(d->type), d->compute_units, d->unified_memory ? "true" : "false");
    printf("  \"pcie_gbps\": {\"pinned_up\": %.6g, \"pinned_down\": %.6g, \"pageable_up\": %.6g, "
           "\"pageable_down\": %.6g},\n",
           r->pcie.pinned_up, r->pcie.pinned_down, r->pcie.pageable_up, r->pcie.pageable_down);
    printf("  \"copy_gbps\": %.6g,\n  \"copy_bytes\": %zu,\n  \"repeats\": %d,\n", r->copy_gbps,
           r->copy_bytes, r->repeats);
    printf("  \"first_call\": [");
    for (size_t i = 0; i < r->nfirst; ++i) {
        const first_call *f = &r->first[i];
        printf("%s\n    {\"kernel\": \"%s\", ", i ? "," : "", f->kernel);
        json_number("cold_ms", f->error[0] ? 0 : f->cold_ms, 0);
        json_number("warm_ms", f->error[0] ? 0 : f->warm_ms, 0);
        printf("\"status\": ");
        cli_json_string(stdout, f->error[0] ? f->error : "");
        printf("}");
    }
    printf("\n  ],\n  \"rows\": [");
    for (size_t i = 0; i < r->nrows; ++i) {
        const bench_row *w = &r->rows[i];
        const int ok = !w->status[0];
        printf("%s\n    {\"kernel\": \"%s\", \"variant\": \"%s\", \"size\": \"%s\", ", i ? "," : "",
               w->kernel, w->variant, w->size);
        json_number("bytes", w->bytes, 0);
        json_number("items", w->items, 0);
        json_number("frames", w->frames > 0 ? w->frames : 1, 0);
        json_number("device_ms", ok ? w->device_s * 1e3 : 0, 0);
        json_number("device_gbps", ok ? w->bytes / w->device_s * 1e-9 : 0, 0);
        json_number("of_copy", ok ? w->bytes / w->device_s * 1e-9 / r->copy_gbps : 0, 0);
        json_number("h2h_ms", ok ? w->h2h_s * 1e3 : 0, 0);
        json_number("h2h_gbps", ok ? w->bytes / w->h2h_s * 1e-9 : 0, 0);
        json_number("h2h_pinned_ms", ok ? w->h2h_pinned_s * 1e3 : 0, 0);
        json_number("serial_ms", w->serial_s * 1e3, 0);
        json_number("device_speedup", ok ? w->serial_s / w->device_s : 0, 0);
        json_number("h2h_speedup", ok ? w->serial_s / w->h2h_s : 0, 0);
        printf("\"status\": ");
        cli_json_string(stdout, w->status);
        printf("}");
    }
    printf("\n  ]\n}\n");
}

int cmd_bench(int argc, char **argv)
{
    const char *device = NULL;
    int want[3] = {1, 1, 1}, quick = 0, json = 0;
    unsigned repeats = 0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    for (int kind; (kind = cli_next(&a)) != CLI_END;) {
        if (kind == CLI_POSITIONAL) {
            cli_error("unexpected argument '%s' (see clcompute bench --help)", a.arg);
            return CLI_EXIT_USAGE;
        } else if (cli_is(&a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(&a, "--kernels")) {
            const char *v = cli_value(&a);
            if (!v || !parse_kernels(v, want))
                return CLI_EXIT_USAGE;
        } else if (cli_is(&a, "--repeats")) {
            if (cli_whole(&a, 1, 1000, &repeats) != 0)
                return CLI_EXIT_USAGE;
        } else if (cli_is(&a, "--device")) {
            if (!(device = cli_value(&a)))
                return CLI_EXIT_USAGE;
        } else if (cli_is(&a, "--quick") || cli_is(&a, "--json")) {
            if (cli_flag(&a) != 0)
                return CLI_EXIT_USAGE;
            *(cli_is(&a, "--quick") ? &quick : &json) = 1;
        } else {
            return cli_unknown(&a);
        }
    }
    report r = {0};
    r.repeats = repeats ? (int)repeats : quick ? 3 : 11;
    const bench_config config = {r.repeats};

    clc_context_options options = {0};
    options.device = device;
    options.profiling = 1;
    clc_context *ctx = NULL;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS) {
        cli_error("%s", clc_last_error());
        return CLI_EXIT_FAILURE;
    }
    r.device = clc_context_device(ctx);
    r.copy_bytes = (size_t)(quick ? 64 : 256) << 20;
    while (r.copy_bytes > r.device->max_alloc_bytes)
        r.copy_bytes /= 2;
    if (clc_measure_copy_bandwidth(ctx, r.copy_bytes, quick ? 5 : 20, &r.copy_gbps) !=
        CLC_SUCCESS) {
        cli_error("copy bandwidth: %s", clc_last_error());
        clc_context_destroy(ctx);
        return CLI_EXIT_FAILURE;
    }
    measure_bus(ctx, r.copy_bytes, &r.pcie);
    int failed = 0;
    for (int k = 0; k < 3; ++k) {
        if (!want[k])
            continue;
        first_call *f = &r.first[r.nfirst++];
        f->kernel = kernel_names[k];
        failed |= bench_first_call(device, f->kernel, &f->cold_ms, &f->warm_ms, f->error,
                                   sizeof f->error) != 0;
    }
    bench_row rows[64];
    r.rows = rows;
    r.nrows = run_cases(ctx, &config, want, quick, rows, sizeof rows / sizeof rows[0], &failed);
    if (json)
        print_json(&r);
    else
        print_markdown(&r);
    clc_context_destroy(ctx);
    return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
