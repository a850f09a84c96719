"""MLA decode (DeepSeek's multi-head latent attention, FlashMLA's problem):
tilec.ops.mla_decode over a paged latent cache, on FlashMLA's own test
grid, beside a device-to-device copy and cuBLAS's dense bf16 GEMM in the
same run on the same GPU (there is no MLA peer on the GPU machine).

    python3 bench/mla.py      # bundles from $TILEC_KERNELS_DIR / build/examples

Grid: batch 128, query heads 16/32/64/128, 1 or 2 new tokens (causal),
context 4096 and 8192 with lengths drawn from N(context, context / 2)
clipped to [1, 2 · context] (seeded), pages of 64 scattered at random,
bf16. GB/s is the bytes the kernel must move (the cache rows of every
sequence, 576 · 2 bytes a key, plus q and out) over its time; TFLOP/s is
2 · keys · Sq · Hq · (576 + 512) over it. Beside them, the fractions of
the copy's rate (read + written, timed from the host) and of cuBLAS's
bf16 8192³ GEMM (the dense peak the GPU reaches); "chunks" is the
schedule's target (chunks in all), and beside it the same op with every
sequence cut into at most 7 chunks of a fixed size (num_splits=7), its
time and its ratio to the balanced one's, and a layer's call on a
schedule computed once for all layers (mla_decode_metadata, FlashMLA's
get_mla_metadata): its time, GB/s and TFLOP/s. Times are GPU times
under a CUDA graph with L2 flushed before each launch (timing.interleaved
with graphs), the combine kernel included. Each configuration's output is
checked against float64 on two sequences before timing."""

import math
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401

import torch  # noqa: E402

sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import tilec.ops  # noqa: E402
from timing import interleaved  # noqa: E402

B, PAGE, D, DV = 128, 64, 576, 512


def cache(lens):
    """A cache of each sequence's pages scattered at random, the table."""
    per = [-(-n // PAGE) for n in lens]
    width, total = max(per), sum(per)
    kv = torch.randn(total + 7, PAGE, 1, D, device="cuda", dtype=torch.bfloat16)
    perm = torch.randperm(total + 7, device="cuda")[:total].to(torch.int32)
    table = torch.zeros(len(lens), width, device="cuda", dtype=torch.int32)
    at = 0
    for b, n in enumerate(per):
        table[b, :n] = perm[at:at + n]
        at += n
    return kv, table


def check(q, kv, table, lens, out, scale, causal):
    sq = q.shape[1]
    for b in (0, len(lens) - 1):
        n = int(lens[b])
        k = kv[table[b, :-(-n // PAGE)].long()].reshape(-1, D)[:n].double()
        s = torch.einsum("thd,kd->htk", q[b].double(), k) * scale
        if causal:
            lim = n - sq + torch.arange(sq, device="cuda") + 1
            s = s.masked_fill(torch.arange(n, device="cuda")[None, None] >= lim[None, :, None],
                              float("-inf"))
        ref = torch.einsum("htk,kd->thd", torch.softmax(s, -1), k[:, :DV])
        err = (out[b].double() - ref).norm() / ref.norm()
        if not err < 1e-2:
            raise SystemExit(f"tilec's MLA output is off: relative error {err:.3g}")


def main():
    torch.manual_seed(0)
    dev = torch.cuda.get_device_name()
    src = torch.empty(1 << 30, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    ms = interleaved({"copy": lambda: dst.copy_(src), "gemm": lambda: a @ a})
    copy_gbs = 2 * src.numel() / (ms["copy"] * 1e-3) / 1e9
    peak = 2 * 8192 ** 3 / (ms["gemm"] * 1e-3) / 1e12
    del src, dst, a
    print(f"MLA decode, bf16, batch {B}, pages of {PAGE}, {dev}; copy {copy_gbs:.0f} GB/s "
          f"(read + written), cuBLAS bf16 8192^3 {peak:.0f} TFLOP/s")
    print(f"{'context':>7} {'Sq':>2} {'Hq':>3} | {'us':>7} {'GB/s':>6} {'TFLOP/s':>7} | "
          f"{'of copy':>7} {'of peak':>7} {'chunks':>6} | {'n=7 us':>7} {'ratio':>5} | "
          f"{'meta us':>7} {'GB/s':>6} {'TFLOP/s':>7}")
    for ctx in (4096, 8192):
        g = torch.Generator().manual_seed(ctx)
        lens_l = torch.normal(float(ctx), ctx / 2, (B,), generator=g).clamp(1, 2 * ctx)
        lens_l = [int(x) for x in lens_l]
        kv, table = cache(lens_l)
        lens = torch.tensor(lens_l, device="cuda", dtype=torch.int32)
        keys = sum(lens_l)
        for sq in (1, 2):
            for hq in (16, 32, 64, 128):
                q = torch.randn(B, sq, hq, D, device="cuda", dtype=torch.bfloat16)
                scale = 1.0 / math.sqrt(D)
                sms = torch.cuda.get_device_properties(0).multi_processor_count
                target, _ = tilec.mla.schedule(-(-(sq * hq) // tilec.mla.ROWS),
                                               -(-table.shape[1] * PAGE // tilec.mla.KEYS),
                                               B, sms)

                def ours(q=q):
                    return tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=scale,
                                                causal=True)

                def fixed(q=q):
                    return tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=scale,
                                                causal=True, num_splits=7)
                meta = tilec.ops.mla_decode_metadata(q, kv, table, lens)

                def layer(q=q, meta=meta):
                    return tilec.ops.mla_decode(q, kv, table, lens, softmax_scale=scale,
                                                causal=True, metadata=meta)
                check(q, kv, table, lens, ours()[0], scale, True)
                check(q, kv, table, lens, fixed()[0], scale, True)
                check(q, kv, table, lens, layer()[0], scale, True)
                ts = interleaved({"tilec": ours, "fixed": fixed, "layer": layer}, graphs=True)
                t, tf, tl = ts["tilec"] * 1e-3, ts["fixed"] * 1e-3, ts["layer"] * 1e-3
                nbytes = keys * D * 2 + q.numel() * 2 + B * sq * hq * DV * 2
                flops = 2 * keys * sq * hq * (D + DV)
                gbs, tfs = nbytes / t / 1e9, flops / t / 1e12
                print(f"{ctx:7d} {sq:2d} {hq:3d} | {t * 1e6:7.1f} {gbs:6.0f} {tfs:7.0f} | "
                      f"{gbs / copy_gbs:7.2f} {tfs / peak:7.2f} {target:6d} | {tf * 1e6:7.1f} "
                      f"{tf / t:5.2f} | {tl * 1e6:7.1f} {nbytes / tl / 1e9:6.0f} "
                      f"{flops / tl / 1e12:7.0f}", flush=True)
        del kv, table
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
