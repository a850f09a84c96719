// RUN: tilec-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-allocate-shared-memory -convert-tile-to-llvm -tilec-lower-to-llvm | FileCheck %s

// Kernels become NVVM kernels with their thread count; launch attributes go.
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-NOT: tile.
// exp(x) = 2^(x log2 e) on the special-function unit.
// CHECK: %[[L2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK: llvm.fmul %{{.*}}, %[[L2E]]
// CHECK: ex2.approx.ftz.f32 $0, $1;
// CHECK: lg2.approx.ftz.f32
// CHECK: rsqrt.approx.ftz.f32
// CHECK: tanh.approx.f32
// Division is div.full.f32 (bf16 through f32).
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK: llvm.fptrunc %[[Q]] : f32 to bf16
// CHECK-NOT: llvm.fdiv
func.func @k(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<256xf32>
  %e = math.exp %t : !tile.tile<256xf32>
  %l = math.log %e : !tile.tile<256xf32>
  %r = math.rsqrt %l : !tile.tile<256xf32>
  %h = math.tanh %r : !tile.tile<256xf32>
  %q = arith.divf %h, %t : !tile.tile<256xf32>
  %qb = arith.truncf %q : !tile.tile<256xf32> to !tile.tile<256xbf16>
  %qq = arith.divf %qb, %qb : !tile.tile<256xbf16>
  %qf = arith.extf %qq : !tile.tile<256xbf16> to !tile.tile<256xf32>
  tile.store %qf, %y[%c0] : !tile.tile<256xf32>, !tile.tensor<?xf32>
  return
}

// -----

// fp8 casts use cvt (via f16x2 up, satfinite down).
// CHECK-LABEL: llvm.func @fp8
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK: cvt.rn.satfinite.e5m2x2.f32
func.func @fp8(%x: !tile.tensor<?xf8E4M3FN>, %y: !tile.tensor<?xf8E5M2>)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf8E4M3FN> -> !tile.tile<256xf8E4M3FN>
  %f = arith.extf %t : !tile.tile<256xf8E4M3FN> to !tile.tile<256xf32>
  %g = arith.truncf %f : !tile.tile<256xf32> to !tile.tile<256xf8E5M2>
  tile.store %g, %y[%c0] : !tile.tile<256xf8E5M2>, !tile.tensor<?xf8E5M2>
  return
}

// -----

// A loop's llvm.loop_annotation (tgpu.thread_copy's chunk loops say
// unroll disable) reaches the branch back to its header as the branch's
// own attribute, which the translation to LLVM IR turns into the loop's
// metadata (scf-to-cf leaves it a discardable attribute, which it ignores).
// CHECK-LABEL: llvm.func @rolled
// CHECK-NOT: llvm.loop_annotation =
// CHECK: llvm.br ^bb{{[0-9]+}}(%{{.*}} : i32) {loop_annotation = #loop_annotation}
// CHECK-NOT: llvm.loop_annotation =
func.func @rolled(%x: !tile.tensor<?xf32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %t = tile.load %x[%i] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
    %u = arith.addf %t, %t : !tile.tile<128xf32>
    tile.store %u, %x[%i] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  } {llvm.loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}
  return
}
