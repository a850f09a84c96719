// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @load_offsets(%x: !tile.tensor<?x?xf32>, %i: i32) {
  // expected-error @+1 {{expected 2 offsets (one per tensor dim), found 1}}
  %t = tile.load %x[%i] : !tile.tensor<?x?xf32> -> !tile.tile<16x16xf32>
  return
}

// -----

func.func @load_element(%x: !tile.tensor<?x?xf32>, %i: i32) {
  // expected-error @+1 {{expected tile element type 'f32' like the tensor, found 'bf16'}}
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<16x16xbf16>
  return
}

// -----

func.func @load_rank(%x: !tile.tensor<?x?xf32>, %i: i32) {
  // expected-error @+1 {{expected a tile of rank 2 like the tensor, found 'tensor<256xf32>'}}
  %t = tile.load %x[%i, %i] : !tile.tensor<?x?xf32> -> !tile.tile<256xf32>
  return
}

// -----

func.func @load_padding(%x: !tile.tensor<?xf32>, %i: i32) {
  // expected-error @+1 {{expected padding of type 'f32', found 'f16'}}
  %t = tile.load %x[%i] {padding = 1.0 : f16} : !tile.tensor<?xf32> -> !tile.tile<16xf32>
  return
}

// -----

// in_bounds promises every element lies in the view; a mask says some do
// not count.
func.func @load_in_bounds_mask(%x: !tile.tensor<?xf32>, %m: !tile.tile<16xi1>, %i: i32) {
  // expected-error @+1 {{is in_bounds and has a mask}}
  %t = tile.load %x[%i] mask(%m : !tile.tile<16xi1>) {in_bounds} : !tile.tensor<?xf32> -> !tile.tile<16xf32>
  return
}

// -----

func.func @store_in_bounds_mask(%x: !tile.tensor<?xf32>, %t: !tile.tile<16xf32>, %m: !tile.tile<16xi1>, %i: i32) {
  // expected-error @+1 {{is in_bounds and has a mask}}
  tile.store %t, %x[%i] mask(%m : !tile.tile<16xi1>) {in_bounds} : !tile.tile<16xf32>, !tile.tensor<?xf32>
  return
}

// -----

func.func @store_element(%x: !tile.tensor<?xf32>, %t: !tile.tile<16xf16>, %i: i32) {
  // expected-error @+1 {{expected tile element type 'f32' like the tensor, found 'f16'}}
  tile.store %t, %x[%i] : !tile.tile<16xf16>, !tile.tensor<?xf32>
  return
}

// -----

func.func @dot_k(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<16x64xbf16>, %c: !tile.tile<64x64xf32>) {
  // expected-error @+1 {{expected b to have 32 rows (the columns of a), found 16}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xbf16>, !tile.tile<16x64xbf16> -> !tile.tile<64x64xf32>
  return
}

// -----

func.func @dot_acc(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<32x64xbf16>, %c: !tile.tile<64x32xf32>) {
  // expected-error @+1 {{expected acc of shape 64x64, found 64x32}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x32xf32>
  return
}

// -----

func.func @dot_i32_inputs(%a: !tile.tile<64x32xi32>, %b: !tile.tile<32x64xi32>, %c: !tile.tile<64x64xi32>) {
  // expected-error @+1 {{expected bf16, f16, f8E4M3FN, f8E5M2, i8 or f32 (tf32) inputs, found 'i32'}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xi32>, !tile.tile<32x64xi32> -> !tile.tile<64x64xi32>
  return
}

// -----

func.func @dot_mixed(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<32x64xf16>, %c: !tile.tile<64x64xf32>) {
  // expected-error @+1 {{expected a and b of one element type, found 'bf16' and 'f16'}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xbf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
  return
}

// -----

func.func @dot_acc_type(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<32x64xbf16>, %c: !tile.tile<64x64xf16>) {
  // expected-error @+1 {{expected an f32 accumulator (or f16 for f16 inputs), found 'f16'}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf16>
  return
}

// -----

func.func @dot_small(%a: !tile.tile<8x16xbf16>, %b: !tile.tile<16x8xbf16>, %c: !tile.tile<8x8xf32>) {
  // expected-error @+1 {{expected M >= 16, N >= 8 and K >= 16, found 8x8x16}}
  %d = tile.dot %a, %b, %c : !tile.tile<8x16xbf16>, !tile.tile<16x8xbf16> -> !tile.tile<8x8xf32>
  return
}

// -----

