/* The disk cache: hits across contexts, and every way an entry can be wrong is survived. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static const char *const value_source = "__kernel void value(__global int *out) { *out = VALUE; }";

typedef struct fixture {
    char *dir;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->dir = fixture_temp_dir("cache");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fixture_remove_dir(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static clc_context *cached_context(const char *dir)
{
    clc_context_options options = fixture_options();
    options.cache = CLC_CACHE_ON;
    options.cache_dir = dir;
    return fixture_context(&options);
}

/* Builds value_source with -DVALUE=value in a fresh context on dir, checks the result, and
 * returns the context's cache counters. */
static clc_cache_stats build_in_new_context(const char *dir, int value)
{
    clc_context *ctx = cached_context(dir);
    char options[32];
    snprintf(options, sizeof options, "-DVALUE=%d", value);
    cl_program program = NULL;
    clc_status st = clc_program_build(ctx, value_source, options, &program);
    if (st != CLC_SUCCESS)
        fail_msg("build: %s", clc_last_error());
    assert_int_equal(fixture_run_value(ctx, program), value);
    clReleaseProgram(program);
    clc_cache_stats stats;
    assert_int_equal(clc_context_cache_stats(ctx, &stats), CLC_SUCCESS);
    clc_context_destroy(ctx);
    return stats;
}

/* The path of the only entry in dir; fails when there is not exactly one file. */
static char *only_entry(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *found = NULL;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        ++files;
        assert_null(strstr(e->d_name, ".tmp")); /* no temporary file is left behind */
        found = malloc(strlen(dir) + strlen(e->d_name) + 2);
        assert_non_null(found);
        sprintf(found, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    assert_int_equal(files, 1);
    return found;
}

static long file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

static void patch_byte(const char *path, long offset, unsigned char xor_mask)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_not_equal(c, EOF);
    assert_int_equal(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ xor_mask, f);
    fclose(f);
}

static void second_context_loads_from_cache(void **state)
{
    fixture *f = *state;
    clc_cache_stats cold = build_in_new_context(f->dir, 1);
    assert_int_equal(cold.misses, 1);
    assert_int_equal(cold.hits, 0);
    assert_int_equal(cold.stored, 1);
    char *entry = only_entry(f->dir);
    assert_true(file_size(entry) > CLC_CACHE_HEADER_SIZE);
    free(entry);

    clc_cache_stats warm = build_in_new_context(f->dir, 1);
    assert_int_equal(warm.hits, 1);
    assert_int_equal(warm.misses, 0);
    assert_int_equal(warm.stored, 0);
}

static void corrupt_payload_is_rejected_and_rebuilt(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    patch_byte(entry, -1, 0x5a);
    clc_cache_stats s = build_in_new_context(f->dir, 1);
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.misses, 1);
    assert_int_equal(s.stored, 1);
    /* The rewritten entry is good again. */
    assert_int_equal(build_in_new_context(f->dir, 1).hits, 1);
    free(entry);
}

static void truncated_entry_is_rejected_and_rebuilt(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    assert_int_equal(truncate(entry, file_size(entry) / 2), 0);
    clc_cache_stats s = build_in_new_context(f->dir, 1);
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.hits, 0);
    assert_int_equal(truncate(entry, 5), 0);
    assert_int_equal(build_in_new_context(f->dir, 1).rejected, 1);
    free(entry);
}

static void wrong_magic_or_format_is_rejected(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    patch_byte(entry, 0, 0xff);
    assert_int_equal(build_in_new_context(f->dir, 1).rejected, 1);
    patch_byte(entry, 8, 0x01); /* format version */
    assert_int_equal(build_in_new_context(f->dir, 1).rejected, 1);
    free(entry);
}

/* An entry under the name of one key but holding another (a hash collision, or a file copied
 * from another machine) must never be loaded: the wrong program would run. */
static void foreign_entry_is_never_trusted(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);

    clc_context *ctx = cached_context(f->dir);
    char hash[32];
    snprintf(
        hash, sizeof hash, "fnv1a64:%016llx",
        (unsigned long long)clc__fnv1a64(value_source, strlen(value_source), CLC_FNV1A64_SEED));
    char *key2 = clc__cache_key(ctx, hash, "-DVALUE=2");
    char *path2 = clc__cache_entry_path(f->dir, key2);
    clc_context_destroy(ctx);
    assert_int_equal(rename(entry, path2), 0);

    clc_cache_stats s = build_in_new_context(f->dir, 2); /* checks the kernel writes 2 */
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.hits, 0);
    free(key2);
    free(path2);
    free(entry);
}

