//===- Pipeline.cpp - the tilec compile pipeline --------------------------===//

#include "Pipeline.h"

#include "tilec/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace tilec;

void tilec::configurePrinting(PassManager &pm, const CompileOptions &options) {
  if (options.printAfter.empty())
    return;
  std::vector<std::string> names = options.printAfter;
  auto after = [names](Pass *pass, Operation *) {
    for (const std::string &n : names)
      if (n == "all" || n == pass->getArgument())
        return true;
    return false;
  };
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting([](Pass *, Operation *) { return false; }, after,
                      /*printModuleScope=*/true,
                      /*printAfterOnlyOnChange=*/false);
}

LogicalResult tilec::runTilePasses(ModuleOp module,
                                   const CompileOptions &options) {
  PassManager pm(module.getContext());
  configurePrinting(pm, options);
  pm.addPass(createTileVerifyKernels());
  pm.addPass(createTileShapeVariants());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileAssignLayouts());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTileRemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileSwizzle());
  pm.addPass(createConvertTileToTGPU());
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
  pm.addPass(createTileAllocateSharedMemory());
  return pm.run(module);
}

LogicalResult tilec::runLoweringPasses(ModuleOp module,
                                       const CompileOptions &options) {
  PassManager pm(module.getContext());
  configurePrinting(pm, options);
  pm.addPass(createConvertTileToLLVM());
  return pm.run(module);
}
