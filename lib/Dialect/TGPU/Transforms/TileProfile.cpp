//===- TileProfile.cpp - record a kernel's known boundaries ---------------===//
//
// The intra-kernel profiler's instrumentation (docs/ARCHITECTURE.md,
// "Intra-kernel profiler"). On a kernel with `tile.profile`, after every
// tile pass has run, tile.profile_begin / tile.profile_end pairs go around
// what the compiler knows a kernel's time goes to:
//
//   kernel       the whole kernel (every warp group)
//   tile         an iteration of a loop that holds an instrumented loop
//                (the persistent tile loop; arg: the program's ordinal)
//   iteration    an iteration of a loop that waits on barriers or issues
//                MMAs (arg: the induction variable)
//   acquire#B    a tgpu.wait of a load partition (a free slot), B the
//                barrier array's ordinal in the kernel
//   wait#B       any other tgpu.wait (data in a slot)
//   mma          a tgpu.wgmma's issue
//   mma_wait     a tgpu.wgmma_wait
//   stage        a tgpu.local_stage (its barriers, stores and fence)
//   epilogue     what follows an outermost instrumented loop (or the op
//                that holds it) in a block outside load partitions
//
// The kernel's scope names, in order of first use, become
// `tile.profile_scopes`; user scopes (tile.profile_begin written in the
// program) are listed too. Then every record gets its `frame` and `slot`
// (assignFrames). Kernels without `tile.profile` are left alone.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/ProfileRecords.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace tilec {
#define GEN_PASS_DEF_TILEPROFILE
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Ops whose time the profiler shows (and whose loops are iterations).
bool isAsyncStep(Operation *op) {
  return isa<tgpu::WaitOp, tgpu::WGMMAOp, tgpu::WGMMAWaitOp,
             tgpu::LocalStageOp>(op);
}

/// Whether `op` runs in a load partition's region.
bool inLoadRegion(Operation *op) {
  for (Region *r = op->getParentRegion(); r; r = r->getParentRegion()) {
    auto ws = dyn_cast_or_null<tgpu::WarpSpecializeOp>(r->getParentOp());
    if (ws)
      return ws.getPartition(r->getRegionNumber()).getRole() ==
             tgpu::PartitionRole::Load;
  }
  return false;
}

struct Instrumenter {
  explicit Instrumenter(func::FuncOp func) : func(func) {}

  func::FuncOp func;
  llvm::SetVector<StringRef> scopes;
  llvm::DenseMap<Value, int> barrierOrdinal;

  void around(Operation *op, StringRef scope) {
    OpBuilder b(op);
    ProfileBeginOp::create(b, op->getLoc(), scope, Value());
    b.setInsertionPointAfter(op);
    ProfileEndOp::create(b, op->getLoc(), scope);
    scopes.insert(scope);
  }

  /// Marks [first, end of block) of `block` (before its terminator, if
  /// it has one) as `scope`; where user scopes open before `first` end in
  /// that range, only what lies inside them (scopes nest): from after the
  /// ends at `first` to the next end of one.
  void rest(Block *block, Operation *first, StringRef scope, Value arg) {
    while (first && isa<ProfileEndOp>(first))
      first = first->getNextNode();
    if (!first || first->hasTrait<OpTrait::IsTerminator>())
      return;
    OpBuilder b(first);
    ProfileBeginOp::create(b, first->getLoc(), scope, arg);
    Operation *end = getOpenScopeEnd(first);
    Operation *last = &block->back();
    if (end)
      b.setInsertionPoint(end);
    else if (last->hasTrait<OpTrait::IsTerminator>())
      b.setInsertionPoint(last);
    else
      b.setInsertionPointToEnd(block);
    ProfileEndOp::create(b, first->getLoc(), scope);
    scopes.insert(scope);
  }

  /// Whether `op` holds (or is) an op that `pred` accepts.
  static bool holds(Operation *op, bool (*pred)(Operation *)) {
    return op->walk([&](Operation *o) {
             return pred(o) ? WalkResult::interrupt() : WalkResult::advance();
           }).wasInterrupted();
  }
  /// Whether `op` holds (or is) an async step or loop of them.
  static bool holdsSteps(Operation *op) { return holds(op, isAsyncStep); }

  Value iterationArg(OpBuilder &b, scf::ForOp loop) {
    Value iv = loop.getInductionVar();
    if (iv.getType().isInteger(32))
      return iv;
    if (iv.getType().isIndex())
      return arith::IndexCastOp::create(b, loop.getLoc(), b.getI32Type(), iv);
    return arith::TruncIOp::create(b, loop.getLoc(), b.getI32Type(), iv);
  }

