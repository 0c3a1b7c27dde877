/* Device-memory copy: the bandwidth limit every other kernel is measured against. One float4
 * per work-item, as the plainest copy is what drivers make fastest. */
__kernel void copy_f4(__global const float4 *restrict src, __global float4 *restrict dst,
                      const uint n)
{
    const uint i = (uint)get_global_id(0);
    if (i < n)
        dst[i] = src[i];
}
