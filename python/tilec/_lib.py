"""Finding and binding libtilec_runtime.so (ctypes declarations of runtime.h)."""

import ctypes
import glob
import os
import threading

MAX_RANK = 5
DYNAMIC = -1

# tilec_code
OK = 0
INVALID_ARGUMENT = 1
BAD_BUNDLE = 2
NOT_FOUND = 3
NO_DRIVER = 4
DRIVER = 5
UNSUPPORTED = 6
OUT_OF_RESOURCES = 7

CODE_NAMES = {
    OK: "OK",
    INVALID_ARGUMENT: "INVALID_ARGUMENT",
    BAD_BUNDLE: "BAD_BUNDLE",
    NOT_FOUND: "NOT_FOUND",
    NO_DRIVER: "NO_DRIVER",
    DRIVER: "DRIVER",
    UNSUPPORTED: "UNSUPPORTED",
    OUT_OF_RESOURCES: "OUT_OF_RESOURCES",
}

# tilec_kind
ARG_TENSOR = 1
ARG_SCALAR = 2

# tilec_dtype: metadata spelling -> enum value
DTYPES = {
    "i1": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "f16": 6, "bf16": 7,
    "f32": 8, "f64": 9, "f8e4m3": 10, "f8e5m2": 11,
}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
DTYPE_SIZES = {
    "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
    "f32": 4, "f64": 8, "f8e4m3": 1, "f8e5m2": 1,
}
INT_DTYPES = frozenset(["i1", "i8", "i16", "i32", "i64"])


REGISTRATIONS = []  # every once-decorated registration, for tilec.ops.register_all


def once(register):
    """Decorates a function that registers torch operators: it runs once,
    its result kept (torch refuses a second operator of a name), and it is
    listed in REGISTRATIONS. A plain lookup, which torch.compile traces to
    the registered operators; it would trace functools.cache's wrapper into
    the registration itself, which it refuses (tilec.ops registers them all
    as it is imported where torch already is, so that the first call may
    come from compiled code)."""
    done = []

    def get():
        if not done:
            done.append(register())
        return done[0]

    get.__name__, get.__doc__ = register.__name__, register.__doc__
    REGISTRATIONS.append(get)
    return get


class TilecError(RuntimeError):
    """An error reported by the tilec runtime (or by the binding itself).

    Attributes: ``code`` (int, one of the ``tilec.*`` status codes such as
    ``tilec.BAD_BUNDLE``), ``code_name`` (e.g. ``"BAD_BUNDLE"``) and
    ``driver_error`` (the CUresult for ``DRIVER`` errors, else 0).
    """

    def __init__(self, message, code=INVALID_ARGUMENT, driver_error=0):
        super().__init__(message)
        self.message = message
        self.code = code
        self.code_name = CODE_NAMES.get(code, "UNKNOWN")
        self.driver_error = driver_error

    def __repr__(self):
        return "TilecError(%s: %s)" % (self.code_name, self.message)


class TilecTypeError(TilecError, TypeError):
    """A TilecError (INVALID_ARGUMENT) for an argument of the wrong Python
    type: `except tilec.TilecError` and `except TypeError` both catch it."""



class _Value(ctypes.Union):
    _fields_ = [("i", ctypes.c_int64), ("f", ctypes.c_double)]


class Arg(ctypes.Structure):
    """ctypes mirror of ``tilec_arg``."""

    _fields_ = [
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("data", ctypes.c_uint64),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
        ("value", _Value),
    ]


class ParamInfo(ctypes.Structure):
    """ctypes mirror of ``tilec_param_info``."""

    _fields_ = [
        ("kind", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
        ("name", ctypes.c_char_p),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
        ("align", ctypes.c_int64),
        ("tma", ctypes.c_int32),
        ("box", ctypes.c_int32 * MAX_RANK),
        ("swizzle", ctypes.c_int32),
        ("fill", ctypes.c_int32),
    ]


_LIB_NAME = "libtilec_runtime.so"
_lock = threading.Lock()
_lib = None
_lib_path = None


def _candidates():
    env = os.environ.get("TILEC_RUNTIME_LIB")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))  # python/tilec -> repo root
    paths = [os.path.join(here, _LIB_NAME)]
    for build in ["build"] + sorted(
        os.path.basename(p) for p in glob.glob(os.path.join(repo, "build*"))
    ):
        for sub in ("runtime", "lib", ""):
            paths.append(os.path.join(repo, build, sub, _LIB_NAME))
    seen = set()
    unique = [p for p in paths if not (p in seen or seen.add(p))]
    return unique, False


