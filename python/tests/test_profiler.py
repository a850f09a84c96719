"""The profiler's Python side without a GPU: a session fed a synthetic
buffer (Profile.add_buffer) writes a trace that tilec.profile reads back,
whose summary agrees with the runtime's, and `python -m tilec.profile`
prints it and draws the timeline."""

import json
import os
import struct
import subprocess
import sys

import pytest

import tilec
from tilec.profile import load_perfetto, load_trace, summarize

from tilec_test_util import build_bundle

META = """tilec-bundle 1
arch sm_90a
kernel k
threads 256
profile groups load compute
profile scopes kernel iteration wait#0
profile frame 0:+0
profile frame 0:+1@ 1:-1
profile frame 0:+1@ 1:+2 2:-2 3:-1
profile frame 0:-0
grid 1 1 1
end
"""


def buffer(cap=8):
    """One CTA, two groups; each: kernel [0, 2000) cycles, two iterations
    (the second with a wait), at 2 cycles a ns from globaltimer 1000. A
    frame: its id, arguments and 32-bit clocks, in 16-byte records."""
    frames = [(0, [0]), (1, [0, 100, 300]), (2, [1, 300, 400, 600, 900]), (3, [2000])]
    body = b"".join(struct.pack("<%dI" % (1 + len(w)), f, *w).ljust(16 * ((len(w) + 4) // 4), b"\0")
                    for f, w in frames)
    out = bytearray(struct.pack("<IIII", 2, cap, 2, 0).ljust(64, b"\0"))
    for g in range(2):
        head = struct.pack("<IIIxxxxQQQQ", len(body) // 16, 7, len(body) // 16, 1000 + 50 * g, 0,
                           2000 + 50 * g, 2000)
        out += head.ljust(64, b"\0")
        out += body.ljust(16 * cap, b"\0")
    return bytes(out)


@pytest.fixture
def session(tmp_path):
    k = tilec.load(build_bundle(META))["k"]
    assert k.profiled
    p = tilec.Profile()
    p.add_buffer(k, (1, 1, 1), buffer())
    path = tmp_path / "t.json"
    p.write_trace(path)
    yield p, path
    p.close()


def test_trace_reads_back_and_summaries_agree(session):
    p, path = session
    events, other = load_trace(path)
    assert other == {"dropped": 0, "unmatched": 0, "truncated": 0}
    waits = [e for e in events if e["name"] == "wait#0"]
    # Group 1 starts 50 ns after group 0; its wait 200 cycles (100 ns) in.
    assert [(e["group"], e["ts"], e["dur"]) for e in waits] == [
        ("load", 0.2, 0.1), ("compute", 0.25, 0.1)]
    assert {e["kernel"] for e in events} == {"k"}
    c_rows = [line.split() for line in p.summary().splitlines()]
    py_rows = [line.split() for line in summarize(events, other).splitlines()]
    assert c_rows == py_rows, (c_rows, py_rows)
    json.load(open(path))  # plain JSON too


def test_perfetto_protobuf_trace_parses_and_agrees(session, tmp_path):
    # The same session as Perfetto's protobuf format, read back with
    # Perfetto's generated message classes: every JSON event is a slice on
    # the thread track of its CTA and warp group, with the same times.
    pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2",
                        reason="perfetto (0.59 or later, with protobuf) is not installed")
    p, json_path = session
    path = tmp_path / "t.pftrace"
    p.write_trace(path)
    slices = load_perfetto(path)
    events, _ = load_trace(json_path)
    assert len(slices) == len(events)
    assert sorted((s[1].split()[-1], s[2], s[3], s[4] - s[3]) for s in slices) == sorted(
        (e["group"], e["name"], round(e["ts"] * 1000) + 0, round(e["dur"] * 1000))
        for e in events)
    iters = sorted(s[5]["iter"] for s in slices if s[2] == "iteration")
    assert iters == [0, 0, 1, 1]
    assert {s[0] for s in slices} == {"k #0 SM 7"}


def test_cli_prints_summary_and_draws(session, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    _, path = session
    png = tmp_path / "t.png"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-m", "tilec.profile", str(path), "--summary",
                        "--png", str(png), "--window", "0", "1"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "wait#0" in r.stdout and "records dropped (buffer full): 0" in r.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-m", "tilec.profile", str(bad)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "cannot read" in r.stderr


GOOD_EVENT = {"ph": "X", "name": "kernel", "pid": 7, "tid": 0, "ts": 0.0, "dur": 1.0,
              "args": {"cta": 0, "group": "load"}}


def trace(events=(), **fields):
    return json.dumps(dict({"traceEvents": list(events)}, **fields))


@pytest.mark.parametrize("content, message", [
    ("[]", "not a trace: no traceEvents list"),
    ("NaN", "not a trace: no traceEvents list"),
    ('{"traceEvents": 3}', "not a trace: no traceEvents list"),
    (trace([3]), "traceEvents[0] is not an object"),
    (trace([dict(GOOD_EVENT), {"ph": "X"}]), "traceEvents[1].pid is null, not an integer"),
    (trace([dict(GOOD_EVENT, dur="1")]), 'traceEvents[0].dur is "1", not a number'),
    (trace([dict(GOOD_EVENT, ts=float("inf"))]), "traceEvents[0].ts is Infinity, not a number"),
    (trace([dict(GOOD_EVENT, pid=[7])]), "traceEvents[0].pid is [7], not an integer"),
    (trace([dict(GOOD_EVENT, name=["k"])]), 'traceEvents[0].name is ["k"], not a string'),
    (trace([dict(GOOD_EVENT, args={"cta": 0})]), "traceEvents[0].args.group is null"),
    (trace([dict(GOOD_EVENT, args=None)]), "traceEvents[0].args is null, not an object"),
    (trace([{"ph": "M", "name": "process_name", "pid": 7, "args": {"name": 3}}]),
     "traceEvents[0].args.name is 3, not a string"),
    (trace(otherData=5), "otherData is not an object"),
    (trace(otherData={"dropped": "x"}), 'otherData.dropped is "x", not an integer'),
    (b"\xff\xfe", "'utf-8' codec can't decode byte 0xff"),
    ("[" * 100000, "maximum recursion depth"),
], ids=["list", "nan", "events-not-a-list", "event-not-an-object", "no-pid", "dur-string",
        "ts-infinite", "pid-list", "name-list", "no-group", "no-args", "process-name-int",
        "other-not-an-object", "dropped-string", "not-utf8", "deep"])
def test_a_malformed_trace_is_one_line_of_error(tmp_path, capsys, content, message):
    from tilec.profile import main
    path = tmp_path / "t.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert main([str(path), "--summary"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("python -m tilec.profile: cannot read %s: " % path)
    assert message in err and err.count("\n") == 1


def test_cli_errors_are_one_line_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(trace([dict(GOOD_EVENT, dur="1")]))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for args in ([str(bad)], [str(tmp_path)], [str(tmp_path / "missing.json")]):
        r = subprocess.run([sys.executable, "-m", "tilec.profile", *args],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.startswith("python -m tilec.profile: cannot read ") and \
            r.stderr.count("\n") == 1, r.stderr


def test_cli_cannot_draw_is_one_line(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    from tilec.profile import main
    good = tmp_path / "t.json"
    good.write_text(trace([GOOD_EVENT]))
    assert main([str(good), "--png", str(tmp_path / "no-such-dir" / "t.png")]) == 1
    empty = tmp_path / "empty.json"
    empty.write_text(trace())
    assert main([str(empty), "--png", str(tmp_path / "t.png")]) == 1


def test_a_bad_path_or_size_is_refused_up_front(tmp_path):
    # The C string would have ended at the NUL: the trace went to "t".
    p = tilec.Profile()
    with pytest.raises(tilec.TilecError, match="trace path .* contains a NUL character"):
        p.write_trace(str(tmp_path / "t") + "\0.json")
    assert not (tmp_path / "t").exists()
    with pytest.raises(tilec.TilecError, match="trace path .* cannot be passed to the runtime"):
        tilec.Profile(str(tmp_path / "t\ud800.json"))
    for records in ("many", 0, 1.5, 1 << 32):
        with pytest.raises(tilec.TilecError, match="records_per_group must be an integer"):
            tilec.Profile(records_per_group=records)
    with pytest.raises(tilec.TilecError, match="a profile buffer is bytes, got str"):
        p.add_buffer(tilec.load(build_bundle(META))["k"], (1, 1, 1), "data")


def test_unprofiled_kernel_cannot_take_a_buffer():
    from tilec_test_util import VECTOR_ADD
    k = tilec.load(build_bundle(VECTOR_ADD))["vector_add"]
    assert not k.profiled
    with pytest.raises(tilec.TilecError, match="compiled without --profile"):
        tilec.Profile().add_buffer(k, (1, 1, 1), buffer())
