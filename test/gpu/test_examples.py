"""End-to-end GPU tests: every example on fresh random inputs.

Each case draws new random inputs, poisons the output (NaN, or a sentinel
for integers), launches the compiled bundle through the tilec Python binding
and compares with a float64 reference by ||out - ref|| / ||ref||. Shapes
include ones that are not multiples of the tiles.

Bundles come from $TILEC_BUNDLE_DIR (default: build/examples). Without
torch or a CUDA GPU every test reports itself skipped.
"""

import math
import os

import pytest

from gpu_common import (DEV, attention_reference, attention_twin_case, blockwise_reference,
                        load, rel_err, torch)


def kernel(name):
    return load(name)[name]


def check(out, ref, tol, what):
    err = rel_err(out, ref)
    assert math.isfinite(err) and err < tol, f"{what}: rel err {err:.3e} >= {tol:.0e}"
    return err


def poisoned(*shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device=DEV)


@pytest.mark.parametrize("n", [1, 1000, 1024, 4097, 1_000_003])
def test_vector_add(n):
    x = torch.randn(n, device=DEV)
    y = torch.randn(n, device=DEV)
    out = poisoned(n, dtype=torch.float32)
    kernel("vector_add")(x, y, out)
    torch.cuda.synchronize()
    check(out, x.double() + y.double(), 1e-6, "vector_add")


def test_vector_add_unaligned_view():
    # A view starting one element in: the kernel must take its scalar path.
    base = torch.randn(5001, device=DEV)
    x, y = base[1:], torch.randn(5000, device=DEV)
    out = poisoned(5000, dtype=torch.float32)
    kernel("vector_add")(x, y, out)
    torch.cuda.synchronize()
    check(out, x.double() + y.double(), 1e-6, "vector_add (unaligned)")


def test_repeated_launches_with_changed_arguments():
    # A launch like the previous one reuses its converted arguments (the
    # binding's fast path); any change (another tensor, size, view, stream)
    # must be seen. One Kernel object, launches in a row, each checked.
    k = kernel("vector_add")
    base = torch.randn(9001, device=DEV)
    cases = []
    for n in (4096, 4096, 1000, 4096, 5000):
        x, y = torch.randn(n, device=DEV), torch.randn(n, device=DEV)
        cases.append((x, y))
    cases.append((base[1:], base[:-1]))  # views: same storage, other addresses
    cases.append((base[:-1], base[1:]))
    side = torch.cuda.Stream()
    for i, (x, y) in enumerate(cases + cases[:2]):
        out = poisoned(x.numel(), dtype=torch.float32)
        for again in range(2):  # the second launch of each takes the fast path
            out.fill_(float("nan"))
            if i % 3 == 2:
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    k(x, y, out)
                torch.cuda.current_stream().wait_stream(side)
            else:
                k(x, y, out)
            torch.cuda.synchronize()
            check(out, x.double() + y.double(), 1e-6, "vector_add launch %d.%d" % (i, again))


@pytest.mark.parametrize("m,n", [(1, 1), (37, 1000), (64, 4096), (129, 130), (300, 77)])
def test_softmax(m, n):
    x = torch.randn(m, n, device=DEV) * 4
    y = poisoned(m, n, dtype=torch.float32)
    kernel("softmax")(x, y)
    torch.cuda.synchronize()
    check(y, torch.softmax(x.double(), dim=1), 1e-5, "softmax")


@pytest.mark.parametrize("m,n", [(1, 7), (37, 1000), (128, 4096), (130, 129)])
def test_layernorm(m, n):
    x = torch.randn(m, n, device=DEV) + 0.5
    w = torch.randn(n, device=DEV)
    b = torch.randn(n, device=DEV)
    y = poisoned(m, n, dtype=torch.float32)
    eps = 1e-5
    kernel("layernorm")(x, w, b, y, eps)
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), eps)
    check(y, ref, 1e-4, "layernorm")


def check_bias_relu_gemm(launch, m, n, k, dtype=torch.bfloat16, what="gemm", tol=1e-2):
    """C = relu(A B + bias[col]) through `launch(a, b, bias, c)` on fresh
    random inputs, C poisoned first, against float64."""
    a = torch.randn(m, k, device=DEV, dtype=dtype)
    b = torch.randn(k, n, device=DEV, dtype=dtype)
    bias = torch.randn(n, device=DEV)
    c = poisoned(m, n, dtype=dtype)
    launch(a, b, bias, c)
    torch.cuda.synchronize()
    # One rounding of each output element (bf16: 2^-9 relative).
    check(c, torch.relu(a.double() @ b.double() + bias.double()), tol, what)


