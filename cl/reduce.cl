/* Reductions: sum, min, max (mean is a sum), argmin, argmax, in two stages.
 *
 * Build options: -DS=<element type in memory> -DT=<the type it is computed in: S, or float for
 * half> -DKIND=<1 float, 2 double, 3 signed, 4 unsigned>, -DVW=<elements in 16 bytes: 2, 4, 8
 * or 16>, -DMASK=<the signed integer type of T's size, what vector comparisons of T return>,
 * -DLOAD=<0 plain, 1 half (vload_half, core OpenCL: no cl_khr_fp16 needed), 2 bool (a byte,
 * any non-zero value true)>, -DWIDE=<1: 64-bit integer sums kept in 128 bits, so that a mean
 * is exact; the sum itself wraps at 64 bits as numpy's> and -DOP=<1 sum, 2 min, 3 max,
 * 4 argmin, 5 argmax>, -DITEMS=<1: the CPU shape (work-groups of one, a contiguous chunk
 * each), 0: the GPU shape (work-groups striding over the array); a build holds only its shape's
 * code, so a GPU build keeps no registers for the chunk path's 64 lanes>.
 *
 * Stage 1: work-group g of l items reduces its elements into partial[g]; stage 2: one work-group
 * reduces the partials into result. Or both in one launch (reduce_onepass): the last work-group
 * of stage 1 to finish does stage 2, in stage 2's order. The assignment of elements to items
 * depends only on n and the launch shape, which the host fixes per device, and every combination
 * happens in a fixed order, so a result is the same bits run after run. GPUs stride over the array
 * (coalesced); CPU devices (work-groups of one) take contiguous chunks.
 *
 * Semantics (numpy's): float sums are Kahan-compensated per item and combined with two-sum, so
 * they are at least as accurate as numpy's pairwise sum; the sum identity is -0.0, so a sum of
 * -0.0 is -0.0; NaN propagates through min and max, and argmin/argmax return the first NaN's
 * index; ties return the first index; integer sums accumulate in 64 bits (128 for 64-bit
 * elements); half is computed in float.
 *
 * A partial is two 64-bit words: the value (low bytes for types under 64 bits; a float sum keeps
 * its compensation in the high 4 bytes, a wide sum its high word in the second) and the index.
 */
#if KIND == 2
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef ITEMS
#error "build with -DITEMS=0 or -DITEMS=1"
#endif
#ifndef ACC_BYTES
#error "build with -DACC_BYTES=<sizeof(acc_t)>, the local scratch's bytes an item"
#endif

#define SUM 1
#define MIN 2
#define MAX 3
#define ARGMIN 4
#define ARGMAX 5

/* NaN test of the element type; integers have none. */
inline int IS_NAN(T v)
{
#if KIND <= 2
    return isnan(v);
#else
    (void)v;
    return 0;
#endif
}

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define TV CAT(T, 16)
#define TW CAT(T, VW)
#define UW CAT(ulong, VW)
#define VSTORE CAT(vstore, VW)

/* Loads: one element (LD), 16 from p + i (LD16), and the q-th group of VW from a 16-byte
 * aligned p (LDW), each as T. */
#if LOAD == 1
#define LD(p, i) vload_half((i), (p))
#define LD16(p, i) vload_half16(0, (p) + (i))
#define LDW(p, q) CAT(vloada_half, VW)((q), (p))
#elif LOAD == 2
#define LD(p, i) ((T)((p)[i] != 0))
#define LD16(p, i) (as_uchar16(vload16(0, (p) + (i)) != (uchar16)0) & (uchar16)1)
#define LDW(p, q) (as_uchar16(((const __global uchar16 *)(p))[q] != (uchar16)0) & (uchar16)1)
#else
#define LD(p, i) ((p)[i])
#define LD16(p, i) vload16(0, (p) + (i))
#define LDW(p, q) (((const __global TW *)(p))[q])
#endif

#if OP == SUM
#if KIND == 1
typedef float2 ACC; /* sum, compensation */
#elif KIND == 2
typedef double2 ACC;
#elif WIDE
typedef ulong2 ACC; /* low and high word of a 128-bit two's-complement sum */
#elif KIND == 3
#define ACCN long
typedef long ACC;
#else
#define ACCN ulong
typedef ulong ACC;
#endif
#else
typedef T ACC;
#endif

