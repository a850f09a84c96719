"""Attention with its backward, as PyTorch operators: tilec.ops.attention.

    import tilec.ops
    o = tilec.ops.attention(q, k, v, causal=True)      # q: (B, Hq, S, D)
    o.float().sum().backward()                          # dq, dk, dv

q is (B, Hq, S, D), k and v (B, Hkv, Skv, D) with Hq a multiple of Hkv
(GQA; Hkv = 1 is MQA), as torch's scaled_dot_product_attention takes them;
(B, S, H, D) tensors pass as t.transpose(1, 2) without a copy. bf16, head
dims 64, 128 and 256, any lengths. `scale` defaults to 1/sqrt(D); causal
is top-left aligned (query i sees keys 0..i). The forward is
examples/attention.mlir's kernel, the backward examples/attention_bwd.mlir's
three (Delta and the f32 dQ accumulator, dK/dV with dQ added in f32, dQ
converted); both are torch.library custom ops (tilec::attention_fwd,
tilec::attention_bwd) with fake implementations, so they trace under
torch.compile(fullgraph=True) and launch without host synchronization
(CUDA graphs). The kernels are compiled on first use through
tilec.compile's cache (or loaded already built): see _bundle.
"""

import math
import os
import pathlib
import threading

from ._lib import INVALID_ARGUMENT, NOT_FOUND, TilecError, once

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
HEAD_DIMS = (64, 128, 256)
_LOG2E = 1.4426950408889634

_bundles = {}
_lock = threading.Lock()


def _kernel_dirs():
    env = os.environ.get("TILEC_KERNELS_DIR")
    repo = _PACKAGE_DIR.parent.parent
    return ([pathlib.Path(env)] if env else []) + [
        _PACKAGE_DIR / "kernels", repo / "build" / "examples", repo / "examples"]


def _bundle(stem, device):
    """The bundle of the tile program `stem` (attention, attention_bwd) for
    `device`'s arch: the first directory of $TILEC_KERNELS_DIR, the
    package's kernels/, the repository's build/examples/ and examples/ that
    holds it built for that arch (STEM.tlc for sm_90a, STEM_sm100a.tlc) or
    as source (STEM.mlir, compiled through tilec.compile's cache)."""
    import torch

    from .compile import compile as tilec_compile
    from .runtime import load

    major, minor = torch.cuda.get_device_capability(device)
    arch = {9: "sm_90a", 10: "sm_100a"}.get(major)
    if arch is None:
        raise TilecError("tilec.ops.attention: needs an sm_90 or sm_100 GPU, found compute "
                         "capability %d.%d" % (major, minor), INVALID_ARGUMENT)
    key = (stem, arch)
    with _lock:
        if key in _bundles:
            return _bundles[key]
        built = stem + ("_sm100a" if arch == "sm_100a" else "") + ".tlc"
        for d in _kernel_dirs():
            if (d / built).is_file():
                bundle = load(str(d / built))
                if bundle.arch == arch:
                    break
            if (d / (stem + ".mlir")).is_file():
                bundle = tilec_compile(d / (stem + ".mlir"), arch=arch)
                break
        else:
            raise TilecError("tilec.ops.attention: neither %s nor %s.mlir in %s (set "
                             "TILEC_KERNELS_DIR)" % (built, stem, ", ".join(
                                 str(d) for d in _kernel_dirs())), NOT_FOUND)
        _bundles[key] = bundle
        return bundle


def _check(q, k, v, op="attention", dtype=None):
    """q, k, v as tilec.ops.`op` takes them: 4-d of `dtype` (bfloat16 by
    default), on one CUDA device, a head dim of HEAD_DIMS, k and v alike,
    Hq a multiple of Hkv."""
    import torch

    dtype = dtype or torch.bfloat16

    def bad(what):
        return TilecError("tilec.ops.%s: %s" % (op, what), INVALID_ARGUMENT)

    named = (("q", q), ("k", k), ("v", v))
    for name, t in named:
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise bad("%s must be 4-d (B, H, S, D), got %s" % (
                name, "%d dims" % t.dim() if isinstance(t, torch.Tensor) else type(t).__name__))
    for name, t in named:
        if t.dtype != dtype:
            raise bad("%s must be %s, got %s" % (name, str(dtype).replace("torch.", ""),
                                                 t.dtype))
    for name, t in named:
        if t.device.type != "cuda":
            raise bad("%s must be a CUDA tensor, got %s" % (name, t.device))
    b, hq, _, d = q.shape
    if d not in HEAD_DIMS:
        raise bad("head dim %d is not one of %s" % (d, HEAD_DIMS))
    if k.shape != v.shape or k.shape[0] != b or k.shape[3] != d:
        raise bad("k and v must be (B, Hkv, Skv, %d) with B = %d, got %s and %s"
                  % (d, b, tuple(k.shape), tuple(v.shape)))
    if k.shape[1] == 0 or hq % k.shape[1]:
        raise bad("the query heads (%d) must be a multiple of the K/V heads (%d)"
                  % (hq, k.shape[1]))
    if not (q.device == k.device == v.device):
        raise bad("q, k and v must be on one device")


