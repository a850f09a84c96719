//===- ShapeVariants.h - what tile-shape-variants' files share --*- C++ -*-===//
//
// The plan of a kernel's re-tiling, its K loop and how a member splits it,
// shared by the pass (TileShapeVariants.cpp: the analysis, re-tiling and
// the family), its cost model (TileShapeVariantsCost.cpp) and its split-K
// and stream-K rewrite (TileShapeVariantsSplitK.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_SHAPEVARIANTS_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_SHAPEVARIANTS_H

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace tilec::shape_variants {

using namespace mlir;
using namespace tilec::tile;

/// Verifies a rewritten member; where it fails, says why in `why` (with
/// the verifier's first message) instead of reporting errors for a member
/// the kernel then goes without.
inline LogicalResult verifyTrial(func::FuncOp func, StringRef what,
                          std::string &why) {
  std::string first;
  ScopedDiagnosticHandler quiet(func.getContext(), [&](Diagnostic &d) {
    if (first.empty() && d.getSeverity() == DiagnosticSeverity::Error)
      first = d.str();
    return success();
  });
  if (succeeded(verify(func)))
    return success();
  why = (what + " does not verify (" + first + ")").str();
  return failure();
}

/// The offsets of a tile.load or tile.store.
inline MutableOperandRange accessOffsets(Operation *access) {
  if (auto l = dyn_cast<LoadOp>(access))
    return l.getOffsetsMutable();
  return cast<StoreOp>(access).getOffsetsMutable();
}

/// The tile a tile.load makes or a tile.store stores.
inline Value accessTile(Operation *access) {
  if (auto l = dyn_cast<LoadOp>(access))
    return l.getResult();
  return cast<StoreOp>(access).getValue();
}

/// Union-find over the dims of a kernel's tiles: (value, dim) pairs whose
/// sizes must stay equal.
class DimClasses {
public:
  int find(Value v, unsigned d) { return root(node(v, d)); }
  void unite(Value a, unsigned da, Value b, unsigned db) {
    int x = find(a, da), y = find(b, db);
    if (x != y)
      parent[x] = y;
  }
  /// Unites every dim of `a` with the same dim of `b` (tiles of one shape).
  void uniteAll(Value a, Value b) {
    for (unsigned d = 0, e = rank(a); d < e && d < rank(b); ++d)
      unite(a, d, b, d);
  }
  static unsigned rank(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : 0;
  }

private:
  int node(Value v, unsigned d) {
    auto [it, inserted] =
        ids.try_emplace({v.getAsOpaquePointer(), d}, int(parent.size()));
    if (inserted)
      parent.push_back(it->second);
    return it->second;
  }
  int root(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  llvm::DenseMap<std::pair<const void *, unsigned>, int> ids;
  std::vector<int> parent;
};

/// The output rows or columns of the main dot.
struct TiledDim {
  int cls = -1;
  int64_t size = 0;
  int axis = -1;                       // the program id that places it
  SmallVector<arith::MulIOp> offsets; // program_id * size
  GridExprAttr extent;                // E of the grid's cdiv(E, size)
};

/// How a kernel's output tile can be re-tiled.
struct Plan {
  DimClasses classes;
  TiledDim rows, cols;
  SmallVector<Value> tiles; // every tile-typed value of the kernel
  llvm::SmallPtrSet<Operation *, 8> products; // rows' and cols' offsets
};

/// The dot of the kernel's main loop: in a top-level scf.for, carried.
DotOp mainDot(func::FuncOp func);

/// Whether integer constants equal to `td`'s size are used other than in
/// the offsets' products or as the main loop's step: they might be the
/// tile size in disguise (`why` says where).
bool otherConstantUses(func::FuncOp func, const Plan &plan,
                       const TiledDim &td, std::string &why);

/// Gives every tile of `plan` the shape `newSize(class, size)` makes of
/// its dims' classes and sizes (a splat constant keeps its value).
void retypeTiles(Plan &plan,
                 llvm::function_ref<int64_t(int, int64_t)> newSize);

/// Builds `func` (analyzed in `plan`) as two column blocks of `first` and
/// `second` columns (a 128x192 tile as 128 + 64): `retileFirst` re-tiles it
/// to `first` columns, then every op making or reading a column tile gets
/// a copy for the second block, placed `first` columns further, and
/// program ids place tiles of `first + second` columns
/// (TileShapeVariantsColumns.cpp). Fails, saying why, where an op mixes
/// the columns (a reduction along them, a dot contracting over them, an
/// scf.if yielding column tiles).
LogicalResult splitColumns(func::FuncOp func, Plan &plan, int64_t first,
                           int64_t second, std::string &why,
                           llvm::function_ref<LogicalResult()> retileFirst);

/// The K loop of a GEMM-like kernel: what split-K rewrites and what makes
/// the costs K-aware.
struct KLoop {
  scf::ForOp loop;
  int64_t step = 0;       // BK
  GridExprAttr extent;    // K, as the runtime can evaluate it
  unsigned aBytes = 0;    // bytes of an element of the dot's A and B
  unsigned bBytes = 0;
  // The kernel arguments A and B are loaded from (through transposes) and
  // their ranks; -1 where an operand is not a load of an argument.
  int64_t aParam = -1, aRank = 0;
  int64_t bParam = -1, bRank = 0;
};

/// How a member divides its tiles' K steps: split-K (every tile `ways`
/// ways, grid z) or stream-K (up to `streamK` ways, as the persistent
/// schedule chooses per tile).
struct Split {
  int64_t ways = 1;
  int64_t streamK = 0;
};

/// The most units a stream-K member's schedule splits a tile into.
constexpr int64_t kStreamKSplits = 8;

/// Relative time of one tile of the output at this shape, for the cost
/// model (docs/ARCHITECTURE.md): its area over the efficiency measured for
/// tiles of its shape on the H100 (bench/RESULTS.md). Smaller tiles move
/// more operand bytes per MMA. `aTraffic` and `bTraffic` scale A's and B's
/// bytes (5/4 for rows that are not 32-byte aligned, 1/C for B shared by
/// a cluster of C).
int64_t tileTime(int64_t rows, int64_t cols, double aTraffic = 1.0,
                 double bTraffic = 1.0);

/// The launch's estimated time (docs/ARCHITECTURE.md), in units of about
/// 22 ps (a 128x256 tile's K step of 64 bf16 on the H100 is 32768 units).
/// Without a known K loop: waves of tiles over the SMs, each as long as a
/// tile of this shape takes. With one: the longer of the programs' chain of
/// K steps (waves of units, a unit being a tile or, split S ways, an S-th
/// of its K steps) and reading A and B from memory once (2.6 TB/s), plus
/// half the shorter of the two (they do not overlap perfectly), plus
/// for split members a fix-up each wave of units: writing the partials,
/// the last unit of a tile reading and summing S of them, and a plain
/// epilogue, about 4 S + 8 K steps as measured on the H100 (RESULTS.md,
/// 2026-11-24: 3072^2 x 4096 split 2 ways took 39 us more over 9 waves).
GridExprAttr costOf(func::FuncOp func, int64_t rows, int64_t cols,
                    const KLoop *k, const Plan &plan, Split split);

/// Rewrites `func` to compute an output tile in units along K: unit s of
/// n (n is `split.ways`, or for stream-K `num_programs z`) runs K steps
/// [s * per, (s + 1) * per) (per = cdiv(cdiv(K, BK), n)). A
/// tile of n > 1 units: each writes its f32 (i32) partial tile to the
/// workspace and counts itself in the tile's counter; the last to arrive
/// sums the partials in the order 0..n-1 (the result does not depend on the
/// arrival order), puts the counter back to 0 for the next launch and runs
/// the epilogue. Split-K: unit z of tile t has partial t n + z and counter
/// t. Stream-K: z is the unit's index among the launch's split units (the
/// schedule splits only the last wave's tiles, into consecutive units), its
/// partial z and its tile's counter z / n, so that the workspace holds one
/// wave's partials. Workspace: the partials (row-major tiles);
/// semaphores: an i32 counter a tile.
LogicalResult splitK(func::FuncOp func, const KLoop &k, Split split,
                     std::string &why);

/// Rewrites `func`, re-tiled to a swap-AB member's R x C tile (R rows of
/// C, 16 or 32; `plan` its analysis), so that its main loop computes the
/// tile transposed, Cᵀ += Bᵀ · Aᵀ: wgmma's M runs along C's columns and
/// its N (16 or 32) along the rows, and the loop's result is transposed
/// back for the epilogue (TileShapeVariantsSwap.cpp). The K loop's step
/// becomes `step` (A's slot is small, so a stage can hold a longer step of
/// B). Fails, saying why, where the loop carries more than the dot's
/// accumulator, A is not a loaded tile, the accumulator is not f32 or i32
/// or does not start as a splat, operands that
/// are not 16-bit floats are not both K-major once swapped, or a constant
/// equal to the K step has other uses.
LogicalResult swapOperands(func::FuncOp func, Plan &plan, int64_t step,
                           std::string &why);

} // namespace tilec::shape_variants

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_SHAPEVARIANTS_H
