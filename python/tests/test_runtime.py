"""The tilec Python binding without a GPU: bundles, metadata, validation,
grids, ABI packing, and the errors when there is no CUDA driver.

Run: TILEC_RUNTIME_LIB=/path/to/libtilec_runtime.so python3 -m pytest python/tests
(without TILEC_RUNTIME_LIB the package looks in the repository's build dirs).
"""

import glob
import os
import struct
import subprocess
import sys
import textwrap
import time

import pytest

import tilec
from tilec_test_util import FAKE_CUBIN, GEMM, VECTOR_ADD, build_bundle

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def T(ptr, shape, dtype="f32", strides=None):
    return tilec.Tensor(ptr, shape, strides, dtype)


def va_args(n=5000):
    return [T(0x1000, (n,)), T(0x2000, (n,)), T(0x3000, (n,)), 2.0]


def gemm_args():
    return [T(0x10000, (512, 4096), "bf16"), T(0x20000, (4096, 1024), "bf16"),
            T(0x30000, (512, 1024), "f32"), 4096, 1.5]


@pytest.fixture
def va():
    return tilec.load(build_bundle(VECTOR_ADD))["vector_add"]


@pytest.fixture
def gemm_bundle():
    return tilec.load(build_bundle(GEMM))


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with extra environment variables."""
    full_env = dict(os.environ)
    full_env["TILEC_RUNTIME_LIB"] = tilec.library_path()
    full_env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + os.path.dirname(os.path.abspath(__file__))
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=120)


# ---- bundles and metadata -----------------------------------------------------------------


def test_load_bytes_reads_every_field():
    b = tilec.load(build_bundle(VECTOR_ADD))
    assert b.arch == "sm_90a"
    assert b.kernels == ["vector_add"]
    assert b.metadata == VECTOR_ADD
    assert b.has_cubin and not b.has_ptx
    assert "vector_add" in b and len(b) == 1 and list(b) == ["vector_add"]
    k = b["vector_add"]
    assert k is b.kernel("vector_add")
    assert k.name == "vector_add"
    assert k.threads == 128
    assert k.smem == 0
    assert k.cluster == (1, 1, 1)
    assert k.grid_exprs == ("cdiv(dim(0,0),1024)", "1", "1")
    assert k.params == [
        tilec.Param(0, "x", "tensor", "f32", 1, (None,), (1,), 16),
        tilec.Param(1, "y", "tensor", "f32", 1, (None,), (1,), 16),
        tilec.Param(2, "out", "tensor", "f32", 1, (None,), (1,), 16),
        tilec.Param(3, "alpha", "scalar", "f32"),
    ]


def test_bundle_of_several_modules():
    # Format version 2: a CUBN per module; the second kernel is in module 1.
    meta = VECTOR_ADD + VECTOR_ADD.split("\n", 2)[2].replace(
        "kernel vector_add", "kernel second").replace("cluster 1 1 1", "cluster 1 1 1\nmodule 1")
    two = build_bundle(sections=[(b"META", meta.encode()), (b"CUBN", FAKE_CUBIN),
                                 (b"CUBN", FAKE_CUBIN)], version=2)
    b = tilec.load(two)
    assert b.kernels == ["vector_add", "second"]
    assert b.num_modules == 2 and b.has_cubin
    assert tilec.load(build_bundle(VECTOR_ADD)).num_modules == 1
    one = build_bundle(sections=[(b"META", meta.encode()), (b"CUBN", FAKE_CUBIN)], version=2)
    with pytest.raises(tilec.TilecError) as e:
        tilec.load(one)
    assert "kernel 'second' is in module 1 but the bundle has 1 module" in str(e.value)


def test_load_file(tmp_path):
    path = tmp_path / "va.tlc"
    path.write_bytes(build_bundle(VECTOR_ADD, ptx=".version 8.0\n"))
    for source in (path, str(path)):
        b = tilec.load(source)
        assert b.kernels == ["vector_add"]
        assert b.has_ptx and b.source == str(path)
    with pytest.raises(tilec.TilecError) as e:
        tilec.load(tmp_path / "missing.tlc")
    assert e.value.code == tilec.NOT_FOUND
    assert "missing.tlc" in str(e.value)


def test_tma_cluster_and_static_dims(gemm_bundle):
    assert gemm_bundle.kernels == ["gemm", "tiny"]
    k = gemm_bundle["gemm"]
    assert (k.threads, k.smem, k.cluster) == (384, 200000, (2, 1, 1))
    a, b, c, kk, alpha = k.params
    assert a.shape == (None, 4096) and a.strides == (None, 1) and a.align == 128
    assert a.tma == tilec.Tma((64, 64), 128, "zero")
    assert b.tma == tilec.Tma((128, 64), 128, "nan")
    assert c.tma is None and c.strides == (None, None)
    assert (kk.kind, kk.dtype) == ("scalar", "i32")
    assert alpha.dtype == "bf16"


@pytest.mark.parametrize("data, message", [
    (b"", "truncated header: 0 bytes"),
    (b"TILECBN1\x01\x00", "truncated header"),
    (build_bundle(VECTOR_ADD, magic=b"NOTABNDL"), "bad magic"),
    (build_bundle(VECTOR_ADD, version=4), "unsupported bundle format version 4 (expected 1 to 3)"),
    (build_bundle(sections=[(b"CUBN", b"x" * 8)]), "no META section"),
    (build_bundle(VECTOR_ADD, cubin=None), "no CUBN or 'PTX ' section"),
    (build_bundle(VECTOR_ADD)[:40], "runs past the end of the data"),
    (build_bundle(VECTOR_ADD.replace("alpha f32", "alpha f17")),
     "metadata line 11: unknown dtype 'f17'"),
    (build_bundle(VECTOR_ADD.replace("x f32 1", "x f32 6")), "metadata line 8"),
    (build_bundle(VECTOR_ADD + "param scalar z i32\n"),
     "metadata line 13: 'param' outside a kernel block"),
])
def test_bad_bundles(data, message):
    with pytest.raises(tilec.TilecError) as e:
        tilec.load(data)
    assert e.value.code == tilec.BAD_BUNDLE
    assert e.value.code_name == "BAD_BUNDLE"
    assert message in str(e.value)


def test_unknown_kernel_lists_names(gemm_bundle):
    with pytest.raises(tilec.TilecError) as e:
        gemm_bundle["gemv"]
    assert e.value.code == tilec.NOT_FOUND
    assert "no kernel 'gemv'" in str(e.value) and "available: gemm, tiny" in str(e.value)


def test_load_rejects_other_types():
    # A TilecError, and a TypeError too (the argument's type is wrong).
    for caught in (TypeError, tilec.TilecError):
        with pytest.raises(caught, match="tilec.load expects a path or bytes, got int"):
            tilec.load(42)


# ---- grid ------------------------------------------------------------------------------------


def test_grid(va, gemm_bundle):
    assert va.grid(*va_args(5000)) == (5, 1, 1)
    assert va.grid(*va_args(1024)) == (1, 1, 1)
    assert gemm_bundle["gemm"].grid(*gemm_args()) == (8, 4, 1)
    assert gemm_bundle["tiny"].grid(17) == (17, 1, 1)


def test_grid_errors(va, gemm_bundle):
    with pytest.raises(tilec.TilecError) as e:
        va.grid(*va_args(0))
    assert "grid x 'cdiv(dim(0,0),1024)': evaluates to 0" in str(e.value)
    with pytest.raises(tilec.TilecError) as e:
        gemm_bundle["tiny"].grid(70000 * 40000)
    assert "must be in 1..2147483647" in str(e.value)


# ---- validation ------------------------------------------------------------------------------


def test_good_arguments_validate(va, gemm_bundle):
    va.validate(*va_args())
    gemm_bundle["gemm"].validate(*gemm_args())


def expect_invalid(kernel, args, message):
    with pytest.raises(tilec.TilecError) as e:
        kernel.validate(*args)
    assert e.value.code == tilec.INVALID_ARGUMENT
    assert message in str(e.value), str(e.value)


def test_wrong_count(va):
    expect_invalid(va, va_args()[:3], "kernel 'vector_add' expects 4 arguments (x, y, out, alpha), got 3")


def test_wrong_kind(va):
    args = va_args()
    args[3] = T(0x4000, (4,))
    expect_invalid(va, args, "parameter 3 ('alpha'): expected a number for the f32 scalar, got Tensor")
    args = va_args()
    args[0] = 1.0
    expect_invalid(va, args, "parameter 0 ('x'): expected a tensor")


def test_wrong_dtype(gemm_bundle):
    args = gemm_args()
    args[2] = T(0x30000, (512, 1024), "f16")
    expect_invalid(gemm_bundle["gemm"], args,
                   "kernel 'gemm' parameter 2 ('c'): dtype is f16, metadata expects f32")
    args = gemm_args()
    args[3] = 4096.0
    expect_invalid(gemm_bundle["gemm"], args,
                   "parameter 3 ('k'): expected an integer for the i32 scalar, got float")


def test_wrong_rank(va):
    args = va_args()
    args[2] = T(0x3000, (2, 5))
    expect_invalid(va, args, "parameter 2 ('out'): rank is 2, metadata expects 1")


def test_static_extent_and_stride(va, gemm_bundle):
    args = gemm_args()
    args[0] = T(0x10000, (512, 2048), "bf16")
    expect_invalid(gemm_bundle["gemm"], args, "parameter 0 ('a'): extent 1 is 2048, metadata expects 4096")
    args = va_args()
    args[1] = T(0x2000, (5000,), strides=(2,))
    expect_invalid(va, args, "parameter 1 ('y'): stride 0 is 2, metadata expects 1")


def test_null_and_misaligned_pointers(va):
    args = va_args()
    args[0] = T(0, (5000,))
    expect_invalid(va, args, "parameter 0 ('x'): data pointer is NULL")
    args[0] = T(0x1004, (5000,))
    expect_invalid(va, args, "base pointer 0x1004 is not aligned to 16 bytes")


def test_tma_rules(gemm_bundle):
    args = gemm_args()
    args[1] = T(0x20000, (4096, 1000), "bf16", strides=(1004, 1))  # 2008-byte rows
    expect_invalid(gemm_bundle["gemm"], args, "parameter 1 ('b'): tma: stride 0 is 1004 elements "
                   "(x 2 bytes), must be a positive multiple of 16 bytes")
    args[1] = T(0x20000, (4096, 1000), "bf16", strides=(1000, 1))  # 2000-byte rows: fine
    gemm_bundle["gemm"].validate(*args)
    args[1] = T(0x20008, (4096, 1000), "bf16")
    expect_invalid(gemm_bundle["gemm"], args, "parameter 1 ('b'): base pointer 0x20008 is not aligned to 16 bytes")


def test_scalar_range(gemm_bundle):
    args = gemm_args()
    args[3] = 1 << 31
    expect_invalid(gemm_bundle["gemm"], args, "value 2147483648 is out of range for i32")
    args[3] = 1 << 70
    expect_invalid(gemm_bundle["gemm"], args, "does not fit in 64 bits")


def test_cuda_array_interface_objects(va):
    class Arr:
        def __init__(self, ptr, shape, typestr="<f4", strides=None):
            self.__cuda_array_interface__ = {
                "data": (ptr, False), "shape": shape, "typestr": typestr,
                "strides": strides, "version": 3}

    va.validate(Arr(0x1000, (64,)), Arr(0x2000, (64,), strides=(4,)), Arr(0x3000, (64,)), 1)
    expect_invalid(va, [Arr(0x1000, (64,)), Arr(0x2000, (64,), strides=(8,)), Arr(0x3000, (64,)), 1],
                   "parameter 1 ('y'): stride 0 is 2, metadata expects 1")
    expect_invalid(va, [Arr(0x1000, (64,), "<f2"), Arr(0x2000, (64,)), Arr(0x3000, (64,)), 1],
                   "parameter 0 ('x'): dtype is f16, metadata expects f32")


def test_malformed_cuda_array_interface_is_a_tilec_error(va):
    class Arr:
        def __init__(self, cai):
            self.__cuda_array_interface__ = cai

    good = {"data": (0x1000, False), "shape": (64,), "typestr": "<f4", "strides": None,
            "version": 3}
    cases = [
        ("not a dict", "parameter 0 ('x'): malformed __cuda_array_interface__: a list, not a "
         "dict"),
        ({k: v for k, v in good.items() if k != "typestr"}, "typestr None"),
        (dict(good, typestr=4), "typestr 4"),
        (dict(good, shape="64"), "shape '64' is not a tuple of integers"),
        (dict(good, shape=(64.0,)), "shape (64.0,) is not a tuple of integers"),
        ({k: v for k, v in good.items() if k != "data"}, "data None is not (address"),
        (dict(good, data=(0x1000,)), "data (4096,) is not (address"),
        (dict(good, strides=(4, 4)), "2 strides for 1 dimensions"),
        (dict(good, strides=("4",)), "strides ('4',) is not a tuple of integers"),
        (dict(good, shape=(-1,)), "extent 0 is -1, not an integer in [0, 2^63)"),
        (dict(good, shape=(1 << 64,)), "extent 0 is 18446744073709551616"),
        (dict(good, data=(1 << 64, False)), "address 18446744073709551616 is not a 64-bit"),
        (dict(good, data=(-8, False)), "address -8 is not a 64-bit"),
    ]
    for cai, message in cases:
        arr = Arr(["not", "a", "dict"] if cai == "not a dict" else cai)
        expect_invalid(va, [arr, T(0x2000, (64,)), T(0x3000, (64,)), 1.0], message)


def test_integers_ctypes_would_truncate_are_rejected(va):
    # ctypes keeps the low 64 bits of a larger int: 2^64 + 0x1000 would have been
    # address 0x1000.
    expect_invalid(va, [T((1 << 64) + 0x1000, (64,)), T(0x2000, (64,)), T(0x3000, (64,)), 1.0],
                   "address 18446744073709555712 is not a 64-bit unsigned integer")
    expect_invalid(va, [T(0x1000, (64,), strides=(1 << 63,)), T(0x2000, (64,)),
                        T(0x3000, (64,)), 1.0], "stride 0 is 9223372036854775808")
    expect_invalid(va, [T(0x1000, (64,)), T(0x2000, (64,)), T(0x3000, (64,)), 10 ** 400],
                   "parameter 3 ('alpha'): value 1000")


def test_nul_in_a_path_or_kernel_name(tmp_path, gemm_bundle):
    path = tmp_path / "g.tlc"
    path.write_bytes(build_bundle(GEMM))
    # The C API would have read "g.tlc" and found "gemm".
    with pytest.raises(tilec.TilecError) as e:
        tilec.load(str(path) + "\0.evil")
    assert e.value.code == tilec.INVALID_ARGUMENT and "contains a NUL character" in str(e.value)
    with pytest.raises(tilec.TilecError) as e:
        gemm_bundle["gemm\0x"]
    assert e.value.code == tilec.INVALID_ARGUMENT and "kernel name" in str(e.value)
    for caught in (TypeError, tilec.TilecError):
        with pytest.raises(caught, match="kernel names are str, got int"):
            gemm_bundle[3]


class Index:
    """An integer that is not an int (as numpy's and torch's are): it has __index__."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


