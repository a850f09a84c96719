"""GPU tests of tile.extract_slice, tile.insert_slice and tile.concat
(test/gpu/kernels/slices.mlir) against torch slicing: blocks that are whole
registers (renamed) and blocks that move through shared memory, aligned
and unaligned offsets, f32/bf16/i32 and a dot's accumulator. Fresh random
inputs, poisoned outputs, shapes off the tile grid; skipped without a
GPU."""

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def slices():
    return load("slices")


def padded(x, rows, cols):
    """x zero-padded to rows x cols (what a tile reads past the view)."""
    out = torch.zeros(rows, cols, device=DEV, dtype=x.dtype)
    out[: x.shape[0], : x.shape[1]] = x
    return out


@pytest.mark.parametrize("m", [32, 45, 300])
def test_swap_halves(slices, m):
    x = torch.randn(m, 128, device=DEV)
    y = torch.full_like(x, float("nan"))
    slices["swap_halves"](x, y)
    torch.cuda.synchronize()
    ref = torch.empty_like(x)
    for m0 in range(0, m, 32):
        t = padded(x[m0:m0 + 32], 32, 128)
        r = torch.cat([t[:, 64:] * 2, t[:, :64]], dim=1)
        r[16:32, 96:128] = t[3:19, 5:37]
        ref[m0:m0 + 32] = r[: min(32, m - m0)]
    assert torch.equal(y, ref)


@pytest.mark.parametrize("m,n", [(32, 128), (50, 200), (257, 130)])
def test_row_blocks(slices, m, n):
    x = torch.randn(m, n, device=DEV, dtype=torch.bfloat16)
    y = torch.full_like(x, float("nan"))
    slices["row_blocks"](x, y)
    torch.cuda.synchronize()
    ref = torch.empty_like(x)
    for m0 in range(0, m, 32):
        for n0 in range(0, n, 128):
            t = padded(x[m0:m0 + 32, n0:n0 + 128], 32, 128)
            r = torch.cat([t[16:] + 1, t[:16]], dim=0)
            r[8:16] = t[24:32]
            r = r + t
            ref[m0:m0 + 32, n0:n0 + 128] = r[: min(32, m - m0), : min(128, n - n0)]
    assert torch.equal(y, ref)


@pytest.mark.parametrize("n", [128, 200, 1000])
def test_concat_three(slices, n):
    x = torch.randint(-(2**20), 2**20, (n,), device=DEV, dtype=torch.int32)
    y = torch.full_like(x, 12345)
    slices["concat_three"](x, y)
    torch.cuda.synchronize()
    ref = torch.empty_like(x)
    for o in range(0, n, 128):
        t = torch.zeros(128, device=DEV, dtype=torch.int32)
        t[: min(128, n - o)] = x[o:o + 128]
        r = torch.cat([t[96:], t[:64] * 3, t[64:96]])
        ref[o:o + 128] = r[: min(128, n - o)]
    assert torch.equal(y, ref)


@pytest.mark.parametrize("m,n,k", [(64, 64, 32), (100, 90, 32), (130, 200, 32)])
def test_rotate_quadrants(slices, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=DEV)
    slices["rotate_quadrants"](a, b, c)
    torch.cuda.synchronize()
    full = a.double() @ b.double()
    ref = torch.empty(m, n, device=DEV, dtype=torch.float64)
    for m0 in range(0, m, 64):
        for n0 in range(0, n, 64):
            t = padded(full[m0:m0 + 64, n0:n0 + 64], 64, 64)
            r = torch.cat([torch.cat([t[32:, :32], t[:32, :32]], 1),
                           torch.cat([t[32:, 32:], t[:32, 32:]], 1)], 0)
            ref[m0:m0 + 64, n0:n0 + 64] = r[: min(64, m - m0), : min(64, n - n0)]
    assert rel_err(c, ref) < 1e-5


@pytest.mark.parametrize("m,n,k", [(128, 256, 64), (200, 300, 136), (64, 512, 1000)])
def test_glu_of_accumulator_halves(slices, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16) / 4
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16) / 4
    nh = (n + 255) // 256 * 128
    c = torch.full((m, nh), float("nan"), device=DEV, dtype=torch.bfloat16)
    slices["glu"](a, b, c)
    torch.cuda.synchronize()
    full = a.double() @ b.double()
    full = torch.nn.functional.pad(full, (0, (n + 255) // 256 * 256 - n))
    g = full.reshape(m, -1, 2, 128)[:, :, 0].reshape(m, nh)
    u = full.reshape(m, -1, 2, 128)[:, :, 1].reshape(m, nh)
    ref = torch.nn.functional.silu(g) * u
    # Columns past the last 256-wide block's half are outside C's view.
    assert rel_err(c[:, : nh], ref) < 1e-2


@pytest.mark.parametrize("m,n,k", [(64, 64, 128), (100, 130, 256), (257, 64, 520)])
def test_dot_of_blocks(slices, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=DEV)
    slices["dot_of_blocks"](a, b, c)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 1e-2
