//===- TileClusterMulticast.cpp - CTAs of a cluster share copies ----------===//
//
// The tile-cluster-multicast pass. A kernel that asks for
// `tile.cluster = N` runs as clusters of N programs along x. After
// materialization (tile-warp-specialize), the producer's TMA copies whose
// coordinates do not depend on `program_id x` bring the same tile to
// every CTA of the cluster: each CTA copies 1/N of the slot's boxes and
// multicasts them (`multicast N`), and the channels they complete count
// the consumers of every CTA (`cluster N`: a slot is free once all of them
// released it). Cluster barriers go before the regions (no CTA signals
// into another before its barriers exist) and after them (none leaves
// while the others may still signal it):
//
//   %ch, %ra, %rb = tgpu.channel consumer_warps 8 cluster 2 kind <...>
//   tgpu.cluster_sync
//   tgpu.warp_specialize producer(...) {
//     ... tgpu.tma_load %B[%k, %n0] -> %rb[%s], %ch multicast 2 ...
//   } consumer(...) { ... }
//   tgpu.cluster_sync
//
// A kernel whose MMAs run over the CTA pair (tgpu.cta_group, sm_100a)
// shares no copy: each CTA copies its own A and half of B, and the
// channels of its MMA thread join the pair (`pair`: their barriers the
// MMA thread waits on are the first CTA's and count both CTAs).
//
// A cluster needs the persistent tile loop (which walks tiles in whole
// clusters) and shared slots of a multiple of N boxes; where it cannot
// run, a remark says why and `tile.cluster` is dropped. A kernel without
// warp-specialized regions gets the remark that clusters need them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "tile-cluster-multicast"

namespace tilec {
#define GEN_PASS_DEF_TILECLUSTERMULTICAST
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Whether `copy` brings the same tile to every program of a row of
/// programs along x: none of its coordinates depends on program_id x.
bool sameAlongX(tgpu::TMALoadOp copy) {
  return !dependsOnProgramId(copy.getCoords(), 0);
}

struct TileClusterMulticast
    : public tilec::impl::TileClusterMulticastBase<TileClusterMulticast> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      auto cl = func->getAttrOfType<IntegerAttr>(kClusterAttr);
      if (!func->hasAttr(kKernelAttr) || !cl || cl.getInt() < 2)
        continue;
      tgpu::WarpSpecializeOp ws;
      for (auto op : func.getBody().front().getOps<tgpu::WarpSpecializeOp>())
        ws = op;
      if (!ws) {
        mlir::emitRemark(func.getLoc())
            << "tile.cluster ignored: clusters need the warp-specialized "
               "TMA main loop (sm_90a)";
        func->removeAttr(kClusterAttr);
        continue;
      }
      if (func->hasAttr(tgpu::kCtaGroupAttr))
        pair(func, ws);
      else
        share(func, ws, cl.getInt());
    }
  }

  /// A CTA pair (tgpu.cta_group): the channels the MMA thread fills or
  /// releases join the pair (`pair`: tile-pipeline puts the barriers it
  /// waits on in the first CTA, counting both CTAs); nothing multicasts.
  void pair(func::FuncOp func, tgpu::WarpSpecializeOp ws) {
    OpBuilder b(ws);
    func.walk([&](tgpu::ChannelOp ch) {
      auto kind = ch.getKind();
      if (kind && (kind->getFill() == tgpu::FillKind::MMA ||
                   kind->getRelease() == tgpu::ReleaseKind::MMA))
        ch.setPair(true);
    });
    tgpu::ClusterSyncOp::create(b, ws.getLoc());
    b.setInsertionPointAfter(ws);
    tgpu::ClusterSyncOp::create(b, ws.getLoc());
  }

  void share(func::FuncOp func, tgpu::WarpSpecializeOp ws, int n) {
    SmallVector<tgpu::TMALoadOp> shared;
    for (auto [i, region] : llvm::enumerate(ws.getPartitionRegions()))
      if (ws.getPartition(i).getRole() == tgpu::PartitionRole::Load)
        region.walk([&](tgpu::TMALoadOp copy) {
          if (sameAlongX(copy))
            shared.push_back(copy);
        });
    std::string why;
    if (!func->hasAttr(tgpu::kPersistentAttr))
      why = "it needs the persistent tile loop";
    else if (shared.empty())
      why = "no copy is the same for the programs of a cluster";
    for (tgpu::TMALoadOp copy : shared) {
      if (!why.empty())
        break;
      auto view = cast<TensorViewType>(copy.getDesc().getType());
      auto slot = cast<tgpu::SharedBufferType>(copy.getDst().getType());
      // Boxes side by side and, where a box has fewer rows than the slot,
      // rows of them (the copy's lowering splits them over the cluster).
      ArrayRef<int64_t> shape = slot.getSlotShape();
      ArrayRef<int64_t> box = view.getTmaBox();
      int64_t boxes = shape.back() / box.back();
      if (shape.size() >= 2 && box.size() >= 2)
        boxes *= shape[shape.size() - 2] / box[box.size() - 2];
      if (boxes % n)
        why = "a slot the cluster shares is not a multiple of " +
              std::to_string(n) + " TMA boxes";
    }
    if (!why.empty()) {
      // Said at the main loop (the producer's copies loop carries its
      // location).
      Location loc = ws.getLoc();
      if (!shared.empty())
        if (auto loop = shared.front()->getParentOfType<scf::ForOp>())
          loc = loop.getLoc();
      mlir::emitRemark(loc) << variantPrefix(func) << "cluster of " << n
                            << " not used: " << why;
      func->removeAttr(kClusterAttr);
      return;
    }
    OpBuilder b(ws);
    auto nAttr = b.getI32IntegerAttr(n);
    for (tgpu::TMALoadOp copy : shared) {
      copy.setMulticastAttr(nAttr);
      if (auto ch = copy.getBarriers().getDefiningOp<tgpu::ChannelOp>())
        ch.setClusterAttr(nAttr);
    }
    tgpu::ClusterSyncOp::create(b, ws.getLoc());
    b.setInsertionPointAfter(ws);
    tgpu::ClusterSyncOp::create(b, ws.getLoc());
  }
};

} // namespace
