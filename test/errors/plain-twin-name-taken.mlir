// RUN: not tilec compile %s --arch=sm_90a 2>&1 | FileCheck %s
// A warp-specialized kernel's plain twin is NAME__plain; a function of that
// name already in the module is a located error, not a symbol clash.
// CHECK: plain-twin-name-taken.mlir:[[@LINE+1]]:1: error: the kernel's plain twin would be named 'mm__plain', which the module already defines; rename that function
func.func @mm(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>, %c: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.num_warps = 4, tile.tile_shapes = [[64, 64]],
                tile.grid = #tile.grid<cdiv(dim(0, 0), 64), cdiv(dim(1, 1), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : i32
  %n0 = arith.muli %pn, %c64 : i32
  %k = tile.dim %a, 1 : !tile.tensor<?x?xbf16>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (!tile.tile<64x64xf32>) : i32 {
    %ta = tile.load %a[%m0, %k0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %tb = tile.load %b[%k0, %n0] : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
    %d = tile.dot %ta, %tb, %acc_i : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %d : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%m0, %n0] : !tile.tile<64x64xf32>, !tile.tensor<?x?xf32>
  return
}

func.func @mm__plain(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
