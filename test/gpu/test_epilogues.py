"""GPU tests of epilogues that take much scratch (test/gpu/kernels/
epilogues.mlir): a GEMM whose epilogue multiplies by a uniform random tile
(its 128 KiB layout conversion once made the kernel be refused) against
float64 and the Philox reference, at shapes off the tile grid, C poisoned.
Skipped without a GPU."""

import pytest

from gpu_common import DEV, load, torch
from test_memory import philox_ref


@pytest.fixture(scope="module")
def ep():
    return load("epilogues")


def uniform_tile(seed):
    """u[r][c] of one 128x256 tile: (r0 >> 8) * 2^-24 of Philox(256 r + c)."""
    key = [seed & 0xFFFFFFFF, seed & 0xFFFFFFFF]
    vals = [(philox_ref([i, 0, 0, 0], key)[0] >> 8) * 2.0 ** -24 for i in range(128 * 256)]
    return torch.tensor(vals, dtype=torch.float64).view(128, 256)


@pytest.mark.parametrize("m,n,k", [(300, 520, 136), (128, 256, 64), (1, 8, 8)])
def test_gemm_rand_epilogue(ep, m, n, k):
    seed = 12345
    a = torch.randn(m, k, device=DEV).to(torch.bfloat16)
    b = torch.randn(k, n, device=DEV).to(torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
    ep["gemm_rand"](a, b, bias, c, seed)
    torch.cuda.synchronize()
    u = uniform_tile(seed).repeat((m + 127) // 128, (n + 255) // 256)[:m, :n]
    ref = torch.relu(a.double().cpu() @ b.double().cpu() + bias.double().cpu()) * u
    err = (c.double().cpu() - ref).abs()
    assert torch.isfinite(c.double()).all()
    assert (err <= 1e-2 * ref.abs() + 1e-2).all(), float(err.max())
