// RUN: tilec-opt %s -split-input-file -verify-diagnostics

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @not_a_tma_view(%a: !tile.tensor<?x?xbf16>, %i: i32) {
  %r = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %f = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  // expected-error @+1 {{needs a view with a TMA box and swizzle}}
  tgpu.tma_load %a[%i, %i] -> %r[%i], %f
      : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.mbarriers<2>
  return
}

// -----

// A dynamic schedule's counter is a 1-d view of i32 (the semaphores' words).
func.func @claim_tile_counter(%i: i32, %full: !tgpu.mbarriers<2>, %c: !tile.tensor<?x?xi32>,
    %r: !tgpu.smem<2x4xi32, #tile.shared<offset = [[0, 1], [0, 2], [1, 0]]>>) {
  // expected-error @+1 {{counts in a 1-d i32 view of at least 2 contiguous elements}}
  tgpu.claim_tile %c, %r[%i], %full : !tile.tensor<?x?xi32>, !tgpu.smem<2x4xi32, #tile.shared<offset = [[0, 1], [0, 2], [1, 0]]>>, !tgpu.mbarriers<2>
  return
}

// -----

// The release addresses the counter's second word too.
func.func @release_tile_counter_short(%c: !tile.tensor<1xi32>) {
  // expected-error @+1 {{counts in a 1-d i32 view of at least 2 contiguous elements}}
  tgpu.release_tile_counter %c : !tile.tensor<1xi32>
  return
}

// -----

// Its response rows are try_cancel's.
func.func @claimed_tile_rows(%i: i32,
    %r: !tgpu.smem<2x8xi16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0]]>>) {
  // expected-error @+1 {{needs a buffer of try_cancel responses}}
  %x = tgpu.claimed_tile %r[%i] : !tgpu.smem<2x8xi16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0]]>>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @barrier_per_slot(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32) {
  %r = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %f = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  // expected-error @+1 {{needs a barrier per slot}}
  tgpu.tma_load %a[%i, %i] -> %r[%i], %f
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
        !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.mbarriers<2>
  return
}

// -----

// expected-error @+1 {{the TMA box's inner extent (256 bytes) must be a multiple of 16 and at most the swizzle span}}
func.func @box_wider_than_swizzle(%a: !tile.tensor<?x?xbf16, tma = 64x128, swizzle = 128>) {
  return
}

// -----

// expected-error @+1 {{a TMA view needs a unit innermost stride}}
func.func @column_major_tma(%a: !tile.tensor<?x?xbf16, strides = [1, ?], tma = 64x64, swizzle = 128>) {
  return
}

// -----

// expected-error @+1 {{layout has 13 offset bases, a slot of 4096 elements needs 12}}
func.func @slot_layout_mismatch(%x: !tgpu.smem<2x64x64xbf16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>>) {
  return
}

// -----

func.func @regs() {
  // expected-error @+1 {{register budgets are multiples of 8 in 24..256, found 20}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 20>, #tgpu.partition<compute, warps = 8, regs = 232>] {
  }, {
  }
  return
}

// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @wgmma_shapes(%acc: tensor<128x256xf32, #acc>, %i: i32) {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  // expected-error @+1 {{shapes do not match: 128x64 * 128x64 -> 128x256}}
  %d = tgpu.wgmma %ra[%i], %ra[%i], %acc
      : !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.smem<3x128x64xbf16, #sa>,
        tensor<128x256xf32, #acc>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

// A result layout of the right shape but not the swapped one.
#rowmajor = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]>

func.func @transpose_type() {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  // expected-error @+1 {{result must be '!tgpu.smem<3x64x128xbf16, #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>>'}}
  %t = tgpu.transpose %ra : !tgpu.smem<3x128x64xbf16, #sa> -> !tgpu.smem<3x64x128xbf16, #rowmajor>
  return
}

// -----

func.func @regions() {
  // expected-error @+1 {{has 1 regions for 2 partitions}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
  }
  return
}

// -----

func.func @undecided() {
  // expected-error @+1 {{partition 1 needs its warps}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute>] {
  }, {
  }
  return
}

// -----

