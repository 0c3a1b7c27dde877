/* The tool's argument reading and its progress line, as a user at a terminal meets them. */
#include "fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tools/cli.h"

/* Runs the parser over a command line; returns the kinds seen, one letter each ('o' option,
 * 'p' positional), and the option names and positionals joined by spaces in *seen. */
static void walk(char **argv, int argc, char *kinds, char *seen, size_t size)
{
    cli_args a;
    cli_args_init(&a, argc, argv);
    size_t k = 0;
    seen[0] = '\0';
    for (int kind; (kind = cli_next(&a)) != CLI_END;) {
        kinds[k++] = kind == CLI_OPTION ? 'o' : 'p';
        const char *text = kind == CLI_OPTION ? a.name : a.arg;
        strncat(seen, text, size - strlen(seen) - 2);
        strcat(seen, " ");
        if (kind == CLI_OPTION &&
            (cli_is(&a, "--op") || cli_is(&a, "-o") || cli_is(&a, "--output"))) {
            const char *v = cli_value(&a);
            strncat(seen, v ? v : "(none)", size - strlen(seen) - 2);
            strcat(seen, " ");
        }
    }
    kinds[k] = '\0';
}

static void options_values_and_positionals(void **state)
{
    (void)state;
    char kinds[16], seen[256];
    char *argv1[] = {"reduce", "f.npy", "--op=sum", "--json", "-o", "out", "--", "--file", "-"};
    walk(argv1, 9, kinds, seen, sizeof seen);
    assert_string_equal(kinds, "pooopp");
    assert_string_equal(seen, "f.npy --op sum --json -o out --file - ");
    char *argv2[] = {"reduce", "--op", "--json"}; /* an option is no value */
    walk(argv2, 3, kinds, seen, sizeof seen);
    assert_string_equal(seen, "--op (none) --json ");
    char *argv3[] = {"reduce", "--op"}; /* nothing left */
    walk(argv3, 2, kinds, seen, sizeof seen);
    assert_string_equal(seen, "--op (none) ");
    char *argv4[] = {"reduce", "--op="}; /* an empty value is none */
    walk(argv4, 2, kinds, seen, sizeof seen);
    assert_string_equal(seen, "--op (none) ");
}

static int number(const char *option, const char *text, int rule, double *v)
{
    char *argv[] = {"cloud", (char *)option, (char *)text};
    cli_args a;
    cli_args_init(&a, 3, argv);
    assert_int_equal(cli_next(&a), CLI_OPTION);
    return cli_number(&a, rule, v);
}

/* A value given twice is refused, under either spelling of -o/--output, with both values named;
 * flags and positionals may repeat. */
static void an_option_given_twice_is_refused(void **state)
{
    (void)state;
    char kinds[16], seen[256];
    char *argv1[] = {"reduce", "--op", "sum", "--op=max", "--json", "--json"};
    walk(argv1, 6, kinds, seen, sizeof seen);
    assert_string_equal(seen, "--op sum --op (none) --json --json ");
    char *argv2[] = {"gray", "in.png", "-o", "a.png", "in.png", "--output=b.png"};
    walk(argv2, 6, kinds, seen, sizeof seen);
    assert_string_equal(kinds, "popo");
    assert_string_equal(seen, "in.png -o a.png in.png --output (none) ");
}

