"""tilec.ops.mla_decode without a GPU: its argument checks and its
operator's fake implementation (the GPU runs are test/gpu/test_mla.py)."""

import pytest

import tilec
import tilec.mla
import tilec.ops


def test_the_kernel_is_found_in_the_repository():
    dirs = tilec.attention._kernel_dirs()
    assert any((d / "mla_decode.mlir").is_file() for d in dirs), dirs


def test_bad_arguments_are_refused(torch):
    q = torch.randn(2, 1, 16, 576, dtype=torch.bfloat16)
    kv = torch.randn(8, 64, 1, 576, dtype=torch.bfloat16)
    bt = torch.zeros(2, 4, dtype=torch.int32)
    lens = torch.ones(2, dtype=torch.int32)
    cases = [
        ((q[..., :512], kv, bt, lens), "q must be \\(B, Sq, Hq, 576\\)"),
        ((q, kv[:, :, :, :512], bt, lens), "kv_cache must be"),
        ((q.float(), kv, bt, lens), "q must be bfloat16"),
        ((q, kv, bt.long(), lens), "block_table must be int32"),
        ((q, kv, bt[:1], lens), "block_table must be \\(B, max_blocks\\)"),
        ((q, kv, bt, lens[:1]), "cache_seqlens must be \\(B,\\)"),
        ((q[:, :, :6], kv, bt, lens), "must be a multiple of 4"),
        ((q, kv, bt, lens), "must be a CUDA tensor"),
    ]
    for args, message in cases:
        with pytest.raises(tilec.TilecError, match=message) as e:
            tilec.ops.mla_decode(*args)
        assert e.value.code == tilec.INVALID_ARGUMENT
    with pytest.raises(tilec.TilecError, match="head_dim_v must be 512"):
        tilec.ops.mla_decode(q, kv, bt, lens, head_dim_v=128)
    # (Checked before the device: CPU tensors reach it.)
    info, sched = torch.zeros(2, 8, dtype=torch.int32), torch.zeros(5, 4, dtype=torch.int32)
    for meta in ((info,), (info.long(), sched), (info[:1], sched), (info, sched[:, :3])):
        with pytest.raises(tilec.TilecError, match="metadata must be the pair"):
            tilec.mla._check_metadata(meta, 2, info.device)
    with pytest.raises(tilec.TilecError, match="metadata must be on q's device"):
        tilec.mla._check_metadata((info, sched), 2, torch.device("meta"))
    # (The operator called directly: its two halves come together.)
    with pytest.raises(tilec.TilecError, match="info and sched come together"):
        tilec.mla._mla(q, kv, bt, lens, 0.1, False, 0, info, None)


def test_fake_implementation_gives_the_shapes(torch):
    op, meta = tilec.mla._register()
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(3, 2, 64, 576, dtype=torch.bfloat16)
        kv = torch.empty(10, 64, 1, 576, dtype=torch.bfloat16)
        bt = torch.empty(3, 4, dtype=torch.int32)
        lens = torch.empty(3, dtype=torch.int32)
        out, lse = op(q, kv, bt, lens, 0.1, True, 0)
        assert out.shape == (3, 2, 64, 512) and out.dtype == torch.bfloat16
        assert lse.shape == (3, 64, 2) and lse.dtype == torch.float32
        # The schedule: (B, 8) and (tiles, 4) int32 (num_splits = 3 of a
        # table 4 blocks wide: chunks of 2 blocks, at most 2 a sequence);
        # the op takes it.
        info, sched = meta(q, kv, bt, lens, 3)
        assert info.shape == (3, 8) and info.dtype == torch.int32
        assert sched.shape == (6, 4) and sched.dtype == torch.int32
        out, lse = op(q, kv, bt, lens, 0.1, True, 0, info, sched)
        assert out.shape == (3, 2, 64, 512)


def test_schedule_from_the_shapes():
    # Two waves of 132 programs: 264 chunks in all, 132 where q has two
    # 64-row blocks; the tiles bound them (at most one short chunk a
    # sequence besides). num_splits = n fixes the chunk at the table's
    # width / n blocks: at most n a sequence.
    assert tilec.mla.schedule(1, 128, 128, 132) == (264, 264 + 128)
    assert tilec.mla.schedule(2, 128, 128, 132) == (132, 132 + 128)
    assert tilec.mla.schedule(1, 128, 4, 132, num_splits=7) == (-19, 4 * 7)
    assert tilec.mla.schedule(1, 128, 4, 132, num_splits=1) == (-128, 4)
    assert tilec.mla.schedule(1, 0, 4, 132, num_splits=3) == (-1, 4)
    # At most 65535 tiles (the kernel's grid y): bigger fixed chunks, a
    # smaller target.
    assert tilec.mla.schedule(1, 4096, 2048, 132, num_splits=64) == (-133, 2048 * 31)
    assert tilec.mla.schedule(1, 4096, 65400, 132) == (135, 65535)
