/* Depth image to point cloud, with the semantics of Open3D's create_from_depth_image:
 *   z = raw / depth_scale (DEPTH_U16) or the value itself (DEPTH_F32, metres);
 *   valid when 0 < z < depth_trunc (so NaN, infinities, zero and negatives are not);
 *   x = (u - cx) * z / fx, y = (v - cy) * z / fy, for u, v multiples of the stride.
 * Build options: -DDEPTH_U16 or -DDEPTH_F32. Points are packed float x, y, z (12 bytes), never
 * float3 in memory; colours packed r, g, b.
 *
 * No division per pixel: the host passes reciprocals (inv_scale, inv_fx, inv_fy), and for u16
 * depth the truncation test is an integer compare against `raw_limit`, the smallest raw value
 * whose z reaches depth_trunc, worked out on the host with the exact float division, so the
 * edge (z == depth_trunc is invalid) is decided exactly as Open3D decides it.
 *
 * Work is cut into tiles of whole sampled rows. The dense cloud is a three-pass stream
 * compaction, so the output order is the pixel order on every device and every run: count the
 * valid samples of each tile, scan the counts into offsets, write. On GPUs a work-group walks
 * its rows in rounds of PLANES samples an item with one local scan a round; on CPUs
 * (work-groups of one) an item walks its rows in a plain loop, without barriers.
 */
#if !defined(DEPTH_U16) && !defined(DEPTH_F32)
#error "build with -DDEPTH_U16 or -DDEPTH_F32"
#endif

/* Everything that describes the frame, in the order the host passes it. */
#define FRAME_PARAMS                                                                               \
    const __global uchar *restrict depth, const ulong depth_offset, const ulong depth_pitch,       \
        const uint sw, const uint sh, const uint stride, const float inv_scale,                    \
        const uint raw_limit, const float trunc, const float inv_fx, const float inv_fy,           \
        const float cx, const float cy, const __global uchar *restrict color,                      \
        const ulong color_offset, const ulong color_pitch, const uint has_color
#define FRAME_ARGS                                                                                 \
    depth, depth_offset, depth_pitch, sw, sh, stride, inv_scale, raw_limit, trunc, inv_fx, inv_fy, \
        cx, cy, color, color_offset, color_pitch, has_color

/* Depth of sampled pixel (k, j) in metres, and whether it is valid. */
inline float sample(FRAME_PARAMS, uint k, uint j, int *valid)
{
    const __global uchar *row = depth + depth_offset + (ulong)(j * stride) * depth_pitch;
#ifdef DEPTH_U16
    const uint raw = ((const __global ushort *)row)[k * stride];
    *valid = raw != 0 && raw < raw_limit;
    return (float)raw * inv_scale;
#else
    const float z = ((const __global float *)row)[k * stride];
    *valid = z > 0.0f && z < trunc;
    return z;
#endif
}

/* Writes point `at` (and its colour) for sampled pixel (k, j); NaN when invalid. */
inline void put_point(FRAME_PARAMS, uint k, uint j, float z, int valid,
                      __global float *restrict points, __global uchar *restrict colors, uint at)
{
    const uint u = k * stride, v = j * stride;
    float3 p = (float3)(NAN, NAN, NAN);
    if (valid)
        p = (float3)(((float)u - cx) * z * inv_fx, ((float)v - cy) * z * inv_fy, z);
    vstore3(p, at, points);
    if (has_color) {
        uchar3 c = (uchar3)(0, 0, 0);
        if (valid)
            c = vload3(0, color + color_offset + (ulong)v * color_pitch + (ulong)u * 3);
        vstore3(c, at, colors);
    }
}

/* One point per sampled pixel. Item (x, y) covers columns [x * cols, +cols) of rows
 * [y * rows, +rows). */
__kernel void cloud_organized(FRAME_PARAMS, __global float *restrict points,
                              __global uchar *restrict colors, const uint cols, const uint rows)
{
    const uint k0 = (uint)get_global_id(0) * cols, k1 = min(k0 + cols, sw);
    const uint j0 = (uint)get_global_id(1) * rows, j1 = min(j0 + rows, sh);
    for (uint j = j0; j < j1; ++j)
        for (uint k = k0; k < k1; ++k) {
            int valid;
            const float z = sample(FRAME_ARGS, k, j, &valid);
            put_point(FRAME_ARGS, k, j, z, valid, points, colors, j * sw + k);
        }
}

