"""FP8 attention forward as a PyTorch operator: tilec.ops.attention_fp8
(FlashAttention-3's recipe).

    import tilec.ops
    o = tilec.ops.attention_fp8(q, k, v, q_descale, k_descale, v_descale,
                                causal=True)            # o: (B, Hq, S, D) bf16

q is (B, Hq, S, D), k and v (B, Hkv, Skv, D), all float8_e4m3fn, with Hq a
multiple of Hkv (GQA); head dims 64, 128 and 256, any lengths. The
descales are float32 per (batch, head), the factors the quantization
divided by: q_descale (B, Hq) or (B, Hkv) (FlashAttention-3's shape: a KV
head's factor for its query heads), k_descale and v_descale (B, Hkv);
None is 1. Computes softmax(q kᵀ · scale · dq · dk) v · dv in f32 from the
e4m3 values, with P cast to e4m3 for P·V (exp2 taken 8 above the row's
maximum, so P uses e4m3's range up to 256); `scale` defaults to 1/sqrt(D);
causal is top-left aligned. return_lse=True also returns the f32
log-sum-exp (B, Hq, S) of the scaled scores.

fp8 wgmma reads K-major operands only, so V is given to the kernel as Vᵀ
(B, Hkv, D, Skv') with Skv' Skv rounded up to 16: this op writes it first,
one pass over V (S·D bytes against S²·D FLOPs; transpose_v), with the keys
of each 16 in the order that lets P stay in registers as wgmma's A
(examples/attention_fp8.mlir explains it; key_order() gives it). (The
file's attention_fp8_vrow_d64/d128 take V as it comes, the load
partition's threads copying it K-major inside the kernel: the same
results, but a global round trip a block in its producer, about 0.65 of
the Vᵀ kernel's speed at D 128, so the op runs the Vᵀ kernels.) The
kernel is examples/attention_fp8.mlir's (sm_90a; the op refuses other
GPUs: on sm_100a its dots would run on mma.sync); the op is a
torch.library custom op (tilec::attention_fp8) with a fake implementation.
"""

import math

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle, _unit_last
from .attention import _check as _check_qkv

KEY_GROUP = 16  # Vᵀ's keys are renamed within groups of 16


def key_order():
    """The key of each position of a group of 16 in Vᵀ: position
    (k3 k2 k1 k0) holds key (k1 k3 k2 k0) (bits, high first), the order in
    which the accumulator of q·kᵀ holds P as fp8 wgmma's register A."""
    def bit(x, i):
        return (x >> i) & 1
    return [bit(p, 1) << 3 | bit(p, 3) << 2 | bit(p, 2) << 1 | bit(p, 0)
            for p in range(KEY_GROUP)]


def transpose_v(v):
    """Vᵀ as the kernel reads it: (B, H, D, Skv') float8_e4m3fn, Skv' =
    Skv rounded up to 16, keys in key_order() within each 16, zeros past
    Skv (examples/attention_fp8.mlir's transpose_v_fp8_d{D}, one pass)."""
    import torch

    b, h, s, d = v.shape
    padded = -(-s // KEY_GROUP) * KEY_GROUP
    vt = torch.empty(b, h, d, padded, device=v.device, dtype=torch.float8_e4m3fn)
    if vt.numel():
        _bundle("attention_fp8", v.device)["transpose_v_fp8_d%d" % d](_unit_last(v), vt)
    return vt


def _check(q, k, v, q_descale, k_descale, v_descale):
    import torch

    def bad(what):
        return TilecError("tilec.ops.attention_fp8: " + what, INVALID_ARGUMENT)

    _check_qkv(q, k, v, op="attention_fp8", dtype=torch.float8_e4m3fn)
    major, minor = torch.cuda.get_device_capability(q.device)
    if major != 9:
        # (sm_100a compiles the program with its dots on mma.sync: correct
        # in principle, slow, and not run here.)
        raise bad("runs on sm_90 (Hopper) GPUs only, found compute capability %d.%d"
                  % (major, minor))
    b, hq, hkv = q.shape[0], q.shape[1], k.shape[1]
    for name, t, shapes in (("q_descale", q_descale, ((b, hq), (b, hkv))),
                            ("k_descale", k_descale, ((b, hkv),)),
                            ("v_descale", v_descale, ((b, hkv),))):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor) or t.dtype != torch.float32 or \
                tuple(t.shape) not in shapes:
            raise bad("%s must be a float32 tensor of shape %s, got %s" % (
                name, " or ".join(str(s) for s in shapes),
                tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__))
        if t.device != q.device:
            raise bad("%s must be on q's device (%s), got %s" % (name, q.device, t.device))


def _descale(t, b, heads, device, group=1):
    """t as a contiguous (b, heads) f32 tensor: ones on `device` where None
    (made there: no host copy a call, which CUDA-graph capture refuses), a
    KV head's factor repeated for its `group` query heads where given per
    KV head (_check: on q's device)."""
    import torch

    if t is None:
        return torch.ones(b, heads, dtype=torch.float32, device=device)
    if t.shape[1] != heads:
        t = t.repeat_interleave(group, dim=1)
    return t.contiguous()


def _forward(q, k, v, q_descale, k_descale, v_descale, causal, scale):
    import torch

    b, hq, s, d = q.shape
    hkv = k.shape[1]
    o = torch.empty(q.shape, device=q.device, dtype=torch.bfloat16)
    lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
    if q.numel() and k.shape[2]:
        dq = _descale(q_descale, b, hq, q.device, hq // hkv)
        dk = _descale(k_descale, b, hkv, q.device)
        dv = _descale(v_descale, b, hkv, q.device)
        fwd = _bundle("attention_fp8", q.device)["attention_fp8_d%d" % d]
        fwd(_unit_last(q), _unit_last(k), transpose_v(v), o, lse, dq, dk, dv, scale,
            int(causal))
    elif q.numel():  # no keys: softmax over nothing
        o.zero_()
        lse.fill_(float("-inf"))
    return o, lse


@once
def _register():
    """Registers tilec::attention_fp8 (once: torch refuses a second operator
    of the name)."""
    import torch

    @torch.library.custom_op("tilec::attention_fp8", mutates_args=(), device_types="cuda")
    def attention_fp8_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                         q_descale: torch.Tensor | None, k_descale: torch.Tensor | None,
                         v_descale: torch.Tensor | None, causal: bool, scale: float
                         ) -> tuple[torch.Tensor, torch.Tensor]:
        return _forward(q, k, v, q_descale, k_descale, v_descale, causal, scale)

    @attention_fp8_op.register_fake
    def _(q, k, v, q_descale, k_descale, v_descale, causal, scale):
        return (q.new_empty(q.shape, dtype=torch.bfloat16),
                q.new_empty(q.shape[:3], dtype=torch.float32))

    return attention_fp8_op


def attention_fp8(q, k, v, q_descale=None, k_descale=None, v_descale=None, causal=False,
                  scale=None, return_lse=False):
    """softmax(q kᵀ · scale · descales) v in fp8 (see the module): q (B, Hq,
    S, D), k and v (B, Hkv, Skv, D) float8_e4m3fn; returns o (B, Hq, S, D)
    bfloat16, and the f32 LSE (B, Hq, S) with return_lse=True."""
    _check(q, k, v, q_descale, k_descale, v_descale)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    o, lse = _register()(q, k, v, q_descale, k_descale, v_descale, bool(causal), float(scale))
    return (o, lse) if return_lse else o
