"""GPU tests of ops the examples do not cover (test/gpu/kernels/ops.mlir):
non-splat constants, f16 accumulation, fp8 dot and casts, transpose,
integer min reductions, iota/select, bool stores. Fresh random inputs,
poisoned outputs, shapes off the tile grid; skipped without a GPU."""

import math

import pytest

from gpu_common import DEV, load, rel_err, torch


@pytest.fixture(scope="module")
def ops():
    return load("ops")


@pytest.mark.parametrize("n", [1, 128, 1000, 70001])
def test_const_add(ops, n):
    x = torch.randn(n, device=DEV)
    out = torch.full_like(x, float("nan"))
    ops["const_add"](x, out)
    torch.cuda.synchronize()
    table = torch.arange(128, device=DEV, dtype=torch.float64) / 2
    ref = x.double() + table[torch.arange(n, device=DEV) % 128]
    assert rel_err(out, ref) < 1e-7


@pytest.mark.parametrize("m,n,k", [(64, 64, 32), (100, 70, 96), (129, 257, 40)])
def test_dot_f16_accumulation(ops, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.float16) / 4
    b = torch.randn(k, n, device=DEV, dtype=torch.float16) / 4
    c = torch.full((m, n), float("nan"), device=DEV, dtype=torch.float16)
    ops["dot_f16"](a, b, c)
    torch.cuda.synchronize()
    # f16 accumulation rounds every partial sum: looser than f32.
    assert rel_err(c, a.double() @ b.double()) < 5e-3


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (100, 70, 128), (129, 200, 96)])
def test_dot_fp8(ops, m, n, k):
    a = torch.randn(m, k, device=DEV).to(torch.float8_e4m3fn)
    b = torch.randn(k, n, device=DEV).to(torch.float8_e4m3fn)
    c = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
    ops["dot_fp8"](a, b, c)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 1e-2


@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (100, 200, 136), (300, 130, 264), (70, 90, 100)])
def test_dot_decay(ops, m, n, k):
    # Math on the MMA result inside the warp-specialized loop (K % 8 == 0:
    # TMA and wgmma; k = 100: the plain twin on mma.sync).
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=DEV)
    alpha = 0.75
    ops["dot_decay"](a, b, c, alpha)
    torch.cuda.synchronize()
    ref = torch.zeros(m, n, device=DEV, dtype=torch.float64)
    for k0 in range(0, k, 64):
        ref = ref * alpha + a[:, k0:k0 + 64].double() @ b[k0:k0 + 64].double()
    assert rel_err(c, ref) < 1e-2


@pytest.mark.parametrize("m,n", [(32, 64), (100, 37), (257, 300)])
def test_transpose(ops, m, n):
    x = torch.randn(m, n, device=DEV)
    y = torch.full((n, m), float("nan"), device=DEV)
    ops["transpose"](x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x.t())


@pytest.mark.parametrize("m,n", [(1, 1), (33, 130), (1000, 300)])
def test_colmin_i32(ops, m, n):
    x = torch.randint(-(2**31), 2**31 - 1, (m, n), device=DEV, dtype=torch.int32)
    out = torch.full((n,), 12345, device=DEV, dtype=torch.int32)
    ops["colmin"](x, out)
    torch.cuda.synchronize()
    assert torch.equal(out, x.min(dim=0).values)


@pytest.mark.parametrize("n", [5, 256, 1001])
def test_iota_select(ops, n):
    x = torch.randn(n, device=DEV)
    out = torch.full_like(x, float("nan"))
    ops["iota_select"](x, out)
    torch.cuda.synchronize()
    i = torch.arange(n, device=DEV)
    assert torch.equal(out, torch.where(i % 3 == 0, x, -x))


@pytest.mark.parametrize("n", [7, 512, 3001])
def test_fp8_casts_and_bool_store(ops, n):
    x = (torch.randn(n, device=DEV) * 8).to(torch.float8_e4m3fn)
    y = torch.zeros(n, device=DEV, dtype=torch.float8_e5m2)
    y.view(torch.uint8).fill_(0x7F)  # NaN in e5m2
    pos = torch.zeros(n, device=DEV, dtype=torch.bool)
    pos.view(torch.uint8).fill_(7)  # not a valid bool: must be overwritten
    ops["fp8_cast"](x, y, pos)
    torch.cuda.synchronize()
    ref = (x.float() * 2).to(torch.float8_e5m2)
    assert torch.equal(y.view(torch.uint8), ref.view(torch.uint8))
    assert torch.equal(pos.view(torch.uint8), (x.float() > 0).to(torch.uint8))


