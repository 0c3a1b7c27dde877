/* Depth images to point clouds, with the semantics of Open3D's create_from_depth_image:
 *   z = raw / depth_scale (DEPTH_U16) or the value itself (DEPTH_F32, metres);
 *   valid when 0 < z < depth_trunc (so NaN, infinities, zero and negatives are not), the float
 *   z compared with the double depth_trunc as Open3D compares them: `trunc` here is the smallest
 *   float not below depth_trunc (the host's work);
 *   x = (u - cx) * z / fx, y = (v - cy) * z / fy, for u, v multiples of the stride.
 * Build options: -DDEPTH_U16 or -DDEPTH_F32. Points are packed float x, y, z (12 bytes), never
 * float3 in memory; colours packed r, g, b.
 *
 * No division per pixel: the host passes reciprocals (inv_scale, inv_fx, inv_fy), and for u16
 * depth the truncation test is an integer compare against `raw_limit`, the smallest raw value
 * whose z reaches depth_trunc, worked out on the host with the exact float division, so the
 * edge (z == depth_trunc is invalid) is decided exactly as Open3D decides it.
 *
 * Every kernel converts many frames of one size at once: the last NDRange dimension is the
 * frame, frame f's depth (and colour) `*_frame` bytes after frame f - 1's, its points at
 * f * sw * sh. Work is cut into tiles of whole sampled rows. The dense cloud is a stream
 * compaction, so the output order is the pixel order on every device and every run. In two
 * passes: count the valid samples of each tile; then each tile sums the counts of the tiles
 * before it in its frame (its offset) and writes; no work-group waits for another within a pass
 * (what a tile reads was written by the previous kernel, which the queue finishes first). Or in
 * one (cloud_onepass, below): a decoupled look-back over tiles taken in ticket order, with the
 * argument for why it cannot hang although OpenCL 1.2 promises no order among work-groups.
 * On GPUs a work-group walks its rows as one run of samples (a short row leaves no item
 * idle), counting VEC samples a load where rows are back to back, and writing in rounds of
 * PLANES samples an item with one local scan a round, the next round's samples loaded before
 * the scan so that their latency hides behind it; on CPUs (work-groups of one) an item walks its
 * rows without barriers, 16 samples at a time as vectors where it can (dense_blocks,
 * organized_blocks: stride 1), else in a plain loop.
 */
#if !defined(DEPTH_U16) && !defined(DEPTH_F32)
#error "build with -DDEPTH_U16 or -DDEPTH_F32"
#endif

/* Everything that describes the frames, in the order the host passes it. */
#define FRAME_PARAMS                                                                               \
    const __global uchar *restrict depth_base, const ulong depth_offset, const ulong depth_pitch,  \
        const ulong depth_frame, const uint sw, const uint sh, const uint stride,                  \
        const float inv_scale, const uint raw_limit, const float trunc, const float inv_fx,        \
        const float inv_fy, const float cx, const float cy,                                        \
        const __global uchar *restrict color_base, const ulong color_offset,                       \
        const ulong color_pitch, const ulong color_frame, const uint has_color

/* One frame, as the helpers see it. */
typedef struct {
    const __global uchar *depth, *color;
    ulong depth_pitch, color_pitch;
    uint sw, sh, stride, raw_limit, has_color;
    float inv_scale, trunc, inv_fx, inv_fy, cx, cy;
} frame_t;

#define FRAME_OF(f)                                                                                \
    {                                                                                              \
        depth_base + depth_offset + (ulong)(f)*depth_frame,                                        \
            color_base + color_offset + (ulong)(f)*color_frame, depth_pitch, color_pitch, sw, sh,  \
            stride, raw_limit, has_color, inv_scale, trunc, inv_fx, inv_fy, cx, cy                 \
    }

/* Whether raw u16 samples, widened to uint or uintN, are valid: not 0 and below the truncation's
 * raw limit. One rule for a scalar (1 if valid) and a vector (-1 a valid lane), in integer
 * compares, which answer alike in vectors and scalars on every device. (A ushortN would not do:
 * OpenCL C 2.0 refuses a scalar of higher rank than the vector's elements, such as 0u.) */
#define RAW_VALID(raw, limit) (((raw) != 0u) & ((raw) < (limit)))

