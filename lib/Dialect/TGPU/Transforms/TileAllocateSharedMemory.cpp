//===- TileAllocateSharedMemory.cpp - offsets in shared memory ------------===//
//
// The tile-allocate-shared-memory pass, the last before lowering: it lays
// out each kernel's dynamic shared memory and records the layout in the
// IR, so the lowering only reads it.
//
//   buffers (tgpu.alloc), 1024-byte aligned, in program order (then those
//   of a smaller alignment: cluster-launch-control responses)
//   barriers (tgpu.barriers), 8 bytes each, packed after them
//   the tensor-memory address word (tgpu.tensor_memory), 8 bytes
//   scratch, 128-byte aligned: layout conversions and reductions
//
// A buffer inside a region of a tgpu.warp_specialize whose partition runs
// N copies gets N places, one a copy, in the order the lowering lays the
// copies out (a region's buffers copy by copy):
//
//   %slots = tgpu.alloc offset [98304, 131072] : !tgpu.smem<2x128x64xbf16, ...>
//
// In a kernel with a tgpu.warp_specialize, scratch is one area after the
// barriers for the code outside the regions; each group of warps that runs
// a compute partition (each copy) takes its own part of it, recorded as
// the op's `scratch` shifts (a group a region copy, load groups 0: they
// convert no layouts). The kernel records where scratch starts,
// `tgpu.scratch_offset`.
//
// In a kernel without one, each op that needs scratch gets its own
// `tgpu.scratch_offset`: the lowest 128-byte aligned place that overlaps
// neither the barriers nor a buffer that may still be in use at the op
// (SharedMemoryLiveness; every such op starts with a barrier of all
// threads before it writes scratch). The plain twin's O epilogue thus
// converts in the bytes of its dead K and V rings:
//
//   %o = tile.convert_layout %acc {tgpu.scratch_offset = 0 : i64} : ...
//
// The kernel records the bytes it needs in all, `tile.shared_memory`;
// more than a block can have is an error here, not at launch.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TargetInfo.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/TGPU/Transforms/SharedMemoryLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "tile-allocate-shared-memory"

namespace tilec {
#define GEN_PASS_DEF_TILEALLOCATESHAREDMEMORY
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Each copy of a buffer or barrier array (op, copy), in the order the
/// lowering leaves the code in: program order, a tgpu.warp_specialize's
/// regions one after the other and each region copy by copy.
void collect(Region &region, unsigned copy,
             SmallVectorImpl<std::pair<Operation *, unsigned>> &order) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (auto ws = dyn_cast<tgpu::WarpSpecializeOp>(op)) {
        for (auto [i, r] : llvm::enumerate(ws.getPartitionRegions()))
          for (int c = 0; c < ws.getPartition(i).getCopies(); ++c)
            collect(r, c, order);
        continue;
      }
      if (isa<tgpu::AllocOp, tgpu::BarriersOp>(op))
        order.push_back({&op, copy});
      for (Region &r : op.getRegions())
        collect(r, copy, order);
    }
}

