#!/bin/sh
# Every subcommand as a new user meets it: -h and --help print its usage on stdout and exit 0;
# options take --name=value; a missing value, an unknown option or a stray argument is said by name
# with exit 2; the top-level help mentions batch mode; the selectors the README shows work on this
# machine whatever it has (no GPU in CI), in single-file and batch mode.
#   tool_cli.sh TOOL DATA_DIR WORK_DIR
set -u
tool=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# Every subcommand the top-level help lists (a new one is checked without an edit here).
cmds=$("$tool" --help | awk '/^commands:/ {f = 1; next} /^$/ {f = 0} f && /^  [a-z]+ / && !seen[$1]++ {print $1}')
echo "$cmds" | grep -q median || fail "the top-level help lists no median command: $cmds"
for cmd in $cmds; do
    for h in -h --help; do
        "$tool" $cmd $h > "$work/out" 2> "$work/err" || fail "$cmd $h: exit $?"
        grep -q "^usage: clcompute $cmd" "$work/out" || fail "$cmd $h: no usage on stdout"
        [ ! -s "$work/err" ] || fail "$cmd $h wrote to stderr: $(cat "$work/err")"
    done
    "$tool" $cmd --device > /dev/null 2> "$work/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$cmd --device without a value: exit $rc"
    grep -q "option --device needs a value" "$work/err" || fail "$cmd --device: $(cat "$work/err")"
    "$tool" $cmd --device cpu --device=gpu > /dev/null 2> "$work/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "option --device given twice ('cpu', then 'gpu')" "$work/err" ||
        fail "$cmd --device twice: exit $rc, $(cat "$work/err")"
    "$tool" $cmd --bogus=1 > /dev/null 2> "$work/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "unknown option '--bogus'" "$work/err" ||
        fail "$cmd --bogus=1: exit $rc, $(cat "$work/err")"
done
"$tool" --help | grep -q "Batch mode" || fail "the top-level help does not mention batch mode"
"$tool" devices stray > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q "unexpected argument 'stray'" "$work/err" || fail "devices stray"
"$tool" gray --weights=bt709 "$data/rgb.png" "$work/w.png" --device=default ||
    fail "--name=value options"
"$tool" gray "$data/rgb.png" "$work/q.png" --quiet=yes 2> "$work/err"
[ $? -eq 2 ] && grep -q "option --quiet takes no value" "$work/err" || fail "--quiet=yes"
# A flag given twice is refused as a valued option is (the README's rule); numbers are decimal.
"$tool" gray "$data/rgb.png" "$work/q.png" --quiet --quiet 2> "$work/err"
[ $? -eq 2 ] && grep -q "option --quiet given twice; give it once" "$work/err" &&
    [ ! -e "$work/q.png" ] || fail "--quiet twice: $(cat "$work/err")"
"$tool" gray "$data/rgb.png" "$work/q.png" -q --quiet 2> "$work/err" # an alias is the same flag
[ $? -eq 2 ] && grep -q "option --quiet given twice; give it once" "$work/err" &&
    [ ! -e "$work/q.png" ] || fail "-q --quiet: $(cat "$work/err")"
"$tool" cloud "$data/depth16.png" "$work/hex.ply" --fx 0x10 --fy 1 --cx 1 --cy 1 2> "$work/err"
[ $? -eq 2 ] && grep -q "option --fx takes decimal numbers, not '0x10'" "$work/err" ||
    fail "--fx 0x10: $(cat "$work/err")"
# -o and --output are one option: which of two outputs was meant is not guessed.
"$tool" gray "$data/rgb.png" -o "$work/o1.png" --output "$work/o2.png" 2> "$work/err"
[ $? -eq 2 ] && grep -q "option --output given twice" "$work/err" &&
    [ ! -e "$work/o1.png" ] && [ ! -e "$work/o2.png" ] || fail "-o then --output: $(cat "$work/err")"
"$tool" gray -- "$data/rgb.png" "$work/dash.png" || fail "'--' before paths"

