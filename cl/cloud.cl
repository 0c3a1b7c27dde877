/* Depth image to point cloud, with the semantics of Open3D's create_from_depth_image:
 *   z = raw / depth_scale (DEPTH_U16) or the value itself (DEPTH_F32, metres);
 *   valid when 0 < z < depth_trunc (so NaN, infinities, zero and negatives are not);
 *   x = (u - cx) * z / fx, y = (v - cy) * z / fy, for u, v multiples of the stride.
 * Build options: -DDEPTH_U16 or -DDEPTH_F32. Points are packed float x, y, z (12 bytes), never
 * float3 in memory; colours packed r, g, b.
 *
 * Samples are numbered in row-major order of the sampled grid (sw columns). The dense cloud is
 * a three-pass stream compaction, so the output order is the pixel order on every device and
 * every run: count valid samples per tile, scan the tile counts into offsets, write. On GPUs a
 * tile is a work-group striding over its samples with a local scan; on CPUs (work-groups of one)
 * a tile is a plain loop, without barriers.
 */
#if !defined(DEPTH_U16) && !defined(DEPTH_F32)
#error "build with -DDEPTH_U16 or -DDEPTH_F32"
#endif

/* Everything that describes the frame, in the order the host passes it. */
#define FRAME_PARAMS                                                                               \
    const __global uchar *restrict depth, const ulong depth_offset, const ulong depth_pitch,       \
        const uint sw, const uint n, const uint stride, const float scale, const float trunc,      \
        const float fx, const float fy, const float cx, const float cy,                            \
        const __global uchar *restrict color, const ulong color_offset, const ulong color_pitch,   \
        const uint has_color
#define FRAME_ARGS                                                                                 \
    depth, depth_offset, depth_pitch, sw, n, stride, scale, trunc, fx, fy, cx, cy, color,          \
        color_offset, color_pitch, has_color

/* Depth of sample i in metres. */
inline float sample_z(const __global uchar *restrict depth, ulong depth_offset, ulong depth_pitch,
                      uint sw, uint stride, float scale, uint i) {
    const uint u = (i % sw) * stride, v = (i / sw) * stride;
    const __global uchar *row = depth + depth_offset + (ulong)v * depth_pitch;
#ifdef DEPTH_U16
    return (float)((const __global ushort *)row)[u] / scale;
#else
    (void)scale;
    return ((const __global float *)row)[u];
#endif
}

inline int is_valid(float z, float trunc) {
    return z > 0.0f && z < trunc;
}

/* Writes point `at` (and its colour) for sample i with depth z; NaN when invalid. */
inline void put_point(FRAME_PARAMS, uint i, float z, int valid, __global float *restrict points,
                      __global uchar *restrict colors, uint at) {
    const uint k = i % sw, j = i / sw;
    const uint u = k * stride, v = j * stride;
    float3 p = (float3)(NAN, NAN, NAN);
    if (valid)
        p = (float3)(((float)u - cx) * z / fx, ((float)v - cy) * z / fy, z);
    vstore3(p, at, points);
    if (has_color) {
        uchar3 c = (uchar3)(0, 0, 0);
        if (valid)
            c = vload3(0, color + color_offset + (ulong)v * color_pitch + (ulong)u * 3);
        vstore3(c, at, colors);
    }
}

/* One point per sampled pixel; each item does `per_item` consecutive samples. */
__kernel void cloud_organized(FRAME_PARAMS, __global float *restrict points,
                              __global uchar *restrict colors, const uint per_item) {
    const uint i0 = (uint)get_global_id(0) * per_item;
    const uint i1 = min(i0 + per_item, n);
    for (uint i = i0; i < i1; ++i) {
        const float z = sample_z(depth, depth_offset, depth_pitch, sw, stride, scale, i);
        put_point(FRAME_ARGS, i, z, is_valid(z, trunc), points, colors, i);
    }
}

/* Pass 1: counts[g] = valid samples of tile g (samples [g * tile, (g + 1) * tile)). */
__kernel void cloud_count(FRAME_PARAMS, __global uint *restrict counts, const uint tile,
                          __local uint *scratch) {
    const uint g = (uint)get_group_id(0), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const uint begin = g * tile, end = min(begin + tile, n);
    uint c = 0;
    for (uint i = begin + lid; i < end; i += l)
        c += is_valid(sample_z(depth, depth_offset, depth_pitch, sw, stride, scale, i), trunc);
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
inline uint scan_local(__local uint *scratch, uint lid, uint l, uint value) {
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
                         __local uint *scratch) {
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

/* Pass 3: tile g writes its valid points from offsets[g] on, in sample order. */
__kernel void cloud_dense(FRAME_PARAMS, const __global uint *restrict offsets,
                          __global float *restrict points, __global uchar *restrict colors,
                          const uint tile, __local uint *scratch) {
    const uint g = (uint)get_group_id(0), lid = (uint)get_local_id(0);
    const uint l = (uint)get_local_size(0);
    const uint begin = g * tile, end = min(begin + tile, n);
    uint at = offsets[g];
    if (l == 1) {
        for (uint i = begin; i < end; ++i) {
            const float z = sample_z(depth, depth_offset, depth_pitch, sw, stride, scale, i);
            if (is_valid(z, trunc))
                put_point(FRAME_ARGS, i, z, 1, points, colors, at++);
        }
        return;
    }
    /* Rounds of l samples: a local scan of the valid flags gives each item its slot. */
    for (uint r = begin; r < end; r += l) {
        const uint i = r + lid;
        float z = 0.0f;
        int valid = 0;
        if (i < end) {
            z = sample_z(depth, depth_offset, depth_pitch, sw, stride, scale, i);
            valid = is_valid(z, trunc);
        }
        const uint inclusive = scan_local(scratch, lid, l, (uint)valid);
        if (valid)
            put_point(FRAME_ARGS, i, z, 1, points, colors, at + inclusive - 1);
        at += scratch[l - 1];
        barrier(CLK_LOCAL_MEM_FENCE); /* scratch is rewritten next round */
    }
}
