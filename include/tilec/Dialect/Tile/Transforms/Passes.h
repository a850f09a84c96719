//===- Passes.h - tile-to-tile passes ---------------------------*- C++ -*-===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec {

#define GEN_PASS_DECL
#include "tilec/Dialect/Tile/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Dialect/Tile/Passes.h.inc"

/// What tile-remove-layout-conversions does, on `root` alone (the plain
/// twin runs it on itself after its dots change layouts).
mlir::LogicalResult removeLayoutConversions(mlir::Operation *root);

/// What tile-assign-layouts does, on `func` alone and for `target` (the
/// plain twin of an sm_100a kernel is laid out again as on sm_90a: for
/// mma.sync, not tcgen05).
mlir::LogicalResult assignLayouts(mlir::func::FuncOp func, tile::Target target);

/// What tile-swizzle does, on `root` alone.
mlir::LogicalResult chooseSwizzles(mlir::Operation *root);

} // namespace tilec

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_H
