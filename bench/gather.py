"""Gather bandwidth: embedding rows out[i, :] = table[ids[i], :] with
tilec's tile.gather (test/gpu/kernels/memory.mlir's gather_rows: 32 rows x
64 columns a program) against torch's index_select, in one run. The same
kernel runs its vector path (16-byte loads, chosen at run time) on an
aligned table and its element-wise path on a table that starts one element
into its storage (same sizes). Outputs are checked first.

    python3 bench/gather.py     # bundles from $TILEC_BUNDLE_DIR"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import tilec  # noqa: E402
from timing import interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, "build", "examples"))


def main():
    k = tilec.load(os.path.join(BUNDLES, "memory.tlc"))["gather_rows"]
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'rows x d':>14} {'ids':>8} {'vector GB/s':>12} {'element GB/s':>13} {'torch GB/s':>11} {'vector/torch':>13}")
    for rows, d, n in [(100_000, 1024, 65536), (32_000, 4096, 16384), (1_000_000, 256, 262144)]:
        storage = torch.randn(rows, d + 1, device="cuda")
        aligned = torch.randn(rows, d, device="cuda")
        shifted = storage[:, 1:]
        ids = torch.randint(0, rows, (n,), device="cuda", dtype=torch.int32)
        out = torch.empty(n, d, device="cuda")
        for table in (aligned, shifted):
            out.fill_(float("nan"))
            k(table, ids, out)
            torch.cuda.synchronize()
            assert torch.equal(out, table.index_select(0, ids.long()))
        idl = ids.long()
        t = interleaved({
            "vector": lambda: k(aligned, ids, out),
            "element": lambda: k(shifted, ids, out),
            "torch": lambda: torch.index_select(aligned, 0, idl, out=out),
        })
        moved = 2 * n * d * 4  # read the rows, write them out
        gbs = {x: moved / (t[x] * 1e-3) / 1e9 for x in t}  # t in ms
        print(f"{rows:>7}x{d:<6} {n:>8} {gbs['vector']:12.0f} {gbs['element']:13.0f} "
              f"{gbs['torch']:11.0f} {gbs['vector'] / gbs['torch']:13.2f}")


if __name__ == "__main__":
    main()
