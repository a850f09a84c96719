"""Attention decode over a paged KV cache, as a PyTorch operator:
tilec.ops.decode_attention.

    import tilec.ops
    o = tilec.ops.decode_attention(q, k_cache, v_cache, block_table, seq_lens)

q is (B, Sq, Hq, D): the Sq newest tokens of each sequence (1 for decode,
up to a few for speculative decoding), which see the keys before them and
each other bottom-right causally (token t of Sq sees keys 0 .. len - Sq +
t). k_cache and v_cache are (num_blocks, page_size, Hkv, D), vLLM's
layout (or heads first, (num_blocks, Hkv, page_size, D), with
``heads_first=True``); block_table (B, max_blocks) int32 names each
sequence's pages in order, seq_lens (B) int32 their lengths (0 gives O = 0
and LSE = -inf). Any page size; Hq a multiple of Hkv (GQA: one KV head's
query heads are rows of one MMA). bf16, head dim 64, 128 or 256. With ``k`` and ``v``
the new tokens' keys and values are appended to the caches in place first
(tilec::decode_append_kv, a custom op that mutates the caches).

The keys are split across programs when the batch alone does not fill
the GPU (``num_splits``, default chosen from the shapes and the number of
SMs, never from the lengths, which stay on the GPU); a combine kernel
merges the splits by their LSE. Both are examples/decode_attention.mlir's
kernels; the op is a torch.library custom op (tilec::decode_attention)
with a fake implementation, so it traces under torch.compile and launches
without host synchronization (CUDA graphs).
"""

import math

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

HEAD_DIMS = (64, 128, 256)
ROWS = 64   # query rows a program (the MMA's M)
KEYS = 64   # keys a step (at D 128 and 256; 128 at D 64: keys_a_step)


def _check(q, k_cache, v_cache, block_table, seq_lens, heads_first, k=None, v=None):
    import torch

    def bad(what):
        return TilecError("tilec.ops.decode_attention: " + what, INVALID_ARGUMENT)

    if (k is None) != (v is None):
        raise bad("k and v are given together or not at all")
    if q.dim() != 4:
        raise bad("q must be 4-d (B, Sq, Hq, D), got %d dims" % q.dim())
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if t.dim() != 4:
            raise bad("%s must be 4-d (num_blocks, page_size, Hkv, D), got %d dims"
                      % (name, t.dim()))
    for name, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)):
        if t.dtype != torch.bfloat16:
            raise bad("%s must be bfloat16, got %s" % (name, t.dtype))
    for name, t in (("block_table", block_table), ("seq_lens", seq_lens)):
        if t.dtype != torch.int32:
            raise bad("%s must be int32, got %s" % (name, t.dtype))
    tensors = (q, k_cache, v_cache, block_table, seq_lens)
    if any(t.device.type != "cuda" for t in tensors):
        raise bad("every tensor must be a CUDA tensor")
    if len({t.device for t in tensors}) != 1:
        raise bad("every tensor must be on one device")
    b, _, hq, d = q.shape
    if d not in HEAD_DIMS:
        raise bad("head dim %d is not one of %s" % (d, HEAD_DIMS))
    if k_cache.shape != v_cache.shape:
        raise bad("k_cache and v_cache must have one shape, got %s and %s"
                  % (tuple(k_cache.shape), tuple(v_cache.shape)))
    hkv = k_cache.shape[1] if heads_first else k_cache.shape[2]
    if k_cache.shape[3] != d:
        raise bad("the caches' head dim is %d, q's %d" % (k_cache.shape[3], d))
    if hkv == 0 or hq % hkv:
        raise bad("the query heads (%d) must be a multiple of the K/V heads (%d)"
                  % (hq, hkv))
    if block_table.dim() != 2 or block_table.shape[0] != b:
        raise bad("block_table must be (B, max_blocks) with B = %d, got %s"
                  % (b, tuple(block_table.shape)))
    if seq_lens.dim() != 1 or seq_lens.shape[0] != b:
        raise bad("seq_lens must be (B,) with B = %d, got %s" % (b, tuple(seq_lens.shape)))
    if k is not None:
        want = (b, q.shape[1], hkv, d)
        for name, t in (("k", k), ("v", v)):
            if tuple(t.shape) != want:
                raise bad("%s must be (B, Sq, Hkv, D) = %s, got %s"
                          % (name, want, tuple(t.shape)))
            if t.dtype != torch.bfloat16 or t.device != q.device:
                raise bad("%s must be a bfloat16 tensor on q's device" % name)


def keys_a_step(d):
    """The kernel's keys a step (its %cn): 128 at D 64, else KEYS."""
    return 128 if d == 64 else KEYS


def per_sm(d):
    """Programs an SM runs at once: the kernel's tile.blocks_per_sm (at D
    256 one program's Q and stages take the SM's shared memory)."""
    return 1 if d > 128 else 2


