/* The header of NumPy's .npy files: read (format versions 1, 2 and 3) and written (1.0). */
#ifndef CLCOMPUTE_TOOL_NPY_H
#define CLCOMPUTE_TOOL_NPY_H

#include <stddef.h>

#include <clcompute/reduce.h>

#define NPY_MAX_DIMS 32

typedef struct npy_info {
    clc_dtype type;
    size_t count;       /* elements: the product of the shape (1 for a 0-d array) */
    size_t data_offset; /* bytes from the start of the file to the data */
    int fortran_order;  /* 1: the data is in column-major order */
    int ndim;
    size_t shape[NPY_MAX_DIMS];
} npy_info;

/*
 * Parses the header at the start of a .npy file of `size` bytes held in `file`. Accepts
 * little-endian arrays of every numeric dtype numpy has but complex (float16/32/64, int8/16/32/64,
 * uint8/16/32/64, bool) in C or Fortran order, of any shape up to NPY_MAX_DIMS dimensions;
 * refuses big-endian data, other dtypes, malformed headers, shapes whose product overflows, and
 * files too short for their data. The header must be what numpy's reader takes: a dict literal
 * with exactly the keys 'descr', 'fortran_order' and 'shape', each once (numpy would keep the
 * last of two; this refuses), and nothing but whitespace after its '}'. Returns 0, or -1 with a
 * message in `error`.
 */
int npy_parse(const unsigned char *file, size_t size, npy_info *info, char *error,
              size_t error_size);

/* Writes the header of a version 1.0 .npy file of a C-order rows x cols array of `descr`
 * ("<u2", "|u1", "<f4": little-endian data) into out; its length (a multiple of 64), or -1 when
 * it does not fit in size bytes. */
int npy_header(char *out, size_t size, const char *descr, size_t rows, size_t cols);

/* The type of numpy's type code `code` of len bytes: kind and size ("f4", "u1", "b1") or one
 * character ("d", "?"), after an optional byte order '<', '=' or '|' (none, '=' and '|' read as
 * little-endian, the machine's; '>' only for single bytes); 0 where it names no supported type or
 * big-endian data. */
clc_dtype npy_code_type(const char *code, size_t len);

/* The type of numpy's name `name` of len bytes ("float32") or alias ("double", "int" = int64,
 * "intc" = int32, ...), as np.dtype takes them on 64-bit Linux; any_case: in any case. 0 where it
 * names no supported type. */
clc_dtype npy_name_type(const char *name, size_t len, int any_case);

/* Whether the bytes start as a .npy file does (the magic string). */
int npy_is_npy(const unsigned char *file, size_t size);

#endif
