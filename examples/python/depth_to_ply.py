#!/usr/bin/env python3
"""A 16-bit depth image to a PLY point cloud: median filter for the speckle, then points with
Open3D's semantics.

The depth is a 16-bit one-channel PNG in millimetres, as depth cameras write them (read with
OpenCV or Open3D: pip install opencv-python-headless), or a .npy uint16 array in millimetres
(np.save), which needs neither. The intrinsics are in pixels; points are in metres, and depths
beyond --depth-trunc metres are dropped. With Open3D installed the cloud is written by it (and
shown with --show); without, the PLY (binary, x y z float32) is written by hand. The PLY appears
whole or not at all.

    python depth_to_ply.py depth.png cloud.ply --fx 525 --fy 525 --cx 319.5 --cy 239.5 [--show]"""
import argparse
import os
import sys
import tempfile

import numpy as np

import clcompute

NAME = os.path.basename(sys.argv[0])
p = argparse.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("depth", help="16-bit depth PNG, or .npy uint16 array (millimetres)")
p.add_argument("ply", help="the point cloud to write")
for name in ("fx", "fy", "cx", "cy"):
    p.add_argument(f"--{name}", type=float, required=True, help="camera intrinsic, pixels")
p.add_argument("--depth-trunc", type=float, default=3.0, help="farthest depth kept, metres "
               "(default 3)")
p.add_argument("--device", help="device selector (clcompute devices --help); default: "
               "CLCOMPUTE_DEVICE, else the GPU with the most compute units, else the CPU")
p.add_argument("--show", action="store_true", help="show the cloud (needs Open3D)")
a = p.parse_args()


def fail(message):
    raise SystemExit(f"{NAME}: {message}")


def output_target(path, source):
    """Where `path` writes: through a link, never over a folder, FIFO or device (the rename that
    makes the write whole would put a plain file in its place), nor over `source`, the input,
    under any of its names (./x, a link, a hard link)."""
    if path.endswith(os.sep) or (os.altsep and path.endswith(os.altsep)):
        fail(f"cannot write {path}: a folder's name, not a file's")
    target = os.path.realpath(path)
    if os.path.islink(path) and not os.path.exists(target):
        fail(f"cannot write {path}: a symbolic link that leads to no file")
    if os.path.exists(target) and not os.path.isfile(target):
        fail(f"cannot write {path}: it exists and is not a regular file")
    if os.path.exists(target) and os.path.exists(source) and os.path.samefile(source, target):
        fail(f"cannot write {path}: it is the input itself, which would be lost")
    if not os.path.isdir(os.path.dirname(target)):  # found now, not after the conversion
        fail(f"cannot write {path}: {os.path.dirname(path) or '.'} is not a folder")
    return target


target = output_target(a.ply, a.depth)
if os.path.splitext(a.ply)[1].lower() != ".ply":
    fail(f"cannot write {a.ply}: this example writes PLY files only (name it .ply)")


if not os.path.isfile(a.depth):
    fail(f"cannot read {a.depth}: no such file")
if a.depth.lower().endswith(".npy"):
    try:
        with open(a.depth, "rb") as f:
            if f.read(6) != b"\x93NUMPY":  # else np.load takes it for a pickle
                fail(f"{a.depth} is not a .npy file (np.save writes them)")
        depth = np.load(a.depth, allow_pickle=False)
    except (OSError, ValueError) as e:
        fail(f"cannot read {a.depth} as a .npy array: {e}")
else:
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")  # its own warnings beside ours: only ours
    try:
        import cv2
        depth = cv2.imread(a.depth, cv2.IMREAD_UNCHANGED)
    except ImportError:
        try:
            import open3d as o3d
        except ImportError:
            fail("reading an image takes OpenCV or Open3D (pip install opencv-python-headless); "
                 "or give the depth as a .npy")
        depth = np.asarray(o3d.io.read_image(a.depth))
    if depth is None or depth.size == 0:
        fail(f"cannot read {a.depth} as an image")
if not isinstance(depth, np.ndarray) or depth.dtype != np.uint16 or depth.ndim != 2:
    fail(f"{a.depth} is not a 16-bit one-channel image")
if depth.size == 0:
    fail(f"{a.depth} is empty")

try:
    ctx = clcompute.Context(a.device)
    clean = ctx.median(depth, 5)  # cv2.medianBlur(depth, 5)
    points = ctx.depth_to_points(clean, a.fx, a.fy, a.cx, a.cy, depth_trunc=a.depth_trunc)
except (clcompute.Error, ValueError) as e:  # no such device, a bad intrinsic: one line
    fail(e)
print(f"{len(points)} points from {depth.shape[1]} x {depth.shape[0]} pixels")

try:
    import open3d as o3d
except ImportError:
    o3d = None
# Written beside the target, then renamed over it: a failed write leaves no partial file and an
# existing one as it was.
folder = os.path.dirname(target)
try:
    fd, tmp = tempfile.mkstemp(suffix=".ply", dir=folder)
except OSError as e:
    fail(f"cannot write {a.ply}: {e.strerror}")
try:  # the temporary file goes whatever ends the write, Ctrl-C included
    with os.fdopen(fd, "wb") as f:
        if o3d is None:
            f.write(f"ply\nformat binary_little_endian 1.0\nelement vertex {len(points)}\n"
                    "property float x\nproperty float y\nproperty float z\nend_header\n".encode())
            f.write(points.astype("<f4").tobytes())
    if o3d is not None:
        cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points.astype(np.float64)))
        if not o3d.io.write_point_cloud(tmp, cloud):
            raise OSError(0, "Open3D could not write it")
    # An existing file's mode, else what open() would have given it (not mkstemp's 0600).
    if os.path.exists(target):
        os.chmod(tmp, os.stat(target).st_mode & 0o7777)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)
except OSError as e:
    fail(f"cannot write {a.ply}: {e.strerror or e}")
finally:
    if os.path.exists(tmp):
        os.unlink(tmp)
print(f"wrote {a.ply}")
if a.show:
    if o3d is None:
        print(f"{NAME}: --show needs Open3D (pip install open3d); the PLY was written",
              file=sys.stderr)
    else:
        o3d.visualization.draw_geometries([cloud])
