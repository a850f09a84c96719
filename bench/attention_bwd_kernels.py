"""The three kernels of tilec's attention backward timed one by one (CUDA
events, mean of 5 after a warm-up), for reading where the time goes:

    python3 bench/attention_bwd_kernels.py B H S D [causal [deterministic]]

prints the milliseconds of attention_bwd_pre_dD, attention_bwd_dD (with
its TFLOP/s, 2.5x the forward's FLOPs) and attention_bwd_post_dD on fresh
random inputs, bundles from $TILEC_BUNDLE_DIR (default build/examples)."""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))


def main():
    b, h, s, d = (int(x) for x in sys.argv[1:5])
    causal = len(sys.argv) > 5 and sys.argv[5] not in ("0", "false", "False")
    det = len(sys.argv) > 6 and sys.argv[6] not in ("0", "false", "False")
    fwd = tilec.load(os.path.join(BUNDLES, "attention.tlc"))
    bwd = tilec.load(os.path.join(BUNDLES, "attention_bwd.tlc"))
    q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
                   for _ in range(4))
    o, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
    scale = 1 / math.sqrt(d)
    fwd["attention_d%d" % d](q, k, v, o, lse, scale, int(causal))
    delta, lse2 = torch.empty_like(lse), torch.empty_like(lse)
    dqacc = torch.empty(q.shape, device="cuda")
    dq, dk, dv = map(torch.empty_like, (q, k, v))
    # The deterministic kernel's counters (it leaves them zero).
    sem = torch.zeros(b, h, (s + 63) // 64, device="cuda", dtype=torch.int32)
    main = (lambda: bwd["attention_bwd_det_d%d" % d](q, k, v, do, lse2, delta, dqacc, dk, dv,
                                                     scale, int(causal), sem)) if det else \
        (lambda: bwd["attention_bwd_d%d" % d](q, k, v, do, lse2, delta, dqacc, dk, dv,
                                             scale, int(causal)))
    kernels = [
        ("pre", lambda: bwd["attention_bwd_pre_d%d" % d](o, do, lse, delta, lse2, dqacc)),
        ("main", main),
        ("post", lambda: bwd["attention_bwd_post_d%d" % d](dqacc, dq, scale)),
    ]
    for _, f in kernels:
        f()
    torch.cuda.synchronize()
    flops = 2.5 * 4 * b * h * s * s * d / (2 if causal else 1)
    for name, f in kernels:
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            f()
        stop.record()
        stop.synchronize()
        ms = start.elapsed_time(stop) / 5
        extra = f"  {flops / ms / 1e9:.0f} TFLOP/s" if name == "main" else ""
        print(f"({b}, {h}, {s}, {d}) causal={causal}{' deterministic' if det else ''} "
              f"{name}: {ms:.3f} ms{extra}")


if __name__ == "__main__":
    main()
