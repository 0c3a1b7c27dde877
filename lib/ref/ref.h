/* Plain serial C references of every kernel: the tests' oracle and the benchmark's baseline.
 * Written for clarity and for what a good C compiler makes of a simple loop. */
#ifndef CLCOMPUTE_REF_H
#define CLCOMPUTE_REF_H

#include <stddef.h>
#include <stdint.h>

#include "clcompute/image.h"

/* The fixed-point weights of clc_gray_weights for R, G, B (sum 32768). */
void clc__gray_weights(clc_gray_weights weights, uint32_t rgb[3]);

/* Gray conversion with the semantics of clc_gray; the descriptions must already be valid. */
void clc__ref_gray(const clc_image_desc *src, const void *src_data, const clc_image_desc *dst,
                   void *dst_data, clc_gray_weights weights);

#endif
