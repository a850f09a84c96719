"""tilec.compile: programs to bundles through the compiler, with a disk
cache (no GPU needed: the bundles are loaded and their metadata read)."""

import contextlib
import os
import pathlib
import re
import signal
import stat
import subprocess
import sys
import textwrap
import warnings

import pytest

import tilec

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
VECTOR_ADD = REPO / "examples" / "vector_add.mlir"

BAD = textwrap.dedent("""\
    func.func @f(%x: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
      %y = arith.addi %x, %z : i32
      return
    }
    """)


@pytest.fixture
def compiler(tmp_path, monkeypatch):
    """A cache of the test's own and a compiler that logs each run (a
    wrapper around the real one): returns the log's path."""
    try:
        real = tilec.compiler_path()
    except tilec.TilecError:
        pytest.skip("no tilec compiler built")
    log = tmp_path / "runs.log"
    wrapper = tmp_path / "tilec-logged"
    wrapper.write_text('#!/bin/sh\necho "$@" >> %s\nexec %s "$@"\n' % (log, real))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TILEC_COMPILER", str(wrapper))
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    return log


def runs(log):
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_cold_then_warm(compiler):
    cold = tilec.compile(VECTOR_ADD)
    assert not cold.cache_hit and runs(compiler) == 1
    assert cold.kernels == ["vector_add"] and cold.arch == "sm_90a"
    warm = tilec.compile(str(VECTOR_ADD))  # a path as str: the same program
    assert warm.cache_hit and runs(compiler) == 1
    assert warm.source == cold.source and os.path.dirname(warm.source) == str(tilec.cache_dir())
    # The text itself is the same program too.
    assert tilec.compile(VECTOR_ADD.read_text()).cache_hit
    # Only whole entries in the cache: no temporary files left behind.
    assert [p.suffix for p in tilec.cache_dir().iterdir()] == [".tlc"]


