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

// Named barriers are given ids by tile-allocate-named-barriers.

func.func @unallocated_barrier() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{has no id yet; run tile-allocate-named-barriers first}}
  %id = tgpu.named_barrier_id "turns" count 2 : i32
  tgpu.named_barrier_wait %id, 256 : i32
  return
}

// -----

// Buffers are placed by tile-allocate-shared-memory; the lowering only
// reads where.

#sa2 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @unplaced() attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{has no shared-memory offset; run tile-allocate-shared-memory first}}
  %r = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa2>
  return
}

// -----

// A dot still selected for wgmma at this point was left behind by the
// passes that lower wgmma (they re-select mma.sync where they do not).
#linear = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#linear1 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#linear2 = #tile.linear<register = [[1, 0], [8, 0], [16, 0], [32, 0], [0, 8], [0, 16], [0, 32]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 0], [0, 0]]>
#linear3 = #tile.linear<register = [[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = [[2, 0], [4, 0]]>
#shared = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#shared1 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0]]>
module {
  func.func @no_loop(%arg0: !tile.tensor<?x?xbf16>, %arg1: !tile.tensor<?x?xbf16>, %arg2: !tile.tensor<?x?xf32>) attributes {tile.grid = #tile.grid<1>, tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory = 16384 : i64} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #linear>
    %c0_i32 = arith.constant 0 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %1 = tile.load %arg1[%c0_i32, %c0_i32] : !tile.tensor<?x?xbf16> -> tensor<64x64xbf16, #linear1>
    %2 = tile.convert_layout %0 {shared = #shared} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear>
    %3 = tile.convert_layout %1 {shared = #shared} : tensor<64x64xbf16, #linear1> -> tensor<64x64xbf16, #linear2>
    // expected-error @+2 {{a tile.dot selected for wgmma (#tgpu.mma) outside a warp-specialized loop cannot be lowered yet}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %4 = tile.dot %2, %3, %cst {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : tensor<64x64xbf16, #linear>, tensor<64x64xbf16, #linear2> -> tensor<64x64xf32, #linear>
    %5 = tile.convert_layout %4 {shared = #shared1} : tensor<64x64xf32, #linear> -> tensor<64x64xf32, #linear3>
    tile.store %5, %arg2[%c0_i32, %c0_i32] : tensor<64x64xf32, #linear3>, !tile.tensor<?x?xf32>
    return
  }
}

// -----

// A record in a kernel tile-profile did not instrument (no scope list).
func.func @unlisted() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>} {
  // expected-error @+1 {{'tile.profile_begin' op is in a kernel tile-profile did not instrument (no tile.profile_scopes)}}
  tile.profile_begin "a"
  tile.profile_end "a"
  return
}

// -----

// A scope the kernel's list lacks.
func.func @missing() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile_scopes = ["kernel"]} {
  // expected-error @+1 {{'tile.profile_begin' op scope 'a' is not in the kernel's tile.profile_scopes}}
  tile.profile_begin "a"
  tile.profile_end "a"
  return
}

// -----

// A record tile-profile did not put in a frame.
func.func @frameless() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile_scopes = ["a"]} {
  // expected-error @+1 {{'tile.profile_begin' op has no frame (tile-profile assigns them)}}
  tile.profile_begin "a"
  tile.profile_end "a" {frame = 0 : i32, slot = 0 : i32}
  return
}

// -----

// A frame's slots skip one.
func.func @skipped_slot() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile_scopes = ["a"]} {
  tile.profile_begin "a" {frame = 0 : i32, slot = 0 : i32}
  %c = arith.constant 0 : i32
  // expected-error @+1 {{'tile.profile_end' op breaks frame 0: a frame's records are in one block, its slots count from 0 and a slot's records are adjacent ops}}
  tile.profile_end "a" {frame = 0 : i32, slot = 2 : i32}
  return
}

// -----

// Records of one slot with an op between them (they would share a clock
// reading).
func.func @split_slot() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile_scopes = ["a"]} {
  tile.profile_begin "a" {frame = 0 : i32, slot = 0 : i32}
  %c = arith.constant 0 : i32
  // expected-error @+1 {{'tile.profile_end' op breaks frame 0}}
  tile.profile_end "a" {frame = 0 : i32, slot = 0 : i32}
  return
}

// -----

// A frame in two blocks.
func.func @two_blocks(%c: i1) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid = #tile.grid<1>, tile.profile_scopes = ["a", "b"]} {
  tile.profile_begin "a" {frame = 0 : i32, slot = 0 : i32}
  scf.if %c {
    // expected-error @+1 {{'tile.profile_begin' op breaks frame 0}}
    tile.profile_begin "b" {frame = 0 : i32, slot = 1 : i32}
    tile.profile_end "b" {frame = 0 : i32, slot = 2 : i32}
  }
  tile.profile_end "a" {frame = 0 : i32, slot = 3 : i32}
  return
}