# The selectors of the README and of --help, here (CI: PoCL's CPU, no GPU).
for sel in gpu/cpu all default "gpu/cpu,all"; do
    "$tool" gray "$data/rgb.png" "$work/sel.png" --device "$sel" 2> "$work/err" ||
        fail "gray --device '$sel': $(cat "$work/err")"
    mkdir -p "$work/in" && cp "$data/rgb.png" "$work/in/a.png"
    "$tool" gray "$work/in" -o "$work/batch" --device "$sel" --quiet --overwrite 2> "$work/err" ||
        fail "gray -o --device '$sel': $(cat "$work/err")"
done
if "$tool" devices | grep -q "Portable Computing Language"; then
    "$tool" devices --device pocl > /dev/null || fail "--device pocl with PoCL present"
fi
if ! "$tool" devices --json | grep -q '"type": "GPU"'; then
    "$tool" gray "$data/rgb.png" "$work/g.png" --device gpu 2> "$work/err"
    [ $? -eq 1 ] && grep -q 'selector "gpu" matched no available device' "$work/err" ||
        fail "--device gpu without a GPU: $(cat "$work/err")"
fi
"$tool" devices --device 0: > /dev/null 2> "$work/err"
[ $? -eq 1 ] && grep -q 'malformed' "$work/err" || fail "selector 0: $(cat "$work/err")"
# A truncated JPEG is named as one (not as the last format the decoder tried).
head -c 300 "$data/rgb.jpg" > "$work/cut.jpg"
"$tool" gray "$work/cut.jpg" "$work/cut.png" 2> "$work/err"
[ $? -eq 1 ] && grep -q "'.*cut.jpg' is a truncated or corrupt JPEG file" "$work/err" ||
    fail "truncated JPEG: $(cat "$work/err")"
[ ! -e "$work/cut.png" ] || fail "output written for a truncated JPEG"
# Files cut short in every format are refused, never read as garbage with success (stb reads
# zeros past the end of its input; the tool checks the sizes headers announce).
head -c 100 "$data/rgb.ppm" > "$work/cut.ppm"
head -c 200 "$data/rgb.bmp" > "$work/cut.bmp"
head -c 300 "$data/rgb.tga" > "$work/cut.tga"
printf 'P5\n4 4\n255\n\020\040' > "$work/cut.pgm"
for f in cut.ppm cut.bmp cut.tga cut.pgm; do
    "$tool" gray "$work/$f" "$work/cut_out.png" 2> "$work/err"
    [ $? -eq 1 ] && grep -q "truncated or corrupt" "$work/err" || fail "$f: $(cat "$work/err")"
    [ ! -e "$work/cut_out.png" ] || fail "output written for $f"
done
# A PNM header's fault is named: ASCII or bitmap kinds, a maxval or size out of range, a value
# above maxval (where imread reads one anyway, the tool refuses; README).
printf 'P2\n2 1\n255\n0 1\n' > "$work/ascii.pgm"
printf 'P5\n2 1\n70000\n\000\000\000\000' > "$work/max70000.pgm"
printf 'P5\n0 1\n255\n' > "$work/width0.pgm"
printf 'P5\n2 1\n100\n\000\145' > "$work/above.pgm"
printf 'P4\n8 1\n\377' > "$work/bitmap.pbm"
for check in "ascii.pgm:P2 file (ASCII PGM/PPM)" "bitmap.pbm:P4 file (a PBM bitmap)" \
    "max70000.pgm:maxval 70000 (maxval must be 1 to" "width0.pgm:0 x 1 pixels" \
    "above.pgm:a value of 101 above its maxval 100"; do
    f=${check%%:*}
    "$tool" gray "$work/$f" "$work/pnm_out.png" 2> "$work/err"
    [ $? -eq 1 ] && grep -qF "${check#*:}" "$work/err" || fail "$f: $(cat "$work/err")"
    [ ! -e "$work/pnm_out.png" ] || fail "output written for $f"
done
# PGM/PPM values are read as they are whatever maxval says, as OpenCV's imread reads them (and
# as median and cloud take them): 0, 50, 100 of 100 stay 0, 50, 100; a PPM's gray is OpenCV's.
printf 'P5\n3 1\n100\n\000\062\144' > "$work/max100.pgm"
"$tool" gray "$work/max100.pgm" "$work/max100_out.pgm" || fail "maxval 100"
[ "$(tail -c 3 "$work/max100_out.pgm" | od -An -tu1 | tr -s ' ')" = " 0 50 100" ] ||
    fail "maxval 100 gave $(tail -c 3 "$work/max100_out.pgm" | od -An -tu1)"