@pytest.mark.parametrize("shape, strides, message", [
    ((1024.9,), None, "extent 0 is 1024.9, not an integer"),
    ((64, "2049"), None, "extent 1 is '2049', not an integer"),
    ((True,), None, "extent 0 is True, not an integer"),
    (None, None, "shape None is not a sequence of integers"),
    (5000, None, "shape 5000 is not a sequence of integers"),
    ("64", None, "shape '64' is not a sequence of integers"),
    ((64,), (1.0,), "stride 0 is 1.0, not an integer"),
])
def test_tensor_extents_and_strides_are_exact_integers(shape, strides, message):
    # int() made 1024.9 an extent of 1024 and "2049" one of 2049.
    with pytest.raises(tilec.TilecError) as e:
        tilec.Tensor(0x1000, shape, strides)
    assert message in str(e.value) and e.value.code == tilec.INVALID_ARGUMENT


def test_tensor_takes_integers_that_are_not_ints():
    t = tilec.Tensor(0x1000, (Index(8), Index(4)), (Index(4), 1))
    assert t.shape == (8, 4) and t.strides == (4, 1) and type(t.shape[0]) is int


@pytest.mark.parametrize("grid", [
    (), (1, 2, 3, 4), 0, (0,), -1, (4, -1), (1, 0), (1, 1, 0), 1 << 31, (1, 65536),
    (1, 1, 65536), 1.5, (2.0,), "2", ("2",), (True,), {"x": 1}, ((1,),),
], ids=repr)
def test_bad_grids_are_refused_before_a_launch(va, grid):
    with pytest.raises(tilec.TilecError, match="grid must be an int or 1 to 3 ints") as e:
        va(*va_args(), grid=grid)
    assert e.value.code == tilec.INVALID_ARGUMENT
    with pytest.raises(tilec.TilecError, match="grid must be an int or 1 to 3 ints"):
        tilec.Profile().add_buffer(va, grid, b"")


