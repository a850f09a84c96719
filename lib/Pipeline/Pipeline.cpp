//===- Pipeline.cpp - the passes of tilec compile, in order ---------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/TGPU/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tilec::buildTilePipeline(OpPassManager &pm) {
  pm.addPass(createTileStripDebugOps());
  pm.addPass(createTileVerifyKernels());
  pm.addPass(createTileScalarMemory());
  pm.addPass(createTileShapeVariants());
  pm.addPass(createTileInvariantDivision());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileAssignLayouts());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileRemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileSwizzle());
  pm.addPass(createTileSelectMMAAndTMA());
  pm.addPass(createTilePartitionSchedule());
  pm.addPass(createTilePlainTwin());
  pm.addPass(createTileTMAStoreEpilogue());
  pm.addPass(createTileInsertChannels());
  pm.addPass(createTileWarpSpecialize());
  pm.addPass(createTileClusterMulticast());
  pm.addPass(createTilePersistentTiles());
  pm.addPass(createTileMMAPipeline());
  pm.addPass(createTileAllocateNamedBarriers());
  // Loops left alone: classic software pipelining with TMA rings.
  pm.addPass(createTilePipelineSchedule());
  pm.addPass(createTilePipeline());
  pm.addPass(createTileAllocateTensorMemory());
  pm.addPass(createTileAllocateSharedMemory());
  pm.addPass(createTileProfile());
}

void tilec::buildLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTileToLLVM());
}

void tilec::buildLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createLowerToLLVM());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

std::vector<std::string> tilec::pipelinePassNames() {
  std::vector<std::string> names;
  for (auto build : {buildTilePipeline, buildLoweringPipeline,
                     buildLLVMPipeline}) {
    OpPassManager pm("builtin.module");
    build(pm);
    for (Pass &pass : pm.getPasses())
      if (!llvm::is_contained(names, pass.getArgument().str()))
        names.push_back(pass.getArgument().str());
  }
  return names;
}

void tilec::registerTilecPassesAndPipelines() {
  registerTilePasses();
  registerTGPUPasses();
  registerConversionPasses();
  PassPipelineRegistration<>(
      "tilec-tile-pipeline",
      "tilec compile's tile passes (what --emit=mlir shows)",
      buildTilePipeline);
  PassPipelineRegistration<>("tilec-lowering-pipeline",
                             "tilec compile's lowering to LLVM/NVVM ops",
                             buildLoweringPipeline);
  PassPipelineRegistration<>("tilec-llvm-pipeline",
                             "tilec compile's last step to the LLVM dialect",
                             buildLLVMPipeline);
  PassPipelineRegistration<>(
      "tilec-pipeline", "every pass of tilec compile, in order",
      [](OpPassManager &pm) {
        buildTilePipeline(pm);
        buildLoweringPipeline(pm);
        buildLLVMPipeline(pm);
      });
}
