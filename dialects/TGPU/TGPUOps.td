//===- TGPUOps.td - tgpu dialect operations ----------------*- tablegen -*-===//

#ifndef TGPU_OPS_TD
#define TGPU_OPS_TD

include "TGPUDialect.td"
include "TGPUTypes.td"
include "TGPUAttrs.td"
include "TileTypes.td"
include "TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TGPU_Tile : Type<AnyRankedTensor.predicate, "tile", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Shared memory and mbarriers
//===----------------------------------------------------------------------===//

def TGPU_AllocOp : TGPU_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a shared-memory buffer for the whole kernel";
  let description = [{
    Buffers live for the whole kernel. tile-allocate-shared-memory places
    them one after the other (1024-byte aligned) in the kernel's dynamic
    shared memory, before the scratch that layout conversions use, and
    records where as `offset`: a byte offset per copy of the
    warp-specialized region the buffer is in (one outside), which the
    lowering needs.

    ```mlir
    %ring = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #shared>
    %slots = tgpu.alloc offset [98304, 131072] : !tgpu.smem<2x128x64xbf16, #shared>
    ```
  }];
  let arguments = (ins OptionalAttr<DenseI64ArrayAttr>:$offset);
  let results = (outs TGPU_SharedBufferType:$result);
  let assemblyFormat = "(`offset` $offset^)? attr-dict `:` type($result)";
  let builders = [OpBuilder<(ins "::mlir::Type":$type), [{
    build($_builder, $_state, type, ::mlir::DenseI64ArrayAttr());
  }]>];
  let hasVerifier = 1;
}