/* The depth of a raw u16 sample in metres, and whether it is valid. */
inline float depth_of_raw(const frame_t *fr, const uint raw, int *valid)
{
    *valid = RAW_VALID(raw, fr->raw_limit);
    return (float)raw * fr->inv_scale;
}

/* Whether u16 rows lie back to back in memory (stride 1, no padding), so that a tile's rows can
 * be read as one run of samples. */
inline int rows_packed(const frame_t *fr)
{
    return fr->stride == 1 && fr->depth_pitch == (ulong)fr->sw * sizeof(ushort);
}

/* Depth of sampled pixel (k, j) in metres, and whether it is valid. */
inline float sample(const frame_t *fr, uint k, uint j, int *valid)
{
    const __global uchar *row = fr->depth + (ulong)(j * fr->stride) * fr->depth_pitch;
#ifdef DEPTH_U16
    return depth_of_raw(fr, ((const __global ushort *)row)[k * fr->stride], valid);
#else
    const float z = ((const __global float *)row)[k * fr->stride];
    *valid = z > 0.0f && z < fr->trunc;
    return z;
#endif
}

/* The colour of pixel (u, v). */
inline uchar3 color_at(const frame_t *fr, const uint u, const uint v)
{
    return vload3(0, fr->color + (ulong)v * fr->color_pitch + (ulong)u * 3);
}

/* Writes point `at` (and its colour) for sampled pixel (k, j); NaN when invalid. */
inline void put_point(const frame_t *fr, uint k, uint j, float z, int valid,
                      __global float *restrict points, __global uchar *restrict colors, uint at)
{
    const uint u = k * fr->stride, v = j * fr->stride;
    float3 p = (float3)(NAN, NAN, NAN);
    if (valid)
        p = (float3)(((float)u - fr->cx) * z * fr->inv_fx, ((float)v - fr->cy) * z * fr->inv_fy, z);
    vstore3(p, at, points);
    if (fr->has_color) {
        uchar3 c = (uchar3)(0, 0, 0);
        if (valid)
            c = color_at(fr, u, v);
        vstore3(c, at, colors);
    }
}

/* The CPU path (work-groups of one; an item walks whole rows) converts rows at stride 1 16
 * samples at a time as vectors. Here, samples [k, k + 16) of row j: -1 where valid, and x, y, z
 * by put_point's operations in put_point's order, so the same bits. u16 depth is tested by
 * integer compares, as everywhere; float depth by sample()'s float compares in vectors, which
 * answer as the scalar ones do where both treat denormals alike (x86, AArch64). */
inline int16 block_at(const frame_t *fr, const uint j, const uint k, float16 *x, float16 *y,
                      float16 *z)
{
    const uint16 lane = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __global uchar *row = fr->depth + (ulong)j * fr->depth_pitch;
#ifdef DEPTH_U16
    const uint16 raw = convert_uint16(vload16(0, (const __global ushort *)row + k));
    const int16 ok = RAW_VALID(raw, fr->raw_limit);
    *z = convert_float16(raw) * fr->inv_scale;
#else
    *z = vload16(0, (const __global float *)row + k);
    const int16 ok = (*z > 0.0f) & (*z < fr->trunc);
#endif
    /* The column converted once, as put_point's (float)u: (float)k + lane would round twice
     * from k = 2^28 + 16 on, where (float)k is no longer exact. */
    *x = (convert_float16((uint16)k + lane) - fr->cx) * *z * fr->inv_fx;
    *y = ((float)j - fr->cy) * *z * fr->inv_fy;
    return ok;
}

/* A point stored as four floats and a colour as four bytes: one store each instead of three. The
 * stores are what the CPU path waits on (each misses the cache): one a sample, unrolled, took the
 * dense write pass of a 1080p frame on 2-core PoCL from 1.26 to 0.78 ms. The fourth value lands
 * on the next slot, which the caller writes later. The loops over blocks below are written twice,
 * with and without colour: a colour test inside the points' loop, even one never taken, cost
 * 25% (the compiler kept the block in memory instead of registers). */
#define STORE_POINT(xs, ys, zs, i, pts, slot)                                                      \
    vstore4((float4)((xs)[i], (ys)[i], (zs)[i], 0.0f), 0, (pts) + 3 * (ulong)(slot))

