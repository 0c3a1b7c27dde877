/* Per-device variants: timed once, stored beside the cached programs, read back by the next
 * context, re-timed when the entry is unusable or CLCOMPUTE_TUNE=again, skipped when a variant
 * cannot run; each context lists its choices (clc_context_tuned). */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const clc_embedded_source fake_source = {"fake", "", 0, "fake-source-hash"};
static const char *const names[] = {"slow", "fast", "broken"};

/* What the fake family saw: setups, runs per variant. */
static int setups, runs[3];

static clc_status fake_setup(clc_context *ctx, void **arg)
{
    (void)ctx;
    ++setups;
    *arg = &setups;
    return CLC_SUCCESS;
}

static void fake_teardown(void *arg)
{
    assert_ptr_equal(arg, &setups);
}

/* "slow" sleeps 100 ms, "fast" returns at once, "broken" fails: the choice must be "fast", even
 * on a loaded machine, unless the scheduler held back every one of the fast variant's five timed
 * runs by more than 100 ms. */
static clc_status fake_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    (void)ctx;
    assert_ptr_equal(arg, &setups);
    assert_ptr_not_equal(queue, clc_context_cl_queue(ctx)); /* never the caller's queue */
    ++runs[variant];
    if (variant == 2)
        return CLC_ERROR_UNSUPPORTED;
    if (variant == 0) {
        const struct timespec pause = {0, 100000000};
        nanosleep(&pause, NULL);
    }
    return CLC_SUCCESS;
}

static const clc_tune_family family = {"fake",     &fake_source, "-DFAKE",      names, 3,
                                       fake_setup, fake_run,     fake_teardown, 0};

static void reset(void)
{
    setups = 0;
    memset(runs, 0, sizeof runs);
}

/* The context's choice number i (of count) is that family's variant, from source. */
static void expect_choice(clc_context *ctx, size_t i, size_t count, const char *name,
                          const char *variant, clc_tuned_source source)
{
    clc_tuned_choice c[4] = {{0}};
    size_t n = 99;
    assert_int_equal(clc_context_tuned(ctx, c, 4, &n), CLC_SUCCESS);
    assert_int_equal(n, count);
    assert_true(i < n);
    assert_string_equal(c[i].family, name);
    assert_string_equal(c[i].variant, variant);
    assert_int_equal(c[i].source, source);
}

static clc_context *context_on(const char *dir)
{
    clc_context_options options = fixture_options();
    options.cache = dir ? CLC_CACHE_ON : CLC_CACHE_OFF;
    options.cache_dir = dir;
    return fixture_context(&options);
}

static void fastest_is_chosen_stored_and_reused(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("tune");
    reset();
    clc_context *ctx = context_on(dir);
    assert_int_equal(clc__tune(ctx, &family, 0), 1);
    assert_int_equal(setups, 1);
    assert_int_equal(runs[0], 6); /* six rounds of single runs: this family is not batched */
    assert_int_equal(runs[1], 6);
    assert_int_equal(runs[2], 1); /* a variant that fails is not tried again */
    assert_int_equal(fixture_count_files(dir), 1);
    expect_choice(ctx, 0, 1, "fake", "fast", CLC_TUNED_TIMED);
    /* The context remembers: no second timing. */
    reset();
    assert_int_equal(clc__tune(ctx, &family, 0), 1);
    assert_int_equal(setups + runs[0] + runs[1], 0);
    clc_context_destroy(ctx);

    /* A new context reads the stored choice. */
    reset();
    ctx = context_on(dir);
    assert_int_equal(clc__tune(ctx, &family, 0), 1);
    assert_int_equal(setups, 0);
    expect_choice(ctx, 0, 1, "fake", "fast", CLC_TUNED_STORED);
    clc_context_destroy(ctx);

    /* The same family timed in batches does not take that choice (timed by single runs): it
     * times again, and stores its own beside it. */
    clc_tune_family batched = family;
    batched.batched = 1;
    reset();
    ctx = context_on(dir);
    assert_int_equal(clc__tune(ctx, &batched, 0), 1);
    assert_int_equal(setups, 1);
    assert_int_equal(runs[0], 6); /* 100 ms a run: one run a round */
    assert_true(runs[1] >= 6 && (runs[1] - 2) % 4 == 0);
    assert_int_equal(fixture_count_files(dir), 2);
    clc_context_destroy(ctx);
    fixture_remove_dir(dir);
    free(dir);
}

