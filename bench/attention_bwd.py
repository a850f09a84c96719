"""Attention backward throughput: tilec against torch SDPA's cuDNN and
FlashAttention-2 backends and FlexAttention, in one run on one GPU, on the
same inputs.

    python3 bench/attention_bwd.py [--back-to-back]   # bundles from $TILEC_KERNELS_DIR / build/examples

Shapes (B, Hq, Hkv, S, D) are issue 48's: (4, 16, 16, 4096, 128),
(2, 16, 16, 8192, 128), (1, 16, 16, 16384, 128), (4, 32, 32, 4096, 64),
(2, 16, 16, 4096, 256) and GQA (4, 32, 8, 4096, 128); each non-causal and
causal. bf16, (B, H, S, D) tensors. FLOPs: 2.5 times the forward's
(4 B Hq S^2 D, halved when causal), the convention of FlashAttention's
papers. What is timed is the backward alone, given O, LSE and dO:
tilec's three kernels (Delta, dK/dV/dQ, dQ's conversion) through the
operator tilec.ops.attention registers (tilec::attention_bwd); SDPA's and
Flex's through torch.autograd.grad of a forward run once, with the graph
retained. Each backend's dQ, dK and dV are checked against float64 on the
first batch and head group before timing. The backends of a row are timed
in turn, in rounds (bench/timing.py). The ratio is tilec / cuDNN.

By default each launch is timed from the host (do_bench, the L2 flushed
before it), which counts whatever part of a backend's host path outlasts
the flush: tilec's operator launches three kernels from Python. With
--back-to-back each backend's launches are queued back to back between
two events (bench/timing.py's back_to_back_ms): the GPU's time alone, as
a training step whose host runs ahead of the GPU sees it."""

import math
import os
import sys

# bench/profile.py would shadow the standard library's profile module, which
# torch.compile (FlexAttention) imports: load the standard one first.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401
sys.path.insert(0, _HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec.ops  # noqa: E402
from attention_table import print_table  # noqa: E402
from timing import interleaved  # noqa: E402

BACK_TO_BACK = "--back-to-back" in sys.argv[1:]
SHAPES = [  # B, Hq, Hkv, S, D
    (4, 16, 16, 4096, 128),
    (2, 16, 16, 8192, 128),
    (1, 16, 16, 16384, 128),
    (4, 32, 32, 4096, 64),
    (2, 16, 16, 4096, 256),
    (4, 32, 8, 4096, 128),
]


def reference(q, k, v, do, scale, causal):
    """float64 dQ, dK, dV of batch 0 and K/V head 0's query heads."""
    group = q.shape[1] // k.shape[1]
    qd = q[0, :group].double().requires_grad_()
    kd = k[0, :1].double().requires_grad_()
    vd = v[0, :1].double().requires_grad_()
    sc = qd @ kd.transpose(-1, -2) * scale
    if causal:
        s = q.shape[2]
        sc = sc.masked_fill(~torch.ones(s, s, dtype=torch.bool, device=q.device).tril(),
                            float("-inf"))
    o = torch.softmax(sc, dim=-1) @ vd
    o.backward(do[0, :group].double())
    return qd.grad, kd.grad, vd.grad


def check(grads, refs, what):
    for name, g, r in zip(("dq", "dk", "dv"), grads, refs):
        err = ((g.double() - r).norm() / r.norm()).item()
        if not math.isfinite(err) or err > 2e-2:
            raise SystemExit(f"{what}: {name} relative error {err}")


def autograd_runner(forward, q, k, v, do):
    """torch.autograd.grad of forward(q, k, v) against do, the forward run
    once and its graph kept."""
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    o = forward(qg, kg, vg)

    def run():
        return torch.autograd.grad(o, (qg, kg, vg), do, retain_graph=True)
    return run


def sdpa(backend, scale, causal, gqa):
    def forward(q, k, v):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale,
                                                  enable_gqa=gqa)
    return forward


def flex(scale, causal, gqa, s):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    import torch._dynamo

    # One compile a shape and mask, twelve in a run: past dynamo's default
    # limit of 8 it would fall back to eager (unfused, and slow).
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    # The backward is run again on a retained graph (timed repeatedly).
    torch._functorch.config.donated_buffer = False
    compiled = torch.compile(flex_attention)
    mask = None
    if causal:
        mask = create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, None, None, s, s)

    def forward(q, k, v):
        return compiled(q, k, v, block_mask=mask, scale=scale, enable_gqa=gqa)
    return forward


def tilec_runner(q, k, v, do, scale, causal, deterministic=False):
    o, lse = tilec.ops.attention(q, k, v, causal=causal, scale=scale, return_lse=True)
    bwd = torch.ops.tilec.attention_bwd

    def run():
        return bwd(q, k, v, o, lse, do, causal, scale, deterministic)
    return run


def main():
    torch.manual_seed(0)
    dev = torch.cuda.get_device_name()
    print(f"attention backward, bf16, {dev}; TFLOP/s (2.5x the forward's FLOPs), "
          f"ratio = tilec / cuDNN; timed "
          + ("back to back (GPU time)" if BACK_TO_BACK else "from the host (do_bench)"))
    rows = []
    for (b, hq, hkv, s, d) in SHAPES:
        for causal in (False, True):
            q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
            do = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
            scale = 1.0 / math.sqrt(d)
            gqa = hq != hkv
            flops = 2.5 * 4 * b * hq * s * s * d / (2 if causal else 1)
            refs = reference(q, k, v, do, scale, causal)
            group = hq // hkv
            result, runs = {}, {}
            makers = (
                ("cudnn", lambda: autograd_runner(
                    sdpa(SDPBackend.CUDNN_ATTENTION, scale, causal, gqa), q, k, v, do)),
                ("fa2", lambda: autograd_runner(
                    sdpa(SDPBackend.FLASH_ATTENTION, scale, causal, gqa), q, k, v, do)),
                ("flex", lambda: autograd_runner(flex(scale, causal, gqa, s), q, k, v, do)),
                ("tilec", lambda: tilec_runner(q, k, v, do, scale, causal)),
                ("det", lambda: tilec_runner(q, k, v, do, scale, causal, True)),
            )
            for name, make in makers:
                result[name] = None
                try:
                    run = make()
                    dq, dk, dv = run()
                    check((dq[0, :group], dk[0, :1], dv[0, :1]), refs,
                          f"{name} {b}x{hq}/{hkv}x{s}x{d} causal={causal}")
                except (RuntimeError, NotImplementedError) as e:  # a backend that does not take it
                    print(f"  {name}: {str(e).splitlines()[0]}")
                    continue
                runs[name] = run
            for name, ms in interleaved(runs, back_to_back=BACK_TO_BACK).items():
                result[name] = flops / (ms * 1e-3) / 1e12
            rows.append(((b, hq, hkv, s, d, causal), result))
            del runs, makers
            torch.cuda.empty_cache()

    print_table(rows, ["tilec", "cudnn", "fa2", "flex", "det"])


if __name__ == "__main__":
    main()
