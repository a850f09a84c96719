#!/usr/bin/env python3
"""Structured mutation fuzzing of the whole compiler: takes the kernel
programs under the given directories as seeds, mutates them (lines deleted,
duplicated or swapped; integers, tile sizes, element types, op names,
keywords and attributes replaced by others of their kind or by edge values;
text truncated or spliced between programs) and compiles each mutant with
`tilec compile` (mostly --emit=mlir, every fourth one to a bundle, every
eighth with --remarks --debug). A mutant fails the run when tilec

- dies of a signal, exits with a code other than 0 or 1, or prints an LLVM
  fatal error, an assertion, a stack dump or "PLEASE submit a bug report";
- exits 1 without an `error:` diagnostic, or with one that has no location
  (`FILE:LINE:COL:`) though the input parsed;
- runs past the time limit (a hang);
- exits 0 with a bundle the runtime does not load, or with `--emit=c`
  output a C compiler rejects.

Each failing mutant is written to --out (default: test/fuzz/new) as
`fuzz-<hash>.mlir` with the command in a comment; fixed ones are kept in
test/fuzz, where test/tools/programs.test checks them with every other
program. Deterministic for a seed: `--seed 7 --iterations 300` replays the
same mutants. Exits 1 if any mutant failed."""

import argparse
import concurrent.futures
import hashlib
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

CRASH = re.compile(r"LLVM ERROR|Stack dump|Assertion .* failed|PLEASE submit a bug|"
                   r"UNREACHABLE|terminate called")
LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: error:", re.M)

TYPES = ["f32", "f16", "bf16", "f64", "i1", "i8", "i16", "i32", "i64",
         "f8E4M3FN", "f8E5M2", "index"]
INTS = ["0", "-1", "1", "2", "3", "7", "16", "31", "32", "33", "64", "100",
        "128", "255", "256", "1024", "4096", "65536", "2147483647",
        "-2147483648", "4294967296", "9223372036854775807"]
DIMS = ["1", "2", "3", "4", "8", "16", "32", "48", "64", "128", "256", "512",
        "1024", "4096", "0", "?"]
OPS = {
    "arith": ["addf", "subf", "mulf", "divf", "addi", "subi", "muli", "divsi",
              "remsi", "maximumf", "minimumf", "andi", "ori", "xori",
              "shli", "shrui", "cmpf", "cmpi", "select", "extf", "truncf",
              "sitofp", "fptosi", "bitcast", "constant", "negf"],
    "math": ["exp", "exp2", "log", "sin", "cos", "tanh", "sqrt", "rsqrt",
             "erf", "absf", "floor", "powf", "atan2", "fma", "log1p", "cbrt"],
    "tile": ["load", "store", "dot", "reduce", "broadcast", "expand_dims",
             "reshape", "transpose", "splat", "iota", "convert_layout",
             "gather", "scatter", "atomic_rmw", "scan", "sort", "topk",
             "print", "assert", "rand", "philox", "program_id", "dim",
             "extract_slice", "insert_slice", "concat"],
}
KEYWORDS = ["sum", "max", "min", "dim 0", "dim 1", "dim 2", "axis 0",
            "axis 1", "exclusive", "descending", "smallest", "x", "y", "z",
            "tile.num_warps = 1", "tile.num_warps = 3", "tile.num_warps = 8",
            "tile.num_warps = 64", "tile.num_stages = 1", "tile.num_stages = 0",
            "tile.cluster = 2", "tile.kernel", "k 3", "k 0"]


# The new ops' keywords and attributes, each group's words swapped for one
# another (scan/sort/topk, atomics, gathers and masks, Philox, print and
# assert, profiling scopes).
OP_WORDS = [
    ["add", "max", "min", "umax", "umin", "and", "or", "xor", "xchg", "cas", "mul"],
    ["relaxed", "acquire", "release", "acq_rel", "seq_cst"],
    ["cta", "gpu", "sys", "cluster"],
    ["uniform", "normal", "bernoulli"],
    ["inclusive", "exclusive", "reverse"],
    ["ascending", "descending", "stable"],
    ["largest", "smallest"],
]
OP_ATTRS = [
    (r"program \[[^\]]*\]", ["program [0, 0, 0]", "program [-1, 0, 0]", "program [1]",
                               "program [4294967295, 0, 0]", ""]),
    (r"\bk \d+\b", ["k 0", "k 1", "k 3", "k 64", "k 1024", "k 4096"]),
    (r"\bdim \d+\b", ["dim 0", "dim 1", "dim 2", "dim 7"]),
    (r"\{padding = [^}]*\}", ["{padding = 0.0 : f32}", "{padding = 1 : i32}",
                               "{padding = 0x7FC00000 : f32}", "{padding = \"x\"}", ""]),
    (r'tile\.profile_(begin|end) "[^"]*"', ['tile.profile_begin ""', 'tile.profile_end "x"',
                                            'tile.profile_begin "' + "a" * 60 + '"',
                                            'tile.profile_begin "a b"']),
    (r'tile\.(print|assert) "[^"]*"', ['tile.print "%d %s"', 'tile.assert "\\n"',
                                       'tile.print ""', 'tile.print "' + "x" * 300 + '"']),
]


