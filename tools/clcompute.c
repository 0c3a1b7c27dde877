/* clcompute: the library's command-line face. Uses the public API only. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <clcompute/clcompute.h>

#include "cli.h"

/* The subcommands, in the order of the usage text. */
extern const cli_subcommand cli_command_devices, cli_command_gray, cli_command_cloud,
    cli_command_reduce, cli_command_median, cli_command_bench;
static const cli_subcommand *const commands[] = {&cli_command_devices, &cli_command_gray,
                                                 &cli_command_cloud,   &cli_command_reduce,
                                                 &cli_command_median,  &cli_command_bench};

static void usage(FILE *out)
{
    fprintf(out, "usage: clcompute COMMAND [OPTIONS]       (clcompute COMMAND --help for each)\n"
                 "\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fputs(commands[i]->summary, out);
    fprintf(out,
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
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        if (strcmp(command, commands[i]->name) == 0) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "clcompute %s", commands[i]->name);
            cli_set_command(prefix);
            return commands[i]->run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "clcompute: unknown command '%s'\n\n", command);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
