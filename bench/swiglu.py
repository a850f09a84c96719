"""The gated MLP of Llama-style models, H = silu(X Wg) * (X Wu), bf16:
tilec's examples/swiglu.mlir (both dots in one kernel, X read once, the
gate in the epilogue) against torch in the same run on the same GPU: the
merged projection vLLM and others use (one cuBLAS GEMM with [Wg | Wu],
then silu(y1) * y2 in a second kernel) and two separate matmuls.

    python3 bench/swiglu.py [--quick]     # bundles from $TILEC_BUNDLE_DIR

(N, K) of Llama-3 8B (14336, 4096) and 70B (28672, 8192) times M in {16,
128, 512, 2048, 8192}. Per shape: TFLOP/s (4 M N K flops) of each, the
ratios of tilec to each; every result first checked against float64 on
fresh random inputs with H poisoned (NaN). Timing: flushed CUDA-graph
replays (bench/timing.py). At the end: the geometric means."""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, tilec  # noqa: E402
from timing import interleaved  # noqa: E402

NK = [(14336, 4096), (28672, 8192)]
MS = [16, 128, 512, 2048, 8192]


def main():
    quick = "--quick" in sys.argv
    k = tilec.load(os.path.join(BUNDLES, "swiglu.tlc"))["swiglu"]
    silu = torch.nn.functional.silu
    print(f"{'M x N x K':18} {'tilec member':16} {'tilec':>7} {'merged':>7} {'two':>7} "
          f"{'t/merged':>8} {'t/two':>6}  (TFLOP/s)  {torch.cuda.get_device_name()}")
    ratios = []
    for n, kk in NK[:1] if quick else NK:
        for m in MS[::2] if quick else MS:
            x = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
            wg = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16) / kk ** 0.5
            wu = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16) / kk ** 0.5
            w = torch.cat([wg, wu], dim=1)
            h = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            ref = silu(x.double() @ wg.double()) * (x.double() @ wu.double())

            def merged():
                y = x @ w
                return silu(y[:, :n]) * y[:, n:]

            def two():
                return silu(x @ wg) * (x @ wu)

            for name, fn in (("merged", merged), ("two", two)):
                check(fn(), ref, f"torch {name} {m}x{n}x{kk}")
            h.fill_(float("nan"))
            k(x, wg, wu, h)
            check(h, ref, f"tilec {m}x{n}x{kk}")
            ms = interleaved({"tilec": lambda: k(x, wg, wu, h), "merged": merged, "two": two},
                             rounds=3, rep_ms=25, graphs=True)
            tf = {name: 4 * m * n * kk / t / 1e9 for name, t in ms.items()}
            ratios.append((tf["tilec"] / tf["merged"], tf["tilec"] / tf["two"]))
            print(f"{m}x{n}x{kk:<10} {k.choose(x, wg, wu, h):16} {tf['tilec']:7.0f} "
                  f"{tf['merged']:7.0f} {tf['two']:7.0f} {ratios[-1][0]:8.2f} {ratios[-1][1]:6.2f}",
                  flush=True)
    geo = [math.exp(sum(math.log(r[i]) for r in ratios) / len(ratios)) for i in range(2)]
    print(f"geometric mean over {len(ratios)} shapes: tilec/merged {geo[0]:.3f}, "
          f"tilec/two {geo[1]:.3f}")


if __name__ == "__main__":
    main()
