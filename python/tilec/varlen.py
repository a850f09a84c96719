"""Attention over packed sequences of different lengths (variable-length
prefill), as a PyTorch operator: tilec.ops.varlen_attention, with the
arguments of FlashAttention's flash_attn_varlen_func.

    import tilec.ops
    o = tilec.ops.varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k,
                                   max_seqlen_q, max_seqlen_k, causal=True)

q is (total_q, Hq, D), k and v (total_k, Hkv, D): sequence b's queries are
rows cu_seqlens_q[b] .. cu_seqlens_q[b + 1] - 1 of q, its keys rows
cu_seqlens_k[b] .. cu_seqlens_k[b + 1] - 1 of k and v (int32, B + 1
entries, starting at 0). max_seqlen_q and max_seqlen_k are taken for
flash_attn_varlen_func's signature and not needed: the programs come from
a schedule computed on the GPU from the lengths (``schedule``: one program
per 128 queries of a sequence and head, the longest sequences first).
``causal`` aligns the mask bottom-right when a
sequence has more keys than queries (query i sees keys up to i + Lk -
Lq); a query that sees no key gets O = 0 and LSE = -inf. Hq a multiple of
Hkv (GQA); bf16, head dim 64, 128 or 256. Returns o (total_q, Hq, D) bf16 and, with
return_lse=True, the log-sum-exp (Hq, total_q) f32 (natural log), as
flash_attn_varlen_func's softmax_lse. FlashAttention's options:
``window_size=(left, right)`` (a sliding window: query i sees keys i + Lk -
Lq - left .. i + Lk - Lq + right, -1 for no bound), ``softcap`` (> 0:
scores softcap · tanh(s · scale / softcap)) and ``sinks`` ((Hq,) float32
per-head logits in each row's softmax denominator, attention sinks); any
of them runs the options' kernel, so the common kernel's loop carries none.

examples/varlen_attention.mlir's kernels; the op is a torch.library custom
op (tilec::varlen_attention) with a fake implementation: it traces under
torch.compile, and the lengths stay on the GPU (CUDA graphs).
"""

import math
from typing import Optional

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

HEAD_DIMS = (64, 128, 256)


def _check(q, k, v, cu_q, cu_k):
    import torch

    def bad(what):
        return TilecError("tilec.ops.varlen_attention: " + what, INVALID_ARGUMENT)

    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 3:
            raise bad("%s must be 3-d (total, heads, D), got %d dims" % (name, t.dim()))
        if t.dtype != torch.bfloat16:
            raise bad("%s must be bfloat16, got %s" % (name, t.dtype))
    for name, t in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if t.dtype != torch.int32 or t.dim() != 1:
            raise bad("%s must be a 1-d int32 tensor, got %s %s"
                      % (name, tuple(t.shape), t.dtype))
    tensors = (q, k, v, cu_q, cu_k)
    if any(t.device.type != "cuda" for t in tensors):
        raise bad("every tensor must be a CUDA tensor")
    if len({t.device for t in tensors}) != 1:
        raise bad("every tensor must be on one device")
    if cu_q.shape[0] != cu_k.shape[0] or cu_q.shape[0] < 1:
        raise bad("cu_seqlens_q and cu_seqlens_k must both have B + 1 entries, got %d and %d"
                  % (cu_q.shape[0], cu_k.shape[0]))
    d = q.shape[2]
    if d not in HEAD_DIMS:
        raise bad("head dim %d is not one of %s" % (d, HEAD_DIMS))
    if k.shape != v.shape or k.shape[2] != d:
        raise bad("k and v must be (total_k, Hkv, %d), got %s and %s"
                  % (d, tuple(k.shape), tuple(v.shape)))
    if k.shape[1] == 0 or q.shape[1] % k.shape[1]:
        raise bad("the query heads (%d) must be a multiple of the K/V heads (%d)"
                  % (q.shape[1], k.shape[1]))


ROWS = 128  # query rows a program


