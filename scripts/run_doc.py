#!/usr/bin/env python3
"""Runs the code blocks of a Markdown document (docs/TUTORIAL.md) as written.

A fenced block's info string says what to do with it:
  ```mlir file=NAME      written to NAME in the work directory
  ```sh run              run by bash (-e) in the work directory
  ```python run          run by python3 in the work directory
  ... gpu                (after run) needs a CUDA GPU: run only in the gpu phase
Other blocks (output shown for reading, say) are not run.

    run_doc.py DOC --work DIR --phase cpu   # files, and every block without gpu
    run_doc.py DOC --work DIR --phase gpu   # files, and the gpu blocks
    run_doc.py DOC --work DIR --phase all   # files, and every block in order

The cpu phase needs the compiler (build/bin/tilec or tilec on PATH); the gpu
phase can run on a machine without it, in a work directory the cpu phase
filled (its bundles). Each block's output is printed under a header; the
exit status is 1 at the first block that fails.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```(\S*)(.*)$")


def blocks(text):
    """(line number, language, set of words, {key: value}, body) per block."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start, lang, rest = i + 1, m.group(1), m.group(2).split()
        words = {w for w in rest if "=" not in w}
        keys = dict(w.split("=", 1) for w in rest if "=" in w)
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit("%d: unterminated code block" % start)
        out.append((start, lang, words, keys, "\n".join(body) + "\n"))
        i += 1
    return out


def environment():
    env = dict(os.environ)
    env["PATH"] = os.path.join(ROOT, "build", "bin") + os.pathsep + env.get("PATH", "")
    paths = [os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("doc")
    ap.add_argument("--work", required=True)
    ap.add_argument("--phase", choices=("cpu", "gpu", "all"), default="all")
    args = ap.parse_args()
    doc = os.path.abspath(args.doc)
    os.makedirs(args.work, exist_ok=True)
    env = environment()
    ran = skipped = 0
    for line, lang, words, keys, body in blocks(open(doc).read()):
        where = "%s:%d" % (os.path.relpath(doc), line)
        if "file" in keys:
            with open(os.path.join(args.work, keys["file"]), "w") as f:
                f.write(body)
            continue
        if "run" not in words:
            continue
        gpu = "gpu" in words
        if (args.phase == "cpu" and gpu) or (args.phase == "gpu" and not gpu):
            skipped += 1
            continue
        if lang == "sh":
            cmd = ["bash", "-e", "-c", body]
        elif lang == "python":
            cmd = [sys.executable, "-c", body]
        else:
            raise SystemExit("%s: cannot run a '%s' block" % (where, lang))
        print("== %s (%s%s)" % (where, lang, ", gpu" if gpu else ""), flush=True)
        r = subprocess.run(cmd, cwd=args.work, env=env)
        if r.returncode != 0:
            print("run_doc: %s failed (exit %d)" % (where, r.returncode), flush=True)
            return 1
        ran += 1
    print("run_doc: %d blocks ran, %d left to the other phase" % (ran, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
