"""Launches examples/attention.mlir's warp-specialized kernels (D = 64, 128
and 256) once per case on fresh random inputs with NaN-poisoned outputs
and checks O and the row log-sum-exp against float64 (the inputs, launch
and reference are test/gpu/test_examples.py's launch_attention).
scripts/gpu-attention-audit.sh runs it under compute-sanitizer on the GPU
machine, so the shapes are small: two lengths that are not multiples of
the block (one below one block of keys, one over several), causal and not,
GQA, both tensor layouts."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
from test_examples import launch_attention  # noqa: E402

# (D, B, Hq, Hkv, S, causal, layout)
CASES = [
    (d, b, hq, hkv, s, causal, layout)
    for d in (64, 128, 256)
    for (b, hq, hkv, s, layout) in ((1, 2, 2, 77, "bhsd"), (1, 4, 2, 300, "bshd"))
    for causal in (False, True)
]


def main():
    ok = True
    for d, b, hq, hkv, s, causal, layout in CASES:
        o, lse, ref, ref_lse = launch_attention(d, b, hq, hkv, s, causal, layout)
        err = ((o.double() - ref).norm() / ref.norm()).item()
        lerr = (lse.double() - ref_lse).abs().max().item()
        passed = err < 2e-2 and lerr < 1e-3  # NaN fails both
        ok &= passed
        print(f"attention_d{d} {b}x{hq}/{hkv}x{s} causal={int(causal)} {layout}: "
              f"rel err {err:.3e}, lse err {lerr:.1e} {'PASS' if passed else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
