"""Host time of a launch from Python: tilec against Triton and torch (issue 15).

    python3 bench/launch.py

Each figure is the host time of one launch call (what the Python thread
spends before it can go on), the median over 30 batches of 200 launches:
a batch is timed with time.perf_counter without synchronizing (200 tiny
kernels queue well below the driver's queue depth, so the GPU never pushes
back), then the stream is drained outside the timing. The launchers are
timed in turn, a batch of each in every round with the order rotating, so
all see the same machine (figures drift by 15% from one run to the next).
Kernels:

- vector add (3 tensors, 4096 floats): tilec's examples/vector_add, a
  Triton kernel of the same four arguments (x, y, out, n), torch.add;
- GEMM 256x256x256 bf16 with bias and ReLU: tilec's examples/gemm (three
  TMA descriptors encoded a launch, a member chosen by its cost rule, as
  a user calls it), the same kernel with an explicit grid (no
  choice), and as a PyTorch operator (tilec.custom_op: torch's dispatcher,
  C allocated by the operator), against torch.addmm.
"""

import os
import statistics
import sys
import time

# This directory's profile.py would stand in for the standard library's
# (torch's dispatcher imports cProfile, which imports profile).
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(os.path.dirname(__file__), "..",
                                                          "build", "examples"))
BATCH, BATCHES = 200, 30


def host_us(launchers):
    """{name: launch} -> {name: median host microseconds a launch}."""
    names = list(launchers)
    for name in names:  # warm-up: module loads, caches
        for _ in range(BATCH):
            launchers[name]()
    torch.cuda.synchronize()
    times = {name: [] for name in names}
    for r in range(BATCHES):
        for name in names[r % len(names):] + names[:r % len(names)]:
            launch = launchers[name]
            t = time.perf_counter()
            for _ in range(BATCH):
                launch()
            times[name].append((time.perf_counter() - t) / BATCH * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(ts) for name, ts in times.items()}


def triton_add():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def add(x, y, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask),
                 mask=mask)

    def launch(x, y, out):
        n = x.numel()
        add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

    return launch


def main():
    load = lambda f: tilec.load(os.path.join(BUNDLES, f))  # noqa: E731
    x, y = (torch.randn(4096, device="cuda") for _ in range(2))
    out = torch.empty_like(x)
    va = load("vector_add.tlc")["vector_add"]
    vector = {"tilec": lambda: va(x, y, out)}
    tri = triton_add()
    if tri:
        vector["Triton"] = lambda: tri(x, y, out)
    vector["torch.add"] = lambda: torch.add(x, y, out=out)

    n = 256
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    bundle = load("gemm.tlc")
    gemm = bundle["gemm"]
    member = gemm.choose(a, b, bias, c)
    k = bundle[member]
    grid = k.grid(a, b, bias, c)
    op = tilec.custom_op("bench::gemm_relu", gemm,
                         outputs={"c": lambda a, b, bias: a.new_empty(a.shape[0], b.shape[1])})
    bias16 = bias.to(torch.bfloat16)
    gemms = {"tilec (chooses)": lambda: gemm(a, b, bias, c),
             "tilec (%s, grid)" % member: lambda: k(a, b, bias, c, grid=grid),
             "tilec.custom_op (allocates C)": lambda: op(a, b, bias),
             "torch.addmm": lambda: torch.addmm(bias16, a, b, out=c)}

    rows = [("vector add", who, us) for who, us in host_us(vector).items()]
    rows += [("GEMM 256^3", who, us) for who, us in host_us(gemms).items()]
    print("%s (%s), torch %s" % (torch.cuda.get_device_name(), os.environ.get("TILEC_COMMIT", ""),
                                 torch.__version__))
    print("%-12s %-30s %10s" % ("kernel", "launcher", "host us"))
    for kernel, who, us in rows:
        print("%-12s %-30s %10.2f" % (kernel, who, us))


if __name__ == "__main__":
    main()