@pytest.mark.parametrize(
    "m,n,k", [(128, 256, 64), (256, 384, 512), (100, 200, 72), (257, 136, 1000), (1, 8, 8), (300, 520, 8),
              (2100, 520, 64)]  # 17 rows of 128-row tiles: groups of 8, 8 and 1
)
def test_gemm(m, n, k):
    check_bias_relu_gemm(kernel("gemm"), m, n, k)


def check_fp8_gemm(launch, m, n, k, fp8, what):
    """As torch._scaled_mm: A row-major, B column-major (the kernel reads
    Bt, NxK), per-tensor scales on the device, bf16 output, through
    `launch(a, bt, sa, sb, c)` with C poisoned, against float64."""
    a = torch.randn(m, k, device=DEV).to(fp8)
    bt = torch.randn(n, k, device=DEV).to(fp8)
    sa = torch.rand(1, device=DEV) + 0.5
    sb = torch.rand(1, device=DEV) + 0.5
    c = poisoned(m, n, dtype=torch.bfloat16)
    launch(a, bt, sa, sb, c)
    torch.cuda.synchronize()
    ref = (a.double() @ bt.double().T) * sa.double() * sb.double()
    check(c, ref, 1e-2, what)


def forced(bundle, name):
    """Launches of `name` as written (an explicit grid skips the runtime's
    choice among tile shapes) and of each of its tile-shape variants."""
    k = bundle[name]

    def as_written(*args):
        k(*args, grid=k.grid(*args))

    return [as_written] + [bundle[v] for v in bundle.kernels
                           if v.startswith(name + "__") and not v.endswith("__plain")]


# The members of a GEMM family compiled for sm_90a: the kernel as written
# (128x256), 128x128 and 128x64 (two warpgroups), 64x256, 64x128 and 64x64
# (one), 256x128 (two warpgroups of 128 rows), 128x192 (two column blocks,
# 128 + 64), split-K members 64x128 2 ways, 64x64 2 and 4 ways, and the
# stream-K member (128x256_sk), the kernel in clusters of two (128x256_c2,
# B multicast), the ping-pong member (128x128_pp: two one-warpgroup tiles
# a program taking turns) and the swap-AB members (16x64_swap, 32x64_swap:
# C computed transposed). Ping-pong kernels
# (128x128 as written) have no 128x128, no 64x256, no 256x128, no 128x192
# and no stream-K, cluster, ping-pong or swap-AB member; cluster kernels no
# stream-K or swap-AB member.
FAMILY = range(16)
PINGPONG_FAMILY = range(7)
CLUSTER_FAMILY = range(11)


@pytest.mark.parametrize("m,n,k", [(100, 200, 72), (257, 136, 1000), (300, 520, 8), (1000, 1000, 520)])
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_tile_shapes(m, n, k, member):
    # Every member of gemm's family, each launched whatever the runtime
    # would choose.
    launches = forced(load("gemm"), "gemm")
    assert len(launches) == len(FAMILY)
    check_bias_relu_gemm(launches[member], m, n, k, what=f"gemm member {member}")


@pytest.mark.parametrize("m,n,k", [(1, 8, 8), (1, 1000, 4104), (7, 200, 72), (16, 4096, 1000),
                                   (17, 136, 264), (33, 520, 1032), (100, 200, 520)])
@pytest.mark.parametrize("member", ["gemm__16x64_swap", "gemm__32x64_swap"])
def test_gemm_swap_ab(m, n, k, member):
    # Swap-AB members (Cᵀ = Bᵀ·Aᵀ, M along wgmma's N, K steps of 128) at
    # small and ragged M, N and K: rows and columns past the matrix are
    # clipped by TMA on the loads and the store.
    check_bias_relu_gemm(load("gemm")[member], m, n, k, what=member)


@pytest.mark.parametrize("m,n,k", [(2000, 3000, 264), (4100, 4000, 72), (129, 8200, 1000)])
def test_gemm_pingpong_member(m, n, k):
    # The ping-pong member at several tiles a program (an odd count of
    # tiles, ragged edges): the two copies take turns over every tile.
    check_bias_relu_gemm(load("gemm")["gemm__128x128_pp"], m, n, k, what="gemm__128x128_pp")
    check_fp8_gemm(load("gemm_fp8")["gemm_e4m3__128x128_pp"], m, n, k + 8,
                   torch.float8_e4m3fn, f"gemm_e4m3__128x128_pp {m}x{n}x{k + 8}")