printf 'P6\n2 1\n100\n\144\000\000\000\062\000' > "$work/max100.ppm"
"$tool" gray "$work/max100.ppm" "$work/max100_ppm.pgm" || fail "maxval 100 PPM"
[ "$(tail -c 2 "$work/max100_ppm.pgm" | od -An -tu1 | tr -s ' ')" = " 30 29" ] ||
    fail "maxval 100 PPM gave $(tail -c 2 "$work/max100_ppm.pgm" | od -An -tu1)"
# Outputs: a folder is not a file name; .ppm promises colour (gray is .pgm); a replaced file
# keeps its mode.
mkdir -p "$work/a_folder"
"$tool" gray "$data/rgb.png" "$work/a_folder" 2> "$work/err"
[ $? -eq 2 ] && grep -q "is a folder" "$work/err" || fail "folder as OUT: $(cat "$work/err")"
"$tool" gray "$data/rgb.png" "$work/x.ppm" 2> "$work/err"
[ $? -eq 2 ] || fail "gray into .ppm accepted"
"$tool" gray "$data/rgb.png" "$work/private.png" && chmod 600 "$work/private.png" &&
    "$tool" gray "$data/rgba.png" "$work/private.png" || fail "replacing private.png"
[ "$(stat -c %a "$work/private.png")" = 600 ] || fail "a replaced file lost its mode"
# Batch-only options in single-file mode, and an empty value, are refused by name.
for opt in --recursive "--workers 2" "--cpu-partitions 2" "--shard 0/2" --stats; do
    "$tool" gray "$data/rgb.png" "$work/single.png" $opt 2> "$work/err"
    [ $? -eq 2 ] && grep -q "is for batches" "$work/err" || fail "$opt in single mode"
done
"$tool" gray "$data/rgb.png" "$work/single.png" --device "" 2> "$work/err"
[ $? -eq 2 ] && grep -q "option --device needs a value" "$work/err" || fail "--device ''"
"$tool" bench --kernels "gray,,cloud" 2> "$work/err"
[ $? -eq 2 ] && grep -q "unknown kernel ''" "$work/err" || fail "--kernels gray,,cloud"
# The median filter on files: 16-bit PNG to 16-bit PNG and to .npy, 8-bit PNG, float .npy only to
# .npy, a window without a centre, a batch.
"$tool" median "$data/depth16.png" "$work/m16.png" || fail "median of a 16-bit PNG"
"$tool" median "$work/m16.png" "$work/m16.npy" --ksize 3 || fail "median to .npy"
head -c 8 "$work/m16.npy" | grep -q "NUMPY" || fail "median .npy output has no numpy header"
"$tool" median "$data/gray.png" "$work/m8.pgm" || fail "median of an 8-bit PNG to PGM"
head -c 2 "$work/m8.pgm" | grep -q "P5" || fail "median PGM output"
"$tool" median "$data/depth_m.npy" "$work/mf.npy" || fail "median of float32 metres"
"$tool" median "$data/depth_m.npy" "$work/mf.png" 2> "$work/err"
[ $? -eq 1 ] && grep -q "written as npy" "$work/err" && [ ! -e "$work/mf.png" ] ||
    fail "float median into PNG: $(cat "$work/err")"
for k in 4 7 -3 x 03; do
    "$tool" median "$data/depth16.png" "$work/k.png" --ksize "$k" 2> "$work/err"
    [ $? -eq 2 ] && grep -q "takes 3 or 5 (OpenCV's sizes for every depth), not '$k'" "$work/err" &&
        [ ! -e "$work/k.png" ] || fail "--ksize $k: $(cat "$work/err")"
