"""GPU tests of paged-KV decode (examples/decode_attention.mlir) and of
tilec.ops.decode_attention: against float64 at ragged lengths (0, 1, 15,
16, 17, 1000, 4097), pages scattered at random in a cache whose unused
pages and unused page slots hold NaN (never read: a NaN would reach the
output), outputs and partials NaN-poisoned, GQA groups 1 to 8, page sizes
16, 64 and 7, 1 to 4 new tokens (bottom-right causal), splits on and off
(results equal to the unsplit ones within tolerance), heads-first caches,
and the operator under torch.compile and in a CUDA graph. Skipped without
a GPU."""

import math

import pytest

from gpu_common import DEV, check_attention, load, rel_err, torch

import tilec.ops

LENS = (0, 1, 15, 16, 17, 1000, 4097)


@pytest.fixture(scope="module")
def bundle():
    return load("decode_attention")


def make_cache(lens, page, hkv, d, seed=0, heads_first=False):
    """A NaN-filled cache with each sequence's pages scattered at random
    among twice as many blocks, filled with fresh random keys and values
    up to its length (the rest of its last page stays NaN); the block
    table (rows padded with -1 past the sequence's pages) and lengths."""
    g = torch.Generator(device="cpu").manual_seed(seed)
    npages = [(n + page - 1) // page for n in lens]
    width = max(1, max(npages))
    nblocks = 2 * max(1, sum(npages)) + 3
    shape = (nblocks, hkv, page, d) if heads_first else (nblocks, page, hkv, d)
    kc = torch.full(shape, float("nan"), device=DEV, dtype=torch.bfloat16)
    vc = torch.full(shape, float("nan"), device=DEV, dtype=torch.bfloat16)
    perm = torch.randperm(nblocks, generator=g).tolist()
    table = torch.full((len(lens), width), -1, dtype=torch.int32)
    ks, vs = [], []
    for b, n in enumerate(lens):
        k = torch.randn(n, hkv, d, device=DEV, dtype=torch.bfloat16)
        v = torch.randn(n, hkv, d, device=DEV, dtype=torch.bfloat16)
        ks.append(k)
        vs.append(v)
        for j in range(npages[b]):
            blk = perm.pop()
            table[b, j] = blk
            rows = slice(j * page, min(n, (j + 1) * page))
            cnt = rows.stop - rows.start
            if heads_first:
                kc[blk, :, :cnt] = k[rows].transpose(0, 1)
                vc[blk, :, :cnt] = v[rows].transpose(0, 1)
            else:
                kc[blk, :cnt] = k[rows]
                vc[blk, :cnt] = v[rows]
    lens_t = torch.tensor(lens, dtype=torch.int32, device=DEV)
    # (-1 entries are never read: keys past a length are masked.)
    return kc, vc, table.to(DEV), lens_t, ks, vs


def reference(q, ks, vs, scale):
    """float64 O (B, Sq, Hq, D) and LSE (B, Hq, Sq): token t of Sq sees
    keys 0 .. len - Sq + t."""
    b, sq, hq, d = q.shape
    out = torch.zeros(b, sq, hq, d, dtype=torch.float64, device=DEV)
    lse = torch.full((b, hq, sq), float("-inf"), dtype=torch.float64, device=DEV)
    for i in range(b):
        n = ks[i].shape[0]
        if n == 0:
            continue
        hkv = ks[i].shape[1]
        k = ks[i].double().repeat_interleave(hq // hkv, 1).transpose(0, 1)  # (Hq, n, D)
        v = vs[i].double().repeat_interleave(hq // hkv, 1).transpose(0, 1)
        qi = q[i].double().transpose(0, 1)  # (Hq, Sq, D)
        s = qi @ k.transpose(-1, -2) * scale
        keys = torch.arange(n, device=DEV)
        lim = n - sq + torch.arange(sq, device=DEV) + 1
        s = s.masked_fill(keys[None, None, :] >= lim[None, :, None], float("-inf"))
        l = torch.logsumexp(s, -1)
        p = torch.exp(s - l[..., None]).nan_to_num(0.0)
        out[i] = (p @ v).transpose(0, 1)
        lse[i] = l
    return out, lse


def run_kernels(bundle, q, kc, vc, table, lens, scale, splits, heads_first=False,
                misaligned=False):
    """The kernels by hand (the combine where there are splits), partials
    and outputs NaN-poisoned; with `misaligned`, Q's rows 129 elements
    apart (no TMA: the plain twin)."""
    b, sq, hq, d = q.shape
    if heads_first:
        kc, vc = kc.transpose(1, 2), vc.transpose(1, 2)
    hkv = kc.shape[2]
    g = hq // hkv
    r = sq * g
    qr = q.view(b, sq, hkv, g, d).permute(0, 2, 1, 3, 4).reshape(b, hkv, r, d)
    if misaligned:
        wide = torch.empty(b, hkv, r, d + 1, device=DEV, dtype=q.dtype)
        wide[..., :d] = qr
        qr = wide[..., :d]
    part = torch.full((splits, b, hkv, r, d), float("nan"), device=DEV)
    plse = torch.full((splits, b, hkv, r), float("nan"), device=DEV)
    out = torch.full((b, hkv, r, d), float("nan"), device=DEV, dtype=torch.bfloat16)
    lse = torch.full((b, hkv, r), float("nan"), device=DEV)
    kernel = bundle["decode_d%d" % d]
    args = (qr, kc, vc, table, lens, part, plse, scale, g, splits, out, lse)
    assert kernel.choose(*args) == kernel.name + ("__plain" if misaligned else "")
    kernel(*args)
    if splits > 1:  # (one split writes out and lse itself)
        bundle["decode_combine_d%d" % d](part, plse, out, lse)
    else:  # and leaves the partials alone
        torch.cuda.synchronize()
        assert torch.isnan(part).all() and torch.isnan(plse).all()
    torch.cuda.synchronize()
    out = out.view(b, hkv, sq, g, d).permute(0, 2, 1, 3, 4).reshape(b, sq, hq, d)
    lse = lse.view(b, hkv, sq, g).permute(0, 1, 3, 2).reshape(b, hq, sq)
    return out, lse


check = check_attention


def check_decode(bundle, page, hq, hkv, splits, d):
    """The kernels over one token a sequence at LENS against float64."""
    kc, vc, table, lens, ks, vs = make_cache(LENS, page, hkv, d, seed=page + hq)
    q = torch.randn(len(LENS), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    out, lse = run_kernels(bundle, q, kc, vc, table, lens, scale, splits)
    check(out, lse, *reference(q, ks, vs, scale))


@pytest.mark.parametrize("page", [16, 64, 7])
@pytest.mark.parametrize("hq,hkv", [(8, 1), (32, 8), (4, 4)])
@pytest.mark.parametrize("splits", [1, 3])
def test_decode(bundle, page, hq, hkv, splits):
    check_decode(bundle, page, hq, hkv, splits, 128)


@pytest.mark.parametrize("d", [64, 256])
@pytest.mark.parametrize("page", [16, 64, 7])
@pytest.mark.parametrize("splits", [1, 3])
def test_decode_head_dims(bundle, d, page, splits):
    """Head dims 64 and 256 (one program an SM at 256), GQA, every page
    path (TMA boxes, cp.async), splits on and off."""
    check_decode(bundle, page, 16, 2, splits, d)


@pytest.mark.parametrize("page", [8, 24, 32, 48, 128])
def test_decode_pages(bundle, page):
    """Pages of a multiple of 16 tokens come by TMA boxes (a run of 16 rows
    in one page), the rest of a run by cp.async: pages of 8 never hold a
    run, pages of 24 some runs and not others."""
    d, hq, hkv = 128, 16, 4
    kc, vc, table, lens, ks, vs = make_cache(LENS, page, hkv, d, seed=page)
    q = torch.randn(len(LENS), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    out, lse = run_kernels(bundle, q, kc, vc, table, lens, scale, 2)
    check(out, lse, *reference(q, ks, vs, scale))


def test_decode_unaligned_cache(bundle):
    """A cache whose base is not 16-byte aligned: the runtime leaves its
    TMA descriptor zero and the threads gather every element."""
    d, hq, hkv = 128, 8, 2
    kc, vc, table, lens, ks, vs = make_cache(LENS, 16, hkv, d, seed=3)
    def shifted(c):
        flat = torch.empty(c.numel() + 1, device=DEV, dtype=c.dtype)
        flat[1:] = c.flatten()
        return flat[1:].view(c.shape)
    kc, vc = shifted(kc), shifted(vc)
    q = torch.randn(len(LENS), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    out, lse = run_kernels(bundle, q, kc, vc, table, lens, scale, 1)
    check(out, lse, *reference(q, ks, vs, scale))


@pytest.mark.parametrize("sq", [2, 4])
def test_decode_speculative(bundle, sq):
    d, hq, hkv = 128, 16, 2
    lens = (sq, 17, 300, 1000)
    kc, vc, table, lens_t, ks, vs = make_cache(lens, 16, hkv, d, seed=sq)
    q = torch.randn(len(lens), sq, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    for splits in (1, 4):
        out, lse = run_kernels(bundle, q, kc, vc, table, lens_t, scale, splits)
        check(out, lse, *reference(q, ks, vs, scale))


def test_decode_plain_twin(bundle):
    """Q's rows not 16-byte aligned: the twin, its load partition's threads
    copying Q too, gives the same results."""
    d, hq, hkv = 128, 32, 8
    kc, vc, table, lens, ks, vs = make_cache(LENS, 16, hkv, d, seed=11)
    q = torch.randn(len(LENS), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    out, lse = run_kernels(bundle, q, kc, vc, table, lens, scale, 2, misaligned=True)
    check(out, lse, *reference(q, ks, vs, scale))


def test_decode_splits_agree(bundle):
    """Splits change the summation order only: the results agree closely."""
    d, hq, hkv = 128, 32, 8
    lens = (4097, 1000, 3000)
    kc, vc, table, lens_t, ks, vs = make_cache(lens, 16, hkv, d, seed=5)
    q = torch.randn(len(lens), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    scale = d ** -0.5
    one, lse1 = run_kernels(bundle, q, kc, vc, table, lens_t, scale, 1)
    for splits in (2, 7, 33):
        out, lse = run_kernels(bundle, q, kc, vc, table, lens_t, scale, splits)
        assert rel_err(out, one) < 5e-3
        assert (lse - lse1).abs().max().item() < 1e-4


@pytest.mark.parametrize("d", [64, 128, 256])
def test_op(bundle, d):
    hq, hkv = 32, 8
    for heads_first in (False, True):
        kc, vc, table, lens, ks, vs = make_cache(LENS, 16, hkv, d, seed=9,
                                                 heads_first=heads_first)
        q = torch.randn(len(LENS), 1, hq, d, device=DEV, dtype=torch.bfloat16)
        out, lse = tilec.ops.decode_attention(q, kc, vc, table, lens, heads_first=heads_first,
                                              return_lse=True)
        check(out, lse, *reference(q, ks, vs, d ** -0.5))


@pytest.mark.parametrize("sq,heads_first,d", [(1, False, 128), (2, False, 128),
                                               (3, True, 128), (2, False, 64), (1, True, 256)])
def test_op_appends_new_keys(bundle, sq, heads_first, d):
    """k and v given: the new tokens' keys and values (NaN in the cache
    until then) are written at positions len - Sq .. len - 1 first, and the
    attention sees them; a sequence shorter than Sq writes what it has."""
    hq, hkv = 16, 4
    lens_l = (2, 17, 300, 1000, 4097)
    kc, vc, table, lens, ks, vs = make_cache(lens_l, 16, hkv, d, seed=sq,
                                             heads_first=heads_first)
    knew = torch.randn(len(lens_l), sq, hkv, d, device=DEV, dtype=torch.bfloat16)
    vnew = torch.randn_like(knew)
    page = 16
    for b, n in enumerate(lens_l):
        for t in range(sq):
            pos = n - sq + t
            if pos < 0:
                continue
            blk, off = table[b, pos // page].item(), pos % page
            for c in (kc, vc):  # not written yet
                if heads_first:
                    c[blk, :, off] = float("nan")
                else:
                    c[blk, off] = float("nan")
            ks[b][pos], vs[b][pos] = knew[b, t], vnew[b, t]
    q = torch.randn(len(lens_l), sq, hq, d, device=DEV, dtype=torch.bfloat16)
    out, lse = tilec.ops.decode_attention(q, kc, vc, table, lens, heads_first=heads_first,
                                          return_lse=True, k=knew, v=vnew)
    check(out, lse, *reference(q, ks, vs, d ** -0.5))
    b, n = 3, lens_l[3]
    blk, off = table[b, (n - 1) // page].item(), (n - 1) % page
    row = kc[blk, :, off] if heads_first else kc[blk, off]
    assert torch.equal(row, knew[b, sq - 1])


def test_op_errors():
    q = torch.randn(2, 1, 8, 128, device=DEV, dtype=torch.bfloat16)
    kc = torch.randn(4, 16, 2, 128, device=DEV, dtype=torch.bfloat16)
    table = torch.zeros(2, 2, dtype=torch.int32, device=DEV)
    lens = torch.ones(2, dtype=torch.int32, device=DEV)
    with pytest.raises(tilec.TilecError, match="head dim"):
        tilec.ops.decode_attention(q[..., :96], kc[..., :96], kc[..., :96], table, lens)
    with pytest.raises(tilec.TilecError, match="multiple of the K/V heads"):
        tilec.ops.decode_attention(q[:, :, :7], kc, kc, table, lens)
    with pytest.raises(tilec.TilecError, match="int32"):
        tilec.ops.decode_attention(q, kc, kc, table.long(), lens)
    with pytest.raises(tilec.TilecError, match="block_table"):
        tilec.ops.decode_attention(q, kc, kc, table[:1], lens)


def test_op_compile_and_graph():
    d, hq, hkv = 128, 16, 4
    lens_l = (100, 2000)
    kc, vc, table, lens, ks, vs = make_cache(lens_l, 16, hkv, d, seed=3)
    q = torch.randn(len(lens_l), 1, hq, d, device=DEV, dtype=torch.bfloat16)
    ref, _ = reference(q, ks, vs, d ** -0.5)
    f = torch.compile(lambda *a: tilec.ops.decode_attention(*a), fullgraph=True)
    assert rel_err(f(q, kc, vc, table, lens), ref) < 1e-2
    static_out = tilec.ops.decode_attention(q, kc, vc, table, lens)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = tilec.ops.decode_attention(q, kc, vc, table, lens)
    q.copy_(torch.randn_like(q))
    graph.replay()
    torch.cuda.synchronize()
    ref2, _ = reference(q, ks, vs, d ** -0.5)
    assert rel_err(static_out, ref2) < 1e-2
