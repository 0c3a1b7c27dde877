/* Many inputs for one subcommand: files and folders expanded into items, outputs named in OUTDIR,
 * the work spread over the selected devices (clc_batch), progress on stderr, Ctrl-C honoured. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clcompute/clcompute.h>

#include "cli.h"

/* Appends path, or the regular files of a folder (sorted, hidden ones skipped). */
static int add_input(cli_batch *b, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct dirent **names = NULL;
        const int n = scandir(path, &names, NULL, alphasort);
        if (n < 0) {
            fprintf(stderr, "clcompute: cannot list '%s'\n", path);
            return -1;
        }
        int rc = 0;
        for (int i = 0; i < n; ++i) {
            char full[4096];
            snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
            struct stat fs;
            if (rc == 0 && names[i]->d_name[0] != '.' && stat(full, &fs) == 0 &&
                S_ISREG(fs.st_mode))
                rc = add_input(b, full);
            free(names[i]);
        }
        free(names);
        return rc;
    }
    char **grown = realloc(b->inputs, (b->count + 1) * sizeof *grown);
    if (grown)
        b->inputs = grown;
    char *copy = grown ? strdup(path) : NULL;
    if (!copy) {
        fprintf(stderr, "clcompute: out of memory\n");
        return -1;
    }
    b->inputs[b->count++] = copy;
    return 0;
}

int cli_batch_option(cli_batch *b, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const int has_value = *i + 1 < argc;
    if (strcmp(a, "--quiet") == 0) {
        b->quiet = 1;
        return 1;
    }
    const int partitions = strcmp(a, "--cpu-partitions") == 0,
              workers = strcmp(a, "--workers") == 0;
    if (!(partitions || workers) || !has_value)
        return 0;
    char *end = NULL;
    const unsigned long v = strtoul(argv[++*i], &end, 10);
    if (*end != '\0' || v < 1 || v > 64) {
        fprintf(stderr, "clcompute: %s takes a number from 1 to 64\n", a);
        return -1;
    }
    *(partitions ? &b->cpu_partitions : &b->workers) = (unsigned)v;
    return 1;
}

int cli_batch_add(cli_batch *b, const char *path)
{
    return add_input(b, path);
}

int cli_batch_path(cli_batch *b, const char *path)
{
    if (!b->outdir && !path)
        return 0;
    if (!b->outdir && b->nsingle < 2) {
        b->single[b->nsingle++] = path;
        return 0;
    }
    for (int k = 0; k < b->nsingle; ++k)
        if (cli_batch_add(b, b->single[k]) != 0)
            return -1;
    b->nsingle = 0;
    return path ? cli_batch_add(b, path) : 0;
}

void cli_batch_free(cli_batch *b)
{
    for (size_t i = 0; i < b->count; ++i)
        free(b->inputs[i]);
    free(b->inputs);
    b->inputs = NULL;
    b->count = 0;
}

size_t cli_stem(const char *path, const char **start)
{
    const char *slash = strrchr(path, '/');
    *start = slash ? slash + 1 : path;
    const char *dot = strrchr(*start, '.');
    return dot && dot != *start ? (size_t)(dot - *start) : strlen(*start);
}

/* What every item's job needs: the batch, the output extension and the conversion. */
typedef struct batch_job {
    const cli_batch *batch;
    const char *ext;
    cli_convert convert;
    void *user;
} batch_job;

static clc_status run_item(clc_context *ctx, size_t item, void *arg)
{
    const batch_job *j = arg;
    const char *in = j->batch->inputs[item], *base = NULL;
    const int stem = (int)cli_stem(in, &base);
    char out[4096];
    if (snprintf(out, sizeof out, "%s/%.*s%s", j->batch->outdir, stem, base, j->ext) >=
        (int)sizeof out) {
        fprintf(stderr, "clcompute: output name for '%s' is too long\n", in);
        return CLC_ERROR_INVALID_ARGUMENT;
    }
    return j->convert(ctx, in, out, j->user) == 0 ? CLC_SUCCESS : CLC_ERROR_IO;
}

