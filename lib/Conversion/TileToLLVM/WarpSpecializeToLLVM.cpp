//===- WarpSpecializeToLLVM.cpp - warp-specialized regions to branches ----===//
//
// lowerWarpSpecialize: a tgpu.warp_specialize's regions become the
// branches of the warp groups that run them (each copy of a region a
// group of its own), with their register budgets (setmaxnreg), buffer
// offsets, scratch shifts and named barriers.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "tilec/Dialect/Tile/TargetInfo.h"

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;
using namespace tilec::tgpu;

void tilec::lowerWarpSpecialize(func::FuncOp func) {
  func.walk([&](WarpSpecializeOp op) {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    int32_t launchThreads = 32 * op.getTotalWarps();
    func->setAttr(kLaunchWarpsAttr, IntegerAttr::get(IntegerType::get(ctx, 32),
                                                     op.getTotalWarps()));
    // With one block an SM (LowerToLLVM sets minctasm 1) a thread starts
    // with the block's even share of the register file; a group whose
    // budget is below it gives registers back, one above it takes them.
    // (tile.blocks_per_sm blocks: that share of it.)
    int32_t share = TargetInfo::of(func).registerShare(
        launchThreads, tile::getBlocksPerSM(func));

    // The groups of warps, in order: each copy of each region. Copy c of
    // a region is a clone of it with tgpu.consumer_index c and the c-th
    // offset of its buffers; a group takes its scratch shift (from
    // tile-allocate-shared-memory) and named barrier 1 + its number (0 is
    // the block's; tile-allocate-named-barriers gives other groups ids
    // after these).
    struct Group {
      Block *body;
      int32_t first, threads, barrier, scratch, regs;
    };
    SmallVector<Group> groups;
    SmallVector<std::unique_ptr<Block>> clones;
    int32_t first = 0;
    for (auto [i, region] : llvm::enumerate(op.getPartitionRegions())) {
      PartitionAttr p = op.getPartition(i);
      Block &body = region.front();
      SmallVector<Block *> copies = {&body};
      for (int c = 1; c < p.getCopies(); ++c) {
        clones.push_back(std::make_unique<Block>());
        IRMapping map;
        OpBuilder cb(ctx); // the clone has no region yet
        cb.setInsertionPointToStart(clones.back().get());
        for (Operation &o : body)
          cb.clone(o, map);
        copies.push_back(clones.back().get());
      }
      for (auto [c, copy] : llvm::enumerate(copies)) {
        copy->walk([&](Operation *o) {
          if (auto ci = dyn_cast<ConsumerIndexOp>(o)) {
            OpBuilder cb(ci);
            ci.replaceAllUsesWith(Value(arith::ConstantIntOp::create(
                cb, loc, cb.getI32Type(), int64_t(c))));
            ci.erase();
          } else if (auto a = dyn_cast<AllocOp>(o); a && a.getOffset()) {
            a.setOffset(ArrayRef<int64_t>{(*a.getOffset())[c]});
          } else if (auto br = dyn_cast<BarriersOp>(o); br && br.getOffset()) {
            br.setOffset(ArrayRef<int64_t>{(*br.getOffset())[c]});
          } else if (auto t = dyn_cast<TMemAllocOp>(o); t && t.getColumn()) {
            t.setColumn(ArrayRef<int64_t>{(*t.getColumn())[c]});
          }
        });
        int32_t scratch = 0;
        if (std::optional<ArrayRef<int64_t>> shifts = op.getScratch())
          scratch = int32_t((*shifts)[groups.size()]);
        groups.push_back({copy, first, 32 * p.getWarps(),
                          int32_t(groups.size()) + 1, scratch, p.getRegs()});
        first += 32 * p.getWarps();
      }
    }

    // A branch of the dispatch: a group's code, or a block of groups that
    // share warpgroups (sm_100a's one-warp load and MMA groups) with its
    // budget and its own dispatch. setmaxnreg is a warpgroup's, executed
    // by all its warps at one instruction: a block sets it before it
    // splits into its groups. The threads past the last group (a launch
    // rounded up to whole warpgroups) join their block's budget and
    // nothing else.
    struct Item {
      int32_t first, threads, barrier, scratch, regs;
      std::function<void(OpBuilder &)> emit;
    };
    Value tid;
    // if (tid < end of item 0) { item 0 } else if ... else { last item },
    // the last guarded too where threads follow it; each scf.if records
    // both its branches' ranges.
    std::function<void(OpBuilder &, ArrayRef<Item>, int32_t)> cascade =
        [&](OpBuilder &b, ArrayRef<Item> items, int32_t spanEnd) {
          for (auto [i, item] : llvm::enumerate(items)) {
            int32_t end = item.first + item.threads;
            bool last = i + 1 == items.size();
            if (last && end >= spanEnd) {
              item.emit(b);
              return;
            }
            Item rest = last ? Item{end, spanEnd - end, item.barrier,
                                    item.scratch, item.regs, nullptr}
                             : items[i + 1];
            Value bound =
                arith::ConstantIntOp::create(b, loc, b.getI32Type(), end);
            auto ifOp = scf::IfOp::create(
                b, loc, TypeRange{},
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                      bound),
                /*withElseRegion=*/true);
            ifOp->setAttr(kThreadRangeAttr,
                          b.getDenseI32ArrayAttr(
                              {item.first, item.threads, item.barrier,
                               item.scratch, item.regs, rest.first,
                               spanEnd - rest.first, rest.barrier,
                               rest.scratch, rest.regs}));
            OpBuilder tb(ifOp.thenBlock(), std::prev(ifOp.thenBlock()->end()));
            item.emit(tb);
            b.setInsertionPoint(ifOp.elseBlock(),
                                std::prev(ifOp.elseBlock()->end()));
          }
        };
    auto groupItem = [&](const Group &g) {
      return Item{g.first, g.threads, g.barrier, g.scratch, g.regs,
                  [&g](OpBuilder &b) {
                    Block *dst = b.getInsertionBlock();
                    dst->getOperations().splice(b.getInsertionPoint(),
                                                g.body->getOperations());
                  }};
    };
    // Blocks: a group that starts a warpgroup starts a block; one that
    // does not joins the block before it (the verifier made their budgets
    // one). A block reaches up to the next block's first thread, the last
    // to the end of the launch.
    SmallVector<std::pair<size_t, size_t>> spans; // [begin, end) of groups
    for (auto [g, group] : llvm::enumerate(groups))
      if (spans.empty() || group.first % 128 == 0)
        spans.push_back({g, g + 1});
      else
        spans.back().second = g + 1;
    SmallVector<SmallVector<Item>> members(spans.size());
    SmallVector<Item> blocks;
    for (auto [k, span] : llvm::enumerate(spans)) {
      const Group &head = groups[span.first];
      int32_t blockEnd = k + 1 < spans.size() ? groups[spans[k + 1].first].first
                                              : launchThreads;
      for (size_t g = span.first; g < span.second; ++g)
        members[k].push_back(groupItem(groups[g]));
      blocks.push_back(Item{
          head.first, blockEnd - head.first, head.barrier, head.scratch,
          head.regs, [&, k, blockEnd, regs = head.regs](OpBuilder &b) {
            if (regs != 0) // no budget: the launch's share
              NVVM::SetMaxRegisterOp::create(
                  b, loc, b.getI32IntegerAttr(regs),
                  NVVM::SetMaxRegisterActionAttr::get(
                      ctx, regs < share ? NVVM::SetMaxRegisterAction::decrease
                                        : NVVM::SetMaxRegisterAction::increase));
            cascade(b, members[k], blockEnd);
          }});
    }
    OpBuilder b(op);
    tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    cascade(b, blocks, launchThreads);
    op.erase();
  });
}
