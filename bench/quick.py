"""The quick start's speed check: examples/gemm.mlir's kernel (bias + ReLU
fused, bf16) beside cuBLAS (torch.matmul, no epilogue) on square problems,
in one run on one GPU, each result checked first against float64 on fresh
random inputs with a poisoned output. Timed in turn (bench/timing.py).

    python3 bench/quick.py [BUNDLE]     # default: $TILEC_BUNDLE_DIR/gemm.tlc
"""

import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import tilec  # noqa: E402
from timing import interleaved  # noqa: E402


def main():
    default = os.path.join(os.environ.get("TILEC_BUNDLE_DIR",
                                          os.path.join(HERE, "..", "build", "examples")),
                           "gemm.tlc")
    gemm = tilec.load(sys.argv[1] if len(sys.argv) > 1 else default)["gemm"]
    torch.manual_seed(0)
    # Correctness first, at a shape that is not a multiple of the tile.
    m, n, k = 1000, 1000, 520
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16) / math.sqrt(k)
    bias = torch.randn(n, device="cuda")
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    gemm(a, b, bias, c)
    ref = torch.relu(a.double() @ b.double() + bias.double())
    err = ((c.double() - ref).norm() / ref.norm()).item()
    print(f"gemm {m}x{n}x{k}: relative error vs float64 {err:.1e}")
    if not err < 1e-2:
        sys.exit(1)
    print(f"{'M=N=K':>6} {'tilec TFLOP/s':>14} {'cuBLAS TFLOP/s':>15} {'tilec/cuBLAS':>13}"
          f"  ({torch.cuda.get_device_name()})")
    for size in (2048, 4096, 8192):
        a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(size, device="cuda")
        c = torch.empty(size, size, device="cuda", dtype=torch.bfloat16)
        t = interleaved({"tilec": lambda: gemm(a, b, bias, c),
                         "cublas": lambda: torch.matmul(a, b)})
        flop = 2 * size ** 3
        tf = {name: flop / ms / 1e9 for name, ms in t.items()}
        print(f"{size:>6} {tf['tilec']:>14.0f} {tf['cublas']:>15.0f} "
              f"{tf['tilec'] / tf['cublas']:>13.2f}")


if __name__ == "__main__":
    main()
