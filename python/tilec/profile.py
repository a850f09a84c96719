"""The intra-kernel profiler (docs/PROFILER.md).

Kernels compiled with ``tilec compile --profile`` record, per warp group,
when they enter and leave the scopes the compiler knows (the kernel, loop
iterations, barrier waits, MMAs, the epilogue) and those the program marks.

    import tilec
    with tilec.profile("gemm.trace.json") as p:
        kernel(a, b, c)
    print(p.summary())

Launches inside the ``with`` block record into the session (each gets its
own buffer); on leaving it the buffers are read back and, with a path, the
Chrome trace-event file is written (open it in https://ui.perfetto.dev or
chrome://tracing).

    python -m tilec.profile trace.json --summary [--png timeline.png]

prints the summary of a trace file and draws its timeline.
"""

import argparse
import ctypes
import json
import math
import sys
import threading

from . import _lib
from ._lib import TilecError, check, lib
from .runtime import _as_int, _c_string, _grid

# Records a warp group has room for in each launch (16 bytes each).
DEFAULT_RECORDS = 1 << 15

_state = threading.local()


def active():
    """The innermost open session of this thread, or None."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


class Profile:
    """A recording session (see the module's doc)."""

    def __init__(self, path=None, records_per_group=DEFAULT_RECORDS):
        if path is not None:
            _c_string(path, "trace path")  # refused now, not after the launches
        records = _as_int(records_per_group)
        if records is None or not 1 <= records < (1 << 32):
            raise TilecError("records_per_group must be an integer in [1, 2^32), got %r"
                             % (records_per_group,), _lib.INVALID_ARGUMENT)
        self.path = path
        handle = ctypes.c_void_p()
        check(lib().tilec_profile_create(records, ctypes.byref(handle)))
        self._handle = handle

    def _handle_alive(self):
        if self._handle is None:
            raise TilecError("the profile session is closed", _lib.INVALID_ARGUMENT)
        return self._handle

    def __enter__(self):
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _state.stack.remove(self)
        if exc[0] is None:
            self.collect()
            if self.path:
                self.write_trace(self.path)
        return False

    def collect(self):
        """Waits for the session's launches and reads their records."""
        check(lib().tilec_profile_collect(self._handle_alive()))

    def add_buffer(self, kernel, grid, data):
        """Adds a profile buffer read elsewhere (bytes) as a launch of
        `kernel` (a tilec.Kernel) with `grid` (an int or 1 to 3 ints)."""
        g = (ctypes.c_uint32 * 3)(*_grid(grid))
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TilecError("a profile buffer is bytes, got %s" % type(data).__name__,
                             _lib.INVALID_ARGUMENT)
        data = bytes(data)
        check(lib().tilec_profile_add_buffer(self._handle_alive(), kernel._handle_alive(), g,
                                             data, len(data)))

    def write_trace(self, path):
        """Writes the Chrome trace-event JSON file, or Perfetto's protobuf
        format where the path ends in .pftrace or .perfetto-trace."""
        check(lib().tilec_profile_write_trace(self._handle_alive(),
                                              _c_string(path, "trace path")))

    def summary(self):
        """The text summary: per kernel, warp group and scope, the count,
        total, mean, p50 and p99 (microseconds) and the share of the
        group's kernel time; then the dropped and unmatched records."""
        L = lib()
        n = ctypes.c_size_t()
        check(L.tilec_profile_summary(self._handle_alive(), None, 0, ctypes.byref(n)))
        buf = ctypes.create_string_buffer(n.value)
        check(L.tilec_profile_summary(self._handle_alive(), buf, n.value, ctypes.byref(n)))
        return buf.value.decode()

    @property
    def dropped(self):
        """Records the buffers had no room for."""
        return int(lib().tilec_profile_dropped(self._handle_alive()))

    def close(self):
        if self._handle is not None:
            lib().tilec_profile_free(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def profile(path=None, records_per_group=DEFAULT_RECORDS):
    """A recording session, for ``with``: see the module's doc."""
    return Profile(path, records_per_group)


# ---- trace files ----------------------------------------------------------------


def load_perfetto(path):
    """The slices of a Perfetto protobuf trace (write_trace to a .pftrace
    path), parsed with Perfetto's generated message classes (the `perfetto`
    package, 0.59 or later): a list of (process name, thread name, scope,
    begin ns, end ns, {annotation: int}). Raises ValueError where the trace
    does not hold together (a packet off sequence 1, an event on a track
    no descriptor named or without a parent, an end with nothing open or
    before its begin, a slice left open)."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb2
    trace = pb2.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    names, parents, open_, out = {}, {}, {}, []
    for pk in trace.packet:
        if pk.trusted_packet_sequence_id != 1:
            raise ValueError("a packet off sequence 1: %s" % pk)
        if pk.HasField("track_descriptor"):
            d = pk.track_descriptor
            names[d.uuid] = d.process.process_name if d.HasField("process") else d.thread.thread_name
            if d.HasField("parent_uuid"):
                parents[d.uuid] = d.parent_uuid
            continue
        ev = pk.track_event
        if ev.track_uuid not in names or ev.track_uuid not in parents:
            raise ValueError("an event on an undescribed track: %s" % ev)
        stack = open_.setdefault(ev.track_uuid, [])
        if ev.type == pb2.TrackEvent.TYPE_SLICE_BEGIN:
            stack.append((ev.name, pk.timestamp, {a.name: a.int_value for a in ev.debug_annotations}))
            continue
        if ev.type != pb2.TrackEvent.TYPE_SLICE_END or not stack:
            raise ValueError("an end with no open slice: %s" % ev)
        name, begin, args = stack.pop()
        if pk.timestamp < begin:
            raise ValueError("slice %s ends before it begins" % name)
        out.append((names[parents[ev.track_uuid]], names[ev.track_uuid], name, begin,
                    pk.timestamp, args))
    if any(open_.values()):
        raise ValueError("slices left open")
    return out


_INT = ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
_NUMBER = ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
           and math.isfinite(v))
_STR = ("a string", lambda v: isinstance(v, str))
_OBJECT = ("an object", lambda v: isinstance(v, dict))


def _check(value, kind, where):
    """`value`, where it is of `kind` (_INT, ...); else ValueError."""
    if not kind[1](value):
        raise ValueError("%s is %s, not %s" % (where, json.dumps(value), kind[0]))
    return value


def load_trace(path):
    """The complete events of a trace file, each a dict with `kernel`
    (from its process name), `group`, `name`, `ts`, `dur` (microseconds),
    `pid`, `tid` and `args`, and the file's `otherData`. Raises ValueError
    (saying what and where) for a file that is not such a trace."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise ValueError("not a trace: no traceEvents list")
    other = doc.get("otherData", {})
    if not isinstance(other, dict):
        raise ValueError("otherData is not an object")
    for key in ("dropped", "unmatched", "truncated"):
        _check(other.get(key, 0), _INT, "otherData.%s" % key)
    kernels, events = {}, []
    for i, e in enumerate(doc["traceEvents"]):
        where = "traceEvents[%d]" % i
        if not isinstance(e, dict):
            raise ValueError("%s is not an object" % where)
        args = e.get("args")
        if e.get("ph") == "M" and e.get("name") == "process_name":
            _check(e.get("pid"), _INT, where + ".pid")
            _check(args, _OBJECT, where + ".args")
            kernels[e["pid"]] = _check(args.get("name"), _STR, where + ".args.name").split(" #")[0]
        if e.get("ph") != "X":
            continue
        for key, kind in (("pid", _INT), ("tid", _INT), ("name", _STR), ("ts", _NUMBER),
                          ("dur", _NUMBER), ("args", _OBJECT)):
            _check(e.get(key), kind, "%s.%s" % (where, key))
        _check(args.get("group"), _STR, where + ".args.group")
        _check(args.get("cta"), _INT, where + ".args.cta")
        events.append(dict(e, group=args["group"]))
    for e in events:
        e["kernel"] = kernels.get(e["pid"], "?")
    return events, other


def summarize(events, other=None):
    """The summary table of load_trace's events (as Profile.summary)."""
    by_scope, kernel_time = {}, {}
    for e in events:
        key = (e["kernel"], e["group"], e["name"])
        by_scope.setdefault(key, []).append(e["dur"])
        if e["name"] == "kernel":
            kernel_time[key[:2]] = kernel_time.get(key[:2], 0.0) + e["dur"]
    lines = ["%-24s %-10s %-14s %9s %12s %10s %10s %10s %7s" % (
        "kernel", "group", "scope", "count", "total us", "mean us", "p50 us", "p99 us", "share")]
    for key in sorted(by_scope):
        v = sorted(by_scope[key])
        total = sum(v)
        kt = kernel_time.get(key[:2], 0.0)
        pct = lambda p: v[max(1, (len(v) * p + 99) // 100) - 1]  # noqa: E731
        share = "%.1f%%" % (100.0 * total / kt) if kt > 0 else "-"
        lines.append("%-24s %-10s %-14s %9d %12.3f %10.3f %10.3f %10.3f %7s" % (
            key[0], key[1], key[2], len(v), total, total / len(v), pct(50), pct(99), share))
    if other:
        lines.append("records dropped (buffer full): %d; unmatched records: %d; slices missing "
                     "from short buffers: %d" % (other.get("dropped", 0),
                                                 other.get("unmatched", 0),
                                                 other.get("truncated", 0)))
    return "\n".join(lines) + "\n"


def draw_timeline(events, out, max_rows=24, window=None):
    """A PNG of the first `max_rows` warp-group rows (by process and
    thread), over `window` ((start, end) in microseconds from the first
    record; default all): each scope a bar, the scopes that hold others
    (kernel, tile, iteration) drawn first and thinner, so that what runs
    inside them shows over them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.patches
    import matplotlib.pyplot as plt

    if not events:
        raise ValueError("the trace has no events to draw")
    rows = sorted({(e["pid"], e["tid"]) for e in events})[:max_rows]
    index = {r: i for i, r in enumerate(rows)}
    names = sorted({e["name"] for e in events})
    cmap = plt.get_cmap("tab20")
    color = {n: cmap(i % 20) for i, n in enumerate(names)}
    t0 = min(e["ts"] for e in events)
    lo, hi = (window[0] + t0, window[1] + t0) if window else (-math.inf, math.inf)
    fig, ax = plt.subplots(figsize=(14, 0.35 * len(rows) + 1.5))
    shown = [e for e in events if (e["pid"], e["tid"]) in index
             and e["ts"] < hi and e["ts"] + e["dur"] > lo]
    outer = {"kernel": 0.8, "tile": 0.6, "iteration": 0.4}
    bars = {}  # one broken_barh a row and scope
    for e in shown:
        bars.setdefault((index[(e["pid"], e["tid"])], e["name"]), []).append(
            (e["ts"] - t0, max(e["dur"], 1e-3)))
    for (y, name), spans in sorted(bars.items(), key=lambda kv: -outer.get(kv[0][1], 0.3)):
        h = outer.get(name, 0.3)
        ax.broken_barh(spans, (y - h / 2, h), facecolors=color[name])
    if window:
        ax.set_xlim(window)
    ax.set_yticks(range(len(rows)))
    labels = {}
    for e in shown:
        labels[(e["pid"], e["tid"])] = "%s cta %d %s" % (e["kernel"], e["args"]["cta"], e["group"])
    ax.set_yticklabels([labels[r] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time (us) since the first record")
    ax.legend(handles=[matplotlib.patches.Patch(color=color[n], label=n) for n in names],
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tilec.profile",
                                 description="Summarize and draw a tilec trace file.")
    ap.add_argument("trace")
    ap.add_argument("--summary", action="store_true", help="print the summary table")
    ap.add_argument("--png", help="draw the timeline of the first warp groups here")
    ap.add_argument("--rows", type=int, default=24, help="warp-group rows in the picture")
    ap.add_argument("--window", type=float, nargs=2, metavar=("START", "END"),
                    help="draw only this time window (us since the first record)")
    args = ap.parse_args(argv)
    try:
        events, other = load_trace(args.trace)
    except (OSError, ValueError, RecursionError) as e:
        print("python -m tilec.profile: cannot read %s: %s" % (args.trace, e), file=sys.stderr)
        return 1
    if args.summary or not args.png:
        sys.stdout.write(summarize(events, other))
    if args.png:
        try:
            draw_timeline(events, args.png, args.rows, args.window)
        except (ImportError, OSError, ValueError) as e:
            print("python -m tilec.profile: cannot draw %s: %s" % (args.png, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
