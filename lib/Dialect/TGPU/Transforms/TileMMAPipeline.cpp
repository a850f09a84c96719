//===- TileMMAPipeline.cpp - issue the last MMA one iteration late --------===//
//
// The tile-mma-pipeline pass. tile-insert-channels (and
// tile-warp-specialize, splitting it) builds a consumer loop whose math
// reads the MMA results (attention) as
//
//   scf.for ... iter_args(%acc = %init, ..., %i = %i0) {
//     %sk  = tgpu.channel_wait %chk[%i]
//     %x   = tgpu.wgmma %q, %k[%sk], %zero       (the first MMA)
//     %xr  = tgpu.wgmma_wait %x {pendings = 0}
//     tgpu.channel_release %chk[%i]
//     <math on %xr, and on %acc>  -> %p, %accs
//     %sv  = tgpu.channel_wait %chv[%i]
//     %y   = tgpu.wgmma %p, %v[%sv], %accs       (the last MMA)
//     %yr  = tgpu.wgmma_wait %y {pendings = 0}
//     tgpu.channel_release %chv[%i]
//     scf.yield %yr, ..., %i + 1
//   }
//
// (or both MMAs reading one channel's use, released after the last) so
// each warpgroup either multiplies or does math, never both. Here the
// last MMA moves one iteration later:
//
//   <prologue: iteration 0 without the last MMA>  -> %p0, %accs0, %sv0
//   scf.for ... iter_args(%accs_ = %accs0, ..., %i, %p_ = %p0, %sv_ = %sv0) {
//     %sk  = tgpu.channel_wait %chk[%i]
//     %x   = tgpu.wgmma %q, %k[%sk], %zero
//     %y   = tgpu.wgmma %p_, %v[%sv_], %accs_    (iteration j - 1's)
//     %xr  = tgpu.wgmma_wait %x {pendings = 1}   (%y stays in flight)
//     tgpu.channel_release %chk[%i]
//     <math on %xr>                               (overlaps %y)
//     %acc = tgpu.wgmma_wait %y {pendings = 0}   (before the first use)
//     tgpu.channel_release %chv[%i - 1]
//     <math on %acc>  -> %p, %accs
//     %sv  = tgpu.channel_wait %chv[%i]
//     scf.yield %accs, ..., %i + 1, %p, %sv
//   }
//   %y = tgpu.wgmma %p_last, %v[%sv_last], %accs_last; wait; release
//
// The loop's first iteration runs in the prologue (a guard around the loop
// already says it runs at least once), so no iteration issues the late MMA
// under a condition (ptxas serializes wgmma across such branches).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/ProfileRecords.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "tile-mma-pipeline"