func.func @too_many_warps() {
  // expected-error @+1 {{takes 36 warps, more than a block's 32}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 16, regs = 128, copies = 2>] {
  }, {
  }
  return
}

// -----

// Partitions sharing a warpgroup share its budget (setmaxnreg is a
// warpgroup's).
func.func @warpgroups() {
  // expected-error @+1 {{partition 0 sets a register budget of 40 but shares warpgroup 0 with partition 1 (56): setmaxnreg is a warpgroup's}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 2, regs = 40>, #tgpu.partition<mma, warps = 2, regs = 56>] {
  }, {
  }
  return
}

// -----

// setmaxnreg is a warpgroup's: a region with a budget after one-warp
// regions that set none would share their warpgroup.
func.func @budget_off_warpgroup() {
  // expected-error @+1 {{partition 2 sets a register budget of 232 but shares warpgroup 0 with partition 0 (no budget): setmaxnreg is a warpgroup's}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 1>, #tgpu.partition<mma, warps = 1>, #tgpu.partition<compute, warps = 4, regs = 232>] {
  }, {
  }, {
  }
  return
}

// -----

func.func @load_copies() {
  // expected-error @+1 {{only a compute partition runs as several copies}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40, copies = 2>] {
  }
  return
}

// -----

func.func @partition_key() {
  // expected-error @+1 {{unknown partition key 'threads' (expected warps, regs, copies)}}
  tgpu.warp_specialize [#tgpu.partition<load, threads = 4>] {
  }
  return
}

// -----

func.func @partition_role() {
  // expected-error @+1 {{expected a partition role (load, compute), found 'store'}}
  tgpu.warp_specialize [#tgpu.partition<store, warps = 4, regs = 40>] {
  }
  return
}

// -----

#sa3 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @offsets_per_copy() {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] {
  }, {
    // expected-error @+1 {{has 1 offsets; its region runs 2 copies}}
    %s = tgpu.alloc offset [0] : !tgpu.smem<2x128x64xbf16, #sa3>
  }
  return
}

// -----

#sa4 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @offset_alignment() {
  // expected-error @+1 {{offsets are multiples of 1024 bytes, found 512}}
  %s = tgpu.alloc offset [512] : !tgpu.smem<2x128x64xbf16, #sa4>
  return
}

// -----

func.func @scratch_shifts() {
  // expected-error @+1 {{has 2 scratch shifts for 3 groups of warps}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 2>] scratch [0, 0] {
  }, {
  }
  return
}

// -----

func.func @copies() {
  // expected-error @+1 {{a partition runs as 1 or 2 copies, found 3}}
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 4, regs = 232, copies = 3>] {
  }, {
  }
  return
}

// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @store_slots(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                       %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{the buffer's slots must be the TMA box}}
  tgpu.tma_store %acc, %c[%i, %i] via %buf
      : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

// A 4-d view: the box's outer dims must be 1 (a 2-d tile of the view).
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @store_box_4d(%c: !tile.tensor<?x?x?x?xf32, tma = 2x1x128x32, swizzle = 128>,
                        %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sb>
  // expected-error @+1 {{stores 2-d tiles (of views of any rank: a box with leading 1s), one coordinate a dim}}
  tgpu.tma_store %acc, %c[%i, %i, %i, %i] via %buf
      : tensor<128x256xf32, #acc>, !tile.tensor<?x?x?x?xf32, tma = 2x1x128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sb>
  return
}

// -----

