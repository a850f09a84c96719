// RUN: tilec-opt %s -tilec-lower-to-llvm | FileCheck %s

// Four bytes a loop carries that its body only packs into one 32-bit word
// (an 8-bit wgmma A carried into the next iteration: fp8 attention's P)
// travel as that word: the body reads it as is, the yield packs the two
// conversions' halves at once (<2 x i16>), and after the loop a byte is
// the word's byte. The bytes' own block arguments are gone.
// CHECK-LABEL: llvm.func @carried
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}} : i32, i32)
// CHECK: ^bb1(%{{.*}}: i32, %[[W:.*]]: i32):
// CHECK: llvm.store %[[W]], %{{.*}} : i32, !llvm.ptr
// CHECK-NOT: vector<4xi8>
// CHECK: llvm.insertelement %{{.*}} : vector<2xi16>
// CHECK: llvm.insertelement %{{.*}} : vector<2xi16>
// CHECK: llvm.bitcast %{{.*}} : vector<2xi16> to i32
// CHECK: llvm.br ^bb1
// CHECK: %[[V:.*]] = llvm.bitcast %[[W]] : i32 to vector<4xi8>
// CHECK: %[[B:.*]] = llvm.extractelement %[[V]]
// CHECK: llvm.store %[[B]], %{{.*}} : i8, !llvm.ptr

module attributes {tile.target = #tile.target<sm_90a>} {
  func.func @carried(%lb: i32, %ub: i32, %h0: i16, %h1: i16, %out: !llvm.ptr) {
    %c1 = arith.constant 1 : i32
    %c8 = llvm.mlir.constant(8 : i16) : i16
    %k0 = arith.constant 0 : i32
    %k1 = arith.constant 1 : i32
    %k2 = arith.constant 2 : i32
    %k3 = arith.constant 3 : i32
    %t0 = llvm.trunc %h0 : i16 to i8
    %s0 = llvm.lshr %h0, %c8 : i16
    %t1 = llvm.trunc %s0 : i16 to i8
    %t2 = llvm.trunc %h1 : i16 to i8
    %s1 = llvm.lshr %h1, %c8 : i16
    %t3 = llvm.trunc %s1 : i16 to i8
    %f0 = arith.bitcast %t0 : i8 to f8E4M3FN
    %f1 = arith.bitcast %t1 : i8 to f8E4M3FN
    %f2 = arith.bitcast %t2 : i8 to f8E4M3FN
    %f3 = arith.bitcast %t3 : i8 to f8E4M3FN
    %r:4 = scf.for %i = %lb to %ub step %c1
        iter_args(%a0 = %f0, %a1 = %f1, %a2 = %f2, %a3 = %f3)
        -> (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN) : i32 {
      %u = llvm.mlir.undef : vector<4xi8>
      %e0 = arith.bitcast %a0 : f8E4M3FN to i8
      %v0 = llvm.insertelement %e0, %u[%k0 : i32] : vector<4xi8>
      %e1 = arith.bitcast %a1 : f8E4M3FN to i8
      %v1 = llvm.insertelement %e1, %v0[%k1 : i32] : vector<4xi8>
      %e2 = arith.bitcast %a2 : f8E4M3FN to i8
      %v2 = llvm.insertelement %e2, %v1[%k2 : i32] : vector<4xi8>
      %e3 = arith.bitcast %a3 : f8E4M3FN to i8
      %v3 = llvm.insertelement %e3, %v2[%k3 : i32] : vector<4xi8>
      %w = llvm.bitcast %v3 : vector<4xi8> to i32
      llvm.store %w, %out : i32, !llvm.ptr
      %n0 = llvm.trunc %h1 : i16 to i8
      %n1 = llvm.trunc %s1 : i16 to i8
      %g0 = arith.bitcast %n0 : i8 to f8E4M3FN
      %g1 = arith.bitcast %n1 : i8 to f8E4M3FN
      scf.yield %g0, %g1, %f0, %f1 : f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN
    }
    %last = arith.bitcast %r#2 : f8E4M3FN to i8
    llvm.store %last, %out : i8, !llvm.ptr
    return
  }
}
