/* RGB/BGR/RGBA/BGRA (8 bits a channel) to gray, bit-exact with OpenCV's cvtColor:
 *   Y = (c0*w0 + c1*w1 + c2*w2 + 16384) >> 15
 * The weights come per channel position (the host orders them for RGB or BGR), so one program
 * serves both orders; CHANNELS (3 or 4) is a build option because it shapes the vector code.
 *
 * A work-item converts blocks of 16 pixels: 48 or 64 source bytes in, 16 gray bytes (or 16
 * floats) out, on one of three paths. The word path (16-byte aligned rows) moves uint4 words
 * and cuts channels out with shifts, which GPUs turn into full-width coalesced loads and stores
 * (byte vectors make GPU compilers split them into 4-byte loads). The vector path (aligned rows)
 * loads uint4 words as byte vectors and swizzles them, which CPU vectorisers handle best. The
 * byte path does the same through vload16/vstore16, legal at any address. The last partial block of
 * a row is done pixel by pixel, so nothing outside [0, width) of any row is read or written.
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

inline uint16 weigh(uchar16 c0, uchar16 c1, uchar16 c2, uint w0, uint w1, uint w2)
{
    return convert_uint16(c0) * w0 + convert_uint16(c1) * w1 + convert_uint16(c2) * w2;
}

/* Byte paths. Weighted sums of the 16 pixels starting at p, in pixel order, from byte vectors:
 * loaded with vload16 (any address) or, when `vector_loads`, as aligned uint4 words. */
