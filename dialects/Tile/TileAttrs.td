//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_LinearLayoutAttr : Tile_Attr<"LinearLayout", "linear"> {
  let summary = "a distributed layout as a linear map over F2";
  let description = [{
    Maps the hardware index (register, lane, warp) of a value to the
    coordinates of the tile element it holds. Each input bit has a basis
    vector; the coordinates of an index are the XOR of the bases of its set
    bits. A zero basis means the element is replicated along that bit.

    ```mlir
    #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16],
                 [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
    ```
  }];
  let parameters = (ins
    "unsigned":$rank,
    ArrayRefParameter<"int64_t">:$registerBases,
    ArrayRefParameter<"int64_t">:$laneBases,
    ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout as the algebra's class.
    ::tilec::LinearLayout toLayout(::llvm::ArrayRef<int64_t> shape) const;
    static LinearLayoutAttr get(::mlir::MLIRContext *ctx,
                                const ::tilec::LinearLayout &layout);
    unsigned getNumWarps() const { return 1u << (getWarpBases().size() / getRank()); }
  }];
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "shared"> {
  let summary = "a shared-memory layout as a linear map over F2";
  let description = [{
    Maps the element offset of a value in a shared-memory buffer to the
    coordinates of the tile element stored there (one basis per offset bit).
    Swizzles are part of the map: a row bit whose basis also has a column
    component XORs that column.

    ```mlir
    // 8x8 with 16-byte chunks (8 bf16) XORed by the row:
    #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$offsetBases);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    ::tilec::LinearLayout toLayout(::llvm::ArrayRef<int64_t> shape) const;
    static SharedLayoutAttr get(::mlir::MLIRContext *ctx,
                                const ::tilec::LinearLayout &layout);
  }];
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

#endif // TILE_ATTRS_TD
