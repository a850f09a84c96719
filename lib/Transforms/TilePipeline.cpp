//===- TilePipeline.cpp - expand pipeline schedules into TMA rings -------===//
//
// The tile-pipeline pass. A loop scheduled by tile-pipeline-schedule with N
// stages,
//
//   scf.for %iv ... {
//     %a = tile.load %A[...] {tile.pipeline.stage = 0}   (maybe converted)
//     <the rest, stage N - 1>
//   }
//
// becomes, with a ring of N slots per stage-0 load and full/empty barriers
// (n = the trip count, issue(j) = arrive full[j % N] with the bytes of a
// stage, then the TMA copies of iteration j's tiles into slot j % N):
//
//   issue(0) ... issue(N - 2)             (those < n)
//   scf.for %iv ... (%j = 0) {
//     if j + N - 1 < n:
//       if j > 0: wait empty[(j - 1) % N], ((j - 1) / N) % 2
//       issue(j + N - 1)
//     wait full[j % N], (j / N) % 2
//     %a = tgpu.local_load %ringA[j % N]
//     <the rest>
//     arrive empty[j % N]                  (every warp)
//   }
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tilec/Dialect/Tile/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

struct Prefetch {
  LoadOp load;
  BlockArgument view;
  tgpu::TMASlot slot;
  Value ring;
};

