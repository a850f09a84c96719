"""tilec: load tilec bundles (.tlc) and launch their kernels from Python.

A thin ctypes binding over libtilec_runtime (runtime/include/tilec/runtime.h).
No GPU is needed to load bundles, read their metadata, validate arguments or
evaluate grids; launching needs the CUDA driver. torch is imported lazily,
only when torch tensors are passed.

    import torch, tilec

    bundle = tilec.load("vector_add.tlc")
    k = bundle["vector_add"]
    print(k.params, k.threads, k.grid_exprs)
    x = torch.randn(5000, device="cuda")
    y = torch.randn(5000, device="cuda")
    out = torch.empty_like(x)
    k(x, y, out)                      # on torch.cuda.current_stream()
    print(k.grid(x, y, out))          # (5, 1, 1)

The runtime library is found via $TILEC_RUNTIME_LIB, else next to this
package (tilec/libtilec_runtime.so), else in the repository's build
directories (build/runtime/libtilec_runtime.so, ...), else the dynamic
loader's search path. Errors raise :class:`TilecError` with the runtime's
message and ``code`` (``tilec.BAD_BUNDLE``, ``tilec.NO_DRIVER``, ...).
"""

import warnings

from ._lib import (
    BAD_BUNDLE,
    DRIVER,
    INVALID_ARGUMENT,
    NO_DRIVER,
    NOT_FOUND,
    OK,
    OUT_OF_RESOURCES,
    UNSUPPORTED,
    TilecError,
    TilecTypeError,
    library_path,
)
from .compile import CompileError, cache_dir, compile, compiler_path, default_arch
from .ops import custom_op, op_schema
from .profile import Profile, profile
from .runtime import (
    Bundle,
    autotune,
    DeviceInfo,
    Kernel,
    Param,
    Tensor,
    Tma,
    device_info,
    load,
    runtime_version,
    synchronize,
)

# `python -m tilec.profile` runs a module that importing this package has
# already imported; runpy's warning about that means nothing to the user.
warnings.filterwarnings("ignore", message=r"'tilec\.profile' found in sys\.modules",
                        category=RuntimeWarning)

DTYPES = ("i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2")

__version__ = "0.1.0"

__all__ = [
    "Bundle", "CompileError", "DeviceInfo", "Kernel", "Param", "Profile", "Tensor", "Tma",
    "TilecError", "TilecTypeError", "DTYPES", "profile", "compile", "cache_dir", "compiler_path", "default_arch",
    "autotune", "custom_op", "op_schema", "device_info", "library_path", "load", "runtime_version", "synchronize",
    "OK", "INVALID_ARGUMENT", "BAD_BUNDLE", "NOT_FOUND", "NO_DRIVER", "DRIVER",
    "UNSUPPORTED", "OUT_OF_RESOURCES",
]