/* Pass 1: counts[g] = valid samples in rows [g * tile_rows, +tile_rows). */
__kernel void cloud_count(FRAME_PARAMS, __global uint *restrict counts, const uint tile_rows,
                          __local uint *scratch)
{
    const uint g = (uint)get_group_id(0), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const uint j0 = g * tile_rows, j1 = min(j0 + tile_rows, sh);
    uint c = 0;
    for (uint j = j0; j < j1; ++j)
        for (uint k = lid; k < sw; k += l) {
            int valid;
            sample(FRAME_ARGS, k, j, &valid);
            c += (uint)valid;
        }
    if (l == 1) {
        counts[g] = c;
        return;
    }
    scratch[lid] = c;
    for (uint step = l / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < step)
            scratch[lid] += scratch[lid + step];
    }
    if (lid == 0)
        counts[g] = scratch[0];
}

/* Inclusive Hillis-Steele scan of scratch[0..l) by l items; returns this item's value. */
inline uint scan_local(__local uint *scratch, uint lid, uint l, uint value)
{
    scratch[lid] = value;
    for (uint d = 1; d < l; d *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint add = lid >= d ? scratch[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += add;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return scratch[lid];
}

/* Pass 2, one work-group: offsets[g] = sum of counts[0..g), and the total into *total. */
__kernel void cloud_scan(const __global uint *restrict counts, const uint groups,
                         __global uint *restrict offsets, __global uint *restrict total,
                         __local uint *scratch)
{
    const uint lid = (uint)get_local_id(0), l = (uint)get_local_size(0);
    const uint per = (groups + l - 1) / l;
    const uint begin = min(lid * per, groups), end = min(begin + per, groups);
    uint sum = 0;
    for (uint g = begin; g < end; ++g)
        sum += counts[g];
    uint base = l == 1 ? 0 : scan_local(scratch, lid, l, sum) - sum;
    for (uint g = begin; g < end; ++g) {
        offsets[g] = base;
        base += counts[g];
    }
    if (lid == l - 1)
        *total = base;
}

/* Samples an item takes per round on the work-group path, in PLANES strided planes of l
 * samples (so loads and stores stay coalesced). The valid flags of all planes are counted with
 * one scan: each plane's count lives in its own 10-bit field of a ulong, which holds for
 * work-groups of up to 1023 items (the host uses at most 256). */
#define PLANES 6
#define FIELD 10
#define FIELD_MASK 1023ul

/* Inclusive Hillis-Steele scan of packed counters; returns this item's value. */
inline ulong scan_packed(__local ulong *scratch, uint lid, uint l, ulong value)
{
    scratch[lid] = value;
    for (uint d = 1; d < l; d *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong add = lid >= d ? scratch[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] += add;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return scratch[lid];
}

/* Pass 3: tile g writes its valid points from offsets[g] on, in pixel order. */
__kernel void cloud_dense(FRAME_PARAMS, const __global uint *restrict offsets,
                          __global float *restrict points, __global uchar *restrict colors,
                          const uint tile_rows, __local ulong *scratch)
{
    const uint g = (uint)get_group_id(0), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const uint j0 = g * tile_rows, j1 = min(j0 + tile_rows, sh);
    uint at = offsets[g];
    if (l == 1) {
        for (uint j = j0; j < j1; ++j)
            for (uint k = 0; k < sw; ++k) {
                int valid;
                const float z = sample(FRAME_ARGS, k, j, &valid);
                if (valid)
                    put_point(FRAME_ARGS, k, j, z, 1, points, colors, at++);
            }
        return;
    }
    /* Rounds of PLANES * l samples of a row: sample k0 + t * l + lid is this item's in plane t.
     * Its slot is `at`, plus the valid samples of planes before t, plus those of plane t held
     * by items before this one. */
    for (uint j = j0; j < j1; ++j)
        for (uint k0 = 0; k0 < sw; k0 += PLANES * l) {
            float z[PLANES];
            ulong mine = 0;
            for (uint t = 0; t < PLANES; ++t) {
                const uint k = k0 + t * l + lid;
                int valid = 0;
                z[t] = 0.0f;
                if (k < sw)
                    z[t] = sample(FRAME_ARGS, k, j, &valid);
                mine |= (ulong)valid << (FIELD * t);
            }
            const ulong before = scan_packed(scratch, lid, l, mine) - mine;
            const ulong totals = scratch[l - 1];
            uint base = at;
            for (uint t = 0; t < PLANES; ++t) {
                if ((mine >> (FIELD * t)) & 1ul) {
                    const uint slot = base + (uint)((before >> (FIELD * t)) & FIELD_MASK);
                    put_point(FRAME_ARGS, k0 + t * l + lid, j, z[t], 1, points, colors, slot);
                }
                base += (uint)((totals >> (FIELD * t)) & FIELD_MASK);
            }
            at = base;
            barrier(CLK_LOCAL_MEM_FENCE); /* scratch is rewritten next round */
        }
}