func.func @dot_rank(%a: !tile.tile<64xbf16>, %b: !tile.tile<32x64xbf16>, %c: !tile.tile<64x64xf32>) {
  // expected-error @+1 {{expected rank-2 operands, found ranks 1, 2, 2}}
  %d = tile.dot %a, %b, %c : !tile.tile<64xbf16>, !tile.tile<32x64xbf16> -> !tile.tile<64x64xf32>
  return
}

// -----

func.func @reduce_dim(%x: !tile.tile<16x16xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %r = tile.reduce sum %x dim 2 : !tile.tile<16x16xf32> -> !tile.tile<16xf32>
  return
}

// -----

func.func @reduce_result(%x: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{expected result 'tensor<32xf32>', found 'tensor<16xf32>'}}
  %r = tile.reduce sum %x dim 0 : !tile.tile<16x32xf32> -> !tile.tile<16xf32>
  return
}

// -----

func.func @reduce_scalar(%x: !tile.tile<16xf32>) {
  // expected-error @+1 {{reducing a rank-1 tile gives a scalar 'f32', found 'f16'}}
  %r = tile.reduce max %x dim 0 : !tile.tile<16xf32> -> f16
  return
}

// -----

func.func @broadcast(%x: !tile.tile<2x16xf32>) {
  // expected-error @+1 {{dim 0 of size 2 can only broadcast from size 1, found result size 16}}
  %r = tile.broadcast %x : !tile.tile<2x16xf32> -> !tile.tile<16x16xf32>
  return
}

// -----

// Broadcasting keeps the rank; the error says which unit dim to insert (it
// said only "expected source and result of one rank, found 1 and 2").
func.func @broadcast_rank_row(%x: !tile.tile<256xf32>) {
  // expected-error @+1 {{broadcasts within a rank: the source has rank 1, the result 2; insert the unit dim first: `tile.expand_dims %x axis 0` (to !tile.tile<1x256xf32>), then broadcast}}
  %r = tile.broadcast %x : !tile.tile<256xf32> -> !tile.tile<128x256xf32>
  return
}

// -----

func.func @broadcast_rank_column(%x: !tile.tile<128xf32>) {
  // expected-error @+1 {{insert the unit dim first: `tile.expand_dims %x axis 1` (to !tile.tile<128x1xf32>), then broadcast}}
  %r = tile.broadcast %x : !tile.tile<128xf32> -> !tile.tile<128x256xf32>
  return
}

// -----

func.func @expand_dims(%x: !tile.tile<16xf32>) {
  // expected-error @+1 {{expected result shape 'tensor<16x1xf32>', found 'tensor<1x16xf32>'}}
  %r = tile.expand_dims %x axis 1 : !tile.tile<16xf32> -> !tile.tile<1x16xf32>
  return
}

// -----

func.func @reshape(%x: !tile.tile<16x16xf32>) {
  // expected-error @+1 {{expected 256 elements like the source, found 128}}
  %r = tile.reshape %x : !tile.tile<16x16xf32> -> !tile.tile<128xf32>
  return
}

// -----

func.func @transpose(%x: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{expected a permutation of 0..1}}
  %r = tile.transpose %x [0, 0] : !tile.tile<16x32xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @splat(%s: f16) {
  // expected-error @+1 {{expected a scalar of the tile's element type 'f32', found 'f16'}}
  %r = tile.splat %s : f16 -> !tile.tile<16xf32>
  return
}

// -----

func.func @iota() {
  // expected-error @+1 {{expected a rank-1 tile of i32, found 'tensor<16xi64>'}}
  %r = tile.iota : !tile.tile<16xi64>
  return
}

// -----

func.func @convert(%x: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{expected the shape of the source, found 'tensor<32x16xf32>'}}
  %r = tile.convert_layout %x : !tile.tile<16x32xf32> -> !tile.tile<32x16xf32>
  return
}

// -----

func.func @dim(%x: !tile.tensor<?x?xf32>) {
  // expected-error @+1 {{dim 2 is out of range for a tensor of rank 2}}
  %d = tile.dim %x, 2 : !tile.tensor<?x?xf32>
  return
}

// -----

func.func @negative_dim(%x: !tile.tensor<?x?xf32>) {
  // expected-error @+1 {{dim -1 is out of range for a tensor of rank 2}}
  %d = tile.dim %x, -1 : !tile.tensor<?x?xf32>
  return
}

// -----

// expected-error @+1 {{expected tile dims to be static powers of two, found 'tensor<100x64xf32>'}}
func.func @non_pow2(%x: !tile.tile<100x64xf32>) {
  return
}

// -----

// expected-error @+1 {{unsupported tile element type 'f64'; expected i1, i8, i16, i32, i64, f16, bf16, f32, f8E4M3FN or f8E5M2}}
func.func @f64_tile(%x: !tile.tile<64xf64>) {
  return
}

