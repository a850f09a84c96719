"""GPU tests of variable-length attention (examples/varlen_attention.mlir)
and tilec.ops.varlen_attention: against float64 at ragged lengths (0, 1,
15, 16, 17, 1000, 4097) packed in one tensor, causal (bottom-right when a
sequence has more keys than queries) and not, GQA, the output and LSE
NaN-poisoned (every row of every sequence written, no row of another),
the schedule (longest first, every block once), and the operator under
torch.compile and in a CUDA graph. Skipped without a GPU."""

import pytest

from gpu_common import DEV, check_attention, load, rel_err, torch

import tilec.ops
import tilec.varlen

LENS = (0, 1, 15, 16, 17, 1000, 4097)


@pytest.fixture(scope="module")
def bundle():
    return load("varlen_attention")


def packed(lens_q, lens_k, hq, hkv, d, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    tq, tk = sum(lens_q), sum(lens_k)
    q = torch.randn(tq, hq, d, generator=g).to(DEV, torch.bfloat16)
    k = torch.randn(tk, hkv, d, generator=g).to(DEV, torch.bfloat16)
    v = torch.randn(tk, hkv, d, generator=g).to(DEV, torch.bfloat16)
    cu = lambda ls: torch.tensor([0] + list(torch.tensor(ls).cumsum(0).tolist()),
                                 dtype=torch.int32, device=DEV)
    return q, k, v, cu(lens_q), cu(lens_k)


def reference(q, k, v, lens_q, lens_k, scale, causal, wl=-1, wr=-1, softcap=0.0, sinks=None):
    """float64 O (total_q, Hq, D) and LSE (Hq, total_q), with a window (wl,
    wr; -1: none), a softcap (0: none) and per-head sinks (logits in the
    denominator only; None: none)."""
    tq, hq, d = q.shape
    g = hq // k.shape[1]
    out = torch.zeros(tq, hq, d, dtype=torch.float64, device=DEV)
    lse = torch.full((hq, tq), float("-inf"), dtype=torch.float64, device=DEV)
    q0 = k0 = 0
    for lq, lk in zip(lens_q, lens_k):
        if lq:
            qs = q[q0:q0 + lq].double().transpose(0, 1)
            ks = k[k0:k0 + lk].double().repeat_interleave(g, 1).transpose(0, 1)
            vs = v[k0:k0 + lk].double().repeat_interleave(g, 1).transpose(0, 1)
            s = qs @ ks.transpose(-1, -2) * scale
            if softcap > 0:
                s = softcap * torch.tanh(s / softcap)
            i = torch.arange(lq, device=DEV)[:, None] + lk - lq
            j = torch.arange(lk, device=DEV)[None, :]
            bad = torch.zeros(lq, lk, dtype=torch.bool, device=DEV)
            if causal:
                bad |= j > i
            if wr >= 0:
                bad |= j > i + wr
            if wl >= 0:
                bad |= j < i - wl
            s = s.masked_fill(bad, float("-inf"))
            if sinks is not None:
                sk = sinks.double()[:, None, None].expand(hq, lq, 1)
                s = torch.cat([s, sk], -1)
            l = torch.logsumexp(s, -1)
            p = torch.exp(s - l[..., None]).nan_to_num(0.0)
            if sinks is not None:
                p = p[..., :-1]
            out[q0:q0 + lq] = (p @ vs).transpose(0, 1)
            lse[:, q0:q0 + lq] = l
        q0, k0 = q0 + lq, k0 + lk
    return out, lse


check = check_attention


def run_kernel(bundle, q, k, v, cu_q, cu_k, scale, causal):
    """The kernel by hand, O and LSE NaN-poisoned."""
    o = torch.full_like(q, float("nan"))
    lse = torch.full((q.shape[1], q.shape[0]), float("nan"), device=DEV)
    sched = tilec.varlen.schedule(cu_q, q.shape[0])
    bundle["varlen_attention_d%d" % q.shape[2]](
        q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), o.transpose(0, 1), lse,
        cu_q, cu_k, sched, scale, int(causal))
    torch.cuda.synchronize()
    return o, lse


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("hq,hkv,d", [(4, 4, 128), (8, 2, 128), (8, 2, 64), (4, 2, 256)])
def test_varlen(bundle, causal, hq, hkv, d):
    lens = list(LENS)
    q, k, v, cu_q, cu_k = packed(lens, lens, hq, hkv, d, seed=hq + causal)
    scale = d ** -0.5
    out, lse = run_kernel(bundle, q, k, v, cu_q, cu_k, scale, causal)
    check(out, lse, *reference(q, k, v, lens, lens, scale, causal))


