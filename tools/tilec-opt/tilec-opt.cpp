//===- tilec-opt.cpp - the lit driver: every dialect and pass -------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tilec::registerTilecPassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<tilec::tile::TileDialect, tilec::tgpu::TGPUDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
