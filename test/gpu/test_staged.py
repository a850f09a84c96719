"""GPU tests of staged A operands (test/gpu/kernels/staged.mlir): a dot
whose A is a transposed accumulator the loop computes (P = exp(Q Kᵀ ·
scale), read as Pᵀ), written into shared memory in wgmma's layout and
read by descriptor; on one warpgroup and on two (S split N), and staged
again after a reduction across warps overwrites it; with a reduction
into global memory in a branch of the loop (kept warp-specialized).
Fresh random inputs,
outputs poisoned, lengths off the 64 grid, against float64; inputs whose
rows are 136 bytes apart (no TMA: the plain twins, whose load partition
copies with threads) as well as contiguous ones; skipped without a GPU."""

import math

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def staged():
    return load("staged")


LENGTHS = [(64, 64), (300, 130), (77, 1000), (1000, 5)]


def rows(n, strided):
    """A fresh random (n, 64) bf16 tile, its rows 136 bytes apart where
    `strided` (a view of a wider tensor)."""
    if strided:
        return torch.randn(n, 68, device=DEV, dtype=torch.bfloat16)[:, :64]
    return torch.randn(n, 64, device=DEV, dtype=torch.bfloat16)


def inputs(sq, sk, strided=False):
    q, do = (rows(sq, strided) for _ in range(2))
    k = rows(sk, strided)
    scale = 1 / math.sqrt(64)
    p = torch.exp(q.double() @ k.double().T * scale)  # (sq, sk)
    return q, k, do, scale, p


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("sq,sk", LENGTHS)
def test_pt_do(staged, sq, sk, strided):
    q, k, do, scale, p = inputs(sq, sk, strided)
    dv = torch.full((sk, 64), float("nan"), device=DEV)
    staged["pt_do"](q, k, do, dv, scale)
    torch.cuda.synchronize()
    assert rel_err(dv, p.T @ do.double()) < 1e-2


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("sq,sk", LENGTHS)
def test_pt_two(staged, sq, sk, strided):
    q, k, do, scale, p = inputs(sq, sk, strided)
    dv, dk = (torch.full((sk, 64), float("nan"), device=DEV) for _ in range(2))
    cs = torch.full((sk,), float("nan"), device=DEV)
    staged["pt_two"](q, k, do, dv, dk, cs, scale)
    torch.cuda.synchronize()
    assert rel_err(dv, p.T @ do.double()) < 1e-2
    assert rel_err(dk, p.T @ q.double()) < 1e-2
    # Rows past the queries load as zeros: their P is exp(0) = 1.
    pad = (-sq) % 64
    assert rel_err(cs, p.sum(0) + pad) < 1e-3


@pytest.mark.parametrize("flag", [0, 1])
@pytest.mark.parametrize("sq,sk", LENGTHS)
def test_pt_do_rowsum(staged, sq, sk, flag):
    # The row sums go in only when flag is set: a reduction in a branch of
    # the warp-specialized loop.
    q, k, do, scale, p = inputs(sq, sk)
    dv = torch.full((sk, 64), float("nan"), device=DEV)
    rs = torch.zeros(sq, device=DEV)
    staged["pt_do_rowsum"](q, k, do, dv, rs, scale, flag)
    torch.cuda.synchronize()
    assert rel_err(dv, p.T @ do.double()) < 1e-2
    if flag:
        assert rel_err(rs, p.sum(1)) < 1e-4
    else:
        assert torch.count_nonzero(rs).item() == 0
