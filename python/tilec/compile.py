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
so a reader never sees half of one; an entry that is not a regular file
(a directory, a FIFO, a link) or that the runtime rejects is removed and
compiled again. Where the cache directory cannot be made or written,
compile warns and compiles without it. A program the compiler rejects
raises CompileError with the compiler's file:line:col diagnostics, as do
a source that cannot be read (or is not UTF-8) and a compiler that cannot
run.
"""

import errno
import hashlib
import os
import pathlib
import shutil
import stat
import subprocess
import tempfile
import warnings

from ._lib import BAD_BUNDLE, INVALID_ARGUMENT, NOT_FOUND, TilecError

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_ARCHES = ("sm_90a", "sm_100a")
# The largest cache entry read (the runtime's own bound on a bundle file).
_MAX_ENTRY_BYTES = 1 << 30


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
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
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
    """Where compiled bundles are kept (TilecError where no directory is
    named and there is no home directory)."""
    env = os.environ.get("TILEC_CACHE_DIR")
    if env:
        return pathlib.Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return pathlib.Path(xdg) / "tilec"
    try:
        return pathlib.Path.home() / ".cache" / "tilec"
    except RuntimeError:  # no HOME and no password entry
        raise TilecError("no cache directory: set TILEC_CACHE_DIR", NOT_FOUND) from None


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
    for flag in flags:
        if "\0" in flag or not _encodable(flag):
            raise CompileError("option %r cannot be passed to the compiler (a NUL or a lone "
                               "surrogate in it)" % flag)
    return flags


def _encodable(text):
    """Whether `text` has a UTF-8 form (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_source(source):
    """(text, path): the program and the file it came from (None for text)."""
    if isinstance(source, os.PathLike):
        path = os.fsdecode(source)
    elif isinstance(source, str) and "\n" not in source and not source.lstrip().startswith(
            ("func.", "module", "//")):
        path = source
    elif isinstance(source, str):
        if not _encodable(source):
            raise CompileError("the program's text is not valid Unicode (a lone surrogate)")
        return source, None
    else:
        raise CompileError("tilec.compile takes a path or the program's text (str), got %s"
                           % type(source).__name__)
    if "\0" in path:
        raise CompileError("cannot read %r: the path contains a NUL character" % path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CompileError("cannot read %s: %s" % (path, e.strerror or e)) from None
    except UnicodeEncodeError:
        raise CompileError("cannot read %r: the path has a lone surrogate" % path) from None
    try:
        return data.decode("utf-8"), path
    except UnicodeDecodeError as e:
        raise CompileError("cannot read %s: not UTF-8 text (byte 0x%02x at offset %d)"
                           % (path, data[e.start], e.start)) from None


def _compiler_identity(path):
    try:
        st = os.stat(path)
    except OSError as e:
        raise TilecError("cannot stat the compiler %s: %s" % (path, e.strerror), NOT_FOUND) from None
    return "%s:%d:%d" % (os.path.realpath(path), st.st_size, st.st_mtime_ns)


def _key(text, flags, compiler):
    from . import __version__
    h = hashlib.sha256()
    for part in (__version__, _compiler_identity(compiler), " ".join(flags), text):
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


def _entry(text, flags, compiler):
    """The cache entry of this compile (a path in the cache directory, made
    here if need be); OSError or TilecError where there is no usable one."""
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(directory)) \
            from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, "not writable", str(directory))
    return directory / (_key(text, flags, compiler) + ".tlc")


def _not_caching(error):
    """Warns (at compile's caller: call it from compile) that compile goes
    on without the cache."""
    if isinstance(error, OSError) and error.filename:
        error = "%s: %s" % (error.filename, error.strerror)
    warnings.warn("tilec.compile: compiling without the cache (%s); set TILEC_CACHE_DIR to a "
                  "writable directory" % error, stacklevel=3)