/* Batch workers of one device: the first times, the others ask it (tune_peer). */
static void a_peer_times_once_for_all(void **state)
{
    (void)state;
    clc_context *first = context_on(NULL), *second = context_on(NULL);
    second->tune_peer = first;
    reset();
    assert_int_equal(clc__tune(second, &family, 0), 1);
    assert_int_equal(setups, 1);
    reset();
    assert_int_equal(clc__tune(first, &family, 0), 1);
    assert_int_equal(clc__tune(second, &family, 0), 1);
    assert_int_equal(setups + runs[0] + runs[1], 0);
    assert_int_equal(second->tuned_count, 0);                     /* remembered once, by the peer */
    expect_choice(second, 0, 1, "fake", "fast", CLC_TUNED_TIMED); /* and listed from there */
    clc_context_destroy(second);
    clc_context_destroy(first);
}

/* Writes the fake family's entry naming `variant` into dir, as an earlier process would have;
 * returns its key (the caller frees it). */
static char *store_choice(clc_context *ctx, const char *dir, const char *variant)
{
    char *base = clc__cache_key(ctx, fake_source.hash, family.options);
    char *key = clc__asprintf("%stune: %s\n", base, family.name);
    free(base);
    assert_non_null(key);
    assert_int_equal(
        clc__cache_store(dir, key, (const unsigned char *)variant, strlen(variant), NULL, 0), 0);
    return key;
}

static void unusable_entry_is_timed_again(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("tune");
    clc_context *ctx = context_on(dir);
    /* An entry naming a variant that does not exist (a newer library's, say). */
    char *key = store_choice(ctx, dir, "warp");
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 1);
    assert_int_equal(setups, 1);
    clc_context_destroy(ctx);
    /* The entry now names "fast". */
    unsigned char *payload = NULL;
    size_t size = 0;
    assert_int_equal(clc__cache_load(dir, key, &payload, &size, NULL, 0), 1);
    assert_int_equal(size, 4);
    assert_memory_equal(payload, "fast", 4);
    free(payload);
    free(key);
    fixture_remove_dir(dir);
    free(dir);
}

/* A stored choice stays, even one that a busy machine timed: the next context reads it without
 * timing. CLCOMPUTE_TUNE=again times the family again and replaces the stored choice. */
static void again_times_a_stored_choice_again(void **state)
{
    (void)state;
    char *dir = fixture_temp_dir("tune");
    clc_context *ctx = context_on(dir);
    /* "slow", as timing on a loaded machine could have stored it. */
    char *key = store_choice(ctx, dir, "slow");
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 0);
    assert_int_equal(setups, 0);
    expect_choice(ctx, 0, 1, "fake", "slow", CLC_TUNED_STORED);
    clc_context_destroy(ctx);

    ctx = context_on(dir);
    clc__switch_set(ctx, CLC_SW_TUNE, "again");
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 1);
    assert_int_equal(setups, 1);
    expect_choice(ctx, 0, 1, "fake", "fast", CLC_TUNED_TIMED);
    /* Once a context: its later calls keep the new choice. */
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 1);
    assert_int_equal(setups, 0);
    clc_context_destroy(ctx);

    /* Stored: the next plain context reads "fast". */
    ctx = context_on(dir);
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 1);
    assert_int_equal(setups, 0);
    expect_choice(ctx, 0, 1, "fake", "fast", CLC_TUNED_STORED);
    clc_context_destroy(ctx);
    free(key);
    fixture_remove_dir(dir);
    free(dir);
}

/* clc_context_tuned: the count alone with NULL, 0; at most `capacity` entries written; a clear
 * error for a missing context, count or array. */
static void tuned_choices_are_listed_and_misuse_refused(void **state)
{
    (void)state;
    clc_context *ctx = context_on(NULL);
    size_t n = 99;
    assert_int_equal(clc_context_tuned(ctx, NULL, 0, &n), CLC_SUCCESS);
    assert_int_equal(n, 0);
    clc__switch_set(ctx, CLC_SW_TUNE, "0");
    const clc_tune_family other = {"other",    &fake_source, "-DOTHER",     names, 3,
                                   fake_setup, fake_run,     fake_teardown, 0};
    assert_int_equal(clc__tune(ctx, &family, 1), 1);
    assert_int_equal(clc__tune(ctx, &other, 0), 0);
    assert_int_equal(clc_context_tuned(ctx, NULL, 0, &n), CLC_SUCCESS);
    assert_int_equal(n, 2);
    clc_tuned_choice c[2] = {{0}, {"untouched", "untouched", CLC_TUNED_TIMED}};
    assert_int_equal(clc_context_tuned(ctx, c, 1, &n), CLC_SUCCESS);
    assert_int_equal(n, 2);
    assert_string_equal(c[0].family, "fake");
    assert_string_equal(c[0].variant, "fast");
    assert_string_equal(c[1].family, "untouched");

    assert_int_equal(clc_context_tuned(NULL, c, 2, &n), CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "clc_context_tuned"));
    assert_int_equal(clc_context_tuned(ctx, c, 2, NULL), CLC_ERROR_INVALID_ARGUMENT);
    assert_int_equal(clc_context_tuned(ctx, NULL, 1, &n), CLC_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(clc_last_error(), "nor choices when capacity is not 0"));
    clc_context_destroy(ctx);
}

