#!/usr/bin/env python3
"""Prints one function of an MLIR file with its value names normalized.

    scripts/ir-golden.py FILE.mlir FUNC

The function and the attribute aliases it uses; SSA names (%12, %arg3,
%c128_i32) become %_ and locations are dropped, so
that the golden IR tests (test/examples/golden-*.test) show what a change
of the compiler does to the ops, their order, types and attributes, and
not how values happen to be numbered.
"""
import re
import sys

SSA = re.compile(r"%[A-Za-z0-9_$.]+(?:#\d+)?")
LOC = re.compile(r"\s*loc\([^()]*(?:\([^()]*\)[^()]*)*\)")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    lines = open(argv[1]).read().splitlines()
    start = re.compile(r"^\s*func\.func @" + re.escape(argv[2]) + r"\(")
    out = None
    indent = 0
    for line in lines:
        if out is None:
            if start.match(line):
                out = []
                indent = len(line) - len(line.lstrip())
            else:
                continue
        text = SSA.sub("%_", LOC.sub("", line)).rstrip()
        out.append(text[indent:] if text[:indent].isspace() else text.lstrip())
        if line.rstrip() == " " * indent + "}":
            break
    if out is None:
        sys.stderr.write(f"ir-golden: no function @{argv[2]} in {argv[1]}\n")
        return 1
    # The attribute aliases (#shared, #linear3, ...) the function uses.
    body = "\n".join(out)
    aliases = [l for l in lines if re.match(r"^#[\w.]+ = ", l)
               and re.search(re.escape(l.split(" = ")[0]) + r"\b", body)]
    print("\n".join(aliases + out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
