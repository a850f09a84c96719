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
