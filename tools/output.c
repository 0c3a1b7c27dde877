/* What the tool writes: messages and the progress line on stderr, output files whole or not at
 * all, and what happens on Ctrl-C. The tool's one piece of shared state lives here, behind one
 * lock: the message prefix, the progress line's length, and the temporary files being written. */
#define _XOPEN_SOURCE 700 /* realpath: POSIX, but an XSI function to glibc's headers */
#define _GNU_SOURCE       /* O_TMPFILE (Linux), where the system has it */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *command = "clcompute";
static size_t line; /* characters of the progress line on screen; 0: none */

void cli_set_command(const char *name)
{
    command = name;
}

const char *cli_command(void)
{
    return command;
}

/* With the lock held: the progress line blanked out, the cursor at its start. */
static void clear_line(void)
{
    if (!line)
        return;
    fprintf(stderr, "\r%*s\r", (int)line, "");
    line = 0;
}

static void vsay(int prefixed, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&lock);
    clear_line();
    if (prefixed)
        fprintf(stderr, "%s: ", command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    pthread_mutex_unlock(&lock);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(1, fmt, ap);
    va_end(ap);
}

void cli_print(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(0, fmt, ap);
    va_end(ap);
}

void cli_progress_line(const char *text)
{
    pthread_mutex_lock(&lock);
    const size_t n = strlen(text);
    fprintf(stderr, "\r%s", text);
    if (line > n) /* blank what the longer previous line left, then come back */
        fprintf(stderr, "%*s\r%s", (int)(line - n), "", text);
    line = n;
    fflush(stderr);
    pthread_mutex_unlock(&lock);
}

void cli_progress_end(void)
{
    pthread_mutex_lock(&lock);
    if (line)
        fputc('\n', stderr);
    line = 0;
    fflush(stderr);
    pthread_mutex_unlock(&lock);
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

/* ---- temporary files being written ---- */

static char **temps; /* under lock */
static size_t ntemps, captemps;

/* Registers (or, with add 0, forgets) a temporary file; with the lock held. */
static void track(char *path, int add)
{
    if (add) {
        if (ntemps == captemps) {
            const size_t cap = captemps ? 2 * captemps : 16;
            char **grown = realloc(temps, cap * sizeof *grown);
            if (!grown) /* untracked: a second Ctrl-C would leave it, nothing worse */
                return;
            temps = grown;
            captemps = cap;
        }
        temps[ntemps++] = path;
        return;
    }
    for (size_t i = 0; i < ntemps; ++i) {
        if (temps[i] == path) {
            temps[i] = temps[--ntemps];
            break;
        }
    }
    if (!ntemps) {
        free(temps);
        temps = NULL;
        captemps = 0;
    }
}

static int write_atomic(const char *given, int (*write)(FILE *out, void *arg), void *arg,
                        char *error, size_t error_size);
static int write_replacing(const char *path, const char *given, int (*write)(FILE *out, void *arg),
                           void *arg, char *error, size_t error_size);

int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg), void *arg, char *error,
                     size_t error_size)
{
    const unsigned long long t0 = cli_now_ns();
    const int rc = write_atomic(path, write, arg, error, error_size);
    cli_stage_add(CLI_STAGE_WRITE, t0);
    return rc;
}

int cli_output_target(const char *path, char **target, char *error, size_t error_size)
{
    /* A link is written through (it stays a link), as fopen would, except that a link to no file
     * is refused rather than made to create one; a FIFO, device or socket is refused: a rename
     * would replace it with a plain file its reader never sees. */
    struct stat st;
    *target = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !(*target = realpath(path, NULL))) {
        if (errno == ENOENT)
            snprintf(error, error_size, "'%s' is a symbolic link that leads to no file", path);
        else
            snprintf(error, error_size, "'%s' is a symbolic link that cannot be followed (%s)",
                     path, strerror(errno));
        return -1;
    }
    if (stat(*target ? *target : path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(error, error_size, "'%s' exists and is not a regular file (%s)", path,
                 S_ISDIR(st.st_mode) ? "a folder" : "a FIFO, device or socket");
        free(*target);
        *target = NULL;
        return -1;
    }
    return 0;
}

/* The commands check the output before any work (cli_output_target); this is for what changed
 * since. */
static int write_atomic(const char *given, int (*write)(FILE *out, void *arg), void *arg,
                        char *error, size_t error_size)
{
    char *target = NULL;
    if (cli_output_target(given, &target, error, error_size) != 0)
        return -1;
    const int rc = write_replacing(target ? target : given, given, write, arg, error, error_size);
    free(target);
    return rc;
}

/* The process's umask, read once: reading it means setting it, and a umask(0) while other
 * threads create files would make theirs world-writable. */
static pthread_once_t mask_once = PTHREAD_ONCE_INIT;
static mode_t creation_mask;

static void read_mask(void)
{
    creation_mask = umask(0);
    umask(creation_mask);
}