/* ---- whom the cache trusts: a program binary may carry native code the driver loads into the
 * process, so only what this user alone could have written is loaded; anything else is ignored
 * (the kernel is built from source, correct) with the reason in the last-error text. ---- */

/* Builds in a new context on dir, which must ignore what is there: a miss, no hit, the value
 * right, and a note naming `reason`. */
static clc_cache_stats built_despite(const char *dir, const char *reason)
{
    clc_cache_stats s = build_in_new_context(dir, 1); /* checks the kernel writes 1 */
    assert_int_equal(s.hits, 0);
    assert_int_equal(s.misses, 1);
    if (!strstr(clc_last_error(), reason) || !strstr(clc_last_error(), "built from source"))
        fail_msg("last error '%s' does not say '%s'", clc_last_error(), reason);
    return s;
}

static void world_writable_directory_is_not_used(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    struct stat before;
    assert_int_equal(stat(entry, &before), 0);
    assert_int_equal(chmod(f->dir, 0777), 0);
    clc_cache_stats s = built_despite(f->dir, "writable by group or others");
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.stored, 0); /* nothing written there either */
    assert_int_equal(chmod(f->dir, 0770), 0);
    built_despite(f->dir, "writable by group or others");
    struct stat after;
    assert_int_equal(stat(entry, &after), 0);
    assert_int_equal(after.st_mtime, before.st_mtime);
    assert_int_equal(after.st_ino, before.st_ino);
    /* Made private again, it is used again. */
    assert_int_equal(chmod(f->dir, 0700), 0);
    assert_int_equal(build_in_new_context(f->dir, 1).hits, 1);
    free(entry);
}

/* Only root can give a file away; elsewhere these cases are skipped (CI runs as root). */
static void entry_or_directory_of_another_user_is_not_used(void **state)
{
    fixture *f = *state;
    if (geteuid() != 0)
        skip();
    const uid_t nobody = 65534;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    assert_int_equal(chown(entry, nobody, nobody), 0);
    clc_cache_stats s = built_despite(f->dir, "belongs to another user");
    assert_int_equal(s.rejected, 1);
    assert_int_equal(s.stored, 1); /* our own entry replaces it: the directory is ours */
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(build_in_new_context(f->dir, 1).hits, 1);

    assert_int_equal(chown(f->dir, nobody, nobody), 0);
    s = built_despite(f->dir, "belongs to user 65534");
    assert_int_equal(s.stored, 0);
    assert_int_equal(chown(f->dir, geteuid(), getegid()), 0);
    free(entry);
}

static void group_writable_entry_is_not_used(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    assert_int_equal(chmod(entry, 0664), 0);
    assert_int_equal(built_despite(f->dir, "writable by group or others").rejected, 1);
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* rewritten, private */
    free(entry);
}

/* A symbolic link in place of an entry is not followed, even to a valid entry. */
static void symlinked_entry_is_not_followed(void **state)
{
    fixture *f = *state;
    build_in_new_context(f->dir, 1);
    char *entry = only_entry(f->dir);
    char elsewhere[4200];
    snprintf(elsewhere, sizeof elsewhere, "%s.elsewhere", f->dir);
    assert_int_equal(rename(entry, elsewhere), 0);
    assert_int_equal(symlink(elsewhere, entry), 0);
    assert_int_equal(built_despite(f->dir, "symbolic link").rejected, 1);
    struct stat st;
    assert_int_equal(lstat(entry, &st), 0);
    assert_true(S_ISREG(st.st_mode)); /* replaced by a real entry */
    assert_int_equal(unlink(elsewhere), 0);
    free(entry);
}