static clc_status failing_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    (void)ctx, (void)queue, (void)arg;
    ++runs[variant];
    return CLC_ERROR_UNSUPPORTED;
}

static void tuning_off_or_impossible_gives_the_fallback(void **state)
{
    (void)state;
    clc_context *ctx = context_on(NULL);
    clc__switch_set(ctx, CLC_SW_TUNE, "0");
    reset();
    assert_int_equal(clc__tune(ctx, &family, 2), 2);
    assert_int_equal(setups, 0);
    expect_choice(ctx, 0, 1, "fake", "broken", CLC_TUNED_DEFAULT);
    /* A family whose default has no variant's name (staging's untimed chunk). */
    const clc_tune_family unnamed = {"unnamed",  &fake_source, "-DFAKE",      names, 3,
                                     fake_setup, fake_run,     fake_teardown, 0};
    assert_int_equal(clc__tune(ctx, &unnamed, -1), -1);
    expect_choice(ctx, 1, 2, "unnamed", "default", CLC_TUNED_DEFAULT);
    clc_context_destroy(ctx);

    /* No variant runs: the fallback, and nothing stored for the next process. */
    char *dir = fixture_temp_dir("tune");
    ctx = context_on(dir);
    static const char *const broken[] = {"broken-a", "broken-b"};
    const clc_tune_family failing = {"failing",  &fake_source, "-DFAKE",      broken, 2,
                                     fake_setup, failing_run,  fake_teardown, 0};
    reset();
    assert_int_equal(clc__tune(ctx, &failing, 1), 1);
    assert_int_equal(runs[0], 1);
    assert_int_equal(runs[1], 1);
    assert_int_equal(fixture_count_files(dir), 0);
    expect_choice(ctx, 0, 1, "failing", "broken-b", CLC_TUNED_DEFAULT);
    clc_context_destroy(ctx);
    fixture_remove_dir(dir);
    free(dir);
}

/* The choice among measured times: a variant faster than the clock can tell (0 ns) wins; one that
 * failed never does, whatever its time; ties go to the earlier. */
static void zero_time_wins_and_failures_never_do(void **state)
{
    (void)state;
    const uint64_t ns[] = {5000, 0, 3000, 0};
    const int all[] = {1, 1, 1, 1}, second_failed[] = {1, 0, 1, 1}, none[] = {0, 0, 0, 0};
    assert_int_equal(clc__tune_choose(ns, all, 4), 1);
    assert_int_equal(clc__tune_choose(ns, second_failed, 4), 3);
    assert_int_equal(clc__tune_choose(ns, second_failed, 3), 2);
    assert_int_equal(clc__tune_choose(ns, none, 4), -1);
    const uint64_t zeros[] = {0, 0};
    assert_int_equal(clc__tune_choose(zeros, all, 2), 0);
}

/* Batches of about 1 ms: a run of more than 2/3 ms alone, faster ones up to 64 at a time, a run
 * the clock could not time (0 ns) as many as allowed. */
