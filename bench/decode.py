"""Paged-KV decode: tilec.ops.decode_attention over a paged cache against
torch SDPA's cuDNN and FlashAttention backends over the same keys and
values laid out contiguously (their best case), and a device-to-device
copy of the same bytes, in one run on one GPU.

    python3 bench/decode.py      # bundles from $TILEC_KERNELS_DIR / build/examples

Shapes (B, Hq, Hkv, context) are issue 49's: (64, 32, 8, 4096), (16, 32,
8, 16384), (128, 16, 16, 2048), (1, 32, 8, 131072); pages of 16 and 64
tokens in vLLM's layout (num_blocks, page, Hkv, D), and pages of 16 heads
first (num_blocks, Hkv, page, D: "16h"), scattered at random in a cache
twice the size needed; every
sequence at the full context; one query token; bf16, D 128 (and D 64 and
256 at the first two shapes, pages of 16 and 64). The figure is
the K/V bytes a kernel must read (B · context · Hkv · D · 2 bytes, K and
V) over its time, in GB/s; the copy's is the bytes it reads and writes
(2x that) over its time: what the memory moves at its best. Every
kernel's time is its GPU time under a CUDA graph (timing.FlushedGraph:
L2 flushed before each launch, the flushes' own time taken off), as a
serving engine's decode step runs: timed from the host (do_bench), a
launch also counts whatever part of its host path the flush does not
hide, which for tilec's Python operator (two launches and the partials'
allocation) was 2-3% of a 140-270 us decode. tilec's figure includes its
combine kernel. Each backend's output is checked against float64 on the
first sequence's first KV head before timing. The ratio is tilec /
cuDNN. The copy is timed from the host (do_bench), once a shape."""

import math
import os
import sys

# bench/profile.py would shadow the standard library's profile module, which
# torch.compile imports: load the standard one first.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
import cProfile  # noqa: E402,F401

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(_HERE, "..", "python"))
import tilec.ops  # noqa: E402
from timing import interleaved  # noqa: E402

SHAPES = [(64, 32, 8, 4096, 128), (16, 32, 8, 16384, 128), (128, 16, 16, 2048, 128),
          (1, 32, 8, 131072, 128), (64, 32, 8, 4096, 64), (16, 32, 8, 16384, 64),
          (64, 32, 8, 4096, 256), (16, 32, 8, 16384, 256)]  # B, Hq, Hkv, context, D
PAGES = ((16, False), (64, False), (16, True))  # page size, heads first


def paged(k, v, page, heads_first=False):
    """(B, Hkv, S, D) k and v as a cache of pages scattered at random among
    twice as many blocks ((num_blocks, page, Hkv, D), or (num_blocks, Hkv,
    page, D) heads first), and the block table."""
    b, hkv, s, d = k.shape
    per = s // page
    nblocks = 2 * b * per
    shape = (nblocks, hkv, page, d) if heads_first else (nblocks, page, hkv, d)
    kc = torch.empty(shape, device=k.device, dtype=k.dtype)
    vc = torch.empty_like(kc)
    table = torch.randperm(nblocks, device=k.device)[:b * per].view(b, per).int()
    order = (0, 2, 1, 3, 4) if heads_first else (0, 2, 3, 1, 4)
    kc[table.long()] = k.view(b, hkv, per, page, d).permute(*order)
    vc[table.long()] = v.view(b, hkv, per, page, d).permute(*order)
    return kc, vc, table


def reference(q, k, v, scale):
    """float64 output of sequence 0's first KV head's query heads."""
    g = q.shape[1] // k.shape[1]
    s = q[0, :g, 0].double() @ k[0, 0].double().T * scale  # (G, S)
    return torch.softmax(s, -1) @ v[0, 0].double()


def check(out, ref, what):
    err = ((out.double() - ref).norm() / ref.norm()).item()
    if not math.isfinite(err) or err > 1e-2:
        raise SystemExit(f"{what}: relative error {err}")


def sdpa(backend, q, k, v, scale):
    def run():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=True)
    return run


def main():
    torch.manual_seed(0)
    dev = torch.cuda.get_device_name()
    print(f"paged-KV decode, bf16, one query token, {dev}; GB/s of K/V read "
          "(copy: read + written), ratio = tilec / cuDNN")
    print(f"{'B':>4} {'Hq':>3} {'Hkv':>3} {'context':>7} {'D':>3} {'page':>4} | {'tilec':>6} "
          f"{'cudnn':>6} {'fa2':>6} {'copy':>6} | {'ratio':>5} {'splits':>6}")
    for (b, hq, hkv, s, d) in SHAPES:
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16)
        scale = 1.0 / math.sqrt(d)
        ref = reference(q, k, v, scale)
        nbytes = 2 * k.numel() * k.element_size()
        peers = {}
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("fa2", SDPBackend.FLASH_ATTENTION)):
            run = sdpa(backend, q, k, v, scale)
            try:
                check(run()[0, :hq // hkv, 0], ref, name)
            except RuntimeError as e:  # a backend that does not take it
                print(f"  {name}: {str(e).splitlines()[0]}")
                continue
            peers[name] = run
        src = torch.cat([k.flatten(), v.flatten()])
        dst = torch.empty_like(src)
        # (Timed from the host: one torch op, whose host path the flush
        # hides; under a graph beside the flush the copy measured a third
        # lower than the memory moves.)
        copy_ms = interleaved({"copy": lambda: dst.copy_(src)})["copy"]
        for page, heads_first in PAGES if d == 128 else PAGES[:2]:
            kc, vc, table = paged(k, v, page, heads_first)
            lens = torch.full((b,), s, device="cuda", dtype=torch.int32)
            qd = q.transpose(1, 2)  # (B, 1, Hq, D)
            sms = torch.cuda.get_device_properties(0).multi_processor_count
            splits = tilec.decode.num_splits(b * hkv, table.shape[1] * page, sms, d)

            def ours(qd=qd, kc=kc, vc=vc, table=table, lens=lens, hf=heads_first):
                return tilec.ops.decode_attention(qd, kc, vc, table, lens, scale=scale,
                                                  heads_first=hf)
            check(ours()[0, 0, :hq // hkv], ref, "tilec")
            runs = dict(peers, tilec=ours)
            ms = dict(interleaved(runs, graphs=True), copy=copy_ms)
            gbs = {n: (2 if n == "copy" else 1) * nbytes / (t * 1e-3) / 1e9
                   for n, t in ms.items()}
            ratio = gbs["tilec"] / gbs["cudnn"] if "cudnn" in gbs else float("nan")
            cells = " ".join(f"{gbs[n]:6.0f}" if n in gbs else f"{'-':>6}"
                             for n in ("tilec", "cudnn", "fa2", "copy"))
            where = f"{page}h" if heads_first else f"{page}"
            print(f"{b:4d} {hq:3d} {hkv:3d} {s:7d} {d:3d} {where:>4} | {cells} | {ratio:5.2f} "
                  f"{splits:6d}", flush=True)
            del kc, vc, table
        del q, k, v, src, dst, peers
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