/* Workers a device when --workers is not given: one a host core. Each item's decoding and
 * encoding (stb, one thread) costs far more than its device work - 0.8 s against milliseconds
 * for a 4K photo on the H200 host, where 16 workers made 15.3 photos/s against 2.1 with two - so
 * the library's default, sized to hide transfers, would leave the cores idle. */
static unsigned default_workers(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 2 ? 2u : cores > 64 ? 64u : (unsigned)cores;
}

static clc_batch *running; /* for the SIGINT handler */

static void on_interrupt(int sig)
{
    (void)sig;
    clc_batch_cancel(running); /* only an atomic store: safe in a handler */
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct progress_state {
    double start, last;
    int tty, quiet;
} progress_state;

/* A bar on a terminal (items, items/s, ETA); otherwise a plain line every tenth of the work. */
static void progress(size_t done, size_t failed, size_t count, void *user)
{
    progress_state *p = user;
    if (p->quiet)
        return;
    const double t = now(), rate = done / (t - p->start > 1e-9 ? t - p->start : 1e-9);
    const double eta = rate > 0 ? (double)(count - done) / rate : 0.0;
    if (p->tty) {
        if (t - p->last < 0.1 && done < count)
            return;
        p->last = t;
        char bar[31];
        const size_t fill = count ? done * 30 / count : 30;
        for (size_t i = 0; i < 30; ++i)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %zu/%zu  %.1f items/s  ETA %.0f s%s%s", bar, done, count, rate, eta,
                failed ? "  failed: " : "", failed ? "yes" : "");
        if (done == count)
            fputc('\n', stderr);
    } else if (done % ((count + 9) / 10) == 0 || done == count) {
        fprintf(stderr, "%zu/%zu done, %zu failed, %.1f items/s\n", done, count, failed, rate);
    }
}

int cli_batch_run(cli_batch *b, const char *ext, cli_convert convert, void *user)
{
    batch_job job = {b, ext, convert, user};
    if (!b->count) {
        fprintf(stderr, "clcompute: no input files\n");
        return CLI_EXIT_USAGE;
    }
    struct stat st;
    if (stat(b->outdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "clcompute: output folder '%s' does not exist\n", b->outdir);
        return CLI_EXIT_FAILURE;
    }
    clc_batch_options o = {0};
    o.devices = b->devices;
    o.cpu_partitions = b->cpu_partitions;
    o.workers_per_device = b->workers ? b->workers : default_workers();
    clc_batch *batch = NULL;
    if (clc_batch_create(&o, &batch) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute: %s\n", clc_last_error());
        return CLI_EXIT_FAILURE;
    }
    clc_status *statuses = malloc(b->count * sizeof *statuses);
    if (!statuses) {
        clc_batch_destroy(batch);
        fprintf(stderr, "clcompute: out of memory\n");
        return CLI_EXIT_FAILURE;
    }
    running = batch;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, &old);
    progress_state p = {now(), 0.0, isatty(STDERR_FILENO), b->quiet};
    const clc_status result =
        clc_batch_run(batch, b->count, run_item, &job, statuses, progress, &p);
    sigaction(SIGINT, &old, NULL);
    running = NULL;
    size_t failed = 0, cancelled = 0;
    for (size_t i = 0; i < b->count; ++i) {
        failed += statuses[i] != CLC_SUCCESS && statuses[i] != CLC_ERROR_CANCELLED;
        cancelled += statuses[i] == CLC_ERROR_CANCELLED;
    }
    if (!b->quiet) {
        for (size_t d = 0; d < clc_batch_device_count(batch); ++d)
            fprintf(stderr, "  %s: %zu items\n", clc_batch_device(batch, d)->name,
                    clc_batch_items_done(batch, d));
    }
    if (cancelled)
        fprintf(stderr,
                "clcompute: interrupted: %zu of %zu items not started; every file "
                "written is complete\n",
                cancelled, b->count);
    if (failed)
        fprintf(stderr, "clcompute: %zu of %zu items failed (messages above)\n", failed, b->count);
    free(statuses);
    clc_batch_destroy(batch);
    return result == CLC_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
