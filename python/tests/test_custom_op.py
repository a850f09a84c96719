"""tilec.custom_op's schema and its checks (no GPU: the kernels come from
in-memory bundles; registering needs torch, else those tests skip). The
operators themselves run in test/gpu/test_torch_ops.py."""

import pytest

import tilec
from tilec_test_util import GEMM, VECTOR_ADD, build_bundle

ATTENTION = """tilec-bundle 1
arch sm_90a
kernel attention
threads 384
grid cdiv(dim(0,2),128) mul(dim(0,0),dim(0,1)) 1
param tensor q bf16 4 shape ? ? ? 128 strides ? ? ? 1 align 16
param tensor k bf16 4 shape ? ? ? 128 strides ? ? ? 1 align 16
param tensor v bf16 4 shape ? ? ? 128 strides ? ? ? 1 align 16
param tensor o bf16 4 shape ? ? ? 128 strides ? ? ? 1 align 16
param tensor lse f32 3 shape ? ? ? strides ? ? 1 align 16
param scalar scale f32
param scalar causal i32
end
"""


# A random fill: its only tensor is its output.
FILL = """tilec-bundle 1
arch sm_90a
kernel fill
threads 128
grid cdiv(arg(0),1024) 1 1
param scalar n i64
param scalar seed i32
param tensor out f32 1 shape ? strides 1 align 16
end
"""


def kernel(meta, name):
    return tilec.load(build_bundle(meta))[name]


def like(*args):  # an output function; never called without torch
    raise AssertionError("not called")


def test_one_output():
    k = kernel(VECTOR_ADD, "vector_add")
    assert tilec.op_schema(k, {"out": like}) == \
        "(Tensor x, Tensor y, float alpha) -> Tensor"


def test_outputs_in_the_middle_and_scalar_types():
    k = kernel(ATTENTION, "attention")
    assert tilec.op_schema(k, {"o": like, "lse": like}) == \
        "(Tensor q, Tensor k, Tensor v, float scale, int causal) -> (Tensor, Tensor)"
    # the order of `outputs` is the order returned
    assert tilec.op_schema(k, {"lse": like, "o": like}).endswith("-> (Tensor, Tensor)")


def test_mutated_parameters_are_marked():
    k = kernel(VECTOR_ADD, "vector_add")
    assert tilec.op_schema(k, {}, mutates=("out",)) == \
        "(Tensor x, Tensor y, Tensor(c!) out, float alpha) -> ()"
    g = tilec.load(build_bundle(GEMM))["gemm"]
    assert tilec.op_schema(g, {}, mutates=("a", "c")) == \
        "(Tensor(a!) a, Tensor b, Tensor(c!) c, int k, float alpha) -> ()"


@pytest.mark.parametrize("outputs, mutates, message", [
    ({"z": like}, (), "has no parameter 'z' (its parameters: x, y, out, alpha)"),
    ({"alpha": like}, (), "parameter 'alpha' is a scalar"),
    ({}, ("alpha",), "parameter 'alpha' is a scalar"),
    ({"out": like}, ("out",), "'out' is both an output and mutated"),
    ({"out": None}, (), "the output 'out' needs a function of the inputs"),
])
def test_bad_plans_are_refused(outputs, mutates, message):
    k = kernel(VECTOR_ADD, "vector_add")
    with pytest.raises(tilec.TilecError, match="kernel 'vector_add'") as e:
        tilec.op_schema(k, outputs, mutates)
    assert message in str(e.value)
    assert e.value.code == tilec.INVALID_ARGUMENT


def test_an_operator_without_tensor_inputs_takes_a_device():
    # torch dispatches on a tensor input, else on an argument `device`.
    k = kernel(FILL, "fill")
    assert tilec.op_schema(k, {"out": like}) == "(int n, int seed, Device device) -> Tensor"
    clash = FILL.replace("param scalar seed i32", "param scalar device i32")
    with pytest.raises(tilec.TilecError, match="parameter 'device' would clash with"):
        tilec.op_schema(kernel(clash, "fill"), {"out": like})


def test_an_operator_without_tensor_inputs_registers_and_traces():
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode
    fill = tilec.custom_op("tilec_unit::fill", kernel(FILL, "fill"),
                           {"out": lambda n, seed, device: torch.empty(n, device=device)})
    assert str(torch.ops.tilec_unit.fill.default._schema) == \
        "tilec_unit::fill(int n, int seed, Device device) -> Tensor"
    with FakeTensorMode():
        out = fill(5000, 7, "cuda")
    assert out.shape == (5000,) and out.device.type == "cuda"


@pytest.mark.parametrize("name", [
    "gemm", "mylib::", "::gemm", "my lib::gemm", "mylib::gemm.default", "mylib::gemm::x",
    "1lib::gemm", "mylib::gemm-relu", "mylib:gemm", 3, None,
])
def test_bad_operator_names_are_refused(name):
    with pytest.raises(tilec.TilecError, match="the operator's name must be 'namespace::name', "
                                               "each an identifier") as e:
        tilec.custom_op(name, kernel(VECTOR_ADD, "vector_add"), {"out": like})
    assert e.value.code == tilec.INVALID_ARGUMENT


def test_a_name_is_registered_once():
    torch = pytest.importorskip("torch")
    k = kernel(VECTOR_ADD, "vector_add")
    tilec.custom_op("tilec_unit::add", k, {"out": lambda x, y, alpha: torch.empty_like(x)})
    with pytest.raises(tilec.TilecError, match="operator 'tilec_unit::add' is already "
                                               "registered \\(kernel 'vector_add'\\)"):
        tilec.custom_op("tilec_unit::add", kernel(GEMM, "gemm"), {}, mutates=("c",))
    with pytest.raises(tilec.TilecError, match="torch already has an operator 'aten::add'"):
        tilec.custom_op("aten::add", k, {}, mutates=("out",))


def test_library_operators_are_registered_so_compiled_code_finds_them(torch):
    # tilec.ops registers its operators once (register_all, also run at
    # import where torch is loaded); fetching one again is a lookup that
    # torch.compile traces (through functools.cache it would trace into the
    # registration, which it refuses).
    import tilec.fp8

    tilec.ops.register_all()
    for name in ("attention_fwd", "decode_attention", "decode_append_kv", "varlen_attention",
                 "mla_decode", "mla_decode_metadata", "fp8_gemm_blockwise", "fp8_quantize_blockwise",
                 "fp8_grouped_gemm_contiguous", "fp8_grouped_gemm_masked"):
        assert hasattr(torch.ops.tilec, name), name
    op = tilec.fp8._register_grouped()[1]
    f = torch.compile(lambda x: x + (1 if tilec.fp8._register_grouped()[1] is op else 0),
                      fullgraph=True)
    assert f(torch.zeros(2)).tolist() == [1.0, 1.0]
