#!/usr/bin/env bash
# Sets up and runs every test: lit (FileCheck), GoogleTest (ctest) and
# Python (pytest; the GPU tests report themselves skipped without a GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

status=0
echo "== lit"
/usr/lib/llvm-22/bin/lit -sv build/test || status=1
echo "== GoogleTest"
ctest --test-dir build --output-on-failure -j2 || status=1
echo "== Python"
export TILEC_RUNTIME_LIB=$PWD/build/runtime/libtilec_runtime.so
export TILEC_BUNDLE_DIR=$PWD/build/examples
export PYTHONPATH=$PWD/python
/usr/bin/python3 -m pytest python/tests test/gpu -v -rs -p no:cacheprovider || status=1
exit $status
