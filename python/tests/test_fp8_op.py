"""tilec.ops.fp8_gemm_blockwise without a GPU: its argument checks and its
operator's fake implementation (the GPU runs are test/gpu/test_torch_ops.py)."""

import pytest

import tilec
import tilec.fp8
import tilec.ops


def test_the_kernel_is_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "gemm_fp8_blockwise.mlir").is_file() for d in dirs), dirs


def test_bad_arguments_are_refused(torch):
    f8 = torch.float8_e4m3fn
    a = torch.zeros(100, 300, dtype=f8)
    b = torch.zeros(200, 300, dtype=f8)
    sa = torch.ones(100, 3)
    sb = torch.ones(2, 3)
    cases = [
        ((a[0], sa, b, sb), "a must be a 2-D tensor"),
        ((a.float(), sa, b, sb), "a must be float8_e4m3fn"),
        ((a, sa, b.to(torch.float8_e5m2), sb), "b must be float8_e4m3fn"),
        ((a, sa.double(), b, sb), "sa must be float32"),
        ((a, sa, b[:, :200], sb), "K differs \\(300, 200\\)"),
        ((a, sa[:, :2], b, sb), "sa must be \\(M, ceil\\(K/128\\)\\) = \\(100, 3\\)"),
        ((a, sa, b, sb[:1]), "sb must be \\(ceil\\(N/128\\), ceil\\(K/128\\)\\) = \\(2, 3\\)"),
        ((a, sa, b, sb), "a must be a CUDA tensor"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.fp8_gemm_blockwise(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT


def test_fake_implementation_gives_the_shape(torch):
    op = tilec.fp8._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a = torch.empty(77, 300, dtype=torch.float8_e4m3fn)
        b = torch.empty(200, 300, dtype=torch.float8_e4m3fn)
        c = op(a, torch.empty(77, 3), b, torch.empty(2, 3))
        assert c.shape == (77, 200) and c.dtype == torch.bfloat16


def test_quantize_bad_arguments_are_refused(torch):
    x = torch.zeros(100, 300, dtype=torch.bfloat16)
    for arg, message in ((x[0], "x must be a 2-D tensor"), (x.float(), "x must be bfloat16"),
                         (x, "x must be a CUDA tensor")):
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.fp8_quantize_blockwise(arg)
        assert e.value.code == tilec.INVALID_ARGUMENT


def test_quantize_fake_implementation_gives_the_shapes(torch):
    op = tilec.fp8._register_quantize()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a, sa = op(torch.empty(77, 300, dtype=torch.bfloat16))
        assert a.shape == (77, 300) and a.dtype == torch.float8_e4m3fn
        # sa as the GEMM reads it: (M, ceil(K/128)), M contiguous.
        assert sa.shape == (77, 3) and sa.stride() == (1, 77) and sa.dtype == torch.float32


def test_small_tiles_where_the_large_grid_leaves_sms_idle():
    pick = tilec.fp8.pick_kernel
    # 56 programs of 128x128 on 132 SMs at M = 16: 112 of 64x64 in one wave.
    assert pick(16, 7168, 132) == "gemm_fp8_blockwise_64x64"
    assert pick(128, 2112, 132) == "gemm_fp8_blockwise_64x64"
    # 224 programs of 64x64 take two waves: no better than one of 128x128.
    assert pick(128, 7168, 132) == "gemm_fp8_blockwise"
    # Full waves either way: the larger tile.
    assert pick(512, 4096, 132) == "gemm_fp8_blockwise"
    assert pick(4096, 7168, 132) == "gemm_fp8_blockwise"
