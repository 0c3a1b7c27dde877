/* Shared pieces of the clcompute command-line tool: arguments (args.c), messages, whole-file
 * output and interruption (output.c), batches of files (batch.c). */
#ifndef CLCOMPUTE_TOOL_CLI_H
#define CLCOMPUTE_TOOL_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <clcompute/clcompute.h>

#if defined(__GNUC__) || defined(__clang__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit codes: scripts tell a usage mistake from a failure of the work itself, and an interrupted
 * run as shells report a Ctrl-C (128 + SIGINT). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_INTERRUPTED 130

/* ---- arguments (args.c) ------------------------------------------------------------------- */

/* A subcommand's arguments, read one at a time: options as "--name value", "--name=value" or
 * flags, "--" ending options, anything else positional. */
typedef struct cli_args {
    int argc;
    char **argv;
    int next;          /* index of the next argument */
    int options_ended; /* after "--" */
    char name[64];     /* the current option, without "=value" */
    const char *given; /* the value given as "--name=value", or NULL */
    const char *arg;   /* the current argument as given (a positional's text) */
    /* Options whose value was taken so far, so that a second one is refused rather than
     * silently replacing the first. */
    struct {
        char name[64];
        const char *value;
    } taken[32];
    int taken_count;
} cli_args;

enum { CLI_END = 0, CLI_OPTION = 1, CLI_POSITIONAL = 2 };

/* argv[0] is the subcommand's name; its arguments follow. */
void cli_args_init(cli_args *a, int argc, char **argv);
/* Steps to the next argument: CLI_OPTION (a->name), CLI_POSITIONAL (a->arg) or CLI_END. */
int cli_next(cli_args *a);
/* Whether the current option is `name`, a long name: the short aliases -h, -o, -q and -r
 * answer to --help, --output, --quiet and --recursive. */
int cli_is(const cli_args *a, const char *name);
/* The current option's value: inline, or the next argument (which may start with '-' only as a
 * number does). NULL after "option --name needs a value", or after "option --name given twice"
 * where an earlier argument gave it a value already (-o and --output are one option). */
const char *cli_value(cli_args *a);
/* For a flag: 0, or -1 after "option --name takes no value" when one was given inline, or
 * "option --name given twice". */
int cli_flag(cli_args *a);
/* "unknown option '--x' (see clcompute gray --help)"; returns CLI_EXIT_USAGE. */
int cli_unknown(const cli_args *a);

/* The value of the current option as a number: finite and (CLI_POSITIVE) above zero,
 * (CLI_NONZERO) not zero or (CLI_FINITE) any; or (CLI_POSITIVE_INF) above zero, "inf"
 * included; 0, or -1 after a message naming the option and the text. */
enum { CLI_POSITIVE, CLI_NONZERO, CLI_FINITE, CLI_POSITIVE_INF };
int cli_number(cli_args *a, int rule, double *out);
/* Whether v is within the float range cli_number's rule (not CLI_POSITIVE_INF) allows: a float
 * the library can hold, and for the rules but CLI_FINITE one whose reciprocal it can. */
int cli_float_ok(double v, int rule);
/* A whole number from lo to hi; 0, or -1 after a message. */
int cli_whole(cli_args *a, unsigned long lo, unsigned long hi, unsigned *out);

/* ---- messages (output.c) ------------------------------------------------------------------ */

/* The prefix of every message ("clcompute gray"); set once, before any thread starts. */
void cli_set_command(const char *name);
const char *cli_command(void);
/* "PREFIX: message" on stderr, from any thread, below a progress line (which is cleared first and
 * drawn again by the next update). */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);
/* A plain line on stderr, same rules. */
void cli_print(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Draws text as the progress line of a terminal, over the previous one (padded: nothing of a
 * longer previous line stays). */
void cli_progress_line(const char *text);
/* Ends a progress line that is drawn, so that what follows starts on a line of its own. */
void cli_progress_end(void);
/* Writes s as a JSON string literal, quotes included. */
void cli_json_string(FILE *out, const char *s);

/* ---- whole files and interruption (output.c) ---------------------------------------------- */

/* Writes a file through write(), atomically: a file with no name in path's folder (Linux's
 * O_TMPFILE) given path's name only when everything was written, or elsewhere a temporary file
 * beside path renamed over it. A path that is a symbolic link is written through: the file it
 * leads to is replaced so, and the link stays; a link that leads to no file, and an existing
 * path that is not a regular file, are refused. On failure nothing is left behind and error says
 * why. While it runs, a named temporary file is known to the interrupt handling below. write()
 * may be called twice (where the unnamed file could not be named, the output is written again
 * the other way), so it must depend on arg alone. */
int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg), void *arg, char *error,
                     size_t error_size);

