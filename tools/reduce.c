/* clcompute reduce FILE --op OP: a .npy (or raw) array reduced on the device; the result alone on
 * stdout, as numpy computes and prints it, so scripts can read it. */
#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <clcompute/clcompute.h>

#include "cli.h"
#include "npy.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clcompute reduce FILE --op sum|min|max|mean|argmin|argmax [--type T]\n"
            "           [--device SEL]\n"
            "\n"
            "Reduces an array on the device with numpy's semantics (np.sum, np.min, ...).\n"
            "FILE: a .npy array - float16/32/64, int8/16/32/64, uint8/16/32/64 or bool,\n"
            "little-endian, C or Fortran order, any shape, reduced as a whole - or raw\n"
            "little-endian values with --type.\n"
            "  --op OP       the reduction\n"
            "  --type T      for raw files: f16 f32 f64 i16 i32 i64 u16 u32 u64 bool,\n"
            "                numpy's names (int8, uint8, float32, double, intc, ...) or codes\n"
            "                (<f4, u1, <i8, ...); float, int, uint, i8 and u8 are refused as\n"
            "                ambiguous (numpy and C, or this tool and numpy, differ), and\n"
            "                big-endian codes (>f4) as unsupported; a .npy file names its own\n"
            "                type, and a --type that differs from it is refused\n"
            "  --device SEL  the device (clcompute devices --help)\n"
            "  -h, --help    this text\n"
            "Prints the result alone: integers in full (sums of integers and bools as int64 or\n"
            "uint64, wrapping as numpy's); floats as numpy prints them, the fewest digits that\n"
            "read back as the same value of the result's type (2.0, 0.1, 1e+16; a mean has the\n"
            "type numpy gives it: float16 for float16, float32 for float32, float64 for the\n"
            "rest); min and max of bool as True or False; argmin and argmax as the index\n"
            "into the array flattened in C order, as numpy's; nan for NaN. Float sums are\n"
            "compensated: at least as accurate as numpy's pairwise sum, so the last digit may\n"
            "differ from numpy's (towards the exact sum). An empty array sums to 0 (0.0 for\n"
            "floats) and has a NaN mean, as in numpy; its min, max, argmin and argmax are\n"
            "errors.\n");
}

/* --type: the tool's short names, numpy's names and aliases ("float32", "double", "intc") and
 * type codes ("<f4", "u1", "d"); 0 where it names none, with *ambiguous set where it is a name
 * two readers take differently: "float", "int" and "uint" (numpy's are 64-bit, C's 32-bit) and
 * "i8" and "u8" (the tool's int8 and uint8, numpy's codes of int64 and uint64). */
static clc_dtype parse_type(const char *text, int *ambiguous)
{
    static const char *const shorts[] = {"",    "f32", "f64", "i32", "u32", "u8",  "i64",
                                         "u64", "i16", "u16", "i8",  "f16", "bool"};
    static const char *const two_ways[] = {"float", "int", "uint", "i8", "u8"};
    *ambiguous = 0;
    for (size_t i = 0; i < sizeof two_ways / sizeof two_ways[0]; ++i)
        if (strcasecmp(text, two_ways[i]) == 0) {
            *ambiguous = 1;
            return (clc_dtype)0;
        }
    for (int t = 1; t < (int)(sizeof shorts / sizeof shorts[0]); ++t)
        if (strcasecmp(text, shorts[t]) == 0) /* any case, as --weights */
            return (clc_dtype)t;
    const clc_dtype code = npy_code_type(text, strlen(text));
    return code ? code : npy_name_type(text, strlen(text), 1);
}