def schedule(cu_seqlens_q, total_q):
    """The kernel's schedule, in torch ops on the lengths' device, without
    host synchronization (the operator runs the same as two kernels,
    examples/varlen_attention.mlir's varlen_schedule*): (n, 2) int32 rows (sequence, query block), the longest
    sequences first and each one's blocks from the last (the most keys when
    causal), n = total_q / 128 + B rounded up (an upper bound of the blocks
    there are), the rows past the last block (-1, 0)."""
    import torch

    b = cu_seqlens_q.shape[0] - 1
    dev = cu_seqlens_q.device
    lens = (cu_seqlens_q[1:] - cu_seqlens_q[:-1]).long()
    blocks = (lens + ROWS - 1) // ROWS
    order = torch.sort(lens, descending=True, stable=True).indices
    nb = blocks[order]
    ends = nb.cumsum(0)
    n = -(-total_q // ROWS) + b
    i = torch.arange(n, device=dev)
    j = torch.searchsorted(ends, i, right=True)
    live = j < b
    j = j.clamp(max=max(b - 1, 0))
    m = ends[j] - 1 - i  # the sequence's blocks from the last
    seq = torch.where(live, order[j], torch.full_like(i, -1))
    return torch.stack([seq, torch.where(live, m, torch.zeros_like(i))], 1).int()


def _schedule_kernels(bundle, cu_seqlens_q, total_q):
    """``schedule``'s rows from the bundle's two schedule kernels (two
    launches where the torch ops take about twenty)."""
    import torch

    b = cu_seqlens_q.shape[0] - 1
    dev = cu_seqlens_q.device
    start = torch.empty(b, device=dev, dtype=torch.int32)
    sched = torch.empty(-(-total_q // ROWS) + b, 2, device=dev, dtype=torch.int32)
    bundle["varlen_schedule_starts"](cu_seqlens_q, start)
    bundle["varlen_schedule"](cu_seqlens_q, start, sched)
    return sched


def _varlen(q, k, v, cu_q, cu_k, scale, causal, window_left=-1, window_right=-1,
            softcap=0.0, sinks=None):
    import torch

    total, hq, d = q.shape
    o = torch.empty_like(q)
    lse = torch.empty(hq, total, device=q.device, dtype=torch.float32)
    if cu_q.shape[0] < 2 or not total:
        return o, lse
    bundle = _bundle("varlen_attention", q.device)
    args = (q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), o.transpose(0, 1), lse,
            cu_q, cu_k, _schedule_kernels(bundle, cu_q, total), float(scale),
            int(bool(causal)))
    if window_left < 0 and window_right < 0 and softcap <= 0 and sinks is None:
        bundle["varlen_attention_d%d" % d](*args)
    else:  # the options' kernel (the common one's loop stays as it is)
        table = sinks if sinks is not None else lse.new_zeros(1)
        bundle["varlen_attention_opts_d%d" % d](*args, int(window_left), int(window_right),
                                               float(softcap), table, int(sinks is not None))
    return o, lse


# (Registered once: torch refuses a second operator of the name.)
@once
def _register():
    import torch

    @torch.library.custom_op("tilec::varlen_attention", mutates_args=(), device_types="cuda")
    def varlen_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                  cu_seqlens_k: torch.Tensor, max_seqlen_q: int, scale: float, causal: bool,
                  window_left: int = -1, window_right: int = -1, softcap: float = 0.0,
                  sinks: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        return _varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, scale, causal, window_left,
                       window_right, softcap, sinks)

    @varlen_op.register_fake
    def _(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, scale, causal, window_left=-1,
          window_right=-1, softcap=0.0, sinks=None):
        return (torch.empty_like(q),
                q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32))

    return varlen_op


def varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k=None,
                     scale=None, causal=False, return_lse=False, window_size=(-1, -1),
                     softcap=0.0, sinks=None):
    """softmax(q kᵀ · scale) v for each packed sequence (see the module).
    max_seqlen_q and max_seqlen_k are accepted for flash_attn_varlen_func's
    signature; the schedule comes from the lengths on the GPU. Returns o
    (total_q, Hq, D) bf16, and with return_lse=True also the LSE (Hq,
    total_q) f32. FlashAttention's options: window_size (left, right) (query
    i sees keys i + Lk - Lq - left .. i + Lk - Lq + right; -1 for no bound),
    softcap (> 0: scores softcap · tanh(s · scale / softcap)), and sinks, a
    (Hq,) float32 tensor of per-head logits added to each row's softmax
    denominator (attention sinks)."""
    _check(q, k, v, cu_seqlens_q, cu_seqlens_k)
    if len(window_size) != 2:
        raise TilecError("tilec.ops.varlen_attention: window_size must be (left, right)",
                         INVALID_ARGUMENT)
    if sinks is not None:
        import torch
        if (sinks.dim() != 1 or sinks.shape[0] != q.shape[1] or sinks.dtype != torch.float32
                or sinks.device != q.device):
            raise TilecError("tilec.ops.varlen_attention: sinks must be a (Hq,) float32 tensor "
                             "on q's device", INVALID_ARGUMENT)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    o, lse = _register()(q, k, v, cu_seqlens_q, cu_seqlens_k, int(max_seqlen_q),
                         float(scale), bool(causal), int(window_size[0]),
                         int(window_size[1]), float(softcap), sinks)
    return (o, lse) if return_lse else o
