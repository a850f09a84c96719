"""Launches the warp-specialized GEMM variants that gemm_check does not
cover (ping-pong, clusters of two, fp8) once each on fresh random inputs
with a NaN-poisoned output and checks them against a float64 reference.
scripts/gpu-gemm-audit.sh runs it under compute-sanitizer on the GPU
machine; shapes are small and ragged so the sanitizers finish quickly."""

import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tilec  # noqa: E402

BUNDLES = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(ROOT, ".device", "examples"))


def main():
    variants = tilec.load(os.path.join(BUNDLES, "gemm_variants.tlc"))
    fp8 = tilec.load(os.path.join(BUNDLES, "gemm_fp8.tlc"))
    ok = True
    for name, (m, n, k) in [("gemm_pingpong", (2000, 2056, 136)),
                            ("gemm_cluster", (1000, 520, 264)),
                            ("gemm_cluster", (300, 200, 136)),
                            ("gemm_e4m3", (300, 520, 272))]:
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        if name == "gemm_e4m3":
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            bt = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
            s = torch.rand(2, device="cuda") + 0.5
            fp8[name](a, bt, s[:1], s[1:], c)
            ref = (a.double() @ bt.double().T) * s[0].double() * s[1].double()
        else:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            bias = torch.randn(n, device="cuda")
            variants[name](a, b, bias, c)
            ref = torch.relu(a.double() @ b.double() + bias.double())
        torch.cuda.synchronize()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        passed = err < 1e-2
        ok &= passed
        print(f"{name} {m}x{n}x{k}: rel err {err:.3e} {'PASS' if passed else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
