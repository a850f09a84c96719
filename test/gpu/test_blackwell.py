"""sm_100a bundles (examples/*.mlir compiled with --arch=sm_100a) on the GPU.

On a compute capability 10.x device (a B200) they run and are checked
against float64 on fresh random inputs, at sizes that are not multiples of
the tile, with poisoned outputs. Elsewhere (the H100) a launch of one is
refused before the driver loads it, with an error that names the bundle's
arch, the device's compute capability and the --arch to compile for: that
is what this file checks there, and the tests that need 10.x report
themselves skipped."""

import math

import pytest

import tilec
from gpu_common import (DEV, attention_reference, attention_twin_case,
                        bias_relu_reference, load, rel_err, torch)

CC = torch.cuda.get_device_capability()
needs_blackwell = pytest.mark.skipif(
    CC[0] != 10, reason="needs compute capability 10.x (this device is %d.%d)" % CC)


def poisoned(*shape, dtype):
    return torch.full(shape, float("nan"), device=DEV, dtype=dtype)


@pytest.mark.skipif(CC[0] == 10, reason="this device runs sm_100a bundles")
@pytest.mark.parametrize("name", ["vector_add_sm100a", "gemm_sm100a",
                                  "attention_sm100a"])
def test_sm100a_bundle_is_refused_elsewhere(name):
    bundle = load(name)
    assert bundle.arch == "sm_100a"
    if name.startswith("vector_add"):
        x, y = torch.randn(1000, device=DEV), torch.randn(1000, device=DEV)
        args = (x, y, poisoned(1000, dtype=torch.float32))
        kernel = bundle["vector_add"]
    elif name.startswith("attention"):
        q, k, v = (torch.randn(1, 2, 200, 128, device=DEV, dtype=torch.bfloat16)
                   for _ in range(3))
        args = (q, k, v, poisoned(1, 2, 200, 128, dtype=torch.bfloat16),
                poisoned(1, 2, 200, dtype=torch.float32), 0.088, 0)
        kernel = bundle["attention_d128"]
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
@pytest.mark.parametrize("bundle,m,n,k", [
    ("gemm_sm100a", 300, 200, 136), ("gemm_sm100a", 1000, 520, 1000),
    # tile.tile_scheduler = launch_control: a block a tile, running blocks
    # taking over the tiles of blocks not launched yet (far more tiles than
    # SMs at the larger sizes, so most are taken over).
    ("gemm_launch_control_sm100a", 300, 200, 136),
    ("gemm_launch_control_sm100a", 4000, 3000, 520),
    ("gemm_launch_control_sm100a", 8191, 4100, 264),
    # tile.cta_group = 2: each 256-row MMA over a CTA pair, B split
    # between the pair's CTAs; an odd number of 128-row tiles leaves the
    # last pair's second CTA past the matrix.
    ("gemm_pair_sm100a", 300, 200, 136),
    ("gemm_pair_sm100a", 4000, 3000, 520),
    ("gemm_pair_sm100a", 8191, 4100, 264)])
def test_gemm_sm100a(bundle, m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV, dtype=torch.float32)
    out = poisoned(m, n, dtype=torch.bfloat16)
    load(bundle)["gemm"](a, b, bias, out)
    torch.cuda.synchronize()
    assert rel_err(out, bias_relu_reference(a, b, bias)) < 1e-2


@needs_blackwell
@pytest.mark.parametrize("s", [1, 77, 1000, 2049])
@pytest.mark.parametrize("hq,hkv", [(4, 4), (4, 1)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_attention_sm100a(d, causal, hq, hkv, s):
    """S, P and O in tensor memory (FlashAttention-4's structure), against
    float64, at sequence lengths that are not multiples of the blocks."""
    b = 2
    q = torch.randn(b, hq, s, d, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(b, hkv, s, d, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(b, hkv, s, d, device=DEV, dtype=torch.bfloat16)
    o = poisoned(b, hq, s, d, dtype=torch.bfloat16)
    lse = poisoned(b, hq, s, dtype=torch.float32)
    scale = 1.0 / math.sqrt(d)
    load("attention_sm100a")["attention_d%d" % d](q, k, v, o, lse, scale,
                                                   int(causal))
    torch.cuda.synchronize()
    ref, ref_lse = attention_reference(q, k, v, scale, causal)
    # P is rounded to bf16 before P·V, as in FlashAttention.
    assert rel_err(o, ref) < 2e-2
    assert rel_err(lse, ref_lse) < 1e-3



@needs_blackwell
@pytest.mark.parametrize("m,n,k", [(300, 203, 136), (1000, 520, 1001),
                                   (255, 257, 259)])
def test_gemm_sm100a_twin(m, n, k):
    """Views TMA cannot read (N or K odd: rows not 16-byte aligned): the
    runtime launches gemm__plain, whose load warps copy A and B into the
    slots (cp.async, or shifted words where rows are only 2-byte
    aligned) for tcgen05."""
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV, dtype=torch.float32)
    out = poisoned(m, n, dtype=torch.bfloat16)
    kernel = load("gemm_sm100a")["gemm"]
    assert kernel.choose(a, b, bias, out) == "gemm__plain"
    kernel(a, b, bias, out)
    torch.cuda.synchronize()
    assert rel_err(out, bias_relu_reference(a, b, bias)) < 1e-2


@needs_blackwell
@pytest.mark.parametrize("unaligned", ["kv", "q"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_attention_sm100a_twin(d, causal, unaligned):
    """Rows D + 1 elements apart (K and V, or Q): attention_d{D}__plain,
    the same tensor-memory kernel with the load warps copying Q, K and V."""
    o, lse, ref, ref_lse = attention_twin_case("attention_sm100a", d, causal,
                                               unaligned)
    assert rel_err(o, ref) < 2e-2
    assert rel_err(lse, ref_lse) < 1e-3
