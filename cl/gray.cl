/* RGB/BGR/RGBA/BGRA (8 bits a channel) to gray, bit-exact with OpenCV's cvtColor:
 *   Y = (c0*w0 + c1*w1 + c2*w2 + 16384) >> 15
 * The weights come per channel position (the host orders them for RGB or BGR), so one program
 * serves both orders; CHANNELS (3 or 4) is a build option because it shapes the vector code.
 *
 * A work-item converts blocks of 16 pixels: 48 or 64 source bytes in, 16 gray bytes (or 16
 * floats) out. When rows start on 16-byte boundaries (`aligned`, decided on the host) blocks
 * move as uint4 words, which GPUs turn into full-width coalesced loads and stores; otherwise
 * vload16/vstore16 on bytes, legal at any address. The last partial block of a row is done
 * pixel by pixel, so nothing outside [0, width) of any row is read or written.
 *
 * Shape: each work-item covers `blocks_per_item` blocks of `rows_per_item` rows. GPUs use 1x1
 * (millions of small items); CPU devices give each item whole rows, which keeps PoCL's
 * per-work-group cost out of the way.
 */
#ifndef CHANNELS
#error "build with -DCHANNELS=3 or -DCHANNELS=4"
#endif

#define BLOCK 16
#define ROUND 16384u
#define SHIFT 15
/* 255 << 15: the largest weighted sum, so that float output is sum / this, in [0, 1]. */
#define FLOAT_SCALE (1.0f / 8355840.0f)

inline uint16 weigh(uchar16 c0, uchar16 c1, uchar16 c2, uint w0, uint w1, uint w2) {
    return convert_uint16(c0) * w0 + convert_uint16(c1) * w1 + convert_uint16(c2) * w2;
}

/* Weighted sums of the 16 pixels starting at p. */
inline uint16 block_sums(const __global uchar *p, uint aligned, uint w0, uint w1, uint w2) {
#if CHANNELS == 3
    uchar16 v0, v1, v2;
    if (aligned) {
        const __global uint4 *q = (const __global uint4 *)p;
        v0 = as_uchar16(q[0]);
        v1 = as_uchar16(q[1]);
        v2 = as_uchar16(q[2]);
    } else {
        v0 = vload16(0, p);
        v1 = vload16(1, p);
        v2 = vload16(2, p);
    }
    /* Channel k of pixel i sits at byte 3i+k of the 48. */
    const uchar16 c0 = (uchar16)(v0.s0369, v0.scf, v1.s258b, v1.se, v2.s147a, v2.sd);
    const uchar16 c1 = (uchar16)(v0.s147a, v0.sd, v1.s0369, v1.scf, v2.s258b, v2.se);
    const uchar16 c2 = (uchar16)(v0.s258b, v0.se, v1.s147a, v1.sd, v2.s0369, v2.scf);
#else
    uchar16 v0, v1, v2, v3;
    if (aligned) {
        const __global uint4 *q = (const __global uint4 *)p;
        v0 = as_uchar16(q[0]);
        v1 = as_uchar16(q[1]);
        v2 = as_uchar16(q[2]);
        v3 = as_uchar16(q[3]);
    } else {
        v0 = vload16(0, p);
        v1 = vload16(1, p);
        v2 = vload16(2, p);
        v3 = vload16(3, p);
    }
    const uchar16 c0 = (uchar16)(v0.s048c, v1.s048c, v2.s048c, v3.s048c);
    const uchar16 c1 = (uchar16)(v0.s159d, v1.s159d, v2.s159d, v3.s159d);
    const uchar16 c2 = (uchar16)(v0.s26ae, v1.s26ae, v2.s26ae, v3.s26ae);
#endif
    return weigh(c0, c1, c2, w0, w1, w2);
}

inline uint pixel_sum(const __global uchar *p, uint w0, uint w1, uint w2) {
    return (uint)p[0] * w0 + (uint)p[1] * w1 + (uint)p[2] * w2;
}

/* The loop nest both kernels share; STORE_BLOCK and STORE_PIXEL say what to write. */
#define GRAY_BODY(STORE_BLOCK, STORE_PIXEL)                                                        \
    const uint full_blocks = width / BLOCK;                                                        \
    const uint b0 = (uint)get_global_id(0) * blocks_per_item;                                      \
    const uint b1 = min(b0 + blocks_per_item, full_blocks);                                        \
    const uint y0 = (uint)get_global_id(1) * rows_per_item;                                        \
    const uint y1 = min(y0 + rows_per_item, height);                                               \
    /* The item whose range reaches past the last full block owns the row's tail. */               \
    const int tail =                                                                               \
        width % BLOCK != 0 && b0 <= full_blocks && full_blocks < b0 + blocks_per_item;             \
    for (uint y = y0; y < y1; ++y) {                                                               \
        const __global uchar *s = src + src_offset + (ulong)y * src_pitch;                         \
        __global uchar *d = dst + dst_offset + (ulong)y * dst_pitch;                               \
        for (uint b = b0; b < b1; ++b) {                                                           \
            const uint16 sum = block_sums(s + (ulong)b * (BLOCK * CHANNELS), aligned, w0, w1, w2); \
            STORE_BLOCK;                                                                           \
        }                                                                                          \
        if (tail) {                                                                                \
            for (uint x = full_blocks * BLOCK; x < width; ++x) {                                   \
                const uint sum = pixel_sum(s + (ulong)x * CHANNELS, w0, w1, w2);                   \
                STORE_PIXEL;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

__kernel void gray_u8(const __global uchar *restrict src, const ulong src_offset,
                      const ulong src_pitch, __global uchar *restrict dst, const ulong dst_offset,
                      const ulong dst_pitch, const uint width, const uint height, const uint w0,
                      const uint w1, const uint w2, const uint aligned, const uint blocks_per_item,
                      const uint rows_per_item){GRAY_BODY(
    {
        const uchar16 g = convert_uchar16((sum + ROUND) >> SHIFT);
        if (aligned)
            ((__global uint4 *)d)[b] = as_uint4(g);
        else
            vstore16(g, b, d);
    },
    { d[x] = (uchar)((sum + ROUND) >> SHIFT); })}

__kernel
    void gray_f32(const __global uchar *restrict src, const ulong src_offset, const ulong src_pitch,
                  __global uchar *restrict dst, const ulong dst_offset, const ulong dst_pitch,
                  const uint width, const uint height, const uint w0, const uint w1, const uint w2,
                  const uint aligned, const uint blocks_per_item, const uint rows_per_item) {
    /* Float rows start on 4-byte boundaries (checked on the host); `aligned` means 16. */
    GRAY_BODY(
        {
            const float16 g = convert_float16(sum) * FLOAT_SCALE;
            __global float *row = (__global float *)d + (ulong)b * BLOCK;
            if (aligned) {
                __global float4 *q = (__global float4 *)row;
                q[0] = g.s0123;
                q[1] = g.s4567;
                q[2] = g.s89ab;
                q[3] = g.scdef;
            } else {
                vstore16(g, 0, row);
            }
        },
        { ((__global float *)d)[x] = (float)sum * FLOAT_SCALE; })
}
