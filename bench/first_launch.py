"""The first launch of each GEMM member: a bundle assembled ahead of time
against one whose members are PTX compiled on first use (issue 15).

    python3 bench/first_launch.py LAZY.tlc ALL.tlc

LAZY.tlc is examples/gemm.mlir compiled as bundles are by default
(--assemble=primary), ALL.tlc with --assemble=all. Each column is a fresh
process launching every kernel of the family once at 1000x1000x520 (a
shape off every tile), the time of that first call and its completion:
the module's load (and, for a PTX member, the driver's compile) included.
The columns: the assembled bundle; the lazy bundle with an empty driver
cache (CUDA_CACHE_PATH a new directory); the lazy bundle again with that
cache (what every later process of the user sees). Each first result is
checked against float64.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(path):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import torch
    import tilec

    torch.manual_seed(0)
    m, n, k = 1000, 1000, 520
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
    bias = torch.randn(n, device="cuda")
    want = torch.relu(a.double() @ b.double() + bias.double())
    bundle = tilec.load(path)
    out = {}
    for name in bundle:
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        torch.cuda.synchronize()
        t = time.perf_counter()
        bundle[name](a, b, bias, c)
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t) * 1000.0
        err = ((c.double() - want).norm() / want.norm()).item()
        out[name] = (ms, err)
    print(json.dumps(out))


def run(path, cache):
    env = dict(os.environ, CUDA_CACHE_PATH=cache)
    got = subprocess.run([sys.executable, __file__, "--child", path], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


def main():
    lazy, full = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as c1, tempfile.TemporaryDirectory() as c2:
        assembled = run(full, c1)
        cold = run(lazy, c2)
        warm = run(lazy, c2)
    print("first launch of each kernel at 1000x1000x520, ms (fresh processes)")
    print("%-22s %12s %14s %14s %10s" % ("kernel", "assembled", "PTX, cold JIT",
                                        "PTX, cached", "max error"))
    bad = []
    for name in assembled:
        errs = [assembled[name][1], cold[name][1], warm[name][1]]
        bad += [name for e in errs if not e < 2e-2]  # NaN (nothing written) too
        print("%-22s %12.1f %14.1f %14.1f %10.1e" % (name, assembled[name][0], cold[name][0],
                                                     warm[name][0], max(errs)))
    if bad:
        print("first_launch: FAIL (%s)" % ", ".join(sorted(set(bad))))
        sys.exit(1)
    print("first_launch: PASS (every result within 2e-2 of float64)")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
