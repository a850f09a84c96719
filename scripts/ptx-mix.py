#!/usr/bin/env python3
"""Prints the static instruction mix of each kernel in a PTX file.

    scripts/ptx-mix.py FILE.ptx [KERNEL ...]

For every `.entry` (or only those named), one header line `kernel NAME`,
the kernel's `.maxntid`, `.minnctapersm` and `.reqntid` directives, then one
line per opcode (the full dotted opcode, predicates dropped) with how many
times it appears in the kernel's body, sorted by opcode. The GEMM golden
tests (test/examples/golden-*.test) compare this against checked-in files
so that a refactor of the compiler shows every instruction it moves.
Regenerate a golden file with `scripts/update-golden.sh`.
"""
import collections
import re
import sys

ENTRY = re.compile(r"^\s*(?:\.visible\s+)?\.entry\s+([\w$.]+)")
DIRECTIVE = re.compile(r"^\s*(\.maxntid|\.minnctapersm|\.reqntid)\s+([^\n{]*)")
PRED = re.compile(r"^@!?%?\w+\s+")


def mix(text):
    kernels = {}
    name = None
    depth = 0
    counts = None
    directives = None
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if name is None:
            m = ENTRY.match(line)
            if m:
                name = m.group(1)
                counts = collections.Counter()
                directives = []
                depth = 0
                started = False
            continue
        d = DIRECTIVE.match(line)
        if d and depth == 0:
            directives.append(f"{d.group(1)} {' '.join(d.group(2).split())}")
        opened = line.count("{")
        closed = line.count("}")
        if opened:
            started = True
        if depth >= 1 and line and not line.startswith((".", "$", "{", "}")):
            stmt = PRED.sub("", line)
            op = stmt.split(None, 1)[0].rstrip(";")
            if op and not op.endswith(":"):
                counts[op] += 1
        depth += opened - closed
        if started and depth == 0:
            kernels[name] = (directives, counts)
            name = None
    return kernels


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        kernels = mix(f.read())
    wanted = argv[2:] or sorted(kernels)
    for k in wanted:
        if k not in kernels:
            sys.stderr.write(f"ptx-mix: no kernel {k} in {argv[1]}\n")
            return 1
        directives, counts = kernels[k]
        print(f"kernel {k}")
        for d in directives:
            print(f"  {d}")
        for op in sorted(counts):
            print(f"  {op} {counts[op]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
