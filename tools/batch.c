/* Many inputs for one subcommand: files and folders expanded into items, output names checked
 * before any work, the work spread over the selected devices (clc_batch), progress on stderr,
 * Ctrl-C honoured. */
#define _XOPEN_SOURCE 700 /* realpath: POSIX, but an XSI function to glibc's headers */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clcompute/clcompute.h>

#include "cli.h"

/* The launchers' rank and size variables, in the order they are read (the first complete pair
 * wins; half a pair is a mistake, never guessed). */
static const char *const shard_vars[][2] = {{"SLURM_PROCID", "SLURM_NTASKS"},
                                            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                            {"PMI_RANK", "PMI_SIZE"}};

static int whole_number(const char *text, unsigned long *v)
{
    char *end = NULL;
    errno = 0;
    *v = isdigit((unsigned char)text[0]) ? strtoul(text, &end, 10) : 0;
    return end && *end == '\0' && errno == 0 && *v < 0x80000000ul ? 0 : -1;
}

/* "K/N" (0 <= K < N), or "auto" from the launcher's environment. */
static int parse_shard(cli_batch *b, const char *text)
{
    unsigned long k = 0, n = 0;
    char kt[32], nt[32];
    if (strcmp(text, "auto") == 0) {
        for (size_t i = 0; i < sizeof shard_vars / sizeof shard_vars[0]; ++i) {
            const char *rank = getenv(shard_vars[i][0]), *size = getenv(shard_vars[i][1]);
            if (!rank && !size)
                continue;
            if (!rank || !size || whole_number(rank, &k) || whole_number(size, &n) || n == 0 ||
                k >= n) {
                cli_error("--shard auto: %s is %s%s%s and %s is %s%s%s; both must be set, with "
                          "the rank below the size",
                          shard_vars[i][0], rank ? "'" : "", rank ? rank : "unset", rank ? "'" : "",
                          shard_vars[i][1], size ? "'" : "", size ? size : "unset",
                          size ? "'" : "");
                return -1;
            }
            b->shard = (unsigned)k, b->shards = (unsigned)n;
            return 0;
        }
        cli_error("--shard auto: no launcher environment (SLURM_PROCID/SLURM_NTASKS, "
                  "OMPI_COMM_WORLD_RANK/_SIZE or PMI_RANK/PMI_SIZE); give --shard K/N");
        return -1;
    }
    const char *slash = strchr(text, '/');
    if (!slash || (size_t)(slash - text) >= sizeof kt || strlen(slash + 1) >= sizeof nt) {
        cli_error("--shard takes K/N (the K-th of N parts, from 0) or auto, not '%s'", text);
        return -1;
    }
    memcpy(kt, text, (size_t)(slash - text));
    kt[slash - text] = '\0';
    strcpy(nt, slash + 1);
    if (whole_number(kt, &k) || whole_number(nt, &n) || n == 0 || k >= n) {
        cli_error("--shard '%s': K and N must be whole numbers with 0 <= K < N", text);
        return -1;
    }
    b->shard = (unsigned)k, b->shards = (unsigned)n;
    return 0;
}

int cli_batch_arg(cli_batch *b, cli_args *a, int kind, void (*usage)(FILE *out))
{
    if (kind == CLI_POSITIONAL)
        return cli_batch_path(b, a->arg) != 0 ? -1 : 1;
    if (cli_is(a, "--help")) {
        usage(stdout);
        return CLI_ARG_HELP;
    }
    if (cli_is(a, "--output")) {
        return (b->outdir = cli_value(a)) ? 1 : -1;
    } else if (cli_is(a, "--quiet")) {
        b->quiet = 1;
        return cli_flag(a) ? -1 : 1;
    } else if (cli_is(a, "--recursive")) {
        b->recursive = 1;
        return cli_flag(a) ? -1 : 1;
    } else if (cli_is(a, "--overwrite")) {
        b->overwrite = 1;
        return cli_flag(a) ? -1 : 1;
    } else if (cli_is(a, "--cpu-partitions")) {
        return cli_whole(a, 1, 64, &b->cpu_partitions) ? -1 : 1;
    } else if (cli_is(a, "--workers")) {
        return cli_whole(a, 1, 64, &b->workers) ? -1 : 1;
    } else if (cli_is(a, "--stats")) {
        b->stats = 1;
        return cli_flag(a) ? -1 : 1;
    } else if (cli_is(a, "--shard")) {
        const char *v = cli_value(a);
        return !v || parse_shard(b, v) != 0 ? -1 : 1;
    } else if (cli_is(a, "--device")) {
        return (b->devices = cli_value(a)) ? 1 : -1;
    } else if (cli_is(a, "--format")) {
        return (b->format = cli_value(a)) ? 1 : -1;
    }
    return 0;
}

