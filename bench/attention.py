"""Attention forward throughput: tilec against torch SDPA with the cuDNN and
the FlashAttention-2 backends, in one run on one GPU, on the same inputs.

    python3 bench/attention.py     # bundles from $TILEC_BUNDLE_DIR

Shapes (B, Hq, Hkv, S, D) are issue 11's: (4, 16, 16, 4096, 128),
(2, 16, 16, 8192, 128), (1, 16, 16, 16384, 128), (4, 32, 32, 4096, 64),
(2, 16, 16, 4096, 256) and GQA (4, 32, 8, 4096, 128); each non-causal and
causal. bf16 in, (B, H, S, D) tensors. FLOPs: 4 B Hq S^2 D, halved when
causal. Each kernel's output is checked against float64 on the first
batch-head before it is timed, with the output poisoned with NaN first.
The backends of a row are timed in turn, in rounds (bench/timing.py).

tilec runs where one of examples/attention.mlir's kernels covers the shape
(attention_d64, attention_d128, attention_d256: (B, H, S, D) views, GQA,
the row log-sum-exp as a second output); a row no kernel covers prints
n/a for tilec and still measures the peers. The ratio is tilec / cuDNN.

FP8 rows (``python3 bench/attention.py --fp8``, alone): tilec.ops.attention_fp8
(examples/attention_fp8.mlir) at FlashAttention-3's fp8 shapes beside tilec
bf16 and cuDNN bf16 on the same inputs, same run; see fp8_rows.

Varlen rows (also alone: ``python3 bench/attention.py --varlen``): for each
shape (D 64, 128 and 256), the same total tokens (B · S) as packed sequences whose
lengths are drawn uniformly from [1, 2 S] (seeded; the last one cut to the
total), through tilec.ops.varlen_attention, beside tilec's fixed-length
kernel on the B x S shape and FlashAttention-2's varlen kernel (SDPA on a
jagged nested tensor), same run. FLOPs count the pairs each sequence
computes (4 · Hq · D a pair; causal: the lower triangle). The ratio is
varlen / fixed (the issue's "within 5% of the fixed-length kernel at equal
total tokens"); equal TFLOP/s is equal work a second."""

import math
import os
import sys

# bench/profile.py would shadow the standard library's profile module, which
# torch's compiler (reached by the custom ops and nested tensors) imports:
# load the standard one first.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import tilec  # noqa: E402
import tilec.ops  # noqa: E402
from attention_table import print_table  # noqa: E402
from timing import interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))

SHAPES = [  # B, Hq, Hkv, S, D
    (4, 16, 16, 4096, 128),
    (2, 16, 16, 8192, 128),
    (1, 16, 16, 16384, 128),
    (4, 32, 32, 4096, 64),
    (2, 16, 16, 4096, 256),
    (4, 32, 8, 4096, 128),
]


def reference(q, k, v, scale, causal):
    """float64 attention of one batch-head (q, k, v: (S, D))."""
    sc = q.double() @ k.double().T * scale
    if causal:
        s = q.shape[0]
        sc = sc.masked_fill(~torch.ones(s, s, dtype=torch.bool, device=q.device).tril(),
                            float("-inf"))
    return torch.softmax(sc, dim=-1) @ v.double()


def check(out, ref, what):
    err = (out.double() - ref).abs().max().item()
    if not math.isfinite(err) or err > 2e-2:
        raise SystemExit(f"{what}: max error {err}")


def sdpa(backend, q, k, v, scale, causal):
    """SDPA on (B, H, S, D); GQA by enable_gqa (no copies of K and V)."""
    gqa = q.shape[1] != k.shape[1]

    def run():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale,
                                                  enable_gqa=gqa)
    return run


def tilec_runner(kernels, q, k, v, scale, causal):
    """tilec's kernel for the shape (attention_d{D}, GQA included), or None
    where none covers it."""
    d = q.shape[-1]
    name = f"attention_d{d}"
    if name not in kernels:
        return None
    o = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device=q.device)
    fn = kernels[name]

    def run():
        fn(q, k, v, o, lse, scale, int(causal))
        return o
    return run