namespace tilec {
#define GEN_PASS_DEF_TILEMMAPIPELINE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// The wait of `mma`'s result alone with no group left in flight, if that
/// is its only use.
tgpu::WGMMAWaitOp soleWait(tgpu::WGMMAOp mma) {
  if (!mma.getResult().hasOneUse())
    return {};
  auto wait = dyn_cast<tgpu::WGMMAWaitOp>(*mma.getResult().getUsers().begin());
  if (!wait || wait.getPendings() != 0 || wait.getValues().size() != 1)
    return {};
  return wait;
}

/// The op after `op` that is not a profiled scope's record (they stay in
/// place, cloned with the code around them).
Operation *nextNonRecord(Operation *op) {
  do
    op = op->getNextNode();
  while (op && tile::isProfileRecord(op));
  return op;
}

/// What the rewrite needs of a loop it applies to.
struct Plan {
  scf::ForOp loop;
  tgpu::WGMMAOp first, last;
  tgpu::WGMMAWaitOp firstWait, lastWait;
  tgpu::ChannelReleaseOp release;
  Value slot;        // the channel_wait result both MMAs read
  unsigned accIndex; // the iter_arg the last MMA's result is yielded to
  bool carryA;       // the last MMA's register A is computed in the loop
};

std::optional<Plan> match(scf::ForOp loop) {
  Block *body = loop.getBody();
  // Two MMAs (another between them would change the group counts).
  SmallVector<tgpu::WGMMAOp> mmas(body->getOps<tgpu::WGMMAOp>());
  if (mmas.size() != 2)
    return std::nullopt;
  Plan p;
  p.loop = loop;
  p.first = mmas.front();
  p.last = mmas.back();
  p.firstWait = soleWait(p.first);
  p.lastWait = soleWait(p.last);
  if (!p.firstWait || !p.lastWait)
    return std::nullopt;
  // The last MMA's channel: its use is waited for in the loop (the slot
  // the MMA reads) and released right after the MMA's wait. (The use
  // counter is the loop's last iter_arg, as tile-insert-channels builds
  // it; the first MMA may read the same use or another channel's.)
  Value counter = loop.getRegionIterArgs().back();
  p.slot = p.last.getBSlot();
  auto wait = p.slot.getDefiningOp<tgpu::ChannelWaitOp>();
  p.release = dyn_cast_or_null<tgpu::ChannelReleaseOp>(
      nextNonRecord(p.lastWait));
  if (!wait || wait->getBlock() != body || wait.getIndex() != counter ||
      !p.release || p.release.getIndex() != counter ||
      p.release.getChannel() != wait.getChannel() ||
      (p.last.getASlot() && p.last.getASlot() != p.slot))
    return std::nullopt;
  // The last MMA's result only goes to the next iteration, as the value
  // its own accumulator input is computed from.
  Value done = p.lastWait.getResult(0);
  if (!done.hasOneUse() || !isa<scf::YieldOp>(*done.getUsers().begin()))
    return std::nullopt;
  p.accIndex = done.getUses().begin()->getOperandNumber();
  Value carried = loop.getRegionIterArgs()[p.accIndex];
  // Nothing reads the carried value before the first MMA's wait (the late
  // MMA is waited for after it); nothing but index math (and profiled
  // scopes' records, which stay where they are) after the release.
  if (carried.use_empty())
    return std::nullopt;
  for (Operation *user : carried.getUsers())
    if (user->getBlock() != body || !p.firstWait->isBeforeInBlock(user))
      return std::nullopt;
  for (Operation *op = p.release->getNextNode(); op != body->getTerminator();
       op = op->getNextNode())
    if (!isPure(op) && !tile::isProfileRecord(op))
      return std::nullopt;
  // The late MMA reads its buffers (and a register A not computed in the
  // loop) where the loop's epilogue can too.
  Value a = p.last.getA();
  p.carryA = !p.last.getASlot() && a.getParentBlock() == body;
  if (p.last.getB().getParentBlock() == body ||
      (p.last.getASlot() && a.getParentBlock() == body))
    return std::nullopt;
  return p;
}

/// Registers a thread holds of `v` if it can be stored as 32-bit words
/// (tgpu.wgmma_wait's `after`), else nothing.
std::optional<int64_t> wordsPerThread(Value v) {
  if (!tgpu::isWaitAfterType(v.getType()))
    return std::nullopt;
  if (auto rt = dyn_cast<RankedTensorType>(v.getType()))
    return tile::getLayout(rt).getNumRegisters();
  return 1;
}

/// The math between the first MMA's wait and the late MMA's wait overlaps
/// the late MMA, but ptxas hoists a wait above arithmetic that does not
/// depend on it. The late wait lists the math's small results still needed
/// after it (a row's max and sum in attention): the lowering keeps the
/// wait below them, and so below the math they are computed from.
void pinOverlap(tgpu::WGMMAWaitOp first, tgpu::WGMMAWaitOp late) {
  constexpr int64_t kMaxWordsEach = 8, kMaxWords = 16;
  Block *block = late->getBlock();
  SmallVector<Value> after;
  int64_t words = 0;
  // The math: what is computed from the first MMA's result.
  llvm::DenseSet<Value> math(first->getResults().begin(),
                             first->getResults().end());
  for (Operation *op = first->getNextNode(); op != late;
       op = op->getNextNode()) {
    WalkResult reads = op->walk([&](Operation *inner) {
      return llvm::any_of(inner->getOperands(),
                          [&](Value v) { return math.contains(v); })
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (!reads.wasInterrupted())
      continue;
    math.insert(op->getResults().begin(), op->getResults().end());
    for (Value r : op->getResults()) {
      std::optional<int64_t> n = wordsPerThread(r);
      if (!n || *n > kMaxWordsEach || words + *n > kMaxWords)
        continue;
      if (llvm::none_of(r.getUsers(), [&](Operation *user) {
            Operation *top = block->findAncestorOpInBlock(*user);
            return top && late->isBeforeInBlock(top);
          }))
        continue;
      after.push_back(r);
      words += *n;
    }
  }
  late.getAfterMutable().assign(after);
}

/// With `warpgroup-turns`, where the consumer runs on several warpgroups,
/// they take turns at issuing their MMAs (FA3's ping-pong within a tile;
/// off by default, see the pass's description): warpgroup k waits
/// for its turn on barrier k of the "warpgroup_turn" group before issuing
/// and passes the turn to warpgroup k + 1 (mod n) after, so that one's softmax runs
/// while the tensor cores work for another. The last warpgroup gives
/// warpgroup 0 its first turn and does not pass on its last.
struct Turns {
  /// The named-barrier group of the turns, a barrier a warpgroup
  /// (tile-allocate-named-barriers gives them ids).
  static constexpr llvm::StringLiteral kGroup = "warpgroup_turn";
  Value mine, next; // this warpgroup's turn barrier, the next one's
  Value notLast;    // not the last warpgroup

  Turns(OpBuilder &b, Location loc, tgpu::WGMMAOp mma, bool enabled) {
    auto acc = cast<RankedTensorType>(mma.getType());
    int64_t n = tile::getLayout(acc).getNumWarps() / 4;
    if (!enabled || n < 2 || n > 4)
      return;
    Value wg = tgpu::WarpgroupIndexOp::create(b, loc, b.getI32Type());
    auto id = [&](Value index) {
      return tgpu::NamedBarrierIdOp::create(b, loc, b.getI32Type(), kGroup, n,
                                            index);
    };
    Value first = id(Value());
    mine = id(wg);
    next = id(arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, wg, cst(b, loc, 1)),
        cst(b, loc, n)));
    Value last = cst(b, loc, n - 1);
    notLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, wg, last);
    // The last warpgroup gives warpgroup 0 its first turn.
    Value isLast =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, last);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, isLast, false);
    OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
    tgpu::NamedBarrierArriveOp::create(ib, loc, first, kThreads);
  }
  static constexpr int32_t kThreads = 256; // the waiting and passing groups
  static Value cst(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  void wait(OpBuilder &b, Location loc) {
    if (mine)
      tgpu::NamedBarrierWaitOp::create(b, loc, mine, kThreads);
  }
  /// Passes the turn on (`unlessLast`: not from the last warpgroup).
  void pass(OpBuilder &b, Location loc, bool unlessLast = false) {
    if (!mine)
      return;
    if (!unlessLast) {
      tgpu::NamedBarrierArriveOp::create(b, loc, next, kThreads);
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, notLast, false);
    OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
    tgpu::NamedBarrierArriveOp::create(ib, loc, next, kThreads);
  }
};

