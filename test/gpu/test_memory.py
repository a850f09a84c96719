"""GPU tests of element-wise addressing (test/gpu/kernels/memory.mlir):
tile.gather, tile.scatter, tile.atomic_rmw and tile.atomic_cas. Fresh random
inputs, poisoned outputs, lengths off the tile grid, indices out of range
and colliding; skipped without a GPU."""

import pytest

from gpu_common import DEV, load, torch


@pytest.fixture(scope="module")
def mem():
    return load("memory")


# Vector loads where the table allows (d a multiple of 4, aligned rows);
# element by element where it does not (d = 129, a table starting one
# element into its storage).
@pytest.mark.parametrize("rows,n,d,shifted", [(50, 1, 64, False), (1000, 77, 100, False),
                                              (7, 300, 129, False), (40, 70, 64, True)])
def test_gather_rows(mem, rows, n, d, shifted):
    table = torch.randn(rows, d + shifted, device=DEV)[:, int(shifted):]
    ids = torch.randint(-3, rows + 3, (n,), device=DEV, dtype=torch.int32)
    out = torch.full((n, d), float("nan"), device=DEV)
    mem["gather_rows"](table, ids, out)
    torch.cuda.synchronize()
    ok = (ids >= 0) & (ids < rows)
    ref = torch.full((n, d), -1.0, device=DEV)
    ref[ok] = table[ids[ok].long()]
    assert torch.equal(out, ref)


@pytest.mark.parametrize("n,rows,d,shifted", [(1, 3, 64, False), (77, 200, 100, False),
                                              (50, 60, 130, False), (33, 40, 64, True)])
def test_scatter_rows(mem, n, rows, d, shifted):
    x = torch.randn(n, d, device=DEV)
    ids = torch.randperm(rows, device=DEV)[:n].to(torch.int32)
    storage = torch.full((rows, d + shifted), 12345.0, device=DEV)
    out = storage[:, int(shifted):]
    mem["scatter_rows"](x, ids, out)
    torch.cuda.synchronize()
    ref = torch.full((rows, d), 12345.0, device=DEV)
    ref[ids.long()] = x
    assert torch.equal(out, ref)


@pytest.mark.parametrize("n", [1, 255, 1000, 4099])
def test_scatter_positive(mem, n):
    x = torch.randn(n, device=DEV)
    perm = torch.randperm(n, device=DEV).to(torch.int32)
    out = torch.full((n,), 12345.0, device=DEV)
    mem["scatter_positive"](x, perm, out)
    torch.cuda.synchronize()
    ref = torch.full((n,), 12345.0, device=DEV)
    pos = x > 0
    ref[perm[pos].long()] = x[pos]
    assert torch.equal(out, ref)


@pytest.mark.parametrize("n,bins", [(1, 4), (1000, 7), (100003, 300)])
def test_histogram(mem, n, bins):
    keys = torch.randint(-2, bins + 2, (n,), device=DEV, dtype=torch.int32)
    hist = torch.zeros(bins, device=DEV, dtype=torch.int32)
    mem["histogram"](keys, hist)
    torch.cuda.synchronize()
    ok = keys[(keys >= 0) & (keys < bins)].long()
    ref = torch.bincount(ok, minlength=bins).to(torch.int32)
    assert torch.equal(hist, ref)


@pytest.mark.parametrize("n", [1, 17, 1000])
def test_tickets(mem, n):
    # A 16-element tile in a 4-warp kernel: 8 threads hold each element,
    # one takes the ticket and all see it.
    counter = torch.zeros(1, device=DEV, dtype=torch.int32)
    old = torch.full((n,), -7, device=DEV, dtype=torch.int32)
    mem["tickets"](counter, old)
    torch.cuda.synchronize()
    assert counter.item() == n
    assert torch.equal(old.sort().values, torch.arange(n, device=DEV, dtype=torch.int32))


@pytest.mark.parametrize("n,slots", [(1, 1), (1000, 13), (20001, 64)])
def test_rmw_f32(mem, n, slots):
    x = torch.randn(n, device=DEV)
    idx = torch.randint(-1, slots + 1, (n,), device=DEV, dtype=torch.int32)
    init = torch.randn(slots, device=DEV)
    add, mx, mn, xchg = init.clone(), init.clone(), init.clone(), init.clone()
    old_max = torch.full((n,), float("nan"), device=DEV)
    mem["rmw_f32"](x, idx, add, mx, mn, xchg, old_max)
    torch.cuda.synchronize()
    ok = (idx >= 0) & (idx < slots)
    i, v = idx[ok].long(), x[ok]
    ref_add = init.double().index_add(0, i, v.double())
    assert (add.double() - ref_add).abs().max().item() < 1e-4 * (1 + n ** 0.5)
    assert torch.equal(mx, init.scatter_reduce(0, i, v, "amax"))
    assert torch.equal(mn, init.scatter_reduce(0, i, v, "amin"))
    # xchg: each slot ends with one of the values sent to it (or its own).
    for s in range(slots):
        sent = v[i == s]
        cand = sent if len(sent) else init[s:s + 1]
        assert (cand == xchg[s]).any()
    # The old values of max: what the slot held before, never above the end
    # value; out-of-range elements give 0.
    assert torch.all(old_max[ok] <= mx[idx[ok].long()])
    assert torch.all(old_max[~ok] == 0)


