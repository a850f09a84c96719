"""GPU tests of main loops that add a tile into global memory each
iteration (test/gpu/kernels/loop_reduce.mlir): TMA adds the partial
products (cp.reduce.async.bulk.tensor) from the compute partition, of a
tile split by rows across warpgroups and of one split by columns (a round
of one chunk a warpgroup), and a split-N tile's epilogue goes out by TMA
too. C starts as random values (the adds keep them), E poisoned; shapes off
the tile grid (TMA clips the boxes at the edges); float64 references. Rows
not 16-byte aligned (K = 100: A's; N = 130: C's) launch the plain twin,
which adds with red.global. Skipped without a GPU."""

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def lr():
    return load("loop_reduce")


SHAPES = [(128, 128, 64), (200, 300, 520), (129, 130, 100), (64, 512, 1000),
          (1, 8, 8)]


def operands(m, n, k):
    """Random bf16 A (m x k) and B (k x n), C's random start and the C the
    kernel adds into (a copy of it)."""
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c0 = torch.randn(m, n, device=DEV)
    return a, b, c0, c0.clone()


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_partials(lr, m, n, k):
    a, b, c0, c = operands(m, n, k)
    lr["gemm_partials"](a, b, c)
    torch.cuda.synchronize()
    assert rel_err(c.double() - c0.double(), a.double() @ b.double()) < 1e-4


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_partials_split_n(lr, m, n, k):
    a, b, c0, c = operands(m, n, k)
    e = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
    lr["gemm_partials_split_n"](a, b, c, e)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    assert rel_err(c.double() - c0.double(), ref) < 1e-4
    assert rel_err(e, ref) < 1e-2
