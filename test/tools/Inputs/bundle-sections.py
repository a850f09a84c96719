"""Prints a .tlc bundle's container (docs/BUNDLE.md) for FileCheck: the
format version, then per section its tag and, for code sections, the
module index and the kernels (.entry) a PTX section defines; then each
kernel's `module` line of the metadata."""
import re
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic, version, count = data[:8], *struct.unpack_from("<II", data, 8)
print(f"magic {magic.decode()} version {version} sections {count}")
off, seen = 16, {}
for _ in range(count):
    tag = data[off:off + 4].decode()
    (size,) = struct.unpack_from("<Q", data, off + 8)
    body = data[off + 16:off + 16 + size]
    index = seen.get(tag, 0)
    seen[tag] = index + 1
    if tag == "PTX ":
        entries = re.findall(rb"\.entry (\w+)\(", body)
        funcs = sorted(set(re.findall(rb"\.func\s+(?:\([^)]*\)\s*)?(\w+)\(", body)))
        print(f"PTX module {index}: " + " ".join(e.decode() for e in entries)
              + (" funcs: " + " ".join(f.decode() for f in funcs) if funcs else ""))
    elif tag == "CUBN":
        if size == 0:  # format version 3: the module is PTX only
            print(f"CUBN module {index}: empty")
        else:
            elf = body[:4] == b"\x7fELF"
            print(f"CUBN module {index}: ELF {elf}")
    else:
        print(f"{tag}: {size} bytes")
        meta = body.decode()
    off += 16 + size
    off += -off % 8
kernel = None
for line in meta.splitlines():
    if line.startswith("kernel "):
        kernel, module = line.split()[1], 0
    elif line.startswith("module "):
        module = int(line.split()[1])
    elif line == "end":
        print(f"kernel {kernel} in module {module}")
