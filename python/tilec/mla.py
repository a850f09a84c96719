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
by the block table's width (1: each sequence whole). The kernels are
examples/mla_decode.mlir's; the op is a torch.library custom op
(tilec::mla_decode) with a fake implementation, so it traces under
torch.compile and launches without host synchronization.
"""

import math

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

D_QK = 576
D_V = 512
ROWS = 64   # query rows a program (the MMA's M)
KEYS = 64   # keys a step


WAVES = 2   # chunks a program, about (the last waves take the short ones)


def schedule(rows_blocks, max_blocks, batch, sms, num_splits=0):
    """(target, tiles) for the schedule kernels: target > 0 asks for about
    that many chunks of equal size in all (WAVES of the SMs' programs,
    each of `rows_blocks` tiles), target < 0 fixes the chunk at -target
    blocks (`num_splits` = n: at most n chunks a sequence of `max_blocks`,
    the table's width in 64-key blocks); tiles bounds the chunks (rows of
    the schedule, slots of the partials). Simulated on FlashMLA's grid
    (lengths N(c, c / 2), 132 SMs): the slowest program 1.04-1.07x the
    mean at two waves, 1.5-1.7x with 7 fixed splits a sequence."""
    if num_splits > 0:
        chunk = max(1, -(-max_blocks // num_splits))
        return -chunk, batch * -(-max(1, max_blocks) // chunk)
    target = max(1, WAVES * sms // max(1, rows_blocks))
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


def _launch(bundle, q, kv_cache, block_table, cache_seqlens, scale, causal, target,
            tiles, out, lse, workspace):
    """The four kernels: the schedule's two, the chunks, the combine.
    workspace(shape, dtype) makes the intermediates (torch.empty, or
    poisoned ones in the tests)."""
    import torch

    b, sq, hq, _ = q.shape
    r = sq * hq
    info = workspace((b, 8), torch.int32)
    sched = workspace((tiles, 4), torch.int32)
    part = workspace((tiles, r, D_V), torch.float32)
    part_lse = workspace((tiles, r), torch.float32)
    bundle["mla_schedule_seqs"](cache_seqlens, info, int(target))
    bundle["mla_schedule_tiles"](info, sched)
    bundle["mla_decode"](q.contiguous().view(b, r, D_QK), kv_cache, block_table,
                         cache_seqlens, sched, part, part_lse, float(scale), hq,
                         int(causal))
    bundle["mla_combine"](part, part_lse, info, out.view(b, r, D_V), lse, hq)


def _mla(q, kv_cache, block_table, cache_seqlens, scale, causal, splits):
    import torch

    b, sq, hq, _ = q.shape
    r = sq * hq
    out = torch.empty(b, sq, hq, D_V, device=q.device, dtype=q.dtype)
    lse = torch.empty(b, hq, sq, device=q.device, dtype=torch.float32)
    if not q.numel():
        return out, lse
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    max_blocks = -(-block_table.shape[1] * kv_cache.shape[1] // KEYS)
    target, tiles = schedule(-(-r // ROWS), max_blocks, b, sms, splits)
    _launch(_bundle("mla_decode", q.device), q, kv_cache, block_table, cache_seqlens,
            scale, causal, target, tiles, out, lse,
            lambda shape, dtype: torch.empty(shape, device=q.device, dtype=dtype))
    return out, lse


# (Registered once: torch refuses a second operator of the name.)
@once
def _register():
    import torch

    @torch.library.custom_op("tilec::mla_decode", mutates_args=(), device_types="cuda")
    def mla_decode_op(q: torch.Tensor, kv_cache: torch.Tensor, block_table: torch.Tensor,
                      cache_seqlens: torch.Tensor, scale: float, causal: bool,
                      num_splits: int) -> tuple[torch.Tensor, torch.Tensor]:
        return _mla(q, kv_cache, block_table, cache_seqlens, scale, causal, num_splits)

    @mla_decode_op.register_fake
    def _(q, kv_cache, block_table, cache_seqlens, scale, causal, num_splits):
        b, sq, hq, _ = q.shape
        return (q.new_empty((b, sq, hq, D_V)),
                q.new_empty((b, hq, sq), dtype=torch.float32))

    return mla_decode_op


def mla_decode(q, kv_cache, block_table, cache_seqlens, head_dim_v=D_V, softmax_scale=None,
               causal=False, num_splits=0):
    """softmax(q kᵀ · scale) v over each sequence's paged latent cache (see
    the module), v = k[..., :512]. Returns (out (B, Sq, Hq, 512) bf16, lse
    (B, Hq, Sq) f32). softmax_scale defaults to 1 / sqrt(576); num_splits =
    0 balances the keys over the SMs, n > 0 cuts each sequence into at
    most n chunks."""
    _check(q, kv_cache, block_table, cache_seqlens, head_dim_v)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(D_QK)
    return _register()(q, kv_cache, block_table, cache_seqlens, float(softmax_scale),
                       bool(causal), int(num_splits))
