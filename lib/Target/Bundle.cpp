//===- Bundle.cpp - the .tlc container ------------------------------------===//

#include "tilec/Target/Target.h"

using namespace tilec;

static void appendLE(std::string &out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff));
}

static void appendSection(std::string &out, llvm::StringRef tag,
                          llvm::StringRef payload) {
  out.append(tag.data(), 4);
  appendLE(out, 0, 4);
  appendLE(out, payload.size(), 8);
  out.append(payload.data(), payload.size());
  while (out.size() % 8)
    out.push_back('\0');
}

std::string tilec::writeBundle(llvm::StringRef metadata, llvm::StringRef cubin,
                               llvm::StringRef ptx) {
  std::string out = "TILECBN1";
  appendLE(out, 1, 4);
  appendLE(out, 1 + !cubin.empty() + !ptx.empty(), 4);
  appendSection(out, "META", metadata);
  if (!cubin.empty())
    appendSection(out, "CUBN", cubin);
  if (!ptx.empty())
    appendSection(out, "PTX ", ptx);
  return out;
}