done
"$tool" median "$data/rgb.png" "$work/rgb.png" 2> "$work/err"
[ $? -eq 1 ] && grep -q "is a colour image; it needs one channel" "$work/err" || fail "median of RGB"
"$tool" median "$data/depth16.png" "$work/m.jpg" 2> "$work/err"
[ $? -eq 2 ] && [ ! -e "$work/m.jpg" ] || fail "median into .jpg: $(cat "$work/err")"
cp "$data/gray.png" "$work/self.png"
"$tool" median "$work/self.png" "$work/self.png" 2> "$work/err"
[ $? -eq 2 ] && grep -q "the input itself" "$work/err" && cmp -s "$data/gray.png" "$work/self.png" ||
    fail "an output replacing its input: $(cat "$work/err")"
mkdir -p "$work/min" && cp "$data/depth16.png" "$data/gray.png" "$work/min/" &&
    cp "$data/depth16.npy" "$work/min/d2.npy"
"$tool" median "$work/min" -o "$work/mout" --format npy --quiet 2> "$work/err" ||
    fail "median batch: $(cat "$work/err")"
[ "$(ls "$work/mout" | wc -l)" -eq 3 ] || fail "median batch wrote $(ls "$work/mout")"
# A value that starts with '-' and a digit is a value, judged by its option, not "missing".
"$tool" gray "$data" -o "$work/shard" --shard -1/2 2> "$work/err"
[ $? -eq 2 ] && grep -q "shard '-1/2': K and N must be whole numbers" "$work/err" ||
    fail "--shard -1/2: $(cat "$work/err")"

# Gray's weights in any case, as Python takes them; a 16-bit colour depth image is refused,
# pointing at clcompute gray, which takes 16-bit colour too (narrowed as imread narrows it).
"$tool" gray --weights BT709 "$data/rgb.png" "$work/w709.png" && cmp -s "$work/w709.png" "$work/w.png" ||
    fail "--weights BT709"
{ printf 'P6\n2 2\n65535\n'; printf '%024d' 7; } > "$work/rgb16.ppm"
"$tool" cloud "$work/rgb16.ppm" "$work/rgb16.ply" --fx 1 --fy 1 --cx 0 --cy 0 2> "$work/err"
[ $? -eq 1 ] && grep -q "is a 16-bit colour image; it needs one channel (gray or depth): clcompute gray converts it$" "$work/err" ||
    fail "16-bit colour depth: $(cat "$work/err")"
"$tool" gray "$work/rgb16.ppm" "$work/rgb16.png" || fail "gray of the 16-bit colour image"

# An output that is a symbolic link is written through it (the link stays); one that is a FIFO
# is refused before any work (renamed over, its reader would see nothing), as is a link to
# nothing.
echo "not an image yet" > "$work/target.png"
ln -s target.png "$work/link.png"
"$tool" gray "$data/rgb.png" "$work/link.png" || fail "gray through a link"
"$tool" gray "$data/rgb.png" "$work/plain.png" || fail "gray to plain.png"
[ -L "$work/link.png" ] && cmp -s "$work/target.png" "$work/plain.png" ||
    fail "the link was replaced, or not written through"
mkfifo "$work/fifo.png"
"$tool" gray "$data/rgb.png" "$work/fifo.png" 2> "$work/err"
[ $? -eq 2 ] && [ -p "$work/fifo.png" ] && grep -q "fifo.png' exists and is not a regular file" "$work/err" ||
    fail "output FIFO: $(cat "$work/err")"
ln -s nowhere.png "$work/dangling.png"
"$tool" gray "$data/rgb.png" "$work/dangling.png" 2> "$work/err"
[ $? -eq 2 ] && [ ! -e "$work/nowhere.png" ] && grep -q "symbolic link that leads to no file" "$work/err" ||
    fail "dangling output link: $(cat "$work/err")"

# A file larger than any image is refused before it is read (a sparse 3 GiB file: no disk used;
# read whole, it took 3 GiB of memory and seconds before the decoder's refusal, whose message is
# another). No address-space limit here: AddressSanitizer's shadow memory cannot live under one.
if truncate -s 3G "$work/huge.png" 2> /dev/null; then
    "$tool" gray "$work/huge.png" "$work/huge_gray.png" 2> "$work/err"
    [ $? -eq 1 ] && grep -q "huge.png' is 2 GiB or larger" "$work/err" && [ ! -e "$work/huge_gray.png" ] ||
        fail "3 GiB input: $(cat "$work/err")"
    rm -f "$work/huge.png"
fi
echo "tool command line OK"
