//===- TGPUDialect.cpp - the tgpu dialect and its helpers -----------------===//
//
// The dialect's registration and the helpers passes share to read tgpu
// decisions off the IR (the MMA of a dot, the TMA copy of a load, the
// scheduled loop and its partitions, warp-specialized regions' copies).
// Attributes, types, ops and encodings have files of their own.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tgpu;

#include "tilec/Dialect/TGPU/TGPUDialect.cpp.inc"
#include "tilec/Dialect/TGPU/TGPUEnums.cpp.inc"

void TGPUDialect::initialize() {
  registerAttributes();
  registerTypes();
  registerOps();
}

MMAAttr tgpu::getMMA(tile::DotOp dot) {
  if (auto a = dot->getAttrOfType<MMAAttr>(kMMAAttr))
    return a;
  return MMAAttr::mmaSync(dot.getContext());
}

TMACopyAttr tgpu::getTMACopy(tile::LoadOp load) {
  return load->getAttrOfType<TMACopyAttr>(kTMAAttr);
}

bool tgpu::isThreadGather(Operation *op) {
  return isa_and_nonnull<tile::GatherOp>(op) && op->hasAttr(kThreadGatherAttr);
}

Operation *tgpu::operandCopy(Value v, bool &transposed) {
  if (tile::LoadOp load = tile::operandLoad(v, transposed))
    return load;
  Operation *src = tile::operandSource(v, transposed);
  return isThreadGather(src) ? src : nullptr;
}

ArrayRef<int32_t> tgpu::getPartitions(Operation *op) {
  if (auto ids = op->getAttrOfType<DenseI32ArrayAttr>(kPartitionAttr))
    return ids.asArrayRef();
  return {};
}

scf::ForOp tgpu::scheduledLoop(func::FuncOp func) {
  for (auto loop : func.getBody().front().getOps<scf::ForOp>())
    if (loop->hasAttr(kPartitionsAttr))
      return loop;
  return {};
}

int tgpu::getComputeCopies(scf::ForOp loop) {
  auto parts = loop->getAttrOfType<ArrayAttr>(kPartitionsAttr);
  int copies = 1;
  for (Attribute a : parts ? parts : ArrayAttr::get(loop.getContext(), {}))
    if (auto p = dyn_cast<PartitionAttr>(a);
        p && p.getRole() == PartitionRole::Compute)
      copies = std::max<int>(copies, p.getCopies());
  return copies;
}

bool tgpu::inRole(Operation *op, scf::ForOp loop, PartitionRole role) {
  auto parts = loop->getAttrOfType<ArrayAttr>(kPartitionsAttr);
  if (!parts)
    return false;
  return llvm::any_of(getPartitions(op), [&](int32_t i) {
    return cast<PartitionAttr>(parts[i]).getRole() == role;
  });
}

bool tgpu::writesScratch(Operation *op,
                         llvm::function_ref<bool(Operation *)> ignore) {
  return op
      ->walk([&](Operation *inner) {
        bool writes = isa<LocalStageOp>(inner) || tile::getScratchBytes(inner);
        return writes && !(ignore && ignore(inner)) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

bool tgpu::partitionTakesScratch(WarpSpecializeOp ws, unsigned index) {
  return ws.getPartition(index).getRole() == PartitionRole::Compute ||
         llvm::any_of(ws->getRegion(index).getOps(),
                      [](Operation &op) { return writesScratch(&op); });
}

int tgpu::getScratchGroups(Operation *root) {
  int groups = 0;
  root->walk([&](WarpSpecializeOp op) {
    for (unsigned i = 0; i < op->getNumRegions(); ++i)
      if (partitionTakesScratch(op, i))
        groups += op.getPartition(i).getCopies();
  });
  return std::max(groups, 1);
}

int tgpu::getRegionCopies(Operation *op) {
  for (Region *r = op->getParentRegion(); r; r = r->getParentRegion())
    if (auto ws = dyn_cast<WarpSpecializeOp>(r->getParentOp()))
      return ws.getPartition(r->getRegionNumber()).getCopies();
  return 1;
}

int tgpu::getLaunchWarps(Operation *kernel) {
  int warps = 0;
  kernel->walk([&](WarpSpecializeOp op) { warps = op.getTotalWarps(); });
  if (warps)
    return warps;
  if (auto a = kernel->getAttrOfType<IntegerAttr>(kLaunchWarpsAttr))
    return a.getInt();
  return tile::getNumWarps(kernel);
}