// A lane along the columns: a 32-column chunk is not picked by registers
// and warps.
#split = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 64], [0, 128], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [0, 32]], warp = [[4, 0], [16, 0], [32, 0]]>
#sc = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @store_chunks(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                        %i: i32, %acc: tensor<128x256xf32, #split>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sc>
  // expected-error @+1 {{the value's layout does not split into 32-column chunks by register and warp}}
  tgpu.tma_store %acc, %c[%i, %i] via %buf
      : tensor<128x256xf32, #split>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sc>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @multicast_split(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32) {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  // expected-error @+1 {{a slot of 1 boxes does not split among 2 CTAs}}
  tgpu.tma_load %a[%i, %i] -> %ra[%i], %full multicast 2
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
        !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.mbarriers<3>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @alloc_unknown_depth() {
  // expected-error @+1 {{needs a known number of slots (a ring of unknown depth is a tgpu.channel's)}}
  %r = tgpu.alloc : !tgpu.smem<?x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @channel_fixed_depth() {
  // expected-error @+1 {{buffers are rings of unknown depth}}
  %ch, %r = tgpu.channel consumer_warps 4 : !tgpu.smem<3x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @channel_no_buffers() {
  // expected-error @+1 {{needs at least one buffer}}
  %ch = "tgpu.channel"() {consumer_warps = 4 : i64} : () -> !tgpu.channel
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

// expected-error @+1 {{a ring of unknown depth has one leading `?`}}
func.func @two_unknown_counts(%x: !tgpu.smem<?x?x128x64xbf16, #sa>) {
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @tma_into_another_buffer(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32) {
  %ch, %r = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  %ch2, %r2 = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  // expected-error @+1 {{copies into a buffer of the channel it names}}
  tgpu.tma_load %a[%i, %i] -> %r2[%i], %ch
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
        !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.channel
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @ring_with_barriers(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32) {
  %ch, %r = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  %f = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<2>
  // expected-error @+1 {{a ring of unknown depth is filled through its channel}}
  tgpu.tma_load %a[%i, %i] -> %r[%i], %f
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
        !tgpu.smem<?x128x64xbf16, #sa>, !tgpu.mbarriers<2>
  return
}

// -----

func.func @channel_argument(%ch: !tgpu.channel, %i: i32) {
  // expected-error @+1 {{needs a channel defined by tgpu.channel}}
  %s = tgpu.channel_wait %ch[%i]
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @channel_in_a_region() {
  tgpu.warp_specialize [#tgpu.partition<load, warps = 4, regs = 40>, #tgpu.partition<compute, warps = 8, regs = 232>] {
    // expected-error @+1 {{must run on every thread, outside tgpu.warp_specialize}}
    %ch, %r = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  }, {
  }
  return
}

// -----

// The decisions of tile-select-mma-and-tma are typed attributes on the ops
// they are about.
func.func @mma_on_load(%x: !tile.tensor<?x?xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tgpu.mma' is a tile.dot's #tgpu.mma<...>}}
  %t = tile.load %x[%c0, %c0] {tgpu.mma = #tgpu.mma<wgmma, a = smem, b = smem>} : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  return
}

// -----

// expected-error @+1 {{mma_sync reads both operands from registers}}
func.func @mma_sync_smem() attributes {x = #tgpu.mma<mma_sync, a = smem, b = regs>} {
  return
}

// -----

// expected-error @+1 {{wgmma reads B from shared memory}}
func.func @wgmma_b_regs() attributes {x = #tgpu.mma<wgmma, a = regs, b = regs>} {
  return
}

// -----

func.func @tma_box_rank(%x: !tile.tensor<?x?xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tgpu.tma': the box has 1 dims but the tile has rank 2}}
  %t = tile.load %x[%c0, %c0] {tgpu.tma = #tgpu.tma_copy<box = [64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  return
}

// -----

// expected-error @+1 {{a TMA swizzle is 0, 32, 64 or 128 bytes, found 16}}
func.func @tma_swizzle() attributes {x = #tgpu.tma_copy<box = [64, 64], swizzle = 16>} {
  return
}

// -----

func.func @partition_outside_loop() {
  // expected-error @+1 {{'tgpu.partition' is a non-empty array<i32> on an op of a loop with tgpu.partitions}}
  %c0 = arith.constant {tgpu.partition = array<i32: 0>} 0 : i32
  return
}

// -----

func.func @partition_out_of_range(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-error @+1 {{'tgpu.partition': no partition 2 (the loop has 2)}}
    %x = arith.addi %i, %c1 {tgpu.partition = array<i32: 2>} : i32
  } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
  return
}

// -----

func.func @partition_other_block(%n: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tgpu.partitions = [#tgpu.partition<load>, #tgpu.partition<compute>]}
  scf.if %c {
    // expected-error @+1 {{'tgpu.partition' is a non-empty array<i32> on an op of a loop with tgpu.partitions (or of its block)}}
    %x = arith.addi %n, %c1 {tgpu.partition = array<i32: 1>} : i32
  }
  return
}

// -----

// expected-error @+1 {{only a compute partition runs as several copies}}
func.func @load_copies() attributes {x = #tgpu.partition<load, copies = 2>} {
  return
}

// -----

// expected-error @+1 {{a partition runs as 1 or 2 copies, found 3}}
func.func @three_copies() attributes {x = #tgpu.partition<compute, copies = 3>} {
  return
}

// -----

// expected-error @+1 {{'tgpu.persistent' is a unit or a #tile.tile_scheduler attribute of a tile.kernel function}}
func.func @persistent_not_kernel() attributes {tgpu.persistent} {
  return
}

// -----

// expected-error @+1 {{'tgpu.partitions' is a loop's array of #tgpu.partition<...>}}
func.func @partitions_on_func() attributes {tgpu.partitions = [#tgpu.partition<load>]} {
  return
}

// -----

// A register A must be in the wgmma register-A layout: here its columns
// and rows are swapped between lanes.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#bad = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [0, 2], [0, 4]], warp = [[16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
func.func @wgmma_register_a_layout(%p: tensor<128x64xbf16, #bad>, %i: i32,
                                   %acc: tensor<128x256xf32, #acc>) {
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  // expected-error @+1 {{a register A must be in the wgmma register-A layout of the accumulator's warpgroups}}
  %d = tgpu.wgmma %p, %rb[%i], %acc
      : tensor<128x64xbf16, #bad>, !tgpu.smem<3x64x256xbf16, #sb>,
        tensor<128x256xf32, #acc>
  return
}

// -----

// A slot index goes with A in shared memory only.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#a = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128]]>
func.func @wgmma_register_a_slot(%p: tensor<128x64xbf16, #a>, %i: i32,
                                 %acc: tensor<128x256xf32, #acc>) {
  %rb = tgpu.alloc : !tgpu.smem<3x64x256xbf16, #sb>
  // expected-error @+1 {{A in shared memory needs a slot index; A in registers takes none}}
  %d = tgpu.wgmma %p[%i], %rb[%i], %acc
      : tensor<128x64xbf16, #a>, !tgpu.smem<3x64x256xbf16, #sb>,
        tensor<128x256xf32, #acc>
  return
}

// -----

// A wait's `after` values are stored as 32-bit words: no f64, no index.
func.func @wgmma_wait_after_f64(%x: f64) {
  // expected-error @+1 {{'after' takes tiles and scalars of at most 32-bit integers or floats, not 'f64'}}
  tgpu.wgmma_wait after(%x : f64) {pendings = 0 : i32}
  return
}

// -----

func.func @tma_masked(%x: !tile.tensor<?x?xbf16>, %m: !tile.tile<64x64xi1>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tgpu.tma' on a masked load (TMA copies whole boxes)}}
  %t = tile.load %x[%c0, %c0] mask(%m : !tile.tile<64x64xi1>) {tgpu.tma = #tgpu.tma_copy<box = [64, 64], swizzle = 128>} : !tile.tensor<?x?xbf16> -> !tile.tile<64x64xbf16>
  return
}

// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sa8 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 16], [2, 32], [4, 64], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb8 = #tile.shared<offset = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [16, 1], [32, 2], [64, 4], [0, 8], [0, 16], [0, 32], [0, 64]]>

func.func @wgmma_i8_f32_acc(%acc: tensor<128x128xf32, #acc>, %i: i32) {
  %ra = tgpu.alloc : !tgpu.smem<2x128x128xi8, #sa8>
  %rb = tgpu.alloc : !tgpu.smem<2x128x128xi8, #sb8>
  // expected-error @+1 {{accumulates 'i8' in i32 only}}
  %d = tgpu.wgmma %ra[%i], %rb[%i], %acc
      : !tgpu.smem<2x128x128xi8, #sa8>, !tgpu.smem<2x128x128xi8, #sb8>,
        tensor<128x128xf32, #acc>
  return
}

// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sa32 = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>
// 32x128 f32 with N contiguous: MN-major, which tf32 wgmma cannot read.
#sbn = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [0, 32], [0, 64]]>

func.func @wgmma_tf32_mn_major(%acc: tensor<128x128xf32, #acc>, %i: i32) {
  %fa = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sa32>
  %fb = tgpu.alloc : !tgpu.smem<2x32x128xf32, #sbn>
  // expected-error @+1 {{8-bit and tf32 operands must be K-major}}
  %e = tgpu.wgmma %fa[%i], %fb[%i], %acc
      : !tgpu.smem<2x128x32xf32, #sa32>, !tgpu.smem<2x32x128xf32, #sbn>,
        tensor<128x128xf32, #acc>
  return
}

// -----

// expected-error @+1 {{a slot has 128 rows (TMEM lanes), not 64}}
func.func @tmem_rows(%t: !tgpu.tmem<64x128xf32>) {
  return
}

// -----

// expected-error @+1 {{takes 1024 columns; tensor memory has 512}}
func.func @tmem_too_wide(%t: !tgpu.tmem<4x128x256xf32>) {
  return
}

// -----

// expected-error @+1 {{tensor memory holds f32, i32, f16 or bf16 tiles, not 'f8E4M3FN'}}
func.func @tmem_fp8(%t: !tgpu.tmem<128x128xf8E4M3FN>) {
  return
}

// -----

// expected-error @+1 {{allocates a power of two of 32 to 512 columns, not 96}}
func.func @tmem_columns() attributes {tile.kernel, tile.grid = #tile.grid<1>, tgpu.tensor_memory = #tgpu.tensor_memory<columns = 96>} {
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>

func.func @mma_shapes(%i: i32, %on: i1) {
  %a = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sb>
  %d = tgpu.tmem_alloc : !tgpu.tmem<128x256xf32>
  // expected-error @+1 {{shapes do not match: 128x64 * 64x128 -> 128x256}}
  tgpu.tcgen05_mma %a[%i], %b[%i], %d[%i], %on
      : !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.smem<2x64x128xbf16, #sb>, !tgpu.tmem<128x256xf32>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>

func.func @mma_accumulates_f32(%i: i32, %on: i1) {
  %a = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x128xbf16, #sb>
  %d = tgpu.tmem_alloc : !tgpu.tmem<128x128xbf16>
  // expected-error @+1 {{accumulates in f32}}
  tgpu.tcgen05_mma %a[%i], %b[%i], %d[%i], %on
      : !tgpu.smem<2x128x64xbf16, #sa>, !tgpu.smem<2x64x128xbf16, #sb>, !tgpu.tmem<128x128xbf16>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64]]>

func.func @mma_i8_accumulates_i32(%i: i32, %on: i1) {
  %a = tgpu.alloc : !tgpu.smem<2x128x64xi8, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x128xi8, #sb>
  %d = tgpu.tmem_alloc : !tgpu.tmem<128x128xf32>
  // expected-error @+1 {{accumulates i8 in i32}}
  tgpu.tcgen05_mma %a[%i], %b[%i], %d[%i], %on
      : !tgpu.smem<2x128x64xi8, #sa>, !tgpu.smem<2x64x128xi8, #sb>, !tgpu.tmem<128x128xf32>
  return
}

// -----

// Rows across lanes the way mma.sync holds them: no tcgen05.ld shape.
#mma = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>

func.func @tmem_load_layout(%i: i32) {
  %t = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  // expected-error @+1 {{the tile's layout is none of tcgen05.ld/st's (tmem32x32b, tmem16x64b, tmem16x128b, tmem16x256b)}}
  %l = tgpu.tmem_load %t[%i] : !tgpu.tmem<128x64xf32> -> tensor<128x64xf32, #mma>
  %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #mma>
  return
}

// -----

#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

func.func @tmem_load_unwaited(%i: i32) -> tensor<128x64xf32, #t32> {
  %t = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  // expected-error @+1 {{result is read before a tgpu.tmem_wait load}}
  %l = tgpu.tmem_load %t[%i] : !tgpu.tmem<128x64xf32> -> tensor<128x64xf32, #t32>
  return %l : tensor<128x64xf32, #t32>
}

// -----

#t32 = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]]>

func.func @tmem_load_outside(%i: i32) {
  %t = tgpu.tmem_alloc : !tgpu.tmem<128x64xf32>
  // expected-error @+1 {{the tile is not 128 rows of columns within a slot of 64}}
  %l = tgpu.tmem_load %t[%i] column 32 : !tgpu.tmem<128x64xf32> -> tensor<128x64xf32, #t32>
  %w = tgpu.tmem_wait load %l : tensor<128x64xf32, #t32>
  return
}

// -----

func.func @tmem_channel_without_depth() {
  // expected-error @+1 {{a channel of tensor-memory buffers needs a depth}}
  %ch, %r = tgpu.channel consumer_warps 4 kind <fill = mma, release = arrive> : !tgpu.tmem<?x128x128xf32>
  return
}

// -----

func.func @tmem_channel_filled_by_copies() {
  // expected-error @+1 {{tensor-memory buffers are filled by MMAs (fill = mma) or by the producer's warps (fill = arrive), shared-memory ones by TMA copies}}
  %ch, %r = tgpu.channel consumer_warps 4 depth 2 : !tgpu.tmem<?x128x128xf32>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @smem_channel_filled_by_mma() {
  // expected-error @+1 {{shared-memory ones by TMA copies or the producer's warps}}
  %ch, %r = tgpu.channel consumer_warps 4 kind <fill = mma, release = arrive> : !tgpu.smem<?x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @fill_a_copied_channel(%i: i32) {
  %ch, %r = tgpu.channel consumer_warps 4 : !tgpu.smem<?x128x64xbf16, #sa>
  // expected-error @+1 {{marks uses of channels filled by MMAs or by the producer's warps (fill = mma, arrive, async_copy); TMA copies complete their own}}
  tgpu.channel_fill %ch[%i]
  return
}

// -----

func.func @producer_warps_of_a_copied_channel() {
  // expected-error @+1 {{producer_warps counts the warps that fill a use of a fill = arrive or async_copy channel}}
  %ch, %r = tgpu.channel consumer_warps 1 producer_warps 4 depth 1 kind <fill = mma, release = mma> : !tgpu.tmem<?x128x64xf32>
  return
}

// -----

func.func @tmem_alloc_ring() {
  // expected-error @+1 {{needs a known number of slots (a ring of unknown depth is a channel's)}}
  %t = tgpu.tmem_alloc : !tgpu.tmem<?x128x128xf32>
  return
}

// -----

// A shared layout whose basis lies outside the slot (found by the fuzzer:
// the tcgen05 verifier then built its layout and crashed).
// expected-error @+1 {{offset basis 6 has -2147483648 in dim 0, outside the slot's 128}}
func.func @shared_basis_outside(%b: !tgpu.smem<128x64xbf16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [-2147483648, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>>) {
  return
}

// -----

// try_cancel writes 16-byte responses: rows of 4 i32, row-major.
func.func @try_cancel_rows(%i: i32, %full: !tgpu.mbarriers<2>,
    %r: !tgpu.smem<2x8xi16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0]]>>) {
  // expected-error @+1 {{needs a buffer of try_cancel responses, a power-of-two N rows of 4 i32, row-major}}
  tgpu.try_cancel %r[%i], %full : !tgpu.smem<2x8xi16, #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [1, 0]]>>, !tgpu.mbarriers<2>
  return
}

// -----

// A response row's words in another order would query other bits.
func.func @query_cancel_order(%i: i32,
    %r: !tgpu.smem<2x4xi32, #tile.shared<offset = [[1, 0], [0, 1], [0, 2]]>>) {
  // expected-error @+1 {{needs a buffer of try_cancel responses}}
  %x = tgpu.query_cancel %r[%i] : !tgpu.smem<2x4xi32, #tile.shared<offset = [[1, 0], [0, 1], [0, 2]]>>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @multicast_and_leader(%a: !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>, %i: i32) {
  %ra = tgpu.alloc : !tgpu.smem<3x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  // expected-error @+1 {{multicasts to every CTA's barrier or completes on the leader's, not both}}
  tgpu.tma_load %a[%i, %i] -> %ra[%i], %full multicast 2 leader
      : !tile.tensor<?x?xbf16, tma = 128x64, swizzle = 128>,
        !tgpu.smem<3x128x64xbf16, #sa>, !tgpu.mbarriers<3>
  return
}

// -----

func.func @arrive_cluster_and_leader(%i: i32) {
  %empty = tgpu.barriers arrive_count 1 : !tgpu.mbarriers<3>
  // expected-error @+1 {{arrives on every CTA's barrier (cluster) or on the leader's, not both}}
  tgpu.arrive %empty[%i] cluster 2 leader : !tgpu.mbarriers<3>
  return
}

// -----

// expected-error @+1 {{'tgpu.cta_group' is a tile.kernel function's i32 2}}
func.func @cta_group_one() attributes {tile.kernel, tile.grid = #tile.grid<1>, tgpu.cta_group = 1 : i32} {
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#l = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>

func.func @local_store_shape(%v: tensor<128x64xbf16, #l>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<1x128x64xf16, #sa>
  // expected-error @+1 {{value must be a slot of the buffer}}
  tgpu.local_store %v, %buf[%i] : tensor<128x64xbf16, #l>, !tgpu.smem<1x128x64xf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#l = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>

func.func @local_stage_slots(%v: tensor<128x64xbf16, #l>) {
  // expected-error @+1 {{stages into a one-slot buffer}}
  %s = tgpu.local_stage %v : tensor<128x64xbf16, #l> -> !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#l = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>

func.func @local_stage_shape(%v: tensor<128x64xbf16, #l>) {
  // expected-error @+1 {{value must be a slot of the buffer}}
  %s = tgpu.local_stage %v : tensor<128x64xbf16, #l> -> !tgpu.smem<1x128x64xf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

func.func @thread_copy_not_a_slot(%a: !tile.tensor<?x?xbf16>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{the tile (leading unit dims dropped) must be a slot of the buffer}}
  tgpu.thread_copy %a[%i, %i] -> %buf[%i] as tensor<64x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

#sv = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#cv = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [1, 0], [8, 0]], lane = [[2, 0], [4, 0], [16, 0], [32, 0], [0, 8]], warp = [[0, 16], [0, 32]]>
// (A warp bit a register: not the tile's registers, lanes and warps.)
#iv = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 32], [8, 0]], warp = [[16, 0]]>

func.func @thread_copy_in_slot_other_threads(%a: !tile.tensor<?x64xf8E4M3FN>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x64x64xf8E4M3FN, #sv>
  // expected-error @+1 {{'in_slot' must lay the tile's registers, lanes and warps out over a slot of the buffer}}
  tgpu.thread_copy %a[%i, %i] -> %buf[%i] as tensor<64x64xf8E4M3FN, #cv> in_slot #iv : !tile.tensor<?x64xf8E4M3FN>, !tgpu.smem<2x64x64xf8E4M3FN, #sv>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @thread_copy_without_layout(%a: !tile.tensor<?x?xbf16>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{needs a tile layout}}
  tgpu.thread_copy %a[%i, %i] -> %buf[%i] as tensor<128x64xbf16> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

func.func @thread_copy_offsets(%a: !tile.tensor<?x?xbf16>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{needs an offset and a tile dim for each dim of the view}}
  tgpu.thread_copy %a[%i] -> %buf[%i] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

func.func @thread_gather_indices(%a: !tile.tensor<?x?xbf16>, %r: tensor<128x64xi32, #co>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{needs an index tile for each dim of the view}}
  tgpu.thread_gather %a[%r] -> %buf[%i] as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #co>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

func.func @thread_gather_not_a_slot(%a: !tile.tensor<?x?xbf16>, %r: tensor<64x64xi32, #co>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{the tile must be a slot of the buffer}}
  tgpu.thread_gather %a[%r, %r] -> %buf[%i] as tensor<64x64xbf16, #co> : !tile.tensor<?x?xbf16>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<64x64xi32, #co>, tensor<64x64xi32, #co>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#cr = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>

func.func @thread_gather_boxes_no_barriers(%a: !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, %r: tensor<128x64xi32, #cr>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  // expected-error @+1 {{takes barriers for its TMA boxes exactly when its view is a TMA view}}
  tgpu.thread_gather %a[%r, %r] -> %buf[%i] as tensor<128x64xbf16, #cr> : !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #cr>, tensor<128x64xi32, #cr>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#co = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>

func.func @thread_gather_boxes_over_warps(%a: !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, %r: tensor<128x64xi32, #co>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  // expected-error @+1 {{cannot take TMA boxes: a run's rows are spread over warps}}
  tgpu.thread_gather %a[%r, %r] -> %buf[%i] boxes %full : !tgpu.mbarriers<2> as tensor<128x64xbf16, #co> : !tile.tensor<?x?xbf16, tma = 16x64, swizzle = 128>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #co>, tensor<128x64xi32, #co>
  return
}

// -----

#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0]]>
#cr = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0], [64, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[16, 0], [32, 0]]>

func.func @thread_gather_boxes_wrong_box(%a: !tile.tensor<?x?xbf16, tma = 16x32, swizzle = 128>, %r: tensor<128x64xi32, #cr>, %i: i32) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x64xbf16, #sa>
  %full = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  // expected-error @+1 {{cannot take TMA boxes: the box is not 16 rows by 64 columns with a 128-byte swizzle (the slot's)}}
  tgpu.thread_gather %a[%r, %r] -> %buf[%i] boxes %full : !tgpu.mbarriers<2> as tensor<128x64xbf16, #cr> : !tile.tensor<?x?xbf16, tma = 16x32, swizzle = 128>, !tgpu.smem<2x128x64xbf16, #sa>, tensor<128x64xi32, #cr>, tensor<128x64xi32, #cr>
  return
}

// -----

func.func @arrive_async_copies_expect_tx(%i: i32) {
  %b = tgpu.barriers arrive_count 128 : !tgpu.mbarriers<2>
  // expected-error @+1 {{async_copies arrives on this CTA's barrier, without expect_tx}}
  tgpu.arrive %b[%i] expect_tx 16 async_copies : !tgpu.mbarriers<2>
  return
}

// -----

// expected-error @+1 {{'tgpu.num_stages' is a function's i32 number of ring slots (2..8)}}
func.func @num_stages(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tgpu.num_stages = 1 : i32, tile.grid = #tile.grid<1>} {
  return
}

// -----

// Warps along the columns: each round is the four warps' chunks at once,
// which two slots cannot hold.
#split = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0], [64, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 32], [0, 64], [0, 128]]>
#sc = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @store_rounds(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                        %i: i32, %acc: tensor<128x256xf32, #split>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sc>
  // expected-error @+1 {{1 rounds of 8 chunks do not cycle through 2 slots evenly}}
  tgpu.tma_store %acc, %c[%i, %i] via %buf
      : tensor<128x256xf32, #split>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sc>
  return
}

// -----

// TMA reduces by add only.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [64, 0]]>
#sc = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [8, 0], [16, 0], [32, 0], [64, 0]]>

func.func @store_reduce_max(%c: !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
                            %i: i32, %acc: tensor<128x256xf32, #acc>) {
  %buf = tgpu.alloc : !tgpu.smem<2x128x32xf32, #sc>
  // expected-error @+1 {{reduces by add only, of f32, f16, bf16 or i32}}
  tgpu.tma_store %acc, %c[%i, %i] via %buf reduce max
      : tensor<128x256xf32, #acc>, !tile.tensor<?x?xf32, tma = 128x32, swizzle = 128>,
        !tgpu.smem<2x128x32xf32, #sc>
  return
}

// -----

// N past 256 only on warpgroups splitting N: a 64x512 accumulator that two
// warpgroups hold alike (a replicated warp bit) is refused.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0], [0, 0]]>
#sa = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0]]>
#sb = #tile.shared<offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [0, 64], [0, 128], [0, 256]]>

func.func @wgmma_n_past_256(%acc: tensor<64x512xf32, #acc>, %i: i32) {
  %a = tgpu.alloc : !tgpu.smem<2x64x64xbf16, #sa>
  %b = tgpu.alloc : !tgpu.smem<2x64x512xbf16, #sb>
  // expected-error @+1 {{needs M a multiple of 64, N a multiple of 8 up to 256 a warpgroup}}
  %d = tgpu.wgmma %a[%i], %b[%i], %acc
      : !tgpu.smem<2x64x64xbf16, #sa>, !tgpu.smem<2x64x512xbf16, #sb>,
        tensor<64x512xf32, #acc>
  return
}