@pytest.mark.parametrize("m,n,k", [(1, 16, 16), (5, 200, 272), (16, 1000, 1024), (33, 136, 528)])
@pytest.mark.parametrize("member", ["gemm_e4m3__16x64_swap", "gemm_e4m3__32x64_swap"])
def test_gemm_fp8_swap_ab(m, n, k, member):
    # fp8's swap-AB members read Bt's tile as loaded (K-major) as wgmma's A.
    check_fp8_gemm(load("gemm_fp8")[member], m, n, k, torch.float8_e4m3fn,
                   f"{member} {m}x{n}x{k}")


SPLIT_MEMBERS = ["gemm__64x128_k2", "gemm__64x64_k2", "gemm__64x64_k4"]


@pytest.mark.parametrize("m,n,k", [(1, 8, 8), (64, 4096, 72), (100, 200, 264), (257, 136, 1000),
                                   (16, 1000, 4104), (300, 520, 2056)])
@pytest.mark.parametrize("member", SPLIT_MEMBERS)
def test_gemm_split_k(m, n, k, member):
    # Split-K members: units of K steps whose partials the last unit of a
    # tile sums in a fixed order. Launched three times on one stream (the
    # tile counters in the runtime's workspace must be back at zero after
    # each launch, or no unit would run the epilogue and C would stay
    # poisoned), each result checked and bit-identical to the first (the
    # sum does not depend on the order the units arrive in). K = 72 and 8
    # leave some units without K steps.
    check_three_runs(member, m, n, k)


def check_three_runs(member, m, n, k):
    """Three launches of gemm's `member` on one stream, each checked and
    bit-identical to the first."""
    launch = load("gemm")[member]
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    ref = torch.relu(a.double() @ b.double() + bias.double())
    first = None
    for run in range(3):
        c = poisoned(m, n, dtype=torch.bfloat16)
        launch(a, b, bias, c)
        torch.cuda.synchronize()
        check(c, ref, 1e-2, f"{member} run {run}")
        if first is None:
            first = c
        else:
            assert torch.equal(c, first), f"{member}: run {run} differs from run 0"


# Stream-K: whole waves, then the last full wave and the partial one cut
# into a unit a program. Shapes (tiles of 128x256 on 132 SMs): fewer tiles
# than SMs (up to 8 units a tile, programs without K steps at K = 8 and
# 264), 144 tiles (2000x2104: all in the cut region), 84 tiles (777x3008),
# 480 tiles with 2 K steps, 544 tiles (three whole waves, 148 cut, pieces
# of several tiles a unit at K = 1000), 165 tiles of 64 K steps.
@pytest.mark.parametrize("m,n,k", [(1, 8, 8), (100, 200, 264), (257, 136, 1000), (2000, 2104, 1000),
                                   (777, 3008, 2048), (3000, 5000, 72), (4000, 4104, 1000),
                                   (1920, 2816, 4096)])
def test_gemm_stream_k(m, n, k):
    # As the split-K members: three launches on one stream, each checked
    # and bit-identical to the first.
    check_three_runs("gemm__128x256_sk", m, n, k)


def test_gemm_split_k_streams():
    # Two streams launching split-K members at once: each stream has its
    # own workspace (counters and partials), so neither sees the other's.
    bundle = load("gemm")
    m, n, k = 200, 1000, 3000
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    cases = []
    for s in streams:
        a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
        bias = torch.randn(n, device=DEV)
        cases.append((s, a, b, bias, poisoned(m, n, dtype=torch.bfloat16)))
    torch.cuda.synchronize()
    for _ in range(4):
        for member in SPLIT_MEMBERS + ["gemm__128x256_sk"]:
            for s, a, b, bias, c in cases:
                with torch.cuda.stream(s):
                    c.fill_(float("nan"))
                    bundle[member](a, b, bias, c)
            torch.cuda.synchronize()
            for s, a, b, bias, c in cases:
                check(c, torch.relu(a.double() @ b.double() + bias.double()), 1e-2, member)


def test_gemm_split_k_cuda_graph():
    # A split-K launch captured into a CUDA graph (on torch's capture
    # stream, whose workspace does not exist yet) and replayed: the graph
    # keeps buffers of its own, zeroed by a memset node before its kernels.
    bundle = load("gemm")
    m, n, k = 64, 1000, 2000
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    c = poisoned(m, n, dtype=torch.bfloat16)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        bundle["gemm__64x64_k4"](a, b, bias, c)
    ref = torch.relu(a.double() @ b.double() + bias.double())
    for _ in range(3):
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(c, ref, 1e-2, "gemm__64x64_k4 in a CUDA graph")
    # The stream's own launches afterwards still work.
    c.fill_(float("nan"))
    bundle["gemm__64x64_k4"](a, b, bias, c)
    torch.cuda.synchronize()
    check(c, ref, 1e-2, "gemm__64x64_k4 after the graph")


