"""examples/cmake-consumer, built against an installed tilec (ctest's
cmake_consumer_build, or scripts/stage-gpu.sh for the GPU machine), runs its
two kernels and checks them against float64 references."""

import os
import subprocess

import pytest

from gpu_common import ROOT

CONSUMER = os.environ.get("TILEC_CONSUMER",
                          os.path.join(ROOT, "build", "test", "cmake-consumer", "build",
                                       "consumer"))


def test_consumer_runs_and_is_correct():
    if not os.path.exists(CONSUMER):
        pytest.skip("the consumer project is not built (ctest -R cmake_consumer_build)")
    env = dict(os.environ)
    runtime = os.environ.get("TILEC_RUNTIME_LIB")
    if runtime:  # the staged runtime, where the install's is not (GPU machine)
        env["LD_LIBRARY_PATH"] = os.path.dirname(runtime) + ":" + env.get("LD_LIBRARY_PATH", "")
    for seed in ("1", "2"):
        r = subprocess.run([CONSUMER, seed], capture_output=True, text=True, timeout=300,
                           env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "consumer: correct" in r.stdout, r.stdout
        assert r.stdout.count("max |error|") == 2, r.stdout
