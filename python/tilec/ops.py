"""tilec kernels as PyTorch operators (torch.library custom ops).

A tilec kernel writes its results into tensors it is handed; a PyTorch
operator returns new ones. :func:`custom_op` turns one into the other:

    gemm = tilec.compile("examples/gemm.mlir")["gemm"]       # gemm(a, b, bias, c)
    gemm_relu = tilec.custom_op(
        "mylib::gemm_relu", gemm,
        outputs={"c": lambda a, b, bias: a.new_empty(a.shape[0], b.shape[1])})
    c = gemm_relu(a, b, bias)                                # torch.ops.mylib.gemm_relu

The operator takes the kernel's parameters that are not outputs, in the
kernel's order (tensors as ``Tensor``, integer scalars as ``int``, float
scalars as ``float``) and returns the outputs (one tensor, or a tuple in the
order of ``outputs``). Each output's function receives those inputs and
returns the (empty) tensor the kernel writes; it is also the operator's fake
(meta) implementation, so the operator traces under
``torch.compile(fullgraph=True)`` without a graph break and its launches
can be captured in CUDA graphs. Parameters the kernel updates in place are
named in ``mutates``. The kernel runs on the current stream of its tensors'
device. An operator without tensor inputs (a kernel that only fills its
outputs) takes a last argument ``device`` (``torch.device`` or a string
such as ``"cuda:0"``), which its output functions receive too.
"""

import re

from ._lib import TilecError, INVALID_ARGUMENT

__all__ = ["attention", "attention_fp8", "custom_op", "decode_attention", "fp8_gemm_blockwise",
           "fp8_grouped_gemm_contiguous", "fp8_grouped_gemm_masked", "fp8_quantize_blockwise",
           "mla_decode", "mla_decode_metadata", "op_schema", "register_all",
           "varlen_attention"]

_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)\Z")
_registered = {}  # operator name -> name of the kernel custom_op registered as it


def _takes_tensors(inputs):
    """Whether the operator's inputs (params) hold a tensor."""
    return any(p.kind == "tensor" for p in inputs)


def _plan(kernel, outputs, mutates):
    """(input params, output params, mutated names) of `kernel`, checked."""
    names = [p.name for p in kernel.params]
    by_name = {p.name: p for p in kernel.params}

    def bad(what):
        return TilecError("tilec.custom_op(kernel '%s'): %s" % (kernel.name, what),
                          INVALID_ARGUMENT)

    if len(set(names)) != len(names):
        raise bad("its parameters' names are not distinct (%s)" % ", ".join(names))
    for name in list(outputs) + list(mutates):
        if name not in by_name:
            raise bad("it has no parameter '%s' (its parameters: %s)"
                      % (name, ", ".join(names)))
        if by_name[name].kind != "tensor":
            raise bad("parameter '%s' is a scalar; only tensors can be outputs or "
                      "be mutated" % name)
    both = set(outputs) & set(mutates)
    if both:
        raise bad("'%s' is both an output and mutated" % sorted(both)[0])
    for name, alloc in outputs.items():
        if not callable(alloc):
            raise bad("the output '%s' needs a function of the inputs that returns its "
                      "tensor, got %s" % (name, type(alloc).__name__))
    inputs = [p for p in kernel.params if p.name not in outputs]
    if not _takes_tensors(inputs) and "device" in by_name:
        raise bad("without tensor inputs the operator takes an argument 'device', which its "
                  "parameter 'device' would clash with")
    return inputs, [by_name[n] for n in outputs], set(mutates)


def _type(param):
    if param.kind == "tensor":
        return "Tensor"
    return "int" if param.dtype.startswith("i") else "float"


def op_schema(kernel, outputs, mutates=()):
    """The torch schema of the operator :func:`custom_op` makes of `kernel`
    (without its name), e.g. ``(Tensor a, Tensor b, Tensor bias) -> Tensor``.
    Needs no torch and no GPU."""
    return _schema(*_plan(kernel, dict(outputs), tuple(mutates)))


