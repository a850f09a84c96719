"""Bundles, kernels and launches over the tilec runtime C API."""

import collections
import collections.abc
import ctypes
import numbers
import operator
import os
import sys
from dataclasses import dataclass
from typing import Optional, Tuple

from . import _lib
from ._lib import TilecError, TilecTypeError, check, lib

__all__ = [
    "Bundle", "Kernel", "Param", "Tma", "Tensor", "DeviceInfo", "load",
    "device_info", "synchronize", "runtime_version",
]

# torch dtypes by their str(), so that torch need not be imported here.
_TORCH_DTYPES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.float64": "f64",
    "torch.float8_e4m3fn": "f8e4m3",
    "torch.float8_e5m2": "f8e5m2",
    "torch.int8": "i8",
    "torch.int16": "i16",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.bool": "i1",
}

# __cuda_array_interface__ typestr (byte order dropped) -> dtype
_TYPESTRS = {
    "f2": "f16", "f4": "f32", "f8": "f64",
    "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64", "b1": "i1",
}


@dataclass(frozen=True)
class Tma:
    """TMA descriptor parameters of a tensor param."""

    box: Tuple[int, ...]  #: box in elements, metadata order (innermost last)
    swizzle: int  #: 0 (none), 32, 64 or 128 bytes
    fill: str  #: "zero" or "nan"


@dataclass(frozen=True)
class Param:
    """One kernel parameter, as declared in the bundle metadata."""

    index: int
    name: str
    kind: str  #: "tensor" or "scalar"
    dtype: str  #: "f32", "bf16", ...
    rank: int = 0
    shape: Tuple[Optional[int], ...] = ()  #: None where dynamic ('?')
    strides: Tuple[Optional[int], ...] = ()  #: in elements; None where dynamic
    align: int = 0  #: required base alignment in bytes (tensors)
    tma: Optional[Tma] = None


@dataclass(frozen=True)
class Tensor:
    """A raw device tensor: address, extents, strides (elements), dtype.

    ``strides`` defaults to row-major contiguous.
    """

    ptr: int
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]] = None
    dtype: str = "f32"

    def __post_init__(self):
        object.__setattr__(self, "shape", _ints(self.shape, "shape", "extent"))
        if self.strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.append(step)
                step *= extent
            object.__setattr__(self, "strides", tuple(reversed(strides)))
        else:
            object.__setattr__(self, "strides", _ints(self.strides, "strides", "stride"))


DeviceInfo = collections.namedtuple("DeviceInfo", "sm_count smem_optin cc_major cc_minor")


def _as_int(v):
    """v as a Python int if it is an integer (an int or an object with
    __index__, not a bool; never a float or a string), else None."""
    if isinstance(v, bool):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def _ints(values, name, what):
    """`values` (a tilec.Tensor's shape or strides) as a tuple of ints;
    TilecError for anything that is not a sequence of exact integers."""
    if isinstance(values, (str, bytes)) or not isinstance(values, collections.abc.Iterable):
        raise TilecError("tilec.Tensor: %s %r is not a sequence of integers" % (name, values),
                         _lib.INVALID_ARGUMENT)
    values = tuple(values)
    ints = tuple(_as_int(v) for v in values)
    if None in ints:
        d = ints.index(None)
        raise TilecError("tilec.Tensor: %s %d is %r, not an integer" % (what, d, values[d]),
                         _lib.INVALID_ARGUMENT)
    return ints


# CUDA's limits on a grid's x, y and z.
_GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)


def _grid(grid):
    """`grid` (an int, or 1 to 3 ints: x, y, z) as 3 ints within CUDA's
    limits, missing ones 1; TilecError for anything else."""
    dims = (grid,) if _as_int(grid) is not None else grid
    if (isinstance(dims, collections.abc.Sequence) and not isinstance(dims, (str, bytes))
            and 1 <= len(dims) <= 3):
        dims = [_as_int(d) for d in dims]
        if all(d is not None and 1 <= d <= top for d, top in zip(dims, _GRID_LIMITS)):
            return tuple(dims) + (1,) * (3 - len(dims))
    raise TilecError("grid must be an int or 1 to 3 ints (x in 1..%d, y and z in 1..%d), got %r"
                     % (_GRID_LIMITS[0], _GRID_LIMITS[1], grid), _lib.INVALID_ARGUMENT)


