// Kernels whose dots read an A operand the loop computes in a layout that
// reaches wgmma's register-A layout only through shared memory (a
// transposed accumulator, as attention backward's Pᵀ): the compiler
// stages it (`a = staged`, docs/OPS.md). test/gpu/test_staged.py runs
// them against float64.

// For 64 keys a program, over query blocks of 64:
//   P = exp(Q Kᵀ · scale),  dV += Pᵀ dO
// One warpgroup (tile.num_warps = 4): Pᵀ staged, read MN-major.
func.func @pt_do(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>,
                 %do: !tile.tensor<?x64xbf16>, %dv: !tile.tensor<?x64xf32>,
                 %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pn = tile.program_id x
  %n0 = arith.muli %pn, %c64 : i32
  %sq = tile.dim %q, 0 : !tile.tensor<?x64xbf16>
  %kt = tile.load %k[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<64x64xf32>
  %r = scf.for %m0 = %c0 to %sq step %c64 iter_args(%acc = %zs) -> (!tile.tile<64x64xf32>) : i32 {
    %qt = tile.load %q[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %dot_ = tile.load %do[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %ss = arith.mulf %s, %st : !tile.tile<64x64xf32>
    %p = math.exp %ss : !tile.tile<64x64xf32>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %na = tile.dot %pt, %dot_, %acc : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %na : !tile.tile<64x64xf32>
  }
  tile.store %r, %dv[%n0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  return
}

// As @pt_do on two warpgroups (tile.num_warps = 8: S splits N), with a
// second dot reading the same Pᵀ after a reduction across warps (P's
// column sums, which overwrite the stage's scratch): Pᵀ is staged again
// for it.
//   dV += Pᵀ dO,  colsum += Σ_rows P,  dK += Pᵀ Q
func.func @pt_two(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>,
                  %do: !tile.tensor<?x64xbf16>, %dv: !tile.tensor<?x64xf32>,
                  %dk: !tile.tensor<?x64xf32>, %cs: !tile.tensor<?xf32>,
                  %scale: f32)
    attributes {tile.kernel, tile.num_warps = 8,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pn = tile.program_id x
  %n0 = arith.muli %pn, %c64 : i32
  %sq = tile.dim %q, 0 : !tile.tensor<?x64xbf16>
  %kt = tile.load %k[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %zc = arith.constant dense<0.0> : !tile.tile<64xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<64x64xf32>
  %r:3 = scf.for %m0 = %c0 to %sq step %c64 iter_args(%av = %zs, %ak = %zs, %ac = %zc)
      -> (!tile.tile<64x64xf32>, !tile.tile<64x64xf32>, !tile.tile<64xf32>) : i32 {
    %qt = tile.load %q[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %dot_ = tile.load %do[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %ss = arith.mulf %s, %st : !tile.tile<64x64xf32>
    %p = math.exp %ss : !tile.tile<64x64xf32>
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %nv = tile.dot %pt, %dot_, %av : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %csum = tile.reduce sum %p dim 0 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
    %nc = arith.addf %ac, %csum : !tile.tile<64xf32>
    %nk = tile.dot %pt, %qt, %ak : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %nv, %nk, %nc : !tile.tile<64x64xf32>, !tile.tile<64x64xf32>, !tile.tile<64xf32>
  }
  tile.store %r#0, %dv[%n0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  tile.store %r#1, %dk[%n0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  tile.store %r#2, %cs[%n0] : !tile.tile<64xf32>, !tile.tensor<?xf32>
  return
}

// As @pt_do, and when `flag` is not 0 each step also adds P's row sums
// into rs (rows m0 .. m0 + 63; programs of other keys add theirs): a
// reduction in a branch of the main loop, which the compute partition
// issues itself (the loop stays warp-specialized).
func.func @pt_do_rowsum(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>,
                        %do: !tile.tensor<?x64xbf16>, %dv: !tile.tensor<?x64xf32>,
                        %rs: !tile.tensor<?xf32>, %scale: f32, %flag: i32)
    attributes {tile.kernel, tile.num_warps = 4,
                tile.grid = #tile.grid<cdiv(dim(1, 0), 64)>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pn = tile.program_id x
  %n0 = arith.muli %pn, %c64 : i32
  %sq = tile.dim %q, 0 : !tile.tensor<?x64xbf16>
  %sk = tile.dim %k, 0 : !tile.tensor<?x64xbf16>
  %kt = tile.load %k[%n0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
  %ktt = tile.transpose %kt [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
  %zs = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %st = tile.splat %scale : f32 -> !tile.tile<64x64xf32>
  %on = arith.cmpi ne, %flag, %c0 : i32
  %iota = tile.iota : !tile.tile<64xi32>
  %n0t = tile.splat %n0 : i32 -> !tile.tile<64xi32>
  %cols = arith.addi %iota, %n0t : !tile.tile<64xi32>
  %skt = tile.splat %sk : i32 -> !tile.tile<64xi32>
  %inkv = arith.cmpi slt, %cols, %skt : !tile.tile<64xi32>
  %inkv2 = tile.expand_dims %inkv axis 0 : !tile.tile<64xi1> -> !tile.tile<1x64xi1>
  %inkvb = tile.broadcast %inkv2 : !tile.tile<1x64xi1> -> !tile.tile<64x64xi1>
  %zero = arith.constant dense<0.0> : !tile.tile<64x64xf32>
  %r = scf.for %m0 = %c0 to %sq step %c64 iter_args(%acc = %zs) -> (!tile.tile<64x64xf32>) : i32 {
    %qt = tile.load %q[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %dot_ = tile.load %do[%m0, %c0] : !tile.tensor<?x64xbf16> -> !tile.tile<64x64xbf16>
    %s = tile.dot %qt, %ktt, %zs : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    %ss = arith.mulf %s, %st : !tile.tile<64x64xf32>
    %p = math.exp %ss : !tile.tile<64x64xf32>
    scf.if %on {
      // Keys past the end would add exp(0) = 1: masked out.
      %pk = arith.select %inkvb, %p, %zero : !tile.tile<64x64xi1>, !tile.tile<64x64xf32>
      %rsum = tile.reduce sum %pk dim 1 : !tile.tile<64x64xf32> -> !tile.tile<64xf32>
      %m0t = tile.splat %m0 : i32 -> !tile.tile<64xi32>
      %rows = arith.addi %iota, %m0t : !tile.tile<64xi32>
      %old = tile.atomic_rmw add %rsum, %rs[%rows] sem relaxed
          : !tile.tile<64xf32>, !tile.tensor<?xf32>, !tile.tile<64xi32>
    }
    %pb = arith.truncf %p : !tile.tile<64x64xf32> to !tile.tile<64x64xbf16>
    %pt = tile.transpose %pb [1, 0] : !tile.tile<64x64xbf16> -> !tile.tile<64x64xbf16>
    %na = tile.dot %pt, %dot_, %acc : !tile.tile<64x64xbf16>, !tile.tile<64x64xbf16> -> !tile.tile<64x64xf32>
    scf.yield %na : !tile.tile<64x64xf32>
  }
  tile.store %r, %dv[%n0, %c0] : !tile.tile<64x64xf32>, !tile.tensor<?x64xf32>
  return
}
