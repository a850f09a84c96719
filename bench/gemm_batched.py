"""Batched GEMM (examples/gemm_batched.mlir: 3-d views, the batch as
program_id z) against torch.bmm (cuBLAS) in one run, each checked against
float64 first (C poisoned), timed in turn as GPU time with a cold L2
(bench/timing.py FlushedGraph).

    python3 bench/gemm_batched.py      # bundles from $TILEC_BUNDLE_DIR"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, tilec  # noqa: E402
from timing import interleaved  # noqa: E402

SHAPES = [(4, 4096, 4096, 4096), (16, 2048, 2048, 512), (64, 512, 1024, 256),
          (32, 128, 128, 4096), (8, 1000, 1032, 520), (96, 256, 256, 128)]


def main():
    k = tilec.load(os.path.join(BUNDLES, "gemm_batched.tlc"))["gemm_batched"]
    print(f"{'batch x M x N x K':22} {'tilec':>7} {'cuBLAS':>7} {'ratio':>6}  kernel")
    for bs, m, n, kk in SHAPES:
        a = torch.randn(bs, m, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(bs, kk, n, device="cuda", dtype=torch.bfloat16)
        c = torch.full((bs, m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, c)
        check(c, a.double() @ b.double(), f"gemm_batched {bs}x{m}x{n}x{kk}")
        ms = interleaved({"tilec": lambda: k(a, b, c), "cublas": lambda: torch.bmm(a, b)},
                         rounds=3, graphs=True)
        flops = 2 * bs * m * n * kk
        t, cb = flops / ms["tilec"] / 1e9, flops / ms["cublas"] / 1e9
        print(f"{bs}x{m}x{n}x{kk:<12} {t:7.0f} {cb:7.0f} {t / cb:6.2f}  {k.choose(a, b, c)}",
              flush=True)


if __name__ == "__main__":
    main()
