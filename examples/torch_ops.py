"""tilec kernels as PyTorch operators: the GEMM (examples/gemm.mlir) and
attention (examples/attention.mlir) registered with tilec.custom_op, used
eagerly, inside torch.compile(fullgraph=True), replayed from a CUDA graph and
under torch.compile's CUDA graphs (mode="reduce-overhead"); each result is
checked against a float64 reference on fresh random inputs.

    python3 examples/torch_ops.py                     # compiles both with tilec.compile
    python3 examples/torch_ops.py gemm.tlc attention.tlc

Needs torch with a CUDA GPU (sm_90a for the warp-specialized kernels).
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def bundles():
    if len(sys.argv) == 3:
        return tilec.load(sys.argv[1]), tilec.load(sys.argv[2])
    return (tilec.compile(os.path.join(HERE, "gemm.mlir")),
            tilec.compile(os.path.join(HERE, "attention.mlir")))


gemm_bundle, attention_bundle = bundles()

# gemm(a, b, bias, c): C = relu(A B + bias), bf16. The operator allocates C.
gemm_relu = tilec.custom_op(
    "tilec_examples::gemm_relu", gemm_bundle["gemm"],
    outputs={"c": lambda a, b, bias: a.new_empty(a.shape[0], b.shape[1])})

# attention_d128(q, k, v, o, lse, scale, causal) on (B, H, S, D) views. The
# operator allocates O (like Q) and the row log-sum-exp (B, H, S) in f32.
attention = tilec.custom_op(
    "tilec_examples::attention", attention_bundle["attention_d128"],
    outputs={"o": lambda q, k, v, scale, causal: torch.empty_like(q),
             "lse": lambda q, k, v, scale, causal: q.new_empty(q.shape[:3],
                                                               dtype=torch.float32)})


def block(x, w, bias, q, k, v, scale):
    """Torch code around the two tilec operators: a projection with ReLU,
    causal attention, and torch's own ops on their results."""
    h = gemm_relu(x, w, bias)
    o, lse = attention(q, k, v, scale, 1)
    return h.float().square().mean(dim=1), o * 0.5 + 1.0, lse


def reference(x, w, bias, q, k, v, scale):
    h = torch.relu(x.double() @ w.double() + bias.double())
    sc = q.double() @ k.double().transpose(-1, -2) * scale
    s = q.shape[2]
    sc = sc.masked_fill(~torch.ones(s, s, dtype=torch.bool, device=q.device).tril(),
                        float("-inf"))
    o = torch.softmax(sc, dim=-1) @ v.double()
    return h.square().mean(dim=1), o * 0.5 + 1.0, torch.logsumexp(sc, dim=-1)


def inputs(m=1000, n=520, kk=776, b=2, h=4, s=300, d=128):
    """Fresh random inputs; sizes that are not multiples of the tiles."""
    x = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16) / math.sqrt(kk)
    bias = torch.randn(n, device="cuda")
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    return x, w, bias, q, k, v, 1.0 / math.sqrt(d)


def check(what, got, want):
    worst = 0.0
    for g, r, tol in zip(got, want, (2e-2, 2e-2, 1e-3)):
        err = ((g.double() - r).norm() / r.norm()).item()
        worst = max(worst, err)
        if not err < tol:
            print(f"{what}: relative error {err:.2e} >= {tol:.0e}")
            sys.exit(1)
    print(f"{what:<42} worst relative error vs float64 {worst:.2e}")


def main():
    torch.manual_seed(0)
    args = inputs()
    check("eager", block(*args), reference(*args))

    compiled = torch.compile(block, fullgraph=True)
    for _ in range(2):  # a second call reuses the compiled graph
        args = inputs()
        check("torch.compile(fullgraph=True)", compiled(*args), reference(*args))

    # A CUDA graph of the operators: captured once, replayed on new values.
    static = inputs()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        block(*static)  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = block(*static)
    for _ in range(2):
        fresh = inputs()
        for dst, src in zip(static[:-1], fresh[:-1]):
            dst.copy_(src)
        graph.replay()
        check("CUDA graph replay", out, reference(*static))

    overhead = torch.compile(block, fullgraph=True, mode="reduce-overhead")
    for _ in range(3):  # recorded into a CUDA graph after a warm-up call
        args = inputs()
        check('torch.compile(mode="reduce-overhead")',
              [t.clone() for t in overhead(*args)], reference(*args))


if __name__ == "__main__":
    main()
