//===- Utility.h - helpers for lowering tiles to LLVM -----------*- C++ -*-===//
//
// Shared by the tile-to-LLVM patterns: index arithmetic, the coordinates a
// thread holds under a linear layout, inline PTX, shared memory scratch.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILETOLLVM_UTILITY_H
#define TILEC_LIB_CONVERSION_TILETOLLVM_UTILITY_H

#include "tilec/Dialect/TGPU/TGPUDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Layout/BankConflicts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {

/// Builds scalar code at one location.
struct Emitter {
  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Value i32(int64_t v);
  mlir::Value i64(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value xorI(mlir::Value x, mlir::Value y);
  /// `dyn` XOR `c`, where `dyn` can only set bits of `dynBits`: the bits of
  /// `c` outside them are added (`add nuw nsw`, equal here), so a constant
  /// offset folds into the address of a load or store, and only the bits
  /// they share need an XOR. A swizzled tile's addresses then share a few
  /// registers instead of holding one a fragment.
  mlir::Value xorConst(mlir::Value dyn, int64_t dynBits, int64_t c);
  mlir::Value andI(mlir::Value x, mlir::Value y);
  mlir::Value ult(mlir::Value x, mlir::Value y);
  mlir::Value eq(mlir::Value x, mlir::Value y);
  mlir::Value sext64(mlir::Value x);

  /// Inline PTX with results of `resultTypes` (a struct if several).
  llvm::SmallVector<mlir::Value> ptx(llvm::StringRef asmString,
                                     llvm::StringRef constraints,
                                     mlir::TypeRange resultTypes,
                                     mlir::ValueRange operands,
                                     bool sideEffects = false);

  /// Thread and warp indices, counted from the first warp of the enclosing
  /// warp-specialized partition (see lowerWarpSpecialize) if any.
  mlir::Value threadId();
  mlir::Value laneId();
  mlir::Value warpId();
  /// The first thread of the enclosing warp-specialized partition (0
  /// outside one).
  int32_t partitionFirstThread();
  /// The register budget of the enclosing partition (setmaxnreg), 0 where
  /// it has none (the launch's share).
  int32_t partitionRegisters();
  /// Synchronizes the block, or only the enclosing partition's warps (a
  /// named barrier).
  void barrier();

  /// Start of `op`'s scratch in the kernel's dynamic shared memory
  /// (!llvm.ptr<3>): its own `tgpu.scratch_offset` (a kernel without
  /// regions of warps), else the kernel's scratch area after the buffers
  /// and barriers, shifted to the enclosing partition copy's part.
  mlir::Value sharedBase(mlir::Operation *op);
  /// Start of the kernel's dynamic shared memory.
  mlir::Value smemStart();

  /// Bit-cast between a scalar of a tile element type and its storage
  /// integer of the same width (i1 stored as i8).
  mlir::Value toBits(mlir::Value v);
  mlir::Value fromBits(mlir::Value bits, mlir::Type elementType);

  /// 32-bit words <-> `n` elements of `elementType` (n * bits a multiple of
  /// 32, or n == 1 and the value in the low bits of one word).
  llvm::SmallVector<mlir::Value> unpackWords(mlir::ValueRange words,
                                             mlir::Type elementType, int n);
  llvm::SmallVector<mlir::Value> packWords(mlir::ValueRange elements);

  /// Butterfly shuffle: the value of lane (laneid ^ mask).
  mlir::Value shuffleXor(mlir::Value v, int mask);
  /// The value `v` of lane `srcLane` (an i32 per lane).
  mlir::Value shuffleIdx(mlir::Value v, mlir::Value srcLane);
};

/// Whether `t` is an 8-bit float (e4m3, e5m2), and its PTX name in `cvt`'s
/// pairs ("e4m3x2", "e5m2x2").
bool isFp8(mlir::Type t);
llvm::StringRef fp8Name(mlir::Type t);

/// The 32-bit shared-window address of `ptr` (!llvm.ptr<3>).
mlir::Value sharedAddress(Emitter &e, mlir::Value ptr);
/// `base` (!llvm.ptr<3>) plus `byteOffset` (i32).
mlir::Value offsetPtr(Emitter &e, mlir::Value base, mlir::Value byteOffset);
/// Barrier `index` (i32) of an array (!llvm.ptr<3>).
mlir::Value barrierPointer(Emitter &e, mlir::Value barriers, mlir::Value index);
/// Slot `slot` (i32) of a buffer, as a pointer (for loads and stores) and
/// as a 32-bit shared address (for descriptors and inline PTX; computed in
/// i32 so that the address arithmetic stays 32-bit).
mlir::Value slotPointer(Emitter &e, tgpu::SharedBufferType t,
                        mlir::Value buffer, mlir::Value slot);
mlir::Value slotAddress(Emitter &e, tgpu::SharedBufferType t,
                        mlir::Value buffer, mlir::Value slot);
/// The predicate of the one thread whose `index` (an i32) is 0. Ops one
/// thread issues take it as their `predicate` operand: predicated
/// instructions, not branches (an scf.if around each arrive and each
/// epilogue copy made ptxas spill in the D = 256 attention kernel).
mlir::Value firstThread(Emitter &e, mlir::Value index);
/// `body` on one thread: the first of the executing warps (of the CTA
/// pair's first CTA with `leaderOnly`).
template <typename F>
void onFirstThread(Emitter &e, bool leaderOnly, F body) {
  mlir::Value first = firstThread(e, e.threadId());
  if (leaderOnly) {
    mlir::Value rank =
        mlir::NVVM::ClusterId::create(e.b, e.loc, e.b.getI32Type());
    first = mlir::arith::AndIOp::create(
        e.b, e.loc, first, e.eq(e.andI(rank, e.i32(1)), e.i32(0)));
  }
  auto ifOp =
      mlir::scf::IfOp::create(e.b, e.loc, mlir::TypeRange{}, first, false);
  mlir::OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

/// Inline PTX `text` through which the values of `groups` pass as tied
/// registers, returned group by group: a wait for the asynchronous
/// operations that write them (wgmma.wait_group, tcgen05.wait::ld), so
/// that nothing reads them before it. `extra`, if given, appends operands
/// after the tied ones (numbered from the `first` it is passed, with their
/// constraints) and returns PTX that runs before `text`, in one block.
llvm::SmallVector<llvm::SmallVector<mlir::Value>> tiedAsm(
    Emitter &e, llvm::ArrayRef<mlir::ValueRange> groups, llvm::StringRef text,
    llvm::function_ref<std::string(unsigned first, std::string &constraints,
                                   llvm::SmallVectorImpl<mlir::Value> &)>
        extra = nullptr);

/// The coordinates of the tile element each register holds in the current
/// thread: per register, per dim, an i32 value.
class ThreadCoords {
public:
  ThreadCoords(Emitter &e, const LinearLayout &layout);
  /// Coordinate of register `reg` along `dim`.
  mlir::Value get(int64_t reg, int dim);
  /// Row-major index of register `reg`'s element in the layout's shape.
  mlir::Value flatIndex(int64_t reg);
  /// The lane and warp part of the coordinate along `dim` (i32; 0 if none).
  mlir::Value threadPart(int dim) const {
    return dynamic[dim] ? dynamic[dim] : e.i32(0);
  }
  /// The bits of the coordinate along `dim` that lane and warp can set.
  int64_t threadBits(int dim) const { return dynamicBits[dim]; }
  /// The register-only (compile-time) part.
  LinearLayout::Coords constant(int64_t reg) const {
    return layout.applyIn(InDim::Register, reg);
  }

private:
  Emitter &e;
  const LinearLayout &layout;
  llvm::SmallVector<mlir::Value> dynamic; // lane/warp part, per dim
  llvm::SmallVector<int64_t> dynamicBits; // the bits it can set, per dim
};

/// The copies of a tile's elements that act for all (writes, atomics,
/// prints): one register per element in a thread, and among threads
/// holding the same elements, the one whose free lane and warp bits are 0.
struct Owners {
  /// Per register: the first register of the thread holding its element.
  llvm::SmallVector<int64_t> first;
  /// Whether the thread is the one that holds its elements (i1), null when
  /// no element is held by two threads.
  mlir::Value thread;

  Owners(Emitter &e, const LinearLayout &l);
  /// `pred` (i32) restricted to the owning thread.
  mlir::Value restrict(Emitter &e, mlir::Value pred) const;
};

/// A tensor view argument after conversion: its pointer, extents and
/// strides (i64; a TMA view's descriptor dropped).
struct ViewValues {
  mlir::Value base;
  llvm::SmallVector<mlir::Value> sizes, strides;
  ViewValues(tile::TensorViewType type, mlir::ValueRange values);

  /// Address (i64) of the element at index(d) along each dim d (i64, built
  /// as each dim is reached) and the predicate (i32) that accesses it:
  /// every index below its extent (compared unsigned, so negative ones are
  /// out) and `mask` (i1), if given. `linear`, if given, is the element's
  /// index into the view (Σ index(d) · stride(d)) computed by the caller.
  std::pair<mlir::Value, mlir::Value>
  element(Emitter &e, llvm::function_ref<mlir::Value(unsigned)> index,
          mlir::Type elementType, mlir::Value mask,
          mlir::Value linear = {}) const;
};

/// The uniform run-time condition (i1) under which `vec`-element vector
/// accesses along `contigDim` of a view are aligned and never straddle its
/// edge: a unit stride there, the base aligned to the vector's bytes, the
/// extent there and every other stride multiples of `vec` (the indices'
/// own alignment is the caller's to show).
mlir::Value vectorViewOk(Emitter &e, const ViewValues &view, int contigDim,
                         int64_t vec, mlir::Type elementType);

/// Emits `path(vec)` under `ok` and `path(1)` otherwise (only `path(1)`
/// where `vec` is 1); returns what the paths produce (values of `types`).
llvm::SmallVector<mlir::Value> emitVectorOrScalar(
    mlir::ConversionPatternRewriter &rewriter, mlir::Location loc, int64_t vec,
    mlir::Value ok, mlir::TypeRange types,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(int64_t)> path);

/// Global loads and stores of `vec` consecutive elements at `addr` (i64)
/// under `pred` (i32, non-zero: access); a load gives copies of `padding`
/// (an element attribute, zero if null) where `pred` is zero. A null `pred`
/// accesses unconditionally.
llvm::SmallVector<mlir::Value> predicatedLoad(Emitter &e, mlir::Value addr,
                                              mlir::Value pred,
                                              mlir::Type elementType,
                                              int64_t vec,
                                              mlir::Attribute padding);
void predicatedStore(Emitter &e, mlir::Value addr, mlir::Value pred,
                     mlir::ValueRange elements);

/// Writes `values`, the registers of a tile, to shared memory at `base`
/// (!llvm.ptr<3>) as `store` (from analyzeSharedAccess of the tile's layout
/// against the shared layout) says: stmatrix where the offsets are its
/// 8x8 matrices, vector stores otherwise.
void storeToShared(Emitter &e, mlir::ValueRange values, mlir::Type elt,
                   const SharedAccess &store, mlir::Value base);
/// One vector store of `values` (consecutive elements of type `elt`) to
/// shared memory at element offset `offset` (i32) from `base`.
void storeSharedVector(Emitter &e, mlir::ValueRange values, mlir::Type elt,
                       mlir::Value base, mlir::Value offset);
/// One vector load of `count` consecutive elements of type `elt` from
/// shared memory at element offset `offset` (i32) from `base`, appended
/// to `results`.
void loadSharedVector(Emitter &e, int64_t count, mlir::Type elt,
                      mlir::Value base, mlir::Value offset,
                      llvm::SmallVectorImpl<mlir::Value> &results);
/// One cp.async of `bytes` (4, 8 or 16) from global `addr` (i64) to shared
/// memory at element offset `offset` (i32) of `elt` from `base`, its source
/// size 0 (the bytes zero-filled) where `pred` (i32, null: always) is 0.
void asyncCopyToShared(Emitter &e, mlir::Value addr, mlir::Value pred,
                       int64_t bytes, mlir::Type elt, mlir::Value base,
                       mlir::Value offset);
/// Whether the runtime encoded the TMA descriptor at `desc` (i1): false
/// where it is all zero (a view TMA cannot read, tile.tma_fallback).
mlir::Value tmaDescriptorEncoded(Emitter &e, mlir::Value desc);
/// A bulk tensor copy's coordinates (`coords` outermost first),
/// innermost first as the copy takes them, `innerOffset` added to the
/// innermost and `rowOffset` to the next.
llvm::SmallVector<mlir::Value> tensorCoords(Emitter &e,
                                            llvm::ArrayRef<mlir::Value> coords,
                                            int64_t innerOffset,
                                            int64_t rowOffset = 0);
/// A bulk tensor copy of the box at `coords` (i32, innermost first) of the
/// descriptor at `desc` into shared memory at `dst` (!llvm.ptr<3>),
/// completing on the barrier at `bar`, by the threads where `pred` (i1);
/// with `multicast` (an i16 CTA mask), into the same place of each CTA of
/// the mask.
void tmaLoadBox(Emitter &e, mlir::Value dst, mlir::Value desc,
                mlir::ValueRange coords, mlir::Value bar, mlir::Value pred,
                mlir::Value multicast = {});
/// The executing thread's generic-proxy writes to shared memory become
/// visible to the async proxy (`fence.proxy.async.shared::cta`: bulk copies,
/// wgmma and tcgen05.mma read through it).
void fenceProxyAsyncShared(Emitter &e);
/// The executing thread's shared stores are ordered before what it does
/// next (`fence.acq_rel.cta`): before an arrival that orders nothing of
/// them itself (`cp.async.mbarrier.arrive`, which orders the thread's
/// cp.async copies only).
void releaseSharedStores(Emitter &e);

/// The registers of a tile read from shared memory at `base` as `load`
/// says (ldmatrix where it fits, vector loads otherwise).
llvm::SmallVector<mlir::Value> loadFromShared(Emitter &e, int64_t numRegisters,
                                              mlir::Type elt,
                                              const SharedAccess &load,
                                              mlir::Value base);

/// x (+, max, min) y, as tile.reduce and tile.scan combine elements.
mlir::Value combineReduce(Emitter &e, tile::ReduceKind kind, mlir::Value x,
                          mlir::Value y);
/// The identity of `kind` on `type`: 0, -inf or +inf, the smallest or the
/// largest signed integer.
mlir::Value reduceIdentity(Emitter &e, tile::ReduceKind kind, mlir::Type type);

using tile::storageBytes;
/// The integer type a tile element is stored as.
mlir::Type storageType(mlir::Type t);

/// The scratch offset on a kernel (tile-allocate-shared-memory), and the
/// lowering's partitions on the scf.ifs a tgpu.warp_specialize becomes:
/// per branch, its first thread, thread count, named barrier, the shift
/// of its scratch area (compute groups each have one) and its register
/// budget (0: none).
using tgpu::kScratchOffsetAttr;
constexpr llvm::StringLiteral kThreadRangeAttr = "tgpu.thread_range";
/// On a kernel: the converted argument positions of TMA descriptors (made
/// __grid_constant__ when lowering to LLVM).
constexpr llvm::StringLiteral kTmaArgsAttr = "tgpu.tma_args";

/// Turns each tgpu.warp_specialize into scf.ifs on the thread index whose
/// branches set their register budgets and carry kThreadRangeAttr; each
/// copy of a region gets its own buffers (the copy's `offset` of each
/// tgpu.alloc / tgpu.barriers in it) and scratch shift.
void lowerWarpSpecialize(mlir::func::FuncOp func);

/// For a kernel with tile.profile_scopes: appends the profile buffer
/// parameters, emits the setup at its entry and the slice header's end at
/// its returns, and replaces its records (tile.profile_begin / _end, in
/// frames) by clock readings and frame stores (docs/BUNDLE.md, "Profile
/// buffer").
mlir::LogicalResult lowerProfiledKernel(mlir::func::FuncOp func);
/// Checks that every profile record of `func` names a scope of its
/// tile.profile_scopes (which it must have if it has records) and has a
/// frame and slot that form frames (see lowerProfiledKernel).
mlir::LogicalResult verifyProfileRecords(mlir::func::FuncOp func);

/// Populate the patterns for each family of tile ops.
void populateTileMemoryPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateTileIndexedPatterns(mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateTileRandomPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateTileDebugPatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateTileScanSortPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateTileReducePatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateTileLayoutPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateTileDotPatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
/// A kernel with tgpu.tensor_memory: its allocation at entry and
/// deallocation before each return (TensorMemoryOpsToLLVM.cpp).
mlir::LogicalResult lowerTensorMemory(mlir::func::FuncOp func);
void populateTensorMemoryPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// tgpu.wgmma and tgpu.wgmma_wait (WGMMAOpsToLLVM.cpp); populateTGPUPatterns
/// adds them.
void populateWGMMAPatterns(mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
void populateTGPUPatterns(mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
/// Moves the shared-memory loads that only feed mma.sync down to the first
/// MMA that reads them (SinkMMAOperandLoads.cpp); on lowered LLVM.
void sinkMMAOperandLoads(mlir::Operation *root);

} // namespace tilec

#endif // TILEC_LIB_CONVERSION_TILETOLLVM_UTILITY_H