def _unit_last(t):
    """t itself where its last dim is contiguous and no dim is broadcast
    (the kernels read any other strides), else a contiguous copy."""
    if t.stride(-1) == 1 and all(s for s, n in zip(t.stride(), t.shape) if n > 1):
        return t
    return t.contiguous()


def _forward(q, k, v, causal, scale):
    import torch

    d = q.shape[-1]
    o = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
    if q.numel() and k.shape[2]:
        fwd = _bundle("attention", q.device)["attention_d%d" % d]
        fwd(_unit_last(q), _unit_last(k), _unit_last(v), o, lse, scale, int(causal))
    elif q.numel():  # no keys: softmax over nothing
        o.zero_()
        lse.fill_(float("-inf"))
    return o, lse


def _backward(q, k, v, o, lse, do, causal, scale, deterministic=False):
    import torch

    d = q.shape[-1]
    dq = torch.empty_like(q)
    dk = torch.empty_like(k)
    dv = torch.empty_like(v)
    if not (q.numel() and k.shape[2]):
        dq.zero_()
        dk.zero_()
        dv.zero_()
        return dq, dk, dv
    bwd = _bundle("attention_bwd", q.device)
    q, k, v, o, do = (_unit_last(t) for t in (q, k, v, o, do))
    # Rows of S f32 values 16-byte aligned (S padded to a multiple of 4):
    # the main kernel's TMA copies of LSE and Delta need it, else the
    # runtime launches its plain twin.
    s = lse.shape[-1]
    padded = (s + 3) // 4 * 4
    delta = torch.empty(*lse.shape[:-1], padded, device=lse.device)[..., :s]
    lse2 = torch.empty(*lse.shape[:-1], padded, device=lse.device)[..., :s]
    dqacc = torch.empty(q.shape, device=q.device, dtype=torch.float32)
    bwd["attention_bwd_pre_d%d" % d](o, do, lse, delta, lse2, dqacc)
    if deterministic:
        # A counter a (batch, head, block of 64 queries), zero at launch,
        # orders the dQ adds (docs/ATTENTION.md); the kernel leaves it zero.
        sem = torch.zeros(q.shape[0], q.shape[1], (s + 63) // 64, device=q.device,
                          dtype=torch.int32)
        bwd["attention_bwd_det_d%d" % d](q, k, v, do, lse2, delta, dqacc, dk, dv, scale,
                                         int(causal), sem)
    else:
        bwd["attention_bwd_d%d" % d](q, k, v, do, lse2, delta, dqacc, dk, dv, scale,
                                     int(causal))
    bwd["attention_bwd_post_d%d" % d](dqacc, dq, scale)
    return dq, dk, dv


@once
def _register():
    """Registers tilec::attention_fwd and tilec::attention_bwd (once: torch
    refuses a second operator of the name)."""
    import torch

    @torch.library.custom_op("tilec::attention_fwd", mutates_args=(), device_types="cuda")
    def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                      scale: float, deterministic: bool = False
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        # (deterministic is the backward's: the forward is either way.)
        return _forward(q, k, v, causal, scale)

    @attention_fwd.register_fake
    def _(q, k, v, causal, scale, deterministic=False):
        return torch.empty_like(q), q.new_empty(q.shape[:3], dtype=torch.float32)

    @torch.library.custom_op("tilec::attention_bwd", mutates_args=(), device_types="cuda")
    def attention_bwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                      lse: torch.Tensor, do: torch.Tensor, causal: bool, scale: float,
                      deterministic: bool = False
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _backward(q, k, v, o, lse, do, causal, scale, deterministic)

    @attention_bwd.register_fake
    def _(q, k, v, o, lse, do, causal, scale, deterministic=False):
        return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)

    def setup_context(ctx, inputs, output):
        q, k, v, causal, scale, *rest = inputs
        deterministic = bool(rest and rest[0])
        o, lse = output
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal = causal
        ctx.scale = scale
        ctx.deterministic = deterministic
        ctx.mark_non_differentiable(lse)

    def backward(ctx, do, dlse):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = attention_bwd(q, k, v, o, lse, do, ctx.causal, ctx.scale,
                                   ctx.deterministic)
        return dq, dk, dv, None, None, None

    attention_fwd.register_autograd(backward, setup_context=setup_context)
    return attention_fwd, attention_bwd


def attention(q, k, v, causal=False, scale=None, return_lse=False, deterministic=False):
    """softmax(q kᵀ · scale [+ causal mask]) v, differentiable in q, k, v.
    Returns o (B, Hq, S, D) bf16, and with return_lse=True also the row
    log-sum-exp (B, Hq, S) f32 (natural log). With deterministic=True the
    backward adds each block of dQ in a fixed order (bit-identical
    gradients from run to run, a little slower)."""
    _check(q, k, v)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    fwd, _ = _register()
    o, lse = fwd(q, k, v, bool(causal), float(scale), bool(deterministic))
    return (o, lse) if return_lse else o
