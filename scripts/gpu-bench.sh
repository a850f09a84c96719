#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): the benchmarks
# in bench/, each printing its table.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
echo "== bench (commit $(cat .device/COMMIT))"
rc=0
for b in "${@:-bench/transpose.py}"; do
  python3 "$b" || rc=1
done
exit $rc