@pytest.mark.parametrize("n,slots", [(1000, 8), (30001, 256)])
def test_rmw_bf16(mem, n, slots):
    # Values -1, 0, 1 and at most a few hundred a slot: every partial sum
    # is an integer bf16 holds exactly, so the result must be exact.
    x = torch.randint(-1, 2, (n,), device=DEV).to(torch.bfloat16)
    idx = torch.randint(-1, slots + 1, (n,), device=DEV, dtype=torch.int32)
    add = torch.zeros(slots, device=DEV, dtype=torch.bfloat16)
    mem["rmw_bf16"](x, idx, add)
    torch.cuda.synchronize()
    ok = (idx >= 0) & (idx < slots)
    ref = torch.zeros(slots, device=DEV, dtype=torch.float64).index_add(
        0, idx[ok].long(), x[ok].double())
    assert torch.equal(add.double(), ref)


@pytest.mark.parametrize("n,slots", [(1, 3), (1000, 13), (20001, 64)])
def test_rmw_i32(mem, n, slots):
    x = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), device=DEV, dtype=torch.int32)
    idx = torch.randint(-1, slots + 1, (n,), device=DEV, dtype=torch.int32)
    init = torch.randint(-2 ** 31, 2 ** 31 - 1, (slots,), device=DEV, dtype=torch.int32)
    tabs = [init.clone() for _ in range(5)]
    mem["rmw_i32"](x, idx, *tabs)
    torch.cuda.synchronize()
    ok = (idx >= 0) & (idx < slots)
    i, v = idx[ok].long().cpu(), x[ok].cpu()
    base = init.cpu()
    u = lambda t: t.long() & 0xFFFFFFFF  # noqa: E731
    ref_max = base.scatter_reduce(0, i, v, "amax")
    ref_umin = u(base).scatter_reduce(0, i, u(v), "amin")
    ref_and, ref_or, ref_xor = base.clone(), base.clone(), base.clone()
    for s, val in zip(i.tolist(), v.tolist()):
        ref_and[s] &= val
        ref_or[s] |= val
        ref_xor[s] ^= val
    assert torch.equal(tabs[0].cpu(), ref_max)
    assert torch.equal(u(tabs[1].cpu()), ref_umin)
    assert torch.equal(tabs[2].cpu(), ref_and)
    assert torch.equal(tabs[3].cpu(), ref_or)
    assert torch.equal(tabs[4].cpu(), ref_xor)


@pytest.mark.parametrize("n,slots", [(1, 1), (1000, 13), (5000, 4096)])
def test_claim(mem, n, slots):
    slot = torch.zeros(slots, device=DEV, dtype=torch.int32)
    won = torch.full((n,), -7, device=DEV, dtype=torch.int32)
    mem["claim"](slot, won)
    torch.cuda.synchronize()
    i = torch.arange(n, device=DEV)
    winners = i[won == 0]
    # One winner per slot that anyone asked for, and the slot holds it + 1.
    asked = torch.unique(i % slots)
    assert torch.equal(torch.sort(winners % slots).values, asked)
    assert torch.equal(slot[(winners % slots)].long(), winners + 1)
    # Losers saw the winner's claim.
    lose = won != 0
    assert torch.equal(won[lose].long(), slot[(i[lose] % slots)].long())


@pytest.mark.parametrize("m,n", [(1, 1), (77, 100), (300, 129)])
def test_masked_tril(mem, m, n):
    x = torch.randn(m, n, device=DEV)
    y = torch.full((m, n), 12345.0, device=DEV)
    mem["masked_tril"](x, y)
    torch.cuda.synchronize()
    cols = torch.arange(n, device=DEV).expand(m, n)
    rows = torch.arange(m, device=DEV)[:, None].expand(m, n)
    loaded = torch.where(cols % 2 == 0, x, torch.full_like(x, 7.0))
    ref = torch.where(cols <= rows, loaded + 1, torch.full_like(x, 12345.0))
    assert torch.equal(y, ref)


