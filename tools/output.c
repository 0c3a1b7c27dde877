/* Output files appear whole or not at all: written to a temporary file beside the target, then
 * renamed over it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg), void *arg, char *error,
                     size_t error_size)
{
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(n);
    if (!tmp) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    snprintf(tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(error, error_size, "cannot create a file beside '%s': %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes the file private; give it the permissions a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    int rc = -1;
    if (!f) {
        snprintf(error, error_size, "cannot open '%s': %s", tmp, strerror(errno));
        close(fd);
    } else {
        int wrote = write(f, arg) == 0;
        int flushed = fflush(f) == 0 && !ferror(f);
        int closed = fclose(f) == 0;
        if (!wrote || !flushed || !closed)
            snprintf(error, error_size, "cannot write '%s': %s", path,
                     errno ? strerror(errno) : "write failed");
        else if (rename(tmp, path) != 0)
            snprintf(error, error_size, "cannot replace '%s': %s", path, strerror(errno));
        else
            rc = 0;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
