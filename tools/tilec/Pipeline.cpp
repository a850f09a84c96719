//===- Pipeline.cpp - running tilec compile's pipeline --------------------===//

#include "Pipeline.h"

#include "mlir/Pass/Pass.h"


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
  return run(module, options, buildTilePipeline, "tile passes");
}

LogicalResult tilec::runLoweringPasses(ModuleOp module,
                                       const CompileOptions &options) {
  return run(module, options, buildLoweringPipeline, "lowering to LLVM/NVVM");
}

LogicalResult tilec::runLLVMPasses(ModuleOp module,
                                   const CompileOptions &options) {
  return run(module, options, buildLLVMPipeline, "to the LLVM dialect");
}
