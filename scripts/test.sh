#!/usr/bin/env bash
# Sets up and runs every test: lit (FileCheck), GoogleTest (ctest) and
# Python (pytest; the GPU tests report themselves skipped without a GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

status=0
# nvdisasm, pinned (the SASS of sm_100a kernels, checked by lit without a
# GPU), into build/pyext beside perfetto below.
[ -x build/pyext/nvidia/cu13/bin/nvdisasm ] ||
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --target build/pyext \
    nvidia-cuda-nvdisasm==13.5.37 ||
  echo "warning: could not install nvdisasm from PyPI; the SASS checks will be skipped" >&2
echo "== lit"
/usr/lib/llvm-22/bin/lit -sv build/test || status=1
echo "== GoogleTest"
ctest --test-dir build --output-on-failure -j2 || status=1
echo "== Python"
# Perfetto's trace-format classes (a real parser of the profiler's
# protobuf traces), pinned, into build/pyext: the test that needs them
# reports itself skipped where PyPI cannot be reached.
[ -d build/pyext/perfetto ] ||
  /usr/bin/python3 -m pip install -q --disable-pip-version-check --target build/pyext \
    perfetto==0.59.1 protobuf==7.36.2 ||
  echo "warning: could not install perfetto from PyPI; its trace test will be skipped" >&2
export TILEC_RUNTIME_LIB=$PWD/build/runtime/libtilec_runtime.so
export TILEC_BUNDLE_DIR=$PWD/build/examples
export PYTHONPATH=$PWD/python:$PWD/build/pyext
/usr/bin/python3 -m pytest python/tests test/gpu -v -rs -p no:cacheprovider || status=1
exit $status