def test_bundle_collected_during_a_capture():
    # A bundle dropped before a CUDA-graph capture and collected by the
    # garbage collector inside it (Bundle and Kernel refer to each other:
    # only the cycle collector frees them) must not release its modules
    # there: that waits for the GPU, which invalidates the capture. The
    # release waits until the capture is over.
    import gc
    dropped = load("gemm")
    dropped["gemm"]  # the Kernel -> Bundle -> Kernel cycle
    m, n, k = 64, 1000, 2000
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(n, device=DEV)
    c = poisoned(m, n, dtype=torch.bfloat16)
    dropped["gemm"](a, b, bias, c)  # its modules loaded, a workspace allocated
    torch.cuda.synchronize()
    bundle = load("gemm")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        del dropped
        gc.collect()
        bundle["gemm__64x64_k4"](a, b, bias, c)
    c.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    check(c, torch.relu(a.double() @ b.double() + bias.double()), 1e-2, "captured after a collection")
    load("vector_add")  # releases what the capture deferred
    from tilec.runtime import _deferred_free
    assert not _deferred_free


def gemm_args(m, n, kk):
    """Arguments of gemm.mlir's kernel at M x N x K (unfilled: for
    choosing a member, not for launching)."""
    return (torch.empty(m, kk, device=DEV, dtype=torch.bfloat16),
            torch.empty(kk, n, device=DEV, dtype=torch.bfloat16),
            torch.empty(n, device=DEV), torch.empty(m, n, device=DEV, dtype=torch.bfloat16))


def test_gemm_chooses_split_k():
    # Few tiles and a long K (M = 64, N = 4096, K = 14336: 64 tiles of
    # 64x64): a split-K member; many tiles (4096^2): none.
    k = kernel("gemm")

    assert "_k" in k.choose(*gemm_args(64, 4096, 14336))
    assert "_k" not in k.choose(*gemm_args(4096, 4096, 4096))


def test_gemm_chooses_tile_shape():
    # Few tiles (1024^2: 32 of 128x256, 64 of 128x128, 128 of 128x64, one
    # wave each on an H100): the smallest tile; 4096^2 (4 waves of 128x256,
    # 8 of 128x128, 16 of 128x64, the same work) at a long K: a 128x256
    # tile (alone or in clusters of two); at one K step, where the
    # epilogue is most of a tile's time: the ping-pong member, whose
    # epilogues overlap the other tile's MMAs.
    k = kernel("gemm")

    assert k.choose(*gemm_args(1024, 1024, 64)) == "gemm__128x64"
    assert k.choose(*gemm_args(4096, 4096, 8192)) in ("gemm", "gemm__128x256_c2")
    assert k.choose(*gemm_args(4096, 4096, 64)) == "gemm__128x128_pp"
    assert k.choose(*gemm_args(300, 100, 72)) == "gemm__plain"  # N % 8 != 0: TMA cannot read B


