"""GPU tests of ops along a line of a tile (test/gpu/kernels/lines.mlir):
tile.scan, tile.sort, tile.topk, and the i8 and tf32 dots. Fresh random
inputs against float64/NumPy-exact references, shapes off the tile grid,
poisoned outputs; skipped without a GPU."""

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def lines():
    return load("lines")


@pytest.mark.parametrize("rows,cols", [(1, 1), (50, 200), (33, 256)])
def test_scan_rows(lines, rows, cols):
    x = torch.randn(rows, cols, device=DEV)
    outs = [torch.full((rows, cols), float("nan"), device=DEV) for _ in range(3)]
    lines["scan_rows"](x, *outs)
    torch.cuda.synchronize()
    s, m, f = outs
    assert (s.double() - x.double().cumsum(1)).abs().max().item() < 1e-4 * cols
    assert torch.equal(m, x.cummax(1).values)
    assert torch.equal(f, x[:, :1].expand(rows, cols))


@pytest.mark.parametrize("rows,cols", [(1, 3), (256, 16), (200, 37)])
def test_scan_cols(lines, rows, cols):
    x = torch.randint(-1000, 1000, (rows, cols), device=DEV, dtype=torch.int32)
    x[x == 0] = 1
    excl = torch.full((rows, cols), -7, device=DEV, dtype=torch.int32)
    prod = torch.full((rows, cols), -7, device=DEV, dtype=torch.int32)
    lines["scan_cols"](x, excl, prod)
    torch.cuda.synchronize()
    ref = torch.cat([torch.zeros(1, cols, dtype=torch.int64, device=DEV),
                     x.long().cumsum(0)[:-1]])
    assert torch.equal(excl.long(), ref)
    # The running product modulo 2^32, as int32 wraps.
    p = torch.ones(cols, dtype=torch.int64, device=DEV)
    ref_p = []
    for i in range(rows):
        p = (p * x[i].long()) & 0xFFFFFFFF
        ref_p.append(p.clone())
    ref_p = torch.stack(ref_p)
    ref_p = torch.where(ref_p >= 2**31, ref_p - 2**32, ref_p)
    assert torch.equal(prod.long(), ref_p)


@pytest.mark.parametrize("rows,cols", [(1, 64), (40, 50), (17, 1)])
def test_sort_rows(lines, rows, cols):
    x = torch.randn(rows, cols, device=DEV)
    vals = torch.full((rows, 64), float("nan"), device=DEV)
    idx = torch.full((rows, 64), -7, device=DEV, dtype=torch.int32)
    lines["sort_rows"](x, vals, idx)
    torch.cuda.synchronize()
    ref = x.sort(1, descending=True).values
    assert torch.equal(vals[:, :cols], ref)
    # The indices point at the values (random floats: no ties).
    assert torch.equal(x.gather(1, idx[:, :cols].long()), ref)


@pytest.mark.parametrize("n", [1, 1000, 1024])
def test_sort_1024(lines, n):
    x = torch.randint(-(2**31), 2**31 - 1, (n,), device=DEV, dtype=torch.int32)
    x[: n // 4] = 5  # ties
    out = torch.full((n,), -7, device=DEV, dtype=torch.int32)
    lines["sort_1024"](x, out)
    torch.cuda.synchronize()
    assert torch.equal(out, x.sort().values)


@pytest.mark.parametrize("rows,cols", [(1, 8), (40, 100), (17, 128)])
def test_topk_rows(lines, rows, cols):
    x = torch.randn(rows, cols, device=DEV)
    top = torch.full((rows, 8), float("nan"), device=DEV)
    topi = torch.full((rows, 8), -7, device=DEV, dtype=torch.int32)
    low = torch.full((rows, 4), float("nan"), device=DEV)
    lines["topk_rows"](x, top, topi, low)
    torch.cuda.synchronize()
    k = min(8, cols)
    assert torch.equal(top[:, :k], x.topk(k, 1).values)
    assert torch.equal(x.gather(1, topi[:, :k].long()), top[:, :k])
    kl = min(4, cols)
    assert torch.equal(low[:, :kl], x.topk(kl, 1, largest=False).values)


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (100, 70, 200), (130, 257, 96)])
def test_dot_i8(lines, m, n, k):
    a = torch.randint(-128, 128, (m, k), device=DEV, dtype=torch.int8)
    b = torch.randint(-128, 128, (k, n), device=DEV, dtype=torch.int8)
    c = torch.full((m, n), -7, device=DEV, dtype=torch.int32)
    lines["dot_i8"](a, b, c)
    torch.cuda.synchronize()
    # Exact: |sum| < 2^31 for these K.
    assert torch.equal(c.long(), (a.double() @ b.double()).long())


@pytest.mark.parametrize("m,n,k", [(64, 64, 32), (100, 70, 200), (130, 257, 96)])
def test_dot_tf32(lines, m, n, k):
    a = torch.randn(m, k, device=DEV)
    b = torch.randn(k, n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV)
    lines["dot_tf32"](a, b, c)
    torch.cuda.synchronize()
    # tf32 keeps 10 mantissa bits: about 5e-4 relative per product.
    assert rel_err(c, a.double() @ b.double()) < 2e-3