int cli_batch_single(const cli_batch *b)
{
    const char *batch_only = b->recursive        ? "--recursive"
                             : b->overwrite      ? "--overwrite"
                             : b->workers        ? "--workers"
                             : b->cpu_partitions ? "--cpu-partitions"
                             : b->shards         ? "--shard"
                             : b->stats          ? "--stats"
                                                 : NULL;
    if (!batch_only)
        return 0;
    cli_error("%s is for batches (inputs and -o OUTDIR); here one file is converted", batch_only);
    return -1;
}

int cli_single_run(cli_batch *b, int (*check)(const char *out, void *user), cli_convert convert,
                   void *user)
{
    if (b->format) {
        cli_error("--format is for batches (-o OUTDIR); OUT's extension names its format");
        return CLI_EXIT_USAGE;
    }
    const char *out = b->paths[1];
    struct stat st, in_st;
    const int exists = stat(out, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        cli_error("'%s' is a folder: give OUT a file name, or convert into the folder with -o '%s'",
                  out, out);
        return CLI_EXIT_USAGE;
    }
    if (exists && stat(b->paths[0], &in_st) == 0 && st.st_dev == in_st.st_dev &&
        st.st_ino == in_st.st_ino) {
        cli_error("'%s' is the input itself: the output would replace it (as a batch refuses "
                  "too); write elsewhere",
                  out);
        return CLI_EXIT_USAGE;
    }
    /* What the write would refuse after the work, said before it. */
    char why[1024], *target = NULL;
    if (cli_output_target(out, &target, why, sizeof why) != 0) {
        cli_error("%s; write elsewhere", why);
        return CLI_EXIT_USAGE;
    }
    free(target);
    if ((check && check(out, user) != 0) || cli_batch_single(b) != 0)
        return CLI_EXIT_USAGE;
    if (cli_interrupt_begin(NULL, NULL) != 0)
        return CLI_EXIT_FAILURE;
    cli_item item = {0};
    item.path = (char *)b->paths[0];
    const int rc = convert(NULL, &item, out, user) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    cli_interrupt_end();
    return rc;
}

int cli_files_parse(cli_batch *b, int argc, char **argv, void (*usage)(FILE *out),
                    int (*option)(cli_args *a, void *user), void *user)
{
    cli_args a;
    cli_args_init(&a, argc, argv);
    for (int kind; (kind = cli_next(&a)) != CLI_END;) {
        const int own = kind == CLI_OPTION ? option(&a, user) : 0;
        if (own < 0)
            return CLI_EXIT_USAGE;
        if (own > 0)
            continue;
        const int shared = cli_batch_arg(b, &a, kind, usage);
        if (shared == CLI_ARG_HELP)
            return CLI_EXIT_OK;
        if (shared < 0)
            return CLI_EXIT_USAGE;
        if (shared == 0)
            return cli_unknown(&a);
    }
    return CLI_ARGS_READ;
}

const char *cli_format_name(const cli_batch *b, const char *default_format)
{
    return b->format ? b->format + (b->format[0] == '.') : default_format;
}

int cli_files_run(cli_batch *b, const char *default_format,
                  int (*format_ok)(const char *ext, void *user),
                  int (*check)(const char *out, void *user), cli_convert convert, void *user)
{
    if (b->outdir) {
        const char *f = cli_format_name(b, default_format);
        /* A format is a name ("png", ".png"), not a tail of a file name ("x.png"), in any case
         * (--format PGM); files get the usual lower-case extension, as cloud's --format does. */
        char ext[16] = ".";
        size_t n = 0;
        while (f[n] && n < sizeof ext - 2 && isalnum((unsigned char)f[n])) {
            ext[n + 1] = (char)tolower((unsigned char)f[n]);
            ++n;
        }
        ext[n + 1] = '\0';
        if (n == 0 || f[n] != '\0') {
            cli_error("--format '%s' is not a format %s writes", b->format, cli_command());
            return CLI_EXIT_USAGE;
        }
        if (format_ok && format_ok(ext, user) != 0)
            return CLI_EXIT_USAGE;
        return cli_batch_run(b, ext, convert, user);
    }
    if (b->npaths == 2)
        return cli_single_run(b, check, convert, user);
    cli_error("give IN OUT, or inputs and -o OUTDIR (see %s --help)", cli_command());
    return CLI_EXIT_USAGE;
}

clc_context *cli_context(const char *device)
{
    clc_context_options options = {0};
    options.device = device;
    clc_context *ctx = NULL;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS)
        cli_error("%s", clc_last_error());
    return ctx;
}

