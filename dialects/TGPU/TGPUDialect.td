//===- TGPUDialect.td - the tgpu dialect -------------------*- tablegen -*-===//
//
// The `tgpu` dialect: the NVIDIA level below `tile` — shared-memory buffers,
// mbarriers, TMA copies, wgmma and warp-specialized regions.
//
//===----------------------------------------------------------------------===//

#ifndef TGPU_DIALECT_TD
#define TGPU_DIALECT_TD

include "mlir/IR/OpBase.td"

def TGPU_Dialect : Dialect {
  let name = "tgpu";
  let cppNamespace = "::tilec::tgpu";
  let summary = "NVIDIA-level ops: shared memory, mbarriers, TMA, wgmma";
  let description = [{
    Ops that name the hardware's asynchronous machinery. Shared-memory
    buffers (`!tgpu.smem`) hold one or more slots of a tile in a
    `#tile.shared` layout; `!tgpu.mbarriers<N>` is an array of N mbarriers;
    `!tgpu.tensormap` is a TMA descriptor passed as a kernel parameter.
    `tile-warp-specialize` produces these ops; `convert-tile-to-llvm` lowers
    them to inline PTX.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

class TGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TGPU_Dialect, mnemonic, traits>;

#endif // TGPU_DIALECT_TD