/* Where cli_write_atomic would write path: 0, with *target the file path's links lead to (to be
 * freed) or NULL when path is not a link; or -1, error saying why it would refuse (a link that
 * leads to no file or cannot be followed, an existing path that is not a regular file). */
int cli_output_target(const char *path, char **target, char *error, size_t error_size);

/* From here to cli_interrupt_end, Ctrl-C (SIGINT) and SIGTERM are taken by a thread of the tool.
 * The first calls stop(arg) and says "stopping after the files in progress"; the second (or the
 * first, when stop is NULL) removes the temporary files of every write in progress and exits at
 * once, with 128 + the first signal's number. Must be called before any other thread starts (the
 * signals are blocked in every thread made afterwards, the OpenCL driver's included). */
int cli_interrupt_begin(void (*stop)(void *arg), void *arg);
/* 0, or the exit status an interrupt since cli_interrupt_begin asks for: 128 + the signal's
 * number, as shells report it (130 for Ctrl-C, 143 for SIGTERM). */
int cli_interrupted(void);
void cli_interrupt_end(void);

/* ---- batches (batch.c) -------------------------------------------------------------------- */

/* One input of a batch, and the name of its output: OUTDIR/rel + extension, where rel is the
 * file's name without extension, preceded by its folder below an input folder with
 * --recursive. */
typedef struct cli_item {
    char *path;
    char *rel;
    dev_t dev; /* the folder entry: its folder and name (path's last part), to find one entry */
    ino_t ino; /* given twice, as a folder's file and by name, while other names of one file */
    const char *name; /* (links) stay inputs of their own */
    size_t arg;       /* the command-line path it came from (itself, or a folder) */
    size_t order;
} cli_item;

typedef struct cli_batch {
    const char **paths; /* as given: files and folders */
    size_t npaths;
    cli_item *items; /* expanded by cli_batch_run (or cli_batch_expand) */
    size_t count;
    const char *outdir;
    const char *devices;     /* --device: selector list; NULL: CLCOMPUTE_DEVICE or the default */
    const char *format;      /* --format: the outputs' type in a batch (NULL: the default) */
    unsigned cpu_partitions; /* split CPU devices into sub-devices */
    unsigned workers;        /* workers a device; 0: one a host core */
    int quiet, recursive, stats;
    int overwrite;          /* --overwrite: files already in OUTDIR may be replaced */
    int made_outdir;        /* this run made OUTDIR: removed again if it is left empty */
    unsigned shard, shards; /* this process converts items i with i % shards == shard */
    /* Which files of a folder are inputs, by name: what is not is skipped and listed. */
    int (*accept)(const char *name);
    const char *kind;       /* "images", "depth images": for messages */
    const char *extensions; /* what accept takes: "png, pgm" */
} cli_batch;

#define CLI_BATCH_OPTIONS                                                                          \
    "Batch options:\n"                                                                             \
    "  -o OUTDIR           write there (made if missing)\n"                                        \
    "  --recursive         folders' subfolders too, mirrored in OUTDIR\n"                          \
    "  --overwrite         replace outputs that exist already (without it a run that would\n"      \
    "                      replace a file in OUTDIR is refused before any work)\n"                 \
    "  --device LIST       \"all\", \"gpu,cpu\", \"gpu/cpu\", \"localrank\" (clcompute devices\n"  \
    "                      --help)\n"                                                              \
    "  --cpu-partitions N  split CPU devices into N sub-devices\n"                                 \
    "  --workers N         a device (default: one a host core, as decoding and encoding\n"         \
    "                      take a core each; 1 = one blocking call at a time)\n"                   \
    "  --shard K/N         only the K-th (0 to N-1) of N disjoint parts of the sorted\n"           \
    "                      inputs, for many processes or machines; --shard auto takes K and\n"     \
    "                      N from Slurm, Open MPI or PMI (docs/scale-out.md)\n"                    \
    "  --stats             where the time went, stage by stage, at the end\n"                      \
    "  --quiet             errors only\n"

