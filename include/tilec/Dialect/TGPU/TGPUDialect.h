//===- TGPUDialect.h - the tgpu dialect -------------------------*- C++ -*-===//

#ifndef TILEC_DIALECT_TGPU_TGPUDIALECT_H
#define TILEC_DIALECT_TGPU_TGPUDIALECT_H

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

#include "tilec/Dialect/TGPU/TGPUDialect.h.inc"
#include "tilec/Dialect/TGPU/TGPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TGPU/TGPUTypes.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TGPU/TGPUOps.h.inc"

namespace tilec::tgpu {

/// Discardable attributes tile-select-mma-and-tma sets: the MMA a tile.dot
/// runs on (MMAAttr) and the TMA copy that serves a tile.load
/// (TMACopyAttr).
constexpr llvm::StringLiteral kMMAAttr = "tgpu.mma";
constexpr llvm::StringLiteral kTMAAttr = "tgpu.tma";
/// On a tile.gather that dots read (a unit attribute): the load
/// partition's threads gather it into the dots' swizzled slot
/// (tgpu.thread_gather), as TMA would copy a load.
constexpr llvm::StringLiteral kThreadGatherAttr = "tgpu.thread_gather";
/// The partition schedule tile-partition-schedule sets: on a loop, its
/// partitions (an array of PartitionAttr); on each op of its body, the
/// indices of the partitions that run it (a dense i32 array).
constexpr llvm::StringLiteral kPartitionsAttr = "tgpu.partitions";
constexpr llvm::StringLiteral kPartitionAttr = "tgpu.partition";
/// The partitions tile-partition-schedule lists, by index: the load
/// partition (TMA copies) and the compute partition (MMAs and math).
constexpr int32_t kLoadPartition = 0;
constexpr int32_t kComputePartition = 1;
/// sm_100a: the MMA partition (one thread issues the tcgen05 MMAs).
constexpr int32_t kMMAPartition = 2;
/// On a kernel: tile-partition-schedule decided that the warp-specialized
/// kernel walks its tiles persistently (tile::canWalkTilesPersistently):
/// a unit for the static waves (a grid of min(SMs, tiles) programs), or
/// #tile.tile_scheduler<launch_control> (sm_100a: a block a tile, running
/// blocks taking over blocks not launched yet).
constexpr llvm::StringLiteral kPersistentAttr = "tgpu.persistent";
/// On a kernel (an i32, 2): tile-partition-schedule decided that its
/// tcgen05 MMAs run over the CTA pair of its cluster of two (cta_group::2:
/// 256 rows, each CTA holding 128 of them and half of B's columns; only the
/// pair's first CTA issues them).
constexpr llvm::StringLiteral kCtaGroupAttr = "tgpu.cta_group";
/// On a kernel (TensorMemoryAttr): the tensor memory it allocates.
constexpr llvm::StringLiteral kTensorMemoryAttr = "tgpu.tensor_memory";
/// On a kernel: the first id tile-allocate-named-barriers gave each group
/// of named barriers (a dictionary of i32).
constexpr llvm::StringLiteral kNamedBarriersAttr = "tgpu.named_barriers";

/// The partitions of `op` (its tgpu.partition), empty if it has none.
llvm::ArrayRef<int32_t> getPartitions(mlir::Operation *op);
/// Whether `op` runs in a partition of role `role` of `loop`'s schedule.
bool inRole(mlir::Operation *op, mlir::scf::ForOp loop, PartitionRole role);
/// The top-level loop of `func` tile-partition-schedule scheduled (the one
/// that will be warp-specialized), or null.
mlir::scf::ForOp scheduledLoop(mlir::func::FuncOp func);
/// The consumer copies of `loop`'s compute partition (its
/// #tgpu.partition<compute, copies = N>; 1 without a schedule).
int getComputeCopies(mlir::scf::ForOp loop);

/// The shared-memory buffer of `rows` cluster-launch-control responses
/// (16 bytes each) that tgpu.try_cancel writes and tgpu.query_cancel reads.
SharedBufferType launchControlResponses(mlir::MLIRContext *ctx, int64_t rows);
/// Whether `t` is such a buffer (launchControlResponses of a power-of-two
/// number of rows).
bool isLaunchControlResponses(SharedBufferType t);

/// The MMA selected for `dot` (mma.sync where none was).
MMAAttr getMMA(tile::DotOp dot);
/// The TMA copy planned for `load`, or null.
TMACopyAttr getTMACopy(tile::LoadOp load);
/// Whether `op` is a tile.gather the load partition's threads gather into
/// a dot's slot (kThreadGatherAttr).
bool isThreadGather(mlir::Operation *op);
/// The copy a dot operand read from shared memory comes from (through
/// conversions, reshapes and a transpose, as tile::operandLoad): its
/// tile.load, or its tile.gather where the threads gather it; null if
/// none.
mlir::Operation *operandCopy(mlir::Value v, bool &transposed);

/// Whether `op` or an op nested in it writes scratch (a layout conversion
/// through shared memory, a reduction across warps, a tgpu.local_stage),
/// not counting the ops `ignore` names.
bool writesScratch(mlir::Operation *op,
                   llvm::function_ref<bool(mlir::Operation *)> ignore = {});
/// Whether partition `index` of `ws` takes a scratch area of its own: a
/// compute partition, and any other whose region writes scratch (the code
/// a kernel runs before its main loop is in every region: a reduction
/// across warps there, such as a scan of an expert table, runs in the load
/// partition at the same time as in the compute partition).
bool partitionTakesScratch(WarpSpecializeOp ws, unsigned index);
/// The groups of warps that take scratch areas (partitionTakesScratch) in
/// the tgpu.warp_specialize under `root`, each copy one; 1 if there is
/// none.
int getScratchGroups(mlir::Operation *root);
/// The copies of the tgpu.warp_specialize region `op` is in (1 outside
/// one): each copy takes its own buffers.
int getRegionCopies(mlir::Operation *op);
/// On an atomic with acquire ordering (acquire, acq_rel) that a TMA store
/// may follow (tile-tma-store-epilogue): its executing threads fence the
/// async proxy's global accesses after it (`fence.proxy.async.global`), so
/// the bulk copies they issue later are ordered after the acquire.
constexpr llvm::StringLiteral kAsyncProxyFenceAttr = "tgpu.async_proxy_fence";
/// On a kernel: where its scratch area starts in shared memory (after the
/// buffers; tile-allocate-shared-memory).
constexpr llvm::StringLiteral kScratchOffsetAttr = "tgpu.scratch_offset";
/// The bytes of shared memory SharedMemoryPlan gave a kernel when its rings
/// were sized (tile-pipeline-schedule, tile-pipeline): what tile-allocate-
/// shared-memory's `tile.shared_memory` must come to.
constexpr llvm::StringLiteral kSharedMemoryPlanAttr = "tgpu.shared_memory_plan";
/// On a kernel: the slots tile-pipeline gave each channel without a depth
/// (i32, 2..8): the kernel's tile.num_stages where it asks for one, else as
/// many as fit in shared memory. The user's knob (tile.num_stages) and the
/// choice stay apart in the IR.
constexpr llvm::StringLiteral kNumStagesAttr = "tgpu.num_stages";
/// On a kernel whose tgpu.warp_specialize has been lowered: the warps its
/// regions took, which the block launches.
constexpr llvm::StringLiteral kLaunchWarpsAttr = "tgpu.launch_warps";
/// The warps a block of `kernel` launches: its tgpu.warp_specialize's
/// regions (or kLaunchWarpsAttr once lowered), else tile.num_warps.
int getLaunchWarps(mlir::Operation *kernel);

/// Whether values of `type` can be tgpu.wgmma_wait's `after` operands (the
/// lowering stores them as 32-bit words): scalars and tiles of integers or
/// floats of at most 32 bits.
bool isWaitAfterType(mlir::Type type);

/// The tcgen05.ld/st shape a register tile's layout is: a warp moving 32
/// TMEM lanes by 32 bits a register (LinearLayout::tmem32x32b; 16-bit
/// elements two to a register), or 16 lanes by 64, 128 or 256 bits, twice
/// (tmem16x64b, tmem16x128b, tmem16x256b; 32-bit elements, 4 warps).
enum class TMemShape { Lanes32x32b, Lanes16x64b, Lanes16x128b, Lanes16x256b };
struct TMemAccess {
  TMemShape shape;
  int numWarps;
};
/// How tcgen05.ld/st move `tile` (128 rows), or nullopt if its layout is
/// none of theirs.
std::optional<TMemAccess> matchTMemAccess(mlir::RankedTensorType tile);

/// tcgen05.mma's instruction descriptor (PTX ISA 9.7.16.4.2) for inputs of
/// `elementType` (16-bit: .kind::f16, 8-bit floats: .kind::f8f6f4, f32:
/// .kind::tf32, all into f32; i8: .kind::i8 into i32), an MxN D and A and
/// B K-major or not.
uint32_t tcgen05InstructionDescriptor(mlir::Type elementType, int64_t m,
                                      int64_t n, bool aKMajor, bool bKMajor);

/// The per-instruction K of wgmma for an element type (16 for 16-bit, 32
/// for 8-bit inputs).
int64_t wgmmaK(mlir::Type elementType);

/// How a wgmma operand slot is laid out for its shared-memory descriptor:
/// which dim is contiguous (K-major or MN-major), the swizzle (bytes) and
/// the two byte strides of the descriptor.
struct OperandDescriptor {
  bool kMajor;
  int swizzleBytes;
  int64_t leadingByteOffset;
  int64_t strideByteOffset;
};
/// `operand` is 0 (A, MxK) or 1 (B, KxN). Fails if the slot's layout is not
/// a 32/64/128-byte NVMMA swizzle the descriptor can express.
std::optional<OperandDescriptor> getOperandDescriptor(SharedBufferType buffer,
                                                      int operand);
/// The NVMMA swizzle (32/64/128 bytes, along either dim) of a 2-d buffer's
/// slot layout, or -1 if it is none of them.
int getOperandDescriptorSwizzle(SharedBufferType buffer);
/// Byte offset, within a slot, of the element at `coords`.
int64_t slotByteOffset(SharedBufferType buffer,
                       llvm::ArrayRef<int64_t> coords);

/// The shared-memory slot TMA fills with a tile loaded from a view whose
/// last dim is contiguous: rows along the last dim in the widest NVMMA
/// swizzle the row fills (128/64/32 bytes), the box the tile with its last
/// dim cut to the swizzle span (the slot takes several boxes side by side).
struct TMASlot {
  llvm::SmallVector<int64_t> box;
  int64_t swizzle;
  SharedBufferType type; // one slot
};
/// Fails (saying why) for tiles TMA cannot bring in that way: rows under
/// 32 bytes, fewer than 8 rows, an outer extent over 256 (the box limit),
/// rank 1.
/// With `squeeze`, the slot drops the tile's leading unit dims (a 1xRxC
/// tile of a 3-d view fills an RxC slot; the box keeps the view's rank).
mlir::FailureOr<TMASlot> planTMASlot(mlir::RankedTensorType tile,
                                     std::string &why, bool squeeze = false);
/// The slot of a tile that registers read back (a loop's side load: a
/// per-row vector, a narrow block), not an MMA: the swizzled slot where
/// planTMASlot has one, else an unswizzled box of the whole tile (any
/// rank, every extent at most 256, rows a multiple of 16 bytes). Fails
/// saying why.
mlir::FailureOr<TMASlot> planRegisterSlot(mlir::RankedTensorType tile,
                                          std::string &why);
/// Fails (saying why) for a view TMA cannot address, whatever the run: an
/// inner stride not 1, or an outer static stride that is not a multiple
/// of 16 bytes or is 2^40 bytes or more (cuTensorMapEncodeTiled's rules;
/// dynamic strides are checked at launch, where the runtime falls back to
/// the plain loop).
mlir::LogicalResult checkTMAView(tile::TensorViewType view, std::string &why);
/// The TMA boxes a `tgpu.thread_gather` of a TMA view takes (a paged KV
/// cache's pages): a run of `rows` consecutive tile rows, one warp's in the
/// tile's layout, that proves at run time to be one box of the view is
/// `tile columns / cols` copies of `box` (`rows` along the view's `rowDim`,
/// `cols`, the slot's swizzle span, along the contiguous `colDim`, 1
/// elsewhere), box j of run k landing at `offset[j] + k * runBytes` in the
/// slot.
struct GatherBoxes {
  int rowDim, colDim;
  int64_t rows, cols;
  int64_t swizzle;
  llvm::SmallVector<int64_t> box;
  llvm::SmallVector<int64_t> offset;
  int64_t runBytes;
};
/// The boxes for a gather of `tile` (2-d, in its layout) from `view` into
/// a slot of `buffer`, runs of `rows` along view dim `rowDim`; fails saying
/// why (a run spread over warps or lanes of other runs, a slot that is no
/// NVMMA swizzle along the tile's rows, ...).
mlir::FailureOr<GatherBoxes> gatherBoxes(tile::TensorViewType view,
                                         mlir::RankedTensorType tile,
                                         SharedBufferType buffer, int rowDim,
                                         int64_t rows, std::string &why);
/// The boxes of a thread gather of a TMA view (its box names the row dim
/// and the rows); fails saying why (no TMA view, boxes that do not fit).
mlir::FailureOr<GatherBoxes> gatherBoxesOf(ThreadGatherOp op,
                                           std::string &why);
/// The widest NVMMA swizzle (128, 64 or 32 bytes) rows of `rowBytes`
/// (at least 32) fill.
int64_t rowSwizzle(int64_t rowBytes);
/// The slot of a tile TMA fills in boxes of `swizzle` bytes (what
/// planTMASlot builds once it chose the swizzle); swizzle 0 is one
/// unswizzled box of the whole tile (planRegisterSlot's).
TMASlot slotOfSwizzle(mlir::RankedTensorType tile, int64_t swizzle,
                      bool squeeze = false);
/// A staged wgmma A (OperandSource::Staged): the tile the dot's A is
/// converted from (to the register-A layout), before a 2-d transpose the
/// dot reads it through (`transposed`), and the one-slot buffer
/// tgpu.local_stage writes it into: NVMMA-swizzled along its last dim
/// (128, 64 or 32 bytes, the widest its rows fill), which the lowering can
/// store the tile's layout into. Fails (nullopt) where there is none.
/// `t` with its 2-d slots transposed (tgpu.transpose's result type): the
/// offset bases' coordinates swap.
SharedBufferType transposedSlots(SharedBufferType t);
struct StagedA {
  mlir::Value tile;
  bool transposed = false;
  SharedBufferType type;
};
std::optional<StagedA> stagedA(tile::DotOp dot);
/// The tgpu.local_stage a shared operand is (directly or through a
/// tgpu.transpose); null for any other buffer.
LocalStageOp stageOf(mlir::Value operand);
/// The slot of `load`'s TMA copy as its `tgpu.tma` records it (the
/// decision tile-select-mma-and-tma made, read, not planned again);
/// nullopt for a load without one.
std::optional<TMASlot> getTMASlot(tile::LoadOp load, bool squeeze = false);
/// The slot of a loop's side load (a tile no dot reads that the load
/// partition copies): its TMA copy's, else an unswizzled one of the whole
/// tile that the partition's threads copy into.
TMASlot getSideSlot(tile::LoadOp load);
/// A CTA pair's B (tgpu.cta_group): the slot (squeezed) of half of `tile`
/// along dim `dim` (the columns each CTA copies), or failure where the half
/// has no slot of the whole tile's swizzle.
mlir::FailureOr<TMASlot> planHalfSlot(mlir::RankedTensorType tile, int dim);

/// Use number `i` (i32) of a ring of `slots` slots lands in slot i % slots
/// and completes the phase of parity (i / slots) % 2 of that slot's barrier.
mlir::Value ringSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                     int64_t slots);
mlir::Value ringPhase(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                      int64_t slots);

/// How a 2-d distributed layout splits into column chunks of a width:
/// bit i of a chunk's number is set by the basis (0, width * 2^i), a
/// register's or a warp's. Chunks that differ in warp bits alone are held
/// by different warps at once (a tile split by columns across warpgroups);
/// the register bits pick, in each thread, the chunk it holds of those.
struct ChunkSelect {
  /// Per bit of the chunk number: the register or warp basis setting it.
  llvm::SmallVector<std::pair<InDim, unsigned>> bits;

  /// The chunk-number bits the warps set, and those the registers set, in
  /// increasing order.
  llvm::SmallVector<unsigned> chunkBits(InDim d) const;
  /// Chunks the warps hold at once.
  int64_t perRound() const { return int64_t(1) << chunkBits(InDim::Warp).size(); }
};

/// The chunks of a 2-d distributed `layout` of width `cols`. Fails if
/// some chunk bit has no register or warp basis, or if any other basis
/// reaches a column >= `cols` (a lane's, or one that also moves rows).
std::optional<ChunkSelect> chunkSelectBits(const LinearLayout &layout,
                                           int64_t cols);

} // namespace tilec::tgpu

#endif // TILEC_DIALECT_TGPU_TGPUDIALECT_H
