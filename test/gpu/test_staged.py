"""GPU tests of staged A operands (test/gpu/kernels/staged.mlir): a dot
whose A is a transposed accumulator the loop computes (P = exp(Q Kᵀ ·
scale), read as Pᵀ), written into shared memory in wgmma's layout and
read by descriptor; on one warpgroup and on two (S split N), and staged
again after a reduction across warps overwrites it. Fresh random inputs,
outputs poisoned, lengths off the 64 grid (the plain twins run where rows
are not 16-byte aligned), against float64; skipped without a GPU."""

import math

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def staged():
    return load("staged")


LENGTHS = [(64, 64), (300, 130), (77, 1000), (1000, 5)]


def inputs(sq, sk):
    q, do = (torch.randn(sq, 64, device=DEV, dtype=torch.bfloat16) for _ in range(2))
    k = torch.randn(sk, 64, device=DEV, dtype=torch.bfloat16)
    scale = 1 / math.sqrt(64)
    p = torch.exp(q.double() @ k.double().T * scale)  # (sq, sk)
    return q, k, do, scale, p


@pytest.mark.parametrize("sq,sk", LENGTHS)
def test_pt_do(staged, sq, sk):
    q, k, do, scale, p = inputs(sq, sk)
    dv = torch.full((sk, 64), float("nan"), device=DEV)
    staged["pt_do"](q, k, do, dv, scale)
    torch.cuda.synchronize()
    assert rel_err(dv, p.T @ do.double()) < 1e-2


@pytest.mark.parametrize("sq,sk", LENGTHS)
def test_pt_two(staged, sq, sk):
    q, k, do, scale, p = inputs(sq, sk)
    dv, dk = (torch.full((sk, 64), float("nan"), device=DEV) for _ in range(2))
    cs = torch.full((sk,), float("nan"), device=DEV)
    staged["pt_two"](q, k, do, dv, dk, cs, scale)
    torch.cuda.synchronize()
    assert rel_err(dv, p.T @ do.double()) < 1e-2
    assert rel_err(dk, p.T @ q.double()) < 1e-2
    # Rows past the queries load as zeros: their P is exp(0) = 1.
    pad = (-sq) % 64
    assert rel_err(cs, p.sum(0) + pad) < 1e-3
