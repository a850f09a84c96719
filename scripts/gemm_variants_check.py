"""Launches the warp-specialized GEMMs that gemm_check does not cover
(each tile-shape member of gemm forced, ping-pong, clusters of two, fp8)
once each on fresh random inputs with a NaN-poisoned output and checks them
against a float64 reference. scripts/gpu-gemm-audit.sh runs it under
compute-sanitizer on the GPU machine; shapes are small and ragged so the
sanitizers finish quickly. A kernel "as written" is launched with an
explicit grid, which skips the runtime's choice among tile shapes."""

import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tilec  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, ".device", "examples"))


CASES = [
    ("gemm", "gemm", (1000, 520, 264)),
    ("gemm", "gemm__128x128", (1000, 520, 264)),
    ("gemm", "gemm__128x64", (300, 200, 136)),
    ("gemm_variants", "gemm_pingpong", (2000, 2056, 136)),
    ("gemm_variants", "gemm_pingpong__128x64", (300, 200, 136)),
    ("gemm_variants", "gemm_cluster", (1000, 520, 264)),
    ("gemm_variants", "gemm_cluster", (300, 200, 136)),
    ("gemm_variants", "gemm_cluster__128x128", (1000, 520, 264)),
    ("gemm_fp8", "gemm_e4m3", (300, 520, 272)),
    ("gemm_fp8", "gemm_e4m3__128x64", (300, 520, 272)),
]


def main():
    bundles = {}
    ok = True
    for bundle, name, (m, n, k) in CASES:
        if bundle not in bundles:
            bundles[bundle] = tilec.load(os.path.join(BUNDLES, bundle + ".tlc"))
        kern = bundles[bundle][name]
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        if bundle == "gemm_fp8":
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            bt = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
            s = torch.rand(2, device="cuda") + 0.5
            args = (a, bt, s[:1], s[1:], c)
            ref = (a.double() @ bt.double().T) * s[0].double() * s[1].double()
        else:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            bias = torch.randn(n, device="cuda")
            args = (a, b, bias, c)
            ref = torch.relu(a.double() @ b.double() + bias.double())
        kern(*args, grid=kern.grid(*args))
        torch.cuda.synchronize()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        passed = err < 1e-2
        ok &= passed
        print(f"{name} {m}x{n}x{k}: rel err {err:.3e} {'PASS' if passed else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
