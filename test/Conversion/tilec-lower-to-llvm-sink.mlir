// RUN: tilec-opt %s -split-input-file -tilec-lower-to-llvm | FileCheck %s

// sm_100a: a shared-memory load that only feeds mma.sync moves down to the
// first MMA that reads it: the second k-step's fragment is loaded after the
// first k-step's MMA, not before it.
// CHECK-LABEL: llvm.func @k_steps
// CHECK: %[[A0:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[D0:.*]] = llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A0]], %arg1
// CHECK-NEXT: %[[A1:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A1]], %[[D0]]
module attributes {tile.target = #tile.target<sm_100a>} {
llvm.func @k_steps(%p: !llvm.ptr<3>, %acc: f32) -> f32 {
  %a0 = llvm.load %p : !llvm.ptr<3> -> i32
  %a1 = llvm.load %p : !llvm.ptr<3> -> i32
  %d0 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a0, %acc : (i32, f32) -> f32
  %d1 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a1, %d0 : (i32, f32) -> f32
  llvm.return %d1 : f32
}
}

// -----

// It never passes a barrier, a store or an inline asm with side effects
// (the scratch buffer may be rewritten after them), nor moves where
// something other than an MMA reads it.
// CHECK-LABEL: llvm.func @fenced
// CHECK: %[[A0:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[A1:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[A2:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A0]], %arg1
// CHECK-NEXT: llvm.add %[[A2]], %[[A2]]
// CHECK-NEXT: llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A2]], %arg1
// CHECK-NEXT: llvm.store %{{.*}}, %arg0
// CHECK-NEXT: llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A1]], %arg1
module attributes {tile.target = #tile.target<sm_100a>} {
llvm.func @fenced(%p: !llvm.ptr<3>, %acc: f32) -> f32 {
  %a0 = llvm.load %p : !llvm.ptr<3> -> i32
  %a1 = llvm.load %p : !llvm.ptr<3> -> i32
  %a2 = llvm.load %p : !llvm.ptr<3> -> i32
  nvvm.barrier0
  %d0 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a0, %acc : (i32, f32) -> f32
  %s = llvm.add %a2, %a2 : i32
  %d2 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a2, %acc : (i32, f32) -> f32
  llvm.store %s, %p : i32, !llvm.ptr<3>
  %d1 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a1, %acc : (i32, f32) -> f32
  %r = llvm.fadd %d0, %d1 : f32
  %r2 = llvm.fadd %r, %d2 : f32
  llvm.return %r2 : f32
}
}

// -----

// sm_90a keeps the loads where they are: ptxas for sm_90a spills as much
// either way, and the twins ran slower with the loads next to the MMAs.
// CHECK-LABEL: llvm.func @sm90a
// CHECK: %[[A0:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[A1:.*]] = llvm.load %arg0 : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.inline_asm {{.*}}"mma.sync{{.*}} %[[A0]], %arg1
llvm.func @sm90a(%p: !llvm.ptr<3>, %acc: f32) -> f32 {
  %a0 = llvm.load %p : !llvm.ptr<3> -> i32
  %a1 = llvm.load %p : !llvm.ptr<3> -> i32
  %d0 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a0, %acc : (i32, f32) -> f32
  %d1 = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16 $0, $1, $2;", "=f,r,0" %a1, %d0 : (i32, f32) -> f32
  llvm.return %d1 : f32
}
