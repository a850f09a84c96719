"""tilec.ops.attention_fp8 without a GPU: its argument checks, its
operator's fake implementation and the key order its Vᵀ uses (the GPU
runs are test/gpu/test_attention_fp8.py)."""

import pytest

import tilec
import tilec.attention_fp8
import tilec.ops


def test_the_kernel_is_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "attention_fp8.mlir").is_file() for d in dirs), dirs


def test_key_order_renames_the_accumulators_columns():
    # Position (k3 k2 k1 k0) holds key (k1 k3 k2 k0): a thread's accumulator
    # keys 2t, 2t+1, 8+2t, 9+2t become its A bytes 4t..4t+3.
    order = tilec.attention_fp8.key_order()
    assert sorted(order) == list(range(16))
    for t in range(4):
        assert order[4 * t: 4 * t + 4] == [2 * t, 2 * t + 1, 8 + 2 * t, 9 + 2 * t]


def test_bad_arguments_are_refused(torch):
    f8 = torch.float8_e4m3fn
    q = torch.zeros(1, 4, 100, 128, dtype=f8)
    k = torch.zeros(1, 2, 90, 128, dtype=f8)
    cases = [
        ((q[0], k, k), "q must be 4-d"),
        ((q, k.bfloat16(), k), "k must be float8_e4m3fn"),
        ((q, k, k.to(torch.float8_e5m2)), "v must be float8_e4m3fn"),
        ((q, k, k), "q must be a CUDA tensor"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.attention_fp8(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT


def test_fake_implementation_gives_the_shapes(torch):
    op = tilec.attention_fp8._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(2, 4, 100, 128, dtype=torch.float8_e4m3fn)
        k = torch.empty(2, 2, 90, 128, dtype=torch.float8_e4m3fn)
        o, lse = op(q, k, k, None, None, None, True, 0.1)
        assert o.shape == (2, 4, 100, 128) and o.dtype == torch.bfloat16
        assert lse.shape == (2, 4, 100) and lse.dtype == torch.float32
