#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/stage-gpu.sh here): issue 15's
# checks that need a GPU beyond the test suite. The two-GPU tests and the
# tensor-parallel example where two GPUs are present; host time of a
# launch from C (the bare driver beside it, on the legacy and on an own
# stream) and from Python (Triton, torch beside it); the first launch of
# each GEMM member assembled ahead of time against compiled on first use.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi -L
rc=0
python3 -m pytest test/gpu/test_devices.py -v -rs -p no:cacheprovider 2>&1 | tee "$OUT/devices.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
if [ "$gpus" -ge 2 ]; then
  timeout 300 python3 examples/tp_mlp.py .device/examples/swiglu.tlc \
    .device/examples/gemm_batched.tlc --gpus 2 2>&1 | tee "$OUT/tp_mlp.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
cc -O2 bench/launch_c.c -I runtime/include -L .device -ltilec_runtime -ldl -o /tmp/launch_c &&
  LD_LIBRARY_PATH=$PWD/.device /tmp/launch_c .device/examples .device/vector_add.cubin 2>&1 |
  tee "$OUT/launch_c.log" || rc=1
python3 bench/launch.py 2>&1 | tee "$OUT/launch_py.log" || rc=1
python3 bench/first_launch.py .device/examples/gemm.tlc .device/gemm_all.tlc 2>&1 |
  tee "$OUT/first_launch.log" || rc=1
echo "== summary (commit $(cat .device/COMMIT))"
grep -E "PASSED|FAILED|SKIPPED|ERROR" "$OUT/devices.log" | sed -E 's/ +\[ *[0-9]+%\]//'
grep "^tp_mlp:" "$OUT/tp_mlp.log" 2>/dev/null
cat "$OUT/launch_c.log"
tail -12 "$OUT/launch_py.log"
cat "$OUT/first_launch.log"
exit $rc
