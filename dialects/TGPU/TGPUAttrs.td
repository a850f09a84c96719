//===- TGPUAttrs.td - tgpu dialect attributes --------------*- tablegen -*-===//
//
// The decisions convert-tile-to-tgpu makes, recorded on tile ops for the
// passes after it: which MMA a tile.dot runs on and which loads TMA copies
// into shared-memory slots.
//
//===----------------------------------------------------------------------===//

#ifndef TGPU_ATTRS_TD
#define TGPU_ATTRS_TD

include "TGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class TGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TGPU_MMAKind : I32EnumAttr<"MMAKind", "the MMA instruction a dot runs on", [
    I32EnumAttrCase<"MMASync", 0, "mma_sync">,
    I32EnumAttrCase<"WGMMA", 1, "wgmma">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_OperandSource : I32EnumAttr<"OperandSource",
    "where an MMA reads an operand from", [
    I32EnumAttrCase<"Registers", 0, "regs">,
    I32EnumAttrCase<"Shared", 1, "smem">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_MMAAttr : TGPU_Attr<"MMA", "mma"> {
  let summary = "the MMA a tile.dot was selected for";
  let description = [{
    On a `tile.dot` as `tgpu.mma`: the instruction (`mma_sync`, `wgmma`) and
    where it reads A and B (`regs` or `smem`). mma.sync reads both from
    registers; wgmma reads B from shared memory and A from shared memory or
    registers. Set by convert-tile-to-tgpu; a pass that cannot lower the
    selection where it stands selects again (mma.sync) and says why.

    ```mlir
    %d = tile.dot %a, %b, %c {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : ...
    ```
  }];
  let parameters = (ins EnumParameter<TGPU_MMAKind>:$kind,
                        EnumParameter<TGPU_OperandSource>:$a,
                        EnumParameter<TGPU_OperandSource>:$b);
  let assemblyFormat = "`<` $kind `,` `a` `=` $a `,` `b` `=` $b `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isWGMMA() const { return getKind() == MMAKind::WGMMA; }
    static MMAAttr mmaSync(::mlir::MLIRContext *ctx) {
      return get(ctx, MMAKind::MMASync, OperandSource::Registers,
                 OperandSource::Registers);
    }
  }];
}

def TGPU_TMACopyAttr : TGPU_Attr<"TMACopy", "tma_copy"> {
  let summary = "a load TMA copies into a shared-memory slot";
  let description = [{
    On a `tile.load` as `tgpu.tma`: TMA can serve the load (a kernel
    argument with a unit inner stride, zero padding, indices computed from
    the loop's induction variable and loop-invariant scalars) and brings it
    into an NVMMA-swizzled slot in boxes of `box` elements with `swizzle`
    bytes (`tgpu::planTMASlot`). The passes that build rings and copies
    (tile-warp-specialize, tile-pipeline-schedule) take these loads.

    ```mlir
    %a = tile.load %A[%m, %k] {tgpu.tma = #tgpu.tma_copy<box = [128, 64], swizzle = 128>} : ...
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box, "int64_t":$swizzle);
  let assemblyFormat = "`<` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `>`";
  let genVerifyDecl = 1;
}

def TGPU_PartitionRole : I32EnumAttr<"PartitionRole",
    "what a partition of a warp-specialized loop does", [
    I32EnumAttrCase<"Load", 0, "load">,
    I32EnumAttrCase<"Compute", 1, "compute">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_PartitionAttr : TGPU_Attr<"Partition", "partition"> {
  let summary = "one partition of a loop's partition schedule";
  let description = [{
    A loop scheduled for warp specialization lists its partitions as
    `tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]`;
    each op of its body names the partitions that run it by index,
    `tgpu.partition = array<i32: 0>` (scalar code both need: several).
    `load` partitions issue TMA copies; `compute` partitions run the MMAs
    and the math between them. Set by tile-partition-schedule.
  }];
  let parameters = (ins EnumParameter<TGPU_PartitionRole>:$role);
  let assemblyFormat = "`<` $role `>`";
}

#endif // TGPU_ATTRS_TD
