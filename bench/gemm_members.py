"""Every member of a GEMM family timed at the shapes of gemm_llm.py, for
fitting and checking the cost model (docs/ARCHITECTURE.md, "Split-K
members"), with cuBLAS in the same run.

    python3 bench/gemm_members.py [bf16] [fp8] [--quick] [--csv FILE]

Per shape: the member the cost model picks (untuned), its ratio to
cuBLAS, and the fastest member and its ratio; at the end, per type, the
geometric mean of chosen/fastest (1.0: the cost model always picks the
fastest member) and of each against cuBLAS. --csv writes every member's
time (type, M, N, K, member, ms, cuBLAS ms, chosen). Every member is first
checked against float64 with C poisoned; a member the device cannot run at
a shape (its split-K workspace does not fit) is left out there, and so are
split-K members whose partials would take over 1 GiB. Timing as
gemm_llm.py: flushed CUDA-graph replays."""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, tilec  # noqa: E402
from gemm_llm import as_is, bf16_problem, fp8_problem, shapes  # noqa: E402
from timing import interleaved  # noqa: E402


def main():
    quick = "--quick" in sys.argv
    csv = open(sys.argv[sys.argv.index("--csv") + 1], "w") if "--csv" in sys.argv else None
    kinds = [a for a in sys.argv[1:] if a in ("bf16", "fp8")] or ["bf16", "fp8"]
    summary = []
    for kind in kinds:
        file, head, problem = {"bf16": ("gemm.tlc", "gemm", bf16_problem),
                               "fp8": ("gemm_fp8.tlc", "gemm_e4m3", fp8_problem)}[kind]
        bundle = tilec.load(os.path.join(BUNDLES, file))
        k = bundle[head]
        names = [head] + [v for v in bundle.kernels
                          if v.startswith(head + "__") and not v.endswith("__plain")]
        ratios = []
        for m, n, kk in shapes(quick):
            args, ref, _, cublas, _ = problem(m, n, kk)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            runs = {"cublas": cublas}
            for name in names:
                if "_k" in name.split("__")[-1] and m * n * 16 > 1 << 30:
                    # Partials of over 1 GiB: a CUDA-graph capture needs
                    # buffers of its own, and running out of memory inside
                    # the capture invalidates it. Never the fastest there.
                    continue
                fn = as_is(k, bundle, name)
                c.fill_(float("nan"))
                try:
                    fn(*args, c)
                except tilec.TilecError as e:
                    if e.code != tilec.OUT_OF_RESOURCES:
                        raise
                    continue
                check(c, ref, f"{kind} {name} {m}x{n}x{kk}")
                runs[name] = (lambda fn=fn: fn(*args, c))
            ms = interleaved(runs, rounds=2, rep_ms=10, graphs=True)
            chosen = k.choose(*args, c)
            fastest = min((t, name) for name, t in ms.items() if name != "cublas")[1]
            if csv:
                for name, t in ms.items():
                    csv.write(f"{kind},{m},{n},{kk},{name},{t:.5f},{ms['cublas']:.5f},"
                              f"{int(name == chosen)}\n")
                csv.flush()
            ratios.append((ms[fastest] / ms[chosen], ms["cublas"] / ms[chosen],
                           ms["cublas"] / ms[fastest]))
            print(f"{kind:5} {m}x{n}x{kk:<12} chosen {chosen:22} {ratios[-1][1]:5.2f}  "
                  f"fastest {fastest:22} {ratios[-1][2]:5.2f}", flush=True)
        geo = [math.exp(sum(math.log(r[i]) for r in ratios) / len(ratios)) for i in range(3)]
        summary.append(f"{kind}: geometric mean over {len(ratios)} shapes: chosen/fastest "
                       f"{geo[0]:.3f}; chosen/cuBLAS {geo[1]:.3f}; fastest/cuBLAS {geo[2]:.3f}")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
