#!/usr/bin/env python3
"""Shows that SharedMemoryPlan, asked when tile-pipeline sizes a kernel's
rings, foresees the shared memory tile-allocate-shared-memory gives it:
compiles each example for each arch to final IR and compares every
kernel's `tgpu.shared_memory_plan` with its `tile.shared_memory`.

  check-shared-memory-plan.py TILEC EXAMPLE.mlir... [--arch=sm_90a ...]

Prints a line a kernel whose figures differ, then "N kernels planned, M
differ"; exits 1 where one differs or none was planned."""
import re
import subprocess
import sys
import tempfile

args = sys.argv[1:]
archs = [a.split("=", 1)[1] for a in args if a.startswith("--arch=")]
files = [a for a in args if not a.startswith("--arch=")]
tilec, sources = files[0], files[1:]
planned = differ = 0
with tempfile.TemporaryDirectory() as tmp:
    for src in sources:
        for arch in archs or ["sm_90a"]:
            out = f"{tmp}/out.mlir"
            subprocess.run([tilec, "compile", src, f"--arch={arch}",
                            "--emit=mlir", "-o", out], check=True,
                           stderr=subprocess.DEVNULL)
            text = open(out).read()
            for m in re.finditer(r"func\.func @([\w$.]+)\(.*?attributes \{(.*)\}",
                                 text):
                attrs = m.group(2)
                plan = re.search(r"tgpu\.shared_memory_plan = (\d+)", attrs)
                final = re.search(r"tile\.shared_memory = (\d+)", attrs)
                if not plan:
                    continue
                planned += 1
                if not final or plan.group(1) != final.group(1):
                    differ += 1
                    print(f"{src} {arch} @{m.group(1)}: planned "
                          f"{plan.group(1)}, allocated "
                          f"{final.group(1) if final else 'nothing'}")
print(f"{planned} kernels planned, {differ} differ")
sys.exit(1 if differ or not planned else 0)
