"""GPU tests of attention's backward (examples/attention_bwd.mlir) and of
tilec.ops.attention, the differentiable operator built on it: dQ, dK and
dV against float64 autograd on fresh random inputs at lengths off the tile
grid, every head dim, causal and not, GQA/MQA, (B, H, S, D) and
(B, S, H, D) strides, every output and scratch buffer NaN-poisoned before
the kernels run; the deterministic kernels bit-identical from run to run;
the operator under torch.compile(fullgraph=True) and in a CUDA graph.
Skipped without a GPU."""

import math

import pytest

from gpu_common import DEV, attention_reference, load, rel_err, torch

import tilec.ops


@pytest.fixture(scope="module")
def fwd():
    return load("attention")


@pytest.fixture(scope="module")
def bwd():
    return load("attention_bwd")


def make(b, h, s, d, layout):
    """A fresh random (B, H, S, D) bf16 tensor, stored (B, S, H, D) for
    layout "bshd" (passed as a transposed view)."""
    if layout == "bshd":
        return torch.randn(b, s, h, d, device=DEV, dtype=torch.bfloat16).transpose(1, 2)
    return torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)


def reference_grads(q, k, v, do, scale, causal):
    """float64 dQ, dK, dV of attention_reference at (q, k, v) against do."""
    qd, kd, vd = (t.detach().double().requires_grad_() for t in (q, k, v))
    o, _ = attention_reference(qd, kd, vd, scale, causal)
    o.backward(do.double())
    return qd.grad, kd.grad, vd.grad


def poisoned(t, dtype=None):
    return torch.full_like(t, float("nan"), dtype=dtype or t.dtype)


def run_backward(fwd, bwd, q, k, v, do, scale, causal, deterministic=False, o=None, lse=None):
    """The three kernels by hand, every buffer they write poisoned (the
    forward's o and lse computed here unless given)."""
    d = q.shape[-1]
    if o is None:
        o = poisoned(q)
        lse = torch.full(q.shape[:3], float("nan"), device=DEV)
        fwd["attention_d%d" % d](q, k, v, o, lse, scale, int(causal))
    delta, lse2 = poisoned(lse), poisoned(lse)
    dqacc = torch.full(q.shape, float("nan"), device=DEV)
    dq, dk, dv = poisoned(q), poisoned(k), poisoned(v)
    bwd["attention_bwd_pre_d%d" % d](o, do, lse, delta, lse2, dqacc)
    args = (q, k, v, do, lse2, delta, dqacc, dk, dv, scale, int(causal))
    if deterministic:  # its counters, one a block of 64 queries, zero
        sem = torch.zeros(q.shape[0], q.shape[1], (q.shape[2] + 63) // 64, device=DEV,
                          dtype=torch.int32)
        bwd["attention_bwd_det_d%d" % d](*args, sem)
    else:
        bwd["attention_bwd_d%d" % d](*args)
    bwd["attention_bwd_post_d%d" % d](dqacc, dq, scale)
    torch.cuda.synchronize()
    if deterministic:  # (the last add of each block of dQ sets its counter back to zero)
        assert not sem.any(), "deterministic counters left non-zero"
    return dq, dk, dv


def check(grads, refs, tol=2e-2):
    for name, g, r in zip(("dq", "dk", "dv"), grads, refs):
        assert not torch.isnan(g).any(), name + " has NaNs (a block left unwritten)"
        err = rel_err(g, r)
        assert err < tol, "%s: relative error %.3g" % (name, err)


