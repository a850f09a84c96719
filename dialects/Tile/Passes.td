//===- Passes.td - tile-to-tile passes ---------------------*- tablegen -*-===//

#ifndef TILEC_TILE_PASSES_TD
#define TILEC_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyKernels : Pass<"tile-verify-kernels", "mlir::ModuleOp"> {
  let summary = "check that every tile value is a valid tile";
  let description = [{
    `arith`, `math` and `scf` ops accept any tensor; this pass checks that
    every tensor value in a kernel is a tile: static, power-of-two dims and a
    supported element type. It also checks each kernel's launch attributes.
  }];
}

def TileStripDebugOps : Pass<"tile-strip-debug-ops", "mlir::ModuleOp"> {
  let summary = "remove tile.print and tile.assert unless debugging";
  let description = [{
    Without `tile.debug` on the module (`tilec compile --debug` sets it),
    each tile.print and tile.assert that is not marked `always` is erased,
    so that debugging code costs nothing in a release build. Profile
    scopes (tile.profile_begin / tile.profile_end) are erased from kernels
    without `tile.profile` (`tilec compile --profile`).
  }];
}

def TileScalarMemory : Pass<"tile-scalar-memory", "mlir::ModuleOp"> {
  let summary = "scalar loads and stores as one-element tiles";
  let description = [{
    A tile.load with a scalar result becomes a load of a one-element tile
    (each dim of size 1) reduced to the scalar; a tile.store of a scalar a
    store of the one-element tile it splats to. The later passes see tiles
    only; the element is read by every thread (a broadcast layout) and
    written once per distinct thread holding it.

      %s = tile.load %lse[%r] : !tile.tensor<?xf32> -> f32
    becomes
      %t = tile.load %lse[%r] : !tile.tensor<?xf32> -> !tile.tile<1xf32>
      %s = tile.reduce max %t dim 0 : !tile.tile<1xf32> -> f32
  }];
}

def TileInvariantDivision : Pass<"tile-invariant-division", "mlir::ModuleOp"> {
  let summary = "divisions of tiles by a loop-invariant scalar as multiplies";
  let description = [{
    An unsigned 32-bit division or remainder of a tile by a splat of a
    scalar that a loop around it does not change (a paged cache's page
    size: every key's page and slot, every step) becomes a multiply-high
    by the divisor's magic number and two shifts, the number and shifts
    computed once where the scalar is defined (the round-up method of
    Granlund and Montgomery, in libdivide's branch-free form). ptxas
    expands a division by a register into about twenty instructions an
    element.

      %q = arith.divui %x, %ds      (%ds = tile.splat %d, %d loop-invariant)
    becomes
      %t = trunci((extui %x * extui splat(%m)) >> 32)
      %q = (%t + ((%x - %t) >> splat(%s1))) >> splat(%s2)
    and arith.remui %x, %ds becomes %x - %q * %ds.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def TileShapeVariants : Pass<"tile-shape-variants", "mlir::ModuleOp"> {
  let summary = "compile GEMM-like kernels at other output tile shapes";
  let description = [{
    A kernel whose main loop's dot makes a BM x BN output tile, placed by
    program ids (program_id * BM) with a grid of cdiv(E, BM) tiles, is
    compiled at the shapes `tile.tile_shapes` lists (the first replaces the
    kernel, the rest become variants `NAME__RxC`), or, without the
    attribute, at the default shapes (docs/ARCHITECTURE.md, "Tile
    shapes"), with split-K (`_kS`), stream-K (`_sk`) and, for a 128x256
    tile on sm_90a, clusters-of-two (`_c2`, `tile.cluster = 2`) members.
    Tile dims are re-sized by classes of dims that must stay equal;
    kernels whose offsets, grid or constants might depend on the tile size
    are left alone (an error if they asked for shapes). Each member of a
    family gets `tile.cost` (waves of tiles over the SMs times a tile's
    time, its operand traffic charged for rows that are not 32-byte
    aligned through `stride(P, D)`), the kernel `tile.variants`; the
    runtime launches the cheapest.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "give every tile a #tile.linear layout";
  let description = [{
    Global loads and stores get coalesced, vectorized blocked layouts; dot
    operands and accumulators get mma.sync fragment layouts; reductions give
    slices of their operand's layout. Where a value's layout differs from the
    one a user needs, a `tile.convert_layout` is inserted.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", /*default=*/"4",
           "warps per program when the kernel does not say (tile.num_warps)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileRemoveLayoutConversions
    : Pass<"tile-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "remove layout conversions by propagating layouts";
  let description = [{
    Forward: an elementwise op whose tile operands are conversions from one
    layout (or cheap to rebuild in any layout) runs in that layout and the
    conversion moves after it, towards smaller element types and stores.
    Backward: a loop-carried tile whose yielded value is converted is
    carried in the yielded layout. Conversions of cheap values are rebuilt,
    conversions of broadcasts and expand_dims sink to their operands, and
    chains of conversions fold.
  }];
}

def TileSwizzle : Pass<"tile-swizzle", "mlir::ModuleOp"> {
  let summary = "give every shared-memory buffer a conflict-free layout";
  let description = [{
    Each layout conversion that goes through shared memory gets the shared
    layout (unswizzled, or swizzled with vec/perPhase/maxPhase along either
    fast dim) that gives the widest vectors to its writers and readers first
    and the fewest excess bank conflicts second, by the exact analysis of
    lib/Layout/BankConflicts. The choice is the op's `shared` attribute.
  }];
}

#endif // TILEC_TILE_PASSES_TD
