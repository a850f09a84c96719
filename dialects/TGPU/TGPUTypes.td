//===- TGPUTypes.td - tgpu dialect types -------------------*- tablegen -*-===//

#ifndef TGPU_TYPES_TD
#define TGPU_TYPES_TD

include "TGPUDialect.td"
include "TileAttrs.td"
include "mlir/IR/AttrTypeBase.td"

class TGPU_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def TGPU_SharedBufferType : TGPU_Type<"SharedBuffer", "smem"> {
  let summary = "a shared-memory buffer of one or more tile slots";
  let description = [{
    The trailing dims (as many as the layout's rank) are one slot, stored in
    the `#tile.shared` layout; leading dims count slots (a ring of stages).
    Each slot starts at a multiple of 1024 bytes, as the 128-byte swizzle of
    TMA and wgmma needs. A single leading `?` is a ring whose depth is not
    chosen yet: a buffer of a `tgpu.channel`, which `tile-pipeline` gives
    its depth.

    ```mlir
    !tgpu.smem<3x128x64xbf16, #tile.shared<offset = [...]>>
    !tgpu.smem<?x128x64xbf16, #tile.shared<offset = [...]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::tilec::tile::SharedLayoutAttr":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shape of one slot.
    ::llvm::ArrayRef<int64_t> getSlotShape() const;
    /// The product of the leading dims; ShapedType::kDynamic for a ring
    /// whose depth is not chosen yet.
    int64_t getNumSlots() const;
    bool hasUnknownDepth() const;
    /// Bytes of one slot's data, and the distance between slots.
    int64_t getSlotBytes() const;
    int64_t getSlotStride() const;
    int64_t getTotalBytes() const {
      assert(!hasUnknownDepth() && "a ring of unknown depth has no size");
      return getNumSlots() * getSlotStride();
    }
    /// The same slots (shape, layout), `n` of them.
    SharedBufferType withNumSlots(int64_t n) const;
    /// The slot's layout as the algebra's class (offset -> coordinates).
    ::tilec::LinearLayout getSlotLayout() const;
  }];
}

def TGPU_ChannelType : TGPU_Type<"Channel", "channel"> {
  let summary = "a producer-to-consumer ring of buffer slots (tgpu.channel)";
}

def TGPU_BarriersType : TGPU_Type<"Barriers", "mbarriers"> {
  let summary = "an array of mbarriers in shared memory";
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
}

#endif // TGPU_TYPES_TD