  void run() {
    // Barrier arrays by ordinal (tgpu.barriers in program order).
    func.walk([&](tgpu::BarriersOp op) {
      barrierOrdinal.try_emplace(op.getResult(), int(barrierOrdinal.size()));
    });
    // Loops with steps, innermost first (post-order walk).
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (holdsSteps(loop))
        loops.push_back(loop);
    });
    SmallVector<Operation *> steps;
    func.walk([&](Operation *op) {
      if (isAsyncStep(op))
        steps.push_back(op);
    });
    scopes.insert("kernel");

    // Epilogues first (so that the scopes marked later enclose them): in
    // each block outside load partitions that directly holds a loop of
    // steps (or the op around one: its guard), what follows the block's
    // last step-holding op.
    llvm::SetVector<Block *> blocks;
    auto holdsLoop = [&](scf::ForOp loop) {
      return llvm::any_of(loops, [&](scf::ForOp other) {
        return other != loop && loop->isProperAncestor(other);
      });
    };
    for (scf::ForOp loop : loops) {
      if (inLoadRegion(loop) || holdsLoop(loop))
        continue;
      Operation *holder = loop;
      while (Operation *parent = holder->getParentOp()) {
        if (isa<func::FuncOp, tgpu::WarpSpecializeOp>(parent))
          break;
        if (auto f = dyn_cast<scf::ForOp>(parent); f && holdsSteps(f))
          break;
        holder = parent;
      }
      blocks.insert(holder->getBlock());
    }
    for (Block *block : blocks) {
      Operation *last = nullptr;
      for (Operation &o : *block)
        if (holdsSteps(&o))
          last = &o;
      rest(block, last->getNextNode(), "epilogue", Value());
    }
    for (Operation *op : steps) {
      if (auto wait = dyn_cast<tgpu::WaitOp>(op)) {
        int b = barrierOrdinal.lookup(wait.getBarriers());
        std::string name =
            (inLoadRegion(op) ? "acquire#" : "wait#") + std::to_string(b);
        around(op, StringAttr::get(op->getContext(), name).getValue());
      } else {
        around(op, isa<tgpu::WGMMAOp>(op)         ? "mma"
                   : isa<tgpu::LocalStageOp>(op) ? "stage"
                                                 : "mma_wait");
      }
    }
    for (scf::ForOp loop : loops) {
      bool outer = holdsLoop(loop);
      Block *body = loop.getBody();
      OpBuilder b = OpBuilder::atBlockBegin(body);
      Value arg = iterationArg(b, loop);
      Operation *first = arg.getDefiningOp() ? arg.getDefiningOp()->getNextNode()
                                             : &body->front();
      rest(body, first, outer ? "tile" : "iteration", arg);
    }
    // The kernel: from its first op to each return.
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    ProfileBeginOp::create(b, func.getLoc(), "kernel", Value());
    func.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      ProfileEndOp::create(rb, ret.getLoc(), "kernel");
    });
    // User scopes, then the list.
    func.walk([&](ProfileBeginOp op) { scopes.insert(op.getScope()); });
    SmallVector<Attribute> names;
    for (StringRef s : scopes)
      names.push_back(StringAttr::get(func.getContext(), s));
    func->setAttr(kProfileScopesAttr, ArrayAttr::get(func.getContext(), names));
    assignFrames();
  }

  /// Groups the kernel's records into frames (docs/PROFILER.md, "Frames"):
  /// in each block, a run of records that no op holding records
  /// interrupts, of at most kFrameSlots slots; adjacent records share a
  /// slot. The lowering reads a clock at each slot and stores the frame
  /// after its last record.
  void assignFrames() {
    // A frame's clocks stay in registers until it is stored; 16 covers the
    // main loops (one store an iteration, after its last record).
    constexpr int kFrameSlots = 16;
    int next = 0;
    func.walk<WalkOrder::PreOrder>([&](Block *block) {
      int frame = -1, slot = 0;
      bool prevRecord = false;
      for (Operation &op : *block) {
        if (!isProfileRecord(&op)) {
          if (op.getNumRegions() && holds(&op, isProfileRecord))
            frame = -1;
          prevRecord = false;
          continue;
        }
        if (frame >= 0 && !prevRecord && ++slot == kFrameSlots)
          frame = -1;
        if (frame < 0) {
          frame = next++;
          slot = 0;
        }
        setProfileFrame(&op, frame, slot);
        prevRecord = true;
      }
    });
  }
};

struct TileProfile : public tilec::impl::TileProfileBase<TileProfile> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kProfileAttr) && !func.isExternal())
        Instrumenter(func).run();
  }
};
} // namespace
