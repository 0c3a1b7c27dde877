/* Shared pieces of the clcompute command-line tool. */
#ifndef CLCOMPUTE_TOOL_CLI_H
#define CLCOMPUTE_TOOL_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <clcompute/clcompute.h>

/* Exit codes: scripts tell a usage mistake from a failure of the work itself. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

/* Writes s as a JSON string literal, quotes included. */
void cli_json_string(FILE *out, const char *s);

/* Writes a file through write(), atomically: a temporary file beside path, renamed over it only
 * when everything was written. On failure nothing is left behind and error says why. */
int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg), void *arg, char *error,
                     size_t error_size);

/* Batch mode of a subcommand: several inputs (files, or folders of files) into OUTDIR. */
#define CLI_BATCH_OPTIONS                                                                          \
    "  Batch options: --device LIST (\"gpu,cpu\", \"all\"), --cpu-partitions N (split CPU\n"       \
    "  devices), --workers N (a device; default one a host core, as reading and writing\n"         \
    "  files takes a core each; 1 = one blocking call at a time), --quiet.\n"

typedef struct cli_batch {
    char **inputs;
    size_t count;
    const char *outdir;
    const char *devices;     /* selector list; NULL: CLCOMPUTE_DEVICE or the default */
    unsigned cpu_partitions; /* split CPU devices into sub-devices */
    unsigned workers;        /* workers a device; 0: one a host core */
    int quiet;
    const char *single[2]; /* IN OUT of single mode, until -o or a third path says batch */
    int nsingle;
} cli_batch;

/* Consumes a batch option at argv[*i] (advancing *i past its value); 1 if it was one, 0 if not,
 * -1 after a message for a bad value. */
int cli_batch_option(cli_batch *b, int argc, char **argv, int *i);
/* Adds a file, or every regular file of a folder (sorted); -1 with a message on failure. */
int cli_batch_add(cli_batch *b, const char *path);
/* A path argument: kept as IN or OUT of single mode (b->single) while there are at most two and
 * no -o; once -o is given or a third path comes, every path so far and after is an input. Call
 * again with NULL after the last argument, so that -o given after the paths counts too. -1 with
 * a message on failure. */
int cli_batch_path(cli_batch *b, const char *path);
void cli_batch_free(cli_batch *b);
/* A file's name without folder and extension: its start in *start, its length returned. */
size_t cli_stem(const char *path, const char **start);
/* Converts file `in` into `out` on a worker's context; 0, or -1 after printing why. */
typedef int (*cli_convert)(clc_context *ctx, const char *in, const char *out, void *user);
/* Runs convert for every input, writing OUTDIR/<input name without extension><ext>, on the
 * selected devices with progress and Ctrl-C handling; the exit code: 0 when every item
 * succeeded, 1 otherwise (each failure already reported). */
int cli_batch_run(cli_batch *b, const char *ext, cli_convert convert, void *user);

int cmd_devices(int argc, char **argv);
int cmd_gray(int argc, char **argv);
int cmd_cloud(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