def test_second_process_loads_without_compiling(compiler):
    tilec.compile(VECTOR_ADD)
    code = ("import sys, time; sys.path.insert(0, %r); import tilec; t = time.perf_counter(); "
            "b = tilec.compile(%r); print(b.cache_hit, time.perf_counter() - t)"
            % (str(REPO / "python"), str(VECTOR_ADD)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ.copy(), check=True).stdout.split()
    assert out[0] == "True", out
    assert runs(compiler) == 1  # the second process ran no compiler
    assert float(out[1]) < 0.5, out  # milliseconds in practice


def test_options_and_arch_are_part_of_the_key(compiler):
    plain = tilec.compile(VECTOR_ADD)
    prof = tilec.compile(VECTOR_ADD, profile=True)
    assert not prof.cache_hit and prof.source != plain.source
    assert prof["vector_add"].profiled and not plain["vector_add"].profiled
    bw = tilec.compile(VECTOR_ADD, arch="sm_100a")
    assert not bw.cache_hit and bw.arch == "sm_100a"
    assert runs(compiler) == 3
    assert "--profile" in compiler.read_text() and "--arch=sm_100a" in compiler.read_text()


def test_a_rebuilt_compiler_is_another_key(compiler, tmp_path):
    first = tilec.compile(VECTOR_ADD)
    wrapper = pathlib.Path(os.environ["TILEC_COMPILER"])
    wrapper.write_text(wrapper.read_text() + "# rebuilt\n")  # another size and mtime
    again = tilec.compile(VECTOR_ADD)
    assert not again.cache_hit and again.source != first.source


def test_compile_error_carries_the_location(compiler, tmp_path):
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(BAD)
    assert "<string>:2:23: error: use of undeclared SSA value name" in str(e.value)
    assert "<string>:2:23" in e.value.diagnostics and e.value.code == tilec.INVALID_ARGUMENT
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(path)
    assert "%s:2:23: error" % path in str(e.value)
    # Nothing cached for a program that failed.
    assert not tilec.cache_dir().exists() or not list(tilec.cache_dir().glob("*.tlc"))


def test_corrupt_entry_is_compiled_again(compiler):
    first = tilec.compile(VECTOR_ADD)
    data = pathlib.Path(first.source).read_bytes()
    pathlib.Path(first.source).write_bytes(data[: len(data) // 2])  # truncated
    again = tilec.compile(VECTOR_ADD)
    assert not again.cache_hit and runs(compiler) == 2
    assert again.kernels == ["vector_add"]
    assert tilec.compile(VECTOR_ADD).cache_hit


def test_without_cache(compiler):
    b = tilec.compile(VECTOR_ADD, cache=False)
    assert not b.cache_hit and b.source is None and b.kernels == ["vector_add"]
    assert not list(tilec.cache_dir().glob("*.tlc"))


def test_bad_requests(compiler, tmp_path, monkeypatch):
    with pytest.raises(tilec.CompileError, match="arch 'sm_80' is not one of sm_90a, sm_100a"):
        tilec.compile(VECTOR_ADD, arch="sm_80")
    with pytest.raises(tilec.CompileError, match="cannot read .*missing.mlir"):
        tilec.compile(tmp_path / "missing.mlir")
    monkeypatch.setenv("TILEC_COMPILER", str(tmp_path / "no-such-tilec"))
    with pytest.raises(tilec.TilecError, match="TILEC_COMPILER=.* is not an executable file") as e:
        tilec.compile(VECTOR_ADD)
    assert e.value.code == tilec.NOT_FOUND


def test_default_arch_without_a_gpu():
    # The arch of the current GPU where there is one (sm_90a on an H100),
    # else sm_90a.
    assert tilec.default_arch() in ("sm_90a", "sm_100a")


@pytest.mark.parametrize("source, message", [
    (b"func.func @f() { return }", "takes a path or the program's text (str), got bytes"),
    (None, "got NoneType"),
    ("/tmp/a\0b.mlir", "the path contains a NUL character"),
    ("/tmp/a\ud800.mlir", "the path has a lone surrogate"),
    ("func.func @f() {\n// \ud800\n}", "not valid Unicode"),
], ids=["bytes", "None", "nul-in-path", "surrogate-in-path", "surrogate-in-text"])
def test_bad_sources_are_compile_errors(compiler, source, message):
    with pytest.raises(tilec.CompileError) as e:
        tilec.compile(source)
    assert message in str(e.value) and e.value.code == tilec.INVALID_ARGUMENT


def test_unreadable_sources_are_compile_errors(compiler, tmp_path):
    latin1 = tmp_path / "latin1.mlir"
    latin1.write_bytes(b"// caf\xe9\n" + VECTOR_ADD.read_bytes())
    with pytest.raises(tilec.CompileError, match=r"latin1.mlir: not UTF-8 text \(byte 0xe9 at "
                                                 r"offset 6\)"):
        tilec.compile(latin1)
    with pytest.raises(tilec.CompileError, match="cannot read .*: Is a directory"):
        tilec.compile(tmp_path)
    with pytest.raises(tilec.CompileError, match="option '--debug-only=a\\\\x00b' cannot be "
                                                 "passed to the compiler"):
        tilec.compile(VECTOR_ADD, debug_only="a\0b")
    assert runs(compiler) == 0


def unusable_cache_dirs(tmp_path):
    """Cache directories compile cannot use: a regular file, a path under
    one, and a directory no one may write (even root)."""
    (tmp_path / "file").write_text("not a directory")
    yield tmp_path / "file", "file: Not a directory"
    yield tmp_path / "file" / "sub", "file/sub: Not a directory"
    if os.path.isdir("/proc/self"):
        yield pathlib.Path("/proc/self"), "/proc/self: not writable"


def test_an_unusable_cache_directory_only_turns_the_cache_off(compiler, tmp_path, monkeypatch):
    dirs = list(unusable_cache_dirs(tmp_path))
    for directory, why in dirs:
        monkeypatch.setenv("TILEC_CACHE_DIR", str(directory))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # without the cache: not a word
            b = tilec.compile(VECTOR_ADD, cache=False)
        assert b.kernels == ["vector_add"] and b.source is None
        with pytest.warns(UserWarning, match="compiling without the cache .*%s" % why):
            b = tilec.compile(VECTOR_ADD)
        assert b.kernels == ["vector_add"] and not b.cache_hit and b.source is None
    assert runs(compiler) == 2 * len(dirs)


def test_a_compiler_that_cannot_run(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TILEC_COMPILER", str(tmp_path))  # a directory
    with pytest.raises(tilec.TilecError, match="TILEC_COMPILER=.* is not an executable file") as e:
        tilec.compile(VECTOR_ADD)
    assert e.value.code == tilec.NOT_FOUND
    garbage = tmp_path / "tilec"
    garbage.write_bytes(b"\x7fELF not really")
    garbage.chmod(0o755)
    monkeypatch.setenv("TILEC_COMPILER", str(garbage))
    with pytest.raises(tilec.CompileError, match="cannot run .*tilec: Exec format error"):
        tilec.compile(VECTOR_ADD, cache=False)


@contextlib.contextmanager
def deadline(seconds):
    """Raises TimeoutError in the block once `seconds` have passed (a read
    of a FIFO or a device would otherwise hang the test run)."""
    def expired(signum, frame):
        raise TimeoutError("still running after %d s" % seconds)
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("make", [
    lambda p: (p.mkdir(), (p / "inside").write_text("x")),
    lambda p: os.mkfifo(p),
    lambda p: os.symlink("/dev/zero", p),
    lambda p: os.symlink(p.with_name("elsewhere.tlc"), p),
], ids=["directory", "fifo", "link-to-dev-zero", "dangling-link"])
def test_an_entry_that_is_not_a_regular_file_is_compiled_again(compiler, make):
    entry = pathlib.Path(tilec.compile(VECTOR_ADD).source)
    entry.unlink()
    make(entry)
    with deadline(60):
        again = tilec.compile(VECTOR_ADD)
        assert not again.cache_hit and again.kernels == ["vector_add"] and runs(compiler) == 2
        assert stat.S_ISREG(os.lstat(entry).st_mode) and again.source == str(entry)
        assert tilec.compile(VECTOR_ADD).cache_hit and runs(compiler) == 2


def test_the_package_docstring_launches_vector_add_as_it_is(compiler):
    # tilec's docstring shows examples/vector_add.mlir's kernel launched:
    # its calls pass that kernel's parameters, and its grid is the one shown.
    k = tilec.compile(VECTOR_ADD)["vector_add"]
    calls = re.findall(r"^ *(?:print\()?k(?:\.grid)?\(([^)]*)\)", tilec.__doc__, re.M)
    assert len(calls) == 2
    for args in calls:
        assert [a.strip() for a in args.split(",")] == [p.name for p in k.params]
    x = tilec.Tensor(0x1000, (5000,))
    assert "# %s" % (k.grid(x, x, x),) in tilec.__doc__
