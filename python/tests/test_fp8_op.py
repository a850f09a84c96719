"""tilec.ops.fp8_gemm_blockwise, its quantization and its grouped forms
without a GPU: their argument checks and their operators' fake
implementations (the GPU runs are test/gpu/test_torch_ops.py)."""

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


def test_grouped_bad_arguments_are_refused(torch):
    f8 = torch.float8_e4m3fn
    a = torch.zeros(256, 300, dtype=f8)
    sa = torch.ones(256, 3)
    b = torch.zeros(4, 200, 300, dtype=f8)
    sb = torch.ones(4, 2, 3)
    mi = torch.zeros(256, dtype=torch.int32)
    contiguous = [
        ((a, sa, b[0], sb, mi), "b must be a 3-D tensor"),
        ((a, sa, b, sb, mi.long()), "m_indices must be int32"),
        ((a, sa, b[:, :, :200], sb, mi), "a's K \\(300\\) is not b's \\(G, N, K\\) K \\(200\\)"),
        ((a, sa[:, :2], b, sb, mi), "sa must be \\(M, ceil\\(K/128\\)\\) = \\(256, 3\\)"),
        ((a, sa, b, sb[:3], mi),
         "sb must be \\(G, ceil\\(N/128\\), ceil\\(K/128\\)\\) = \\(4, 2, 3\\)"),
        ((a, sa, b, sb, mi[:100]), "m_indices must be \\(M,\\) = \\(256,\\)"),
        ((a, sa, b, sb, mi), "a must be a CUDA tensor"),
    ]
    for args, message in contiguous:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.fp8_grouped_gemm_contiguous(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT
    am = torch.zeros(4, 64, 300, dtype=f8)
    sam = torch.ones(4, 64, 3)
    mm = torch.zeros(4, dtype=torch.int32)
    masked = [
        ((a, sa, b, sb, mm), "a must be a 3-D tensor"),
        ((am[:3], sam[:3], b, sb, mm), "G differs \\(3, 4\\)"),
        ((am, sam[:, :, :2], b, sb, mm),
         "sa must be \\(G, M_max, ceil\\(K/128\\)\\) = \\(4, 64, 3\\)"),
        ((am, sam, b, sb, mm[:2]), "masked_m must be \\(G,\\) = \\(4,\\)"),
        ((torch.zeros(129, 8, 300, dtype=f8), torch.ones(129, 8, 3),
          torch.zeros(129, 200, 300, dtype=f8), torch.ones(129, 2, 3),
          torch.zeros(129, dtype=torch.int32)), "at most 128 experts, got 129"),
        ((am, sam, b, sb, mm), "a must be a CUDA tensor"),
    ]
    for args, message in masked:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.fp8_grouped_gemm_masked(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT


def test_grouped_fake_implementations_give_the_shapes(torch):
    from torch._subclasses.fake_tensor import FakeTensorMode

    f8 = torch.float8_e4m3fn
    with FakeTensorMode():
        b, sb = torch.empty(4, 200, 300, dtype=f8), torch.empty(4, 2, 3)
        c = tilec.fp8._register_grouped()[0](
            torch.empty(384, 300, dtype=f8), torch.empty(384, 3), b, sb,
            torch.empty(384, dtype=torch.int32))
        assert c.shape == (384, 200) and c.dtype == torch.bfloat16
        c = tilec.fp8._register_grouped()[1](
            torch.empty(4, 64, 300, dtype=f8), torch.empty(4, 64, 3), b, sb,
            torch.empty(4, dtype=torch.int32))
        assert c.shape == (4, 64, 200) and c.dtype == torch.bfloat16
