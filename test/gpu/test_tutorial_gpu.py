"""docs/TUTORIAL.md's GPU blocks (scripts/run_doc.py --phase gpu), in the work
directory whose bundles the CPU phase made: $TILEC_TUTORIAL_DIR (staged by
scripts/stage-gpu.sh), else made here when the compiler is built."""

import os
import subprocess
import sys

import pytest

from gpu_common import ROOT

import tilec


def test_tutorial_gpu_blocks(tmp_path):
    work = os.environ.get("TILEC_TUTORIAL_DIR")
    run_doc = [sys.executable, os.path.join(ROOT, "scripts", "run_doc.py"),
               os.path.join(ROOT, "docs", "TUTORIAL.md")]
    if not work:
        try:
            tilec.compiler_path()
        except tilec.TilecError:
            pytest.skip("no tilec compiler and no staged tutorial (TILEC_TUTORIAL_DIR)")
        work = str(tmp_path)
        r = subprocess.run(run_doc + ["--work", work, "--phase", "cpu"], capture_output=True,
                           text=True, timeout=900)
        assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(run_doc + ["--work", work, "--phase", "gpu"], capture_output=True,
                       text=True, timeout=900)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "run_doc: 4 blocks ran" in r.stdout, r.stdout
    assert "tilec / cuBLAS" in r.stdout