def _cached(entry):
    """The bundle cached at `entry`, or None where there is none. Only a
    regular file of at most _MAX_ENTRY_BYTES is opened (never a link, a FIFO
    or a device); anything else there, and a bundle the runtime rejects, is
    corrupt: it is removed, to be compiled again."""
    from .runtime import load

    try:
        st = os.lstat(entry)
    except OSError:
        return None
    data = None
    if stat.S_ISREG(st.st_mode) and st.st_size <= _MAX_ENTRY_BYTES:
        data = _read_regular(entry)
    if data is not None:
        try:
            bundle = load(data)
        except TilecError as e:
            if e.code != BAD_BUNDLE:
                raise
        else:
            bundle.source, bundle.cache_hit, bundle.diagnostics = str(entry), True, ""
            return bundle
    try:
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(entry)
        else:
            os.unlink(entry)
    except OSError:
        pass  # gone already; or os.replace puts the new entry over it, or warns
    return None


def _read_regular(path):
    """The bytes of `path` where it is still a regular file of at most
    _MAX_ENTRY_BYTES when opened (without following a link or waiting for a
    FIFO's writer), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_ENTRY_BYTES:
            return None
        try:
            data = f.read(_MAX_ENTRY_BYTES + 1)
        except OSError:
            return None
    return data if len(data) <= _MAX_ENTRY_BYTES else None


def _scratch():
    """A temporary directory of the system's for a compile without the cache."""
    try:
        return tempfile.TemporaryDirectory(prefix="tilec-compile-")
    except OSError as e:
        raise CompileError("cannot make a temporary directory: %s" % e) from None


def compile(source, arch=None, *, cache=True, **options):  # noqa: A001 (tilec.compile)
    """Compiles `source` (a path, or the program's text) for `arch`
    (default: default_arch()) into a Bundle, through the cache unless
    `cache` is False. Keyword options are the compiler's flags (profile=
    True, debug=True, kernels_per_module=4, ...). The bundle's `source` is
    the cache entry it was loaded from (None without the cache), `cache_hit`
    whether it was there already, `diagnostics` the compiler's messages
    (remarks, warnings)."""
    from .runtime import load

    arch = arch or default_arch()
    if arch not in _ARCHES:
        raise CompileError("arch %r is not one of %s" % (arch, ", ".join(_ARCHES)))
    text, name = _read_source(source)
    compiler = compiler_path()
    flags = _flags(arch, options)
    entry = None
    if cache:
        try:
            entry = _entry(text, flags, compiler)
        except (OSError, TilecError) as e:
            _not_caching(e)
    if entry is not None:
        bundle = _cached(entry)
        if bundle is not None:
            return bundle
    workdir = None
    if entry is not None:
        try:  # in the cache directory: renaming the bundle into place is atomic
            workdir = tempfile.TemporaryDirectory(dir=entry.parent, prefix=".compile-")
        except OSError as e:
            _not_caching(e)
            entry = None
    with workdir or _scratch() as tmp:
        src = pathlib.Path(name) if name else pathlib.Path(tmp) / "program.mlir"
        out = pathlib.Path(tmp) / "out.tlc"
        command = [compiler, "compile", str(src), *flags, "-o", str(out)]
        try:
            if not name:
                src.write_text(text, encoding="utf-8")
        except OSError as e:
            raise CompileError("cannot write the program to %s: %s" % (src, e.strerror or e)) \
                from None
        try:
            proc = subprocess.run(command, capture_output=True, text=True, errors="replace")
        except OSError as e:
            raise CompileError("cannot run %s: %s" % (compiler, e.strerror or e), "",
                               command) from None
        diagnostics = proc.stderr
        if not name:
            diagnostics = diagnostics.replace(str(src), "<string>")
        if proc.returncode != 0 or not out.exists():
            errors = [line for line in diagnostics.splitlines() if ": error: " in line]
            raise CompileError("tilec compile failed (exit %d): %s" % (
                proc.returncode, "; ".join(errors) or diagnostics.strip() or "no message"),
                diagnostics, command)
        bundle = load(out.read_bytes())
        if entry is not None:
            try:
                os.replace(out, entry)  # atomic within the cache directory
                bundle.source = str(entry)
            except OSError as e:
                _not_caching(e)
    bundle.cache_hit = False
    bundle.diagnostics = diagnostics
    return bundle
