/* The header of NumPy's .npy files (format versions 1, 2 and 3). */
#ifndef CLCOMPUTE_TOOL_NPY_H
#define CLCOMPUTE_TOOL_NPY_H

#include <stddef.h>

#include <clcompute/reduce.h>

typedef struct npy_info {
    clc_dtype type;
    size_t count;       /* elements: the product of the shape (1 for a 0-d array) */
    size_t data_offset; /* bytes from the start of the file to the data */
} npy_info;

/*
 * Parses the header at the start of a .npy file of `size` bytes held in `file`. Accepts
 * little-endian float32, float64, int32, uint32 and uint8 arrays in C order of any shape; refuses
 * big-endian data, Fortran order, other dtypes, malformed headers, shapes whose product
 * overflows, and files too short for their data. Returns 0, or -1 with a message in `error`.
 */
int npy_parse(const unsigned char *file, size_t size, npy_info *info, char *error,
              size_t error_size);

#endif
