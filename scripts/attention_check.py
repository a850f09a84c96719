"""Launches examples/attention.mlir's warp-specialized kernels (D = 64, 128
and 256) once per case on fresh random inputs with NaN-poisoned outputs
and checks O and the row log-sum-exp against float64.
scripts/gpu-attention-audit.sh runs it under compute-sanitizer on the GPU
machine, so the shapes are small: two lengths that are not multiples of
the block (one below one block of keys, one over several), causal and not,
GQA, both tensor layouts."""

import math
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tilec  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, ".device", "examples"))

# (D, B, Hq, Hkv, S, causal, layout)
CASES = [
    (d, b, hq, hkv, s, causal, layout)
    for d in (64, 128, 256)
    for (b, hq, hkv, s, layout) in ((1, 2, 2, 77, "bhsd"), (1, 4, 2, 300, "bshd"))
    for causal in (False, True)
]


def reference(q, k, v, scale, causal):
    group = q.shape[1] // k.shape[1]
    kd = k.double().repeat_interleave(group, 1)
    vd = v.double().repeat_interleave(group, 1)
    sc = q.double() @ kd.transpose(-1, -2) * scale
    if causal:
        keep = torch.ones(q.shape[2], k.shape[2], dtype=torch.bool, device="cuda").tril()
        sc = sc.masked_fill(~keep, float("-inf"))
    return torch.softmax(sc, dim=-1) @ vd, torch.logsumexp(sc, dim=-1)


def main():
    kernels = tilec.load(os.path.join(BUNDLES, "attention.tlc"))
    ok = True
    for d, b, hq, hkv, s, causal, layout in CASES:
        def make(h, fill=None):
            shape = (b, h, s, d) if layout == "bhsd" else (b, s, h, d)
            t = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) if fill is None
                 else torch.full(shape, fill, device="cuda", dtype=torch.bfloat16))
            return t if layout == "bhsd" else t.transpose(1, 2)
        q, k, v = make(hq), make(hkv), make(hkv)
        o = make(hq, float("nan"))
        lse = torch.full((b, hq, s), float("nan"), device="cuda")
        scale = 1.0 / math.sqrt(d)
        kernels[f"attention_d{d}"](q, k, v, o, lse, scale, int(causal))
        torch.cuda.synchronize()
        ref, ref_lse = reference(q, k, v, scale, causal)
        err = ((o.double() - ref).norm() / ref.norm()).item()
        lerr = (lse.double() - ref_lse).abs().max().item()
        passed = err < 2e-2 and lerr < 1e-3  # NaN fails both
        ok &= passed
        print(f"attention_d{d} {b}x{hq}/{hkv}x{s} causal={int(causal)} {layout}: "
              f"rel err {err:.3e}, lse err {lerr:.1e} {'PASS' if passed else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