// -----

// expected-error @+1 {{expected a tensor of rank 1 to 5, found rank 6}}
func.func @rank6(%x: !tile.tensor<?x?x?x?x?x?xf32>) {
  return
}

// -----

// expected-error @+1 {{expected 2 strides (one per dim), found 1}}
func.func @strides(%x: !tile.tensor<?x?xf32, strides = [1]>) {
  return
}

// -----

// expected-error @+1 {{unknown tile type 'tensr'; expected 'tile' or 'tensor'}}
func.func @unknown_type(%x: !tile.tensr<?xf32>) {
  return
}

// -----

// expected-error @+1 {{expected 5 lane bases (32 lanes), found 4}}
func.func @layout_lanes(%x: !tile.tile<16xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{a kernel needs a launch grid}}
func.func @no_grid(%x: !tile.tensor<?xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{expected a grid expression: an integer, sms, dim(P, D), stride(P, D), arg(P) or a call}}
func.func @bad_grid(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), )>} {
  return
}

// -----

// expected-error @+1 {{bad grid expression 'dim(1, 0)': dim(1, 0): argument 1 is not a tensor}}
func.func @grid_scalar(%x: !tile.tensor<?xf32>, %n: i32) attributes {tile.kernel, tile.grid = #tile.grid<dim(1, 0)>} {
  return
}

// -----

// expected-error @+1 {{unknown grid function 'pow'}}
func.func @grid_fn(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<pow(2, 3)>} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be 1, 2, 4, 8 or 16, found 3 : i32}}
func.func @warps(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.num_warps = 3 : i32, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{a kernel returns nothing, found 1 results}}
func.func @returns(%x: !tile.tensor<?xf32>) -> i32 attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

func.func @axis() {
  // expected-error @+1 {{expected grid axis x, y or z, found 'w'}}
  %p = tile.program_id w
  return
}

// -----

