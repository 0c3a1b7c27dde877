#!/usr/bin/env python3
"""clcompute from Python against the peers on the same arrays, in one run: gray vs
cv2.cvtColor, depth_to_points vs Open3D's create_from_depth_image (legacy), sum and argmax vs
numpy and pyopencl (gray and sum also from empty_pinned arrays), the binding's own cost per call
over the C call (clc_bench_percall), and four threads sharing one context. Peers that are not
installed are left out with a note.

    python_peers.py [--percall BUILD/bench/clc_bench_percall] [--repeats N]

Run it with the interpreter that has clcompute installed (build/python/bin/python after
./setup.sh) and whichever peers you want in the table."""
import argparse
import subprocess
import threading
import time

import numpy as np

import clcompute

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--percall", help="path of clc_bench_percall, for the C call's own cost")
parser.add_argument("--repeats", type=int, default=31)
args = parser.parse_args()
rng = np.random.default_rng(7)


def median_ms(fn, repeats=args.repeats, clock=time.perf_counter):
    fn()
    times = []
    for _ in range(repeats):
        t = clock()
        fn()
        times.append(clock() - t)
    return sorted(times)[len(times) // 2] * 1e3


def peer(name, *parts):
    """The module, or None with a note when it (or one of the submodules the comparison needs,
    such as pyopencl.reduction, which wants Mako) cannot be imported."""
    try:
        module = __import__(name)
        for part in parts:
            __import__(f"{name}.{part}")
        return module
    except ImportError as e:
        print(f"({name} left out: {e})")
        return None


cv2, o3d, cl = peer("cv2"), peer("open3d"), peer("pyopencl", "array", "reduction")

# The C call's own cost, measured before this process opens a device: on the H200 host a child
# of a process that has opened the NVIDIA GPU does not see it. Five runs, the best kept.
c_best = {}
for _ in range(5 if args.percall else 0):
    out = subprocess.run([args.percall, "5000"], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        name, us = line.split()[0], float(line.split()[1])
        c_best[name] = min(c_best.get(name, float("inf")), us)

ctx = clcompute.default_context()
d = ctx.device()
print(f"clcompute {clcompute.__version__} on {d['name']} ({d['type']}), numpy {np.__version__}"
      + (f", OpenCV {cv2.__version__}" if cv2 else "") + (f", Open3D {o3d.__version__}" if o3d else "")
      + f"; median of {args.repeats} runs\n")

# The binding's cost per call, over the C call's, in the calling thread's CPU time (the waits
# for the device's threads, which wander by tens of microseconds on a shared machine, are not the
# binding's): five rounds of the Python loops, each keeping its best, against the C runs above.
print("| call (calling thread's CPU) | clcompute (Python) us | extension alone us | C call us | "
      "Python overhead us |")
print("| --- | --- | --- | --- | --- |")
one = np.ones(1, np.float32)
px = np.ones((1, 1, 3), np.uint8)
gout = np.empty((1, 1), np.uint8)
calls = {"sum_1": (lambda: clcompute.sum(one), lambda: ctx._reduce(1, 1, one, 1)),
         "gray_1px": (lambda: clcompute.gray(px, out=gout), lambda: ctx._gray(px, 1, gout, 5, 0))}
best = {name: [float("inf"), float("inf"), c_best.get(name, float("inf"))] for name in calls}
for _ in range(5):
    for name, (py_fn, ext_fn) in calls.items():
        best[name][0] = min(best[name][0], median_ms(py_fn, 5000, time.thread_time) * 1e3)
        best[name][1] = min(best[name][1], median_ms(ext_fn, 5000, time.thread_time) * 1e3)
for name, (py, ext, c) in best.items():
    print(f"| {name} | {py:.1f} | {ext:.1f} | {c:.1f} | {py - c:.1f} |" if c < float("inf") else
          f"| {name} | {py:.1f} | {ext:.1f} | (no --percall) | |")

# The Python layer alone (argument checks, numpy types, the default context), exactly: the same
# calls with the extension's method replaced by one that returns at once.
stub = clcompute.Context()
stub._reduce = lambda *a: (0.0, 0, 0, 0)
stub._gray = lambda *a: None
layer = {"sum_1": (lambda: stub.sum(one), lambda: stub._reduce(1, 1, one, 1)),
         "gray_1px": (lambda: stub.gray(px, out=gout), lambda: stub._gray(px, 1, gout, 5, 0))}
for name, (wrapped, bare) in layer.items():
    cost = min(median_ms(wrapped, 20000) - median_ms(bare, 20000) for _ in range(3)) * 1e3
    print(f"\n{name}: the Python layer costs {cost:.2f} us a call", end="")
print()

print("\n| work | size | clcompute ms | peer | peer ms | clcompute vs peer |")
print("| --- | --- | --- | --- | --- | --- |")


def row(work, size, ours, name, theirs):
    print(f"| {work} | {size} | {ours:.3f} | {name} | " +
          (f"{theirs:.3f} | {theirs / ours:.2f}x |" if theirs else "- | |"))


for w, h in [(640, 480), (1920, 1080), (3840, 2160)]:
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    out = np.empty((h, w), np.uint8)
    ours = median_ms(lambda: clcompute.gray(img, out=out))
    theirs = median_ms(lambda: cv2.cvtColor(img, cv2.COLOR_RGB2GRAY, dst=out)) if cv2 else None
    row("gray", f"{w}x{h}", ours, "cv2.cvtColor", theirs)
    pinned, pinned_out = clcompute.empty_pinned(img.shape, np.uint8), clcompute.empty_pinned(
        out.shape, np.uint8)
    pinned[...] = img
    row("gray, input and output in empty_pinned memory", f"{w}x{h}",
        median_ms(lambda: clcompute.gray(pinned, out=pinned_out)), "cv2.cvtColor", theirs)
    del pinned, pinned_out

depth = rng.integers(300, 5000, (480, 640), dtype=np.uint16)
depth[rng.random(depth.shape) < 0.15] = 0
k = (525.0, 525.0, 319.5, 239.5)
ours = median_ms(lambda: clcompute.depth_to_points(depth, *k, depth_trunc=3.0))
theirs = None
if o3d:
    intr = o3d.camera.PinholeCameraIntrinsic(640, 480, *k)
    image = o3d.geometry.Image(depth)
    theirs = median_ms(lambda: o3d.geometry.PointCloud.create_from_depth_image(
        image, intr, depth_scale=1000.0, depth_trunc=3.0))
row("depth_to_points", "640x480", ours, "Open3D legacy", theirs)


x = (rng.random(64 << 20, dtype=np.float32) - np.float32(0.5))
for op in ("sum", "argmax"):
    ours = median_ms(lambda: getattr(clcompute, op)(x))
    row(op, "64Mi f32", ours, "numpy", median_ms(lambda: getattr(x, op)()))
pinned = clcompute.empty_pinned(x.shape, x.dtype)
pinned[...] = x
row("sum, the array in empty_pinned memory", "64Mi f32", median_ms(lambda: clcompute.sum(pinned)),
    "numpy", median_ms(lambda: x.sum()))
del pinned


def split_sum(a, parts):
    """numpy's sum of `parts` slices on as many threads (numpy releases the GIL while it sums):
    what the machine's memory gives that many cores, the bound for a CPU device."""
    out = [None] * parts
    step = -(-a.size // parts)

    def work(i):
        out[i] = a[i * step:(i + 1) * step].sum()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(parts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


device = clcompute.default_context().device()
cores = device["compute_units"]
if device["type"].lower() == "cpu" and cores > 1:
    row("sum", "64Mi f32", median_ms(lambda: clcompute.sum(x)),
        f"numpy on {cores} threads (a slice each: the memory bound)",
        median_ms(lambda: split_sum(x, cores)))
if cl:
    import pyopencl.array as cla
    import pyopencl.reduction as clr
    cl_ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(cl_ctx)
    total = clr.ReductionKernel(cl_ctx, np.float32, neutral="0", reduce_expr="a+b",
                                map_expr="x[i]", arguments="__global const float *x")
    # As a numpy user would: the array from host memory each time, as clcompute.sum takes it.
    theirs = median_ms(lambda: total(cla.to_device(queue, x)).get())
    row("sum", "64Mi f32", median_ms(lambda: clcompute.sum(x)), "pyopencl ReductionKernel",
        theirs)

# Four Python threads sharing the context.
def frames_per_second(imgs, threads, n=24):
    def work(i):
        for _ in range(n // threads):
            clcompute.gray(imgs[i])

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    t = time.perf_counter()
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    return n / (time.perf_counter() - t)


print()
for w, h in [(1920, 1080), (3840, 2160)]:
    imgs = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(4)]
    frames_per_second(imgs, 4, 8)  # warm-up: the lanes are made on first need
    one_thread = max(frames_per_second(imgs, 1) for _ in range(3))
    four = max(frames_per_second(imgs, 4) for _ in range(3))
    print(f"gray {w}x{h} from Python threads on one context: {one_thread:.0f} frames/s with 1, "
          f"{four:.0f} with 4 ({four / one_thread:.2f}x; best of 3)")

print()
# gray_many of 16 4K images into fresh arrays and into one reused `out`.
images = [rng.integers(0, 256, (2160, 3840, 3), dtype=np.uint8) for _ in range(4)] * 4
into = np.empty((16, 2160, 3840), np.uint8)
for name, out in (("new arrays", None), ("out=", into)):
    ms = median_ms(lambda: clcompute.gray_many(images, out=out, devices=f"{ctx.device()['index']}"),
                   max(5, args.repeats // 4))
    print(f"gray_many, 16 3840x2160, {name}: {ms:.2f} ms, {16e3 / ms:,.0f} frames/s")
del images, into

# Many frames at once: a list (a batch item a frame) against the same frames as one (N, H, W)
# array (groups of frames, a library call a group), on the default context's device alone; each
# into fresh arrays and into one reused `out`.
stack = np.stack([np.roll(depth, i, axis=1) for i in range(64)])
frames = list(stack)
device = f"{ctx.device()['index']}"
into = np.empty((64, 480 * 640, 3), np.float32)  # out=: the same memory every call
for name, arg, out in (("a list of 64 arrays", frames, None), ("one (64, 480, 640) array", stack,
                       None), ("a list, out=", frames, into), ("the array, out=", stack, into)):
    ms = median_ms(lambda: clcompute.depth_to_points_many(arg, *k, depth_trunc=3.0, out=out,
                                                          devices=device), max(5, args.repeats // 4))
    print(f"depth_to_points_many, {name}: {ms:.2f} ms, {64e3 / ms:,.0f} frames/s")