inline uint16 block_sums_bytes(const __global uchar *p, uint vector_loads, uint w0, uint w1,
                               uint w2)
{
    const __global uint4 *q = (const __global uint4 *)p;
#if CHANNELS == 3
    uchar16 v0, v1, v2;
    if (vector_loads) {
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
    if (vector_loads) {
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

/* Word path: 16-byte aligned rows on little-endian devices. The block is read as 32-bit words
 * (full-width loads on GPUs) and channels are cut out with shifts, never through byte vectors,
 * which GPU compilers split into byte loads. Result: s[k].g is the sum of pixel 4g+k. */
inline uint4 channel(uint4 word, uint byte)
{
    return (word >> (8 * byte)) & 0xffu;
}

inline void block_sums_words(const __global uint4 *q, uint w0, uint w1, uint w2, uint4 s[4])
{
#if CHANNELS == 3
    const uint4 q0 = q[0], q1 = q[1], q2 = q[2];
    /* Pixels 4g..4g+3 fill words 3g..3g+2: a = r0 g0 b0 r1, b = g1 b1 r2 g2, c = b2 r3 g3 b3. */
    const uint4 a = (uint4)(q0.x, q0.w, q1.z, q2.y);
    const uint4 b = (uint4)(q0.y, q1.x, q1.w, q2.z);
    const uint4 c = (uint4)(q0.z, q1.y, q2.x, q2.w);
    s[0] = channel(a, 0) * w0 + channel(a, 1) * w1 + channel(a, 2) * w2;
    s[1] = channel(a, 3) * w0 + channel(b, 0) * w1 + channel(b, 1) * w2;
    s[2] = channel(b, 2) * w0 + channel(b, 3) * w1 + channel(c, 0) * w2;
    s[3] = channel(c, 1) * w0 + channel(c, 2) * w1 + channel(c, 3) * w2;
#else
    const uint4 q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];
    const uint4 p[4] = {(uint4)(q0.x, q1.x, q2.x, q3.x), (uint4)(q0.y, q1.y, q2.y, q3.y),
                        (uint4)(q0.z, q1.z, q2.z, q3.z), (uint4)(q0.w, q1.w, q2.w, q3.w)};
    for (int k = 0; k < 4; ++k)
        s[k] = channel(p[k], 0) * w0 + channel(p[k], 1) * w1 + channel(p[k], 2) * w2;
#endif
}

inline uint pixel_sum(const __global uchar *p, uint w0, uint w1, uint w2)
{
    return (uint)p[0] * w0 + (uint)p[1] * w1 + (uint)p[2] * w2;
}

/* The loop nest both kernels share; STORE_WORDS, STORE_BYTES and STORE_PIXEL say what to
 * write for a block on the word path, a block on the byte path, and one tail pixel. */
#define GRAY_BODY(STORE_WORDS, STORE_BYTES, STORE_PIXEL)                                           \
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
            const __global uchar *p = s + (ulong)b * (BLOCK * CHANNELS);                           \
            if (path == PATH_WORDS) {                                                              \
                uint4 sum[4];                                                                      \
                block_sums_words((const __global uint4 *)p, w0, w1, w2, sum);                      \
                STORE_WORDS;                                                                       \
            } else {                                                                               \
                const uint16 sum = block_sums_bytes(p, path == PATH_VECTORS, w0, w1, w2);          \
                STORE_BYTES;                                                                       \
            }                                                                                      \
        }                                                                                          \
        if (tail) {                                                                                \
            for (uint x = full_blocks * BLOCK; x < width; ++x) {                                   \
                const uint sum = pixel_sum(s + (ulong)x * CHANNELS, w0, w1, w2);                   \
                STORE_PIXEL;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* `path` (the host's choice, per device): PATH_BYTES at any alignment; PATH_VECTORS and
 * PATH_WORDS only for 16-byte aligned rows, PATH_WORDS only on little-endian devices. */
#define PATH_BYTES 0
#define PATH_VECTORS 1
#define PATH_WORDS 2

__kernel void gray_u8(const __global uchar *restrict src, const ulong src_offset,
                      const ulong src_pitch, __global uchar *restrict dst, const ulong dst_offset,
                      const ulong dst_pitch, const uint width, const uint height, const uint w0,
                      const uint w1, const uint w2, const uint path, const uint blocks_per_item,
                      const uint rows_per_item){GRAY_BODY(
    {
        ((__global uint4 *)d)[b] =
            ((sum[0] + ROUND) >> SHIFT) | (((sum[1] + ROUND) >> SHIFT) << 8) |
            (((sum[2] + ROUND) >> SHIFT) << 16) | (((sum[3] + ROUND) >> SHIFT) << 24);
    },
    {
        const uchar16 g = convert_uchar16((sum + ROUND) >> SHIFT);
        if (path == PATH_VECTORS)
            ((__global uint4 *)d)[b] = as_uint4(g);
        else
            vstore16(g, b, d);
    },
    { d[x] = (uchar)((sum + ROUND) >> SHIFT); })}

__kernel
    void gray_f32(const __global uchar *restrict src, const ulong src_offset, const ulong src_pitch,
                  __global uchar *restrict dst, const ulong dst_offset, const ulong dst_pitch,
                  const uint width, const uint height, const uint w0, const uint w1, const uint w2,
                  const uint path, const uint blocks_per_item, const uint rows_per_item)
{
    /* Float rows start on 4-byte boundaries (checked on the host); the word path on 16. */
    GRAY_BODY(
        {
            __global float4 *q = (__global float4 *)d + (ulong)b * (BLOCK / 4);
            const float4 f0 = convert_float4(sum[0]) * FLOAT_SCALE;
            const float4 f1 = convert_float4(sum[1]) * FLOAT_SCALE;
            const float4 f2 = convert_float4(sum[2]) * FLOAT_SCALE;
            const float4 f3 = convert_float4(sum[3]) * FLOAT_SCALE;
            q[0] = (float4)(f0.x, f1.x, f2.x, f3.x);
            q[1] = (float4)(f0.y, f1.y, f2.y, f3.y);
            q[2] = (float4)(f0.z, f1.z, f2.z, f3.z);
            q[3] = (float4)(f0.w, f1.w, f2.w, f3.w);
        },
        {
            const float16 g = convert_float16(sum) * FLOAT_SCALE;
            __global float *row = (__global float *)d + (ulong)b * BLOCK;
            if (path == PATH_VECTORS) {
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
