#!/usr/bin/env python3
"""clcompute cloud against Open3D's PointCloud.create_from_depth_image / create_from_rgbd_image
on a synthetic 640x480 depth frame: same point count and order, float32 agreement, same colours.
Exit 77 (skipped) when open3d or numpy is not installed.
    peer_cloud.py CLCOMPUTE_TOOL WORKDIR"""
import os
import subprocess
import sys

try:
    import numpy as np
    import open3d as o3d
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

tool, work = sys.argv[1], os.path.join(sys.argv[2], "open3d_cloud")
os.makedirs(work, exist_ok=True)
path = lambda name: os.path.join(work, name)
rng = np.random.default_rng(3)
H, W = 480, 640
depth = rng.integers(0, 6000, (H, W), dtype=np.uint16)
depth[rng.random((H, W)) < 0.1] = 0
depth[5, :] = 3000  # exactly the 3 m truncation edge: invalid in both
depth[6, :] = 700  # the float 0.69999999, below a 0.7 truncation as Open3D compares it (in double)
color = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
o3d.io.write_image(path("depth.png"), o3d.geometry.Image(depth))
o3d.io.write_image(path("color.png"), o3d.geometry.Image(color))
fx, fy, cx, cy = 525.0, 523.0, 319.5, 239.5
intr = o3d.camera.PinholeCameraIntrinsic(W, H, fx, fy, cx, cy)
K = ["--fx", str(fx), "--fy", str(fy), "--cx", str(cx), "--cy", str(cy)]
failures = compared = 0


def ours(out, *extra):
    subprocess.run([tool, "cloud", path("depth.png"), path(out), *K, *extra], check=True,
                   capture_output=True)
    return o3d.io.read_point_cloud(path(out), remove_nan_points=False,
                                   remove_infinite_points=False)


def compare(label, got, want, tol=1e-6):
    global failures, compared
    g, w = np.asarray(got), np.asarray(want)
    ok = g.shape == w.shape and np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
    diff = np.nanmax(np.abs(g - w)) if g.shape == w.shape else float("nan")
    print(f"{label}: ours {len(g)}, open3d {len(w)}, max |diff| {diff:.3g}: "
          f"{'ok' if ok else 'MISMATCH'}")
    failures += not ok
    compared += 1


for stride in (1, 2, 3):
    for trunc in (3.0, 0.7, 1000.0):
        ref = o3d.geometry.PointCloud.create_from_depth_image(
            o3d.geometry.Image(depth), intr, np.eye(4), depth_scale=1000.0, depth_trunc=trunc,
            stride=stride, project_valid_depth_only=True)
        got = ours("dense.ply", "--depth-trunc", str(trunc), "--stride", str(stride))
        compare(f"dense stride {stride} trunc {trunc}", got.points, ref.points)

ref = o3d.geometry.PointCloud.create_from_depth_image(
    o3d.geometry.Image(depth), intr, np.eye(4), 1000.0, 1000.0, 1, False)
compare("organized (NaN where invalid)", ours("organized.ply", "--organized").points, ref.points)

rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
    o3d.geometry.Image(color), o3d.geometry.Image(depth), 1000.0, 1000.0,
    convert_rgb_to_intensity=False)
ref = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intr)
got = ours("color.ply", "--color", path("color.png"), "--ascii")
compare("colour points (ascii)", got.points, ref.points)
compare("colours", got.colors, ref.colors, tol=0.5 / 255)
# PCD, binary and ascii, read back by Open3D's own reader.
for extra in ((), ("--ascii",)):
    got = ours("color.pcd", "--color", path("color.png"), *extra)
    compare(f"PCD{' ascii' if extra else ''} points", got.points, ref.points)
    compare(f"PCD{' ascii' if extra else ''} colours", got.colors, ref.colors, tol=0.5 / 255)
print(f"open3d comparison: {compared - failures} of {compared} agree")
sys.exit(1 if failures else 0)