/* Gives a new file (fd) the permissions the file it replaces has (a private file stays private),
 * else those a plain fopen would; both kinds of new file start private. */
static void set_mode(int fd, const char *path)
{
    struct stat old;
    if (stat(path, &old) == 0 && S_ISREG(old.st_mode)) {
        fchmod(fd, old.st_mode & 07777);
    } else {
        pthread_once(&mask_once, read_mask);
        fchmod(fd, 0666 & ~creation_mask);
    }
}

/* Writes through a stream on fd and closes it; 0, or -1 with the reason in error. */
static int fill(int fd, const char *given, int (*write)(FILE *out, void *arg), void *arg,
                char *error, size_t error_size)
{
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        snprintf(error, error_size, "cannot open a file beside '%s': %s", given, strerror(errno));
        close(fd);
        return -1;
    }
    errno = 0;
    const int wrote = write(f, arg) == 0;
    const int flushed = fflush(f) == 0 && !ferror(f);
    const int closed = fclose(f) == 0;
    if (wrote && flushed && closed)
        return 0;
    snprintf(error, error_size, "cannot write '%s': %s", given,
             errno ? strerror(errno) : "write failed");
    return -1;
}

/* A file with no name yet in the folder of `path`, for writing, or -1 where there is none to be
 * had: O_TMPFILE is Linux's (3.11 on, on most file systems), and naming the file later goes
 * through /proc/self/fd, which a chroot may lack. A process killed while writing it (SIGKILL,
 * the OOM killer), which no handler sees, then leaves nothing behind. */
static int open_unnamed(const char *path)
{
#ifdef O_TMPFILE
    char *copy = strdup(path);
    if (!copy)
        return -1;
    const int fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    free(copy);
    char proc[32], seen[2];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (fd >= 0 && readlink(proc, seen, sizeof seen) < 0) {
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)path;
    return -1;
#endif
}

enum { NAMING_REFUSED = 1 };
static atomic_uint named;         /* makes each temporary name of this process distinct */
static atomic_int naming_refused; /* a link through /proc failed: named files from then on */

/* Gives the unnamed file fd the name `path`: a new file appears whole; one that exists is
 * replaced by a rename from a temporary name (tracked, so that a second Ctrl-C removes it).
 * 0; -1 with errno where the rename failed; NAMING_REFUSED where no link could be made (a
 * sandbox may refuse links through /proc, or the folder links: the caller writes again). */
static int name_unnamed(int fd, const char *path)
{
    char proc[32];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno != EEXIST)
        return NAMING_REFUSED;
    const size_t n = strlen(path) + 48;
    char *tmp = malloc(n);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    int rc = NAMING_REFUSED;
    for (int tries = 0; rc == NAMING_REFUSED && tries < 100; ++tries) {
        snprintf(tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&named, 1));
        pthread_mutex_lock(&lock);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
            track(tmp, 1);
            if ((rc = rename(tmp, path)) != 0) {
                const int e = errno;
                unlink(tmp);
                errno = e;
            }
            track(tmp, 0);
        } else if (errno != EEXIST) {
            tries = 100;
        }
        pthread_mutex_unlock(&lock);
    }
    free(tmp);
    return rc;
}

/* write_replacing into an unnamed file (open_unnamed's fd), named when whole; NAMING_REFUSED
 * where it could not be named (nothing written, nothing said). */
static int write_unnamed(int fd, const char *path, const char *given,
                         int (*write)(FILE *out, void *arg), void *arg, char *error,
                         size_t error_size)
{
    set_mode(fd, path);
    /* Named through its descriptor, so one is kept past the stream's close. */
    const int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (keep < 0) {
        snprintf(error, error_size, "cannot open a file beside '%s': %s", given, strerror(errno));
        close(fd);
        return -1;
    }
    int rc = fill(fd, given, write, arg, error, error_size);
    if (rc == 0 && (rc = name_unnamed(keep, path)) < 0)
        snprintf(error, error_size, "cannot replace '%s': %s", given, strerror(errno));
    close(keep);
    return rc;
}

