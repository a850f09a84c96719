"""Timing peers fairly: each backend of a row is timed in rounds, taking
the backends in turn with the order rotating, and reported as the median
of its rounds (each round do_bench's median). A GPU's clock falls under
sustained load; timed one after the other, the backend timed last in a
row ran at the lowest clock (the attention table had tilec, timed last,
about 5% under what the same kernel gives in turn with its peers)."""

import statistics

import triton.testing

ROUNDS = 5


def interleaved(runs, rounds=ROUNDS, rep_ms=60):
    """{name: fn} -> {name: median milliseconds}."""
    names = list(runs)
    times = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(triton.testing.do_bench(runs[name], warmup=10, rep=rep_ms,
                                                       return_mode="median"))
    return {name: statistics.median(ts) for name, ts in times.items()}
