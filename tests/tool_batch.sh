#!/bin/sh
# clcompute gray in batch mode: a folder and a file into OUTDIR on two devices (the test device
# twice, or two CPU sub-devices), a bad file in the middle reported and skipped (exit 1), every
# output identical to the single-file mode's, no temporary files; cloud batches with intrinsics
# files and colour folders; then Ctrl-C during a longer batch leaves only complete outputs.
#   tool_batch.sh TOOL DATA_DIR WORK_DIR
set -u
tool=$1 data=$2 work=$3
dev=${CLCOMPUTE_DEVICE:-default}
rm -rf "$work" && mkdir -p "$work/in" "$work/out" "$work/big" "$work/big_out"
fail() { echo "FAIL: $*"; exit 1; }

for i in 01 02 03 04 05 06 07 08 09 10; do cp "$data/rgb.png" "$work/in/a$i.png"; done
cp "$data/truncated.png" "$work/in/a05_bad.png"
cp "$data/rgba.png" "$work/in/b.png"
"$tool" gray "$data/rgb.png" "$work/single_rgb.png" || fail "single rgb"
"$tool" gray "$data/rgba.png" "$work/single_rgba.png" || fail "single rgba"

"$tool" gray "$work/in" "$data/rgb.jpg" -o "$work/out" --device "$dev,$dev" 2> "$work/log"
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc with a bad file among the inputs"
grep -q "a05_bad.png" "$work/log" || fail "the bad file is not named: $(cat "$work/log")"
grep -q "1 of 13 items failed" "$work/log" || fail "no summary: $(cat "$work/log")"
[ ! -e "$work/out/a05_bad.png" ] || fail "output written for the bad file"
for i in 01 02 03 04 05 06 07 08 09 10; do
    cmp -s "$work/out/a$i.png" "$work/single_rgb.png" || fail "a$i.png differs from single mode"
done
cmp -s "$work/out/b.png" "$work/single_rgba.png" || fail "b.png differs from single mode"
[ -s "$work/out/rgb.png" ] || fail "no output for rgb.jpg"
[ -z "$(find "$work/out" -name '*.tmp*')" ] || fail "temporary files left"

