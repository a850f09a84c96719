"""Real launches on a GPU, with hand-written CUDA kernels that follow the
kernel ABI of docs/BUNDLE.md, compiled with nvcc and wrapped into bundles.

Skipped unless torch with CUDA, nvcc and an sm_90 device are available.
Covers: tensors and strides, every scalar dtype, streams, PTX-only bundles and
the cubin -> PTX fallback, dynamic shared memory above 48 KiB, cluster
launches and TMA descriptors (zero and NaN fill).
"""

import math
import os
import shutil
import struct
import subprocess

import pytest

import tilec
from tilec_test_util import build_bundle

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if NVCC is None:
    pytest.skip("nvcc not found", allow_module_level=True)
if torch.cuda.get_device_capability() != (9, 0):
    pytest.skip("these kernels are built for sm_90a", allow_module_level=True)

VECTOR_ADD_CU = r"""
typedef long long i64;
extern "C" __global__ void vector_add(const float* x, i64 xn, i64 xs, const float* y, i64 yn,
                                      i64 ys, float* out, i64 on, i64 os, float alpha) {
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < on) out[i * os] = alpha * x[i * xs] + y[i * ys];
}
"""

KERNELS_CU = VECTOR_ADD_CU + r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

struct alignas(64) TmaDesc { unsigned long long v[16]; };

extern "C" __global__ void scalars(i64* out, i64 on, i64 os, bool a, signed char b, short c,
                                   int d, i64 e, __half f, __nv_bfloat16 g, float h, double i,
                                   __nv_fp8_e4m3 j, __nv_fp8_e5m2 k) {
  out[0 * os] = a; out[1 * os] = b; out[2 * os] = c; out[3 * os] = d; out[4 * os] = e;
  out[5 * os] = __half_as_ushort(f);
  out[6 * os] = __bfloat16_as_ushort(g);
  out[7 * os] = __float_as_uint(h);
  out[8 * os] = __double_as_longlong(i);
  out[9 * os] = j.__x;
  out[10 * os] = k.__x;
}

extern "C" __global__ void cluster_smem(int* out, i64 on, i64 os) {
  extern __shared__ int dyn[];
  cg::cluster_group c = cg::this_cluster();
  const int last = 100 * 1024 / 4 - 1;  // the last int of 100 KiB
  if (threadIdx.x == 0) dyn[last] = 7 + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    out[(blockIdx.x * 3 + 0) * os] = (int)c.num_blocks();
    out[(blockIdx.x * 3 + 1) * os] = (int)c.block_rank();
    out[(blockIdx.x * 3 + 2) * os] = dyn[last];
  }
}

// Loads the 32x32 box at (blockIdx.y*32, blockIdx.x*32) through TMA and
// writes it (+ tag) to out wherever out has room.
__device__ void tma_tile(int tag, const TmaDesc& map, float* out, i64 o0, i64 o1, i64 os0,
                         i64 os1) {
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  const unsigned tile_addr = (unsigned)__cvta_generic_to_shared(tile);
  const int c0 = blockIdx.x * 32, c1 = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 ::"r"(bar_addr), "r"(32 * 32 * 4) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];"
        ::"r"(tile_addr), "l"((unsigned long long)&map), "r"(c0), "r"(c1), "r"(bar_addr)
        : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
        "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(bar_addr) : "memory");
  }
  for (int t = threadIdx.x; t < 32 * 32; t += blockDim.x) {
    const i64 r = c1 + t / 32, col = c0 + t % 32;
    if (r < o0 && col < o1) out[r * os0 + col * os1] = tile[t] + tag;
  }
}

#define TMA_KERNEL(NAME)                                                                    \
  extern "C" __global__ void NAME(int tag, const __grid_constant__ TmaDesc map,             \
                                  const float* in, i64 i0, i64 i1, i64 is0, i64 is1,         \
                                  float* out, i64 o0, i64 o1, i64 os0, i64 os1) {            \
    tma_tile(tag, map, out, o0, o1, os0, os1);                                              \
  }