@pytest.mark.parametrize("flag", [0, 3])
def test_if_yielding_tiles(ops, flag):
    x = torch.randn(1500, device=DEV)
    out = torch.full_like(x, float("nan"))
    ops["if_tiles"](x, out, flag)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2 if flag else x + 1)


@pytest.mark.parametrize("n", [32, 1000])
def test_warp_shuffle_conversion(ops, n):
    x = torch.randn(n, device=DEV)
    y = torch.full_like(x, float("nan"))
    ops["shuffle_twice"](x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, 2 * x)


@pytest.mark.parametrize("x", [0.7371, 2.25, 13.5])
def test_math_f64(ops, x):
    # Scalar f64 math is libdevice's f64: exact to the f32 rounding of the
    # result, which the f32 approximations (2 ulp and more) are not.
    refs = [math.exp, math.log, math.sin, math.tanh, lambda v: 1 / math.sqrt(v),
            lambda v: 2.0 ** v, math.log2, math.erf, lambda v: v ** v, math.sqrt]
    out = torch.full((16 * len(refs),), float("nan"), device=DEV)
    ops["math_f64"](x, out)
    torch.cuda.synchronize()
    xf = float(torch.tensor(x, dtype=torch.float32))
    for i, ref in enumerate(refs):
        want = torch.tensor(ref(xf), dtype=torch.float64).float()
        got = out[16 * i:16 * (i + 1)].cpu()
        assert torch.equal(got, want.expand(16)) or \
            (got - want).abs().max() <= 1e-7 * abs(float(want)), (i, got[0], want)


@pytest.mark.parametrize("blocks", [1, 5])
def test_scalar_loads_and_stores(ops, blocks):
    # A scalar load is the element as it is (-0.0 and NaN kept); one past
    # the view reads the padding (0) and a store there is dropped.
    n = 256 * blocks - 17
    x = torch.randn(n, device=DEV)
    s = torch.randn(blocks, device=DEV)
    s[0] = -0.0
    if blocks > 1:
        s[1] = float("nan")
    nn = torch.randint(-1000, 1000, (blocks, 2), device=DEV, dtype=torch.int32)
    h = torch.randn(blocks, device=DEV).to(torch.bfloat16)
    out = torch.full_like(x, 7.0)
    s2 = torch.full((blocks,), 7.0, device=DEV)
    n2 = torch.full((blocks, 2), 7, device=DEV, dtype=torch.int32)
    h0 = h.clone()
    ops["scalars"](x, s, nn, out, s2, n2, h)
    torch.cuda.synchronize()
    want = x * s.repeat_interleave(256)[:n]
    assert torch.equal(out.isnan(), want.isnan())
    assert torch.equal(out[~want.isnan()], want[~want.isnan()])
    assert torch.equal(torch.signbit(out), torch.signbit(want))  # x * -0.0
    assert torch.equal(s2.isnan(), (s + 1).isnan())
    assert torch.equal(s2[~s2.isnan()], (s + 1)[~s2.isnan()])
    assert torch.equal(n2[:, 0], nn[:, 0] * 3) and torch.all(n2[:, 1] == 7)
    assert torch.equal(h.view(torch.int16), h0.view(torch.int16))


@pytest.mark.parametrize("d", [1, 2, 3, 7, 64, 641, 1000003, 2**31 - 1, 2**31, 2**31 + 1,
                               2**32 - 1])
def test_div_invariant(ops, d):
    # Every 32-bit x, as unsigned, at both ends and at random; the kernel
    # divides by a loop-invariant scalar (a multiply-high), against int64.
    g = torch.Generator().manual_seed(d % 1000)
    x = torch.cat([torch.arange(0, 3000, dtype=torch.int64),
                   torch.arange(2**32 - 3000, 2**32, dtype=torch.int64),
                   torch.arange(d - 5, d + 5, dtype=torch.int64).clamp(0, 2**32 - 1),
                   torch.randint(0, 2**32, (20000,), generator=g, dtype=torch.int64)])
    n = x.numel()
    x32 = (x - (x >= 2**31).long() * 2**32).to(torch.int32).to(DEV)
    q = torch.full((n,), -7, dtype=torch.int32, device=DEV)
    r = torch.full((n,), -7, dtype=torch.int32, device=DEV)
    d32 = d - 2**32 if d >= 2**31 else d
    ops["div_invariant"](x32, q, r, d32)
    uq = q.cpu().long() % 2**32
    ur = r.cpu().long() % 2**32
    assert torch.equal(uq, x // d) and torch.equal(ur, x % d)
