"""The intra-kernel profiler's overhead and traces (issue 14).

    python3 bench/profile.py [OUTDIR]

For the GEMM at 8192^3 (bf16) and the attention forward (D = 128, S =
8192, B = 4, H = 16): the kernel compiled with --profile, recording into a
session, against the same kernel compiled without and the peer (cuBLAS
through torch.mm, SDPA through torch), in one run, on the same inputs,
taken in turn; also the GEMM with user scopes in its main loop
(test/gpu/kernels/profile.mlir's gemm_scoped) against the plain GEMM (each timing: an L2 flush and a sleep queued first,
so the host's launch path is not timed; CUDA events around the launch; the
median of 15). The profiled launch reuses its session's buffer (nothing
allocated in the timed window). Then one profiled launch of each writes
OUTDIR/{gemm,attention}.trace.json, .summary.txt and .png, and of the
ping-pong GEMM (gemm_variants' gemm_pingpong) as gemm_pingpong.*.
"""

import math
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402
from tilec.profile import Profile, draw_timeline, load_trace  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(os.path.dirname(__file__), "..",
                                                          "build", "examples"))
REPS = 15


def timed(launch, session, flush):
    """One launch's GPU time in microseconds (then the session collects)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    flush.zero_()
    torch.cuda._sleep(1_000_000)
    start.record()
    launch()
    end.record()
    torch.cuda.synchronize()
    if session is not None:
        session.collect()
    return start.elapsed_time(end) * 1000.0


def trace_of(name, kernel, args, records, outdir, window):
    """One profiled launch alone in its session: NAME.trace.json,
    .summary.txt and .png (the first rows over `window`)."""
    trace = os.path.join(outdir, name + ".trace.json")
    with tilec.profile(trace, records_per_group=records) as p:
        kernel(*args)
    summary = p.summary()
    with open(os.path.join(outdir, name + ".summary.txt"), "w") as f:
        f.write(summary)
    events, _ = load_trace(trace)
    draw_timeline(events, os.path.join(outdir, name + ".png"), window=window)
    return summary, p.dropped


def compare(name, plain, profiled, peer, args, flops, records, outdir, window):
    """The unprofiled kernel, the profiled one and the peer (cuBLAS or
    SDPA through torch), taken in turn REPS times."""
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    session = Profile(records_per_group=records)
    plain(*args)
    peer()
    with session:
        profiled(*args)  # the session's buffer, reused by every timed launch
    session.collect()
    t_plain, t_prof, t_peer = [], [], []
    for _ in range(REPS):
        t_plain.append(timed(lambda: plain(*args), None, flush))
        with session:
            t_prof.append(timed(lambda: profiled(*args), session, flush))
        t_peer.append(timed(peer, None, flush))
    a, b, p = (statistics.median(t) for t in (t_plain, t_prof, t_peer))
    summary, dropped = trace_of(name, profiled, args, records, outdir, window)
    return (name, a, b, flops / a * 1e-6, flops / b * 1e-6, b / a - 1.0, dropped, summary,
            p, flops / p * 1e-6)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    rows = []
    load = lambda f: tilec.load(os.path.join(BUNDLES, f))  # noqa: E731

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    c_peer = torch.empty_like(c)
    cublas = lambda: torch.mm(a, b, out=c_peer)  # noqa: E731
    rows.append(compare("gemm", load("gemm.tlc")["gemm"], load("gemm_profiled.tlc")["gemm"],
                        cublas, (a, b, bias, c), 2.0 * n ** 3, 1 << 15, outdir, (400, 415)))
    # The same GEMM with user scopes in and around its main loop
    # (test/gpu/kernels/profile.mlir, compiled with --profile): what a
    # user's scopes add.
    rows.append(compare("gemm_scopes", load("gemm.tlc")["gemm"],
                        load("profile.tlc")["gemm_scoped"], cublas, (a, b, bias, c),
                        2.0 * n ** 3, 1 << 15, outdir, (400, 415)))

    bb, h, s, d = 4, 16, 8192, 128
    q, k, v = (torch.randn(bb, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty(bb, h, s, d, device="cuda", dtype=torch.bfloat16)
    lse = torch.empty(bb, h, s, device="cuda")
    args = (q, k, v, o, lse, 1.0 / math.sqrt(d), 0)
    sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa: E731
    rows.append(compare("attention", load("attention.tlc")["attention_d128"],
                        load("attention_profiled.tlc")["attention_d128"], sdpa, args,
                        4.0 * bb * h * s * s * d, 1 << 16, outdir, (400, 415)))
    # The ping-pong GEMM (two consumer copies taking turns on tiles), as
    # written (its own grid: no other member chosen).
    pp = load("gemm_variants_profiled.tlc")["gemm_pingpong"]
    trace_of("gemm_pingpong", lambda *xs: pp(*xs, grid=pp.grid(*xs)), (a, b, bias, c), 1 << 15,
             outdir, (400, 415))
    # Small launches whose whole traces come back (for a trace parser).
    m = 1024
    small = (a[:m, :m].contiguous(), b[:m, :m].contiguous(), bias[:m], c[:m, :m].contiguous())
    trace_of("gemm_small", load("gemm_profiled.tlc")["gemm"], small, 1 << 12, outdir, None)
    q2, k2, v2 = (t[:1, :2, :1024].contiguous() for t in (q, k, v))
    o2, lse2 = o[:1, :2, :1024].contiguous(), lse[:1, :2, :1024].contiguous()
    trace_of("attention_small", load("attention_profiled.tlc")["attention_d128"],
             (q2, k2, v2, o2, lse2, 1.0 / math.sqrt(d), 0), 1 << 12, outdir, None)

    for r in rows:
        print("\n== %s: trace summary ==\n%s" % (r[0], r[7]))
    print("%s (%s)" % (torch.cuda.get_device_name(), os.environ.get("TILEC_COMMIT", "")))
    print("peer: cuBLAS (torch.mm) for the GEMMs, SDPA (torch) for attention; "
          "ratios are tilec's TFLOP/s over the peer's")
    print("%-12s %10s %11s %8s %8s %8s %9s %7s %9s %9s" % (
        "kernel", "plain us", "profiled us", "peer us", "plain TF", "prof TF", "overhead",
        "dropped", "plain/peer", "prof/peer"))
    for r in rows:
        print("%-12s %10.1f %11.1f %8.1f %8.0f %8.0f %8.1f%% %7d %9.2f %9.2f" % (
            r[0], r[1], r[2], r[8], r[3], r[4], 100 * r[5], r[6], r[3] / r[9], r[4] / r[9]))


if __name__ == "__main__":
    main()