int cli_batch_path(cli_batch *b, const char *path)
{
    const char **grown = realloc(b->paths, (b->npaths + 1) * sizeof *grown);
    if (!grown) {
        cli_error("out of memory");
        return -1;
    }
    b->paths = grown;
    b->paths[b->npaths++] = path;
    return 0;
}

static void free_items(cli_batch *b)
{
    for (size_t i = 0; i < b->count; ++i) {
        free(b->items[i].path);
        free(b->items[i].rel);
    }
    free(b->items);
    b->items = NULL;
    b->count = 0;
}

void cli_batch_free(cli_batch *b)
{
    free_items(b);
    free(b->paths);
    b->paths = NULL;
    b->npaths = 0;
}

size_t cli_stem(const char *path, const char **start)
{
    const char *slash = strrchr(path, '/');
    *start = slash ? slash + 1 : path;
    const char *dot = strrchr(*start, '.');
    return dot && dot != *start ? (size_t)(dot - *start) : strlen(*start);
}

/* What a folder scan left out, for one message at the end, and what it must not enter. */
typedef struct skipped {
    char **names;
    size_t count, folders, hidden, loops, special;
    size_t unreadable;      /* entries stat could not follow (a link to nothing, a loop of links) */
    char *first_unreadable; /* the first of them, and why, for the message */
    size_t arg;             /* the command-line folder being scanned */
    char *out_seen;         /* where a scan met the output folder, for the message */
    dev_t out_dev;          /* the output folder, when it exists: never an input */
    ino_t out_ino;
    int has_out;
    struct stat *path; /* the folders from the input folder down to the one scanned */
    size_t depth;
} skipped;

/* a/b, one slash between them however many a ends with ("out/" and "x.png": "out/x.png"). */
static char *join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/' && *b)
        --la;
    const size_t n = la + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*s%s%s", (int)la, a, la && *b && a[la - 1] != '/' ? "/" : "", b);
    return s;
}

/* folder: the stat of the folder holding path's entry; arg: the command-line path it came from. */
static int add_item(cli_batch *b, const char *path, const struct stat *folder, const char *dir_rel,
                    size_t arg)
{
    cli_item *grown = realloc(b->items, (b->count + 1) * sizeof *grown);
    if (!grown) {
        cli_error("out of memory");
        return -1;
    }
    b->items = grown;
    const char *stem = NULL;
    const size_t n = cli_stem(path, &stem);
    char *name = strndup(stem, n);
    cli_item item = {
        strdup(path), name ? join(dir_rel, name) : NULL, folder->st_dev, folder->st_ino, NULL, arg,
        b->count};
    free(name);
    if (item.path) {
        const char *slash = strrchr(item.path, '/');
        item.name = slash ? slash + 1 : item.path;
    }
    if (!item.path || !item.rel) {
        free(item.path);
        free(item.rel);
        cli_error("out of memory");
        return -1;
    }
    b->items[b->count++] = item;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Whether st is the output folder, or a folder the scan is already inside (a link back up). */
static int skip_folder(const skipped *s, const struct stat *st)
{
    if (s->has_out && st->st_dev == s->out_dev && st->st_ino == s->out_ino)
        return 1;
    for (size_t i = 0; i < s->depth; ++i)
        if (s->path[i].st_dev == st->st_dev && s->path[i].st_ino == st->st_ino)
            return 1;
    return 0;
}

/* The entries of folder `dir` (rel: its path below the input folder; st: what it is), sorted by
 * name. Hidden entries (names starting with '.') are left alone, and counted. */
static int scan(cli_batch *b, const char *dir, const struct stat *dst, const char *rel, skipped *s)
{
    struct dirent **names = NULL;
    const int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        cli_error("cannot list '%s': %s", dir, strerror(errno));
        return -1;
    }
    struct stat *grown = realloc(s->path, (s->depth + 1) * sizeof *grown);
    if (!grown) {
        for (int i = 0; i < n; ++i)
            free(names[i]);
        free(names);
        cli_error("out of memory");
        return -1;
    }
    s->path = grown;
    s->path[s->depth++] = *dst;
    int rc = 0;
    for (int i = 0; i < n; ++i) {
        const char *name = names[i]->d_name;
        const int dots = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
        s->hidden += name[0] == '.' && !dots;
        char *full = name[0] == '.' || rc ? NULL : join(dir, name);
        struct stat st;
        if (full && stat(full, &st) != 0) {
            if (!s->unreadable++) { /* why, before malloc may change errno */
                const char *why = strerror(errno);
                const size_t len = strlen(full) + strlen(why) + 8;
                if ((s->first_unreadable = malloc(len)))
                    snprintf(s->first_unreadable, len, "'%s' (%s)", full, why);
            }
        } else if (full) {
            const int is_out = s->has_out && st.st_dev == s->out_dev && st.st_ino == s->out_ino;
            if (S_ISDIR(st.st_mode) && is_out && b->recursive) {
                if (!s->out_seen) {
                    s->out_seen = full;
                    full = NULL;
                }
            } else if (S_ISDIR(st.st_mode) && skip_folder(s, &st)) {
                s->loops += !is_out;
            } else if (S_ISDIR(st.st_mode) && b->recursive) {
                char *sub = join(rel, name);
                rc = sub ? scan(b, full, &st, sub, s) : -1;
                free(sub);
            } else if (S_ISDIR(st.st_mode)) {
                ++s->folders;
            } else if (!S_ISREG(st.st_mode)) {
                /* A FIFO would block its worker until something writes to it, a device could
                 * be endless: a folder's files are regular ones. (Named on the command line,
                 * such a file is read: the user asked for it.) */
                ++s->special;
            } else if (b->accept(name)) {
                rc = add_item(b, full, dst, rel, s->arg);
            } else {
                char **more = realloc(s->names, (s->count + 1) * sizeof *more);
                if (more) {
                    s->names = more;
                    s->names[s->count++] = full;
                    full = NULL;
                }
            }
        }
        free(full);
        free(names[i]);
    }
    free(names);
    --s->depth;
    return rc;
}