/* The lanes of ok (-1 where valid) as bits 0-15 of a word, so that the slot advances by scalar
 * shifts: reading each lane back out of the vector instead (a vector-to-scalar move a sample, two
 * for the upper lanes on AVX2) held the dense write pass of a 1080p frame on one PoCL core at
 * 2.75-2.85 ms; with the bits, 1.98-2.12 (docs/perf/pocl2-session17.md). */
inline uint lane_bits(const int16 ok)
{
    const uint16 bits =
        as_uint16(ok) & (uint16)(1u << 0, 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6,
                                 1u << 7, 1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13,
                                 1u << 14, 1u << 15);
    const uint8 h8 = bits.lo | bits.hi;
    const uint4 h4 = h8.lo | h8.hi;
    const uint2 h2 = h4.lo | h4.hi;
    return h2.x | h2.y;
}

/* The organized form: samples [0, limit) of row j, NaN (and colour 0) where invalid; the caller
 * leaves the last sample of its last row to the plain loop, as the next slot is another item's.
 * Returns the first sample not done. */
inline uint organized_blocks(const frame_t *fr, const uint j, __global float *restrict row_pts,
                             __global uchar *restrict row_cls, const uint limit)
{
    uint k = 0;
    if (!fr->has_color)
        for (; k + 16 <= limit; k += 16) {
            float16 x, y, z;
            const int16 ok = block_at(fr, j, k, &x, &y, &z);
            float xs[16], ys[16], zs[16];
            vstore16(select((float16)NAN, x, ok), 0, xs);
            vstore16(select((float16)NAN, y, ok), 0, ys);
            vstore16(select((float16)NAN, z, ok), 0, zs);
#pragma unroll
            for (uint i = 0; i < 16; ++i)
                STORE_POINT(xs, ys, zs, i, row_pts, k + i);
        }
    else
        for (; k + 16 <= limit; k += 16) {
            float16 x, y, z;
            const int16 ok = block_at(fr, j, k, &x, &y, &z);
            float xs[16], ys[16], zs[16];
            vstore16(select((float16)NAN, x, ok), 0, xs);
            vstore16(select((float16)NAN, y, ok), 0, ys);
            vstore16(select((float16)NAN, z, ok), 0, zs);
            const uint valid = lane_bits(ok);
#pragma unroll
            for (uint i = 0; i < 16; ++i) {
                STORE_POINT(xs, ys, zs, i, row_pts, k + i);
                const uchar3 c =
                    color_at(fr, k + i, j) & (uchar3)((uchar)(0u - ((valid >> i) & 1u)));
                vstore4((uchar4)(c, 0), 0, row_cls + 3 * (ulong)(k + i));
            }
        }
    return k;
}

/* One point per sampled pixel. Item (x, y, f) covers columns [x * cols, +cols) of rows
 * [y * rows, +rows) of frame f. */
__kernel void cloud_organized(FRAME_PARAMS, __global float *restrict points,
                              __global uchar *restrict colors, const uint cols, const uint rows)
{
    const uint f = (uint)get_global_id(2);
    const frame_t fr = FRAME_OF(f);
    const ulong first = (ulong)f * sw * sh;
    __global float *restrict pts = points + 3 * first;
    __global uchar *restrict cls = colors + (has_color ? 3 * first : 0);
    const uint k0 = (uint)get_global_id(0) * cols, k1 = min(k0 + cols, sw);
    const uint j0 = (uint)get_global_id(1) * rows, j1 = min(j0 + rows, sh);
    for (uint j = j0; j < j1; ++j) {
        uint k = k0;
        if (k0 == 0 && k1 == sw && stride == 1)
            k = organized_blocks(&fr, j, pts + 3 * (ulong)j * sw, cls + 3 * (ulong)j * sw,
                                 j + 1 < j1 ? sw : sw - 1);
        for (; k < k1; ++k) {
            int valid;
            const float z = sample(&fr, k, j, &valid);
            put_point(&fr, k, j, z, valid, pts, cls, j * sw + k);
        }
    }
}

/* Moves (k, j) `step` samples on in row-major order of rows `sw` samples wide. */
inline void advance(uint *k, uint *j, const uint step, const uint sw)
{
    *k += step;
    while (*k >= sw) {
        *k -= sw;
        ++*j;
    }
}

#define COUNT_UNROLL 4
#define VEC 8

#ifdef DEPTH_U16
typedef ushort depth_t;