static void fast_variants_are_timed_in_batches(void **state)
{
    (void)state;
    assert_int_equal(clc__tune_batch(0), 64);
    assert_int_equal(clc__tune_batch(1), 64);
    assert_int_equal(clc__tune_batch(15625), 64);
    assert_int_equal(clc__tune_batch(16000), 63);
    assert_int_equal(clc__tune_batch(40000), 25); /* gray 1080p on the H200, enqueue and wait */
    assert_int_equal(clc__tune_batch(500000), 2);
    assert_int_equal(clc__tune_batch(666666), 2);
    assert_int_equal(clc__tune_batch(700000), 1);
    assert_int_equal(clc__tune_batch(1000000), 1);
    assert_int_equal(clc__tune_batch(UINT64_MAX), 1);

    /* One size for every variant, from the fastest that ran; one ten times slower or more takes
     * fewer, about 10 ms a batch. */
    const uint64_t ns[] = {40000, 2000000, 400000, 20000000};
    const int all[] = {1, 1, 1, 1}, first_failed[] = {0, 1, 1, 1}, none[] = {0, 0, 0, 0};
    unsigned batch[4];
    clc__tune_batches(ns, all, 4, batch);
    assert_int_equal(batch[0], 25);
    assert_int_equal(batch[1], 5);
    assert_int_equal(batch[2], 25);
    assert_int_equal(batch[3], 1);
    clc__tune_batches(ns, first_failed, 4, batch);
    assert_int_equal(batch[1], 3);
    assert_int_equal(batch[2], 3);
    assert_int_equal(batch[3], 1);
    clc__tune_batches(ns, none, 4, batch);
    for (int v = 0; v < 4; ++v)
        assert_int_equal(batch[v], 1);
    /* The fastest slowed by a burst of load in its single run (2 ms for 40 us) is still timed in
     * batches, not alone beside batched rivals. */
    const uint64_t burst[] = {2000000, 50000};
    clc__tune_batches(burst, all, 2, batch);
    assert_int_equal(batch[0], 5);
    assert_int_equal(batch[1], 20);
}

/* The clock is monotonic and counts in nanoseconds: two readings never go backwards, and a
 * 1 ms sleep reads as at least 1 ms. */
static void the_clock_counts_nanoseconds(void **state)
{
    (void)state;
    const uint64_t t0 = clc__now_ns();
    const struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
    const uint64_t t1 = clc__now_ns();
    assert_true(t1 >= t0 + 1000000u);
}

/* Runs of each of the ten variants below. */
static int many_runs[10];

/* Ten variants, the last the fastest: every variant is a candidate, however many. */
static clc_status many_run(clc_context *ctx, cl_command_queue queue, int variant, void *arg)
{
    (void)ctx, (void)queue, (void)arg;
    ++setups; /* counts runs here */
    ++many_runs[variant];
    if (variant < 9) {
        const struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
    return CLC_SUCCESS;
}

static clc_status plain_setup(clc_context *ctx, void **arg)
{
    (void)ctx;
    *arg = NULL;
    return CLC_SUCCESS;
}

static void plain_teardown(void *arg)
{
    (void)arg;
}

static void any_number_of_variants_and_families(void **state)
{
    (void)state;
    static const char *const ten[] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"};
    clc_context *ctx = context_on(NULL); /* no disk cache: only the context remembers */
    const clc_tune_family wide = {"wide",      &fake_source, "-DWIDE",       ten, 10,
                                  plain_setup, many_run,     plain_teardown, 1};
    reset();
    memset(many_runs, 0, sizeof many_runs);
    assert_int_equal(clc__tune(ctx, &wide, 0), 9);
    /* Six rounds of each. The slow ones (20 ms a run) one run a round; the fast one single runs
     * in rounds 0 and 1, then batches of up to 64 (how many depends on how fast it ran). */
    for (int v = 0; v < 9; ++v)
        assert_int_equal(many_runs[v], 6);
    assert_true(many_runs[9] >= 6 && (many_runs[9] - 2) % 4 == 0); /* two single, four batches */
    /* More families than the context first has room for: each timed once, all remembered. */
    enum { FAMILIES = 9 };
    clc_tune_family families[FAMILIES];
    for (int f = 0; f < FAMILIES; ++f) {
        families[f] = wide;
        families[f].count = 1;
    }
    for (int pass = 0; pass < 2; ++pass) {
        reset();
        for (int f = 0; f < FAMILIES; ++f)
            assert_int_equal(clc__tune(ctx, &families[f], 5), 0);
        if (pass == 1)
            assert_int_equal(setups, 0);
    }
    reset();
    assert_int_equal(clc__tune(ctx, &wide, 0), 9);
    assert_int_equal(setups, 0);
    clc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fastest_is_chosen_stored_and_reused),
        cmocka_unit_test(a_peer_times_once_for_all),
        cmocka_unit_test(unusable_entry_is_timed_again),
        cmocka_unit_test(tuning_off_or_impossible_gives_the_fallback),
        cmocka_unit_test(again_times_a_stored_choice_again),
        cmocka_unit_test(tuned_choices_are_listed_and_misuse_refused),
        cmocka_unit_test(zero_time_wins_and_failures_never_do),
        cmocka_unit_test(fast_variants_are_timed_in_batches),
        cmocka_unit_test(the_clock_counts_nanoseconds),
        cmocka_unit_test(any_number_of_variants_and_families),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
