#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): the benchmarks
# in bench/, each printing its table.
set -uo pipefail
cd "$(dirname "$0")/.."
export TILEC_RUNTIME_LIB=$PWD/.device/libtilec_runtime.so
export TILEC_BUNDLE_DIR=$PWD/.device/examples
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
echo "== bench (commit $(cat .device/COMMIT))"
rc=0
for b in "${@:-bench/transpose.py}"; do
  python3 "$b" || rc=1
done
exit $rc
