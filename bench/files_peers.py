#!/usr/bin/env python3
"""Files end to end against the scripts users would write instead, in one run on one machine.

  python3 bench/files_peers.py BUILD_DIR [--photos 16] [--frames 64] [--workdir DIR]
                               [--only photos|depth]

1. N 4K JPEG photos -> gray PNG: a one-thread Python loop of OpenCV imread / cvtColor / imwrite
   against `clcompute gray DIR -o OUT`; pixels that differ and PNG bytes, side by side.
2. M 640x480 16-bit depth PNGs -> PLY: a Python loop of Open3D read_image /
   create_from_depth_image / write_point_cloud against `clcompute cloud DIR -o OUT`; the clouds
   compared point for point. Then PLY and PCD outputs read back by Open3D.

Needs cv2 and numpy; Open3D where importable (else that part is skipped and said). Prints
Markdown with the tool's --stats split of each run. Timings are the best of three runs."""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

try:
    import open3d as o3d
except ImportError:
    o3d = None

FX, FY, CX, CY = 525.0, 525.0, 319.5, 239.5


def best_of(n, fn):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def make_photos(folder, count):
    rng = np.random.default_rng(5)
    h, w = 2160, 3840
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in range(count):
        base = np.stack([128 + 90 * np.sin(x / (150 + 10 * i) + c) * np.cos(y / (97 + 7 * i) - c)
                         for c in (0.0, 1.1, 2.3)], -1)
        img = np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(os.path.join(folder, "p%02d.jpg" % i), img)


def make_depth(folder, count):
    rng = np.random.default_rng(1)
    dy, dx = np.mgrid[0:480, 0:640]
    for i in range(count):
        d = (800 + 3 * dx + 2 * dy + 50 * (i % 20)).astype(np.uint16)
        d[rng.random(d.shape) < 0.15] = 0
        cv2.imwrite(os.path.join(folder, "d%03d.png" % i), d)


def run_tool(args):
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("tool failed: %s\n%s" % (" ".join(args), out.stderr))
    return out.stderr


def stats_table(stderr):
    lines = [l for l in stderr.splitlines() if l[:1] and (l.startswith("stage") or
             l.split()[0] in ("read", "decode", "device", "encode", "write") or " items in " in l)]
    return "\n".join("    " + l for l in lines)


def photos(tool, work, count):
    src = os.path.join(work, "photos")
    os.makedirs(src, exist_ok=True)
    if len(glob.glob(src + "/*.jpg")) != count:
        make_photos(src, count)
    files = sorted(glob.glob(src + "/*.jpg"))
    cv_out, our_out = os.path.join(work, "cv_gray"), os.path.join(work, "our_gray")

    def opencv_loop():
        os.makedirs(cv_out, exist_ok=True)
        for f in files:
            g = cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2GRAY)
            cv2.imwrite(os.path.join(cv_out, os.path.basename(f)[:-4] + ".png"), g)

    stderr = []

    def ours():
        shutil.rmtree(our_out, ignore_errors=True)
        stderr.append(run_tool([tool, "gray", src, "-o", our_out, "--stats"]))

    t_cv = best_of(3, opencv_loop)
    t_us = best_of(3, ours)
    differ = 0
    for f in files:
        name = os.path.basename(f)[:-4] + ".png"
        a = cv2.imread(os.path.join(cv_out, name), cv2.IMREAD_UNCHANGED)
        b = cv2.imread(os.path.join(our_out, name), cv2.IMREAD_UNCHANGED)
        differ += int((a != b).sum())
    cv_bytes = sum(os.path.getsize(p) for p in glob.glob(cv_out + "/*.png"))
    our_bytes = sum(os.path.getsize(p) for p in glob.glob(our_out + "/*.png"))
    print("| %d 4K JPEG photos -> gray PNG | OpenCV %s loop | %.3f s | %.2f | | %d bytes |" %
          (count, cv2.__version__, t_cv, count / t_cv, cv_bytes))
    print("| | `clcompute gray DIR -o OUT` | %.3f s | %.2f | **%.2fx** | %d bytes, %d pixels differ |"
          % (t_us, count / t_us, t_cv / t_us, our_bytes, differ))
    return stderr[-1]


