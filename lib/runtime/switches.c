/* The environment switches for testing and measuring (docs/guide.md, "Environment variables"),
 * in one table: read once when a context is made, so that a call never depends on the
 * environment of its moment, and set directly by tests on a context of theirs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
    const char *name;
    const char *const *choices; /* NULL: a number from lo to hi */
    long lo, hi;
} table[CLC_SWITCHES] = {
    [CLC_SW_STAGING] = {"CLCOMPUTE_STAGING", (const char *const[]){"0", "always", "all", NULL}, 0,
                        0},
    [CLC_SW_STAGING_THREADS] = {"CLCOMPUTE_STAGING_THREADS", NULL, 1, 64},
    [CLC_SW_STAGING_CHUNK] = {"CLCOMPUTE_STAGING_CHUNK", NULL, 1024, 1L << 30},
    [CLC_SW_POISON] = {"CLCOMPUTE_POISON", NULL, 0, 255},
    [CLC_SW_TUNE] = {"CLCOMPUTE_TUNE", (const char *const[]){"0", "1", "again", NULL}, 0, 0},
    [CLC_SW_CACHE] = {"CLCOMPUTE_CACHE", (const char *const[]){"0", "1", NULL}, 0, 0},
    [CLC_SW_GRAY_SHAPE] = {"CLCOMPUTE_GRAY_SHAPE", (const char *const[]){"rows", "blocks", NULL}, 0,
                           0},
    [CLC_SW_GRAY_PATH] = {"CLCOMPUTE_GRAY_PATH",
                          (const char *const[]){"bytes", "vectors", "words", NULL}, 0, 0},
    [CLC_SW_CLOUD_SHAPE] = {"CLCOMPUTE_CLOUD_SHAPE",
                            (const char *const[]){"items", "groups", "onepass", NULL}, 0, 0},
    [CLC_SW_REDUCE_SHAPE] = {"CLCOMPUTE_REDUCE_SHAPE",
                             (const char *const[]){"items", "groups", NULL}, 0, 0},
    [CLC_SW_REDUCE_PASSES] = {"CLCOMPUTE_REDUCE_PASSES", NULL, 1, 2},
    [CLC_SW_BANDS] = {"CLCOMPUTE_BANDS", NULL, 1, 64},
    [CLC_SW_REDUCE_PIECE] = {"CLCOMPUTE_REDUCE_PIECE", NULL, 16, 1L << 30},
};

void clc__switch_set(clc_context *ctx, clc_switch s, const char *text)
{
    clc_switch_value *v = &ctx->switches[s];
    v->value = CLC_SWITCH_UNSET;
    snprintf(v->text, sizeof v->text, "%s", text ? text : "");
    if (!text || !*text)
        return;
    if (strlen(text) >= sizeof v->text) {
        v->value = CLC_SWITCH_INVALID;
        return;
    }
    if (table[s].choices) {
        v->value = CLC_SWITCH_INVALID;
        for (int i = 0; table[s].choices[i]; ++i)
            if (strcmp(text, table[s].choices[i]) == 0)
                v->value = i;
        return;
    }
    char *end = NULL;
    errno = 0;
    const long n = strtol(text, &end, 0);
    v->value = *end == '\0' && errno == 0 && n >= table[s].lo && n <= table[s].hi
                   ? (int)n
                   : CLC_SWITCH_INVALID;
}

void clc__switches_read(clc_context *ctx)
{
    for (int s = 0; s < CLC_SWITCHES; ++s)
        clc__switch_set(ctx, (clc_switch)s, getenv(table[s].name));
}

int clc__switch(clc_context *ctx, clc_switch s, int *value)
{
    const clc_switch_value *v = &ctx->switches[s];
    if (v->value == CLC_SWITCH_UNSET)
        return 0;
    if (v->value >= 0) {
        *value = v->value;
        return 1;
    }
    char expected[96] = "";
    if (table[s].choices)
        for (int i = 0; table[s].choices[i]; ++i)
            snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s",
                     i ? " or " : "", table[s].choices[i]);
    else
        snprintf(expected, sizeof expected, "a number from %ld to %ld", table[s].lo, table[s].hi);
    clc__fail(ctx, CLC_ERROR_INVALID_ARGUMENT, "%s is \"%s\" (when the context was made); use %s",
              table[s].name, v->text, expected);
    return -1;
}