/* The entries the cache writes are private, whatever the umask. */
static void entries_are_private_whatever_the_umask(void **state)
{
    fixture *f = *state;
    const mode_t old = umask(0);
    build_in_new_context(f->dir, 1);
    umask(old);
    char *entry = only_entry(f->dir);
    struct stat st;
    assert_int_equal(stat(entry, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(build_in_new_context(f->dir, 1).hits, 1);
    free(entry);
}

static void key_covers_device_driver_source_options_and_version(void **state)
{
    (void)state;
    clc_context fake;
    memset(&fake, 0, sizeof fake);
    fake.info.platform_name = "P";
    fake.info.platform_version = "OpenCL 3.0 P 1";
    fake.info.name = "D";
    fake.info.vendor_id = 0x10de;
    fake.info.driver_version = "580.1";
    fake.info.opencl_c_version = "OpenCL C 1.2";
    char *base = clc__cache_key(&fake, "sha256:ab", "-DX");
    assert_non_null(strstr(base, CLC_VERSION_STRING));

    const char **fields[] = {&fake.info.platform_name, &fake.info.platform_version, &fake.info.name,
                             &fake.info.driver_version, &fake.info.opencl_c_version};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        const char *saved = *fields[i];
        *fields[i] = "changed";
        char *k = clc__cache_key(&fake, "sha256:ab", "-DX");
        assert_string_not_equal(k, base);
        free(k);
        *fields[i] = saved;
    }
    fake.info.vendor_id = 0x1002;
    char *k = clc__cache_key(&fake, "sha256:ab", "-DX");
    assert_string_not_equal(k, base);
    free(k);
    fake.info.vendor_id = 0x10de;
    k = clc__cache_key(&fake, "sha256:cd", "-DX");
    assert_string_not_equal(k, base);
    free(k);
    k = clc__cache_key(&fake, "sha256:ab", "-DY");
    assert_string_not_equal(k, base);
    free(k);
    free(base);
}

static void unwritable_directory_means_no_cache_not_an_error(void **state)
{
    fixture *f = *state;
    /* A path below a regular file can never be created, even by root. */
    char file[4096], dir[4200];
    snprintf(file, sizeof file, "%s/plain-file", f->dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(dir, sizeof dir, "%s/sub", file);
    clc_cache_stats s = build_in_new_context(dir, 3);
    assert_int_equal(s.misses, 1);
    assert_int_equal(s.stored, 0);
    assert_int_equal(s.store_failures, 1);
}

static void store_and_load_round_trip_without_opencl(void **state)
{
    fixture *f = *state;
    unsigned char payload[1000];
    for (size_t i = 0; i < sizeof payload; ++i)
        payload[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(clc__cache_store(f->dir, "key A", payload, sizeof payload, NULL, 0), 0);
    unsigned char *back = NULL;
    size_t size = 0;
    assert_int_equal(clc__cache_load(f->dir, "key A", &back, &size, NULL, 0), 1);
    assert_int_equal(size, sizeof payload);
    assert_memory_equal(back, payload, size);
    free(back);
    assert_int_equal(clc__cache_load(f->dir, "key B", &back, &size, NULL, 0), 0);
    assert_null(back);
    assert_int_equal(clc__cache_store(f->dir, "key A", payload, 0, NULL, 0), -1);
}

static void absurd_payload_length_is_rejected_without_allocating_it(void **state)
{
    fixture *f = *state;
    unsigned char payload[64] = {1, 2, 3};
    assert_int_equal(clc__cache_store(f->dir, "k", payload, sizeof payload, NULL, 0), 0);
    char *entry = only_entry(f->dir);
    /* Top byte of the 64-bit payload length. */
    patch_byte(entry, 23, 0x80);
    unsigned char *back = NULL;
    size_t size = 0;
    assert_int_equal(clc__cache_load(f->dir, "k", &back, &size, NULL, 0), -1);
    assert_null(back);
    free(entry);
}

typedef struct writer {
    const char *dir;
    int failures;
} writer;

static void *write_many(void *arg)
{
    writer *w = arg;
    unsigned char payload[4096];
    memset(payload, 0xab, sizeof payload);
    for (int i = 0; i < 50; ++i)
        w->failures +=
            clc__cache_store(w->dir, "shared key", payload, sizeof payload, NULL, 0) != 0;
    return NULL;
}

static void concurrent_writers_leave_one_whole_entry(void **state)
{
    fixture *f = *state;
    pthread_t threads[4];
    writer writers[4];
    for (int i = 0; i < 4; ++i) {
        writers[i] = (writer){f->dir, 0};
        assert_int_equal(pthread_create(&threads[i], NULL, write_many, &writers[i]), 0);
    }
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(writers[i].failures, 0);
    }
    free(only_entry(f->dir));
    unsigned char *back = NULL;
    size_t size = 0;
    assert_int_equal(clc__cache_load(f->dir, "shared key", &back, &size, NULL, 0), 1);
    assert_int_equal(size, 4096);
    free(back);
}

/* Child mode of this executable (see main): builds value_source with -DVALUE=7 in a new context on
 * dir, many times over in fresh contexts, so that its stores race the other process's. */
static int child_build(const char *dir)
{
    for (int i = 0; i < 10; ++i) {
        clc_context_options o = fixture_options();
        o.cache = CLC_CACHE_ON;
        o.cache_dir = dir;
        clc_context *ctx = NULL;
        cl_program program = NULL;
        if (clc_context_create(&o, &ctx) != CLC_SUCCESS ||
            clc_program_build(ctx, value_source, "-DVALUE=7", &program) != CLC_SUCCESS) {
            fprintf(stderr, "child build %d: %s\n", i, clc_last_error());
            clc_context_destroy(ctx);
            return 1;
        }
        clReleaseProgram(program);
        clc_context_destroy(ctx);
    }
    return 0;
}

/* Child mode: exit 0 when a new context on dir loads the program from the cache. Run as a child
 * so that it sees the same device as the writers even when this test runs under valgrind (whose
 * CPU lacks AVX-512, so PoCL names its device differently and rightly misses the entry). */
static int child_load(const char *dir)
{
    clc_context_options o = fixture_options();
    o.cache = CLC_CACHE_ON;
    o.cache_dir = dir;
    clc_context *ctx = NULL;
    cl_program program = NULL;
    clc_cache_stats stats = {0};
    if (clc_context_create(&o, &ctx) != CLC_SUCCESS ||
        clc_program_build(ctx, value_source, "-DVALUE=7", &program) != CLC_SUCCESS ||
        clc_context_cache_stats(ctx, &stats) != CLC_SUCCESS) {
        fprintf(stderr, "child load: %s\n", clc_last_error());
        return 1;
    }
    clReleaseProgram(program);
    clc_context_destroy(ctx);
    if (stats.hits == 1 && stats.rejected == 0)
        return 0;
    fprintf(stderr, "child load: %llu hits, %llu misses, %llu rejected, %llu stored\n",
            (unsigned long long)stats.hits, (unsigned long long)stats.misses,
            (unsigned long long)stats.rejected, (unsigned long long)stats.stored);
    return 2;
}

static pid_t spawn_child(const char *self, const char *mode, const char *dir)
{
    extern char **environ;
    char *argv[] = {(char *)self, (char *)mode, (char *)dir, NULL};
    pid_t pid = 0;
    assert_int_equal(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
    return pid;
}

static const char *self_path;

/* Two processes compile and store the same program at once: one whole entry remains, and a third
 * process loads it. */
static void two_processes_building_the_same_program(void **state)
{
    fixture *f = *state;
    const pid_t a = spawn_child(self_path, "--child-build", f->dir),
                b = spawn_child(self_path, "--child-build", f->dir);
    int status_a = 0, status_b = 0;
    assert_int_equal(waitpid(a, &status_a, 0), a);
    assert_int_equal(waitpid(b, &status_b, 0), b);
    if (!WIFEXITED(status_a) || WEXITSTATUS(status_a) != 0 || !WIFEXITED(status_b) ||
        WEXITSTATUS(status_b) != 0)
        fail_msg("builders: status %#x and %#x (exit %d/%d, signal %d/%d)", status_a, status_b,
                 WIFEXITED(status_a) ? WEXITSTATUS(status_a) : -1,
                 WIFEXITED(status_b) ? WEXITSTATUS(status_b) : -1,
                 WIFSIGNALED(status_a) ? WTERMSIG(status_a) : 0,
                 WIFSIGNALED(status_b) ? WTERMSIG(status_b) : 0);
    free(only_entry(f->dir));
    const pid_t c = spawn_child(self_path, "--child-load", f->dir);
    int status_c = 0;
    assert_int_equal(waitpid(c, &status_c, 0), c);
    assert_true(WIFEXITED(status_c));
    assert_int_equal(WEXITSTATUS(status_c), 0);
}

/* A full disk, as the process sees one: RLIMIT_FSIZE makes every write past 512 bytes fail
 * (EFBIG, SIGXFSZ ignored), which root cannot bypass as it does permissions. The store fails
 * (a context counts it in store_failures, as the unwritable-directory test shows) and leaves no
 * entry or temporary file; with room again it succeeds. Only the store runs under the limit:
 * PoCL's compiler writes files of its own while building and aborts when it cannot. */
static void a_full_disk_fails_the_store_cleanly(void **state)
{
    fixture *f = *state;
    unsigned char payload[4096];
    for (size_t i = 0; i < sizeof payload; ++i)
        payload[i] = (unsigned char)(i * 7);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    const struct rlimit small = {512, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    const int full = clc__cache_store(f->dir, "full disk", payload, sizeof payload, NULL, 0);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, previous);
    assert_int_equal(full, -1);
    assert_int_equal(fixture_count_files(f->dir), 0);

    assert_int_equal(clc__cache_store(f->dir, "full disk", payload, sizeof payload, NULL, 0), 0);
    unsigned char *back = NULL;
    size_t size = 0;
    assert_int_equal(clc__cache_load(f->dir, "full disk", &back, &size, NULL, 0), 1);
    assert_int_equal(size, sizeof payload);
    assert_memory_equal(back, payload, sizeof payload);
    free(back);
}

static void environment_chooses_the_directory(void **state)
{
    (void)state;
    const char *names[] = {"CLCOMPUTE_CACHE", "CLCOMPUTE_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
    char *saved[4];
    for (int i = 0; i < 4; ++i) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    setenv("HOME", "/home/u", 1);
    unsetenv("CLCOMPUTE_CACHE");
    unsetenv("CLCOMPUTE_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    char *d = clc__cache_dir_resolve(CLC_CACHE_AUTO, 0, NULL);
    assert_string_equal(d, "/home/u/.cache/clcompute");
    free(d);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    d = clc__cache_dir_resolve(CLC_CACHE_AUTO, 0, NULL);
    assert_string_equal(d, "/xdg/clcompute");
    free(d);
    setenv("CLCOMPUTE_CACHE_DIR", "/explicit/env", 1);
    d = clc__cache_dir_resolve(CLC_CACHE_AUTO, 0, NULL);
    assert_string_equal(d, "/explicit/env");
    free(d);
    d = clc__cache_dir_resolve(CLC_CACHE_AUTO, 0, "/from/options");
    assert_string_equal(d, "/from/options");
    free(d);
    /* CLCOMPUTE_CACHE=0 (read by the context, tests/test_context.c) turns off an AUTO cache only;
     * the variable itself is not read here any more. */
    setenv("CLCOMPUTE_CACHE", "0", 1);
    d = clc__cache_dir_resolve(CLC_CACHE_AUTO, 0, NULL);
    assert_string_equal(d, "/explicit/env");
    free(d);
    assert_null(clc__cache_dir_resolve(CLC_CACHE_AUTO, 1, NULL));
    assert_null(clc__cache_dir_resolve(CLC_CACHE_AUTO, 1, "/from/options"));
    d = clc__cache_dir_resolve(CLC_CACHE_ON, 1, NULL);
    assert_string_equal(d, "/explicit/env");
    free(d);
    assert_null(clc__cache_dir_resolve(CLC_CACHE_OFF, 0, "/from/options"));
    for (int i = 0; i < 4; ++i) {
        if (saved[i])
            setenv(names[i], saved[i], 1);
        else
            unsetenv(names[i]);
        free(saved[i]);
    }
}

static void cache_off_compiles_every_time(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    clc_context *ctx = fixture_context(&options);
    assert_null(clc_context_cache_dir(ctx));
    cl_program p = NULL;
    assert_int_equal(clc_program_build(ctx, value_source, "-DVALUE=4", &p), CLC_SUCCESS);
    clReleaseProgram(p);
    clc_cache_stats s;
    assert_int_equal(clc_context_cache_stats(ctx, &s), CLC_SUCCESS);
    assert_int_equal(s.misses, 1);
    assert_int_equal(s.stored + s.hits + s.store_failures, 0);
    clc_context_destroy(ctx);
}

#define CASE(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child-build") == 0)
        return child_build(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--child-load") == 0)
        return child_load(argv[2]);
    self_path = argv[0];
    if (argc == 2) /* a name pattern selects tests */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        /* First, before this process touches OpenCL: on the H200 host a child of a process
         * that has used the NVIDIA driver did not see the GPU (2026-12-02, cause not found),
         * though children of a fresh process do. */
        CASE(two_processes_building_the_same_program),
        CASE(second_context_loads_from_cache),
        CASE(corrupt_payload_is_rejected_and_rebuilt),
        CASE(truncated_entry_is_rejected_and_rebuilt),
        CASE(wrong_magic_or_format_is_rejected),
        CASE(foreign_entry_is_never_trusted),
        CASE(world_writable_directory_is_not_used),
        CASE(entry_or_directory_of_another_user_is_not_used),
        CASE(group_writable_entry_is_not_used),
        CASE(symlinked_entry_is_not_followed),
        CASE(entries_are_private_whatever_the_umask),
        cmocka_unit_test(key_covers_device_driver_source_options_and_version),
        CASE(unwritable_directory_means_no_cache_not_an_error),
        CASE(a_full_disk_fails_the_store_cleanly),
        CASE(store_and_load_round_trip_without_opencl),
        CASE(absurd_payload_length_is_rejected_without_allocating_it),
        CASE(concurrent_writers_leave_one_whole_entry),
        cmocka_unit_test(environment_chooses_the_directory),
        cmocka_unit_test(cache_off_compiles_every_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
