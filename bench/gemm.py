"""GEMM throughput: tilec against cuBLAS and a Triton matmul, in one run on
one GPU, checking each result first on fresh random data with a poisoned
output.

    python3 bench/gemm.py            # bundles from $TILEC_BUNDLE_DIR
    python3 bench/gemm.py fp8 i8tf32 # only these groups

- bf16: examples/gemm.mlir (bf16 in, f32 accumulation, bias + ReLU, bf16
  out); cuBLAS is torch.matmul alone (no epilogue), tilec and Triton run
  their fused epilogues.
- bf16 pp: the ping-pong schedule (gemm_pingpong of gemm_variants.mlir: a
  128x128 tile a warpgroup, two consumer warpgroups on alternate tiles).
- bf16 cl2: gemm.mlir's kernel in clusters of two sharing B by TMA
  multicast (gemm_cluster of gemm_variants.mlir).
- f16: the same as bf16 in f16 (gemm_f16 of examples/gemm_variants.mlir), f16 out.
- fp8 e4m3: examples/gemm_fp8.mlir (A row-major, B column-major, per-tensor
  scales, bf16 out) against torch._scaled_mm (cuBLASLt) and Triton with the
  same inputs.
- i8: gemm_i8 of examples/gemm_i8_tf32.mlir (A row-major, B column-major,
  i32 out) against torch._int_mm (cuBLASLt) and Triton (int32 accumulator).
- tf32: gemm_tf32 of the same file (f32 in and out, wgmma reading tf32)
  against torch.matmul with TF32 allowed and Triton (tl.dot's default tf32).

Prints TFLOP/s (2 M N K / time) and tilec's ratio to cuBLAS; the backends of
a row are timed in turn, in rounds (bench/timing.py)."""

import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402
from timing import interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))


