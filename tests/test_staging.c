/* Staged host transfers: the chunk size is timed on any device, a transfer is cut as the rule
 * says, and bytes come back intact through chunks of the timed sizes (on CPU-only CI through
 * CLCOMPUTE_STAGING=always, which stages even where the device shares host memory). */
#include "fixture.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/ref/gray.h"
#include "internal.h"

/* Every chunk size runs (the fallback -1 never comes back) and one is chosen. */
static void chunk_sizes_are_timed_on_any_device(void **state)
{
    (void)state;
    clc_context_options options = fixture_options();
    options.cache = CLC_CACHE_OFF;
    clc_context *ctx = fixture_context(&options);
    clc__switch_set(ctx, CLC_SW_TUNE, "1");
    const int choice = clc__tune(ctx, &clc__staging_tune_family, -1);
    assert_true(choice >= 0 && choice < clc__staging_tune_family.count);
    print_message("staging chunk on %s: %s\n", clc_context_device(ctx)->name,
                  clc__staging_tune_family.names[choice]);
    clc_context_destroy(ctx);
}

/* At least four chunks of at least 4 MiB, never more than the chosen chunk; small chosen chunks
 * (the tests' odd size) as they are. */
static void transfers_are_cut_in_four_or_more(void **state)
{
    (void)state;
    const size_t mib = (size_t)1 << 20;
    assert_int_equal(clc__staging_chunk_for(32 * mib, 256 * mib), 32 * mib);
    assert_int_equal(clc__staging_chunk_for(32 * mib, 100 * mib), 25 * mib);
    assert_int_equal(clc__staging_chunk_for(32 * mib, 25 * mib), 7 * mib);
    assert_int_equal(clc__staging_chunk_for(32 * mib, 5 * mib), 4 * mib);
    assert_int_equal(clc__staging_chunk_for(8 * mib, 64 * 1024), 4 * mib);
    assert_int_equal(clc__staging_chunk_for(8 * mib, 256 * mib), 8 * mib);
    assert_int_equal(clc__staging_chunk_for(4099, 256 * mib), 4099);
}

/* A 3000x2000 RGB image (18 MB) to gray through staging in the timed chunk size: the result is
 * the reference's, byte for byte. */
static void bytes_survive_the_timed_chunks(void **state)
{
    (void)state;
    enum { W = 3000, H = 2000 };
    setenv("CLCOMPUTE_STAGING", "always", 1);
    clc_context_options options = fixture_options();
    options.cache = CLC_CACHE_OFF;
    clc_context *ctx = fixture_context(&options);
    unsetenv("CLCOMPUTE_STAGING");
    clc__switch_set(ctx, CLC_SW_TUNE, "1");
    ctx->staging_chunk = 0; /* the timed size, not the odd one of "always" */
    unsigned char *rgb = malloc((size_t)W * H * 3), *gray = malloc((size_t)W * H);
    unsigned char *ref = malloc((size_t)W * H);
    assert_non_null(rgb);
    assert_non_null(gray);
    assert_non_null(ref);
    uint32_t seed = 11;
    for (size_t i = 0; i < (size_t)W * H * 3; ++i) {
        seed = seed * 1664525u + 1013904223u;
        rgb[i] = (unsigned char)(seed >> 24);
    }
    const clc_image_desc src = {CLC_PIXEL_RGB8, W, H, 0}, dst = {CLC_PIXEL_GRAY8, W, H, 0};
    if (clc_gray(ctx, &src, rgb, &dst, gray, NULL) != CLC_SUCCESS)
        fail_msg("%s", clc_last_error());
    clc__ref_gray(&src, rgb, &dst, ref, CLC_GRAY_BT601);
    assert_memory_equal(gray, ref, (size_t)W * H);
    free(rgb), free(gray), free(ref);
    clc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunk_sizes_are_timed_on_any_device),
        cmocka_unit_test(transfers_are_cut_in_four_or_more),
        cmocka_unit_test(bytes_survive_the_timed_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
