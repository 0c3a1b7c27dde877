#!/usr/bin/env python3
"""OpenCV's cvtColor (CPU, its default threads) on the sizes of `clcompute bench`, for a side-by-side
comparison in the same run. Prints a Markdown table; exits 0 with a note when cv2 is absent."""
import sys
import time

try:
    import cv2
    import numpy as np
except ImportError as e:  # optional peer
    print(f"opencv peer skipped: {e}")
    sys.exit(0)

SIZES = [(640, 480), (1920, 1080), (3840, 2160), (7680, 4320)]
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads, cvtColor RGB2GRAY, "
      f"median of {repeats}\n")
print("| size | ms | GB/s (4 B/px) |\n| --- | --- | --- |")
rng = np.random.default_rng(1)
for w, h in SIZES:
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    out = np.empty((h, w), np.uint8)
    cv2.cvtColor(img, cv2.COLOR_RGB2GRAY, dst=out)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        cv2.cvtColor(img, cv2.COLOR_RGB2GRAY, dst=out)
        times.append(time.perf_counter() - t)
    m = sorted(times)[len(times) // 2]
    print(f"| {w}x{h} | {m * 1e3:.3f} | {w * h * 4 / m * 1e-9:.1f} |")
