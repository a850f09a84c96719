"""Attention from Python: examples/attention.mlir's kernels on torch tensors,
checked against torch's scaled_dot_product_attention.

    build/bin/tilec compile examples/attention.mlir -o attention.tlc
    python3 examples/attention.py attention.tlc

Needs torch with a CUDA GPU (sm_90a for the warp-specialized kernels; the
runtime picks a kernel's plain twin where a view breaks TMA's rules).
"""

import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "attention.tlc"
    kernels = tilec.load(path)
    b, hq, hkv, s, d = 2, 8, 2, 1000, 128  # GQA: 4 query heads a K/V head
    # (B, S, H, D) tensors, passed as (B, H, S, D) views: no copy.
    q = torch.randn(b, s, hq, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    v = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    o = torch.empty_like(q)
    lse = torch.empty(b, hq, s, device="cuda")  # the row log-sum-exp, f32
    scale = 1.0 / math.sqrt(d)
    for causal in (False, True):
        kernels[f"attention_d{d}"](q, k, v, o, lse, scale, int(causal))
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale,
                                             enable_gqa=True)
        err = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
        print(f"attention_d{d} causal={causal}: relative error vs torch SDPA {err:.2e}")
        if not err < 2e-2:
            sys.exit(1)


if __name__ == "__main__":
    main()
