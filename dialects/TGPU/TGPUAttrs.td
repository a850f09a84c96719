//===- TGPUAttrs.td - tgpu dialect attributes --------------*- tablegen -*-===//
//
// The decisions tile-select-mma-and-tma makes, recorded on tile ops for the
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
    I32EnumAttrCase<"WGMMA", 1, "wgmma">,
    I32EnumAttrCase<"TCGen05", 2, "tcgen05">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_OperandSource : I32EnumAttr<"OperandSource",
    "where an MMA reads an operand from", [
    I32EnumAttrCase<"Registers", 0, "regs">,
    I32EnumAttrCase<"Shared", 1, "smem">,
    I32EnumAttrCase<"TensorMemory", 2, "tmem">,
    I32EnumAttrCase<"Staged", 3, "staged">,
    I32EnumAttrCase<"KMajorCopy", 4, "kmajor_copy">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_MMAAttr : TGPU_Attr<"MMA", "mma"> {
  let summary = "the MMA a tile.dot was selected for";
  let description = [{
    On a `tile.dot` as `tgpu.mma`: the instruction (`mma_sync`, `wgmma`,
    `tcgen05`) and where it reads A and B (`regs`, `smem`, `tmem` or
    `staged`). mma.sync reads both from registers; wgmma reads B from shared
    memory and A from shared memory (a copy's slot), registers or a
    `staged` A: a tile the loop computes in a layout that reaches the
    register-A layout only through shared memory (attention backward's Pᵀ
    and dSᵀ), which its warps write into shared memory once
    (`tgpu.local_stage`) for the MMA to read by descriptor instead of
    loading it back; tcgen05 reads B from shared memory
    and A from shared memory or tensor memory (the compute partition
    writes it there: attention's P). wgmma's 8-bit B loaded as KxN (rows
    of V in fp8 attention, possibly renamed by reshapes and transposes) is
    `kmajor_copy`: the load partition's threads copy it into a K-major
    slot (`tgpu.thread_copy` with `in_slot`), as 8-bit wgmma reads only
    K-major operands. Set by tile-select-mma-and-tma; a pass that cannot lower the
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
    bool isTCGen05() const { return getKind() == MMAKind::TCGen05; }
    /// An asynchronous MMA a warp-specialized loop runs (wgmma, tcgen05).
    bool isAsync() const { return getKind() != MMAKind::MMASync; }
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
    (tile-insert-channels, tile-pipeline-schedule) take these loads.

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
    I32EnumAttrCase<"Compute", 1, "compute">,
    I32EnumAttrCase<"MMA", 2, "mma">]> {
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
    and the math between them, except on sm_100a, where an `mma`
    partition (one thread issues tcgen05 MMAs) runs the MMAs and the
    `compute` partition the rest (the epilogue, the math on MMA results):
    `[#tgpu.partition<load>, #tgpu.partition<compute>,
    #tgpu.partition<mma>]`. A compute partition with `copies = 2` runs
    as two consumer copies (warpgroups) that take turns (the ping-pong
    schedule): `#tgpu.partition<compute, copies = 2>`; `copies` is 1 where
    it is left out. Set by tile-partition-schedule.

    On a `tgpu.warp_specialize` each region's partition also has its
    `warps` (per copy) and `regs`, the register budget its threads set
    (setmaxnreg, a warpgroup's: partitions sharing a warpgroup share it;
    left out, the threads keep the launch's even share), both decided by
    tile-warp-specialize:
    `#tgpu.partition<load, warps = 4, regs = 40>`. Left out (0) in a loop's
    schedule, where they are not decided yet.
  }];
  let parameters = (ins EnumParameter<TGPU_PartitionRole>:$role,
                        DefaultValuedParameter<"int32_t", "0">:$warps,
                        DefaultValuedParameter<"int32_t", "0">:$regs,
                        DefaultValuedParameter<"int32_t", "1">:$copies);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "PartitionRole":$role, CArg<"int32_t", "1">:$copies), [{
      return $_get($_ctxt, role, 0, 0, copies);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The threads the partition takes, all copies together.
    int32_t getThreads() const { return 32 * getWarps() * getCopies(); }
  }];
}

def TGPU_FillKind : I32EnumAttr<"FillKind", "how a channel's slot is filled", [
    I32EnumAttrCase<"TMA", 0, "tma">,
    I32EnumAttrCase<"Arrive", 1, "arrive">,
    I32EnumAttrCase<"MMA", 2, "mma">,
    I32EnumAttrCase<"AsyncCopy", 3, "async_copy">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_ReleaseKind : I32EnumAttr<"ReleaseKind",
    "how a channel's slot is released", [
    I32EnumAttrCase<"Arrive", 0, "arrive">,
    I32EnumAttrCase<"MMA", 1, "mma">]> {
  let cppNamespace = "::tilec::tgpu";
  let genSpecializedAttr = 0;
}

def TGPU_ChannelKindAttr : TGPU_Attr<"ChannelKind", "channel_kind"> {
  let summary = "how a channel's slots are filled and released";
  let description = [{
    On a `tgpu.channel` as `kind`. `fill`: `tma`, TMA copies complete the
    slot's transaction bytes (the producer's acquire announces them,
    expect_tx); `arrive`, the producer's warps write the slot and arrive;
    `mma`, MMAs write the slot (an accumulator in tensor memory) and the
    thread that issued them marks the use filled with
    `tgpu.channel_fill` (sm_100a: a tcgen05.commit to the full barrier).
    `release`: `arrive`, each consumer warp arrives once it has read the
    slot (into registers); `mma`, the MMAs reading the slot in place
    completed (sm_90a: after their wgmma wait; sm_100a: tcgen05.commit
    arrives). A channel without `kind` is `<fill = tma, release = arrive>`.
    Set by the warp-specialization passes; tile-pipeline lowers it.

    ```mlir
    %ch, %ra = tgpu.channel consumer_warps 8 kind <fill = tma, release = mma> : ...
    ```
  }];
  let parameters = (ins EnumParameter<TGPU_FillKind>:$fill,
                        EnumParameter<TGPU_ReleaseKind>:$release);
  let assemblyFormat = "`<` `fill` `=` $fill `,` `release` `=` $release `>`";
}

def TGPU_TensorMemoryAttr : TGPU_Attr<"TensorMemory", "tensor_memory"> {
  let summary = "a kernel's tensor-memory allocation (sm_100a)";
  let description = [{
    On a kernel as `tgpu.tensor_memory`: the 32-bit TMEM columns it
    allocates (a power of two from 32 to 512, all its `tgpu.tmem_alloc`
    buffers; tile-allocate-tensor-memory) and the byte offset in dynamic
    shared memory of the word where `tcgen05.alloc` writes their base
    address (tile-allocate-shared-memory; absent until then). The lowering
    brackets the kernel with the allocation: warp 0 allocates and
    relinquishes the allocation permit at entry, the block synchronizes
    (with tcgen05 fences around the barrier) and every thread reads the
    base; at each return the block synchronizes and warp 0 deallocates.

    ```mlir
    func.func @k(...) attributes {tgpu.tensor_memory = #tgpu.tensor_memory<columns = 256, address = 197632>}
    ```
  }];
  let parameters = (ins "int64_t":$columns,
                        DefaultValuedParameter<"int32_t", "1">:$ctaGroup,
                        OptionalParameter<"std::optional<int64_t>">:$address);
  let assemblyFormat = [{
    `<` `columns` `=` $columns (`,` `cta_group` `=` $ctaGroup^)?
    (`,` `address` `=` $address^)? `>`
  }];
  let genVerifyDecl = 1;
}

def TGPU_Tcgen05FenceKind : I32EnumAttr<"Tcgen05FenceKind",
    "which side of a thread synchronization a tcgen05 fence orders", [
    I32EnumAttrCase<"Before", 0, "before_thread_sync">,
    I32EnumAttrCase<"After", 1, "after_thread_sync">]> {
  let cppNamespace = "::tilec::tgpu";
}

def TGPU_TMemWaitKind : I32EnumAttr<"TMemWaitKind",
    "which tensor-memory accesses a tcgen05 wait waits for", [
    I32EnumAttrCase<"Load", 0, "load">,
    I32EnumAttrCase<"Store", 1, "store">]> {
  let cppNamespace = "::tilec::tgpu";
}

#endif // TGPU_ATTRS_TD
