//===- Pipeline.h - the passes of tilec compile, in order -------*- C++ -*-===//
//
// The three phases `tilec compile` runs, here so that tilec-opt runs the
// same passes (-tilec-tile-pipeline, -tilec-lowering-pipeline,
// -tilec-llvm-pipeline, or -tilec-pipeline for all three; with
// -mlir-print-ir-after=<pass> it shows any stage of a compile). The driver
// reads launch metadata between the first and the second.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_PIPELINE_H
#define TILEC_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tilec {

/// The tile passes: verification, variants, layouts, the tgpu decisions,
/// warp specialization, pipelines and allocation (what --emit=mlir shows).
void buildTilePipeline(mlir::OpPassManager &pm);
/// Tiles to per-thread LLVM/NVVM ops.
void buildLoweringPipeline(mlir::OpPassManager &pm);
/// What remains, to the LLVM dialect.
void buildLLVMPipeline(mlir::OpPassManager &pm);

/// The arguments of the pipeline's passes, in order, each once: what
/// --print-ir-after accepts (besides "all").
std::vector<std::string> pipelinePassNames();

/// Registers every tilec pass and the pipelines above (tilec-opt).
void registerTilecPassesAndPipelines();

} // namespace tilec

#endif // TILEC_PIPELINE_PIPELINE_H
