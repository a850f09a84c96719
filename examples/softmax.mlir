// Row-wise softmax of an MxN f32 matrix, 16 rows a program, any N: one pass
// with an online maximum and sum, then one pass that writes.
func.func @softmax(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x?xf32>)
    attributes {tile.kernel, tile.grid = #tile.grid<cdiv(dim(0, 0), 16)>} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c16 : i32
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %ninf = arith.constant dense<0xFF800000> : !tile.tile<16xf32>
  %zero = arith.constant dense<0.0> : !tile.tile<16xf32>
  %m, %l = scf.for %j = %c0 to %n step %c128 iter_args(%m_i = %ninf, %l_i = %zero)
      -> (!tile.tile<16xf32>, !tile.tile<16xf32>) : i32 {
    %t = tile.load %x[%row, %j] {padding = 0xFF800000 : f32}
        : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
    %mj = tile.reduce max %t dim 1 : !tile.tile<16x128xf32> -> !tile.tile<16xf32>
    %m_new = arith.maximumf %m_i, %mj : !tile.tile<16xf32>
    %me = tile.expand_dims %m_new axis 1 : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
    %mb = tile.broadcast %me : !tile.tile<16x1xf32> -> !tile.tile<16x128xf32>
    %d = arith.subf %t, %mb : !tile.tile<16x128xf32>
    %p = math.exp %d : !tile.tile<16x128xf32>
    %s = tile.reduce sum %p dim 1 : !tile.tile<16x128xf32> -> !tile.tile<16xf32>
    %dm = arith.subf %m_i, %m_new : !tile.tile<16xf32>
    %alpha = math.exp %dm : !tile.tile<16xf32>
    %ls = arith.mulf %l_i, %alpha : !tile.tile<16xf32>
    %l_new = arith.addf %ls, %s : !tile.tile<16xf32>
    scf.yield %m_new, %l_new : !tile.tile<16xf32>, !tile.tile<16xf32>
  }
  %me = tile.expand_dims %m axis 1 : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
  %mb = tile.broadcast %me : !tile.tile<16x1xf32> -> !tile.tile<16x128xf32>
  %le = tile.expand_dims %l axis 1 : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
  %lb = tile.broadcast %le : !tile.tile<16x1xf32> -> !tile.tile<16x128xf32>
  scf.for %j = %c0 to %n step %c128 : i32 {
    %t = tile.load %x[%row, %j] : !tile.tensor<?x?xf32> -> !tile.tile<16x128xf32>
    %d = arith.subf %t, %mb : !tile.tile<16x128xf32>
    %e = math.exp %d : !tile.tile<16x128xf32>
    %o = arith.divf %e, %lb : !tile.tile<16x128xf32>
    tile.store %o, %y[%row, %j] : !tile.tile<16x128xf32>, !tile.tensor<?x?xf32>
  }
  return
}
