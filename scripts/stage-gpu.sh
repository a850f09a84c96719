#!/usr/bin/env bash
# Builds what a GPU run needs and stages it in .device/ (ignored by git), the
# folder the device tool carries: the example bundles, the runtime library,
# and the C example's binary.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build -j2 examples tilec_runtime
rm -rf .device && mkdir -p .device/examples
cp build/examples/*.tlc .device/examples/
cp build/runtime/libtilec_runtime.so .device/
[ -x build/bin/gemm_c_example ] && cp build/bin/gemm_c_example .device/ || true
git rev-parse --short HEAD > .device/COMMIT 2>/dev/null || echo uncommitted > .device/COMMIT
du -sh .device