def _schema(inputs, outs, mutated):
    """The schema of a checked plan (_plan's result)."""
    args = []
    for i, p in enumerate(inputs):
        alias = "(%s!)" % chr(ord("a") + i % 26) if p.name in mutated else ""
        args.append("%s%s %s" % (_type(p), alias, p.name))
    if not _takes_tensors(inputs):
        args.append("Device device")  # torch dispatches on it
    ret = {0: "()", 1: "Tensor"}.get(len(outs), "(%s)" % ", ".join(["Tensor"] * len(outs)))
    return "(%s) -> %s" % (", ".join(args), ret)


def _check_name(name):
    """(namespace, name) of `name`; TilecError unless it is "namespace::name"
    (two identifiers) that custom_op has not registered yet."""
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None:
        raise TilecError("tilec.custom_op: the operator's name must be 'namespace::name', "
                         "each an identifier (such as 'mylib::gemm_relu'), got %r" % (name,),
                         INVALID_ARGUMENT)
    if name in _registered:
        raise TilecError("tilec.custom_op: operator '%s' is already registered (kernel '%s'); "
                         "give this one another name" % (name, _registered[name]),
                         INVALID_ARGUMENT)
    return m.groups()


def custom_op(name, kernel, outputs, mutates=()):
    """Registers `kernel` (a :class:`tilec.Kernel`) as the PyTorch operator
    `name` ("namespace::name", not yet taken) and returns it (callable like
    a function, also reachable as ``torch.ops.namespace.name``).

    outputs: {parameter name: function(*inputs) -> new empty tensor}, in the
    order the operator returns them. mutates: names of tensor parameters
    the kernel updates in place (the operator's schema says so)."""
    namespace, opname = _check_name(name)
    import torch

    if hasattr(getattr(torch.ops, namespace), opname):
        raise TilecError("tilec.custom_op: torch already has an operator '%s'; give this one "
                         "another name" % name, INVALID_ARGUMENT)
    outputs = dict(outputs)
    mutates = tuple(mutates)
    plan = _plan(kernel, outputs, mutates)
    schema = _schema(*plan)
    inputs, outs, _ = plan
    order = [p.name for p in kernel.params]
    allocs = list(outputs.values())

    def allocate(args):
        results = []
        for p, alloc in zip(outs, allocs):
            t = alloc(*args)
            if not isinstance(t, torch.Tensor):
                raise TilecError("tilec.custom_op('%s'): the function of output '%s' "
                                 "returned %s, not a tensor"
                                 % (name, p.name, type(t).__name__), INVALID_ARGUMENT)
            results.append(t)
        return results

    def pack(results):
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def run(*args):
        results = allocate(args)
        given = dict(zip((p.name for p in inputs), args))  # zip leaves `device` out
        given.update(zip((p.name for p in outs), results))
        kernel(*(given[n] for n in order))
        return pack(results)

    def fake(*args):
        return pack(allocate(args))

    try:
        op = torch.library.custom_op(name, run, mutates_args=tuple(mutates),
                                     device_types="cuda", schema=schema)
    except (RuntimeError, ValueError) as e:
        raise TilecError("tilec.custom_op('%s'): torch refused the operator: %s" % (name, e),
                         INVALID_ARGUMENT) from e
    op.register_fake(fake)
    _registered[name] = kernel.name
    return op


from .attention import attention  # noqa: E402 (tilec.ops.attention)
from .attention_fp8 import attention_fp8  # noqa: E402 (tilec.ops.attention_fp8)
from .decode import decode_attention  # noqa: E402 (tilec.ops.decode_attention)
from .varlen import varlen_attention  # noqa: E402 (tilec.ops.varlen_attention)
from .mla import mla_decode, mla_decode_metadata  # noqa: E402 (tilec.ops.mla_decode)
from .fp8 import (fp8_gemm_blockwise, fp8_grouped_gemm_contiguous,  # noqa: E402
                  fp8_grouped_gemm_masked, fp8_quantize_blockwise)


def register_all():
    """Registers every tilec.ops operator with torch now (each is
    otherwise registered at its first eager call). torch.compile cannot
    trace a registration: this runs as tilec.ops is imported where torch
    already is, and a program that imports torch later and whose first call
    is compiled calls it first."""
    from ._lib import REGISTRATIONS

    for register in REGISTRATIONS:
        register()


if "torch" in __import__("sys").modules:
    register_all()
