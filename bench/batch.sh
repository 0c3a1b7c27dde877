#!/usr/bin/env bash
# Batch throughput (issue 8): 200 4K photos -> gray PNG and 500 640x480 depth frames -> PLY,
# through `clcompute gray/cloud -o`, timed three ways:
#   blocking   one device, one worker: one blocking call at a time (read, convert, write)
#   batch      one device, two workers: one item's file and transfer work beside another's kernels
#   cores      one device, the tool's default: a worker a host core (decoding and encoding files
#              in parallel)
#   devices    every device of DEVICES (default "all") at once, a worker a host core each
# then the same on frames already in host memory (build/bench/clc_bench_batch), where only the
# library's work is timed.
#   bench/batch.sh BUILD_DIR [DEVICE] [DEVICES]     (DEVICE: default CLCOMPUTE_DEVICE or default)
# Frames: 20 distinct JPEGs and 16-bit PNGs made with OpenCV when python3-opencv is present (else
# PPM/PGM), each linked 10 or 25 times. Prints a Markdown table of frames per second.
set -euo pipefail
build=${1:?usage: bench/batch.sh BUILD_DIR [DEVICE] [DEVICES]}
device=${2:-${CLCOMPUTE_DEVICE:-default}}
devices=${3:-all}
tool=$build/tools/clcompute
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/photos" "$work/depth" "$work/out"

if "$python" -c "import cv2, numpy" 2>/dev/null; then
    "$python" - "$work" <<'PY'
import sys, cv2, numpy as np
work = sys.argv[1]
rng = np.random.default_rng(1)
y, x = np.mgrid[0:2160, 0:3840]
for i in range(20):
    img = np.stack([(x * (i + 1)) % 256, (y * 3) % 256, (x + y + 40 * i) % 256], axis=2)
    img = (img + rng.integers(0, 16, img.shape)).astype(np.uint8)
    cv2.imwrite(f"{work}/photos/u{i}.jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
dy, dx = np.mgrid[0:480, 0:640]
for i in range(20):
    d = (800 + 3 * dx + 2 * dy + 50 * i).astype(np.uint16)
    d[rng.random(d.shape) < 0.15] = 0  # 15% holes, as the kernel benchmarks
    cv2.imwrite(f"{work}/depth/u{i}.png", d)
PY
    photo_ext=jpg depth_ext=png kind="JPEG photos, 16-bit PNG depth (OpenCV)"
else
    { printf 'P6\n3840 2160\n255\n'; head -c 24883200 /dev/zero | tr '\000' '\141'; } > "$work/photos/u0.ppm"
    { printf 'P5\n640 480\n65535\n'; head -c 614400 /dev/zero | tr '\000' '\003'; } > "$work/depth/u0.pgm"
    for i in $(seq 1 19); do
        ln -s u0.ppm "$work/photos/u$i.ppm"
        ln -s u0.pgm "$work/depth/u$i.pgm"
    done
    photo_ext=ppm depth_ext=pgm kind="PPM photos, 16-bit PGM depth (no OpenCV)"
fi
mkdir -p "$work/photos200" "$work/depth500"
for i in $(seq 0 199); do ln -s "$work/photos/u$((i % 20)).$photo_ext" "$work/photos200/p$i.$photo_ext"; done
for i in $(seq 0 499); do ln -s "$work/depth/u$((i % 20)).$depth_ext" "$work/depth500/d$i.$depth_ext"; done

# run FRAMES ARGS...: prints frames per second of one batch (files written to a fresh folder).
run() {
    local frames=$1
    shift
    rm -rf "$work/out" && mkdir -p "$work/out"
    local t0 t1
    t0=$(date +%s.%N)
    "$tool" "$@" -o "$work/out" --quiet
    t1=$(date +%s.%N)
    awk -v n="$frames" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / (b - a) }'
}

k="--fx 525 --fy 525 --cx 319.5 --cy 239.5 --depth-trunc 4"
"$tool" devices | sed -n 's/^  *\(\[.*\)/\1/p' | head -8
echo "frames: $kind; device $device; devices \"$devices\"; $(nproc) host cores"
echo
cores=$(nproc)
echo "| work | blocking (1 worker) | batch (2 workers) | batch ($cores workers, the default) | all devices | 2 workers vs blocking |"
echo "| --- | --- | --- | --- | --- | --- |"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
g1=$(run 200 gray "$work/photos200" --device "$device" --workers 1)
g2=$(run 200 gray "$work/photos200" --device "$device" --workers 2)
gn=$(run 200 gray "$work/photos200" --device "$device")
g3=$(run 200 gray "$work/photos200" --device "$devices")
echo "| 200 4K photos -> gray PNG, frames/s | $g1 | $g2 | $gn | $g3 | $(ratio "$g2" "$g1") |"
c1=$(run 500 cloud "$work/depth500" $k --device "$device" --workers 1)
c2=$(run 500 cloud "$work/depth500" $k --device "$device" --workers 2)
cn=$(run 500 cloud "$work/depth500" $k --device "$device")
c3=$(run 500 cloud "$work/depth500" $k --device "$devices")
echo "| 500 640x480 depth -> PLY, frames/s | $c1 | $c2 | $cn | $c3 | $(ratio "$c2" "$c1") |"
echo
"$build/bench/clc_bench_batch" --device "$device" --devices "$devices"
