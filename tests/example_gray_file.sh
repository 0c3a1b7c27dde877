#!/bin/sh
# examples/gray_file refuses, with a message and before any work, every output it must not
# write: the input itself under another name, a name that is not .pgm, a file in a folder that
# is not there; and more arguments than it takes. The input stays as it was.
#   example_gray_file.sh GRAY_FILE RGB.PPM WORKDIR
example=$1 data=$2 work=$3
fail() { echo "example_gray_file: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$data" "$work/same.ppm" || exit 1
expect() { # STATUS MESSAGE ARGS...: the exit status, a fixed string of its message
    status=$1 message=$2
    shift 2
    "$example" "$@" > "$work/out" 2> "$work/err"
    rc=$?
    [ $rc -eq "$status" ] && grep -qF "$message" "$work/err" ||
        fail "$*: exit $rc, '$(cat "$work/err")', wanted $status and '$message'"
}
expect 2 "is the input itself" "$work/same.ppm" "$work/./same.ppm"
cmp -s "$data" "$work/same.ppm" || fail "the input changed"
expect 2 "name it .pgm" "$work/same.ppm" "$work/gray.png"
expect 2 "usage:" "$work/same.ppm" "$work/gray.pgm" cpu extra
expect 1 "No such file or directory" "$work/same.ppm" "$work/no_such_folder/gray.pgm"
expect 1 "is not a folder" "$work/same.ppm" "$work/same.ppm/gray.pgm"
: > "$work/photo.png"
ln -s photo.png "$work/link.pgm" || exit 1
expect 2 "name it .pgm" "$work/same.ppm" "$work/link.pgm"
[ ! -s "$work/photo.png" ] && [ ! -e "$work/gray.png" ] && [ ! -e "$work/gray.pgm" ] ||
    fail "an output was written"
# and the plain run still works, into the current folder too
(cd "$work" && "$example" same.ppm gray.pgm > "$work/out" 2> "$work/err") ||
    fail "gray.pgm in ./: $(cat "$work/err")"
[ "$(head -c 2 "$work/gray.pgm")" = P5 ] || fail "gray.pgm is not a PGM"
echo "example_gray_file OK"
