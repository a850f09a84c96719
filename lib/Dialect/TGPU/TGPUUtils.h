//===- TGPUUtils.h - shared by the tgpu dialect's files ---------*- C++ -*-===//

#ifndef TILEC_LIB_DIALECT_TGPU_TGPUUTILS_H
#define TILEC_LIB_DIALECT_TGPU_TGPUUTILS_H

#include "mlir/IR/Types.h"

#include <algorithm>

namespace tilec::tgpu {

/// Bits an element of type `t` takes in memory (at least a byte).
inline unsigned bitsOf(mlir::Type t) {
  return std::max(8u, t.getIntOrFloatBitWidth());
}

} // namespace tilec::tgpu

#endif // TILEC_LIB_DIALECT_TGPU_TGPUUTILS_H
