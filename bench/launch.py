"""Host time of a launch from Python: tilec against Triton and torch (issue 15).

    python3 bench/launch.py

Each figure is the host time of one launch call (what the Python thread
spends before it can go on), the median over 20 batches of 200 launches:
a batch is timed with time.perf_counter without synchronizing (200 tiny
kernels queue well below the driver's queue depth, so the GPU never pushes
back), then the stream is drained outside the timing. Kernels:

- vector add (3 tensors, 4096 floats): tilec's examples/vector_add, a
  Triton kernel of the same four arguments (x, y, out, n), torch.add;
- GEMM 256x256x256 bf16 with bias and ReLU: tilec's examples/gemm (three
  TMA descriptors encoded a launch, a member chosen by its cost rule, as
  a user calls it), and the same kernel with an explicit grid (no
  choice), against torch.addmm.
"""

import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(os.path.dirname(__file__), "..",
                                                          "build", "examples"))
BATCH, BATCHES = 200, 20


def host_us(launch):
    for _ in range(BATCH):  # warm-up: module loads, caches
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(BATCHES):
        t = time.perf_counter()
        for _ in range(BATCH):
            launch()
        times.append((time.perf_counter() - t) / BATCH * 1e6)
        torch.cuda.synchronize()
    return statistics.median(times)


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
    rows = []
    x, y = (torch.randn(4096, device="cuda") for _ in range(2))
    out = torch.empty_like(x)
    va = load("vector_add.tlc")["vector_add"]
    rows.append(("vector add", "tilec", host_us(lambda: va(x, y, out))))
    tri = triton_add()
    if tri:
        rows.append(("vector add", "Triton", host_us(lambda: tri(x, y, out))))
    rows.append(("vector add", "torch.add", host_us(lambda: torch.add(x, y, out=out))))

    n = 256
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    gemm = load("gemm.tlc")["gemm"]
    rows.append(("GEMM 256^3", "tilec (chooses)", host_us(lambda: gemm(a, b, bias, c))))
    member = gemm.choose(a, b, bias, c)
    k = load("gemm.tlc")[member]
    grid = k.grid(a, b, bias, c)
    rows.append(("GEMM 256^3", "tilec (%s, grid)" % member,
                 host_us(lambda: k(a, b, bias, c, grid=grid))))
    bias16 = bias.to(torch.bfloat16)
    rows.append(("GEMM 256^3", "torch.addmm", host_us(lambda: torch.addmm(bias16, a, b, out=c))))

    print("%s (%s), torch %s" % (torch.cuda.get_device_name(), os.environ.get("TILEC_COMMIT", ""),
                                 torch.__version__))
    print("%-12s %-28s %10s" % ("kernel", "launcher", "host us"))
    for kernel, who, us in rows:
        print("%-12s %-28s %10.2f" % (kernel, who, us))


if __name__ == "__main__":
    main()
