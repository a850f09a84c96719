#!/usr/bin/env bash
# The main job: set up, compile examples/gemm.mlir, and where a GPU is
# present run it (through its generated C launch function) and check it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

out=build/demo
mkdir -p "$out"
echo "== tilec compile examples/gemm.mlir"
build/bin/tilec compile examples/gemm.mlir -o "$out/gemm.tlc"
build/bin/tilec compile examples/gemm.mlir --emit=ptx -o "$out/gemm.ptx"
build/bin/tilec compile examples/gemm.mlir --emit=c -o "$out/gemm"
ls -l "$out"

set +e
build/bin/gemm_check 300 200 136
rc=$?
set -e
if [ $rc -eq 77 ]; then
  echo "== no GPU on this machine: compiled, not run. What was produced:"
  echo "-- launch metadata ($out/gemm.tlc):"
  grep -a -o 'tilec-bundle [0-9]*' "$out/gemm.tlc"
  grep -a -E '^(arch|kernel|threads|smem|cluster|grid|param|end)' "$out/gemm.tlc"
  echo "-- PTX ($out/gemm.ptx), tensor-core instructions:"
  grep -c "mma.sync" "$out/gemm.ptx" | sed 's/^/   mma.sync count: /'
  grep -m3 "mma.sync" "$out/gemm.ptx"
  echo "-- C launch function ($out/gemm.h):"
  grep "tilec_status gemm_gemm" "$out/gemm.h"
  exit 0
fi
exit $rc
