#!/usr/bin/env bash
# Builds what a GPU run needs and stages it in .device/ (ignored by git), the
# folder the device tool carries: the example and test bundles, the runtime
# library, the fake driver (for the runtime's own tests), gemm_check (the
# C path) and the CMake consumer project's program.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build -j2 examples gpu_test_kernels tilec_runtime tilec_fake_cuda gemm_check
# The runtime that launches on the GPU is an optimized build (build/ is a
# Debug build: its -O0 launch path would be timed with every kernel).
cmake -S runtime -B build-rt -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build-rt -j2 >/dev/null
rm -rf .device && mkdir -p .device/examples
cp build/examples/*.tlc .device/examples/
cp build-rt/libtilec_runtime.so build/test/unit/libtilec_fake_cuda.so \
   build/bin/gemm_check .device/
# Perfetto's trace-format classes (pure Python, pinned as in scripts/test.sh)
# for the GPU test that parses a protobuf trace: the GPU machine reaches no
# package index.
[ -d build/pyext/perfetto ] ||
  python3 -m pip install -q --disable-pip-version-check --target build/pyext \
    perfetto==0.59.1 protobuf==7.36.2 || true
[ -d build/pyext/perfetto ] && cp -r build/pyext .device/pyext
if git diff --quiet HEAD 2>/dev/null; then
  git rev-parse --short HEAD > .device/COMMIT
else
  echo "$(git rev-parse --short HEAD)+uncommitted" > .device/COMMIT
fi
# gemm.mlir with every member assembled, beside the default bundle (members
# compiled on first launch): bench/first_launch.py compares the two.
build/bin/tilec compile examples/gemm.mlir --assemble=all -o .device/gemm_all.tlc 2>/dev/null
for k in gemm gemm_fp8 attention vector_add; do
  build/bin/tilec compile examples/$k.mlir --emit=cubin -o .device/$k.cubin
done
# examples/cmake-consumer built against an install of build/ (as the ctest
# test cmake_consumer_build does); test/gpu/test_cmake_consumer.py runs it.
cmake -DBUILD="$PWD/build" -DSOURCE="$PWD/examples/cmake-consumer" \
  -DWORK="$PWD/build/test/cmake-consumer" -P test/package/consumer.cmake >/dev/null
cp build/test/cmake-consumer/build/consumer .device/
# docs/TUTORIAL.md's CPU blocks (its kernels compiled) into .device/tutorial;
# test/gpu/test_tutorial.py runs its GPU blocks there.
python3 scripts/run_doc.py docs/TUTORIAL.md --work .device/tutorial --phase cpu >/dev/null
du -sh .device
