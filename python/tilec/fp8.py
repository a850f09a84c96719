"""Block-scaled fp8 GEMM and its activations' quantization as PyTorch
operators: tilec.ops.fp8_gemm_blockwise and tilec.ops.fp8_quantize_blockwise
(DeepSeek-V3's recipe; DeepGEMM's and torch._scaled_mm's block-wise
argument conventions).

    import tilec.ops
    a, sa = tilec.ops.fp8_quantize_blockwise(x)        # x (M, K) bf16
    c = tilec.ops.fp8_gemm_blockwise(a, sa, b, sb)     # (M, N) bf16

a is (M, K) float8_e4m3fn with sa (M, ceil(K/128)) float32, one scale per
1x128 block of a row; b is (N, K) float8_e4m3fn (the weight, K-major) with
sb (ceil(N/128), ceil(K/128)) float32, one scale per 128x128 block. Returns
c[m, n] = sum over K blocks kb of (a[m, kb] . b[n, kb]) * sa[m, kb] *
sb[n / 128, kb], each block's dot promoted into f32, as bfloat16. sa is read
M-contiguous (the layout DeepGEMM and torch._scaled_mm take: ``sa.t()``
contiguous); another layout is copied so first. The kernel is
examples/gemm_fp8_blockwise.mlir's (sm_90a), at 128x128 tiles or at
64x64 where the larger tiles' grid leaves SMs idle (pick_kernel); the op
is a torch.library custom op (tilec::fp8_gemm_blockwise) with a fake
implementation, so it traces under torch.compile and launches without host
synchronization.

fp8_quantize_blockwise gives each 1x128 group of a row the scale
max(|group|, 1e-4) / 448 and its values divided by it in e4m3 (one pass
over x, examples/quant_fp8_blockwise.mlir, tilec::fp8_quantize_blockwise);
sa comes back (M, ceil(K/128)), M-contiguous (a view of a (ceil(K/128), M)
tensor), as the GEMM reads it.
"""

from ._lib import INVALID_ARGUMENT, TilecError, once
from .attention import _bundle

BLOCK = 128  # the scales' block along K (and along N for b)
MASKED_EXPERTS = 128  # the masked kernel's scan of the experts' counts


def _check_tensors(bad, tensors):
    """Each (name, tensor, rank, dtype) of `tensors` is a tensor of that rank
    and dtype; a `bad` error naming the first that is not."""
    import torch

    for name, t, rank, _ in tensors:
        if not isinstance(t, torch.Tensor) or t.dim() != rank:
            raise bad("%s must be a %d-D tensor" % (name, rank))
    for name, t, _, dtype in tensors:
        if t.dtype != dtype:
            raise bad("%s must be %s, got %s" % (name, str(dtype).replace("torch.", ""), t.dtype))


def _check_devices(bad, tensors):
    """Each (name, tensor, ...) of `tensors` is a CUDA tensor, all on one device."""
    for name, t, *_ in tensors:
        if t.device.type != "cuda":
            raise bad("%s must be a CUDA tensor, got %s" % (name, t.device))
    if len({t.device for _, t, *_ in tensors}) > 1:
        names = [name for name, *_ in tensors]
        raise bad("%s and %s must be on one device" % (", ".join(names[:-1]), names[-1]))


def _check(a, sa, b, sb):
    import torch

    def bad(what):
        return TilecError("tilec.ops.fp8_gemm_blockwise: " + what, INVALID_ARGUMENT)

    f8, f32 = torch.float8_e4m3fn, torch.float32
    tensors = (("a", a, 2, f8), ("sa", sa, 2, f32), ("b", b, 2, f8), ("sb", sb, 2, f32))
    _check_tensors(bad, tensors)
    (m, k), (n, kk) = a.shape, b.shape
    if k != kk:
        raise bad("a is (M, K) and b (N, K): K differs (%d, %d)" % (k, kk))
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    if tuple(sa.shape) != (m, kb):
        raise bad("sa must be (M, ceil(K/128)) = (%d, %d), got %s" % (m, kb, tuple(sa.shape)))
    if tuple(sb.shape) != (nb, kb):
        raise bad("sb must be (ceil(N/128), ceil(K/128)) = (%d, %d), got %s"
                  % (nb, kb, tuple(sb.shape)))
    _check_devices(bad, tensors)


# A 64x64 program's time over a 128x128 one's at equal K, both on a full
# GPU (H200, 4096x7168x2048: 462 and 951 TFLOP/s, so 4 x 462 / 951 of the
# time for a quarter of the work).
SMALL_TILE_COST = 0.515


