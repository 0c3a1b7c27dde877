/* The serial C reference of the median filter: the tests' oracle and the benchmark's baseline.
 * Built into the clc_ref static library for tests and benchmarks only; never part of
 * libclcompute (docs/adding-a-kernel.md). */
#ifndef CLCOMPUTE_REF_MEDIAN_H
#define CLCOMPUTE_REF_MEDIAN_H

#include "clcompute/median.h"

/* The median filter with the semantics of clc_median: each pixel the middle of its sorted
 * ksize x ksize window (border replicated; NaN after every number). Arguments already valid. */
void clc__ref_median(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                     void *dst_data, unsigned ksize);

#endif