/* Reads a whole regular file; NULL with a message otherwise. */
static unsigned char *read_file(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("'%s' is not a regular file", path);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    /* One spare byte so that an empty file still gets a buffer. */
    unsigned char *data = f ? malloc((size_t)st.st_size + 1) : NULL;
    if (!f || !data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        cli_error("cannot read '%s': %s", path, f && !data ? "out of memory" : strerror(errno));
        free(data);
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return data;
}

/* The elements of a Fortran-order array in C order (a new buffer), so that argmin and argmax
 * return numpy's index, the first extreme in C order. NULL when out of memory. */
static void *to_c_order(const unsigned char *data, const npy_info *info)
{
    const size_t esize = clc_dtype_size(info->type);
    unsigned char *out = malloc(info->count * esize + 1);
    if (!out)
        return NULL;
    size_t index[NPY_MAX_DIMS] = {0}, stride[NPY_MAX_DIMS];
    size_t s = 1;
    for (int k = info->ndim - 1; k >= 0; --k) {
        stride[k] = s;
        s *= info->shape[k];
    }
    /* Walk memory in order (the first index fastest), placing each element at its C index. */
    for (size_t m = 0; m < info->count; ++m) {
        size_t c = 0;
        for (int k = 0; k < info->ndim; ++k)
            c += index[k] * stride[k];
        memcpy(out + c * esize, data + m * esize, esize);
        for (int k = 0; k < info->ndim && ++index[k] == info->shape[k]; ++k)
            index[k] = 0;
    }
    return out;
}

static int is_float(clc_dtype type)
{
    return type == CLC_DTYPE_F16 || type == CLC_DTYPE_F32 || type == CLC_DTYPE_F64;
}

/* d rounded to the nearest float16 (ties to even), as a double; infinite past float16's range. */
static double nearest_half(double d)
{
    if (!isfinite(d) || d == 0.0)
        return d;
    int e;
    frexp(d, &e);                                   /* |d| in [2^(e-1), 2^e) */
    const int exponent = e - 1 < -14 ? -14 : e - 1; /* subnormals share the smallest quantum */
    const double r = nearbyint(ldexp(d, 10 - exponent)) * ldexp(1.0, exponent - 10);
    return fabs(r) > 65504.0 ? copysign(INFINITY, d) : r;
}

/* Whether text reads back as x in the result's type. */
static int reads_back(const char *text, double x, clc_dtype type)
{
    if (type == CLC_DTYPE_F32)
        return strtof(text, NULL) == (float)x;
    const double d = strtod(text, NULL);
    return (type == CLC_DTYPE_F16 ? nearest_half(d) : d) == x;
}

/* x with `digits` significant digits in %e form, rounded to nearest, or where that does not
 * read back as x, the other way: at a power of two the gap to the value below is half the gap
 * above, so the nearest decimal can fall outside x's interval while the one on the other side
 * lies inside (float16 2^-6 is 0.01563, not 0.015625, to numpy). glibc's printf rounds in the
 * current rounding mode. 1 where the text reads back. */
static int digits_of(double x, clc_dtype type, int digits, char *text, size_t size)
{
    snprintf(text, size, "%.*e", digits - 1, x);
    if (reads_back(text, x, type))
        return 1;
    const int mode = fegetround();
    int ok = 0;
    for (int i = 0; i < 2 && !ok; ++i) {
        fesetround(i ? FE_DOWNWARD : FE_UPWARD);
        snprintf(text, size, "%.*e", digits - 1, x);
        fesetround(mode); /* strtod and nearbyint in reads_back round in the current mode */
        ok = reads_back(text, x, type);
    }
    if (!ok)
        snprintf(text, size, "%.*e", digits - 1, x);
    return ok;
}

/* x (finite or infinite, not NaN) as numpy prints a scalar of the result's type: the fewest
 * significant digits that read back as the same value of that type; positional from 1e-4 up to
 * 1e3 (float16), 1e6 (float32) or 1e16 (float64), with ".0" where no fraction is left, else
 * scientific ("1e+16", "9.999999e+06"). The positional form is built from the same digits. */
static void print_float(double x, clc_dtype type)
{
    if (isinf(x)) {
        printf("%s\n", x < 0 ? "-inf" : "inf");
        return;
    }
    char text[64];
    int n = 1; /* 17 digits always read back */
    while (!digits_of(x, type, n, text, sizeof text) && n < 17)
        ++n;
    const double cut = type == CLC_DTYPE_F16 ? 1e3 : type == CLC_DTYPE_F32 ? 1e6 : 1e16;
    if (x != 0.0 && (fabs(x) < 1e-4 || fabs(x) >= cut)) {
        printf("%s\n", text);
        return;
    }
    /* "-d.ddde+XX": the sign, the n digits and the exponent, laid out positionally. */
    const char *p = text;
    const int negative = *p == '-';
    p += negative;
    char digit[20];
    int k = 0;
    for (; *p && *p != 'e'; ++p)
        if (*p != '.')
            digit[k++] = *p;
    const int exponent = atoi(p + 1);
    fputs(negative ? "-" : "", stdout);
    if (exponent < 0) {
        fputs("0.", stdout);
        for (int i = 1; i < -exponent; ++i)
            putchar('0');
        printf("%.*s\n", k, digit);
        return;
    }
    for (int i = 0; i <= exponent; ++i)
        putchar(i < k ? digit[i] : '0');
    if (k > exponent + 1)
        printf(".%.*s\n", k - exponent - 1, digit + exponent + 1);
    else
        printf(".0\n");
}

static void print_result(clc_reduce_op op, clc_dtype type, const clc_reduce_result *r)
{
    if (op == CLC_REDUCE_ARGMIN || op == CLC_REDUCE_ARGMAX) {
        printf("%" PRIu64 "\n", r->index);
        return;
    }
    const int floating = is_float(type);
    if (floating || op == CLC_REDUCE_MEAN) {
        if (isnan(r->f))
            printf("nan\n"); /* as numpy prints it, whatever the sign bit */
        else
            print_float(r->f, floating ? type : CLC_DTYPE_F64); /* integers' mean: float64 */
        return;
    }
    const int sum = op == CLC_REDUCE_SUM;
    if (type == CLC_DTYPE_BOOL && !sum)
        printf("%s\n", r->u ? "True" : "False");
    else if (type == CLC_DTYPE_I8 || type == CLC_DTYPE_I16 || type == CLC_DTYPE_I32 ||
             type == CLC_DTYPE_I64 || type == CLC_DTYPE_BOOL)
        printf("%" PRId64 "\n", r->i);
    else
        printf("%" PRIu64 "\n", r->u);
}

static int run(int argc, char **argv)
{
    static const char *const op_names[] = {"sum", "min", "max", "mean", "argmin", "argmax"};
    const char *path = NULL, *device = NULL, *type_text = NULL;
    clc_reduce_op op = (clc_reduce_op)0;
    clc_dtype type = (clc_dtype)0;
    cli_args a;
    cli_args_init(&a, argc, argv);
    for (int kind; (kind = cli_next(&a)) != CLI_END;) {
        if (kind == CLI_POSITIONAL) {
            if (path) {
                cli_error("unexpected argument '%s': one FILE is reduced at a time", a.arg);
                return CLI_EXIT_USAGE;
            }
            path = a.arg;
        } else if (cli_is(&a, "--help")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (cli_is(&a, "--op")) {
            const char *v = cli_value(&a);
            if (!v)
                return CLI_EXIT_USAGE;
            for (int i = 0; i < 6; ++i)
                if (strcasecmp(v, op_names[i]) == 0)
                    op = (clc_reduce_op)(i + 1);
            if (!op) {
                cli_error("unknown operation '%s' (sum, min, max, mean, argmin, argmax)", v);
                return CLI_EXIT_USAGE;
            }
        } else if (cli_is(&a, "--type")) {
            if (!(type_text = cli_value(&a)))
                return CLI_EXIT_USAGE;
            int ambiguous = 0;
            if (!(type = parse_type(type_text, &ambiguous))) {
                const int signed_ = type_text[0] == 'i' || type_text[0] == 'I';
                const char *base = signed_ ? "int" : "uint";
                if (ambiguous && strlen(type_text) == 2) /* i8, u8 */
                    cli_error("type '%s' is ambiguous (this tool's %s8, numpy's code of %s64); "
                              "say %s8 or %s64",
                              type_text, base, base, base, base);
                else if (ambiguous)
                    cli_error("type '%s' is ambiguous (numpy's is 64-bit, C's 32-bit); say "
                              "%s32 or %s64",
                              type_text, type_text, type_text);
                else if (type_text[0] == '>')
                    cli_error("type '%s' is big-endian; raw data must be little-endian", type_text);
                else
                    cli_error("unknown type '%s' (f16 f32 f64 i16 i32 i64 u16 u32 u64 bool, "
                              "numpy's names such as float32 or int8, or codes such as <f4)",
                              type_text);
                return CLI_EXIT_USAGE;
            }
        } else if (cli_is(&a, "--device")) {
            if (!(device = cli_value(&a)))
                return CLI_EXIT_USAGE;
        } else {
            return cli_unknown(&a);
        }
    }
    if (!path || !op) {
        cli_error(!path ? "give the FILE to reduce (see clcompute reduce --help)"
                        : "give the operation: --op sum|min|max|mean|argmin|argmax");
        return CLI_EXIT_USAGE;
    }

    size_t size = 0;
    unsigned char *file = read_file(path, &size);
    if (!file)
        return CLI_EXIT_FAILURE;
    int rc = CLI_EXIT_FAILURE;
    clc_context *ctx = NULL;
    void *c_order = NULL, *aligned = NULL;
    npy_info info = {0};
    char error[256];
    if (npy_is_npy(file, size)) {
        if (npy_parse(file, size, &info, error, sizeof error) != 0) {
            cli_error("'%s': %s", path, error);
            goto done;
        }
        if (type && type != info.type) {
            cli_error("'%s' is a .npy file of %s; --type %s contradicts it (--type is for raw "
                      "files)",
                      path, clc_dtype_name(info.type), type_text);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
    } else if (type) {
        info.type = type;
        info.data_offset = 0;
        if (size % clc_dtype_size(type) != 0) {
            cli_error("'%s' has %zu bytes, not a whole number of %s", path, size,
                      clc_dtype_name(type));
            goto done;
        }
        info.count = size / clc_dtype_size(type);
    } else if (size == 0) {
        cli_error("'%s' is empty (0 bytes), not a .npy file", path);
        goto done;
    } else {
        cli_error("'%s' is not a .npy file (no \\x93NUMPY magic); for raw values give --type",
                  path);
        goto done;
    }
    const void *data = file + info.data_offset;
    /* Fortran order changes nothing but which of equal extremes comes first. */
    int dims = 0;
    for (int k = 0; k < info.ndim; ++k)
        dims += info.shape[k] > 1;
    if (info.fortran_order && dims > 1 && (op == CLC_REDUCE_ARGMIN || op == CLC_REDUCE_ARGMAX)) {
        if (!(data = c_order = to_c_order(data, &info))) {
            cli_error("out of memory for a C-order copy of '%s'", path);
            goto done;
        }
    }
    if (info.count == 0) {
        /* numpy: the sum of nothing is 0 and its mean NaN (with a warning); nothing has no
         * minimum, maximum or position of one. */
        if (op == CLC_REDUCE_SUM) {
            printf("%s\n", is_float(info.type) ? "0.0" : "0");
            rc = CLI_EXIT_OK;
        } else if (op == CLC_REDUCE_MEAN) {
            cli_error("warning: mean of an empty array is NaN, as numpy's");
            printf("nan\n");
            rc = CLI_EXIT_OK;
        } else {
            cli_error("'%s' is empty: a zero-size array has no %s (numpy raises ValueError)", path,
                      op_names[op - 1]);
        }
        goto done;
    }
    /* numpy writes the data at a multiple of 64 bytes but reads it at any offset, so another
     * writer's unpadded header is read too: through an aligned copy, as the library takes
     * elements at their own alignment (a raw file starts at 0; a C-order copy is aligned). */
    const size_t esize = clc_dtype_size(info.type);
    if ((uintptr_t)data % esize != 0) {
        if (!(aligned = malloc(info.count * esize))) {
            cli_error("out of memory for an aligned copy of '%s'", path);
            goto done;
        }
        data = memcpy(aligned, data, info.count * esize);
    }
    clc_context_options options = {0};
    options.device = device;
    clc_reduce_result r;
    if (clc_context_create(&options, &ctx) != CLC_SUCCESS ||
        clc_reduce(ctx, op, info.type, data, info.count, &r) != CLC_SUCCESS) {
        cli_error("%s", clc_last_error());
        goto done;
    }
    print_result(op, info.type, &r);
    rc = CLI_EXIT_OK;
done:
    clc_context_destroy(ctx);
    free(c_order);
    free(aligned);
    free(file);
    return rc;
}

const cli_subcommand cli_command_reduce = {
    "reduce",
    "  reduce FILE --op sum|min|max|mean|argmin|argmax [--type T]\n"
    "                                    reduce a .npy or raw array (numpy's)\n",
    run};
