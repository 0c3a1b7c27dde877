#!/usr/bin/env bash
# Every figure of docs/performance.md for one device, in one command:
#   bench/reproduce.sh BUILD_DIR OUT_DIR [REPEATS]        (device from CLCOMPUTE_DEVICE)
# writes OUT_DIR/bench.json (`clcompute bench --json`), bench.md and bandwidth.png (its tables and
# plot, bench/report.py), peers.md (every bench/peers/*.py: OpenCV, Open3D, numpy and pyopencl
# on the same sizes, each skipped with a note when its module is absent) and startup.txt (first-kernel latency of fresh
# processes).
# PYTHON picks the interpreter that has the peers' modules (default: python3).
set -euo pipefail
build=${1:?usage: bench/reproduce.sh BUILD_DIR OUT_DIR [REPEATS]}
out=${2:?usage: bench/reproduce.sh BUILD_DIR OUT_DIR [REPEATS]}
repeats=${3:-11}
python=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$build/tools/clcompute" bench --json --repeats "$repeats" > "$out/bench.json"
# Every peer takes REPEATS as its first argument; a new one needs no line here.
for peer in "$here"/peers/*.py; do
    "$python" "$peer" "$repeats"
    echo
done > "$out/peers.md"
"$here/startup.sh" "$build" 5 > "$out/startup.txt"
"$python" "$here/report.py" "$out/bench.json" -o "$out/bandwidth.png" > "$out/bench.md"
echo "wrote $out"
