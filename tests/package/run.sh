#!/bin/sh
# Installs the build tree into a scratch prefix, then builds and runs package/consumer.c against
# it twice: with CMake's find_package (shared and static targets) and with pkg-config.
set -eu
build=$1 src=$2 work=$3 libdir=$4 cc=$5 pkgconfig=${6:-}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/clcompute/clcompute.h "$libdir/cmake/clcompute/clcomputeConfig.cmake" \
         "$libdir/cmake/clcompute/clcomputeConfigVersion.cmake" "$libdir/pkgconfig/clcompute.pc"; do
    [ -f "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# The installed tool starts as installed: it finds the library through its relative rpath
# ($ORIGIN/../lib), with no LD_LIBRARY_PATH and wherever the prefix is (moved, even).
if [ -x "$prefix/bin/clcompute" ]; then
    env -u LD_LIBRARY_PATH "$prefix/bin/clcompute" --version || { echo "installed tool fails"; exit 1; }
    cp -r "$prefix" "$work/elsewhere"
    env -u LD_LIBRARY_PATH "$work/elsewhere/bin/clcompute" --version ||
        { echo "a copied prefix's tool fails"; exit 1; }
    rm -rf "$work/elsewhere"
fi
export LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

cmake -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    >"$work/cmake-configure.log"
cmake --build "$work/cmake" >"$work/cmake-build.log"
"$work/cmake/consumer"
"$work/cmake/consumer_static"

if [ -z "$pkgconfig" ]; then
    echo "pkg-config not found"; exit 1
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
# shellcheck disable=SC2046
"$cc" -std=c11 -o "$work/consumer-pc" "$src/consumer.c" $("$pkgconfig" --cflags --libs clcompute)
"$work/consumer-pc"
echo "package: OK"