/* Files in order of device, then inode. */
static int by_inode(dev_t xd, ino_t xi, dev_t yd, ino_t yi)
{
    if (xd != yd)
        return xd < yd ? -1 : 1;
    return xi == yi ? 0 : xi < yi ? -1 : 1;
}

/* Items in order of folder entry: the folder's device and inode, then the name. */
static int by_entry(const cli_item *x, const cli_item *y)
{
    const int c = by_inode(x->dev, x->ino, y->dev, y->ino);
    return c ? c : strcmp(x->name, y->name);
}

/* By folder entry then position, to find an entry given twice. */
static int by_file(const void *a, const void *b)
{
    const cli_item *x = a, *y = b;
    const int c = by_entry(x, y);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int by_order(const void *a, const void *b)
{
    const cli_item *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static void drop_repeats(cli_batch *b)
{
    if (b->count < 2)
        return;
    qsort(b->items, b->count, sizeof *b->items, by_file);
    /* An entry given twice is converted once, in its first place, when two command-line paths
     * give it (a folder and a file or subfolder in it, at any depth, by any path; a folder twice)
     * or one gives it twice under one output name. Found twice in one folder's scan under other
     * names (a link to a folder, ds/latest -> v3), it is mirrored under each, as other names of
     * one file (hard or symbolic links) are. */
    size_t kept = 0, group = 0;
    for (size_t i = 0; i < b->count; ++i) {
        const cli_item it = b->items[i];
        if (kept > group && by_entry(&b->items[group], &it) != 0)
            group = kept; /* a new entry: its kept items start here */
        int repeat = 0;
        for (size_t k = group; k < kept && !repeat; ++k)
            repeat = it.arg != b->items[k].arg || strcmp(it.rel, b->items[k].rel) == 0;
        if (repeat) {
            free(it.path);
            free(it.rel);
        } else {
            b->items[kept++] = it;
        }
    }
    b->count = kept;
    qsort(b->items, b->count, sizeof *b->items, by_order);
}

int cli_batch_expand(cli_batch *b)
{
    free_items(b);
    skipped s;
    memset(&s, 0, sizeof s);
    struct stat out;
    if (b->outdir && stat(b->outdir, &out) == 0 && S_ISDIR(out.st_mode))
        s.has_out = 1, s.out_dev = out.st_dev, s.out_ino = out.st_ino;
    int rc = 0;
    for (size_t i = 0; i < b->npaths && rc == 0; ++i) {
        struct stat st;
        if (stat(b->paths[i], &st) != 0) {
            cli_error("cannot read '%s': %s", b->paths[i], strerror(errno));
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            s.arg = i;
            rc = scan(b, b->paths[i], &st, "", &s);
        } else {
            /* The entry's folder: the path up to its last '/', or "." (or "/"). */
            const char *slash = strrchr(b->paths[i], '/');
            char *folder = slash ? strndup(b->paths[i], (size_t)(slash - b->paths[i])) : NULL;
            struct stat fst;
            if (slash && !folder) {
                cli_error("out of memory");
                rc = -1;
            } else if (stat(!slash ? "." : *folder ? folder : "/", &fst) != 0) {
                cli_error("cannot read the folder of '%s': %s", b->paths[i], strerror(errno));
                rc = -1;
            } else {
                rc = add_item(b, b->paths[i], &fst, "", i);
            }
            free(folder);
        }
    }
    if (rc == 0)
        drop_repeats(b);
    if (rc == 0 && !b->quiet && (s.count || s.folders)) {
        char list[512] = "";
        size_t used = 0;
        for (size_t i = 0; i < s.count && i < 5; ++i)
            used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0,
                                     "%s'%s'", i ? ", " : "", s.names[i]);
        if (s.count)
            cli_error("skipped %zu file%s, not %s by extension (%s): %s%s", s.count,
                      s.count == 1 ? "" : "s", b->kind, b->extensions, list,
                      s.count > 5 ? ", ..." : "");
        if (s.folders)
            cli_error("skipped %zu folder%s (--recursive converts subfolders too)", s.folders,
                      s.folders == 1 ? "" : "s");
    }
    if (rc == 0 && !b->quiet && s.special)
        cli_error("skipped %zu entr%s that %s not a regular file (a FIFO, socket or device; name "
                  "one on the command line to read it)",
                  s.special, s.special == 1 ? "y" : "ies", s.special == 1 ? "is" : "are");
    if (rc == 0 && !b->quiet && s.unreadable)
        cli_error("skipped %zu entr%s that could not be read, as a link to nothing: %s%s",
                  s.unreadable, s.unreadable == 1 ? "y" : "ies",
                  s.first_unreadable ? s.first_unreadable : "", s.unreadable > 1 ? ", ..." : "");
    free(s.first_unreadable);
    if (rc == 0 && !b->quiet && s.out_seen)
        cli_error("skipped '%s': it is the output folder, so its files are outputs, not inputs",
                  s.out_seen);
    if (rc == 0 && !b->quiet && s.hidden)
        cli_error("skipped %zu hidden entr%s (names starting with '.')", s.hidden,
                  s.hidden == 1 ? "y" : "ies");
    if (rc == 0 && !b->quiet && s.loops)
        cli_error("skipped %zu link%s to a folder the scan was already in (a loop)", s.loops,
                  s.loops == 1 ? "" : "s");
    for (size_t i = 0; i < s.count; ++i)
        free(s.names[i]);
    free(s.names);
    free(s.path);
    free(s.out_seen);
    return rc;
}

/* ---- output names ---- */

typedef struct named {
    char *out;
    size_t item;
} named;

static int by_out(const void *a, const void *b)
{
    const named *x = a, *y = b;
    const int c = strcmp(x->out, y->out);
    return c ? c : (x->item > y->item) - (x->item < y->item);
}

/* mkdir -p; 0, or -1 with errno set. */
static int make_dirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path)
        return -1;
    int rc = 0;
    for (char *p = path + 1; rc == 0; ++p) {
        if (*p != '/' && *p != '\0')
            continue;
        const char saved = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            rc = -1;
        else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = -1, errno = ENOTDIR;
        *p = saved;
        if (saved == '\0')
            break;
    }
    const int saved_errno = errno;
    free(path);
    errno = saved_errno;
    return rc;
}

