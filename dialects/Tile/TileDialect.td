//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: target-independent programs over tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "Programs over tiles for NVIDIA GPUs";
  let description = [{
    A kernel is a `func.func` marked `tile.kernel`. Its arguments are views of
    global memory (`!tile.tensor<?x?xbf16>`) and scalars. Tiles are values in
    registers: statically shaped ranked tensors with power-of-two dims, written
    `!tile.tile<128x64xbf16>` (which is `tensor<128x64xbf16>`), so that `arith`,
    `math` and `scf` ops apply to them unchanged. After layout assignment every
    tile carries a `#tile.linear` layout as its encoding.
  }];
  let useDefaultTypePrinterParser = 0;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 0;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
    ::mlir::Type parseType(::mlir::DialectAsmParser &parser) const override;
    void printType(::mlir::Type type,
                   ::mlir::DialectAsmPrinter &printer) const override;
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
