//===- Passes.td - passes that refine tgpu decisions -------*- tablegen -*-===//

#ifndef TILEC_TGPU_PASSES_TD
#define TILEC_TGPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSelectMMAAndTMA : Pass<"tile-select-mma-and-tma", "mlir::ModuleOp"> {
  let summary = "select the MMA of each dot and the loads TMA copies";
  let description = [{
    Records, as typed attributes, what the target's fast path builds on.
    Each load of a kernel's top-level loop that TMA can copy into a
    shared-memory slot ahead of its iteration (a kernel argument with a
    unit inner stride, zero padding, indices computed from the induction
    variable and loop-invariant scalars, a tile an NVMMA-swizzled slot
    holds, a view not read otherwise) gets `tgpu.tma =
    #tgpu.tma_copy<box = [...], swizzle = S>`. Each `tile.dot` gets
    `tgpu.mma`: `#tgpu.mma<wgmma, a = smem, b = smem>` where the target
    has wgmma (module `tile.target`), the accumulator is in the wgmma
    layout and both operands are such loads (8-bit ones K-major), else
    `#tgpu.mma<mma_sync, a = regs, b = regs>`. Remarks say why a main
    loop's load or dot did not get the fast choice. tile-warp-specialize
    and tile-pipeline-schedule build on these decisions.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TilePartitionSchedule : Pass<"tile-partition-schedule", "mlir::ModuleOp"> {
  let summary = "give each op of a main loop the partitions that run it";
  let description = [{
    For each top-level loop of a kernel with a dot selected for wgmma
    (`tgpu.mma`, tile-select-mma-and-tma), on a target with wgmma: the loop
    gets `tgpu.partitions = [#tgpu.partition<load>,
    #tgpu.partition<compute>]` and every op of its body `tgpu.partition =
    array<i32: ...>`: loads TMA copies (`tgpu.tma`) the load partition,
    MMAs and all other work the compute partition, side-effect-free
    scalar code every partition that uses it. tile-insert-channels puts
    the values that cross partitions on channels; tile-warp-specialize
    builds its producer from the load partition and its consumers from
    the compute partition.

    It also records how the scheduled kernel runs: with `persistent`, and
    where the kernel's grid allows it, the kernel gets `tgpu.persistent`
    (its programs will walk the tiles of a min(SMs, tiles) grid); a kernel
    that asks for `tile.schedule = #tile.schedule<pingpong>` gets
    `#tgpu.partition<compute, copies = 2>` (two consumer warpgroups taking
    turns) where that can run, and a remark saying why not otherwise;
    on sm_100a a kernel that asks for `tile.cta_group = 2` gets
    `tgpu.cta_group = 2` (its MMAs over the CTA pair of its cluster of
    two) where that can run (docs/BLACKWELL.md), a remark otherwise.
  }];
  let options = [
    Option<"persistent", "persistent", "bool", /*default=*/"true",
           "launch min(SMs, tiles) programs that walk the tiles in "
           "L2-friendly groups (the grid becomes min(sms, gx * gy))">,
  ];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TilePlainTwin : Pass<"tile-plain-twin", "mlir::ModuleOp"> {
  let summary = "a kernel with a scheduled main loop gets a plain twin";
  let description = [{
    A kernel (not a tile-shape variant) whose main loop
    tile-partition-schedule scheduled gets `NAME__plain` right after it
    (`tile.plain_variant_of`; the kernel gets `tile.plain_variant`): the
    kernel as it is (for a family of tile shapes, its member with the
    smallest output tile), without partitions, every dot on mma.sync, for
    the runtime to launch where a view breaks TMA's rules.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TileTMAStoreEpilogue : Pass<"tile-tma-store-epilogue", "mlir::ModuleOp"> {
  let summary = "epilogue stores of a scheduled kernel through TMA";
  let description = [{
    In a kernel whose main loop tile-partition-schedule scheduled, each
    store of a 2-d tile after the loop (top level) becomes
    `tgpu.tma_store` through a `tgpu.alloc` of two box-sized slots: the
    view becomes a TMA view (box: the tile's rows by one swizzle span),
    the tile keeps its layout (the store's conversion goes), and
    `tgpu.tma_store_wait {pendings = 0}` ends the kernel. Stores that
    cannot get a remark saying why.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TileMMAPipeline : Pass<"tile-mma-pipeline", "mlir::ModuleOp"> {
  let summary = "overlap a compute partition's math with its last MMA";
  let description = [{
    A consumer loop of a warp-specialized kernel that waits for each wgmma
    at once (its math reads the results, as attention's softmax does) and
    whose last wgmma only feeds the next iteration (P·V into the carried
    output) gets that MMA issued one iteration later: iteration j issues
    its first MMA (S = Q·Kᵀ of block j), then the last MMA of iteration
    j - 1 (O += P·V of block j - 1), waits for the first alone
    (`wgmma_wait` with one group left in flight), runs the math on S while
    P·V runs, and waits for P·V only where the math reads the carried
    output (the rescale), releasing use j - 1 of the channel there. The
    loop's first iteration is peeled into a prologue without the late MMA;
    an epilogue issues the last one. The carried output becomes the late
    MMA's accumulator input, carried with its register A and slot.

    With `warpgroup-turns`, a consumer of several warpgroups also makes
    them take turns at issuing their MMAs (named barriers of the group
    "warpgroup_turn"). Off by default: with the softmax overlapping the
    warpgroup's own P·V, the turns cost attention 3-5% on the H100
    (bench/RESULTS.md, 2026-11-23).
  }];
  let options = [
    Option<"warpgroupTurns", "warpgroup-turns", "bool", /*default=*/"false",
           "make the warpgroups of a consumer take turns at issuing MMAs">
  ];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileInsertChannels : Pass<"tile-insert-channels", "mlir::ModuleOp"> {
  let summary = "put every value that crosses partitions on a channel";
  let description = [{
    In a kernel's scheduled loop (`tgpu.partitions`), every tile the load
    partition copies (`tgpu.tma`) for a dot of the compute partition that
    reads it from shared memory goes through a `tgpu.channel` of kind
    `<fill = tma, release = mma>` (created at the top of the kernel): the
    load becomes `tgpu.channel_acquire` + `tgpu.tma_load` (partition 0),
    the dot `tgpu.channel_wait` + `tgpu.wgmma` (partition 1), released
    once its MMAs completed, and the loop gets a use counter as its last
    iter_arg. Where the loop's math reads an MMA's result in its
    iteration, each MMA has a channel of its own, waited for and released
    at once; else one channel carries a use and one MMA group stays in
    flight. Tiles copied once before the loop go through a channel of
    `depth` = the compute partition's copies. The copied views become TMA
    views. Any other value that crosses from the load partition to the compute
    partition is an error. The loop stays one loop: tile-warp-specialize
    splits it. In a kernel with `tgpu.cta_group = 2` (sm_100a), B's slot
    holds half of B's columns, copied at `tgpu.cluster_rank` times the
    half, and the MMAs are `cta_group 2`.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "mlir::ModuleOp"> {
  let summary = "split a kernel's scheduled loop into a TMA producer and "
                "consumers";
  let description = [{
    On sm_90a, the loop tile-insert-channels prepared becomes a
    `tgpu.warp_specialize`: a producer warpgroup (registers lowered) runs
    the load partition (the scalar code it needs cloned, its loop carrying
    the use counter alone); the kernel's own warps become the consumers
    (registers raised) that run the rest of the kernel, the load
    partition's ops erased and the loop in a branch taken when it runs. A
    region's partition records its warps and register budget
    (`#tgpu.partition<load, warps = 4, regs = 40>`), and a compute
    partition with `copies = 2` runs as two consumer copies.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileClusterMulticast : Pass<"tile-cluster-multicast", "mlir::ModuleOp"> {
  let summary = "the CTAs of a cluster share the copies that are the same "
                "for all of them";
  let description = [{
    For a kernel with `tile.cluster = N`, after tile-warp-specialize: the
    producer's TMA copies whose coordinates do not depend on `program_id
    x` multicast to the cluster's N CTAs (`multicast N`, each CTA copying
    1/N of the boxes), the channels they complete count every CTA's
    consumers (`cluster N`), and `tgpu.cluster_sync` goes before and
    after the `tgpu.warp_specialize`. It needs `tgpu.persistent` (the tile
    loop walks tiles in whole clusters) and shared slots a multiple of N
    boxes wide; otherwise, and for kernels without warp-specialized
    regions, a remark says why and `tile.cluster` is dropped. In a kernel
    whose MMAs run over the CTA pair (`tgpu.cta_group`) nothing
    multicasts: the channels the MMA thread fills or releases become
    `pair` channels (tile-pipeline puts their barriers where their waiter
    is).
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TilePersistentTiles : Pass<"tile-persistent-tiles", "mlir::ModuleOp"> {
  let summary = "the warp-specialized regions walk the program's tiles";
  let description = [{
    In a kernel with `tgpu.persistent` (tile-partition-schedule), after
    tile-warp-specialize: both regions of the `tgpu.warp_specialize` loop
    over the program's tiles (grouped rasterization, 8 rows of tiles a
    group; clusters of `tile.cluster` programs along x), program ids x and
    y becoming the tile's coordinates, and the grid becomes `min(sms *
    blocks_per_sm, gx * gy * gz)` (in whole clusters). Each channel use counter (the last iter_arg
    of the loop whose acquires or waits it indexes) runs on across tiles;
    a channel index outside every loop (tiles copied once) becomes the
    tile's ordinal. With two consumer copies (ping-pong), copy c takes
    the program's tiles c, c + 2, ..., its counter starting at (2m + c)
    times the main loop's trip count, and the copies take turns at the
    main loop and the epilogue on barrier c of
    the named-barrier groups "pingpong_mma" and "pingpong_epilogue" (ids
    from tile-allocate-named-barriers). The trailing wait for TMA stores stays after
    the tile loop. With `tgpu.persistent =
    #tile.tile_scheduler<launch_control>` (sm_100a) the grid has a block a
    tile and each region's tile loop is an `scf.while` from the block's
    own tile: at the top of tile k the load region asks for the next
    (`tgpu.try_cancel` into response k mod 2 of a two-row buffer, after
    every warp released it; in a cluster, the first CTA for the cluster,
    multicast), at the bottom every region reads it (`tgpu.query_cancel`,
    -1 ends the loop) and releases it. In a kernel with `tgpu.cta_group`
    the MMA region's code of a tile runs in an `scf.if` on the cluster's
    first CTA (`tgpu.cluster_rank` 0). With `tgpu.persistent =
    #tile.tile_scheduler<dynamic>` the grid stays `min(sms * blocks_per_sm,
    tiles)` and the loops are the same `scf.while`s from the program's own
    tile (none past the last), but at the bottom of tile k the load region
    claims the next from a counter (`tgpu.claim_tile` into response k mod
    2: two words of semaphores, `tile.semaphores = 8` and a `tile.workspace
    semaphores` op added), every region reads it (`tgpu.claimed_tile`,
    the programs' count plus the counter's old value) and releases it, and
    after its loop the load region releases the counter
    (`tgpu.release_tile_counter`). `tgpu.persistent` is consumed.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileAllocateNamedBarriers
    : Pass<"tile-allocate-named-barriers", "mlir::ModuleOp"> {
  let summary = "give each group of named barriers of a kernel its ids";
  let description = [{
    After the passes that build turns between groups of warps
    (tile-persistent-tiles, tile-mma-pipeline): each group a kernel's
    `tgpu.named_barrier_id "G" count N [%i]` ops name gets N consecutive
    ids, after the ones the lowering keeps (0 the block's, 1 + g each
    group of warps of the `tgpu.warp_specialize`; at least 0..3), in the
    order the groups first appear; each op becomes `%i + base` (or `base`), and the
    kernel records `tgpu.named_barriers = {G = base : i32, ...}`. More than
    16 ids, or a group asked for with two counts, is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAllocateTensorMemory
    : Pass<"tile-allocate-tensor-memory", "mlir::ModuleOp"> {
  let summary = "lay out each kernel's tensor memory (sm_100a)";
  let description = [{
    Every `tgpu.tmem_alloc` of a kernel gets `column`, its first 32-bit
    column: buffers side by side in program order (one place per copy of
    the warp-specialized region it is in), each starting at a multiple of
    32 columns. The kernel records the one allocation that holds them all,
    `tgpu.tensor_memory = #tgpu.tensor_memory<columns = N>` (N the power
    of two of at least 32 that fits them; `cta_group = 2` when a
    `tgpu.tcgen05_mma` runs on a CTA pair); more than the 512 columns of
    tensor memory is an error. tile-allocate-shared-memory then places the
    word the allocation's address is written to.
  }];
}

def TileAllocateSharedMemory
    : Pass<"tile-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "lay out each kernel's shared memory";
  let description = [{
    The last pass before lowering (after tile-pipeline, which sizes the
    rings): every `tgpu.alloc` gets `offset`, its place in dynamic shared
    memory (1024-byte aligned, in program order), every `tgpu.barriers`
    its place after the buffers (8 bytes a barrier); one per copy of the
    warp-specialized region it is in, in the order the lowering lays the
    copies out. Scratch (layout conversions, reductions) follows, 128-byte
    aligned (`tgpu.scratch_offset` on the kernel), as big as the most any
    op needs, once per group of warps that runs a compute partition (the
    `tgpu.warp_specialize`'s `scratch` shifts, a group a region copy). The
    kernel records its bytes, `tile.shared_memory`; more than a block can
    have (227 KiB) is an error. A kernel with `tgpu.tensor_memory` gets the
    8 bytes where tcgen05.alloc writes its base address after the
    barriers (the attribute's `address`).
  }];
}

def TileProfile : Pass<"tile-profile", "mlir::ModuleOp"> {
  let summary = "instrument kernels for the intra-kernel profiler";
  let description = [{
    On each kernel with `tile.profile` (`tilec compile --profile`), after
    the other tile passes: tile.profile_begin / tile.profile_end around
    the kernel (`kernel`), each iteration of a loop that waits on barriers
    or issues MMAs (`iteration`, its induction variable as the argument)
    and of a loop holding such loops (`tile`), each `tgpu.wait`
    (`acquire#B` in a load partition, `wait#B` elsewhere, B the barrier
    array's ordinal), each `tgpu.wgmma` (`mma`) and `tgpu.wgmma_wait`
    (`mma_wait`), and what follows the main loop outside load partitions
    (`epilogue`). The kernel lists its scope names as
    `tile.profile_scopes` (a record's scope id is an index there).
    Kernels without `tile.profile` are left as they are.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TilePipelineSchedule : Pass<"tile-pipeline-schedule", "mlir::ModuleOp"> {
  let summary = "choose the software-pipeline schedule of loops that are not "
                "warp-specialized";
  let description = [{
    For each top-level `scf.for` of a kernel that tile-warp-specialize left
    alone, the loads that TMA can bring in ahead (from a kernel argument
    whose last dim is contiguous, at indices computed from the induction
    variable and loop-invariant scalars, tiles that fit a swizzled slot)
    get stage 0 and cluster 0; every other op of the body gets stage N - 1
    and cluster 1. The loop records N as `tile.pipeline.num_stages`: the
    kernel's `tile.num_stages`, else the most (up to `max-stages`) whose
    rings fit in shared memory next to the kernel's scratch. The schedule
    is the ops' `tile.pipeline.stage` and `tile.pipeline.cluster`
    attributes, which `tile-pipeline` expands. Loops with no such load stay
    unscheduled.
  }];
  let options = [
    Option<"maxStages", "max-stages", "int", /*default=*/"3",
           "the most ring slots to choose">,
  ];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect"];
}

def TilePipeline : Pass<"tile-pipeline", "mlir::ModuleOp"> {
  let summary = "expand software-pipeline schedules and lower channels into "
                "mbarrier-guarded rings";
  let description = [{
    First, expands each loop scheduled by tile-pipeline-schedule into a
    producer and a consumer of a `tgpu.channel` of depth N, both run by
    every warp: every stage-0 load gets a buffer of the channel (the
    NVMMA-swizzled slot TMA fills) and its view becomes a TMA view. The
    prologue acquires the first N - 1 uses and issues their copies.
    Iteration j acquires use j + N - 1 (if there is one; this waits until
    every warp released use j - 1, the slot's previous tenant) and issues
    its copies, waits for use j and reads its slot (`tgpu.local_load`,
    straight into the layout a following conversion wanted); at its end
    each warp releases use j. Where the runtime could not encode a view's
    descriptor, the loop runs as it was.

    Then lowers every `tgpu.channel` (these and those of
    tile-warp-specialize): a ring of `depth` slots per buffer, or as many
    as fit in shared memory next to the kernel's other buffers and scratch
    (at most 8, what `tile.num_stages` allows), or the kernel's
    `tile.num_stages`; the kernel records the choice as
    `tgpu.num_stages`. Full and empty mbarriers a slot with phase
    tracking: use i is slot i % depth, phase (i / depth) % 2; acquire waits
    for the empty barrier's previous phase and arms the full barrier with
    the use's bytes, wait waits for the full barrier, release arrives on
    the empty barrier (of every CTA of the cluster). A CTA pair's channel
    (`pair`): the barriers its MMA thread waits on are the leader's and
    count both CTAs (arrivals and copies `leader`), its commits multicast
    to both CTAs.
  }];
  let dependentDialects = ["::tilec::tgpu::TGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TILEC_TGPU_PASSES_TD
