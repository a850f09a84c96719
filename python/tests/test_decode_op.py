"""tilec.ops.decode_attention without a GPU: the split count it chooses from
the shapes, its argument checks and its operator's fake implementation
(the GPU runs are test/gpu/test_decode.py)."""

import re

import pytest

import tilec
import tilec.decode
import tilec.ops
from tilec.decode import num_splits


def test_no_splits_when_the_programs_fill_the_gpu():
    # 64 sequences x 8 KV heads: 512 programs for 132 SMs' 264 slots.
    assert num_splits(512, 4096, 132) == 1
    # At D 256 an SM runs one program: 200 programs fill 132 SMs' slots,
    # which at D 128 (two a SM) they do not.
    assert num_splits(200, 8192, 132, d=256) == 1
    assert num_splits(200, 8192, 132, d=128) > 1
    # A sequence of few key blocks is never split.
    assert num_splits(8, 4 * tilec.decode.KEYS, 132) == 1


def test_splits_fill_the_slots_of_a_small_batch():
    # One sequence, 8 KV heads, 131072 keys: the fewest splits whose wave
    # is nearly as full as the best count's.
    s = num_splits(8, 131072, 132)
    assert 8 * s / (-(-8 * s // 264) * 264) >= 0.95
    assert all(8 * t / (-(-8 * t // 264) * 264) < 0.95 for t in range(1, s))
    # Never more splits than key blocks.
    assert num_splits(1, 10 * tilec.decode.KEYS, 132) <= 10


def test_the_kernels_are_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "decode_attention.mlir").is_file() for d in dirs), dirs


def test_bad_arguments_are_refused(torch):
    q = torch.randn(2, 1, 8, 128, dtype=torch.bfloat16)
    kc = torch.randn(4, 16, 2, 128, dtype=torch.bfloat16)
    table = torch.zeros(2, 2, dtype=torch.int32)
    lens = torch.ones(2, dtype=torch.int32)
    cases = [
        ((q[0], kc, kc, table, lens), "q must be 4-d"),
        ((q.float(), kc, kc, table, lens), "q must be bfloat16"),
        ((q, kc, kc, table.long(), lens), "block_table must be int32"),
        ((q, kc, kc, table, lens), "must be a CUDA tensor"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.decode_attention(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT
    with pytest.raises(tilec.TilecError, match="k and v are given together"):
        tilec.ops.decode_attention(q, kc, kc, table, lens, k=q[:, :, :2])


def test_fake_implementation_gives_the_shapes(torch):
    op = tilec.decode._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(3, 2, 8, 128, dtype=torch.bfloat16)
        kc = torch.empty(10, 16, 2, 128, dtype=torch.bfloat16)
        table = torch.empty(3, 4, dtype=torch.int32)
        lens = torch.empty(3, dtype=torch.int32)
        o, lse = op(q, kc, kc, table, lens, 0.1, 0, False)
        assert o.shape == (3, 2, 8, 128) and o.dtype == torch.bfloat16
        assert lse.shape == (3, 8, 2) and lse.dtype == torch.float32


def test_append_is_an_operator_that_mutates_the_caches(torch):
    op = tilec.decode._register_append()
    from torch._subclasses.fake_tensor import FakeTensorMode

    schema = str(op._opoverload._schema)
    assert re.search(r"Tensor\(\w+!\) k_cache", schema), schema
    assert re.search(r"Tensor\(\w+!\) v_cache", schema), schema
    with FakeTensorMode():
        k = torch.empty(3, 2, 2, 128, dtype=torch.bfloat16)
        kc = torch.empty(10, 16, 2, 128, dtype=torch.bfloat16)
        table = torch.empty(3, 4, dtype=torch.int32)
        lens = torch.empty(3, dtype=torch.int32)
        assert op(k, k, kc, kc, table, lens, False) is None