def main():
    torch.manual_seed(0)
    kernels = tilec.load(os.path.join(BUNDLES, "attention.tlc"))
    dev = torch.cuda.get_device_name()
    print(f"attention forward, bf16, {dev}; TFLOP/s (median of do_bench), ratio = tilec / cuDNN")
    rows = []
    for (b, hq, hkv, s, d) in SHAPES:
        for causal in (False, True):
            q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            scale = 1.0 / math.sqrt(d)
            flops = 4 * b * hq * s * s * d / (2 if causal else 1)
            ref = reference(q[0, 0], k[0, 0], v[0, 0], scale, causal)
            result, runs = {}, {}
            for name, run in (("cudnn", sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v, scale, causal)),
                              ("fa2", sdpa(SDPBackend.FLASH_ATTENTION, q, k, v, scale, causal)),
                              ("tilec", tilec_runner(kernels, q, k, v, scale, causal))):
                result[name] = None
                if run is None:
                    continue
                try:
                    check(run()[0, 0], ref, f"{name} {b}x{hq}/{hkv}x{s}x{d} causal={causal}")
                except RuntimeError as e:  # a backend that does not take the shape
                    print(f"  {name}: {str(e).splitlines()[0]}")
                    continue
                runs[name] = run
            for name, ms in interleaved(runs).items():
                result[name] = flops / (ms * 1e-3) / 1e12
            rows.append(((b, hq, hkv, s, d, causal), result))
            torch.cuda.empty_cache()

    print_table(rows, ["tilec", "cudnn", "fa2"])


def varlen_lengths(total, s, seed):
    """Lengths uniform in [1, 2 s] summing to `total`."""
    g = torch.Generator().manual_seed(seed)
    lens = []
    while sum(lens) < total:
        lens.append(int(torch.randint(1, 2 * s + 1, (1,), generator=g)))
    lens[-1] -= sum(lens) - total
    return [n for n in lens if n > 0]


def varlen_rows():
    kernels = tilec.load(os.path.join(BUNDLES, "attention.tlc"))
    dev = torch.cuda.get_device_name()
    print(f"varlen attention forward, bf16, {dev}; TFLOP/s, lengths uniform in [1, 2S] "
          "at the fixed row's total tokens; ratio = varlen / fixed")
    print(f"{'B':>2} {'Hq':>3} {'Hkv':>3} {'S':>6} {'D':>3} {'causal':>6} {'seqs':>5} | "
          f"{'varlen':>6} {'fixed':>6} {'FA2 vl':>6} | {'ratio':>5}")
    for (b, hq, hkv, s, d) in SHAPES:
        for causal in (False, True):
            lens = varlen_lengths(b * s, s, seed=s + hq)
            total = sum(lens)
            q = torch.randn(total, hq, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(total, hkv, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(total, hkv, d, device="cuda", dtype=torch.bfloat16)
            cu = torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), device="cuda",
                              dtype=torch.int32)
            scale = 1.0 / math.sqrt(d)
            pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lens)
            flops = 4 * hq * d * pairs

            def ours():
                return tilec.ops.varlen_attention(q, k, v, cu, cu, max(lens), scale=scale,
                                                  causal=causal)
            n0 = lens[0]
            ref = reference(q[:n0, 0].contiguous(), k[:n0, 0].contiguous(),
                            v[:n0, 0].contiguous(), scale, causal)
            check(ours()[:n0, 0], ref, f"tilec varlen {hq}/{hkv} causal={causal}")
            runs = {"varlen": ours}
            try:  # FlashAttention-2's varlen kernel: SDPA on jagged nested tensors
                nt = [torch.nested.nested_tensor_from_jagged(t, cu.long()).transpose(1, 2)
                      for t in (q, k, v)]
                gqa = hq != hkv

                def fa2():
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        return F.scaled_dot_product_attention(*nt, is_causal=causal,
                                                              scale=scale, enable_gqa=gqa)
                fa2()
                runs["fa2"] = fa2
            except (RuntimeError, TypeError) as e:
                print(f"  FA2 varlen: {str(e).splitlines()[0]}")
            ms = interleaved(runs)
            qf = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
            kf = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            vf = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            fixed = tilec_runner(kernels, qf, kf, vf, scale, causal)
            fixed_flops = 4 * b * hq * s * s * d / (2 if causal else 1)
            ms_fixed = interleaved({"fixed": fixed})["fixed"]
            tf = {n: flops / (t * 1e-3) / 1e12 for n, t in ms.items()}
            tf["fixed"] = fixed_flops / (ms_fixed * 1e-3) / 1e12
            cells = " ".join(f"{tf[n]:6.0f}" if n in tf else f"{'-':>6}"
                             for n in ("varlen", "fixed", "fa2"))
            print(f"{b:>2} {hq:>3} {hkv:>3} {s:>6} {d:>3} {str(causal):>6} {len(lens):>5} | {cells} | "
                  f"{tf['varlen'] / tf['fixed']:5.2f}", flush=True)
            del q, k, v, qf, kf, vf
            torch.cuda.empty_cache()


FP8_SHAPES = [  # B, Hq, Hkv, S, D: FlashAttention-3's fp8 figures are at 16k tokens
    (2, 16, 16, 8192, 128),
    (1, 16, 16, 16384, 128),
    (2, 16, 16, 8192, 256),
    (1, 16, 16, 16384, 256),
    (4, 32, 32, 4096, 64),
    (4, 32, 8, 4096, 128),
]


