#!/bin/sh
# The shared library exports only public clc_ symbols (no clc__ internals, no serial reference,
# nothing else), each declared in a public header, and carries a versioned SONAME.
set -eu
lib=$1
major=$2
headers=$3
symbols=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}')
[ -n "$symbols" ] || { echo "no exported symbols"; exit 1; }
bad=$(printf '%s\n' "$symbols" | grep -v '^clc_[a-z]' || true)
if [ -n "$bad" ]; then
    echo "exported symbols outside the public clc_ API:"; echo "$bad"; exit 1
fi
for sym in $symbols; do
    if ! grep -q "[ *]$sym(" "$headers"/clcompute/*.h; then
        echo "exported symbol $sym is declared in no public header"; exit 1
    fi
done
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
case "$soname" in
    libclcompute.so.$major) ;;
    *) echo "SONAME is '$soname', expected libclcompute.so.$major"; exit 1 ;;
esac
echo "$(printf '%s\n' "$symbols" | wc -l) public symbols, SONAME $soname"