/* Consumes an argument every file command shares: a path (positional), -h/--help (prints
 * usage on stdout), the batch options (-o, --recursive, --overwrite, --cpu-partitions, --workers,
 * --shard, --stats, --quiet), --device and --format. 1 if it was one, 0 if not, CLI_ARG_HELP after
 * the usage, -1 after a message for a bad value. */
enum { CLI_ARG_HELP = 2 };
int cli_batch_arg(cli_batch *b, cli_args *a, int kind, void (*usage)(FILE *out));
/* For single-file mode: 0, or -1 after a message when a batch-only option was given. */
int cli_batch_single(const cli_batch *b);
/* Keeps a path argument. */
int cli_batch_path(cli_batch *b, const char *path);
/* Expands the paths into items: files as given, folders by `accept` (subfolders with
 * recursive), sorted; lists what was skipped (unless quiet). 0, or -1 after a message. */
int cli_batch_expand(cli_batch *b);
void cli_batch_free(cli_batch *b);

/* Converts item `in` into file `out` on a worker's context; 0, or -1 after printing why. */
typedef int (*cli_convert)(clc_context *ctx, const cli_item *in, const char *out, void *user);
/* Expands the inputs, checks before any work that no two write the same output and that none
 * overwrites an input, makes OUTDIR (and its subfolders) and checks it can be written, then runs
 * convert for every item on the selected devices with progress and Ctrl-C handling. The exit
 * code: 0 when every item succeeded, 1 otherwise (each failure reported), 2 for a usage mistake,
 * CLI_EXIT_INTERRUPTED after Ctrl-C. */
int cli_batch_run(cli_batch *b, const char *ext, cli_convert convert, void *user);

/* Single-file mode, IN OUT (b->paths[0] and [1]): refuses --format, an OUT that is a folder, an
 * OUT that check (when given) refuses with a message, and batch-only options, all before IN is
 * read; takes Ctrl-C (no partial OUT is left) and converts with a NULL context (the converter
 * makes one when it needs a device: cli_context). The exit code. */
int cli_single_run(cli_batch *b, int (*check)(const char *out, void *user), cli_convert convert,
                   void *user);

/* Reads a file command's arguments: its own options through `option` (1 taken, 0 not its, -1
 * after a message), then those every file command shares (cli_batch_arg); anything else is an
 * unknown option. CLI_ARGS_READ when all were read, else the exit code to return (0 after
 * --help). */
enum { CLI_ARGS_READ = -1 };
int cli_files_parse(cli_batch *b, int argc, char **argv, void (*usage)(FILE *out),
                    int (*option)(cli_args *a, void *user), void *user);

/* The format --format names, without a leading '.' ("png" for "png" and ".png"), or
 * default_format where none was given. */
const char *cli_format_name(const cli_batch *b, const char *default_format);

/* Runs a file command once its arguments are read: a batch (-o OUTDIR) writing OUTDIR/NAME.EXT,
 * EXT from --format (a leading '.' allowed) or default_format, which format_ok (when given)
 * accepts or refuses after a message; or single-file mode (cli_single_run) for exactly IN OUT;
 * anything else is a usage message. The exit code. */
int cli_files_run(cli_batch *b, const char *default_format,
                  int (*format_ok)(const char *ext, void *user),
                  int (*check)(const char *out, void *user), cli_convert convert, void *user);

/* A context on `device` (NULL: CLCOMPUTE_DEVICE or the default); NULL after a message. */
clc_context *cli_context(const char *device);

/* A file's name without folder and extension: its start in *start, its length returned. */
size_t cli_stem(const char *path, const char **start);

/* ---- where the time goes (output.c) ----------------------------------------------------- */

enum {
    CLI_STAGE_READ,
    CLI_STAGE_DECODE,
    CLI_STAGE_DEVICE,
    CLI_STAGE_ENCODE,
    CLI_STAGE_WRITE,
    CLI_STAGES
};
/* Nanoseconds of a monotonic clock. */
unsigned long long cli_now_ns(void);
/* Adds the time since `since` (a cli_now_ns reading) to a stage's total, from any thread. */
void cli_stage_add(int stage, unsigned long long since);
/* The stage totals, per item and as shares, and the wall time. */
void cli_stages_print(size_t items, double wall_seconds, size_t workers);

/* ---- subcommands -------------------------------------------------------------------------- */

/* A subcommand: tools/NAME.c defines cli_command_NAME, and clcompute.c's table lists it. */
typedef struct cli_subcommand {
    const char *name;
    const char *summary;               /* its lines of `clcompute --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
} cli_subcommand;

#endif
