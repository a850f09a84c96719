"""sm_100a bundles (examples/*.mlir compiled with --arch=sm_100a) on the GPU.

On a compute capability 10.x device (a B200) they run and are checked
against float64 on fresh random inputs, at sizes that are not multiples of
the tile, with poisoned outputs. Elsewhere (the H100) a launch of one is
refused before the driver loads it, with an error that names the bundle's
arch, the device's compute capability and the --arch to compile for: that
is what this file checks there, and the tests that need 10.x report
themselves skipped."""

import pytest

import tilec
from gpu_common import DEV, bias_relu_reference, load, rel_err, torch

CC = torch.cuda.get_device_capability()
needs_blackwell = pytest.mark.skipif(
    CC[0] != 10, reason="needs compute capability 10.x (this device is %d.%d)" % CC)


def poisoned(*shape, dtype):
    return torch.full(shape, float("nan"), device=DEV, dtype=dtype)


@pytest.mark.skipif(CC[0] == 10, reason="this device runs sm_100a bundles")
@pytest.mark.parametrize("name", ["vector_add_sm100a", "gemm_sm100a"])
def test_sm100a_bundle_is_refused_elsewhere(name):
    bundle = load(name)
    assert bundle.arch == "sm_100a"
    if name.startswith("vector_add"):
        x, y = torch.randn(1000, device=DEV), torch.randn(1000, device=DEV)
        args = (x, y, poisoned(1000, dtype=torch.float32))
        kernel = bundle["vector_add"]
    else:
        a = torch.randn(300, 200, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(200, 100, device=DEV, dtype=torch.bfloat16)
        bias = torch.randn(100, device=DEV, dtype=torch.float32)
        args = (a, b, bias, poisoned(300, 100, dtype=torch.bfloat16))
        kernel = bundle["gemm"]
    with pytest.raises(tilec.TilecError) as err:
        kernel(*args)
    e = err.value
    assert e.code_name == "UNSUPPORTED", repr(e)
    want = ("the bundle was compiled for sm_100a, which needs compute capability 10.0 "
            "exactly; this device has compute capability %d.%d (compile for it: tilec "
            "compile --arch=sm_%d%da)" % (CC[0], CC[1], CC[0], CC[1]))
    assert want in e.message, e.message


@needs_blackwell
def test_vector_add_sm100a():
    x, y = torch.randn(5001, device=DEV), torch.randn(5001, device=DEV)
    out = poisoned(5001, dtype=torch.float32)
    load("vector_add_sm100a")["vector_add"](x, y, out)
    torch.cuda.synchronize()
    assert rel_err(out, x.double() + y.double()) < 1e-6


@needs_blackwell
@pytest.mark.parametrize("m,n,k", [(300, 200, 136), (1000, 520, 1000)])
def test_gemm_sm100a(m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV, dtype=torch.float32)
    out = poisoned(m, n, dtype=torch.bfloat16)
    load("gemm_sm100a")["gemm"](a, b, bias, out)
    torch.cuda.synchronize()
    assert rel_err(out, bias_relu_reference(a, b, bias)) < 1e-2