/* write_replacing into a temporary file beside path, renamed over it when whole. */
static int write_named(const char *path, const char *given, int (*write)(FILE *out, void *arg),
                       void *arg, char *error, size_t error_size)
{
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(n);
    if (!tmp) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    snprintf(tmp, n, "%s.tmp-XXXXXX", path);
    /* Made and registered under the lock, renamed or removed under it too: an immediate stop (a
     * second Ctrl-C) takes the lock and then removes whatever is registered. */
    pthread_mutex_lock(&lock);
    const int fd = mkstemp(tmp);
    const int made_errno = errno;
    if (fd >= 0)
        track(tmp, 1);
    pthread_mutex_unlock(&lock);
    if (fd < 0) {
        if (strcmp(path, given) != 0) /* the folder at fault is the link target's */
            snprintf(error, error_size,
                     "cannot create a file beside '%s', where the link '%s' leads: %s", path, given,
                     strerror(made_errno));
        else
            snprintf(error, error_size, "cannot create a file beside '%s': %s", given,
                     strerror(made_errno));
        free(tmp);
        return -1;
    }
    set_mode(fd, path);
    int rc = fill(fd, given, write, arg, error, error_size);
    pthread_mutex_lock(&lock);
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(error, error_size, "cannot replace '%s': %s", given, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    track(tmp, 0);
    pthread_mutex_unlock(&lock);
    free(tmp);
    return rc;
}

/* Writes `path` (a regular file or none; `given` names it in messages) whole or not at all:
 * into an unnamed file named when whole where the system allows, else into a temporary file
 * beside it, renamed when whole. */
static int write_replacing(const char *path, const char *given, int (*write)(FILE *out, void *arg),
                           void *arg, char *error, size_t error_size)
{
    if (!atomic_load(&naming_refused)) {
        const int fd = open_unnamed(path);
        if (fd >= 0) {
            const int rc = write_unnamed(fd, path, given, write, arg, error, error_size);
            if (rc != NAMING_REFUSED)
                return rc;
            atomic_store(&naming_refused, 1); /* and this output is written again, named */
        }
    }
    return write_named(path, given, write, arg, error, error_size);
}

/* ---- interruption ---- */

static pthread_t watcher;
static sigset_t watched, before;
static atomic_int interrupts, ending, watching, first_signal;
static void (*stop_fn)(void *);
static void *stop_arg;

/* Writes s to stderr with write(), which needs no lock (the process ends right after). */
static void say_now(const char *s)
{
    for (size_t n = strlen(s); n > 0;) {
        const ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            break;
        s += w;
        n -= (size_t)w;
    }
}

static void *watch(void *unused)
{
    (void)unused;
    for (;;) {
        int sig = 0;
        if (sigwait(&watched, &sig) != 0)
            continue;
        if (sig == SIGUSR1) {
            if (atomic_load(&ending))
                return NULL;
            continue;
        }
        if (atomic_fetch_add(&interrupts, 1) == 0)
            atomic_store(&first_signal, sig);
        if (atomic_load(&interrupts) == 1 && stop_fn) {
            cli_error("interrupted: stopping after the files in progress (Ctrl-C again to stop "
                      "now)");
            stop_fn(stop_arg);
            continue;
        }
        /* Stop now. The lock is kept to the end, so no file in progress can be renamed into
         * place after its temporary file is removed. */
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < ntemps; ++i)
            unlink(temps[i]);
        say_now(line ? "\n" : "");
        say_now(command);
        say_now(": stopped; no partial file left\n");
        _exit(128 + atomic_load(&first_signal));
    }
}

int cli_interrupt_begin(void (*stop)(void *arg), void *arg)
{
    stop_fn = stop;
    stop_arg = arg;
    atomic_store(&interrupts, 0);
    atomic_store(&ending, 0);
    sigemptyset(&watched);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &watched, &before) != 0)
        return -1;
    if (pthread_create(&watcher, NULL, watch, NULL) != 0) {
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        return -1;
    }
    atomic_store(&watching, 1);
    return 0;
}

int cli_interrupted(void)
{
    return atomic_load(&interrupts) > 0 ? 128 + atomic_load(&first_signal) : 0;
}

void cli_interrupt_end(void)
{
    if (!atomic_exchange(&watching, 0))
        return;
    atomic_store(&ending, 1);
    pthread_kill(watcher, SIGUSR1);
    pthread_join(watcher, NULL);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

/* ---- stage times ---- */

static atomic_ullong stage_ns[CLI_STAGES];

unsigned long long cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void cli_stage_add(int stage, unsigned long long since)
{
    atomic_fetch_add(&stage_ns[stage], cli_now_ns() - since);
}

void cli_stages_print(size_t items, double wall_seconds, size_t workers)
{
    static const char *const names[CLI_STAGES] = {"read (file to memory)", "decode",
                                                  "device (upload, kernel, download)", "encode",
                                                  "write (file, renamed into place)"};
    double total = 0;
    for (int i = 0; i < CLI_STAGES; ++i)
        total += (double)atomic_load(&stage_ns[i]) * 1e-9;
    cli_print("stage                               total s  ms/item   share");
    for (int i = 0; i < CLI_STAGES; ++i) {
        const double s = (double)atomic_load(&stage_ns[i]) * 1e-9;
        cli_print("%-34s %8.3f %8.2f %6.1f%%", names[i], s, items ? 1e3 * s / (double)items : 0,
                  total > 0 ? 100 * s / total : 0);
    }
    cli_print("%zu items in %.3f s of wall time (%.1f items/s) on %zu workers; stage times are "
              "summed over the workers",
              items, wall_seconds, wall_seconds > 0 ? (double)items / wall_seconds : 0, workers);
}
