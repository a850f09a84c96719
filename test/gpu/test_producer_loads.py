"""GPU tests of main loops whose other loads TMA cannot copy as written
(test/gpu/kernels/producer_loads.mlir) and which stay warp-specialized: a
gather with computed indices and a mask, and one through an index table
read in the loop, and loads TMA cannot box (a mask with a non-zero padding,
a column of a row-major matrix, a scalar), which the load partition's
threads make into a ring slot, and a masked load, which TMA copies whole for the
compute partition to mask (each also in the plain twin, which the runtime
launches where A's rows are not 16-byte aligned). Fresh random inputs,
poisoned outputs, shapes off the tile grid, float64 references; skipped
without a GPU."""

import pytest

from gpu_common import DEV, dkdv_case, load, rel_err, torch


@pytest.fixture(scope="module")
def pl():
    return load("producer_loads")


def steps(k):
    return (k + 63) // 64


SHAPES = [(128, 128, 64), (200, 300, 520), (129, 130, 100), (64, 512, 1000)]


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_gather(pl, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    s = torch.randn(steps(k) + 2, n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    pl["gemm_gather"](a, b, s, c)
    torch.cuda.synchronize()
    # Column j adds S[kr, n - 1 - j] where j % 3 != 0 (and the column exists).
    j = torch.arange(n, device=DEV)
    rev = s.double()[: steps(k)].flip(1).sum(0)
    extra = torch.where(j % 3 != 0, rev, torch.zeros_like(rev))
    assert rel_err(c, a.double() @ b.double() + extra) < 1e-4


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_table(pl, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    s = torch.randn(steps(k), n + 5, device=DEV)
    # Column ids at random, some out of range (-3 .. n + 7: not read, zero).
    ids = torch.randint(-3, n + 8, (steps(k), n), device=DEV, dtype=torch.int32)
    c = torch.full((m, n), float("nan"), device=DEV)
    pl["gemm_table"](a, b, s, ids, c)
    torch.cuda.synchronize()
    ok = (ids >= 0) & (ids < s.shape[1])
    picked = torch.gather(s.double(), 1, ids.clamp(0, s.shape[1] - 1).long())
    extra = torch.where(ok, picked, torch.zeros_like(picked)).sum(0)
    assert rel_err(c, a.double() @ b.double() + extra) < 1e-4


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_masked(pl, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    s = torch.randn(steps(k) + 2, n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    pl["gemm_masked"](a, b, s, c)
    torch.cuda.synchronize()
    j = torch.arange(n, device=DEV)
    rows = s.double()[: steps(k)].sum(0)
    extra = torch.where(j % 2 == 0, rows, torch.zeros_like(rows))
    assert rel_err(c, a.double() @ b.double() + extra) < 1e-4


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_padded(pl, m, n, k):
    # Each step adds scale[kr] * (S[kr, j] where j is even and in S, else
    # -1) to every row, and T[i, kr] to row i: a masked load padded with
    # -1, a scalar load and a column of T (no TMA box for either).
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    ns = n - 3  # S narrower than C: its last columns are padding
    s = torch.randn(steps(k) + 2, ns, device=DEV)
    t = torch.randn(m, steps(k) + 1, device=DEV)
    scale = torch.randn(steps(k) + 1, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    pl["gemm_padded"](a, b, s, t, scale, c)
    torch.cuda.synchronize()
    j = torch.arange(n, device=DEV)
    sp = torch.cat([s.double(), torch.full((s.shape[0], 3), -1.0, device=DEV, dtype=torch.float64)], 1)
    rows = torch.where(j % 2 == 0, sp, torch.full_like(sp, -1.0))[: steps(k)]
    extra = (scale.double()[: steps(k), None] * rows).sum(0)
    col = t.double()[:, : steps(k)].sum(1)
    ref = a.double() @ b.double() + extra + col[:, None]
    assert rel_err(c, ref) < 1e-4


@pytest.mark.parametrize("b,h,s", [(1, 2, 128), (2, 3, 300), (1, 1, 1000)])
def test_attention_dkdv_gather(pl, b, h, s):
    # dK, dV of softmax(Q Kᵀ scale) V (D = 64) against float64; the kernel
    # gathers LSE at rows min(m0 + iota, S - 1) (the load partition's
    # threads) and Delta at m0 + iota (a box: TMA). Rows past S read LSE's
    # last row and add nothing (their Q and dO are zero).
    dk, dv, dk_ref, dv_ref = dkdv_case(pl["dkdv_gather"], b, h, s)
    assert rel_err(dk, dk_ref) < 2e-2
    assert rel_err(dv, dv_ref) < 2e-2



@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_rows(pl, m, n, k):
    # A's rows through an index table, some out of range (zero rows).
    a_rows = m + 7
    a = torch.randn(a_rows, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    ids = torch.randint(-2, a_rows + 3, (m,), device=DEV, dtype=torch.int32)
    c = torch.full((m, n), float("nan"), device=DEV)
    pl["gemm_rows"](a, b, ids, c)
    torch.cuda.synchronize()
    ok = (ids >= 0) & (ids < a_rows)
    ga = torch.where(ok[:, None], a.double()[ids.clamp(0, a_rows - 1).long()],
                     torch.zeros(m, k, device=DEV, dtype=torch.float64))
    assert rel_err(c, ga @ b.double()) < 1e-4
