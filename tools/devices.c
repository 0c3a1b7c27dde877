/* clcompute devices: a clinfo-style listing, and which device a selector picks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "cli.h"

static void print_bytes(uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    printf(u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void print_text(const clc_device_list *list)
{
    unsigned platform = (unsigned)-1;
    for (size_t i = 0; i < clc_device_list_count(list); ++i) {
        const clc_device_info *d = clc_device_list_get(list, i);
        if (d->platform_index != platform) {
            platform = d->platform_index;
            printf("Platform %u: %s (%s)\n", platform, d->platform_name, d->platform_version);
        }
        printf("  [%u:%u] %s%s\n", d->platform_index, d->device_index, d->name,
               d->available ? "" : " (unavailable)");
        printf("        type %s, vendor %s, %u compute units, %u MHz\n",
               clc_device_type_string(d->type), d->vendor, d->compute_units, d->max_clock_mhz);
        printf("        global memory ");
        print_bytes(d->global_mem_bytes);
        printf(", local memory ");
        print_bytes(d->local_mem_bytes);
        printf(", largest allocation ");
        print_bytes(d->max_alloc_bytes);
        printf("\n        %s, %s, driver %s\n", d->device_version, d->opencl_c_version,
               d->driver_version);
        printf("        unified memory %s, fp64 %s, max work-group size %zu%s%s\n",
               d->unified_memory ? "yes" : "no", d->fp64 ? "yes" : "no", d->max_work_group_size,
               d->pci_bus[0] ? ", PCI " : "", d->pci_bus);
    }
    if (clc_device_list_skipped_platforms(list))
        printf("(%zu platform(s) skipped: they failed to answer)\n",
               clc_device_list_skipped_platforms(list));
}

static void json_device(const clc_device_info *d)
{
    printf("    {\"platform_index\": %u, \"device_index\": %u, \"platform\": ", d->platform_index,
           d->device_index);
    cli_json_string(stdout, d->platform_name);
    printf(", \"platform_version\": ");
    cli_json_string(stdout, d->platform_version);
    printf(", \"name\": ");
    cli_json_string(stdout, d->name);
    printf(", \"vendor\": ");
    cli_json_string(stdout, d->vendor);
    printf(", \"type\": \"%s\", \"compute_units\": %u, \"max_clock_mhz\": %u",
           clc_device_type_string(d->type), d->compute_units, d->max_clock_mhz);
    printf(", \"global_mem_bytes\": %llu, \"local_mem_bytes\": %llu, \"max_alloc_bytes\": %llu",
           (unsigned long long)d->global_mem_bytes, (unsigned long long)d->local_mem_bytes,
           (unsigned long long)d->max_alloc_bytes);
    printf(", \"max_work_group_size\": %zu, \"device_version\": ", d->max_work_group_size);
    cli_json_string(stdout, d->device_version);
    printf(", \"opencl_c_version\": ");
    cli_json_string(stdout, d->opencl_c_version);
    printf(", \"driver_version\": ");
    cli_json_string(stdout, d->driver_version);
    printf(", \"pci_bus\": ");
    if (d->pci_bus[0])
        cli_json_string(stdout, d->pci_bus);
    else
        printf("null");
    printf(", \"unified_memory\": %s, \"fp64\": %s, \"available\": %s}",
           d->unified_memory ? "true" : "false", d->fp64 ? "true" : "false",
           d->available ? "true" : "false");
}

typedef struct choice {
    const char *label;    /* "default", "CLCOMPUTE_DEVICE", "--device" */
    const char *selector; /* NULL for the default rule */
    clc_status status;
    size_t index;
    char reason[512];
    char error[1024];
} choice;

static void choose(const clc_device_list *list, choice *c)
{
    /* "default" keeps CLCOMPUTE_DEVICE out of the default row, so both rows can be shown. */
    c->status = clc_device_select(list, c->selector ? c->selector : "default", &c->index, c->reason,
                                  sizeof c->reason);
    if (c->status != CLC_SUCCESS && c->selector)
        snprintf(c->error, sizeof c->error, "%s=\"%s\": %s", c->label, c->selector,
                 clc_last_error());
    else if (c->status != CLC_SUCCESS)
        snprintf(c->error, sizeof c->error, "%s", clc_last_error());
}

static void print_choice_text(const clc_device_list *list, const choice *c)
{
    if (c->selector)
        printf("%s=\"%s\": ", c->label, c->selector);
    else
        printf("Default device: ");
    if (c->status == CLC_SUCCESS) {
        const clc_device_info *d = clc_device_list_get(list, c->index);
        printf("[%u:%u] %s (%s)\n", d->platform_index, d->device_index, d->name, c->reason);
    } else {
        printf("no device (%s)\n", clc_status_string(c->status));
    }
}

