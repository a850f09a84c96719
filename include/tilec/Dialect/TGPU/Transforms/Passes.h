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
