/* The serial C reference of gray conversion: the tests' oracle and the benchmark's baseline.
 * Built into the clc_ref static library for tests and benchmarks only; never part of
 * libclcompute (docs/adding-a-kernel.md). */
#ifndef CLCOMPUTE_REF_GRAY_H
#define CLCOMPUTE_REF_GRAY_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/gray.h"

/* Gray conversion with the semantics of clc_gray; the descriptions must already be valid. */
void clc__ref_gray(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                   void *dst_data, clc_gray_weights weights);

#endif