def num_splits(programs, max_keys, sms, d=128):
    """Splits of each sequence's keys: none where `programs` (B · Hkv ·
    row blocks) fill most of the `sms`' program slots or a sequence has
    few blocks; else the fewest whose last wave is nearly as full as the
    best count's (FA3's rule, from the shapes alone: `max_keys` is the
    block table's width times the page size)."""
    blocks = -(-max_keys // keys_a_step(d))
    slots = per_sm(d) * sms
    if programs >= 0.8 * slots or blocks <= 4:
        return 1
    effs = []
    for s in range(1, min(128, blocks) + 1):
        n = programs * s
        effs.append(n / (-(-n // slots) * slots))
    best = max(effs)
    return next(s for s, e in enumerate(effs, 1) if e >= 0.95 * best)


def _decode(q, k_cache, v_cache, block_table, seq_lens, scale, splits, heads_first):
    import torch

    b, sq, hq, d = q.shape
    if heads_first:  # (num_blocks, Hkv, P, D) -> a (num_blocks, P, Hkv, D) view
        k_cache = k_cache.transpose(1, 2)
        v_cache = v_cache.transpose(1, 2)
    hkv = k_cache.shape[2]
    g = hq // hkv
    r = sq * g
    out = torch.empty(b, sq, hq, d, device=q.device, dtype=q.dtype)
    lse = torch.empty(b, hq, sq, device=q.device, dtype=torch.float32)
    if not q.numel():
        return out, lse
    if splits <= 0:
        sms = torch.cuda.get_device_properties(q.device).multi_processor_count
        splits = num_splits(b * hkv * -(-r // ROWS),
                            block_table.shape[1] * k_cache.shape[1], sms, d)
    # Rows of one KV head: (token, head in group), token-major.
    qr = q.reshape(b, sq, hkv, g, d).permute(0, 2, 1, 3, 4).reshape(b, hkv, r, d)
    part = torch.empty(splits, b, hkv, r, d, device=q.device, dtype=torch.float32)
    part_lse = torch.empty(splits, b, hkv, r, device=q.device, dtype=torch.float32)
    if sq == 1:  # (B, 1, Hq, D) is (B, Hkv, G, D): written in place
        outr, lser = out.view(b, hkv, g, d), lse.view(b, hkv, g)
    else:
        outr = torch.empty(b, hkv, r, d, device=q.device, dtype=q.dtype)
        lser = torch.empty(b, hkv, r, device=q.device, dtype=torch.float32)
    bundle = _bundle("decode_attention", q.device)
    # One split writes O and LSE itself; more write partials the combine
    # kernel merges.
    bundle["decode_d%d" % d](qr, k_cache, v_cache, block_table, seq_lens, part, part_lse,
                             float(scale), g, splits, outr, lser)
    if splits > 1:
        bundle["decode_combine_d%d" % d](part, part_lse, outr, lser)
    if sq > 1:
        out.copy_(outr.view(b, hkv, sq, g, d).permute(0, 2, 1, 3, 4).reshape(b, sq, hq, d))
        lse.copy_(lser.view(b, hkv, sq, g).permute(0, 1, 3, 2).reshape(b, hq, sq))
    return out, lse


def _append(k, v, k_cache, v_cache, block_table, seq_lens, heads_first):
    """k and v (B, Sq, Hkv, D) written into the caches at positions len - Sq
    .. len - 1 of each sequence (decode_append_d128)."""
    if heads_first:
        k_cache = k_cache.transpose(1, 2)
        v_cache = v_cache.transpose(1, 2)
    if not k.numel():
        return
    bundle = _bundle("decode_attention", k.device)
    bundle["decode_append_d%d" % k.shape[3]](k, v, k_cache, v_cache, block_table, seq_lens)


# (Registered once: torch refuses a second operator of the name.)
@once
def _register_append():
    import torch

    @torch.library.custom_op("tilec::decode_append_kv", mutates_args=("k_cache", "v_cache"),
                             device_types="cuda")
    def append_op(k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                  v_cache: torch.Tensor, block_table: torch.Tensor, seq_lens: torch.Tensor,
                  heads_first: bool) -> None:
        _append(k, v, k_cache, v_cache, block_table, seq_lens, heads_first)

    @append_op.register_fake
    def _(k, v, k_cache, v_cache, block_table, seq_lens, heads_first):
        return None

    return append_op


# (Registered once: torch refuses a second operator of the name.)
@once
def _register():
    import torch

    @torch.library.custom_op("tilec::decode_attention", mutates_args=(), device_types="cuda")
    def decode_attention_op(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                            block_table: torch.Tensor, seq_lens: torch.Tensor, scale: float,
                            num_splits: int, heads_first: bool
                            ) -> tuple[torch.Tensor, torch.Tensor]:
        return _decode(q, k_cache, v_cache, block_table, seq_lens, scale, num_splits,
                       heads_first)

    @decode_attention_op.register_fake
    def _(q, k_cache, v_cache, block_table, seq_lens, scale, num_splits, heads_first):
        b, sq, hq, _ = q.shape
        return (q.new_empty((b, sq, hq, q.shape[3])),
                q.new_empty((b, hq, sq), dtype=torch.float32))

    return decode_attention_op


def decode_attention(q, k_cache, v_cache, block_table, seq_lens, scale=None,
                     num_splits=0, heads_first=False, return_lse=False, k=None, v=None):
    """softmax(q kᵀ · scale) v over each sequence's paged keys (see the
    module). Returns o (B, Sq, Hq, D) bf16, and with return_lse=True also
    the log-sum-exp (B, Hq, Sq) f32 (natural log). num_splits = 0 chooses
    the splits from the shapes and the GPU. With k and v (B, Sq, Hkv, D),
    the new tokens' keys and values are first written into the caches in
    place, at positions seq_lens - Sq .. seq_lens - 1 of each sequence
    (seq_lens count the new tokens; their pages must be in block_table)."""
    _check(q, k_cache, v_cache, block_table, seq_lens, heads_first, k, v)
    if k is not None:
        _register_append()(k, v, k_cache, v_cache, block_table, seq_lens,
                           bool(heads_first))
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    o, lse = _register()(q, k_cache, v_cache, block_table, seq_lens, float(scale),
                         int(num_splits), bool(heads_first))
    return (o, lse) if return_lse else o
