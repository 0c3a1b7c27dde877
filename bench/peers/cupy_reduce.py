#!/usr/bin/env python3
"""CuPy's sum, max and argmax (CUB underneath) on device-resident float32 arrays of the sizes of
`clcompute bench`, timed with CUDA events as the bench times its device rows, for a side-by-side
comparison of the "device ms" column in the same run. Prints a Markdown table; exits 0 when CuPy
or a CUDA device is absent."""
import sys

try:
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # optional peer: no CuPy, no driver or no device
    print(f"cupy peer skipped: {e}")
    sys.exit(0)

# Arguments: [REPEATS [SIZES]], as every peer (bench/reproduce.sh passes REPEATS); SIZES in Mi
# elements, comma-separated.
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
sizes = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 16, 64, 256]
name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
print(f"CuPy {cp.__version__} on {name}, device time from CUDA events, median of {repeats}\n")
# "ms" opens its events before the Python call, so it holds CuPy's launch time as well as CUB's
# kernels; "back-to-back" is the time a call of 50 issued in a row, where the host's launches run
# ahead of the device: CUB's kernels and the gap between them, the stricter figure to compare a
# one-launch kernel's own time with.
print("| op | size | ms | GB/s | back-to-back ms | GB/s |\n| --- | --- | --- | --- | --- | --- |")
rng = cp.random.default_rng(3)
start, stop = cp.cuda.Event(), cp.cuda.Event()
for m in sizes:
    n = m << 20
    x = rng.random(n, dtype=cp.float32) - cp.float32(0.5)
    for label, fn in (("sum f32", cp.sum), ("max f32", cp.max), ("argmax f32", cp.argmax)):
        fn(x)  # warm-up: kernel compilation and CUB's temporary storage
        times = []
        for _ in range(repeats):
            start.record()
            fn(x)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
        t = sorted(times)[len(times) // 2]
        rows = []
        for _ in range(3):
            start.record()
            for _ in range(50):
                fn(x)
            stop.record()
            stop.synchronize()
            rows.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3 / 50)
        b = sorted(rows)[1]
        print(
            f"| {label} | {m}M | {t * 1e3:.3f} | {n * 4 / t * 1e-9:.1f} | {b * 1e3:.3f} "
            f"| {n * 4 / b * 1e-9:.1f} |"
        )
    del x
