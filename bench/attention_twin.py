"""The attention plain twins (attention_d{D}__plain: the kernel the runtime
launches where a view breaks TMA's rules) against cuDNN on aligned copies
of the same inputs, and, with $TILEC_BASE_BUNDLE_DIR, against the twins of
another build, in one run on one GPU.

    python3 bench/attention_twin.py

Two cases of rows D + 1 elements apart (not a multiple of 16 bytes):
- `kv`: K and V so; the runtime zeroes their TMA descriptors and the twin
  loads them plainly;
- `q`: Q so; the twin reads K and V by TMA (its pipelined path).
B = 2, H = 16, S = 4096, bf16. Each output is checked against float64 on
the first batch-head before it is timed (bench/attention.py's check)."""

import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402
from attention import check, reference  # noqa: E402
from timing import interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))
BASE = os.environ.get("TILEC_BASE_BUNDLE_DIR")


def main():
    torch.manual_seed(0)
    builds = {"tilec": tilec.load(os.path.join(BUNDLES, "attention.tlc"))}
    if BASE:
        builds["base"] = tilec.load(os.path.join(BASE, "attention.tlc"))
    print(f"attention plain twins (`kv`: K, V rows not 16-byte aligned; `q`: "
          f"Q's), bf16, {torch.cuda.get_device_name()}; TFLOP/s")
    b, h, s = 2, 16, 4096
    rows = []
    for unaligned, d, causal in [(u, d, c) for u in ("kv", "q")
                                 for d in (64, 128, 256) for c in (False, True)]:
        def make(skew):
            return torch.randn(b, h, s, d + skew, device="cuda",
                               dtype=torch.bfloat16)[..., :d]
        q = make(unaligned == "q")
        k, v = make(unaligned == "kv"), make(unaligned == "kv")
        qc, kc, vc = q.contiguous(), k.contiguous(), v.contiguous()
        scale = 1.0 / math.sqrt(d)
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        ref = reference(q[0, 0], k[0, 0], v[0, 0], scale, causal)
        runs = {}
        for name, kernels in builds.items():
            fn = kernels[f"attention_d{d}"]
            o = torch.full_like(q, float("nan"))
            lse = torch.full(q.shape[:3], float("nan"), device="cuda")
            assert fn.choose(q, k, v, o, lse, scale, int(causal)) == \
                f"attention_d{d}__plain"

            def run(fn=fn, o=o, lse=lse):
                fn(q, k, v, o, lse, scale, int(causal))
                return o
            check(run()[0, 0], ref, f"{name} {unaligned} d={d} causal={causal}")
            runs[name] = run

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(qc, kc, vc, is_causal=causal,
                                                      scale=scale)
        runs["cudnn"] = cudnn
        tf = {n: flops / (ms * 1e-3) / 1e12 for n, ms in interleaved(runs).items()}
        rows.append((unaligned, d, causal, tf))
    cols = list(builds) + ["cudnn"]
    print(f"{'rows':>4} {'D':>4} {'causal':>6} | " + " ".join(f"{c:>6}" for c in cols) +
          (" | tilec/base" if BASE else "") + " | tilec/cuDNN")
    for unaligned, d, causal, tf in rows:
        line = f"{unaligned:>4} {d:>4} {str(causal):>6} | " + \
            " ".join(f"{tf[c]:>6.0f}" for c in cols)
        if BASE:
            line += f" | {tf['tilec'] / tf['base']:>10.2f}"
        print(line + f" | {tf['tilec'] / tf['cudnn']:>11.2f}")


if __name__ == "__main__":
    main()
