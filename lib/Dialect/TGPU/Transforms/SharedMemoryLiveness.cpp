//===- SharedMemoryLiveness.cpp - where shared buffers are in use ---------===//

#include "tilec/Dialect/TGPU/Transforms/SharedMemoryLiveness.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace tilec;

SharedMemoryLiveness::SharedMemoryLiveness(Operation *root) {
  int64_t next = 0;
  std::function<void(Operation *)> number = [&](Operation *op) {
    int64_t first = next++;
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (Operation &o : b)
          number(&o);
    spans[op] = {first, next - 1};
  };
  number(root);
}

int64_t SharedMemoryLiveness::extent(Operation *user, Operation *alloc) const {
  Operation *outer = user;
  for (Operation *p = user->getParentOp(); p && !p->isAncestor(alloc);
       p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      outer = p;
  return end(outer);
}

int64_t SharedMemoryLiveness::lastUse(Value buffer) const {
  // A buffer made in a loop lives again in the next iteration, which may
  // write it (a TMA copy) with no barrier after the scratch's last reads.
  Operation *alloc = buffer.getDefiningOp();
  if (alloc->getParentOfType<LoopLikeOpInterface>())
    return kForever;
  int64_t last = end(alloc);
  SmallVector<Value> work = {buffer};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<tgpu::TMAStoreOp, tgpu::WGMMAOp, tgpu::Tcgen05MMAOp>(user) ||
          user->getNumRegions() ||
          user->hasTrait<OpTrait::IsTerminator>())
        return kForever;
      // Views of the buffer (tgpu.transpose) are the buffer.
      for (Value r : user->getResults())
        if (isa<tgpu::SharedBufferType>(r.getType()))
          work.push_back(r);
      if (auto copy = dyn_cast<tgpu::TMALoadOp>(user))
        for (Operation *w : copy.getBarriers().getUsers())
          last = std::max(last, extent(w, alloc));
      last = std::max(last, extent(user, alloc));
    }
  }
  return last;
}
