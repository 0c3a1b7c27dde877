/* The on-disk cache of program binaries, so a second process skips the OpenCL compiler. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"

char *clc__cache_dir_resolve(clc_cache_mode mode, int env_off, const char *explicit_dir)
{
    if (mode == CLC_CACHE_OFF || (mode == CLC_CACHE_AUTO && env_off))
        return NULL;
    if (explicit_dir && *explicit_dir)
        return clc__strdup(explicit_dir);
    const char *dir = getenv("CLCOMPUTE_CACHE_DIR");
    if (dir && *dir)
        return clc__strdup(dir);
    dir = getenv("XDG_CACHE_HOME");
    if (dir && *dir)
        return clc__asprintf("%s/clcompute", dir);
    dir = getenv("HOME");
    if (dir && *dir)
        return clc__asprintf("%s/.cache/clcompute", dir);
    return NULL;
}

char *clc__cache_key(const clc_context *ctx, const char *source_hash, const char *options)
{
    const clc_device_info *d = &ctx->info;
    return clc__asprintf("clcompute %s\nplatform: %s | %s\ndevice: %s\nvendor-id: 0x%x\n"
                         "driver: %s\nopencl-c: %s\nsource: %s\noptions: %s\n",
                         CLC_VERSION_STRING, d->platform_name, d->platform_version, d->name,
                         (unsigned)d->vendor_id, d->driver_version, d->opencl_c_version,
                         source_hash, options ? options : "");
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

/* Reads exactly n bytes; 0 on a short read. */
static int read_exact(FILE *f, void *buf, size_t n)
{
    return n == 0 || fread(buf, 1, n, f) == n;
}