def test_grids_within_cudas_limits():
    from tilec.runtime import _grid
    assert _grid(Index(3)) == (3, 1, 1)
    assert _grid([4, 2]) == (4, 2, 1)
    assert _grid(((1 << 31) - 1, 65535, 65535)) == ((1 << 31) - 1, 65535, 65535)


def test_a_lone_surrogate_in_a_path_or_kernel_name(tmp_path, gemm_bundle):
    with pytest.raises(tilec.TilecError, match="bundle path .* cannot be passed to the runtime"):
        tilec.load(str(tmp_path / "g\ud800.tlc"))
    with pytest.raises(tilec.TilecError, match="kernel name .* cannot be passed to the runtime"):
        gemm_bundle["gemm\ud800"]


# ---- ABI packing -------------------------------------------------------------------------------


def test_pack_follows_the_abi(va, gemm_bundle):
    packed = va.pack(*va_args(5000))
    assert len(packed) == 76
    assert struct.unpack_from("<Qqq", packed, 0) == (0x1000, 5000, 1)
    assert struct.unpack_from("<Qqq", packed, 24) == (0x2000, 5000, 1)
    assert struct.unpack_from("<Qqq", packed, 48) == (0x3000, 5000, 1)
    assert struct.unpack_from("<f", packed, 72) == (2.0,)

    packed = gemm_bundle["gemm"].pack(*gemm_args())
    assert len(packed) == 406
    assert packed[:128] == bytes(128)  # TMA map of a: encoded only at launch
    assert struct.unpack_from("<Qqqqq", packed, 128) == (0x10000, 512, 4096, 4096, 1)
    assert packed[192:320] == bytes(128)  # TMA map of b, 64-byte aligned
    assert struct.unpack_from("<Qqqqq", packed, 320) == (0x20000, 4096, 1024, 1024, 1)
    assert struct.unpack_from("<Qqqqq", packed, 360) == (0x30000, 512, 1024, 1024, 1)
    assert struct.unpack_from("<iH", packed, 400) == (4096, 0x3FC0)  # i32, bf16(1.5)


