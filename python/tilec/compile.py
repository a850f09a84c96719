"""tilec.compile: tile programs to bundles from Python, with a disk cache.

    import tilec
    bundle = tilec.compile("gemm.mlir")            # or the program's text
    bundle = tilec.compile(src, arch="sm_100a", profile=True)

The compiler is the `tilec` binary: $TILEC_COMPILER, else one installed
beside this package (tilec/bin/tilec), else the repository's build
(build/bin/tilec), else `tilec` on PATH. Bundles are cached in
$TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec, keyed
by the program's text, the arch, the options, this package's version and
the compiler binary itself (its real path, size and modification time, so
a rebuilt compiler never reuses an old entry): a second process that
compiles the same program loads the cached bundle without running the
compiler. Entries are written to a temporary file and renamed into place,
so a reader never sees half of one; an entry the runtime rejects is
compiled again. A program the compiler rejects raises CompileError with
the compiler's file:line:col diagnostics.
"""

import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

from ._lib import BAD_BUNDLE, INVALID_ARGUMENT, NOT_FOUND, TilecError

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_ARCHES = ("sm_90a", "sm_100a")


class CompileError(TilecError):
    """The compiler rejected a program (or could not run). `diagnostics`
    holds its messages (file:line:col: error: ...), `command` the command
    line that ran."""

    def __init__(self, message, diagnostics="", command=()):
        super().__init__(message, INVALID_ARGUMENT)
        self.diagnostics = diagnostics
        self.command = list(command)


def compiler_path():
    """The `tilec` binary tilec.compile runs (see the module's doc)."""
    env = os.environ.get("TILEC_COMPILER")
    if env:
        if not os.access(env, os.X_OK):
            raise TilecError("TILEC_COMPILER=%s is not an executable file" % env, NOT_FOUND)
        return env
    candidates = [_PACKAGE_DIR / "bin" / "tilec"]
    repo = _PACKAGE_DIR.parent.parent
    candidates += [repo / d / "bin" / "tilec" for d in ("build", "build-release")]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    found = shutil.which("tilec")
    if found:
        return found
    raise TilecError("no tilec compiler found: set TILEC_COMPILER to the tilec binary, "
                     "or put tilec on PATH", NOT_FOUND)


def cache_dir():
    """Where compiled bundles are kept."""
    env = os.environ.get("TILEC_CACHE_DIR")
    if env:
        return pathlib.Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache"
    return base / "tilec"


def default_arch():
    """The current GPU's architecture (sm_90a for compute capability 9.x,
    sm_100a for 10.x) where the CUDA driver finds one, else sm_90a."""
    try:
        from .runtime import device_info
        info = device_info()
    except (TilecError, OSError):
        return "sm_90a"
    return {9: "sm_90a", 10: "sm_100a"}.get(info.cc_major, "sm_90a")


def _flags(arch, options):
    """The compiler's command-line flags for `arch` and keyword options:
    name=True -> --name, False/None -> nothing, other values --name=value
    (underscores in names become dashes: kernels_per_module=4 ->
    --kernels-per-module=4)."""
    flags = ["--arch=" + arch]
    for name in sorted(options):
        value = options[name]
        flag = "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False or value is None:
            continue
        else:
            flags.append("%s=%s" % (flag, value))
    return flags


def _read_source(source):
    """(text, name): the program and the name its diagnostics use."""
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
    elif isinstance(source, str) and "\n" not in source and not source.lstrip().startswith(
            ("func.", "module", "//")):
        path = source
    else:
        return source, None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise CompileError("cannot read %s: %s" % (path, e.strerror or e)) from None


def _compiler_identity(path):
    st = os.stat(path)
    return "%s:%d:%d" % (os.path.realpath(path), st.st_size, st.st_mtime_ns)


def _key(text, flags, compiler):
    from . import __version__
    h = hashlib.sha256()
    for part in (__version__, _compiler_identity(compiler), " ".join(flags), text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def compile(source, arch=None, *, cache=True, **options):  # noqa: A001 (tilec.compile)
    """Compiles `source` (a path, or the program's text) for `arch`
    (default: default_arch()) into a Bundle, through the cache unless
    `cache` is False. Keyword options are the compiler's flags (profile=
    True, debug=True, kernels_per_module=4, ...). The bundle's `source` is
    the cache entry it was loaded from, `cache_hit` whether it was there
    already, `diagnostics` the compiler's messages (remarks, warnings)."""
    from .runtime import load

    arch = arch or default_arch()
    if arch not in _ARCHES:
        raise CompileError("arch %r is not one of %s" % (arch, ", ".join(_ARCHES)))
    text, name = _read_source(source)
    compiler = compiler_path()
    flags = _flags(arch, options)
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    entry = directory / (_key(text, flags, compiler) + ".tlc")
    if cache and entry.exists():
        try:
            bundle = load(str(entry))
            bundle.cache_hit, bundle.diagnostics = True, ""
            return bundle
        except TilecError as e:
            if e.code != BAD_BUNDLE:
                raise
            entry.unlink(missing_ok=True)  # corrupt: compile it again
    with tempfile.TemporaryDirectory(dir=directory, prefix=".compile-") as tmp:
        src = pathlib.Path(name) if name else pathlib.Path(tmp) / "program.mlir"
        if not name:
            src.write_text(text, encoding="utf-8")
        out = pathlib.Path(tmp) / "out.tlc"
        command = [compiler, "compile", str(src), *flags, "-o", str(out)]
        proc = subprocess.run(command, capture_output=True, text=True)
        diagnostics = proc.stderr
        if not name:
            diagnostics = diagnostics.replace(str(src), "<string>")
        if proc.returncode != 0 or not out.exists():
            errors = [line for line in diagnostics.splitlines() if ": error: " in line]
            raise CompileError("tilec compile failed (exit %d): %s" % (
                proc.returncode, "; ".join(errors) or diagnostics.strip() or "no message"),
                diagnostics, command)
        target = entry if cache else pathlib.Path(tmp) / "bundle.tlc"
        os.replace(out, target)  # atomic within the cache directory
        bundle = load(str(target))
    if not cache:
        bundle.source = None  # the temporary file is gone
    bundle.cache_hit = False
    bundle.diagnostics = diagnostics
    return bundle