def TGPU_TransposeOp : TGPU_Op<"transpose", [Pure]> {
  let summary = "the same shared memory seen with its slot dims swapped";
  let description = [{
    A view of a buffer with 2-d slots in which element (i, j) of a slot of
    the result is element (j, i) of the operand's: the layout's offset
    bases have their coordinates swapped, the bytes stay where they are.
    This is how a tile that TMA brought in as NxK (K contiguous) is read as
    a K-major KxN wgmma B operand.

    ```mlir
    %bt = tgpu.transpose %b : !tgpu.smem<4x256x128xf8E4M3FN, #nk>
                           -> !tgpu.smem<4x128x256xf8E4M3FN, #kn>
    ```
  }];
  let arguments = (ins TGPU_SharedBufferType:$src);
  let results = (outs TGPU_SharedBufferType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let builders = [OpBuilder<(ins "::mlir::Value":$src)>];
  let hasVerifier = 1;
}

def TGPU_BarriersOp : TGPU_Op<"barriers",
    [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "allocate and initialize mbarriers";
  let description = [{
    Every barrier of the array expects `arrive_count` arrivals a phase. One
    thread initializes them and the whole block synchronizes, so this op
    must run on every thread (outside warp-specialized regions). Its
    8-byte barriers are placed like `tgpu.alloc`'s buffers (after them),
    `offset` a byte offset per copy of the region it is in.

    ```mlir
    %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
    %empty = tgpu.barriers arrive_count 8 offset [196608] : !tgpu.mbarriers<3>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<1>]>:$arrive_count,
                       OptionalAttr<DenseI64ArrayAttr>:$offset);
  let results = (outs TGPU_BarriersType:$result);
  let assemblyFormat = [{
    `arrive_count` $arrive_count (`offset` $offset^)? attr-dict `:` type($result)
  }];
  let builders = [OpBuilder<(ins "::mlir::Type":$type, "int64_t":$arriveCount), [{
    build($_builder, $_state, type, arriveCount, ::mlir::DenseI64ArrayAttr());
  }]>];
  let hasVerifier = 1;
}

def TGPU_WaitOp : TGPU_Op<"wait"> {
  let summary = "wait until a barrier's phase of the given parity completed";
  let description = [{
    Spins on `mbarrier.try_wait.parity` until the phase with parity `phase`
    (0 or 1) of barrier `index` has completed. Right after initialization,
    waiting on parity 1 returns at once (the phase before the first counts
    as complete), which is how producers start on empty slots.

    ```mlir
    tgpu.wait %full[%slot], %phase : !tgpu.mbarriers<3>
    ```

    With `proxy_fence`, the thread then fences the async proxy
    (`fence.proxy.async.shared::cta`): the phase hands over a slot that
    threads' cp.async copies wrote (the generic proxy) for MMAs that read
    it through the async proxy.
  }];
  let arguments = (ins TGPU_BarriersType:$barriers, I32:$index, I32:$phase,
                       UnitAttr:$proxy_fence);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase (`proxy_fence` $proxy_fence^)? attr-dict
    `:` type($barriers)
  }];
}

def TGPU_ArriveOp : TGPU_Op<"arrive"> {
  let summary = "arrive on a barrier";
  let description = [{
    With `expect_tx`, one thread of the executing warps arrives and adds
    that many bytes to the transactions the phase waits for (the bytes TMA
    copies will deliver). Without it, lane 0 of every executing warp
    arrives, after all lanes of its warp got here: the barrier's
    `arrive_count` is then the number of warps that arrive.

    ```mlir
    tgpu.arrive %full[%slot] expect_tx 49152 : !tgpu.mbarriers<3>
    tgpu.arrive %empty[%slot] : !tgpu.mbarriers<3>
    ```

    With `cluster N` (no expect_tx), the warps arrive on barrier `index` of
    each of the N CTAs of their cluster (the same barrier in each), as the
    consumers of a slot that a multicast filled in all of them do.

    With `leader`, the arrival (with or without expect_tx) goes to barrier
    `index` of the cluster's first CTA (the leader of a CTA pair, whose
    MMA thread waits on it for both CTAs) instead of this CTA's.

    With `async_copies`, every executing thread arrives once the cp.async
    copies it issued so far complete (`cp.async.mbarrier.arrive.noinc`),
    without waiting for them: the barrier's `arrive_count` is then the
    number of threads that arrive.
  }];
  let arguments = (ins TGPU_BarriersType:$barriers, I32:$index,
                       OptionalAttr<I64Attr>:$expect_tx,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$cluster,
                       UnitAttr:$leader, UnitAttr:$async_copies);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`expect_tx` $expect_tx^)? (`cluster` $cluster^)?
    (`leader` $leader^)? (`async_copies` $async_copies^)? attr-dict
    `:` type($barriers)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

def TGPU_ChannelOp : TGPU_Op<"channel", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a ring of buffer slots passed from a producer to consumers";
  let description = [{
    How a producer hands tiles to consumers without saying how deep the
    ring is or which barriers guard it. Uses are numbered 0, 1, 2, ... (a
    monotonic counter each side keeps); use i lives in one slot of every
    buffer of the channel. The producer acquires use i's slot
    (`tgpu.channel_acquire`), which waits until the consumers released use
    i - depth, and fills it with asynchronous copies (`tgpu.tma_load` with
    the channel in place of the barriers) that complete it; the consumers
    wait for use i (`tgpu.channel_wait`), read the slot, and release it
    (`tgpu.channel_release`): each of `consumer_warps` warps, in each of
    the `cluster` CTAs of a cluster when the copies multicast.

    `kind` (`#tgpu.channel_kind`) says how slots are filled and released;
    without it, TMA copies fill them and each consumer warp releases them
    (`<fill = tma, release = arrive>`).

    Buffers in tensor memory (`!tgpu.tmem<?x...>`) pass accumulators from
    an MMA partition to the warps that read them (`fill = mma`), or tiles
    the compute warps wrote from the `producer_warps` warps that each
    arrive to the MMA that reads them (`fill = arrive`: attention's P);
    such a channel says its `depth` (tensor memory is not sized like shared
    memory).

    A channel of `depth` 1 passes one tile at a time (a tile loaded once
    for a whole loop, such as attention's Q: the producer refills it when
    the consumers released the last one).

    With `pair` (sm_100a, a kernel whose MMAs run over a CTA pair,
    `tgpu.cta_group`), the channel connects the MMA thread of the pair's
    first CTA with the other side in both CTAs: barriers it waits on (the
    operands' full ones, the accumulators' empty ones) live in the first
    CTA and count both CTAs' producers or consumers; barriers the other
    side waits on (the operands' empty ones, the accumulators' full ones)
    live in each CTA, its commits multicast to both.

    `tile-pipeline` lowers a channel: `depth` slots (else as many as fit in
    shared memory next to the kernel's other buffers and scratch, at most
    its `max-stages`, or the kernel's `tile.num_stages`) of each buffer,
    and a full and an empty mbarrier a slot, with phase tracking. Like
    `tgpu.barriers`, it must run on every thread, outside warp-specialized
    regions.

    ```mlir
    %ch, %ra, %rb = tgpu.channel consumer_warps 8
        : !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.smem<?x64x256xbf16, #sb>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<1>]>:$consumer_warps,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$cluster,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$depth,
                       OptionalAttr<TGPU_ChannelKindAttr>:$kind,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$producer_warps,
                       UnitAttr:$pair);
  let results = (outs TGPU_ChannelType:$channel,
                      Variadic<AnyTypeOf<[TGPU_SharedBufferType,
                                          TGPU_TensorMemoryBufferType]>>:$buffers);
  let assemblyFormat = [{
    `consumer_warps` $consumer_warps (`producer_warps` $producer_warps^)?
    (`cluster` $cluster^)? (`pair` $pair^)? (`depth` $depth^)? (`kind` $kind^)?
    attr-dict `:` type($buffers)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of one use: a slot of every buffer (what its copies deliver).
    int64_t getUseBytes();
    /// Bytes of shared memory a use takes (slots are 1024-byte aligned).
    int64_t getUseStride();
  }];
}

def TGPU_ChannelAcquireOp : TGPU_Op<"channel_acquire"> {
  let summary = "producer: take use i's slot of a channel";
  let description = [{
    Waits until the slot of use `index` is free (the consumers released the
    use before it in that slot; at once for the first round) and announces
    the bytes of a use to the slot's full barrier: asynchronous copies into
    the slot that name the channel deliver them and complete the use. One
    thread of the executing warps announces. Returns the slot.

    ```mlir
    %s = tgpu.channel_acquire %ch[%i]
    tgpu.tma_load %a[%m, %k] -> %ra[%s], %ch : !tile.tensor<...>, !tgpu.smem<?x...>, !tgpu.channel
    ```
  }];
  let arguments = (ins TGPU_ChannelType:$channel, I32:$index);
  let results = (outs I32:$slot);
  let assemblyFormat = "$channel `[` $index `]` attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$channel, "::mlir::Value":$index), [{
    build($_builder, $_state, $_builder.getI32Type(), channel, index);
  }]>];
}

def TGPU_ChannelFillOp : TGPU_Op<"channel_fill"> {
  let summary = "producer: use i is filled when the work issued so far completes";
  let description = [{
    For a channel of kind `fill = mma`: the MMAs the executing thread
    issued into use `index`'s slot (and all it issued before) fill it; the
    consumers' wait returns once they completed (sm_100a: a tcgen05.commit
    to the slot's full barrier, from the thread that issued the MMAs).
    TMA copies complete their use themselves and need none.

    ```mlir
    %s = tgpu.channel_acquire %acc[%t]
    tgpu.tcgen05_mma %a[%k], %b[%k], %ring[%s], %on : ...
    tgpu.channel_fill %acc[%t]
    ```
  }];
  let arguments = (ins TGPU_ChannelType:$channel, I32:$index);
  let assemblyFormat = "$channel `[` $index `]` attr-dict";
  let hasVerifier = 1;
}

def TGPU_ChannelWaitOp : TGPU_Op<"channel_wait"> {
  let summary = "consumer: wait until use i of a channel is filled";
  let description = [{
    Waits until the copies of use `index` completed; returns its slot,
    which the executing warps may read until they release the use.

    ```mlir
    %s = tgpu.channel_wait %ch[%i]
    ```
  }];
  let arguments = (ins TGPU_ChannelType:$channel, I32:$index);
  let results = (outs I32:$slot);
  let assemblyFormat = "$channel `[` $index `]` attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$channel, "::mlir::Value":$index), [{
    build($_builder, $_state, $_builder.getI32Type(), channel, index);
  }]>];
}

def TGPU_ChannelReleaseOp : TGPU_Op<"channel_release"> {
  let summary = "consumer: done with use i of a channel";
  let description = [{
    Each executing warp tells the producer it no longer reads use `index`'s
    slot (in a cluster, the slot of every CTA, which the multicast copies
    fill together). The producer refills the slot once all
    `consumer_warps` warps (of each CTA) released it.

    ```mlir
    tgpu.channel_release %ch[%i]
    ```
  }];
  let arguments = (ins TGPU_ChannelType:$channel, I32:$index);
  let assemblyFormat = "$channel `[` $index `]` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

def TGPU_TMALoadOp : TGPU_Op<"tma_load"> {
  let summary = "copy a tile from global memory into a buffer slot with TMA";
  let description = [{
    `desc` is a view that TMA copies (`tma = BOX, swizzle = S`).
    One thread of the executing warps issues the bulk tensor copies that fill
    slot `slot` of `dst` with the tile of the tensor at `coords` (element
    coordinates of its first element, outermost dim first); the copies
    complete on barrier `slot` of `barriers`, delivering the slot's bytes;
    with a `tgpu.channel` in place of the barriers, `dst` is one of its
    buffers and the copies complete the use that acquired `slot`.
    A slot wider than the descriptor's box takes several copies.
    Out-of-bounds elements are zero.

    With `multicast N` the CTAs of a cluster of N (along x) share the
    copies: the CTA of rank r issues the r-th N-th of the slot's boxes,
    each multicast to the same slot (and barrier) of every CTA of the
    cluster, so every CTA receives the whole slot.

    With `leader` the copies complete on barrier `slot` of the cluster's
    first CTA (`.cta_group::2`: the CTA pair's leader, whose MMA thread
    reads both CTAs' slots), not this CTA's.

    ```mlir
    tgpu.tma_load %a[%m0, %k0] -> %ring[%slot], %full
        : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<3x128x64xbf16, #shared>, !tgpu.mbarriers<3>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$desc, Variadic<I32>:$coords,
                       TGPU_SharedBufferType:$dst, I32:$slot,
                       AnyTypeOf<[TGPU_BarriersType, TGPU_ChannelType]>:$barriers,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast,
                       UnitAttr:$leader);
  let assemblyFormat = [{
    $desc `[` $coords `]` `->` $dst `[` $slot `]` `,` $barriers
    (`multicast` $multicast^)? (`leader` $leader^)? attr-dict
    `:` type($desc) `,` type($dst) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TGPU_TMAReadyOp : TGPU_Op<"tma_ready", [Pure]> {
  let summary = "whether the runtime encoded the view's TMA descriptor";
  let description = [{
    False when the descriptor is all zero: the runtime's answer for a view
    that TMA cannot read (unaligned base or rows) in a kernel that says it
    can do without (`tile.tma_fallback`).

    ```mlir
    %ok = tgpu.tma_ready %x : !tile.tensor<?x?xf32, tma = 32x32, swizzle = 128>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$desc);
  let results = (outs I1:$result);
  let assemblyFormat = "$desc attr-dict `:` type($desc)";
}

def TGPU_TMAStoreOp : TGPU_Op<"tma_store"> {
  let summary = "store (or add) a 2-d tile through shared memory with TMA";
  let description = [{
    Writes `value` to the tensor at `coords`: the tile goes out in column
    chunks of the descriptor's box. A chunk is picked by register bits and
    warp bits of the value's layout (no lane holds columns of two chunks):
    the chunks that differ in warp bits alone (a tile split by columns
    across warpgroups) go out together, a round, each warp's chunk in a
    slot of its own; the register bits number the rounds. Round r uses
    slots (r % D) * W to (r % D) * W + W - 1 of `buffer` (W chunks a
    round, D = slots / W rounds in flight; the slots are the box, in the
    descriptor's swizzle). For each round the executing warps wait until
    its slots' previous copies have read them, write the chunks, fence the
    writes for the async proxy and synchronize; then one thread issues a
    bulk tensor copy a chunk and commits them as one bulk group. A reducing
    store whose slots hold every chunk (D = the rounds) is one batch: one
    wait, the writes of every round, one bulk group. The copies clip at
    the tensor's bounds. With `reduce add` each copy adds into the
    tensor (`cp.reduce.async.bulk.tensor .add`: f32, f16, bf16, i32)
    instead of writing it. Nothing waits for the last D rounds: a
    `tgpu.tma_store_wait` must come before the buffer is reused otherwise
    or the kernel ends. A view of more dims than 2 has a box with leading
    1s (the tile is a 2-d slice of it).

    ```mlir
    tgpu.tma_store %v, %c[%m0, %n0] via %buf
        : tensor<128x256xbf16, #acc>, !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
          !tgpu.smem<2x128x64xbf16, #shared>
    tgpu.tma_store %dq, %acc[%b, %h, %m0, %c0] via %dqbuf reduce add
        : tensor<64x128xf32, #acc_split_n>,
          !tile.tensor<?x?x?x128xf32, tma = 1x1x64x32, swizzle = 128>,
          !tgpu.smem<2x64x32xf32, #shared>
    ```
  }];
  let arguments = (ins TGPU_Tile:$value, Tile_TensorViewType:$desc,
                       Variadic<I32>:$coords, TGPU_SharedBufferType:$buffer,
                       OptionalAttr<Tile_AtomicKindAttr>:$reduce);
  let assemblyFormat = [{
    $value `,` $desc `[` $coords `]` `via` $buffer (`reduce` $reduce^)? attr-dict
    `:` type($value) `,` type($desc) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def TGPU_TMAStoreWaitOp : TGPU_Op<"tma_store_wait"> {
  let summary = "wait until the TMA stores have read their shared memory";
  let description = [{
    The thread that issued the executing warps' `tgpu.tma_store` copies
    waits until at most `pendings` of them still read shared memory
    (`cp.async.bulk.wait_group.read`). With `writes`, until their writes
    are done (`cp.async.bulk.wait_group`, then a proxy fence for global
    memory and the executing warps' barrier): a release that follows
    (an atomic's, tile-tma-store-epilogue puts one before each) then
    orders them, whichever thread issued them.

    ```mlir
    tgpu.tma_store_wait {pendings = 0}
    tgpu.tma_store_wait {pendings = 0, writes}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pendings,
                       UnitAttr:$writes);
  let assemblyFormat = "attr-dict";
}

def TGPU_ThreadCopyOp : TGPU_Op<"thread_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "the executing threads copy a tile of a view into a buffer slot";
  let description = [{
    What TMA does for a view TMA cannot read (rows not 16-byte aligned):
    the executing threads read the tile of `tensor` at `offsets` as
    `tile.load` would in the layout of `tile` (elements outside the view
    are zero; vector loads where a uniform run-time check allows, element
    loads otherwise) and store it into slot `slot` of `buffer` (the tile's
    leading unit dims dropped), each store vector right after its loads,
    so that a thread never holds the whole tile. Each thread then waits
    for its `cp.async` copies and fences its writes for the async proxy
    (`fence.proxy.async.shared::cta`): the slot is a channel's
    (tile-insert-channels), filled for an MMA that reads it through the
    async proxy (wgmma, tcgen05.mma), and the channel's fill (each warp's
    arrival, after its threads' copies) hands it over. No barrier: the
    producer acquired the slot.

    With `no_wait`, the copies are not waited for: the channel is filled
    as each thread's copies complete (`fill = async_copy`, each thread's
    `cp.async.mbarrier.arrive.noinc`) and its readers fence the async
    proxy, so the load partition issues the next use's copies while this
    one's are in flight.

    With `in_slot`, each element goes where that layout says: the same
    registers, lanes and warps as `tile`'s layout over the slot's
    coordinates (without it, the tile's own coordinates, its leading unit
    dims dropped). A K-major copy (`#tgpu.mma<..., b = kmajor_copy>`)
    writes an 8-bit B loaded as KxN so, transposed (and its rows renamed
    as the program renames them), through registers: loads along the
    view's contiguous dim, stores of the words `in_slot` makes contiguous.

    ```mlir
    tgpu.thread_copy %b[%k, %n] -> %ring[%s]
        as tensor<64x256xbf16, #coalesced>
        : !tile.tensor<?x?xbf16>, !tgpu.smem<?x64x256xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$tensor, Variadic<I32>:$offsets,
                       TGPU_SharedBufferType:$buffer, I32:$slot,
                       TypeAttrOf<TGPU_Tile>:$tile, UnitAttr:$no_wait,
                       OptionalAttr<Tile_LinearLayoutAttr>:$in_slot);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` `->` $buffer `[` $slot `]` `as` $tile
    (`no_wait` $no_wait^)? (`in_slot` $in_slot^)? attr-dict
    `:` qualified(type($tensor)) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def TGPU_ThreadGatherOp : TGPU_Op<"thread_gather", [MemoryEffects<[MemRead, MemWrite]>,
                                                     AttrSizedOperandSegments]> {
  let summary = "the executing threads gather a tile of a view into a buffer slot";
  let description = [{
    `tile.gather`'s elements (element e of `tile` is the view's element at
    `(indices[0][e], ...)`, zero where `mask` is false or an index is
    outside the view) written into slot `slot` of `buffer` instead of
    registers: a dot operand that no TMA box brings (paged K and V, rows
    through a block table), which the load partition's threads gather
    into the MMA's swizzled slot. The index tiles and mask are in the
    layout of `tile`, the load partition's copy layout. Each run of
    registers that AxisInfo proves consecutive along the view's contiguous
    dim (up to 16 bytes) is one `cp.async` (zero-filled where masked off),
    under a uniform run-time check of the view (else element loads and
    stores, fenced for the async proxy). The thread does not wait for its
    copies: its channel is `fill = async_copy`, whose fill arrives as each
    thread's copies complete and whose consumers fence the async proxy
    after their wait.

    A TMA view (`tma = BOX`: BOX is R along one view dim, the row dim, the
    swizzle span along the contiguous dim, 1 elsewhere; see
    `tgpu::gatherBoxes`) takes TMA boxes where it can: each run of R tile
    rows (one warp's, in the tile's layout) whose elements prove at run
    time to be one box of the view (the row-dim index counting up with the
    row, the contiguous-dim index with the column, every other index the
    same across the run, the mask true throughout) and whose descriptor
    the runtime encoded is brought by TMA copies, one a box of columns,
    each issued by one lane after it adds the box's bytes to barrier `slot`
    of `barriers` (`mbarrier.expect_tx`); the other runs are gathered by
    the threads as above. A paged KV cache whose pages hold whole runs
    takes boxes of a page's rows; pages of 7 tokens take cp.async.

    ```mlir
    tgpu.thread_gather %kc[%pg, %off, %h, %col] mask(%m : tensor<128x128xi1, #copy>)
        -> %ring[%s] as tensor<128x128xbf16, #copy> : !tile.tensor<?x?x?x128xbf16>,
        !tgpu.smem<?x128x128xbf16, #shared>, tensor<128x128xi32, #copy>, ...
    tgpu.thread_gather %kc[%pg, %off, %h, %col] mask(%m : tensor<64x128xi1, #runs>)
        -> %ring[%s] boxes %full : !tgpu.mbarriers<2> as tensor<64x128xbf16, #runs>
        : !tile.tensor<?x?x?x128xbf16, tma = 1x16x1x64, swizzle = 128>, ...
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$tensor, Variadic<TGPU_Tile>:$indices,
                       Optional<TGPU_Tile>:$mask,
                       TGPU_SharedBufferType:$buffer, I32:$slot,
                       Optional<AnyTypeOf<[TGPU_BarriersType, TGPU_ChannelType]>>:$barriers,
                       TypeAttrOf<TGPU_Tile>:$tile);
  let assemblyFormat = [{
    $tensor `[` $indices `]` (`mask` `(` $mask^ `:` type($mask) `)`)? `->`
    $buffer `[` $slot `]` (`boxes` $barriers^ `:` type($barriers))? `as` $tile
    attr-dict `:` qualified(type($tensor)) `,` qualified(type($buffer)) `,`
    type($indices)
  }];
  let hasVerifier = 1;
}

def TGPU_LocalLoadOp : TGPU_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a buffer slot into registers";
  let description = [{
    The tile in slot `slot` of `buffer`, in the result's layout (ldmatrix
    where the offsets allow, vector loads otherwise). The slot must have
    been filled (a completed barrier phase) before.

    ```mlir
    %t = tgpu.local_load %ring[%slot] : !tgpu.smem<3x64x64xbf16, #shared>
        -> tensor<64x64xbf16, #operand>
    ```
  }];
  let arguments = (ins TGPU_SharedBufferType:$buffer, I32:$slot);
  let results = (outs TGPU_Tile:$result);
  let assemblyFormat = [{
    $buffer `[` $slot `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TGPU_LocalStoreOp : TGPU_Op<"local_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile from registers into a buffer slot";
  let description = [{
    Stores `value` into slot `slot` of `buffer` (stmatrix where the offsets
    allow, vector stores otherwise). The executing warps synchronize before
    (earlier reads of the slot are done) and after (every thread's part is
    in shared memory for the `tgpu.local_load`s that follow). The plain
    twin keeps a loop-invariant mma.sync operand (attention's Q) this way,
    stored once before the loop and read a k-step at a time in it.

    ```mlir
    tgpu.local_store %q, %buf[%c0] : tensor<128x128xbf16, #blocked>,
        !tgpu.smem<1x128x128xbf16, #shared>
    ```
  }];
  let arguments = (ins TGPU_Tile:$value, TGPU_SharedBufferType:$buffer,
                       I32:$slot);
  let assemblyFormat = [{
    $value `,` $buffer `[` $slot `]` attr-dict `:` type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def TGPU_SlotStoreOp : TGPU_Op<"slot_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "the load partition's threads write a tile into a channel's slot";
  let description = [{
    Stores `value` (from registers) into slot `slot` of `buffer`, a
    channel's (`fill = arrive`), with no barrier: the producer acquired the
    slot, and the channel's fill (each warp's arrival after its threads'
    stores) hands it over. The load partition gathers a tile no TMA copy
    can bring (a `tile.gather` of the loop, in the coalesced layout of the
    partition's warps) and puts it in its slot so.

    ```mlir
    %g = tile.gather %scale[%rows] : ... -> tensor<64xf32, #copy>
    tgpu.slot_store %g, %ring[%s] : tensor<64xf32, #copy>,
        !tgpu.smem<?x64xf32, #shared>
    ```
  }];
  let arguments = (ins TGPU_Tile:$value, TGPU_SharedBufferType:$buffer,
                       I32:$slot);
  let assemblyFormat = [{
    $value `,` $buffer `[` $slot `]` attr-dict `:` type($value) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def TGPU_LocalStageOp : TGPU_Op<"local_stage", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tile into scratch for an asynchronous MMA to read";
  let description = [{
    Writes `value` (from registers) into the executing warps' scratch in
    shared memory, in the NVMMA layout of the result (a one-slot buffer),
    for wgmma to read in place as its A operand by descriptor (directly, or
    through a `tgpu.transpose`). The warps synchronize before (earlier
    readers of scratch are done), write (stmatrix where the layouts allow),
    fence the writes for the async proxy and synchronize again. The result
    stays valid until the next op of those warps that uses scratch
    (tile-allocate-shared-memory checks that none stands between it and its
    readers); the MMAs reading it are waited for before then.

    ```mlir
    %ds = tgpu.local_stage %dsb : tensor<64x128xbf16, #acc>
        -> !tgpu.smem<1x64x128xbf16, #nvmma>
    %dst = tgpu.transpose %ds : !tgpu.smem<1x64x128xbf16, #nvmma>
        -> !tgpu.smem<1x128x64xbf16, #nvmma_t>
    %dk = tgpu.wgmma %dst[%c0], %q[%s], %acc : ...
    ```
  }];
  let arguments = (ins TGPU_Tile:$value);
  let results = (outs TGPU_SharedBufferType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

def TGPU_WGMMAOp : TGPU_Op<"wgmma", [AllTypesMatch<["acc", "result"]>]> {
  let summary = "asynchronous warpgroup MMA";
  let description = [{
    `acc + A · B` with B (KxN) in a slot of a shared-memory buffer, A (MxK)
    in a slot too or in registers, and the accumulator in registers (a wgmma
    accumulator layout: each warpgroup of the executing warps holds 64-row
    blocks). Issues `wgmma.fence`, one `wgmma.mma_async` per k-step (k16
    for 16-bit, k32 for 8-bit inputs) and `wgmma.commit_group`. The result
    is in flight until a `tgpu.wgmma_wait` retires its group; only another
    wgmma may use it before. A shared operand may be K-major or MN-major
    (16-bit inputs), as its shared layout says. A register A is a 16-bit
    tile in the wgmma register-A layout (`LinearLayout::wgmmaOperandA`:
    per warp, mma.sync's A fragments), which is also the accumulator
    layout: an accumulator cast to 16 bits feeds the next MMA in place.

    ```mlir
    %d = tgpu.wgmma %a[%s], %b[%s], %acc : !tgpu.smem<...>, !tgpu.smem<...>,
         tensor<128x256xf32, #acc>
    %o = tgpu.wgmma %p, %v[%s], %acc : tensor<64x64xbf16, #a>,
         !tgpu.smem<...>, tensor<64x128xf32, #acc>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TGPU_SharedBufferType, TGPU_Tile]>:$a,
                       Optional<I32>:$aSlot,
                       TGPU_SharedBufferType:$b, I32:$bSlot, TGPU_Tile:$acc);
  let results = (outs TGPU_Tile:$result);
  let assemblyFormat = [{
    $a (`[` $aSlot^ `]`)? `,` $b `[` $bSlot `]` `,` $acc attr-dict
    `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def TGPU_WGMMAWaitOp : TGPU_Op<"wgmma_wait",
    [RangedTypesMatchWith<"results match values", "values", "results", "$_self">,
     AttrSizedOperandSegments]> {
  let summary = "wait until at most `pendings` wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group`. The operands (accumulators of retired groups) are
    returned unchanged and are safe to read afterwards.

    `after` lists values that are computed before the wait starts: math
    meant to overlap the MMAs still in flight (tile-mma-pipeline records
    the small results of the math it overlaps with the late MMA). ptxas
    hoists a wait above independent arithmetic, which would serialize that
    math behind the MMA; the lowering pins the wait below these values with
    a store of them that is predicated off at run time (the kernel's
    dynamic shared memory is never empty where a wgmma runs).

    ```mlir
    tgpu.wgmma_wait {pendings = 1}
    %acc2 = tgpu.wgmma_wait %acc : tensor<128x256xf32, #acc> {pendings = 0}
    %o = tgpu.wgmma_wait %y : tensor<128x64xf32, #acc>
         after(%l : tensor<128xf32, #row>) {pendings = 0}
    ```
  }];
  let arguments = (ins Variadic<TGPU_Tile>:$values,
                       Variadic<AnyType>:$after,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pendings);
  let results = (outs Variadic<TGPU_Tile>:$results);
  let assemblyFormat = [{
    ($values^ `:` type($values))? (`after` `(` $after^ `:` type($after) `)`)?
    attr-dict
  }];
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$values, "int":$pendings), [{
    build($_builder, $_state, values.getTypes(), values, ::mlir::ValueRange(),
          $_builder.getI32IntegerAttr(pendings));
  }]>];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def TGPU_WarpSpecializeOp : TGPU_Op<"warp_specialize",
    [RecursiveMemoryEffects, NoTerminator, SingleBlock]> {
  let summary = "run partitions of a kernel on different warpgroups";
  let description = [{
    One region per partition of `partitions`, in order: the block's warps
    are dealt out to the regions by their partitions' `warps` (times
    `copies`), the first warps to the first region, and each region's
    threads set their register budget to its `regs` (setmaxnreg: lowered
    below the kernel's even share, raised above it). setmaxnreg is a
    warpgroup's: every warpgroup a region with `regs` takes part of has
    that one budget, so regions smaller than a warpgroup share it with
    their neighbours there (sm_100a's one-warp load and MMA partitions,
    `regs = 40` both), and a launch with budgets is rounded up to whole
    warpgroups, the warps past the last region only joining their
    warpgroup's budget. A region without `regs` keeps the even share and
    may be any number of warps. Inside a region,
    thread and warp indices count from the region's first warp and block
    barriers synchronize only its warps (named barrier 1 + its group
    number; groups are the regions' copies in order). Regions may use
    values defined above; they talk through shared memory and mbarriers.

    A partition with `copies = N` runs N copies of its region on N groups
    of warps (`tgpu.consumer_index` tells which), each with its own thread
    indices, named barrier, scratch area and buffers: the ping-pong
    schedule, where compute copies take turns on tiles. `scratch`, set by
    tile-allocate-shared-memory, is each group's shift into the kernel's
    scratch area (a group a region copy, in order).

    ```mlir
    tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>,
                          #tgpu.partition<compute, warps = 8, regs = 232>] {
      ...
    }, {
      ...
    }
    ```
  }];
  let arguments = (ins TypedArrayAttrBase<TGPU_PartitionAttr,
                                          "partitions">:$partitions,
                       OptionalAttr<DenseI64ArrayAttr>:$scratch);
  let regions = (region VariadicRegion<SizedRegion<1>>:$partitionRegions);
  // `$partitions [scratch [..]] {REGION}, {REGION}... attr-dict`, parsed by
  // hand so that the regions belong to the operation state while they are
  // parsed (see TGPUDialect.cpp: WarpSpecializeOp::parse).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The partition region `i` runs.
    PartitionAttr getPartition(unsigned i) {
      return ::llvm::cast<PartitionAttr>(getPartitions()[i]);
    }
    /// The region of the first partition of `role`, or null.
    ::mlir::Region *getRegionOf(PartitionRole role);
    /// The warps the regions take in all (the block's, at launch).
    int getTotalWarps();
    /// The groups of warps the regions run on: one a copy of each.
    int getNumGroups();
  }];
}

def TGPU_ConsumerIndexOp : TGPU_Op<"consumer_index", [Pure]> {
  let summary = "which copy of a warp-specialized consumer region this is";
  let description = [{
    0 .. copies - 1 inside a region of a `tgpu.warp_specialize` whose
    partition runs `copies` copies (0 with one).

    ```mlir
    %c = tgpu.consumer_index : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TGPU_ClusterRankOp : TGPU_Op<"cluster_rank", [Pure]> {
  let summary = "the executing CTA's rank in its cluster";
  let description = [{
    `%cluster_ctarank`: 0 .. N - 1 in a cluster of N CTAs (0 without a
    cluster). In a CTA pair, 0 is the leader, which issues the pair's MMAs.

    ```mlir
    %r = tgpu.cluster_rank : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TGPU_WarpgroupIndexOp : TGPU_Op<"warpgroup_index", [Pure]> {
  let summary = "the executing warp's warpgroup within its region";
  let description = [{
    0, 1, ... : which four consecutive warps of the enclosing
    warp-specialized region (or consumer copy) the executing warp is in.

    ```mlir
    %wg = tgpu.warpgroup_index : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TGPU_NamedBarrierIdOp : TGPU_Op<"named_barrier_id", [Pure]> {
  let summary = "a named barrier of a group, before ids are allocated";
  let description = [{
    Barrier `index` (0 if absent) of the `count` named barriers the group
    `group` of a kernel takes (the ping-pong copies' turns, the
    warpgroups' MMA turns). The passes that build turns ask for barriers
    by group; tile-allocate-named-barriers gives each group of a kernel
    its ids (after the ones the lowering keeps, 0..3) and rewrites these
    ops to `base + index`. The lowering rejects any left.

    ```mlir
    %id = tgpu.named_barrier_id "pingpong_mma" count 2 [%copy] : i32
    ```
  }];
  let arguments = (ins StrAttr:$group,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$count,
                       Optional<I32>:$index);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $group `count` $count (` ` `[` $index^ `]`)? attr-dict `:` type($result)
  }];
}

def TGPU_NamedBarrierWaitOp : TGPU_Op<"named_barrier_wait"> {
  let summary = "wait on a named barrier (bar.sync)";
  let description = [{
    The executing warps arrive on named barrier `id` (1..15) and wait until
    `threads` threads in all have arrived; with `tgpu.named_barrier_arrive`
    from other warps this passes a turn from one group of warps to another.

    ```mlir
    tgpu.named_barrier_wait %id, 256 : i32
    ```
  }];
  let arguments = (ins I32:$id, ConfinedAttr<I32Attr, [IntMinValue<32>]>:$threads);
  let assemblyFormat = "$id `,` $threads attr-dict `:` type($id)";
}

def TGPU_NamedBarrierArriveOp : TGPU_Op<"named_barrier_arrive"> {
  let summary = "arrive on a named barrier without waiting (bar.arrive)";
  let description = [{
    ```mlir
    tgpu.named_barrier_arrive %id, 256 : i32
    ```
  }];
  let arguments = (ins I32:$id, ConfinedAttr<I32Attr, [IntMinValue<32>]>:$threads);
  let assemblyFormat = "$id `,` $threads attr-dict `:` type($id)";
}

def TGPU_ClusterSyncOp : TGPU_Op<"cluster_sync"> {
  let summary = "synchronize the threads of every CTA of the cluster";
  let description = [{
    `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`:
    after mbarrier initialization, before other CTAs may signal them or
    multicast into this CTA; at the end, before a CTA may leave while others
    still do.

    ```mlir
    tgpu.cluster_sync
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Cluster launch control (sm_100a)
//===----------------------------------------------------------------------===//

def TGPU_TryCancelOp : TGPU_Op<"try_cancel"> {
  let summary = "ask to take over the tile of a block not launched yet";
  let description = [{
    One thread of the executing warps asks the hardware to cancel the
    launch of a block (cluster) that has not started
    (`clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128`).
    The 16-byte response goes to row `index` of `response` (one slot of
    Nx4 i32, row-major) and completes 16 bytes of transactions on barrier
    `index` of `barriers`, which a `tgpu.arrive ... expect_tx 16` must have
    announced. `tgpu.query_cancel` reads the response.

    With `multicast`, only the cluster's first CTA asks, for a whole
    cluster (`.multicast::cluster::all`): the response goes to the same
    row and barrier of every CTA of the cluster, each of which announces
    its 16 bytes itself.

    ```mlir
    tgpu.try_cancel %resp[%slot], %full : !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
    tgpu.try_cancel %resp[%slot], %full multicast : !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
    ```
  }];
  let arguments = (ins TGPU_SharedBufferType:$response, I32:$index,
                       TGPU_BarriersType:$barriers, UnitAttr:$multicast);
  let assemblyFormat = [{
    $response `[` $index `]` `,` $barriers (`multicast` $multicast^)? attr-dict
    `:` type($response) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TGPU_QueryCancelOp : TGPU_Op<"query_cancel", [MemoryEffects<[MemRead]>]> {
  let summary = "the block a try_cancel response hands over, or -1";
  let description = [{
    Reads row `index` of `response` (after its barrier's phase completed)
    and returns the x index of the first block of the cluster whose launch
    was cancelled (`clusterlaunchcontrol.query_cancel.get_first_ctaid::x`;
    a multiple of the cluster's size), or -1 where the request failed
    (`query_cancel.is_canceled`: no cluster was left to cancel).

    ```mlir
    %next = tgpu.query_cancel %resp[%slot] : !tgpu.smem<2x4xi32, #rows>
    ```
  }];
  let arguments = (ins TGPU_SharedBufferType:$response, I32:$index);
  let results = (outs I32:$block);
  let assemblyFormat = "$response `[` $index `]` attr-dict `:` type($response)";
  let hasVerifier = 1;
}

def TGPU_ClaimTileOp : TGPU_Op<"claim_tile"> {
  let summary = "take the next tile of a dynamic schedule";
  let description = [{
    One thread of the executing warps adds 1 to the tile counter (element
    0 of `counter`, a view of the kernel's semaphores;
    `atom.relaxed.gpu.global.add`), writes the old value to the first word
    of row `index` of `response` (one slot of Nx4 i32, row-major) and then
    arrives on barrier `index` of `barriers` (its one arrival), so that
    the warps that wait for that phase read the value with
    `tgpu.claimed_tile`. The tile the value names is the caller's to
    compute (the programs' count plus the value, in a dynamic schedule).

    ```mlir
    tgpu.claim_tile %counter, %resp[%slot], %full : !tile.tensor<?xi32>, !tgpu.smem<2x4xi32, #rows>, !tgpu.mbarriers<2>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$counter, TGPU_SharedBufferType:$response,
                       I32:$index, TGPU_BarriersType:$barriers);
  let assemblyFormat = [{
    $counter `,` $response `[` $index `]` `,` $barriers attr-dict
    `:` qualified(type($counter)) `,` type($response) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TGPU_ClaimedTileOp : TGPU_Op<"claimed_tile", [MemoryEffects<[MemRead]>]> {
  let summary = "the counter value a tgpu.claim_tile wrote";
  let description = [{
    Reads the first word of row `index` of `response`, after the phase of
    its barrier that the claim completed.

    ```mlir
    %old = tgpu.claimed_tile %resp[%slot] : !tgpu.smem<2x4xi32, #rows>
    ```
  }];
  let arguments = (ins TGPU_SharedBufferType:$response, I32:$index);
  let results = (outs I32:$value);
  let assemblyFormat = "$response `[` $index `]` attr-dict `:` type($response)";
  let hasVerifier = 1;
}

def TGPU_ReleaseTileCounterOp : TGPU_Op<"release_tile_counter"> {
  let summary = "the program's last claim is done; the last program zeroes the counter";
  let description = [{
    One thread of the executing warps (the one that ran the program's
    `tgpu.claim_tile`s) adds 1 to element 1 of `counter`
    (`atom.acq_rel.gpu`: its claims are ordered before it); the program
    that brings it to the number of programs of the launch is the last,
    every claim of every program is done, and it sets both elements back
    to zero, as the kernel's semaphores must be left.

    ```mlir
    tgpu.release_tile_counter %counter : !tile.tensor<?xi32>
    ```
  }];
  let arguments = (ins Tile_TensorViewType:$counter);
  let assemblyFormat = "$counter attr-dict `:` qualified(type($counter))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05 (sm_100a)
//===----------------------------------------------------------------------===//

def TGPU_TMemAllocOp : TGPU_Op<"tmem_alloc", [Pure]> {
  let summary = "a tensor-memory buffer for the whole kernel";
  let description = [{
    Like `tgpu.alloc` for tensor memory: buffers live for the whole kernel
    and are parts of the kernel's one allocation (`tgpu.tensor_memory`).
    tile-allocate-tensor-memory places them side by side and records where
    as `column`: the first 32-bit column, one per copy of the
    warp-specialized region the buffer is in. The lowering gives the
    buffer's TMEM address: the allocation's base (read from shared memory)
    plus the column.

    ```mlir
    %acc = tgpu.tmem_alloc : !tgpu.tmem<2x128x128xf32>
    %acc = tgpu.tmem_alloc column [128] : !tgpu.tmem<2x128x128xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<DenseI64ArrayAttr>:$column);
  let results = (outs TGPU_TensorMemoryBufferType:$result);
  let assemblyFormat = "(`column` $column^)? attr-dict `:` type($result)";
  let builders = [OpBuilder<(ins "::mlir::Type":$type), [{
    build($_builder, $_state, type, ::mlir::DenseI64ArrayAttr());
  }]>];
  let hasVerifier = 1;
}

def TGPU_Tcgen05MMAOp : TGPU_Op<"tcgen05_mma"> {
  let summary = "asynchronous fifth-generation tensor-core MMA (one thread)";
  let description = [{
    `D = A · B + (accumulate ? D : 0)` with D (MxN) in a slot of a
    tensor-memory buffer, B (KxN) in a slot of a shared-memory buffer and A
    (MxK) in a shared-memory slot or a tensor-memory slot (16-bit A only).
    One thread of the executing warps issues one `tcgen05.mma` per k-step
    (k16 for 16-bit inputs, .kind::f16; k32 for 8-bit, .kind::f8f6f4),
    the first accumulating as `accumulate` says and the rest onto it. The
    instruction descriptor comes from the types and the operands' majors;
    the shared-memory descriptors from the slots' linear layouts, as for
    wgmma. The MMAs complete asynchronously: `tgpu.tcgen05_commit` (from
    the same thread) makes an mbarrier track them.

    With `cta_group 2` the MMA runs on the CTA pair of a cluster: M = 256
    rows, this CTA's A slot holding its 128 and its B slot half of B's
    columns (each CTA's D holds its rows); only the pair's first CTA may
    issue it.

    ```mlir
    tgpu.tcgen05_mma %a[%s], %b[%s], %acc[%t], %true
        : !tgpu.smem<4x128x64xbf16, #sa>, !tgpu.smem<4x64x256xbf16, #sb>,
          !tgpu.tmem<2x128x256xf32>
    tgpu.tcgen05_mma %p[%t], %v[%s], %o[%c0], %acc
        : !tgpu.tmem<2x128x128xbf16>, !tgpu.smem<2x128x128xbf16, #sv>,
          !tgpu.tmem<128x128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TGPU_SharedBufferType,
                                  TGPU_TensorMemoryBufferType]>:$a,
                       I32:$aSlot, TGPU_SharedBufferType:$b, I32:$bSlot,
                       TGPU_TensorMemoryBufferType:$d, I32:$dSlot,
                       I1:$accumulate,
                       DefaultValuedAttr<ConfinedAttr<I32Attr,
                           [IntMinValue<1>, IntMaxValue<2>]>, "1">:$cta_group);
  let assemblyFormat = [{
    $a `[` $aSlot `]` `,` $b `[` $bSlot `]` `,` $d `[` $dSlot `]` `,`
    $accumulate (`cta_group` $cta_group^)? attr-dict
    `:` type($a) `,` type($b) `,` type($d)
  }];
  let hasVerifier = 1;
}

def TGPU_Tcgen05CommitOp : TGPU_Op<"tcgen05_commit"> {
  let summary = "an mbarrier arrives when the thread's tcgen05 MMAs complete";
  let description = [{
    `tcgen05.commit ... .mbarrier::arrive::one`: barrier `index` gets one
    arrival once every tcgen05 operation the issuing thread started before
    has completed (MMA completion as a channel: the slots the MMAs read are
    free, the accumulator they wrote is ready). Issued by the thread that
    issued them (the first of the executing warps). With `multicast N` the
    barrier `index` of each of the first N CTAs of the cluster arrives
    (the MMAs of a CTA pair read both CTAs' slots).

    ```mlir
    tgpu.tcgen05_commit %empty[%slot] : !tgpu.mbarriers<4>
    tgpu.tcgen05_commit %empty[%slot] multicast 2 : !tgpu.mbarriers<4>
    ```
  }];
  let arguments = (ins TGPU_BarriersType:$barriers, I32:$index,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`multicast` $multicast^)? attr-dict `:` type($barriers)
  }];
}

def TGPU_TMemLoadOp : TGPU_Op<"tmem_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a tile out of tensor memory (asynchronous)";
  let description = [{
    Columns `column` .. of a slot of a tensor-memory buffer (all 128 rows)
    into a register tile, with `tcgen05.ld`: the shape (32x32b, 16x64b,
    16x128b, 16x256b) and repeat count are the ones whose layout is the
    result's (`LinearLayout::tmem32x32b` and the others); each warp reads
    the 32 lanes of its quadrant (warp % 4). The result is not readable
    until a `tgpu.tmem_wait load` returns it, its only use.

    ```mlir
    %v = tgpu.tmem_load %acc[%t] column 64
         : !tgpu.tmem<2x128x128xf32> -> tensor<128x64xf32, #tmem>
    %w = tgpu.tmem_wait load %v : tensor<128x64xf32, #tmem>
    ```
  }];
  let arguments = (ins TGPU_TensorMemoryBufferType:$src, I32:$slot,
                       DefaultValuedAttr<I64Attr, "0">:$column);
  let results = (outs TGPU_Tile:$result);
  let assemblyFormat = [{
    $src `[` $slot `]` (`column` $column^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TGPU_TMemStoreOp : TGPU_Op<"tmem_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a register tile into tensor memory (asynchronous)";
  let description = [{
    The converse of `tgpu.tmem_load` (`tcgen05.st`): 16-bit values two to
    a 32-bit column. The writes complete at the next `tgpu.tmem_wait
    store`; an MMA may read them after that (and a tcgen05 fence around
    the barrier that hands them over).

    ```mlir
    tgpu.tmem_store %p, %pt[%t] : tensor<128x128xbf16, #tmem>, !tgpu.tmem<2x128x128xbf16>
    tgpu.tmem_wait store
    ```
  }];
  let arguments = (ins TGPU_Tile:$value, TGPU_TensorMemoryBufferType:$dst,
                       I32:$slot, DefaultValuedAttr<I64Attr, "0">:$column);
  let assemblyFormat = [{
    $value `,` $dst `[` $slot `]` (`column` $column^)? attr-dict `:` type($value) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def TGPU_TMemWaitOp : TGPU_Op<"tmem_wait",
    [RangedTypesMatchWith<"results match values", "values", "results", "$_self">]> {
  let summary = "wait for the thread's tensor-memory loads or stores";
  let description = [{
    `tcgen05.wait::ld` / `::st`: until every `tcgen05.ld` (`load`) or
    `tcgen05.st` (`store`) of the executing thread completed. The values
    of `load` (the results of tmem_loads) are returned unchanged and are
    safe to read afterwards: they pass through the wait as tied registers,
    so nothing reads them before it.

    ```mlir
    %w = tgpu.tmem_wait load %v : tensor<128x64xf32, #tmem>
    tgpu.tmem_wait store
    ```
  }];
  let arguments = (ins TGPU_TMemWaitKind:$kind, Variadic<TGPU_Tile>:$values);
  let results = (outs Variadic<TGPU_Tile>:$results);
  let assemblyFormat = "$kind ($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

def TGPU_Tcgen05FenceOp : TGPU_Op<"tcgen05_fence"> {
  let summary = "order tcgen05 operations around a thread synchronization";
  let description = [{
    `tcgen05.fence::before_thread_sync` before a barrier or mbarrier
    arrive that hands tensor memory to other threads (after this thread's
    tcgen05 loads, stores or MMAs); `::after_thread_sync` after the wait on
    the other side, before its own tcgen05 operations.

    ```mlir
    tgpu.tcgen05_fence before_thread_sync
    tgpu.tcgen05_fence after_thread_sync
    ```
  }];
  let arguments = (ins TGPU_Tcgen05FenceKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

#endif // TGPU_OPS_TD
