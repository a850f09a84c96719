"""The autotuner and its cache across processes (issue 13), on one GPU.

    python3 bench/autotune.py      # bundles from $TILEC_BUNDLE_DIR

Runs this script twice as a child process with one fresh TILEC_CACHE_DIR.
Each child autotunes examples/gemm.mlir's bf16 `gemm` family (128x256 as
written, 128x128, 128x64) at every shape and prints, per shape, the cost
model's member, the tuned member and the seconds `autotune` took; the
first child also checks a launch after tuning against float64 (C poisoned)
and times the cost model's member against the tuned one and cuBLAS, in
turn. The second child must find every choice in the cache: no tuning."""

import os
import subprocess
import sys
import tempfile
import time

SHAPES = [(3072, 3072, 4096), (1024, 1024, 4096), (2048, 2048, 4096), (4096, 4096, 4096),
          (1024, 14336, 4096), (512, 4096, 4096), (4000, 4104, 4096), (3000, 5000, 1024)]


def child(first):
    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gemm import BUNDLES, check, tilec  # noqa: E402
    from timing import interleaved  # noqa: E402

    bundle = tilec.load(os.path.join(BUNDLES, "gemm.tlc"))
    k = bundle["gemm"]
    total = 0.0
    for m, n, kk in SHAPES:
        a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(n, device="cuda")
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        by_cost = k.choose(a, b, bias, c)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        tuned = k.autotune(a, b, bias, c)
        torch.cuda.synchronize()
        secs = time.perf_counter() - t0
        total += secs
        line = f"{m}x{n}x{kk:<6} {by_cost:15} {tuned:15} {secs:8.3f}"
        if first:
            ref = torch.relu(a.double() @ b.double() + bias.double())
            c.fill_(float("nan"))
            k(a, b, bias, c)  # the launch runs the tuned member
            check(c, ref, f"tuned {m}x{n}x{kk}")
            flops = 2 * m * n * kk
            ms = interleaved({"cost": lambda: bundle[by_cost](a, b, bias, c),
                              "tuned": lambda: bundle[tuned](a, b, bias, c),
                              "cublas": lambda: torch.matmul(a, b)})
            tf = {name: flops / t / 1e9 for name, t in ms.items()}
            line += (f" {tf['cost']:7.0f} {tf['tuned']:7.0f} {tf['cublas']:7.0f}"
                     f" {tf['cost'] / tf['cublas']:6.2f} {tf['tuned'] / tf['cublas']:6.2f}")
        print(line, flush=True)
    print(f"total autotune seconds: {total:.3f}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("--first", "--second"):
        return child(sys.argv[1] == "--first")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TILEC_CACHE_DIR=cache)
        env.pop("TILEC_AUTOTUNE", None)
        head = f"{'M x N x K':17} {'cost model':15} {'tuned':15} {'seconds':>8}"
        for which in ("--first", "--second"):
            print(f"== process {which[2:]}: " + ("tunes, checks, times (TFLOP/s)" if which == "--first"
                                                  else "reads the cache"))
            extra = (f" {'cost':>7} {'tuned':>7} {'cuBLAS':>7} {'c/cB':>6} {'t/cB':>6}"
                     if which == "--first" else "")
            print(head + extra, flush=True)
            subprocess.run([sys.executable, os.path.abspath(__file__), which], env=env, check=True)
        print("cache files:", os.listdir(cache))


if __name__ == "__main__":
    main()
