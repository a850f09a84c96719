// RUN: tilec-opt %s -split-input-file -tile-verify-kernels -verify-diagnostics

func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // arith accepts any tensor; the pass rejects the non-tile it makes.
  // expected-error @+1 {{expected tile dims to be static powers of two, found 'tensor<100xf32>'}}
  %u = arith.constant dense<0.0> : tensor<100xf32>
  return
}

// -----

// expected-error @+1 {{function 'helper' is not a kernel: tilec compiles functions marked tile.kernel}}
func.func @helper(%x: f32) {
  return
}

// -----

// expected-error @+1 {{no kernel in the module}}
module {
}

// -----

// A math op the lowering has no way for is an error at the op that lists
// the ones it lowers (sincos and fpowi are expanded, the rest instructions,
// approximations or libdevice).
func.func @ipowi(%x: !tile.tensor<?xi32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xi32> -> !tile.tile<128xi32>
  // expected-error @+1 {{'math.ipowi' is not supported; the math ops tilec lowers are absf absi acos}}
  %p = math.ipowi %t, %t : !tile.tile<128xi32>
  tile.store %p, %x[%c0] : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}

// -----

func.func @sincos(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  %s, %c = math.sincos %t : !tile.tile<128xf32>
  %n = arith.constant dense<3> : !tile.tile<128xi32>
  %p = math.fpowi %s, %n : !tile.tile<128xf32>, !tile.tile<128xi32>
  tile.store %p, %x[%c0] : !tile.tile<128xf32>, !tile.tensor<?xf32>
  return
}

// -----

// A constant step that is not positive: the loop would never end.
func.func @zero_step(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %z = arith.subi %c8, %c8 : index
  // expected-error @+1 {{loop step is 0; scf.for needs a positive step}}
  scf.for %i = %c0 to %c8 step %z {
  }
  return
}

// -----

func.func @negative_step(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.subi %c0, %c1 : i32
  // expected-error @+1 {{loop step is -1; scf.for needs a positive step}}
  scf.for %i = %c8 to %c0 step %m1 : i32 {
  }
  return
}

// -----

// Kernel names reach PTX, the bundle, C and Python: C identifiers only.
// expected-error @+1 {{kernel 'my-kernel x': a kernel name is a C identifier (letters, digits, '_', not starting with a digit)}}
func.func @"my-kernel x"(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{kernel '': a kernel needs a name}}
func.func @""(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{kernel 'double': a kernel name cannot be a C keyword}}
func.func @double(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{kernel '9lives': a kernel name is a C identifier}}
func.func @"9lives"(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

// Attributes the compiler sets are not a program's to set: a hand-set
// plain variant went into the launch metadata unchecked.
// expected-error @+1 {{'tile.plain_variant' is set by the compiler, not by a program}}
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.plain_variant = @k} {
  return
}

// -----

// A hand-set workspace size would reach the launch metadata (and the
// runtime's allocation) unchecked; likewise the semaphores.
// expected-error @+1 {{'tile.workspace' is set by the compiler, not by a program}}
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.workspace = #tile.expr<1024>} {
  return
}

// -----

// expected-error @+1 {{'tile.semaphores' is set by the compiler, not by a program}}
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.semaphores = #tile.expr<4>} {
  return
}

// -----

func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tgpu.tma' is set by the compiler, not by a program}}
  %t = tile.load %x[%c0] {tgpu.tma = #tgpu.tma_copy<box = [128], swizzle = 0>} : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  return
}

// -----

// Kernels do not call (no device functions); calling itself was a
// legalization failure deep in the LLVM conversion.
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{calls are not supported in a kernel ('k' calls 'k', itself): write the callee's ops in the kernel}}
  func.call @k(%x) : (!tile.tensor<?xf32>) -> ()
  return
}

// -----

func.func @j(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}
func.func @k(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{calls are not supported in a kernel ('k' calls 'j')}}
  func.call @j(%x) : (!tile.tensor<?xf32>) -> ()
  return
}
