"""GPU tests of MLA decode (examples/mla_decode.mlir) and of
tilec.ops.mla_decode: against float64 at ragged lengths (0, 1, 15, 16, 17,
1000, 4097), pages scattered at random in a cache whose unused pages and
unused page slots hold NaN (never read: a NaN would reach the output),
outputs and partials NaN-poisoned, 16 to 128 query heads, 1 and 2 new
tokens (causal and not), page sizes 64 and 16, the keys in one chunk a
sequence, in fixed chunks (down to a block each) and balanced (results
equal to the unsplit ones within tolerance), the schedule against a
Python reference, and the operator under torch.compile and in a CUDA
graph. Skipped without a GPU."""

import math

import pytest

from gpu_common import DEV, check_attention, load, torch

import tilec.ops

LENS = (0, 1, 15, 16, 17, 1000, 4097)
D, DV = 576, 512


@pytest.fixture(scope="module")
def bundle():
    return load("mla_decode")


def make_cache(lens, page, seed=0):
    """A NaN-filled (num_blocks, page, 1, 576) cache with each sequence's
    pages scattered at random among twice as many blocks, filled with
    fresh random rows up to its length; the block table (-1 past a
    sequence's pages), the lengths and each sequence's rows."""
    g = torch.Generator(device="cpu").manual_seed(seed)
    npages = [(n + page - 1) // page for n in lens]
    width = max(1, max(npages))
    nblocks = 2 * max(1, sum(npages)) + 3
    kv = torch.full((nblocks, page, 1, D), float("nan"), device=DEV, dtype=torch.bfloat16)
    perm = torch.randperm(nblocks, generator=g).tolist()
    table = torch.full((len(lens), width), -1, dtype=torch.int32)
    rows = []
    for b, n in enumerate(lens):
        k = torch.randn(n, D, device=DEV, dtype=torch.bfloat16)
        rows.append(k)
        for j in range(npages[b]):
            blk = perm.pop()
            table[b, j] = blk
            cnt = min(n, (j + 1) * page) - j * page
            kv[blk, :cnt, 0] = k[j * page:j * page + cnt]
    lens_t = torch.tensor(lens, dtype=torch.int32, device=DEV)
    return kv, table.to(DEV), lens_t, rows


def reference(q, rows, scale, causal):
    """float64 O (B, Sq, Hq, 512) and LSE (B, Hq, Sq)."""
    b, sq, hq, _ = q.shape
    out = torch.zeros(b, sq, hq, DV, dtype=torch.float64, device=DEV)
    lse = torch.full((b, hq, sq), float("-inf"), dtype=torch.float64, device=DEV)
    for i in range(b):
        n = rows[i].shape[0]
        if n == 0:
            continue
        k = rows[i].double()
        s = torch.einsum("thd,kd->htk", q[i].double(), k) * scale  # (Hq, Sq, n)
        if causal:
            lim = n - sq + torch.arange(sq, device=DEV) + 1
            keys = torch.arange(n, device=DEV)
            s = s.masked_fill(keys[None, None, :] >= lim[None, :, None], float("-inf"))
        lse[i] = torch.logsumexp(s, -1)
        p = torch.softmax(s, -1).nan_to_num(0.0)
        out[i] = torch.einsum("htk,kd->thd", p, k[:, :DV])
    return out, lse


def poisoned(shape, dtype):
    if dtype == torch.int32:
        return torch.full(shape, -7, device=DEV, dtype=dtype)
    return torch.full(shape, float("nan"), device=DEV, dtype=dtype)


def run_kernel(bundle, q, kv, table, lens, scale, causal, splits):
    """The op's four kernels (tilec.mla._schedule, _launch), the schedule, partials and
    outputs poisoned first; splits = n > 0 cuts each sequence into at most
    n chunks, 0 balances the chunks over the SMs."""
    b, sq, hq, _ = q.shape
    out = torch.full((b, sq, hq, DV), float("nan"), device=DEV, dtype=torch.bfloat16)
    lse = torch.full((b, hq, sq), float("nan"), device=DEV)
    sms = torch.cuda.get_device_properties(DEV).multi_processor_count
    max_blocks = -(-table.shape[1] * kv.shape[1] // tilec.mla.KEYS)
    target, tiles = tilec.mla.schedule(-(-sq * hq // tilec.mla.ROWS), max_blocks, b, sms,
                                       splits)
    info, sched = tilec.mla._schedule(bundle, lens, target, tiles, poisoned)
    tilec.mla._launch(bundle, q, kv, table, lens, scale, causal, info, sched, out, lse,
                      poisoned)
    return out, lse


@pytest.mark.parametrize("hq,sq,causal,page,splits", [
    (16, 1, False, 64, 1), (16, 1, False, 64, 3), (32, 2, True, 64, 0),
    (64, 2, False, 64, 2), (128, 1, False, 64, 0), (128, 2, True, 16, 2),
    (16, 2, True, 16, 1), (16, 1, True, 64, 70)])
def test_against_float64(bundle, hq, sq, causal, page, splits):
    kv, table, lens, rows = make_cache(LENS, page, seed=hq + sq + page)
    q = torch.randn(len(LENS), sq, hq, D, device=DEV, dtype=torch.bfloat16)
    scale = 1.0 / math.sqrt(D)
    out, lse = run_kernel(bundle, q, kv, table, lens, scale, causal, splits)
    ref, ref_lse = reference(q, rows, scale, causal)
    check_attention(out, lse, ref, ref_lse)


def test_splits_agree_with_one(bundle):
    kv, table, lens, _ = make_cache((4097, 3000, 64), 64, seed=5)
    q = torch.randn(3, 1, 64, D, device=DEV, dtype=torch.bfloat16)
    one, lse1 = run_kernel(bundle, q, kv, table, lens, 0.05, False, 1)
    for splits in (0, 2, 5, 40):
        out, lse = run_kernel(bundle, q, kv, table, lens, 0.05, False, splits)
        assert (out.float() - one.float()).abs().max().item() < 2e-2
        assert (lse - lse1).abs().max().item() < 1e-4


def schedule_reference(lens, target, tiles):
    """The schedule's rows as Python computes them: chunks of c blocks,
    every full chunk in sequence order, then the short last ones, longer
    first (ties: lower sequence); slots each sequence's chunks in order."""
    nb = [(n + 63) // 64 for n in lens]
    c = max(1, -(-sum(nb) // target)) if target > 0 else -target
    ps, at = [], 0
    for n in nb:
        ps.append(at)
        at += n // c + (n % c > 0)
    rows = [(b, j * c, j * c + c, ps[b] + j) for b, n in enumerate(nb) for j in range(n // c)]
    short = sorted((b for b, n in enumerate(nb) if n % c), key=lambda b: (-(nb[b] % c), b))
    rows += [(b, nb[b] // c * c, nb[b], ps[b] + nb[b] // c) for b in short]
    return rows + [(-1, 0, 0, -1)] * (tiles - len(rows))


@pytest.mark.parametrize("batch,target", [(7, 264), (300, 132), (300, -5), (129, 1)])
def test_schedule(bundle, batch, target):
    g = torch.Generator().manual_seed(batch)
    lens = torch.randint(0, 9000, (batch,), generator=g, dtype=torch.int32)
    lens[::5] = 0
    lens[1::7] = 64
    nb = ((lens + 63) // 64).tolist()
    tiles = target + batch if target > 0 else sum(-(-n // -target) for n in nb) + 3
    info = poisoned((batch, 8), torch.int32)
    sched = poisoned((tiles, 4), torch.int32)
    bundle["mla_schedule_seqs"](lens.to(DEV), info, target)
    bundle["mla_schedule_tiles"](info, sched)
    assert sched.cpu().tolist() == [list(r) for r in schedule_reference(lens.tolist(), target,
                                                                         tiles)]


def test_operator_compile_and_graph():
    kv, table, lens, rows = make_cache((1000, 17, 0, 4097), 64, seed=7)
    q = torch.randn(4, 2, 32, D, device=DEV, dtype=torch.bfloat16)
    ref, ref_lse = reference(q, rows, 0.07, True)
    out, lse = tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=0.07, causal=True)
    check_attention(out, lse, ref, ref_lse)
    f = torch.compile(lambda *a: tilec.ops.mla_decode(*a, softmax_scale=0.07, causal=True),
                      fullgraph=True)
    out2, _ = f(q, kv, table, lens)
    assert torch.equal(out2, out)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out3, lse3 = tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=0.07,
                                          causal=True, num_splits=3)
    g.replay()
    torch.cuda.synchronize()
    check_attention(out3, lse3, ref, ref_lse)


def test_metadata_shared_by_layers():
    # The schedule computed once (mla_decode_metadata) serves every call
    # with the same lengths, other q shapes included: the same results as
    # computing it in the call, eager, compiled and in a CUDA graph where
    # the lengths change between replays.
    kv, table, lens, rows = make_cache((1000, 17, 0, 4097), 64, seed=9)
    qa = torch.randn(4, 1, 16, D, device=DEV, dtype=torch.bfloat16)
    qb = torch.randn(4, 2, 128, D, device=DEV, dtype=torch.bfloat16)
    meta = tilec.ops.mla_decode_metadata(qa, kv, table, lens)
    for q in (qa, qb):
        ref, ref_lse = reference(q, rows, 0.05, True)
        out, lse = tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=0.05, causal=True,
                                        metadata=meta)
        check_attention(out, lse, ref, ref_lse)
        plain, _ = tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=0.05, causal=True)
        assert (out.float() - plain.float()).abs().max().item() < 2e-2
    f = torch.compile(lambda q, m0, m1: tilec.ops.mla_decode(
        q, kv, table, lens, softmax_scale=0.05, causal=True, metadata=(m0, m1)),
        fullgraph=True)
    out2, lse2 = f(qb, *meta)
    ref, ref_lse = reference(qb, rows, 0.05, True)
    check_attention(out2, lse2, ref, ref_lse)
    glens = lens.clone()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        m = tilec.ops.mla_decode_metadata(qa, kv, table, glens)
        outs = [tilec.ops.mla_decode(q, kv, table, glens, softmax_scale=0.05, causal=True,
                                     metadata=m) for q in (qa, qb)]
    new = (999, 5, 0, 4000)  # (within each sequence's pages)
    glens.copy_(torch.tensor(new, dtype=torch.int32, device=DEV))
    g.replay()
    torch.cuda.synchronize()
    rows2 = [r[:n] for r, n in zip(rows, new)]
    for q, (o, l) in zip((qa, qb), outs):
        ref, ref_lse = reference(q, rows2, 0.05, True)
        check_attention(o, l, ref, ref_lse)