def depth(tool, work, count):
    src = os.path.join(work, "depth")
    os.makedirs(src, exist_ok=True)
    if len(glob.glob(src + "/*.png")) != count:
        make_depth(src, count)
    files = sorted(glob.glob(src + "/*.png"))
    with open(os.path.join(work, "k.txt"), "w") as k:
        k.write("%g %g %g %g 640 480\n" % (FX, FY, CX, CY))
    o3d_out, our_out = os.path.join(work, "o3d_ply"), os.path.join(work, "our_ply")
    stderr = []

    def ours():
        shutil.rmtree(our_out, ignore_errors=True)
        stderr.append(run_tool([tool, "cloud", src, "-o", our_out, "--intrinsics",
                                os.path.join(work, "k.txt"), "--stats"]))

    t_us = best_of(3, ours)
    if o3d is None:
        print("| %d 640x480 depth PNG -> PLY | Open3D | (not importable here) | | | |" % count)
        print("| | `clcompute cloud DIR -o OUT` | %.3f s | %.1f | | |" % (t_us, count / t_us))
        return stderr[-1]
    intr = o3d.camera.PinholeCameraIntrinsic(640, 480, FX, FY, CX, CY)

    def open3d_loop():
        os.makedirs(o3d_out, exist_ok=True)
        for f in files:
            pcd = o3d.geometry.PointCloud.create_from_depth_image(o3d.io.read_image(f), intr)
            o3d.io.write_point_cloud(os.path.join(o3d_out, os.path.basename(f)[:-4] + ".ply"), pcd)

    t_o3d = best_of(3, open3d_loop)
    worst = 0.0
    for f in files[:4]:
        name = os.path.basename(f)[:-4] + ".ply"
        a = np.asarray(o3d.io.read_point_cloud(os.path.join(o3d_out, name)).points)
        b = np.asarray(o3d.io.read_point_cloud(os.path.join(our_out, name)).points)
        if a.shape != b.shape:
            sys.exit("point counts differ for %s: %s vs %s" % (name, a.shape, b.shape))
        worst = max(worst, float(np.abs(a - b).max()))
    print("| %d 640x480 depth PNG -> PLY | Open3D %s loop | %.3f s | %.1f | | |" %
          (count, o3d.__version__, t_o3d, count / t_o3d))
    print("| | `clcompute cloud DIR -o OUT` | %.3f s | %.1f | **%.2fx** | same points, "
          "largest difference %.2g m |" % (t_us, count / t_us, t_o3d / t_us, worst))
    # PCD and PLY round-trip through Open3D's reader with equal points.
    one = files[0]
    for ext in ("ply", "pcd"):
        for ascii_ in ([], ["--ascii"]):
            path = os.path.join(work, "rt." + ext)
            run_tool([tool, "cloud", one, path, "--fx", str(FX), "--fy", str(FY), "--cx", str(CX),
                      "--cy", str(CY)] + ascii_)
            back = np.asarray(o3d.io.read_point_cloud(path).points)
            ref = np.asarray(o3d.io.read_point_cloud(os.path.join(our_out, os.path.basename(one)[:-4]
                                                                  + ".ply")).points)
            # Text holds each float32 exactly ("%.9g"), which Open3D parses as a double.
            if back.shape != ref.shape or not np.array_equal(back.astype(np.float32),
                                                             ref.astype(np.float32)):
                sys.exit("Open3D reads %s%s differently" % (ext, " ascii" if ascii_ else ""))
    print("\nPLY and PCD (binary and ASCII) written by the tool read back through Open3D "
          "%s with equal points." % o3d.__version__)
    return stderr[-1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--photos", type=int, default=16)
    p.add_argument("--frames", type=int, default=64)
    p.add_argument("--workdir")
    p.add_argument("--only", choices=("photos", "depth"),
                   help="one part (e.g. photos with the system's OpenCV, depth where Open3D is)")
    a = p.parse_args()
    tool = os.path.join(a.build, "tools", "clcompute")
    work = a.workdir or tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    picked = subprocess.run([tool, "devices"], capture_output=True, text=True).stdout
    print("machine: %d cores; %s" % (os.cpu_count(), picked.strip().splitlines()[-1]))
    print("\n| work | who | time (best of 3) | items/s | speed-up | output |")
    print("| --- | --- | --- | --- | --- | --- |")
    if a.only != "depth":
        s1 = photos(tool, work, a.photos)
    if a.only != "photos":
        s2 = depth(tool, work, a.frames)
    if a.only != "depth":
        print("\nWhere the tool's time went (`--stats` of its last run), photos:\n\n" +
              stats_table(s1))
    if a.only != "photos":
        print("\nDepth frames:\n\n" + stats_table(s2))


if __name__ == "__main__":
    main()