/* Valid samples among run[VEC * i, +VEC), by RAW_VALID (float depth is left to sample(), since a
 * vector unit may flush denormals where the scalar one does not). `wide` (a constant at each call):
 * the run starts on a 16-byte boundary, so a chunk is read as one uint4, two samples a word (which
 * is which, the device's byte order, does not matter to a count). vload8 promises only a sample's
 * alignment, and NVIDIA's compiler makes it eight 2-byte loads; with the count's work-groups
 * taking 4 tiles, the 16-byte loads took the count of 64 VGA frames from 0.0266 to 0.0253-0.0256
 * ms on an H100 (docs/perf/nvidia-session12.md). */
inline uint valid_in_chunk(const frame_t *fr, const __global depth_t *run, const uint i,
                           const int wide)
{
    if (wide) {
        const uint4 w = ((const __global uint4 *)run)[i];
        const uint4 lo = w & (uint4)0xffffu, hi = w >> (uint4)16;
        const int4 ok = RAW_VALID(lo, fr->raw_limit) + RAW_VALID(hi, fr->raw_limit);
        const int2 s2 = ok.lo + ok.hi;
        return (uint) - (s2.x + s2.y);
    }
    const uint8 raw = convert_uint8(vload8(i, run));
    const int8 ok = RAW_VALID(raw, fr->raw_limit);
    const int4 s4 = ok.lo + ok.hi;
    const int2 s2 = s4.lo + s4.hi;
    return (uint) - (s2.x + s2.y);
}

/* This item's share of the valid samples in chunks [0, chunks) of a run, COUNT_UNROLL loads in
 * flight; written once, called with `wide` constant so that neither copy tests it a chunk. */
inline uint count_chunks(const frame_t *fr, const __global depth_t *run, const uint chunks,
                         const uint lid, const uint l, const int wide)
{
    uint c = 0;
    for (uint i = lid; i < chunks; i += COUNT_UNROLL * l) {
        uint got[COUNT_UNROLL];
        for (uint t = 0; t < COUNT_UNROLL; ++t)
            got[t] = i + t * l < chunks ? valid_in_chunk(fr, run, i + t * l, wide) : 0;
        for (uint t = 0; t < COUNT_UNROLL; ++t)
            c += got[t];
    }
    return c;
}
#endif

/* This item's share of the valid samples in rows [j0, j1) of a work-group of l items. */
inline uint count_run(const frame_t *fr, const uint j0, const uint j1, const uint lid, const uint l)
{
    /* The tile's rows as one run of n samples. u16 rows back to back in memory (stride 1, no
     * padding): VEC samples a load, COUNT_UNROLL loads in flight an item; else one sample a load
     * at (k, j). */
    const uint sw = fr->sw, n = j1 > j0 ? (j1 - j0) * sw : 0;
    uint c = 0;
#ifdef DEPTH_U16 /* float depth counts one sample at a time, by sample()'s very compares */
    if (rows_packed(fr)) {
        const __global depth_t *run = (const __global depth_t *)(fr->depth + j0 * fr->depth_pitch);
        const uint chunks = n / VEC;
        c = ((ulong)(uintptr_t)run & 15) == 0 ? count_chunks(fr, run, chunks, lid, l, 1)
                                              : count_chunks(fr, run, chunks, lid, l, 0);
        for (uint i = chunks * VEC + lid; i < n; i += l) { /* the last partial chunk */
            int valid;
            sample(fr, i % sw, j0 + i / sw, &valid);
            c += (uint)valid;
        }
    } else
#endif
    {
        uint k = lid % sw, j = j0 + lid / sw;
        for (uint i = lid; i < n; i += COUNT_UNROLL * l) {
            int valid[COUNT_UNROLL];
            for (uint t = 0; t < COUNT_UNROLL; ++t) {
                valid[t] = 0;
                if (i + t * l < n)
                    sample(fr, k, j, &valid[t]);
                advance(&k, &j, l, sw);
            }
            for (uint t = 0; t < COUNT_UNROLL; ++t)
                c += (uint)valid[t];
        }
    }
    return c;
}

/* The sum of c over this item's segment (items [lid - lid % seg, +seg), seg a power of two
 * dividing the work-group's size), for the segment's first item (0 for the others). Every item
 * of the work-group calls it (its barriers). */