def _declare(lib):
    c = ctypes
    status = c.c_void_p
    p = c.POINTER

    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("tilec_status_code", c.c_int, status)
    fn("tilec_status_message", c.c_char_p, status)
    fn("tilec_status_driver_error", c.c_int, status)
    fn("tilec_status_free", None, status)
    fn("tilec_status_code_name", c.c_char_p, c.c_int)
    fn("tilec_runtime_version", c.c_char_p)
    fn("tilec_dtype_size", c.c_size_t, c.c_int)
    fn("tilec_dtype_name", c.c_char_p, c.c_int)
    fn("tilec_dtype_from_name", c.c_int, c.c_char_p)
    fn("tilec_bundle_load_file", status, c.c_char_p, p(c.c_void_p))
    fn("tilec_bundle_load_memory", status, c.c_void_p, c.c_size_t, p(c.c_void_p))
    fn("tilec_bundle_free", None, c.c_void_p)
    fn("tilec_bundle_arch", c.c_char_p, c.c_void_p)
    fn("tilec_bundle_metadata", c.c_char_p, c.c_void_p)
    fn("tilec_bundle_has_cubin", c.c_int, c.c_void_p)
    fn("tilec_bundle_has_ptx", c.c_int, c.c_void_p)
    fn("tilec_bundle_num_modules", c.c_size_t, c.c_void_p)
    fn("tilec_bundle_num_kernels", c.c_size_t, c.c_void_p)
    fn("tilec_bundle_kernel_name", c.c_char_p, c.c_void_p, c.c_size_t)
    fn("tilec_bundle_get_kernel", status, c.c_void_p, c.c_char_p, p(c.c_void_p))
    fn("tilec_bundle_load_module", status, c.c_void_p)
    fn("tilec_kernel_name", c.c_char_p, c.c_void_p)
    fn("tilec_kernel_threads", c.c_uint32, c.c_void_p)
    fn("tilec_kernel_smem", c.c_uint32, c.c_void_p)
    fn("tilec_kernel_cluster", None, c.c_void_p, p(c.c_uint32))
    fn("tilec_kernel_grid_expr", c.c_char_p, c.c_void_p, c.c_int)
    fn("tilec_kernel_num_params", c.c_size_t, c.c_void_p)
    fn("tilec_kernel_param", status, c.c_void_p, c.c_size_t, p(ParamInfo))
    fn("tilec_kernel_validate", status, c.c_void_p, p(Arg), c.c_size_t)
    fn("tilec_kernel_grid", status, c.c_void_p, p(Arg), c.c_size_t, p(c.c_uint32))
    fn("tilec_kernel_choose", status, c.c_void_p, p(Arg), c.c_size_t, p(c.c_void_p))
    fn("tilec_kernel_autotune", status, c.c_void_p, c.c_void_p, p(Arg), c.c_size_t,
       p(c.c_void_p))
    fn("tilec_kernel_abi_num_params", c.c_size_t, c.c_void_p)
    fn("tilec_kernel_pack_args", status, c.c_void_p, p(Arg), c.c_size_t, c.c_void_p,
       c.c_size_t, p(c.c_size_t), p(c.c_size_t))
    fn("tilec_launch", status, c.c_void_p, c.c_void_p, p(Arg), c.c_size_t)
    fn("tilec_launch_grid", status, c.c_void_p, c.c_void_p, p(c.c_uint32), p(Arg), c.c_size_t)
    fn("tilec_profile_create", status, c.c_uint32, p(c.c_void_p))
    fn("tilec_profile_free", None, c.c_void_p)
    fn("tilec_kernel_profiled", c.c_int, c.c_void_p)
    fn("tilec_launch_profiled", status, c.c_void_p, c.c_void_p, p(c.c_uint32), p(Arg),
       c.c_size_t, c.c_void_p)
    fn("tilec_profile_collect", status, c.c_void_p)
    fn("tilec_profile_add_buffer", status, c.c_void_p, c.c_void_p, p(c.c_uint32), c.c_void_p,
       c.c_size_t)
    fn("tilec_profile_write_trace", status, c.c_void_p, c.c_char_p)
    fn("tilec_profile_summary", status, c.c_void_p, c.c_char_p, c.c_size_t, p(c.c_size_t))
    fn("tilec_profile_dropped", c.c_uint64, c.c_void_p)
    fn("tilec_device_info", status, p(c.c_int), p(c.c_int), p(c.c_int), p(c.c_int))
    fn("tilec_synchronize", status)
    fn("tilec_stream_synchronize", status, c.c_void_p)
    fn("tilec_malloc", status, p(c.c_uint64), c.c_size_t)
    fn("tilec_free", status, c.c_uint64)
    fn("tilec_memcpy_htod", status, c.c_uint64, c.c_void_p, c.c_size_t)
    fn("tilec_memcpy_dtoh", status, c.c_void_p, c.c_uint64, c.c_size_t)


def lib():
    """The loaded runtime library (loaded on first use)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        paths, from_env = _candidates()
        errors = []
        for path in paths:
            if not os.path.exists(path):
                errors.append("%s: not found" % path)
                continue
            try:
                handle = ctypes.CDLL(path)
                _declare(handle)
            except (OSError, AttributeError) as e:
                errors.append("%s: %s" % (path, e))
                continue
            _lib, _lib_path = handle, path
            return _lib
        if not from_env:
            # Last resort: the dynamic loader's search path (LD_LIBRARY_PATH, ...).
            try:
                handle = ctypes.CDLL(_LIB_NAME)
                _declare(handle)
                _lib, _lib_path = handle, _LIB_NAME
                return _lib
            except (OSError, AttributeError) as e:
                errors.append("%s (loader search path): %s" % (_LIB_NAME, e))
        hint = ("TILEC_RUNTIME_LIB is set but the library could not be loaded"
                if from_env else
                "set TILEC_RUNTIME_LIB to the path of libtilec_runtime.so, or build the "
                "runtime (cmake --build build) so that build/runtime/libtilec_runtime.so exists")
        raise TilecError("cannot load the tilec runtime library: %s. Tried: %s"
                         % (hint, "; ".join(errors)), NOT_FOUND)


def library_path():
    """Path of the runtime library in use (loads it if needed)."""
    lib()
    return _lib_path


def check(status):
    """Raises TilecError for a non-NULL tilec_status (and frees it)."""
    if not status:
        return
    L = lib()
    code = L.tilec_status_code(status)
    raw = L.tilec_status_message(status)
    message = raw.decode("utf-8", "replace") if raw else ""
    driver_error = L.tilec_status_driver_error(status)
    L.tilec_status_free(status)
    raise TilecError(message, code, driver_error)
