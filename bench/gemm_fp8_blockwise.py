"""Block-scaled fp8 GEMM (issue 51): tilec.ops.fp8_gemm_blockwise
(examples/gemm_fp8_blockwise.mlir, at the tile it picks) against
torch._scaled_mm's block-wise mode (cuBLAS: 1x128 scales for A,
128x128 for B) in one run on one GPU, every result checked first.

    python3 bench/gemm_fp8_blockwise.py [--quick | --grouped | --quant]

M in {16, 64, 128, 512, 1024, 4096, 16384} times the (N, K) of a
DeepSeek-V3-like model's projections. A [M, K] and B [N, K] e4m3, sa
[ceil(K/128), M] (M contiguous: torch takes it as its transpose, an
(M, K/128) view), sb [ceil(N/128), ceil(K/128)], bf16 C. Per shape:
TFLOP/s of tilec, of torch block-wise (where the installed torch has it;
else the column says n/a) and of torch's per-tensor scaled fp8 GEMM (the
fastest fp8 path, not the same math), timed in turn as flushed CUDA-graph
replays (bench/timing.py); the ratios to block-wise and to the best torch
fp8 path. Every backend is first checked against float64 on fresh random
inputs with C poisoned (NaN). At the end: geometric means by M <= 256 and
M >= 1024. --quick: M 128 and 4096 only.

--grouped: instead, the mixture-of-experts forms (tilec.ops.fp8_grouped_gemm_contiguous
and fp8_grouped_gemm_masked, examples/gemm_fp8_grouped.mlir), 8 to 64 experts of 256
to 8192 tokens each (each expert's count drawn within +-30%, seeded), the (N, K) of an
expert's gate-and-up and down projections, against a loop of torch block-wise
GEMMs, one an expert over its rows (counts rounded up to 4 rows, as torch's scale
layout needs), the loop captured whole in the CUDA graph the timing replays (no
launch gaps: its best case) and, as "eager", launched call by call from Python
(do_bench); tilec's valid rows checked against the loop's first.

--quant: instead, the activations' quantization (tilec.ops.fp8_quantize_blockwise,
examples/quant_fp8_blockwise.mlir) in GB/s of bytes moved (bf16 in, e4m3 and
the scales out) beside torch's eager ops doing the same arithmetic and a
device-to-device copy of the same bytes, same run; outputs checked first."""

import math
import os
import sys

# bench/profile.py would shadow the standard library's profile module, which
# torch.library's custom ops import: load the standard one first.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401

import torch  # noqa: E402

sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import tilec.ops  # noqa: E402
from timing import interleaved  # noqa: E402

MS = [16, 64, 128, 512, 1024, 4096, 16384]
NK = [(24576, 1536), (7168, 16384), (4096, 7168), (7168, 2048), (2112, 7168)]


