"""Multi-head latent attention decode over a paged cache, as a PyTorch
operator: tilec.ops.mla_decode (DeepSeek's MLA, FlashMLA's problem and
argument conventions).

    import tilec.ops
    out, lse = tilec.ops.mla_decode(q, kv_cache, block_table, cache_seqlens)

q is (B, Sq, Hq, 576): the Sq newest tokens of each sequence (1, or 2 with
multi-token prediction) and Hq query heads, all of one latent KV head.
kv_cache is (num_blocks, page_size, 1, 576), a row 512 latent values and
64 rotary ones; V is the latent part (head_dim_v = 512). block_table
(B, max_blocks) int32 names each sequence's pages in order, cache_seqlens
(B) int32 their lengths (0 gives O = 0 and LSE = -inf). With causal=True
token t of Sq sees keys 0 .. len - Sq + t; else every token sees the whole
sequence. Returns out (B, Sq, Hq, 512) bf16 and lse (B, Hq, Sq) f32 (natural
log). Any page size (64 in FlashMLA); bf16.

The keys are cut into chunks balanced over the SMs (FlashMLA's
get_mla_metadata, computed on the GPU from cache_seqlens by two small
kernels: the lengths never reach the host): about two waves of chunks of
equal size, each sequence's shorter last chunk after every full one; a
combine kernel merges each sequence's chunks by their LSE. ``num_splits``
= n > 0 instead cuts every sequence into at most n chunks of a size fixed
by the block table's width (1: each sequence whole). The schedule
depends on the lengths alone: ``m = tilec.ops.mla_decode_metadata(q,
kv_cache, block_table, cache_seqlens)`` computes it once a decode step
and ``mla_decode(..., metadata=m)`` in every layer skips its two kernels.
The kernels are
examples/mla_decode.mlir's; the op is a torch.library custom op
(tilec::mla_decode) with a fake implementation, so it traces under
torch.compile and launches without host synchronization.
"""

import math
from typing import Optional

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

D_QK = 576
D_V = 512
ROWS = 64   # query rows a program (the MMA's M)
KEYS = 64   # keys a step


WAVES = 2   # chunks a program, about (the last waves take the short ones)
MAX_TILES = 65535  # a grid's y