#if OP == SUM && WIDE
/* x as 128 bits: sign-extended for signed elements. Works on scalars and vectors of VW. */
#if KIND == 3
#define HIGH(x) as_ulong(as_long(x) >> 63)
#define HIGHW(x) CAT(as_, UW)(CAT(as_long, VW)(x) >> 63)
#else
#define HIGH(x) ((ulong)0)
#define HIGHW(x) ((UW)(0))
#endif
inline ACC wide_add(ACC a, ACC b)
{
    const ulong lo = a.x + b.x;
    return (ACC)(lo, a.y + b.y + (ulong)(lo < a.x));
}
#endif

typedef struct {
    ACC v;
    ulong i;
} acc_t;
/* The host sizes the local scratch as ACC_BYTES an item: a build where that is not acc_t's size
 * fails here rather than running past the scratch. */
typedef char acc_bytes_match[sizeof(acc_t) == ACC_BYTES ? 1 : -1];

#if OP == SUM && KIND <= 2
/* Kahan step; infinities and NaN bypass the compensation, which they would turn into NaN. */
inline ACC add1(ACC a, T x)
{
    const T y = x - a.y;
    const T t = a.x + y;
    return isfinite(t) ? (ACC)(t, (t - a.x) - y) : (ACC)(t, (T)0);
}
/* Two-sum of two compensated sums: the order is fixed by the caller. */
inline ACC add2(ACC a, ACC b)
{
    const T s = a.x + b.x;
    if (!isfinite(s))
        return (ACC)(s, (T)0);
    const T bv = s - a.x;
    const T err = (a.x - (s - bv)) + (b.x - bv);
    return (ACC)(s, a.y + b.y - err);
}
#define IDENTITY ((ACC)(-0.0, 0.0))
#endif

inline acc_t identity(void)
{
    acc_t a;
    a.i = ~0ul; /* "no element yet": loses every comparison on index */
#if OP == SUM
#if KIND <= 2
    a.v = IDENTITY;
#else
    a.v = (ACC)(0);
#endif
#else
    a.v = (T)0;
#endif
    return a;
}