TMA_KERNEL(tma_zero)
TMA_KERNEL(tma_nan)
"""

META = """tilec-bundle 1
arch sm_90a
kernel vector_add
threads 128
grid cdiv(dim(2,0),128) 1 1
param tensor x f32 1 shape ? strides ? align 4
param tensor y f32 1 shape ? strides ? align 4
param tensor out f32 1 shape ? strides ? align 4
param scalar alpha f32
end
kernel scalars
threads 1
grid 1 1 1
param tensor out i64 1 shape 11 strides ? align 8
param scalar a i1
param scalar b i8
param scalar c i16
param scalar d i32
param scalar e i64
param scalar f f16
param scalar g bf16
param scalar h f32
param scalar i f64
param scalar j f8e4m3
param scalar k f8e5m2
end
kernel cluster_smem
threads 64
smem 102400
cluster 2 1 1
grid 4 1 1
param tensor out i32 1 shape 12 strides 1 align 4
end
kernel tma_zero
threads 128
grid cdiv(dim(1,1),32) cdiv(dim(1,0),32) 1
param scalar tag i32
param tensor in f32 2 shape ? ? strides ? 1 align 16 tma 32 32 swizzle none fill zero
param tensor out f32 2 shape ? ? strides ? ? align 4
end
kernel tma_nan
threads 128
grid cdiv(dim(1,1),32) cdiv(dim(1,0),32) 1
param scalar tag i32
param tensor in f32 2 shape ? ? strides ? 1 align 16 tma 32 32 swizzle none fill nan
param tensor out f32 2 shape ? ? strides ? ? align 4
end
"""

VECTOR_ADD_META = META.split("kernel scalars")[0]


def nvcc(tmp, source, *flags):
    src = os.path.join(tmp, "k%d.cu" % abs(hash((source, flags))))
    out = src + ".out"
    with open(src, "w") as f:
        f.write(source)
    subprocess.run([NVCC, *flags, "-o", out, src], check=True, capture_output=True)
    with open(out, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("cu"))
    return {
        "cubin": nvcc(tmp, KERNELS_CU, "-cubin", "-arch=sm_90a"),
        "ptx": nvcc(tmp, KERNELS_CU, "-ptx", "-arch=sm_90a"),
        "va_sm80_cubin": nvcc(tmp, VECTOR_ADD_CU, "-cubin", "-arch=sm_80"),
        "va_ptx": nvcc(tmp, VECTOR_ADD_CU, "-ptx", "-arch=sm_80"),
    }


@pytest.fixture(scope="module")
def bundle(code):
    return tilec.load(build_bundle(META, cubin=code["cubin"]))


def test_device_info():
    info = tilec.device_info()
    props = torch.cuda.get_device_properties(0)
    assert (info.cc_major, info.cc_minor) == (9, 0)
    assert info.sm_count == props.multi_processor_count
    assert info.smem_optin >= 200 * 1024


def test_vector_add(bundle):
    k = bundle["vector_add"]
    n = 5000
    x = torch.randn(2 * n, device="cuda")[::2]  # strided
    y = torch.randn(n, device="cuda")
    out = torch.empty(n, device="cuda")
    assert k.grid(x, y, out, 0.5) == (40, 1, 1)
    k(x, y, out, 0.5)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 0.5 * x + y)


def test_vector_add_on_a_side_stream_and_raw_pointers(bundle):
    k = bundle["vector_add"]
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.zeros(n, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k(x, y, out, 2.0)  # picks up torch's current stream: s
    s.synchronize()
    torch.testing.assert_close(out, 2.0 * x + y)
    out2 = torch.zeros(n, device="cuda")
    raw = [tilec.Tensor(t.data_ptr(), (n,)) for t in (x, y, out2)]
    k(*raw, 3.0, stream=s)
    tilec.synchronize(s)
    torch.testing.assert_close(out2, 3.0 * x + y)


def test_scalars_reach_the_kernel_bit_exact(bundle):
    out = torch.zeros(11, dtype=torch.int64, device="cuda")
    vals = [True, -5, -300, 123456789, -(1 << 40), -2.5, 3.14159, 1.0 / 3.0, 1.0 / 3.0, -1.0, 1.5]
    bundle["scalars"](out, *vals)
    torch.cuda.synchronize()
    got = out.cpu().tolist()

    def bits(v, dtype, view):
        return torch.tensor([v], dtype=torch.float64).to(dtype).view(view).item() & 0xFFFF

    expected = [1, -5, -300, 123456789, -(1 << 40),
                struct.unpack("<H", struct.pack("<e", -2.5))[0],
                bits(3.14159, torch.bfloat16, torch.int16),
                struct.unpack("<I", struct.pack("<f", 1.0 / 3.0))[0],
                struct.unpack("<q", struct.pack("<d", 1.0 / 3.0))[0],
                bits(-1.0, torch.float8_e4m3fn, torch.uint8),
                bits(1.5, torch.float8_e5m2, torch.uint8)]
    assert got == expected


def test_cluster_launch_and_large_dynamic_smem(bundle):
    k = bundle["cluster_smem"]
    assert k.cluster == (2, 1, 1) and k.smem == 102400
    out = torch.full((12,), -1, dtype=torch.int32, device="cuda")
    k(out)
    torch.cuda.synchronize()
    assert out.cpu().tolist() == [2, 0, 7, 2, 1, 8, 2, 0, 9, 2, 1, 10]


@pytest.mark.parametrize("name", ["tma_zero", "tma_nan"])
def test_tma(bundle, name):
    k = bundle[name]
    big = torch.randn(100, 80, device="cuda")
    src = big[:, :72]  # row stride 80 floats = 320 bytes
    out = torch.full((128, 96), -7.0, device="cuda")
    assert k.grid(3, src, out) == (3, 4, 1)
    k(3, src, out)
    torch.cuda.synchronize()
    torch.testing.assert_close(out[:100, :72], src + 3)
    pad = torch.cat([out[100:, :].flatten(), out[:100, 72:].flatten()])
    if name == "tma_zero":
        assert bool((pad == 3).all())
    else:
        assert bool(torch.isnan(pad).all())


def test_ptx_only_bundle_is_jit_compiled(code):
    b = tilec.load(build_bundle(VECTOR_ADD_META, cubin=None, ptx=code["va_ptx"]))
    b.load_module()
    x = torch.randn(300, device="cuda")
    out = torch.empty_like(x)
    b["vector_add"](x, x, out, 1.0)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 2 * x)


def test_falls_back_to_ptx_when_the_cubin_does_not_fit(code):
    b = tilec.load(build_bundle(VECTOR_ADD_META, cubin=code["va_sm80_cubin"], ptx=code["va_ptx"]))
    x = torch.randn(300, device="cuda")
    out = torch.empty_like(x)
    b["vector_add"](x, x, out, 1.0)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 2 * x)


def test_unloadable_cubin_without_ptx_is_a_clear_error(code):
    b = tilec.load(build_bundle(VECTOR_ADD_META, cubin=code["va_sm80_cubin"]))
    x = torch.randn(300, device="cuda")
    with pytest.raises(tilec.TilecError) as e:
        b["vector_add"](x, x, x, 1.0)
    assert e.value.code == tilec.DRIVER
    assert "cannot load the bundle (arch sm_90a) on this device (compute capability 9.0)" in str(e.value)
    assert "cuModuleLoadData (cubin) failed" in str(e.value)


def test_smem_above_the_device_limit(code):
    meta = VECTOR_ADD_META.replace("threads 128\n", "threads 128\nsmem 400000\n")
    b = tilec.load(build_bundle(meta, cubin=code["cubin"]))
    x = torch.randn(300, device="cuda")
    with pytest.raises(tilec.TilecError) as e:
        b["vector_add"](x, x, x, 1.0)
    assert e.value.code == tilec.OUT_OF_RESOURCES
    assert "needs 400000 bytes of dynamic shared memory, the device allows at most" in str(e.value)


def test_cpu_tensor_is_rejected(bundle):
    x = torch.randn(8)
    with pytest.raises(tilec.TilecError) as e:
        bundle["vector_add"](x, x, x, 1.0)
    assert "must be on a CUDA device" in str(e.value)


def test_many_launches_reuse_the_module(bundle):
    k = bundle["vector_add"]
    x = torch.ones(4096, device="cuda")
    out = torch.zeros_like(x)
    for _ in range(100):
        k(out, x, out, 1.0)  # out = out + 1 (elementwise, in place)
    torch.cuda.synchronize()
    assert math.isclose(out[0].item(), 100.0)