/* An input read, or an output written, and where: the folder it is renamed into (or read from)
 * as device and inode, so that bind mounts and links to one folder compare equal, and its name
 * there, with the folders below the deepest existing one when those do not exist yet. */
typedef struct landing_at {
    dev_t dev;
    ino_t ino;
    char *rest;
    int output;
    size_t item;
} landing_at;

/* Where a file at p (not a link itself: an input's real path, an output's target) is read or
 * written: 0; 1 after a message when a folder on the way is a link that leads nowhere (the write
 * would fail, or land elsewhere); -1 when out of memory. */
static int landing(const char *p, int output, size_t item, landing_at *at)
{
    struct stat st;
    int rc = -1;
    for (size_t cut = strlen(p);;) {
        while (cut > 0 && p[cut - 1] != '/') /* the folder part: p[0, cut - 1) */
            --cut;
        char *dir = cut > 1 ? strndup(p, cut - 1) : strdup(cut == 1 ? "/" : ".");
        if (!dir)
            break;
        if (stat(dir, &st) == 0) {
            *at = (landing_at){st.st_dev, st.st_ino, strdup(p + cut), output, item};
            rc = at->rest ? 0 : -1;
        } else if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
            cli_error("output folder '%s' is a symbolic link that leads to no folder; nothing was "
                      "converted",
                      dir);
            rc = 1;
        } else if (cut > 0) {
            free(dir);
            --cut; /* past the '/': try the folder above */
            continue;
        }
        free(dir);
        break;
    }
    return rc;
}

