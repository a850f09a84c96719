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

/// The tile passes, to --emit=mlir.
static void addTilePasses(OpPassManager &pm) {
  pm.addPass(createTileStripDebugOps());
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
  pm.addPass(createTileAllocateTensorMemory());
  pm.addPass(createTileAllocateSharedMemory());
  pm.addPass(createTileProfile());
}

/// Tiles to per-thread LLVM/NVVM ops (launch metadata is read before).
static void addLoweringPasses(OpPassManager &pm) {
  pm.addPass(createConvertTileToLLVM());
}

/// What remains, to the LLVM dialect.
static void addLLVMPasses(OpPassManager &pm) {
  pm.addPass(createLowerToLLVM());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

static LogicalResult run(ModuleOp module, const CompileOptions &options,
                         void (*add)(OpPassManager &), StringRef what) {
  PassManager pm(module.getContext());
  configurePrinting(pm, options);
  add(pm);
  TimingScope scope;
  if (options.timing) {
    scope = options.timing->nest(what);
    pm.enableTiming(scope);
  }
  return pm.run(module);
}

LogicalResult tilec::runTilePasses(ModuleOp module,
                                   const CompileOptions &options) {
  return run(module, options, addTilePasses, "tile passes");
}

LogicalResult tilec::runLoweringPasses(ModuleOp module,
                                       const CompileOptions &options) {
  return run(module, options, addLoweringPasses, "lowering to LLVM/NVVM");
}

LogicalResult tilec::runLLVMPasses(ModuleOp module,
                                   const CompileOptions &options) {
  return run(module, options, addLLVMPasses, "to the LLVM dialect");
}

std::vector<std::string> tilec::pipelinePassNames() {
  std::vector<std::string> names;
  for (auto add : {addTilePasses, addLoweringPasses, addLLVMPasses}) {
    OpPassManager pm("builtin.module");
    add(pm);
    for (Pass &pass : pm.getPasses())
      if (!llvm::is_contained(names, pass.getArgument().str()))
        names.push_back(pass.getArgument().str());
  }
  return names;
}
