#!/usr/bin/env python3
"""The invariant between the compiler and the runtime, over every program the
test suite has: each kernel module among the .mlir files under the given
directories (a file with `// -----` lines is split into its pieces, as
-split-input-file does) is compiled by `tilec compile`. Then:

- tilec exits 0, or exits 1 with an `error:` diagnostic; never a signal, an
  abort or an LLVM fatal error;
- where it exits 0, the bundle it wrote loads in the runtime
  (tilec_bundle_load_file), and every kernel in it is found by name;
- and `--emit=c` of the same program exits 0, the source compiles with
  -std=c99 -Wall -Werror, links against the runtime, and the bundle it
  embeds loads too.

Prints one line per program that fails and a summary; exits 1 on any
failure. Used by test/tools/programs.test."""

import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import tempfile

DRIVER = r"""
#include "prog.h"
#include <stdio.h>
#include <string.h>

static int check(tilec_bundle *b, const char *what) {
  size_t n = tilec_bundle_num_kernels(b);
  for (size_t i = 0; i < n; ++i) {
    tilec_kernel *k = NULL;
    const char *name = tilec_bundle_kernel_name(b, i);
    tilec_status s = tilec_bundle_get_kernel(b, name, &k);
    if (s || !k || strcmp(tilec_kernel_name(k), name) != 0) {
      fprintf(stderr, "%s: kernel '%s' not found by name: %s\n", what, name,
              tilec_status_message(s));
      return 1;
    }
  }
  return n == 0;
}

int main(int argc, char **argv) {
  tilec_bundle *embedded = NULL, *file = NULL;
  tilec_status s = prog_bundle(&embedded);
  if (s) {
    fprintf(stderr, "the bundle --emit=c embeds does not load: %s\n",
            tilec_status_message(s));
    return 1;
  }
  s = tilec_bundle_load_file(argv[1], &file);
  if (s) {
    fprintf(stderr, "the bundle file does not load: %s\n",
            tilec_status_message(s));
    return 1;
  }
  int rc = check(embedded, "embedded") | check(file, "file");
  tilec_bundle_free(file);
  return rc;
}
"""

CRASH = re.compile(r"LLVM ERROR|Stack dump|Assertion .* failed|PLEASE submit a bug")


def pieces(path):
    text = path.read_text()
    if "tile.kernel" not in text:
        return []
    parts = re.split(r"^// -----$", text, flags=re.M)
    return [(i, p) for i, p in enumerate(parts) if "tile.kernel" in p]


def check(job, args):
    path, index, text = job
    name = f"{path}" + (f" (piece {index})" if index else "")
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        src = d / "prog.mlir"
        src.write_text(text)

        def tilec(*extra):
            return subprocess.run([args.tilec, "compile", str(src), *extra],
                                  capture_output=True, text=True, timeout=600)

        r = tilec("-o", str(d / "prog.tlc"))
        if r.returncode < 0 or r.returncode > 1 or CRASH.search(r.stderr):
            return name, f"tilec crashed (exit {r.returncode}): {r.stderr[-400:]}"
        if r.returncode == 1:
            if "error:" not in r.stderr:
                return name, f"exit 1 without an error diagnostic: {r.stderr[-400:]}"
            return name, None
        c = tilec("--emit=c", "-o", str(d / "prog.c"))
        if c.returncode != 0:
            return name, f"the bundle compiled but --emit=c failed: {c.stderr[-400:]}"
        (d / "driver.c").write_text(DRIVER)
        cc = [args.cc, "-std=c99", "-Wall", "-Werror", f"-I{args.include}", f"-I{d}"]
        steps = [
            cc + ["-c", str(d / "prog.c"), "-o", str(d / "prog.o")],
            cc + ["-c", str(d / "driver.c"), "-o", str(d / "driver.o")],
            [args.cc, str(d / "driver.o"), str(d / "prog.o"), f"-L{args.lib}",
             "-ltilec_runtime", f"-Wl,-rpath,{args.lib}", "-o", str(d / "driver")],
            [str(d / "driver"), str(d / "prog.tlc")],
        ]
        for step in steps:
            s = subprocess.run(step, capture_output=True, text=True, timeout=300)
            if s.returncode != 0:
                return name, f"{os.path.basename(step[0])} failed: {(s.stdout + s.stderr)[-400:]}"
        return name, "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--include", required=True, help="runtime/include")
    ap.add_argument("--lib", required=True, help="the folder of libtilec_runtime.so")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    jobs = []
    for d in args.dirs:
        for path in sorted(pathlib.Path(d).rglob("*.mlir")):
            jobs += [(path, i, t) for i, t in pieces(path)]
    failures, compiled, rejected = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, result in pool.map(lambda j: check(j, args), jobs):
            if result == "ok":
                compiled += 1
            elif result is None:
                rejected += 1
            else:
                failures.append(f"{name}: {result}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(jobs)} programs: {compiled} compiled (bundle and C load), "
          f"{rejected} rejected with a diagnostic, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
