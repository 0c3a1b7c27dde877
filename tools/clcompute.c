/* clcompute: the library's command-line face. Uses the public API only. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clcompute COMMAND [OPTIONS]       (clcompute COMMAND --help for each)\n"
            "\n"
            "commands:\n"
            "  devices [--json] [--device SEL]   list OpenCL devices and the one selected\n"
            "  gray IN OUT [--weights bt601|bt709] [--device SEL]\n"
            "                                    convert an image to 8-bit gray (OpenCV's)\n"
            "  gray IN... -o OUTDIR [--device all]\n"
            "                                    many images, folders too, on every device\n"
            "  cloud DEPTH OUT.ply --fx F --fy F --cx F --cy F [...]\n"
            "                                    depth image to point cloud (Open3D's)\n"
            "  cloud DEPTH... -o OUTDIR --intrinsics FILE [--color DIR]\n"
            "                                    many depth images, folders too\n"
            "  reduce FILE --op sum|min|max|mean|argmin|argmax [--type T]\n"
            "                                    reduce a .npy or raw array (numpy's)\n"
            "  bench [--kernels LIST] [--quick] [--json] [--device SEL]\n"
            "                                    measure every kernel against the device's\n"
            "                                    copy bandwidth and the serial C reference\n"
            "\n"
            "Batch mode (-o OUTDIR) converts files and folders on every device of --device at\n"
            "once, with progress; see clcompute gray --help.\n"
            "\n"
            "Device selectors (--device, or the environment variable CLCOMPUTE_DEVICE):\n"
            "  gpu | cpu | accelerator | P:D | pocl | nvidia | ... | NAME | default | all,\n"
            "  A/B (A, else B: \"gpu/cpu\"), A,B (both); see clcompute devices --help\n"
            "\n"
            "  clcompute --version    print the library version\n");
}

int main(int argc, char **argv)
{
    /* A reader that goes away (clcompute ... | head) makes writes to it fail, which the tool
     * survives; the default would kill it between writing an output and renaming it. */
    signal(SIGPIPE, SIG_IGN);
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
    if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0) {
        printf("clcompute %s\n", CLC_VERSION_STRING);
        return CLI_EXIT_OK;
    }
    static const struct {
        const char *name, *prefix;
        int (*run)(int argc, char **argv);
    } commands[] = {{"devices", "clcompute devices", cmd_devices},
                    {"gray", "clcompute gray", cmd_gray},
                    {"cloud", "clcompute cloud", cmd_cloud},
                    {"reduce", "clcompute reduce", cmd_reduce},
                    {"bench", "clcompute bench", cmd_bench}};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        if (strcmp(command, commands[i].name) == 0) {
            cli_set_command(commands[i].prefix);
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "clcompute: unknown command '%s'\n\n", command);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