static void print_choice_json(const clc_device_list *list, const choice *c)
{
    printf("{\"selector\": ");
    if (c->selector)
        cli_json_string(stdout, c->selector);
    else
        printf("null");
    if (c->status == CLC_SUCCESS) {
        const clc_device_info *d = clc_device_list_get(list, c->index);
        printf(", \"platform_index\": %u, \"device_index\": %u, \"reason\": ", d->platform_index,
               d->device_index);
        cli_json_string(stdout, c->reason);
    } else {
        printf(", \"error\": ");
        cli_json_string(stdout, c->error);
    }
    printf("}");
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: clcompute devices [--json] [--device SEL]\n"
        "\n"
        "Lists every OpenCL platform and device, and which device is picked: by default, by\n"
        "CLCOMPUTE_DEVICE when set, and by --device SEL when given (exit status 1 when a\n"
        "selector picks nothing).\n"
        "  --json        the same as JSON, for scripts\n"
        "  --device SEL  a selector to try\n"
        "  -h, --help    this text\n"
        "\n"
        "Selectors (--device of every command, CLCOMPUTE_DEVICE), case-insensitive:\n"
        "  gpu | cpu | accelerator   the device of that type with the most compute units\n"
        "  P:D                       device D of platform P, as listed here (\"1:0\")\n"
        "  pocl | nvidia | intel | amd | apple\n"
        "                            that vendor's platform\n"
        "  NAME                      part of a device or platform name (\"h200\", \"pthread\")\n"
        "  default                   the GPU with the most compute units, else an\n"
        "                            accelerator, else the CPU (also: nothing given)\n"
        "  all                       every device (for one device: the default)\n"
        "  localrank                 this process's GPU on its node: the launcher's local\n"
        "                            rank modulo the GPUs in PCI bus order (CPUs if none)\n"
        "  A/B                       A if it matches a device, else B: \"gpu/cpu\" is the GPU\n"
        "                            if there is one, else the CPU\n"
        "  A,B                       both (batches run on every device of the list; a\n"
        "                            single file uses the first)\n"
        "A selector (or part of a list) that matches nothing is an error, never a silent\n"
        "fallback; '/' is the way to ask for one.\n");
}

static int run(int argc, char **argv)
{
    int json = 0;
    const char *device = NULL;
    cli_args a;
    cli_args_init(&a, argc, argv);
    for (int kind; (kind = cli_next(&a)) != CLI_END;) {
        if (kind == CLI_POSITIONAL) {
            cli_error("unexpected argument '%s' (see clcompute devices --help)", a.arg);
            return CLI_EXIT_USAGE;
        } else if (cli_is(&a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(&a, "--json")) {
            if (cli_flag(&a) != 0)
                return CLI_EXIT_USAGE;
            json = 1;
        } else if (cli_is(&a, "--device")) {
            if (!(device = cli_value(&a)))
                return CLI_EXIT_USAGE;
        } else {
            return cli_unknown(&a);
        }
    }

    clc_device_list *list = NULL;
    clc_status st = clc_devices_query(&list);
    if (st != CLC_SUCCESS) {
        cli_error("%s", clc_last_error());
        return CLI_EXIT_FAILURE;
    }

    choice choices[3];
    size_t n = 0;
    choices[n++] = (choice){.label = "default"};
    const char *env = getenv(CLC_DEVICE_ENV);
    if (env && *env)
        choices[n++] = (choice){.label = CLC_DEVICE_ENV, .selector = env};
    if (device)
        choices[n++] = (choice){.label = "--device", .selector = device};
    for (size_t i = 0; i < n; ++i)
        choose(list, &choices[i]);

    if (json) {
        printf("{\n  \"platforms_skipped\": %zu,\n  \"devices\": [\n",
               clc_device_list_skipped_platforms(list));
        for (size_t i = 0; i < clc_device_list_count(list); ++i) {
            json_device(clc_device_list_get(list, i));
            printf(i + 1 < clc_device_list_count(list) ? ",\n" : "\n");
        }
        printf("  ],\n  \"selection\": {");
        for (size_t i = 0; i < n; ++i) {
            printf("%s\n    \"%s\": ", i ? "," : "", choices[i].label);
            print_choice_json(list, &choices[i]);
        }
        printf("\n  }\n}\n");
    } else {
        print_text(list);
        printf("\n");
        for (size_t i = 0; i < n; ++i)
            print_choice_text(list, &choices[i]);
    }

    /* A selector the user gave that picks nothing is an error: scripts must not run on a
     * device they did not ask for. */
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; i < n; ++i) {
        if (choices[i].status != CLC_SUCCESS) {
            cli_error("%s", choices[i].error);
            rc = CLI_EXIT_FAILURE;
        }
    }
    clc_device_list_destroy(list);
    return rc;
}

const cli_subcommand cli_command_devices = {
    "devices", "  devices [--json] [--device SEL]   list OpenCL devices and the one selected\n",
    run};