struct TileAllocateSharedMemory
    : public tilec::impl::TileAllocateSharedMemoryBase<
          TileAllocateSharedMemory> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(allocate(func)))
        return signalPassFailure();
  }

  LogicalResult allocate(func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    SmallVector<std::pair<Operation *, unsigned>> order;
    collect(func.getBody(), 0, order);

    // Buffers first (the 1024-byte aligned ones, then the rest), then
    // barriers; an op's offsets, one a copy of its region.
    DenseMap<Operation *, SmallVector<int64_t>> offsets;
    int64_t end = 0;
    // 0: 1024-aligned buffers, 1: other buffers, 2: barriers.
    auto group = [](Operation *op) {
      auto alloc = dyn_cast<tgpu::AllocOp>(op);
      return !alloc ? 2 : alloc.getType().getAlignment() == 1024 ? 0 : 1;
    };
    int64_t buffersEnd = 0;
    for (int g : {0, 1, 2}) {
      if (g == 2)
        buffersEnd = end;
      for (auto [op, copy] : order) {
        auto alloc = dyn_cast<tgpu::AllocOp>(op);
        if (group(op) != g)
          continue;
        int64_t bytes =
            alloc ? alloc.getType().getTotalBytes()
                  : 8 * cast<tgpu::BarriersOp>(op).getType().getCount();
        end = llvm::alignTo(end, alloc ? alloc.getType().getAlignment() : 8);
        SmallVector<int64_t> &places = offsets[op];
        places.resize(tgpu::getRegionCopies(op));
        places[copy] = end;
        end += bytes;
      }
    }
    for (auto &[op, places] : offsets) {
      if (auto alloc = dyn_cast<tgpu::AllocOp>(op))
        alloc.setOffset(places);
      else
        cast<tgpu::BarriersOp>(op).setOffset(places);
    }

    // A kernel with tensor memory: the word tcgen05.alloc writes the
    // allocation's address to, after the barriers.
    if (auto tm = func->getAttrOfType<tgpu::TensorMemoryAttr>(
            tgpu::kTensorMemoryAttr)) {
      end = llvm::alignTo(end, 8);
      func->setAttr(tgpu::kTensorMemoryAttr,
                    tgpu::TensorMemoryAttr::get(ctx, tm.getColumns(),
                                                tm.getCtaGroup(), end));
      end += 8;
    }

    // Without warp specialization, each op's scratch goes where no buffer
    // in use at the op is (the lowest such offset): the bytes of buffers
    // dead by then, or past all of them.
    if (!func->walk([](tgpu::WarpSpecializeOp) {
               return WalkResult::interrupt();
             }).wasInterrupted())
      return placeScratch(func, offsets, buffersEnd, end);

    // Scratch: as much as the most any op needs, once for the code
    // outside the regions and once a compute group (those run at once).
    int64_t scratch = tile::getMaxScratchBytes(func);
    int64_t perGroup = llvm::alignTo(scratch, 128);
    int computeGroups = 0;
    func.walk([&](tgpu::WarpSpecializeOp ws) {
      SmallVector<int64_t> shifts;
      for (auto [i, a] : llvm::enumerate(ws.getPartitions())) {
        auto p = cast<tgpu::PartitionAttr>(a);
        for (int c = 0; c < p.getCopies(); ++c)
          shifts.push_back(p.getRole() == tgpu::PartitionRole::Compute
                               ? perGroup * computeGroups++
                               : 0);
      }
      ws.setScratch(shifts);
    });
    int64_t scratchStart = end ? llvm::alignTo(end, 128) : 0;
    if (end)
      func->setAttr(tgpu::kScratchOffsetAttr,
                    IntegerAttr::get(IntegerType::get(ctx, 64), scratchStart));
    int64_t bytes =
        scratchStart + (computeGroups > 1 ? perGroup * computeGroups : scratch);
    return setSize(func, bytes);
  }

  /// Records the kernel's bytes of shared memory; more than a block can
  /// have is an error.
  LogicalResult setSize(func::FuncOp func, int64_t bytes) {
    int64_t most = TargetInfo::of(func).sharedMemoryPerBlock();
    if (bytes > most)
      return func.emitError() << "needs " << bytes
                              << " bytes of shared memory, more than the "
                              << most << " a block can have";
    func->setAttr(tile::kSharedMemoryAttr,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64), bytes));
    return success();
  }

  /// A kernel without regions of warps: each op that needs scratch gets an
  /// offset of its own (`tgpu.scratch_offset` on the op), 128-byte
  /// aligned, at the lowest place that overlaps neither the barriers and
  /// the tensor-memory word ([buffersEnd, end)) nor a buffer still in use
  /// at the op (SharedMemoryLiveness).
  LogicalResult
  placeScratch(func::FuncOp func,
               const DenseMap<Operation *, SmallVector<int64_t>> &offsets,
               int64_t buffersEnd, int64_t end) {
    SharedMemoryLiveness live(func);
    // Each buffer's bytes and the last place it may be in use.
    struct Buffer {
      int64_t from, to, lastUse;
    };
    SmallVector<Buffer> buffers;
    for (auto &[op, places] : offsets)
      if (auto alloc = dyn_cast<tgpu::AllocOp>(op))
        buffers.push_back({places.front(),
                           places.front() + alloc.getType().getTotalBytes(),
                           live.lastUse(alloc)});
    Builder b(&getContext());
    int64_t top = end;
    func.walk([&](Operation *op) {
      int64_t bytes = tile::getScratchBytes(op);
      if (!bytes)
        return;
      SmallVector<std::pair<int64_t, int64_t>> busy;
      if (buffersEnd < end)
        busy.push_back({buffersEnd, end});
      for (const Buffer &buf : buffers)
        if (buf.lastUse >= live.position(op))
          busy.push_back({buf.from, buf.to});
      llvm::sort(busy);
      int64_t at = 0;
      for (auto [from, to] : busy) {
        if (at + bytes <= from)
          break;
        at = std::max(at, int64_t(llvm::alignTo(to, 128)));
      }
      op->setAttr(tgpu::kScratchOffsetAttr, b.getI64IntegerAttr(at));
      top = std::max(top, at + bytes);
    });
    return setSize(func, top);
  }
};

} // namespace
