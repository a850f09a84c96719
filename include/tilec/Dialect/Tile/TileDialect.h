//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//

#ifndef TILEC_DIALECT_TILE_TILEDIALECT_H
#define TILEC_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tilec/Layout/LinearLayout.h"

#include <array>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func
namespace mlir::scf {
class ForOp;
} // namespace mlir::scf

#include "tilec/Dialect/Tile/TileDialect.h.inc"
#include "tilec/Dialect/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/TileAttrs.h.inc"

namespace tilec::tile {
/// What tile.profile_begin / tile.profile_end write: the profiler's buffer,
/// which nothing in the program reads.
struct ProfileResource
    : mlir::SideEffects::Resource::Base<ProfileResource> {
  llvm::StringRef getName() final { return "tile.profile"; }
};
} // namespace tilec::tile

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/TileOps.h.inc"

namespace tilec::tile {

/// The module attribute naming the target (a TargetAttr).
constexpr llvm::StringLiteral kTargetAttr = "tile.target";
/// The module attribute (unit) that keeps tile.print and tile.assert
/// (tilec compile --debug).
constexpr llvm::StringLiteral kDebugAttr = "tile.debug";

/// The target of the module that holds `op`: its `tile.target`, sm_90a if
/// it has none.
Target getTarget(mlir::Operation *op);
/// What the target offers the compiler: tilec/Dialect/Tile/TargetInfo.h.

/// Attribute names on kernels (func.func).
constexpr llvm::StringLiteral kKernelAttr = "tile.kernel";
constexpr llvm::StringLiteral kGridAttr = "tile.grid";
constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
constexpr llvm::StringLiteral kSharedMemoryAttr = "tile.shared_memory";
/// Ring slots of the warp-specialized main loop (tunable; chosen if absent).
constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
/// Blocks of the kernel each SM runs at once (tunable, 1 by default, up
/// to 4): the kernel plans against that share of the SM's shared memory
/// and registers, and a persistent grid has as many programs an SM. Two
/// blocks of one consumer warpgroup each overlap one another's waits
/// where one warpgroup alone cannot (attention backward).
constexpr llvm::StringLiteral kBlocksPerSMAttr = "tile.blocks_per_sm";
/// The kernel's tile.blocks_per_sm (1 where it has none).
int getBlocksPerSM(mlir::Operation *op);
/// How the consumers of a warp-specialized main loop share the tiles
/// (tunable, a ScheduleAttr): cooperative (the kernel's warps on one tile,
/// the default) or pingpong (copies of the kernel's warps on alternate tiles, taking
/// turns at the MMAs and at the epilogue).
constexpr llvm::StringLiteral kScheduleAttr = "tile.schedule";
/// How a persistent kernel's programs find their next tile (tunable, a
/// TileSchedulerAttr): static (the default) or launch_control (sm_100a).
constexpr llvm::StringLiteral kTileSchedulerAttr = "tile.tile_scheduler";
/// The software-pipeline schedule (tile-pipeline-schedule, expanded by
/// tile-pipeline): the stage count on the loop, each body op's stage and
/// cluster (its order within the stage).
constexpr llvm::StringLiteral kPipelineStagesAttr = "tile.pipeline.num_stages";
constexpr llvm::StringLiteral kPipelineStageAttr = "tile.pipeline.stage";
constexpr llvm::StringLiteral kPipelineClusterAttr = "tile.pipeline.cluster";
/// The kernel arguments (a dense i32 array of their numbers) whose TMA
/// views the kernel also reads with plain loads when the runtime hands it
/// a zeroed descriptor (set by tile-pipeline).
constexpr llvm::StringLiteral kTmaFallbackAttr = "tile.tma_fallback";
/// On a warp-specialized (TMA) kernel: a reference (@name) to its twin,
/// which the runtime launches when a view breaks TMA's rules. On the twin:
/// tile.plain_variant_of, a reference to the TMA kernel.
constexpr llvm::StringLiteral kPlainVariantAttr = "tile.plain_variant";
constexpr llvm::StringLiteral kPlainVariantOfAttr = "tile.plain_variant_of";
/// Programs a cluster along x (tunable, 1 or 2): a warp-specialized main
/// loop then multicasts each B tile to the cluster's programs.
constexpr llvm::StringLiteral kClusterAttr = "tile.cluster";
/// sm_100a (tunable, 1 or 2): 2 runs the main loop's MMAs over the CTA
/// pair of a cluster of two (tcgen05 cta_group::2: one 256-row MMA whose
/// B each CTA of the pair copies half of), where tile.cluster = 2.
constexpr llvm::StringLiteral kCtaGroupAttr = "tile.cta_group";
/// Output tile shapes to compile the kernel at (tunable): an array of
/// [rows, cols] pairs of the main dot's result; the first is the kernel
/// itself, the others become variants the runtime chooses between.
/// Absent: tile-shape-variants chooses (docs/ARCHITECTURE.md).
constexpr llvm::StringLiteral kTileShapesAttr = "tile.tile_shapes";
/// Set by tile-shape-variants. On a kernel: references to its variants
/// ([@name, ...]), the same program at other tile shapes. On a variant:
/// tile.variant_of, a reference to the kernel. On both: tile.cost, a #tile.expr
/// of the launch's estimated time; the runtime launches the
/// member of the family whose cost is least.
constexpr llvm::StringLiteral kVariantsAttr = "tile.variants";
constexpr llvm::StringLiteral kVariantOfAttr = "tile.variant_of";
constexpr llvm::StringLiteral kCostAttr = "tile.cost";
/// Split counts of the K loop to compile a kernel's members at too
/// (tunable): an array of integers 2..16; absent: tile-shape-variants
/// chooses, `[]`: none. Each becomes members NAME__RxC_kS (docs/ARCHITECTURE.md).
constexpr llvm::StringLiteral kSplitKAttr = "tile.split_k";
/// Set by tile-shape-variants on a split-K member: the bytes of workspace
/// (scratch) and of semaphores (zero at the start, left zero) it needs (each
/// a #tile.expr); the kernel then views them with tile.workspace and takes
/// their addresses as trailing pointer parameters the runtime fills
/// (docs/BUNDLE.md).
constexpr llvm::StringLiteral kWorkspaceAttr = "tile.workspace";
/// Set by tile-shape-variants on a stream-K member (an integer S >= 2): its
/// code computes split `program_id z` of `num_programs z` of its tile's K
/// steps (with a grid of no z axis: whole tiles), and tile-persistent-tiles
/// splits the tiles of the last, partial wave up to S ways each
/// (docs/ARCHITECTURE.md, "Stream-K").
constexpr llvm::StringLiteral kStreamKAttr = "tile.stream_k";
constexpr llvm::StringLiteral kSemaphoresAttr = "tile.semaphores";
/// A kernel to instrument for the intra-kernel profiler (unit; `tilec
/// compile --profile` sets it on every kernel): tile-profile records its
/// compiler-known boundaries, and its tile.profile_begin/end ops stay.
constexpr llvm::StringLiteral kProfileAttr = "tile.profile";
/// Set by tile-profile: the kernel's scope names (array of strings); a
/// record's scope id is the index of its name here (docs/BUNDLE.md,
/// `profile scopes`).
constexpr llvm::StringLiteral kProfileScopesAttr = "tile.profile_scopes";
/// Whether `name` is a valid profile scope name (1..48 of [A-Za-z0-9_.:#-]).
bool isProfileScopeName(llvm::StringRef name);

/// Whether `t` is an element type a tile may hold.
bool isTileElementType(mlir::Type t);
/// Checks that `t` is a tile (static, power-of-two dims, supported element
/// type); on failure returns a message saying what was found.
std::optional<std::string> checkTileType(mlir::Type t);
/// The layout of a tile, or null if it has none yet.
LinearLayoutAttr getLayoutAttr(mlir::Type tile);
/// The layout of a tile as the algebra's class (the tile must have one).
LinearLayout getLayout(mlir::Type tile);
/// `tile` with its layout replaced.
mlir::RankedTensorType withLayout(mlir::Type tile, const LinearLayout &layout);
/// Number of warps of a kernel (tile.num_warps, default 4).
int getNumWarps(mlir::Operation *kernel);

/// An arith or math op of one result, not a constant: it computes each
/// element from the same element of its operands, in any layout.
bool isElementwise(mlir::Operation *op);
/// Whether `v` is computed only from splats, iotas and constants through
/// broadcasts, expand_dims, conversions and elementwise ops, so that it can
/// be rebuilt in any layout at no cost but its own arithmetic.
bool isRematerializable(mlir::Value v);
/// `v` (isRematerializable, or reading tile.loads and tile.gathers
/// besides) computed again at `b` in layout `layout` (axis aligned): its
/// splats, iotas and constants built, and its loads read again, in the
/// layouts their users take there, through its broadcasts, expand_dims and
/// elementwise ops (conversions skipped); `made` sees each op built. The
/// load partition computes a gather's index tiles so, in its own warps.
/// With `memo`, a value already built in a layout (for an earlier copy
/// of the same block: paged V reuses K's pages) is taken from it, not
/// built (or read) again.
using RematerializeMemo =
    llvm::DenseMap<std::pair<mlir::Value, mlir::Type>, mlir::Value>;
mlir::Value rematerialize(mlir::OpBuilder &b, mlir::Value v,
                          const LinearLayout &layout,
                          llvm::function_ref<void(mlir::Operation *)> made,
                          RematerializeMemo *memo = nullptr);
/// How much a value's layout is worth keeping when an elementwise op picks
/// one layout for its operands: 3 if it comes from a dot, 2 if from memory
/// or a reduction, 1 for a loop-carried value (the loop can carry another
/// layout), 0 if rematerializable or a broadcast.
int layoutWeight(mlir::Value v);

/// A and B of `dot`, by value: `llvm::enumerate(dotOperands(dot))` holds
/// the array for the whole loop, where a ValueRange of a braced list would
/// point into a temporary gone before the loop body runs (a -O2 tilec read
/// garbage there and compiled fp8 GEMMs on mma.sync).
std::array<mlir::Value, 2> dotOperands(DotOp dot);

/// The iter_arg of the loop around `dot` that carries its accumulator for
/// it alone (only the dot reads it; only the yield reads the dot's result,
/// in its place): a GEMM main loop's accumulator. Null if there is none.
mlir::BlockArgument carriedAccumulator(DotOp dot);

/// The load a dot operand comes from, through layout conversions, reshapes
/// that drop leading unit dims (a 2-d tile of a 3-d view) and at most one
/// 2-d transpose (which `transposed` reports); null if none.
LoadOp operandLoad(mlir::Value v, bool &transposed);
/// Whether a load's or gather's `padding` (null: the default) is zero.
bool isZeroPadding(mlir::Attribute pad);
/// The op defining a dot operand's tile through the same conversions,
/// reshapes and transpose (a tile.load, a tile.gather, ...); null for a
/// block argument.
mlir::Operation *operandSource(mlir::Value v, bool &transposed);
/// Whether `load`'s tile reaches nothing but operands (A or B) of dots
/// directly in `loop`'s body (through layout conversions, reshapes and
/// transposes), and at least one.
bool onlyDotsOf(LoadOp load, mlir::scf::ForOp loop);
bool onlyDotsOf(mlir::Operation *op, mlir::scf::ForOp loop);
/// The first operand of `dot` (0: A, 1: B) loaded from a view but not
/// K-major (A loaded as KxM and transposed, B loaded as KxN as it is), or
/// -1. 8-bit and tf32 wgmma read K-major operands only.
int nonKMajorOperand(DotOp dot);

/// An 8-bit dot's B that wgmma cannot read as loaded, and that the load
/// partition's threads can copy K-major instead (a K-major copy), where
/// A is computed (not loaded: a loaded A would share B's channel): a
/// tile.load in the dot's block, unmasked and padded with zero, whose tile
/// reaches B alone through layout conversions, reshapes and transposes
/// (V's rows in fp8 attention, possibly renamed) with the view's
/// contiguous dim along B's N. `chain` gets the ops from the load to B,
/// in order. Null otherwise.
LoadOp kMajorCopyLoad(DotOp dot,
                      llvm::SmallVectorImpl<mlir::Operation *> *chain = nullptr);
/// Where each element of `load`'s tile lands in B of a K-major copy: the
/// layout whose register bit i is bit i of the tile (the view's
/// contiguous dim's bits first, then the other dims' from the last),
/// taken through `chain` onto B's KxN coordinates.
LinearLayout kMajorCopyCoordinates(LoadOp load,
                                   llvm::ArrayRef<mlir::Operation *> chain);

/// Whether any of `values` depends on `tile.program_id` of axis `axis`
/// (through the ops that compute it; block arguments end the search).
bool dependsOnProgramId(mlir::ValueRange values, int axis);

/// Scalar code any partition may run on its own: no memory effects, no
/// regions, no tile results.
bool isScalarPure(mlir::Operation *op);
/// Whether `func`'s programs can walk its tiles persistently: no axis of
/// its grid (tile.grid) counts SMs, and its code does not read num_programs
/// (a program's ids become the coordinates of the tile the tile loop
/// computes, z, where the grid has one, the batch member: outermost; a
/// stream-K kernel's num_programs z, its unit's number of splits, aside).
bool canWalkTilesPersistently(mlir::func::FuncOp func);
/// A (checked) grid expression of `func` as i32 arithmetic at `b`; `sms`
/// has no in-kernel value (callers exclude it).
mlir::Value emitGridExpr(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::func::FuncOp func, GridExprAttr e);
/// What remarks about a tile-shape variant start with ("in NAME: "), since
/// its ops carry the kernel's locations; empty for any other function.
std::string variantPrefix(mlir::func::FuncOp func);

/// Number of bytes an element of `t` takes in memory (i1 takes a byte).
unsigned storageBytes(mlir::Type t);
/// Gives argument `arg` of kernel `func` the type `type`, in its block and
/// in the function type (as passes do that turn views into TMA views).
void setArgumentType(mlir::func::FuncOp func, mlir::BlockArgument arg,
                     mlir::Type type);
/// Adds kernel arguments `args` (views TMA reads where it can) to `func`'s
/// `tile.tma_fallback` list, after those already there: the runtime leaves
/// such a view's descriptor zero where it cannot encode it.
void addTmaFallback(mlir::func::FuncOp func, llvm::ArrayRef<int32_t> args);
/// The shared-memory scratch (bytes) lowering `op` needs, 0 if none: a
/// layout conversion that is neither a register permutation nor a warp
/// shuffle, a reduction across warps, an atomic whose old values go to
/// elements that several threads hold, or a block op that is not a
/// register renaming (the whole tile).
int64_t getScratchBytes(mlir::Operation *op);
/// Whether a block op (tile.extract_slice, tile.insert_slice, tile.concat)
/// only renames registers: each block's layout is the whole tile's
/// registers at its offsets (LinearLayout::slice). Otherwise the block
/// moves through shared memory.
bool isRegisterBlockOp(mlir::Operation *op);
/// The registers of `whole` that hold a block of layout `block` at
/// `offsets`, if the block is whole registers in that layout.
std::optional<RegisterBlock> registerBlock(const LinearLayout &whole,
                                           const LinearLayout &block,
                                           llvm::ArrayRef<int64_t> offsets);
/// The most scratch any op nested in `root` takes (one area serves them
/// all).
int64_t getMaxScratchBytes(mlir::Operation *root);
/// The layout a shape op (tile.expand_dims, tile.transpose, tile.reshape)
/// gives its result when its operand has layout `src`: every register
/// stays, only the coordinates it holds change.
LinearLayout shapeOpLayout(mlir::Operation *op, const LinearLayout &src);
/// `reshape` again at `b`, of `src` (the same shape, another layout): its
/// result in the layout shapeOpLayout gives, its discardable attributes
/// (partition tags) kept.
ReshapeOp reshapeAgain(mlir::OpBuilder &b, ReshapeOp reshape, mlir::Value src);

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_TILEDIALECT_H