# Sub-devices, quiet: only error output, nothing on success.
rm -f "$work/in/a05_bad.png" "$work/out"/*
"$tool" gray "$work/in" -o "$work/out" --device "$dev" --cpu-partitions 2 --quiet \
    2> "$work/log" || fail "sub-device batch: $(cat "$work/log")"
[ ! -s "$work/log" ] || fail "--quiet still printed: $(cat "$work/log")"
[ "$(ls "$work/out" | wc -l)" -eq 11 ] || fail "sub-device batch wrote $(ls "$work/out" | wc -l) files"

# clcompute cloud -o: intrinsics from Open3D JSON and from text give what the flags give.
mkdir -p "$work/depth" "$work/clouds" "$work/clouds2"
for i in 1 2 3 4 5 6; do cp "$data/depth16.png" "$work/depth/d$i.png"; done
cp "$data/depth16_truncated.png" "$work/depth/d4_bad.png"
"$tool" cloud "$data/depth16.png" "$work/single.ply" --fx 500 --fy 510 --cx 10.5 --cy 7.25 \
    > /dev/null || fail "single cloud"
cat > "$work/intrinsics.json" <<JSON
{ "width": 37, "height": 23,
  "intrinsic_matrix": [ 500.0, 0.0, 0.0, 0.0, 510.0, 0.0, 10.5, 7.25, 1.0 ] }
JSON
echo "500 510 10.5 7.25 37 23" > "$work/intrinsics.txt"
"$tool" cloud "$work/depth" -o "$work/clouds" --intrinsics "$work/intrinsics.json" \
    --device "$dev,$dev" 2> "$work/log"
[ $? -eq 1 ] || fail "cloud batch with a bad frame did not exit 1"
grep -q "d4_bad.png" "$work/log" || fail "bad depth frame not named: $(cat "$work/log")"
for i in 1 2 3 4 5 6; do
    cmp -s "$work/clouds/d$i.ply" "$work/single.ply" || fail "d$i.ply differs from single mode"
done
rm -f "$work/depth/d4_bad.png"
"$tool" cloud "$work/depth" -o "$work/clouds2" --intrinsics "$work/intrinsics.txt" --quiet \
    2> "$work/log" || fail "cloud batch with text intrinsics: $(cat "$work/log")"
cmp -s "$work/clouds2/d3.ply" "$work/single.ply" || fail "text intrinsics give another cloud"
echo "40 40 1 1 64 48" > "$work/wrong_size.txt"
"$tool" cloud "$work/depth" -o "$work/clouds2" --intrinsics "$work/wrong_size.txt" --quiet \
    2> "$work/log"
[ $? -eq 1 ] && grep -q "intrinsics are for 64 x 48" "$work/log" || fail "size mismatch not refused"
echo "not intrinsics" > "$work/bad.txt"
"$tool" cloud "$work/depth" -o "$work/clouds2" --intrinsics "$work/bad.txt" 2> "$work/log"
[ $? -eq 2 ] || fail "malformed intrinsics file not a usage error"

# Colour frames: --color FOLDER pairs each depth file with the colour image of the same name
# (any extension); a depth file without one fails alone, with its name.
mkdir -p "$work/color" "$work/colored"
for i in 1 2 3 5 6; do cp "$data/rgb.png" "$work/color/d$i.png"; done
cp "$data/rgb.ppm" "$work/color/d4.ppm"
cp "$data/color_10x10.png" "$work/color/d6.png"
"$tool" cloud "$data/depth16.png" "$work/single_color.ply" --fx 500 --fy 510 --cx 10.5 --cy 7.25 \
    --color "$data/rgb.png" > /dev/null || fail "single cloud with colour"
cp "$data/depth16.png" "$work/depth/d7.png"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$work/color" --device "$dev,$dev" 2> "$work/log"
[ $? -eq 1 ] || fail "colour batch with unpaired frames did not exit 1: $(cat "$work/log")"
grep -q "no colour image named 'd7'" "$work/log" || fail "missing colour not named: $(cat "$work/log")"
grep -q "colour image is 10 x 10" "$work/log" || fail "wrong-size colour not refused: $(cat "$work/log")"
for i in 1 2 3 4 5; do
    cmp -s "$work/colored/d$i.ply" "$work/single_color.ply" || fail "coloured d$i.ply differs"
done
[ ! -e "$work/colored/d6.ply" ] && [ ! -e "$work/colored/d7.ply" ] || fail "output for a failed frame"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$data/rgb.png" 2> "$work/log"
[ $? -eq 1 ] && grep -q "takes a folder" "$work/log" || fail "--color FILE accepted with -o"
cp "$data/rgb.png" "$work/color/d1.jpg"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$work/color" 2> "$work/log"
[ $? -eq 1 ] && grep -q "ambiguous" "$work/log" || fail "two colour images named d1 accepted"
rm -f "$work/depth/d7.png"

# Interrupted: every output present is whole.
# 300 links to one 2000 x 2000 PPM: long enough (a few seconds) to be interrupted mid-way.
{ printf 'P6\n2000 2000\n255\n'; head -c 12000000 /dev/zero | tr '\000' '\141'; } > "$work/big.ppm"
"$tool" gray "$work/big.ppm" "$work/single_big.png" || fail "single big"
i=0
while [ $i -lt 300 ]; do ln -s "$work/big.ppm" "$work/big/f$i.ppm"; i=$((i + 1)); done
"$tool" gray "$work/big" -o "$work/big_out" --device "$dev,$dev" 2> "$work/log" &
pid=$!
sleep 0.3
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
for f in "$work/big_out"/*; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$work/single_big.png" || fail "interrupted batch left a partial $f"
done
[ -z "$(find "$work/big_out" -name '*.tmp*')" ] || fail "interrupted batch left temporary files"
if grep -q "interrupted" "$work/log"; then
    [ "$rc" -eq 1 ] || fail "interrupted batch exited $rc"
    echo "interrupted after $(ls "$work/big_out" | wc -l) of 300 files"
else
    [ "$rc" -eq 0 ] || fail "batch exited $rc"
    echo "the batch finished before the interrupt"
fi
echo "batch mode OK"
