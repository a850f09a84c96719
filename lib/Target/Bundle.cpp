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

std::string tilec::writeBundle(llvm::StringRef metadata,
                               llvm::ArrayRef<CodeModule> modules) {
  // Version 2: the code sections repeat, one CUBN and one 'PTX ' per module.
  // Version 3: as 2, with an empty CUBN for a module carried as PTX alone
  // (lazy kernels). A bundle of one module is written as version 1, as it
  // always was.
  bool anyCubin = false, ptxOnly = false;
  for (const CodeModule &m : modules) {
    anyCubin |= !m.cubin.empty();
    ptxOnly |= m.cubin.empty() && !m.ptx.empty();
  }
  bool emptyCubins = anyCubin && ptxOnly;
  std::string out = "TILECBN1";
  appendLE(out, emptyCubins ? 3 : modules.size() > 1 ? 2 : 1, 4);
  uint32_t sections = 1;
  for (const CodeModule &m : modules)
    sections += (emptyCubins || !m.cubin.empty()) + !m.ptx.empty();
  appendLE(out, sections, 4);
  appendSection(out, "META", metadata);
  for (const CodeModule &m : modules) {
    if (emptyCubins || !m.cubin.empty())
      appendSection(out, "CUBN", m.cubin);
    if (!m.ptx.empty())
      appendSection(out, "PTX ", m.ptx);
  }
  return out;
}
