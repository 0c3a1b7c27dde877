/* Shared pieces of the clcompute command-line tool. */
#ifndef CLCOMPUTE_TOOL_CLI_H
#define CLCOMPUTE_TOOL_CLI_H

#include <stddef.h>
#include <stdio.h>

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

int cmd_devices(int argc, char **argv);
int cmd_gray(int argc, char **argv);
int cmd_cloud(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
