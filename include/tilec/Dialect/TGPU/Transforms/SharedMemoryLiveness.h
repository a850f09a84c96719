//===- SharedMemoryLiveness.h - where shared buffers are in use -*- C++ -*-===//
//
// Where in a kernel each shared-memory buffer (tgpu.alloc) may be in use,
// in program order, so that the scratch of a layout conversion or a
// reduction can take the bytes of buffers that are dead by then (the plain
// twin's O epilogue takes those of the K and V rings). See
// docs/ARCHITECTURE.md, "Shared memory".
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TRANSFORMS_SHAREDMEMORYLIVENESS_H
#define TILEC_TRANSFORMS_SHAREDMEMORYLIVENESS_H

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <limits>

namespace tilec {

class SharedMemoryLiveness {
public:
  /// Numbers the ops under `root` in program order (pre-order: an op
  /// before the ops of its regions, an scf.if's then-ops before its
  /// else-ops).
  explicit SharedMemoryLiveness(mlir::Operation *root);

  /// `op`'s place in that order.
  int64_t position(mlir::Operation *op) const { return spans.lookup(op).first; }
  /// The place of the last op inside `op` (its own without regions).
  int64_t end(mlir::Operation *op) const { return spans.lookup(op).second; }

  /// The last place at which `alloc`'s buffer may be read or written:
  /// - a use inside a loop that does not hold the alloc counts as the
  ///   loop's end (the next iteration uses it again);
  /// - a TMA copy into it lasts until the last op of its barriers (the
  ///   waits that see its bytes land);
  /// - kForever where an asynchronous reader may still read it after its
  ///   op (a TMA store, wgmma, tcgen05.mma), where it leaves through a
  ///   region's boundary (an scf.yield, a region argument) or where it is
  ///   made in a loop.
  /// The scratch of an op placed after it (lastUse < position(op)) may take
  /// the buffer's bytes: every op that uses scratch starts with a barrier
  /// of all its threads before it writes scratch, so the buffer's last
  /// readers are done by then.
  int64_t lastUse(tgpu::AllocOp alloc) const { return lastUse(alloc.getResult()); }
  /// The same for any buffer: a tgpu.alloc's or a tgpu.channel's (the
  /// ring tile-pipeline makes of it, used where the channel's buffer is).
  int64_t lastUse(mlir::Value buffer) const;

  static constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

private:
  /// The end of `user`, or of the outermost loop around it that does not
  /// hold `alloc`.
  int64_t extent(mlir::Operation *user, mlir::Operation *def) const;

  llvm::DenseMap<mlir::Operation *, std::pair<int64_t, int64_t>> spans;
};

} // namespace tilec

#endif // TILEC_TRANSFORMS_SHAREDMEMORYLIVENESS_H
