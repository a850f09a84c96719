"""GEMMs at the shapes LLM serving runs (issue 13), bf16 and fp8, tilec
against cuBLAS in one run on one GPU, every result checked first.

    python3 bench/gemm_llm.py [bf16] [fp8] [--quick]   # bundles from $TILEC_BUNDLE_DIR

M in {1, 16, 64, 128, 512, 2048, 8192} times the (N, K) of Llama-3 8B and
70B projections, plus 3072x3072x4096 and ragged shapes. bf16: gemm.mlir's
`gemm` (bias + ReLU epilogue) against torch.matmul (no epilogue); fp8:
gemm_fp8.mlir's `gemm_e4m3` (per-tensor scales, bf16 out, B given as NxK)
against torch._scaled_mm. Per shape: the member the cost model launches
(untuned default) and the one tilec.autotune picks, TFLOP/s of each and of
cuBLAS (timed in turn with a cold L2, as the GPU time of flushed CUDA-graph
replays: bench/timing.py FlushedGraph; --do-bench for do_bench), the ratios; at M <= 16 also the
bandwidth of reading B as a fraction of a device-to-device copy measured
in the same run. Every backend is first checked against float64 on fresh
random inputs with C poisoned (NaN). At the end: the geometric mean of the
ratios and the worst shape, per type. --quick: a subset (M 16, 512, 8192
on three (N, K) pairs). --unseen: issue 50's shapes instead (the ones it
names, squares and the thin and wide, and 24 drawn at random with a fixed
seed: M in [1, 16384], N and K in [256, 16384], multiples of 8, half of
them not multiples of 64; fp8 rows round N and K up to multiples of 16,
which torch._scaled_mm needs)."""

import math
import os
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, tilec  # noqa: E402
from timing import interleaved  # noqa: E402

MS = [1, 16, 64, 128, 512, 2048, 8192]
# --do-bench: time each launch from the host (do_bench) instead of flushed
# CUDA-graph replays (bench/timing.py FlushedGraph, the default).
GRAPHS = "--do-bench" not in sys.argv
NK = [(4096, 4096), (6144, 4096), (28672, 4096), (4096, 14336),
      (8192, 8192), (10240, 8192), (57344, 8192), (8192, 28672)]
EXTRA = [(3072, 3072, 4096), (4000, 4112, 4096), (3000, 5008, 1024), (777, 3008, 2048)]


# Issue 50's shapes beyond the LLM table: the ones it names (the worst of
# its 22), squares, thin and wide.
UNSEEN = [(4000, 4104, 4096), (3000, 5000, 1024), (1000, 6144, 4096), (24576, 1024, 1024),
          (777, 3008, 2048), (8192, 8192, 8192), (4096, 4096, 11008), (3072, 3072, 3072),
          (2048, 2048, 2048), (6000, 6000, 6000), (16384, 2048, 512), (512, 16384, 8192),
          (256, 256, 16384), (12000, 12000, 256)]


def random_shapes(count=24, seed=50):
    """M in [1, 16384], N and K in [256, 16384], multiples of 8, every other
    one's N and K not multiples of 64."""
    import random
    rng = random.Random(seed)
    out = []
    for i in range(count):
        m = rng.randint(1, 16384)
        dims = []
        for _ in range(2):
            while True:
                x = 8 * rng.randint(32, 2048)
                if (x % 64 != 0) == (i % 2 == 1):
                    break
            dims.append(x)
        out.append((m, dims[0], dims[1]))
    return out


def shapes(quick):
    if "--unseen" in sys.argv:
        return UNSEEN + random_shapes()
    if quick:
        return [(m, n, k) for m in (16, 512, 8192) for n, k in NK[:3:2] + NK[6:7]] + EXTRA[:2]
    return [(m, n, k) for m in MS for n, k in NK] + EXTRA


def copy_bandwidth():
    """Bytes a second of a device-to-device copy of 1 GiB (read + write)."""
    src = torch.empty(1 << 30, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    ms = interleaved({"copy": lambda: dst.copy_(src)}, rounds=3)["copy"]
    return 2 * src.numel() / (ms * 1e-3)


def bf16_problem(m, n, kk):
    a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    ref = torch.relu(a.double() @ b.double() + bias.double())
    return (a, b, bias), ref, (lambda c: c.copy_(torch.relu(a @ b + bias))), \
        (lambda: torch.matmul(a, b)), kk * n * 2


def fp8_problem(m, n, kk):
    f8 = torch.float8_e4m3fn
    a = torch.randn(m, kk, device="cuda").to(f8)
    bt = torch.randn(n, kk, device="cuda").to(f8)
    sa = torch.rand((), device="cuda") + 0.5
    sb = torch.rand((), device="cuda") + 0.5
    ref = (a.double() @ bt.double().t()) * sa.double() * sb.double()
    scaled = lambda: torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sb,  # noqa: E731
                                      out_dtype=torch.bfloat16)
    return (a, bt, sa.reshape(1), sb.reshape(1)), ref, (lambda c: c.copy_(scaled())), \
        scaled, kk * n


