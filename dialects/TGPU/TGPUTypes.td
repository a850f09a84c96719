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
    TMA and wgmma needs (except in a buffer of cluster-launch-control
    responses, 16 bytes a row: getAlignment). A single leading `?` is a ring whose depth is not
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
    /// Where its slots start: at multiples of 1024 bytes (the 128-byte
    /// swizzle's atom), except a buffer of try_cancel responses
    /// (tgpu::launchControlResponses), 16-byte rows that nothing swizzles.
    int64_t getAlignment() const;
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

def TGPU_TensorMemoryBufferType : TGPU_Type<"TensorMemoryBuffer", "tmem"> {
  let summary = "a tensor-memory (sm_100a) buffer of one or more tile slots";
  let description = [{
    Slots of a 128-row tile in tensor memory: the last two dims are one
    slot (128 TMEM lanes by the tile's columns), leading dims count slots.
    Row i of a slot is TMEM lane i; 32-bit elements take a column each,
    16-bit elements two to a column (element j in column j / 2, the low
    half for even j), so a slot is `columns * bits / 32` columns wide and
    slots follow one another. This is the layout of tcgen05.mma's D (and
    of a tensor-memory A) for M = 128 with one CTA (PTX ISA 9.7.16.10.1,
    "Matrix fragments for tcgen05.mma", layout D for M = 128); a register
    tile reads or writes it through the layouts of tcgen05.ld/st
    (`LinearLayout::tmem32x32b` and the other tcgen05.ld/st layouts). A
    single leading `?` is a ring whose depth is not chosen yet: a buffer of
    a `tgpu.channel` (the accumulators an MMA partition hands to the
    epilogue), which `tile-pipeline` gives the channel's depth.

    ```mlir
    !tgpu.tmem<2x128x128xf32>    // two 128-column accumulators
    !tgpu.tmem<128x128xbf16>     // 64 columns
    !tgpu.tmem<?x128x256xf32>    // a channel's ring
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shape of one slot (lanes, columns of elements).
    ::llvm::ArrayRef<int64_t> getSlotShape() const {
      return getShape().take_back(2);
    }
    /// The product of the leading dims; ShapedType::kDynamic for a ring
    /// whose depth is not chosen yet.
    int64_t getNumSlots() const;
    bool hasUnknownDepth() const;
    /// The same slots, `n` of them.
    TensorMemoryBufferType withNumSlots(int64_t n) const;
    /// 32-bit TMEM columns of one slot, and of all slots.
    int64_t getSlotColumns() const;
    int64_t getColumns() const {
      assert(!hasUnknownDepth() && "a ring of unknown depth has no size");
      return getNumSlots() * getSlotColumns();
    }
  }];
}

#endif // TGPU_TYPES_TD
