/* FNV-1a, 64-bit: names cache entries and checks their payload. Not cryptographic; the entry
 * stores its full key, so a name collision is caught as a foreign entry, not trusted. */
#include "internal.h"

uint64_t clc__fnv1a64(const void *data, size_t size, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
