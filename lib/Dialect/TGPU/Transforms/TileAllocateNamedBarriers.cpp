//===- TileAllocateNamedBarriers.cpp - ids for named-barrier groups -------===//
//
// The tile-allocate-named-barriers pass. Passes that build turns between
// groups of warps (tile-persistent-tiles' ping-pong copies,
// tile-mma-pipeline's warpgroups) ask for named barriers by group,
//
//   %id = tgpu.named_barrier_id "pingpong_mma" count 2 [%copy] : i32
//
// and this pass gives each group of a kernel its ids: the first are the
// lowering's (0 the block's, 1 + g that of group g of the
// tgpu.warp_specialize's warps, a group per region copy; see
// lowerWarpSpecialize), at least 0..3; the groups take consecutive ids
// after them in the order their first op appears, and each op becomes
// `base + index`:
//
//   %c4 = arith.constant 4 : i32
//   %id = arith.addi %copy, %c4 : i32
//
// The kernel records the bases, `tgpu.named_barriers = {pingpong_epilogue
// = 6 : i32, pingpong_mma = 4 : i32}`. A kernel needing more than the 16
// barriers the hardware has is an error.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "tile-allocate-named-barriers"

namespace tilec {
#define GEN_PASS_DEF_TILEALLOCATENAMEDBARRIERS
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Named barriers a CTA has, and the fewest the lowering of
/// tgpu.warp_specialize keeps (the block's, a producer's, two consumer
/// copies').
constexpr int32_t kNamedBarriers = 16;
constexpr int32_t kMinReserved = 4;

struct TileAllocateNamedBarriers
    : public tilec::impl::TileAllocateNamedBarriersBase<
          TileAllocateNamedBarriers> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(allocate(func)))
        return signalPassFailure();
  }

  LogicalResult allocate(func::FuncOp func) {
    SmallVector<tgpu::NamedBarrierIdOp> ops;
    func.walk([&](tgpu::NamedBarrierIdOp op) { ops.push_back(op); });
    if (ops.empty())
      return success();
    MLIRContext *ctx = &getContext();
    llvm::StringMap<std::pair<int32_t, int32_t>> groups; // base, count
    SmallVector<NamedAttribute> recorded;
    // The block's barrier and one a group of the regions' warps.
    int32_t reserved = kMinReserved;
    func.walk([&](tgpu::WarpSpecializeOp ws) {
      reserved = std::max(reserved, 1 + ws.getNumGroups());
    });
    int32_t next = reserved;
    for (tgpu::NamedBarrierIdOp op : ops) {
      auto [it, fresh] = groups.try_emplace(op.getGroup(), next, op.getCount());
      if (!fresh) {
        if (it->second.second != int32_t(op.getCount()))
          return op.emitError() << "named-barrier group '" << op.getGroup()
                                << "' has " << it->second.second
                                << " barriers elsewhere, " << op.getCount()
                                << " here";
        continue;
      }
      next += op.getCount();
      if (next > kNamedBarriers)
        return op.emitError()
               << "named-barrier group '" << op.getGroup() << "' needs ids up "
               << "to " << next - 1 << "; a CTA has " << kNamedBarriers
               << " (0.." << reserved - 1 << " are the regions')";
      recorded.push_back(NamedAttribute(
          StringAttr::get(ctx, op.getGroup()),
          IntegerAttr::get(IntegerType::get(ctx, 32), it->second.first)));
    }
    for (tgpu::NamedBarrierIdOp op : ops) {
      OpBuilder b(op);
      Value base = arith::ConstantIntOp::create(b, op.getLoc(), b.getI32Type(),
                                                groups[op.getGroup()].first);
      Value id = op.getIndex()
                     ? arith::AddIOp::create(b, op.getLoc(), op.getIndex(), base)
                     : base;
      op.replaceAllUsesWith(id);
      op.erase();
    }
    func->setAttr(tgpu::kNamedBarriersAttr,
                  DictionaryAttr::get(ctx, recorded));
    return success();
  }
};

} // namespace