func.func @shared_not_bijective(%x: !tile.tile<4x4xf32>) {
  // expected-error @+1 {{expected a shared layout that holds each of the 16 elements at exactly one offset}}
  %r = tile.convert_layout %x {shared = #tile.shared<offset = [[0, 1], [0, 2], [1, 0], [1, 0]]>} : !tile.tile<4x4xf32> -> !tile.tile<4x4xf32>
  return
}

// -----

func.func @shared_outside(%x: !tile.tile<4x4xf32>) {
  // expected-error @+1 {{shared layout basis coordinate 4 is outside dim 1}}
  %r = tile.convert_layout %x {shared = #tile.shared<offset = [[0, 1], [0, 4], [1, 0], [2, 0]]>} : !tile.tile<4x4xf32> -> !tile.tile<4x4xf32>
  return
}

// -----

// expected-error @+1 {{'tile.schedule' must be #tile.schedule<cooperative|pingpong>, found "pingpong"}}
func.func @schedule(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.schedule = "pingpong", tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.tile_scheduler' must be #tile.tile_scheduler<static|launch_control|dynamic>, found #tile.schedule<pingpong>}}
func.func @tile_scheduler(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.tile_scheduler = #tile.schedule<pingpong>, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' must be 2..8, found 9 : i32}}
func.func @stages(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.num_stages = 9 : i32, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.cluster' must be 1 or 2, found 4 : i32}}
func.func @cluster(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.cluster = 4 : i32, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.tile_shapes' must be a non-empty array of [rows, cols] pairs of powers of two in 16..256, found [[100, 128]]}}
func.func @tile_shapes(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.tile_shapes = [[100, 128]], tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.tile_shapes' must be a non-empty array of [rows, cols] pairs of powers of two in 16..256, found []}}
func.func @tile_shapes_empty(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.tile_shapes = [], tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{expected ','}}
func.func @cost(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.cost = #tile.expr<mul(sms)>, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{bad cost expression 'mul(arg(0), 4)': arg(0): argument 0 is not an integer scalar}}
func.func @cost_arg(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.cost = #tile.expr<mul(arg(0), 4)>, tile.grid = #tile.grid<1>} {
  return
}

// -----

// A kernel cannot read a view's strides: stride() is for costs only.
// expected-error @+1 {{bad grid expression 'cdiv(stride(0, 0), 128)': stride() is for costs only (a kernel cannot read a view's strides)}}
func.func @grid_stride(%x: !tile.tensor<?x?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<cdiv(stride(0, 0), 128)>} {
  return
}

// -----

// expected-error @+1 {{bad workspace expression 'stride(0, 0)': stride() is for costs only}}
func.func @workspace_stride(%x: !tile.tensor<?x?xf32>) attributes {tile.kernel, tile.workspace = #tile.expr<stride(0, 0)>, tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{bad cost expression 'stride(1, 0)': stride(1, 0): argument 1 is not a tensor}}
func.func @cost_stride_scalar(%x: !tile.tensor<?x?xf32>, %n: i32) attributes {tile.kernel, tile.cost = #tile.expr<stride(1, 0)>, tile.grid = #tile.grid<1>} {
  return
}

// -----

// The grid rule is a structured attribute; the strings of the bundle's
// text form are not accepted in the IR.
// expected-error @+1 {{'tile.grid' must be a #tile.grid<...> of 1 to 3 grid expressions, e.g. #tile.grid<cdiv(dim(0, 0), 128)>; found ["cdiv(dim(0,0),128)"]}}
func.func @grid_strings(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = ["cdiv(dim(0,0),128)"]} {
  return
}

// -----

// expected-error @+1 {{a grid has 1 to 3 axes, found 4}}
func.func @grid_axes(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1, 1, 1, 1>} {
  return
}

// -----

// expected-error @+1 {{dim() takes non-negative literals}}
func.func @grid_negative(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<dim(-1, 0)>} {
  return
}

// -----

// Nesting the runtime would refuse (and that would overflow a recursive
// parser's stack if unbounded) is a parse error.
// expected-error @+1 {{grid expression nested more than 64 deep}}
func.func @grid_deep(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, add(1, 1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))>} {
  return
}

// -----

// expected-error @+1 {{'tile.target' is a module's #tile.target<sm_90a|sm_100a>}}
func.func @target_on_func() attributes {tile.target = #tile.target<sm_90a>} {
  return
}

// -----

// expected-error @+1 {{'tile.target' is a module's #tile.target<sm_90a|sm_100a>}}
module attributes {tile.target = "sm_90a"} {
}

// -----

// expected-error @+2 {{expected ::tilec::tile::Target to be one of: sm_90a, sm_100a}}
// expected-error @+1 {{failed to parse Tile_TargetAttr parameter 'value'}}
module attributes {tile.target = #tile.target<sm_80>} {
}

// -----

// Grid rules every launch would reject: a constant divisor of 0, an axis
// that is never at least 1 or always above the runtime's limit (x up to
// 2^31 - 1, y and z up to 65535).
// expected-error @+1 {{grid x 'cdiv(dim(0, 0), sub(2, 2))' divides by a constant 0: every launch would fail}}
func.func @grid_div_zero(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), sub(2, 2))>} {
  return
}

// -----

// expected-error @+1 {{grid x 'min(dim(0, 0), 0)' is at most 0 for every input: a launch needs 1..2147483647}}
func.func @grid_never_positive(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<min(dim(0, 0), 0)>} {
  return
}

// -----

// expected-error @+1 {{grid y 'mul(arg(1), 0)' is at most 0 for every input: a launch needs 1..65535}}
func.func @grid_zero_y(%x: !tile.tensor<?xf32>, %n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1, mul(arg(1), 0)>} {
  return
}

// -----

// A static extent counts as its value: 70000 rows of 1 is above y's limit.
// expected-error @+1 {{grid y 'dim(0, 0)' is at least 70000 for every input: a launch needs 1..65535}}
func.func @grid_static_too_large(%x: !tile.tensor<70000xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1, dim(0, 0)>} {
  return
}

// -----

// expected-error @+1 {{grid x 'mul(2147483648, 2)' is at least 4294967296 for every input: a launch needs 1..2147483647}}
func.func @grid_too_large(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.grid = #tile.grid<mul(2147483648, 2)>} {
  return
}

// -----

// Kernels index with 32-bit integers: a static extent of 2^33 would be cut.
// expected-error @+1 {{dim 8589934592 does not fit the 32-bit indices of a kernel (at most 2147483647)}}
func.func @huge_extent(%x: !tile.tensor<8589934592xf32>) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  return
}

// -----

func.func @gather_indices(%x: !tile.tensor<?x?xf32>, %i: !tile.tile<64xi32>) {
  // expected-error @+1 {{expected 2 index tiles (one per tensor dim), found 1}}
  %t = tile.gather %x[%i] : !tile.tensor<?x?xf32>, !tile.tile<64xi32> -> !tile.tile<64xf32>
  return
}

// -----

func.func @gather_index_shape(%x: !tile.tensor<?xf32>, %i: !tile.tile<32xi32>) {
  // expected-error @+1 {{expected index tile 0 of 'i32' elements and shape 64 like the value, found 'tensor<32xi32>'}}
  %t = tile.gather %x[%i] : !tile.tensor<?xf32>, !tile.tile<32xi32> -> !tile.tile<64xf32>
  return
}

// -----

func.func @gather_index_type(%x: !tile.tensor<?xf32>, %i: !tile.tile<64xi64>) {
  // expected-error @+1 {{expected index tile 0 of 'i32' elements}}
  %t = tile.gather %x[%i] : !tile.tensor<?xf32>, !tile.tile<64xi64> -> !tile.tile<64xf32>
  return
}

// -----

func.func @scatter_mask(%x: !tile.tensor<?xf32>, %i: !tile.tile<64xi32>, %v: !tile.tile<64xf32>, %m: !tile.tile<64xi32>) {
  // expected-error @+1 {{expected mask of 'i1' elements and shape 64 like the value, found 'tensor<64xi32>'}}
  tile.scatter %v, %x[%i] mask(%m : !tile.tile<64xi32>) : !tile.tile<64xf32>, !tile.tensor<?xf32>, !tile.tile<64xi32>
  return
}

// -----

func.func @scatter_element(%x: !tile.tensor<?xf32>, %i: !tile.tile<64xi32>, %v: !tile.tile<64xf16>) {
  // expected-error @+1 {{expected element type 'f32' like the tensor, found 'f16'}}
  tile.scatter %v, %x[%i] : !tile.tile<64xf16>, !tile.tensor<?xf32>, !tile.tile<64xi32>
  return
}

// -----

func.func @atomic_kind_type(%x: !tile.tensor<?xf32>, %i: !tile.tile<64xi32>, %v: !tile.tile<64xf32>) {
  // expected-error @+1 {{atomic xor is not supported on 'f32' (it takes i32)}}
  %o = tile.atomic_rmw xor %v, %x[%i] : !tile.tile<64xf32>, !tile.tensor<?xf32>, !tile.tile<64xi32>
  return
}

// -----

func.func @atomic_add_i64(%x: !tile.tensor<?xi64>, %i: !tile.tile<64xi32>, %v: !tile.tile<64xi64>) {
  // expected-error @+1 {{atomic add is not supported on 'i64' (it takes f32, f16, bf16 and i32)}}
  %o = tile.atomic_rmw add %v, %x[%i] : !tile.tile<64xi64>, !tile.tensor<?xi64>, !tile.tile<64xi32>
  return
}

// -----

func.func @cas_type(%x: !tile.tensor<?xf16>, %i: !tile.tile<64xi32>, %v: !tile.tile<64xf16>) {
  // expected-error @+1 {{compare-and-swap is not supported on 'f16' (it takes i32 and f32)}}
  %o = tile.atomic_cas %x[%i], %v, %v : !tile.tensor<?xf16>, !tile.tile<64xi32> -> !tile.tile<64xf16>
  return
}

// -----

func.func @load_mask_shape(%x: !tile.tensor<?xf32>, %i: i32, %m: !tile.tile<32xi1>) {
  // expected-error @+1 {{expected a mask of i1 elements and shape 64 like the tile, found 'tensor<32xi1>'}}
  %t = tile.load %x[%i] mask(%m : !tile.tile<32xi1>) : !tile.tensor<?xf32> -> !tile.tile<64xf32>
  return
}

// -----

func.func @store_mask_type(%x: !tile.tensor<?xf32>, %i: i32, %v: !tile.tile<64xf32>, %m: !tile.tile<64xi8>) {
  // expected-error @+1 {{expected a mask of i1 elements and shape 64 like the tile, found 'tensor<64xi8>'}}
  tile.store %v, %x[%i] mask(%m : !tile.tile<64xi8>) : !tile.tile<64xf32>, !tile.tensor<?xf32>
  return
}

// -----

func.func @philox_counters(%c: !tile.tile<64xi64>, %k: i32) {
  // expected-error @+1 {{expected counters of i32 elements, found 'tensor<64xi64>'}}
  %r:4 = tile.philox %c, %c, %c, %c key %k, %k : !tile.tile<64xi64>
  return
}

// -----

func.func @rand_result(%c: !tile.tile<64xi32>, %k: i32) {
  // expected-error @+1 {{expected an f32 result of the offsets' shape 64, found 'tensor<64xf16>'}}
  %u = tile.rand uniform %c key %k, %k : !tile.tile<64xi32> -> !tile.tile<64xf16>
  return
}

// -----

func.func @scan_both(%x: !tile.tile<64xf32>) {
  // expected-error @+1 {{expects either a combiner kind (sum, max, min) or a `combine` region, not both}}
  %s = tile.scan sum %x dim 0 combine {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  } : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_neither(%x: !tile.tile<64xf32>) {
  // expected-error @+1 {{expects either a combiner kind (sum, max, min) or a `combine` region, not neither}}
  %s = tile.scan %x dim 0 : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_dim(%x: !tile.tile<64xf32>) {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %s = tile.scan sum %x dim 1 : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_exclusive_region(%x: !tile.tile<64xf32>) {
  // expected-error @+1 {{an exclusive scan needs a named combiner (sum, max, min): a region has no identity}}
  %s = tile.scan %x dim 0 exclusive combine {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  } : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_region_args(%x: !tile.tile<64xf32>) {
  // expected-error @+1 {{expects the combiner to take two 'f32' arguments}}
  %s = tile.scan %x dim 0 combine {
  ^bb0(%a: f32, %b: i32):
    tile.yield %a : f32
  } : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_region_op(%x: !tile.tile<64xf32>, %t: !tile.tensor<?xf32>) {
  %s = tile.scan %x dim 0 combine {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{is not allowed in a scan combiner (arith and math ops only)}}
    %n = tile.dim %t, 0 : !tile.tensor<?xf32>
    tile.yield %a : f32
  } : !tile.tile<64xf32>
  return
}

// -----

func.func @scan_fp8(%x: !tile.tile<64xf8E4M3FN>) {
  // expected-error @+1 {{cannot work on 'f8E4M3FN' tiles; extend them first}}
  %s = tile.scan sum %x dim 0 : !tile.tile<64xf8E4M3FN>
  return
}

// -----

func.func @sort_long(%x: !tile.tile<2048xf32>) {
  // expected-error @+1 {{sorts at most 1024 elements along a dim, found 2048}}
  %s = tile.sort %x dim 0 : !tile.tile<2048xf32>
  return
}

// -----

func.func @sort_values(%x: !tile.tile<16x64xf32>, %v: !tile.tile<64x16xi32>) {
  // expected-error @+1 {{expects values of the keys' shape 'tensor<16x64xi32>', found 'tensor<64x16xi32>'}}
  %s, %t = tile.sort %x, %v dim 1 : !tile.tile<16x64xf32>, !tile.tile<64x16xi32>
  return
}

// -----

func.func @topk_k(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{k is a power of two in 1..64 (the dim's size), found 128}}
  %s = tile.topk %x dim 1 k 128 : !tile.tile<16x64xf32> -> !tile.tile<16x128xf32>
  return
}

// -----

func.func @topk_result(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{expected result 'tensor<16x8xf32>', found 'tensor<8x64xf32>'}}
  %s = tile.topk %x dim 1 k 8 : !tile.tile<16x64xf32> -> !tile.tile<8x64xf32>
  return
}

// -----

func.func @print_fp8(%x: !tile.tile<16xf8E4M3FN>) {
  // expected-error @+1 {{cannot print 'tensor<16xf8E4M3FN>'; integers of up to 64 bits, index, f16, bf16, f32 and f64 print (extend 8-bit floats first)}}
  tile.print "x" %x : !tile.tile<16xf8E4M3FN>
  return
}

// -----

// printf has no conversion for integers wider than 64 bits.
func.func @print_i128(%x: i128) {
  // expected-error @+1 {{cannot print 'i128'; integers of up to 64 bits}}
  tile.print "x" %x : i128
  return
}

// -----

func.func @print_program(%x: i32) {
  // expected-error @+1 {{expects `program [x, y, z]` with three non-negative program ids}}
  tile.print "x" %x program [0, 1] : i32
  return
}

// -----

func.func @assert_type(%x: !tile.tile<16xi32>) {
  // expected-error @+1 {{expects an i1 condition (scalar or tile), found 'tensor<16xi32>'}}
  tile.assert %x, "bad" : !tile.tile<16xi32>
  return
}

// -----

func.func @dot_i8_acc(%a: !tile.tile<64x32xi8>, %b: !tile.tile<32x64xi8>, %c: !tile.tile<64x64xf32>) {
  // expected-error @+1 {{expected an i32 accumulator for i8 inputs, found 'f32'}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x32xi8>, !tile.tile<32x64xi8> -> !tile.tile<64x64xf32>
  return
}

// -----

func.func @dot_tf32_k(%a: !tile.tile<64x4xf32>, %b: !tile.tile<4x64xf32>, %c: !tile.tile<64x64xf32>) {
  // expected-error @+1 {{expected M >= 16, N >= 8 and K >= 8, found 64x64x4}}
  %d = tile.dot %a, %b, %c : !tile.tile<64x4xf32>, !tile.tile<4x64xf32> -> !tile.tile<64x64xf32>
  return
}

// -----

// tile.workspace belongs to kernels the compiler gave a workspace size.
func.func @workspace_without_size(%n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>} {
  %o = arith.constant 0 : i64
  // expected-error @+1 {{is in a kernel without a 'tile.workspace' size}}
  %w = tile.workspace [%n] offset %o : !tile.tensor<?xf32>
  return
}

// -----

func.func @semaphores_without_size(%n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>,
    tile.workspace = #tile.expr<64>} {
  %o = arith.constant 0 : i64
  // expected-error @+1 {{is in a kernel without a 'tile.semaphores' size}}
  %w = tile.workspace semaphores [%n] offset %o : !tile.tensor<?xi32>
  return
}

// -----

func.func @workspace_rank(%n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>,
    tile.workspace = #tile.expr<64>} {
  %o = arith.constant 0 : i64
  // expected-error @+1 {{has 1 extents for a view of rank 2}}
  %w = tile.workspace [%n] offset %o : !tile.tensor<?x?xf32>
  return
}

// -----

// expected-error @+1 {{'tile.split_k' must be an array of integers in 2..16, found [1]}}
func.func @split_k_one() attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.split_k = [1]} {
  return
}

// -----

// The workspace size is checked like the cost: dims of views only.
// expected-error @+1 {{bad workspace expression 'mul(dim(0, 0), 4)': dim(0, 0): argument 0 is not a tensor}}
func.func @workspace_of_scalar(%n: i32) attributes {tile.kernel, tile.grid = #tile.grid<1>,
    tile.workspace = #tile.expr<mul(dim(0, 0), 4)>} {
  return
}

// -----

func.func @profile_unclosed() {
  // expected-error @+1 {{'tile.profile_begin' op scope 'a' has no tile.profile_end after it in its block}}
  tile.profile_begin "a"
  return
}

// -----

func.func @profile_crossed() {
  // expected-error @+1 {{'tile.profile_begin' op scope 'a' is closed by scope 'b' (scopes nest)}}
  tile.profile_begin "a"
  tile.profile_begin "b"
  tile.profile_end "a"
  tile.profile_end "b"
  return
}

// -----

func.func @profile_end_alone() {
  // expected-error @+1 {{'tile.profile_end' op scope 'a' has no tile.profile_begin before it in its block}}
  tile.profile_end "a"
  return
}

// -----

func.func @profile_name() {
  // expected-error @+1 {{'tile.profile_begin' op scope name 'two words' is not 1 to 48 characters of [A-Za-z0-9_.:#-]}}
  tile.profile_begin "two words"
  tile.profile_end "two words"
  return
}

// -----

// expected-error @+1 {{'tile.profile_scopes' is a kernel's array of scope names}}
func.func @profile_scopes_bad() attributes {tile.kernel, tile.grid = #tile.grid<1>, tile.profile_scopes = ["ok", "not ok"]} {
  return
}

// -----

func.func @profile_frame_without_slot() {
  // expected-error @+1 {{'tile.profile_begin' op takes 'frame' and 'slot' together, both non-negative}}
  tile.profile_begin "a" {frame = 0 : i32}
  tile.profile_end "a"
  return
}

// -----

func.func @profile_negative_slot() {
  tile.profile_begin "a"
  // expected-error @+1 {{'tile.profile_end' op takes 'frame' and 'slot' together, both non-negative}}
  tile.profile_end "a" {frame = 0 : i32, slot = -1 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.cta_group' must be 1 or 2, found 4 : i64}}
func.func @cta_group(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.cta_group = 4, tile.grid = #tile.grid<1>} {
  return
}

// -----

// Twins and variants refer to kernels by symbol, not by name strings.
// expected-error @+1 {{'tile.plain_variant' is a kernel's reference to a kernel (@name)}}
func.func @plain_variant_string(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.plain_variant = "k__plain", tile.grid = #tile.grid<1>} {
  return
}

// -----

// expected-error @+1 {{'tile.variants' is a kernel's array of references to kernels ([@name, ...])}}
func.func @variants_strings(%x: !tile.tensor<?xf32>) attributes {tile.kernel, tile.variants = ["k__128x64"], tile.grid = #tile.grid<1>} {
  return
}

// -----

// A scalar load or store is of the view's element type, unmasked.
func.func @scalar_load_type(%x: !tile.tensor<?xf32>, %i: i32) {
  // expected-error @+1 {{expected a scalar of the tensor's element type 'f32', found 'f16'}}
  %s = tile.load %x[%i] : !tile.tensor<?xf32> -> f16
  return
}

// -----

func.func @scalar_store_mask(%x: !tile.tensor<?xf32>, %i: i32, %v: f32, %m: !tile.tile<1xi1>) {
  // expected-error @+1 {{masks tiles, not a scalar (guard a scalar access with scf.if)}}
  tile.store %v, %x[%i] mask(%m : !tile.tile<1xi1>) : f32, !tile.tensor<?xf32>
  return
}

// -----

func.func @scalar_load_offsets(%x: !tile.tensor<?x?xf32>, %i: i32) {
  // expected-error @+1 {{expected 2 offsets (one per tensor dim), found 1}}
  %s = tile.load %x[%i] : !tile.tensor<?x?xf32> -> f32
  return
}

// -----

func.func @extract_slice_outside(%x: !tile.tile<32x64xf32>) {
  // expected-error @+1 {{the block of 32 at offset 48 along dim 1 is not inside the 64 elements of the tile}}
  %s = tile.extract_slice %x [0, 48] : !tile.tile<32x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @extract_slice_offsets(%x: !tile.tile<32x64xf32>) {
  // expected-error @+1 {{expected 2 offsets, one per dim, found 1}}
  %s = tile.extract_slice %x [0] : !tile.tile<32x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @extract_slice_rank(%x: !tile.tile<32x64xf32>) {
  // expected-error @+1 {{expected a block of rank 2 like the tile, found 'tensor<32xf32>'}}
  %s = tile.extract_slice %x [0] : !tile.tile<32x64xf32> -> !tile.tile<32xf32>
  return
}

// -----

func.func @extract_slice_negative(%x: !tile.tile<32x64xf32>) {
  // expected-error @+1 {{the block of 16 at offset -1 along dim 0 is not inside the 32 elements of the tile}}
  %s = tile.extract_slice %x [-1, 0] : !tile.tile<32x64xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @insert_slice_type(%x: !tile.tile<32x64xf32>, %b: !tile.tile<16x64xf16>) {
  // expected-error @+1 {{expected a block of 'f32' like the tile, found 'f16'}}
  %s = tile.insert_slice %b into %x [0, 0] : !tile.tile<16x64xf16> into !tile.tile<32x64xf32>
  return
}

// -----

func.func @insert_slice_outside(%x: !tile.tile<32x64xf32>, %b: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{the block of 16 at offset 24 along dim 0 is not inside the 32 elements of the tile}}
  %s = tile.insert_slice %b into %x [24, 0] : !tile.tile<16x64xf32> into !tile.tile<32x64xf32>
  return
}

// -----

func.func @concat_other_dims(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{expected every tile to have 64 elements along dim 1 (all dims but 0 agree), found 'tensor<16x32xf32>'}}
  %c = tile.concat %a, %b dim 0 : !tile.tile<16x64xf32>, !tile.tile<16x32xf32> -> !tile.tile<32x64xf32>
  return
}

// -----

func.func @concat_result(%a: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{expected result shape 'tensor<32x64xf32>', found 'tensor<64x64xf32>'}}
  %c = tile.concat %a, %a dim 0 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32> -> !tile.tile<64x64xf32>
  return
}

// -----

func.func @concat_not_pow2(%a: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{expected tile dims to be static powers of two, found 'tensor<48x64xf32>'}}
  %c = tile.concat %a, %a, %a dim 0 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32> -> !tile.tile<48x64xf32>
  return
}

// -----

func.func @concat_dim(%a: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2}}
  %c = tile.concat %a, %a dim 2 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32> -> !tile.tile<32x64xf32>
  return
}

// -----

func.func @store_reduce_max(%t: !tile.tensor<?x?xf32>, %v: !tile.tile<16x16xf32>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{reduces with 'max'; a store reduces with 'add' only}}
  tile.store %v, %t[%c0, %c0] reduce max : !tile.tile<16x16xf32>, !tile.tensor<?x?xf32>
  return
}

// -----

func.func @store_reduce_bf16(%t: !tile.tensor<?x?xbf16>, %v: !tile.tile<16x16xbf16>) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{reduces a value of 'bf16'; a reducing store adds an f32 tile}}
  tile.store %v, %t[%c0, %c0] reduce add : !tile.tile<16x16xbf16>, !tile.tensor<?x?xbf16>
  return
}

// -----

func.func @stream_k_unit_outside_stream_k(%a: !tile.tensor<?x?xbf16>) -> i32 {
  // expected-error @+1 {{belongs in a stream-K kernel ('tile.stream_k')}}
  %lo, %hi, %slot, %first, %units = tile.stream_k_unit #tile.expr<cdiv(dim(0, 1), 64)>
  return %lo : i32
}
