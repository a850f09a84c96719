// RUN: not tilec-opt %s -split-input-file 2>&1 | FileCheck %s
// Found by scripts/fuzz.py (seed 1, mutant 365): a forward reference (%0
// below) resolved to a value defined in an op's region, and the op failed
// to parse after that region. ODS-generated parsers kept the region in a
// local and freed it with the use still live: a use after free and a heap
// abort. tile.scan and tgpu.warp_specialize parse their regions into the
// operation state, whose cleanup drops those uses first.

// CHECK: error: expected non-function type
func.func @scan(%x: tensor<16xf32>) {
  %2 = arith.addi %0, %0 : i32
  %r = tile.scan %x dim 0 combine {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.constant 0 : i32
    tile.yield %a : f32
  } : bogus
  return
}

// -----

// CHECK: error: expected '{' to begin a region
%2 = arith.addi %0, %0 : i32
tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
  %0 = arith.constant 0 : i32
}, bogus
