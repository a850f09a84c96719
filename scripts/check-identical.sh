#!/usr/bin/env bash
# Shows that a change leaves what the compiler makes of every example
# byte-identical: the PTX, the final tile/tgpu IR and the bundle of each
# examples/*.mlir on sm_90a and sm_100a (and the profiled GEMM).
#   scripts/check-identical.sh save DIR     # before the change
#   scripts/check-identical.sh compare DIR  # after it: lists what differs
# Uses build/bin/tilec ($TILEC to override).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: check-identical.sh save|compare DIR}
ref=${2:?usage: check-identical.sh save|compare DIR}
tilec=${TILEC:-build/bin/tilec}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for src in examples/*.mlir; do
  name=$(basename "$src" .mlir)
  for arch in sm_90a sm_100a; do
    for emit in ptx mlir; do
      "$tilec" compile "$src" --arch=$arch --emit=$emit \
        -o "$out/$name.$arch.$emit" 2>/dev/null
    done
    "$tilec" compile "$src" --arch=$arch -o "$out/$name.$arch.tlc" 2>/dev/null
  done
done
"$tilec" compile examples/gemm.mlir --profile -o "$out/gemm.profiled.tlc" 2>/dev/null

case $mode in
  save)
    rm -rf "$ref" && mkdir -p "$ref" && cp "$out"/* "$ref"/
    echo "saved $(ls "$ref" | wc -l) files in $ref" ;;
  compare)
    n=0 bad=0
    for f in "$out"/*; do
      n=$((n + 1))
      if ! cmp -s "$f" "$ref/$(basename "$f")"; then
        echo "differs: $(basename "$f")"; bad=$((bad + 1))
      fi
    done
    [ "$(ls "$ref" | wc -l)" -eq "$n" ] || { echo "file count differs"; bad=1; }
    echo "$n files compared with $ref: $bad differ"
    [ $bad -eq 0 ] ;;
  *) echo "usage: check-identical.sh save|compare DIR" >&2; exit 2 ;;
esac
