"""GPU tests of main loops that load more than their dots' operands
(test/gpu/kernels/side_loads.mlir): each K step also reads a block of rows
or one row of S, which the load partition copies into a ring slot (TMA; the
load partition's threads in the plain twin, which the runtime launches
where A's rows are not 16-byte aligned) and the compute partition reads
back. Fresh random inputs, poisoned outputs, shapes off the tile grid;
skipped without a GPU."""

import pytest

from gpu_common import DEV, dkdv_case, load, rel_err, torch


@pytest.fixture(scope="module")
def side():
    return load("side_loads")


def steps(k):
    return (k + 63) // 64


# K = 100 and 1000: A's rows are not 16-byte aligned (the plain twin).
@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (200, 300, 520), (129, 130, 100), (64, 512, 1000)])
def test_gemm_side_rows(side, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    s = torch.randn(steps(k) + 3, n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    side["gemm_side"](a, b, s, c)
    torch.cuda.synchronize()
    sp = torch.cat([s.double(), torch.zeros(8, n, device=DEV, dtype=torch.float64)])
    extra = sum(sp[j:j + 8].sum(0) for j in range(steps(k)))
    assert rel_err(c, a.double() @ b.double() + extra) < 1e-4


@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (200, 300, 520), (129, 130, 100), (64, 512, 1000)])
def test_gemm_side_vector(side, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    s = torch.randn(steps(k), n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    side["gemm_vec"](a, b, s, c)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double() + s.double().sum(0)) < 1e-4


@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (200, 300, 520), (129, 130, 100), (300, 64, 1000)])
def test_gemm_row_vector(side, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    t = torch.randn(steps(k), m, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    side["gemm_rowvec"](a, b, t, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double() + t.double().sum(0)[:, None]
    assert rel_err(c, ref) < 1e-4


@pytest.mark.parametrize("b,h,s", [(1, 2, 128), (2, 3, 300), (1, 1, 1000)])
def test_attention_dkdv(side, b, h, s):
    # dK and dV of softmax(Q Kᵀ scale) V for D = 64 against float64, with
    # LSE and Delta from the float64 forward (the kernel loads them as
    # per-row vectors each step).
    dk, dv, dk_ref, dv_ref = dkdv_case(side["dkdv"], b, h, s)
    assert rel_err(dk, dk_ref) < 2e-2
    assert rel_err(dv, dv_ref) < 2e-2
