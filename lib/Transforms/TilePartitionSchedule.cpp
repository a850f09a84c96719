//===- TilePartitionSchedule.cpp - which partition runs each op -----------===//
//
// The tile-partition-schedule pass: the first of the warp-specialization
// steps. For a kernel's top-level loop with a dot convert-tile-to-tgpu
// selected wgmma for, it lists the loop's partitions and gives every op of
// the body the partitions that run it, by what the op is, not by matching
// the loop's shape:
//
//   scf.for ... {
//     %k2 = arith.addi %k, %c64        {tgpu.partition = array<i32: 0>}
//     %a = tile.load %A[%m, %k2] {tgpu.tma = ...}
//                                      {tgpu.partition = array<i32: 0>}
//     %d = tile.dot %a', %b', %acc     {tgpu.partition = array<i32: 1>}
//     %s = arith.mulf %d, ...          {tgpu.partition = array<i32: 1>}
//   } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
//
// TMA copies (loads with tgpu.tma, those before the loop too) go to the
// load partition (0); MMAs and everything else to the compute partition
// (1); side-effect-free scalar code goes to every partition that uses its
// result (the index arithmetic of the copies to the load partition; code
// both need to both, each partition computing its own copy). Later steps insert a channel on every
// value that crosses partitions and build the warp-specialized regions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <set>

#define DEBUG_TYPE "tile-partition-schedule"

namespace tilec {
#define GEN_PASS_DEF_TILEPARTITIONSCHEDULE
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

constexpr int32_t kLoadPartition = 0;
constexpr int32_t kComputePartition = 1;

struct TilePartitionSchedule
    : public tilec::impl::TilePartitionScheduleBase<TilePartitionSchedule> {
  using Base::Base;

  void runOnOperation() override {
    if (!hasWGMMA(getTarget(getOperation())))
      return;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      for (auto loop : func.getBody().front().getOps<scf::ForOp>()) {
        bool hasWGMMA = false;
        loop.getBody()->walk([&](DotOp dot) {
          hasWGMMA |= tgpu::getMMA(dot).isWGMMA();
        });
        if (hasWGMMA)
          schedule(loop);
      }
    }
  }

  void schedule(scf::ForOp loop) {
    MLIRContext *ctx = &getContext();
    Block *body = loop.getBody();
    llvm::DenseMap<Operation *, std::set<int32_t>> parts;
    // Users first: walk the body backwards so that scalar code sees the
    // partitions of everything that uses it.
    for (Operation &op : llvm::reverse(body->without_terminator())) {
      std::set<int32_t> &p = parts[&op];
      auto load = dyn_cast<LoadOp>(op);
      if (load && tgpu::getTMACopy(load)) {
        p.insert(kLoadPartition);
        continue;
      }
      if (isScalarPure(&op)) {
        for (Operation *user : op.getUsers()) {
          Operation *u = body->findAncestorOpInBlock(*user);
          if (u && !u->hasTrait<OpTrait::IsTerminator>() && parts.count(u))
            p.insert(parts[u].begin(), parts[u].end());
          else
            p.insert(kComputePartition); // the loop's results, the yield
        }
        if (p.empty()) // unused: wherever it does least harm
          p.insert(kComputePartition);
        continue;
      }
      p.insert(kComputePartition);
    }
    for (Operation &op : body->without_terminator()) {
      const std::set<int32_t> &p = parts[&op];
      op.setAttr(tgpu::kPartitionAttr,
                 DenseI32ArrayAttr::get(
                     ctx, SmallVector<int32_t>(p.begin(), p.end())));
    }
    // Copies before the loop that only its dots read (convert-tile-to-tgpu
    // planned them: Q of attention) are the load partition's too, issued
    // once before its loop.
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode()) {
      auto load = dyn_cast<LoadOp>(op);
      if (load && tgpu::getTMACopy(load))
        load->setAttr(tgpu::kPartitionAttr,
                      DenseI32ArrayAttr::get(ctx, {kLoadPartition}));
    }
    loop->setAttr(tgpu::kPartitionsAttr,
                  ArrayAttr::get(ctx, {tgpu::PartitionAttr::get(
                                           ctx, tgpu::PartitionRole::Load),
                                       tgpu::PartitionAttr::get(
                                           ctx, tgpu::PartitionRole::Compute)}));
  }
};

} // namespace
