//===- TileInsertChannels.h - one kernel's channels -------------*- C++ -*-===//
//
// The state of tile-insert-channels while it rewrites one kernel's
// scheduled loop (KernelChannels, made afresh for each kernel), shared by
// its two halves: TileInsertChannels.cpp (the pass, wgmma's channels and
// what both halves use) and TileInsertChannelsTCGen05.cpp (tcgen05's:
// tensor-memory accumulators, attention's S, P and O, the CTA pair's B).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TGPU_TRANSFORMS_TILEINSERTCHANNELS_H
#define TILEC_LIB_DIALECT_TGPU_TRANSFORMS_TILEINSERTCHANNELS_H

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec::insert_channels {

using namespace mlir;
using tile::DotOp;
using tile::GatherOp;
using tile::LoadOp;


/// The load partition's warps where its threads copy the operands (views
/// TMA cannot read). sm_90a: a warpgroup, as its load partition is anyway.
/// sm_100a: two, which share a warpgroup (and its budget) with the MMA
/// warp, so that the compute warps keep the registers they have beside
/// TMA's one load warp (a warpgroup of copy warps and one for the MMA warp
/// left the epilogue 176 a thread, and two GEMM twins spilled). The
/// channel records it (producer_warps); tile-warp-specialize gives the
/// partition as many.
constexpr int64_t kCopyWarps = 4, kCopyWarpsTCGen05 = 2;

/// The rows of a thread gather's TMA box: a page of 16 tokens (vLLM's
/// default) holds one run, a page of 64 four.
constexpr int64_t kGatherBoxRows = 16;

/// One operand of a dot that TMA or the load partition's threads bring in.
struct Operand {
  Operation *load;        // its tile.load, or its tile.gather (threads)
  bool transposed;        // the dot reads the loaded tile transposed
  bool threads = false;   // copied by the load partition's threads (the
                          // load has no tgpu.tma: a view TMA cannot read;
                          // or a gather: tgpu.thread_gather)
  bool once = false;      // loaded before the loop, once a tile
  // A K-major copy (`b = kmajor_copy`): the threads write the tile
  // transposed into an NxK slot, through `chain` (the ops from the load
  // to B) as the program renames its rows.
  bool kMajorCopy = false;
  SmallVector<Operation *> chain;
  int channel = -1;       // the loop channel it goes through (not once)
  BlockArgument view;     // the kernel argument
  tgpu::TMASlot slot;     // its box, swizzle and one slot of the ring
  Value ring;
  // A CTA pair's B (tgpu.cta_group): each CTA copies the half of the
  // columns its rank says, `pairDim` the load's dim of B's columns.
  int pairDim = -1;
  int64_t pairHalf = 0;
};

/// A tile of the loop that the load partition brings in for the compute
/// partition's registers, not for an MMA (a per-row vector, a side input
/// of the loop's math): read from its slot with tgpu.local_load. `op` is
/// the tile.load (a TMA copy, or the plain twin's threads' copy) or the
/// tile.gather (the partition's threads gather it) it replaces.
struct SideLoad {
  Operation *op;
  BlockArgument view;
  tgpu::TMASlot slot;
  Value ring;
  bool threads = false; // the load partition's threads copy it (no TMA)
};

/// A dot of the loop and where its operands come from: indices into
/// Channels::operands; A's is -1 where wgmma reads A from registers.
struct MMA {
  DotOp dot;
  int a, b;
  // Each reads its operand transposed (one slot serves a tile read both
  // ways, as attention backward's K by S = Q·Kᵀ and dQ = dS·K).
  bool aT = false, bT = false;
};

inline void tag(Operation *op, ArrayRef<int32_t> parts) {
  op->setAttr(tgpu::kPartitionAttr,
              DenseI32ArrayAttr::get(op->getContext(), parts));
}

/// One kernel's rewrite: insert() puts the values crossing its scheduled
/// loop's partitions on channels.
struct KernelChannels {
  // The kernel being rewritten.
  scf::ForOp loop;
  SmallVector<MMA> mmas;
  SmallVector<Operand> operands; // the TMA-copied operands of the dots
  /// Whether the compute partition uses an MMA's result in the iteration
  /// that issues it (by def-use: a dot whose accumulator is not a value the
  /// loop carries for it alone, or a register A computed in the loop): each
  /// MMA is then waited for at once, and the use released in its own
  /// iteration; else one MMA group stays in flight. Math that reads no MMA
  /// result does not count.
  bool usesResultsInLoop = false;
  SmallVector<Value> chans; // the loop's channels (Operand::channel)
  Value onceCh;             // the channel of the tiles copied once, or null
  SmallVector<SideLoad> sides; // the loop's other copied tiles
  // What emitCopyThroughRegisters and the gathers' copies built.
  llvm::SmallPtrSet<Operation *, 16> registerCopies;
  // The gathered operands' index tiles, as the load partition built them.
  tile::RematerializeMemo gatherIndices;
  bool tcgen05 = false;     // sm_100a: the MMAs are tcgen05's
  bool threadFill = false;  // the load partition's threads copy some operands
  int32_t consumer = tgpu::kComputePartition; // the partition that reads
                                              // the operand channels

  /// The dots' TMA operands, the channel each goes through; fails where a
  /// value crosses partitions some other way.
  LogicalResult collect();

  LogicalResult insert(func::FuncOp func, scf::ForOp l);

  /// The views of the TMA-copied operands become TMA views.
  void setTMAViews(func::FuncOp func);

  /// A channel at the top of the kernel.
  tgpu::ChannelOp makeChannel(func::FuncOp func, TypeRange types,
                              int64_t consumerWarps, int64_t depth,
                              tgpu::FillKind fill, tgpu::ReleaseKind release,
                              int64_t producerWarps = 0);

  /// The tensor-memory ring of 128-row tiles of `t`'s shape and element
  /// type.
  static tgpu::TensorMemoryBufferType tmemRing(RankedTensorType t);

  /// The consumer's read of use `index` of tensor-memory channel `ch`
  /// (PTX ISA 9.7.16.6.4): wait, fence after, a tcgen05.ld of each buffer
  /// as `types`, wait::ld, fence before, release. Returns the values;
  /// `mark` sees each op at `b`'s level (to tag its partition).
  static ValueRange readOut(OpBuilder &b, Location loc, tgpu::ChannelOp ch,
                            Value index, TypeRange types,
                            llvm::function_ref<void(Operation *)> mark);

  /// The factor the loop-carried O is rescaled by before the MMA adds to it
  /// (`dot`'s accumulator is `mul`, the iter_arg times it): its index
  /// among the iter_args, or -1.
  int rescaledAccumulator(DotOp dot, arith::MulFOp &mul, Value &factor);

  /// sm_100a attention (FlashAttention-4's structure; see the file
  /// comment): S = Q·Kᵀ and O = P·V on tcgen05, S, P and O in tensor
  /// memory.
  LogicalResult insertTCGen05Attention(func::FuncOp func);

  /// sm_100a: the loop's tcgen05 MMAs, each onto an accumulator the loop
  /// carries for it alone (see the file comment; attention's loop is
  /// insertTCGen05Attention's).
  LogicalResult insertTCGen05(func::FuncOp func);

  /// A CTA pair's MMAs (tgpu.cta_group): each CTA's B slot holds half of
  /// B's columns (tile-partition-schedule checked that the half keeps B's
  /// swizzle).
  LogicalResult halveB();

  /// Removes iter_arg `idx` of the loop, which the body passes through and
  /// nothing reads after the loop.
  void dropIterArg(unsigned idx);

  /// Erases the loads and conversions nobody reads any more.
  static void eraseDead(Block *body);

  /// The load partition's warps that copy the operands.
  int64_t copyWarps() const { return tcgen05 ? kCopyWarpsTCGen05 : kCopyWarps; }

  /// The layout the copy warps hold a tile of `type` in: coalesced along
  /// dim `contig` (the last if negative).
  LinearLayout copyLayout(RankedTensorType type, int contig = -1) const;
  /// Tags `op` (built for a copy of the load partition's threads) as the
  /// load partition's, and records it among registerCopies.
  void madeByCopies(Operation *op);

  /// How the operands' slots are filled.
  tgpu::FillKind fillKind() const;

  /// The warps that fill the operands' slots (the channels'
  /// producer_warps): the copy warps where the threads copy, 0 for TMA.
  int64_t producerWarps() const { return threadFill ? copyWarps() : 0; }

  /// The load partition's threads' copy of `o` into `slot` of its ring, in
  /// place of its load: the tile in the coalesced layout of the
  /// partition's warps (the channel's fill follows the last copy). A
  /// gather that can take TMA boxes (planGatherBoxes) has them complete on
  /// `ch`.
  void emitThreadCopy(OpBuilder &b, Operand &o, Value slot, Value ch);
  /// A K-major copy's layouts: its tgpu.thread_copy's tile layout and
  /// `in_slot`. Each thread loads 16 bytes along the view's contiguous dim
  /// from each of the rows that make one 4-byte word of the NxK slot, and
  /// stores words; a warp's lanes hold the slot's next K bits (its stores
  /// fill slot rows, free of bank conflicts), its warps the contiguous
  /// dim's next bits.
  std::pair<LinearLayout, LinearLayout>
  kMajorCopyLayouts(const Operand &o) const;

  /// Whether the load partition can take TMA boxes for `gather` (into
  /// `ring`; tgpu::gatherBoxes), runs of kGatherBoxRows rows along the
  /// innermost view dim whose index AxisInfo does not prove constant along
  /// the rows: if so, `layout` (the copy layout) becomes one whose warps
  /// hold whole runs, the view a TMA view of the box whose descriptor the
  /// runtime may leave zero (tile.tma_fallback: the threads gather every
  /// run then).
  bool planGatherBoxes(GatherOp gather, Value ring, LinearLayout &layout);

  /// The TMA copy of `o` into `slot` of its ring, completing on `ch`, in
  /// place of its load.
  void emitCopy(OpBuilder &b, Operand &o, Value slot, Value ch);

  /// The load partition's side: each channel's use acquired before its
  /// first copy, each copy where its load stood (the tiles copied once
  /// before the loop, use %t0 of theirs).
  void insertProducer();

  /// The side loads' channels (one for TMA's copies, one for the
  /// threads'; a use an iteration, the loop's counter): the load partition
  /// acquires each and copies each tile where its load stood; the compute
  /// partition waits before the first op that reads one, reads each slot
  /// into registers (tgpu.local_load, the layout its reader needs) and
  /// releases the use at once.
  void insertSideLoads(func::FuncOp func);
  void insertSideChannel(func::FuncOp func, MutableArrayRef<SideLoad> group);

  /// The load partition's gather (or masked load, or load with a non-zero
  /// padding) of side tile `s` into `slot`, in its place: the index tiles
  /// and mask computed again in the coalesced layout of the partition's
  /// copy warps, the gather (load) in it, and tgpu.slot_store.
  void emitCopyThroughRegisters(OpBuilder &b, SideLoad &s, Value slot);

  /// The use index of the tiles copied once (%t0), or null.
  Value onceTile;

  /// The use counter: a new last iter_arg of the loop, starting at %i0 (a
  /// constant of its own before the loop); insertConsumer makes it count.
  void addCounter();

  /// The compute partition's side: each channel's use waited for before
  /// the first MMA reading it, the dots become wgmmas, and the uses are
  /// released once their MMAs completed; the counter counts.
  void insertConsumer();

  /// Erases `op` and the ops its results reached if nothing else reads
  /// them (conversions of a tile nobody reads any more).
  static void eraseUnused(Operation *op);

  /// Waits for the MMAs `issued` (in order, each with its index in
  /// `mmas`) right before the first op that reads each result, releasing
  /// the channels whose last reader is done.
  void insertDeferredWaits(
      llvm::ArrayRef<std::pair<tgpu::WGMMAOp, int>> issued,
      llvm::ArrayRef<int> lastReader, Value i);
  /// The ring as the dot reads it (transposed slots where the dot
  /// transposes the loaded tile), next to the ring's allocation.
  static Value mmaOperand(const Operand &o);
  static Value mmaOperand(const Operand &o, bool transposed);

  /// if i > i0: release use i - 1 (compute partition).
  static void releasePrevious(OpBuilder &b, Location loc, Value i, Value i0,
                              Value ch);
};

} // namespace tilec::insert_channels

#endif // TILEC_LIB_DIALECT_TGPU_TRANSFORMS_TILEINSERTCHANNELS_H
