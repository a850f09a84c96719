"""docs/TUTORIAL.md's code blocks run as written (scripts/run_doc.py): here
every block that needs no GPU: the kernels compile, the compiler's error is
the one shown, the bundles load and the launches are checked. The GPU blocks
run in test/gpu/test_tutorial_gpu.py."""

import os
import pathlib
import subprocess
import sys

import pytest

import tilec

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def test_tutorial_blocks_without_a_gpu(tmp_path):
    try:
        tilec.compiler_path()
    except tilec.TilecError:
        pytest.skip("no tilec compiler built")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "run_doc.py"),
                        str(REPO / "docs" / "TUTORIAL.md"), "--work", str(tmp_path),
                        "--phase", "cpu"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "run_doc: 5 blocks ran, 4 left to the other phase" in r.stdout, r.stdout
    for bundle in ("axpy.tlc", "gemm_gelu.tlc"):
        assert (tmp_path / bundle).stat().st_size > 0
    assert "warp-specialized TMA + wgmma" in r.stdout + r.stderr