def _c_string(text, what):
    """`text` (str or path) as bytes for the C API; TilecError where it
    holds a NUL (which would cut it short) or cannot be encoded."""
    try:
        raw = os.fsencode(text)
    except (TypeError, UnicodeEncodeError) as e:
        raise TilecError("%s %r cannot be passed to the runtime: %s" % (what, text, e),
                         _lib.INVALID_ARGUMENT) from None
    if b"\0" in raw:
        raise TilecError("%s %r contains a NUL character" % (what, text), _lib.INVALID_ARGUMENT)
    return raw


def _s(raw):
    return raw.decode("utf-8", "replace") if raw is not None else None


def _is_torch_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr") and hasattr(x, "stride")


class Kernel:
    """A kernel of a :class:`Bundle`. Call it to launch."""

    def __init__(self, bundle, handle):
        self._bundle = bundle  # keeps the bundle (and so the handle) alive
        self._handle = handle
        L = lib()
        self.name = _s(L.tilec_kernel_name(handle))
        self.threads = int(L.tilec_kernel_threads(handle))
        self.smem = int(L.tilec_kernel_smem(handle))
        cluster = (ctypes.c_uint32 * 3)()
        L.tilec_kernel_cluster(handle, cluster)
        self.cluster = tuple(int(c) for c in cluster)
        self.grid_exprs = tuple(_s(L.tilec_kernel_grid_expr(handle, i)) for i in range(3))
        self.params = [self._param(i) for i in range(L.tilec_kernel_num_params(handle))]
        self._last = None  # (key, converted args, device) of the last launch: see __call__

    def __repr__(self):
        return "<tilec.Kernel %s(%s) threads=%d smem=%d cluster=%s>" % (
            self.name, ", ".join(p.name for p in self.params), self.threads, self.smem,
            self.cluster)

    def _param(self, i):
        info = _lib.ParamInfo()
        check(lib().tilec_kernel_param(self._handle, i, ctypes.byref(info)))
        dtype = _lib.DTYPE_NAMES.get(info.dtype, "?")
        name = _s(info.name)
        if info.kind == _lib.ARG_SCALAR:
            return Param(i, name, "scalar", dtype)
        r = info.rank
        dyn = lambda v: None if v == _lib.DYNAMIC else int(v)  # noqa: E731
        tma = None
        if info.tma:
            tma = Tma(tuple(int(b) for b in info.box[:r]), int(info.swizzle),
                      "nan" if info.fill == 1 else "zero")
        return Param(i, name, "tensor", dtype, r, tuple(dyn(v) for v in info.shape[:r]),
                     tuple(dyn(v) for v in info.strides[:r]), int(info.align), tma)

    def _handle_alive(self):
        if self._bundle._handle is None:
            raise TilecError("kernel '%s': its bundle was closed" % self.name,
                             _lib.INVALID_ARGUMENT)
        return self._handle

    # ---- argument conversion -----------------------------------------------------------

    def _error(self, param, what):
        return TilecError("kernel '%s' parameter %d ('%s'): %s"
                          % (self.name, param.index, param.name, what), _lib.INVALID_ARGUMENT)

    def _convert(self, args):
        """Returns (ctypes array of Arg, torch device or None)."""
        if len(args) != len(self.params):
            raise TilecError("kernel '%s' expects %d arguments (%s), got %d" % (
                self.name, len(self.params), ", ".join(p.name for p in self.params), len(args)),
                _lib.INVALID_ARGUMENT)
        arr = (_lib.Arg * max(len(args), 1))()
        device = None
        for i, (param, value) in enumerate(zip(self.params, args)):
            a = arr[i]
            if param.kind == "scalar":
                self._scalar(param, value, a)
                continue
            dev = self._tensor(param, value, a)
            if dev is not None:
                if device is not None and dev != device:
                    raise self._error(param, "tensor is on %s, other tensors are on %s"
                                      % (dev, device))
                device = dev
        return arr, device

    def _scalar(self, param, value, a):
        a.kind = _lib.ARG_SCALAR
        a.dtype = _lib.DTYPES[param.dtype]
        if isinstance(value, bool):
            value = int(value)
        if param.dtype in _lib.INT_DTYPES:
            if not isinstance(value, numbers.Integral):
                raise self._error(param, "expected an integer for the %s scalar, got %s"
                                  % (param.dtype, type(value).__name__))
            v = int(value)
            if not -(1 << 63) <= v < (1 << 63):
                raise self._error(param, "value %d does not fit in 64 bits" % v)
            a.value.i = v
        else:
            if not isinstance(value, numbers.Real):
                raise self._error(param, "expected a number for the %s scalar, got %s"
                                  % (param.dtype, type(value).__name__))
            try:
                a.value.f = float(value)
            except OverflowError:
                raise self._error(param, "value %d does not fit in a double" % value)

    def _fill_tensor(self, param, a, ptr, shape, strides, dtype):
        if len(shape) < 1 or len(shape) > _lib.MAX_RANK:
            raise self._error(param, "rank is %d, metadata expects %d" % (len(shape), param.rank))
        # ctypes would keep the low 64 bits of a larger integer: check first.
        ptr = _as_int(ptr)
        if ptr is None or not 0 <= ptr < (1 << 64):
            raise self._error(param, "address %r is not a 64-bit unsigned integer" % (ptr,))
        a.kind = _lib.ARG_TENSOR
        a.dtype = _lib.DTYPES[dtype]
        a.data = ptr
        a.rank = len(shape)
        for d, (extent, stride) in enumerate(zip(shape, strides)):
            extent, stride = _as_int(extent), _as_int(stride)
            if extent is None or not 0 <= extent < (1 << 63):
                raise self._error(param, "extent %d is %r, not an integer in [0, 2^63)"
                                  % (d, shape[d]))
            if stride is None or not -(1 << 63) <= stride < (1 << 63):
                raise self._error(param, "stride %d is %r, not a 64-bit integer" % (d, strides[d]))
            a.shape[d] = extent
            a.strides[d] = stride

    def _tensor(self, param, value, a):
        """Fills `a`; returns the torch device of a torch tensor, else None."""
        if isinstance(value, Tensor):
            if value.dtype not in _lib.DTYPES:
                raise self._error(param, "unknown dtype '%s'" % value.dtype)
            if len(value.strides) != len(value.shape):
                raise self._error(param, "strides and shape differ in length")
            self._fill_tensor(param, a, value.ptr, value.shape, value.strides, value.dtype)
            return None
        if _is_torch_tensor(value):
            dtype = _TORCH_DTYPES.get(str(value.dtype))
            if dtype is None:
                raise self._error(param, "unsupported torch dtype %s" % value.dtype)
            if not value.is_cuda:
                raise self._error(param, "tensor is on %s, must be on a CUDA device"
                                  % value.device)
            self._fill_tensor(param, a, value.data_ptr(), tuple(value.shape),
                              tuple(value.stride()), dtype)
            return value.device
        cai = getattr(value, "__cuda_array_interface__", None)
        if cai is not None:
            ptr, shape, strides, dtype = self._array_interface(param, cai)
            self._fill_tensor(param, a, ptr, shape, strides, dtype)
            return None
        raise self._error(param, "expected a tensor (torch.Tensor, tilec.Tensor or an object "
                          "with __cuda_array_interface__), got %s" % type(value).__name__)

    def _array_interface(self, param, cai):
        """(address, shape, strides in elements, dtype) of a __cuda_array_interface__
        dict; a TilecError for anything malformed."""
        def bad(what):
            return self._error(param, "malformed __cuda_array_interface__: " + what)
        if not isinstance(cai, dict):
            raise bad("a %s, not a dict" % type(cai).__name__)
        typestr = cai.get("typestr")
        if not isinstance(typestr, str) or len(typestr) < 2:
            raise bad("typestr %r" % (typestr,))
        dtype = _TYPESTRS.get(typestr[1:])
        if dtype is None:
            raise self._error(param, "unsupported array typestr '%s'" % typestr)
        shape = cai.get("shape")
        if not isinstance(shape, (tuple, list)) or any(_as_int(e) is None for e in shape):
            raise bad("shape %r is not a tuple of integers" % (shape,))
        data = cai.get("data")
        if not isinstance(data, (tuple, list)) or len(data) != 2 or _as_int(data[0]) is None:
            raise bad("data %r is not (address, read-only flag)" % (data,))
        size = _lib.DTYPE_SIZES[dtype]
        strides = cai.get("strides")
        if strides is None:
            strides = Tensor(0, tuple(shape)).strides
        else:
            if not isinstance(strides, (tuple, list)) or any(_as_int(e) is None for e in strides):
                raise bad("strides %r is not a tuple of integers" % (strides,))
            if len(strides) != len(shape):
                raise bad("%d strides for %d dimensions" % (len(strides), len(shape)))
            if any(st % size for st in strides):
                raise self._error(param, "byte strides %s are not multiples of the element "
                                  "size %d" % (tuple(strides), size))
            strides = tuple(st // size for st in strides)
        return data[0], tuple(shape), strides, dtype

    # ---- operations ----------------------------------------------------------------------

    def validate(self, *args):
        """Checks the arguments against the metadata (no GPU needed)."""
        arr, _ = self._convert(args)
        check(lib().tilec_kernel_validate(self._handle_alive(), arr, len(args)))

    def grid(self, *args):
        """The launch grid (x, y, z) the metadata rule gives for these arguments."""
        arr, _ = self._convert(args)
        g = (ctypes.c_uint32 * 3)()
        check(lib().tilec_kernel_grid(self._handle_alive(), arr, len(args), g))
        return tuple(int(v) for v in g)

    def choose(self, *args):
        """The name of the kernel a launch with these arguments runs: this one,
        its plain variant (a view TMA cannot read) or the variant of another
        tile shape whose cost is least (needs a GPU when there are variants)."""
        arr, _ = self._convert(args)
        out = ctypes.c_void_p()
        check(lib().tilec_kernel_choose(self._handle_alive(), arr, len(args),
                                        ctypes.byref(out)))
        return _s(lib().tilec_kernel_name(out))

    def autotune(self, *args, stream=None):
        """Times every member of this kernel's family (the kernel and its
        tile-shape variants) on these arguments and returns the fastest's
        name; later launches with arguments in the same problem bucket run
        it. The choice is cached on disk ($TILEC_CACHE_DIR, else
        ~/.cache/tilec), so another process gets it without timing. The
        members run several times: outputs are overwritten. TILEC_AUTOTUNE=0
        turns it off (the cost model's choice is returned)."""
        arr, device = self._convert(args)
        out = ctypes.c_void_p()
        L = lib()
        handle = self._handle_alive()
        if device is not None:
            torch = sys.modules["torch"]
            with torch.cuda.device(device):
                check(L.tilec_kernel_autotune(handle, _stream_handle(stream, device), arr,
                                              len(args), ctypes.byref(out)))
        else:
            check(L.tilec_kernel_autotune(handle, _stream_handle(stream, None), arr, len(args),
                                          ctypes.byref(out)))
        return _s(L.tilec_kernel_name(out))

    def pack(self, *args):
        """The kernel parameters as the ABI lays them out (bytes; TMA maps zeroed)."""
        arr, _ = self._convert(args)
        L = lib()
        size = ctypes.c_size_t(0)
        check(L.tilec_kernel_pack_args(self._handle_alive(), arr, len(args), None, 0,
                                       ctypes.byref(size), None))
        buf = ctypes.create_string_buffer(max(size.value, 1))
        check(L.tilec_kernel_pack_args(self._handle_alive(), arr, len(args), buf, size.value,
                                       ctypes.byref(size), None))
        return buf.raw[:size.value]

    def __call__(self, *args, stream=None, grid=None):
        """Launches the kernel (asynchronously) on `stream`.

        args: torch tensors, tilec.Tensor, objects with __cuda_array_interface__,
        and Python numbers for scalars. stream: None (torch's current stream when
        torch tensors are passed, else the default stream), an int handle, or a
        stream object (torch.cuda.Stream, cupy stream). grid: overrides the
        metadata's grid rule; an int or 1 to 3 ints (x, y, z), within CUDA's
        limits (x up to 2^31-1, y and z up to 65535, none 0).

        Arguments like the previous launch's (the same tensors' addresses,
        shapes, strides, dtypes and devices, the same scalars) reuse its
        converted form: the common repeated launch costs a few attribute
        reads in Python before the runtime's own checks.
        """
        key = _fast_key(args)
        last = self._last  # one read: another thread may replace it
        if key is not None and last is not None and last[0] == key:
            arr, device = last[1], last[2]
        else:
            arr, device = self._convert(args)
            if key is not None:
                self._last = (key, arr, device)
        L = lib()
        handle = self._handle_alive()
        if device is None:
            self._launch(L, handle, _stream_handle(stream, None), grid, arr, len(args))
            return
        torch = sys.modules["torch"]
        if stream is None and device.index == torch.cuda.current_device():
            # The current device's current stream, without entering it.
            self._launch(L, handle, _current_raw_stream(torch, device.index), grid, arr,
                         len(args))
            return
        with torch.cuda.device(device):
            self._launch(L, handle, _stream_handle(stream, device), grid, arr, len(args))

    launch = __call__

    @property
    def profiled(self):
        """Whether the kernel was compiled with ``tilec compile --profile``."""
        return bool(lib().tilec_kernel_profiled(self._handle_alive()))

    @staticmethod
    def _launch(L, handle, stream, grid, arr, n):
        stream_ptr = ctypes.c_void_p(stream or None)
        g = None if grid is None else (ctypes.c_uint32 * 3)(*_grid(grid))
        # Inside `with tilec.profile(...)`: a profiled launch.
        session = _profile_active()()
        if session is not None:
            check(L.tilec_launch_profiled(handle, stream_ptr, g, arr, n, session._handle_alive()))
        elif g is None:
            check(L.tilec_launch(handle, stream_ptr, arr, n))
        else:
            check(L.tilec_launch_grid(handle, stream_ptr, g, arr, n))


_active = None


def _profile_active():
    """tilec.profile.active (imported once: profile imports this module)."""
    global _active
    if _active is None:
        from .profile import active
        _active = active
    return _active


def _fast_key(args):
    """What identifies a launch's converted arguments when they are torch
    tensors (exactly torch.Tensor) and Python ints and floats; None for
    anything else (converted every time)."""
    torch = sys.modules.get("torch")
    tensor = torch.Tensor if torch is not None else None
    key = []
    for v in args:
        t = type(v)
        if t is tensor:
            key.append((v.data_ptr(), v.shape, v.stride(), v.dtype, v.device))
        elif t is int or t is float:
            key.append((t, v))
        else:
            return None
    return tuple(key)


def _current_raw_stream(torch, index):
    """The current CUDA stream of device `index` as an int handle."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return int(torch.cuda.current_stream(index).cuda_stream)


def _stream_handle(stream, torch_device):
    if stream is None:
        if torch_device is not None:
            torch = sys.modules["torch"]
            return int(torch.cuda.current_stream(torch_device).cuda_stream)
        return 0
    if isinstance(stream, numbers.Integral):
        return int(stream)
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise TilecError("cannot use %r as a CUDA stream" % (stream,), _lib.INVALID_ARGUMENT)


_deferred_free = []  # bundle handles closed during a stream capture


def _torch_capturing():
    """Whether torch is capturing a CUDA graph on this thread's current stream."""
    torch = sys.modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized()
                    and torch.cuda.is_current_stream_capturing())
    except Exception:
        return False