static int by_where(const void *a, const void *b)
{
    const landing_at *x = a, *y = b;
    int c = by_inode(x->dev, x->ino, y->dev, y->ino);
    if (!c)
        c = strcmp(x->rest, y->rest);
    return c ? c : (x->output > y->output) - (x->output < y->output);
}

/* Where every output would land: no output on an input (its own or another's, through links or
 * bind mounts), no two outputs on one file (links to one file or folder), no output on a file
 * that is not a regular one or through a link that leads nowhere. A hard link is another entry:
 * the rename replaces only the name it writes. 0, or the exit code after a message. */
static int check_landings(const cli_batch *b, char **names)
{
    landing_at *at = calloc(2 * b->count + 1, sizeof *at);
    size_t n = 0;
    int rc = at ? 0 : -1;
    for (size_t i = 0; i < b->count && rc == 0; ++i) {
        char why[1024], *target = NULL;
        if (cli_output_target(names[i], &target, why, sizeof why) != 0) {
            cli_error("output %s; nothing was converted", why);
            rc = 1;
            break;
        }
        char *in = realpath(b->items[i].path, NULL);
        if (in) {
            rc = landing(in, 0, i, &at[n]);
            n += rc == 0;
            free(in);
        }
        if (rc == 0) {
            rc = landing(target ? target : names[i], 1, i, &at[n]);
            n += rc == 0;
        }
        free(target);
    }
    if (rc < 0)
        cli_error("out of memory");
    if (rc == 0)
        qsort(at, n, sizeof *at, by_where);
    for (size_t i = 1; i < n && rc == 0; ++i) {
        const landing_at *x = &at[i - 1], *y = &at[i];
        if (by_inode(x->dev, x->ino, y->dev, y->ino) || strcmp(x->rest, y->rest) || !y->output)
            continue;
        if (!x->output && x->item == y->item)
            cli_error("'%s' would be overwritten by its own output; choose another output folder",
                      b->items[x->item].path);
        else if (!x->output)
            cli_error("output '%s' is input '%s' (through a link or mount): converting '%s' would "
                      "overwrite it; nothing was converted",
                      names[y->item], b->items[x->item].path, b->items[y->item].path);
        else
            cli_error("outputs '%s' and '%s' are one file (through links): one would overwrite "
                      "the other; nothing was converted",
                      names[x->item], names[y->item]);
        rc = 1;
    }
    for (size_t i = 0; i < n; ++i)
        free(at[i].rest);
    free(at);
    return rc < 0 ? CLI_EXIT_FAILURE : rc ? CLI_EXIT_USAGE : 0;
}

/* The output name of every item, checked before any work: no two the same, none an input, the
 * folders made and writable. The names in *outs (one per item, in item order); 0, or the exit
 * code after a message. */
static int plan_outputs(cli_batch *b, const char *ext, char ***outs)
{
    named *n = calloc(b->count, sizeof *n);
    char **names = calloc(b->count, sizeof *names);
    int rc = names && n ? 0 : CLI_EXIT_FAILURE;
    for (size_t i = 0; i < b->count && rc == 0; ++i) {
        char *dir = join(b->outdir, b->items[i].rel);
        const size_t len = dir ? strlen(dir) + strlen(ext) + 1 : 0;
        names[i] = dir ? malloc(len) : NULL;
        if (names[i])
            snprintf(names[i], len, "%s%s", dir, ext);
        free(dir);
        n[i] = (named){names[i], i};
        if (!names[i])
            rc = CLI_EXIT_FAILURE;
    }
    if (rc != 0)
        cli_error("out of memory");
    if (rc == 0) {
        qsort(n, b->count, sizeof *n, by_out);
        for (size_t i = 1; i < b->count && rc == 0; ++i) {
            if (strcmp(n[i - 1].out, n[i].out) != 0)
                continue;
            size_t last = i;
            while (last + 1 < b->count && strcmp(n[last + 1].out, n[i].out) == 0)
                ++last;
            char also[512] = "";
            for (size_t k = i + 1, used = 0; k <= last && used < sizeof also; ++k)
                used += (size_t)snprintf(also + used, sizeof also - used, ", '%s'",
                                         b->items[n[k].item].path);
            cli_error("'%s'%s and '%s' would %s be written to '%s'; nothing was converted "
                      "(rename all but one, or convert them in separate runs)",
                      b->items[n[i - 1].item].path, last > i ? also : "", b->items[n[i].item].path,
                      last > i ? "all" : "both", n[i].out);
            rc = CLI_EXIT_USAGE;
        }
    }
    struct stat st;
    const int exists = rc == 0 && stat(b->outdir, &st) == 0;
    b->made_outdir = rc == 0 && !exists && errno == ENOENT;
    if (exists && !S_ISDIR(st.st_mode)) {
        cli_error("-o '%s' is an existing file, not a folder; nothing was converted", b->outdir);
        rc = CLI_EXIT_USAGE;
    } else if (rc == 0 && make_dirs(b->outdir) != 0) {
        cli_error("cannot make output folder '%s': %s", b->outdir, strerror(errno));
        rc = CLI_EXIT_FAILURE;
    }
    if (rc == 0)
        rc = check_landings(b, names);
    for (size_t i = 0; i < b->count && rc == 0; ++i) {
        const char *slash = strrchr(names[i], '/');
        if (rc == 0 && strchr(b->items[i].rel, '/')) {
            char *dir = strndup(names[i], (size_t)(slash - names[i]));
            if (!dir || make_dirs(dir) != 0) {
                cli_error("cannot make output folder '%s': %s", dir ? dir : names[i],
                          strerror(errno));
                rc = CLI_EXIT_FAILURE;
            }
            free(dir);
        }
    }
    if (rc == 0) {
        /* Written to before anything is read: a read-only or full folder fails here, once. */
        char *probe = join(b->outdir, ".clcompute-probe-XXXXXX");
        const int fd = probe ? mkstemp(probe) : -1;
        if (fd < 0) {
            cli_error("cannot write in output folder '%s': %s", b->outdir, strerror(errno));
            rc = CLI_EXIT_FAILURE;
        } else {
            close(fd);
            unlink(probe);
        }
        free(probe);
    }
    free(n);
    if (rc != 0 && names) {
        for (size_t i = 0; i < b->count; ++i)
            free(names[i]);
        free(names);
        names = NULL;
    }
    *outs = names;
    return rc;
}

