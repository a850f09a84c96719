"""GPU tests of every float op of the math dialect (test/gpu/kernels/math.mlir,
from scripts/gen-math-kernels.py) on f32, f16 and bf16 tiles against float64
torch: fresh random inputs in each function's domain, special values
(0, -0, inf, nan, subnormals) for the predicates, poisoned outputs, lengths
off the 256-element tile. Skipped without a GPU.

The accuracy each op is held to is the one docs/OPS.md states: libdevice
functions a few ulp, the special-function unit's approximations (exp, exp2,
log, log2, rsqrt: ~2 ulp plus the scaling; tanh: 2^-10.7 relative) looser;
f16 and bf16 compute in f32 and round once."""

import math

import pytest

from gpu_common import DEV, load, torch

# op -> (float64 reference, input domain (lo, hi) per operand)
UNARY = {
    "absf": (torch.abs, (-10, 10)),
    "acos": (torch.acos, (-0.999, 0.999)),
    "acosh": (torch.acosh, (1.001, 50)),
    "asin": (torch.asin, (-0.999, 0.999)),
    "asinh": (torch.asinh, (-50, 50)),
    "atan": (torch.atan, (-50, 50)),
    "atanh": (torch.atanh, (-0.99, 0.99)),
    "cbrt": (lambda x: torch.sign(x) * x.abs() ** (1.0 / 3), (-100, 100)),
    "ceil": (torch.ceil, (-100, 100)),
    "cos": (torch.cos, (-100, 100)),
    "cosh": (torch.cosh, (-10, 10)),
    "erf": (torch.erf, (-4, 4)),
    "erfc": (torch.erfc, (-4, 9)),
    "exp": (torch.exp, (-20, 20)),
    "exp2": (torch.exp2, (-30, 30)),
    "expm1": (torch.expm1, (-5, 5)),
    "floor": (torch.floor, (-100, 100)),
    "log": (torch.log, (1e-3, 1e4)),
    "log10": (torch.log10, (1e-3, 1e4)),
    "log1p": (torch.log1p, (-0.9, 100)),
    "log2": (torch.log2, (1e-3, 1e4)),
    "round": (lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5), (-100, 100)),
    "roundeven": (torch.round, (-100, 100)),
    "rsqrt": (torch.rsqrt, (1e-3, 1e4)),
    "sin": (torch.sin, (-100, 100)),
    "sinh": (torch.sinh, (-10, 10)),
    "sqrt": (torch.sqrt, (0, 1e4)),
    "tan": (torch.tan, (-1.5, 1.5)),
    "tanh": (torch.tanh, (-5, 5)),
    "trunc": (torch.trunc, (-100, 100)),
}
BINARY = {
    "atan2": (torch.atan2, (-10, 10), (-10, 10)),
    "copysign": (torch.copysign, (-10, 10), (-10, 10)),
    "powf": (torch.pow, (0.01, 10), (-4, 4)),
}
# The special-function unit's approximations (LowerToLLVM.cpp).
APPROX = {"exp": 4e-6, "exp2": 4e-6, "log": 4e-6, "log2": 4e-6,
          "rsqrt": 4e-6, "tanh": 2e-3}
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# f16 / bf16: one rounding of an f32 result (half an ulp) and a little more.
RTOL = {"f32": 4e-6, "f16": 1.5e-3, "bf16": 1.2e-2}


@pytest.fixture(scope="module")
def kernels():
    return load("math")


def test_bundle_has_several_modules(kernels):
    # 114 kernels at tilec's default of 8 a module: the tests below launch
    # kernels of every module, each loaded on its first launch.
    assert kernels.num_modules > 1


def uniform(n, lo, hi, dtype):
    return (torch.rand(n, device=DEV, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def check(out, ref, op, dt):
    rtol = RTOL[dt] + APPROX.get(op, 0.0)
    ref = ref.to(out.dtype).double() if dt != "f32" else ref
    err = (out.double() - ref).abs()
    # Absolute slack near zero crossings (sin, tan, log near 1, ...), in
    # units of the argument scale's rounding; results that overflow the
    # type must be the same infinity.
    atol = rtol * 4
    bad = ~((err <= atol + rtol * ref.abs()) | (out.double() == ref))
    assert not bad.any(), (
        f"{op}_{dt}: {int(bad.sum())} of {out.numel()} off, e.g. "
        f"got {out[bad][:4].tolist()} want {ref[bad][:4].tolist()}")


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("n", [1, 1000, 70001])
def test_unary(kernels, op, dt, n):
    fn, (lo, hi) = UNARY[op]
    x = uniform(n, lo, hi, DTYPES[dt])
    out = torch.full_like(x, float("nan"))
    kernels[f"{op}_{dt}"](x, out)
    torch.cuda.synchronize()
    check(out, fn(x.double()), op, dt)


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("n", [77, 70001])
def test_binary(kernels, op, dt, n):
    fn, (alo, ahi), (blo, bhi) = BINARY[op]
    a = uniform(n, alo, ahi, DTYPES[dt])
    b = uniform(n, blo, bhi, DTYPES[dt])
    out = torch.full_like(a, float("nan"))
    kernels[f"{op}_{dt}"](a, b, out)
    torch.cuda.synchronize()
    check(out, fn(a.double(), b.double()), op, dt)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_fma(kernels, dt):
    n = 4097
    a, b, c = (uniform(n, -10, 10, DTYPES[dt]) for _ in range(3))
    out = torch.full_like(a, float("nan"))
    kernels[f"fma_{dt}"](a, b, c, out)
    torch.cuda.synchronize()
    check(out, a.double() * b.double() + c.double(), "fma", dt)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_predicates(kernels, dt):
    dtype = DTYPES[dt]
    info = torch.finfo(dtype)
    specials = torch.tensor([0.0, -0.0, 1.0, -2.5, math.inf, -math.inf,
                             math.nan, info.tiny, info.tiny / 4, info.max],
                            dtype=torch.float64).to(dtype).to(DEV)
    x = torch.cat([specials, uniform(990, -1e3, 1e3, dtype)])
    refs = {"isfinite": torch.isfinite(x), "isinf": torch.isinf(x),
            "isnan": torch.isnan(x),
            "isnormal": torch.isfinite(x) & (x.abs() >= info.tiny)}
    for op, ref in refs.items():
        out = torch.full(x.shape, 7, device=DEV, dtype=torch.int8)
        kernels[f"{op}_{dt}"](x, out)
        torch.cuda.synchronize()
        assert torch.equal(out, ref.to(torch.int8)), (op, dt)
