"""`pip install ./python` installs a package that works on its own: the
runtime library built from ../runtime and placed beside the modules, found
without TILEC_RUNTIME_LIB or the repository on sys.path."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_pip_install_builds_the_runtime_into_the_package(tmp_path):
    try:
        import setuptools  # noqa: F401
        import wheel  # noqa: F401
    except ImportError as e:
        pytest.skip("pip builds need setuptools and wheel: %s" % e)
    target = tmp_path / "site"
    env = {k: v for k, v in os.environ.items()
           if k not in ("TILEC_RUNTIME_LIB", "PYTHONPATH")}
    # A copy of the package's sources (pip builds in the source tree; the
    # repository's python/ stays clean), beside a link to the runtime.
    src = tmp_path / "src"
    shutil.copytree(REPO / "python", src / "python",
                    ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    os.symlink(REPO / "runtime", src / "runtime")
    os.symlink(REPO / "examples", src / "examples")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                    "--no-deps", "--disable-pip-version-check", "--target", str(target),
                    str(src / "python")], check=True, env=env)
    lib = target / "tilec" / "libtilec_runtime.so"
    assert lib.is_file()
    # tilec.ops.attention's tile programs, compiled on first use.
    for name in ("attention.mlir", "attention_bwd.mlir"):
        assert (target / "tilec" / "kernels" / name).read_bytes() == \
            (REPO / "examples" / name).read_bytes()
    # The example bundles where the test run keeps them (the GPU machine has
    # no build/, only the staged bundles TILEC_BUNDLE_DIR names).
    bundles = os.environ.get("TILEC_BUNDLE_DIR") or str(REPO / "build" / "examples")
    bundle = pathlib.Path(bundles) / "vector_add.tlc"
    code = ("import tilec, sys; print(tilec.library_path()); print(tilec.runtime_version()); "
            "b = tilec.load(sys.argv[1]); print(b.kernels)")
    out = subprocess.run([sys.executable, "-c", code, str(bundle)], capture_output=True,
                         text=True, env=dict(env, PYTHONPATH=str(target)), cwd=tmp_path,
                         check=True).stdout.splitlines()
    assert out[0] == str(lib), out
    assert out[1] == "0.1.0" and out[2] == "['vector_add']", out
