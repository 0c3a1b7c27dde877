/* The serial C reference of the reductions: the tests' oracle and the benchmark's baseline.
 * Built into the clc_ref static library for tests and benchmarks only; never part of
 * libclcompute (docs/adding-a-kernel.md). */
#ifndef CLCOMPUTE_REF_REDUCE_H
#define CLCOMPUTE_REF_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/reduce.h"

/* A reduction with the semantics of clc_reduce: sums in long double (the float results rounded
 * once to their type), and, when abs_sum is not NULL, the sum of absolute values there (the scale
 * of a float sum's error bound). */
void clc__ref_reduce(clc_reduce_op op, clc_dtype type, const void *data, size_t count,
                     clc_reduce_result *out, long double *abs_sum);

#endif