void rewrite(Plan &p, bool warpgroupTurns) {
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  auto skipped = [&](Operation *op) {
    return op == p.last || op == p.lastWait || op == p.release ||
           op == yield;
  };

  // The prologue: iteration 0 without the last MMA.
  OpBuilder b(loop);
  Turns turns(b, loc, p.first, warpgroupTurns);
  IRMapping pm;
  pm.map(loop.getInductionVar(), loop.getLowerBound());
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    pm.map(arg, init);
  for (Operation &op : body->without_terminator()) {
    if (skipped(&op))
      continue;
    if (&op == p.first.getOperation())
      turns.wait(b, loc);
    b.clone(op, pm);
    if (&op == p.first.getOperation())
      turns.pass(b, loc);
  }

  // The pending MMA's inputs travel as iter_args: its accumulator in place
  // of the value its result was yielded as, its register A and its slot
  // appended.
  auto pending = [&](IRMapping &m) {
    SmallVector<Value> v;
    for (auto [k, y] : llvm::enumerate(yield.getOperands()))
      v.push_back(k == p.accIndex ? m.lookupOrDefault(p.last.getAcc())
                                  : m.lookupOrDefault(y));
    if (p.carryA)
      v.push_back(m.lookupOrDefault(p.last.getA()));
    v.push_back(m.lookupOrDefault(p.slot));
    return v;
  };
  SmallVector<Value> inits = pending(pm);
  Value start = arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                      loop.getStep());
  auto nloop = scf::ForOp::create(b, loc, start, loop.getUpperBound(),
                                  loop.getStep(), inits);
  Block *nbody = nloop.getBody();
  unsigned n = loop.getNumRegionIterArgs();
  ValueRange nargs = nloop.getRegionIterArgs();
  Value accsArg = nargs[p.accIndex];
  Value aArg = p.carryA ? nargs[n] : Value();
  Value slotArg = nargs.back();

  // The counter's previous use: the one whose slot the late MMA reads.
  Value counter = loop.getRegionIterArgs()[n - 1];
  // A: the carried register A, or the one defined outside the loop.
  auto issueLate = [&](OpBuilder &ob, Value accs, Value carriedA, Value slot) {
    Value a = p.carryA ? carriedA : p.last.getA();
    return tgpu::WGMMAOp::create(ob, p.last.getLoc(), p.last.getType(), a,
                                 p.last.getASlot() ? slot : Value(),
                                 p.last.getB(), slot, accs);
  };

  OpBuilder lb = OpBuilder::atBlockBegin(nbody);
  IRMapping lm;
  lm.map(loop.getInductionVar(), nloop.getInductionVar());
  for (unsigned k = 0; k < n; ++k)
    if (k != p.accIndex)
      lm.map(loop.getRegionIterArgs()[k], nargs[k]);
  Value late;
  tgpu::WGMMAWaitOp firstWait, lateWait;
  Value carried = loop.getRegionIterArgs()[p.accIndex];
  // The late MMA is done where the math first reads its result (at the
  // end if only the late MMA itself reads it); its use of the channel
  // ends there.
  auto waitLate = [&] {
    lateWait = tgpu::WGMMAWaitOp::create(lb, p.lastWait.getLoc(),
                                         ValueRange{late}, 0);
    lm.map(carried, lateWait.getResult(0));
    Value prev = arith::SubIOp::create(
        lb, loc, lm.lookup(counter),
        arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 1));
    tgpu::ChannelReleaseOp::create(lb, p.release.getLoc(),
                                   p.release.getChannel(), prev);
  };
  for (Operation &op : body->without_terminator()) {
    if (skipped(&op))
      continue;
    if (!lateWait && llvm::is_contained(op.getOperands(), carried))
      waitLate();
    if (&op == p.first.getOperation())
      turns.wait(lb, loc);
    Operation *c = lb.clone(op, lm);
    if (&op == p.first.getOperation()) {
      late = issueLate(lb, accsArg, aArg, slotArg);
      turns.pass(lb, loc);
    } else if (&op == p.firstWait.getOperation()) {
      firstWait = cast<tgpu::WGMMAWaitOp>(c);
      firstWait.setPendings(1);
    }
  }
  if (!lateWait)
    waitLate();
  scf::YieldOp::create(lb, yield.getLoc(), pending(lm));
  pinOverlap(firstWait, lateWait);

  // The epilogue: the last iteration's late MMA.
  b.setInsertionPointAfter(nloop);
  ValueRange res = nloop.getResults();
  turns.wait(b, loc);
  auto lastMMA = issueLate(b, res[p.accIndex], p.carryA ? res[n] : Value(),
                           res.back());
  auto w = tgpu::WGMMAWaitOp::create(b, p.lastWait.getLoc(),
                                     ValueRange{lastMMA.getResult()}, 0);
  // (After the wait: no branch between an MMA and its wait.)
  turns.pass(b, loc, /*unlessLast=*/true);
  Value lastUse = arith::SubIOp::create(
      b, loc, res[n - 1], arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  tgpu::ChannelReleaseOp::create(b, p.release.getLoc(), p.release.getChannel(),
                                 lastUse);
  for (unsigned k = 0; k < n; ++k)
    loop.getResult(k).replaceAllUsesWith(k == p.accIndex ? w.getResult(0)
                                                         : res[k]);
  loop.erase();
}

struct TileMMAPipeline
    : public tilec::impl::TileMMAPipelineBase<TileMMAPipeline> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](tgpu::WarpSpecializeOp ws) {
      for (auto [i, region] : llvm::enumerate(ws.getPartitionRegions()))
        if (ws.getPartition(i).getRole() == tgpu::PartitionRole::Compute)
          region.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    });
    for (scf::ForOp loop : loops)
      if (std::optional<Plan> p = match(loop))
        rewrite(*p, warpgroupTurns);
  }
};

} // namespace
