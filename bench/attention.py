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
n/a for tilec and still measures the peers. The ratio is tilec / cuDNN."""

import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402
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


if __name__ == "__main__":
    main()
