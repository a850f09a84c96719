// RUN: tilec-opt %s -split-input-file -convert-tile-to-llvm -verify-diagnostics

// A channel reaches the lowering only if tile-pipeline did not run.

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @unlowered_channel() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{has no rings yet; run tile-pipeline first}}
  %ch, %ra = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  return
}

// -----

func.func @no_layout(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{produces a tile without a layout; run tile-assign-layouts first}}
  %t = tile.load %x[%c0] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
  return
}

// -----

// More shared memory than a block can have is an error here, not at launch.

#big = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 64], [0, 128]]>

// expected-error @+1 {{needs 262144 bytes of shared memory, more than the 232448 a block can have}}
func.func @too_much_smem() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %r = tgpu.alloc : !tgpu.smem<2x256x256xbf16, #big>
  return
}
