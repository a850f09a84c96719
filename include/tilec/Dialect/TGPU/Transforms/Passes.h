//===- Passes.h - passes that refine tgpu decisions -------------*- C++ -*-===//

#ifndef TILEC_DIALECT_TGPU_TRANSFORMS_PASSES_H
#define TILEC_DIALECT_TGPU_TRANSFORMS_PASSES_H

#include "tilec/Dialect/TGPU/TGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec {

#define GEN_PASS_DECL
#include "tilec/Dialect/TGPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/TGPU/Passes.h.inc"

/// The deepest ring (its TMA-copied loads a slot a stage, up to
/// kMaxPipelineStages) `loop`'s classic pipeline can have with the kernel
/// in a block's shared memory (SharedMemoryPlan), with a buffer `extra` in
/// use through the loop and without `without`'s scratch where given; 0 if
/// the loop has no TMA-copied load (tile-pipeline-schedule).
int64_t pipelineStagesThatFit(mlir::func::FuncOp func, mlir::scf::ForOp loop,
                              tgpu::SharedBufferType extra = {},
                              mlir::Operation *without = nullptr);

/// The loads of the operands `loop`'s dots read from shared memory, each a
/// tile TMA copies without a mask, in the loop or right before it (once a
/// tile: attention's Q), or a gather of the loop the load partition's
/// threads make into the slot (tgpu.thread_gather), or the load of a
/// K-major copy (`b = kmajor_copy`, its threads' too); empty where some dot is no async MMA (wgmma,
/// tcgen05) or some operand is no such load. Operands in registers or
/// tensor memory (attention's P) are the loop's math. Each load with
/// whether the dot reads it transposed (a load read both ways is two
/// operands, two slots, to tile-insert-channels).
llvm::SmallVector<std::pair<mlir::Operation *, bool>>
sharedOperandLoads(mlir::scf::ForOp loop);

/// Shared memory `func` takes with `loop` warp-specialized at two stages
/// (or `stages`), as tile-insert-channels, tile-warp-specialize and
/// tile-pipeline will lay it out (SharedMemoryPlan): a ring of two slots
/// (`stages`) for each operand `loads`
/// copies in the loop, a slot each of `copies` compute copies for the
/// tiles copied once, a channel's barriers for each, and scratch each
/// compute copy (not the conversions of the copied tiles, which go with
/// their loads, nor those of `without`: ops about to go). INT64_MAX where
/// a load has no TMA slot.
int64_t twoStageSharedBytes(
    mlir::func::FuncOp func, mlir::scf::ForOp loop,
    llvm::ArrayRef<std::pair<mlir::Operation *, bool>> loads, int64_t copies,
    llvm::ArrayRef<mlir::Operation *> without = {}, int64_t stages = 2);
/// The depth of the main loop's ring the kernel asks for (`tile.num_stages`),
/// at least the two every warp-specialized loop takes.
int64_t askedRingStages(mlir::func::FuncOp func);

/// The layout conversions and reshapes only `store` reads, the one it
/// stores first: what goes with the store when it becomes a TMA store.
llvm::SmallVector<mlir::Operation *> storedConversions(tile::StoreOp store);

/// Stores the tile `store` stores in the layout it is computed in: the
/// layout conversions (through shared memory) between it and the store go,
/// the reshapes between them take its layout along, and a mask is built
/// again in that layout (canStoreUnconverted). Returns whether any went.
bool storeUnconverted(tile::StoreOp store);
/// Whether storeUnconverted can take `store`: a conversion goes, and a mask
/// (under its reshapes) is computed from splats, iotas and constants
/// (tile::isRematerializable).
bool canStoreUnconverted(tile::StoreOp store);
/// Whether `v` is computed in `loop`'s body by side-effect-free scalar ops
/// from the induction variable and values defined outside the loop (what
/// the load partition can compute on its own).
bool isScalarIndex(mlir::Value v, mlir::scf::ForOp loop);
/// Whether the load partition's threads can make `op` into a slot the
/// compute partition reads: a tile.gather of `loop`'s body, or a tile.load
/// of it no TMA copy brings (a mask, a non-zero padding, rows TMA cannot
/// box), whose view is a kernel argument and whose value reaches no dot,
/// its offsets scalar indices (isScalarIndex) and its index tiles and mask
/// rematerializable from them and from tiles of index tables, so that the
/// partition computes them in its own warps.
bool producerCopy(mlir::Operation *op, mlir::scf::ForOp loop);
/// Whether the load partition can compute `op`'s index tiles and mask (a
/// tile.gather's or a tile.load's, of `loop`'s body) on its own: splats of
/// scalar indices, iotas, constants, tiles of index tables (unmasked loads
/// at scalar indices, gathers at such index tiles) that only these copies
/// read, and the math between them.
bool producerIndices(mlir::Operation *op, mlir::scf::ForOp loop);
/// Whether the load partition's threads can gather `gather` (a tile.gather
/// of `loop`'s body that only dots read) into the dots' swizzled slot:
/// 16-bit elements of a kernel argument, zero padding, a tile that has a
/// TMA slot, its index tiles and mask producerIndices. Says why not.
bool threadGatherable(tile::GatherOp gather, mlir::scf::ForOp loop,
                      std::string &why);

/// The bytes of the staging buffer `store` takes as a TMA store, one
/// compute copy's (tile-tma-store-epilogue), or nullopt where it cannot
/// be one.
std::optional<int64_t> tmaStoreStagingBytes(tile::StoreOp store);

/// The deepest ring tile.num_stages allows, and so the most slots a ring
/// of open depth gets (tile-pipeline).
constexpr int64_t kMaxPipelineStages = 8;

namespace tgpu {
/// Selects mma.sync for `dot`. A dot tile-assign-layouts gave tcgen05.ld's
/// accumulator layout (LinearLayout::tmem32x32b; a loop's, carried for it
/// alone) has its accumulator carried in the mma.sync layout through its
/// loop instead, converted once before and once after it: the fallback
/// where tcgen05 is not selected after all (an operand TMA cannot copy,
/// the plain twin). Any other dot laid out for tensor memory (attention's
/// S and O, and P as O's A) converts where it stands: its A and its
/// accumulator into mma.sync fragments, its result back.
void selectMMASync(tile::DotOp dot);
} // namespace tgpu

} // namespace tilec

#endif // TILEC_DIALECT_TGPU_TRANSFORMS_PASSES_H
