//===- TilePipelineSchedule.cpp - stages for classic pipelining ----------===//
//
// The tile-pipeline-schedule pass. In a kernel's top-level loop that is not
// warp-specialized, loads that TMA can issue iterations ahead go to stage 0
// (cluster 0), the rest of the body to stage N - 1 (cluster 1):
//
//   scf.for %k ... {
//     %a = tile.load %A[%m, %k] {tile.pipeline.stage = 0, .cluster = 0}
//     %d = tile.dot ...         {tile.pipeline.stage = 2, .cluster = 1}
//   } {tile.pipeline.num_stages = 3}
//
// tile-pipeline expands the schedule; keeping it in attributes lets each
// step be tested alone.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/TGPU/Transforms/SharedMemoryLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPIPELINESCHEDULE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Bytes of one stage: a slot for each TMA-copied load of `loop`.
int64_t stageBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (auto load : loop.getBody()->getOps<LoadOp>())
    if (std::optional<tgpu::TMASlot> slot = tgpu::getTMASlot(load))
      bytes += slot->type.getSlotStride();
  return bytes;
}

} // namespace

int64_t tilec::pipelineStagesThatFit(func::FuncOp func, scf::ForOp loop,
                                     int64_t extraBytes, Operation *without) {
  int64_t stage = stageBytes(loop);
  if (!stage)
    return 0;
  // Beside the barriers (1024), the kernel's own buffers (the plain twin's
  // loop-invariant operand) and the scratch of the ops up to the loop's
  // end. tile-allocate-shared-memory puts the scratch of an op after the
  // loop and after every buffer's last use (the O epilogue's) where the
  // buffers and the ring were, when it fits there.
  SharedMemoryLiveness live(func);
  // The last place the loop's ring or any buffer may be in use.
  int64_t lastUse = live.end(loop), buffers = extraBytes;
  func.walk([&](tgpu::AllocOp alloc) {
    buffers += llvm::alignTo(alloc.getType().getTotalBytes(),
                             alloc.getType().getAlignment());
    lastUse = std::max(lastUse, live.lastUse(alloc));
  });
  int64_t during = 0, after = 0;
  func.walk([&](Operation *op) {
    int64_t bytes = op == without ? 0 : getScratchBytes(op);
    int64_t &most = live.position(op) > lastUse ? after : during;
    most = std::max(most, bytes);
  });
  int64_t room = TargetInfo::of(func).sharedMemoryPerBlock() - 1024 - buffers;
  int64_t stages = (room - during) / stage;
  if (after > buffers + stages * stage)
    stages = (room - std::max(during, after)) / stage;
  return std::max<int64_t>(stages, 0);
}

namespace {

struct TilePipelineSchedule
    : public tilec::impl::TilePipelineScheduleBase<TilePipelineSchedule> {
  using Base::Base;

  void runOnOperation() override {
    // A ring needs two slots to overlap anything.
    if (maxStages < 2) {
      getOperation().emitError()
          << "tile-pipeline-schedule: max-stages is at least 2, found " << int(maxStages);
      return signalPassFailure();
    }
    if (!TargetInfo::of(getOperation()).tma)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal() ||
          !func.getBody().front().getOps<tgpu::WarpSpecializeOp>().empty())
        continue;
      for (auto loop : func.getBody().front().getOps<scf::ForOp>())
        schedule(func, loop);
    }
  }

  void schedule(func::FuncOp func, scf::ForOp loop) {
    // The loads tile-select-mma-and-tma planned TMA copies for (it said why
    // about the others).
    SmallVector<LoadOp> loads;
    for (auto load : loop.getBody()->getOps<LoadOp>())
      if (tgpu::getTMACopy(load))
        loads.push_back(load);
    if (loads.empty())
      return;
    int64_t stages =
        std::min<int64_t>(maxStages, pipelineStagesThatFit(func, loop));
    if (auto a = func->getAttrOfType<IntegerAttr>(kNumStagesAttr))
      stages = a.getInt();
    if (stages < 2) {
      mlir::emitRemark(loop.getLoc())
          << "loop not pipelined: a " << stageBytes(loop)
          << "-byte stage leaves room for fewer than 2";
      return;
    }
    // Stage 0: the loads and the scalar code only they use.
    DenseSet<Operation *> early(loads.begin(), loads.end());
    for (Operation &op : llvm::reverse(loop.getBody()->without_terminator()))
      if (!isa<LoadOp>(op) && !op.use_empty() &&
          llvm::all_of(op.getUsers(),
                       [&](Operation *u) { return early.contains(u); }))
        early.insert(&op);
    Builder b(&getContext());
    for (Operation &op : loop.getBody()->without_terminator()) {
      bool first = early.contains(&op);
      op.setAttr(kPipelineStageAttr, b.getI32IntegerAttr(first ? 0 : stages - 1));
      op.setAttr(kPipelineClusterAttr, b.getI32IntegerAttr(first ? 0 : 1));
    }
    loop->setAttr(kPipelineStagesAttr, b.getI32IntegerAttr(stages));
  }
};
} // namespace