inline uint segment_sum(__local uint *scratch, const uint lid, const uint seg, const uint c)
{
    const uint sl = lid % seg;
    scratch[lid] = c;
    for (uint step = seg / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (sl < step)
            scratch[lid] += scratch[lid + step];
    }
    return sl == 0 ? scratch[lid] : 0;
}

/* Pass 1: counts[f * tiles + t] = valid samples in rows [t * tile_rows, +tile_rows) of frame f
 * (frame f of dimension 1). Work-group g of dimension 0 counts tiles [g * per, +per), l / per
 * items a tile (per: a power of two dividing l; 1 on the CPU path). A tile is a short read
 * (6 rows of 640 samples: under 4 loads an item of 128), so a work-group a tile spent more on
 * starting and on its reduction's barriers than on reading; a few tiles a work-group give each
 * item several loads in flight and fewer barriers. */
__kernel void cloud_count(FRAME_PARAMS, __global uint *restrict counts, const uint tile_rows,
                          const uint tiles, const uint per, __local uint *scratch)
{
    const uint f = (uint)get_global_id(1), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const frame_t fr = FRAME_OF(f);
    if (l == 1) {
        const uint g = (uint)get_group_id(0);
        const uint j0 = g * tile_rows, j1 = min(j0 + tile_rows, sh);
        uint c = 0;
        for (uint j = j0; j < j1; ++j) {
            uint k = 0;
#ifdef DEPTH_U16
            /* u16 rows at stride 1: 16 samples a vector, by RAW_VALID (float depth stays with
             * sample()'s scalar compares, as everywhere in the count). */
            if (stride == 1) {
                const __global ushort *row =
                    (const __global ushort *)(fr.depth + (ulong)j * depth_pitch);
                int16 ok = (int16)0; /* -1 a valid sample */
                for (; k + 16 <= sw; k += 16) {
                    const uint16 raw = convert_uint16(vload16(0, row + k));
                    ok += RAW_VALID(raw, raw_limit);
                }
                const int8 s8 = ok.lo + ok.hi;
                const int4 s4 = s8.lo + s8.hi;
                const int2 s2 = s4.lo + s4.hi;
                c += (uint) - (s2.x + s2.y);
            }
#endif
            for (; k < sw; ++k) {
                int valid;
                sample(&fr, k, j, &valid);
                c += (uint)valid;
            }
        }
        if (g < tiles)
            counts[f * tiles + g] = c;
        return;
    }
    const uint seg = l / per, sl = lid % seg;
    const uint t = (uint)get_group_id(0) * per + lid / seg;
    const uint j0 = t * tile_rows, j1 = min(j0 + tile_rows, sh);
    const uint total =
        segment_sum(scratch, lid, seg, t < tiles ? count_run(&fr, j0, j1, sl, seg) : 0);
    if (sl == 0 && t < tiles)
        counts[f * tiles + t] = total;
}

/* Samples an item takes per round on the work-group path, in PLANES strided planes of l
 * samples (so loads and stores stay coalesced). The valid flags of all planes are counted with
 * one scan: each plane's count lives in its own 10-bit field of a ulong, which holds for
 * work-groups of up to 1023 items (the host uses at most 128). */
#ifndef PLANES /* build options may override both, as experiments do */
#define PLANES 6
#define FIELD 10
#endif
#define FIELD_MASK ((1ul << FIELD) - 1)

/* Inclusive Hillis-Steele scan of packed counters over two halves of scratch (2 * l values),
 * one barrier a step; returns this item's value, and the work-group's total in *total. */