@pytest.mark.parametrize("causal", [False, True])
def test_varlen_more_keys_than_queries(bundle, causal):
    """Chunked prefill / prefix caching: Lk >= Lq (bottom-right causal), and
    a sequence whose queries see no key when Lk < Lq."""
    d, hq, hkv = 128, 8, 4
    lens_q = [1, 17, 300, 129, 5, 0]
    lens_k = [700, 17, 1000, 64, 2, 9]
    q, k, v, cu_q, cu_k = packed(lens_q, lens_k, hq, hkv, d, seed=7)
    scale = d ** -0.5
    out, lse = run_kernel(bundle, q, k, v, cu_q, cu_k, scale, causal)
    check(out, lse, *reference(q, k, v, lens_q, lens_k, scale, causal))


def test_dynamic_tiles_leave_the_counter_zero(bundle):
    """The kernel's programs take tiles from a counter in its semaphores
    (tile.tile_scheduler = dynamic), which each launch must leave zero:
    three launches queued back to back on one stream (more tiles than
    programs, so programs claim; the second and third would skip tiles if
    the one before left the counter non-zero), one on another stream (its
    own semaphores), and one given a grid wider than the tiles (programs
    past the last tile take none), each output poisoned and checked."""
    d, hq, hkv = 128, 8, 2
    lens = list(LENS) * 2
    q, k, v, cu_q, cu_k = packed(lens, lens, hq, hkv, d, seed=11)
    scale = d ** -0.5
    sched = tilec.varlen.schedule(cu_q, q.shape[0])
    tiles = sched.shape[0] * hq
    assert tiles > torch.cuda.get_device_properties(DEV).multi_processor_count
    ref = reference(q, k, v, lens, lens, scale, True)

    def launch(grid=None):
        o = torch.full_like(q, float("nan"))
        lse = torch.full((hq, q.shape[0]), float("nan"), device=DEV)
        bundle["varlen_attention_d128"](
            q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), o.transpose(0, 1), lse,
            cu_q, cu_k, sched, scale, 1, grid=grid)
        return o, lse
    outs = [launch() for _ in range(3)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        outs.append(launch())
    torch.cuda.current_stream().wait_stream(side)
    outs.append(launch(grid=tiles + 5))
    outs.append(launch())
    torch.cuda.synchronize()
    for out, lse in outs:
        check(out, lse, *ref)


@pytest.mark.parametrize("d", [64, 128, 256])
def test_op(bundle, d):
    hq, hkv = 16, 4
    lens = [33, 1000, 1, 257]
    q, k, v, cu_q, cu_k = packed(lens, lens, hq, hkv, d, seed=3)
    out, lse = tilec.ops.varlen_attention(q, k, v, cu_q, cu_k, max(lens), max(lens),
                                          causal=True, return_lse=True)
    check(out, lse, *reference(q, k, v, lens, lens, d ** -0.5, True))


def test_op_errors():
    q = torch.randn(10, 8, 128, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(10, 2, 128, device=DEV, dtype=torch.bfloat16)
    cu = torch.tensor([0, 4, 10], dtype=torch.int32, device=DEV)
    with pytest.raises(tilec.TilecError, match="head dim"):
        tilec.ops.varlen_attention(q[..., :96], k[..., :96], k[..., :96], cu, cu, 6)
    with pytest.raises(tilec.TilecError, match="multiple of the K/V heads"):
        tilec.ops.varlen_attention(q[:, :7], k, k, cu, cu, 6)
    with pytest.raises(tilec.TilecError, match="int32"):
        tilec.ops.varlen_attention(q, k, k, cu.long(), cu, 6)
    with pytest.raises(tilec.TilecError, match="B \\+ 1 entries"):
        tilec.ops.varlen_attention(q, k, k, cu, cu[:2], 6)


def test_op_compile_and_graph():
    d, hq, hkv = 128, 8, 2
    lens = [100, 2000, 7]
    q, k, v, cu_q, cu_k = packed(lens, lens, hq, hkv, d, seed=5)
    ref, _ = reference(q, k, v, lens, lens, d ** -0.5, True)
    f = torch.compile(lambda *a: tilec.ops.varlen_attention(*a, causal=True), fullgraph=True)
    assert rel_err(f(q, k, v, cu_q, cu_k, 2000), ref) < 1e-2
    static = tilec.ops.varlen_attention(q, k, v, cu_q, cu_k, 2000, causal=True)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static = tilec.ops.varlen_attention(q, k, v, cu_q, cu_k, 2000, causal=True)
    q.copy_(torch.randn_like(q))
    graph.replay()
    torch.cuda.synchronize()
    ref2, _ = reference(q, k, v, lens, lens, d ** -0.5, True)
    assert rel_err(static, ref2) < 1e-2


def test_schedule_takes_every_block_once_longest_first():
    lens = [0, 300, 1, 4097, 128, 129]
    cu = torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32,
                      device=DEV)
    sched = tilec.varlen.schedule(cu, sum(lens)).tolist()
    assert len(sched) == -(-sum(lens) // 128) + len(lens)
    live = [(b, m) for b, m in sched if b >= 0]
    want = sorted((b, m) for b, n in enumerate(lens) for m in range(-(-n // 128)))
    assert sorted(live) == want
    assert live == sorted(live, key=lambda bm: (-lens[bm[0]], bm[0], -bm[1]))
    assert all(bm == [-1, 0] for bm in sched[len(live):])


@pytest.mark.parametrize("nseq,top,seed", [(1, 5000, 0), (6, 9000, 1), (129, 300, 2),
                                            (300, 128, 3), (1000, 2000, 4)])
def test_schedule_kernels_match_the_torch_schedule(nseq, top, seed):
    # The operator's two schedule kernels give the torch ops' rows: lengths
    # with zeros and ties (a stable order), sequence counts past one chunk
    # of 128, output poisoned.
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(0, top + 1, (nseq,), generator=g)
    lens[torch.randint(0, nseq, (max(1, nseq // 5),), generator=g)] = 0
    lens[torch.randint(0, nseq, (max(1, nseq // 5),), generator=g)] = top // 2
    cu = torch.tensor([0] + lens.cumsum(0).tolist(), dtype=torch.int32, device=DEV)
    total = int(lens.sum())
    bundle = load("varlen_attention")
    start = torch.full((nseq,), -7, dtype=torch.int32, device=DEV)
    sched = torch.full((-(-total // 128) + nseq, 2), -7, dtype=torch.int32, device=DEV)
    bundle["varlen_schedule_starts"](cu, start)
    bundle["varlen_schedule"](cu, start, sched)
    want = tilec.varlen.schedule(cu, total)
    assert torch.equal(sched, want)
    assert torch.equal(tilec.varlen._schedule_kernels(bundle, cu, total), want)


@pytest.mark.parametrize("causal,wl,wr,softcap,with_sinks,d", [
    (False, 100, 50, 0.0, False, 128), (True, 300, -1, 0.0, False, 128),
    (False, -1, 0, 0.0, False, 128), (False, -1, -1, 30.0, False, 128),
    (True, -1, -1, 0.0, True, 128), (True, 200, -1, 20.0, True, 128),
    (False, 0, 0, 0.0, True, 128), (True, 200, -1, 20.0, True, 64),
    (False, 100, 50, 30.0, True, 256)])
def test_varlen_options(causal, wl, wr, softcap, with_sinks, d):
    # Window, softcap and sinks (the options' kernel), against float64 at
    # ragged lengths, Lk != Lq, GQA, through the operator; head dims 64 and
    # 256 too.
    hq, hkv = 8, 2
    lens_q = [0, 1, 17, 1000, 300, 4097]
    lens_k = [5, 1, 40, 1000, 700, 4097]
    q, k, v, cu_q, cu_k = packed(lens_q, lens_k, hq, hkv, d, seed=wl + wr + int(softcap))
    sinks = (torch.randn(hq, device=DEV) * 2) if with_sinks else None
    scale = 0.09
    o, lse = tilec.ops.varlen_attention(q, k, v, cu_q, cu_k, max(lens_q), scale=scale,
                                        causal=causal, return_lse=True, window_size=(wl, wr),
                                        softcap=softcap, sinks=sinks)
    ref, ref_lse = reference(q, k, v, lens_q, lens_k, scale, causal, wl, wr, softcap, sinks)
    check(o, lse, ref, ref_lse)


def test_bad_options_are_refused():
    q, k, v, cu_q, cu_k = packed([4, 6], [4, 6], 4, 4, 128, seed=3)
    for kwargs, message in (({"window_size": (1, 2, 3)}, "window_size must be"),
                            ({"sinks": torch.zeros(3, device=DEV)}, "sinks must be"),
                            ({"sinks": torch.zeros(4, device=DEV).double()}, "sinks must be")):
        with pytest.raises(tilec.TilecError, match=message):
            tilec.ops.varlen_attention(q, k, v, cu_q, cu_k, 6, **kwargs)
