// Layer normalization over the rows of an MxN f32 matrix:
//   y = (x - mean) / sqrt(var + eps) * w + b, 16 rows a program, any N.
func.func @layernorm(%x: !tile.tensor<?x?xf32>, %w: !tile.tensor<?xf32>,
                     %b: !tile.tensor<?xf32>, %y: !tile.tensor<?x?xf32>,
                     %eps: f32)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c16 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<16xf32>
  // Sums of x and x^2 (padding is zero, so it adds nothing).
  %s1, %s2 = scf.for %j = %c0 to %n step %c128 iter_args(%a = %zero, %q = %zero)
      -> (!tile.tile<16xf32>, !tile.tile<16xf32>) : i32 {
    %t = tile.load %x[%row, %j] : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
    %ts = tile.reduce sum %t dim 1 : !tile.tile<16x128xf32> -> !tile.tile<16xf32>
    %t2 = arith.mulf %t, %t : !tile.tile<16x128xf32>
    %t2s = tile.reduce sum %t2 dim 1 : !tile.tile<16x128xf32> -> !tile.tile<16xf32>
    %a2 = arith.addf %a, %ts : !tile.tile<16xf32>
    %q2 = arith.addf %q, %t2s : !tile.tile<16xf32>
    scf.yield %a2, %q2 : !tile.tile<16xf32>, !tile.tile<16xf32>
  }
  %nf = arith.sitofp %n : i32 to f32
  %nt = tile.splat %nf : f32 -> !tile.tile<16xf32>
  %mean = arith.divf %s1, %nt : !tile.tile<16xf32>
  %ex2 = arith.divf %s2, %nt : !tile.tile<16xf32>
  %mean2 = arith.mulf %mean, %mean : !tile.tile<16xf32>
  %var = arith.subf %ex2, %mean2 : !tile.tile<16xf32>
  %epst = tile.splat %eps : f32 -> !tile.tile<16xf32>
  %ve = arith.addf %var, %epst : !tile.tile<16xf32>
  %rstd = math.rsqrt %ve : !tile.tile<16xf32>
  %me = tile.expand_dims %mean axis 1 : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
  %mb = tile.broadcast %me : !tile.tile<16x1xf32> -> !tile.tile<16x128xf32>
  %re = tile.expand_dims %rstd axis 1 : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
  %rb = tile.broadcast %re : !tile.tile<16x1xf32> -> !tile.tile<16x128xf32>
  scf.for %j = %c0 to %n step %c128 : i32 {
    %t = tile.load %x[%row, %j] : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
    %wt = tile.load %w[%j] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
    %bt = tile.load %b[%j] : !tile.tensor<?xf32> -> !tile.tile<128xf32>
    %we = tile.expand_dims %wt axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %wb = tile.broadcast %we : !tile.tile<1x128xf32> -> !tile.tile<16x128xf32>
    %be = tile.expand_dims %bt axis 0 : !tile.tile<128xf32> -> !tile.tile<1x128xf32>
    %bb = tile.broadcast %be : !tile.tile<1x128xf32> -> !tile.tile<16x128xf32>
    %c = arith.subf %t, %mb : !tile.tile<16x128xf32>
    %nrm = arith.mulf %c, %rb : !tile.tile<16x128xf32>
    %o = math.fma %nrm, %wb, %bb : !tile.tile<16x128xf32>
    tile.store %o, %y[%row, %j] : !tile.tile<16x128xf32>, !tile.tensor<?x?xf32>
  }
  return
}
