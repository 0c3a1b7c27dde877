/* A full disk for one directory, preloaded into the tool by tests/tool_corpus.sh: a stream the
 * tool opens with fdopen (every output goes through write_atomic's temporary file) on a file
 * under CLC_ENOSPC_DIR takes CLC_ENOSPC_AFTER bytes, then every write fails with ENOSPC, as on a
 * disk that has just filled up. Files elsewhere are untouched.
 *
 * Why not `ulimit -f`: the limit covers the whole process, and PoCL writes its kernel cache from
 * inside it; a kernel PoCL found missing from that cache then ended the run (SIGABRT when its
 * link failed, SIGXFSZ once LLVM had installed its handlers) rather than the tool's output
 * failing - a fresh-clone CI failed so now and then. Linux/glibc only (fopencookie), like the
 * test.
 * With CLC_NOLINK set, every link made through /proc/self/fd is refused (EPERM), as some
 * sandboxes do: the tool's unnamed output files cannot be named then, and it must write the
 * output again the other way. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sink {
    int fd;
    size_t left; /* bytes the disk still takes */
} sink;

/* fopencookie's write returns what it took, never a negative count: glibc stores the result in
 * a size_t, and -1 there made it read far past the caller's buffer. A short count is an error to
 * the stream, with errno saying which. */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    sink *s = cookie;
    const size_t n = size < s->left ? size : s->left;
    size_t done = 0;
    while (done < n) {
        const ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0) {
            s->left -= done;
            return (ssize_t)done;
        }
        done += (size_t)w;
    }
    s->left -= n;
    if (n < size) /* what fit is on disk, the rest is not */
        errno = ENOSPC;
    return (ssize_t)n;
}

static int sink_close(void *cookie)
{
    sink *s = cookie;
    const int rc = close(s->fd);
    free(s);
    return rc;
}

/* Whether fd is a file under dir (both resolved). */
static int under(int fd, const char *dir)
{
    char link[64], path[PATH_MAX], root[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0 || !realpath(dir, root))
        return 0;
    path[n] = '\0';
    const size_t len = strlen(root);
    return strncmp(path, root, len) == 0 && path[len] == '/';
}

FILE *fdopen(int fd, const char *mode)
{
    const char *dir = getenv("CLC_ENOSPC_DIR"), *after = getenv("CLC_ENOSPC_AFTER");
    if (!dir || !after || !under(fd, dir)) {
        FILE *(*real)(int, const char *) = NULL;
        void *sym = dlsym(RTLD_NEXT, "fdopen");
        memcpy(&real, &sym, sizeof real); /* POSIX: dlsym's pointer is the function's */
        if (!real) {
            errno = ENOSYS;
            return NULL;
        }
        return real(fd, mode);
    }
    sink *s = malloc(sizeof *s);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    s->fd = fd;
    s->left = strtoul(after, NULL, 10);
    const cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    FILE *f = fopencookie(s, mode, io);
    if (!f)
        free(s);
    return f;
}

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
    if (getenv("CLC_NOLINK") && strncmp(oldpath, "/proc/self/fd/", 14) == 0) {
        errno = EPERM;
        return -1;
    }
    int (*real)(int, const char *, int, const char *, int) = NULL;
    void *sym = dlsym(RTLD_NEXT, "linkat");
    memcpy(&real, &sym, sizeof real);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real(olddirfd, oldpath, newdirfd, newpath, flags);
}
