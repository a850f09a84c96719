"""tilec.ops.attention without a GPU: its argument checks, where it finds
its kernels, and its operators' fake (meta) implementations, which
torch.compile traces (the GPU runs are test/gpu/test_attention_bwd.py)."""

import pytest

import tilec
import tilec.attention
import tilec.ops

torch = pytest.importorskip("torch", reason="torch is not installed")


def bf16(*shape):
    return torch.randn(*shape, dtype=torch.bfloat16)


@pytest.mark.parametrize("args,message", [
    ((bf16(1, 2, 8, 64), bf16(1, 2, 8, 64), bf16(1, 2, 8)), "v must be 4-d"),
    ((bf16(1, 2, 8, 64).float(), bf16(1, 2, 8, 64), bf16(1, 2, 8, 64)), "q must be bfloat16"),
    ((bf16(1, 2, 8, 64), bf16(1, 2, 8, 64), bf16(1, 2, 8, 64)), "must be a CUDA tensor"),
])
def test_bad_arguments_are_refused(args, message):
    with pytest.raises(tilec.TilecError, match=message) as e:
        tilec.ops.attention(*args)
    assert e.value.code == tilec.INVALID_ARGUMENT


def test_the_kernels_are_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "attention_bwd.mlir").is_file() and (d / "attention.mlir").is_file()
               for d in dirs), dirs


def test_fake_implementations_give_the_shapes_and_strides():
    fwd, bwd = tilec.attention._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(2, 7, 4, 64, dtype=torch.bfloat16).transpose(1, 2)  # (B, S, H, D)
        k = torch.empty(2, 2, 7, 64, dtype=torch.bfloat16)
        o, lse = fwd(q, k, k, True, 0.125)
        assert o.shape == q.shape and o.stride() == q.stride()
        assert lse.shape == (2, 4, 7) and lse.dtype == torch.float32
        dq, dk, dv = bwd(q, k, k, o, lse, o, True, 0.125)
        assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == k.shape