/* Folds element x at index i into a (items visit their elements in increasing index). */
inline acc_t fold(acc_t a, T x, ulong i)
{
#if OP == SUM
#if KIND <= 2
    a.v = add1(a.v, x);
#elif WIDE
    a.v = wide_add(a.v, (ACC)(as_ulong(x), HIGH(x)));
#else
    a.v += (ACC)x;
#endif
    a.i = 0;
#else
    if (a.i == ~0ul || (IS_NAN(x) && !IS_NAN(a.v))) {
        a.v = x;
        a.i = i;
    } else if (!IS_NAN(a.v)) {
#if OP == MIN || OP == ARGMIN
        if (x < a.v) {
#else
        if (x > a.v) {
#endif
            a.v = x;
            a.i = i;
        }
    }
#endif
    return a;
}

/* Combines two partials; for comparisons, ties and NaN go to the smaller index. */
inline acc_t combine(acc_t a, acc_t b)
{
#if OP == SUM
#if KIND <= 2
    a.v = add2(a.v, b.v);
#elif WIDE
    a.v = wide_add(a.v, b.v);
#else
    a.v += b.v;
#endif
    return a;
#else
    if (b.i == ~0ul)
        return a;
    if (a.i == ~0ul)
        return b;
    const int an = IS_NAN(a.v), bn = IS_NAN(b.v);
    if (an || bn)
        return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
#if OP == MIN || OP == ARGMIN
    if (b.v < a.v || (b.v == a.v && b.i < a.i))
        return b;
#else
    if (b.v > a.v || (b.v == a.v && b.i < a.i))
        return b;
#endif
    return a;
#endif
}

/* A partial in two words: sums keep their accumulator there (a double sum with its compensation
 * fills both); comparisons keep the value in word 0 and the index in word 1. */
inline void store(__global ulong *out, acc_t a)
{
    *(__global ACC *)out = a.v;
#if OP != SUM
    out[1] = a.i;
#endif
}

inline acc_t load(const __global ulong *in)
{
    acc_t a;
    a.v = *(const __global ACC *)in;
#if OP != SUM
    a.i = in[1];
#else
    a.i = 0;
#endif
    return a;
}

/* The one pass's partials: four 32-bit words a work-group, written and read by atomics: OpenCL
 * 1.2 keeps atomics on a global word coherent across the work-groups of a launch, where it
 * promises nothing of plain stores. The words are store()'s two 64-bit words. */
typedef union {
    ACC v;
    ulong w[2];
} words_t;

inline uint publish(volatile __global uint *at, const acc_t a)
{
    words_t u;
    u.w[0] = 0;
    u.w[1] = 0;
    u.v = a.v;
#if OP != SUM
    u.w[1] = a.i;
#endif
    uint replaced = 0;
    for (int k = 0; k < 2; ++k) {
        replaced |= atomic_xchg(&at[2 * k], (uint)u.w[k]);
        replaced |= atomic_xchg(&at[2 * k + 1], (uint)(u.w[k] >> 32));
    }
    return replaced; /* the words it replaced, for the count to wait on (reduce_onepass) */
}

inline acc_t collect(volatile __global uint *at)
{
    words_t u;
    for (int k = 0; k < 2; ++k)
        u.w[k] = (ulong)atomic_or(&at[2 * k], 0u) | (ulong)atomic_or(&at[2 * k + 1], 0u) << 32;
    acc_t a;
    a.v = u.v;
#if OP != SUM
    a.i = u.w[1];
#else
    a.i = 0;
#endif
    return a;
}

/* Tree reduction of one value per item through local memory; item 0 gets the result. */
inline acc_t reduce_local(acc_t a, __local acc_t *scratch, uint lid, uint l)
{
    scratch[lid] = a;
    for (uint step = l / 2; step > 0; step /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < step)
            scratch[lid] = combine(scratch[lid], scratch[lid + step]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return scratch[0];
}

#if ITEMS
#if OP == SUM && KIND <= 2
/* One Kahan step of 16 lanes; infinities and NaN bypass the compensation, as in add1. */
inline void kahan16(TV *s, TV *c, const TV x)
{
    const TV y = x - *c;
    const TV t = *s + y;
    *c = select((TV)(0.0), (t - *s) - y, isfinite(t));
    *s = t;
}
#endif

/* x[begin..end) by one item in 16 lanes (lane k takes every 16th element from begin + k; float
 * sums in four sets of 16, below), so CPU compilers emit vector code and a float sum has 64
 * independent Kahan chains instead of one long dependency; the lanes are then combined in lane
 * order and the tail folded in, all in a fixed order. */
inline acc_t fold_chunk(const __global S *restrict x, ulong begin, ulong end)
{
    acc_t a = identity();
    const ulong vend = begin + (end - begin) / 16 * 16;
    if (vend > begin) {
#if OP == SUM && KIND <= 2
        /* Four sets of 16 lanes (lane k of set u takes elements begin + 16 * u + k, then every
         * 64th): a Kahan step is five dependent operations, so one set leaves the core waiting on
         * latency (27 GB/s on two cores that read 30-43); four keep it on the loads. */
        TV s[4], c[4];
        for (int u = 0; u < 4; ++u)
            s[u] = (TV)(-0.0), c[u] = (TV)(0.0);
        const ulong qend = begin + (vend - begin) / 64 * 64;
        for (ulong i = begin; i < qend; i += 64)
            for (int u = 0; u < 4; ++u)
                kahan16(&s[u], &c[u], LD16(x, i + 16 * u));
        for (ulong i = qend; i < vend; i += 16) /* the last 16 to 48 before the tail: set 0 */
            kahan16(&s[0], &c[0], LD16(x, i));
        for (int u = 0; u < 4; ++u) {
            T sl[16], cl[16];
            vstore16(s[u], 0, sl);
            vstore16(c[u], 0, cl);
            for (int k = 0; k < 16; ++k)
                a.v = add2(a.v, (ACC)(sl[k], cl[k]));
        }
#elif OP == SUM && WIDE
        ulong16 lo = (ulong16)(0), hi = (ulong16)(0);
        for (ulong i = begin; i < vend; i += 16) {
            const TV v = LD16(x, i);
            const ulong16 u = as_ulong16(v);
            lo += u;
            hi -= as_ulong16(lo < u); /* a carry: the comparison is -1 where true */
#if KIND == 3
            hi += as_ulong16(as_long16(v) >> 63);
#endif
        }
        ulong ll[16], hl[16];
        vstore16(lo, 0, ll);
        vstore16(hi, 0, hl);
        for (int k = 0; k < 16; ++k)
            a.v = wide_add(a.v, (ACC)(ll[k], hl[k]));
#elif OP == SUM
        CAT(ACCN, 16) s = (CAT(ACCN, 16))(0);
        for (ulong i = begin; i < vend; i += 16)
            s += CAT(convert_, CAT(ACCN, 16))(LD16(x, i));
        ACC sl[16];
        vstore16(s, 0, sl);
        for (int k = 0; k < 16; ++k)
            a.v += sl[k];
#else
        const ulong16 lanes = (ulong16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        TV best = LD16(x, begin);
        ulong16 where = (ulong16)(begin) + lanes;
        for (ulong i = begin + 16; i < vend; i += 16) {
            const TV v = LD16(x, i);
#if OP == MIN || OP == ARGMIN
            CAT(MASK, 16) take = v < best;
#else
            CAT(MASK, 16) take = v > best;
#endif
#if KIND <= 2
            /* A NaN lane keeps its first NaN; a new NaN replaces a number. */
            take = (take | isnan(v)) & ~isnan(best);
#endif
            best = select(best, v, take);
            where = select(where, (ulong16)(i) + lanes, CAT(convert_, long16)(take));
        }
        T bl[16];
        ulong wl[16];
        vstore16(best, 0, bl);
        vstore16(where, 0, wl);
        for (int k = 0; k < 16; ++k) {
            acc_t lane;
            lane.v = bl[k];
            lane.i = wl[k];
            a = combine(a, lane);
        }
#endif
    }
    for (ulong i = vend; i < end; ++i)
        a = fold(a, LD(x, i), i);
    return a;
}

#endif

/* The GPU shape: item `first` of `stride` items folds the VW-element groups ("quads") first,
 * first + stride, ... of x in VW lanes. A load is one aligned 16-byte vector (VW = 16 /
 * sizeof(T)) and four are issued before any is folded: at one 4-byte load per item an H200
 * keeps too few bytes in flight and stops at a third of its bandwidth (two loads: f32 sum 4.05
 * TB/s, argmax 3.29; four: 4.08 and 3.71), and vloadn from a pointer only known to be
 * element-aligned compiles to element loads there (u8 sum 1.7 TB/s instead of 3.3). So the quads
 * start at the first 16-byte boundary; the elements before it (the head) and the n % VW after the
 * last quad are folded by item 0. Each lane folds its elements in increasing order and the lanes
 * are combined in lane order, so the result is fixed by n, the shape and x's alignment. */
inline acc_t fold_strided(const __global S *restrict x, ulong n, ulong first, ulong stride)
{
    acc_t a = identity();
    const ulong head = min(n, (ulong)((16 - ((size_t)x & 15)) & 15) / (ulong)sizeof(S));
    const __global S *restrict xv = x + head; /* 16-byte aligned */
    const ulong quads = (n - head) / VW;
    if (first == 0)
        for (ulong i = 0; i < head; ++i)
            a = fold(a, LD(x, i), i);
    ulong q = first;
    uint r = 0;
    if (first < quads) {
#if OP == SUM && KIND <= 2
        TW s = (TW)(-0.0), c = (TW)(0.0);
#define STEP(v, q)                                                                                 \
    do {                                                                                           \
        const TW y = (v)-c;                                                                        \
        const TW t = s + y;                                                                        \
        c = select((TW)(0.0), (t - s) - y, isfinite(t));                                           \
        s = t;                                                                                     \
    } while (0)
#elif OP == SUM && WIDE
        UW lo = (UW)(0), hi = (UW)(0);
#define STEP(v, q)                                                                                 \
    do {                                                                                           \
        const UW u_ = CAT(as_, UW)(v);                                                             \
        lo += u_;                                                                                  \
        hi += HIGHW(v) - CAT(as_, UW)(lo < u_);                                                    \
    } while (0)
#elif OP == SUM && VW == 16 && KIND == 4
        /* Unsigned bytes (and bools): each 32-bit word of a load splits into two 16-bit pair sums
         * (SWAR), flushed to 64 bits every 32 steps, before a 16-bit counter could overflow
         * (32 * 2 * 255) and often enough that the tests reach it. Widening every byte to 64
         * bits made this loop compute-bound on the H200 (38% of its bandwidth). */
        ulong4 s = (ulong4)(0);
        uint4 t = (uint4)(0);
        uint pending = 0;
#define STEP(v, q)                                                                                 \
    do {                                                                                           \
        const uint4 w = as_uint4(v);                                                               \
        t += (w & 0x00FF00FFu) + ((w >> 8) & 0x00FF00FFu);                                         \
        if (++pending == 32u) {                                                                    \
            s += convert_ulong4((t & 0xFFFFu) + (t >> 16));                                        \
            t = (uint4)(0);                                                                        \
            pending = 0;                                                                           \
        }                                                                                          \
    } while (0)
#elif OP == SUM
        CAT(ACCN, VW) s = (CAT(ACCN, VW))(0);
#define STEP(v, q) (s += CAT(convert_, CAT(ACCN, VW))(v))
#else
        /* Each lane's best, and the step it came from (its quad is first + step * stride; the
         * host keeps the steps under 2^31). Under 8-byte elements the lanes keep their steps in
         * 32 bits and a NaN costs two compares, not three: on the H200 argmax f32 0.31 -> 0.28
         * ms, u8 0.82 -> 0.61 (docs/perf/h200-session4.md). 8-byte elements keep them in 64 bits
         * (their mask is 64 bits anyway) and the three tests, which measured faster there for
         * double (0.28 against 0.32 ms). */
#if VW == 2
#define STEP_T ulong
#define STEP_MASK(take) (take)
#else
#define STEP_T uint
#define STEP_MASK(take) CAT(convert_, CAT(int, VW))(take)
#endif
        TW best = LDW(xv, first);
        CAT(STEP_T, VW) where = (CAT(STEP_T, VW))(0);
#if OP == MIN || OP == ARGMIN
#define BEATS(v) ((v) < best)
#define NOT_BEATEN(v) ((v) >= best)
#else
#define BEATS(v) ((v) > best)
#define NOT_BEATEN(v) ((v) <= best)
#endif
#if KIND > 2
#define BETTER(v) BEATS(v)
#elif VW == 2 /* a NaN replaces a number; the first NaN stays */
#define BETTER(v) ((BEATS(v) | isnan(v)) & ~isnan(best))
#else /* the same: NaN fails NOT_BEATEN, and best == best is false once best is NaN */
#define BETTER(v) (~NOT_BEATEN(v) & (best == best))
#endif
#define STEP(v, r)                                                                                 \
    do {                                                                                           \
        const TW v_ = (v);                                                                         \
        const CAT(MASK, VW) take = BETTER(v_);                                                     \
        best = select(best, v_, take);                                                             \
        where = select(where, (CAT(STEP_T, VW))(r), STEP_MASK(take));                              \
    } while (0)
        q += stride;
        r = 1;
#endif
        for (; q + 3 * stride < quads; q += 4 * stride, r += 4) {
            const TW v0 = LDW(xv, q), v1 = LDW(xv, q + stride);
            const TW v2 = LDW(xv, q + 2 * stride), v3 = LDW(xv, q + 3 * stride);
            STEP(v0, r);
            STEP(v1, r + 1);
            STEP(v2, r + 2);
            STEP(v3, r + 3);
        }
        for (; q < quads; q += stride, ++r)
            STEP(LDW(xv, q), r);
#undef STEP
#if OP == SUM && KIND <= 2
        T sl[VW], cl[VW];
        VSTORE(s, 0, sl);
        VSTORE(c, 0, cl);
        for (int k = 0; k < VW; ++k)
            a.v = add2(a.v, (ACC)(sl[k], cl[k]));
#elif OP == SUM && WIDE
        ulong ll[VW], hl[VW];
        VSTORE(lo, 0, ll);
        VSTORE(hi, 0, hl);
        for (int k = 0; k < VW; ++k)
            a.v = wide_add(a.v, (ACC)(ll[k], hl[k]));
#elif OP == SUM
#if VW == 16 && KIND == 4
        s += convert_ulong4((t & 0xFFFFu) + (t >> 16));
        a.v += ((s.x + s.y) + s.z) + s.w;
#else
        ACC sl[VW];
        VSTORE(s, 0, sl);
        for (int k = 0; k < VW; ++k)
            a.v += sl[k];
#endif
#else
        T bl[VW];
        STEP_T wl[VW];
        VSTORE(best, 0, bl);
        VSTORE(where, 0, wl);
        for (int k = 0; k < VW; ++k) {
            acc_t lane;
            lane.v = bl[k];
            lane.i = head + VW * (first + wl[k] * stride) + (ulong)k;
            a = combine(a, lane);
        }
#endif
    }
    if (first == 0)
        for (ulong i = head + quads * VW; i < n; ++i)
            a = fold(a, LD(x, i), i);
    return a;
}

/* This work-group's share of x = base[offset..offset + n), in item 0 (stage 1's partial). */
inline acc_t group_partial(const __global S *restrict base, const ulong offset, const ulong n,
                           __local acc_t *scratch)
{
    const __global S *restrict x = base + offset;
    const ulong g = get_group_id(0), groups = get_num_groups(0);
#if ITEMS
    (void)scratch; /* work-groups of one */
    const ulong chunk = (n + groups - 1) / groups;
    const ulong begin = min(g * chunk, n), end = min(begin + chunk, n);
    return fold_chunk(x, begin, end);
#else
    const uint lid = (uint)get_local_id(0), l = (uint)get_local_size(0);
    return reduce_local(fold_strided(x, n, g * l + lid, groups * l), scratch, lid, l);
#endif
}

/* Stage 1: x = base[offset..offset + n) into partials (two words a group). */
__kernel void reduce_stage1(const __global S *restrict base, const ulong offset, const ulong n,
                            __global ulong *restrict partials, __local acc_t *scratch)
{
    const acc_t a = group_partial(base, offset, n, scratch);
    if (get_local_id(0) == 0)
        store(partials + 2 * get_group_id(0), a);
}

/* Stage 2, one work-group: the partials of stage 1 into result (two words). */
__kernel void reduce_stage2(const __global ulong *restrict partials, const uint count,
                            __global ulong *restrict result, __local acc_t *scratch)
{
    const uint lid = (uint)get_local_id(0), l = (uint)get_local_size(0);
    acc_t a = identity();
    for (uint p = lid; p < count; p += l)
        a = combine(a, load(partials + 2 * p));
    if (l > 1)
        a = reduce_local(a, scratch, lid, l);
    if (lid == 0)
        store(result, a);
}

/* Both stages in one launch: each work-group publishes its partial in sync[1 + 4g..], then counts
 * itself out in sync[0]; the last to do so combines every partial as stage 2 does (the same order
 * whichever work-group is last, so the same bits run after run; the same bits as two launches
 * where stage 2 runs work-groups of this size) and zeroes sync[0] for the next launch. Nothing
 * waits on another work-group, so it cannot hang in any order of execution. sync[0] is zero
 * before the launch; the host keeps one state a queue, as launches on one in-order queue follow
 * one another. A launch that dies half-way leaves it dirty, but drivers lose the whole context
 * then, so nothing runs on it again. */
__kernel void reduce_onepass(const __global S *restrict base, const ulong offset, const ulong n,
                             __global uint *sync, __global ulong *restrict result,
                             __local acc_t *scratch)
{
    __local uint last;
    const uint lid = (uint)get_local_id(0), l = (uint)get_local_size(0);
    const uint groups = (uint)get_num_groups(0);
    acc_t a = group_partial(base, offset, n, scratch);
    if (lid == 0) {
        const uint replaced = publish(sync + 1 + 4 * (ulong)get_group_id(0), a);
        /* The partial must be in place before the count says so. The fence is what OpenCL 1.2
         * offers ("committed to memory"), but NVIDIA compiles it to a work-group fence
         * (membar.cta), and atomics on different words may then be performed out of order. So
         * the count's operand also depends on what the exchanges returned: hardware cannot
         * issue it before all four have been performed (at the one point where atomics on a word
         * are performed: L2 on GPUs). n >> 63 is zero (no array has 2^63 elements), which the
         * compiler cannot know. This is an assumption about hardware and compilers beyond
         * OpenCL 1.2's promises, which say nothing of order across work-groups. */
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_add(&sync[0], 1u + (replaced & (uint)(n >> 63))) == groups - 1;
    }
    /* Every item is done with scratch, and reads the partials only after the count. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (!last)
        return;
    a = identity();
    for (uint p = lid; p < groups; p += l)
        a = combine(a, collect(sync + 1 + 4 * (ulong)p));
    if (l > 1)
        a = reduce_local(a, scratch, lid, l);
    if (lid == 0) {
        store(result, a);
        atomic_xchg(&sync[0], 0u);
    }
}
