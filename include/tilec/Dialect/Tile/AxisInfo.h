//===- AxisInfo.h - contiguity, constancy and alignment of tiles -*- C++ -*-===//
//
// What is known statically about the values of an integer (or i1) tile
// along each of its dims, found by walking its definition (iota, splat,
// constants, broadcast, expand_dims, add, sub, mul, shifts, comparisons,
// and / or, casts, layout conversions). Every figure is a power of two:
//
// - contiguity[d] = C: along d the values come in runs of C consecutive
//   integers (v, v + 1, ..., v + C - 1), each run starting at a coordinate
//   that is a multiple of C;
// - constancy[d] = K: along d the values come in runs of K equal values,
//   each starting at a multiple of K;
// - divisibility[d] = D: the first value of every contiguity run along d
//   (every value, where C = 1) is a multiple of D.
//
// Unknown is 1 everywhere. Gathers and scatters use it to access runs of
// consecutive elements as one vector (IndexedOpsToLLVM.cpp), as Triton's
// AxisInfo lets its loads and stores do.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_AXISINFO_H
#define TILEC_DIALECT_TILE_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace tilec::tile {

struct AxisInfo {
  llvm::SmallVector<int64_t> contiguity, constancy, divisibility;

  /// What is known about `v`, a tile (one entry per dim) or an integer
  /// scalar (one entry: its divisibility; constancy and contiguity 1).
  static AxisInfo get(mlir::Value v);
};

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_AXISINFO_H
