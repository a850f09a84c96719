// RUN: tilec-opt %s -tile-invariant-division | FileCheck %s

// A tile divided by a splat of a scalar the loop does not change: the
// magic number and shifts once, after the scalar (outside the loop); in
// the loop a multiply-high and two shifts, the remainder x - q * d. A
// divisor made in the loop, a scalar division and a signed one stay; so
// do a constant divisor and a division outside any loop. A function
// argument as the divisor: the magic number at the function's start, from
// max(d, 1).
// CHECK-LABEL: func.func @paged
// CHECK: %[[P:.*]] = tile.dim %arg0, 1
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[PD:.*]] = arith.maxui %[[P]], %[[C1]] : i32
// CHECK-NEXT: %[[C1B:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[DM1:.*]] = arith.subi %[[PD]], %[[C1B]] : i32
// CHECK-NEXT: %[[CLZ:.*]] = math.ctlz %[[DM1]] : i32
// CHECK: %[[L:.*]] = arith.subi %{{.*}}, %[[CLZ]] : i32
// CHECK: %[[Q64:.*]] = arith.divui %{{.*}} : i64
// CHECK: %[[M:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[S1:.*]] = arith.minui %[[L]], %{{.*}} : i32
// CHECK: %[[S2:.*]] = arith.subi %[[L]], %[[S1]] : i32
// CHECK: scf.for
// CHECK-NOT: arith.divui %{{.*}} : tensor
// CHECK-NOT: arith.remui
// CHECK: arith.muli %{{.*}} : tensor<64xi64>
// CHECK: arith.shrui %{{.*}} : tensor<64xi64>
// CHECK: %[[T:.*]] = arith.trunci %{{.*}} : tensor<64xi64> to tensor<64xi32>
// CHECK: %[[D:.*]] = arith.subi %[[X:.*]], %[[T]] : tensor<64xi32>
// CHECK: %[[H:.*]] = arith.shrui %[[D]], %{{.*}} : tensor<64xi32>
// CHECK: %[[A:.*]] = arith.addi %[[T]], %[[H]] : tensor<64xi32>
// CHECK: %[[Q:.*]] = arith.shrui %[[A]], %{{.*}} : tensor<64xi32>
// CHECK: arith.muli %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: arith.subi
// CHECK: arith.divui %{{.*}} : tensor<64xi32>
// CHECK: arith.divsi %{{.*}} : tensor<64xi32>
// CHECK: arith.divui %{{.*}} : i32
func.func @paged(%kv: !tile.tensor<?x?xi32>, %out: !tile.tensor<?xi32>, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %page = tile.dim %kv, 1 : !tile.tensor<?x?xi32>
  %pages = tile.splat %page : i32 -> !tile.tile<64xi32>
  %iota = tile.iota : !tile.tile<64xi32>
  %zero = arith.constant dense<0> : !tile.tile<64xi32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (!tile.tile<64xi32>) : i32 {
    %kt = tile.splat %k : i32 -> !tile.tile<64xi32>
    %keys = arith.addi %iota, %kt : !tile.tile<64xi32>
    %blk = arith.divui %keys, %pages : !tile.tile<64xi32>
    %off = arith.remui %keys, %pages : !tile.tile<64xi32>
    %kp = arith.addi %k, %c64 : i32
    %ks = tile.splat %kp : i32 -> !tile.tile<64xi32>
    %inloop = arith.divui %keys, %ks : !tile.tile<64xi32>
    %signed = arith.divsi %keys, %pages : !tile.tile<64xi32>
    %scalar = arith.divui %k, %page : i32
    %st = tile.splat %scalar : i32 -> !tile.tile<64xi32>
    %a = arith.addi %blk, %off : !tile.tile<64xi32>
    %b = arith.addi %a, %inloop : !tile.tile<64xi32>
    %c = arith.addi %b, %signed : !tile.tile<64xi32>
    %d = arith.addi %c, %st : !tile.tile<64xi32>
    %e = arith.addi %acc, %d : !tile.tile<64xi32>
    scf.yield %e : !tile.tile<64xi32>
  }
  tile.store %r, %out[%c0] : !tile.tile<64xi32>, !tile.tensor<?xi32>
  return
}

// CHECK-LABEL: func.func @argument
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.maxui %arg2, %[[ONE]] : i32
// CHECK: arith.divui %{{.*}} : tensor<64xi32>
// CHECK: scf.for
// CHECK-NOT: arith.divui %{{.*}} : tensor
// CHECK: arith.shrui
// CHECK: arith.divui %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: scf.yield
func.func @argument(%x: !tile.tensor<?xi32>, %out: !tile.tensor<?xi32>, %d: i32, %n: i32)
    attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ds = tile.splat %d : i32 -> !tile.tile<64xi32>
  %c7 = arith.constant 7 : i32
  %sevens = tile.splat %c7 : i32 -> !tile.tile<64xi32>
  %v0 = tile.load %x[%c0] : !tile.tensor<?xi32> -> !tile.tile<64xi32>
  %outside = arith.divui %v0, %ds : !tile.tile<64xi32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %outside) -> (!tile.tile<64xi32>) : i32 {
    %v = tile.load %x[%k] : !tile.tensor<?xi32> -> !tile.tile<64xi32>
    %q = arith.divui %v, %ds : !tile.tile<64xi32>
    %s = arith.divui %v, %sevens : !tile.tile<64xi32>
    %a = arith.addi %acc, %q : !tile.tile<64xi32>
    %b = arith.addi %a, %s : !tile.tile<64xi32>
    scf.yield %b : !tile.tile<64xi32>
  }
  tile.store %r, %out[%c0] : !tile.tile<64xi32>, !tile.tensor<?xi32>
  return
}