def free_deferred_bundles():
    """Releases the bundles closed while a capture was in progress (none
    while one still is)."""
    if not _deferred_free or _torch_capturing():
        return
    while _deferred_free:
        lib().tilec_bundle_free(_deferred_free.pop())


class Bundle:
    """A loaded bundle (.tlc): metadata plus machine code. See :func:`load`."""

    def __init__(self, handle, source=None):
        self._handle = handle
        self.source = source
        L = lib()
        self.arch = _s(L.tilec_bundle_arch(handle))
        self.metadata = _s(L.tilec_bundle_metadata(handle))
        self.has_cubin = bool(L.tilec_bundle_has_cubin(handle))
        self.has_ptx = bool(L.tilec_bundle_has_ptx(handle))
        self.num_modules = int(L.tilec_bundle_num_modules(handle))
        self.kernels = [_s(L.tilec_bundle_kernel_name(handle, i))
                        for i in range(L.tilec_bundle_num_kernels(handle))]
        self._kernels = {}

    @classmethod
    def from_file(cls, path):
        handle = ctypes.c_void_p()
        check(lib().tilec_bundle_load_file(_c_string(path, "bundle path"), ctypes.byref(handle)))
        return cls(handle.value, os.fspath(path))

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        handle = ctypes.c_void_p()
        check(lib().tilec_bundle_load_memory(data, len(data), ctypes.byref(handle)))
        return cls(handle.value)

    def kernel(self, name):
        """The kernel called `name` (TilecError NOT_FOUND lists the names)."""
        if not isinstance(name, str):
            raise TilecTypeError("kernel names are str, got %s" % type(name).__name__)
        k = self._kernels.get(name)
        if k is None:
            if self._handle is None:
                raise TilecError("bundle is closed", _lib.INVALID_ARGUMENT)
            handle = ctypes.c_void_p()
            check(lib().tilec_bundle_get_kernel(self._handle, _c_string(name, "kernel name"),
                                                ctypes.byref(handle)))
            k = self._kernels[name] = Kernel(self, handle.value)
        return k

    __getitem__ = kernel

    def __contains__(self, name):
        return name in self.kernels

    def __iter__(self):
        return iter(self.kernels)

    def __len__(self):
        return len(self.kernels)

    def load_module(self):
        """Loads the machine code into the current CUDA context now (else lazily)."""
        if self._handle is None:
            raise TilecError("bundle is closed", _lib.INVALID_ARGUMENT)
        check(lib().tilec_bundle_load_module(self._handle))

    def close(self):
        """Releases the bundle and its driver modules; its kernels become unusable.

        Releasing waits for the GPU (the modules' kernels may still run), which
        a CUDA-graph capture in progress forbids: a bundle closed, or collected
        by the garbage collector, while torch captures on this thread is
        released at the next load or close outside a capture."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            if _torch_capturing():
                _deferred_free.append(handle)
                return
            free_deferred_bundles()
            lib().tilec_bundle_free(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<tilec.Bundle arch=%s kernels=%s>" % (self.arch, self.kernels)


def load(source):
    """Loads a bundle from a path (str / os.PathLike) or from bytes-like data."""
    free_deferred_bundles()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Bundle.from_bytes(source)
    if isinstance(source, (str, os.PathLike)):
        return Bundle.from_file(source)
    raise TilecTypeError("tilec.load expects a path or bytes, got %s" % type(source).__name__)


def device_info():
    """DeviceInfo(sm_count, smem_optin, cc_major, cc_minor) of the current device."""
    v = [ctypes.c_int() for _ in range(4)]
    check(lib().tilec_device_info(*(ctypes.byref(x) for x in v)))
    return DeviceInfo(*(x.value for x in v))


def synchronize(stream=None):
    """Waits for `stream` (handle or stream object), or the whole context if None."""
    if stream is None:
        check(lib().tilec_synchronize())
    else:
        check(lib().tilec_stream_synchronize(ctypes.c_void_p(_stream_handle(stream, None) or None)))


def runtime_version():
    """Version string of the loaded libtilec_runtime."""
    return _s(lib().tilec_runtime_version())


def autotune(kernel, *args, stream=None):
    """tilec.autotune(kernel, *args): Kernel.autotune; returns the chosen
    member's name."""
    return kernel.autotune(*args, stream=stream)
