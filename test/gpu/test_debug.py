"""GPU tests of tile.print and tile.assert (test/gpu/kernels/debug.mlir,
compiled with --debug). Each launch runs in a child process: the device's
printf writes to the process's stdout, and an assertion leaves the CUDA
context unusable. Skipped without a GPU."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from gpu_common import BUNDLES, torch  # noqa: F401  (skips without a GPU)

HERE = os.path.dirname(os.path.abspath(__file__))


def run(body):
    """Runs `body` (Python) in a child with the bundle loaded as `dbg`."""
    code = textwrap.dedent(
        f"""
        import os, sys, torch, tilec
        dbg = tilec.load(os.path.join({BUNDLES!r}, "debug.tlc"))
        """
    ) + textwrap.dedent(body)
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120, env=env)


def test_print_tile_and_scalar():
    r = run(
        """
        x = torch.arange(4 * 8, device="cuda", dtype=torch.int32).reshape(4, 8) * 3 - 20
        dbg["print_tile"](x, 41)
        torch.cuda.synchronize()
        """
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    tile = sorted(l for l in lines if " x[" in l)
    # Every element once, from program (1, 0, 0) only.
    want = sorted(f"pid (1, 0, 0) x[{i}, {j}] = {(i * 8 + j) * 3 - 20}"
                  for i in range(4) for j in range(8))
    assert tile == want
    scal = sorted(l for l in lines if " n = " in l)
    assert scal == [f"pid ({p}, 0, 0) n = 41" for p in range(3)]


def test_assert_passes():
    r = run(
        """
        x = torch.rand(1000, device="cuda")
        dbg["check_below"](x, 2.0)
        torch.cuda.synchronize()
        print("ok")
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")
    assert "assertion failed" not in r.stdout


def test_assert_fails_with_message_and_coordinates():
    r = run(
        """
        x = torch.rand(1000, device="cuda")
        x[517] = 5.0
        try:
            dbg["check_below"](x, 2.0)
            torch.cuda.synchronize()
        except Exception as e:
            print("raised:", e)
            sys.exit(3)
        print("no error")
        """
    )
    out = r.stdout
    assert r.returncode != 0, out
    # 517 = program 4, element 5; reported once (4 warps hold copies of
    # the 128-element tile: only the owner reports).
    found = re.findall(r"debug\.mlir:\d+: pid \(4, 0, 0\) at \[5\]: assertion "
                       r"failed: x below the limit", out)
    assert len(found) == 1, out
    assert "assert" in (out + r.stderr).lower()
