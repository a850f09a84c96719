//===- TileAllocateSharedMemory.cpp - offsets in shared memory ------------===//
//
// The tile-allocate-shared-memory pass, the last before lowering: it lays
// out each kernel's dynamic shared memory and records the layout in the
// IR, so the lowering only reads it. The layout is SharedMemoryPlan's
// (the passes that size rings before this one ask it too):
//
//   buffers (tgpu.alloc), 1024-byte aligned, in program order (then those
//   of a smaller alignment: cluster-launch-control responses)
//   barriers (tgpu.barriers), 8 bytes each, packed after them
//   the tensor-memory address word (tgpu.tensor_memory), 8 bytes
//   scratch, 128-byte aligned: layout conversions and reductions
//
// A buffer inside a region of a tgpu.warp_specialize whose partition runs
// N copies gets N places, one a copy, in the order the lowering lays the
// copies out (a region's buffers copy by copy):
//
//   %slots = tgpu.alloc offset [98304, 131072] : !tgpu.smem<2x128x64xbf16, ...>
//
// In a kernel with a tgpu.warp_specialize, scratch is one area after the
// barriers for the code outside the regions; each group of warps that runs
// a compute partition (each copy) takes its own part of it, recorded as
// the op's `scratch` shifts (a group a region copy; a load partition's only
// where its region writes scratch, as a reduction in the code before the
// main loop, which every region runs). The kernel records where scratch starts,
// `tgpu.scratch_offset`.
//
// In a kernel without one, each op that needs scratch gets its own
// `tgpu.scratch_offset`: the lowest 128-byte aligned place that overlaps
// neither the barriers nor a buffer that may still be in use at the op
// (SharedMemoryLiveness; every such op starts with a barrier of all
// threads before it writes scratch). The plain twin's O epilogue thus
// converts in the bytes of its dead K and V rings:
//
//   %o = tile.convert_layout %acc {tgpu.scratch_offset = 0 : i64} : ...
//
// The kernel records the bytes it needs in all, `tile.shared_memory`;
// more than a block can have is an error here, not at launch.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/TGPU/Transforms/SharedMemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "tile-allocate-shared-memory"

namespace tilec {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORY
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

struct TileAllocateSharedMemory
    : public tilec::impl::TileAllocateSharedMemoryBase<
          TileAllocateSharedMemory> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(allocate(func)))
        return signalPassFailure();
  }

  /// A staged tile (tgpu.local_stage) lives in scratch until the next op
  /// that writes scratch: none may stand between it and its readers.
  static LogicalResult checkStages(func::FuncOp func) {
    WalkResult r = func.walk([&](tgpu::LocalStageOp stage) {
      SmallVector<Value> views = {stage.getResult()};
      while (!views.empty())
        for (Operation *user : views.pop_back_val().getUsers()) {
          if (isa<tgpu::TransposeOp>(user))
            views.push_back(user->getResult(0));
          Operation *at = stage->getBlock()->findAncestorOpInBlock(*user);
          if (!at || !stage->isBeforeInBlock(at)) {
            user->emitError() << "reads a staged tile outside the block "
                                 "after its stage";
            return WalkResult::interrupt();
          }
          for (Operation *op = stage->getNextNode(); op != at;
               op = op->getNextNode())
            if (tgpu::writesScratch(op)) {
              op->emitError() << "writes scratch while a staged tile in it "
                                 "is still to be read";
              return WalkResult::interrupt();
            }
        }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  /// Records SharedMemoryPlan's layout of `func`; more than a block can
  /// have is an error.
  LogicalResult allocate(func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    if (failed(checkStages(func)))
      return failure();
    SharedMemoryPlan::Layout layout = SharedMemoryPlan(func).layout();
    for (auto &[op, places] : layout.offsets) {
      if (auto alloc = dyn_cast<tgpu::AllocOp>(op))
        alloc.setOffset(places);
      else
        cast<tgpu::BarriersOp>(op).setOffset(places);
    }
    if (auto tm = func->getAttrOfType<tgpu::TensorMemoryAttr>(
            tgpu::kTensorMemoryAttr))
      func->setAttr(tgpu::kTensorMemoryAttr,
                    tgpu::TensorMemoryAttr::get(ctx, tm.getColumns(),
                                                tm.getCtaGroup(),
                                                *layout.tensorMemoryWord));
    Builder b(ctx);
    for (auto &[op, offset] : layout.scratch)
      op->setAttr(tgpu::kScratchOffsetAttr, b.getI64IntegerAttr(offset));
    // With warp specialization: each group's part of the area (a group a
    // region copy of a partition that takes scratch, compute groups first,
    // so their parts stay where they were; others 0: they write none).
    int groups = 0;
    func.walk([&](tgpu::WarpSpecializeOp ws) {
      SmallVector<int64_t> shifts;
      for (Attribute a : ws.getPartitions())
        shifts.append(cast<tgpu::PartitionAttr>(a).getCopies(), 0);
      // Compute groups first, then the others that take scratch.
      for (bool compute : {true, false}) {
        unsigned at = 0;
        for (auto [i, a] : llvm::enumerate(ws.getPartitions())) {
          auto p = cast<tgpu::PartitionAttr>(a);
          bool isCompute = p.getRole() == tgpu::PartitionRole::Compute;
          for (int c = 0; c < p.getCopies(); ++c, ++at)
            if (isCompute == compute && tgpu::partitionTakesScratch(ws, i))
              shifts[at] = layout.groupScratch * groups++;
        }
      }
      ws.setScratch(shifts);
    });
    if (layout.scratchStart)
      func->setAttr(tgpu::kScratchOffsetAttr,
                    b.getI64IntegerAttr(*layout.scratchStart));

    int64_t most = TargetInfo::of(func).sharedMemoryPerBlock(func);
    if (layout.bytes > most)
      return func.emitError() << "needs " << layout.bytes
                              << " bytes of shared memory, more than the "
                              << most << " a block can have";
    func->setAttr(tile::kSharedMemoryAttr, b.getI64IntegerAttr(layout.bytes));
    return success();
  }
};

} // namespace
