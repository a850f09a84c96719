"""tilec.custom_op on the GPU: the operators agree with float64 references
(fresh random inputs, outputs poisoned, sizes that are not multiples of the
tiles), pass torch.library.opcheck (schema, fake implementation, autograd
registration), trace under torch.compile(fullgraph=True) and replay from CUDA
graphs; examples/torch_ops.py runs."""

import math
import os
import subprocess
import sys

import pytest

from gpu_common import (BUNDLES, DEV, ROOT, attention_reference, bias_relu_reference,
                        blockwise_reference, load, rel_err, torch)

import tilec
import tilec.fp8

NAN = float("nan")


@pytest.fixture(scope="module")
def gemm_relu():
    # The output function poisons C: every element must be written.
    return tilec.custom_op(
        "tilec_tests::gemm_relu", load("gemm")["gemm"],
        outputs={"c": lambda a, b, bias: torch.full((a.shape[0], b.shape[1]), NAN,
                                                    dtype=a.dtype, device=a.device)})


@pytest.fixture(scope="module")
def attention():
    return tilec.custom_op(
        "tilec_tests::attention", load("attention")["attention_d64"],
        outputs={"o": lambda q, k, v, scale, causal: torch.full_like(q, NAN),
                 "lse": lambda q, k, v, scale, causal: torch.full(q.shape[:3], NAN,
                                                                  device=q.device)})


@pytest.fixture(scope="module")
def add_into():
    # vector_add(x, y, out) as an operator that writes into its `out`.
    return tilec.custom_op("tilec_tests::add_into", load("vector_add")["vector_add"],
                           outputs={}, mutates=("out",))


def gemm_inputs(m, n, k):
    a = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=DEV, dtype=torch.bfloat16) / math.sqrt(k)
    return a, b, torch.randn(n, device=DEV)


def attention_inputs(b=2, h=3, s=200, d=64):
    return [torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16) for _ in range(3)]


@pytest.mark.parametrize("m,n,k", [(300, 520, 136), (1000, 264, 72)])
def test_gemm_op(gemm_relu, m, n, k):
    a, b, bias = gemm_inputs(m, n, k)
    c = gemm_relu(a, b, bias)
    assert c.shape == (m, n) and c.dtype == torch.bfloat16
    assert rel_err(c, bias_relu_reference(a, b, bias)) < 1e-2
    # the same operator through torch.ops
    c2 = torch.ops.tilec_tests.gemm_relu(a, b, bias)
    assert torch.equal(c, c2)


@pytest.mark.parametrize("causal", [0, 1])
def test_attention_op(attention, causal):
    q, k, v = attention_inputs()
    o, lse = attention(q, k, v, 0.125, causal)
    ref_o, ref_lse = attention_reference(q, k, v, 0.125, causal)
    assert rel_err(o, ref_o) < 2e-2 and rel_err(lse, ref_lse) < 1e-3


def test_mutating_op(add_into):
    x, y = torch.randn(4097, device=DEV), torch.randn(4097, device=DEV)
    out = torch.full_like(x, NAN)
    assert add_into(x, y, out) is None
    assert rel_err(out, x.double() + y.double()) < 1e-6


def test_opcheck(gemm_relu, attention, add_into):
    # torch's own check of a custom op: the schema against what it does,
    # the fake implementation against the real one, and its registrations.
    torch.library.opcheck(gemm_relu, gemm_inputs(300, 136, 72))
    torch.library.opcheck(attention, (*attention_inputs(1, 2, 77), 0.125, 1))
    x = torch.randn(1000, device=DEV)
    torch.library.opcheck(add_into, (x, x.clone(), torch.empty_like(x)))


def test_torch_compile_fullgraph(gemm_relu, attention):
    def f(a, b, bias, q, k, v):
        h = gemm_relu(a, b, bias)
        o, lse = attention(q, k, v, 0.125, 1)
        return h.float().sum(1), o.float() * 2, lse + 1

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True)  # a graph break would raise
    for _ in range(2):
        args = (*gemm_inputs(300, 520, 136), *attention_inputs())
        got, want = compiled(*args), f(*args)
        for g, w in zip(got, want):
            assert rel_err(g, w) < 1e-5


