#!/usr/bin/env python3
"""Prints the static instruction mix of each kernel in a PTX file.

    scripts/ptx-mix.py FILE.ptx [--ops REGEX] [KERNEL ...]

For every `.entry` (or only those named), one header line `kernel NAME`,
the kernel's launch directives (`.maxntid`, `.minnctapersm`, `.reqntid`,
`.explicitcluster`, `.reqnctapercluster`), then one line per opcode (the
full dotted opcode, predicates dropped) with how many times it appears in
the kernel's body, sorted by opcode.

With --ops, only the directives and instructions that REGEX finds (re.search)
are printed, count first, and an instruction with an integer literal among
its operands is told apart by them: each literal as it is, any other
operand (a register, an address, a vector) as `_`. So
`4 wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 _, _, _, 1, 1, 1, 0, 1`
is four MMAs with those scale and transpose immediates, and
`1 setmaxnreg.inc.sync.aligned.u32 232` a register budget; an empty line
ends each kernel (FileCheck's CHECK-EMPTY). The GEMM tests
(test/examples/gemm-kernels.test) check such a filtered mix of every kernel
with FileCheck: counts that do not depend on how LLVM lays the blocks out.
"""
import collections
import re
import sys

ENTRY = re.compile(r"^\s*(?:\.visible\s+)?\.entry\s+([\w$.]+)")
DIRECTIVE = re.compile(
    r"^\s*(\.maxntid|\.minnctapersm|\.reqntid|\.explicitcluster|\.reqnctapercluster)\b\s*([^\n{]*)")
PRED = re.compile(r"^@!?%?\w+\s+")
INT = re.compile(r"^-?(?:0[xX][0-9a-fA-F]+|\d+)$")


def operands(text):
    """The top-level operands of an instruction, integer literals kept."""
    text = text.strip().rstrip(";").strip()
    ops, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ", ".join(o if INT.match(o) else "_" for o in ops)


def mix(text, with_operands=False):
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
            directives.append(" ".join(f"{d.group(1)} {' '.join(d.group(2).split())}".split()))
        opened = line.count("{")
        closed = line.count("}")
        if opened:
            started = True
        if depth >= 1 and line and not line.startswith((".", "$", "{", "}")):
            stmt = PRED.sub("", line)
            parts = stmt.split(None, 1)
            op = parts[0].rstrip(";")
            if op and not op.endswith(":"):
                shape = operands(parts[1]) if with_operands and len(parts) > 1 else ""
                if re.search(r"[^_, ]", shape):
                    op = f"{op} {shape}"
                counts[op] += 1
        depth += opened - closed
        if started and depth == 0:
            kernels[name] = (directives, counts)
            name = None
    return kernels


def main(argv):
    args = argv[1:]
    ops = None
    if "--ops" in args:
        i = args.index("--ops")
        if i + 1 >= len(args):
            sys.stderr.write(__doc__)
            return 2
        ops = re.compile(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    with open(args[0]) as f:
        kernels = mix(f.read(), with_operands=ops is not None)
    wanted = args[1:] or sorted(kernels)
    for k in wanted:
        if k not in kernels:
            sys.stderr.write(f"ptx-mix: no kernel {k} in {args[0]}\n")
            return 1
        directives, counts = kernels[k]
        print(f"kernel {k}")
        for d in directives:
            if ops is None or ops.search(d):
                print(f"  {d}")
        for op in sorted(counts):
            if ops is None:
                print(f"  {op} {counts[op]}")
            elif ops.search(op):
                print(f"  {counts[op]} {op}")
        if ops is not None:
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
