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
# -o naming an existing file: refused before any work, as a usage error, the file untouched.
printf 'keep' > "$work/a_file"
"$tool" gray "$work/in" -o "$work/a_file" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "is an existing file, not a folder; nothing was converted" "$work/log" \
    && [ "$(cat "$work/a_file")" = keep ] || fail "-o an existing file: $(cat "$work/log")"
# A second run into the same folder would replace the first's files: refused before any work
# (the files untouched) unless --overwrite.
sum_before=$(cat "$work/out"/* | cksum)
touch -d @1000000000 "$work/out/a01.png"
"$tool" gray "$work/in" -o "$work/out" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "output '.*' and 10 more exist already; nothing was converted (--overwrite" \
    "$work/log" || fail "a re-run was not refused: $(cat "$work/log")"
[ "$(cat "$work/out"/* | cksum)" = "$sum_before" ] &&
    [ "$(stat -c %Y "$work/out/a01.png")" = 1000000000 ] || fail "the refused re-run wrote"
# Paths are named with one slash however the folders were typed ("out/" once read "out//a01.png").
"$tool" gray "$work/in/" -o "$work/out//" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "output '$work/out/a[0-9]*.png' and 10 more" "$work/log" ||
    fail "trailing slashes: $(cat "$work/log")"
# A file the user keeps beside the inputs is not replaced by the output of the same name.
mkdir -p "$work/keep" && cp "$data/rgb.png" "$work/keep/photo.png" &&
    cp "$data/rgb.jpg" "$work/keep/photo.jpg"
"$tool" gray "$work/keep/photo.jpg" -o "$work/keep" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && cmp -s "$work/keep/photo.png" "$data/rgb.png" ||
    fail "photo.png beside photo.jpg was replaced: $(cat "$work/log")"
"$tool" gray "$work/keep/photo.jpg" "$work/single.png" --overwrite 2> "$work/log"
[ $? -eq 2 ] && grep -q -- "--overwrite is for batches" "$work/log" ||
    fail "--overwrite in single mode: $(cat "$work/log")"
# A link to nothing in a folder is skipped and said, as other entries that are not inputs.
mkdir -p "$work/dangling" && cp "$data/rgb.png" "$work/dangling/ok.png" &&
    ln -sf missing.png "$work/dangling/broken.png"
"$tool" gray "$work/dangling" -o "$work/dangling_out" --device "$dev" 2> "$work/log" ||
    fail "a folder with a dangling link: $(cat "$work/log")"
grep -q "skipped 1 entry that could not be read, as a link to nothing: '.*broken.png'" \
    "$work/log" || fail "a dangling link was not said: $(cat "$work/log")"
# An output folder the run made and left empty goes again: no item this shard's, every item
# failed.
"$tool" gray "$data/rgb.png" -o "$work/none" --shard 1/2 --device "$dev" 2> /dev/null ||
    fail "an empty shard failed"
printf 'not a png' > "$work/keep/broken.png"
"$tool" gray "$work/keep/broken.png" -o "$work/failed" --device "$dev" 2> /dev/null &&
    fail "a broken file converted"
[ ! -e "$work/none" ] && [ ! -e "$work/failed" ] || fail "an empty output folder was left"
# Sub-devices (and a device named twice) are told apart in the summary.
"$tool" gray "$work/in" -o "$work/out" --overwrite --device "$dev" --cpu-partitions 2 2> "$work/log" ||
    fail "sub-device batch: $(cat "$work/log")"
if grep -q "^  .*: [0-9]* items" "$work/log" && [ "$(grep -c "^  .*: [0-9]* items" "$work/log")" -gt 1 ]; then
    grep -q " #1: [0-9]* items" "$work/log" && grep -q " #2: [0-9]* items" "$work/log" ||
        fail "sub-devices not named apart: $(cat "$work/log")"
fi

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
"$tool" cloud "$work/depth" -o "$work/clouds2" --intrinsics "$work/wrong_size.txt" --quiet --overwrite \
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
grep -q "colour image .* is 10 x 10" "$work/log" || fail "wrong-size colour not refused: $(cat "$work/log")"
for i in 1 2 3 4 5; do
    cmp -s "$work/colored/d$i.ply" "$work/single_color.ply" || fail "coloured d$i.ply differs"
done
[ ! -e "$work/colored/d6.ply" ] && [ ! -e "$work/colored/d7.ply" ] || fail "output for a failed frame"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$data/rgb.png" 2> "$work/log"
[ $? -eq 2 ] && grep -q "takes a folder" "$work/log" || fail "--color FILE with -o: $(cat "$work/log")"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$work/no_such_folder" 2> "$work/log"
[ $? -eq 1 ] && grep -q "cannot read the --color folder" "$work/log" ||
    fail "missing --color folder: $(cat "$work/log")"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$work/color" --format xyz 2> "$work/log"
[ $? -eq 2 ] && grep -q "not a point cloud format" "$work/log" ||
    fail "--format xyz with --color: $(cat "$work/log")"
cp "$data/rgb.png" "$work/color/d1.jpg"
"$tool" cloud "$work/depth" -o "$work/colored" --intrinsics "$work/intrinsics.txt" \
    --color "$work/color" 2> "$work/log"
[ $? -eq 1 ] && grep -q "ambiguous" "$work/log" || fail "two colour images named d1 accepted"
rm -f "$work/depth/d7.png"

# Names: two inputs that would write one output are refused before any work; an output folder
# that does not exist is made; files that are not images are skipped and listed, not failures;
# --recursive mirrors subfolders; --format picks the outputs' format.
mkdir -p "$work/names/sub/deeper"
cp "$data/rgb.png" "$work/names/photo.png"
cp "$data/rgb.jpg" "$work/names/photo.jpg"
"$tool" gray "$work/names" -o "$work/collide" 2> "$work/log"
[ $? -eq 2 ] || fail "colliding outputs not refused: $(cat "$work/log")"
grep -q "photo.jpg' and '.*photo.png' would both be written to" "$work/log" ||
    fail "collision not named: $(cat "$work/log")"
[ ! -e "$work/collide" ] || fail "a refused batch made its output folder"
rm "$work/names/photo.jpg"
echo "not an image" > "$work/names/notes.txt"
cp "$data/rgba.png" "$work/names/sub/x.png"
cp "$data/rgb.bmp" "$work/names/sub/deeper/y.bmp"
"$tool" gray "$work/names" -o "$work/made/by/the/tool" 2> "$work/log" ||
    fail "batch into a new folder: $(cat "$work/log")"
[ -s "$work/made/by/the/tool/photo.png" ] || fail "output folder not made"
grep -q "skipped 1 file, not images by extension.*notes.txt" "$work/log" ||
    fail "skipped file not listed: $(cat "$work/log")"
grep -q "skipped 1 folder (--recursive" "$work/log" || fail "skipped folder not said"
grep -q "failed" "$work/log" && grep -q "[1-9] of .* failed" "$work/log" && fail "skips counted as failures"
"$tool" gray "$work/names" -o "$work/mirror" --recursive --format pgm --quiet 2> "$work/log" ||
    fail "recursive batch: $(cat "$work/log")"
[ "$(head -c 2 "$work/mirror/photo.pgm")" = "P5" ] || fail "--format pgm did not write PGM"
[ -s "$work/mirror/sub/x.pgm" ] && [ -s "$work/mirror/sub/deeper/y.pgm" ] ||
    fail "subfolders not mirrored: $(find "$work/mirror")"
"$tool" gray "$work/names" -o "$work/names" 2> "$work/log"
[ $? -eq 2 ] && grep -q "overwritten by its own output" "$work/log" || fail "input overwritten"
"$tool" gray "$work/names" -o "$work/names/notes.txt/x" 2> "$work/log"
[ $? -eq 1 ] && grep -q "cannot make output folder" "$work/log" || fail "output under a file"
"$tool" gray "$work/names" -o "$work/out2" --format webp 2> "$work/log"
[ $? -eq 2 ] && grep -q "webp" "$work/log" || fail "--format webp accepted"

# Folders: a link back up is not followed (no endless recursion), the output folder inside the
# input is never read as input, a file given twice is converted once, hidden entries are said.
mkdir -p "$work/tree/sub"
cp "$data/rgb.png" "$work/tree/a.png"
cp "$data/rgb.png" "$work/tree/sub/b.png"
cp "$data/rgb.png" "$work/tree/.hidden.png"
ln -s .. "$work/tree/sub/up"
"$tool" gray "$work/tree" "$work/tree/a.png" "$work/tree/./sub/b.png" -o "$work/tree/gray" --recursive 2> "$work/log" ||
    fail "tree batch: $(cat "$work/log")"
grep -q "2/2 done" "$work/log" || fail "tree batch did not convert 2 files: $(cat "$work/log")"
grep -q "skipped 1 link to a folder the scan was already in" "$work/log" || fail "loop not said"
grep -q "skipped 1 hidden entry" "$work/log" || fail "hidden entry not said"
grep -q "skipped '.*tree/gray': it is the output folder" "$work/log" && fail "output folder said before it exists"
"$tool" gray "$work/tree" -o "$work/tree/gray" --recursive --overwrite 2> "$work/log" ||
    fail "second tree batch: $(cat "$work/log")"
grep -q "skipped '.*tree/gray': it is the output folder, so its files are outputs" "$work/log" ||
    fail "skipped output folder not said: $(cat "$work/log")"

# Other names of one file (hard and symbolic links, as datasets built of links have) are inputs
# of their own, each with its output; the same name twice (a folder and a file in it) is one. A
# FIFO in a folder is skipped and said (it would block a worker); named, it is read (below).
mkdir -p "$work/links"
cp "$data/rgb.png" "$work/links/a.png"
ln "$work/links/a.png" "$work/links/b.png"
ln -s a.png "$work/links/c.png"
mkfifo "$work/links/d.png"
"$tool" gray "$work/links" "$work/links/a.png" -o "$work/links_out" --device "$dev" 2> "$work/log" ||
    fail "links batch: $(cat "$work/log")"
[ "$(ls "$work/links_out")" = "$(printf 'a.png\nb.png\nc.png')" ] ||
    fail "links batch wrote $(ls "$work/links_out")"
for f in a b c; do
    cmp -s "$work/links_out/$f.png" "$work/single_rgb.png" || fail "links batch: $f.png differs"
done
grep -q "skipped 1 entry that is not a regular file" "$work/log" || fail "FIFO not said: $(cat "$work/log")"
# Outputs are written through links, so an existing output that is a link to another input, or
# two outputs that are one file, are refused before any work (exit 2), inputs untouched; so is
# an output that is a FIFO.
mkdir -p "$work/lin" "$work/lout"
cp "$data/rgb.png" "$work/lin/a.png"
cp "$data/gray.png" "$work/lin/b.png"
ln -s ../lin/b.png "$work/lout/a.png"
"$tool" gray "$work/lin" -o "$work/lout" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "lout/a.png' is input '.*lin/b.png' (through a link or mount)" "$work/log" &&
    cmp -s "$work/lin/b.png" "$data/gray.png" || fail "output linked to another input: $(cat "$work/log")"
rm "$work/lout/a.png"
: > "$work/lout/t.png"
ln -s t.png "$work/lout/a.png"
ln -s t.png "$work/lout/b.png"
"$tool" gray "$work/lin" -o "$work/lout" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "are one file (through links)" "$work/log" && [ ! -s "$work/lout/t.png" ] ||
    fail "two outputs linked to one file: $(cat "$work/log")"
# Two output folders that are one (a link): refused before either output exists.
mkdir -p "$work/fin/A" "$work/fin/B" "$work/fout/B"
cp "$data/rgb.png" "$work/fin/A/x.png"
cp "$data/gray.png" "$work/fin/B/x.png"
ln -s B "$work/fout/A"
"$tool" gray "$work/fin" -o "$work/fout" --recursive --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "are one file" "$work/log" && [ ! -e "$work/fout/B/x.png" ] ||
    fail "output folders linked to one: $(cat "$work/log")"
# A hard link is another name: an output hard-linked to an input (or to another output) is
# replaced by the rename, the other name keeps its file. Not refused.
rm -rf "$work/lout" && mkdir -p "$work/lout"
ln "$work/lin/a.png" "$work/lout/b.png"
"$tool" gray "$work/lin" -o "$work/lout" --overwrite --device "$dev" 2> "$work/log" ||
    fail "output hard-linked to an input: $(cat "$work/log")"
cmp -s "$work/lin/a.png" "$data/rgb.png" || fail "a hard-linked input was changed"
# An output, or an output folder, that is a link to nothing is refused before any work (the
# write would fail, or land where another output does).
mkdir -p "$work/dl/out"
ln -s nothing.png "$work/dl/out/a.png"
"$tool" gray "$work/lin" -o "$work/dl/out" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "out/a.png' is a symbolic link that leads to no file" "$work/log" &&
    [ ! -e "$work/dl/out/b.png" ] || fail "dangling output link: $(cat "$work/log")"
mkdir -p "$work/dl/fout"
ln -s A "$work/dl/fout/B"
"$tool" gray "$work/fin" -o "$work/dl/fout" --recursive --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "fout/B' is a symbolic link that leads to no folder" "$work/log" ||
    fail "dangling output folder link: $(cat "$work/log")"
# A subfolder named beside its folder in a --recursive run is converted once, where the folder's
# scan puts it.
"$tool" gray "$work/tree" "$work/tree/sub" -o "$work/twice" --recursive --device "$dev" 2> "$work/log" ||
    fail "folder and subfolder: $(cat "$work/log")"
[ -e "$work/twice/sub/b.png" ] && [ ! -e "$work/twice/b.png" ] ||
    fail "folder and subfolder wrote $(find "$work/twice" -type f)"
# A folder reached by two names in a scan (ds/latest -> v3) is mirrored under both.
mkdir -p "$work/ds/v3"
cp "$data/rgb.png" "$work/ds/v3/x.png"
ln -s v3 "$work/ds/latest"
"$tool" gray "$work/ds" -o "$work/dsout" --recursive --device "$dev" 2> "$work/log" ||
    fail "ds batch: $(cat "$work/log")"
[ -e "$work/dsout/v3/x.png" ] && [ -e "$work/dsout/latest/x.png" ] || fail "ds batch wrote $(find "$work/dsout")"
rm "$work/lout/a.png" "$work/lout/b.png"
mkfifo "$work/lout/a.png"
"$tool" gray "$work/lin" -o "$work/lout" --device "$dev" 2> "$work/log"
[ $? -eq 2 ] && grep -q "lout/a.png' exists and is not a regular file" "$work/log" ||
    fail "output FIFO in a batch: $(cat "$work/log")"
[ ! -e "$work/tree/gray/gray" ] || fail "the output folder was read as input"
"$tool" gray "$work/tree" -o "$work/dotfmt" --format .jpg --quiet || fail "--format .jpg"
[ -s "$work/dotfmt/a.jpg" ] || fail "--format .jpg did not write a.jpg"
# A format in capitals is the same format, written with the usual lower-case extension.
"$tool" gray "$work/tree" -o "$work/upfmt" --format PGM --quiet || fail "--format PGM"
ls "$work/upfmt" | grep -qx 'a\.pgm' || fail "--format PGM: $(ls "$work/upfmt")"
# A format is a name, not the tail of a file name.
for bad in png.pgm x.jpg ..pgm "a b.jpg" .; do
    "$tool" gray "$work/tree" -o "$work/badfmt" --format "$bad" 2> "$work/log"
    [ $? -eq 2 ] && grep -q "is not a format" "$work/log" && [ ! -e "$work/badfmt" ] ||
        fail "--format '$bad': $(cat "$work/log")"
done
"$tool" median "$work/upfmt" -o "$work/upmed" --format NPY --quiet 2> "$work/log" &&
    [ -s "$work/upmed/a.npy" ] ||
    fail "median --format NPY: $(cat "$work/log")"

# Ctrl-C, made deterministic with a FIFO: the first input is a named pipe, so the one worker is
# blocked reading it when the interrupt comes. The interrupt is acknowledged at once, the file in
# progress is finished (whole), the others are not started, and the exit status is 130.
mkdir -p "$work/fifo_in"
mkfifo "$work/fifo_in/a0.png"
for i in 1 2 3; do cp "$data/rgb.png" "$work/fifo_in/a$i.png"; done
"$tool" gray "$work/fifo_in/a0.png" "$work/fifo_in/a1.png" "$work/fifo_in/a2.png" \
    "$work/fifo_in/a3.png" -o "$work/fifo_out" --workers 1 --device "$dev" 2> "$work/log" &
pid=$!
exec 3> "$work/fifo_in/a0.png" # returns once the worker has opened the pipe
kill -INT $pid
i=0 # the acknowledgement comes before the file in progress is done
while ! grep -q "stopping after the files in progress" "$work/log" && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
done
grep -q "stopping after the files in progress" "$work/log" || fail "Ctrl-C not acknowledged"
cat "$data/rgb.png" >&3
exec 3>&-
wait $pid
rc=$?
[ "$rc" -eq 130 ] || fail "interrupted batch exited $rc, not 130: $(cat "$work/log")"
cmp -s "$work/fifo_out/a0.png" "$work/single_rgb.png" || fail "the file in progress is not whole"
[ "$(ls "$work/fifo_out" | wc -l)" -eq 1 ] || fail "files started after Ctrl-C: $(ls "$work/fifo_out")"
grep -q "3 of 4 items not started" "$work/log" || fail "no summary: $(cat "$work/log")"
# The progress line never swallows messages: the summary starts a line of its own.
grep -q "^clcompute gray: interrupted: 3 of 4" "$work/log" || fail "summary glued: $(cat "$work/log")"

# A second Ctrl-C stops at once, leaving no partial or temporary file.
rm -rf "$work/fifo_out"
"$tool" gray "$work/fifo_in/a0.png" "$work/fifo_in/a1.png" -o "$work/fifo_out" --workers 1 \
    --device "$dev" 2> "$work/log" &
pid=$!
exec 3> "$work/fifo_in/a0.png"
kill -INT $pid
i=0
while ! grep -q "stopping after" "$work/log" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
exec 3>&-
[ "$rc" -eq 130 ] || fail "second Ctrl-C: exit $rc"
grep -q "stopped; no partial file left" "$work/log" || fail "second Ctrl-C not said: $(cat "$work/log")"
[ -z "$(ls "$work/fifo_out")" ] || fail "second Ctrl-C left $(ls "$work/fifo_out")"

# SIGTERM (a scheduler's stop) is taken as Ctrl-C is, and the status says which: 128 + 15.
rm -rf "$work/fifo_out"
"$tool" gray "$work/fifo_in/a0.png" "$work/fifo_in/a1.png" -o "$work/fifo_out" --workers 1 \
    --device "$dev" 2> "$work/log" &
pid=$!
exec 3> "$work/fifo_in/a0.png"
kill -TERM $pid
i=0
while ! grep -q "stopping after" "$work/log" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cat "$data/rgb.png" >&3
exec 3>&-
wait $pid
rc=$?
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc, not 143: $(cat "$work/log")"

# Ctrl-C twice during a longer batch, wherever it lands: only complete outputs, no temporary file.
# 300 links to one 2000 x 2000 PPM of noise (PNG's compression then makes writing an output the
# longest part of an item, so that the kill below lands while files are being written).
{ printf 'P6\n2000 2000\n255\n'; head -c 12000000 /dev/urandom; } > "$work/big.ppm"
"$tool" gray "$work/big.ppm" "$work/single_big.png" || fail "single big"
i=0
while [ $i -lt 300 ]; do ln -s "$work/big.ppm" "$work/big/f$i.ppm"; i=$((i + 1)); done
"$tool" gray "$work/big" -o "$work/big_out" --device "$dev,$dev" 2> "$work/log" &
pid=$!
sleep 0.5
kill -INT $pid 2>/dev/null
sleep 0.2
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
for f in "$work/big_out"/*; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$work/single_big.png" || fail "interrupted batch left a partial $f"
done
[ -z "$(find "$work/big_out" -name '*.tmp*')" ] || fail "interrupted batch left temporary files"
[ "$rc" -eq 130 ] || [ "$rc" -eq 0 ] || fail "interrupted batch exited $rc"
echo "interrupted twice after $(ls "$work/big_out" | wc -l) of 300 files (exit $rc)"
# Killed outright (SIGKILL, the OOM killer: no handler runs) once a file is written: where the
# system has unnamed files (Linux's O_TMPFILE, on this file system, with /proc) nothing is left
# but complete outputs. Elsewhere the tool falls back to named temporary files, which a kill
# leaves: the check is skipped there.
mkdir -p "$work/big_kill"
if [ -d /proc/self/fd ] && python3 -c 'import os, sys
os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600))' "$work/big_kill" 2> /dev/null
then
    "$tool" gray "$work/big" -o "$work/big_kill" --device "$dev,$dev" 2> "$work/log" &
    pid=$!
    i=0
    while [ -z "$(ls "$work/big_kill" 2>/dev/null)" ] && [ $i -lt 600 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -KILL $pid 2>/dev/null
    wait $pid
    for f in "$work/big_kill"/*; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$work/single_big.png" || fail "a killed batch left a partial $f"
    done
    [ -z "$(find "$work/big_kill" -name '*.tmp*')" ] ||
        fail "a killed batch left temporary files: $(ls "$work/big_kill" | grep tmp | head -3)"
    echo "killed after $(ls "$work/big_kill" | wc -l) of 300 files"
else
    echo "SIGKILL check skipped: no O_TMPFILE here (or no python3 to ask)"
fi
echo "batch mode OK"
