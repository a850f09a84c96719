"""Compile time and bundle loading against the number of kernels (issue 12:
both must grow linearly). No GPU needed.

    python3 bench/scaling.py [tilec binary]   # default build/bin/tilec

For N kernels: `tilec compile --emit=mlir` and `--emit=bundle` of a file of N
small elementwise kernels, and tilec.load + a lookup of every kernel of an N
kernel bundle (metadata only, a stand-in cubin). Prints seconds, and the
time per kernel, which stays flat when the growth is linear."""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
import tilec  # noqa: E402
from tilec_test_util import build_bundle  # noqa: E402

KERNEL = """func.func @k{i}(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {{tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>}} {{
  %p = tile.program_id x
  %c = arith.constant 128 : i32
  %o = arith.muli %p, %c : i32
  %t = tile.load %x[%o] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %u = arith.addf %t, %t : !tile.tile<128xf32>
  tile.store %u, %y[%o] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}}
"""

META_KERNEL = """kernel k{i}
threads 128
smem 0
cluster 1 1 1
grid cdiv(dim(0,0),128) 1 1
param tensor x f32 1 shape ? strides 1 align 16
param tensor y f32 1 shape ? strides 1 align 16
end
"""


def compile_time(tilec_bin, n, emit):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.mlir")
        with open(src, "w") as f:
            f.write("".join(KERNEL.format(i=i) for i in range(n)))
        t = time.perf_counter()
        subprocess.run([tilec_bin, "compile", src, "--emit=" + emit, "-o",
                        os.path.join(d, "out")], check=True, capture_output=True)
        return time.perf_counter() - t


def load_time(n):
    meta = "tilec-bundle 1\narch sm_90a\n" + "".join(META_KERNEL.format(i=i) for i in range(n))
    data = build_bundle(meta)
    t = time.perf_counter()
    b = tilec.load(data)
    for i in range(n):
        b.kernel("k%d" % i)
    return time.perf_counter() - t


def main():
    tilec_bin = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "tilec")
    print("%-28s %8s %10s %14s" % ("what", "kernels", "seconds", "ms a kernel"))
    for n in (1000, 10000, 50000):
        s = load_time(n)
        print("%-28s %8d %10.2f %14.3f" % ("tilec.load + every lookup", n, s, 1e3 * s / n))
    for emit in ("mlir", "bundle"):
        for n in (1000, 10000):
            s = compile_time(tilec_bin, n, emit)
            print("%-28s %8d %10.2f %14.3f" % ("tilec compile --emit=" + emit, n, s, 1e3 * s / n))


if __name__ == "__main__":
    main()
