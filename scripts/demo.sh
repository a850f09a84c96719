#!/usr/bin/env bash
# The main job: set up, compile examples/gemm.mlir, and where a GPU is
# present run it (through its generated C launch function) and check it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

out=build/demo
mkdir -p "$out"
echo "== tilec compile examples/gemm.mlir (C = relu(A B + bias), bf16)"
start=$(date +%s.%N)
build/bin/tilec compile examples/gemm.mlir -o "$out/gemm.tlc" --remarks 2> "$out/remarks.txt"
# What the flagship kernel became (its tile-shape variants and its plain
# twin for views TMA cannot read are in the bundle too).
grep "kernel 'gemm'" "$out/remarks.txt"
awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "   compiled in %.2f s\n", e - s }'
build/bin/tilec compile examples/gemm.mlir --emit=ptx -o "$out/gemm.ptx" 2>> "$out/remarks.txt"
build/bin/tilec compile examples/gemm.mlir --emit=c -o "$out/gemm" 2>> "$out/remarks.txt"
# The PTX of the kernel `gemm` alone (up to the next entry).
awk '/^.visible .entry gemm\(/ {on = 1} on && /^.visible .entry / && !/gemm\(/ {exit} on' \
  "$out/gemm.ptx" > "$out/gemm.kernel.ptx"
echo "-- the PTX of kernel 'gemm' ($out/gemm.kernel.ptx):"
for pattern in wgmma.mma_async cp.async.bulk.tensor mbarrier.try_wait setmaxnreg mma.sync; do
  printf "   %-22s %5d\n" "$pattern" "$(grep -c "$pattern" "$out/gemm.kernel.ptx" || true)"
done
grep -o -m1 "wgmma.mma_async[^ ]*" "$out/gemm.kernel.ptx" | sed 's/^/   e.g. /'
grep -o -m1 "cp.async.bulk.tensor[^ ]*" "$out/gemm.kernel.ptx" | sed 's/^/   e.g. /'
echo "-- its C launch function ($out/gemm.h):"
grep "tilec_status gemm_gemm(" "$out/gemm.h"

set +e
build/bin/gemm_check 300 200 136
rc=$?
set -e
if [ $rc -eq 77 ]; then
  echo "== no GPU on this machine: compiled, not run."
  exit 0
fi
[ $rc -eq 0 ] || exit $rc
if /usr/bin/python3 -c "import torch, triton; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "== speed beside cuBLAS"
  TILEC_RUNTIME_LIB=$PWD/build/runtime/libtilec_runtime.so /usr/bin/python3 bench/quick.py "$out/gemm.tlc"
else
  echo "== (torch with CUDA and triton not installed: no comparison with cuBLAS)"
fi