def test_cuda_graph_replay(gemm_relu, attention):
    static = (*gemm_inputs(257, 136, 200), *attention_inputs(1, 2, 130))

    def run():
        return gemm_relu(*static[:3]), *attention(*static[3:], 0.125, 0)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c, o, lse = run()
    for _ in range(2):
        fresh = (*gemm_inputs(257, 136, 200), *attention_inputs(1, 2, 130))
        for dst, src in zip(static, fresh):
            dst.copy_(src)
        c.fill_(NAN), o.fill_(NAN), lse.fill_(NAN)
        graph.replay()
        torch.cuda.synchronize()
        assert rel_err(c, bias_relu_reference(*static[:3])) < 1e-2
        ref_o, ref_lse = attention_reference(*static[3:], 0.125, 0)
        assert rel_err(o, ref_o) < 2e-2 and rel_err(lse, ref_lse) < 1e-3


def test_torch_ops_example():
    script = os.path.join(ROOT, "examples", "torch_ops.py")
    r = subprocess.run([sys.executable, script, os.path.join(BUNDLES, "gemm.tlc"),
                        os.path.join(BUNDLES, "attention.tlc")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("worst relative error") == 8, r.stdout


@pytest.mark.parametrize("m,n,k", [(300, 520, 392), (77, 1000, 4100), (1, 16, 16)])
@pytest.mark.parametrize("sa_layout", ["m_contiguous", "row_major"])
def test_fp8_gemm_blockwise_op(m, n, k, sa_layout):
    # tilec.ops.fp8_gemm_blockwise against float64 at ragged shapes, sa as
    # torch._scaled_mm takes it (M contiguous) and row-major (copied so);
    # the allocator's next block poisoned first (the op allocates C).
    fp8 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device=DEV) * 2).to(fp8)
    b = (torch.randn(n, k, device=DEV) * 2).to(fp8)
    kb, nb = -(-k // 128), -(-n // 128)
    sa = torch.rand(kb, m, device=DEV).t() + 0.5 if sa_layout == "m_contiguous" else \
        torch.rand(m, kb, device=DEV) + 0.5
    sb = torch.rand(nb, kb, device=DEV) + 0.5
    poison = torch.full((m, n), NAN, device=DEV, dtype=torch.bfloat16)
    del poison
    c = tilec.ops.fp8_gemm_blockwise(a, sa, b, sb)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == torch.bfloat16
    assert rel_err(c, blockwise_reference(a, sa, b, sb)) < 1e-2


def test_fp8_gemm_blockwise_op_compile_and_graph():
    fp8 = torch.float8_e4m3fn
    m, n, k = 200, 300, 1000
    a = (torch.randn(m, k, device=DEV) * 2).to(fp8)
    b = (torch.randn(n, k, device=DEV) * 2).to(fp8)
    sa = torch.rand(-(-k // 128), m, device=DEV).t() + 0.5
    sb = torch.rand(-(-n // 128), -(-k // 128), device=DEV) + 0.5
    ref = blockwise_reference(a, sa, b, sb)
    # (Not test_schema: it multiplies the inputs, which torch cannot do in
    # fp8.)
    torch.library.opcheck(tilec.fp8._register(), (a, sa, b, sb),
                          test_utils=("test_faketensor", "test_autograd_registration"))
    f = torch.compile(tilec.ops.fp8_gemm_blockwise, fullgraph=True)
    c = f(a, sa, b, sb)
    assert rel_err(c, ref) < 1e-2
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        c2 = tilec.ops.fp8_gemm_blockwise(a, sa, b, sb)
    c2.fill_(NAN)
    g.replay()
    torch.cuda.synchronize()
    assert rel_err(c2, ref) < 1e-2


def _experts(g, n, k):
    """b (G, N, K) e4m3 and sb (G, ceil(N/128), ceil(K/128)), fresh."""
    b = (torch.randn(g, n, k, device=DEV) * 2).to(torch.float8_e4m3fn)
    sb = torch.rand(g, -(-n // 128), -(-k // 128), device=DEV) + 0.5
    return b, sb


def _contiguous_case(counts, n, k, tail=0):
    """DeepGEMM's contiguous layout: expert e's counts[e] rows start at a
    multiple of 128 and are padded to the next (-1 rows; the last expert's
    not padded), `tail` padding rows after. Returns a, sa (M contiguous),
    b, sb, m_indices and each expert's first row."""
    starts, rows = [], 0
    for e, cnt in enumerate(counts):
        starts.append(rows)
        rows += cnt if e == len(counts) - 1 else -(-cnt // 128) * 128
    rows += tail
    mi = torch.full((rows,), -1, dtype=torch.int32, device=DEV)
    for e, (s, cnt) in enumerate(zip(starts, counts)):
        mi[s:s + cnt] = e
    a = (torch.randn(rows, k, device=DEV) * 2).to(torch.float8_e4m3fn)
    sa = torch.rand(-(-k // 128), rows, device=DEV).t() + 0.5
    return (a, sa) + _experts(len(counts), n, k) + (mi, starts)


@pytest.mark.parametrize("counts,n,k,tail", [
    ((0, 1, 127, 129, 300, 5), 520, 392, 0),    # M = 901: sa's rows not 16-byte aligned
    ((256, 40, 0, 200), 264, 4100, 128),         # a whole padding block at the end
    ((3,), 16, 16, 0)])
def test_fp8_grouped_gemm_contiguous_op(counts, n, k, tail):
    # Each expert's rows against float64 with its own weight and scales; a
    # block that starts with padding is zero; C's memory poisoned first.
    a, sa, b, sb, mi, starts = _contiguous_case(counts, n, k, tail)
    poison = torch.full((a.shape[0], n), NAN, device=DEV, dtype=torch.bfloat16)
    del poison
    c = tilec.ops.fp8_grouped_gemm_contiguous(a, sa, b, sb, mi)
    torch.cuda.synchronize()
    assert c.shape == (a.shape[0], n) and c.dtype == torch.bfloat16
    for e, (s, cnt) in enumerate(zip(starts, counts)):
        if cnt:
            ref = blockwise_reference(a[s:s + cnt], sa[s:s + cnt], b[e], sb[e])
            assert rel_err(c[s:s + cnt], ref) < 1e-2, e
    for r0 in range(0, a.shape[0], 128):
        if mi[r0] < 0:
            assert (c[r0:r0 + 128] == 0).all(), r0


@pytest.mark.parametrize("g,m_max,counts,n,k", [
    (4, 300, (0, 1, 200, 300), 520, 392),
    (3, 77, (77, 13, 64), 136, 4100),           # M_max * 4 bytes not a multiple of 16
    (2, 1024, (1000, 129), 256, 2048),
    (40, 200, tuple(i * 37 % 201 for i in range(40)), 136, 256)])  # empty experts among full ones
def test_fp8_grouped_gemm_masked_op(g, m_max, counts, n, k):
    # Expert g's first masked_m[g] rows against float64; sa given (G, M_max,
    # K/128) row-major (copied M-contiguous by the op) for the first case,
    # M-contiguous for the others.
    a = (torch.randn(g, m_max, k, device=DEV) * 2).to(torch.float8_e4m3fn)
    kb = -(-k // 128)
    sa = torch.rand(g, m_max, kb, device=DEV) + 0.5 if m_max == 300 else \
        (torch.rand(g, kb, m_max, device=DEV) + 0.5).transpose(1, 2)
    b, sb = _experts(g, n, k)
    mm = torch.tensor(counts, dtype=torch.int32, device=DEV)
    poison = torch.full((g, m_max, n), NAN, device=DEV, dtype=torch.bfloat16)
    del poison
    c = tilec.ops.fp8_grouped_gemm_masked(a, sa, b, sb, mm)
    torch.cuda.synchronize()
    assert c.shape == (g, m_max, n) and c.dtype == torch.bfloat16
    for e, cnt in enumerate(counts):
        if cnt:
            ref = blockwise_reference(a[e, :cnt], sa[e, :cnt], b[e], sb[e])
            assert rel_err(c[e, :cnt], ref) < 1e-2, e


def test_fp8_grouped_gemm_ops_compile_and_graph():
    # Both forms: opcheck (fake tensors, autograd registration),
    # torch.compile(fullgraph=True), and a CUDA graph replayed after the
    # masked counts change on the device.
    a, sa, b, sb, mi, starts = _contiguous_case((100, 0, 250), 300, 1000)
    torch.library.opcheck(tilec.fp8._register_grouped()[0], (a, sa, b, sb, mi),
                          test_utils=("test_faketensor", "test_autograd_registration"))
    c = torch.compile(tilec.ops.fp8_grouped_gemm_contiguous, fullgraph=True)(a, sa, b, sb, mi)
    ref = blockwise_reference(a[starts[2]:starts[2] + 250], sa[starts[2]:starts[2] + 250],
                              b[2], sb[2])
    assert rel_err(c[starts[2]:starts[2] + 250], ref) < 1e-2
    g, m_max, n, k = 3, 256, 300, 1000
    am = (torch.randn(g, m_max, k, device=DEV) * 2).to(torch.float8_e4m3fn)
    sam = (torch.rand(g, -(-k // 128), m_max, device=DEV) + 0.5).transpose(1, 2)
    bm, sbm = _experts(g, n, k)
    mm = torch.tensor([10, 0, 200], dtype=torch.int32, device=DEV)
    torch.library.opcheck(tilec.fp8._register_grouped()[1], (am, sam, bm, sbm, mm),
                          test_utils=("test_faketensor", "test_autograd_registration"))
    f = torch.compile(tilec.ops.fp8_grouped_gemm_masked, fullgraph=True)
    assert rel_err(f(am, sam, bm, sbm, mm)[2, :200],
                   blockwise_reference(am[2, :200], sam[2, :200], bm[2], sbm[2])) < 1e-2
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c2 = tilec.ops.fp8_grouped_gemm_masked(am, sam, bm, sbm, mm)
    mm.copy_(torch.tensor([256, 5, 0], dtype=torch.int32))
    c2.fill_(NAN)
    graph.replay()
    torch.cuda.synchronize()
    for e, cnt in enumerate((256, 5)):
        ref = blockwise_reference(am[e, :cnt], sam[e, :cnt], bm[e], sbm[e])
        assert rel_err(c2[e, :cnt], ref) < 1e-2, e


@pytest.mark.parametrize("m,k", [(300, 392), (77, 4100), (1, 16), (4096, 7168)])
def test_fp8_quantize_blockwise_op(m, k):
    # Against the same arithmetic in torch: the scales to an ulp (the
    # kernel's division is approximate), the values each within e4m3's
    # rounding of x (3 mantissa bits), and equal to torch's bytes all but
    # where the division's last bit tips a rounding; a's and sa's memory
    # poisoned first. Then the GEMM over them against float64.
    x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16) * 3
    x[:, :64] *= 100  # a group with an outlier scale
    kb = -(-k // 128)
    poison = (torch.full((m * k,), 0x7F, device=DEV, dtype=torch.uint8),  # e4m3 NaN
              torch.full((kb, m), NAN, device=DEV))
    del poison
    a, sa = tilec.ops.fp8_quantize_blockwise(x)
    torch.cuda.synchronize()
    assert a.shape == (m, k) and sa.shape == (m, kb) and sa.stride() == (1, m)
    xf = torch.nn.functional.pad(x.float(), (0, kb * 128 - k)).view(m, kb, 128)
    s_ref = xf.abs().amax(dim=2).clamp(min=1e-4) / 448
    assert torch.allclose(sa, s_ref, rtol=1e-6, atol=0)
    s_col = sa.repeat_interleave(128, dim=1)[:, :k]
    # (Half an e4m3 step: 2^-4 of the value, or of the smallest subnormal's
    # 2^-9 of the scale.)
    assert ((a.float() * s_col - x.float()).abs() <=
            x.float().abs() * 2 ** -4 + s_col * 2 ** -10).all()
    a_ref = (xf / s_ref[:, :, None]).to(torch.float8_e4m3fn).view(m, kb * 128)[:, :k]
    same = (a.view(torch.uint8) == a_ref.view(torch.uint8)).float().mean().item()
    assert same > 0.999, same
    n = 300
    b = (torch.randn(n, k, device=DEV) * 2).to(torch.float8_e4m3fn)
    sb = torch.rand(-(-n // 128), kb, device=DEV) + 0.5
    c = tilec.ops.fp8_gemm_blockwise(a, sa, b, sb)
    assert rel_err(c, blockwise_reference(a, sa, b, sb)) < 1e-2


def test_fp8_quantize_blockwise_op_compile():
    x = torch.randn(200, 1000, device=DEV, dtype=torch.bfloat16)
    torch.library.opcheck(tilec.fp8._register_quantize(), (x,),
                          test_utils=("test_faketensor", "test_autograd_registration"))
    a, sa = tilec.ops.fp8_quantize_blockwise(x)
    f = torch.compile(tilec.ops.fp8_quantize_blockwise, fullgraph=True)
    a2, sa2 = f(x)
    assert torch.equal(a2.view(torch.uint8), a.view(torch.uint8)) and torch.equal(sa2, sa)
