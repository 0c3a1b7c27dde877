#!/usr/bin/env python3
"""pyopencl's ReductionKernel sum and array max on the device CLCOMPUTE_DEVICE would pick (the
first device whose platform or device name contains it; else the first device), on the arrays of
`clcompute bench`, timed as kernel calls on device arrays (data already on the device). Prints a
Markdown table; exits 0 when pyopencl is absent."""
import os
import sys
import time

try:
    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    from pyopencl.reduction import ReductionKernel
except ImportError as e:  # optional peer
    print(f"pyopencl peer skipped: {e}")
    sys.exit(0)

# Arguments: [REPEATS [SIZES]], as every peer (bench/reproduce.sh passes REPEATS); SIZES in Mi
# elements, comma-separated.
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
sizes = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [16, 64]
want = os.environ.get("CLCOMPUTE_DEVICE", "").lower()
devices = [d for p in cl.get_platforms() for d in p.get_devices()]
pick = next((d for d in devices if want and (want in d.name.lower()
                                             or want in d.platform.name.lower())), devices[0])
ctx = cl.Context([pick])
queue = cl.CommandQueue(ctx)
rsum = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]",
                       arguments="__global const float *x")
print(f"pyopencl {cl.VERSION_TEXT} on {pick.name}, median of {repeats}\n")
print("| op | size | ms | GB/s |\n| --- | --- | --- | --- |")
rng = np.random.default_rng(3)
for m in sizes:
    n = m << 20
    x = cla.to_device(queue, rng.random(n, dtype=np.float32) - np.float32(0.5))
    for name, fn in (("sum f32 (ReductionKernel)", lambda: rsum(x).get()),
                     ("max f32 (array.max)", lambda: cla.max(x).get())):
        fn()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        t = sorted(times)[len(times) // 2]
        print(f"| {name} | {m}M | {t * 1e3:.3f} | {n * 4 / t * 1e-9:.1f} |")
