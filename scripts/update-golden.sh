#!/usr/bin/env bash
# Rewrites the one full golden file of test/examples/golden-gemm.test from
# the compiler in build/: the final tile/tgpu IR of examples/gemm.mlir's
# kernel (value names normalized by scripts/ir-golden.py). Run it only when
# a change is meant to move it, and say in the commit why the difference is
# right. (The other GEMM tests are FileCheck lines, edited by hand.)
set -euo pipefail
cd "$(dirname "$0")/.."
tilec=build/bin/tilec
out=test/examples/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tilec" compile examples/gemm.mlir --emit=mlir -o "$tmp/gemm.mlir" 2>/dev/null
python3 scripts/ir-golden.py "$tmp/gemm.mlir" gemm > "$out/gemm.tgpu"
git status --short "$out"
