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

The keys are split across programs (``num_splits``, 0 chooses from the
shapes and the number of SMs, never from the lengths: enough programs to
even out sequences of different lengths); a combine kernel merges the
splits by their LSE. Both kernels are examples/mla_decode.mlir's; the op is a
torch.library custom op (tilec::mla_decode) with a fake implementation, so
it traces under torch.compile and launches without host synchronization.
"""

import math

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

D_QK = 576
D_V = 512
ROWS = 64   # query rows a program (the MMA's M)
KEYS = 64   # keys a step


def num_splits(programs, max_keys, sms):
    """Splits of each sequence's keys, from the shapes alone (the lengths
    stay on the GPU): enough programs for six waves of one a SM, so that
    sequences of different lengths even out over the SMs (a sequence twice
    the mean is no single program's tail), at least 4, and shares of at
    least 8 blocks of the table's keys (`max_keys`: its width times the
    page). Measured on FlashMLA's grid (lengths N(c, c / 2), H200): 4-7
    splits took 0.79-0.89 of one split's time at 4096 and 8192 keys, 16
    and 128 heads."""
    blocks = -(-max_keys // KEYS)
    want = max(4, -(-6 * sms // max(1, programs)))
    return max(1, min(want, blocks // 8, 64))


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


def _mla(q, kv_cache, block_table, cache_seqlens, scale, causal, splits):
    import torch

    b, sq, hq, _ = q.shape
    r = sq * hq
    out = torch.empty(b, sq, hq, D_V, device=q.device, dtype=q.dtype)
    lse = torch.empty(b, hq, sq, device=q.device, dtype=torch.float32)
    if not q.numel():
        return out, lse
    if splits <= 0:
        sms = torch.cuda.get_device_properties(q.device).multi_processor_count
        splits = num_splits(b * -(-r // ROWS), block_table.shape[1] * kv_cache.shape[1], sms)
    part = torch.empty(splits, b, r, D_V, device=q.device, dtype=torch.float32)
    part_lse = torch.empty(splits, b, r, device=q.device, dtype=torch.float32)
    bundle = _bundle("mla_decode", q.device)
    bundle["mla_decode"](q.contiguous().view(b, r, D_QK), kv_cache, block_table,
                         cache_seqlens, part, part_lse, float(scale), hq, int(causal),
                         splits)
    if splits == 1:  # nothing to merge: the partial is the result
        out.view(b, r, D_V).copy_(part[0])
        lse.copy_(part_lse[0].view(b, sq, hq).transpose(1, 2))
        return out, lse
    bundle["mla_combine"](part, part_lse, out.view(b, r, D_V), lse, hq)
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
    0 chooses the splits from the shapes and the GPU."""
    _check(q, kv_cache, block_table, cache_seqlens, head_dim_v)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(D_QK)
    return _register()(q, kv_cache, block_table, cache_seqlens, float(softmax_scale),
                       bool(causal), int(num_splits))
