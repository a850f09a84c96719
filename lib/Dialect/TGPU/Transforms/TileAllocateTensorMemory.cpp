//===- TileAllocateTensorMemory.cpp - columns in tensor memory ------------===//
//
// The tile-allocate-tensor-memory pass (sm_100a): a kernel allocates its
// tensor memory once, at entry (tcgen05.alloc takes a power of two of 32
// to 512 columns, and a CTA may not allocate again after relinquishing the
// permit, which it does so that other CTAs on the SM are not kept
// waiting). Each tgpu.tmem_alloc is a part of that allocation: this pass
// places them side by side in program order, a region copy each, and
// records the columns on the kernel, for the lowering to allocate.
//
//   %acc = tgpu.tmem_alloc column [0] : !tgpu.tmem<2x128x128xf32>
//   func.func @k(...) attributes {tgpu.tensor_memory =
//                                 #tgpu.tensor_memory<columns = 256>}
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tilec {
#define GEN_PASS_DEF_TILEALLOCATETENSORMEMORY
#include "tilec/Dialect/TGPU/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Tensor memory a CTA has: 512 columns of 128 lanes (PTX ISA 9.7.16.1).
constexpr int64_t kColumns = 512;

struct TileAllocateTensorMemory
    : public tilec::impl::TileAllocateTensorMemoryBase<
          TileAllocateTensorMemory> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(allocate(func)))
        return signalPassFailure();
  }

  LogicalResult allocate(func::FuncOp func) {
    // Each copy of each buffer, in the order the lowering lays out region
    // copies (as tile-allocate-shared-memory does for shared memory).
    SmallVector<tgpu::TMemAllocOp> allocs;
    func.walk<WalkOrder::PreOrder>(
        [&](tgpu::TMemAllocOp a) { allocs.push_back(a); });
    int group = 1;
    func.walk([&](tgpu::Tcgen05MMAOp mma) {
      group = std::max<int>(group, mma.getCtaGroup());
    });
    if (allocs.empty())
      return success();
    int64_t end = 0;
    for (tgpu::TMemAllocOp a : allocs) {
      SmallVector<int64_t> columns;
      for (int c = 0; c < tgpu::getRegionCopies(a); ++c) {
        end = llvm::alignTo(end, 32);
        columns.push_back(end);
        end += a.getType().getColumns();
      }
      a.setColumn(columns);
    }
    if (end > kColumns)
      return func.emitError() << "needs " << end
                              << " columns of tensor memory, more than the "
                              << kColumns << " a CTA has";
    int64_t columns = std::max<int64_t>(32, llvm::PowerOf2Ceil(end));
    func->setAttr(tgpu::kTensorMemoryAttr,
                  tgpu::TensorMemoryAttr::get(&getContext(), columns, group,
                                              /*address=*/std::nullopt));
    return success();
  }
};

} // namespace
