"""Launches examples/attention_bwd.mlir's kernels (D = 64, 128 and 256) once
per case on fresh random inputs with NaN-poisoned outputs and checks dQ,
dK and dV against float64 autograd (test/gpu/test_attention_bwd.py's
run_backward and reference). scripts/gpu-attention-audit.sh runs it under
compute-sanitizer on the GPU machine, so the shapes are small: lengths off
the blocks whose LSE rows are 16-byte aligned (the warp-specialized TMA
kernels run, not the plain twins), causal and not, GQA, both layouts, and
the deterministic mode (its spin-waits and ordered adds) at one shape."""

import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
from gpu_common import load, rel_err, torch  # noqa: E402
from test_attention_bwd import make, reference_grads, run_backward  # noqa: E402

# (D, B, Hq, Hkv, S, causal, layout, deterministic)
CASES = [
    (d, b, hq, hkv, s, causal, layout, det)
    for d in (64, 128, 256)
    for (b, hq, hkv, s, layout, det) in ((1, 2, 2, 64, "bhsd", False),
                                         (1, 4, 2, 300, "bshd", False),
                                         (1, 4, 2, 300, "bshd", True))
    for causal in (False, True)
]


def main():
    fwd, bwd = load("attention"), load("attention_bwd")
    ok = True
    for d, b, hq, hkv, s, causal, layout, det in CASES:
        q = make(b, hq, s, d, layout)
        k, v = make(b, hkv, s, d, layout), make(b, hkv, s, d, layout)
        do = make(b, hq, s, d, layout)
        scale = 1 / math.sqrt(d)
        grads = run_backward(fwd, bwd, q, k, v, do, scale, causal, det)
        refs = reference_grads(q, k, v, do, scale, causal)
        errs = [rel_err(g, r) for g, r in zip(grads, refs)]
        passed = all(e < 2e-2 for e in errs)  # NaN fails
        ok &= passed
        print(f"attention_bwd_d{d} {b}x{hq}/{hkv}x{s} causal={int(causal)} {layout}{' det' if det else ''}: "
              f"rel err dq {errs[0]:.2e} dk {errs[1]:.2e} dv {errs[2]:.2e} "
              f"{'PASS' if passed else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