inline ulong scan_packed(__local ulong *scratch, uint lid, uint l, ulong value, ulong *total)
{
    __local ulong *src = scratch, *dst = scratch + l;
    src[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < l; d *= 2) {
        dst[lid] = src[lid] + (lid >= d ? src[lid - d] : 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local ulong *t = src;
        src = dst;
        dst = t;
    }
    *total = src[l - 1];
    return src[lid];
}

/* The dense form: blocks of row j, every point stored at the next free slot, the slot kept only
 * where the point is valid (no branch a sample). A stored invalid point (and the fourth value of
 * every store) lands on a slot this item writes later, as the tile has more than 16 slots left
 * (end - *at > 16), so nothing lands outside the tile; the rest of the row is left to the plain
 * loop. Returns the first sample of row j not done. */
inline uint dense_blocks(const frame_t *fr, uint j, __global float *restrict pts,
                         __global uchar *restrict cls, uint *at, const uint end)
{
    uint a = *at, k = 0;
    if (!fr->has_color)
        for (; k + 16 <= fr->sw && end - a > 16; k += 16) {
            float16 x, y, z;
            const int16 ok = block_at(fr, j, k, &x, &y, &z);
            float xs[16], ys[16], zs[16];
            vstore16(x, 0, xs);
            vstore16(y, 0, ys);
            vstore16(z, 0, zs);
            const uint valid = lane_bits(ok);
#pragma unroll
            for (uint i = 0; i < 16; ++i) {
                STORE_POINT(xs, ys, zs, i, pts, a);
                a += (valid >> i) & 1u;
            }
        }
    else
        for (; k + 16 <= fr->sw && end - a > 16; k += 16) {
            float16 x, y, z;
            const int16 ok = block_at(fr, j, k, &x, &y, &z);
            float xs[16], ys[16], zs[16];
            vstore16(x, 0, xs);
            vstore16(y, 0, ys);
            vstore16(z, 0, zs);
            const uint valid = lane_bits(ok);
#pragma unroll
            for (uint i = 0; i < 16; ++i) {
                STORE_POINT(xs, ys, zs, i, pts, a);
                vstore4((uchar4)(color_at(fr, k + i, j), 0), 0, cls + 3 * (ulong)a);
                a += (valid >> i) & 1u;
            }
        }
    *at = a;
    return k;
}

/* Sample i of a run of rows (at (k, j)): where u16 rows are back to back at stride 1 (`packed`)
 * read at its place in `run`, which spares the row's address a sample; else by sample(). */
inline float sample_run(const frame_t *fr, const int packed, const __global ushort *run,
                        const uint i, const uint k, const uint j, int *valid)
{
#ifdef DEPTH_U16
    if (packed)
        return depth_of_raw(fr, run[i], valid);
#endif
    return sample(fr, k, j, valid);
}

/* write_run for rows read as a run (`packed`, a constant at each call) or by sample(). */
inline void write_run_as(const frame_t *fr, const int packed, const uint j0, const uint j1,
                         const uint lid, const uint l, uint at, __global float *restrict pts,
                         __global uchar *restrict cls, __local ulong *scratch)
{
    const uint sw = fr->sw;
    /* The tile's rows as one run of n samples, in rounds of PLANES planes of l: sample
     * r0 + t * l + lid is this item's in plane t. Its slot is `at`, plus the valid samples of
     * planes before t, plus those of plane t held by items before this one. The next round's
     * samples are loaded before this round's scan, so their latency hides behind it. */
    const uint n = j1 > j0 ? (j1 - j0) * sw : 0;
    uint k = lid % sw, j = j0 + lid / sw;
    const __global ushort *run = (const __global ushort *)(fr->depth + j0 * fr->depth_pitch);
    float z[PLANES], zn[PLANES];
    uint ks[PLANES], js[PLANES], kn[PLANES], jn[PLANES];
    ulong flags = 0, flags_next = 0;
    for (uint t = 0; t < PLANES; ++t) {
        int valid = 0;
        ks[t] = k, js[t] = j, z[t] = 0.0f;
        if (t * l + lid < n)
            z[t] = sample_run(fr, packed, run, t * l + lid, k, j, &valid);
        flags |= (ulong)valid << (FIELD * t);
        advance(&k, &j, l, sw);
    }
    for (uint r0 = 0; r0 < n; r0 += PLANES * l) {
        const uint next = r0 + PLANES * l;
        flags_next = 0;
        if (next < n)
            for (uint t = 0; t < PLANES; ++t) {
                int valid = 0;
                kn[t] = k, jn[t] = j, zn[t] = 0.0f;
                if (next + t * l + lid < n)
                    zn[t] = sample_run(fr, packed, run, next + t * l + lid, k, j, &valid);
                flags_next |= (ulong)valid << (FIELD * t);
                advance(&k, &j, l, sw);
            }
        ulong totals_here;
        const ulong before = scan_packed(scratch, lid, l, flags, &totals_here) - flags;
        barrier(CLK_LOCAL_MEM_FENCE); /* scratch is rewritten next round */
        uint base = at;
        for (uint t = 0; t < PLANES; ++t) {
            if ((flags >> (FIELD * t)) & 1ul) {
                const uint slot = base + (uint)((before >> (FIELD * t)) & FIELD_MASK);
                put_point(fr, ks[t], js[t], z[t], 1, pts, cls, slot);
            }
            base += (uint)((totals_here >> (FIELD * t)) & FIELD_MASK);
        }
        at = base;
        flags = flags_next;
        for (uint t = 0; t < PLANES; ++t)
            z[t] = zn[t], ks[t] = kn[t], js[t] = jn[t];
    }
}

/* Writes the valid samples of rows [j0, j1) from slot `at` on, in pixel order, by a work-group
 * of l items (scratch: 2 * l values). Built twice, so that neither copy tests `packed` a sample:
 * reading back-to-back rows as a run took 64 VGA frames from 0.125 to 0.108 ms on the H200, but
 * with the test left in the loop NVIDIA's compiler made the two-pass kernel 60% slower
 * (docs/perf/h200-session4.md). */
inline void write_run(const frame_t *fr, const uint j0, const uint j1, const uint lid, const uint l,
                      uint at, __global float *restrict pts, __global uchar *restrict cls,
                      __local ulong *scratch)
{
#ifdef DEPTH_U16
    if (rows_packed(fr)) {
        write_run_as(fr, 1, j0, j1, lid, l, at, pts, cls, scratch);
        return;
    }
#endif
    write_run_as(fr, 0, j0, j1, lid, l, at, pts, cls, scratch);
}

/* Pass 2: tile g of frame f sums the counts of tiles 0..g-1 of its frame (its first slot),
 * writes its valid points from there on in pixel order, and the last tile writes the frame's
 * total into totals[f]. */
__kernel void cloud_dense(FRAME_PARAMS, const __global uint *restrict counts,
                          __global uint *restrict totals, __global float *restrict points,
                          __global uchar *restrict colors, const uint tile_rows,
                          __local ulong *scratch)
{
    const uint g = (uint)get_group_id(0), tiles = (uint)get_num_groups(0);
    const uint f = (uint)get_global_id(1), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const frame_t fr = FRAME_OF(f);
    const __global uint *restrict mine = counts + (ulong)f * tiles;
    const ulong first = (ulong)f * sw * sh;
    __global float *restrict pts = points + 3 * first;
    __global uchar *restrict cls = colors + (has_color ? 3 * first : 0);
    const uint j0 = g * tile_rows, j1 = min(j0 + tile_rows, sh);
    uint at = 0;
    if (l == 1) {
        for (uint t = 0; t < g; ++t)
            at += mine[t];
        const uint end = at + mine[g];
        if (g == tiles - 1)
            totals[f] = end;
        for (uint j = j0; j < j1; ++j) {
            uint k = 0;
            if (stride == 1)
                k = dense_blocks(&fr, j, pts, cls, &at, end);
            /* The rest of the row (all of it at strides above 1), without a branch on validity
             * while two slots or more are left: every point stored (four floats, a colour four
             * bytes) and kept when valid, as in dense_blocks; a branch a sample on random holes
             * cost 2-3x. at < end holds unless the blocks' vector compares of float depth
             * disagreed with the count's scalar ones (a unit that flushes denormals where the
             * other does not): then this stops at the tile's end rather than write into the
             * next. */
            const float dy = (float)(j * stride) - cy;
            for (; k < sw; ++k) {
                int valid;
                const float z = sample(&fr, k, j, &valid);
                if (end - at > 1) {
                    const uint u = k * stride;
                    vstore4((float4)(((float)u - cx) * z * inv_fx, dy * z * inv_fy, z, 0.0f), 0,
                            pts + 3 * (ulong)at);
                    if (has_color)
                        vstore4((uchar4)(color_at(&fr, u, j * stride), 0), 0, cls + 3 * (ulong)at);
                    at += (uint)valid;
                } else if (valid && at < end) {
                    put_point(&fr, k, j, z, 1, pts, cls, at++);
                }
            }
        }
        return;
    }
    /* The offset: the counts before this tile, summed by the whole work-group. */
    ulong sum = 0;
    for (uint t = lid; t < g; t += l)
        sum += mine[t];
    scratch[lid] = sum;
    for (uint step = l / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < step)
            scratch[lid] += scratch[lid + step];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    at = (uint)scratch[0];
    if (g == tiles - 1 && lid == 0)
        totals[f] = at + mine[g];
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch is the scan's next */
    write_run(&fr, j0, j1, lid, l, at, pts, cls, scratch);
}

/* One pass (GPUs): the count, the offset and the points in one launch, by a decoupled
 * look-back. Work-group w takes ticket sync[0]++ and converts tile ticket % tiles of frame
 * ticket / tiles: counts it, publishes its count in its state word (FLAG_COUNT), adds the states
 * of the tiles before it in its frame, newest first, until one holds an inclusive prefix
 * (FLAG_PREFIX), publishes its own prefix, then writes its points.
 * Why it cannot hang where OpenCL 1.2 promises no order among work-groups: a tile waits only on
 * tiles with smaller tickets, and tickets are taken by work-groups already running, so every
 * tile it waits on belongs to a work-group that has started and itself waits only on smaller
 * tickets; the smallest unfinished ticket waits on nothing. What it needs is that a started
 * work-group is not starved for ever by others spinning - true of GPUs, whose resident
 * work-groups are scheduled side by side, of CPU runtimes (a work-group runs to its end on one
 * thread) and of a serial emulator (the first ticket is taken by the first group run). States and
 * tickets travel through 32-bit atomics only (OpenCL 1.2's atomics on global memory are
 * visible across work-groups; plain stores are not promised to be).
 * sync: [0] tickets, [1] finished work-groups, [2 + f * tiles + g] the states; zero before the
 * launch, and the last work-group to finish zeroes it again, so the host clears it once. A
 * launch that dies half-way would leave it dirty; drivers lose the whole context then (NVIDIA
 * reports CL_OUT_OF_RESOURCES to every later call), so nothing runs on it again. */
#define FLAG_COUNT 0x40000000u
#define FLAG_PREFIX 0x80000000u
#define STATE_VALUE 0x3fffffffu

__kernel void cloud_onepass(FRAME_PARAMS, __global uint *sync, __global uint *restrict totals,
                            __global float *restrict points, __global uchar *restrict colors,
                            const uint tile_rows, const uint tiles, __local ulong *scratch)
{
    __local uint shared[2];
    const uint lid = (uint)get_local_id(0), l = (uint)get_local_size(0);
    const uint groups = (uint)get_num_groups(0);
    if (lid == 0)
        shared[0] = atomic_inc(&sync[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ticket = shared[0];
    const uint f = ticket / tiles, g = ticket % tiles;
    const frame_t fr = FRAME_OF(f);
    const ulong first = (ulong)f * sw * sh;
    const uint j0 = g * tile_rows, j1 = min(j0 + tile_rows, sh);
    const uint mine = segment_sum((__local uint *)scratch, lid, l, count_run(&fr, j0, j1, lid, l));
    uint replaced = 0;
    if (lid == 0) {
        volatile __global uint *state = sync + 2 + (ulong)f * tiles;
        uint prefix = 0;
        if (g > 0) {
            atomic_xchg(&state[g], FLAG_COUNT | mine);
            for (uint t = g; t > 0;) {
                const uint w = atomic_or(&state[t - 1], 0u); /* an atomic read */
                if (!(w & (FLAG_COUNT | FLAG_PREFIX)))
                    continue; /* not published yet: its group has started, so it will be */
                prefix += w & STATE_VALUE;
                if (w & FLAG_PREFIX)
                    break;
                --t;
            }
        }
        replaced = atomic_xchg(&state[g], FLAG_PREFIX | (prefix + mine));
        if (g == tiles - 1)
            totals[f] = prefix + mine;
        shared[1] = prefix;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint at = shared[1];
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch is the scan's next */
    write_run(&fr, j0, j1, lid, l, at, points + 3 * first, colors + (has_color ? 3 * first : 0),
              scratch);
    /* The last work-group to finish zeroes sync for the next launch: every other one has
     * counted itself out after its last use of it. OpenCL 1.2 orders atomics on one word only
     * (NVIDIA compiles mem_fence to a work-group fence), so the count's operand depends on what
     * the state's last exchange returned, and cannot be issued before it has been performed;
     * tiles >> 31 is zero (the host keeps tiles below 2^30), which the compiler cannot know. */
    if (lid == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        shared[0] = atomic_add(&sync[1], 1u + (replaced & (tiles >> 31))) == groups - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (shared[0])
        for (uint i = lid; i < 2 + groups; i += l)
            atomic_xchg(&sync[i], 0u);
}
