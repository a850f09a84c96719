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
#include "tilec/Dialect/TGPU/Transforms/SharedMemoryPlan.h"

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
                                     tgpu::SharedBufferType extra,
                                     Operation *without) {
  SmallVector<tgpu::SharedBufferType> slots;
  for (auto load : loop.getBody()->getOps<LoadOp>())
    if (std::optional<tgpu::TMASlot> slot = tgpu::getTMASlot(load))
      slots.push_back(slot->type);
  if (slots.empty())
    return 0;
  // The ring is in use to the loop's end, or for good where an async MMA
  // reads it (SharedMemoryLiveness's rule for wgmma and tcgen05).
  bool async = llvm::any_of(loop.getBody()->getOps<DotOp>(), [](DotOp dot) {
    tgpu::MMAAttr mma = tgpu::getMMA(dot);
    return mma && mma.isAsync();
  });
  int64_t most = TargetInfo::of(func).sharedMemoryPerBlock(func);
  auto fits = [&](int64_t stages) {
    // What tile-pipeline makes of a stages-deep ring: a buffer of that
    // many slots a load, first in the kernel, and a full and an empty
    // barrier a slot.
    SharedMemoryPlan plan(func);
    int64_t lastUse =
        async ? SharedMemoryLiveness::kForever : plan.liveness().end(loop);
    if (extra)
      plan.addBuffer(extra, plan.liveness().end(loop), 1, /*first=*/false);
    for (tgpu::SharedBufferType slot : llvm::reverse(slots))
      plan.addBuffer(slot.withNumSlots(stages), lastUse);
    plan.addBarriers(stages);
    plan.addBarriers(stages);
    if (without)
      plan.dropScratch(without);
    return plan.bytes() <= most;
  };
  // Rings deeper than any a kernel asks for do not pay.
  int64_t stages = 0;
  while (stages < kMaxPipelineStages && fits(stages + 1))
    ++stages;
  return stages;
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
