#!/usr/bin/env python3
"""Open3D's create_from_depth_image (legacy and tensor API, CPU) on the frames of
`clcompute bench` (u16, 85% valid, depth_trunc 4 m), for a side-by-side comparison. Prints a
Markdown table; exits 0 with a note when open3d is absent."""
import sys
import time

try:
    import numpy as np
    import open3d as o3d
except ImportError as e:  # optional peer
    print(f"open3d peer skipped: {e}")
    sys.exit(0)

SIZES = [(640, 480), (1280, 720), (1920, 1080), (7680, 4320)]
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10


def frame(w, h):
    """The same synthetic frame as bench/cloud.c: a ramp with 15% holes."""
    u = np.arange(w, dtype=np.uint32)[None, :]
    v = np.arange(h, dtype=np.uint32)[:, None]
    depth = (800 + (u * 7 + v * 3) % 4000).astype(np.uint16)
    seed = np.uint32(7)
    holes = np.empty(w * h, dtype=np.uint32)
    for i in range(w * h):  # the bench's LCG, so the holes are identical
        seed = np.uint32(seed * np.uint32(1664525) + np.uint32(1013904223))
        holes[i] = seed >> np.uint32(24)
    depth.reshape(-1)[holes < 38] = 0
    return depth


def median_ms(fn):
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2] * 1e3


print(f"Open3D {o3d.__version__}, dense cloud, median of {repeats}\n")
print("| size | points | legacy ms | tensor ms |\n| --- | --- | --- | --- |")
np.seterr(over="ignore")
for w, h in SIZES:
    depth = frame(w, h)
    intr = o3d.camera.PinholeCameraIntrinsic(w, h, 525.0, 525.0, w / 2 - 0.5, h / 2 - 0.5)
    img = o3d.geometry.Image(depth)
    legacy = lambda: o3d.geometry.PointCloud.create_from_depth_image(
        img, intr, np.eye(4), depth_scale=1000.0, depth_trunc=4.0)
    n = len(legacy().points)
    timg = o3d.t.geometry.Image(o3d.core.Tensor(depth))
    tk = o3d.core.Tensor(intr.intrinsic_matrix)
    tensor = lambda: o3d.t.geometry.PointCloud.create_from_depth_image(
        timg, tk, depth_scale=1000.0, depth_max=4.0)
    print(f"| {w}x{h} | {n} | {median_ms(legacy):.3f} | {median_ms(tensor):.3f} |")