static void say(char *why, size_t why_size, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(char *why, size_t why_size, const char *fmt, ...)
{
    if (!why || !why_size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
}

/* Whether st describes something only this user can have written: owned by the effective user
 * and writable by neither group nor others (ssh's StrictModes rule). */
static int trusted(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The cache directory, opened (through symbolic links: ~/.cache may be one) and checked: a
 * descriptor; -1 when it does not exist; -2 when it must not be used, with the reason in why.
 * Entries are then opened relative to the descriptor, so the directory checked is the one read
 * whatever is renamed meanwhile. */
static int open_trusted_dir(const char *dir, char *why, size_t why_size)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        say(why, why_size, "cache directory '%s' cannot be opened: %s", dir, strerror(errno));
        return -2;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        say(why, why_size, "cache directory '%s' cannot be examined: %s", dir, strerror(errno));
    } else if (st.st_uid != geteuid()) {
        say(why, why_size,
            "cache directory '%s' belongs to user %ld, not to this user (%ld): entries there "
            "could have been planted, so it is not used",
            dir, (long)st.st_uid, (long)geteuid());
    } else if (!trusted(&st)) {
        say(why, why_size,
            "cache directory '%s' is writable by group or others (mode %04o): entries there "
            "could have been planted, so it is not used (chmod go-w '%s' allows it)",
            dir, (unsigned)(st.st_mode & 07777), dir);
    } else {
        return fd;
    }
    close(fd);
    return -2;
}

/* The entry's file name (no directory) for a key. */
static void entry_name(const char *key, char name[32])
{
    const uint64_t h = clc__fnv1a64(key, strlen(key), CLC_FNV1A64_SEED);
    snprintf(name, 32, "%016llx.clbin", (unsigned long long)h);
}

char *clc__cache_entry_path(const char *dir, const char *key)
{
    char name[32];
    entry_name(key, name);
    return clc__asprintf("%s/%s", dir, name);
}

int clc__cache_load(const char *dir, const char *key, unsigned char **binary, size_t *size,
                    char *why, size_t why_size)
{
    *binary = NULL;
    *size = 0;
    say(why, why_size, "%s", "");
    const int dfd = open_trusted_dir(dir, why, why_size);
    if (dfd < 0)
        return dfd == -1 ? 0 : -2;
    char name[32];
    entry_name(key, name);
    /* O_NOFOLLOW: a symbolic link in place of an entry may point at a file anyone wrote. */
    const int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    const int open_errno = errno;
    close(dfd);
    if (fd < 0) {
        if (open_errno == ENOENT)
            return 0;
        say(why, why_size, "cache entry '%s/%s' %s; it is not used", dir, name,
            open_errno == ELOOP ? "is a symbolic link" : strerror(open_errno));
        return -2;
    }
    struct stat st;
    const int examined = fstat(fd, &st) == 0;
    if (!examined || !S_ISREG(st.st_mode) || !trusted(&st)) {
        say(why, why_size, "cache entry '%s/%s' %s; it is not used", dir, name,
            !examined                ? "cannot be examined"
            : !S_ISREG(st.st_mode)   ? "is not a regular file"
            : st.st_uid != geteuid() ? "belongs to another user"
                                     : "is writable by group or others");
        close(fd);
        return -2;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return 0;
    }

    int result = -1;
    unsigned char header[CLC_CACHE_HEADER_SIZE];
    char *stored_key = NULL;
    unsigned char *payload = NULL;
    size_t key_len = strlen(key);
    if (!read_exact(f, header, sizeof header) || memcmp(header, CLC_CACHE_MAGIC, 8) != 0 ||
        get_u32(header + 8) != CLC_CACHE_FORMAT || get_u32(header + 12) != key_len)
        goto done;
    uint64_t payload_len = get_u64(header + 16);
    uint64_t checksum = get_u64(header + 24);
    /* The file's own length bounds the payload, so a corrupt length cannot make us allocate
     * gigabytes before noticing. */
    long here = ftell(f);
    if (here < 0 || fseek(f, 0, SEEK_END) != 0)
        goto done;
    long end = ftell(f);
    if (end < here || (uint64_t)(end - here) < key_len ||
        (uint64_t)(end - here) - key_len != payload_len || payload_len == 0 ||
        payload_len > SIZE_MAX || fseek(f, here, SEEK_SET) != 0)
        goto done;
    stored_key = malloc(key_len + 1);
    payload = malloc((size_t)payload_len);
    if (!stored_key || !payload || !read_exact(f, stored_key, key_len) ||
        memcmp(stored_key, key, key_len) != 0 || !read_exact(f, payload, (size_t)payload_len) ||
        clc__fnv1a64(payload, (size_t)payload_len, CLC_FNV1A64_SEED) != checksum)
        goto done;
    *binary = payload;
    *size = (size_t)payload_len;
    payload = NULL;
    result = 1;
done:
    free(stored_key);
    free(payload);
    fclose(f);
    return result;
}

/* mkdir -p; an existing directory is success. */
static int make_dirs(const char *dir)
{
    char *path = clc__strdup(dir);
    if (!path)
        return -1;
    int rc = 0;
    for (char *p = path + 1; rc == 0; ++p) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            rc = -1;
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(path);
    return rc;
}

static int write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int clc__cache_store(const char *dir, const char *key, const unsigned char *binary, size_t size,
                     char *why, size_t why_size)
{
    say(why, why_size, "%s", "");
    if (!size)
        return -1;
    if (make_dirs(dir) != 0) {
        say(why, why_size, "cache directory '%s' cannot be made: %s", dir, strerror(errno));
        return -1;
    }
    const int dfd = open_trusted_dir(dir, why, why_size);
    if (dfd < 0)
        return -1;
    char name[32], tmp[96];
    entry_name(key, name);
    /* A name unique to this process and call: concurrent writers never share a temporary file,
     * and rename() makes whichever finishes last the entry, whole. */
    static _Thread_local unsigned counter;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u.%p", name, (long)getpid(), ++counter,
             (void *)&counter);
    int rc = -1;
    /* 0600: an entry others could write would be refused by the next load. */
    const int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        size_t key_len = strlen(key);
        unsigned char header[CLC_CACHE_HEADER_SIZE];
        memcpy(header, CLC_CACHE_MAGIC, 8);
        put_u32(header + 8, CLC_CACHE_FORMAT);
        put_u32(header + 12, (uint32_t)key_len);
        put_u64(header + 16, size);
        put_u64(header + 24, clc__fnv1a64(binary, size, CLC_FNV1A64_SEED));
        rc = write_all(fd, header, sizeof header) == 0 && write_all(fd, key, key_len) == 0 &&
                     write_all(fd, binary, size) == 0
                 ? 0
                 : -1;
        if (close(fd) != 0)
            rc = -1;
        if (rc == 0 && renameat(dfd, tmp, dfd, name) != 0)
            rc = -1;
        if (rc != 0) {
            say(why, why_size, "cache entry '%s/%s' cannot be written: %s", dir, name,
                strerror(errno));
            unlinkat(dfd, tmp, 0);
        }
    } else {
        say(why, why_size, "cache entry '%s/%s' cannot be created: %s", dir, name, strerror(errno));
    }
    close(dfd);
    return rc;
}
