"""tilec.compile's cache: cold and warm times (issue 15).

    python3 bench/compile_cache.py [PROGRAM.mlir ...]

For each program (default: examples/gemm.mlir and examples/vector_add.mlir)
in a fresh cache directory: the cold compile (the compiler runs), a warm
call in the same process, and a warm call in a second process (Python
start-up not counted: the time of tilec.compile itself). No GPU needed.
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))
import tilec  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - t) * 1000.0


def main():
    programs = sys.argv[1:] or [str(REPO / "examples" / "gemm.mlir"),
                                str(REPO / "examples" / "vector_add.mlir")]
    print("compiler: %s" % tilec.compiler_path())
    print("%-28s %10s %10s %14s" % ("program", "cold ms", "warm ms", "2nd process ms"))
    for program in programs:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TILEC_CACHE_DIR"] = cache
            cold, t_cold = timed(lambda: tilec.compile(program))
            warm, t_warm = timed(lambda: tilec.compile(program))
            assert not cold.cache_hit and warm.cache_hit
            code = ("import sys, time; sys.path.insert(0, %r); import tilec; "
                    "t = time.perf_counter(); b = tilec.compile(%r); "
                    "print(b.cache_hit, (time.perf_counter() - t) * 1000.0)"
                    % (str(REPO / "python"), program))
            hit, t_second = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                           text=True, check=True).stdout.split()
            assert hit == "True"
            print("%-28s %10.1f %10.2f %14.2f" % (os.path.basename(program), t_cold, t_warm,
                                                  float(t_second)))


if __name__ == "__main__":
    main()
