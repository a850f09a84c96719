//===- SharedMemoryPlan.h - a kernel's shared memory, laid out -*- C++ -*-===//
//
// Where each buffer, barrier array and scratch area of a kernel goes in its
// dynamic shared memory, and the bytes in all. tile-allocate-shared-memory
// records the layout; the passes that size rings before it (tile-pipeline-
// schedule, tile-pipeline, tile-plain-twin) ask the same code what the
// kernel would take with the rings they are about to make:
//
//   SharedMemoryPlan plan(func, /*openDepth=*/4);  // open channels at 4
//   if (plan.bytes() <= target.sharedMemoryPerBlock()) ...
//
// A tgpu.channel counts as what tile-pipeline lowers it to: a ring of
// depth slots for each of its shared buffers (where the channel is, in
// program order) and a full and an empty barrier array of depth barriers.
// The layout is the allocator's:
//
//   buffers, 1024-byte aligned ones first, in program order (a buffer in a
//   region of N copies N times, a region's buffers copy by copy)
//   barriers, 8 bytes each
//   the tensor-memory address word (a kernel with tensor memory), 8 bytes
//   scratch, 128-byte aligned: with warp specialization one area, a part a
//   compute group; without, each op's at the lowest place no buffer in use
//   at it (SharedMemoryLiveness) and no barrier takes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TGPU_TRANSFORMS_SHAREDMEMORYPLAN_H
#define TILEC_DIALECT_TGPU_TRANSFORMS_SHAREDMEMORYPLAN_H

#include "tilec/Dialect/TGPU/Transforms/SharedMemoryLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec {

class SharedMemoryPlan {
public:
  /// `func` as it stands, with the channels whose depth is open at
  /// `openDepth` (none where 0).
  explicit SharedMemoryPlan(mlir::func::FuncOp func, int64_t openDepth = 0);

  /// A buffer the kernel does not have yet, `copies` times, in use up to
  /// `lastUse` (a place in liveness()'s order; SharedMemoryLiveness::
  /// kForever if it outlives every op): first in program order (where
  /// tile-pipeline puts a ring) or last.
  void addBuffer(tgpu::SharedBufferType type, int64_t lastUse,
                 int64_t copies = 1, bool first = true);
  /// An array of `count` barriers the kernel does not have yet.
  void addBarriers(int64_t count);
  /// Plans without `op`'s scratch (an op about to go).
  void dropScratch(mlir::Operation *op) { dropped.insert(op); }
  /// Plans `func` as warp-specialized into `groups` compute groups (the
  /// plain twin before tile-warp-specialize makes its regions).
  void specialize(int64_t groups) { computeGroups = groups; }

  const SharedMemoryLiveness &liveness() const { return live; }

  /// Where everything goes.
  struct Layout {
    /// Each tgpu.alloc's and tgpu.barriers' offsets, one a region copy.
    llvm::DenseMap<mlir::Operation *, llvm::SmallVector<int64_t>> offsets;
    /// The tensor-memory word's offset (a kernel with tensor memory).
    std::optional<int64_t> tensorMemoryWord;
    /// Without warp specialization: each op's scratch offset.
    llvm::DenseMap<mlir::Operation *, int64_t> scratch;
    /// With it: where scratch starts (none where it starts at 0) and the
    /// shift of each compute group's part.
    std::optional<int64_t> scratchStart;
    int64_t groupScratch = 0;
    /// The bytes in all.
    int64_t bytes = 0;
  };
  Layout layout() const;
  int64_t bytes() const { return layout().bytes; }

private:
  struct Item {
    mlir::Operation *op; // null for a buffer the IR does not have yet
    unsigned copy;
    int64_t bytes, alignment;
    bool barriers;
    int64_t lastUse;
  };
  void collect(mlir::Region &region, unsigned copy);

  mutable mlir::func::FuncOp func; // (walked in layout())
  int64_t openDepth;
  SharedMemoryLiveness live;
  llvm::SmallVector<Item> items;
  llvm::DenseSet<mlir::Operation *> dropped;
  std::optional<int64_t> computeGroups;
  bool tensorMemory = false;
};

} // namespace tilec

#endif // TILEC_DIALECT_TGPU_TRANSFORMS_SHAREDMEMORYPLAN_H
