"""GPU tests of dots of 64 rows in kernels of eight warps
(test/gpu/kernels/split_n.mlir): wgmma's two warpgroups split N, each an
m64n(N/2) MMA on the same A, in GEMM loops with B read N-major and
K-major, and in an attention loop whose row max and sum cross the
warpgroups and whose P feeds the second dot from registers. Fresh random
inputs, poisoned outputs, shapes off the tile grid (the plain twins run
where rows are not 16-byte aligned); skipped without a GPU."""

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def split():
    return load("split_n")


SHAPES = [(64, 128, 64), (200, 300, 520), (129, 130, 100), (1000, 72, 1000)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("kernel", ["gemm_kn", "gemm_nk"])
def test_gemm(split, kernel, m, n, k):
    # gemm_kn takes B as KxN; gemm_nk takes it as NxK (Bt).
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=DEV)
    split[kernel](a, b if kernel == "gemm_kn" else b.T.contiguous(), c)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 1e-5


@pytest.mark.parametrize("s,sk", [(64, 128), (300, 1000), (77, 129), (1000, 5)])
def test_attention64(split, s, sk):
    q = torch.randn(s, 64, device=DEV, dtype=torch.bfloat16)
    k, v = (torch.randn(sk, 64, device=DEV, dtype=torch.bfloat16) for _ in range(2))
    o = torch.full((s, 64), float("nan"), device=DEV)
    split["attention64"](q, k, v, o)
    torch.cuda.synchronize()
    ref = torch.softmax(q.double() @ k.double().T, -1) @ v.double()
    assert rel_err(o, ref) < 1e-2