def test_tensor_defaults_to_contiguous_strides():
    assert tilec.Tensor(0x10, (2, 3, 4)).strides == (12, 4, 1)
    assert tilec.Tensor(0x10, [5], [3], "bf16").strides == (3,)


# ---- no driver, no library ---------------------------------------------------------------------


def test_no_driver():
    r = run_python("""
        import tilec
        from tilec_test_util import VECTOR_ADD, build_bundle
        k = tilec.load(build_bundle(VECTOR_ADD))["vector_add"]
        for call in (lambda: k(tilec.Tensor(0x1000, (8,)), tilec.Tensor(0x2000, (8,)),
                               tilec.Tensor(0x3000, (8,)), 1.0),
                     tilec.device_info, tilec.synchronize):
            try:
                call()
                print("no error")
            except tilec.TilecError as e:
                print(e.code_name, "|", e)
        """, TILEC_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout
    for line, api in zip(lines, ("tilec_launch", "tilec_device_info", "tilec_synchronize")):
        assert line.startswith("NO_DRIVER | " + api), line
        assert "cannot load the CUDA driver library '/nonexistent/libcuda.so.1'" in line


def test_missing_runtime_library_is_a_clear_error():
    r = run_python("""
        import tilec
        try:
            tilec.load(b"")
        except tilec.TilecError as e:
            print(e.code_name, "|", e)
        """, TILEC_RUNTIME_LIB="/nonexistent/libtilec_runtime.so")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("NOT_FOUND | cannot load the tilec runtime library")
    assert "TILEC_RUNTIME_LIB" in r.stdout and "/nonexistent/libtilec_runtime.so" in r.stdout


def test_torch_is_not_imported():
    r = run_python("""
        import sys, tilec
        from tilec_test_util import VECTOR_ADD, build_bundle
        k = tilec.load(build_bundle(VECTOR_ADD))["vector_add"]
        k.validate(tilec.Tensor(0x1000, (8,)), tilec.Tensor(0x2000, (8,)), tilec.Tensor(0x3000, (8,)), 1.0)
        print("torch" in sys.modules)
        """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_closed_bundle():
    b = tilec.load(build_bundle(VECTOR_ADD))
    k = b["vector_add"]
    with b:
        pass
    with pytest.raises(tilec.TilecError) as e:
        k.grid(*va_args())
    assert "bundle was closed" in str(e.value)


def test_version():
    assert tilec.runtime_version()
    assert os.path.exists(tilec.library_path())


# ---- launches against the fake driver (built with the C++ unit tests) -----------------------


def _fake_driver():
    lib_dir = os.path.dirname(tilec.library_path())
    env = os.environ.get("TILEC_FAKE_CUDA_LIB")
    candidates = [env] if env else []
    for rel in ("../test/unit", "../unit", "../../test/unit", "."):
        candidates += glob.glob(os.path.join(lib_dir, rel, "libtilec_fake_cuda.so"))
    return next((c for c in candidates if c and os.path.exists(c)), None)


def test_launch_through_the_fake_driver():
    fake = _fake_driver()
    if fake is None:
        pytest.skip("libtilec_fake_cuda.so not found (build test/unit, or set TILEC_FAKE_CUDA_LIB)")
    r = run_python("""
        import ctypes, os, tilec
        from tilec_test_util import GEMM, VECTOR_ADD, build_bundle
        fake = ctypes.CDLL(os.environ["TILEC_CUDA_DRIVER"])
        def last():
            g, b, c = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
            smem, stream = ctypes.c_uint(), ctypes.c_void_p()
            fake.fake_cuda_last_launch(g, b, ctypes.byref(smem), ctypes.byref(stream), c)
            return tuple(g), tuple(b), smem.value, stream.value or 0, tuple(c)
        k = tilec.load(build_bundle(VECTOR_ADD))["vector_add"]
        args = [tilec.Tensor(0x1000, (5000,)), tilec.Tensor(0x2000, (5000,)), tilec.Tensor(0x3000, (5000,)), 2]
        k(*args)
        print(last())
        k(*args, stream=0x1234, grid=(3, 2))
        print(last())
        class S: cuda_stream = 0x77
        k(*args, stream=S(), grid=9)
        print(last())
        g = tilec.load(build_bundle(GEMM))["gemm"]
        g(tilec.Tensor(0x10000, (512, 4096), dtype="bf16"), tilec.Tensor(0x20000, (4096, 1024), dtype="bf16"),
          tilec.Tensor(0x30000, (512, 1024)), 4096, 1.5)
        print(last())
        print(fake.fake_cuda_launch_count())
        print(tilec.device_info())
        """, TILEC_CUDA_DRIVER=fake)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "((5, 1, 1), (128, 1, 1), 0, 0, (0, 0, 0))"
    assert lines[1] == "((3, 2, 1), (128, 1, 1), 0, %d, (0, 0, 0))" % 0x1234
    assert lines[2] == "((9, 1, 1), (128, 1, 1), 0, %d, (0, 0, 0))" % 0x77
    assert lines[3] == "((8, 4, 1), (384, 1, 1), 200000, 0, (2, 1, 1))"
    assert lines[4] == "4"
    assert lines[5] == "DeviceInfo(sm_count=132, smem_optin=232448, cc_major=9, cc_minor=0)"



def test_autotune_cache_across_processes(tmp_path):
    # The first process times both members (the fake driver makes t__small
    # faster) and writes the cache; the second gets the choice without a
    # launch. tilec.autotune and Kernel.autotune are the same.
    fake = _fake_driver()
    if fake is None:
        pytest.skip("libtilec_fake_cuda.so not found (build test/unit, or set TILEC_FAKE_CUDA_LIB)")
    code = """
        import ctypes, os, tilec
        from tilec_test_util import FAMILY, build_bundle
        fake = ctypes.CDLL(os.environ["TILEC_CUDA_DRIVER"])
        fake.fake_cuda_set_function_ms(b"t", ctypes.c_double(3.0))
        fake.fake_cuda_set_function_ms(b"t__small", ctypes.c_double(1.0))
        k = tilec.load(build_bundle(FAMILY))["t"]
        x = tilec.Tensor(0x1000, (33792, 64))  # 132 tiles of 256: one wave
        print(k.choose(x), tilec.autotune(k, x), k.autotune(x), fake.fake_cuda_launch_count())
        """
    env = dict(TILEC_CUDA_DRIVER=fake, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    first = run_python(code, **env)
    assert first.returncode == 0, first.stderr
    by_cost, tuned, again, launches = first.stdout.split()
    assert (by_cost, tuned, again) == ("t", "t__small", "t__small")
    assert int(launches) >= 10
    files = sorted(os.listdir(tmp_path / "cache"))
    assert files[0].startswith("autotune-") and files[0].endswith(".txt")
    assert files[1:] in ([], [files[0] + ".lock"])  # the writers' lock beside it
    second = run_python(code, **env)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["t", "t__small", "t__small", "0"]
    off = run_python(code, TILEC_AUTOTUNE="0", **env)
    assert off.stdout.split() == ["t", "t", "t", "0"], off.stderr


def test_processes_autotuning_at_once_lose_no_cache_entry(tmp_path):
    # 16 processes autotune 8 problems each (all in distinct buckets) at the
    # same moment, through the fake driver, into one cache file: each write
    # reads the file, adds its entry and renames a new file over it, so
    # writers that do not exclude one another drop each other's entries.
    fake = _fake_driver()
    if fake is None:
        pytest.skip("libtilec_fake_cuda.so not found (build test/unit, or set TILEC_FAKE_CUDA_LIB)")
    code = textwrap.dedent("""
        import sys, time, tilec
        from tilec_test_util import FAMILY, build_bundle
        k = tilec.load(build_bundle(FAMILY))["t"]
        first, start = int(sys.argv[1]), float(sys.argv[2])
        while time.time() < start:
            time.sleep(0.001)
        for i in range(first, first + 8):
            k.autotune(tilec.Tensor(0x1000, (128 * i + 1, 64)))  # bucket 128 * (i + 1)
        """)
    env = dict(os.environ, TILEC_RUNTIME_LIB=tilec.library_path(), TILEC_CUDA_DRIVER=fake,
               TILEC_CACHE_DIR=str(tmp_path), PYTHONPATH=PYTHON_DIR + os.pathsep +
               os.path.dirname(os.path.abspath(__file__)))
    start = time.time() + 3  # all started and waiting by then
    procs = [subprocess.Popen([sys.executable, "-c", code, str(1 + 8 * p), str(start)], env=env,
                              stderr=subprocess.PIPE, text=True) for p in range(16)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    (cache,) = [f for f in os.listdir(tmp_path) if f.endswith(".txt")]
    lines = (tmp_path / cache).read_text().splitlines()
    assert lines[0] == "tilec-autotune 2"
    buckets = sorted(int(line.split("\t")[3].split("x")[0]) for line in lines[1:])
    assert buckets == [128 * (i + 1) for i in range(1, 129)]
