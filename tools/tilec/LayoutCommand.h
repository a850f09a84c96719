//===- LayoutCommand.h - tilec layout ---------------------------*- C++ -*-===//

#ifndef TILEC_TOOLS_TILEC_LAYOUTCOMMAND_H
#define TILEC_TOOLS_TILEC_LAYOUTCOMMAND_H

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace tilec {

/// `tilec layout ...` with the arguments after "layout"; returns the exit
/// code (1 with a message for bad input).
int runLayoutCommand(llvm::ArrayRef<std::string> args);

} // namespace tilec

#endif // TILEC_TOOLS_TILEC_LAYOUTCOMMAND_H
