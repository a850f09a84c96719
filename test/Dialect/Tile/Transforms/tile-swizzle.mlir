// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-remove-layout-conversions -canonicalize -tile-swizzle | FileCheck %s

// A transpose: rows in, rows of the transpose out. The conversion gets a
// swizzled buffer: 8-element (16-byte) chunks along the fast dim are XORed
// by bits 3-5 of the other dim, conflict-free for both sides
// (--report=bank-conflicts shows 0 excess wavefronts).
// CHECK-DAG: #[[S:shared[0-9]*]] = #tile.shared<offset = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1], [0, 2], [0, 4], [8, 8], [16, 16], [32, 32]]>
// CHECK-LABEL: func.func @transpose
// CHECK: tile.convert_layout %{{.*}} {shared = #[[S]]} : tensor<64x64xbf16
func.func @transpose(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>, %i: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  %tt = tile.transpose %t [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  tile.store %tt, %y[%i, %i] : !tile.tile<64x64xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

#a = #tile.linear<register = [[0, 1], [1, 0]], lane = [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], warp = []>
#b = #tile.linear<register = [[1, 0], [0, 1]], lane = [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]], warp = []>

// Same lanes and warps: a register permutation, no shared memory.
// CHECK-LABEL: func.func @permutation
// CHECK: tile.convert_layout %{{.*}} : tensor<8x16xf32
// CHECK-NOT: shared
func.func @permutation(%x: !tile.tile<8x16xf32, #a>) -> !tile.tile<8x16xf32, #b> {
  %y = tile.convert_layout %x : !tile.tile<8x16xf32, #a> -> !tile.tile<8x16xf32, #b>
  return %y : !tile.tile<8x16xf32, #b>
}