def seeds(dirs):
    progs = []
    for d in dirs:
        for path in sorted(pathlib.Path(d).rglob("*.mlir")):
            text = path.read_text(errors="replace")
            for piece in re.split(r"^// -----$", text, flags=re.M):
                if "tile.kernel" in piece:
                    progs.append(piece)
    return progs


def mutate(rng, text, others):
    lines = text.split("\n")
    kind = rng.randrange(17)
    if kind == 0 and len(lines) > 2:
        del lines[rng.randrange(len(lines))]
    elif kind == 1:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 2 and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:
        return re.sub(r"(?<![\w.%#])-?\d+(?![\w.])",
                      lambda m: rng.choice(INTS) if rng.random() < 0.15 else m.group(0),
                      text)
    elif kind == 4:
        t = rng.choice(TYPES)
        old = rng.choice(TYPES)
        return re.sub(r"(?<=x)" + re.escape(old) + r"\b",
                      lambda m: t if rng.random() < 0.5 else m.group(0), text)
    elif kind == 5:
        return re.sub(r"(?<=<)(\d+)(?=x)|(?<=x)(\d+)(?=x)",
                      lambda m: rng.choice(DIMS) if rng.random() < 0.3 else m.group(0),
                      text)
    elif kind == 6:
        dialect = rng.choice(list(OPS))
        names = OPS[dialect]
        return re.sub(r"\b" + dialect + r"\.(\w+)",
                      lambda m: dialect + "." + rng.choice(names)
                      if rng.random() < 0.2 else m.group(0), text)
    elif kind == 7:
        kw = rng.choice(KEYWORDS)
        words = ["sum", "max", "min", "exclusive", "descending", "smallest"]
        pat = rng.choice([r"\bdim \d\b", r"\baxis \d\b", r"\b(sum|max|min)\b",
                          r"tile\.num_warps = \d+", r"\bk \d+\b",
                          r"\b(x|y|z)\b(?=\s*$)"] + [rf"\b{w}\b" for w in words])
        return re.sub(pat, lambda m: kw if rng.random() < 0.5 else m.group(0),
                      text, flags=re.M)
    elif kind == 8:
        return text[:rng.randrange(len(text) + 1)]
    elif kind == 15:
        group = rng.choice(OP_WORDS)
        return re.sub(r"\b(" + "|".join(group) + r")\b",
                      lambda m: rng.choice(group) if rng.random() < 0.4 else m.group(0), text)
    elif kind == 16:
        pat, values = rng.choice(OP_ATTRS)
        return re.sub(pat, lambda m: rng.choice(values) if rng.random() < 0.5 else m.group(0),
                      text)
    elif kind == 9 and others:
        other = rng.choice(others).split("\n")
        i = rng.randrange(len(lines))
        j = rng.randrange(len(other))
        lines[i:i] = other[j:j + rng.randint(1, 6)]
    elif kind == 10:
        i = rng.randrange(len(text) + 1)
        junk = rng.choice(["%", "(", ")", "{", "}", "<", ">", ",", ":",
                           "\"", "#", "!", " ", "\x00", "\u00e9", "-"])
        return text[:i] + junk + text[i:]
    elif kind == 12:
        # One element type for another everywhere (the program stays
        # consistent, so it reaches the passes).
        old, new = rng.choice(TYPES), rng.choice(TYPES)
        return re.sub(r"(?<=x)" + re.escape(old) + r"\b", new, text)
    elif kind == 13:
        # One tile size for another everywhere.
        old = rng.choice(["16", "32", "64", "128", "256"])
        new = rng.choice(DIMS[:-1])
        return re.sub(r"(?<=[<x])" + old + r"(?=x)", new, text)
    elif kind == 14:
        # Launch attributes.
        attr = rng.choice(["tile.num_warps = " + rng.choice(["1", "2", "4", "8", "16"]),
                           "tile.num_stages = " + rng.choice(["1", "2", "3", "7"]),
                           "tile.cluster = " + rng.choice(["1", "2", "4"]),
                           "tile.schedule = #tile.schedule<pingpong>",
                           "tile.tile_shapes = [[64, 64], [128, 256]]"])
        return re.sub(r"attributes \{", "attributes {" + attr + ", ", text, count=1)
    else:
        # Grid rules: nested, zero, spaced.
        return re.sub(r"#tile\.grid<([^>]*)>",
                      lambda m: "#tile.grid<" + rng.choice([
                          m.group(1), "0", "cdiv(dim(0, 0), 0)", " 1 , 2 ",
                          "cdiv(" * 50 + "1" + ", 2)" * 50, "4294967296",
                          m.group(1) + ", 1, 1, 1"]) + ">", text)
    return "\n".join(lines)


