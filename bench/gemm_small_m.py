"""GEMM at small M (decode-time projections): the runtime's default choice
in gemm's and gemm_e4m3's families against cuBLAS (torch.matmul, and
torch._scaled_mm for fp8) in one run on one GPU, every result checked
against float64 first.

    python3 bench/gemm_small_m.py          # bundles from $TILEC_BUNDLE_DIR

M in {1, 16, 32, 64, 128} by LLM projections (N, K), bf16 and fp8 (B given
N x K, per-tensor scales). Times are GPU times of CUDA graph replays with
a cold L2 (timing.interleaved). "B read" is the weights' bytes (K N,
the traffic that bounds these shapes) over tilec's time, as a fraction of
a device-to-device copy's rate measured in the same run (its bytes read
and written over its time: the memory's whole rate, as B alone is read).
The last lines give the geometric mean of tilec / cuBLAS at M <= 16 and
over all rows, and the lowest at M <= 16."""

import math
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401

import torch  # noqa: E402

sys.path.insert(0, _HERE)
from gemm import BUNDLES, check, tilec  # noqa: E402
from gemm_llm import bf16_problem, copy_bandwidth, fp8_problem  # noqa: E402
from timing import interleaved  # noqa: E402

MS = (1, 16, 32, 64, 128)
# Llama-like projections, a 3008-wide one and a small square (N and K
# multiples of 16: torch._scaled_mm takes no others).
NK = [(4096, 4096), (6144, 4096), (4096, 14336), (8192, 8192), (28672, 4096),
      (3008, 2048), (1008, 1040)]


def main():
    copy_bw = copy_bandwidth()
    print(f"device-to-device copy: {copy_bw / 1e9:.0f} GB/s ({torch.cuda.get_device_name()})")
    print(f"{'type':4} {'M x N x K':>17} {'member':>24} {'us':>7} {'cuBLAS us':>9} "
          f"{'t/cB':>5} {'B read':>6}")
    ratios = {}
    for kind, stem, name, problem in (("bf16", "gemm", "gemm", bf16_problem),
                                      ("fp8", "gemm_fp8", "gemm_e4m3", fp8_problem)):
        k = tilec.load(os.path.join(BUNDLES, stem + ".tlc"))[name]
        for m in MS:
            for n, kk in NK:
                args, ref, _, cublas, b_bytes = problem(m, n, kk)
                c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
                member = k.choose(*args, c)
                c.fill_(float("nan"))
                k(*args, c)
                check(c, ref, f"{kind} {member} {m}x{n}x{kk}")
                t = interleaved({"tilec": lambda: k(*args, c), "cublas": cublas},
                                rounds=3, rep_ms=20, graphs=True)
                r = t["cublas"] / t["tilec"]
                ratios.setdefault(kind, []).append((m, r))
                read = b_bytes / (t["tilec"] * 1e-3) / copy_bw
                print(f"{kind:4} {m:>5}x{n}x{kk:<6} {member:>24} {t['tilec'] * 1e3:7.1f} "
                      f"{t['cublas'] * 1e3:9.1f} {r:5.2f} {read:6.2f}", flush=True)

    def geomean(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs))

    for kind, rs in ratios.items():
        small = [r for m, r in rs if m <= 16]
        print(f"{kind}: M <= 16 geomean {geomean(small):.3f}, lowest {min(small):.2f}; "
              f"all rows geomean {geomean([r for _, r in rs]):.3f}")


if __name__ == "__main__":
    main()
