#!/bin/sh
# The Python package's pytest suite, in the virtual environment ./setup.sh makes (build/python):
# the package is first reinstalled from this tree (an incremental build when nothing changed),
# so the tests never run an older build than the sources.
#   python.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 source=$2
py="$build/python/bin/python"
if [ ! -x "$py" ]; then
    echo "skipped: no $py (./setup.sh makes it; docs/python.md)"
    exit 77
fi
cd "$source"
"$py" -m pip install --no-deps --no-build-isolation -q -C cmake.define.CLC_WERROR=ON . ||
    { echo "FAIL: pip install of the package"; exit 1; }
cd "$build"
exec "$py" -m pytest -q -p no:cacheprovider "$source/python/tests"
