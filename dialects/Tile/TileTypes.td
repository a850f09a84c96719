//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_TensorViewType : Tile_Type<"TensorView", "tensor"> {
  let summary = "a kernel argument viewing global memory";
  let description = [{
    A pointer with a shape and strides (in elements), rank 1 to 5. Dims and
    strides are static or `?`. Strides default to row-major with a contiguous
    innermost dim: `[?, ..., ?, 1]`.

    ```mlir
    !tile.tensor<?x?xbf16>
    !tile.tensor<?x128xf32, strides = [128, 1]>
    !tile.tensor<?x?xbf16, strides = [1, ?]>   // column-major
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t">:$strides);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// The dim whose stride is statically 1, or -1 if none.
    int64_t getContiguousDim() const;
  }];
}

#endif // TILE_TYPES_TD