def run_one(job, args):
    n, text = job
    with tempfile.TemporaryDirectory() as d:
        src = pathlib.Path(d) / "fuzz.mlir"
        src.write_bytes(text.encode("utf-8", errors="replace"))
        cmd = [args.tilec, "compile", str(src)]
        bundle = csource = None
        if n % 4 == 0:
            bundle = pathlib.Path(d) / "out.tlc"
            cmd += ["-o", str(bundle)]
        elif n % 4 == 3 and n % 7 == 3:
            csource = pathlib.Path(d) / "out.c"
            cmd += ["--emit=c", "-o", str(csource)]
        else:
            cmd += ["--emit=mlir", "-o", os.devnull]
        if n % 8 == 0:
            cmd += ["--remarks", "--debug"]
        if n % 5 == 1:  # the profiler's instrumentation
            cmd += ["--profile"]
        if n % 3 == 2:  # Blackwell's passes too (tcgen05, tensor memory)
            cmd += ["--arch=sm_100a"]
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return n, text, cmd, f"hang (over {args.timeout} s)"
        err = r.stderr.decode("utf-8", errors="replace")
        if r.returncode < 0 or r.returncode > 1 or CRASH.search(err):
            return n, text, cmd, f"crash (exit {r.returncode}): {err[-300:]}"
        if r.returncode == 1:
            if "error:" not in err:
                return n, text, cmd, f"exit 1 without a diagnostic: {err[-300:]}"
            if not LOCATED.search(err) and "tilec: error:" not in err:
                return n, text, cmd, f"an error without a location: {err[-300:]}"
        if r.returncode == 0 and bundle is not None and args.load:
            why = check_loads(bundle, args.timeout)
            if why:
                return n, text, cmd, why
        if r.returncode == 0 and csource is not None and args.cc:
            c = subprocess.run([args.cc, "-std=c99", "-fsyntax-only", "-Wall", "-Werror",
                                "-I" + str(ROOT / "runtime" / "include"), str(csource)],
                               capture_output=True, timeout=args.timeout)
            if c.returncode:
                return n, text, cmd, ("--emit=c output does not compile: " +
                                      c.stderr.decode("utf-8", errors="replace")[-300:])
        return n, text, cmd, None if r.returncode else "compiled"


def check_loads(bundle, timeout):
    """Why the runtime refuses a bundle tilec wrote (exit 0), or None: the
    Python binding loads it in a process of its own (no GPU needed)."""
    probe = ("import sys; sys.path.insert(0, %r); import tilec; "
             "b = tilec.load(sys.argv[1]); [b[k] for k in b]" % str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-c", probe, str(bundle)], capture_output=True,
                       timeout=timeout)
    if r.returncode:
        return ("exit 0, but the runtime refuses the bundle: " +
                r.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1][-300:])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default="tilec")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=0,
                    help="stop after this long (0: no limit)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-load", dest="load", action="store_false",
                    help="do not load the bundles tilec writes in the runtime")
    ap.add_argument("--cc", default=shutil.which("cc") or "",
                    help="C compiler that checks --emit=c output ('' to skip)")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    progs = seeds(args.dirs)
    if not progs:
        print("no seed programs")
        return 1
    rng = random.Random(args.seed)
    jobs = []
    for n in range(args.iterations):
        text = rng.choice(progs)
        for _ in range(rng.randint(1, 3)):
            text = mutate(rng, text, progs)
        jobs.append((n, text))
    start = time.time()
    failures, done, compiled = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, j, args) for j in jobs]
        for f in futures:
            if args.seconds and time.time() - start > args.seconds:
                for g in futures:
                    g.cancel()
                break
            n, text, cmd, why = f.result()
            done += 1
            if why == "compiled":
                compiled += 1
            elif why:
                failures.append((n, text, cmd, why))
    out = pathlib.Path(args.out or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test", "fuzz", "new"))
    for n, text, cmd, why in failures:
        out.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()[:12]
        path = out / f"fuzz-{h}.mlir"
        path.write_text(f"// fuzz.py --seed {args.seed}, mutant {n}: "
                        f"{' '.join(os.path.basename(c) if c.endswith('.mlir') else c for c in cmd[1:])}\n"
                        f"// {why.splitlines()[0] if why else ''}\n" + text,
                        errors="replace")
        print(f"FAIL mutant {n}: {why.splitlines()[0]} -> {path}")
    print(f"fuzz: seed {args.seed}, {done} mutants of {len(progs)} seeds in "
          f"{time.time() - start:.0f} s: {compiled} compiled, "
          f"{done - compiled - len(failures)} rejected with a located "
          f"diagnostic, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
