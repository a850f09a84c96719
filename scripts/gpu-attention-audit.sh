#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): what issue 11
# asks of the attention kernels beyond speed. The SASS of each
# warp-specialized kernel of examples/attention.mlir must use wgmma (HGMMA)
# and bulk tensor copies (UTMALDG, UTMASTG) and no local memory (LDL/STL:
# spills); compute-sanitizer's memcheck, racecheck and synccheck must report
# no error on each kernel (scripts/attention_check.py: two lengths, causal
# and not, GQA, both layouts), and on the backward's main kernels
# (scripts/attention_bwd_check.py).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rc=0
cuobjdump -sass .device/attention.cubin > "$OUT/attention.sass" 2>&1 || rc=1
awk '/Function : /{fn = $NF; names[fn] = 1}
     /HGMMA/{h[fn]++} /UTMALDG/{l[fn]++} /UTMASTG/{s[fn]++} / HMMA/{m[fn]++}
     / (LDL|STL)/{ls[fn]++}
     END {for (f in names)
            printf "== SASS of %s: HGMMA %d, UTMALDG %d, UTMASTG %d, HMMA %d, local memory (LDL/STL) %d\n",
                   f, h[f], l[f], s[f], m[f], ls[f]}' "$OUT/attention.sass" | sort
for fn in $(awk '/Function : /{print $NF}' "$OUT/attention.sass" | grep -v '__plain$'); do
  awk -v fn="$fn" '/Function : /{on = ($NF == fn)} on && /HGMMA/{g = 1} on && / (LDL|STL)/{sp = 1}
                   END {exit !(g && !sp)}' "$OUT/attention.sass" || { echo "FAIL: $fn"; rc=1; }
done
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# sanitize LOG KERNELS SCRIPT SUFFIX: SCRIPT's launches of the kernels whose
# names contain KERNELS under each tool, a line a tool.
sanitize() {
  for tool in memcheck racecheck synccheck; do
    log="$OUT/sanitize-$tool-$1.log"
    "$SAN" --tool "$tool" --kernel-name kns="$2" --error-exitcode 9 \
      python3 "$3" > "$log" 2>&1
    r=$?
    printf "%-10s exit %d  %d PASS, %d FAIL  %s%s\n" "$tool" "$r" \
      "$(grep -c ' PASS$' "$log")" "$(grep -c ' FAIL$' "$log")" \
      "$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)" "$4"
    [ $r -eq 0 ] || rc=1
  done
}
sanitize attention attention scripts/attention_check.py ""
# The backward's main kernels (scripts/attention_bwd_check.py).
sanitize attention-bwd attention_bwd_d scripts/attention_bwd_check.py " (backward)"
exit $rc
