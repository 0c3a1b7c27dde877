/* Reductions with numpy's semantics on host arrays: a float32 sum, argmax, and the mean of bytes.
 *
 *   reduce [SELECTOR]
 *
 * Results land in the field of numpy's result type: f for floats and means, i or u for integer
 * sums, index for argmin and argmax (docs/api/reduce.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clcompute/clcompute.h>

enum { N = 1 << 20 };

int main(int argc, char **argv)
{
    float *x = malloc(sizeof *x * N);
    uint8_t *bytes = malloc(N);
    if (!x || !bytes)
        return 1;
    for (size_t i = 0; i < N; ++i) {
        x[i] = (float)(i % 1000) * 0.001f; /* np.arange(N) % 1000 * 0.001 */
        bytes[i] = (uint8_t)i;
    }
    x[123457] = 7.5f;
    clc_context_options options = {0};
    options.device = argc > 1 ? argv[1] : NULL;
    clc_context *ctx = NULL;
    clc_reduce_result sum, top, mean;
    int rc = 1;
    if (clc_context_create(&options, &ctx) == CLC_SUCCESS &&
        clc_reduce(ctx, CLC_REDUCE_SUM, CLC_DTYPE_F32, x, N, &sum) == CLC_SUCCESS &&
        clc_reduce(ctx, CLC_REDUCE_ARGMAX, CLC_DTYPE_F32, x, N, &top) == CLC_SUCCESS &&
        clc_reduce(ctx, CLC_REDUCE_MEAN, CLC_DTYPE_U8, bytes, N, &mean) == CLC_SUCCESS) {
        printf("x.sum() = %.3f\nx.argmax() = %llu (x[%llu] = %.1f)\nbytes.mean() = %.4f\n", sum.f,
               (unsigned long long)top.index, (unsigned long long)top.index, top.f, mean.f);
        rc = top.index == 123457 && mean.f == 127.5 ? 0 : 1;
        if (rc)
            fprintf(stderr, "reduce: unexpected results\n");
    } else {
        fprintf(stderr, "reduce: %s\n", clc_last_error());
    }
    clc_context_destroy(ctx);
    free(x), free(bytes);
    return rc;
}
