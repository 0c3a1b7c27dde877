/* Median filter of a one-channel image, with the semantics of OpenCV's medianBlur for the sizes
 * it supports on every depth (3 and 5): each output pixel is the median of the K x K window
 * around it, with the image's border replicated (coordinates clamped). The median's value is
 * unique, so any correct selection gives OpenCV's value (a zero's sign aside: -0.0 sorts before
 * +0.0 here, OpenCV holds them equal). Floats order NaN after every number (numpy's sort), so a
 * window of NaNs and numbers has a defined median.
 *
 * Build options: -DT=uchar, ushort or float; -DK=3 or 5; -DVEC=n (pixels a work-item: 2 to 16);
 * -DIS_FLOAT for float.
 *
 * A work-item makes VEC adjacent output pixels at once, as one vector per window position: the
 * comparisons below are vector min/max, the same instructions on a CPU's SIMD units and a GPU's
 * registers (one 16-byte vector a position: 25 of them for 5x5, within a GPU thread's registers).
 * Interior blocks load each window row with unaligned vector loads; blocks within K/2 of the left
 * or right edge gather lane by lane with clamped coordinates.
 *
 * The selection is forgetful (Paeth): of N = 2M + 1 values, the smallest and the largest of any
 * M + 2 cannot be the median (each has M + 1 values on one side), so drop both and take in the
 * next value; after N - M - 2 such rounds three are left, and the median is their middle. It is
 * a fixed sequence of compare-exchanges (unrolled, K known at compile time), so there are no
 * branches on data: 132 exchanges for 5x5 and 20 for 3x3, checked for every input of zeros and
 * ones (which decides it for all inputs: the 0-1 principle of compare-exchange networks).
 */
#if !defined(T) || !defined(K) || !defined(VEC)
#error "build with -DT=<uchar|ushort|float>, -DK=<3|5> and -DVEC=<lanes>"
#endif

#define N (K * K)
#define M (N / 2)
#define R (K / 2)

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define TV CAT(T, VEC)
#define VLOAD CAT(vload, VEC)
#define VSTORE CAT(vstore, VEC)

#if VEC < 2
#error "VEC must be a vector width (select and isnan work lane-wise only on vectors)"
#endif

/* The values compared: the pixels themselves, or for floats a key in the same order as unsigned
 * integers (numpy's order: -inf < ... < -0 < +0 < ... < +inf < NaN), so that every type sorts
 * with integer min and max. Negative floats have their bits inverted, others their sign bit
 * set; every NaN becomes the largest key, which comes back as a NaN. */
#ifdef IS_FLOAT
#define KV CAT(uint, VEC)
#define LOAD_KEY(x) to_key(x)
#define STORE_VALUE(k) from_key(k)
static inline KV to_key(const TV f)
{
    const KV b = CAT(as_uint, VEC)(f);
    const KV key = select(b | (KV)0x80000000u, ~b, b); /* MSB of b set: negative */
    return select(key, (KV)0xFFFFFFFFu, isnan(f));
}
static inline TV from_key(const KV k)
{
    return CAT(as_float, VEC)(select(~k, k & (KV)0x7FFFFFFFu, k));
}
#else
#define KV TV
#define LOAD_KEY(x) (x)
#define STORE_VALUE(k) (k)
#endif

/* v[i] <= v[j] afterwards. */
#define CE(i, j)                                                                                   \
    do {                                                                                           \
        const KV a_ = v[i], b_ = v[j];                                                             \
        v[i] = min(a_, b_);                                                                        \
        v[j] = max(a_, b_);                                                                        \
    } while (0)

__kernel void median(const __global uchar *restrict src_base, const ulong src_offset,
                     const ulong src_pitch, __global uchar *restrict dst_base,
                     const ulong dst_offset, const ulong dst_pitch, const uint width,
                     const uint height)
{
    const int x0 = (int)get_global_id(0) * VEC, y = (int)get_global_id(1);
    if (x0 >= (int)width || y >= (int)height)
        return;
    const __global uchar *src = src_base + src_offset;
    const int interior = x0 >= R && x0 + VEC - 1 + R <= (int)width - 1;
    KV v[N];
#pragma unroll
    for (int dy = 0; dy < K; ++dy) {
        const int yy = clamp(y + dy - R, 0, (int)height - 1);
        const __global T *row = (const __global T *)(src + (ulong)yy * src_pitch);
#pragma unroll
        for (int dx = 0; dx < K; ++dx) {
            if (interior) {
                v[dy * K + dx] = LOAD_KEY(VLOAD(0, row + x0 + dx - R));
            } else {
                T lanes[VEC];
                for (int i = 0; i < VEC; ++i)
                    lanes[i] = row[clamp(x0 + i + dx - R, 0, (int)width - 1)];
                v[dy * K + dx] = LOAD_KEY(VLOAD(0, lanes));
            }
        }
    }
    /* Forgetful selection over v[lo..hi]: the new values wait in v[next..N-1]. */
    int lo = 0, hi = M + 1;
#pragma unroll
    for (int next = M + 2; next <= N; ++next) {
        /* Pairs from both ends; then the smallest of the lower half to v[lo], the largest of
         * the upper half to v[hi] (an odd middle belongs to both). */
        const int size = hi - lo + 1;
#pragma unroll
        for (int i = 0; i < size / 2; ++i)
            CE(lo + i, hi - i);
#pragma unroll
        for (int i = lo + 1; i <= lo + (size - 1) / 2; ++i)
            CE(lo, i);
#pragma unroll
        for (int i = hi - (size - 1) / 2; i < hi; ++i)
            CE(i, hi);
        ++lo;
        if (next < N)
            v[hi] = v[next]; /* the largest is dropped, the next value takes its place */
        else
            --hi;
    }
    /* One value is left: v[lo] == v[hi]. */
    __global T *out = (__global T *)(dst_base + dst_offset + (ulong)y * dst_pitch) + x0;
    const TV result = STORE_VALUE(v[lo]);
    if (x0 + VEC <= (int)width) {
        VSTORE(result, 0, out);
    } else {
        T lanes[VEC];
        VSTORE(result, 0, lanes);
        for (int i = 0; x0 + i < (int)width; ++i)
            out[i] = lanes[i];
    }
}
