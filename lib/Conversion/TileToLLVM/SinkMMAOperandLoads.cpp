//===- SinkMMAOperandLoads.cpp - mma.sync operands read where they are used -===//
//
// A tile.dot on mma.sync runs its MMAs k-step by k-step, but its operands
// arrive whole: a layout conversion through shared memory loads every
// fragment first (ldmatrix or ld.shared), and a warp that multiplies a
// 16x128 slice by a 128x128 bf16 B operand then holds 256 registers of B a
// thread. Neither LLVM's NVPTX backend (source order) nor ptxas moves the
// loads back down, so the plain twins of attention spilled.
//
// After lowering, each load whose every use feeds mma.sync moves, with the
// unpacking and packing between them, down to the first MMA that reads it,
// as long as nothing on the way may write memory (a barrier, a store, an
// inline asm with side effects): the loads of a k-step then sit right
// before that k-step's MMAs. The plain twin places the conversion of its
// largest operand right before the dot for this (tile-plain-twin).
//
// lower-to-llvm runs it for sm_100a only: there it cuts the spills of the
// attention twins by three quarters (ptxas -arch=sm_100a: 5336 -> 1400
// bytes at D = 128); ptxas for sm_90a spills about as much either way and
// the twins ran 1-12% slower on an H100 with the loads next to their MMAs
// (more of the ldmatrix latency in the open; a lookahead of 4-16 MMAs did
// not win it back).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

bool isMMASync(Operation *op) {
  auto a = dyn_cast<LLVM::InlineAsmOp>(op);
  return a && a.getAsmString().starts_with("mma.sync");
}

/// Whether `op` neither reads nor writes memory.
bool touchesNoMemory(Operation *op) {
  if (auto a = dyn_cast<LLVM::InlineAsmOp>(op))
    return !a.getHasSideEffects();
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// A load of shared memory that only reads it.
bool isSharedLoad(Operation *op) {
  if (isa<NVVM::LdMatrixOp>(op))
    return true;
  auto load = dyn_cast<LLVM::LoadOp>(op);
  return load && !load.getVolatile_() &&
         cast<LLVM::LLVMPointerType>(load.getAddr().getType())
                 .getAddressSpace() == 3;
}

/// Whether `op` may write memory or order memory accesses (barriers, which
/// declare no effects, count).
bool mayWrite(Operation *op) {
  if (touchesNoMemory(op))
    return false;
  if (auto a = dyn_cast<LLVM::InlineAsmOp>(op))
    return a.getHasSideEffects();
  if (isSharedLoad(op))
    return false;
  auto mem = dyn_cast<MemoryEffectOpInterface>(op);
  if (!mem)
    return true;
  return !mem.onlyHasEffect<MemoryEffects::Read>();
}

void sinkInBlock(Block &block) {
  // Walking up, every user of an op is already where it stays.
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::reverse(block))
    ops.push_back(&op);
  llvm::SmallPtrSet<Operation *, 32> feedsMMA;
  for (Operation *op : ops) {
    if (isMMASync(op)) {
      feedsMMA.insert(op);
      continue;
    }
    if (op->getNumResults() == 0 || op->use_empty())
      continue;
    bool pure = touchesNoMemory(op);
    if (!pure && !isSharedLoad(op))
      continue;
    Operation *first = nullptr;
    bool allMMA = true;
    for (Operation *user : op->getUsers()) {
      if (!feedsMMA.contains(user)) {
        allMMA = false;
        break;
      }
      if (!first || user->isBeforeInBlock(first))
        first = user;
    }
    if (!allMMA)
      continue;
    if (!pure) {
      bool clear = true;
      for (Operation *o = op->getNextNode(); o != first && clear;
           o = o->getNextNode())
        clear = !mayWrite(o);
      if (!clear)
        continue;
    }
    op->moveBefore(first);
    feedsMMA.insert(op);
  }
}

} // namespace

void tilec::sinkMMAOperandLoads(Operation *root) {
  root->walk([](Block *block) {
    if (llvm::any_of(*block, [](Operation &op) { return isMMASync(&op); }))
      sinkInBlock(*block);
  });
}
