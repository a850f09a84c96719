"""Transpose bandwidth: tilec's examples/transpose.mlir against torch's
x.t().contiguous() and a device-to-device copy of the same bytes, in one run
on one GPU. Checks the result first (fresh random data, poisoned output).

    python3 bench/transpose.py            # bundles from $TILEC_BUNDLE_DIR

Prints a table: GB/s (bytes read + written), and tilec's ratio to the copy
and to torch."""

import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")


def main():
    bundle = tilec.load(os.path.join(BUNDLES, "transpose.tlc"))
    rows = []
    for dtype, name in [(torch.float32, "transpose_f32"), (torch.bfloat16, "transpose_bf16")]:
        k = bundle[name]
        for m, n in [(8192, 8192), (16384, 8192), (8191, 8200)]:
            x = torch.randn(m, n, device="cuda", dtype=dtype)
            y = torch.full((n, m), float("nan"), device="cuda", dtype=dtype)
            k(x, y)
            torch.cuda.synchronize()
            assert torch.equal(y, x.t()), f"{name} {m}x{n}: wrong result"
            copy_dst = torch.empty_like(x)
            t_tilec = bench(lambda: k(x, y))
            t_torch = bench(lambda: x.t().contiguous())
            t_copy = bench(lambda: copy_dst.copy_(x))
            gb = 2 * x.numel() * x.element_size() / 1e9
            rows.append((name, f"{m}x{n}", gb / t_tilec * 1e3, gb / t_torch * 1e3,
                         gb / t_copy * 1e3))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'kernel':16} {'shape':11} {'tilec GB/s':>11} {'torch .t().contiguous()':>24} "
          f"{'copy GB/s':>10} {'tilec/copy':>11} {'tilec/torch':>12}")
    for name, shape, a, b, c in rows:
        print(f"{name:16} {shape:11} {a:11.0f} {b:24.0f} {c:10.0f} {a / c:11.2f} {a / b:12.2f}")


if __name__ == "__main__":
    main()
