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
    `!tgpu.channel` is a ring of slots a producer hands to consumers, its
    depth and barriers not chosen yet. TMA descriptors are views whose type
    carries a box and swizzle (`!tile.tensor<..., tma = ...>`).
    `tile-warp-specialize` and `tile-pipeline` produce these ops
    (tile-pipeline lowers channels to buffers and barriers);
    `convert-tile-to-llvm` lowers them to NVVM and inline PTX.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
    void registerOps();
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

class TGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TGPU_Dialect, mnemonic, traits>;

#endif // TGPU_DIALECT_TD
