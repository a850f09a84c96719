// A bundle's kernels in several machine-code modules (docs/BUNDLE.md,
// format version 2): --kernels-per-module=1 gives every kernel its own
// module, with the functions it calls (at -O0 libdevice's are not inlined:
// each module that uses __nv_sinf has its own copy, and ptxas assembles
// every module alone); the metadata says which module holds a kernel.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec compile %s -O0 --kernels-per-module=1 -o %t/one.tlc
// RUN: python3 %S/Inputs/bundle-sections.py %t/one.tlc | FileCheck %s
// CHECK: magic TILECBN1 version 2 sections 7
// CHECK-NEXT: META:
// CHECK-NEXT: CUBN module 0: ELF True
// CHECK-NEXT: PTX module 0: add_one{{$}}
// CHECK-NEXT: CUBN module 1: ELF True
// CHECK-NEXT: PTX module 1: sine funcs: {{.*}}__nv_sinf
// CHECK-NEXT: CUBN module 2: ELF True
// CHECK-NEXT: PTX module 2: sine_again funcs: {{.*}}__nv_sinf
// CHECK-NEXT: kernel add_one in module 0
// CHECK-NEXT: kernel sine in module 1
// CHECK-NEXT: kernel sine_again in module 2

// Two kernels a module: the third starts module 1.
// RUN: tilec compile %s --kernels-per-module=2 -o %t/two.tlc
// RUN: python3 %S/Inputs/bundle-sections.py %t/two.tlc | FileCheck %s --check-prefix=TWO
// TWO: version 2 sections 5
// TWO: PTX module 0: add_one sine{{$}}
// TWO: PTX module 1: sine_again{{$}}
// TWO: kernel sine_again in module 1

// By default (8 a module) and with 0 (one module): format version 1, as
// before, and no `module` lines.
// RUN: tilec compile %s -o %t/default.tlc
// RUN: python3 %S/Inputs/bundle-sections.py %t/default.tlc | FileCheck %s --check-prefix=ONE
// RUN: tilec compile %s --kernels-per-module=0 -o %t/zero.tlc
// RUN: python3 %S/Inputs/bundle-sections.py %t/zero.tlc | FileCheck %s --check-prefix=ONE
// RUN: not grep -a "^module " %t/default.tlc
// ONE: version 1 sections 3
// ONE: PTX module 0: add_one sine sine_again{{$}}
// ONE: kernel sine_again in module 0

// The per-kernel summary reads ptxas's report of every module.
// RUN: tilec compile %s --kernels-per-module=1 --remarks -o %t/r.tlc 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK-DAG: kernel 'add_one': {{.*}} registers, no spills
// REMARK-DAG: kernel 'sine': {{.*}} registers, no spills
// REMARK-DAG: kernel 'sine_again': {{.*}} registers, no spills

func.func @add_one(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %p = tile.program_id x
  %c = arith.constant 128 : i32
  %o = arith.muli %p, %c : i32
  %t = tile.load %x[%o] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %one = arith.constant dense<1.0> : !tile.tile<128xf32>
  %u = arith.addf %t, %one : !tile.tile<128xf32>
  tile.store %u, %y[%o] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

func.func @sine(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %p = tile.program_id x
  %c = arith.constant 128 : i32
  %o = arith.muli %p, %c : i32
  %t = tile.load %x[%o] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %u = math.sin %t : !tile.tile<128xf32>
  tile.store %u, %y[%o] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

func.func @sine_again(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 128)>} {
  %p = tile.program_id x
  %c = arith.constant 128 : i32
  %o = arith.muli %p, %c : i32
  %t = tile.load %x[%o] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %u = math.sin %t : !tile.tile<128xf32>
  tile.store %u, %y[%o] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}
