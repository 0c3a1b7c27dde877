/* clcompute: the library's command-line face. Uses the public API only. */
#include <stdio.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: clcompute COMMAND [OPTIONS]\n"
                 "\n"
                 "commands:\n"
                 "  devices [--json] [--device SEL]   list OpenCL devices and the one selected\n"
                 "  gray IN OUT.png [--weights bt601|bt709] [--device SEL]\n"
                 "                                    convert an image to 8-bit gray\n"
                 "  cloud DEPTH OUT.ply --fx F --fy F --cx F --cy F [...]\n"
                 "                                    depth image to PLY point cloud\n"
                 "  reduce FILE --op sum|min|max|mean|argmin|argmax [--type T]\n"
                 "                                    reduce a .npy or raw array\n"
                 "  bench [--kernels LIST] [--quick] [--json] [--device SEL]\n"
                 "                                    measure every kernel against the device's\n"
                 "                                    copy bandwidth and the serial C reference\n"
                 "\n"
                 "Device selectors (--device, or the environment variable CLCOMPUTE_DEVICE):\n"
                 "  gpu | cpu | accelerator | P:D | default | part of a platform or device name\n"
                 "\n"
                 "  clcompute --version    print the library version\n");
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(command, "--version") == 0) {
        printf("clcompute %s\n", CLC_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    if (strcmp(command, "devices") == 0)
        return cmd_devices(argc - 1, argv + 1);
    if (strcmp(command, "gray") == 0)
        return cmd_gray(argc - 1, argv + 1);
    if (strcmp(command, "cloud") == 0)
        return cmd_cloud(argc - 1, argv + 1);
    if (strcmp(command, "reduce") == 0)
        return cmd_reduce(argc - 1, argv + 1);
    if (strcmp(command, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "clcompute: unknown command '%s'\n\n", command);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
