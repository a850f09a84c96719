"""Test helpers: build bundles (docs/BUNDLE.md) in memory."""

import struct

FAKE_CUBIN = b"FAKECUBN" + b"\x7f" * 24


def build_bundle(meta=None, cubin=FAKE_CUBIN, ptx=None, sections=None, version=1,
                 magic=b"TILECBN1"):
    """A bundle file as bytes; `sections` (list of (tag, payload)) overrides."""
    if sections is None:
        sections = [(b"META", meta.encode() if isinstance(meta, str) else meta)]
        if cubin:
            sections.append((b"CUBN", cubin))
        if ptx:
            sections.append((b"PTX ", ptx.encode() if isinstance(ptx, str) else ptx))
    out = bytearray(magic + struct.pack("<II", version, len(sections)))
    for tag, payload in sections:
        out += tag.ljust(4, b" ")[:4] + struct.pack("<IQ", 0, len(payload)) + payload
        out += b"\0" * (-len(out) % 8)
    return bytes(out)


VECTOR_ADD = """tilec-bundle 1
arch sm_90a
kernel vector_add
threads 128
smem 0
cluster 1 1 1
grid cdiv(dim(0,0),1024) 1 1
param tensor x f32 1 shape ? strides 1 align 16
param tensor y f32 1 shape ? strides 1 align 16
param tensor out f32 1 shape ? strides 1 align 16
param scalar alpha f32
end
"""

GEMM = """tilec-bundle 1
arch sm_90a
kernel gemm
threads 384
smem 200000
cluster 2 1 1
grid mul(cdiv(dim(0,0),128),2) cdiv(dim(1,1),256) 1
param tensor a bf16 2 shape ? 4096 strides ? 1 align 128 tma 64 64 swizzle 128 fill zero
param tensor b bf16 2 shape 4096 ? strides ? 1 align 16 tma 128 64 swizzle 128 fill nan
param tensor c f32 2 shape ? ? strides ? ? align 16
param scalar k i32
param scalar alpha bf16
end
kernel tiny
threads 32
grid arg(0) 1 1
param scalar n i64
end
"""


# A kernel with a tile-shape variant (autotuning tests).
FAMILY = """tilec-bundle 1
arch sm_90a
kernel t
threads 384
variant t__small
cost mul(cdiv(cdiv(dim(0,0),256),sms),4)
grid min(sms,cdiv(dim(0,0),256)) 1 1
param tensor x f32 2 shape ? ? strides ? 1 align 16
end
kernel t__small
threads 384
cost mul(cdiv(cdiv(dim(0,0),128),sms),3)
grid min(sms,cdiv(dim(0,0),128)) 1 1
param tensor x f32 2 shape ? ? strides ? 1 align 16
end
"""
