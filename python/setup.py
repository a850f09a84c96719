"""Builds the runtime library into the package: `pip install ./python`
compiles ../runtime (C++17, CMake, no CUDA toolkit or LLVM needed) and puts
libtilec_runtime.so beside the package's modules, where tilec finds it. Set
TILEC_RUNTIME_LIB at build time to package an already built library
instead. The compiler (`tilec`) is not packaged: tilec.compile finds it on
PATH or through TILEC_COMPILER."""

import os
import pathlib
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
LIB = "libtilec_runtime.so"
KERNELS = ("attention.mlir", "attention_fp8.mlir", "attention_bwd.mlir", "decode_attention.mlir",
           "varlen_attention.mlir", "mla_decode.mlir", "gemm_fp8_blockwise.mlir",
           "gemm_fp8_grouped.mlir", "quant_fp8_blockwise.mlir")


class BuildWithRuntime(build_py):
    def run(self):
        super().run()
        # The library's kernels (tilec.ops.attention), compiled on first use.
        kernels = pathlib.Path(self.build_lib) / "tilec" / "kernels"
        kernels.mkdir(exist_ok=True)
        examples = pathlib.Path(os.environ.get("TILEC_EXAMPLES", HERE.parent / "examples"))
        for name in KERNELS:
            if not (examples / name).is_file():
                raise SystemExit("tilec: the library's kernels are not at %s (set "
                                 "TILEC_EXAMPLES to the repository's examples/)" % examples)
            shutil.copy2(examples / name, kernels / name)
        dest = pathlib.Path(self.build_lib) / "tilec" / LIB
        prebuilt = os.environ.get("TILEC_RUNTIME_LIB")
        if prebuilt:
            shutil.copy2(prebuilt, dest)
            return
        source = pathlib.Path(os.environ.get("TILEC_RUNTIME_SOURCE", HERE.parent / "runtime"))
        if not (source / "CMakeLists.txt").is_file():
            raise SystemExit("tilec: the runtime's sources are not at %s (set "
                             "TILEC_RUNTIME_SOURCE, or TILEC_RUNTIME_LIB to a built %s)"
                             % (source, LIB))
        with tempfile.TemporaryDirectory(prefix="tilec-runtime-") as build:
            subprocess.run(["cmake", "-S", str(source), "-B", build,
                            "-DCMAKE_BUILD_TYPE=Release"], check=True)
            subprocess.run(["cmake", "--build", build, "--target", "tilec_runtime",
                            "--parallel", str(os.cpu_count() or 1)], check=True)
            built = next(pathlib.Path(build).rglob(LIB))
            shutil.copy2(built, dest)


class BinaryDistribution(Distribution):
    """The package carries a shared library: a platform wheel."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithRuntime}, distclass=BinaryDistribution)
