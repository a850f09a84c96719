#!/usr/bin/env bash
# Rewrites the golden files of test/examples/golden-gemm.test from the
# compiler in build/: the PTX instruction mix of every kernel of the GEMM
# examples and the final tile/tgpu IR of one kernel per schedule. Run it
# only when a change is meant to move them, and say in the commit why
# each difference is right.
set -euo pipefail
cd "$(dirname "$0")/.."
tilec=build/bin/tilec
out=test/examples/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for e in gemm gemm_fp8 gemm_variants; do
  "$tilec" compile examples/$e.mlir --emit=ptx -o "$tmp/$e.ptx" 2>/dev/null
  "$tilec" compile examples/$e.mlir --emit=mlir -o "$tmp/$e.mlir" 2>/dev/null
  python3 scripts/ptx-mix.py "$tmp/$e.ptx" > "$out/$e.mix"
done
for k in gemm:gemm gemm_fp8:gemm_e4m3 gemm_variants:gemm_pingpong \
         gemm_variants:gemm_cluster gemm_variants:gemm_tn_gelu; do
  python3 scripts/ir-golden.py "$tmp/${k%%:*}.mlir" "${k##*:}" > "$out/${k##*:}.tgpu"
done
git status --short "$out"