def schedule(rows_blocks, max_blocks, batch, sms, num_splits=0):
    """(target, tiles) for the schedule kernels: target > 0 asks for about
    that many chunks of equal size in all (WAVES of the SMs' programs,
    each of `rows_blocks` tiles), target < 0 fixes the chunk at -target
    blocks (`num_splits` = n: at most n chunks a sequence of `max_blocks`,
    the table's width in 64-key blocks); tiles bounds the chunks (rows of
    the schedule, slots of the partials). Simulated on FlashMLA's grid
    (lengths N(c, c / 2), 132 SMs): the slowest program 1.04-1.07x the
    mean at two waves, 1.5-1.7x with 7 fixed splits a sequence."""
    # (The tiles are the kernel's grid y: at most 65535.)
    if num_splits > 0:
        chunk = max(1, -(-max_blocks // num_splits),
                    -(-max_blocks // max(1, MAX_TILES // max(1, batch))))
        return -chunk, batch * -(-max(1, max_blocks) // chunk)
    target = max(1, min(WAVES * sms // max(1, rows_blocks), MAX_TILES - batch))
    return target, target + batch


def _check(q, kv_cache, block_table, cache_seqlens, head_dim_v):
    import torch

    def bad(what):
        return TilecError("tilec.ops.mla_decode: " + what, INVALID_ARGUMENT)

    if q.dim() != 4 or q.shape[3] != D_QK:
        raise bad("q must be (B, Sq, Hq, %d), got %s" % (D_QK, tuple(q.shape)))
    if q.shape[2] % 4:
        raise bad("the query heads (%d) must be a multiple of 4" % q.shape[2])
    if kv_cache.dim() != 4 or kv_cache.shape[2] != 1 or kv_cache.shape[3] != D_QK:
        raise bad("kv_cache must be (num_blocks, page_size, 1, %d), got %s"
                  % (D_QK, tuple(kv_cache.shape)))
    if head_dim_v != D_V:
        raise bad("head_dim_v must be %d, got %d" % (D_V, head_dim_v))
    for name, t in (("q", q), ("kv_cache", kv_cache)):
        if t.dtype != torch.bfloat16:
            raise bad("%s must be bfloat16, got %s" % (name, t.dtype))
    for name, t in (("block_table", block_table), ("cache_seqlens", cache_seqlens)):
        if t.dtype != torch.int32:
            raise bad("%s must be int32, got %s" % (name, t.dtype))
    b = q.shape[0]
    if block_table.dim() != 2 or block_table.shape[0] != b:
        raise bad("block_table must be (B, max_blocks) with B = %d, got %s"
                  % (b, tuple(block_table.shape)))
    if cache_seqlens.dim() != 1 or cache_seqlens.shape[0] != b:
        raise bad("cache_seqlens must be (B,) with B = %d, got %s"
                  % (b, tuple(cache_seqlens.shape)))
    tensors = (q, kv_cache, block_table, cache_seqlens)
    if any(t.device.type != "cuda" for t in tensors):
        raise bad("every tensor must be a CUDA tensor")
    if len({t.device for t in tensors}) != 1:
        raise bad("every tensor must be on one device")


def _schedule(bundle, cache_seqlens, target, tiles, workspace):
    """The schedule's two kernels: (info (B, 8), sched (tiles, 4)) int32."""
    import torch

    info = workspace((cache_seqlens.shape[0], 8), torch.int32)
    sched = workspace((tiles, 4), torch.int32)
    bundle["mla_schedule_seqs"](cache_seqlens, info, int(target))
    bundle["mla_schedule_tiles"](info, sched)
    return info, sched


def _launch(bundle, q, kv_cache, block_table, cache_seqlens, scale, causal, info, sched,
            out, lse, workspace):
    """The chunks and the combine, on a schedule (_schedule's).
    workspace(shape, dtype) makes the partials (torch.empty, or poisoned
    ones in the tests)."""
    import torch

    b, sq, hq, _ = q.shape
    r = sq * hq
    tiles = sched.shape[0]
    part = workspace((tiles, r, D_V), torch.float32)
    part_lse = workspace((tiles, r), torch.float32)
    bundle["mla_decode"](q.contiguous().view(b, r, D_QK), kv_cache, block_table,
                         cache_seqlens, sched, part, part_lse, float(scale), hq,
                         int(causal))
    bundle["mla_combine"](part, part_lse, info, out.view(b, r, D_V), lse, hq)


def _empty(device):
    """A workspace(shape, dtype) of torch.empty tensors on `device`."""
    import torch

    return lambda shape, dtype: torch.empty(shape, device=device, dtype=dtype)


def _plan(q, kv_cache, block_table, splits):
    """schedule()'s (target, tiles) for these shapes on q's GPU."""
    import torch

    b, sq, hq, _ = q.shape
    sms = (torch.cuda.get_device_properties(q.device).multi_processor_count
           if q.device.type == "cuda" else 1)
    max_blocks = -(-block_table.shape[1] * kv_cache.shape[1] // KEYS)
    return schedule(-(-sq * hq // ROWS), max_blocks, b, sms, splits)


def _mla(q, kv_cache, block_table, cache_seqlens, scale, causal, splits, info=None,
         sched=None):
    import torch

    b, sq, hq, _ = q.shape
    out = torch.empty(b, sq, hq, D_V, device=q.device, dtype=q.dtype)
    lse = torch.empty(b, hq, sq, device=q.device, dtype=torch.float32)
    if not q.numel():
        return out, lse
    if (info is None) != (sched is None):
        raise TilecError("tilec::mla_decode: info and sched come together "
                         "(mla_decode_metadata's pair)", INVALID_ARGUMENT)
    bundle = _bundle("mla_decode", q.device)
    if sched is None:
        target, tiles = _plan(q, kv_cache, block_table, splits)
        info, sched = _schedule(bundle, cache_seqlens, target, tiles, _empty(q.device))
    _launch(bundle, q, kv_cache, block_table, cache_seqlens, scale, causal, info, sched,
            out, lse, _empty(q.device))
    return out, lse


def _metadata(q, kv_cache, block_table, cache_seqlens, splits):
    import torch

    target, tiles = _plan(q, kv_cache, block_table, splits)
    if not q.numel():  # (no chunks: every row (-1, 0, 0, -1))
        sched = torch.zeros(tiles, 4, device=q.device, dtype=torch.int32)
        sched[:, 0] = sched[:, 3] = -1
        return torch.zeros(q.shape[0], 8, device=q.device, dtype=torch.int32), sched
    return _schedule(_bundle("mla_decode", q.device), cache_seqlens, target, tiles,
                     _empty(q.device))


# (Registered once: torch refuses a second operator of the name.)
@once
def _register():
    import torch

    @torch.library.custom_op("tilec::mla_decode", mutates_args=(), device_types="cuda")
    def mla_decode_op(q: torch.Tensor, kv_cache: torch.Tensor, block_table: torch.Tensor,
                      cache_seqlens: torch.Tensor, scale: float, causal: bool,
                      num_splits: int, info: Optional[torch.Tensor] = None,
                      sched: Optional[torch.Tensor] = None
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        return _mla(q, kv_cache, block_table, cache_seqlens, scale, causal, num_splits,
                    info, sched)

    @mla_decode_op.register_fake
    def _(q, kv_cache, block_table, cache_seqlens, scale, causal, num_splits, info=None,
          sched=None):
        b, sq, hq, _ = q.shape
        return (q.new_empty((b, sq, hq, D_V)),
                q.new_empty((b, hq, sq), dtype=torch.float32))

    @torch.library.custom_op("tilec::mla_decode_metadata", mutates_args=(),
                             device_types="cuda")
    def metadata_op(q: torch.Tensor, kv_cache: torch.Tensor, block_table: torch.Tensor,
                    cache_seqlens: torch.Tensor, num_splits: int
                    ) -> tuple[torch.Tensor, torch.Tensor]:
        return _metadata(q, kv_cache, block_table, cache_seqlens, num_splits)

    @metadata_op.register_fake
    def _(q, kv_cache, block_table, cache_seqlens, num_splits):
        _, tiles = _plan(q, kv_cache, block_table, num_splits)
        return (q.new_empty((q.shape[0], 8), dtype=torch.int32),
                q.new_empty((tiles, 4), dtype=torch.int32))

    return mla_decode_op, metadata_op


def mla_decode_metadata(q, kv_cache, block_table, cache_seqlens, num_splits=0):
    """The schedule mla_decode computes from the lengths (FlashMLA's
    get_mla_metadata), as a pair of int32 tensors computed on the GPU.
    Compute it once a decode step and pass it to every layer's call with
    the same cache_seqlens, `mla_decode(..., metadata=m)`: the schedule's
    two kernels then run once instead of in every layer. Any q shape and
    cache with those lengths may use it (the shapes only pick the
    balance)."""
    _check(q, kv_cache, block_table, cache_seqlens, D_V)
    return _register()[1](q, kv_cache, block_table, cache_seqlens, int(num_splits))


def mla_decode(q, kv_cache, block_table, cache_seqlens, head_dim_v=D_V, softmax_scale=None,
               causal=False, num_splits=0, metadata=None):
    """softmax(q kᵀ · scale) v over each sequence's paged latent cache (see
    the module), v = k[..., :512]. Returns (out (B, Sq, Hq, 512) bf16, lse
    (B, Hq, Sq) f32). softmax_scale defaults to 1 / sqrt(576); num_splits =
    0 balances the keys over the SMs, n > 0 cuts each sequence into at
    most n chunks; metadata, mla_decode_metadata's for these lengths,
    skips computing the schedule (num_splits is then its)."""
    _check(q, kv_cache, block_table, cache_seqlens, head_dim_v)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(D_QK)
    info = sched = None
    if metadata is not None:
        info, sched = _check_metadata(metadata, q.shape[0], q.device)
    return _register()[0](q, kv_cache, block_table, cache_seqlens, float(softmax_scale),
                          bool(causal), int(num_splits), info, sched)


def _check_metadata(metadata, b, device):
    import torch

    def bad(what):
        return TilecError("tilec.ops.mla_decode: " + what, INVALID_ARGUMENT)

    if not isinstance(metadata, (tuple, list)) or len(metadata) != 2:
        raise bad("metadata must be the pair mla_decode_metadata returns")
    info, sched = metadata
    if (not isinstance(info, torch.Tensor) or info.dtype != torch.int32 or
            tuple(info.shape) != (b, 8) or not isinstance(sched, torch.Tensor) or
            sched.dtype != torch.int32 or sched.dim() != 2 or sched.shape[1] != 4):
        raise bad("metadata must be the pair mla_decode_metadata returns for B = %d "
                  "((B, 8) and (tiles, 4) int32)" % b)
    if info.device != device or sched.device != device:
        raise bad("metadata must be on q's device")
    return info.contiguous(), sched.contiguous()
