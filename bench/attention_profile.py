"""One attention shape, tilec and cuDNN (torch SDPA) a few launches each,
for a profiler to capture (not a benchmark: no timing here).

    ncu --kernel-name regex:'attention_d|cudnn' --launch-skip 2 \\
        --launch-count 2 python3 bench/attention_profile.py 4 16 16 4096 128 0

Arguments: B Hq Hkv S D causal (0 or 1); bundles from $TILEC_BUNDLE_DIR."""

import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))


def main():
    b, hq, hkv, s, d, causal = (int(x) for x in sys.argv[1:7])
    torch.manual_seed(0)
    q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
    o = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    scale = 1.0 / math.sqrt(d)
    fn = tilec.load(os.path.join(BUNDLES, "attention.tlc"))[f"attention_d{d}"]
    for _ in range(4):
        fn(q, k, v, o, lse, scale, causal)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(4):
            F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale,
                                           enable_gqa=hq != hkv)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