def fp8_rows():
    """tilec.ops.attention_fp8's kernel (Q, K, V in e4m3, descales per
    (batch, head), V given transposed as the kernel reads it), the same op
    with its Vᵀ pass, tilec bf16 and cuDNN bf16 on the same inputs (the
    e4m3 ones quantized from them), one run. Each output checked against
    float64 on the first batch-head (of the dequantized inputs for fp8)."""
    from tilec.attention_fp8 import transpose_v

    kernels = tilec.load(os.path.join(BUNDLES, "attention_fp8.tlc"))
    k16 = tilec.load(os.path.join(BUNDLES, "attention.tlc"))
    dev = torch.cuda.get_device_name()
    print(f"attention forward, fp8 (e4m3) beside bf16, {dev}; TFLOP/s (median of do_bench); "
          "fp8: the kernel, V given as Vᵀ; fp8 op: tilec.ops.attention_fp8 with its Vᵀ pass; "
          "fp8 vrow: the kernel taking V row-major (the load partition's K-major copy); "
          "ratio = fp8 / cuDNN bf16")
    print(f"{'B':>2} {'Hq':>3} {'Hkv':>3} {'S':>6} {'D':>4} {'causal':>6} | {'fp8':>6} "
          f"{'fp8 op':>6} {'fp8 vrow':>8} {'bf16':>6} {'cuDNN':>6} | {'fp8/cuDNN':>9}")
    for (b, hq, hkv, s, d) in FP8_SHAPES:
        for causal in (False, True):
            q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            quant = []
            for t in (q, k, v):
                descale = t.float().abs().amax(dim=(2, 3)) / 448
                quant.append(((t.float() / descale[:, :, None, None]).to(torch.float8_e4m3fn),
                              descale.contiguous()))
            (q8, dq), (k8, dk), (v8, dv) = quant
            scale = 1.0 / math.sqrt(d)
            flops = 4 * b * hq * s * s * d / (2 if causal else 1)
            vt = transpose_v(v8)
            o = torch.full_like(q, float("nan"))
            lse = torch.full(q.shape[:3], float("nan"), device=q.device)
            fp8 = kernels[f"attention_fp8_d{d}"]

            def ours():
                fp8(q8, k8, vt, o, lse, dq, dk, dv, scale, int(causal))
                return o

            def op():
                return tilec.ops.attention_fp8(q8, k8, v8, dq, dk, dv, causal=causal,
                                               scale=scale)

            def vrow():
                kernels[f"attention_fp8_vrow_d{d}"](q8, k8, v8, o, lse, dq, dk, dv, scale,
                                                   int(causal))
                return o
            runs = {"fp8": ours, "fp8 op": op,
                    "bf16": tilec_runner(k16, q, k, v, scale, causal),
                    "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION, q, k, v, scale, causal)}
            # V row-major, copied K-major by the load partition's threads
            # (examples/attention_fp8.mlir has it at D 64 and 128).
            if d in (64, 128):
                runs["fp8 vrow"] = vrow
            deq = [(t8[0, 0].double() * ds[0, 0]) for t8, ds in quant]
            ref8 = reference(*deq, scale, causal)
            for name in [n for n in ("fp8", "fp8 op", "fp8 vrow") if n in runs]:
                err = (runs[name]()[0, 0].double() - ref8).abs().max().item()
                # P in e4m3: a few percent of the output's range.
                if not math.isfinite(err) or err > 0.1 * ref8.abs().max().item():
                    raise SystemExit(f"{name} {b}x{hq}/{hkv}x{s}x{d} causal={causal}: "
                                     f"max error {err}")
            check(runs["bf16"]()[0, 0], reference(q[0, 0], k[0, 0], v[0, 0], scale, causal),
                  "tilec bf16")
            tf = {n: flops / (t * 1e-3) / 1e12 for n, t in interleaved(runs).items()}
            vrow_tf = f"{tf['fp8 vrow']:8.0f}" if "fp8 vrow" in tf else f"{'-':>8}"
            print(f"{b:>2} {hq:>3} {hkv:>3} {s:>6} {d:>4} {str(causal):>6} | {tf['fp8']:6.0f} "
                  f"{tf['fp8 op']:6.0f} {vrow_tf} {tf['bf16']:6.0f} {tf['cudnn']:6.0f} | "
                  f"{tf['fp8'] / tf['cudnn']:9.2f}", flush=True)
            del q, k, v, q8, k8, v8, vt, o
            torch.cuda.empty_cache()


if __name__ == "__main__":
    if "--fp8" in sys.argv:
        fp8_rows()
        sys.exit(0)
    if "--varlen" not in sys.argv:
        main()
    varlen_rows()