def reference(a, b, sa, sb):
    """float64: each 128 of K a dot of its own, scaled by A's row scales and
    B's block scale."""
    m, k = a.shape
    n = b.shape[0]
    out = torch.zeros(m, n, dtype=torch.float64, device=a.device)
    for kb in range((k + 127) // 128):
        blk = a[:, kb * 128:(kb + 1) * 128].double() @ b[:, kb * 128:(kb + 1) * 128].double().t()
        col = sb[:, kb].double().repeat_interleave(128)[:n]
        out += blk * sa[kb].double()[:, None] * col[None, :]
    return out


def problem(m, n, k):
    f8 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device="cuda") * 2).to(f8)
    b = (torch.randn(n, k, device="cuda") * 2).to(f8)
    sa = torch.rand((k + 127) // 128, m, device="cuda") + 0.5
    sb = torch.rand((n + 127) // 128, (k + 127) // 128, device="cuda") + 0.5
    return a, b, sa, sb


def check(c, ref, what):
    err = ((c.double() - ref).norm() / ref.norm()).item()
    if not math.isfinite(err) or err > 1e-2:
        raise SystemExit(f"{what}: relative error {err:.3e}")


def quant():
    def eager(x):
        m, k = x.shape
        kb = -(-k // 128)
        xf = torch.nn.functional.pad(x.float(), (0, kb * 128 - k)).view(m, kb, 128)
        s = xf.abs().amax(dim=2).clamp(min=1e-4) / 448
        return (xf / s[:, :, None]).to(torch.float8_e4m3fn).view(m, -1)[:, :k], s

    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'M x K':14} {'tilec':>7} {'eager':>7} {'copy':>7} {'t/copy':>6}  (GB/s)")
    for m in (128, 4096, 16384):
        for k in (2048, 7168):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            a, sa = tilec.ops.fp8_quantize_blockwise(x)
            a_ref, s_ref = eager(x)
            if not torch.allclose(sa, s_ref, rtol=1e-6) or \
                    (a.view(torch.uint8) != a_ref.view(torch.uint8)).float().mean() > 1e-3:
                raise SystemExit(f"quantization {m}x{k} differs from torch's")
            moved = m * k * 3 + m * (-(-k // 128)) * 4
            src = torch.empty(moved // 2, device="cuda", dtype=torch.uint8)
            dst = torch.empty_like(src)
            t = interleaved({"tilec": lambda: tilec.ops.fp8_quantize_blockwise(x),
                             "eager": lambda: eager(x),
                             "copy": lambda: dst.copy_(src)}, rounds=3, rep_ms=25, graphs=True)
            gb = {x_: moved / v / 1e6 for x_, v in t.items()}
            print(f"{m}x{k:<9} {gb['tilec']:7.0f} {gb['eager']:7.0f} {gb['copy']:7.0f} "
                  f"{gb['tilec'] / gb['copy']:6.2f}", flush=True)


GROUPED = [(8, 256), (8, 1024), (8, 8192), (32, 256), (32, 1024), (32, 4096),
           (64, 256), (64, 1024)]
MOE_NK = [(4096, 7168), (7168, 2048)]


def grouped():
    gen = torch.Generator().manual_seed(51)
    f8 = torch.float8_e4m3fn
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'form':10} {'G x tokens':11} {'N x K':11} {'tilec':>7} {'loop':>7} {'eager':>7} "
          f"{'t/loop':>6} {'t/eagr':>6}")
    rows = []
    for g, tokens in GROUPED:
        counts = [max(1, int(tokens * (0.7 + 0.6 * torch.rand(1, generator=gen).item())))
                  for _ in range(g)]
        for n, k in MOE_NK:
            kb = -(-k // 128)
            b = (torch.randn(g, n, k, device="cuda") * 2).to(f8)
            sb = torch.rand(g, -(-n // 128), kb, device="cuda") + 0.5
            # Contiguous: each expert's rows from a multiple of 128.
            starts = [0]
            for cnt in counts:
                starts.append(starts[-1] + -(-cnt // 128) * 128)
            mi = torch.full((starts[-1],), -1, dtype=torch.int32, device="cuda")
            for e, cnt in enumerate(counts):
                mi[starts[e]:starts[e] + cnt] = e
            a = (torch.randn(starts[-1], k, device="cuda") * 2).to(f8)
            sa = torch.rand(kb, starts[-1], device="cuda").t() + 0.5
            # The peer's operands: each expert's rows (a multiple of 4) as their own tensors.
            per = []
            for e, cnt in enumerate(counts):
                r = -(-cnt // 4) * 4
                per.append((a[starts[e]:starts[e] + r].contiguous(),
                            sa[starts[e]:starts[e] + r].t().contiguous().t(), b[e], sb[e].t()))

            def loop():
                return [torch._scaled_mm(ae, be.t(), scale_a=se, scale_b=sbe,
                                         out_dtype=torch.bfloat16) for ae, se, be, sbe in per]

            def contiguous():
                return tilec.ops.fp8_grouped_gemm_contiguous(a, sa, b, sb, mi)

            ref = loop()
            c = contiguous()
            for e, cnt in enumerate(counts):
                check(c[starts[e]:starts[e] + cnt], ref[e][:cnt].double(), f"contiguous expert {e}")
            # Masked: every expert's rows in a (G, M_max) block, M_max the largest count.
            m_max = -(-max(counts) // 128) * 128
            am = torch.zeros(g, m_max, k, device="cuda", dtype=f8)
            sam = torch.ones(g, kb, m_max, device="cuda")
            for e, cnt in enumerate(counts):
                am[e, :cnt] = a[starts[e]:starts[e] + cnt]
                sam[e, :, :cnt] = sa[starts[e]:starts[e] + cnt].t()
            sam = sam.transpose(1, 2)
            mm = torch.tensor(counts, dtype=torch.int32, device="cuda")

            def masked():
                return tilec.ops.fp8_grouped_gemm_masked(am, sam, b, sb, mm)

            cm = masked()
            for e, cnt in enumerate(counts):
                check(cm[e, :cnt], ref[e][:cnt].double(), f"masked expert {e}")
            t = interleaved({"contiguous": contiguous, "masked": masked, "loop": loop},
                            rounds=3, rep_ms=25, graphs=True)
            # The loop as a program calls it, launch by launch from Python.
            t["eager"] = interleaved({"eager": loop}, rounds=3, rep_ms=25)["eager"]
            flops = 2 * sum(counts) * n * k
            tf = {x: flops / v / 1e9 for x, v in t.items()}
            for form in ("contiguous", "masked"):
                rows.append((tf[form] / tf["loop"], tf[form] / tf["eager"]))
                print(f"{form:10} {g:>3} x {tokens:<5} {n}x{k:<6} {tf[form]:7.0f} "
                      f"{tf['loop']:7.0f} {tf['eager']:7.0f} {rows[-1][0]:6.2f} {rows[-1][1]:6.2f}",
                      flush=True)
            del a, am, b, per, ref, c, cm
    for col, name in ((0, "per-expert loop (graph)"), (1, "per-expert loop (eager)")):
        ratios = [r[col] for r in rows]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"grouped: geometric mean tilec / {name} {geo:.3f} over {len(ratios)} rows; "
              f"worst {min(ratios):.2f}")


def main():
    if "--quant" in sys.argv:
        return quant()
    if "--grouped" in sys.argv:
        return grouped()
    quick = "--quick" in sys.argv
    ms = [128, 4096] if quick else MS
    # The operator as users call it: its choice of tile (128x128, or 64x64
    # where that grid leaves SMs idle), C allocated each call.
    def gemm(a, b, sa, sb):
        return tilec.ops.fp8_gemm_blockwise(a, sa.t(), b, sb)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'M x N x K':20} {'tilec':>7} {'blockwise':>9} {'pertensor':>9} "
          f"{'t/blk':>6} {'t/best':>6}")
    rows = []
    for m in ms:
        for n, k in NK:
            a, b, sa, sb = problem(m, n, k)
            ref = reference(a, b, sa, sb)
            poison = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            del poison  # (the allocator's next block of C's size)
            check(gemm(a, b, sa, sb), ref, f"tilec {m}x{n}x{k}")
            one = torch.ones((), device="cuda")
            runs = {
                "tilec": lambda: gemm(a, b, sa, sb),
                "pertensor": lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                                      out_dtype=torch.bfloat16),
            }
            try:
                blk = lambda: torch._scaled_mm(a, b.t(), scale_a=sa.t(), scale_b=sb.t(),  # noqa: E731
                                               out_dtype=torch.bfloat16)
                check(blk(), ref, f"torch block-wise {m}x{n}x{k}")
                runs["blockwise"] = blk
            except (RuntimeError, SystemExit) as ex:
                print(f"torch block-wise unavailable: {str(ex).splitlines()[0][:120]}")
            t = interleaved(runs, rounds=3, rep_ms=25, graphs=True)
            tf = {x: 2 * m * n * k / v / 1e9 for x, v in t.items()}
            best = max(v for x, v in tf.items() if x != "tilec")
            row = (m, f"{m}x{n}x{k}", tf["tilec"], tf.get("blockwise"), tf["pertensor"], best)
            rows.append(row)
            blk_s = f"{row[3]:9.0f}" if row[3] else f"{'n/a':>9}"
            ratio = f"{row[2] / row[3]:6.2f}" if row[3] else f"{'':6}"
            print(f"{row[1]:20} {row[2]:7.0f} {blk_s} {row[4]:9.0f} {ratio} "
                  f"{row[2] / best:6.2f}", flush=True)
    for what, sel in (("M <= 256", lambda r: r[0] <= 256), ("M >= 1024", lambda r: r[0] >= 1024)):
        rs = [r for r in rows if sel(r)]
        if not rs:
            continue
        for col, name in ((3, "torch block-wise"), (5, "best torch fp8")):
            ratios = [r[2] / r[col] for r in rs if r[col]]
            if ratios:
                geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                print(f"{what}: geometric mean tilec / {name} {geo:.3f} over {len(ratios)} "
                      f"shapes; worst {min(ratios):.2f}")


if __name__ == "__main__":
    main()