static void numbers_are_checked_whole(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(number("--fx", "525.5", CLI_POSITIVE, &v), 0);
    assert_true(v == 525.5);
    assert_int_equal(number("--fx", "-525.5", CLI_NONZERO, &v),
                     0); /* a negative value is a value */
    assert_true(v == -525.5);
    static const char *const bad_focal[] = {"0",     "-0",     "0.0",    "-inf",   "nan",   "1e999",
                                            "1e-40", "1e-400", "-1e-40", "3.5e38", "-1e999"};
    for (size_t i = 0; i < sizeof bad_focal / sizeof bad_focal[0]; ++i)
        if (number("--fx", bad_focal[i], CLI_NONZERO, &v) != -1)
            fail_msg("--fx '%s' accepted", bad_focal[i]);
    assert_int_equal(number("--cx", "-7.5", CLI_FINITE, &v), 0);
    assert_true(v == -7.5);
    assert_int_equal(number("--cx", "1e-400", CLI_FINITE, &v), 0); /* as good as 0 */
    assert_true(fabs(v) < 1e-300);
    assert_int_equal(number("--cx", "1e999", CLI_FINITE, &v), -1);
    assert_int_equal(number("--cx", "-inf", CLI_FINITE, &v), -1);
    assert_int_equal(number("--cx", "nan", CLI_FINITE, &v), -1);
    assert_int_equal(number("--depth-trunc", "inf", CLI_POSITIVE_INF, &v), 0);
    assert_true(isinf(v) && v > 0);
    assert_int_equal(number("--depth-trunc", "2.5", CLI_POSITIVE_INF, &v), 0);
    assert_int_equal(number("--depth-trunc", "1e999", CLI_POSITIVE_INF, &v), 0); /* as inf */
    assert_true(isinf(v) && v > 0);
    static const char *const bad_trunc[] = {"-inf", "nan", "0", "-1", "-1e999", "1e-999", "0x10"};
    for (size_t i = 0; i < sizeof bad_trunc / sizeof bad_trunc[0]; ++i)
        if (number("--depth-trunc", bad_trunc[i], CLI_POSITIVE_INF, &v) != -1)
            fail_msg("--depth-trunc '%s' accepted", bad_trunc[i]);
    static const char *const bad[] = {"0", "-2", "nan", "inf", "1e999", "5x", "", " 5", "0x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        if (number("--depth-scale", bad[i], CLI_POSITIVE, &v) != -1)
            fail_msg("--depth-scale '%s' accepted", bad[i]);
    /* One command line each: a second --stride would be refused as given twice. */
    char *values[] = {"3", "-1", "2.5", "9x", "0", "65536"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        char *argv[] = {"cloud", "--stride", values[i]};
        cli_args a;
        cli_args_init(&a, 3, argv);
        unsigned s = 0;
        assert_int_equal(cli_next(&a), CLI_OPTION);
        assert_int_equal(cli_whole(&a, 1, 65535, &s), i == 0 ? 0 : -1);
        assert_int_equal(s, i == 0 ? 3 : 0);
    }
}

/* What a terminal shows after text: carriage returns go back to the start of the line. */
static void render(const char *text, char screen[8][128], int *lines)
{
    int row = 0, col = 0;
    memset(screen, 0, 8 * 128);
    for (const char *p = text; *p; ++p) {
        if (*p == '\r') {
            col = 0;
        } else if (*p == '\n') {
            ++row, col = 0;
        } else if (row < 8 && col < 127) {
            screen[row][col++] = *p;
        }
    }
    *lines = row;
    for (int r = 0; r < 8; ++r) /* trailing blanks are invisible */
        for (int c = (int)strlen(screen[r]) - 1; c >= 0 && screen[r][c] == ' '; --c)
            screen[r][c] = '\0';
}

static void progress_line_leaves_nothing_stale_and_messages_start_lines(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("cli");
    char path[4200];
    snprintf(path, sizeof path, "%s/stderr", dir);
    FILE *saved = fdopen(dup(fileno(stderr)), "w");
    assert_non_null(freopen(path, "w", stderr));
    cli_set_command("clcompute gray");
    cli_progress_line("[###...] 3/10  2.0 items/s  ETA 14 s");
    cli_progress_line("[####..] 4/10  2.0 items/s  ETA 4 s");
    cli_error("'bad.png' is a truncated or corrupt PNG file");
    cli_progress_line("[#####.] 5/10  2.0 items/s  ETA 3 s");
    cli_progress_end();
    cli_error("interrupted");
    fflush(stderr);
    assert_non_null(freopen("/dev/null", "w", stderr));
    dup2(fileno(saved), 2);
    fclose(saved);

    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char text[2048];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char screen[8][128];
    int lines = 0;
    render(text, screen, &lines);
    assert_int_equal(lines, 3);
    assert_string_equal(screen[0], "clcompute gray: 'bad.png' is a truncated or corrupt PNG file");
    assert_string_equal(screen[1], "[#####.] 5/10  2.0 items/s  ETA 3 s");
    assert_string_equal(screen[2], "clcompute gray: interrupted");
    fixture_remove_dir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_values_and_positionals),
        cmocka_unit_test(an_option_given_twice_is_refused),
        cmocka_unit_test(numbers_are_checked_whole),
        cmocka_unit_test(progress_line_leaves_nothing_stale_and_messages_start_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
