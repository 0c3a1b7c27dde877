#!/bin/sh
# Hostile inputs for every reader of the tool (images through stb, 16-bit PNG depth, .npy and raw
# arrays) and unwritable outputs: empty, one byte, garbage, a directory, a missing file, headers
# declaring huge sizes, every valid test file cut in half and with bytes flipped. Each run must
# end with exit status 0 (the input happened to stay valid) and an output file, or 1 or 2 with a
# message and no output file at all (not even a temporary one); a signal or any other status
# fails.
#   tool_corpus.sh TOOL DATA_DIR WORK_DIR ENOSPC_SHIM
set -u
tool=$1 data=$2 work=$3 enospc=$4
rm -rf "$work" && mkdir -p "$work/in" "$work/out"
in=$work/in out=$work/out
failures=0 runs=0

: > "$in/empty"
printf 'P' > "$in/one_byte"
# Not random: a failure must reproduce. The middle of the tool binary is varied enough.
dd if="$tool" of="$in/garbage" bs=4096 skip=4 count=1 2>/dev/null
mkdir "$in/a_directory"
# PNG signature and an IHDR declaring 2^31-1 x 2^31-1 pixels, then nothing.
printf '\211PNG\r\n\032\n\000\000\000\015IHDR\177\377\377\377\177\377\377\377\010\002\000\000\000\000\000\000\000' > "$in/huge.png"
# .npy v1 header declaring 2^62 float32 elements in a 128-byte file.
{
    printf '\223NUMPY\001\000\166\000'
    printf "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }"
    printf '%*s\n' 41 ''
} > "$in/huge.npy"
for f in "$data"/*.png "$data"/rgb.* "$data"/npy/*.npy; do
    [ -f "$f" ] || continue
    base=$(basename "$f")
    size=$(wc -c < "$f")
    head -c $((size / 2)) "$f" > "$in/half_$base"
    # Flip one byte in the middle (and one near the start, inside most headers).
    cp "$f" "$in/flip_$base"
    printf '\377' | dd of="$in/flip_$base" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
    printf '\000' | dd of="$in/flip_$base" bs=1 seek=$((size < 20 ? 1 : 19)) conv=notrunc 2>/dev/null
done

# check NAME OUTPUT COMMAND...: runs the command and judges it.
check() {
    name=$1 target=$2
    shift 2
    runs=$((runs + 1))
    "$@" > "$work/stdout" 2> "$work/stderr"
    rc=$?
    leftovers=$(find "$out" -name '*.tmp*' | head -1)
    if [ "$rc" -eq 0 ]; then
        if [ -n "$target" ] && [ ! -s "$target" ]; then
            echo "FAIL $name: exit 0 but no output"; failures=$((failures + 1))
        fi
    elif [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
        if [ ! -s "$work/stderr" ]; then
            echo "FAIL $name: exit $rc without a message"; failures=$((failures + 1))
        fi
        if [ -n "$target" ] && [ -e "$target" ]; then
            echo "FAIL $name: exit $rc but $target was written"; failures=$((failures + 1))
        fi
    else
        echo "FAIL $name: exit $rc (crash?): $(head -c 300 "$work/stderr")"
        failures=$((failures + 1))
    fi
    if [ -n "$leftovers" ]; then
        echo "FAIL $name: temporary file left: $leftovers"; failures=$((failures + 1))
    fi
    rm -rf "$out"/*
}

for f in "$in"/* "$in/missing_file"; do
    name=$(basename "$f")
    check "gray $name" "$out/g.png" "$tool" gray "$f" "$out/g.png"
    check "cloud $name" "$out/c.ply" "$tool" cloud "$f" "$out/c.ply" --fx 500 --fy 500 --cx 10 --cy 10
    check "reduce $name" "" "$tool" reduce "$f" --op sum
    check "reduce raw $name" "" "$tool" reduce "$f" --op max --type f32
done

# Outputs that cannot be written: into a missing directory, onto a directory.
check "gray into a missing directory" "" "$tool" gray "$data/rgb.png" "$out/no/such/dir/g.png"
mkdir -p "$out/is_a_dir.png"
check "gray onto a directory" "" "$tool" gray "$data/rgb.png" "$out/is_a_dir.png"
check "cloud into a missing directory" "" "$tool" cloud "$data/depth16.png" "$out/no/c.ply" \
    --fx 500 --fy 500 --cx 10 --cy 10
# A full disk: the output directory takes 512 bytes of a file, then every write fails with ENOSPC
# (tests/enospc.c, preloaded; it says why not `ulimit -f`): a message, exit 1, no output and no
# temporary file, single and batch. ASan wants its runtime first in the preload order; the shim
# goes first here, which it does not mind.
full_disk() {
    CLC_ENOSPC_DIR="$out" CLC_ENOSPC_AFTER=512 LD_PRELOAD="$enospc${LD_PRELOAD:+ $LD_PRELOAD}" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}
mkdir -p "$work/depth_in"
cp "$data/depth16.png" "$work/depth_in/d1.png"
cp "$data/depth16.png" "$work/depth_in/d2.png"
# no_space NAME: the last run failed (exit 1, not a success that kept a truncated file) and said
# why.
no_space() {
    [ "$rc" -eq 1 ] || { echo "FAIL $1: exit $rc, not 1"; failures=$((failures + 1)); }
    grep -q "No space left on device" "$work/stderr" || {
        echo "FAIL $1: no ENOSPC message: $(head -c 300 "$work/stderr")"
        failures=$((failures + 1))
    }
}
check "cloud onto a full disk" "$out/c.ply" full_disk "$tool" cloud "$data/depth16.png" \
    "$out/c.ply" --fx 500 --fy 500 --cx 10 --cy 10 --ascii
no_space "cloud onto a full disk"
check "cloud batch onto a full disk" "$out/d1.ply" full_disk "$tool" cloud "$work/depth_in" \
    -o "$out" --fx 500 --fy 500 --cx 10 --cy 10 --quiet
no_space "cloud batch onto a full disk"
check "gray onto a full disk" "$out/g.png" full_disk "$tool" gray "$data/photo420.jpg" \
    "$out/g.png"
no_space "gray onto a full disk"
# Links through /proc refused (a sandbox; the same preload, CLC_NOLINK): the unnamed output cannot
# be named, so it is written again as a temporary file renamed over the target: the same bytes,
# exit 0, nothing else left in the folder, a file replaced as well as made.
rm -rf "$work/nolink" && mkdir -p "$work/nolink"
"$tool" gray "$data/photo420.jpg" "$work/g_ref.png" >/dev/null 2>&1
for round in new replaced; do
    runs=$((runs + 1))
    CLC_NOLINK=1 LD_PRELOAD="$enospc${LD_PRELOAD:+ $LD_PRELOAD}" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        "$tool" gray "$data/photo420.jpg" "$work/nolink/g.png" > /dev/null 2> "$work/stderr"
    rc=$?
    if [ "$rc" -ne 0 ] || ! cmp -s "$work/nolink/g.png" "$work/g_ref.png" ||
        [ "$(ls -A "$work/nolink")" != g.png ]; then
        echo "FAIL links refused ($round): exit $rc, $(ls -A "$work/nolink"), $(head -c 300 "$work/stderr")"
        failures=$((failures + 1))
    fi
done
# Absurd parameters.
check "cloud with fx 0" "$out/c.ply" "$tool" cloud "$data/depth16.png" "$out/c.ply" \
    --fx 0 --fy 500 --cx 10 --cy 10
check "cloud with NaN cx" "$out/c.ply" "$tool" cloud "$data/depth16.png" "$out/c.ply" \
    --fx 500 --fy 500 --cx nan --cy 10
check "cloud with negative scale" "$out/c.ply" "$tool" cloud "$data/depth16.png" "$out/c.ply" \
    --fx 500 --fy 500 --cx 10 --cy 10 --depth-scale -1
check "reduce with an unknown op" "" "$tool" reduce "$data/npy/f32_v2.npy" --op median

echo "$runs runs, $failures failures"
[ "$failures" -eq 0 ]