def pick_kernel(m, n, sms):
    """The kernel for an M x N output on `sms` SMs: 128x128 tiles, or 64x64
    where their waves (each a 64x64 program's time) take less than the
    128x128 tiles' (a grid that leaves SMs idle: small M, or few N blocks)."""
    def waves(rows, cols):
        return -(-(-(-m // rows) * -(-n // cols)) // sms)
    small = waves(64, 64) * SMALL_TILE_COST < waves(128, 128)
    return "gemm_fp8_blockwise_64x64" if small else "gemm_fp8_blockwise"


def _gemm(a, sa, b, sb):
    import torch

    m, n = a.shape[0], b.shape[0]
    c = torch.empty((m, n), device=a.device, dtype=torch.bfloat16)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    _bundle("gemm_fp8_blockwise", a.device)[pick_kernel(m, n, sms)](a, b, _m_contiguous(sa), sb, c)
    return c


# (Registered once: torch refuses a second operator of the name.)
@once
def _register():
    import torch

    @torch.library.custom_op("tilec::fp8_gemm_blockwise", mutates_args=(), device_types="cuda")
    def fp8_gemm_blockwise_op(a: torch.Tensor, sa: torch.Tensor, b: torch.Tensor,
                              sb: torch.Tensor) -> torch.Tensor:
        return _gemm(a, sa, b, sb)

    @fp8_gemm_blockwise_op.register_fake
    def _(a, sa, b, sb):
        return a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16)

    return fp8_gemm_blockwise_op


def fp8_gemm_blockwise(a, sa, b, sb):
    """(a . bᵀ) with DeepSeek-V3's block scales (see the module): a (M, K)
    and b (N, K) float8_e4m3fn, sa (M, ceil(K/128)) and sb (ceil(N/128),
    ceil(K/128)) float32; returns (M, N) bfloat16."""
    _check(a, sa, b, sb)
    return _register()(a, sa, b, sb)


def _check_grouped(op, a, sa, b, sb, index, masked):
    """The grouped forms' arguments (see fp8_grouped_gemm_contiguous and
    fp8_grouped_gemm_masked); a TilecError naming `op` otherwise."""
    import torch

    def bad(what):
        return TilecError("tilec.ops.%s: %s" % (op, what), INVALID_ARGUMENT)

    f8, f32 = torch.float8_e4m3fn, torch.float32
    rank = 3 if masked else 2
    index_name = "masked_m" if masked else "m_indices"
    tensors = (("a", a, rank, f8), ("sa", sa, rank, f32), ("b", b, 3, f8), ("sb", sb, 3, f32),
               (index_name, index, 1, torch.int32))
    _check_tensors(bad, tensors)
    g, n, k = b.shape
    if a.shape[-1] != k:
        raise bad("a's K (%d) is not b's (G, N, K) K (%d)" % (a.shape[-1], k))
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    if masked:
        if a.shape[0] != g:
            raise bad("a is (G, M_max, K) and b (G, N, K): G differs (%d, %d)" % (a.shape[0], g))
        if g > MASKED_EXPERTS:
            raise bad("at most %d experts, got %d" % (MASKED_EXPERTS, g))
        want_sa, want_index = (g, a.shape[1], kb), (g,)
        sa_text, index_text = "(G, M_max, ceil(K/128))", "(G,)"
    else:
        want_sa, want_index = (a.shape[0], kb), (a.shape[0],)
        sa_text, index_text = "(M, ceil(K/128))", "(M,)"
    if tuple(sa.shape) != want_sa:
        raise bad("sa must be %s = %s, got %s" % (sa_text, want_sa, tuple(sa.shape)))
    if tuple(sb.shape) != (g, nb, kb):
        raise bad("sb must be (G, ceil(N/128), ceil(K/128)) = %s, got %s"
                  % ((g, nb, kb), tuple(sb.shape)))
    if tuple(index.shape) != want_index:
        raise bad("%s must be %s = %s, got %s"
                  % (index_name, index_text, want_index, tuple(index.shape)))
    _check_devices(bad, tensors)


def _m_contiguous(sa):
    """sa (..., M, K blocks) as the kernels read it: (..., K blocks, M) with M
    contiguous; a copy only where M is not."""
    sat = sa.transpose(-1, -2)
    return sat if sat.stride(-1) == 1 else sat.contiguous()


def _grouped(a, sa, b, sb, index, masked):
    import torch

    n = b.shape[1]
    shape = (a.shape[0], a.shape[1], n) if masked else (a.shape[0], n)
    c = torch.empty(shape, device=a.device, dtype=torch.bfloat16)
    name = "gemm_fp8_grouped_masked" if masked else "gemm_fp8_grouped_contiguous"
    _bundle("gemm_fp8_grouped", a.device)[name](a, b, _m_contiguous(sa), sb, index, c)
    return c


# (Registered once: torch refuses a second operator of the name.)
@once
def _register_grouped():
    """The two grouped operators, (contiguous, masked)."""
    import torch

    def register(masked):
        form = "masked" if masked else "contiguous"

        @torch.library.custom_op("tilec::fp8_grouped_gemm_" + form, mutates_args=(),
                                 device_types="cuda")
        def grouped_op(a: torch.Tensor, sa: torch.Tensor, b: torch.Tensor, sb: torch.Tensor,
                       index: torch.Tensor) -> torch.Tensor:
            return _grouped(a, sa, b, sb, index, masked)

        @grouped_op.register_fake
        def _(a, sa, b, sb, index):
            return a.new_empty(tuple(a.shape[:-1]) + (b.shape[1],), dtype=torch.bfloat16)

        return grouped_op

    return register(False), register(True)


def fp8_grouped_gemm_contiguous(a, sa, b, sb, m_indices):
    """A mixture-of-experts layer's block-scaled GEMM over experts' tokens
    stored contiguously (DeepGEMM's contiguous form): a (M, K) float8_e4m3fn
    holds every expert's rows, each expert's segment starting at a multiple
    of 128 rows; m_indices (M,) int32 names each row's expert, -1 for a
    padding row (a 128-row block takes its first row's expert: pad each
    segment at its end). b (G, N, K) float8_e4m3fn, sa (M, ceil(K/128))
    and sb (G, ceil(N/128), ceil(K/128)) float32 as in fp8_gemm_blockwise.
    Returns (M, N) bfloat16: row r is a[r] times expert m_indices[r]'s
    weight; rows of a block that starts with padding are zero. One launch
    (examples/gemm_fp8_grouped.mlir)."""
    _check_grouped("fp8_grouped_gemm_contiguous", a, sa, b, sb, m_indices, masked=False)
    return _register_grouped()[0](a, sa, b, sb, m_indices)


def fp8_grouped_gemm_masked(a, sa, b, sb, masked_m):
    """The masked form (DeepGEMM's, for decode under CUDA graphs): a
    (G, M_max, K) float8_e4m3fn, G at most 128, expert g's tokens its first
    masked_m[g] rows (masked_m (G,) int32 on the device: the launch does not
    read it); sa (G, M_max, ceil(K/128)) float32 (read with M contiguous, copied so
    otherwise), b and sb as in fp8_grouped_gemm_contiguous. Returns
    (G, M_max, N) bfloat16; rows at or past masked_m[g] are unspecified."""
    _check_grouped("fp8_grouped_gemm_masked", a, sa, b, sb, masked_m, masked=True)
    return _register_grouped()[1](a, sa, b, sb, masked_m)


def _quantize(x):
    import torch

    m, k = x.shape
    a = torch.empty((m, k), device=x.device, dtype=torch.float8_e4m3fn)
    sat = torch.empty((-(-k // BLOCK), m), device=x.device, dtype=torch.float32)
    _bundle("quant_fp8_blockwise", x.device)["quant_fp8_blockwise"](x, a, sat)
    return a, sat.t()


# (Registered once: torch refuses a second operator of the name.)
@once
def _register_quantize():
    import torch

    @torch.library.custom_op("tilec::fp8_quantize_blockwise", mutates_args=(),
                             device_types="cuda")
    def fp8_quantize_blockwise_op(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _quantize(x)

    @fp8_quantize_blockwise_op.register_fake
    def _(x):
        m, k = x.shape
        sat = x.new_empty((-(-k // BLOCK), m), dtype=torch.float32)
        return x.new_empty((m, k), dtype=torch.float8_e4m3fn), sat.t()

    return fp8_quantize_blockwise_op


def fp8_quantize_blockwise(x):
    """(a, sa): x (M, K) bfloat16 quantized a 1x128 group at a time (see the
    module): a (M, K) float8_e4m3fn, sa (M, ceil(K/128)) float32, M-contiguous."""
    import torch

    def bad(what):
        return TilecError("tilec.ops.fp8_quantize_blockwise: " + what, INVALID_ARGUMENT)

    if not isinstance(x, torch.Tensor) or x.dim() != 2:
        raise bad("x must be a 2-D tensor")
    if x.dtype != torch.bfloat16:
        raise bad("x must be bfloat16, got %s" % x.dtype)
    if x.device.type != "cuda":
        raise bad("x must be a CUDA tensor, got %s" % x.device)
    return _register_quantize()(x)
