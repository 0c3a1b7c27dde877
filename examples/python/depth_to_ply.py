#!/usr/bin/env python3
"""A 16-bit depth PNG (millimetres, as depth cameras write them) to a point cloud: median filter
for the speckle, then points with Open3D's semantics, written as PLY. With Open3D installed the
cloud is also handed to it (and shown with --show); without, the PLY is written by hand. The PNG
is read with OpenCV or Open3D (pip install opencv-python-headless); a .npy depth array (uint16
millimetres, np.save) needs neither.

    python depth_to_ply.py depth.png cloud.ply --fx 525 --fy 525 --cx 319.5 --cy 239.5 [--show]"""
import argparse

import numpy as np

import clcompute

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("depth"), p.add_argument("ply")
for name in ("fx", "fy", "cx", "cy"):
    p.add_argument(f"--{name}", type=float, required=True)
p.add_argument("--depth-trunc", type=float, default=3.0)
p.add_argument("--show", action="store_true")
a = p.parse_args()

if a.depth.lower().endswith(".npy"):
    depth = np.load(a.depth)
else:
    try:
        import cv2
        depth = cv2.imread(a.depth, cv2.IMREAD_UNCHANGED)
    except ImportError:
        try:
            import open3d as o3d
        except ImportError:
            raise SystemExit("reading a PNG takes OpenCV or Open3D (pip install "
                             "opencv-python-headless); or give the depth as a .npy") from None
        depth = np.asarray(o3d.io.read_image(a.depth))
if depth is None or depth.dtype != np.uint16 or depth.ndim != 2:
    raise SystemExit(f"{a.depth} is not a 16-bit one-channel image")

try:  # on the default device (CLCOMPUTE_DEVICE, else the largest GPU, else the CPU)
    clean = clcompute.median(depth, 5)  # cv2.medianBlur(depth, 5)
    points = clcompute.depth_to_points(clean, a.fx, a.fy, a.cx, a.cy, depth_trunc=a.depth_trunc)
except clcompute.Error as e:  # no such device, or the device failed: one line, not a traceback
    raise SystemExit(f"depth_to_ply.py: {e}") from None
print(f"{len(points)} points from {depth.shape[1]} x {depth.shape[0]} pixels")
try:
    import open3d as o3d
    cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points.astype(np.float64)))
    o3d.io.write_point_cloud(a.ply, cloud)
    if a.show:
        o3d.visualization.draw_geometries([cloud])
except ImportError:
    with open(a.ply, "wb") as f:
        f.write(f"ply\nformat binary_little_endian 1.0\nelement vertex {len(points)}\n"
                "property float x\nproperty float y\nproperty float z\nend_header\n".encode())
        f.write(points.astype("<f4").tobytes())
print(f"wrote {a.ply}")
