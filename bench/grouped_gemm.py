"""Grouped GEMM as a mixture-of-experts layer runs it (8 experts, Mixtral
8x7B's w1: K = 4096, N = 14336), bf16: tilec's examples/grouped_gemm.mlir
(one launch for every expert) against a loop of torch.matmul over the
experts (cuBLAS, one launch each), in the same run on the same GPU.

    python3 bench/grouped_gemm.py      # bundles from $TILEC_BUNDLE_DIR

Rows: 2 x tokens (top-2 routing), split over the experts at random
(multinomial, so uneven), for tokens in {64, 512, 4096, 16384}. Per case:
TFLOP/s of each and the ratio; every result first checked against float64
on fresh random inputs with C poisoned. Timing: flushed CUDA-graph
replays (bench/timing.py)."""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, tilec  # noqa: E402
from timing import interleaved  # noqa: E402


def main():
    k = tilec.load(os.path.join(BUNDLES, "grouped_gemm.tlc"))["grouped_gemm"]
    n, kk, experts = 14336, 4096, 8
    gen = torch.Generator().manual_seed(0)
    print(f"{'tokens':>7} {'rows per expert':40} {'tilec':>7} {'torch':>7} {'ratio':>6}  "
          f"(TFLOP/s) {torch.cuda.get_device_name()}")
    ratios = []
    for tokens in (64, 512, 4096, 16384):
        choice = torch.multinomial(torch.ones(experts), 2 * tokens, replacement=True, generator=gen)
        rows = torch.bincount(choice, minlength=experts)
        offs = torch.cat([torch.zeros(1, dtype=torch.long), rows.cumsum(0)]).to("cuda", torch.int32)
        t = 2 * tokens
        a = torch.randn(t, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(experts, kk, n, device="cuda", dtype=torch.bfloat16) / kk ** 0.5
        c = torch.empty(t, n, device="cuda", dtype=torch.bfloat16)
        bounds = [int(x) for x in offs.tolist()]
        ref = torch.cat([a[bounds[e]:bounds[e + 1]].double() @ b[e].double() for e in range(experts)])

        def loop():
            for e in range(experts):
                torch.matmul(a[bounds[e]:bounds[e + 1]], b[e], out=c[bounds[e]:bounds[e + 1]])

        c.fill_(float("nan"))
        loop()
        check(c, ref, f"torch loop {tokens}")
        c.fill_(float("nan"))
        k(a, b, offs, c)
        check(c, ref, f"tilec {tokens}")
        ms = interleaved({"tilec": lambda: k(a, b, offs, c), "torch": loop}, rounds=3, rep_ms=25,
                         graphs=True)
        tf = {x: 2 * t * n * kk / v / 1e9 for x, v in ms.items()}
        ratios.append(tf["tilec"] / tf["torch"])
        print(f"{tokens:7} {str(rows.tolist()):40} {tf['tilec']:7.0f} {tf['torch']:7.0f} "
              f"{ratios[-1]:6.2f}", flush=True)
    print(f"geometric mean tilec/torch loop: "
          f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")


if __name__ == "__main__":
    main()
