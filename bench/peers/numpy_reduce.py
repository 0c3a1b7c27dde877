#!/usr/bin/env python3
"""numpy's sum, max and argmax on the arrays of `clcompute bench` (float32 in [-0.5, 0.5)), for a
side-by-side comparison in the same run. Prints a Markdown table; exits 0 when numpy is absent.
OPENBLAS_* variables do not matter here: these reductions do not use BLAS."""
import sys
import time

try:
    import numpy as np
except ImportError as e:  # optional peer
    print(f"numpy peer skipped: {e}")
    sys.exit(0)

# Arguments: [REPEATS [SIZES]], as every peer (bench/reproduce.sh passes REPEATS); SIZES in Mi
# elements, comma-separated.
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
sizes = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 16, 64, 256]
print(f"numpy {np.__version__}, median of {repeats}\n")
print("| op | size | ms | GB/s |\n| --- | --- | --- | --- |")
rng = np.random.default_rng(3)
for m in sizes:
    n = m << 20
    x = (rng.random(n, dtype=np.float32) - np.float32(0.5))
    for name, fn in (("sum f32", np.sum), ("max f32", np.max), ("argmax f32", np.argmax)):
        fn(x)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - t)
        t = sorted(times)[len(times) // 2]
        print(f"| {name} | {m}M | {t * 1e3:.3f} | {n * 4 / t * 1e-9:.1f} |")
    del x