def test_gemm_autotune(tmp_path, monkeypatch):
    # Every member timed, the fastest launched afterwards (checked against
    # float64 on a poisoned C), the choice in the cache file; a bundle loaded
    # again (as another process would) gets it without a launch.
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_AUTOTUNE", raising=False)
    k = load("gemm")["gemm"]
    chosen = []

    def launch(a, b, bias, c):
        chosen.append(k.autotune(a, b, bias, c))
        c.fill_(float("nan"))
        k(a, b, bias, c)

    check_bias_relu_gemm(launch, 777, 1032, 520, what="autotuned gemm")
    family = ["gemm"] + [v for v in load("gemm").kernels if v.startswith("gemm__")]
    assert chosen[0] in family and chosen[0] != "gemm__plain", chosen
    text = "".join(open(tmp_path / f).read() for f in os.listdir(tmp_path))
    assert text.startswith("tilec-autotune 2\n") and "\tgemm\t" in text, text
    again = load("gemm")["gemm"]
    a = torch.randn(777, 520, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(520, 1032, device=DEV, dtype=torch.bfloat16)
    bias, c = torch.randn(1032, device=DEV), poisoned(777, 1032, dtype=torch.bfloat16)
    assert again.autotune(a, b, bias, c) == chosen[0]
    assert torch.isnan(c.float()).all()  # nothing launched: C untouched


@pytest.mark.parametrize("m,n,k", [(300, 100, 72), (257, 130, 1000), (64, 37, 24), (100, 200, 37)])
def test_gemm_rows_tma_cannot_read(m, n, k):
    # N or K not a multiple of 8: B's, C's or A's rows are not 16-byte
    # aligned, so the runtime launches gemm__plain (the same program without
    # warp specialization) instead of refusing.
    check_bias_relu_gemm(kernel("gemm"), m, n, k, what="gemm (unaligned rows)")


VARIANT_SHAPES = [(128, 256, 64), (256, 512, 192), (100, 200, 72), (257, 136, 1000), (1, 8, 8), (300, 520, 8)]
# With A column-major, M is At's row length: a multiple of 8 for TMA.
A_COLUMN_MAJOR_SHAPES = [(128, 256, 64), (256, 512, 192), (104, 200, 72), (264, 136, 1000), (8, 8, 8), (296, 520, 8)]


@pytest.mark.parametrize("m,n,k", VARIANT_SHAPES)
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_f16(m, n, k, member):
    check_bias_relu_gemm(forced(load("gemm_variants"), "gemm_f16")[member], m, n, k,
                         torch.float16, f"gemm_f16 member {member}", 2e-3)


def check_swiglu(launch, m, n, k, what):
    """silu(X Wg) * (X Wu) by `launch` on fresh random inputs, H poisoned,
    against float64."""
    x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    wg = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    wu = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    h = poisoned(m, n, dtype=torch.bfloat16)
    launch(x, wg, wu, h)
    torch.cuda.synchronize()
    g = x.double() @ wg.double()
    check(h, torch.nn.functional.silu(g) * (x.double() @ wu.double()), 1e-2, what)


@pytest.mark.parametrize("m,n,k", [(128, 128, 64), (100, 200, 72), (257, 136, 1000), (1, 8, 8),
                                   (300, 520, 8), (1000, 1032, 520)])
@pytest.mark.parametrize("member", range(4))
def test_swiglu(m, n, k, member):
    # Two dots sharing X's tile, silu(X Wg) * (X Wu): every fast-path
    # member (128x128 as written, 128x64, 64x128, 64x64).
    launches = forced(load("swiglu"), "swiglu")
    assert len(launches) == 4
    check_swiglu(launches[member], m, n, k, f"swiglu member {member}")


@pytest.mark.parametrize("m,n,k", [(100, 130, 72), (64, 36, 37)])
def test_swiglu_rows_tma_cannot_read(m, n, k):
    # N or K not a multiple of 8: the plain twin.
    kern = kernel("swiglu")

    def launch(x, wg, wu, h):
        assert kern.choose(x, wg, wu, h) == "swiglu__plain"
        kern(x, wg, wu, h)

    check_swiglu(launch, m, n, k, "swiglu (plain twin)")


@pytest.mark.parametrize("rows,n,k", [
    ([0, 1, 127, 128, 129, 1000, 5, 300], 136, 264),   # an empty expert, partial and exact tiles
    ([512, 512, 512, 512, 512, 512, 512, 512], 1024, 512),
    ([3, 0, 0, 0, 0, 0, 0, 0], 8, 8)])
def test_grouped_gemm(rows, n, k):
    # 8 experts, expert e's rows offs[e]..offs[e+1] of A times B[e], one
    # launch; every row of C checked against float64 (C poisoned).
    kern = kernel("grouped_gemm")
    offs = torch.tensor([0] + list(torch.tensor(rows).cumsum(0)), device=DEV, dtype=torch.int32)
    t = int(offs[-1])
    a = torch.randn(t, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(8, k, n, device=DEV, dtype=torch.bfloat16)
    c = poisoned(t, n, dtype=torch.bfloat16)
    assert kern.choose(a, b, offs, c) == "grouped_gemm"
    kern(a, b, offs, c)
    torch.cuda.synchronize()
    ref = torch.cat([a[offs[e]:offs[e + 1]].double() @ b[e].double() for e in range(8)])
    check(c, ref, 1e-2, f"grouped_gemm {rows} x {n} x {k}")


def column_major(rows, cols, dtype):
    """A rows x cols matrix stored column-major, and its row-major transpose
    (the view the kernels take)."""
    t = torch.randn(cols, rows, device=DEV, dtype=dtype)
    return t.T, t


@pytest.mark.parametrize("m,n,k", A_COLUMN_MAJOR_SHAPES)
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_tn_gelu(m, n, k, member):
    # A column-major (the kernel reads At), bias per row, GELU (tanh form), f32 out.
    a, at = column_major(m, k, torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16)
    bias = torch.randn(m, device=DEV)
    c = poisoned(m, n, dtype=torch.float32)
    forced(load("gemm_variants"), "gemm_tn_gelu")[member](at, b, bias, c)
    torch.cuda.synchronize()
    x = a.double() @ b.double() + bias.double()[:, None]
    # tanh.approx.f32 is good to about 2^-11.
    check(c, torch.nn.functional.gelu(x, approximate="tanh"), 1e-3, f"gemm_tn_gelu member {member}")


@pytest.mark.parametrize("m,n,k", VARIANT_SHAPES + [(1000, 1000, 520), (2000, 2056, 136), (4096, 4096, 64)])
@pytest.mark.parametrize("member", PINGPONG_FAMILY)
def test_gemm_pingpong(m, n, k, member):
    # Two consumer warpgroups on alternate tiles: the larger shapes give a
    # program two or three tiles (132 SMs), so both copies and their turns run.
    check_bias_relu_gemm(forced(load("gemm_variants"), "gemm_pingpong")[member], m, n, k,
                         what=f"gemm_pingpong member {member}")


@pytest.mark.parametrize("m,n,k", VARIANT_SHAPES + [(1000, 1000, 520), (2000, 2056, 136), (4096, 4096, 64)])
@pytest.mark.parametrize("member", CLUSTER_FAMILY)
def test_gemm_cluster(m, n, k, member):
    # Clusters of two programs sharing B by multicast; an odd number of
    # tile rows (e.g. M = 300: 3) leaves one program of a pair off the
    # matrix, still sending its half of B to the other.
    check_bias_relu_gemm(forced(load("gemm_variants"), "gemm_cluster")[member], m, n, k,
                         what=f"gemm_cluster member {member}")


@pytest.mark.parametrize("m,n,k", VARIANT_SHAPES)
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_nt_silu(m, n, k, member):
    # B column-major (the kernel reads Bt), alpha scaling, SiLU, bf16 out.
    a = torch.randn(m, k, device=DEV, dtype=torch.float16)
    b, bt = column_major(k, n, torch.float16)
    alpha = 0.25 + torch.rand(()).item()
    c = poisoned(m, n, dtype=torch.bfloat16)
    forced(load("gemm_variants"), "gemm_nt_silu")[member](a, bt, c, alpha)
    torch.cuda.synchronize()
    check(c, torch.nn.functional.silu(alpha * (a.double() @ b.double())), 1e-2, f"gemm_nt_silu member {member}")


@pytest.mark.parametrize("m,n,k", A_COLUMN_MAJOR_SHAPES)
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_tt(m, n, k, member):
    # Both column-major.
    a, at = column_major(m, k, torch.bfloat16)
    b, bt = column_major(k, n, torch.bfloat16)
    c = poisoned(m, n, dtype=torch.bfloat16)
    forced(load("gemm_variants"), "gemm_tt")[member](at, bt, c)
    torch.cuda.synchronize()
    check(c, a.double() @ b.double(), 1e-2, f"gemm_tt member {member}")


@pytest.mark.parametrize(
    "m,n,k", [(128, 256, 128), (256, 512, 384), (100, 200, 80), (257, 136, 1008), (1, 16, 16), (300, 520, 32)]
)
@pytest.mark.parametrize("dtype", ["e4m3", "e5m2"])
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_fp8(m, n, k, dtype, member):
    fp8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[dtype]
    check_fp8_gemm(forced(load("gemm_fp8"), "gemm_" + dtype)[member], m, n, k, fp8,
                   f"gemm_{dtype} member {member}")



@pytest.mark.parametrize("m,n,k", [(1000, 7000, 2000), (128, 256, 128), (77, 200, 272), (4, 16, 16)])
def test_gemm_fp8_blockwise(m, n, k):
    # DeepSeek-V3's block scales: sa per 1x128 block of A (stored K-block
    # major, M contiguous), sb per 128x128 block of B (N x K), each 128 of
    # K promoted in f32; ragged M, N and K (K's last block partial), M = 77
    # and 4 (sa's rows not 16-byte aligned: the plain twin).
    fp8 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device=DEV) * 2).to(fp8)
    b = (torch.randn(n, k, device=DEV) * 2).to(fp8)
    kb, nb = -(-k // 128), -(-n // 128)
    sa = torch.rand(kb, m, device=DEV) + 0.5
    sb = torch.rand(nb, kb, device=DEV) + 0.5
    ref = blockwise_reference(a, sa.t(), b, sb)
    # Both tile shapes (64x64: a tile's columns within one of sb's blocks).
    for name in ("gemm_fp8_blockwise", "gemm_fp8_blockwise_64x64"):
        c = poisoned(m, n, dtype=torch.bfloat16)
        load("gemm_fp8_blockwise")[name](a, b, sa, sb, c)
        torch.cuda.synchronize()
        check(c, ref, 1e-2, f"{name} {m}x{n}x{k}")


@pytest.mark.parametrize("m,n,k", [(16, 1000, 4096), (100, 200, 256), (1, 16, 16)])
@pytest.mark.parametrize("split", ["64x128_k2", "64x64_k2", "64x64_k4"])
def test_gemm_fp8_split_k(m, n, k, split):
    # The fp8 GEMM's split-K members (the K step is 128): checked and
    # bit-identical over two launches on one stream.
    a = torch.randn(m, k, device=DEV).to(torch.float8_e4m3fn)
    bt = torch.randn(n, k, device=DEV).to(torch.float8_e4m3fn)
    sa = torch.rand(1, device=DEV) + 0.5
    sb = torch.rand(1, device=DEV) + 0.5
    ref = (a.double() @ bt.double().T) * sa.double() * sb.double()
    outs = []
    for run in range(2):
        c = poisoned(m, n, dtype=torch.bfloat16)
        load("gemm_fp8")["gemm_e4m3__" + split](a, bt, sa, sb, c)
        torch.cuda.synchronize()
        check(c, ref, 1e-2, f"gemm_e4m3__{split} run {run}")
        outs.append(c)
    assert torch.equal(outs[0], outs[1])


# i8 and tf32 on wgmma (A row-major, B column-major: the kernel reads Bt).
# Every member of the family (TMA + wgmma), at shapes whose rows
# TMA reads (K and N of 16-byte multiples); the `twin` cases launch as a
# user does, and rows TMA cannot read (K = 100 i8, 70 f32; N = 130 of i32
# or f32) make the runtime take the plain (mma.sync) twin.
def i8_problem(m, n, k):
    a = torch.randint(-128, 128, (m, k), device=DEV, dtype=torch.int8)
    bt = torch.randint(-128, 128, (n, k), device=DEV, dtype=torch.int8)
    return a, bt, torch.full((m, n), -7, device=DEV, dtype=torch.int32)


def check_i8(a, bt, c, what):
    torch.cuda.synchronize()
    # Exact: |sum| < 2^31 at these K.
    assert torch.equal(c.long(), (a.double() @ bt.double().T).long()), what


def tf32_problem(m, n, k):
    return (torch.randn(m, k, device=DEV), torch.randn(n, k, device=DEV),
            poisoned(m, n, dtype=torch.float32))


def check_tf32(a, bt, c, what):
    torch.cuda.synchronize()
    # tf32 keeps 10 mantissa bits (wgmma drops the rest; mma.sync rounds).
    check(c, a.double() @ bt.double().T, 4e-3, what)


@pytest.mark.parametrize("batch,m,n,k,runs", [
    (3, 128, 128, 64, "gemm_batched"), (5, 300, 136, 272, "gemm_batched"),
    (2, 65, 520, 1000, "gemm_batched"), (4, 1, 8, 8, "gemm_batched"),
    (7, 129, 264, 72, "gemm_batched"),
    # 11 and 17 rows of tiles a member: the persistent walk's last group of
    # rows short (3 and 1 of 8).
    (3, 1400, 136, 200, "gemm_batched"), (2, 2100, 264, 72, "gemm_batched"),
    # Rows TMA cannot read (N or K not a multiple of 8): the mma.sync twin.
    (3, 100, 130, 72, "gemm_batched__plain"), (2, 64, 36, 37, "gemm_batched__plain")])
def test_gemm_batched(batch, m, n, k, runs):
    # C[i] = A[i] B[i], every batch member against float64, C poisoned.
    kern = kernel("gemm_batched")
    a = torch.randn(batch, m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(batch, k, n, device=DEV, dtype=torch.bfloat16)
    c = poisoned(batch, m, n, dtype=torch.bfloat16)
    assert kern.choose(a, b, c) == runs
    kern(a, b, c)
    torch.cuda.synchronize()
    check(c, a.double() @ b.double(), 1e-2, f"{runs} {batch}x{m}x{n}x{k}")


@pytest.mark.parametrize("m,n,k", [(128, 256, 128), (300, 136, 272), (65, 520, 1024)])
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_i8(m, n, k, member):
    a, bt, c = i8_problem(m, n, k)
    forced(load("gemm_i8_tf32"), "gemm_i8")[member](a, bt, c)
    check_i8(a, bt, c, f"gemm_i8 member {member}")


@pytest.mark.parametrize("m,n,k", [(77, 200, 100), (300, 130, 272), (1, 8, 16)])
def test_gemm_i8_twin(m, n, k):
    a, bt, c = i8_problem(m, n, k)
    load("gemm_i8_tf32")["gemm_i8"](a, bt, c)
    check_i8(a, bt, c, "gemm_i8")


@pytest.mark.parametrize("m,n,k", [(128, 256, 32), (300, 136, 200), (65, 520, 1024)])
@pytest.mark.parametrize("member", FAMILY)
def test_gemm_tf32(m, n, k, member):
    a, bt, c = tf32_problem(m, n, k)
    forced(load("gemm_i8_tf32"), "gemm_tf32")[member](a, bt, c)
    check_tf32(a, bt, c, f"gemm_tf32 member {member}")


@pytest.mark.parametrize("m,n,k", [(77, 200, 70), (300, 130, 200), (1, 8, 4)])
def test_gemm_tf32_twin(m, n, k):
    a, bt, c = tf32_problem(m, n, k)
    load("gemm_i8_tf32")["gemm_tf32"](a, bt, c)
    check_tf32(a, bt, c, "gemm_tf32")


def launch_attention(d, b, hq, hkv, s, causal, layout):
    """attention_d{d} on fresh inputs in `layout` ((B, H, S, D) or, through
    strides, (B, S, H, D)), outputs NaN-poisoned; returns O, LSE and their
    float64 references (scripts/attention_check.py uses it too)."""
    def make(h, dtype=torch.bfloat16, fill=None):
        shape = (b, h, s, d) if layout == "bhsd" else (b, s, h, d)
        t = (torch.randn(shape, device=DEV, dtype=dtype) if fill is None
             else torch.full(shape, fill, device=DEV, dtype=dtype))
        return t if layout == "bhsd" else t.transpose(1, 2)
    q, k, v = make(hq), make(hkv), make(hkv)
    o = make(hq, fill=float("nan"))
    lse = torch.full((b, hq, s), float("nan"), device=DEV)
    scale = 1.0 / math.sqrt(d)
    load("attention")["attention_d%d" % d](q, k, v, o, lse, scale, int(causal))
    torch.cuda.synchronize()
    return (o, lse) + attention_reference(q, k, v, scale, causal)


def run_attention(d, b, hq, hkv, s, causal, layout):
    """launch_attention, checked against float64."""
    o, lse, ref, ref_lse = launch_attention(d, b, hq, hkv, s, causal, layout)
    what = f"attention_d{d} {b}x{hq}/{hkv}x{s} causal={causal} {layout}"
    # P is rounded to bf16 before P·V, as in FlashAttention.
    check(o, ref, 2e-2, what)
    check(lse, ref_lse, 1e-3, what + " lse")


@pytest.mark.parametrize("unaligned", ["kv", "q"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_attention_rows_tma_cannot_read(d, causal, unaligned):
    # Rows d + 1 elements apart (not a multiple of 16 bytes): the runtime
    # launches the plain twin, whose load partition's threads copy Q, K
    # and V (16-byte cp.async for the aligned ones, shifted words for the
    # others).
    o, lse, ref, ref_lse = attention_twin_case("attention", d, causal,
                                               unaligned)
    what = f"attention_d{d} twin (unaligned {unaligned}, causal={causal})"
    check(o, ref, 2e-2, what)
    check(lse, ref_lse, 1e-3, what + " lse")


@pytest.mark.parametrize("s", [1, 77, 1000, 4097])
@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
@pytest.mark.parametrize("hq,hkv", [(4, 4), (4, 1)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128, 256])
def test_attention(d, causal, hq, hkv, layout, s):
    run_attention(d, 2 if s < 4000 else 1, hq, hkv, s, causal, layout)


def test_attention_python_example():
    """examples/attention.py (the documented Python use) runs and agrees
    with torch SDPA, causal and not."""
    import subprocess
    import sys
    from gpu_common import BUNDLES, ROOT
    script = os.path.join(ROOT, "examples", "attention.py")
    r = subprocess.run([sys.executable, script, os.path.join(BUNDLES, "attention.tlc")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("relative error") == 2, r.stdout
