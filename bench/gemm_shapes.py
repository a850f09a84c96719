"""GEMM tile shapes: how the runtime's choice between a kernel's tile-shape
variants (tile-shape-variants, docs/ARCHITECTURE.md) does against each
shape forced, cuBLAS and Triton (autotuned over 128x256 and 128x128), in one
run on one GPU, every result checked first.

    python3 bench/gemm_shapes.py     # bundles from $TILEC_BUNDLE_DIR

bf16 gemm.mlir (bias + ReLU) from few tiles (1024^2: 32 tiles of 128x256
for 132 SMs) to many. Columns: tilec as launched (the runtime's choice,
named), the program as written (128x256) and its 128x128 and 128x64
variants, each forced, cuBLAS (torch.matmul), Triton; ratio: tilec as launched / cuBLAS.

A second table: N or K not a multiple of 8, so B's and C's (or A's) rows
are not 16-byte aligned and TMA cannot read them; the runtime launches
gemm__plain (the warp-specialized twin: its load partition's threads copy
A and B into the slots TMA fills in gemm). With $TILEC_BASE_BUNDLE_DIR,
the same shapes through that build's gemm.tlc too (base)."""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm import BUNDLES, check, run_triton, tilec  # noqa: E402
from timing import interleaved  # noqa: E402

SHAPES = [(1024, 1024, 4096), (1024, 2048, 4096), (2048, 2048, 4096), (3072, 3072, 4096),
          (4096, 4096, 4096), (1024, 14336, 4096), (8192, 8192, 8192)]
UNALIGNED = [(1024, 1020, 4096), (4096, 4092, 4096), (8192, 8188, 8192),
             (4096, 4096, 4092), (4095, 4097, 4093)]
BASE = os.environ.get("TILEC_BASE_BUNDLE_DIR")


def problem(m, n, kk):
    """Fresh random bf16 A, B, an f32 bias, C, and relu(A B + bias) in f64."""
    a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    return (a, b, bias, c), torch.relu(a.double() @ b.double() + bias.double())


def run_checked(fn, c, ref, what):
    """Runs `fn` on NaN-poisoned C and checks C against `ref`."""
    c.fill_(float("nan"))
    fn()
    check(c, ref, what)


def unaligned(k):
    """The plain twin where TMA cannot read: as launched, against cuBLAS
    (and the base build's, with $TILEC_BASE_BUNDLE_DIR)."""
    base = tilec.load(os.path.join(BASE, "gemm.tlc"))["gemm"] if BASE else None
    rows = []
    for m, n, kk in UNALIGNED:
        (a, b, bias, c), ref = problem(m, n, kk)
        run_checked(lambda: k(a, b, bias, c), c, ref, f"{m}x{n}x{kk}")
        runs = {"tilec": lambda: k(a, b, bias, c),
                "cublas": lambda: torch.matmul(a, b)}
        if base:
            run_checked(lambda: base(a, b, bias, c), c, ref, f"base {m}x{n}x{kk}")
            runs["base"] = lambda: base(a, b, bias, c)
        flops = 2 * m * n * kk
        tf = {name: flops / ms / 1e9 for name, ms in interleaved(runs).items()}
        rows.append((f"{m}x{n}x{kk}", k.choose(a, b, bias, c), tf))
    print(f"{'M x N x K':18} {'chosen':14} {'tilec':>6}" + (f" {'base':>6}" if base else "") +
          f" {'cuBLAS':>7} {'tilec/cuBLAS':>13}" + (f" {'tilec/base':>11}" if base else ""))
    for shape, chosen, tf in rows:
        line = f"{shape:18} {chosen:14} {tf['tilec']:6.0f}"
        if base:
            line += f" {tf['base']:6.0f}"
        line += f" {tf['cublas']:7.0f} {tf['tilec'] / tf['cublas']:13.2f}"
        if base:
            line += f" {tf['tilec'] / tf['base']:11.2f}"
        print(line)


def main():
    bundle = tilec.load(os.path.join(BUNDLES, "gemm.tlc"))
    k = bundle["gemm"]
    forced = {v: bundle["gemm__" + v] for v in ("128x128", "128x64")}
    rows = []
    for m, n, kk in SHAPES:
        (a, b, bias, c), ref = problem(m, n, kk)
        grid = k.grid(a, b, bias, c)
        runs = {
            "auto": lambda: k(a, b, bias, c),
            "128x256": lambda: k(a, b, bias, c, grid=grid),
            **{v: (lambda f=f: f(a, b, bias, c)) for v, f in forced.items()},
            "triton": lambda: run_triton(a, b, bias, c),
        }
        for name, fn in runs.items():
            run_checked(fn, c, ref, f"{name} {m}x{n}x{kk}")
        runs["cublas"] = lambda: torch.matmul(a, b)
        flops = 2 * m * n * kk
        tf = {name: flops / ms / 1e9 for name, ms in interleaved(runs).items()}
        rows.append((f"{m}x{n}x{kk}", k.choose(a, b, bias, c), tf))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print(f"{'M x N x K':18} {'chosen':14} {'tilec':>6} {'128x256':>8} {'128x128':>8} "
          f"{'128x64':>7} {'cuBLAS':>7} {'Triton':>7} {'tilec/cuBLAS':>13}")
    for shape, chosen, t in rows:
        print(f"{shape:18} {chosen:14} {t['auto']:6.0f} {t['128x256']:8.0f} {t['128x128']:8.0f} "
              f"{t['128x64']:7.0f} {t['cublas']:7.0f} {t['triton']:7.0f} "
              f"{t['auto'] / t['cublas']:13.2f}")
    unaligned(k)


if __name__ == "__main__":
    main()
