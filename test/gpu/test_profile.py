"""The intra-kernel profiler on the GPU: the GEMM and the attention
compiled with --profile (build/examples/*_profiled.tlc) still compute the
right results, and their traces hold together: every begin has its end,
each warp group's scopes nest in time, a consumer's wait for a slot ends
after the producer's acquire of that slot ended, every timestamp lies in
the launch, and every partition shows."""

import math

import pytest

from gpu_common import DEV, load, rel_err, torch

import tilec
from tilec.profile import load_perfetto, load_trace


def launched_and_timed(fn):
    """Runs fn() between CUDA events; the elapsed time in microseconds."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000.0


def check_trace(path, elapsed_us, groups):
    events, other = load_trace(path)
    assert other["dropped"] == 0 and other["unmatched"] == 0 and other["truncated"] == 0, other
    assert {e["group"] for e in events} == set(groups), {e["group"] for e in events}
    by_thread = {}
    for e in events:
        by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    eps = 1e-3  # the trace's resolution (1 ns, in us)
    t0 = min(e["ts"] for e in events)
    t1 = max(e["ts"] + e["dur"] for e in events)
    # Within the launch: the span of all records fits the host-timed launch.
    assert t1 - t0 <= elapsed_us + 1.0, (t1 - t0, elapsed_us)
    for evs in by_thread.values():
        kernel = [e for e in evs if e["name"] == "kernel"]
        assert len(kernel) == 1, kernel
        k = kernel[0]
        # Scopes nest: sorted by start (longest first at a tie), each lies
        # inside the innermost open one or starts after it ended.
        stack = []
        for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            assert e["dur"] >= 0
            assert k["ts"] - eps <= e["ts"] and e["ts"] + e["dur"] <= k["ts"] + k["dur"] + eps
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
                stack.pop()
            if stack:
                top = stack[-1]
                assert e["ts"] + e["dur"] <= top["ts"] + top["dur"] + eps, (top, e)
            stack.append(e)
    return events


def producer_before_consumer(events, acquire, wait):
    """Per CTA, tile and iteration: the consumer's `wait` ends after the
    producer's `acquire` of that iteration ended (the copy it waits for is
    issued after the acquire). Returns the pairs checked."""
    def key(e):
        return (e["pid"], e["args"]["cta"], e["args"].get("tile", -1))

    def iterations(name, group):
        out = {}
        its = [e for e in events if e["name"] == "iteration" and e["group"].startswith(group)]
        marks = [e for e in events if e["name"] == name and e["group"].startswith(group)]
        for m in marks:
            for it in its:
                if (key(it) == key(m) and it["tid"] == m["tid"]
                        and it["ts"] <= m["ts"] and m["ts"] <= it["ts"] + it["dur"]):
                    out.setdefault(key(m) + (it["args"]["iter"],), []).append(m)
        return out

    acq, wt = iterations(acquire, "load"), iterations(wait, "compute")
    pairs = 0
    for k, waits in wt.items():
        if k not in acq:
            continue
        a_end = max(a["ts"] + a["dur"] for a in acq[k])
        for w in waits:
            assert w["ts"] + w["dur"] >= a_end - 1e-3, (k, a_end, w)
            pairs += 1
    return pairs


GEMM_K = 520  # of 1000 x 1032 x 520: not multiples of the tile (rows 16-byte aligned for TMA)


def profile_gemm(k, path, records):
    """One profiled launch of `k` (examples/gemm.mlir's signature, C =
    relu(A B + bias)) at 1000 x 1032 x GEMM_K into the trace `path`, its
    result checked against float64: (the trace's events, the session)."""
    m, n, kk = 1000, 1032, GEMM_K
    a = torch.randn(m, kk, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(kk, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
    k(a, b, bias, c)  # warm-up: module load, no profile
    c.fill_(float("nan"))
    with tilec.profile(path, records_per_group=records) as p:
        elapsed = launched_and_timed(lambda: k(a, b, bias, c))
    err = rel_err(c, torch.relu(a.double() @ b.double() + bias.double()))
    assert math.isfinite(err) and err < 1e-2, err
    return check_trace(path, elapsed, {"load", "compute"}), p


def profile_attention(k, d, path, records, s=1000):
    """One profiled launch of attention kernel `k` (examples/attention.mlir's
    signature, head dim d, S = s: not a multiple of the tile, B = 1, H = 4,
    not causal) into the trace `path`, checked against float64: the
    trace's events."""
    b, h = 1, 4
    q, kk, v = (torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16) for _ in range(3))
    o = torch.full((b, h, s, d), float("nan"), device=DEV, dtype=torch.bfloat16)
    lse = torch.full((b, h, s), float("nan"), device=DEV)
    scale = 1.0 / math.sqrt(d)
    k(q, kk, v, o, lse, scale, 0)  # warm-up
    o.fill_(float("nan"))
    with tilec.profile(path, records_per_group=records):
        elapsed = launched_and_timed(lambda: k(q, kk, v, o, lse, scale, 0))
    ref = torch.softmax((q.double() @ kk.double().transpose(-1, -2)) * scale, -1) @ v.double()
    err = rel_err(o, ref)
    assert math.isfinite(err) and err < 2e-2, err
    return check_trace(path, elapsed, {"load", "compute"})


def test_gemm_profiled(tmp_path):
    k = load("gemm_profiled")["gemm"]
    assert k.profiled and not load("gemm")["gemm"].profiled
    path = tmp_path / "gemm.trace.json"
    events, p = profile_gemm(k, path, 4096)
    names = {e["name"] for e in events}
    assert {"kernel", "tile", "iteration", "acquire#1", "wait#0", "mma", "mma_wait",
            "epilogue"} <= names, names
    assert producer_before_consumer(events, "acquire#1", "wait#0") > 0
    summary = p.summary()
    assert "gemm" in summary and "records dropped (buffer full): 0" in summary, summary
    # The summary from the trace file has the same rows.
    from tilec.profile import summarize
    file_rows = {tuple(line.split()[:4]) for line in summarize(*load_trace(path)).splitlines()[1:-1]}
    c_rows = {tuple(line.split()[:4]) for line in summary.splitlines()[1:-1]}
    assert file_rows == c_rows


def test_gemm_perfetto_trace(tmp_path):
    # The GEMM's trace in Perfetto's protobuf format, read back by
    # Perfetto's generated message classes: the same scopes and times as
    # the JSON trace of the same session, every slice closed.
    pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2",
                        reason="perfetto (0.59 or later, with protobuf) is not installed")
    k = load("gemm_profiled")["gemm"]
    a = torch.randn(1000, 520, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(520, 1032, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(1032, device=DEV)
    c = torch.empty(1000, 1032, device=DEV, dtype=torch.bfloat16)
    with tilec.profile(tmp_path / "t.json", records_per_group=4096) as p:
        k(a, b, bias, c)
    p.write_trace(tmp_path / "t.pftrace")
    slices = [(thread.split()[-1], name, begin, end - begin)
              for _, thread, name, begin, end, _ in load_perfetto(tmp_path / "t.pftrace")]
    events, _ = load_trace(tmp_path / "t.json")
    assert sorted(slices) == sorted((e["group"], e["name"], round(e["ts"] * 1000),
                                     round(e["dur"] * 1000)) for e in events)
    assert {s[0] for s in slices} == {"load", "compute"}


def test_gemm_profile_overflow(tmp_path):
    # Room for 8 records a warp group: the rest are dropped and counted
    # (the result is still right), and the scopes left open are reported,
    # not invented.
    k = load("gemm_profiled")["gemm"]
    a = torch.randn(512, 256, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(256, 512, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(512, device=DEV)
    c = torch.full((512, 512), float("nan"), device=DEV, dtype=torch.bfloat16)
    with tilec.profile(tmp_path / "t.json", records_per_group=8) as p:
        k(a, b, bias, c)
    assert p.dropped > 0
    events, other = load_trace(tmp_path / "t.json")
    assert other["dropped"] == p.dropped and other["unmatched"] > 0
    err = rel_err(c, torch.relu(a.double() @ b.double() + bias.double()))
    assert err < 1e-2, err


def test_profiled_kernel_without_session_records_nothing():
    k = load("gemm_profiled")["gemm"]
    a = torch.randn(128, 64, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(64, 256, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(256, device=DEV)
    c = torch.full((128, 256), float("nan"), device=DEV, dtype=torch.bfloat16)
    k(a, b, bias, c)
    torch.cuda.synchronize()
    assert rel_err(c, torch.relu(a.double() @ b.double() + bias.double())) < 1e-2


def test_unprofiled_kernel_in_session_is_an_error():
    k = load("gemm")["gemm"]
    a = torch.randn(128, 64, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(64, 256, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(256, device=DEV)
    c = torch.empty(128, 256, device=DEV, dtype=torch.bfloat16)
    with pytest.raises(tilec.TilecError, match="compiled without --profile"):
        with tilec.profile():
            k(a, b, bias, c)


@pytest.mark.parametrize("d", [64, 128])
def test_attention_profiled(tmp_path, d):
    k = load("attention_profiled")["attention_d%d" % d]
    events = profile_attention(k, d, tmp_path / "attention.trace.json", 1 << 14)
    names = {e["name"] for e in events}
    assert {"kernel", "tile", "iteration", "mma", "mma_wait", "epilogue"} <= names, names
    assert any(n.startswith("acquire#") for n in names) and any(n.startswith("wait#") for n in names)


def user_scopes(events, name):
    """Per (pid, cta, group, tid, tile): the events of user scope `name`.
    Each lies in at most one of the compiler's `iteration` scopes (none in
    an iteration the compiler peeled off its loop) and, when it has an
    argument (the step's offset), in the iteration of that offset."""
    out, its = {}, {}
    for e in events:
        if e["name"] == "iteration":
            its.setdefault((e["pid"], e["tid"]), []).append(e)
    for e in events:
        if e["name"] != name:
            continue
        around = [it for it in its.get((e["pid"], e["tid"]), [])
                  if it["ts"] - 1e-3 <= e["ts"] and e["ts"] + e["dur"] <= it["ts"] + it["dur"] + 1e-3]
        assert len(around) <= 1, (e, around)
        if around and "iter" in e["args"]:
            assert e["args"]["iter"] == around[0]["args"]["iter"], (e, around[0])
        key = (e["pid"], e["args"]["cta"], e["group"], e["tid"], e["args"].get("tile", -1))
        out.setdefault(key, []).append(e)
    return out


def test_user_scopes_in_gemm_main_loop(tmp_path):
    # Scopes the user marks in the warp-specialized K loop (and around it)
    # run where the ops they enclose run: k_step (copies and MMA) in the
    # producer and the consumers, once an iteration each, with its K
    # offset; dot (the MMA) in the consumers only; k_loop and bias_relu
    # (around the loop, the epilogue) in the consumers. The kernel stays
    # warp-specialized: the producer and the consumers both show.
    k = load("profile")["gemm_scoped"]
    assert k.profiled
    events, _ = profile_gemm(k, tmp_path / "gemm_scoped.trace.json", 1 << 13)
    steps = user_scopes(events, "k_step")
    dots = user_scopes(events, "dot")
    assert {key[2] for key in steps} == {"load", "compute"}
    assert {key[2] for key in dots} == {"compute"}
    offsets = list(range(0, GEMM_K, 64))
    for key, evs in steps.items():
        assert sorted(e["args"]["iter"] for e in evs) == offsets, (key, evs)
    for key, evs in dots.items():
        assert len(evs) == len(offsets), (key, len(evs))
    # The producer and both consumer warp groups run every step of a tile.
    tiles = {}
    for key in steps:
        tiles.setdefault((key[0], key[1], key[4]), []).append(key[2])
    assert all(sorted(g) == ["compute", "compute", "load"] for g in tiles.values()), tiles
    for name in ("k_loop", "bias_relu"):
        evs = [e for e in events if e["name"] == name]
        assert {e["group"] for e in evs} == {"compute"}, name
        assert len(evs) == 2 * len(tiles), (name, len(evs), len(tiles))


def test_user_scopes_in_attention_main_loop(tmp_path):
    # The attention's main loop with a softmax scope (the consumers' math
    # between the MMAs, which tile-mma-pipeline still overlaps with the
    # late P.V) and a kv_step scope around the whole step (both sides).
    s = 1000
    events = profile_attention(load("profile")["attention_scoped"], 64,
                               tmp_path / "attention_scoped.trace.json", 1 << 14, s=s)
    kv = user_scopes(events, "kv_step")
    soft = user_scopes(events, "softmax")
    assert {key[2] for key in kv} == {"load", "compute"}
    assert {key[2] for key in soft} == {"compute"}
    offsets = list(range(0, s, 128))
    for key, evs in kv.items():
        assert sorted(e["args"]["iter"] for e in evs) == offsets, (key, evs)
    for key, evs in soft.items():
        assert len(evs) == len(offsets), (key, len(evs))
        assert all(e["dur"] > 0 for e in evs)


def test_pingpong_profiled(tmp_path):
    # The ping-pong GEMM: two consumer copies take turns on tiles. Both
    # copies show, and the turns hold: per CTA the copies' main loops (a
    # tile's K iterations) do not run at once (the tensor core is one
    # copy's at a time), while one copy's epilogue overlaps the other's
    # main loop.
    k = load("gemm_variants_profiled")["gemm_pingpong"]
    m, n, kk = 2000, 2056, 520  # 16 x 17 tiles of 128x128 over 132 programs: 2 or 3 each
    a = torch.randn(m, kk, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(kk, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    c = torch.full((m, n), float("nan"), device=DEV, dtype=torch.bfloat16)
    grid = k.grid(a, b, bias, c)
    k(a, b, bias, c, grid=grid)  # warm-up
    c.fill_(float("nan"))
    path = tmp_path / "pingpong.trace.json"
    with tilec.profile(path, records_per_group=1 << 14):
        elapsed = launched_and_timed(lambda: k(a, b, bias, c, grid=grid))
    err = rel_err(c, torch.relu(a.double() @ b.double() + bias.double()))
    assert math.isfinite(err) and err < 1e-2, err
    events = check_trace(path, elapsed, {"load", "compute.0", "compute.1"})
    # Main loops: per CTA, copy and tile, from the first iteration's begin
    # to the last one's end.
    loops, epilogues = {}, []
    for e in events:
        key = (e["pid"], e["args"]["cta"], e["group"], e["args"].get("tile", -1))
        if e["name"] == "iteration" and e["group"].startswith("compute"):
            lo, hi = loops.get(key, (math.inf, -math.inf))
            loops[key] = (min(lo, e["ts"]), max(hi, e["ts"] + e["dur"]))
        elif e["name"] == "epilogue":
            epilogues.append(e)
    by_cta = {}
    for (pid, cta, group, tile), span in loops.items():
        by_cta.setdefault((pid, cta), {}).setdefault(group, []).append(span)
    overlap, total, pairs = 0.0, 0.0, 0
    for copies in by_cta.values():
        if len(copies) < 2:
            continue
        for s0 in copies["compute.0"]:
            total += s0[1] - s0[0]
            for s1 in copies["compute.1"]:
                overlap += max(0.0, min(s0[1], s1[1]) - max(s0[0], s1[0]))
                pairs += 1
    assert pairs > 0, "no CTA ran tiles on both copies"
    assert overlap <= 0.05 * total, (overlap, total)
    # Some epilogue of one copy overlaps a main loop of the other.
    def overlaps(e, span):
        return min(e["ts"] + e["dur"], span[1]) > max(e["ts"], span[0])
    assert any(overlaps(e, span)
               for e in epilogues
               for (pid, cta, group, _), span in loops.items()
               if (pid, cta) == (e["pid"], e["args"]["cta"]) and group != e["group"]
               and group.startswith("compute"))
