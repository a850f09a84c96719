#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): what issue 4
# asks of the GEMM beyond speed. The SASS of examples/gemm.mlir must use
# wgmma (HGMMA, QGMMA for gemm_fp8) and the bulk tensor copies (UTMALDG,
# UTMASTG for the epilogue), and
# compute-sanitizer's memcheck, racecheck and synccheck must report no error
# on the GEMM (through gemm_check, the --emit=c path) at two shapes, nor on
# the ping-pong, cluster and fp8 variants (scripts/gemm_variants_check.py).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rc=0
for k in gemm gemm_fp8; do
  cuobjdump -sass .device/$k.cubin > "$OUT/$k.sass" 2>&1 || rc=1
  # wgmma is HGMMA for 16-bit inputs, QGMMA for fp8.
  echo "== SASS of $k: HGMMA $(grep -c HGMMA "$OUT/$k.sass"), QGMMA $(grep -c QGMMA "$OUT/$k.sass"), UTMALDG $(grep -c UTMALDG "$OUT/$k.sass"), UTMASTG $(grep -c UTMASTG "$OUT/$k.sass"), HMMA $(grep -c ' HMMA' "$OUT/$k.sass"), local memory (LDL/STL) $(grep -cE ' (LDL|STL)' "$OUT/$k.sass")"
  grep -qE "HGMMA|QGMMA" "$OUT/$k.sass" || rc=1
done
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
# The variants gemm_check does not reach (ping-pong, clusters, fp8), through
# the Python binding, only tilec's kernels instrumented.
for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool-variants.log"
  "$SAN" --tool "$tool" --kernel-name kns=gemm_ --error-exitcode 9 \
    python3 scripts/gemm_variants_check.py > "$log" 2>&1
  r=$?
  printf "%-10s %-14s exit %d  %s PASS  %s\n" "$tool" "variants" "$r" \
    "$(grep -c ' PASS$' "$log")" "$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)"
  [ $r -eq 0 ] || rc=1
done
exit $rc
