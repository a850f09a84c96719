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

    A view that TMA copies (set by tile-warp-specialize) also says how: the
    box each copy moves (outermost dim first) and the shared-memory swizzle
    (0, 32, 64 or 128 bytes). Its kernel parameter then starts with the TMA
    descriptor the runtime encodes (docs/BUNDLE.md).

    ```mlir
    !tile.tensor<?x?xbf16, tma = 64x64, swizzle = 128>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t">:$strides,
    OptionalArrayRefParameter<"int64_t">:$tmaBox,
    DefaultValuedParameter<"int64_t", "0">:$tmaSwizzle);
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::Type":$elementType,
                     "::llvm::ArrayRef<int64_t>":$strides), [{
      return $_get($_ctxt, shape, elementType, strides,
                   ::llvm::ArrayRef<int64_t>(), 0);
    }]>
  ];
  let skipDefaultBuilders = 0;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// The dim whose stride is statically 1, or -1 if none.
    int64_t getContiguousDim() const;
    /// Whether TMA copies this view (it then has a box and a swizzle).
    bool isTMA() const { return !getTmaBox().empty(); }
    /// The same view without (or with) a TMA descriptor.
    TensorViewType withTMA(::llvm::ArrayRef<int64_t> box, int64_t swizzle) const;
  }];
}

#endif // TILE_TYPES_TD