struct TilePipeline : public tilec::impl::TilePipelineBase<TilePipeline> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kKernelAttr) || func.isExternal())
        continue;
      for (auto loop : llvm::make_early_inc_range(
               func.getBody().front().getOps<scf::ForOp>()))
        if (auto n = loop->getAttrOfType<IntegerAttr>(kPipelineStagesAttr))
          if (failed(expand(func, loop, n.getInt())))
            return signalPassFailure();
    }
  }

  LogicalResult expand(func::FuncOp func, scf::ForOp loop, int64_t stages) {
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    SmallVector<Prefetch> prefetches;
    for (auto load : loop.getBody()->getOps<LoadOp>()) {
      auto stage = load->getAttrOfType<IntegerAttr>(kPipelineStageAttr);
      if (!stage || stage.getInt() != 0)
        continue;
      std::string why;
      auto slot = tgpu::planTMASlot(cast<RankedTensorType>(load.getType()), why);
      auto view = dyn_cast<BlockArgument>(load.getTensor());
      if (failed(slot) || !view)
        return load.emitError() << "scheduled for stage 0 but TMA cannot load "
                                   "it ahead: "
                                << why;
      prefetches.push_back({load, view, *slot, Value()});
    }
    if (stages < 2 || prefetches.empty())
      return loop.emitError() << "a pipeline needs 2 or more stages and a "
                                 "stage-0 load";

    // Rings, barriers and TMA views.
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    int64_t txBytes = 0;
    for (Prefetch &p : prefetches) {
      p.ring = tgpu::AllocOp::create(b, loc, p.slot.type.withNumSlots(stages));
      txBytes += p.slot.type.getSlotBytes();
      auto vt = cast<TensorViewType>(p.view.getType());
      if (!vt.isTMA())
        setArgumentType(func, p.view, vt.withTMA(p.slot.box, p.slot.swizzle));
    }
    auto barsTy = tgpu::BarriersType::get(ctx, stages);
    Value full = tgpu::BarriersOp::create(b, loc, barsTy, 1);
    Value empty =
        tgpu::BarriersOp::create(b, loc, barsTy, getLaunchWarps(func));

    // TMA where the runtime could encode every descriptor, else the loop as
    // it was, with plain loads (the runtime zeroes the descriptor of a view
    // TMA cannot read, e.g. rows not 16-byte aligned).
    {
      OpBuilder ob(loop);
      Value ok;
      SmallVector<int32_t> fallback;
      for (Prefetch &p : prefetches) {
        if (llvm::is_contained(fallback, int32_t(p.view.getArgNumber())))
          continue;
        fallback.push_back(p.view.getArgNumber());
        Value ready =
            tgpu::TMAReadyOp::create(ob, loc, ob.getI1Type(), p.view);
        ok = ok ? arith::AndIOp::create(ob, loc, ok, ready) : ready;
      }
      if (auto old = func->getAttrOfType<DenseI32ArrayAttr>(kTmaFallbackAttr))
        fallback.append(old.asArrayRef().begin(), old.asArrayRef().end());
      func->setAttr(kTmaFallbackAttr, ob.getDenseI32ArrayAttr(fallback));
      auto choice = scf::IfOp::create(ob, loc, loop.getResultTypes(), ok,
                                      /*withElseRegion=*/true);
      loop->replaceAllUsesWith(choice.getResults());
      OpBuilder eb = OpBuilder::atBlockEnd(choice.elseBlock());
      Operation *plain = eb.clone(*loop);
      plain->removeAttr(kPipelineStagesAttr);
      scf::YieldOp::create(eb, loc, plain->getResults());
      loop->moveBefore(choice.thenBlock(), choice.thenBlock()->end());
      OpBuilder tb = OpBuilder::atBlockEnd(choice.thenBlock());
      scf::YieldOp::create(tb, loc, loop->getResults());
    }

    // The trip count and the prologue.
    OpBuilder pb(loop);
    auto i32 = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
    };
    Value span = arith::SubIOp::create(pb, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value trips = arith::MaxSIOp::create(
        pb, loc, arith::CeilDivSIOp::create(pb, loc, span, loop.getStep()),
        i32(pb, 0));
    for (int64_t p = 0; p + 1 < stages; ++p) {
      Value j = i32(pb, p);
      auto ifOp = scf::IfOp::create(
          pb, loc, TypeRange{},
          arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::slt, j, trips),
          false);
      OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
      issue(ib, loop, prefetches, full, j, stages, txBytes);
    }

    // The loop, with the iteration index carried.
    SmallVector<Value> inits(loop.getInitArgs());
    inits.push_back(i32(pb, 0));
    auto nloop = scf::ForOp::create(pb, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep(), inits);
    Block *body = nloop.getBody();
    body->getOperations().splice(body->begin(), loop.getBody()->getOperations());
    SmallVector<Value> repl = {nloop.getInductionVar()};
    for (Value a : nloop.getRegionIterArgs().drop_back())
      repl.push_back(a);
    for (auto [o, n] : llvm::zip(loop.getBody()->getArguments(), repl))
      o.replaceAllUsesWith(n);
    for (auto [o, n] : llvm::zip(loop.getResults(), nloop.getResults()))
      o.replaceAllUsesWith(n);
    nloop->setAttrs(loop->getDiscardableAttrDictionary());
    nloop->removeAttr(kPipelineStagesAttr);
    loop.erase();
    Value j = nloop.getRegionIterArgs().back();

    OpBuilder lb = OpBuilder::atBlockBegin(body);
    Value one = i32(lb, 1);
    // Refill the slot iteration j - 1 read, once every warp is done with it.
    Value ahead = arith::AddIOp::create(lb, loc, j, i32(lb, stages - 1));
    auto refill = scf::IfOp::create(
        lb, loc, TypeRange{},
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, ahead, trips),
        false);
    {
      OpBuilder rb = OpBuilder::atBlockBegin(refill.thenBlock());
      auto used = scf::IfOp::create(
          rb, loc, TypeRange{},
          arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::sgt, j,
                                i32(rb, 0)),
          false);
      OpBuilder ub = OpBuilder::atBlockBegin(used.thenBlock());
      Value prev = arith::SubIOp::create(ub, loc, j, i32(ub, 1));
      Value prevSlot = tgpu::ringSlot(ub, loc, prev, stages);
      tgpu::WaitOp::create(ub, loc, empty, prevSlot,
                           tgpu::ringPhase(ub, loc, prev, stages));
      issue(rb, nloop, prefetches, full, ahead, stages, txBytes);
    }
    Value slot = tgpu::ringSlot(lb, loc, j, stages);
    tgpu::WaitOp::create(lb, loc, full, slot, tgpu::ringPhase(lb, loc, j, stages));
    // The loads read their slot (in the layout a lone conversion wanted).
    for (Prefetch &p : prefetches) {
      OpBuilder rb(p.load);
      Operation *replaced = p.load;
      Type type = p.load.getType();
      if (p.load->hasOneUse())
        if (auto cv = dyn_cast<ConvertLayoutOp>(*p.load->user_begin())) {
          replaced = cv;
          type = cv.getType();
        }
      Value v = tgpu::LocalLoadOp::create(rb, p.load.getLoc(), type, p.ring, slot);
      replaced->getResult(0).replaceAllUsesWith(v);
      if (replaced != p.load.getOperation())
        replaced->erase();
      p.load.erase();
    }
    // Every warp releases the slot at the end of the iteration.
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    OpBuilder yb(yield);
    tgpu::ArriveOp::create(yb, loc, empty, slot, IntegerAttr(), IntegerAttr());
    SmallVector<Value> next(yield.getOperands());
    next.push_back(arith::AddIOp::create(yb, loc, j, one));
    scf::YieldOp::create(yb, loc, next);
    yield.erase();
    // The schedule is spent (on the body and on the copies made of it).
    func.walk([](Operation *op) {
      op->removeAttr(kPipelineStageAttr);
      op->removeAttr(kPipelineClusterAttr);
    });
    return success();
  }

  /// Arms full[j % stages] with a stage's bytes and issues the copies of
  /// iteration j's tiles (indices recomputed with iv = lb + j * step).
  static void issue(OpBuilder &b, scf::ForOp loop, ArrayRef<Prefetch> prefetches,
                    Value full, Value j, int64_t stages, int64_t txBytes) {
    Location loc = loop.getLoc();
    Value slot = tgpu::ringSlot(b, loc, j, stages);
    tgpu::ArriveOp::create(b, loc, full, slot, b.getI64IntegerAttr(txBytes),
                           IntegerAttr());
    IRMapping map;
    map.map(loop.getInductionVar(),
            arith::AddIOp::create(
                b, loc, loop.getLowerBound(),
                arith::MulIOp::create(b, loc, j, loop.getStep())));
    std::function<Value(Value)> at = [&](Value v) -> Value {
      if (Value m = map.lookupOrNull(v))
        return m;
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != loop.getBody())
        return v;
      for (Value o : def->getOperands())
        at(o);
      return b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
    };
    for (Prefetch p : prefetches) {
      SmallVector<Value> coords;
      for (Value o : p.load.getOffsets())
        coords.push_back(at(o));
      tgpu::TMALoadOp::create(b, p.load.getLoc(), p.view, coords, p.ring, slot,
                              full, IntegerAttr());
    }
  }
};
} // namespace