@triton.jit
def triton_mainloop(a, b, M, N, K, sam, sak, sbk, sbn,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The program's rows, columns and f32 A·B tile (masked loads)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ta = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak,
                     mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        tb = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                     mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc)
    return rm, rn, acc


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 256, "BK": 64}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=3, num_warps=8),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def triton_gemm(a, b, bias, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, acc = triton_mainloop(a, b, M, N, K, sam, sak, sbk, sbn, BM, BN, BK)
    acc = tl.maximum(acc + tl.load(bias + rn, mask=rn < N, other=0.0)[None, :], 0.0)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 256, "BK": 128}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 128}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 256, "BK": 64}, num_stages=4, num_warps=8),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def triton_gemm_fp8(a, b, sa, sb, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, acc = triton_mainloop(a, b, M, N, K, sam, sak, sbk, sbn, BM, BN, BK)
    acc = acc * (tl.load(sa) * tl.load(sb))
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.bfloat16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def run_triton_fp8(a, b, sa, sb, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
    triton_gemm_fp8[grid](a, b, sa, sb, c, M, N, K, a.stride(0), a.stride(1),
                          b.stride(0), b.stride(1), c.stride(0), c.stride(1))


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 256, "BK": 128}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 128}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 256, "BK": 32}, num_stages=4, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def triton_plain(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A · B with masked loads; an i32 accumulator for i8 inputs."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c.dtype.element_ty)
    for k in range(0, K, BK):
        ta = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak,
                     mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        tb = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                     mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(ta, tb, acc, out_dtype=c.dtype.element_ty)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def run_triton_plain(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
    triton_plain[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                       b.stride(0), b.stride(1), c.stride(0), c.stride(1))


def run_triton(a, b, bias, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
    triton_gemm[grid](a, b, bias, c, M, N, K, a.stride(0), a.stride(1),
                      b.stride(0), b.stride(1), c.stride(0), c.stride(1))


SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 4096, 14336),
          (8192, 14336, 4096)]


def check(c, ref, what):
    """C, once the GPU is done, against `ref`: relative error under 1e-2
    (exact for integers)."""
    torch.cuda.synchronize()
    if not c.dtype.is_floating_point:
        assert torch.equal(c.long(), ref.long()), f"{what}: not exact"
        return
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"{what}: rel err {err}"


def measure(label, m, n, kk, ref, runners, timed, dtype=torch.bfloat16):
    """Checks every runner's output against `ref` (C of `dtype`, poisoned
    with NaN first), then times `timed`; returns a table row."""
    for name, fn in runners:
        poison = float("nan") if dtype.is_floating_point else -7
        c = torch.full((m, n), poison, device="cuda", dtype=dtype)
        fn(c)
        check(c, ref, f"{label} {name} {m}x{n}x{kk}")
    c = torch.full((m, n), -7, device="cuda", dtype=dtype)
    flops = 2 * m * n * kk
    t = interleaved({name: (lambda fn=fn: fn(c)) for name, fn in timed})
    return (label, f"{m}x{n}x{kk}",
            *(flops / t[x] / 1e9 for x in ("tilec", "cublas", "triton")))


def bias_relu_rows(k, dtype, label):
    rows = []
    for m, n, kk in SHAPES:
        a = torch.randn(m, kk, device="cuda", dtype=dtype)
        b = torch.randn(kk, n, device="cuda", dtype=dtype)
        bias = torch.randn(n, device="cuda")
        ref = torch.relu(a.double() @ b.double() + bias.double())
        rows.append(measure(label, m, n, kk, ref, [
            ("tilec", lambda c: k(a, b, bias, c)),
            ("cublas", lambda c: c.copy_(torch.relu(a @ b + bias))),
            ("triton", lambda c: run_triton(a, b, bias, c))], [
            ("tilec", lambda c: k(a, b, bias, c)),
            ("cublas", lambda c: torch.matmul(a, b)),
            ("triton", lambda c: run_triton(a, b, bias, c))], dtype))
    return rows


def fp8_rows(k):
    rows = []
    for m, n, kk in SHAPES:
        f8 = torch.float8_e4m3fn
        a = torch.randn(m, kk, device="cuda").to(f8)
        bt = torch.randn(n, kk, device="cuda").to(f8)
        b = bt.t()  # KxN column-major, as cuBLASLt wants it
        sa = torch.rand((), device="cuda") + 0.5
        sb = torch.rand((), device="cuda") + 0.5
        sa1, sb1 = sa.reshape(1), sb.reshape(1)
        ref = (a.double() @ b.double()) * sa.double() * sb.double()
        scaled = lambda: torch._scaled_mm(a, b, scale_a=sa, scale_b=sb,
                                          out_dtype=torch.bfloat16)
        rows.append(measure("fp8 e4m3", m, n, kk, ref, [
            ("tilec", lambda c: k(a, bt, sa1, sb1, c)),
            ("cublas", lambda c: c.copy_(scaled())),
            ("triton", lambda c: run_triton_fp8(a, b, sa, sb, c))], [
            ("tilec", lambda c: k(a, bt, sa1, sb1, c)),
            ("cublas", lambda c: scaled()),
            ("triton", lambda c: run_triton_fp8(a, b, sa, sb, c))]))
    return rows


def i8_tf32_rows(bundle):
    """i8 (exact, i32 out) and tf32 (f32 out) GEMMs, B column-major."""
    rows = []
    torch.backends.cuda.matmul.allow_tf32 = True
    for label, dtype, out in (("i8", torch.int8, torch.int32),
                              ("tf32", torch.float32, torch.float32)):
        k = bundle["gemm_" + label]
        for m, n, kk in SHAPES:
            if dtype == torch.int8:
                a = torch.randint(-128, 128, (m, kk), device="cuda", dtype=dtype)
                bt = torch.randint(-128, 128, (n, kk), device="cuda", dtype=dtype)
                ref = (a.double() @ bt.double().T)
                # i32 is exact only while |C| < 2^31 (K <= 2^17 here).
                mm = lambda: torch._int_mm(a, bt.t())
            else:
                a = torch.randn(m, kk, device="cuda")
                bt = torch.randn(n, kk, device="cuda")
                ref = a.double() @ bt.double().T
                mm = lambda: torch.matmul(a, bt.t())
            rows.append(measure(label, m, n, kk, ref, [
                ("tilec", lambda c: k(a, bt, c)),
                ("cublas", lambda c: c.copy_(mm())),
                ("triton", lambda c: run_triton_plain(a, bt.t(), c))], [
                ("tilec", lambda c: k(a, bt, c)),
                ("cublas", lambda c: mm()),
                ("triton", lambda c: run_triton_plain(a, bt.t(), c))], out))
    return rows


def main():
    """All groups, or those named on the command line (bf16 pp cl2 f16 fp8
    i8tf32)."""
    only = set(sys.argv[1:])
    want = lambda g: not only or g in only
    variants = tilec.load(os.path.join(BUNDLES, "gemm_variants.tlc"))
    rows = []
    if want("bf16"):
        rows += bias_relu_rows(tilec.load(os.path.join(BUNDLES, "gemm.tlc"))["gemm"],
                               torch.bfloat16, "bf16")
    if want("pp"):
        rows += bias_relu_rows(variants["gemm_pingpong"], torch.bfloat16, "bf16 pp")
    if want("cl2"):
        rows += bias_relu_rows(variants["gemm_cluster"], torch.bfloat16, "bf16 cl2")
    if want("f16"):
        rows += bias_relu_rows(variants["gemm_f16"], torch.float16, "f16")
    if want("fp8"):
        rows += fp8_rows(tilec.load(os.path.join(BUNDLES, "gemm_fp8.tlc"))["gemm_e4m3"])
    if want("i8tf32"):
        rows += i8_tf32_rows(tilec.load(os.path.join(BUNDLES, "gemm_i8_tf32.tlc")))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print(f"{'type':9} {'M x N x K':20} {'tilec TFLOP/s':>14} {'cuBLAS':>8} {'Triton':>8} {'tilec/cuBLAS':>13}")
    for label, shape, a_, b_, c_ in rows:
        print(f"{label:9} {shape:20} {a_:14.0f} {b_:8.0f} {c_:8.0f} {a_ / b_:13.2f}")


if __name__ == "__main__":
    main()
