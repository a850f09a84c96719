"""Every example compiled with --profile, for each target, loads in the
runtime (no GPU needed) and names a profile group for each warp group of
its launch: sm_100a's one-warp load and MMA partitions share one (their
bundles were refused: "lists 4 profile groups for 384 threads")."""

import os
import subprocess

import pytest

import tilec
from tilec.compile import compiler_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("example", ["gemm", "attention", "gemm_variants", "grouped_gemm"])
def test_profiled_bundle_loads(tmp_path, arch, example):
    try:
        compiler = compiler_path()
    except tilec.TilecError:
        pytest.skip("no tilec compiler built")
    out = tmp_path / "k.tlc"
    subprocess.run([compiler, "compile",
                    os.path.join(ROOT, "examples", example + ".mlir"),
                    "--arch=" + arch, "--profile", "-o", str(out)],
                   check=True, capture_output=True)
    bundle = tilec.load(str(out))
    profiled = [bundle[name] for name in bundle.kernels if bundle[name].profiled]
    assert profiled