@pytest.mark.parametrize("m,n,k,kv", [(128, 128, 64, 64), (200, 130, 192, 100), (70, 300, 128, 1)])
def test_gemm_masked_k(mem, m, n, k, kv):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device=DEV)
    mem["gemm_masked_k"](a, b, c, kv)
    torch.cuda.synchronize()
    ref = a[:, :kv].double() @ b[:kv].double()
    err = (c.double() - ref).norm().item() / max(ref.norm().item(), 1e-30)
    assert err < 1e-2


M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox_ref(c, k):
    """Philox4x32-10 (Salmon et al., SC'11) on Python ints."""
    c = list(c)
    k0, k1 = k
    for r in range(10):
        if r:
            k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
    return c


# Random123's known-answer vectors for philox4x32-10 (kat_vectors).
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


def i32(words):
    return torch.tensor([w - (1 << 32) if w >= 1 << 31 else w for w in words],
                        dtype=torch.int32, device=DEV)


def signed(w):
    return w - (1 << 32) if w >= 1 << 31 else w


@pytest.mark.parametrize("case", range(len(KAT)))
def test_philox_known_answers(mem, case):
    ctr, key, want = KAT[case]
    assert philox_ref(ctr, key) == want  # the reference itself
    cols = [i32([w]) for w in ctr]
    r = torch.full((1, 4), 7, dtype=torch.int32, device=DEV)
    mem["philox"](*cols, r, signed(key[0]), signed(key[1]))
    torch.cuda.synchronize()
    assert [x & 0xFFFFFFFF for x in r[0].tolist()] == want


@pytest.mark.parametrize("n", [1, 300, 4097])
def test_philox_random_counters(mem, n):
    g = torch.Generator().manual_seed(n)
    ctr = torch.randint(0, 1 << 32, (4, n), generator=g, dtype=torch.int64)
    key = torch.randint(0, 1 << 32, (2,), generator=g, dtype=torch.int64).tolist()
    cols = [i32(ctr[j].tolist()) for j in range(4)]
    r = torch.full((n, 4), 7, dtype=torch.int32, device=DEV)
    mem["philox"](*cols, r, signed(key[0]), signed(key[1]))
    torch.cuda.synchronize()
    got = (r.cpu().long() & 0xFFFFFFFF).tolist()
    for i in range(0, n, max(1, n // 50)):
        assert got[i] == philox_ref([ctr[j][i].item() for j in range(4)], key)


@pytest.mark.parametrize("n", [1000, 1 << 20])
def test_rand(mem, n):
    u = torch.full((n,), float("nan"), device=DEV)
    z = torch.full((n,), float("nan"), device=DEV)
    mem["rand"](u, z, 5, 1234, -99)
    torch.cuda.synchronize()
    # The exact values: uniform = (r0 >> 8) * 2^-24 of the reference.
    for i in range(0, n, max(1, n // 40)):
        r0 = philox_ref([5 + i, 0, 0, 0], [1234, (-99) & 0xFFFFFFFF])[0]
        assert u[i].item() == (r0 >> 8) * 2.0 ** -24
    assert torch.all((u >= 0) & (u < 1)) and torch.all(torch.isfinite(z))
    if n >= 1 << 20:
        # Moments within several standard errors, and a different seed or
        # offset gives different numbers.
        assert abs(u.double().mean().item() - 0.5) < 5 * (1 / 12 / n) ** 0.5
        assert abs(z.double().mean().item()) < 5 / n ** 0.5
        assert abs(z.double().var().item() - 1) < 5 * (2 / n) ** 0.5
        assert abs((z.double() ** 3).mean().item()) < 5 * (15 / n) ** 0.5
        assert abs((z.double() > 1.96).double().mean().item() - 0.025) < 0.001
        u2 = torch.empty_like(u)
        mem["rand"](u2, torch.empty_like(z), 5, 1235, -99)
        torch.cuda.synchronize()
        assert (u2 == u).double().mean().item() < 1e-3


# Rows and columns off the block grid; columns 300 (rows 16-byte aligned:
# vector reductions) and 301 (not: one element at a time).
@pytest.mark.parametrize("m,n", [(64, 64), (200, 300), (130, 301)])
def test_reduce_box(mem, m, n):
    a = torch.randn(m, n, device=DEV)
    c0 = torch.randn(m, n, device=DEV)
    c = c0.clone()
    s = 0.75
    mem["reduce_box"](a, c, s)
    torch.cuda.synchronize()
    ref = c0.double() + a.double()
    programs = (m + 63) // 64
    ref[:4, :4] += s * programs
    assert torch.allclose(c.double(), ref, atol=1e-5, rtol=1e-5)
