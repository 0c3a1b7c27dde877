#!/usr/bin/env python3
"""OpenCV's medianBlur (CPU, its default threads) on the cases of `clcompute bench`'s median rows
(depth-like uint16 with 10% zeros; uint8; float32), for a side-by-side comparison in the same run.
Prints a Markdown table; exits 0 with a note when cv2 is absent.
    opencv_median.py [REPEATS]"""
import sys
import time

try:
    import cv2
    import numpy as np
except ImportError as e:  # optional peer
    print(f"opencv median peer skipped: {e}")
    sys.exit(0)

CASES = [(640, 480, np.uint16, 5), (1280, 720, np.uint16, 5), (1920, 1080, np.uint16, 3),
         (1920, 1080, np.uint16, 5), (3840, 2160, np.uint16, 5), (1920, 1080, np.uint8, 5),
         (1920, 1080, np.float32, 5)]
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads, medianBlur, median of {repeats}\n")
print("| variant | size | ms | GB/s (read + write) |\n| --- | --- | --- | --- |")
rng = np.random.default_rng(1)
for w, h, dtype, k in CASES:
    ramp = 500 + np.arange(w)[None, :] + rng.integers(0, 16, (h, w))
    img = (ramp * (0.001 if dtype == np.float32 else 1)).astype(dtype)
    img[rng.random((h, w)) < 0.1] = 0
    cv2.medianBlur(img, k)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        cv2.medianBlur(img, k)
        times.append(time.perf_counter() - t)
    m = sorted(times)[len(times) // 2]
    name = {np.uint16: "u16", np.uint8: "u8", np.float32: "f32"}[dtype]
    print(f"| {k}x{k} {name} | {w}x{h} | {m * 1e3:.3f} | {2 * img.nbytes / m * 1e-9:.1f} |")
