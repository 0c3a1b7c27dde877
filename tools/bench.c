/* clcompute bench: the selected device's copy bandwidth, then every kernel at several sizes against
 * it and against the serial C reference; a Markdown table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clcompute/clcompute.h>

#include "../bench/suite.h"
#include "cli.h"

/* "gray, cloud, reduce": the families of the suite. */
static const char *family_list(void)
{
    static char list[256];
    if (!list[0])
        for (size_t i = 0; bench_families[i]; ++i)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     bench_families[i]->name);
    return list;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clcompute bench [--kernels LIST] [--quick] [--repeats N]\n"
            "           [--json] [--device SEL]\n"
            "\n"
            "Measures the device's copy bandwidth (float4 copy kernel; 256 MiB buffers, 64 MiB\n"
            "with --quick), the first call of each kernel with a cold and a warm program cache,\n"
            "then each kernel and size: device time (event timestamps), host-to-host time, GB/s,\n"
            "percent of copy bandwidth and speed-up over the serial C reference, whose result\n"
            "each run must match. Medians of N runs (default 11; 3 with --quick) after a\n"
            "warm-up. On CPUs, sizes that fit the caches can pass 100%% of copy bandwidth, which\n"
            "is measured on buffers that do not. The header names the CLCOMPUTE_ variables set\n"
            "and the variants chosen, timed in this run or read from the disk cache (what a\n"
            "variable forces wins over them; CLCOMPUTE_TUNE=again times them again). Exit\n"
            "status 1 when a row failed.\n"
            "  --kernels LIST  which kernel families, comma-separated (default all: %s)\n"
            "  --quick         small sizes only\n"
            "  --repeats N     runs a measurement (1 to 1000)\n"
            "  --json          JSON instead of a Markdown table\n"
            "  --device SEL    the device (clcompute devices --help)\n"
            "  -h, --help      this text\n",
            family_list());
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
    first_call *first; /* one a selected family */
    size_t nfirst;
    bench_rows rows;
    clc_tuned_choice tuned[8]; /* the variants the rows ran with (clc_context_tuned) */
    size_t ntuned;
} report;

static const char *const tuned_sources[] = {"timed", "stored", "default"};

extern char **environ;

/* A CLCOMPUTE_ variable ("NAME=value" of environ): the switches that force variants or staging
 * shape every figure, so the report names them. */
static int is_switch(const char *entry)
{
    return strncmp(entry, "CLCOMPUTE_", 10) == 0;
}

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

/* Parses "gray,reduce" into the selected families (want[i] for bench_families[i]); 0 after a
 * message on an unknown name. */