/* ---- running ---- */

typedef struct batch_job {
    const cli_batch *batch;
    char **outs;
    cli_convert convert;
    void *user;
} batch_job;

static clc_status run_item(clc_context *ctx, size_t item, void *arg)
{
    const batch_job *j = arg;
    return j->convert(ctx, &j->batch->items[item], j->outs[item], j->user) == 0 ? CLC_SUCCESS
                                                                                : CLC_ERROR_IO;
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

/* The batch to cancel on Ctrl-C, once it exists. */
typedef struct stopper {
    _Atomic(clc_batch *) batch;
    atomic_int requested;
} stopper;

static void stop(void *arg)
{
    stopper *s = arg;
    atomic_store(&s->requested, 1);
    clc_batch *b = atomic_load(&s->batch);
    if (b)
        clc_batch_cancel(b);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    if (p->quiet || cli_interrupted())
        return;
    const double t = now(), rate = (double)done / (t - p->start > 1e-9 ? t - p->start : 1e-9);
    const double eta = rate > 0 ? (double)(count - done) / rate : 0.0;
    if (p->tty) {
        if (t - p->last < 0.1 && done < count)
            return;
        p->last = t;
        char bar[31], text[160];
        const size_t fill = count ? done * 30 / count : 30;
        for (size_t i = 0; i < 30; ++i)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        snprintf(text, sizeof text, "[%s] %zu/%zu  %.1f items/s  ETA %.0f s%s", bar, done, count,
                 rate, eta, failed ? "  (some failed)" : "");
        cli_progress_line(text);
    } else if (done % ((count + 9) / 10) == 0 || done == count) {
        cli_print("%zu/%zu done, %zu failed, %.1f items/s", done, count, failed, rate);
    }
}

/* The summary: items per device, devices named apart when two share a name (sub-devices, or a
 * device named twice). */
static void summary(clc_batch *batch)
{
    const size_t n = clc_batch_device_count(batch);
    for (size_t d = 0; d < n; ++d) {
        const char *name = clc_batch_device(batch, d)->name;
        size_t same = 0, rank = 0;
        for (size_t e = 0; e < n; ++e) {
            if (strcmp(clc_batch_device(batch, e)->name, name) == 0) {
                ++same;
                if (e < d)
                    ++rank;
            }
        }
        if (same > 1)
            cli_print("  %s #%zu: %zu items", name, rank + 1, clc_batch_items_done(batch, d));
        else
            cli_print("  %s: %zu items", name, clc_batch_items_done(batch, d));
    }
}

/* Outputs that exist already, unless --overwrite: the names a folder's files get can be those of
 * files the user keeps there (an original next to its input, another run's results), which a
 * batch would replace without a word. Only this process's items: other shards may be writing
 * theirs. 0, or the exit code after a message. */
static int check_existing(const cli_batch *b, char **outs)
{
    if (b->overwrite)
        return 0;
    size_t found = 0, first = 0;
    for (size_t i = 0; i < b->count; ++i) {
        struct stat st;
        if (lstat(outs[i], &st) == 0 && found++ == 0)
            first = i;
    }
    if (!found)
        return 0;
    if (found == 1)
        cli_error("output '%s' exists already; nothing was converted (--overwrite replaces it, or "
                  "choose another output folder)",
                  outs[first]);
    else
        cli_error("output '%s' and %zu more exist already; nothing was converted (--overwrite "
                  "replaces them, or choose another output folder)",
                  outs[first], found - 1);
    return CLI_EXIT_USAGE;
}

/* The output folder again, when this run made it and wrote nothing there (every item refused
 * or failed, or none was this shard's): rmdir removes only an empty folder. */
static int unmake_outdir(const cli_batch *b, int rc)
{
    if (b->made_outdir)
        (void)rmdir(b->outdir);
    return rc;
}

int cli_batch_run(cli_batch *b, const char *ext, cli_convert convert, void *user)
{
    if (!b->npaths) {
        cli_error("no inputs (give files or folders, then -o OUTDIR)");
        return CLI_EXIT_USAGE;
    }
    if (cli_batch_expand(b) != 0)
        return CLI_EXIT_FAILURE;
    if (!b->count) {
        cli_error("no %s among the inputs", b->kind);
        return CLI_EXIT_FAILURE;
    }
    char **outs = NULL;
    int rc = plan_outputs(b, ext, &outs);
    if (rc != 0)
        return unmake_outdir(b, rc);
    if (b->shards) {
        /* Every process checked the whole list (so they all refuse the same mistakes); each
         * keeps the items whose place in it is its own, round-robin: shards differ by one at
         * most, and the union of all of them is the list, each item once. */
        size_t kept = 0;
        for (size_t i = 0; i < b->count; ++i) {
            if (i % b->shards == b->shard) {
                b->items[kept] = b->items[i];
                outs[kept++] = outs[i];
            } else {
                free(b->items[i].path);
                free(b->items[i].rel);
                free(outs[i]);
            }
        }
        if (!b->quiet)
            cli_error("shard %u of %u: %zu of %zu items", b->shard, b->shards, kept, b->count);
        b->count = kept;
        if (!kept) {
            free(outs);
            return unmake_outdir(b, CLI_EXIT_OK);
        }
    }
    stopper s = {NULL, 0};
    clc_status *statuses = NULL;
    if ((rc = check_existing(b, outs)) != 0)
        goto done;
    statuses = malloc(b->count * sizeof *statuses);
    if (!statuses || cli_interrupt_begin(stop, &s) != 0) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    clc_batch_options o = {0};
    o.devices = b->devices;
    o.cpu_partitions = b->cpu_partitions;
    o.workers_per_device = b->workers ? b->workers : default_workers();
    clc_batch *batch = NULL;
    if (clc_batch_create(&o, &batch) != CLC_SUCCESS) {
        cli_interrupt_end();
        cli_error("%s", clc_last_error());
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    atomic_store(&s.batch, batch);
    batch_job job = {b, outs, convert, user};
    progress_state p = {now(), 0.0, isatty(STDERR_FILENO), b->quiet};
    if (!atomic_load(&s.requested))
        clc_batch_run(batch, b->count, run_item, &job, statuses, progress, &p);
    else
        for (size_t i = 0; i < b->count; ++i)
            statuses[i] = CLC_ERROR_CANCELLED;
    const int interrupted = cli_interrupted();
    cli_interrupt_end();
    cli_progress_end();
    size_t failed = 0, cancelled = 0;
    for (size_t i = 0; i < b->count; ++i) {
        failed += statuses[i] != CLC_SUCCESS && statuses[i] != CLC_ERROR_CANCELLED;
        cancelled += statuses[i] == CLC_ERROR_CANCELLED;
    }
    if (!b->quiet)
        summary(batch);
    if (b->stats) {
        size_t workers = 0;
        for (size_t d = 0; d < clc_batch_device_count(batch); ++d)
            workers += clc_batch_workers(batch, d);
        cli_stages_print(b->count - cancelled, now() - p.start, workers);
    }
    if (interrupted)
        cli_error("interrupted: %zu of %zu items not started; every file written is complete",
                  cancelled, b->count);
    if (failed)
        cli_error("%zu of %zu items failed (messages above)", failed, b->count);
    rc = interrupted ? interrupted : failed ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    clc_batch_destroy(batch);
done:
    free(statuses);
    for (size_t i = 0; i < b->count; ++i)
        free(outs[i]);
    free(outs);
    return unmake_outdir(b, rc);
}
