#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): what issue 4
# asks of the GEMM beyond speed. The SASS of examples/gemm.mlir must use
# wgmma (HGMMA, QGMMA for gemm_fp8) and the bulk tensor copies (UTMALDG,
# UTMASTG for the epilogue), and
# compute-sanitizer's memcheck, racecheck and synccheck must report no error
# on the GEMM (through gemm_check, the --emit=c path) at two shapes, nor on
# each tile-shape member, the ping-pong, cluster and fp8 kernels
# (scripts/gemm_variants_check.py).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rc=0
for k in gemm gemm_fp8; do
  cuobjdump -sass .device/$k.cubin > "$OUT/$k.sass" 2>&1 || rc=1
  # Counted per kernel of the cubin: the warp-specialized ones, which must
  # use wgmma (HGMMA for 16-bit inputs, QGMMA for fp8), and their __plain
  # twins (mma.sync, run only where TMA cannot read a view).
  awk '/Function : /{fn = $NF; names[fn] = 1}
       /HGMMA/{h[fn]++} /QGMMA/{q[fn]++} /UTMALDG/{l[fn]++} /UTMASTG/{s[fn]++}
       / HMMA/{m[fn]++} / (LDL|STL)/{ls[fn]++}
       END {for (f in names)
              printf "== SASS of %s: HGMMA %d, QGMMA %d, UTMALDG %d, UTMASTG %d, HMMA %d, local memory (LDL/STL) %d\n",
                     f, h[f], q[f], l[f], s[f], m[f], ls[f]}' "$OUT/$k.sass" | sort
  for fn in $(awk '/Function : /{print $NF}' "$OUT/$k.sass" | grep -v '__plain$'); do
    awk -v fn="$fn" '/Function : /{on = ($NF == fn)} on && /HGMMA|QGMMA/{found = 1} END {exit !found}' \
      "$OUT/$k.sass" || rc=1
  done
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
# The kernels gemm_check does not reach (each tile shape forced, ping-pong,
# clusters, fp8), through the Python binding, only tilec's kernels
# instrumented.
for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool-variants.log"
  "$SAN" --tool "$tool" --kernel-name kns=gemm --error-exitcode 9 \
    python3 scripts/gemm_variants_check.py > "$log" 2>&1
  r=$?
  printf "%-10s %-14s exit %d  %s PASS  %s\n" "$tool" "variants" "$r" \
    "$(grep -c ' PASS$' "$log")" "$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)"
  [ $r -eq 0 ] || rc=1
done
exit $rc
