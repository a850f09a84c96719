// A spin on a counter and a loop carrying a tile, as scf.while (tile-assign-layouts walks both regions).
func.func @k(%s: !tile.tensor<?xi32>, %t: i32) attributes {tile.kernel, tile.num_warps = 4, tile.grid = #tile.grid<1>} {
  %c0 = arith.constant 0 : i32
  %i = tile.splat %c0 : i32 -> !tile.tile<1xi32>
  %zero = arith.constant dense<0> : !tile.tile<1xi32>
  %w = scf.while (%a = %zero) : (!tile.tile<1xi32>) -> !tile.tile<1xi32> {
    %seen = tile.atomic_rmw add %a, %s[%i] sem acquire : !tile.tile<1xi32>, !tile.tensor<?xi32>, !tile.tile<1xi32>
    %v = tile.reduce sum %seen dim 0 : !tile.tile<1xi32> -> i32
    %early = arith.cmpi ne, %v, %t : i32
    scf.condition(%early) %a : !tile.tile<1xi32>
  } do {
  ^bb0(%b: !tile.tile<1xi32>):
    %one = arith.constant dense<1> : !tile.tile<1xi32>
    %n = arith.addi %b, %one : !tile.tile<1xi32>
    scf.yield %n : !tile.tile<1xi32>
  }
  %r = tile.iota : !tile.tile<128xi32>
  %x = scf.while (%a = %r) : (!tile.tile<128xi32>) -> !tile.tile<128xi32> {
    %v = tile.reduce sum %a dim 0 : !tile.tile<128xi32> -> i32
    %go = arith.cmpi slt, %v, %t : i32
    scf.condition(%go) %a : !tile.tile<128xi32>
  } do {
  ^bb0(%b: !tile.tile<128xi32>):
    %n = arith.addi %b, %b : !tile.tile<128xi32>
    scf.yield %n : !tile.tile<128xi32>
  }
  tile.store %w, %s[%c0] : !tile.tile<1xi32>, !tile.tensor<?xi32>
  tile.store %x, %s[%c0] : !tile.tile<128xi32>, !tile.tensor<?xi32>
  return
}
