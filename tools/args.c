/* Arguments of a subcommand, the way users of getopt_long tools type them. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_args_init(cli_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
}

int cli_next(cli_args *a)
{
    a->name[0] = '\0';
    a->given = NULL;
    a->arg = NULL;
    if (a->next >= a->argc)
        return CLI_END;
    const char *arg = a->argv[a->next++];
    a->arg = arg;
    if (!a->options_ended && strcmp(arg, "--") == 0) {
        a->options_ended = 1;
        return cli_next(a);
    }
    /* "-" alone is a path (standard input, by convention), as is anything after "--". */
    if (a->options_ended || arg[0] != '-' || arg[1] == '\0')
        return CLI_POSITIONAL;
    const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
    const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len >= sizeof a->name) {
        snprintf(a->name, sizeof a->name, "%.*s...", (int)(sizeof a->name - 4), arg);
    } else {
        memcpy(a->name, arg, len);
        a->name[len] = '\0';
    }
    a->given = eq ? eq + 1 : NULL;
    return CLI_OPTION;
}

/* The long name of an option as typed: a short alias is the same option, to cli_is and to the
 * "given twice" check alike. */
static const char *long_name(const char *name)
{
    static const char *const aliases[][2] = {
        {"-h", "--help"}, {"-o", "--output"}, {"-q", "--quiet"}, {"-r", "--recursive"}};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; ++i)
        if (strcmp(name, aliases[i][0]) == 0)
            return aliases[i][1];
    return name;
}

int cli_is(const cli_args *a, const char *name)
{
    return strcmp(long_name(a->name), name) == 0;
}

/* Whether text can be an option's value though it starts with '-': a negative number (-inf
 * too), which the option's own check then judges. */
static int negative_number(const char *text)
{
    char *end = NULL;
    if (text[0] != '-')
        return 0;
    strtod(text, &end);
    return end != text && *end == '\0';
}

/* What an earlier argument gave option `name` ("" for a flag), or NULL when none did; then
 * `value` is kept as the option's. Past 32 options (no subcommand has as many) repeats go
 * unnoticed. */
static const char *earlier(cli_args *a, const char *name, const char *value)
{
    for (int i = 0; i < a->taken_count; ++i)
        if (strcmp(a->taken[i].name, name) == 0)
            return a->taken[i].value;
    if (a->taken_count < (int)(sizeof a->taken / sizeof a->taken[0])) {
        snprintf(a->taken[a->taken_count].name, sizeof a->taken[0].name, "%s", name);
        a->taken[a->taken_count++].value = value;
    }
    return NULL;
}

/* The value, or NULL after a message where the option already had one: a second --output
 * would otherwise decide silently which of two files gets written. */
static const char *taken(cli_args *a, const char *value)
{
    const char *before = earlier(a, long_name(a->name), value);
    if (!before)
        return value;
    cli_error("option %s given twice ('%s', then '%s'); give it once", long_name(a->name), before,
              value);
    return NULL;
}

const char *cli_value(cli_args *a)
{
    if (a->given && *a->given)
        return taken(a, a->given);
    if (!a->given && a->next < a->argc) {
        const char *v = a->argv[a->next];
        /* "-" (standard input or output), a number ("-5", "-inf") or anything a digit follows
         * ("-1/2": the option then says what it takes) is a value; "--fy" is the next option. */
        if (v[0] && (v[0] != '-' || v[1] == '\0' || negative_number(v) ||
                     isdigit((unsigned char)v[1]) || v[1] == '.')) {
            ++a->next;
            return taken(a, v);
        }
    }
    cli_error("option %s needs a value", a->name);
    return NULL;
}

int cli_flag(cli_args *a)
{
    if (a->given) {
        cli_error("option %s takes no value (given '%s')", a->name, a->given);
        return -1;
    }
    if (earlier(a, long_name(a->name), "")) {
        cli_error("option %s given twice; give it once", long_name(a->name));
        return -1;
    }
    return 0;
}

int cli_unknown(const cli_args *a)
{
    cli_error("unknown option '%s' (see %s --help)", a->name, cli_command());
    return CLI_EXIT_USAGE;
}

int cli_float_ok(double v, int rule)
{
    /* Below FLT_MIN a float is subnormal or zero, and its reciprocal overflows; NaN fails both. */
    const double m = fabs(v);
    return rule == CLI_FINITE ? m <= FLT_MAX : m >= FLT_MIN && m <= FLT_MAX;
}

/* The refusal of a text that is not a number of the rule's kind; -1. */
static int not_a_number(const cli_args *a, int rule, const char *text)
{
    static const char *const wanted[] = {[CLI_POSITIVE] = "positive, finite",
                                         [CLI_NONZERO] = "finite, non-zero",
                                         [CLI_POSITIVE_INF] = "positive (or inf)",
                                         [CLI_FINITE] = "finite"};
    cli_error("option %s needs a %s number, not '%s'", a->name, wanted[rule], text);
    return -1;
}

int cli_number(cli_args *a, int rule, double *out)
{
    const char *text = cli_value(a);
    if (!text)
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    /* ERANGE: a number beyond a double (1e999 gives +-HUGE_VAL, 1e-999 zero or a subnormal). It
     * is a number all the same, refused below as out of a float's range, not as "not a number". */
    const int range = errno == ERANGE;
    if (end == text || *end != '\0' || isspace((unsigned char)text[0]) || (!range && isnan(v)))
        return not_a_number(a, rule, text);
    if (strpbrk(text, "xX")) { /* strtod reads hexadecimal: "0x10" is 16, which no one means */
        cli_error("option %s takes decimal numbers, not '%s'", a->name, text);
        return -1;
    }
    if (rule == CLI_POSITIVE_INF) {
        /* A truncation distance is a double in the library, and infinity no truncation at all:
         * a number beyond a double is that infinity, one below it zero. */
        if (range)
            v = fabs(v) > 1 ? copysign(INFINITY, v) : 0.0;
        if (!(v > 0))
            return not_a_number(a, rule, text);
        *out = v;
        return 0;
    }
    /* The library takes the others as floats, and divides by the positive and non-zero ones: a
     * value a float cannot hold, or whose reciprocal it cannot, is refused here rather than by
     * every file of a batch. A principal point below a float's range is as good as 0; a value
     * beyond a double (ERANGE: infinite, or below DBL_MIN) is out of every other range. */
    if ((!range && (isinf(v) || (rule != CLI_FINITE && v == 0))) || (rule == CLI_POSITIVE && v < 0))
        return not_a_number(a, rule, text);
    if (!cli_float_ok(v, rule)) {
        cli_error("option %s: '%s' is out of a float's range (%s)", a->name, text,
                  rule == CLI_FINITE ? "at most about 3.4e38 in magnitude"
                                     : "about 1.2e-38 to 3.4e38 in magnitude");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_whole(cli_args *a, unsigned long lo, unsigned long hi, unsigned *out)
{
    const char *text = cli_value(a);
    if (!text)
        return -1;
    char *end = NULL;
    errno = 0;
    const unsigned long v = isdigit((unsigned char)text[0]) ? strtoul(text, &end, 10) : 0;
    if (!end || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        cli_error("option %s needs a whole number from %lu to %lu, not '%s'", a->name, lo, hi,
                  text);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}
