/* clcompute reduce FILE --op OP: a .npy (or raw) array reduced on the device; the result alone on
 * stdout, in full precision, so scripts can read it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "npy.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: clcompute reduce FILE --op sum|min|max|mean|argmin|argmax\n"
                 "           [--type f32|f64|i32|u32|u8] [--device SEL]\n"
                 "  FILE: a .npy array (little-endian float32, float64, int32, uint32 or uint8,\n"
                 "  C order, any shape, taken as flat), or raw values with --type. Prints the\n"
                 "  result alone: %%.9g for float32, %%.17g for float64 and means, integers as\n"
                 "  they are, the index for argmin and argmax.\n");
}

static int lookup(const char *text, const char *const *names, int count)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(text, names[i]) == 0)
            return i + 1;
    return 0;
}

/* Reads a whole regular file; NULL with a message otherwise. */
static unsigned char *read_file(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "clcompute reduce: cannot read '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "clcompute reduce: '%s' is not a regular file\n", path);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    /* One spare byte so that an empty file still gets a buffer. */
    unsigned char *data = f ? malloc((size_t)st.st_size + 1) : NULL;
    if (!f || !data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fprintf(stderr, "clcompute reduce: cannot read '%s': %s\n", path,
                f && !data ? "out of memory" : strerror(errno));
        free(data);
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return data;
}

int cmd_reduce(int argc, char **argv)
{
    static const char *const op_names[] = {"sum", "min", "max", "mean", "argmin", "argmax"};
    static const char *const type_names[] = {"f32", "f64", "i32", "u32", "u8"};
    const char *path = NULL, *device = NULL;
    int op = 0, type = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--op") == 0 && i + 1 < argc) {
            if (!(op = lookup(argv[++i], op_names, 6))) {
                fprintf(stderr, "clcompute reduce: unknown operation '%s'\n", argv[i]);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--type") == 0 && i + 1 < argc) {
            if (!(type = lookup(argv[++i], type_names, 5))) {
                fprintf(stderr, "clcompute reduce: unknown type '%s'\n", argv[i]);
                return CLI_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "clcompute reduce: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "clcompute reduce: unexpected argument '%s'\n", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (!path || !op) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    size_t size = 0;
    unsigned char *file = read_file(path, &size);
    if (!file)
        return CLI_EXIT_FAILURE;
    int rc = CLI_EXIT_FAILURE;
    clc_context *ctx = NULL;
    npy_info info = {0};
    char error[256];
    if (type) {
        info.type = (clc_dtype)type;
        info.data_offset = 0;
        if (size % clc_dtype_size(info.type) != 0) {
            fprintf(stderr, "clcompute reduce: '%s' has %zu bytes, not a whole number of %s\n",
                    path, size, type_names[type - 1]);
            goto done;
        }
        info.count = size / clc_dtype_size(info.type);
    } else if (npy_parse(file, size, &info, error, sizeof error) != 0) {
        fprintf(stderr, "clcompute reduce: '%s': %s\n", path, error);
        goto done;
    }
    /* The data offset of a valid .npy file is a multiple of 64; a raw file starts at 0. */
    const void *data = file + info.data_offset;
    clc_context_options options = {0};
    options.device = device;
    clc_reduce_result r;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS ||
        clc_reduce(ctx, (clc_reduce_op)op, info.type, data, info.count, &r) != CLC_SUCCESS) {
        fprintf(stderr, "clcompute reduce: %s\n", clc_last_error());
        goto done;
    }
    const clc_reduce_op o = (clc_reduce_op)op;
    const int float_result =
        o == CLC_REDUCE_MEAN || info.type == CLC_DTYPE_F32 || info.type == CLC_DTYPE_F64;
    if (o != CLC_REDUCE_ARGMIN && o != CLC_REDUCE_ARGMAX && float_result && isnan(r.f))
        printf("nan\n"); /* as numpy prints it, whatever the sign bit */
    else if (o == CLC_REDUCE_ARGMIN || o == CLC_REDUCE_ARGMAX)
        printf("%" PRIu64 "\n", r.index);
    else if (o == CLC_REDUCE_MEAN || info.type == CLC_DTYPE_F64)
        printf(info.type == CLC_DTYPE_F32 ? "%.9g\n" : "%.17g\n", r.f);
    else if (info.type == CLC_DTYPE_F32)
        printf("%.9g\n", r.f);
    else if (info.type == CLC_DTYPE_I32)
        printf("%" PRId64 "\n", r.i);
    else
        printf("%" PRIu64 "\n", r.u);
    rc = CLI_EXIT_OK;
done:
    clc_context_destroy(ctx);
    free(file);
    return rc;
}