@pytest.mark.parametrize("s", [1, 77, 1000, 4097])
@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
@pytest.mark.parametrize("heads", [(3, 3), (4, 2), (4, 1)], ids=["mha", "gqa", "mqa"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_backward(fwd, bwd, d, causal, heads, layout, s):
    if s == 4097 and (heads != (4, 2) or layout != "bshd"):
        pytest.skip("the longest length runs once a head dim and mask")
    hq, hkv = heads
    b = 2 if s < 4097 else 1
    q = make(b, hq, s, d, layout)
    k, v = make(b, hkv, s, d, layout), make(b, hkv, s, d, layout)
    do = make(b, hq, s, d, layout)
    scale = 1.0 / math.sqrt(d)
    grads = run_backward(fwd, bwd, q, k, v, do, scale, causal)
    check(grads, reference_grads(q, k, v, do, scale, causal))


@pytest.mark.parametrize("sq,skv", [(300, 1000), (1000, 77), (64, 65)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_backward_lengths_differ(fwd, bwd, d, causal, sq, skv):
    q, do = make(2, 4, sq, d, "bhsd"), make(2, 4, sq, d, "bhsd")
    k, v = make(2, 2, skv, d, "bhsd"), make(2, 2, skv, d, "bhsd")
    scale = 0.3
    grads = run_backward(fwd, bwd, q, k, v, do, scale, causal)
    check(grads, reference_grads(q, k, v, do, scale, causal))


@pytest.mark.parametrize("s", [77, 1000, 4097])
@pytest.mark.parametrize("heads", [(4, 4), (4, 1)], ids=["mha", "mqa"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_deterministic(fwd, bwd, d, causal, heads, s):
    # dQ's adds in a fixed order: right, and bit-identical over 10 runs on
    # the same inputs (every buffer poisoned each run).
    hq, hkv = heads
    b = 2 if s < 4097 else 1
    q = make(b, hq, s, d, "bshd")
    k, v = make(b, hkv, s, d, "bshd"), make(b, hkv, s, d, "bshd")
    do = make(b, hq, s, d, "bshd")
    scale = 1.0 / math.sqrt(d)
    o = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], device=DEV)
    fwd["attention_d%d" % d](q, k, v, o, lse, scale, int(causal))
    first = run_backward(fwd, bwd, q, k, v, do, scale, causal, True, o, lse)
    check(first, reference_grads(q, k, v, do, scale, causal))
    for run in range(9):
        again = run_backward(fwd, bwd, q, k, v, do, scale, causal, True, o, lse)
        for name, a, g in zip(("dq", "dk", "dv"), first, again):
            assert torch.equal(a, g), "%s differs in run %d" % (name, run + 2)


@pytest.mark.parametrize("d,causal", [(64, False), (128, True), (256, False)])
def test_op_autograd(d, causal):
    q = make(2, 4, 333, d, "bshd").requires_grad_()
    k = make(2, 2, 333, d, "bshd").requires_grad_()
    v = make(2, 2, 333, d, "bshd").requires_grad_()
    do = make(2, 4, 333, d, "bhsd")
    o, lse = tilec.ops.attention(q, k, v, causal=causal, return_lse=True)
    o_ref, lse_ref = attention_reference(q, k, v, 1 / math.sqrt(d), causal)
    assert rel_err(o, o_ref) < 2e-2
    assert rel_err(lse, lse_ref) < 1e-3
    o.backward(do)
    check((q.grad, k.grad, v.grad),
          reference_grads(q, k, v, do, 1 / math.sqrt(d), causal))


def test_op_deterministic():
    # tilec.ops.attention(deterministic=True): the same gradients, bit for
    # bit, from every backward on the same inputs, and right.
    q = make(2, 4, 333, 128, "bshd").requires_grad_()
    k = make(2, 2, 333, 128, "bshd").requires_grad_()
    v = make(2, 2, 333, 128, "bshd").requires_grad_()
    do = make(2, 4, 333, 128, "bhsd")
    runs = []
    for _ in range(3):
        tilec.ops.attention(q, k, v, causal=True, deterministic=True).backward(do)
        runs.append((q.grad, k.grad, v.grad))
        q.grad = k.grad = v.grad = None
    for again in runs[1:]:
        for a, g in zip(runs[0], again):
            assert torch.equal(a, g)
    check(runs[0], reference_grads(q, k, v, do, 1 / math.sqrt(128), True))


def test_op_errors():
    q = torch.randn(1, 2, 10, 64, device=DEV, dtype=torch.bfloat16)
    with pytest.raises(tilec.TilecError, match="head dim 96"):
        tilec.ops.attention(q[..., :48].repeat(1, 1, 1, 2), q[..., :48].repeat(1, 1, 1, 2),
                            q[..., :48].repeat(1, 1, 1, 2))
    with pytest.raises(tilec.TilecError, match="bfloat16"):
        tilec.ops.attention(q.float(), q, q)
    with pytest.raises(tilec.TilecError, match="multiple of the K/V heads"):
        tilec.ops.attention(torch.cat([q, q[:, :1]], 1), q, q)


def test_op_compile_fullgraph():
    def step(q, k, v):
        o = tilec.ops.attention(q, k, v, causal=True)
        return (o.float() * o.float()).sum()

    compiled = torch.compile(step, fullgraph=True)
    q = make(1, 4, 200, 64, "bhsd").requires_grad_()
    k = make(1, 4, 200, 64, "bhsd").requires_grad_()
    v = make(1, 4, 200, 64, "bhsd").requires_grad_()
    compiled(q, k, v).backward()
    got = (q.grad, k.grad, v.grad)
    for t in (q, k, v):
        t.grad = None
    step(q, k, v).backward()
    for g, r in zip(got, (q.grad, k.grad, v.grad)):
        assert rel_err(g, r) < 1e-5


def test_op_cuda_graph():
    # Forward and backward captured once, replayed on new inputs: nothing
    # in the launch path synchronizes with the host or allocates outside
    # the graph's pool.
    shape = (2, 4, 300, 128)
    q, k, v, do = (torch.randn(shape, device=DEV, dtype=torch.bfloat16) for _ in range(4))
    static = [t.clone().requires_grad_() for t in (q, k, v)]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):  # warm-up: kernels compiled/loaded, autograd ready
            out = tilec.ops.attention(*static, causal=True)
            out.backward(do)
            for t in static:
                t.grad = None
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = tilec.ops.attention(*static, causal=True)
        out.backward(do)
    for _ in range(2):
        fresh = [torch.randn(shape, device=DEV, dtype=torch.bfloat16) for _ in range(3)]
        with torch.no_grad():
            for t, f in zip(static, fresh):
                t.copy_(f)
        graph.replay()
        torch.cuda.synchronize()
        check((static[0].grad, static[1].grad, static[2].grad),
              reference_grads(*fresh, do, 1 / math.sqrt(128), True))


@pytest.mark.parametrize("s", [77, 1000])
def test_op_takes_the_tma_kernel_at_ragged_lengths(bwd, s):
    # LSE and Delta rows of S f32 are not 16-byte aligned when S is not a
    # multiple of 4, and TMA copies them: the operator pads the rows (the
    # kernel sees a view of S), so the main kernel is the TMA one, not its
    # plain twin. Unpadded rows take the twin (test_backward runs both).
    import tilec.attention as ta

    q = make(1, 2, s, 64, "bhsd")
    k, v, do = q.clone(), q.clone(), q.clone()
    o, lse = ta._forward(q, k, v, False, 0.125)
    main = bwd["attention_bwd_d64"]
    padded = (s + 3) // 4 * 4
    delta = torch.empty(1, 2, padded, device=DEV)[..., :s]
    lse2 = torch.empty(1, 2, padded, device=DEV)[..., :s]
    dqacc = torch.empty(q.shape, device=DEV)
    args = (q, k, v, do, lse2, delta, dqacc, torch.empty_like(k), torch.empty_like(v), 0.125, 0)
    assert main.choose(*args) == "attention_bwd_d64"
    flat = (q, k, v, do, torch.empty(1, 2, s, device=DEV), torch.empty(1, 2, s, device=DEV),
            dqacc, torch.empty_like(k), torch.empty_like(v), 0.125, 0)
    expected = "attention_bwd_d64" if s % 4 == 0 else "attention_bwd_d64__plain"
    assert main.choose(*flat) == expected
    # And the operator's own result is right there.
    dq, dk, dv = ta._backward(q, k, v, o, lse, do, False, 0.125)
    check((dq, dk, dv), reference_grads(q, k, v, do, 0.125, False))