static int parse_kernels(const char *text, int *want, size_t nfamilies)
{
    for (size_t k = 0; k < nfamilies; ++k)
        want[k] = 0;
    for (const char *p = text;;) {
        const size_t len = strcspn(p, ",");
        const bench_family *f = bench_family_find(p, len);
        if (!f) {
            cli_error("unknown kernel '%.*s' in --kernels '%s' (%s)", (int)len, p, text,
                      family_list());
            return 0;
        }
        for (size_t k = 0; k < nfamilies; ++k)
            want[k] |= bench_families[k] == f;
        if (!p[len])
            return 1;
        p += len + 1;
    }
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
    int nswitches = 0;
    for (char **e = environ; e && *e; ++e)
        if (is_switch(*e))
            printf("%s %s", nswitches++ ? "," : "environment:", *e);
    if (nswitches)
        printf("\n");
    if (r->ntuned) {
        /* Which variants the figures are of: a choice read from the cache may have been timed on
         * a busy machine (docs/api/runtime.md, "Timed variants"). */
        printf("variants:");
        for (size_t i = 0; i < r->ntuned; ++i)
            printf("%s %s %s (%s)", i ? ";" : "", r->tuned[i].family, r->tuned[i].variant,
                   r->tuned[i].source == CLC_TUNED_STORED ? "from the cache"
                                                          : tuned_sources[r->tuned[i].source]);
        printf("\n");
    }
    printf("median of %d runs after a warm-up; h2h of bus: host-to-host GB/s against pinned "
           "PCIe to the device\n\n",
           r->repeats);
    printf("| kernel | variant | size | device ms | device GB/s | of copy | host-to-host ms | "
           "h2h GB/s | h2h of bus | h2h pinned ms | pinned of bus | serial C ms | device vs C | "
           "h2h vs C | frames/s (device) |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
           "--- |\n");
    for (size_t i = 0; i < r->rows.count; ++i) {
        const bench_row *w = &r->rows.rows[i];
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
        if (w->frames > 0)
            printf(" %.0f |\n", w->frames / w->device_s);
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
    printf("\n  ],\n  \"environment\": {");
    int nswitches = 0;
    for (char **e = environ; e && *e; ++e) {
        if (!is_switch(*e))
            continue;
        const char *eq = strchr(*e, '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - *e) : (int)strlen(*e), *e);
        printf("%s\n    ", nswitches++ ? "," : "");
        cli_json_string(stdout, name);
        printf(": ");
        cli_json_string(stdout, eq ? eq + 1 : "");
    }
    printf("\n  },\n  \"tuned\": [");
    for (size_t i = 0; i < r->ntuned; ++i) {
        printf("%s\n    {\"family\": ", i ? "," : "");
        cli_json_string(stdout, r->tuned[i].family);
        printf(", \"variant\": ");
        cli_json_string(stdout, r->tuned[i].variant);
        printf(", \"source\": \"%s\"}", tuned_sources[r->tuned[i].source]);
    }
    printf("\n  ],\n  \"rows\": [");
    for (size_t i = 0; i < r->rows.count; ++i) {
        const bench_row *w = &r->rows.rows[i];
        const int ok = !w->status[0];
        printf("%s\n    {\"kernel\": \"%s\", \"variant\": \"%s\", \"size\": \"%s\", ", i ? "," : "",
               w->kernel, w->variant, w->size);
        json_number("bytes", w->bytes, 0);
        json_number("items", w->items, 0);
        json_number("frames", w->frames, 0);
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

/* The command once its buffers exist: *rp receives the rows, which the caller frees. */
static int bench_run(size_t nfamilies, int *want, report *rp, int argc, char **argv)
{
    report r = *rp;
    const char *device = NULL;
    int quick = 0, json = 0;
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
            if (!v || !parse_kernels(v, want, nfamilies))
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
    r.repeats = repeats ? (int)repeats : quick ? 3 : 11;

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
    const bench_config config = {r.repeats, quick, r.copy_gbps};
    int failed = 0;
    for (size_t k = 0; k < nfamilies; ++k) {
        if (!want[k])
            continue;
        first_call *f = &r.first[r.nfirst++];
        f->kernel = bench_families[k]->name;
        failed |= bench_first_call(device, bench_families[k], &f->cold_ms, &f->warm_ms, f->error,
                                   sizeof f->error) != 0;
    }
    for (size_t k = 0; k < nfamilies; ++k)
        if (want[k])
            failed |= bench_families[k]->run(ctx, &config, &r.rows);
    const size_t room = sizeof r.tuned / sizeof r.tuned[0];
    size_t ntuned = 0;
    if (clc_context_tuned(ctx, r.tuned, room, &ntuned) == CLC_SUCCESS)
        r.ntuned = ntuned < room ? ntuned : room;
    if (json)
        print_json(&r);
    else
        print_markdown(&r);
    clc_context_destroy(ctx);
    *rp = r;
    return failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

static int run(int argc, char **argv)
{
    size_t nfamilies = 0;
    while (bench_families[nfamilies])
        ++nfamilies;
    int *want = malloc(nfamilies * sizeof *want);
    report r = {0};
    r.first = calloc(nfamilies, sizeof *r.first);
    if (!want || !r.first) {
        free(want), free(r.first);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (size_t k = 0; k < nfamilies; ++k)
        want[k] = 1;
    const int rc = bench_run(nfamilies, want, &r, argc, argv);
    free(want), free(r.first);
    bench_rows_free(&r.rows);
    return rc;
}

const cli_subcommand cli_command_bench = {
    "bench",
    "  bench [--kernels LIST] [--quick] [--json] [--device SEL]\n"
    "                                    measure every kernel against the device's\n"
    "                                    copy bandwidth and the serial C reference\n",
    run};
