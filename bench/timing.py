"""Timing peers fairly: each backend of a row is timed in rounds, taking
the backends in turn with the order rotating, and reported as the median
of its rounds (each round do_bench's median). A GPU's clock falls under
sustained load; timed one after the other, the backend timed last in a
row ran at the lowest clock (the attention table had tilec, timed last,
about 5% under what the same kernel gives in turn with its peers)."""

import statistics

import torch
import triton.testing

ROUNDS = 5


def _elapsed_ms(fn):
    """Milliseconds between two events around fn() (what fn queues)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


class FlushedGraph:
    """The GPU time of `fn` with a cold L2 and no host in the way: a CUDA
    graph of `reps` pairs (an L2 flush, fn) replayed, minus a graph of the
    flushes alone, per launch. do_bench flushes too, but times each launch
    from the host: a launch whose host path takes longer than the flush
    (tilec's from Python: 45-80 us) is timed with part of that delay, at
    random (RESULTS.md, 2026-11-24). Graph replays remove the host; the
    flush keeps what a stream of different weights would see."""

    def __init__(self, fn, graph_ms=20.0):
        self.flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
        fn()  # outside the capture: module loads, attribute setting
        torch.cuda.synchronize()
        pair_ms = _elapsed_ms(lambda: (self.flush.zero_(), fn()))
        # About graph_ms of work a replay, 3 to 50 pairs.
        reps = int(min(50, max(3, graph_ms / max(pair_ms, 1e-3))))
        self.both, self.alone = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.both):
            for _ in range(reps):
                self.flush.zero_()
                fn()
        with torch.cuda.graph(self.alone):
            for _ in range(reps):
                self.flush.zero_()
        self.reps = reps

    def _replay_ms(self, graph):
        graph.replay()  # warm
        return _elapsed_ms(graph.replay)

    def __call__(self):
        """Milliseconds of one launch of fn (median of 5 replays of each graph)."""
        both = statistics.median(self._replay_ms(self.both) for _ in range(5))
        alone = statistics.median(self._replay_ms(self.alone) for _ in range(5))
        return max(both - alone, 1e-6) / self.reps


def back_to_back_ms(fn, run_ms=50.0):
    """Milliseconds of one launch of fn among launches queued back to back
    (about run_ms of them between two events, after one warm-up): the
    host queues ahead of the GPU once a launch takes longer on the GPU
    than its host path, so this is the GPU's time, as a training loop's
    host running ahead sees it; no L2 flush (for launches whose inputs
    are several times L2, as attention's)."""
    fn()
    torch.cuda.synchronize()
    reps = int(min(200, max(3, run_ms / max(_elapsed_ms(fn), 1e-3))))

    def queue():
        for _ in range(reps):
            fn()  # (each result freed before the next launch)
    return _elapsed_ms(queue) / reps


def interleaved(runs, rounds=ROUNDS, rep_ms=60, graphs=False, back_to_back=False):
    """{name: fn} -> {name: median milliseconds}; with `graphs`, each
    round's figure comes from FlushedGraph instead of do_bench, with
    `back_to_back` from back_to_back_ms."""
    names = list(runs)
    times = {name: [] for name in names}
    timers = {name: FlushedGraph(fn) for name, fn in runs.items()} if graphs else {}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            if graphs:
                times[name].append(timers[name]())
            elif back_to_back:
                times[name].append(back_to_back_ms(runs[name]))
            else:
                times[name].append(triton.testing.do_bench(runs[name], warmup=10, rep=rep_ms,
                                                           return_mode="median"))
    return {name: statistics.median(ts) for name, ts in times.items()}
