#!/usr/bin/env python3
"""clcompute median against OpenCV's cv2.medianBlur on 16-bit depth PNGs (with dropouts), an 8-bit
PNG and float32 .npy arrays, window 3 and 5, odd sizes: every pixel equal. Exit 77 (skipped) when
cv2 or numpy is not installed.
    peer_median.py CLCOMPUTE_TOOL WORKDIR"""
import os
import subprocess
import sys

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

tool, work = sys.argv[1], os.path.join(sys.argv[2], "peer_median")
os.makedirs(work, exist_ok=True)
path = lambda name: os.path.join(work, name)
rng = np.random.default_rng(5)
failures = 0
for (h, w) in [(480, 640), (37, 53), (1, 9), (5, 1)]:
    depth = (800 + rng.integers(0, 3000, (h, w))).astype(np.uint16)
    depth[rng.random((h, w)) < 0.15] = 0
    gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
    metres = rng.random((h, w), dtype=np.float32) * 4
    cv2.imwrite(path("depth.png"), depth)
    cv2.imwrite(path("gray.png"), gray)
    np.save(path("metres.npy"), metres)
    for k in (3, 5):
        for name, src, out, load in (
                ("depth.png", depth, "d.png", lambda p: cv2.imread(p, cv2.IMREAD_UNCHANGED)),
                ("gray.png", gray, "g.png", lambda p: cv2.imread(p, cv2.IMREAD_UNCHANGED)),
                ("metres.npy", metres, "m.npy", np.load)):
            run = subprocess.run([tool, "median", path(name), path(out), "--ksize", str(k)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name} {w}x{h} k={k}: exit {run.returncode}: {run.stderr}")
                failures += 1
                continue
            got, want = load(path(out)), cv2.medianBlur(src, k)
            if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
                bad = int(np.sum(got != want)) if got.shape == want.shape else -1
                print(f"FAIL {name} {w}x{h} k={k}: {got.dtype}{got.shape} vs OpenCV's "
                      f"{want.dtype}{want.shape}, {bad} pixels differ")
                failures += 1
print(f"OpenCV {cv2.__version__}: {failures} failures")
sys.exit(1 if failures else 0)