def as_is(k, bundle, name):
    """Launches of member `name` of `k`'s family itself. The head launched
    plainly would run the runtime's choice, which after tilec.autotune in
    this process is the tuned member (so the default column of earlier
    runs timed the tuned member wherever the default was the head); an
    explicit grid launches it as is."""
    if name != k.name:
        return bundle[name]
    return lambda *a: k(*a, grid=k.grid(*a))


def rows_for(kind, k, bundle, problem, todo, copy_bw):
    rows = []
    for m, n, kk in todo:
        args, ref, cublas_into, cublas, b_bytes = problem(m, n, kk)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        default = k.choose(*args, c)
        tuned = k.autotune(*args, c)
        runs = {"default": as_is(k, bundle, default), "tuned": as_is(k, bundle, tuned)}
        for name, fn in runs.items():
            c.fill_(float("nan"))
            fn(*args, c)
            check(c, ref, f"{kind} {name} ({default if name == 'default' else tuned}) {m}x{n}x{kk}")
        c.fill_(float("nan"))
        cublas_into(c)
        check(c, ref, f"{kind} cuBLAS {m}x{n}x{kk}")
        ms = interleaved({"default": lambda: runs["default"](*args, c),
                          "tuned": lambda: runs["tuned"](*args, c),
                          "cublas": cublas}, rounds=3, rep_ms=25, graphs=GRAPHS)
        flops = 2 * m * n * kk
        tf = {x: flops / t / 1e9 for x, t in ms.items()}
        bw = b_bytes / (ms["default"] * 1e-3) / copy_bw if m <= 16 else None
        rows.append((kind, f"{m}x{n}x{kk}", default, tuned, tf["default"], tf["tuned"],
                     tf["cublas"], bw))
        r = rows[-1]
        print(f"{r[0]:5} {r[1]:18} {r[2]:15} {r[3]:15} {r[4]:7.0f} {r[5]:7.0f} {r[6]:7.0f} "
              f"{r[4] / r[6]:6.2f} {r[5] / r[6]:6.2f}" + (f" {bw:6.2f}" if bw else ""), flush=True)
    return rows


def summary(rows):
    for kind in sorted({r[0] for r in rows}):
        rs = [r for r in rows if r[0] == kind]
        for col, what in ((4, "default"), (5, "tuned")):
            ratios = [r[col] / r[6] for r in rs]
            geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            worst = min(rs, key=lambda r: r[col] / r[6])
            print(f"{kind} {what}: geometric mean tilec/cuBLAS {geo:.3f} over {len(rs)} shapes; "
                  f"worst {worst[1]} at {worst[col] / worst[6]:.2f} ({worst[2 if col == 4 else 3]})")


def main():
    quick = "--quick" in sys.argv
    kinds = [a for a in sys.argv[1:] if a in ("bf16", "fp8")] or ["bf16", "fp8"]
    # A fresh autotuning cache: every tuned column is timed in this run.
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-gemm-llm-")
    os.environ.pop("TILEC_AUTOTUNE", None)
    copy_bw = copy_bandwidth()
    print(f"device-to-device copy: {copy_bw / 1e9:.0f} GB/s "
          f"({torch.cuda.get_device_name()})")
    print(f"{'type':5} {'M x N x K':18} {'default':15} {'tuned':15} {'default':>7} {'tuned':>7} "
          f"{'cuBLAS':>7} {'d/cB':>6} {'t/cB':>6} {'B bw/copy (M<=16)':>6}")
    rows = []
    if "bf16" in kinds:
        bundle = tilec.load(os.path.join(BUNDLES, "gemm.tlc"))
        rows += rows_for("bf16", bundle["gemm"], bundle, bf16_problem, shapes(quick), copy_bw)
    if "fp8" in kinds:
        bundle = tilec.load(os.path.join(BUNDLES, "gemm_fp8.tlc"))
        # torch._scaled_mm takes N and K in multiples of 16 only: the fp8
        # rows round them up (tilec takes multiples of 8).
        fp8_shapes = [(m, -(-n // 16) * 16, -(-k // 16) * 16) for m, n, k in shapes(quick)]
        rows += rows_for("fp8", bundle["gemm_e4m3"], bundle, fp8_problem, fp8_shapes, copy_bw)
    summary(rows)


if __name__ == "__main__":
    main()
