#!/usr/bin/env bash
# Installs every package libclcompute needs on Debian or Ubuntu (when missing), then configures
# and builds it into ./build with warnings as errors. Run as root or with sudo available.
#   ./setup.sh            install + build
#   ctest --test-dir build   run the tests afterwards
set -euo pipefail
cd "$(dirname "$0")"

packages=(
    build-essential cmake pkg-config # toolchain
    ocl-icd-opencl-dev opencl-c-headers # OpenCL headers and ICD loader
    pocl-opencl-icd clinfo # a CPU OpenCL device, so everything runs without a GPU
    libcmocka-dev # tests
    libturbojpeg0-dev libspng-dev libstb-dev # image files, for the tool: JPEG, PNG, the rest
    valgrind oclgrind clang # checkers: valgrind, oclgrind and libFuzzer tests (tests/)
    python3-dev python3-venv # the Python package (pyproject.toml, docs/python.md)
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
        "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLC_WERROR=ON
cmake --build build --parallel "$(nproc)"
# The same code with AddressSanitizer and UndefinedBehaviorSanitizer, which the test
# `sanitized_suite` runs (tests/sanitized_suite.sh).
cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLC_WERROR=ON \
    -DCLC_SANITIZE=address,undefined -DCLC_BUILD_BENCH=OFF -DCLC_BUILD_EXAMPLES=OFF
cmake --build build/sanitize --parallel "$(nproc)"
# The Python package, built from pyproject.toml into a virtual environment of its own, with its
# build tools and test runner from PyPI; ctest's `python` test runs its pytest suite.
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    [[ -x build/python/bin/python ]] || python3 -m venv build/python
    build/python/bin/pip install -q "scikit-build-core>=0.10" "numpy>=1.23" "pytest>=7"
    build/python/bin/pip install -q --no-deps --no-build-isolation -C cmake.define.CLC_WERROR=ON .
    echo "setup: the Python package is in build/python (build/python/bin/python -c 'import clcompute')"
else
    echo "setup: $(python3 --version) is older than 3.11; the Python package is not built"
fi
echo "setup: built into ./build; run the tests with: ctest --test-dir build"
