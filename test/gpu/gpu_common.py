"""Shared by the GPU tests: skips the importing module (visibly) without torch
or a CUDA GPU, and finds the bundles ($TILEC_BUNDLE_DIR, default
build/examples)."""

import math
import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU on this machine", allow_module_level=True)

import tilec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))
DEV = "cuda"


def load(name):
    """The bundle build/examples/<name>.tlc."""
    return tilec.load(os.path.join(BUNDLES, name + ".tlc"))


def rel_err(out, ref):
    """||out - ref|| / ||ref|| in float64 (||out - ref|| if ref is zero)."""
    out, ref = out.double(), ref.double()
    diff = (out - ref).norm().item()
    den = ref.norm().item()
    return diff / den if den else diff


def bias_relu_reference(a, b, bias):
    """float64 relu(A B + bias[col]), examples/gemm.mlir's result."""
    return torch.relu(a.double() @ b.double() + bias.double())


def blockwise_reference(a, sa, b, sb):
    """float64 block-scaled fp8 GEMM (examples/gemm_fp8_blockwise.mlir):
    each 128 of K its own dot, times a's row scales sa (M, ceil(K/128)) and
    b's block scales sb (ceil(N/128), ceil(K/128))."""
    m, k = a.shape
    n = b.shape[0]
    ref = torch.zeros(m, n, dtype=torch.float64, device=a.device)
    for j in range(-(-k // 128)):
        blk = a[:, j * 128:(j + 1) * 128].double() @ b[:, j * 128:(j + 1) * 128].double().T
        ref += blk * sa[:, j].double()[:, None] * sb[:, j].double().repeat_interleave(128)[None, :n]
    return ref


def attention_reference(q, k, v, scale, causal):
    """float64 O and LSE of (B, Hq, S, D) q and (B, Hkv, Skv, D) k, v."""
    group = q.shape[1] // k.shape[1]
    kd = k.double().repeat_interleave(group, 1)
    vd = v.double().repeat_interleave(group, 1)
    sc = q.double() @ kd.transpose(-1, -2) * scale
    if causal:
        s, skv = q.shape[2], k.shape[2]
        keep = torch.ones(s, skv, dtype=torch.bool, device=q.device).tril()
        sc = sc.masked_fill(~keep, float("-inf"))
    return torch.softmax(sc, dim=-1) @ vd, torch.logsumexp(sc, dim=-1)


def dkdv_case(kernel, b, h, s, d=64):
    """Runs `kernel` (q, k, v, do, lse, delta, dk, dv, scale), the dK and dV
    of softmax(Q Kᵀ scale) V for a key block loop, on fresh (b, h, s, d)
    inputs with LSE and Delta from the float64 forward and NaN-poisoned
    outputs; returns dK, dV and their float64 references."""
    q, k, v, do = [torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
                   for _ in range(4)]
    scale = d ** -0.5
    sc = q.double() @ k.double().transpose(-1, -2) * scale
    lse = torch.logsumexp(sc, -1)
    p = torch.exp(sc - lse[..., None])
    delta = (do.double() * (p @ v.double())).sum(-1)
    dv_ref = p.transpose(-1, -2) @ do.double()
    ds = p * (do.double() @ v.double().transpose(-1, -2) - delta[..., None])
    dk_ref = ds.transpose(-1, -2) @ q.double() * scale
    dk = torch.full_like(q, float("nan"))
    dv = torch.full_like(q, float("nan"))
    kernel(q, k, v, do, lse.float(), delta.float(), dk, dv, scale)
    torch.cuda.synchronize()
    return dk, dv, dk_ref, dv_ref


def attention_twin_case(bundle, d, causal, unaligned):
    """`bundle`'s attention_d{d} on views TMA cannot read: rows d + 1
    elements apart (not a multiple of 16 bytes) for K and V
    (`unaligned` "kv") or Q ("q"), B 1, H 3, S 200, outputs NaN-poisoned.
    Checks that the runtime launches the plain twin; returns O, LSE and
    their float64 references."""
    b, h, s = 1, 3, 200

    def make(bad):
        return torch.randn(b, h, s, d + int(bad), device=DEV,
                           dtype=torch.bfloat16)[..., :d]
    q = make(unaligned == "q")
    k, v = make(unaligned == "kv"), make(unaligned == "kv")
    o = torch.full((b, h, s, d), float("nan"), device=DEV, dtype=torch.bfloat16)
    lse = torch.full((b, h, s), float("nan"), device=DEV, dtype=torch.float32)
    scale = 1.0 / math.sqrt(d)
    kern = load(bundle)["attention_d%d" % d]
    assert kern.choose(q, k, v, o, lse, scale, int(causal)) == \
        "attention_d%d__plain" % d
    kern(q, k, v, o, lse, scale, int(causal))
    torch.cuda.synchronize()
    return (o, lse) + attention_reference(q, k, v, scale, causal)


def check_attention(out, lse, ref, ref_lse):
    """An attention output against float64: no NaN (every row written),
    relative error under 1e-2, the LSE finite exactly where the reference's
    is and within 1e-3 there."""
    assert not out.isnan().any(), "NaN in the output (a row not written)"
    assert rel_err(out, ref) < 1e-2
    finite = ref_lse.isfinite()
    assert torch.equal(lse.isfinite(), finite), "LSE finite where the reference is not"
    if finite.any():
        assert (lse[finite].double() - ref_lse[finite]).abs().max().item() < 1e-3
