#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .device/ staged by
# scripts/stage-gpu.sh. Prints a table of every GPU test case last.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -m pytest test/gpu python/tests -v -rs -p no:cacheprovider "$@" 2>&1 | tee "$OUT/pytest.log"
rc=${PIPESTATUS[0]}
# The C path: gemm.mlir through --emit=c and the runtime, checked on the CPU.
: > "$OUT/gemm_check.log"
for shape in "300 200 136" "1024 1024 1024" "1 8 8"; do
  LD_LIBRARY_PATH=$PWD/.device .device/gemm_check $shape 2>&1 | tee -a "$OUT/gemm_check.log" || rc=1
done
echo "== summary (commit $(cat .device/COMMIT), $(cat "$OUT/gpu.txt"))"
grep -E "PASSED|FAILED|SKIPPED|ERROR" "$OUT/pytest.log" | grep -E "^(test/gpu|python/tests/test_gpu_launch)" | sed -E 's/ +\[ *[0-9]+%\]//' | awk '{printf "%-60s %s\n", $1, $2}'
grep "gemm_check: PASS\|gemm_check: FAIL" "$OUT/gemm_check.log"
tail -1 "$OUT/pytest.log"
exit $rc
