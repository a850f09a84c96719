"""tilec.ops.varlen_attention without a GPU: its argument checks and its
operator's fake implementation (the GPU runs are test/gpu/test_varlen.py)."""

import pytest

import tilec
import tilec.ops
import tilec.varlen


def test_the_kernel_is_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "varlen_attention.mlir").is_file() for d in dirs), dirs


def test_bad_arguments_are_refused(torch):
    q = torch.randn(10, 8, 128, dtype=torch.bfloat16)
    k = torch.randn(10, 2, 128, dtype=torch.bfloat16)
    cu = torch.tensor([0, 4, 10], dtype=torch.int32)
    cases = [
        ((q[0], k, k, cu, cu, 6), "q must be 3-d"),
        ((q.float(), k, k, cu, cu, 6), "q must be bfloat16"),
        ((q, k, k, cu.long(), cu, 6), "cu_seqlens_q must be a 1-d int32"),
        ((q, k, k, cu, cu, 6), "must be a CUDA tensor"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.varlen_attention(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT


def test_fake_implementation_gives_the_shapes(torch):
    op = tilec.varlen._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(300, 8, 128, dtype=torch.bfloat16)
        k = torch.empty(500, 2, 128, dtype=torch.bfloat16)
        cu = torch.empty(4, dtype=torch.int32)
        o, lse = op(q, k, k, cu, cu, 200, 0.1, True)
        assert o.shape == (300, 8, 128) and o.dtype == torch.bfloat16
        assert lse.shape == (8, 300) and lse.dtype == torch.float32


def test_schedule_on_the_cpu(torch):
    # The schedule is torch ops on the lengths' device: the CPU gives the
    # same rows (longest first, each sequence's blocks from the last).
    cu = torch.tensor([0, 130, 131, 531], dtype=torch.int32)
    sched = tilec.varlen.schedule(cu, 531).tolist()
    assert sched[:6] == [[2, 3], [2, 2], [2, 1], [2, 0], [0, 1], [0, 0]]
    assert sched[6] == [1, 0]
    assert all(row == [-1, 0] for row in sched[7:]) and len(sched) == 5 + 3
