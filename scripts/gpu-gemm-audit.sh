#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): what issue 4
# asks of the GEMM beyond speed. The SASS of examples/gemm.mlir must use
# HGMMA (wgmma) and the bulk tensor copy engine (UTMALDG), and
# compute-sanitizer's memcheck, racecheck and synccheck must report no error
# on the GEMM (through gemm_check, the --emit=c path) at two shapes.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rc=0
cuobjdump -sass .device/gemm.cubin > "$OUT/gemm.sass" 2>&1 || rc=1
echo "== SASS of gemm: HGMMA $(grep -c HGMMA "$OUT/gemm.sass"), UTMALDG $(grep -c UTMALDG "$OUT/gemm.sass"), HMMA $(grep -c ' HMMA' "$OUT/gemm.sass"), local memory (LDL/STL) $(grep -cE ' (LDL|STL)' "$OUT/gemm.sass")"
grep -q HGMMA "$OUT/gemm.sass" || rc=1
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  for shape in "300 200 136" "1000 520 264"; do
    log="$OUT/sanitize-$tool-${shape// /x}.log"
    LD_LIBRARY_PATH=$PWD/.device "$SAN" --tool "$tool" --error-exitcode 9 \
      .device/gemm_check $shape > "$log" 2>&1
    r=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    printf "%-10s %-14s exit %d  %s  %s\n" "$tool" "$shape" "$r" \
      "$(grep -o 'gemm_check: [A-Z]*' "$log" | head -1)" "$summary"
    [ $r -eq 0 ] || rc=1
  done
done
exit $rc
