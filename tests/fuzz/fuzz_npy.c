/* libFuzzer target: npy_parse on arbitrary bytes. It must never read outside the input (the
 * sanitizers watch), and whatever it accepts must describe data that lies inside the file. */
#include <stdint.h>
#include <stdlib.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly `size` bytes, so that any read past the end is a heap overflow. */
    unsigned char *file = malloc(size ? size : 1);
    if (!file)
        return 0;
    for (size_t i = 0; i < size; ++i)
        file[i] = data[i];
    npy_info info;
    char error[256];
    if (npy_parse(file, size, &info, error, sizeof error) == 0) {
        const size_t esize = clc_dtype_size(info.type);
        if (esize == 0 || info.data_offset > size || info.count > (size - info.data_offset) / esize)
            __builtin_trap(); /* accepted a header whose data is not in the file */
    } else if (error[0] == '\0') {
        __builtin_trap(); /* refused without saying why */
    }
    free(file);
    return 0;
}
